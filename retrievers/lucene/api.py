"""The public functions of the Lucene retrievers: build an index, search it with BM25, query likelihood with
Dirichlet smoothing or tf-idf, read its statistics and stored documents.

Each call that needs Lucene runs in a worker process (retrievers.lucene.process): its own, started for the call,
or the `session`'s (a LuceneSession: one JVM for many calls); requests and results travel through temporary
files.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import weakref
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from gsr.documents.lines import json_document_text
from gsr.documents.opening import LUCENE_MARKER
from gsr.documents.sgml import sgml_text
from gsr.infra import logs
from gsr.infra.params import Param, ParamError, check_params
from gsr.infra.store import FOLDER_MANIFEST, atomic_folder, reusable
from retrievers.lucene.documents import document_files, stage_documents
from retrievers.lucene.errors import LuceneError, LuceneInputError
from retrievers.lucene.java import check_pyserini, java_home
from retrievers.lucene.models import LUCENE_MODELS
from retrievers.lucene.process import LuceneSession, run_worker

if TYPE_CHECKING:
    from gsr.documents.base import Positions

log = logs.get("lucene")

# each model's declared parameters (retrievers.lucene.models, Anserini's defaults: BM25 k1=0.9 b=0.4, QLD mu=1000)
LEXICAL_PARAMETERS: dict[str, tuple[Param, ...]] = {name: model.params for name, model in LUCENE_MODELS.items()}
MODELS = tuple(LUCENE_MODELS)
INDEX_MARKER = "GSR_INDEX_INFO"  # JSON written by build_index beside Lucene's files (no .json suffix: a folder
# of documents that holds an index must not look like documents to JsonCollection)
STAGED_DOCUMENTS = "staged-documents"  # the checked shards, inside the index's staging folder while it is built


def _absolute(path: Path) -> str:
    return os.path.abspath(path)


def _lucene_index_files(index_dir: Path) -> list[Path]:
    return sorted(index_dir.glob(LUCENE_MARKER)) if index_dir.is_dir() else []


def _run(arguments: list[str], what: str, session: LuceneSession | None) -> None:
    """One worker job, in the session's worker when there is one, else in a worker of its own."""
    if session is not None:
        session.run(arguments, what=what)
    else:
        run_worker(arguments, what=what)


def _require_index(index_dir: Path) -> Path:
    """The index folder, if it holds a committed Lucene index; otherwise a LuceneError saying what is there."""
    index_dir = Path(index_dir)
    if not index_dir.exists():
        raise LuceneError(f"{index_dir}: no such index folder (build it first with retrievers.lucene.build_index)")
    if not _lucene_index_files(index_dir):
        raise LuceneError(
            f"{index_dir}: not a Lucene index (no segments_N file); "
            "delete the folder and build it again with retrievers.lucene.build_index"
        )
    return index_dir


# ---------------------------------------------------------------------------------------------------------------
# Indexing


STORED_FIELDS = ("raw", "contents")


def build_index(
    documents: Path,
    index_dir: Path,
    *,
    threads: int = 2,
    store: tuple[str, ...] = ("raw",),
    session: LuceneSession | None = None,
) -> Path:
    """Anserini index (positions, doc vectors, the `store`d fields: raw text by default) of JSONL {"id",
    "contents"} files; reused if built.

    A folder that already holds an index this function built is verified against its manifest (gsr.infra.store: sizes
    and content hashes) and reused; a damaged one is reported by path, removed and rebuilt. An index built by
    another tool (no manifest, no INDEX_MARKER) is returned as it is. Otherwise every document is checked
    (and Java looked for) before indexing starts, and the index is written through gsr.infra.store.atomic_folder: it
    appears under `index_dir` only once complete, with a manifest of its files and the INDEX_MARKER file saying
    how it was built; a killed build leaves a staging folder that the next write beside it removes.
    """
    documents, index_dir = Path(documents), Path(index_dir)
    if threads < 1:
        raise LuceneInputError(f"threads must be at least 1, not {threads}")
    if not set(store) <= set(STORED_FIELDS):
        raise LuceneInputError(f"store must name fields among {', '.join(STORED_FIELDS)}, not {store!r}")
    if index_dir.exists() and not (index_dir.is_dir() and not any(index_dir.iterdir())):
        built_here = index_dir.is_dir() and any((index_dir / n).exists() for n in (INDEX_MARKER, FOLDER_MANIFEST))
        if not built_here or reusable(index_dir):  # reusable() reports and removes a damaged index
            _require_index(index_dir)
            log.info("lucene index: %s already holds an index; reusing it", index_dir)
            return index_dir
    files = document_files(documents)
    java_home()  # fail before reading a large collection when there is no Java at all
    check_pyserini()
    with atomic_folder(index_dir) as staging:
        started = time.monotonic()
        log.info("lucene index: checking %d file(s) under %s", len(files), documents)
        # inside the staging folder, so that a killed build leaves one leftover, removed with it
        shards = staging / STAGED_DOCUMENTS
        total, non_blank = stage_documents(files, shards, shards=threads)
        log.info("lucene index: %d documents are valid; indexing with %d thread(s)", total, threads)
        _run(
            [
                "index",
                "--input",
                _absolute(shards),
                "--index",
                _absolute(staging),
                "--threads",
                str(threads),
                "--expect",
                str(non_blank),
                "--store",
                ",".join(store),
            ],
            f"indexing {documents}",
            session,
        )
        shutil.rmtree(shards)
        seconds = time.monotonic() - started
        marker = {
            "documents": str(documents.resolve()),
            "files": len(files),
            "documents_read": total,
            "documents_indexed": non_blank,
            "seconds": round(seconds, 1),
            "threads": threads,
            "built": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        (staging / INDEX_MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
    log.info(
        "lucene index: %d documents indexed in %.1f s (%.0f docs/s) -> %s",
        non_blank,
        seconds,
        non_blank / max(seconds, 1e-9),
        index_dir,
    )
    return index_dir


# ---------------------------------------------------------------------------------------------------------------
# Searching


def model_parameters(model: str, params: dict | None = None) -> dict[str, float]:
    """The model's parameters as floats: LEXICAL_PARAMETERS' defaults (Anserini's) updated by `params`, checked.

    An unknown model or parameter, a value that is not a number (true/false included) or out of its range is a
    LuceneInputError naming the model and the parameter.
    """
    if model not in LEXICAL_PARAMETERS:
        raise LuceneInputError(f"unknown retrieval model {model!r}; choose one of {', '.join(MODELS)}")
    try:
        return check_params(LEXICAL_PARAMETERS[model], params or {}, where=f"model {model!r}: ")
    except ParamError as err:
        raise LuceneInputError(str(err)) from None


def search(
    index_dir: Path,
    queries: dict[str, str],
    model: str,
    *,
    k: int = 1000,
    threads: int = 2,
    params: dict | None = None,
    session: LuceneSession | None = None,
) -> dict[str, list[tuple[str, float]]]:
    """Top-k (docid, score) per query, best first, ties by docid, scores rounded to 4 decimals as Anserini does.

    `threads` is checked and kept for callers; the search itself runs in one thread, since reading the hits, not
    Lucene, bounds its time (retrievers.lucene.hits)."""
    parameters = model_parameters(model, params)
    if k < 1 or threads < 1:
        raise LuceneInputError(f"k and threads must be at least 1 (k={k}, threads={threads})")
    for qid, text in queries.items():
        if not isinstance(qid, str) or not isinstance(text, str):
            raise LuceneInputError(f"query {qid!r}: query ids and texts must be strings")
    index_dir = _require_index(Path(index_dir))
    if not queries:
        return {}
    with tempfile.TemporaryDirectory(prefix="gsr-lucene-search-") as work:
        request, output = Path(work) / "queries.json", Path(work) / "run.jsonl"
        request.write_text(json.dumps(queries), encoding="utf-8")
        _run(
            [
                "search",
                "--index",
                _absolute(index_dir),
                "--queries",
                _absolute(request),
                "--model",
                model,
                "--params",
                json.dumps(parameters),
                "--k",
                str(k),
                "--threads",
                str(threads),
                "--output",
                _absolute(output),
            ],
            f"{model} search of {index_dir}",
            session,
        )
        run: dict[str, list[tuple[str, float]]] = {}
        with open(output, encoding="utf-8") as handle:
            for line in handle:
                qid, hits = json.loads(line)
                run[qid] = [(docid, score) for docid, score in hits]
    missing = [qid for qid in queries if qid not in run]
    if missing:
        raise LuceneError(f"the search worker returned no result for {len(missing)} queries (e.g. {missing[0]!r})")
    return {qid: run[qid] for qid in queries}


# ---------------------------------------------------------------------------------------------------------------
# Reading an index


def index_stats(index_dir: Path, *, session: LuceneSession | None = None) -> dict:
    """Counts of an index (documents, non-empty documents, unique terms, total terms), its size and how it was built."""
    index_dir = _require_index(Path(index_dir))
    with tempfile.TemporaryDirectory(prefix="gsr-lucene-stats-") as work:
        output = Path(work) / "stats.json"
        _run(
            ["stats", "--index", _absolute(index_dir), "--output", _absolute(output)],
            f"statistics of {index_dir}",
            session,
        )
        stats = json.loads(output.read_text(encoding="utf-8"))
    stats["index_dir"] = str(index_dir)
    stats["size_bytes"] = sum(p.stat().st_size for p in index_dir.iterdir() if p.is_file())
    marker = index_dir / INDEX_MARKER
    if marker.is_file():
        stats["built_from"] = json.loads(marker.read_text(encoding="utf-8"))
    return stats


def stored_documents(index_dir: Path, *, session: LuceneSession | None = None) -> Iterator[tuple[str, str]]:
    """(docid, text) of every indexed document: its stored "contents", else its stored raw text as plain text."""
    index_dir = _require_index(Path(index_dir))
    work = Path(tempfile.mkdtemp(prefix="gsr-lucene-documents-"))
    try:
        output = work / "documents.jsonl"
        _run(
            ["documents", "--index", _absolute(index_dir), "--output", _absolute(output)],
            f"reading the documents of {index_dir}",
            session,
        )
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    documents = _read_stored_documents(output, index_dir, work)
    weakref.finalize(documents, shutil.rmtree, work, ignore_errors=True)  # also if never read (fetch_documents)
    return documents


def _stored_text(line: str, index_dir: Path) -> tuple[str, str]:
    docid, contents, raw = json.loads(line)
    if contents is None and raw is None:
        raise LuceneError(
            f'{index_dir}: document {docid} has neither a stored "contents" nor a '
            '"raw" field; rebuild the index with -storeRaw (build_index does)'
        )
    return docid, contents if contents is not None else text_from_raw(raw)


def _read_stored_documents(output: Path, index_dir: Path, work: Path) -> Iterator[tuple[str, str]]:
    try:
        with open(output, encoding="utf-8") as handle:
            for line in handle:
                yield _stored_text(line, index_dir)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def fetch_documents(
    index_dir: Path, ids: Iterable[str] = (), positions: Positions = ()
) -> tuple[list[str], Generator[tuple[str, str], None, None]]:
    """The ids of the documents at `positions` (Lucene document numbers), and (docid, text) of those documents
    and of the `ids` the index holds, each once: one worker reads only them, whatever the index's size."""
    index_dir = _require_index(Path(index_dir))
    positions = [int(p) for p in positions]
    work = Path(tempfile.mkdtemp(prefix="gsr-lucene-fetch-"))
    handle = None
    try:
        request, output = work / "request.json", work / "documents.jsonl"
        request.write_text(json.dumps({"positions": positions, "ids": sorted(set(ids))}), encoding="utf-8")
        run_worker(
            ["fetch", "--index", _absolute(index_dir), "--request", _absolute(request), "--output", _absolute(output)],
            what=f"reading documents of {index_dir}",
        )
        handle = open(output, encoding="utf-8")
        at_positions = [_stored_text(handle.readline(), index_dir) for _ in positions]
    except BaseException:
        if handle is not None:
            handle.close()
        shutil.rmtree(work, ignore_errors=True)
        raise
    texts = _fetched_texts(at_positions, handle, index_dir, work)
    # a generator closed (or dropped) before its first item never runs its `finally` (LuceneIndexDocuments.ids_at
    # reads the ids alone): the file and the folder go with the generator, whether it ever started or not
    weakref.finalize(texts, _remove_fetched, handle, work)
    return [docid for docid, _ in at_positions], texts


def _remove_fetched(handle, work: Path) -> None:
    handle.close()
    shutil.rmtree(work, ignore_errors=True)


def _fetched_texts(
    at_positions: list[tuple[str, str]], handle, index_dir: Path, work: Path
) -> Generator[tuple[str, str], None, None]:
    try:
        seen = set()
        for docid, text in at_positions:
            if docid not in seen:  # a position drawn for two queries is written twice
                seen.add(docid)
                yield docid, text
        for line in handle:
            yield _stored_text(line, index_dir)
    finally:
        _remove_fetched(handle, work)


def text_from_raw(raw: str) -> str:
    """Plain text of a stored raw document, as gsr reads the same document from its file: a JSON record's
    contents/text/body after its title (gsr.documents.lines.json_document_text), else TREC SGML's text
    (gsr.documents.sgml.sgml_text)."""
    if raw.lstrip().startswith("{"):
        try:
            record = json.loads(raw)
        except json.JSONDecodeError:
            record = None
        text = json_document_text(record) if isinstance(record, dict) else None
        if text is not None:
            return text
    return sgml_text(raw)
