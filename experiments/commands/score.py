"""`gsr score`: GSR of a TREC run against documents and topics; with qrels, the perfect and random engines."""

from __future__ import annotations

import argparse
import json

from experiments.commands.common import add_embedding_options, analyzer_of, lexicon_of
from experiments.commands.validate import format_signed


def parse_cutoff(text: str):
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
    lexicon = lexicon_of(args)
    measure = GSR(lexicon, analyzer_of(args), cutoff=args.cutoff, random_seed=args.seed)
    report = measure.evaluate(run, queries, args.docs, qrels, strict=args.strict, n_jobs=args.jobs,
                              progress=not args.json)
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
        print(f"  {name:<8} {format_signed(result.gsr, 5):>10} {rel:>10} {result.n_queries:>8} {result.n_skipped:>8}")
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


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("score", help="GSR of a TREC run, with perfect and random engines given qrels")
    parser.add_argument("--run", required=True, help="TREC run file")
    parser.add_argument("--topics", required=True, help="TREC topics, TSV or JSONL queries")
    parser.add_argument("--docs", required=True,
                        help="documents: JSONL ({id, contents}) or TSV (docid<TAB>text), maybe .gz; TREC SGML files "
                             "or folders; a Lucene index with stored raw text or contents; irds:NAME (ir_datasets); "
                             "only the documents the run and the engines need are read")
    parser.add_argument("--qrels", help="TREC qrels: adds the perfect and random engines and relative GSR")
    parser.add_argument("--field", default="title", help="topic field: title, desc, narr or e.g. title+desc")
    parser.add_argument("--cutoff", type=parse_cutoff, default="relevant",
                        help="'relevant' (top-K, K = relevant documents; the paper's §4.2.2), 'none' or N")
    parser.add_argument("--strict", action="store_true", help="fail on retrieved ids missing from --docs")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random engine")
    parser.add_argument("--jobs", type=int, default=None, help="processes for document statistics (default: cores)")
    add_embedding_options(parser)
    parser.set_defaults(func=cmd_score)
