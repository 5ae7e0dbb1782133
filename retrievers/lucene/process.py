"""The parent side of a Lucene worker process: starting `python -m retrievers.lucene.worker ...` with Java's
environment, echoing its output without the JVM's version chatter, and turning a failure into a LuceneError
that carries the worker's last output lines.

A worker reports an expected failure as one line starting with WORKER_ERROR; anything else that ends it (JVM
abort, crash, kill) is described by its exit status.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from retrievers.lucene.errors import LuceneError
from retrievers.lucene.java import check_pyserini, java_home

WORKER_MODULE = "retrievers.lucene.worker"
WORKER_ERROR = "LUCENE-WORKER-ERROR: "  # prefix of the one line a worker prints for an expected failure
PARENT_PIPE_VARIABLE = "GSR_LUCENE_WORKER_STDIN_IS_PARENT"  # set for workers whose stdin is the parent's pipe
STDERR_TAIL_LINES = 30
# JVM chatter that says nothing about the job (Lucene/Java version notices); neither shown nor kept for errors
JVM_NOISE = re.compile(r"sun\.misc\.Unsafe|terminally deprecated method|Please consider reporting this to the "
                       r"maintainers of class org\.apache\.lucene|MMapDirectory lookupProvider|"
                       r"Java 22 or later\. To make full use of MMapDirectory|^SLF4J\(I\)")
PROJECT_ROOT = Path(__file__).resolve().parents[2]  # retrievers/lucene/process.py -> the folder above retrievers


def worker_environment(home: Path) -> dict[str, str]:
    """The caller's environment plus Java's home, the parent-pipe flag and the project on PYTHONPATH."""
    env = dict(os.environ)
    env["JAVA_HOME"] = str(home)  # pyjnius looks for libjvm under $JAVA_HOME before anything else
    env[PARENT_PIPE_VARIABLE] = "1"
    # the worker runs in another folder (see run_worker), where `retrievers` would not be importable otherwise
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH")) if p)
    return env


def run_worker(arguments: list[str], *, what: str, progress: bool) -> None:
    """Runs `python -m retrievers.lucene.worker ARGUMENTS`, echoing its output when `progress`; failures raise
    LuceneError."""
    home = java_home()
    check_pyserini()
    command = [sys.executable, "-m", WORKER_MODULE, *arguments]
    tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
    worker_error = None
    # the temporary folder as working directory: a crashing JVM writes its hs_err_pid*.log there, not in the
    # caller's folder (the crash message names the file); every path argument is therefore absolute
    # stdin is a pipe that stays open while this process lives: the worker exits when it closes (parent killed)
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               cwd=tempfile.gettempdir(), env=worker_environment(home), text=True, errors="replace",
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
