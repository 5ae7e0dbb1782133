"""Reading what users hand over: TREC runs, qrels and topics, TSV/JSONL queries, DataFrames, ir_measures and
ir_datasets records, each checked, every failure an InputError naming the file and line (or the row).

The modules, from the bottom: `files` (UTF-8 text and JSON, plain or .gz, a byte-order mark skipped), `types`
(Run, Qrels), `runs`, `qrels` and `topics` (the TREC formats), `records` (other tools' records, `irds:` ids),
`convert` (as_run, as_qrels, as_queries from any of these). Code inside gsr imports the module it needs; this
package re-exports the public names for users.
"""

from gsr.errors import InputError
from gsr.io.convert import as_qrels, as_queries, as_run
from gsr.io.files import read_json, read_text, text_lines
from gsr.io.qrels import read_qrels
from gsr.io.records import IRDS_PREFIX
from gsr.io.runs import read_trec_run, write_trec_run
from gsr.io.topics import read_jsonl_queries, read_queries, read_trec_topics, read_tsv_queries
from gsr.io.types import Qrels, Run, rank_order

__all__ = [
    "IRDS_PREFIX",
    "InputError",
    "Qrels",
    "Run",
    "as_qrels",
    "as_queries",
    "as_run",
    "rank_order",
    "read_json",
    "read_jsonl_queries",
    "read_qrels",
    "read_queries",
    "read_text",
    "read_trec_run",
    "read_trec_topics",
    "read_tsv_queries",
    "text_lines",
    "write_trec_run",
]
