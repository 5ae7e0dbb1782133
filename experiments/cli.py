"""The `gsr` command: one subcommand per module of experiments.commands (and debias.command), a shared error
policy: expected failures print `gsr: error: ...` and exit with status 2."""

from __future__ import annotations

import argparse
import os
import sys

COMMANDS = ("experiments.commands.validate", "experiments.commands.queries", "experiments.commands.score",
            "experiments.commands.label", "experiments.commands.run", "experiments.commands.listing",
            "debias.command")


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = argparse.ArgumentParser(prog="gsr", description="Gender Stereotype Reinforcement (Fabris et al.)")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        importlib.import_module(module).add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    from embeddings.loading import EmbeddingError
    from experiments.commands.common import CommandError
    from gsr.io import InputError
    from gsr.measure import GSRError
    from retrievers.lucene import LuceneError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (InputError, EmbeddingError, GSRError, LuceneError, CommandError, ValueError) as err:
        print(f"gsr: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head & co.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
