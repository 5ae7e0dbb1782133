"""`gsr label`: the intrinsic gender of documents (§4.2.5, the rule of Fig. 12): female, male or neutral by their
mentions of gendered people (Appendix B's entity words, or another list of --entities, and capitalised first
names)."""

from __future__ import annotations

import json
from collections import Counter
from itertools import chain, islice

from gsr.cli.options import check_outputs
from gsr.infra import logs

log = logs.get("cli")


def cmd_label(args) -> int:
    from gsr.documents.opening import iter_documents
    from gsr.fairness.labels import mention_words
    from gsr.text.intrinsic_gender import LABELS, intrinsic_gender

    check_outputs(args)  # standard output is no input (`gsr label --docs d.jsonl >> d.jsonl`)
    words = mention_words(args.entities, names=args.names)
    totals: Counter[str] = Counter()
    documents = iter_documents(args.docs)
    first = list(islice(documents, 1))  # a missing or malformed file fails before any output
    if not args.json:
        print("id\tlabel\tfemale_mentions\tmale_mentions")
    for docid, text in chain(first, documents):
        label = intrinsic_gender(text, words)
        totals[label.label] += 1
        if args.json:
            print(json.dumps({"id": docid, **label.to_dict()}, ensure_ascii=False))
        else:
            print(f"{docid}\t{label.label}\t{label.female_mentions}\t{label.male_mentions}")
    summary = ", ".join(f"{totals[k]:,} {k}" for k in LABELS)
    log.info("%s documents: %s (first names: %s)", f"{sum(totals.values()):,}", summary, words.names_source)
    return 0


def configure(parser) -> None:
    """The options of `gsr label`, and the function that runs it."""
    parser.add_argument("--docs", required=True, help="documents: JSONL ({id, contents}) or TSV (docid<TAB>text)")
    parser.add_argument(
        "--names",
        choices=("nltk", "census"),
        default="nltk",
        help="first names: NLTK's names corpus (the paper's; the census lists where it is not "
        "installed) or the 1990 US census lists",
    )
    parser.add_argument(
        "--entities",
        "--gender-words",
        dest="entities",
        metavar="appendix-b|msmarco-gender|FILE",
        help="entity words: appendix-b (the paper's Appendix B, default), msmarco-gender (Rekabsaz & Schedl's 32 + 32 "
        "gender-specific words) or a file: JSON {\"female\": [...], \"male\": [...]} or 'word,f' / 'word,m' lines",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help='one JSON object per line: {"id", "label", "female_mentions", "male_mentions"}',
    )
    parser.set_defaults(func=cmd_label)
