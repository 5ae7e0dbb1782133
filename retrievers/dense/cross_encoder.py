"""Cross-encoder re-ranking: each query's top-`depth` candidates of an upstream run scored by a sentence-transformers
CrossEncoder on (query, document) pairs, the rest kept below them in run order (as the neural re-rankers do).

A pair longer than the cross-encoder's window is truncated by its tokenizer (the document's end is cut); with MaxP
passages (index.PassageSettings) each passage is scored with the query and the document takes its best passage's
score (Dai & Callan 2019's BERT-MaxP).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from gsr.infra.logs import get as get_logger
from gsr.infra.progress import progress
from gsr.io.types import Run, rank_order
from retrievers.dense.encoders import EncoderError, EncoderLocation, load_cross_encoder
from retrievers.dense.index import PassageSettings
from retrievers.device import out_of_memory, resolve_device

log = get_logger("dense")


class CrossEncoderRanker:
    """A loaded, checked cross-encoder (encoders.load_cross_encoder) and batched scoring of (query, text) pairs."""

    def __init__(self, location: EncoderLocation, model, device: str, batch_size: int = 32):
        self.location, self.model, self.device, self.batch_size = location, model, device, batch_size

    @classmethod
    def load(
        cls, location: EncoderLocation, device: str = "auto", batch_size: int = 32, setting: str = "device"
    ) -> CrossEncoderRanker:
        torch_device = resolve_device(device, setting)
        return cls(location, load_cross_encoder(location, torch_device, batch_size, setting), torch_device, batch_size)

    def score(self, pairs: list[tuple[str, str]], bar=None) -> np.ndarray:
        """float64 scores of the pairs, in batches (longest first, for less padding), in input order."""
        out = np.empty(len(pairs), dtype=np.float64)
        order = np.argsort([-(len(q) + len(d)) for q, d in pairs], kind="stable")
        with out_of_memory(f"scoring with {self.location.folder}", self.device, "lower batch_size"):
            for start in range(0, len(pairs), self.batch_size):
                rows = order[start : start + self.batch_size]
                scores = self.model.predict(
                    [pairs[i] for i in rows], batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
                )
                out[rows] = np.asarray(scores, dtype=np.float64).reshape(-1)
                if bar is not None:
                    bar.update(len(rows))
        if not np.isfinite(out).all():
            raise EncoderError(f"{self.location.folder}: the cross-encoder gave non-finite scores")
        return out


def rerank_run(
    ranker: CrossEncoderRanker,
    queries: Mapping[str, str],
    texts: Mapping[str, str],
    candidates: Run,
    depth: int,
    passages: PassageSettings | None = None,
) -> Run:
    """Each query's top-`depth` candidates re-scored by the cross-encoder (best passage's score under MaxP) and
    ranked by it; the candidates below `depth` follow in run order with lower scores. Queries without text keep
    their candidates."""
    passages = passages if passages is not None else PassageSettings()
    pairs: list[tuple[str, str]] = []
    owners: list[tuple[str, int]] = []  # (qid, candidate position) of each pair
    for qid, ranked in candidates.items():
        if qid not in queries:
            continue
        for position, (docid, _) in enumerate(ranked[:depth]):
            if docid not in texts:
                raise EncoderError(f"no text for candidate document {docid!r} of query {qid!r}")
            for passage in passages.split(texts[docid]):
                pairs.append((queries[qid], passage))
                owners.append((qid, position))
    log.info(
        "scoring %s (query, %s) pairs with %s on %s",
        f"{len(pairs):,}",
        "document" if passages.mode == "first" else "passage",
        ranker.location.name,
        ranker.device,
    )
    with progress(total=len(pairs), desc="cross-encoder", unit="pair") as bar:
        scores = ranker.score(pairs, bar)
    best: dict[tuple[str, int], float] = {}
    for owner, score in zip(owners, scores.tolist()):
        if owner not in best or score > best[owner]:
            best[owner] = score
    run: Run = {}
    for qid, ranked in candidates.items():
        if qid not in queries or not ranked:
            run[qid] = list(ranked)
            continue
        top = ranked[:depth]
        head = rank_order((docid, best[(qid, position)]) for position, (docid, _) in enumerate(top))
        floor = head[-1][1]
        run[qid] = head + [(docid, floor - 1.0 - i) for i, (docid, _) in enumerate(ranked[depth:])]
    return run
