"""The `gsr` command: validate the measure, inspect query genderedness, score runs."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

DEFAULT_EMBEDDING = "glove-6b-50d"


class _Failure(Exception):
    pass


def _add_embedding_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--embedding", default=DEFAULT_EMBEDDING,
                        help=f"built-in name or vectors file (.bin, .txt, .vec, .kv); default {DEFAULT_EMBEDDING}")
    parser.add_argument("--definitional", metavar="FILE",
                        help="definitional pairs as debiaswe JSON (default: Bolukbasi's ten pairs)")
    parser.add_argument("--stopwords", metavar="FILE",
                        help="stop list, one word per line (default: scikit-learn's; gendered pronouns always kept)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _lexicon(args):
    from embeddings import gender_lexicon, load_embedding, load_word_pairs

    pairs = load_word_pairs(args.definitional) if args.definitional else None
    return gender_lexicon(load_embedding(args.embedding), pairs=pairs, name=str(args.embedding))


def _analyzer(args):
    from gsr.text import Analyzer, read_stopwords

    if not args.stopwords:
        return Analyzer()
    try:
        return Analyzer(read_stopwords(args.stopwords))
    except OSError as err:
        raise _Failure(f"{args.stopwords}: cannot read stop list ({err.strerror})") from None


def _fmt(value, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if abs(value) < 0.5 * 10**-digits:
        value = 0.0  # float noise around an exact zero (engine N) would print as -0.0000
    return f"{value:+.{digits}f}"


def _direction_dict(lexicon) -> dict:
    d = lexicon.direction
    return {"explained_variance": d.explained_variance, "pairs": [list(p) for p in d.pairs]}


def cmd_validate(args) -> int:
    from gsr.stereotypes import REFERENCE_WORDS, stereotype_tests
    from gsr.toys import parity_agreement, toy1, toy2, toy_slopes

    lexicon = _lexicon(args)
    analyzer = _analyzer(args)
    tests = stereotype_tests(lexicon)
    toys = {"toy1": toy1(lexicon), "toy2": toy2(lexicon)}
    slopes = {name: toy_slopes(toy, lexicon, analyzer) for name, toy in toys.items()}
    parity = parity_agreement(toys["toy1"], lexicon, analyzer)
    out = {
        "embedding": str(args.embedding),
        "direction": _direction_dict(lexicon),
        "reference_words": {w: lexicon.get(w) for w in REFERENCE_WORDS},
        "stereotype_tests": [t.to_dict() for t in tests],
    }
    for name, results in slopes.items():
        out[name] = {engine: r.gsr for engine, r in results.items()}
        out[name]["missing_words"] = toys[name].missing
    out["toy1"]["parity_r"] = parity.pearson_r
    out["toy1"]["parity_solutions"] = parity.n_solutions
    if args.plots:
        from gsr import plots

        folder = Path(args.plots)
        out["plots"] = [str(p) for p in (
            plots.plot_stereotype_tests(tests, out["reference_words"], folder / "fig1_stereotypes.png"),
            plots.plot_toy_engines(slopes["toy1"], folder / "fig4_toy1.png", "Toy 1: The <person> is a <job>"),
            plots.plot_parity_agreement(parity, folder / "fig5_parity.png"),
            plots.plot_toy_engines(slopes["toy2"], folder / "fig6_toy2.png", "Toy 2: The <job> is <adjective>"),
        )]
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"embedding {args.embedding}: gender direction explains {lexicon.direction.explained_variance:.1%} "
          f"of the definitional pairs' variance")
    print("\nStereotype tests (Fig. 1), one-tailed permutation, H1: female set more female than male set")
    print(f"  {'contrast':<18} {'male mean':>10} {'female mean':>12} {'p-value':>10}  missing")
    for t in tests:
        kind = "" if t.exact else " (Monte Carlo)"
        print(f"  {t.name:<18} {_fmt(t.male_mean):>10} {_fmt(t.female_mean):>12} {t.p_value:>10.2e}  "
              f"{', '.join(t.missing) or '-'}{kind}")
    print("\nToy collections, GSR of the stereotypical (S), neutral (N), counter-stereotypical (CS) engines")
    for name in ("toy1", "toy2"):
        row = "  ".join(f"{e}={_fmt(out[name][e])}" for e in ("S", "N", "CS"))
        print(f"  {name}: {row}")
    print(f"\nFig. 5: Pearson r between GSR and share of stereotypical documents = {parity.pearson_r:.3f} "
          f"over all {parity.n_solutions:,} reasonable toy-1 solutions")
    for path in out.get("plots", []):
        print(f"wrote {path}")
    return 0


def cmd_queries(args) -> int:
    from gsr.evaluate import describe_queries
    from gsr.io import read_queries

    queries = read_queries(args.topics, args.field)
    lexicon = _lexicon(args)
    rows = describe_queries(queries, lexicon, _analyzer(args))
    if args.plots:
        from gsr import plots

        written = plots.plot_query_genderedness(rows, Path(args.plots) / "fig7_queries.png")
        print(f"wrote {written}", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    unmeasured = sum(1 for r in rows if r["genderedness"] is None)
    print(f"{len(rows)} queries from {args.topics} ({args.field}), most female first; "
          f"{unmeasured} with no term in the embedding")
    print(f"  {'qid':<8} {'g(q)':>8}  terms (g)")
    for r in rows:
        terms = " ".join(f"{t['term']}({_fmt(t['g'], 2)})" for t in r["terms"])
        print(f"  {r['qid']:<8} {_fmt(r['genderedness']):>8}  {terms}")
    return 0


def _parse_cutoff(text: str):
    if text == "relevant":
        return "relevant"
    if text == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("cutoff must be 'relevant', 'none' or a positive integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError("cutoff must be 'relevant', 'none' or a positive integer")
    return value


def cmd_score(args) -> int:
    from gsr.evaluate import GSR
    from gsr.io import read_qrels, read_queries, read_trec_run

    run = read_trec_run(args.run)
    queries = read_queries(args.topics, args.field)
    qrels = read_qrels(args.qrels) if args.qrels else None
    lexicon = _lexicon(args)
    measure = GSR(lexicon, _analyzer(args), cutoff=args.cutoff, random_seed=args.seed)
    documents = measure.documents(args.docs, n_jobs=args.jobs, progress=not args.json)
    report = measure.evaluate(run, queries, documents, qrels, strict=args.strict)
    out = report.to_dict()
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    rows = [("run", report.system)]
    if report.perfect is not None:
        rows += [("perfect", report.perfect), ("random", report.random)]
    print(f"GSR (Eq. 3) under {args.embedding}, cut-off {args.cutoff if args.cutoff else 'none'}")
    print(f"  {'system':<8} {'GSR':>10} {'relative':>10} {'queries':>8} {'skipped':>8}")
    for name, result in rows:
        relative = report.relative_of(result)
        rel = "—" if relative is None else f"{relative:+.0f}%"
        print(f"  {name:<8} {_fmt(result.gsr, 5):>10} {rel:>10} {result.n_queries:>8} {result.n_skipped:>8}")
    system = report.system
    for reason, qids in sorted(system.skipped.items()):
        print(f"  skipped ({reason}): {len(qids)} — {', '.join(qids[:10])}{' …' if len(qids) > 10 else ''}")
    if system.unknown_docids:
        print(f"  {system.unknown_docids} retrieved document ids are not in {args.docs} (use --strict to fail)")
    if system.unmeasurable_docs:
        print(f"  {system.unmeasurable_docs} retrieved documents have no in-vocabulary word besides the query's")
    if system.error:
        print(f"  GSR undefined: {system.error}")
    return 0


def cmd_run(args) -> int:
    from experiments.config import load_config
    from experiments.report import markdown_table, results_rows, write_report
    from experiments.runner import Experiment

    config = load_config(args.config)
    if args.out:
        config.output = Path(args.out)
    if args.threads:
        config.threads = args.threads
    if args.no_plots:
        config.plots = False
    result = Experiment(config, progress=not args.quiet).run()
    written = write_report(result, config.output)
    print(markdown_table(result, results_rows(result)))
    print(f"wrote {len(written)} files under {config.output}/ (results.md, results.csv, results.json, "
          f"per_query.csv, runs/, plots)", file=sys.stderr)
    return 0


def cmd_export(args) -> int:
    from experiments.collections import export_collection

    paths = export_collection(args.collection, Path(args.out), progress=True)
    for what, path in paths.items():
        print(f"{what}: {path}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from debias.command import configure_parser as configure_debias_parser, run as run_debias

    parser = argparse.ArgumentParser(prog="gsr", description="Gender Stereotype Reinforcement (Fabris et al.)")
    sub = parser.add_subparsers(dest="command", required=True)

    validate = sub.add_parser("validate", help="stereotype tests (Fig. 1), toy slopes (Figs. 4, 6), Fig. 5's r")
    _add_embedding_options(validate)
    validate.add_argument("--plots", metavar="DIR", help="also draw Figs. 1, 4, 5 and 6 as PNG files in DIR")
    validate.set_defaults(func=cmd_validate)

    queries = sub.add_parser("queries", help="every query's genderedness and its terms' projections (Fig. 7)")
    queries.add_argument("--topics", required=True, help="TREC topics, TSV (qid<TAB>text) or JSONL queries")
    queries.add_argument("--field", default="title", help="topic field: title, desc, narr or e.g. title+desc")
    _add_embedding_options(queries)
    queries.add_argument("--plots", metavar="DIR", help="also draw Fig. 7 as a PNG file in DIR")
    queries.set_defaults(func=cmd_queries)

    score = sub.add_parser("score", help="GSR of a TREC run, with perfect and random engines given qrels")
    score.add_argument("--run", required=True, help="TREC run file")
    score.add_argument("--topics", required=True, help="TREC topics, TSV or JSONL queries")
    score.add_argument("--docs", required=True, help="documents: JSONL ({id, contents}) or TSV (docid<TAB>text)")
    score.add_argument("--qrels", help="TREC qrels: adds the perfect and random engines and relative GSR")
    score.add_argument("--field", default="title", help="topic field: title, desc, narr or e.g. title+desc")
    score.add_argument("--cutoff", type=_parse_cutoff, default="relevant",
                       help="'relevant' (top-K, K = relevant documents; the paper's §4.2.2), 'none' or N")
    score.add_argument("--strict", action="store_true", help="fail on retrieved ids missing from --docs")
    score.add_argument("--seed", type=int, default=0, help="seed of the random engine")
    score.add_argument("--jobs", type=int, default=None, help="processes for document statistics (default: cores)")
    _add_embedding_options(score)
    score.set_defaults(func=cmd_score)

    run = sub.add_parser("run", help="run an experiment config: runs, MAP/P@10/nDCG@100, GSR table and plots")
    run.add_argument("config", nargs="?", default="demo",
                     help="TOML config file, or a built-in config: demo (default), robust04")
    run.add_argument("--out", help="output folder (default: the config's 'output')")
    run.add_argument("--threads", type=int, help="threads/processes for indexing, search and statistics")
    run.add_argument("--no-plots", action="store_true", help="skip the PNG scatter plots")
    run.add_argument("--quiet", action="store_true", help="no progress on stderr")
    run.set_defaults(func=cmd_run)

    export = sub.add_parser("export", help="write a built-in collection as JSONL documents, TSV topics, TREC qrels")
    export.add_argument("collection", help="demo, toy1 or toy2")
    export.add_argument("--out", required=True, help="output folder")
    export.set_defaults(func=cmd_export)

    debias = sub.add_parser("debias", help="write a regular- or strong-debiased copy of an embedding")
    configure_debias_parser(debias)
    debias.set_defaults(func=run_debias)
    return parser


def main(argv: list[str] | None = None) -> int:
    from embeddings.loading import EmbeddingError
    from gsr.io import InputError
    from gsr.measure import GSRError

    try:
        from retrievers.lucene import LuceneError
    except ImportError:
        LuceneError = _Failure
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (InputError, EmbeddingError, GSRError, LuceneError, _Failure, ValueError) as err:
        print(f"gsr: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head & co.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
