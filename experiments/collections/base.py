"""What every collection kind shares: the Collection, its canonical documents file, source keys, the topic/qrels
path helpers and the consistency checks.

Every source is converted once into one canonical JSONL file ({"id", "contents"} per line) in the cache. The
file's SHA-256 is the collection's key: indexes, document statistics, document vectors and runs are all cached
under it, so a changed collection can never be served stale results. The file is verified (size and content
hash) before each reuse; a damaged copy is rebuilt from the source.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from experiments.registry import COLLECTION_KINDS
from gsr.documents.lines import checked_document_id
from gsr.errors import InputError
from gsr.infra import plugins
from gsr.infra.digests import content_key, file_content_key, folder_content_key
from gsr.infra.progress import progress
from gsr.infra.store import atomic_write, cache_dir, cached_folder
from gsr.io.files import read_json
from gsr.io.types import Qrels

BUILTIN_COLLECTIONS = ("demo", "toy1", "toy2", "grepbiasir")


@dataclass
class Collection:
    """A collection ready for the runner: canonical documents file, topics, qrels and the content key."""

    name: str
    documents: Path
    queries: dict[str, str]
    qrels: Qrels
    key: str
    folds: list[list[str]] | None = None
    notes: list[str] = field(default_factory=list)
    query_categories: dict[str, str] = field(default_factory=dict)  # qid -> category, where the source has them
    document_genders: dict[str, str] = field(default_factory=dict)  # docid -> female | male | neutral | both

    def judged_queries(self) -> list[str]:
        """Topics with at least one relevant document: the ones every measure is averaged over."""
        return sorted(q for q in self.queries if any(g > 0 for g in self.qrels.get(q, {}).values()))

    def unjudged_queries(self) -> list[str]:
        """Topics without any relevant judgment; reported, never silently dropped."""
        judged = set(self.judged_queries())
        return sorted(q for q in self.queries if q not in judged)

    def texts(self, wanted: set[str]) -> dict[str, str]:
        """Texts of the `wanted` documents (see read_texts)."""
        return read_texts(self.documents, wanted)


_ID_START = '{"id": '  # how _write_canonical's json.dumps begins every line
_STRING = json.JSONDecoder()


def read_texts(documents: Path, wanted: set[str]) -> dict[str, str]:
    """Texts of the `wanted` documents, read in one pass over a canonical JSONL file. A line's id is decoded alone
    (its contents only where it is wanted: most lines are not, and decoding every text was most of a pass)."""
    texts = {}
    with open(documents, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(_ID_START):
                docid = _STRING.raw_decode(line, len(_ID_START))[0]
                if docid not in wanted:
                    continue
            record = json.loads(line)
            if record["id"] in wanted:
                texts[record["id"]] = record["contents"]
    return texts


def collections_cache() -> Path:
    """Where canonical documents files (and the generated demo) are cached."""
    return cache_dir() / "collections"


def source_key(paths: Iterable[Path], *extra) -> str:
    """Version of the source files or folders (path, size, mtime); cheap to compute, so checked on every run."""
    keys = []
    for path in paths:
        if not path.exists():
            raise InputError(f"{path}: no such file or folder")
        keys.append(file_content_key(path) if path.is_file() else folder_content_key(path))
    return content_key(keys, *extra)


def _write_canonical(documents: Iterable[tuple[str, str]], folder: Path) -> None:
    digest = hashlib.sha256()
    seen: set[str] = set()
    with (
        open(folder / "documents.jsonl", "w", encoding="utf-8") as out,
        progress(desc="converting the collection", unit="doc", unit_scale=True) as bar,
    ):
        for n, (docid, text) in enumerate(documents, start=1):
            checked_document_id(docid, f"document {n} of the collection")
            if docid in seen:
                raise InputError(f"document id {docid} appears more than once in the collection")
            seen.add(docid)
            line = json.dumps({"id": docid, "contents": text}, ensure_ascii=False) + "\n"
            digest.update(line.encode("utf-8"))
            out.write(line)
            bar.update()
    if not seen:
        raise InputError("the collection has no documents")
    (folder / "documents.sha256").write_text(digest.hexdigest()[:16] + "\n", encoding="utf-8")


def canonical_documents(source: str, documents: Callable[[], Iterable[tuple[str, str]]]) -> tuple[Path, str]:
    """Write (docid, text) pairs once as the canonical JSONL; returns its path and content hash.

    Duplicate document ids are an error: qrels and runs could not tell the copies apart. Called by a plugin's
    collection kind, the entry's name covers the plugin's code too (its code reads the documents).
    """
    plugin = plugins.current()
    if plugin is not None:
        source = f"{source}-{plugin.code_key}"
    folder, _ = cached_folder(collections_cache() / source, lambda staging: _write_canonical(documents(), staging))
    return folder / "documents.jsonl", (folder / "documents.sha256").read_text(encoding="utf-8").strip()


def topics_path(value: str, what: str) -> Path:
    """A path, or 'pyserini:NAME' for a file in Pyserini's topic/qrels cache."""
    if value.startswith("pyserini:"):
        name = value.split(":", 1)[1]
        filename = name if "." in name else f"{what}.{name}.txt"
        path = pyserini_cache_file(filename)
        if not path.exists():
            raise InputError(f"{path}: not in Pyserini's cache; give the {what} file's path instead of {value!r}")
        return path
    return Path(value)


def read_topics(value: str, field: str = "title") -> dict[str, str]:
    """Topics from a path, 'pyserini:NAME' (Pyserini's cache), 'irds:ID' (an ir_datasets dataset's queries) or the
    built-in 'msmarco-gender' topic set ('msmarco-gender:n', ':f', ':m', ':o', ':f,m', ...) or a built-in
    fairness-sensitive one ('fairness-sensitive:msmarco-dev', ':dl19', with filters such as ':category=Career')."""
    from gsr.io.convert import as_queries
    from gsr.io.fairness_sensitive import is_fairness_sensitive
    from gsr.io.msmarco_gender import is_msmarco_gender
    from gsr.io.records import IRDS_PREFIX
    from gsr.io.topics import read_queries

    if value.startswith(IRDS_PREFIX) or is_msmarco_gender(value) or is_fairness_sensitive(value):
        return as_queries(value, field)
    return read_queries(topics_path(value, "topics"), field)


def read_judgments(value: str) -> Qrels:
    """Qrels from a path, 'pyserini:NAME' or 'irds:ID' (an ir_datasets dataset's qrels)."""
    from gsr.io.convert import as_qrels
    from gsr.io.qrels import read_qrels
    from gsr.io.records import IRDS_PREFIX

    if value.startswith(IRDS_PREFIX):
        qrels = as_qrels(value)
        assert qrels is not None  # only None becomes None
        return qrels
    return read_qrels(topics_path(value, "qrels"))


def pyserini_cache_file(name: str) -> Path:
    """Where Pyserini/Anserini keep topic and qrels files (e.g. topics.robust04.txt, qrels.robust04.txt)."""
    root = Path(os.environ.get("PYSERINI_CACHE", Path.home() / ".cache" / "pyserini"))
    return root / "topics-and-qrels" / name


def read_folds(spec: dict) -> list[list[str]] | None:
    """Cross-validation folds: a JSON file of query-id lists (e.g. the usual Robust04 five folds)."""
    if "folds" not in spec:
        return None
    path = Path(spec["folds"])
    folds = read_json(path)
    if isinstance(folds, dict):
        folds = list(folds.values())
    if not (isinstance(folds, list) and folds and all(isinstance(f, list) for f in folds)):
        raise InputError(f"{path}: expected a list of query-id lists (one per fold)")
    return [[str(q) for q in fold] for fold in folds]


def load_collection(spec: dict | str) -> Collection:
    """A collection from its config table ({'kind': ..., ...}) or a built-in name, checked for consistency."""
    if isinstance(spec, str):
        spec = {"kind": spec}
    collection = COLLECTION_KINDS.get(spec.get("kind")).load(spec)
    if collection.folds is None:
        collection.folds = read_folds(spec)
    check_consistency(collection)
    return collection


def check_consistency(collection: Collection) -> None:
    """Qrels must name the collection's documents and topics; a total mismatch is an error, a partial one a note."""
    docids = collection_docids(collection.documents)
    judged_ids = {d for judged in collection.qrels.values() for d in judged}
    if not collection.qrels:
        raise InputError(f"collection {collection.name}: the qrels are empty")
    known = judged_ids & docids
    if not known:
        example = next(iter(sorted(judged_ids)))
        raise InputError(
            f"collection {collection.name}: none of the {len(judged_ids):,} judged document ids is in "
            f"the documents (e.g. {example}); do the qrels belong to this collection?"
        )
    relevant = {d for judged in collection.qrels.values() for d, grade in judged.items() if grade > 0}
    if relevant and not relevant & docids:
        raise InputError(
            f"collection {collection.name}: none of the {len(relevant):,} relevant judged document ids is in the "
            f"documents (e.g. {min(relevant)}); do the qrels belong to this collection?"
        )
    if len(known) < len(judged_ids):
        collection.notes.append(
            f"{len(judged_ids) - len(known):,} of {len(judged_ids):,} judged documents are not in "
            "the collection (counted as not retrieved)"
        )
    if not set(collection.qrels) & set(collection.queries):
        raise InputError(
            f"collection {collection.name}: no topic id appears in the qrels "
            f"(topics e.g. {sorted(collection.queries)[:3]}, qrels e.g. {sorted(collection.qrels)[:3]})"
        )
    if collection.folds is not None:  # the neural rankers would keep their upstream run's order for any other topic
        covered = {q for fold in collection.folds for q in fold}
        uncovered = [q for q in collection.judged_queries() if q not in covered]
        if uncovered:
            raise InputError(
                f"collection {collection.name}: the folds leave out {len(uncovered)} judged topics "
                f"({', '.join(uncovered[:10])}{' …' if len(uncovered) > 10 else ''}); every judged topic "
                "must be in one fold, or the neural rankers would measure those with their upstream run"
            )
    unjudged = collection.unjudged_queries()
    if unjudged:
        collection.notes.append(
            f"{len(unjudged)} topics have no relevant judgment and are left out of every "
            f"average: {', '.join(unjudged[:20])}{' …' if len(unjudged) > 20 else ''}"
        )


_DOCIDS: dict[tuple[str, int], set[str]] = {}


def collection_docids(documents: Path) -> set[str]:
    """Document ids of a canonical JSONL file (read once per process and file version)."""
    key = (str(documents), documents.stat().st_mtime_ns)
    if key not in _DOCIDS:
        ids = set()
        with open(documents, encoding="utf-8") as handle:
            for line in handle:
                ids.add(json.loads(line)["id"])
        _DOCIDS[key] = ids
    return _DOCIDS[key]


def export_collection(name: str, out: Path, overwrite: bool = False, option: str = "--out") -> dict[str, Path]:
    """Write a built-in collection as JSONL documents, TSV topics and TREC qrels, for any other tool to run on; for
    the toys also their stereotypical, counter-stereotypical and neutral engines' runs, for Grep-BiasIR the BM25 and
    MiniLM runs shipped with it. Every file is checked before the first is written (gsr.infra.outputs, `option`
    naming `out` in errors): an existing file is replaced only with `overwrite`, and a refused export writes
    nothing."""
    import gsr
    from gsr.infra.outputs import Target, check_output_targets, place_file

    if name not in BUILTIN_COLLECTIONS:
        raise InputError(f"{name!r} is not a built-in collection; choose one of {', '.join(BUILTIN_COLLECTIONS)}")
    package_data = Path(gsr.__file__).parent / "data"
    # the runs shipped beside Grep-BiasIR (BM25's and MiniLM's top 20): real runs to score at once
    shipped = sorted((package_data / "grepbiasir" / "runs").glob("*.run")) if name == "grepbiasir" else []
    names = {"documents": "documents.jsonl", "topics": "topics.tsv", "qrels": "qrels.txt"}
    names |= {f"run {run.stem}": run.name for run in shipped}
    names |= {f"run {engine}": file_name for engine, file_name in TOY_ENGINES.get(name, {}).items()}
    paths = {what: out / file_name for what, file_name in names.items()}
    targets = [Target(option, out, folder=True), *(Target(option, path) for path in paths.values())]
    check_output_targets(targets, [("gsr's own package data", package_data)], overwrite)
    collection = load_collection(name)
    out.mkdir(parents=True, exist_ok=True)

    def place(what: str, write: Callable[[Path], object]) -> None:
        place_file(write, paths[what], overwrite, option, "exporting")

    def copy(source: Path) -> Callable[[Path], None]:
        def write(path: Path) -> None:
            with open(source, "rb") as original, atomic_write(path, binary=True) as copied:
                shutil.copyfileobj(original, copied)  # atomically, like every file written: Ctrl-C leaves no half copy

        return write

    def topics(path: Path) -> None:
        with atomic_write(path) as handle:
            for qid, text in collection.queries.items():
                handle.write(f"{qid}\t{' '.join(text.split())}\n")

    def qrels(path: Path) -> None:
        with atomic_write(path) as handle:
            for qid in sorted(collection.qrels):
                for docid, grade in sorted(collection.qrels[qid].items()):
                    handle.write(f"{qid} 0 {docid} {grade}\n")

    place("documents", copy(collection.documents))
    place("topics", topics)
    place("qrels", qrels)
    for run in shipped:
        place(f"run {run.stem}", copy(run))
    if name in TOY_ENGINES:  # the toys' S / CS / N engines (§3.4, §4.1) as runs: something to score at once
        from gsr.io.runs import write_trec_run
        from gsr.validation import toys

        toy = getattr(toys, name)()

        def engine_run(engine: str) -> Callable[[Path], object]:
            return lambda path: write_trec_run(toy.engines[engine], path, tag=engine)

        for engine in TOY_ENGINES[name]:
            place(f"run {engine}", engine_run(engine))
    return paths


TOY_ENGINES = {
    toy: {"S": "stereotypical.run", "CS": "counter-stereotypical.run", "N": "neutral.run"} for toy in ("toy1", "toy2")
}
