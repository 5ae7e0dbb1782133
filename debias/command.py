"""`gsr debias`: write a regular- or strong-debiased copy of an embedding as a word2vec file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from debias.words import DEFAULT_LISTS, LIST_SETS, load_pair_list, load_word_list
from gsr.infra import logs
from gsr.infra.outputs import Target, check_output_targets, option_inputs, place_file
from gsr.infra.store import atomic_write
from gsr.lexicon_cache import DEBIAS_RECORD_SUFFIX

log = logs.get("cli")

DEFAULT_EMBEDDING = "glove-6b-50d"
MAX_LISTED = 20  # missing words named in the summary; the rest are counted


def configure_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add the debias options to `parser`."""
    parser.add_argument(
        "--embedding",
        default=DEFAULT_EMBEDDING,
        help=f"built-in name or vectors file (.bin, .txt, .vec, .kv); default {DEFAULT_EMBEDDING}",
    )
    parser.add_argument(
        "--method",
        choices=("regular", "strong"),
        default="regular",
        help="regular: Bolukbasi et al. hard debiasing (neutralise + equalise); "
        "strong: Prost et al., the direction removed from every word",
    )
    parser.add_argument(
        "--lists",
        choices=LIST_SETS,
        default=DEFAULT_LISTS,
        help="the default word lists: debiaswe (Bolukbasi et al.'s own, as the paper used; the "
        "default) or project (the project's lowercase lists, matched in every case form)",
    )
    parser.add_argument(
        "--definitional", metavar="FILE", help="definitional pairs as debiaswe JSON (default: Bolukbasi's ten pairs)"
    )
    parser.add_argument(
        "--gender-specific",
        metavar="FILE",
        help="words kept gendered, debiaswe JSON list (regular only; default: those of --lists)",
    )
    parser.add_argument(
        "--equalize", metavar="FILE", help="equalize pairs, debiaswe JSON (regular only; default: those of --lists)"
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="PATH",
        help="output word2vec file: binary if PATH ends with .bin, else text (.gz compresses)",
    )
    parser.add_argument("--overwrite", action="store_true", help="replace --out when it already exists")
    parser.add_argument(
        "--allow-pickle",
        action="store_true",
        help="read a gensim .kv --embedding, which is a Python pickle and runs code when loaded: "
        "only for files you trust",
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Debias args.embedding with args.method, write args.out, print a summary to stderr; 0 on success."""
    from debias.hard import DebiasError
    from gsr.vectors.loading import load_embedding

    out_path = Path(args.out).expanduser()
    record_path = out_path.with_name(out_path.name + DEBIAS_RECORD_SUFFIX)
    _check_output(args, out_path, record_path)
    debiaser = _debiaser(args)
    kv = load_embedding(args.embedding, allow_pickle=args.allow_pickle)
    unwritable_word = next((w for w in kv.index_to_key if not w or any(c.isspace() for c in w)), None)
    if unwritable_word is not None:
        raise DebiasError(
            f"{args.embedding}: the word {unwritable_word!r} contains whitespace, which a word2vec "
            "file cannot hold (it would not read back); nothing was debiased"
        )
    debiased = debiaser.fit_transform(kv)
    report = debiaser.report(kv)
    binary = out_path.name.lower().endswith(".bin")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    # never half-written, and without --overwrite never over a file that appeared meanwhile (gsr.infra.outputs)
    place_file(
        lambda partial: debiased.save_word2vec_format(str(partial), binary=binary),
        out_path,
        args.overwrite,
        "--out",
        "debiasing",
    )
    source = {"source": str(args.embedding), "method": args.method, "lists": getattr(args, "lists", None)}
    place_file(lambda partial: _write_json(partial, source), record_path, args.overwrite, "--out", "debiasing")
    log.info("%s", summary(report, str(args.embedding), kv.key_to_index))
    log.info("wrote %s (word2vec %s)", out_path, "binary" if binary else "text")
    return 0


def _check_output(args: argparse.Namespace, out_path: Path, record_path: Path) -> None:
    """--out names a word2vec file that can be written (gsr.infra.outputs.check_output_targets): never an input, nor
    (without --overwrite) a file that exists, it or the record beside it; checked before any work."""
    from debias.hard import DebiasError

    if out_path.name.lower().endswith(".kv"):
        raise DebiasError(f"{out_path}: --out writes word2vec files; name it .bin (binary) or .txt (text)")
    check_output_targets(
        [Target("--out", out_path), Target("--out", record_path)],
        option_inputs(args, "embedding", "definitional", "gender_specific", "equalize"),
        args.overwrite,
    )


def _debiaser(args):
    from debias.hard import DebiasError, HardDebias, StrongDebias

    pairs = load_pair_list(args.definitional) if args.definitional else None
    if args.method == "strong":
        given = [
            flag
            for flag, value in (("--gender-specific", args.gender_specific), ("--equalize", args.equalize))
            if value
        ]
        if given:
            raise DebiasError(
                f"{' and '.join(given)} apply to --method regular only: strong debiasing "
                "removes the direction from every word and equalises nothing"
            )
        return StrongDebias(definitional_pairs=pairs, lists=args.lists)
    return HardDebias(
        definitional_pairs=pairs,
        lists=args.lists,
        gender_specific=load_word_list(args.gender_specific) if args.gender_specific else None,
        equalize_pairs=load_pair_list(args.equalize) if args.equalize else None,
    )


def summary(report, name: str, vocabulary=None) -> str:
    """A few lines on what was debiased: size, explained variance, counts, list words missing (with `vocabulary`,
    those missing only as written, in another case form, counted apart from those missing in every form)."""
    lines = [
        f"debiased {name} ({report.method}): {report.n_words:,} words x {report.dimensions} dims; the gender "
        f"direction explains {report.explained_variance:.1%} of the definitional pairs' variance",
        f"  neutralised {report.n_neutralised:,} words, kept {report.n_words - report.n_neutralised:,} "
        f"gender-specific, equalised {len(report.equalized):,} pairs",
    ]
    missing = list(report.missing_gender_specific)
    if missing and vocabulary is not None:
        from gsr.lexicon import vocabulary_key

        other_case = [w for w in missing if vocabulary_key(vocabulary, w) is not None]
        absent = [w for w in missing if vocabulary_key(vocabulary, w) is None]
        if other_case:
            lines.append(
                f"  gender-specific words in the vocabulary only in another case ({len(other_case)}; the list is "
                "matched as written, as debiaswe does): " + _listed(other_case)
            )
        if absent:
            lines.append(f"  gender-specific words in no case form ({len(absent)}): {_listed(absent)}")
    elif missing:
        lines.append(f"  gender-specific words not in the vocabulary ({len(missing)}): " + _listed(missing))
    if report.missing_equalize:
        lines.append(
            f"  equalize pairs not in the vocabulary ({len(report.missing_equalize)}): "
            + _listed(f"{a}/{b}" for a, b in report.missing_equalize)
        )
    return "\n".join(lines)


def _listed(items) -> str:
    items = list(items)
    more = f" … and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else ""
    return ", ".join(items[:MAX_LISTED]) + more


def _write_json(path: Path, data: dict) -> None:
    with atomic_write(path) as out:
        json.dump(data, out)
