"""Options and helpers the measuring commands share: the embedding, definitional pairs, stop list, JSON output."""

from __future__ import annotations

import argparse

from gsr.errors import GSRError

DEFAULT_EMBEDDING = "glove-6b-50d"
# every option of these commands that names a file or folder to read: what no output of theirs may be
INPUT_OPTIONS: tuple[str, ...] = ("run", "topics", "docs", "qrels", "labels", "embedding", "definitional")
INPUT_OPTIONS += ("stopwords", "entities", "gender_words")


class CommandError(GSRError):
    """A command that cannot run as asked; main() prints the message and exits with status 2."""


def positive_int(text: str) -> int:
    """An argparse type: an integer ≥ 1 (0 or -1 threads would be ignored or fail late)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text!r}")
    return value


def cutoff_text(text: str):
    """--cutoff's text as the cut-off value gsr.settings.CUTOFF checks: 'relevant', 'none' or an integer."""
    from gsr.settings import NO_CUTOFF, RELEVANT

    return text if text in (RELEVANT, NO_CUTOFF) else int(text)


def add_list_options(parser) -> None:
    """--cutoff, --exclusion and --strict: how the measured lists are cut and read (`gsr score`, `gsr plan`'s
    pilot; `parser` an ArgumentParser or an argument group)."""
    from gsr.infra.params import argparse_type
    from gsr.settings import CUTOFF, EXCLUSION

    parser.add_argument(
        "--cutoff",
        type=argparse_type(CUTOFF, cutoff_text),
        default=CUTOFF.default,
        help=f"{CUTOFF.help}; default {CUTOFF.default}",
    )
    parser.add_argument(
        "--exclusion",
        choices=EXCLUSION.choices,
        default=EXCLUSION.default,
        help=f"{EXCLUSION.help}; default {EXCLUSION.default}",
    )
    parser.add_argument("--strict", action="store_true", help="fail on retrieved ids missing from --docs")


def add_embedding_options(parser: argparse.ArgumentParser) -> None:
    """--embedding, --definitional, --stopwords and --json."""
    add_lexicon_options(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def add_lexicon_options(parser: argparse.ArgumentParser) -> None:
    """--embedding, --allow-pickle, --definitional and --stopwords: what g(w) and the text handling are made of."""
    parser.add_argument(
        "--embedding",
        default=DEFAULT_EMBEDDING,
        help=f"built-in name or vectors file (.bin, .txt, .vec; .kv with --allow-pickle); default {DEFAULT_EMBEDDING}",
    )
    add_pickle_option(parser)
    parser.add_argument(
        "--definitional", metavar="FILE", help="definitional pairs as debiaswe JSON (default: Bolukbasi's ten pairs)"
    )
    parser.add_argument(
        "--stopwords",
        metavar="nltk|sklearn|FILE",
        help="stop list: 'nltk' (NLTK's English stop words, the default), 'sklearn' (scikit-learn's) "
        "or a file, one word per line; gendered pronouns are always kept",
    )


def add_pickle_option(parser: argparse.ArgumentParser) -> None:
    """--allow-pickle: the explicit opt-in a gensim .kv embedding (a pickle) needs."""
    parser.add_argument(
        "--allow-pickle",
        action="store_true",
        help="read a gensim .kv --embedding, which is a Python pickle and runs code when loaded: only "
        "for files you trust",
    )


def embedding_of(args):
    """--embedding's vectors (a .kv file only with --allow-pickle)."""
    from gsr.vectors.loading import load_embedding

    return load_embedding(args.embedding, allow_pickle=getattr(args, "allow_pickle", False))


def lexicon_of(args):
    """The GenderLexicon (Eq. 1) of --embedding with --definitional pairs (cached per embedding version and pairs)."""
    from gsr.lexicon import load_word_pairs
    from gsr.lexicon_cache import cached_lexicon

    pairs = load_word_pairs(args.definitional) if args.definitional else None
    return cached_lexicon(
        args.embedding, pairs, name=str(args.embedding), allow_pickle=getattr(args, "allow_pickle", False)
    )


def analyzer_of(args):
    """The text analyzer with --stopwords (default stop list otherwise) and --exclusion where the command has it."""
    from gsr.settings import DEFAULT_EXCLUSION
    from gsr.text.analyzer import Analyzer, stopwords_of

    exclusion = getattr(args, "exclusion", None) or DEFAULT_EXCLUSION
    return Analyzer(stopwords_of(args.stopwords), exclusion=exclusion)


def check_outputs(args, targets=(), overwrite: bool = False) -> None:
    """The shared check of what a command writes (gsr.infra.outputs.check_output_targets), before any work: each of
    `targets` (gsr.infra.outputs.Target), and standard output and standard error, against every input option `args`
    holds."""
    from gsr.infra.outputs import check_output_targets, option_inputs

    check_output_targets(targets, option_inputs(args, *INPUT_OPTIONS), overwrite)


def add_overwrite_option(parser: argparse.ArgumentParser, what: str) -> None:
    """--overwrite: `what` may be replaced where it exists (by default an existing file is never touched)."""
    parser.add_argument(
        "--overwrite", action="store_true", help=f"replace {what} where it exists (by default it is never touched)"
    )


def plot_targets(folder: str | None, names) -> list:
    """--plots DIR's targets for check_outputs: the folder and each file `names` it will hold (none without it)."""
    from pathlib import Path

    from gsr.infra.outputs import Target

    if folder is None:
        return []
    return [Target("--plots", Path(folder), folder=True), *(Target("--plots", Path(folder) / name) for name in names)]


def share_pairs(text: str) -> dict[str, float] | None:
    """{group: share} of 'group=number,group=number' text (groups stripped), or None where a part is not that."""
    shares = {}
    for part in text.split(","):
        group, equals, value = part.partition("=")
        try:
            shares[group.strip()] = float(value)
        except ValueError:
            return None
        if not equals or not group.strip():
            return None
    return shares


def non_negative(text: str) -> float:
    """An argparse type: a number ≥ 0."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number ≥ 0, not {text!r}")
    return value


def group_shares(text: str) -> dict[str, float]:
    """An argparse type: each group's share as 'f=0.5,m=0.5' (the groups of the word list's second column)."""
    from gsr.fairness.fairr import FaiRRError, check_shares

    shares = share_pairs(text)
    if shares is None:
        raise argparse.ArgumentTypeError(f"must be shares such as 'f=0.5,m=0.5', not {text!r}")
    try:
        return check_shares(shares)
    except FaiRRError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_gender_words_option(parser: argparse.ArgumentParser) -> None:
    """--gender-words: the word list RaB/ARaB and FaiRR/NFaiRR count (`gsr bias`, `gsr score`)."""
    parser.add_argument(
        "--gender-words",
        dest="gender_words",
        metavar="appendix-b|msmarco-gender|gender-representative|FILE",
        help="the gendered words RaB's tf/tc/bool magnitudes and FaiRR's document neutrality count (and, in gsr "
        "bias, the entity words of --labels intrinsic): appendix-b (the paper's Appendix B, RaB's default), "
        "msmarco-gender (Rekabsaz & Schedl's own 32 + 32 words), gender-representative (Rekabsaz, Kopeinik & "
        'Schedl\'s 163 + 163 words, FaiRR\'s default) or a file: JSON {"female": [...], "male": [...]} or '
        "'word,f' / 'word,m' lines",
    )


def add_fairr_options(parser: argparse.ArgumentParser) -> None:
    """--background, --background-depth, --neutrality-threshold, --group-shares, --fairr-tokens and
    --missing-documents: how FaiRR/NFaiRR read the documents and the background run (`gsr bias`, `gsr score`)."""
    from gsr.fairness.fairr_options import (
        DEFAULT_BACKGROUND_DEPTH,
        DEFAULT_SHARES,
        DEFAULT_THRESHOLD,
        MISSING_POLICIES,
        TOKENISATIONS,
    )

    parser.add_argument(
        "--background",
        metavar="RUN",
        help="FaiRR's background run: NFaiRR divides by the ideal FaiRR of its top --background-depth documents per "
        "query (default: the measured run's own); it must answer every measured query the run answers",
    )
    parser.add_argument(
        "--background-depth",
        type=positive_int,
        default=DEFAULT_BACKGROUND_DEPTH,
        help=f"documents per query of the background set (default {DEFAULT_BACKGROUND_DEPTH}, as the reference reads)",
    )
    parser.add_argument(
        "--neutrality-threshold",
        type=non_negative,
        default=DEFAULT_THRESHOLD,
        help=f"a document with at most this many representative words is neutral (default {DEFAULT_THRESHOLD})",
    )
    parser.add_argument(
        "--group-shares",
        type=group_shares,
        default=dict(DEFAULT_SHARES),
        metavar="f=0.5,m=0.5",
        help="each group's share in a neutral document (the groups of the word list's 'word,GROUP' lines)",
    )
    parser.add_argument(
        "--fairr-tokens",
        choices=TOKENISATIONS,
        default="whitespace",
        help="FaiRR's tokens: lowercased and split at whitespace, punctuation kept (whitespace, the reference's), "
        "or the analyzer's words without punctuation (words)",
    )
    parser.add_argument(
        "--missing-documents",
        choices=MISSING_POLICIES,
        default="error",
        help="a ranked document --docs lacks: an error (default), or neutral (ω = 1, as the reference intends)",
    )


def fairr_settings_of(args, cutoffs):
    """The FaiRRSettings of the FaiRR options (add_fairr_options) at `cutoffs`."""
    from gsr.fairness.fairr_runs import FaiRRSettings

    return FaiRRSettings(
        cutoffs=tuple(cutoffs),
        threshold=args.neutrality_threshold,
        shares=args.group_shares,
        background_depth=args.background_depth,
        tokens=args.fairr_tokens,
        missing=args.missing_documents,
    )
