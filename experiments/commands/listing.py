"""`gsr list`: every built-in config, registered system type, analysis and collection kind with its parameters and
the extra of gsr-bench it needs. On a terminal each entry is a paragraph wrapped to the terminal's width (a table row
of every parameter runs to thousands of characters); `--markdown` prints the Markdown tables, which are the reference
tables of docs/experiments.md (a test keeps them equal). `gsr list` alone prints all four."""

from __future__ import annotations

import re
import shutil
import textwrap
from dataclasses import dataclass, field
from functools import partial

from experiments.registry import ANALYSES, COLLECTION_KINDS, SYSTEMS
from gsr.infra.params import params_table

INDENT = "    "  # an entry's details under its name
MIN_WIDTH = 40  # narrower terminals still get lines this long: a word per line helps no one


@dataclass
class Entry:
    """One listed thing: its name, what it is, its other columns (heading -> text, "—" where empty) and its
    parameters ((name, type/range/default, help), each a line of the text listing, one cell of the Markdown)."""

    name: str
    what: str
    columns: dict[str, str] = field(default_factory=dict)
    params: list[tuple[str, str, str]] = field(default_factory=list)


def _default(row: dict, required: tuple[str, ...]) -> str:
    if row["required"] or row["name"] in required:
        return "required"
    return "no default" if row["default"] is None else "default " + repr(row["default"])


def _params(params, required: tuple[str, ...] = ()) -> list[tuple[str, str, str]]:
    """Each declared parameter as (name, "type, range, default", help); `required` names parameters a system must be
    given."""
    return [(r["name"], f"{r['type']}, {r['range']}, {_default(r, required)}", r["help"]) for r in params_table(params)]


def _markdown_params(params: list[tuple[str, str, str]]) -> str:
    return "; ".join(f"`{name}` ({kind}): {help}" for name, kind, help in params) or "—"


def _extra(entry) -> str:
    """The extra an entry needs (`pip install 'gsr-bench[EXTRA]'`), or — for the core install."""
    return f"`{entry.extra}`" if entry.extra else "—"


def system_entries() -> list[Entry]:
    """One entry per system type: model name, what it is, what it needs, the extra it needs, its parameters."""
    entries = []
    for entry in SYSTEMS:
        upstream = (
            f"a run to re-rank (`rerank`, default: the first {entry.default_upstream} system)"
            if entry.default_upstream
            else "a run to re-rank (`rerank`)"
        )
        needs = [n for n, flag in (("embedding", entry.needs_embedding), (upstream, entry.reranks)) if flag]
        reference = f" ({entry.reference})" if entry.reference else ""
        entries.append(
            Entry(
                entry.name,
                entry.description + reference,
                {"needs": ", ".join(needs) or "—", "extra": _extra(entry)},
                _params(entry.params, entry.path_params),
            )
        )
    return entries


def analysis_entries() -> list[Entry]:
    """One entry per analysis: its [analyses] switch, what it is, what it needs, its options and its files."""
    return [
        Entry(
            entry.name,
            entry.description,
            {"needs": entry.needs or "—", "writes": ", ".join(f"`{stem}.*`" for stem in entry.writes) or "—"},
            _params(entry.params),
        )
        for entry in ANALYSES
    ]


def collection_entries() -> list[Entry]:
    """One entry per collection kind: its keys, required first, and the extra it needs."""
    entries = []
    for entry in COLLECTION_KINDS:
        keys = [f"`{k}`" for k in entry.required] + [f"`{k}` (optional)" for k in entry.optional]
        entries.append(Entry(entry.name, entry.description, {"keys": ", ".join(keys) or "—", "extra": _extra(entry)}))
    return entries


def config_entries() -> list[Entry]:
    """One entry per built-in config (`gsr run NAME`): what its file's opening comment says it is (its first
    sentence), its collection kind, its systems and where it writes. Read as TOML, not checked: a config whose data
    is not on this machine (robust04, msmarco) is listed all the same."""
    import tomllib

    from experiments.config.experiment import BUILTIN_CONFIGS

    entries = []
    for name, path in BUILTIN_CONFIGS.items():
        text = path.read_text(encoding="utf-8")
        raw = tomllib.loads(text)
        systems = [s.get("name", "?") for s in raw.get("systems", [])]
        entries.append(
            Entry(
                name,
                _opening_sentence(text),
                {
                    "collection": f"`{raw.get('collection', {}).get('kind', '?')}`",
                    "systems": f"{len(systems)}: {', '.join(systems)}" if systems else "—",
                    "writes": f"`{raw.get('output', 'out/' + name)}/`",
                    "file": f"`experiments/{path.name}`",
                },
            )
        )
    return entries


def _opening_sentence(text: str) -> str:
    """The first sentence of a TOML file's opening comment block (its first '. ' or the block's end)."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    comment = " ".join(part for part in lines if part)
    end = re.search(r"\.\s+(?=[A-Z])", comment)  # "Fig. 9" and "et al., CHIIR" end no sentence
    return comment if end is None else comment[: end.start() + 1]


HEADINGS = {  # per listing, its Markdown table's header: the name, what it is, then its columns
    "configs": ("config", "what", "collection", "systems", "writes", "file"),
    "systems": ("model", "system", "needs", "extra", "parameters"),
    "analyses": ("analysis", "what", "needs", "options", "writes"),
    "collections": ("kind", "source", "keys", "extra"),
}
PARAMETER_COLUMNS = ("parameters", "options")  # the column that holds an entry's parameters
TITLES = {  # each listing's heading on a terminal: what it lists and how a config names one
    "configs": "Built-in configs (gsr run NAME)",
    "systems": "System types ([[systems]] model = NAME)",
    "analyses": "Analyses ([analyses] NAME = true, with their options)",
    "collections": "Collection kinds ([collection] kind = NAME)",
}  # the column that holds an entry's parameters
ENTRIES = {
    "configs": config_entries,
    "systems": system_entries,
    "analyses": analysis_entries,
    "collections": collection_entries,
}


def markdown(what: str) -> str:
    """The listing `what` as a Markdown table (docs/experiments.md's reference tables)."""
    header = HEADINGS[what]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    for entry in ENTRIES[what]():
        cells = [f"`{entry.name}`", entry.what] + [
            _markdown_params(entry.params) if column in PARAMETER_COLUMNS else entry.columns[column]
            for column in header[2:]
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


TABLES = {what: partial(markdown, what) for what in ENTRIES}  # docs/generate.py writes these into the docs


def text_listing(what: str, width: int) -> str:
    """The listing `what` for a terminal `width` columns wide: per entry its name and what it is, then each column
    and each parameter on a line of its own, every line wrapped under its indent; entries apart by a blank line
    (Markdown's backticks left out)."""
    width = max(width, MIN_WIDTH)
    out = []
    for entry in ENTRIES[what]():
        lines = [textwrap.fill(_plain(f"{entry.name}: {entry.what}"), width, subsequent_indent=INDENT)]
        lines += [
            _wrapped(f"{heading}: {text}", width, INDENT, INDENT * 2)
            for heading, text in entry.columns.items()
            if text != "—"  # nothing needed, no extra: the line would say nothing
        ]
        lines += [_wrapped(f"{name} ({kind}): {help}", width, INDENT, INDENT * 2) for name, kind, help in entry.params]
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def _plain(text: str) -> str:
    return text.replace("`", "")


def _wrapped(text: str, width: int, indent: str, later: str) -> str:
    """`text` without backticks, wrapped to `width` (never inside a hyphenated name: `relevance_swap`, `min-max`)."""
    return textwrap.fill(_plain(text), width, initial_indent=indent, subsequent_indent=later, break_on_hyphens=False)


def terminal_width() -> int:
    """The terminal's columns (shutil: $COLUMNS, else the terminal of stdout, else 80)."""
    return shutil.get_terminal_size((80, 24)).columns


def cmd_list(args) -> int:
    chosen = list(ENTRIES) if args.what is None else [args.what]
    if args.markdown:
        print("\n".join(f"## {what}\n\n{markdown(what)}" for what in chosen), end="")
        return 0
    width = terminal_width()
    print("\n".join(f"{TITLES[what]}\n\n{text_listing(what, width)}" for what in chosen), end="")
    return 0


def configure(parser) -> None:
    """The options of `gsr list`, and the function that runs it."""
    parser.add_argument("what", nargs="?", choices=list(ENTRIES), help="one listing (default: all four)")
    parser.add_argument(
        "--markdown", action="store_true", help="Markdown tables (as docs/experiments.md shows them), unwrapped"
    )
    parser.set_defaults(func=cmd_list)
