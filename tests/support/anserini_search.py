"""Anserini's own batch search, as retrievers.lucene.worker called it before 2026-11-26: the reference that the
worker's search (Lucene's sorted top documents, ids from the sort values, retrievers.lucene.hits' tie adjustment)
must equal hit for hit and score for score. Frozen on purpose.

    python -m tests.support.anserini_search INDEX QUERIES_JSON MODEL PARAMS_JSON K OUTPUT

Run with retrievers.lucene.process.worker_environment (it starts a JVM); writes the worker's JSON lines
[qid, [[docid, score], ...]].
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from retrievers.lucene.models import LUCENE_MODELS
from retrievers.lucene.worker import _start_jvm


def main(index: str, queries_path: str, model: str, params: str, k: str, output: str) -> None:
    autoclass = _start_jvm()
    queries = json.loads(Path(queries_path).read_text(encoding="utf-8"))
    searcher = autoclass("io.anserini.search.SimpleSearcher")(index)
    LUCENE_MODELS[model].configure(searcher, json.loads(params), autoclass)
    java_list = autoclass("java.util.ArrayList")
    qids, texts = java_list(), java_list()
    for qid, text in queries.items():
        qids.add(qid)
        texts.add(text)
    results = searcher.batch_search(texts, qids, int(k), 2)
    with open(output, "w", encoding="utf-8") as out:
        for qid in queries:
            json.dump([qid, [[hit.docid, round(hit.score, 6)] for hit in results.get(qid)]], out)
            out.write("\n")
    searcher.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
