"""`gsr bias`: the label-based gender-bias measures of a TREC run — Feng & Shah's KL bias (KL@k and Eq. 1's FSKL@k),
Dash's NDKL@k, Lipani et al.'s β@k with MB / SB / MAB, Rekabsaz & Schedl's RaB@k / ARaB@k — from document labels
(a labels file, the intrinsic rule or the sign of g(d) beyond a threshold), with the label source in the output.

Output (--json): {"measures": {name: value}, "per_query": [...], "settings": {...}, "queries": {name: n}}."""

from __future__ import annotations

import argparse
import json

from gsr.cli.options import CommandError, add_embedding_options, analyzer_of, check_outputs, lexicon_of, positive_int
from gsr.fairness.equations import (
    DEFAULT_EPSILON,
    LABEL_MAGNITUDES,
    NEUTRAL_POLICIES,
    RAB_VARIANTS,
    SHORT_LISTS,
    TARGETS,
)


def document_labels(args, run_docids: set[str] | None = None):
    """The DocumentLabels of --labels: a labels file, intrinsic (over --docs) or genderedness:τ (over --docs, g(d)
    under --embedding)."""
    from gsr.evaluate import GSR
    from gsr.fairness.labels import (
        GENDEREDNESS,
        INTRINSIC,
        genderedness_labels,
        intrinsic_labels,
        mention_words,
        parse_label_source,
        read_labels_file,
    )

    kind, value = parse_label_source(args.labels)
    if kind == "file":
        return read_labels_file(value, strict=args.strict)
    if args.docs is None:
        raise CommandError(f"--labels {args.labels} labels the documents of --docs: give --docs")
    if kind == INTRINSIC:
        return intrinsic_labels(args.docs, mention_words(getattr(args, "gender_words", None), names=args.names))
    assert kind == GENDEREDNESS
    gendered = GSR(lexicon_of(args), analyzer_of(args)).documents(args.docs)
    return genderedness_labels(gendered, value)


def parse_shares(text: str):
    """A target name, or explicit shares 'female=0.4,male=0.6'."""
    if text in TARGETS:
        return text
    shares = {}
    for part in text.split(","):
        group, equals, value = part.partition("=")
        try:
            shares[group.strip()] = float(value)
        except ValueError:
            equals = ""
        if not equals:
            raise argparse.ArgumentTypeError(
                f"target must be one of {', '.join(TARGETS)} or shares such as 'female=0.4,male=0.6', not {text!r}"
            )
    return shares


def add_label_options(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """--labels, --docs, --names, --strict and the embedding options (for genderedness:τ)."""
    parser.add_argument(
        "--labels",
        required=required,
        metavar="FILE|intrinsic|genderedness:TAU",
        help="document labels: a 'docid<TAB>female|male|neutral' file; 'intrinsic' (§4.2.5: entity "
        "words and first names in --docs); or 'genderedness:TAU' (female when g(d) > TAU, male "
        "when g(d) < -TAU, under --embedding)",
    )
    parser.add_argument(
        "--docs",
        help="documents: JSONL ({id, contents}) or TSV (docid<TAB>text); needed by "
        "intrinsic and genderedness labels and by RaB's tf, tc and bool magnitudes",
    )
    parser.add_argument(
        "--names",
        choices=("nltk", "census"),
        default="nltk",
        help="first names of the intrinsic rule (default nltk, the census lists where it is absent)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="a run document without a label in the labels file is an error (default: neutral)",
    )
    add_embedding_options(parser)


def measured_queries(args, run, qrels) -> list[str] | None:
    """The query ids --topics names (those with a relevant judgment, with --qrels); None without --topics (the
    judged topics, or the run's queries)."""
    from gsr.io.convert import as_queries

    if not args.topics:
        return None
    topics = as_queries(args.topics, args.field)
    if qrels is not None:
        topics = {q: t for q, t in topics.items() if any(g > 0 for g in qrels.get(q, {}).values())}
        if not topics:
            raise CommandError(f"no topic of --topics {args.topics} has a relevant judgment in --qrels {args.qrels}")
    if not set(topics) & set(run):
        raise CommandError(
            f"run {args.run} answers none of the {len(topics)} topics of --topics {args.topics} (run e.g. "
            f"{', '.join(sorted(run)[:3])}; topics e.g. {', '.join(sorted(topics)[:3])})"
        )
    return sorted(topics)


def cmd_bias(args) -> int:
    from gsr.fairness.evaluate import BiasMeasures, BiasSettings
    from gsr.fairness.labels import gender_words_name, gendered_word_counts
    from gsr.io.convert import as_qrels, as_run
    from gsr.io.types import rank_order

    check_outputs(args)  # standard output is no input (`gsr bias ... --labels l.tsv > l.tsv`)
    run = as_run(args.run)
    qrels = as_qrels(args.qrels) if args.qrels else None
    if args.target == "relevant" and qrels is None:
        raise CommandError("--target relevant needs --qrels")
    query_ids = measured_queries(args, run, qrels)
    settings = BiasSettings(
        k=args.k,
        target=args.target,
        neutral=args.neutral,
        epsilon=args.epsilon,
        short_lists=args.short_lists,
        rab=args.rab,
    )
    labels = document_labels(args)
    mentions = None
    if args.rab != LABEL_MAGNITUDES:
        if args.docs is None:
            raise CommandError(
                f"--rab {args.rab} counts gendered words in the documents: give --docs (or --rab labels)"
            )
        measured = run if query_ids is None else {q: run[q] for q in query_ids if q in run}
        wanted = {d for ranked in measured.values() for d, _ in rank_order(ranked)[: args.k]}
        mentions = gendered_word_counts(args.docs, args.gender_words, wanted=wanted)
    measures = BiasMeasures(labels, settings, mentions, gender_words_name(args.gender_words))
    report = measures.evaluate(run, qrels, query_ids)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
        return 0
    counts = ", ".join(f"{n} {v}" for n, v in labels.counts().items())
    words = f", RaB words {report.settings['gender_words']}" if "gender_words" in report.settings else ""
    topics = f", topics {args.topics}" if args.topics else ""
    print(
        f"label-based bias of {args.run}: labels {labels.source} ({counts}), k = {args.k}, target {args.target}, "
        f"neutral {args.neutral}{words}{topics}"
    )
    for name, value in report.measures.items():
        shown = "undefined" if value is None else f"{value:.4f}"
        defined = report.defined(name)
        print(f"  {name:<22} {shown:>10}" + (f"   ({defined} queries)" if defined is not None else ""))
    for reason, qids in sorted(report.settings["skipped"].items()):
        print(f"  skipped ({reason}): {len(qids)} — {', '.join(qids[:10])}{' …' if len(qids) > 10 else ''}")
    if report.settings["unlabelled"]:
        print(f"  {report.settings['unlabelled']} retrieved documents have no label (read as neutral)")
    return 0


def configure(parser) -> None:
    """The options of `gsr bias`, and the function that runs it."""
    parser.add_argument("--run", required=True, help="TREC run file (or irds:ID)")
    parser.add_argument(
        "--qrels", help="TREC qrels (or irds:ID): the judged topics are measured, and --target relevant reads them"
    )
    parser.add_argument("--k", type=positive_int, default=10, help="cut-off (default 10)")
    parser.add_argument(
        "--target",
        type=parse_shares,
        default="collection",
        help=f"target distribution: {', '.join(TARGETS)} or shares 'female=0.4,male=0.6' (default "
        "collection: the labelled documents' shares)",
    )
    parser.add_argument(
        "--neutral",
        choices=NEUTRAL_POLICIES,
        default="exclude",
        help="neutral documents keep their positions but count in no distribution (exclude, the "
        "default), or form a third group (group)",
    )
    parser.add_argument(
        "--epsilon",
        type=float,
        default=DEFAULT_EPSILON,
        help=f"what a zero share of the smoothed distribution becomes in KL (default {DEFAULT_EPSILON})",
    )
    parser.add_argument(
        "--short-lists",
        dest="short_lists",
        choices=SHORT_LISTS,
        default="present",
        help="β's denominator for lists shorter than k: the documents present (default) or k (paper)",
    )
    parser.add_argument(
        "--rab",
        choices=(*RAB_VARIANTS, LABEL_MAGNITUDES),
        default="tf",
        help="RaB/ARaB gender magnitudes: ln(1 + entity-word count) (tf, default), the count (tc), "
        "count > 0 (bool), or the labels",
    )
    parser.add_argument(
        "--gender-words",
        dest="gender_words",
        metavar="appendix-b|msmarco-gender|FILE",
        help="the gendered words RaB's tf/tc/bool magnitudes count (and the entity words of --labels intrinsic): "
        "appendix-b (the paper's Appendix B, default), msmarco-gender (Rekabsaz & Schedl's own 32 + 32 words) "
        "or a file: JSON {\"female\": [...], \"male\": [...]} or 'word,f' / 'word,m' lines",
    )
    parser.add_argument(
        "--topics",
        help="measure only these topics' query ids: a topics file, irds:ID or msmarco-gender:n (Rekabsaz & "
        "Schedl's non-gendered queries, the ones their paper measures); default the judged topics, or the run's",
    )
    parser.add_argument(
        "--field", default="title", help="topic field(s) of a TREC topics file (title, desc, narr, title+desc)"
    )
    add_label_options(parser)
    parser.set_defaults(func=cmd_bias)
