"""Where the documents can be: every form of the documents argument gives the GSR of the same documents held in
memory, reading only what the run and the engines need; the random engine's draw is today's."""

from __future__ import annotations

import gzip
import json
import random
import uuid
from pathlib import Path

import numpy as np
import pytest

from gsr import GSR, DocumentStats
from gsr.baselines import random_positions, random_run, ranked_picks
from gsr.documents.base import DocumentSource
from gsr.documents.lines import LineDocuments
from gsr.documents.needed_stats import needed_document_stats
from gsr.documents.opening import open_documents, register_document_source
from gsr.documents.sgml import TrecSgmlDocuments
from gsr.errors import InputError
from gsr.text.analyzer import Analyzer

# --------------------------------------------------------------------------------------------------------------
# A demo-like collection and a run on it, and the same documents in every form


class Demo:
    """1,500 documents of GloVe words (ASCII, for the Latin-1 SGML forms), 40 two-word queries, each with relevant
    documents holding its terms, and a run mixing them with random documents: documents.jsonl, topics.tsv and
    qrels.txt in `folder` (written here rather than by the demo generator, which takes seconds)."""

    def __init__(self, folder: Path, vocabulary: list[str]):
        rng = random.Random(0)
        words = [w for w in vocabulary[200:3000] if w.isascii() and w.isalpha()]
        self.folder = folder
        self.docs = {f"d{i:04d}": " ".join(rng.choices(words, k=rng.randint(30, 90))) for i in range(1500)}
        ids = list(self.docs)
        self.queries, self.qrels = {}, {}
        for q in range(40):
            qid, terms = f"q{q:02d}", rng.sample(words, 2)
            self.queries[qid] = " ".join(terms)
            judged = rng.sample(ids, 8)
            for grade, docid in zip((2, 2, 1, 1, 1, 0, 0, 0), judged):
                if grade:  # relevant documents name the query's terms
                    self.docs[docid] = f"{self.queries[qid]} {self.docs[docid]} {terms[0]}"
                self.qrels.setdefault(qid, {})[docid] = grade
        self.jsonl = folder / "documents.jsonl"
        self.jsonl.write_text(_jsonl(self.docs.items()), encoding="utf-8")
        (folder / "topics.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in self.queries.items()), encoding="utf-8")
        (folder / "qrels.txt").write_text(
            "".join(f"{q} 0 {d} {g}\n" for q, judged in self.qrels.items() for d, g in judged.items()), encoding="utf-8"
        )
        self.run = {}
        for qid in self.queries:
            picked = list(self.qrels.get(qid, {})) + rng.sample(ids, 15)
            rng.shuffle(picked)
            self.run[qid] = [(d, float(len(picked) - r)) for r, d in enumerate(dict.fromkeys(picked))]


@pytest.fixture(scope="module")
def demo(tmp_path_factory, glove) -> Demo:
    return Demo(tmp_path_factory.mktemp("demo"), list(glove.index_to_key))


@pytest.fixture(scope="module")
def expected(demo, glove_lexicon):
    """The report with the documents held in memory (the path every other test of GSR takes)."""
    return GSR(glove_lexicon, random_seed=3).evaluate(demo.run, demo.queries, demo.docs, demo.qrels).to_dict()


def assert_same_report(got, want, where="report"):
    """Equal structure and values; floats to 1e-12 (a subset's term order changes the order of summation)."""
    if isinstance(want, dict):
        assert set(got) == set(want), where
        for key in want:
            assert_same_report(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert len(got) == len(want), where
        for i, (a, b) in enumerate(zip(got, want)):
            assert_same_report(a, b, f"{where}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15), where
    else:
        assert got == want, where


def _jsonl(docs, keys=("id", "contents")) -> str:
    return "".join(json.dumps({keys[0]: d, keys[1]: t}) + "\n" for d, t in docs)


def _sgml(docs) -> str:
    return "".join(f"<DOC>\n<DOCNO> {d} </DOCNO>\n<DATE>990101</DATE>\n<TEXT>\n{t}\n</TEXT>\n</DOC>\n" for d, t in docs)


def _thirds(docs):
    items = list(docs.items())
    size = len(items) // 3 + 1
    return [items[i : i + size] for i in range(0, len(items), size)]


def write_form(form: str, docs: dict[str, str], folder: Path) -> Path:
    """The documents in one of the forms gsr reads, in the same order."""
    folder.mkdir(parents=True)
    items = list(docs.items())
    if form == "jsonl.gz":
        path = folder / "docs.jsonl.gz"
        path.write_bytes(gzip.compress(_jsonl(items).encode()))
    elif form == "beir-jsonl-no-suffix":
        path = folder / "corpus"
        path.write_text(_jsonl(items, ("_id", "text")))
    elif form == "tsv.gz":
        path = folder / "docs.tsv.gz"
        path.write_bytes(gzip.compress("".join(f"{d}\t{t}\n" for d, t in items).encode()))
    elif form == "jsonl-folder":  # an Anserini JsonCollection folder: shards, one of them gzip'd
        path = folder
        for i, part in enumerate(_thirds(docs)):
            shard = folder / f"docs{i:02d}.jsonl"
            if i == 1:
                shard.with_suffix(".jsonl.gz").write_bytes(gzip.compress(_jsonl(part).encode()))
            else:
                shard.write_text(_jsonl(part))
    elif form == "sgml-folder":  # TREC disks: sub-folders, plain and gzip'd files, a README
        path = folder
        for i, part in enumerate(_thirds(docs)):
            (folder / f"part{i}").mkdir()
            text = _sgml(part).encode("latin-1")
            if i == 2:
                (folder / f"part{i}" / f"fb{i}.gz").write_bytes(gzip.compress(text))
            else:
                (folder / f"part{i}" / f"fb{i}").write_bytes(text)
        (folder / "part0" / "readme.txt").write_text("not documents")
    elif form == "sgml.gz":
        path = folder / "la010189.gz"
        path.write_bytes(gzip.compress(_sgml(items).encode("latin-1")))
    elif form == "sgml-named-txt":  # a file named by the user is read whatever its suffix (a folder's .txt is not)
        path = folder / "docs.txt"
        path.write_bytes(_sgml(items).encode("latin-1"))
    else:
        raise AssertionError(form)
    return path


FORMS = ("jsonl.gz", "beir-jsonl-no-suffix", "tsv.gz", "jsonl-folder", "sgml-folder", "sgml.gz", "sgml-named-txt")


@pytest.mark.parametrize("form", FORMS)
def test_every_file_form_gives_the_gsr_of_the_documents_in_memory(form, demo, expected, glove_lexicon, tmp_path):
    path = write_form(form, demo.docs, tmp_path / form)
    report = GSR(glove_lexicon, random_seed=3).evaluate(demo.run, demo.queries, str(path), demo.qrels, n_jobs=1)
    assert_same_report(report.to_dict(), expected)
    assert report.random.n_queries > 20  # the random engine was measured, on documents drawn from the file


def test_plain_jsonl_path_and_whole_collection_api_agree(demo, expected, glove_lexicon):
    measure = GSR(glove_lexicon, random_seed=3)
    assert_same_report(measure.evaluate(demo.run, demo.queries, demo.jsonl, demo.qrels, n_jobs=1).to_dict(), expected)
    whole = measure.documents(demo.jsonl, n_jobs=1)  # every document, for any later run
    assert len(whole.stats) == len(demo.docs)
    assert_same_report(measure.evaluate(demo.run, demo.queries, whole, demo.qrels).to_dict(), expected)


def test_gsr_score_reads_gzipped_jsonl(demo, tmp_path, capsys):
    from experiments.cli import main
    from gsr.io.runs import write_trec_run

    run = write_trec_run(demo.run, tmp_path / "run.txt")
    gz = write_form("jsonl.gz", demo.docs, tmp_path / "gz")
    outputs = []
    for docs in (demo.jsonl, gz):
        assert (
            main(
                [
                    "score",
                    "--run",
                    str(run),
                    "--topics",
                    str(demo.jsonl.parent / "topics.tsv"),
                    "--docs",
                    str(docs),
                    "--qrels",
                    str(demo.jsonl.parent / "qrels.txt"),
                    "--json",
                    "--jobs",
                    "1",
                ]
            )
            == 0
        )
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0]["n_queries"] > 20
    assert_same_report(outputs[1], outputs[0])


# --------------------------------------------------------------------------------------------------------------
# ir_datasets


@pytest.fixture(scope="module")
def irds_name(demo, tmp_path_factory):
    """The demo documents as an ir_datasets dataset registered here (JSON lines, ir_datasets' own docstore)."""
    ir_datasets = pytest.importorskip("ir_datasets")
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import GenericDoc, JsonlDocs
    from ir_datasets.util import LocalDownload

    path = tmp_path_factory.mktemp("irds") / "docs.jsonl"
    path.write_text(_jsonl(demo.docs.items(), ("doc_id", "text")))
    name = f"gsr-test/demo-{uuid.uuid4().hex[:8]}"
    docs = JsonlDocs(LocalDownload(path), doc_cls=GenericDoc, mapping={"doc_id": "doc_id", "text": "text"})
    ir_datasets.registry.register(name, Dataset(docs))
    return name


def test_ir_datasets_id_gives_the_gsr_of_the_documents_in_memory(irds_name, demo, expected, glove_lexicon):
    report = GSR(glove_lexicon, random_seed=3).evaluate(
        demo.run, demo.queries, f"irds:{irds_name}", demo.qrels, n_jobs=1
    )
    assert_same_report(report.to_dict(), expected)


def test_ir_datasets_source_positions_follow_docs_iter(irds_name, demo):
    source = open_documents(f"irds:{irds_name}")
    ids = list(demo.docs)
    assert source.count() == len(ids)
    assert source.ids_at([0, 7, len(ids) - 1, 7]) == [ids[0], ids[7], ids[-1], ids[7]]
    assert dict(source.texts([ids[3], "no-such-document"])) == {ids[3]: demo.docs[ids[3]]}


def test_unknown_ir_datasets_id_is_an_input_error():
    with pytest.raises(InputError, match="ir_datasets has no dataset 'no/such-dataset'"):
        open_documents("irds:no/such-dataset")


# --------------------------------------------------------------------------------------------------------------
# Reading only what is needed


class CountingSource(DocumentSource):
    """A DocumentSource of the caller's own that records what it is asked for."""

    def __init__(self, docs: dict[str, str]):
        self.docs, self.ids = docs, list(docs)
        self.asked: list[tuple] = []

    def version(self):
        return "counting-" + str(len(self.docs))

    def __iter__(self):
        self.asked.append(("all",))
        return iter(self.docs.items())

    def count(self):
        self.asked.append(("count",))
        return len(self.ids)

    def ids_at(self, positions):
        self.asked.append(("ids_at", tuple(positions)))
        return [self.ids[p] for p in positions]

    def texts(self, wanted):
        wanted = set(wanted)
        self.asked.append(("texts", frozenset(wanted)))
        return ((d, self.docs[d]) for d in wanted if d in self.docs)


def test_evaluate_reads_only_the_run_the_perfect_and_the_random_documents(tiny_lexicon):
    docs = {f"d{i}": ("man tools" if i % 2 else "woman care") for i in range(50)}
    queries = {"q1": "electrician", "q2": "nurse"}
    qrels = {"q1": {"d1": 1, "d3": 1}, "q2": {"d2": 1, "d40": 0}}
    run = {"q1": [("d5", 3.0), ("ghost", 2.0), ("d7", 1.0)], "q2": [("d8", 2.0), ("d9", 1.0)]}
    source = CountingSource(docs)
    report = GSR(tiny_lexicon, random_seed=1).evaluate(run, queries, source, qrels, n_jobs=1)
    # the draw the random engine makes: q1 then q2 (id order), K = 2 and 1
    rng = np.random.default_rng(1)
    drawn = [int(p) for p in rng.choice(50, size=2, replace=False)] + [int(rng.choice(50, size=1, replace=False)[0])]
    kinds = [a[0] for a in source.asked]
    assert kinds == ["count", "ids_at", "texts"]  # never the whole collection
    assert source.asked[1][1] == tuple(drawn)
    # K = 2 for q1 and 1 for q2 cut d7 and d9; the run's, the perfect engine's and the drawn documents only
    assert source.asked[2][1] == {"d5", "ghost", "d8", "d1", "d3", "d2"} | {f"d{p}" for p in drawn}
    assert report.system.unknown_docids == 1
    expected = GSR(tiny_lexicon, random_seed=1).evaluate(run, queries, docs, qrels)
    assert_same_report(report.to_dict(), expected.to_dict())


def test_a_file_is_listed_once_then_read_only_where_needed(tmp_path, tiny_lexicon, monkeypatch):
    docs = {f"d{i}": ("man tools" if i % 3 else "woman care nurse") for i in range(200)}
    path = tmp_path / "docs.jsonl.gz"
    path.write_bytes(gzip.compress(_jsonl(docs.items()).encode()))
    queries, qrels = {"q1": "electrician", "q2": "nurse"}, {"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 1}}
    run = {"q1": [("d10", 2.0), ("d11", 1.0)], "q2": [("d12", 1.0)]}
    passes, read = [], []
    records, read_at = LineDocuments.records, LineDocuments.read_at
    monkeypatch.setattr(LineDocuments, "records", lambda self, i, p: passes.append(p) or records(self, i, p))
    monkeypatch.setattr(
        LineDocuments, "read_at", lambda self, i, p, offsets: read.append(len(offsets)) or read_at(self, i, p, offsets)
    )
    first = GSR(tiny_lexicon, random_seed=1).evaluate(run, queries, path, qrels, n_jobs=1)
    assert passes == [path] and read == [9]  # one listing pass; then 3 run + 3 perfect + 3 drawn documents
    GSR(tiny_lexicon, random_seed=2).evaluate(run, queries, path, qrels, n_jobs=1)  # another draw
    assert passes == [path] and len(read) == 2  # the listing is reused from the cache
    with monkeypatch.context() as patch:  # the same run and draw: the statistics come from the cache
        patch.setattr(DocumentStats, "build", lambda *a, **k: pytest.fail("needed statistics not reused"))
        again = GSR(tiny_lexicon, random_seed=1).evaluate(run, queries, path, qrels, n_jobs=1)
    assert_same_report(again.to_dict(), first.to_dict())
    assert len(read) == 2


def test_needed_statistics_hold_only_the_needed_documents_and_are_cached_in_two_parts():
    docs = {f"d{i}": f"{'ab' * (i + 1)} common" for i in range(30)}
    source = CountingSource(docs)
    needed = needed_document_stats(
        source, {"d4", "d9", "gone"}, {"d9", "d11"}, np.array([2, 9, 29]), Analyzer(), n_jobs=1
    )
    assert needed.drawn == ["d2", "d9", "d29"]
    assert sorted(needed.runs.docids) == ["d4", "d9"]
    assert sorted(needed.engines.docids) == ["d11", "d2", "d29", "d9"]
    assert set(needed.engines.vocabulary) == {"common"} | {"ab" * n for n in (3, 10, 12, 30)}
    assert needed.engines.counts.sum() == 8  # two words each
    assert source.asked == [("ids_at", (2, 9, 29)), ("texts", frozenset({"d4", "d9", "gone", "d11", "d2", "d29"}))]
    source.asked.clear()
    other_run = needed_document_stats(source, {"d5"}, {"d9", "d11"}, np.array([2, 9, 29]), Analyzer(), n_jobs=1)
    assert source.asked == [("ids_at", ()), ("texts", frozenset({"d5"}))]  # the engines' part is reused
    assert other_run.runs.docids == ["d5"] and other_run.drawn == needed.drawn
    source.asked.clear()
    needed_document_stats(source, {"d5"}, {"d9", "d11"}, np.array([2, 9, 29]), Analyzer(), n_jobs=1)
    assert source.asked == []


# --------------------------------------------------------------------------------------------------------------
# The random engine


def reference_random_run(qrels, docids, seed):
    """The random engine as it was before documents could be read in part (copied, not imported)."""
    rng = np.random.default_rng(seed)
    run = {}
    for qid, k in sorted({q: sum(1 for g in j.values() if g > 0) for q, j in qrels.items()}.items()):
        if k == 0:
            continue
        picks = rng.choice(len(docids), size=min(k, len(docids)), replace=False)
        run[qid] = [(docids[i], float(len(picks) - r)) for r, i in enumerate(picks)]
    return run


@pytest.mark.parametrize("seed, n", [(0, 5), (1, 100), (7, 20_000), (3, 3)])
def test_random_engine_draw_is_unchanged(seed, n):
    qrels = {"b": {"x": 1, "y": 2, "z": 0}, "a": {"x": 1}, "c": {"x": 0}, "d": {f"r{i}": 1 for i in range(9)}}
    docids = [f"D{i}" for i in range(n)]
    expected = reference_random_run(qrels, docids, seed)
    assert random_run(qrels, docids, seed) == expected
    picks = random_positions(qrels, n, seed)
    assert list(picks) == ["a", "b", "d"]
    assert ranked_picks(picks, {int(p): docids[p] for ps in picks.values() for p in ps}) == expected


# --------------------------------------------------------------------------------------------------------------
# Forms, errors and resolvers


def test_sgml_source_reads_trec_web_without_headers_or_scripts(tmp_path):
    path = tmp_path / "web.gz"
    page = (
        "<DOC>\n<DOCNO>WTX001-B01-1</DOCNO>\n<DOCHDR>\nhttp://example.org/ HTTP/1.0 200 OK\n</DOCHDR>\n"
        "<html><head><script>var man = 1;</script><style>p {}</style></head>\n"
        "<body><!-- he said --><p>The nurse &amp; her patient.</p></body></html>\n</DOC>\n"
    )
    path.write_bytes(gzip.compress(page.encode("latin-1")))
    source = open_documents(path)
    assert isinstance(source, TrecSgmlDocuments)
    assert dict(source) == {"WTX001-B01-1": "The nurse her patient."}
    assert dict(source.texts(["WTX001-B01-1"])) == {"WTX001-B01-1": "The nurse her patient."}


@pytest.mark.parametrize(
    "name, content, message",
    [
        (
            "dup.jsonl",
            '{"id": "a", "contents": "x"}\n\n{"id": "b", "contents": "y"}\n{"id": "a", "contents": "z"}\n',
            r"dup.jsonl:4: document id a appears twice \(first at .*dup.jsonl:1\)",
        ),
        ("bad.jsonl", '{"id": "a", "contents": "x"}\n{"id": "b"\n', r"bad.jsonl:2: invalid JSON"),
        ("notext.jsonl", '{"id": "a"}\n', r"notext.jsonl:1: no document text field"),
        ("bad.tsv", "a\tx\nb only\n", r"bad.tsv:2: expected 'docid<TAB>text'"),
        ("prose.txt", "just some words\n", r"prose.txt: not a documents file"),
        ("empty.jsonl", "\n\n", r"empty.jsonl: no documents"),
        (
            "dup.sgml",
            "<DOC><DOCNO>A</DOCNO>x</DOC>\n<DOC>\n<DOCNO>A</DOCNO></DOC>\n",
            r"dup.sgml:2: document id A appears twice \(first at .*dup.sgml:1\)",
        ),
    ],
)
def test_bad_documents_name_file_and_line(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        open_documents(path).count()


def test_broken_gzip_and_missing_paths_are_input_errors(tmp_path):
    broken = tmp_path / "docs.jsonl.gz"
    broken.write_bytes(gzip.compress(_jsonl([("a", "x")] * 50).encode())[:40])
    with pytest.raises(InputError, match="docs.jsonl.gz: broken or not gzip-compressed"):
        open_documents(broken).count()
    with pytest.raises(InputError, match="nowhere.jsonl: no such file or folder"):
        open_documents(tmp_path / "nowhere.jsonl")


def test_lucene_index_without_a_registered_reader_is_explained(tmp_path, monkeypatch):
    import gsr.documents.opening

    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "segments_1").write_bytes(b"")
    monkeypatch.setattr(gsr.documents.opening, "_RESOLVERS", [])
    monkeypatch.setattr(gsr.documents.opening, "_entry_points_loaded", True)
    with pytest.raises(InputError, match="a Lucene index, but no reader for Lucene indexes is registered"):
        open_documents(tmp_path / "index")


class MineSource(CountingSource):
    pass


def mine_resolver(path):
    """A document source a plugin declares (by this module's name) under gsr.document_sources: `.mine` files."""
    return MineSource({"x": "man"}) if path.suffix == ".mine" else None


def test_resolvers_come_from_registration_and_entry_points(tmp_path, monkeypatch):
    """An entry point's resolver joins the registered ones when a path no built-in reader knows by name is opened
    (guarded: what it opens has a version covering its code); registering one twice keeps one."""
    from importlib.metadata import EntryPoint

    import gsr.documents.opening
    import gsr.infra.plugins

    declared = EntryPoint("mine", f"{__name__}:mine_resolver", "gsr.document_sources")
    monkeypatch.setattr(gsr.documents.opening, "_RESOLVERS", [])
    monkeypatch.setattr(gsr.documents.opening, "_entry_points_loaded", False)
    monkeypatch.setattr(gsr.infra.plugins, "entry_points", lambda group: [declared] if group == declared.group else [])
    (tmp_path / "docs.mine").write_text("")
    opened = open_documents(tmp_path / "docs.mine")
    assert isinstance(opened, MineSource) and opened.version() != MineSource({"x": "man"}).version()
    assert len(gsr.documents.opening._RESOLVERS) == 1
    register_document_source(mine_resolver)  # registered by code as well
    register_document_source(mine_resolver)  # twice: kept once
    assert gsr.documents.opening._RESOLVERS[1:] == [mine_resolver]


def test_pyproject_declares_the_lucene_entry_point():
    import importlib
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    target = project["project"]["entry-points"]["gsr.document_sources"]["lucene"]
    module, name = target.split(":")
    assert callable(getattr(importlib.import_module(module), name))


def test_gsr_does_not_import_the_other_packages():
    import subprocess
    import sys

    code = (
        "import sys, gsr, gsr.documents, gsr.evaluate; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('retrievers', 'experiments', 'embeddings')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip() == "[]"


def test_files_collection_kind_takes_any_documents_form(demo, tmp_path):
    from experiments.collections import load_collection

    gz = write_form("sgml.gz", demo.docs, tmp_path / "sgml")
    folder = demo.jsonl.parent
    collection = load_collection(
        {
            "kind": "files",
            "documents": str(gz),
            "topics": str(folder / "topics.tsv"),
            "qrels": str(folder / "qrels.txt"),
        }
    )
    assert dict(open_documents(collection.documents)) == demo.docs


def test_config_keeps_irds_names_as_names(tmp_path):
    from experiments.config.experiment import load_config

    config = tmp_path / "c.toml"
    config.write_text(
        '[collection]\nkind = "files"\ndocuments = "irds:msmarco-passage"\ntopics = "t.tsv"\n'
        'qrels = "q.txt"\n[embeddings]\nglove = { source = "glove-6b-50d" }\n'
        '[gsr]\nmeasuring = ["glove"]\n[[systems]]\nname = "BM25"\nmodel = "bm25"\n'
    )
    assert load_config(config).collection["documents"] == "irds:msmarco-passage"


# --------------------------------------------------------------------------------------------------------------
# Lucene indexes (a JVM)


@pytest.fixture(scope="module")
def indexes(demo, tmp_path_factory):
    """The demo documents indexed with one thread (Lucene's document numbers follow the file), storing raw text
    (as build_index does by default) or only the contents."""
    lucene = pytest.importorskip("retrievers.lucene")
    folder = tmp_path_factory.mktemp("indexes")
    return {
        store: lucene.build_index(demo.jsonl, folder / store, threads=1, store=(store,))
        for store in ("raw", "contents")
    }


@pytest.mark.slow
@pytest.mark.parametrize("store", ["raw", "contents"])
def test_lucene_index_gives_the_gsr_of_the_documents_in_memory(
    store, indexes, demo, expected, glove_lexicon, monkeypatch
):
    import retrievers.lucene.source

    monkeypatch.setattr(
        retrievers.lucene.source, "stored_documents", lambda *a, **k: pytest.fail("the whole index was exported")
    )
    report = GSR(glove_lexicon, random_seed=3).evaluate(
        demo.run, demo.queries, str(indexes[store]), demo.qrels, n_jobs=1
    )
    assert_same_report(report.to_dict(), expected)


@pytest.mark.slow
def test_lucene_source_reads_positions_and_ids_in_one_worker(indexes, demo):
    from retrievers.lucene import LuceneIndexDocuments, fetch_documents

    ids = list(demo.docs)
    source = open_documents(indexes["raw"])
    assert isinstance(source, LuceneIndexDocuments) and source.count() == len(ids)
    drawn, texts = fetch_documents(indexes["contents"], {ids[5], "no-such-document"}, [9, 0, 9])
    assert drawn == [ids[9], ids[0], ids[9]]
    assert dict(texts) == {d: demo.docs[d] for d in (ids[9], ids[0], ids[5])}


@pytest.mark.slow
def test_position_outside_the_index_is_a_lucene_error(indexes, demo):
    from retrievers.lucene import LuceneError, fetch_documents

    with pytest.raises(LuceneError, match=f"position {len(demo.docs)} is outside the index's"):
        fetch_documents(indexes["raw"], (), [len(demo.docs)])


def test_excluded_terms_are_kept_read_only_and_g_of_a_document_is_the_same_in_any_list(tiny_lexicon):
    """The report computes g_q(d) once per query for the documents of every system's list together, and asks
    excluded_terms again for each query: a document's g_q(d) must not depend on the rows asked with it (to the
    bit), and a kept answer must equal a fresh one and be safe from callers."""
    docs = [f"d{i}" for i in range(40)]
    words = ["man", "woman", "nurse", "nurses", "nursing", "she", "he", "care", "tools", "wire", "hospital", "x"]
    rng = random.Random(3)
    texts = [(d, " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))) for d in docs]
    gendered = DocumentStats.build(texts, n_jobs=1).gendered(tiny_lexicon)
    for query in (["nurse", "care"], ["care", "nurse", "nurse"], ["tools"], ["unknown"], []):
        kept = gendered.excluded_terms(query)
        fresh = DocumentStats.build(texts, n_jobs=1).gendered(tiny_lexicon).excluded_terms(query)
        assert kept.tolist() == fresh.tolist() and gendered.excluded_terms(query) is kept
        with pytest.raises(ValueError):
            kept[:] = 0
        lists = [rng.sample(range(len(docs)), 10) for _ in range(5)]
        together = dict.fromkeys(row for rows in lists for row in rows)
        g = dict(zip(together, gendered.query_document_genderedness(query, np.array(list(together))).tolist()))
        for rows in lists:
            alone = gendered.query_document_genderedness(query, np.array(rows)).tolist()
            assert np.array_equal(alone, [g[row] for row in rows], equal_nan=True)


@pytest.mark.parametrize("name", ["docs.tsv", "docs.tsv.gz"])
def test_tsv_documents_with_cr_only_line_ends_are_refused(tmp_path, own_cache, name):
    """A TSV file saved with CR alone ending its lines is one line: read, it would be one document holding all the
    others, and a run's ids would be missing from the collection (a misleading reason). Refused at its first line, as
    CR-only topics and stop lists are; CRLF line ends are read."""
    path = tmp_path / name
    content = b"d1\tshe is a nurse\rd2\the is a doctor\r"
    path.write_bytes(gzip.compress(content) if name.endswith(".gz") else content)
    with pytest.raises(InputError, match=rf"{name}:1: a carriage return \(CR\) inside the line"):
        dict(open_documents(path))
    content = b"d1\tshe is a nurse\r\nd2\the is a doctor\r\n"
    (tmp_path / f"crlf-{name}").write_bytes(gzip.compress(content) if name.endswith(".gz") else content)
    path = tmp_path / f"crlf-{name}"
    assert dict(open_documents(path)) == {"d1": "she is a nurse", "d2": "he is a doctor"}
