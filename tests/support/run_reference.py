"""gsr.io.runs's run functions as they were before 2026-11-26 (one row at a time): the reference whose every result,
written byte and error message the bulk ones must equal (tests/gsr/test_io.py), and the `before` that
benchmarks/bench_run_io.py times them against. Frozen on purpose: gsr.io.runs's own line-by-line fallback may change,
this may not."""

from __future__ import annotations

from pathlib import Path

from gsr.errors import InputError
from gsr.infra.store import atomic_write
from gsr.io.files import text_lines
from gsr.io.numbers import integer_text
from gsr.io.runs import run_column, run_score
from gsr.io.types import CheckedRun


def rank_order(scored):
    return sorted(scored, key=lambda pair: (pair[1], pair[0]), reverse=True)


def checked_run(rows):
    grouped: dict = {}
    for where, q, d, s in rows:
        s = run_score(s, where)
        docs = grouped.setdefault(q, {})
        if d in docs:
            raise InputError(f"{where}: document {d} appears twice for query {q}")
        docs[d] = s
    return CheckedRun((q, rank_order(docs.items())) for q, docs in grouped.items())


def _rows(path):
    for lineno, line in text_lines(path):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 6:
            raise InputError(f"{path}:{lineno}: expected 6 columns 'qid Q0 docid rank score tag', found {len(parts)}")
        qid, _, docid, rank, score, _ = parts
        where = f"{path}:{lineno}"
        integer_text(rank, where, "rank")
        yield where, qid, docid, run_score(score, where)


def read_trec_run(path, allow_empty=False):
    path = Path(path)
    run = checked_run(_rows(path))
    if not run and not allow_empty:
        raise InputError(f"{path}: the run is empty (no 'qid Q0 docid rank score tag' line)")
    return run


def as_written(run, path):
    return checked_run(
        (f"{path}: query {qid}", qid, docid, float(score)) for qid in sorted(run) for docid, score in run[qid]
    )


def write_trec_run(run, path, tag="gsr"):
    run_column(tag, "the run tag")
    with atomic_write(path) as out:
        for qid in sorted(run):
            run_column(qid, "query id")
            for rank, (docid, score) in enumerate(run[qid], start=1):
                value = float(score)
                if value != value:
                    raise InputError(f"query {qid}, document {docid}: score is NaN, which a TREC run cannot hold")
                out.write(f"{qid} Q0 {run_column(docid, 'document id')} {rank} {value!r} {tag}\n")
    return Path(path)
