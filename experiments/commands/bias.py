"""`gsr bias`: the gender-bias measures of a TREC run — from document labels (a labels file, the intrinsic rule or
the sign of g(d) beyond a threshold) Feng & Shah's KL bias (KL@k and Eq. 1's FSKL@k), Dash's NDKL@k, Lipani et
al.'s β@k with MB / SB / MAB; from the documents' words alone Rekabsaz & Schedl's RaB@k / ARaB@k and Rekabsaz,
Kopeinik & Schedl's FaiRR@k / NFaiRR@k (against a background run's documents, by default the run's own) — with the
label source, word lists and background in the output.

Output (--json): {"measures": {name: value}, "per_query": [...], "settings": {...}, "queries": {name: n}}."""

from __future__ import annotations

import argparse
import json

from gsr.cli.options import (
    CommandError,
    add_embedding_options,
    add_fairr_options,
    add_gender_words_option,
    analyzer_of,
    check_outputs,
    fairr_settings_of,
    lexicon_of,
    positive_int,
    share_pairs,
)
from gsr.fairness.equations import (
    DEFAULT_EPSILON,
    LABEL_MAGNITUDES,
    NEUTRAL_POLICIES,
    RAB_VARIANTS,
    SHORT_LISTS,
    TARGETS,
)
from gsr.fairness.fairr_options import DEFAULT_CUTOFFS


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
        read_labels_file,
    )

    kind, value = checked_label_source(args)
    if kind == "file":
        return read_labels_file(value, strict=args.strict)
    if kind == INTRINSIC:
        return intrinsic_labels(args.docs, mention_words(getattr(args, "gender_words", None), names=args.names))
    assert kind == GENDEREDNESS
    gendered = GSR(lexicon_of(args), analyzer_of(args)).documents(args.docs)
    return genderedness_labels(gendered, value)


def checked_label_source(args):
    """(kind, value) of --labels (gsr.fairness.labels.parse_label_source); a source that reads the documents needs
    --docs."""
    from gsr.fairness.labels import parse_label_source

    kind, value = parse_label_source(args.labels)
    if kind != "file" and args.docs is None:
        raise CommandError(f"--labels {args.labels} labels the documents of --docs: give --docs")
    return kind, value


def parse_shares(text: str):
    """A target name, or explicit shares 'female=0.4,male=0.6'."""
    if text in TARGETS:
        return text
    shares = share_pairs(text)
    if shares is None:
        raise argparse.ArgumentTypeError(
            f"target must be one of {', '.join(TARGETS)} or shares such as 'female=0.4,male=0.6', not {text!r}"
        )
    return shares


def cutoff_list(text: str) -> tuple[int, ...]:
    """An argparse type: cut-offs as '5,10,20,50', each a positive integer."""
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        values = (0,)
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"must be positive integers joined with ',' (e.g. 5,10,20,50), not {text!r}")
    return values


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
        "intrinsic and genderedness labels, by RaB's tf, tc and bool magnitudes and by FaiRR/NFaiRR",
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


def fairr_measures(args, words, documents):
    """The FaiRRMeasures of --docs (opened: `documents`) under the FaiRR options, or None (no --docs, or
    --no-fairr)."""
    from gsr.fairness.fairr_runs import FaiRRMeasures

    if args.docs is None or args.no_fairr:
        return None
    settings = fairr_settings_of(args, args.cutoffs)
    return FaiRRMeasures(documents, settings, words)


def cmd_bias(args) -> int:
    from gsr.documents.opening import open_documents
    from gsr.fairness.evaluate import BiasMeasures, BiasSettings
    from gsr.fairness.fairr_runs import check_background, run_arrays_of
    from gsr.fairness.labels import gender_words, gender_words_name, gendered_word_counts
    from gsr.fairness.neutrality import group_words
    from gsr.io.convert import as_qrels, as_run
    from gsr.io.records import is_irds

    check_outputs(args)  # standard output is no input (`gsr bias ... --labels l.tsv > l.tsv`)
    if args.labels is None and args.docs is None:
        raise CommandError(
            "give --labels (the label-based measures) or --docs (RaB/ARaB and FaiRR/NFaiRR need no labels)"
        )
    if args.labels is not None:
        checked_label_source(args)
    if args.labels is None and args.rab == LABEL_MAGNITUDES:
        raise CommandError("--rab labels reads the document labels: give --labels")
    if args.rab != LABEL_MAGNITUDES and args.docs is None:
        raise CommandError(f"--rab {args.rab} counts gendered words in the documents: give --docs (or --rab labels)")
    if args.background is not None and (args.docs is None or args.no_fairr):
        raise CommandError("--background is FaiRR's background run: give --docs (and leave out --no-fairr)")
    # every word list is read before any run or document: a bad line stops here
    words = group_words(args.gender_words, tuple(args.group_shares)) if args.docs and not args.no_fairr else None
    if args.rab != LABEL_MAGNITUDES:
        gender_words(args.gender_words)
    documents = open_documents(args.docs) if args.docs is not None else None  # one source: hashed and listed once
    fairr = fairr_measures(args, words, documents)
    run = as_run(args.run) if is_irds(args.run) else run_arrays_of(args.run).as_run()
    qrels = as_qrels(args.qrels) if args.qrels else None
    if args.target == "relevant" and qrels is None:
        raise CommandError("--target relevant needs --qrels")
    query_ids = measured_queries(args, run, qrels)
    if query_ids is None:  # as BiasMeasures.evaluate: the judged topics, or the run's queries
        judged = qrels or {}
        query_ids = sorted(q for q, grades in judged.items() if any(g > 0 for g in grades.values()))
        query_ids = query_ids if qrels is not None else sorted(run)
    background = None
    if fairr is not None and args.background is not None:
        background = run_arrays_of(args.background)
        check_background([q for q in query_ids if q in run], background.qids, args.background)
    settings = BiasSettings(
        k=args.k,
        target=args.target,
        neutral=args.neutral,
        epsilon=args.epsilon,
        short_lists=args.short_lists,
        rab=args.rab,
    )
    labels = document_labels(args) if args.labels is not None else None
    mentions = None
    if args.rab != LABEL_MAGNITUDES:
        measured_run = run if query_ids is None else {q: run[q] for q in query_ids if q in run}
        wanted = {d for ranked in measured_run.values() for d, _ in ranked[: args.k]}  # lists in trec_eval's order
        assert documents is not None  # --rab words and tf need --docs, checked above
        mentions = gendered_word_counts(documents, args.gender_words, wanted=wanted)
    measures = BiasMeasures(labels, settings, mentions, gender_words_name(args.gender_words), fairr)
    report = measures.evaluate(run, qrels, query_ids, background, args.background)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
        return 0
    print_report(args, report, labels)
    return 0


def print_report(args, report, labels) -> None:
    """The table of `gsr bias`: what was measured with what, each system value, the skipped queries."""
    words = f", RaB words {report.settings['gender_words']}" if "gender_words" in report.settings else ""
    topics = f", topics {args.topics}" if args.topics else ""
    if labels is not None:
        counts = ", ".join(f"{n} {v}" for n, v in labels.counts().items())
        print(
            f"bias of {args.run}: labels {labels.source} ({counts}), k = {args.k}, target {args.target}, "
            f"neutral {args.neutral}{words}{topics}"
        )
    else:
        print(f"bias of {args.run}: no labels, k = {args.k}{words}{topics}")
    fairr = report.settings.get("fairr")
    if fairr is not None:
        shares = ", ".join(f"{g} {s:g}" for g, s in fairr["shares"].items())
        print(
            f"  FaiRR/NFaiRR: background {fairr['background']} (top {fairr['background_depth']} per query), words "
            f"{fairr['gender_words']} ({fairr['tokens']} tokens), threshold {fairr['threshold']:g}, shares {shares}"
        )
    for name, value in report.measures.items():
        shown = "undefined" if value is None else f"{value:.4f}"
        defined = report.defined(name)
        print(f"  {name:<22} {shown:>10}" + (f"   ({defined} queries)" if defined is not None else ""))
    skipped = dict(report.settings["skipped"])
    for reason, qids in (fairr or {}).get("skipped", {}).items():
        if reason not in skipped:
            skipped[f"NFaiRR, {reason}"] = qids
    for reason, qids in sorted(skipped.items()):
        print(f"  skipped ({reason}): {len(qids)} — {', '.join(qids[:10])}{' …' if len(qids) > 10 else ''}")
    if report.settings["unlabelled"]:
        print(f"  {report.settings['unlabelled']} retrieved documents have no label (read as neutral)")
    if fairr is not None and fairr["missing_documents"]:
        print(f"  {fairr['missing_documents']} ranked documents are not in --docs (neutral, ω = 1)")


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
    add_gender_words_option(parser)
    add_fairr_options(parser)
    parser.add_argument(
        "--cutoffs",
        type=cutoff_list,
        default=DEFAULT_CUTOFFS,
        help=f"FaiRR/NFaiRR cut-offs (default {','.join(map(str, DEFAULT_CUTOFFS))}, the paper's)",
    )
    parser.add_argument(
        "--no-fairr", action="store_true", help="do not compute FaiRR/NFaiRR (they read more documents)"
    )
    parser.add_argument(
        "--topics",
        help="measure only these topics' query ids: a topics file, irds:ID, msmarco-gender:n (Rekabsaz & "
        "Schedl's non-gendered queries, the ones their paper measures) or fairness-sensitive:msmarco-dev / :dl19 "
        "(Rekabsaz, Kopeinik & Schedl's, e.g. fairness-sensitive:msmarco-dev:category=Career); default the judged "
        "topics, or the run's",
    )
    parser.add_argument(
        "--field", default="title", help="topic field(s) of a TREC topics file (title, desc, narr, title+desc)"
    )
    add_label_options(parser, required=False)
    parser.set_defaults(func=cmd_bias)
