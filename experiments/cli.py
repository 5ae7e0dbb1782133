"""The `gsr` command: one subcommand per module of experiments.commands (and debias.command), a shared error
policy: a gsr.errors.GSRError (a user's mistake, an undefined measure) prints `gsr: error: ...` and exits with
status 2; Ctrl-C, SIGTERM and SIGHUP print one line and exit with status 128 + the signal's number (130, 143, 129;
every file is written atomically and every worker ends with the command, so nothing half-written is left, no worker
commits anything later, and a rerun resumes); output that does not reach stdout (a pipe closed early, as `| head`, or
a closed or full stdout) prints one line and exits with status 1; anything else is a bug, shown with its traceback,
status 70."""

from __future__ import annotations

import argparse
import io
import os
import sys
import traceback
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    """A subcommand: where its options are declared (`module.configure(parser)`), what it does, how it is used."""

    module: str
    configure: str
    help: str
    examples: tuple[str, ...]


COMMANDS = {
    "run": Command(
        "experiments.commands.run",
        "configure_run",
        "run an experiment config (the demo by default): "
        "runs, effectiveness, GSR with intervals and tests, Tables 2-3, analyses, report",
        ("gsr run", "gsr run grepbiasir --out out/grepbiasir --no-plots", "gsr run demo --dry-run"),
    ),
    "score": Command(
        "experiments.commands.score",
        "configure",
        "GSR of TREC runs with intervals; with qrels the "
        "perfect and random engines; several runs are tested against each other",
        (
            "gsr export toy1 --out toy --overwrite && gsr score --run toy/stereotypical.run --topics toy/topics.tsv "
            "--docs toy/documents.jsonl --qrels toy/qrels.txt",
            "gsr score --run toy/stereotypical.run toy/counter-stereotypical.run --topics toy/topics.tsv "
            "--docs toy/documents.jsonl --qrels toy/qrels.txt --measures nDCG@10,AP --json",
        ),
    ),
    "plan": Command(
        "experiments.commands.plan",
        "configure",
        "plan a study from a pilot: GSR's interval half-width for n topics, the differences two runs can "
        "detect, which topics of a pool to judge",
        (
            "gsr plan --run toy/stereotypical.run toy/neutral.run --topics toy/topics.tsv --docs toy/documents.jsonl "
            "--qrels toy/qrels.txt --target-width 0.1 --difference 0.5",
            "gsr plan --run toy/stereotypical.run --topics toy/topics.tsv --docs toy/documents.jsonl "
            "--pool msmarco-gender --select 20 --neutral-share 0.2 --json plan.json --overwrite",
        ),
    ),
    "queries": Command(
        "experiments.commands.queries",
        "configure",
        "every query's genderedness g(q) and its terms' projections (Fig. 7)",
        ("gsr queries --topics toy/topics.tsv", "gsr queries --topics msmarco-gender:f --json"),
    ),
    "validate": Command(
        "experiments.commands.validate",
        "configure",
        "check the measure itself: stereotype tests (Fig. 1), toy slopes (Figs. 4, 6), Fig. 5's r",
        ("gsr validate", "gsr validate --plots out/validate"),
    ),
    "bias": Command(
        "experiments.commands.bias",
        "configure",
        "label-based gender-bias measures of a run (KL bias, NDKL, β with MB/SB/MAB, RaB/ARaB)",
        (
            "gsr bias --run toy/stereotypical.run --qrels toy/qrels.txt --docs toy/documents.jsonl --labels intrinsic",
            "gsr label --docs toy/documents.jsonl > labels.tsv && gsr bias --run toy/stereotypical.run "
            "--docs toy/documents.jsonl --labels labels.tsv --k 20 --json",
        ),
    ),
    "label": Command(
        "experiments.commands.label",
        "configure",
        "intrinsic gender of documents (§4.2.5, Fig. 12's rule)",
        ("gsr label --docs toy/documents.jsonl > labels.tsv", "gsr label --docs toy/documents.jsonl --json"),
    ),
    "rerank": Command(
        "experiments.commands.rerank",
        "configure",
        "re-rank a TREC run for gender fairness (epsilon-greedy, relevance-aware swapping, fairness-greedy, Dash)",
        (
            "gsr rerank --run toy/stereotypical.run --method epsilon_greedy --out fair.run",
            "gsr rerank --run toy/stereotypical.run --method dash --labels labels.tsv --out dash.run",
        ),
    ),
    "debias": Command(
        "debias.command",
        "configure_parser",
        "write a regular- or strong-debiased copy of an embedding",
        (
            "gsr debias --out glove-debiased.txt",
            "gsr debias --embedding glove-debiased.txt --method strong --out strong.txt",
        ),
    ),
    "export": Command(
        "experiments.commands.run",
        "configure_export",
        "write a built-in collection as JSONL documents, TSV topics, TREC qrels",
        ("gsr export demo --out demo-files",),
    ),
    "list": Command(
        "experiments.commands.listing",
        "configure",
        "the built-in configs, system types, analyses and collection kinds, with their parameters "
        "(wrapped to the terminal; --markdown: as tables)",
        ("gsr list", "gsr list configs", "gsr list systems --markdown"),
    ),
}


def _add_logging_options(parser: argparse.ArgumentParser, default) -> None:
    """-q/--quiet and -v/--verbose, accepted before the subcommand and after it (`gsr run --quiet`)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "-q", "--quiet", action="store_true", default=default, help="warnings and errors only on stderr (no progress)"
    )
    group.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        default=default,
        help="also debug lines and the libraries' own logging on stderr (Anserini's INFO lines)",
    )


def _chosen(argv: list[str]) -> str | None:
    """The subcommand in `argv`: the first argument that is not an option (the global options take no value)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMANDS else None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The `gsr` parser. Only the subcommand `argv` names has its options declared (its module imported): every
    other one is listed by name and help, so `gsr --help` and `gsr score --help` load no library they do not need."""
    import importlib

    from gsr import __version__

    chosen = _chosen(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="gsr",
        description="Gender Stereotype Reinforcement (Fabris et al.): "
        "how much a search engine reinforces gender stereotypes",
        epilog="examples:\n  gsr run\n  gsr score --help\n  gsr list systems",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gsr-bench {__version__}")
    _add_logging_options(parser, default=False)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        examples = "examples:\n" + "\n".join(f"  {line}" for line in command.examples)
        subparser = subparsers.add_parser(
            name,
            help=command.help,
            description=command.help,
            epilog=examples,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if name == chosen:
            getattr(importlib.import_module(command.module), command.configure)(subparser)
        _add_logging_options(subparser, default=argparse.SUPPRESS)  # given only before the subcommand, it counts
    return parser


def _configure_logging(args: argparse.Namespace) -> None:
    from gsr.infra import logs

    logs.configure(logs.QUIET if args.quiet else logs.VERBOSE if args.verbose else logs.NORMAL)


def main(argv: list[str] | None = None) -> int:
    """Run the command `argv` names; its exit status. Output that cannot reach stdout (a closed pipe, a closed or
    full stdout) is an error: one line on stderr and status 1, never 0."""
    closed = _ClosedOutput() if sys.stdout is None else None  # started with stdout closed (`gsr score >&-`)
    if closed is not None:
        _hold_descriptor_1()
        sys.stdout = closed
    try:
        status = _run(argv)
        return _flushed(status, closed)
    finally:
        if closed is not None:
            sys.stdout = None  # as Python left it


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the command is (stop_signals), so that it stops as on Ctrl-C: every `finally`
    runs (workers ended, locks released, staging removed), and one line says so."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame) -> None:
    raise Stopped(signum)


def stop_signals() -> dict[int, object]:
    """SIGTERM and SIGHUP raise Stopped in the main thread from now on (a batch scheduler's or `kill`'s stop, a
    closed terminal); returns the handlers they replace (none are set outside the main thread)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    return {signum: signal.signal(signum, _stop) for signum in (signal.SIGTERM, signal.SIGHUP)}


def _run(argv: list[str] | None) -> int:
    import signal

    command = "(starting)"
    previous = stop_signals()
    try:
        from gsr.errors import GSRError

        args = build_parser(argv).parse_args(argv)
        command = args.command
        _configure_logging(args)
        return args.func(args)
    except KeyboardInterrupt as interrupt:  # first: the names below may not be imported yet
        try:
            print(f"gsr: {interrupted(command, interrupt)}", file=sys.stderr)
        except OSError:  # a hung-up terminal: the status says it
            pass
        return 128 + getattr(interrupt, "signum", signal.SIGINT)  # as shells report a signal: 130 for Ctrl-C
    except GSRError as err:  # a user's mistake or an undefined measure: the message says what and where
        from gsr.infra.names import printable

        print(f"gsr: error: {printable(str(err))}", file=sys.stderr)  # its file names may hold ESC, U+202E, …
        return 2
    except BrokenPipeError:  # output piped into head & co. and closed: what was not read is lost
        return _output_lost("standard output was closed before all of it was read (broken pipe)")
    except OSError as err:  # a full or read-only folder that a write outside gsr.infra.store met
        from gsr.infra.store import STORAGE_ERRNOS

        if err.errno not in STORAGE_ERRNOS:
            return _bug(command)
        where = f" in {os.path.dirname(os.path.abspath(err.filename))}" if err.filename else ""
        print(f"gsr: error: cannot write{where}: {err.strerror or err}", file=sys.stderr)
        return 2
    except Exception:  # anything else is a bug in gsr-bench: show where it happened
        return _bug(command)
    finally:
        for signum, handler in previous.items():
            if handler is not None:  # None: a handler not set from Python, which cannot be put back
                signal.signal(signum, handler)  # type: ignore[arg-type]


def _hold_descriptor_1() -> None:
    """With descriptor 1 closed, the next file opened would get it, and a library or tool writing to "stdout"
    would write into that file: the null device holds it instead."""
    try:
        os.fstat(1)
    except OSError:
        held = os.open(os.devnull, os.O_WRONLY)  # the lowest free descriptor: 1
        if held != 1:
            os.close(held)


class _ClosedOutput(io.TextIOBase):
    """sys.stdout when the process started with file descriptor 1 closed: what is printed is lost, and noted."""

    lost = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.lost = self.lost or bool(text)
        return len(text)


def _flushed(status: int, closed: _ClosedOutput | None) -> int:
    """`status`, or 1 when what the command printed did not reach stdout (flushed here, so that a failure is seen
    before the interpreter's own flush at exit, which would only print a traceback-like warning)."""
    try:
        sys.stdout.flush()
    except OSError as err:  # BrokenPipeError (EPIPE) included: a closed pipe, a full disk, a bad descriptor
        lost = _output_lost(
            "standard output was closed before all of it was read (broken pipe)"
            if isinstance(err, BrokenPipeError)
            else f"cannot write the output to standard output: {err.strerror or err}",
            quiet=status not in (0, 1),  # an error already said what went wrong
        )
        return status or lost
    if closed is not None and closed.lost and status in (0, 1):
        print("gsr: error: standard output is closed: the output was lost", file=sys.stderr)
        return status or 1
    return status


def _output_lost(why: str, quiet: bool = False) -> int:
    """One line on stderr, stdout pointed at the null device (Python's recipe for SIGPIPE: the interpreter's flush
    at exit then succeeds instead of printing a second error), status 1."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):  # io.UnsupportedOperation is both: no descriptor to redirect
        pass
    if not quiet:
        print(f"gsr: error: {why}", file=sys.stderr)
    return 1


def _bug(command: str) -> int:
    traceback.print_exc()
    print(
        f"gsr: internal error in gsr {command}: this is a bug in gsr-bench, not a mistake in your input; "
        "please report it with the traceback above",
        file=sys.stderr,
    )
    return 70  # EX_SOFTWARE


def interrupted(command: str, interrupt: KeyboardInterrupt) -> str:
    """The one line printed on Ctrl-C, SIGTERM or SIGHUP: what was stopped, what was kept and what a rerun does."""
    import signal

    steps = getattr(interrupt, "__notes__", None)  # experiments.runner adds the step it was in
    during = f" during {steps[0]}" if steps else ""
    rerun = (
        "running it again resumes after the last finished step"
        if command == "run"
        else "running it again reuses every cache entry already finished"
    )
    how = f"stopped by {signal.Signals(interrupt.signum).name}" if isinstance(interrupt, Stopped) else "interrupted"
    return f"{how}: gsr {command}{during}; nothing half-written was kept, and {rerun}"


if __name__ == "__main__":
    sys.exit(main())
