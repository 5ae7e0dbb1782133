"""Writing tables: a list of row dicts as Markdown (with title and notes), CSV and JSON, each file atomically."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from gsr.numeric import format_number
from gsr.store import atomic_write

HIDDEN_SUFFIXES = (" p", " mark")  # CSV/JSON columns that Markdown folds into the value they qualify


def write_text(path: Path, text: str) -> Path:
    """`text` written atomically to `path`."""
    with atomic_write(path) as out:
        out.write(text)
    return path


def _cell(row: dict, column: str) -> str:
    value = row[column]
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if column in ("p", "p_value") and value is not None:
        return f"{value:.2g}"
    text = format_number(value, digits=1 if column.endswith("%") else 4,
                         sign=column.startswith(("GSR", "rel.")) or column.endswith("%"))
    return text + (row.get(column.replace(" change %", " mark"), "") if column.endswith("change %") else "")


def markdown_rows(rows: list[dict]) -> str:
    """A Markdown table of `rows` (the first row's keys are the columns; p-value and mark columns folded)."""
    if not rows:
        return "(no rows)\n"
    columns = [c for c in rows[0] if not c.endswith(HIDDEN_SUFFIXES)]
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join(["---"] + ["---:"] * (len(columns) - 1)) + "|"]
    lines += ["| " + " | ".join(_cell(row, column) for column in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def csv_rows(rows: list[dict]) -> str:
    """`rows` as CSV with a header; None as an empty cell."""
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return buffer.getvalue()


def write_table(out: Path, stem: str, title: str, rows: list[dict], note: str = "") -> dict[str, Path]:
    """One table as {stem}.md (with title and note), {stem}.csv and {stem}.json."""
    markdown = f"### {title}\n\n{markdown_rows(rows)}" + (f"\n{note}\n" if note else "")
    return {f"{stem}.md": write_text(out / f"{stem}.md", markdown),
            f"{stem}.csv": write_text(out / f"{stem}.csv", csv_rows(rows)),
            f"{stem}.json": write_text(out / f"{stem}.json", json.dumps(rows, indent=2, ensure_ascii=False) + "\n")}
