"""Anserini's ranked lists, read from Lucene's top documents without loading a stored document per hit.

Anserini's `SimpleSearcher.search` ranks with Lucene (score, then the `id` doc-values field for ties), then loads
every hit's stored document to read its id and runs its score-ties adjuster. On a collection indexed with the raw
text stored, those stored-document loads were most of a search's time (250 demo queries × 1,000 hits: ~8 s of
~10 s). The worker instead asks Lucene for the same sorted top documents and reads each hit's id from the sort
values (Anserini indexes the id both as the stored field and as the sorted doc-values field, the same bytes), and
`adjusted_score_ties` does what the adjuster does, in the same float arithmetic. tests/retrievers/test_lucene.py
compares the result with Anserini's own `batch_search` on collections full of ties.

The top documents reach Python as one JSON text per query, written by the Jackson in Anserini's jar: pyjnius hands
Java arrays over element by element, which cost as much as the loads it replaces.
"""

from __future__ import annotations

import binascii
import json

import numpy as np

# Anserini 1.7.1's io.anserini.rerank.lib.ScoreTiesAdjusterReranker
DECIMALS_SCALE = 10000.0  # scores are rounded to 4 decimals: Math.round(score * 10000.0) / 10000.0, as a float
TIE_GAP = np.float32(1e-4)  # a score at most this far below the (adjusted) one above it is a tie
TIE_STEP = np.float32(1e-6)  # the t-th tie in a row is lowered by t times this


def adjusted_score_ties(scores: np.ndarray) -> np.ndarray:
    """Anserini's ScoreTiesAdjusterReranker on one ranked list of float32 scores, best first: each score rounded to 4
    decimals (Java's Math.round of the score times 10,000 as a double, divided back and narrowed to a float); then,
    down the list, a score whose distance below the adjusted score above it is at most 1e-4 is the t-th tie of a
    row and is lowered by 1e-6·t, so that tied documents keep their order in tools that sort by score. Float32
    arithmetic, as Java's; the Python loop costs ~0.2 µs per hit."""
    scaled = scores.astype(np.float64) * DECIMALS_SCALE  # exact: a float's 24 bits times 10,000's 14 fit a double
    # Math.round(x) is floor(x + 0.5); x + 0.5 is exact here, for scores below 2^23 and any fractional part
    rounded = (np.floor(scaled + 0.5) / DECIMALS_SCALE).astype(np.float32)
    adjusted = rounded.copy()
    ties = 0
    for i in range(1, len(adjusted)):
        if adjusted[i - 1] - rounded[i] > TIE_GAP:  # numpy float32 scalars: float arithmetic, as Java's fsub
            ties = 0
        else:  # also where the difference is NaN, as Java's fcmpl ... ifle
            ties += 1
            adjusted[i] = rounded[i] - TIE_STEP * np.float32(ties)
    return adjusted


def hits_from_top_docs(top_docs_json: str) -> list[list]:
    """[[docid, score], ...] of a Lucene TopFieldDocs sorted by (score, id) as Jackson serialised it: each hit's id
    from its second sort value (a BytesRef: base64 bytes, offset, length), its score as Anserini returns it
    (adjusted_score_ties) rounded to 6 decimals as Anserini's TREC runs print it."""
    hits = json.loads(top_docs_json)["scoreDocs"]
    docids = []
    for hit in hits:
        sort_id = hit["fields"][1]
        start = sort_id["offset"]
        docids.append(binascii.a2b_base64(sort_id["bytes"])[start : start + sort_id["length"]].decode("utf-8"))
    # Jackson writes a float's shortest decimal form; read as a double and narrowed back, it is that float again
    scores = adjusted_score_ties(np.array([hit["score"] for hit in hits], dtype=np.float64).astype(np.float32))
    return [[docid, round(score, 6)] for docid, score in zip(docids, scores.tolist(), strict=True)]
