"""`gsr rerank`: a TREC run re-ranked for gender fairness (retrievers.fair_ranking) and written as a TREC run:
epsilon-greedy and relevance-aware swapping (Feng & Shah, Algorithms 1-2; seeded), fairness-greedy (Algorithm 3) and
Dash's cost-based greedy (Eq. 1), the last two reading document labels (--labels)."""

from __future__ import annotations

import argparse
from pathlib import Path

from experiments.commands.bias import add_label_options, document_labels, parse_shares
from gsr.cli.options import CommandError, add_overwrite_option, analyzer_of, check_outputs, embedding_of
from gsr.errors import GSRError
from gsr.infra import logs
from retrievers.fair_ranking import METHOD_PARAMS, METHODS, RELEVANCE_COSTS, Reranker

log = logs.get("cli")


def parse_depth(text: str):
    if text == "all":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"depth must be an integer ≥ 2 or 'all', not {text!r}") from None


def run_tag(text: str) -> str:
    """--tag: one column of the TREC run it names (gsr.io.runs.run_column), checked before any work."""
    from gsr.io.runs import run_column

    try:
        return run_column(text, "the run tag")
    except GSRError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def relevance_costs(args):
    """Dash's embedding relevance costs over --docs and --topics with --embedding's mean word vectors."""
    from gsr.evaluate import cached_document_stats
    from gsr.io.convert import as_queries
    from retrievers.fair_ranking import cosine_costs
    from retrievers.vector_average import VectorAverageRetriever

    if args.docs is None or args.topics is None:
        raise CommandError("--relevance embedding compares query and document vectors: give --docs and --topics")
    analyzer = analyzer_of(args)
    stats = cached_document_stats(args.docs, analyzer)
    retriever = VectorAverageRetriever(embedding_of(args), stats, "add", analyzer)
    return cosine_costs(retriever, as_queries(args.topics))


def cmd_rerank(args) -> int:
    from gsr.infra.outputs import Target, place_file
    from gsr.io.convert import as_run
    from gsr.io.runs import write_trec_run

    check_outputs(args, [Target("--out", Path(args.out))], args.overwrite)

    names = {p.name for p in METHOD_PARAMS[args.method]}
    given = {
        name: getattr(args, name)
        for name in ("epsilon", "rho", "w_r", "relevance", "target", "neutral", "seed", "depth")
        if getattr(args, name) is not None
    }
    unused = sorted(set(given) - names)
    if unused:
        raise CommandError(
            f"--method {args.method} takes no --{unused[0].replace('_', '-')} (its parameters: "
            f"{', '.join(sorted(names))})"
        )
    reranker = Reranker(args.method, given)
    run = as_run(args.run)
    if reranker.needs_labels and args.labels is None:
        raise CommandError(
            f"--method {args.method} reads document labels: give --labels FILE|intrinsic|genderedness:TAU"
        )
    labels = document_labels(args) if reranker.needs_labels else None
    relevance = relevance_costs(args) if reranker.params.get("relevance") == "embedding" else None
    reranked = reranker.rerank(run, labels, relevance)
    tag = args.tag or f"{Path(str(args.run)).stem}+{args.method}"
    place_file(lambda path: write_trec_run(reranked, path, tag=tag), Path(args.out), args.overwrite, "--out")
    settings = ", ".join(f"{k}={v}" for k, v in reranker.params.items())
    source = f", labels {labels.source}" if labels is not None else ""
    log.info("%s: %d queries re-ranked by %s (%s%s)", args.out, len(reranked), args.method, settings, source)
    return 0


def configure(parser) -> None:
    """The options of `gsr rerank`, and the function that runs it."""
    parser.add_argument("--run", required=True, help="TREC run file (or irds:ID)")
    parser.add_argument("--method", required=True, choices=METHODS)
    parser.add_argument("--out", required=True, help="the re-ranked TREC run (a new file, unless --overwrite)")
    add_overwrite_option(parser, "--out's file")
    parser.add_argument("--tag", type=run_tag, help="run tag, without whitespace (default: RUN+METHOD)")
    parser.add_argument("--epsilon", type=float, help="epsilon_greedy: swap probability ϵ in (0, 1] (default 0.3)")
    parser.add_argument("--rho", type=float, help="relevance_swap: sensitivity ρ in (0, 1] (default 0.5)")
    parser.add_argument(
        "--w-r",
        dest="w_r",
        type=float,
        help="dash: weight of the relevance cost in [0, 1] (default 0.5; the KL cost weighs 1 − w_r)",
    )
    parser.add_argument(
        "--relevance",
        choices=RELEVANCE_COSTS,
        help="dash: relevance cost from the min-max "
        "normalised score (default) or the embedding cosine (needs --docs, --topics, --embedding)",
    )
    parser.add_argument("--topics", help="queries, for --relevance embedding")
    parser.add_argument(
        "--target",
        type=parse_shares,
        help="fairness_greedy, dash: collection (fairness_greedy's "
        "default), uniform, retrieved (dash's default) or shares 'female=0.4,male=0.6'",
    )
    parser.add_argument(
        "--neutral",
        choices=("exclude", "group"),
        help="fairness_greedy, dash: neutral documents keep their positions (exclude, default) or form a third group",
    )
    parser.add_argument("--seed", type=int, help="epsilon_greedy, relevance_swap: seed (default 0)")
    parser.add_argument("--depth", type=parse_depth, help="documents re-ranked per query (default 100; 'all')")
    add_label_options(parser, required=False)
    parser.set_defaults(func=cmd_rerank)
