"""The effectiveness measures computed natively (gsr.effectiveness.native) equal ir_measures' to the bit on
randomised runs and qrels, `gsr score --json` prints the same numbers either way, and the array reader of run files
(gsr.io.run_arrays) reads what read_trec_run reads, or fails as it fails."""

from __future__ import annotations

import gzip
import json

import ir_measures
import numpy as np
import pytest

from experiments.cli import main
from gsr.effectiveness.evaluate import NATIVE_VARIABLE, evaluate_run, parse_measures
from gsr.effectiveness.native import supports
from gsr.errors import InputError
from gsr.io import run_arrays
from gsr.io.run_arrays import RunArrays, read_run_arrays
from gsr.io.runs import read_trec_run, write_trec_run
from tests.support.toy_collection import score_args, write_toy

NATIVE = [
    "P@1", "P@5", "P@20", "P(rel=2)@5", "R@5", "R@100", "RR", "RR(rel=2)", "RR@1", "RR@3", "RR@10", "RR(rel=2)@5",
    "AP", "AP(rel=2)", "AP@5", "AP@100", "nDCG", "nDCG@1", "nDCG@3", "nDCG@10", "nDCG@100",
]  # fmt: skip
NOT_NATIVE = ["Bpref", "Success@5", "R(rel=2)@10", "nDCG(judged_only=True)@10", "P(judged_only=True)@5", "Rprec"]
SCORE_POOL = np.array([1.0, 1.0 + 1e-9, 1.0 + 2e-9, 2.5, 2.5000001, 0.0, -0.0, -3.25, 7.0, 7.0 + 5e-7])


def random_case(seed: int):
    """Qrels graded 0-3 (some queries without a relevant document, some judged but not retrieved) and a run with
    ties (equal scores, and scores equal only as single-precision floats), unjudged documents, lists shorter than
    the cut-offs, and document ids that sort differently as text and as numbers (and one non-ASCII)."""
    rng = np.random.default_rng(seed)
    pool = [f"d{i}" for i in range(60)] + ["D7", "é1", "e10", "10", "9"]
    qrels, run = {}, {}
    for q in range(int(rng.integers(1, 12))):
        qid = f"q{q}"
        if rng.random() < 0.85:
            judged = rng.choice(len(pool), size=int(rng.integers(1, 25)), replace=False)
            grades = rng.integers(0, 4, size=len(judged)) if rng.random() < 0.8 else np.zeros(len(judged), int)
            qrels[qid] = {pool[d]: int(g) for d, g in zip(judged, grades)}
        if rng.random() < 0.8:
            depth = int(rng.integers(1, 40))
            docs = rng.choice(len(pool), size=min(depth, len(pool)), replace=False)
            if rng.random() < 0.5:
                scores = rng.choice(SCORE_POOL, size=len(docs))
            else:
                scores = np.round(rng.standard_normal(len(docs)) * 5, int(rng.integers(0, 4)))
            run[qid] = [(pool[d], float(s)) for d, s in zip(docs, scores)]
    return qrels, run


def _bits(effectiveness) -> dict:
    return {m: {q: float(v).hex() for q, v in values.items()} for m, values in effectiveness.per_query.items()}


@pytest.mark.parametrize("seed", range(60))
def test_native_measures_equal_ir_measures_to_the_bit(seed, tmp_path, monkeypatch):
    qrels, run = random_case(seed)
    query_ids = sorted(set(qrels) | set(run) | {"absent"})
    measures = parse_measures(NATIVE)
    assert all(supports(m) for m in measures)
    expected = _bits(evaluate_run(run, qrels, measures, query_ids, native=False))
    monkeypatch.setattr(ir_measures, "iter_calc", None)  # none of them left to ir_measures
    assert _bits(evaluate_run(run, qrels, measures, query_ids, native=True)) == expected  # a plain, unranked run
    if run:  # the same run as a file: read into arrays in trec_eval's order, and as the reader's checked run
        path = write_trec_run(run, tmp_path / "run.txt")
        arrays = read_run_arrays(path)
        assert _bits(evaluate_run(arrays, qrels, measures, query_ids)) == expected
        assert _bits(evaluate_run(read_trec_run(path), qrels, measures, query_ids, native=True)) == expected
        judged = [q for q in query_ids if any(g > 0 for g in qrels.get(q, {}).values())]
        for measure in measures:  # ir_measures' own aggregate over the judged queries the run answers
            values = evaluate_run(arrays, qrels, [measure], judged).per_query[str(measure)]
            answered = {q: values[q] for q in judged if q in run}
            if answered:
                monkeypatch.undo()
                mean = ir_measures.calc_aggregate(
                    [measure], {q: qrels[q] for q in answered}, {q: dict(run[q]) for q in answered}
                )
                assert sum(answered.values()) / len(answered) == pytest.approx(mean[measure], abs=1e-12)


def test_measures_native_code_does_not_compute_are_left_to_ir_measures():
    qrels, run = random_case(3)
    measures = parse_measures(NOT_NATIVE + ["nDCG@10"])
    assert not any(supports(m) for m in measures[:-1])
    query_ids = sorted(qrels)
    assert _bits(evaluate_run(run, qrels, measures, query_ids)) == _bits(
        evaluate_run(run, qrels, measures, query_ids, native=False)
    )


@pytest.mark.parametrize(
    "qrels",
    [
        {"q1": {"a": 2, "b": -1, "c": 1}},  # a negative grade: trec_eval's judged-but-unjudged
        {"q1": {"a": 1}, "q2": {}},  # a query with an empty judgment list
    ],
)
def test_qrels_native_code_does_not_reproduce_go_to_ir_measures(qrels):
    run = {"q1": [("a", 3.0), ("b", 2.0), ("c", 1.0)], "q2": [("a", 1.0)]}
    measures = parse_measures(["AP", "nDCG@2", "P@2", "RR@2"])
    native = evaluate_run(run, qrels, measures, ["q1", "q2"])
    assert _bits(native) == _bits(evaluate_run(run, qrels, measures, ["q1", "q2"], native=False))


def test_repeated_documents_and_infinite_scores_go_to_ir_measures():
    qrels = {"q1": {"a": 1, "b": 2}}
    measures = parse_measures(["AP", "nDCG@2", "RR@2", "RR"])
    for run in ({"q1": [("a", 1.0), ("b", 2.0), ("a", 3.0)]}, {"q1": [("a", np.inf), ("b", 1e300)]}):
        native = evaluate_run(run, qrels, measures, ["q1"])
        assert _bits(native) == _bits(evaluate_run(run, qrels, measures, ["q1"], native=False))


def test_gsr_score_prints_the_same_numbers_with_native_measures_and_ir_measures(tmp_path, capsys, monkeypatch):
    folder = write_toy(tmp_path / "toy")
    rng = np.random.default_rng(0)
    docs = [line.split("\t")[0] for line in (folder / "docs.tsv").read_text().splitlines()]
    qids = [line.split("\t")[0] for line in (folder / "topics.tsv").read_text().splitlines()]
    for name in ("a.run", "b.run"):  # scores with ties, some documents unjudged
        run = {
            q: [(d, float(rng.choice([1.0, 2.0, 2.0 + 1e-9, 3.5]))) for d in rng.permutation(docs)[:6]] for q in qids
        }
        write_trec_run(run, folder / name)
    args = ["-q", *score_args(folder, ("a.run", "b.run")), "--resamples", "50", "--json"]
    args += ["--measures", "AP,P@2,RR,RR@3,nDCG@3,nDCG,R@5,Bpref"]
    printed = []
    for native in ("1", "0"):
        monkeypatch.setenv(NATIVE_VARIABLE, native)
        assert main(args) == 0
        printed.append(json.loads(capsys.readouterr().out))
    assert printed[0] == printed[1]
    assert [run["measures"] for run in printed[0]["runs"]] == [run["measures"] for run in printed[1]["runs"]]


# ---------------------------------------------------------------------------------------------- the array reader


def _same_reading(path) -> bool:
    """read_run_arrays(path) reads what read_trec_run(path) reads (order, ids, scores to the bit) or raises its
    error; whether the array reader parsed the file itself (True) or handed it to read_trec_run."""
    try:
        parsed = run_arrays._parse(path) is not None
    except run_arrays._Irregular:
        parsed = False
    try:
        expected = read_trec_run(path)
    except InputError as err:
        with pytest.raises(InputError) as raised:
            read_run_arrays(path)
        assert str(raised.value) == str(err)
        return parsed
    arrays = read_run_arrays(path)
    run = arrays.as_run()
    assert list(run) == list(expected)
    for qid, ranked in expected.items():
        got = run[qid][:]
        assert [d for d, _ in got] == [d for d, _ in ranked]
        assert [s.hex() for _, s in got] == [float(s).hex() for _, s in ranked]
        assert len(run[qid]) == len(ranked) and run[qid][-1] == ranked[-1] and list(run[qid]) == ranked
    assert RunArrays.from_run(run) is arrays
    return parsed


@pytest.mark.parametrize("seed", range(40))
def test_array_reader_reads_random_runs_as_read_trec_run(seed, tmp_path):
    rng = np.random.default_rng(seed)
    forms = ["{:.4f}", "{!r}", "{:.2e}", "{:+.3f}", "{:.0f}", "{:.20f}", "{:.1f}", "{:.3E}"]
    lines = []
    for q in range(int(rng.integers(1, 5))):
        docs = rng.choice(40, size=int(rng.integers(1, 30)), replace=False)
        if rng.random() < 0.5:
            scores = rng.choice(SCORE_POOL, size=len(docs))
        else:
            scores = rng.standard_normal(len(docs)) * 10.0 ** rng.integers(-3, 25)
        form = forms[int(rng.integers(len(forms)))]
        for rank, (doc, score) in enumerate(zip(docs, scores), start=1):
            qid = f"q{q}" if rng.random() < 0.9 else f"q{int(rng.integers(4))}"  # a query in several places
            lines.append(f"{qid}{' ' if rng.random() < 0.8 else chr(9)}Q0 d{doc} {rank} {form.format(float(score))} t")
    end = "\r\n" if rng.random() < 0.2 else "\n"
    text = end.join(lines) + ("" if rng.random() < 0.2 else end)
    path = tmp_path / ("run.txt.gz" if rng.random() < 0.2 else "run.txt")
    path.write_bytes(gzip.compress(text.encode()) if path.suffix == ".gz" else text.encode())
    _same_reading(path)


@pytest.mark.parametrize(
    "text, parsed",
    [
        ("q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 1.5 t\n\n  \t\nq2\tQ0\td1\t1\t-2 t", True),
        ("q1 Q0 d1 +1 1e5 t\nq1 Q0 d2 1 -1.5E-3 t\nq1 Q0 d3 1 .5 t\nq1 Q0 d4 1 5. t\n", True),
        ("q1 Q0 d1 1 99999999999999999999999 t\nq1 Q0 d2 2 0.1000000000000000055511151231257827 t\n", True),
        ("q1 Q0 d1 1 -0 t\nq1 Q0 d2 1 0 t\nq1 Q0 d3 1 1e400 t\nq1 Q0 d4 1 1e-400 t\n", True),
        ("", False),
        ("\n\n", False),
        ("q1 Q0 d1 1 1.5 t\nq1 Q0 d1 2 1.0 t\n", False),  # a repeated document
        ("q1 Q0 d1 1 nan t\n", False),
        ("q1 Q0 d1 1 inf t\n", False),  # read by read_trec_run: an infinite score is a score
        ("q1 Q0 d1 1 1.5 t\nq2 Q0 d1 1 1 t\nq1 Q0 d2 1 1.5 t\n", True),  # q1 in two places
        ("q1 Q0 d1 x 1.5 t\n", False),
        ("q1 Q0 d1 1 1.5\n", False),
        ("q1 Q0 d1 - 1.5 t\n", False),
        ("q1 Q0 d1 1 1_0 t\n", False),
        ("q1 Q0 d1 1 . t\n", False),
        ("q1 Q0 d1 1 1e t\n", False),
        ("\ufeffq1 Q0 d1 1 1 t\n", False),
        ("q1 Q0 dé 1 1 t\n", False),
        ("q1 Q0 d1 1 1.5 t\x0b\n", False),
        ("q1 Q0 d1 1 1.5 t\x00\n", False),
        ("q1 Q0 d\x1f1 1 1.5 t\n", False),
        ("q1 Q0 " + "x" * 300 + " 1 1 t\n", False),
    ],
)
def test_array_reader_parses_the_common_shape_and_hands_over_the_rest(text, parsed, tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(text.encode())
    assert _same_reading(path) == parsed


@pytest.mark.parametrize("seed", range(10))
def test_array_reader_joins_blocks(seed, tmp_path, monkeypatch):
    """Blocks of a few lines: a query's rows meet across blocks, and a block handed over hands the file over."""
    monkeypatch.setattr(run_arrays, "BLOCK", 64)
    rng = np.random.default_rng(seed)
    lines = [f"q{q} Q0 d{d} {d} {rng.choice([1.5, 2.0, 3.25]):.2f} t" for q in range(3) for d in range(12)]
    if seed % 3 == 0:
        lines.insert(int(rng.integers(len(lines))), "q9 Q0 d1 1 nan t")
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    assert _same_reading(path) == (seed % 3 != 0)


# ---------------------------------------------------------------------------------------------- the TSV lister

TSV_CASES = [
    "1\ttext one\n2\ttext two\n",
    "1\ttext\n\n  \n2\ttwo",  # blank lines, no line end at the end
    "1\ttext é ü\n2\tdeux\n",  # UTF-8 text
    "1\ttext\n1\tagain\n",
    "a b\ttext\n",
    " 1\ttext\n1 \ttext 2\n",
    "\t\n",
    "1\n",
    "\ufeff1\ttext\n2\tt\n",
    "1\tte\x00xt\n",
    "x\ttext\r\n y\ttext\r\n",
    "",
    "1\tx\n" * 3 + "2\ty",
    "é\ttext\n",
    "1\t\n2\t\t\n",
    "a\x0b\tb\n",
    "1\tx\n2\tx\n3\tx\n4\tx\n5\tx\n6\tx\n7\tx\n8\tx\nnine\n",  # an error in a later block
]


@pytest.mark.parametrize("block", [64, 1 << 24])
@pytest.mark.parametrize("text", TSV_CASES)
def test_tsv_listing_is_the_line_by_line_listing(text, block, tmp_path, monkeypatch):
    """LineDocuments lists a TSV file by blocks as ListedSource lists it line by line: the same ids, files and
    offsets, or the same error."""
    from gsr.documents import lines
    from gsr.documents.base import ListedSource
    from gsr.documents.opening import open_documents

    monkeypatch.setattr(lines, "BLOCK", block)
    outcomes = []
    for name, data in (("docs.tsv", text.encode()), ("docs.tsv.gz", gzip.compress(text.encode()))):
        (tmp_path / name).write_bytes(data)
        source = open_documents(tmp_path / name)
        for lister in (ListedSource._write_listing, type(source)._write_listing):
            staging = tmp_path / f"{name}-{len(outcomes)}"
            staging.mkdir()
            try:
                lister(source, staging)
                outcomes.append([np.load(staging / f).tolist() for f in ("ids.npy", "files.npy", "offsets.npy")])
            except InputError as err:
                outcomes.append(str(err))
        assert outcomes[-1] == outcomes[-2]


def test_windowed_content_key_is_file_content_key(tmp_path, monkeypatch):
    import mmap

    from gsr.documents import lines
    from gsr.infra.digests import file_content_key

    monkeypatch.setattr(lines, "HASH_WINDOW", mmap.ALLOCATIONGRANULARITY)
    for size in (0, 1, mmap.ALLOCATIONGRANULARITY, 3 * mmap.ALLOCATIONGRANULARITY + 17):
        path = tmp_path / f"f{size}"
        path.write_bytes(np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes())
        assert lines.windowed_content_key(path) == file_content_key(path)
