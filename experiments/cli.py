"""The `gsr` command: one subcommand per module of experiments.commands (and debias.command), a shared error
policy: a gsr.errors.GSRError (a user's mistake, an undefined measure) prints `gsr: error: ...` and exits with
status 2; Ctrl-C prints one line and exits with status 130 (every file is written atomically, so nothing
half-written is left and a rerun resumes); anything else is a bug, shown with its traceback, status 70."""

from __future__ import annotations

import argparse
import os
import sys
import traceback

COMMANDS = ("experiments.commands.validate", "experiments.commands.queries", "experiments.commands.score",
            "experiments.commands.label", "experiments.commands.bias", "experiments.commands.rerank",
            "experiments.commands.run", "experiments.commands.listing",
            "debias.command")


def _add_logging_options(parser: argparse.ArgumentParser, default) -> None:
    """-q/--quiet and -v/--verbose, accepted before the subcommand and after it (`gsr run --quiet`)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_true", default=default,
                       help="warnings and errors only on stderr (no progress)")
    group.add_argument("-v", "--verbose", action="store_true", default=default,
                       help="also debug lines and the libraries' own logging on stderr (Anserini's INFO lines)")


def build_parser() -> argparse.ArgumentParser:
    import importlib

    from gsr import __version__

    parser = argparse.ArgumentParser(prog="gsr", description="Gender Stereotype Reinforcement (Fabris et al.)")
    parser.add_argument("--version", action="version", version=f"gsr-bench {__version__}")
    _add_logging_options(parser, default=False)
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        importlib.import_module(module).add_parser(subparsers)
    for subparser in subparsers.choices.values():  # SUPPRESS: given only before the subcommand, it still counts
        _add_logging_options(subparser, default=argparse.SUPPRESS)
    return parser


def _configure_logging(args: argparse.Namespace) -> None:
    from gsr.infra import logs

    logs.configure(logs.QUIET if args.quiet else logs.VERBOSE if args.verbose else logs.NORMAL)


def main(argv: list[str] | None = None) -> int:
    command = "(starting)"
    try:
        from gsr.errors import GSRError

        args = build_parser().parse_args(argv)
        command = args.command
        _configure_logging(args)
        return args.func(args)
    except KeyboardInterrupt as interrupt:  # first: the names below may not be imported yet
        print(f"gsr: {interrupted(command, interrupt)}", file=sys.stderr)
        return 130  # 128 + SIGINT, as shells report it
    except GSRError as err:  # a user's mistake or an undefined measure: the message says what and where
        print(f"gsr: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head & co. and closed: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as err:  # a full or read-only folder that a write outside gsr.infra.store met
        from gsr.infra.store import STORAGE_ERRNOS

        if err.errno not in STORAGE_ERRNOS:
            return _bug(command)
        where = f" in {os.path.dirname(os.path.abspath(err.filename))}" if err.filename else ""
        print(f"gsr: error: cannot write{where}: {err.strerror or err}", file=sys.stderr)
        return 2
    except Exception:  # anything else is a bug in gsr-bench: show where it happened
        return _bug(command)


def _bug(command: str) -> int:
    traceback.print_exc()
    print(f"gsr: internal error in gsr {command}: this is a bug in gsr-bench, not a mistake in your input; "
          "please report it with the traceback above", file=sys.stderr)
    return 70  # EX_SOFTWARE


def interrupted(command: str, interrupt: KeyboardInterrupt) -> str:
    """The one line printed on Ctrl-C: what was interrupted and what a rerun does."""
    steps = getattr(interrupt, "__notes__", None)  # experiments.runner adds the step it was in
    during = f" during {steps[0]}" if steps else ""
    rerun = ("running it again resumes after the last finished step" if command == "run"
             else "running it again reuses every cache entry already finished")
    return f"interrupted: gsr {command}{during}; nothing half-written was kept, and {rerun}"


if __name__ == "__main__":
    sys.exit(main())
