"""Test collections: documents, topics and qrels from the demo, the toys, JSONL/TSV files, BEIR folders, raw TREC
SGML (Robust04's disks 4 & 5), ir_datasets, or a Lucene index with stored raw text.

Every source is converted once into one canonical JSONL file ({"id", "contents"} per line) in the cache. The file's
SHA-256 is the collection's key: indexes, document statistics, document vectors and runs are all cached under it,
so a changed collection can never be served stale results.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from gsr.io import InputError, Qrels, iter_documents, read_qrels, read_queries, read_tsv_queries

from gsr.store import atomic_write, cache_dir, file_version_key

BUILTIN_COLLECTIONS = ("demo", "toy1", "toy2")
SOURCE_KINDS = ("demo", "toy1", "toy2", "files", "beir", "trec-sgml", "ir_datasets", "lucene-index")


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

    def judged_queries(self) -> list[str]:
        """Topics with at least one relevant document: the ones every measure is averaged over."""
        return sorted(q for q in self.queries if any(g > 0 for g in self.qrels.get(q, {}).values()))

    def unjudged_queries(self) -> list[str]:
        """Topics without any relevant judgment; reported, never silently dropped."""
        judged = set(self.judged_queries())
        return sorted(q for q in self.queries if q not in judged)


def _cache_root() -> Path:
    return cache_dir() / "collections"


def _version_key(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:16]


def _source_key(paths: Iterable[Path], *extra) -> str:
    """Version of the source files (path, size, mtime); cheap to compute, so checked on every run."""
    keys = []
    for path in paths:
        if not path.exists():
            raise InputError(f"{path}: no such file or folder")
        keys.append(file_version_key(path) if path.is_file() else _folder_key(path))
    return _version_key(keys, *extra)


def _folder_key(folder: Path) -> str:
    return _version_key([file_version_key(p) for p in sorted(folder.rglob("*")) if p.is_file()])


def canonical_documents(source_key: str, documents: Callable[[], Iterable[tuple[str, str]]],
                        progress: bool = False) -> tuple[Path, str]:
    """Write (docid, text) pairs once as the canonical JSONL; returns its path and content hash.

    Written to a temporary file and renamed only when complete, so an interrupted conversion is redone.
    Duplicate document ids are an error: qrels and runs could not tell the copies apart.
    """
    folder = _cache_root() / source_key
    target, digest_file = folder / "documents.jsonl", folder / "documents.sha256"
    if target.exists() and digest_file.exists():
        return target, digest_file.read_text().strip()
    digest = hashlib.sha256()
    seen: set[str] = set()
    with atomic_write(target) as out:
        for n, (docid, text) in enumerate(documents(), start=1):
            if docid in seen:
                raise InputError(f"document id {docid} appears more than once in the collection")
            seen.add(docid)
            line = json.dumps({"id": docid, "contents": text}, ensure_ascii=False) + "\n"
            digest.update(line.encode("utf-8"))
            out.write(line)
            if progress and n % 50_000 == 0:
                print(f"  converted {n:,} documents", file=sys.stderr)
        if not seen:
            raise InputError("the collection has no documents")
    key = digest.hexdigest()[:16]
    with atomic_write(digest_file) as out:
        out.write(key + "\n")
    return target, key


# ---------------------------------------------------------------- sources


def demo_files(progress: bool = False):
    """The built-in demo collection's files, generated once into the cache (atomically)."""
    from experiments.demo import DEMO_VERSION, DemoFiles, generate_demo

    folder = _cache_root() / f"demo-v{DEMO_VERSION}"
    files = DemoFiles(folder / "documents.jsonl", folder / "topics.tsv", folder / "qrels.txt")
    if files.qrels.exists():
        return files
    folder.parent.mkdir(parents=True, exist_ok=True)
    if progress:
        print("generating the demo collection", file=sys.stderr)
    staging = Path(tempfile.mkdtemp(prefix=".demo.", dir=folder.parent))
    try:
        generate_demo(staging)
        try:
            os.rename(staging, folder)
        except OSError:
            if not files.qrels.exists():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return files


def _demo(spec: dict, progress: bool) -> Collection:
    files = demo_files(progress)
    documents, key = canonical_documents(f"demo-{files.documents.parent.name}",
                                         lambda: iter_documents(files.documents), progress)
    return Collection("demo", documents, read_tsv_queries(files.topics), read_qrels(files.qrels), key)


def _toy(spec: dict, progress: bool) -> Collection:
    from gsr import toys

    toy = toys.toy1() if spec["kind"] == "toy1" else toys.toy2()
    source_key = _version_key(toy.name, sorted(toy.documents.items()))
    documents, key = canonical_documents(f"{toy.name}-{source_key}", lambda: toy.documents.items(), progress)
    return Collection(toy.name, documents, dict(toy.queries), toy.qrels("N"), key,
                      notes=[f"{toy.name}: every document of engine N (stereotypical and counter-stereotypical) "
                             "is relevant"])


def _files(spec: dict, progress: bool) -> Collection:
    docs, topics, qrels = Path(spec["documents"]), Path(spec["topics"]), Path(spec["qrels"])
    source_key = _source_key([docs])
    documents, key = canonical_documents(f"files-{source_key}", lambda: iter_documents(docs), progress)
    return Collection(spec.get("name", docs.stem), documents, read_queries(topics, spec.get("topic_field", "title")),
                      read_qrels(qrels), key)


def read_beir_qrels(path: Path) -> Qrels:
    """BEIR qrels: 'query-id<TAB>corpus-id<TAB>score' with a header line."""
    qrels: Qrels = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    for lineno, line in enumerate(lines, start=1):
        parts = line.split("\t")
        if lineno == 1 and parts[0].strip().lower() in ("query-id", "query_id", "qid"):
            continue
        if not line.strip():
            continue
        if len(parts) != 3:
            raise InputError(f"{path}:{lineno}: expected 'query-id<TAB>corpus-id<TAB>score', found {len(parts)} columns")
        try:
            grade = int(float(parts[2]))
        except ValueError:
            raise InputError(f"{path}:{lineno}: score {parts[2]!r} is not a number") from None
        qrels.setdefault(parts[0].strip(), {})[parts[1].strip()] = grade
    return qrels


def _beir(spec: dict, progress: bool) -> Collection:
    folder = Path(spec["path"])
    split = spec.get("split", "test")
    corpus, queries_file, qrels_file = folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels" / f"{split}.tsv"
    for path in (corpus, queries_file, qrels_file):
        if not path.exists():
            raise InputError(f"{path}: no such file (BEIR layout: corpus.jsonl, queries.jsonl, qrels/{split}.tsv)")
    documents, key = canonical_documents(f"beir-{_source_key([corpus])}", lambda: iter_documents(corpus), progress)
    qrels = read_beir_qrels(qrels_file)
    queries = {q: t for q, t in read_queries(queries_file).items() if q in qrels}  # BEIR ships all splits' queries
    return Collection(spec.get("name", folder.name), documents, queries, qrels, key)


# Anserini's TrecCollection keeps these; metadata fields (ids, file names, dates, page numbers) are dropped.
_SGML_SKIPPED = ("DOCNO", "DOCID", "FILEID", "FIRST", "SECOND", "PARENT", "DATE", "PROFILE", "PUB", "PAGE",
                 "F", "FR94", "USDEPT", "USBUREAU", "CFR", "RINDOCK", "BYLINE")
_DOC = re.compile(r"<DOC>(.*?)</DOC>", re.S | re.I)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.S | re.I)
_SKIP = re.compile(r"<(%s)\b[^>]*>.*?</\1>" % "|".join(_SGML_SKIPPED), re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_ENTITY = re.compile(r"&[a-zA-Z]+;")
_SPACE = re.compile(r"\s+")


def _read_compressed(path: Path) -> str:
    name = path.name.lower()
    raw = path.read_bytes()
    if name.endswith(".gz"):
        raw = gzip.decompress(raw)
    elif name.endswith(".z"):  # Unix compress, as on the original TREC disks
        try:
            import unlzw3
        except ImportError:
            raise InputError(f"{path}: .z files need the 'unlzw3' package (pip install unlzw3) "
                             "or decompress them first") from None
        raw = unlzw3.unlzw(raw)
    return raw.decode("latin-1")


def sgml_documents(paths: Iterable[Path]) -> Iterator[tuple[str, str]]:
    """(DOCNO, text) of every <DOC> in TREC SGML files (plain, .gz or .z), folders read recursively in name order."""
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if file.name.lower().startswith(("readme", "read_me")) or file.suffix.lower() in (".txt", ".dtd"):
                continue
            text = _read_compressed(file)
            found = False
            for match in _DOC.finditer(text):
                found = True
                body = match.group(1)
                docno = _DOCNO.search(body)
                if not docno:
                    line = text.count("\n", 0, match.start()) + 1
                    raise InputError(f"{file}:{line}: <DOC> without <DOCNO>")
                content = _ENTITY.sub(" ", _TAG.sub(" ", _SKIP.sub(" ", body)))
                yield docno.group(1), _SPACE.sub(" ", content).strip()
            if not found and "<doc>" in text[:10_000].lower():
                raise InputError(f"{file}: <DOC> opened but never closed")


def _trec_sgml(spec: dict, progress: bool) -> Collection:
    paths = [Path(p) for p in ([spec["documents"]] if isinstance(spec["documents"], str) else spec["documents"])]
    source_key = _source_key(paths)
    documents, key = canonical_documents(f"sgml-{source_key}", lambda: sgml_documents(paths), progress)
    queries = read_queries(_topics_path(spec["topics"], "topics"), spec.get("topic_field", "title"))
    qrels = read_qrels(_topics_path(spec["qrels"], "qrels"))
    return Collection(spec.get("name", "trec-sgml"), documents, queries, qrels, key, folds=_folds(spec))


def pyserini_cache_file(name: str) -> Path:
    """Where Pyserini/Anserini keep topic and qrels files (e.g. topics.robust04.txt, qrels.robust04.txt)."""
    root = Path(os.environ.get("PYSERINI_CACHE", Path.home() / ".cache" / "pyserini"))
    return root / "topics-and-qrels" / name


def _topics_path(value: str, what: str) -> Path:
    """A path, or 'pyserini:NAME' for a file in Pyserini's topic/qrels cache."""
    if value.startswith("pyserini:"):
        name = value.split(":", 1)[1]
        filename = name if "." in name else f"{what}.{name}.txt"
        path = pyserini_cache_file(filename)
        if not path.exists():
            raise InputError(f"{path}: not in Pyserini's cache; give the {what} file's path instead of {value!r}")
        return path
    return Path(value)


def _folds(spec: dict) -> list[list[str]] | None:
    """Cross-validation folds: a JSON file of query-id lists (e.g. the usual Robust04 five folds)."""
    if "folds" not in spec:
        return None
    path = Path(spec["folds"])
    try:
        folds = json.loads(path.read_text())
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except json.JSONDecodeError as err:
        raise InputError(f"{path}:{err.lineno}: not JSON ({err.msg})") from None
    if isinstance(folds, dict):
        folds = list(folds.values())
    if not (isinstance(folds, list) and folds and all(isinstance(f, list) for f in folds)):
        raise InputError(f"{path}: expected a list of query-id lists (one per fold)")
    return [[str(q) for q in fold] for fold in folds]


def _ir_datasets(spec: dict, progress: bool) -> Collection:
    try:
        import ir_datasets
    except ImportError:
        raise InputError("the 'ir_datasets' package is not installed") from None
    name = spec["dataset"]
    try:
        dataset = ir_datasets.load(name)
    except KeyError:
        raise InputError(f"ir_datasets has no dataset {name!r}") from None
    field_name = {"title": "title", "desc": "description", "narr": "narrative"}.get(spec.get("topic_field", "title"))

    def docs():
        try:
            for doc in dataset.docs_iter():
                yield doc.doc_id, doc.default_text()
        except (FileNotFoundError, OSError) as err:
            raise InputError(f"ir_datasets {name}: documents not available ({err}); place the licensed files "
                             "where ir_datasets expects them (see its documentation for this dataset)") from None

    documents, key = canonical_documents(f"irds-{_version_key(name)}", docs, progress)
    queries = {}
    for query in dataset.queries_iter():
        text = getattr(query, field_name, None) if field_name else None
        queries[query.query_id] = text if text is not None else query.default_text()
    qrels: Qrels = {}
    for row in dataset.qrels_iter():
        qrels.setdefault(row.query_id, {})[row.doc_id] = int(row.relevance)
    return Collection(spec.get("name", name), documents, queries, qrels, key, folds=_folds(spec))


def _lucene_index(spec: dict, progress: bool) -> Collection:
    from retrievers.lucene import stored_documents

    index = Path(spec["index"])
    source_key = _source_key([index])
    documents, key = canonical_documents(f"lucene-{source_key}", lambda: stored_documents(index), progress)
    queries = read_queries(_topics_path(spec["topics"], "topics"), spec.get("topic_field", "title"))
    qrels = read_qrels(_topics_path(spec["qrels"], "qrels"))
    return Collection(spec.get("name", index.name), documents, queries, qrels, key, folds=_folds(spec))


_LOADERS = {"demo": _demo, "toy1": _toy, "toy2": _toy, "files": _files, "beir": _beir, "trec-sgml": _trec_sgml,
            "ir_datasets": _ir_datasets, "lucene-index": _lucene_index}

# Keys each kind accepts (besides 'kind' and 'name'), required ones first; the config checker uses this table.
SOURCE_KEYS = {
    "demo": ((), ()),
    "toy1": ((), ()),
    "toy2": ((), ()),
    "files": (("documents", "topics", "qrels"), ("topic_field", "folds")),
    "beir": (("path",), ("split",)),
    "trec-sgml": (("documents", "topics", "qrels"), ("topic_field", "folds")),
    "ir_datasets": (("dataset",), ("topic_field", "folds")),
    "lucene-index": (("index", "topics", "qrels"), ("topic_field", "folds")),
}


def load_collection(spec: dict | str, progress: bool = False) -> Collection:
    """A collection from its config table ({'kind': ..., ...}) or a built-in name, checked for consistency."""
    if isinstance(spec, str):
        spec = {"kind": spec}
    kind = spec.get("kind")
    if kind not in _LOADERS:
        raise InputError(f"collection kind {kind!r} is unknown; choose one of {', '.join(SOURCE_KINDS)}")
    collection = _LOADERS[kind](spec, progress)
    if "folds" in spec and collection.folds is None:
        collection.folds = _folds(spec)
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
        raise InputError(f"collection {collection.name}: none of the {len(judged_ids):,} judged document ids is in "
                         f"the documents (e.g. {example}); do the qrels belong to this collection?")
    if len(known) < len(judged_ids):
        collection.notes.append(f"{len(judged_ids) - len(known):,} of {len(judged_ids):,} judged documents are not in "
                                "the collection (counted as not retrieved)")
    if not set(collection.qrels) & set(collection.queries):
        raise InputError(f"collection {collection.name}: no topic id appears in the qrels "
                         f"(topics e.g. {sorted(collection.queries)[:3]}, qrels e.g. {sorted(collection.qrels)[:3]})")
    unjudged = collection.unjudged_queries()
    if unjudged:
        collection.notes.append(f"{len(unjudged)} topics have no relevant judgment and are left out of every "
                                f"average: {', '.join(unjudged[:20])}{' …' if len(unjudged) > 20 else ''}")


def collection_docids(documents: Path) -> set[str]:
    """Document ids of a canonical JSONL file (read once per process)."""
    return _docids_cached(str(documents), documents.stat().st_mtime_ns)


_DOCIDS: dict[tuple[str, int], set[str]] = {}


def _docids_cached(path: str, mtime: int) -> set[str]:
    key = (path, mtime)
    if key not in _DOCIDS:
        ids = set()
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                ids.add(json.loads(line)["id"])
        _DOCIDS[key] = ids
    return _DOCIDS[key]


def export_collection(name: str, out: Path, progress: bool = False) -> dict[str, Path]:
    """Write a built-in collection as JSONL documents, TSV topics and TREC qrels, for any other tool to run on."""
    if name not in BUILTIN_COLLECTIONS:
        raise InputError(f"{name!r} is not a built-in collection; choose one of {', '.join(BUILTIN_COLLECTIONS)}")
    collection = load_collection(name, progress)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"documents": out / "documents.jsonl", "topics": out / "topics.tsv", "qrels": out / "qrels.txt"}
    shutil.copyfile(collection.documents, paths["documents"])
    with open(paths["topics"], "w", encoding="utf-8") as handle:
        for qid, text in collection.queries.items():
            handle.write(f"{qid}\t{_SPACE.sub(' ', text).strip()}\n")
    with open(paths["qrels"], "w", encoding="utf-8") as handle:
        for qid in sorted(collection.qrels):
            for docid, grade in sorted(collection.qrels[qid].items()):
                handle.write(f"{qid} 0 {docid} {grade}\n")
    return paths
