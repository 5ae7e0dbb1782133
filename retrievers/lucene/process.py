"""The parent side of a Lucene worker process: starting `python -m retrievers.lucene.worker ...` with Java's
environment, sorting its output (the JVM's version chatter dropped, Anserini's INFO logging shown only when
verbose) and turning a failure into a LuceneError that carries the worker's last output lines.

A worker reports an expected failure as one line starting with WORKER_ERROR; anything else that ends it (JVM
abort, crash, kill) is described by its exit status. `run_worker` starts a worker for one job;
`LuceneSession` keeps one worker (one JVM) for many jobs.
"""

from __future__ import annotations

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import weakref
from pathlib import Path

from gsr.infra import logs
from retrievers.lucene.errors import LuceneError
from retrievers.lucene.java import check_pyserini, java_home

log = logs.get("lucene")

WORKER_MODULE = "retrievers.lucene.worker"
WORKER_ERROR = "LUCENE-WORKER-ERROR: "  # prefix of the one line a worker prints for an expected failure
WORKER_DONE = "LUCENE-WORKER-DONE"  # the line a session worker prints when a job succeeded
PARENT_PIPE_VARIABLE = "GSR_LUCENE_WORKER_STDIN_IS_PARENT"  # set for workers whose stdin is the parent's pipe
STDERR_TAIL_LINES = 30
# JVM chatter that says nothing about the job (Lucene/Java version notices); neither shown nor kept for errors
JVM_NOISE = re.compile(
    r"sun\.misc\.Unsafe|terminally deprecated method|Please consider reporting this to the "
    r"maintainers of class org\.apache\.lucene|MMapDirectory lookupProvider|"
    r"Java 22 or later\. To make full use of MMapDirectory|^SLF4J\(I\)"
)
# Anserini's log4j lines below WARN ("2024-01-01 10:00:00,000 INFO  [main] index.IndexCollection (…) - …")
LOG_DETAIL = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (?:INFO|DEBUG|TRACE) ")
# … of which the indexing progress ("43.00% of files completed, 227,000 documents indexed") is still shown
LOG_PROGRESS = re.compile(r" - (.*\bdocuments indexed\b.*)$")
PROJECT_ROOT = Path(__file__).resolve().parents[2]  # retrievers/lucene/process.py -> the folder above retrievers


def worker_environment(home: Path, work: Path) -> dict[str, str]:
    """The caller's environment plus Java's home, the parent-pipe flag, the project first on PYTHONPATH (relative
    entries dropped: they would resolve in the worker's folder) and the worker's private folder as TMPDIR."""
    env = dict(os.environ)
    env["JAVA_HOME"] = str(home)  # pyjnius looks for libjvm under $JAVA_HOME before anything else
    env[PARENT_PIPE_VARIABLE] = "1"
    inherited = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and os.path.isabs(p)]
    env["PYTHONPATH"] = os.pathsep.join([str(PROJECT_ROOT), *inherited])
    env["TMPDIR"] = str(work)  # the JVM's and the worker's temporary files: in a folder only this user can enter
    return env


class WorkerOutput:
    """One job's worker output: logged (logger gsr.lucene; Anserini's own INFO lines at DEBUG, shown under
    --verbose, apart from its indexing progress), its last lines kept for error messages, a WORKER_ERROR line
    remembered."""

    def __init__(self, what: str):
        self.what = what
        self.tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self.worker_error: str | None = None

    def add(self, line: str) -> None:
        """Take one line the worker printed."""
        if line.startswith(WORKER_ERROR):
            self.worker_error = line[len(WORKER_ERROR) :]
            return
        if JVM_NOISE.search(line):
            return
        self.tail.append(line)
        if LOG_DETAIL.match(line):
            indexed = LOG_PROGRESS.search(line)
            if indexed is None:
                log.debug("lucene %s: %s", self.what, line)
                return
            line = indexed.group(1)
        log.info("lucene %s: %s", self.what, line)

    def error(self, returncode: int | None = None, home: Path | None = None) -> LuceneError:
        """The LuceneError for a job that failed: the worker's own message, else how the worker ended."""
        shown = "\n".join(self.tail) or "(no output)"
        if self.worker_error:
            hint = (
                " (the index is damaged or incomplete: delete it and build it again)"
                if re.search(r"CorruptIndex|IndexNotFound|IndexFormatToo|NoSuchFile", self.worker_error)
                else ""
            )
            return LuceneError(
                f"{self.what} failed: {self.worker_error}{hint}\nlast output lines of the worker:\n{shown}"
            )
        if returncode is None:
            cause = "stopped"
        else:
            cause = f"was killed by signal {-returncode}" if returncode < 0 else f"exited with status {returncode}"
        return LuceneError(f"the Java worker for {self.what} {cause} (Java at {home}); its last output lines:\n{shown}")


def start_worker(arguments: list[str]) -> tuple[subprocess.Popen, Path]:
    """A worker process `python -P -m retrievers.lucene.worker ARGUMENTS` and the Java home it runs with.

    It runs in a private folder (mode 0700, removed when it stops; a crashing JVM writes its hs_err_pid*.log there,
    not in the caller's folder, so every path argument is absolute), and `-P` keeps that folder off its import path:
    a `retrievers` package another local user plants in the shared temporary folder is never imported.
    """
    home = java_home()
    check_pyserini()
    work = Path(tempfile.mkdtemp(prefix="gsr-lucene-worker-"))  # 0700: only this user can enter
    # stdin is a pipe that stays open while this process lives: the worker exits when it closes (parent killed)
    try:
        process = subprocess.Popen(
            [sys.executable, "-P", "-m", WORKER_MODULE, *arguments],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=work,
            env=worker_environment(home, work),
            text=True,
            errors="replace",
            bufsize=1,
        )
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    process.work_folder = work  # type: ignore[attr-defined]
    return process, home


def stop_worker(process: subprocess.Popen) -> None:
    """Kills a worker that is still running (never leave a JVM behind), closes its pipes and removes its folder."""
    if process.poll() is None:
        process.kill()
        process.wait()
    for pipe in (process.stdin, process.stdout):
        if pipe is not None:
            pipe.close()
    work = getattr(process, "work_folder", None)
    if work is not None:
        shutil.rmtree(work, ignore_errors=True)


def run_worker(arguments: list[str], *, what: str) -> None:
    """Runs `python -m retrievers.lucene.worker ARGUMENTS` for one job, logging its output (WorkerOutput);
    failures raise LuceneError."""
    process, home = start_worker(arguments)
    output = WorkerOutput(what)
    assert process.stdout is not None  # started with pipes
    try:
        for line in process.stdout:
            output.add(line.rstrip("\n"))
        returncode = process.wait()
    finally:
        stop_worker(process)  # interrupted (KeyboardInterrupt, ...): never leave a JVM behind
    if returncode != 0:
        raise output.error(returncode, home)


_SESSIONS: weakref.WeakSet[LuceneSession] = weakref.WeakSet()  # the sessions of this process


def _forget_sessions_in_forked_child() -> None:
    """In a process forked from one with sessions (figure workers, runs computed aside): its copies of their pipes
    are closed and the sessions forgotten. The child never talks to its parent's worker, and a copy of the write end
    of the worker's stdin would keep the worker from seeing its parent close it (it ends on that end of file):
    `close()` would wait for it in vain."""
    for session in list(_SESSIONS):
        process, session._process = session._process, None
        if process is None:
            continue
        process._child_created = False  # type: ignore[attr-defined]  # the parent's child, not this one's: not reaped here
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                try:
                    pipe.close()  # nothing is left unflushed: every request is flushed as it is written
                except OSError:
                    pass


os.register_at_fork(after_in_child=_forget_sessions_in_forked_child)


class LuceneSession:
    """One worker process, so one JVM, for many jobs: indexing, searches, statistics (pass it as `session=` to
    retrievers.lucene's functions). The worker starts with the first job; a job that fails leaves it serving, a
    worker that dies (crash, kill) raises LuceneError and the next job starts a new one. `close()` (or leaving
    a `with` block) ends it. A process forked from this one holds none of its pipes (the worker ends when this
    process closes its stdin, whatever children it forked).
    """

    def __init__(self):
        self.workers_started = 0
        self.jobs = 0
        self._process: subprocess.Popen | None = None
        self._home: Path | None = None
        _SESSIONS.add(self)

    @property
    def pid(self) -> int | None:
        """The running worker's process id (None before the first job or after close)."""
        return self._process.pid if self._process is not None and self._process.poll() is None else None

    def run(self, arguments: list[str], *, what: str) -> None:
        """One worker job (a one-shot worker's ARGUMENTS) in this session's worker."""
        if self.pid is None:
            self._stop()
            self._process, self._home = start_worker(["serve"])
            self.workers_started += 1
        process, output = self._process, WorkerOutput(what)
        assert process is not None and process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(arguments) + "\n")
            process.stdin.flush()
            for line in process.stdout:
                line = line.rstrip("\n")
                if line == WORKER_DONE:
                    self.jobs += 1
                    return
                output.add(line)
                if output.worker_error is not None:  # the job failed; the worker serves the next one
                    raise output.error()
        except BrokenPipeError:
            pass  # the worker is gone: described below by its exit status
        except BaseException:
            if output.worker_error is None:  # interrupted mid-job: the worker's state is unknown
                self._stop()
            raise
        returncode = process.wait()
        self._stop()
        raise output.error(returncode, self._home)

    def _stop(self) -> None:
        if self._process is not None:
            stop_worker(self._process)
            self._process = None

    def close(self) -> None:
        """Ends the worker: its stdin closes, so it exits (and is killed if it does not)."""
        if self._process is not None:
            try:
                if self._process.stdin is not None:
                    self._process.stdin.close()
                self._process.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self._stop()

    def __enter__(self) -> LuceneSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
