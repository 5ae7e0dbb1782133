"""`gsr list`: every registered system type, analysis and collection kind with its parameters and the extra of
gsr-bench it needs (the reference tables of docs/experiments.md are this command's Markdown output); `gsr list` alone
prints the three tables."""

from __future__ import annotations

from experiments.registry import ANALYSES, COLLECTION_KINDS, SYSTEMS
from gsr.infra.params import params_table


def _default(row: dict, required: tuple[str, ...]) -> str:
    if row["required"] or row["name"] in required:
        return "required"
    return "no default" if row["default"] is None else "default " + repr(row["default"])


def _parameters(params, required: tuple[str, ...] = ()) -> str:
    """Each parameter as `name` (type, range, default): help; `required` names parameters a system must be given."""
    rows = params_table(params)
    return (
        "; ".join(f"`{r['name']}` ({r['type']}, {r['range']}, {_default(r, required)}): {r['help']}" for r in rows)
        or "—"
    )


def _extra(entry) -> str:
    """The extra an entry needs (`pip install 'gsr-bench[EXTRA]'`), or — for the core install."""
    return f"`{entry.extra}`" if entry.extra else "—"


def systems_markdown() -> str:
    """One row per system type: model name, what it is, what it needs, the extra it needs, its parameters."""
    lines = ["| model | system | needs | extra | parameters |", "| --- | --- | --- | --- | --- |"]
    for entry in SYSTEMS:
        needs = [
            n
            for n, flag in (
                ("embedding", entry.needs_embedding),
                (
                    f"a run to re-rank (`rerank`, default: the first {entry.default_upstream} system)"
                    if entry.default_upstream
                    else "a run to re-rank (`rerank`)",
                    entry.reranks,
                ),
            )
            if flag
        ]
        reference = f" ({entry.reference})" if entry.reference else ""
        lines.append(
            f"| `{entry.name}` | {entry.description}{reference} | {', '.join(needs) or '—'} | {_extra(entry)} | "
            f"{_parameters(entry.params, entry.path_params)} |"
        )
    return "\n".join(lines) + "\n"


def analyses_markdown() -> str:
    """One row per analysis: its [analyses] switch, what it is, what it needs, its options and its files."""
    lines = ["| analysis | what | needs | options | writes |", "| --- | --- | --- | --- | --- |"]
    for entry in ANALYSES:
        writes = ", ".join(f"`{stem}.*`" for stem in entry.writes) or "—"
        lines.append(
            f"| `{entry.name}` | {entry.description} | {entry.needs or '—'} | {_parameters(entry.params)} | {writes} |"
        )
    return "\n".join(lines) + "\n"


def collections_markdown() -> str:
    """One row per collection kind: its keys, required first, and the extra it needs."""
    lines = ["| kind | source | keys | extra |", "| --- | --- | --- | --- |"]
    for entry in COLLECTION_KINDS:
        keys = [f"`{k}`" for k in entry.required] + [f"`{k}` (optional)" for k in entry.optional]
        lines.append(f"| `{entry.name}` | {entry.description} | {', '.join(keys) or '—'} | {_extra(entry)} |")
    return "\n".join(lines) + "\n"


TABLES = {"systems": systems_markdown, "analyses": analyses_markdown, "collections": collections_markdown}


def cmd_list(args) -> int:
    if args.what is None:  # every table, each under its name
        print("\n".join(f"## {what}\n\n{table()}" for what, table in TABLES.items()), end="")
    else:
        print(TABLES[args.what]())
    return 0


def configure(parser) -> None:
    """The options of `gsr list`, and the function that runs it."""
    parser.add_argument("what", nargs="?", choices=sorted(TABLES), help="one table (default: all three)")
    parser.set_defaults(func=cmd_list)
