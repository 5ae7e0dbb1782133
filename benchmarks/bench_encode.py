"""Dense encoding at MS MARCO scale: passages per second of the harness's encoding (retrievers.dense.BiEncoder.encode,
the code `gsr run` and the document-embedding cache use) against sentence-transformers' own `encode` on the same
texts, their ratio (the harness's overhead), and the time extrapolated to MS MARCO's 8,841,823 passages.

    .venv/bin/python benchmarks/bench_encode.py                          # CPU, 2,000 passages of ~56 words
    python3 benchmarks/bench_encode.py --device cuda --passages 100000   # on a GPU

--model: a sentence-transformers folder, `minilm` (the built-in all-MiniLM-L6-v2), or `random:FOLDER` (a folder
holding MiniLM's files but its weights, which are drawn at random: the same architecture, so the same speed, where
the weights cannot travel). Passages are drawn from the tokenizer's whole-word vocabulary with Zipf frequencies,
--words words on average (MS MARCO's passages: about 56). Each way is timed --repeat times, alternating, best kept.
Figures go to stdout; it measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

MSMARCO_PASSAGES = 8_841_823


def passages(vocab_file: Path, n: int, words: int, seed: int = 0) -> list[str]:
    """`n` passages of Poisson(`words`) whole words of the tokenizer's vocabulary, Zipf-weighted by vocabulary rank."""
    vocabulary = [w for w in vocab_file.read_text(encoding="utf-8").split() if w.isalpha() and len(w) > 1]
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, len(vocabulary) + 1)
    weights /= weights.sum()
    lengths = np.maximum(rng.poisson(words, n), 3)
    drawn = rng.choice(len(vocabulary), size=int(lengths.sum()), p=weights)
    out, start = [], 0
    for length in lengths:
        out.append(" ".join(vocabulary[i] for i in drawn[start : start + length]) + ".")
        start += length
    return out


def model_folder(spec: str, work: Path) -> Path:
    """The encoder folder to time: a path, the built-in MiniLM, or MiniLM's files with random weights."""
    if spec == "minilm":
        from retrievers.dense import MINILM

        return MINILM.path()
    if not spec.startswith("random:"):
        return Path(spec)
    import torch
    from transformers import BertConfig, BertModel

    source = Path(spec.split(":", 1)[1])
    folder = work / "random-minilm"
    folder.mkdir(parents=True, exist_ok=True)
    for path in source.rglob("*"):
        if path.is_file() and path.suffix != ".safetensors":
            target = folder / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    torch.manual_seed(0)
    BertModel(BertConfig.from_pretrained(str(source))).save_pretrained(str(folder))
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="minilm")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--passages", type=int, default=2000)
    parser.add_argument("--words", type=int, default=56)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    from retrievers.dense import BiEncoder, locate_encoder

    with tempfile.TemporaryDirectory() as work:
        folder = model_folder(args.model, Path(work))
        texts = passages(folder / "vocab.txt", args.passages, args.words)
        model = SentenceTransformer(str(folder), device=args.device, local_files_only=True)
        harness = BiEncoder(locate_encoder(str(folder)), model, args.device, args.batch_size)
        ways = {
            "sentence-transformers encode": lambda: model.encode(
                texts, batch_size=args.batch_size, convert_to_numpy=True, show_progress_bar=False
            ),
            "harness BiEncoder.encode": lambda: harness.encode(texts, role="document"),
        }
        model.encode(texts[: args.batch_size], batch_size=args.batch_size)  # warm-up: kernels, allocator
        best = dict.fromkeys(ways, float("inf"))
        vectors = {}
        for _ in range(args.repeat):
            for name, encode in ways.items():
                started = time.perf_counter()
                vectors[name] = np.asarray(encode(), dtype=np.float32)
                best[name] = min(best[name], time.perf_counter() - started)
    reference, ours = (vectors[name] for name in ways)
    unit = reference / np.linalg.norm(reference, axis=1, keepdims=True)
    figures = {
        "device": args.device,
        "gpu": _gpu_name(args.device),
        "passages": args.passages,
        "mean_words": args.words,
        "batch_size": args.batch_size,
        "max_abs_difference": float(np.abs(unit - ours).max()),
        "load": list(os.getloadavg()),
        "cpus": os.cpu_count(),
    }
    print(f"{args.passages:,} passages of ~{args.words} words, batch {args.batch_size}, on {figures['gpu'] or 'CPU'}")
    for name, seconds in best.items():
        rate = args.passages / seconds
        hours = MSMARCO_PASSAGES / rate / 3600
        figures[name] = {"s": seconds, "passages_per_s": rate, "msmarco_hours": hours}
        print(f"  {name:<30} {seconds:8.2f} s  {rate:10,.0f} passages/s  8.8 M passages: {hours:7.2f} h")
    overhead = best["harness BiEncoder.encode"] / best["sentence-transformers encode"] - 1
    figures["harness_overhead"] = overhead
    print(f"  harness overhead {overhead:+.1%} (target ≤ 5%); vectors equal to {figures['max_abs_difference']:.1e}")
    print(f"  load average {figures['load'][0]:.2f} on {figures['cpus']} CPUs")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")


def _gpu_name(device: str) -> str | None:
    if not device.startswith("cuda"):
        return None
    import torch

    return torch.cuda.get_device_name(0)


if __name__ == "__main__":
    main()
