"""`gsr list`: every registered system type, analysis and collection kind with its parameters (the README's
tables are this command's Markdown output)."""

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


def systems_markdown() -> str:
    """One row per system type: model name, what it is, what it needs, its parameters."""
    lines = ["| model | system | needs | parameters |", "| --- | --- | --- | --- |"]
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
            f"| `{entry.name}` | {entry.description}{reference} | {', '.join(needs) or '—'} | "
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
    """One row per collection kind: its keys, required first."""
    lines = ["| kind | source | keys |", "| --- | --- | --- |"]
    for entry in COLLECTION_KINDS:
        keys = [f"`{k}`" for k in entry.required] + [f"`{k}` (optional)" for k in entry.optional]
        lines.append(f"| `{entry.name}` | {entry.description} | {', '.join(keys) or '—'} |")
    return "\n".join(lines) + "\n"


TABLES = {"systems": systems_markdown, "analyses": analyses_markdown, "collections": collections_markdown}


def cmd_list(args) -> int:
    print(TABLES[args.what]())
    return 0


def configure(parser) -> None:
    """The options of `gsr list`, and the function that runs it."""
    parser.add_argument("what", choices=sorted(TABLES))
    parser.set_defaults(func=cmd_list)
