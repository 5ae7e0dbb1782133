"""Writing tables: a list of row dicts as Markdown (with title and notes), LaTeX (booktabs), CSV and JSON, each file
atomically. Markdown and LaTeX show the displayed table (measure names as the paper spells them, p-values folded into
marks); CSV and JSON hold every column under its machine-readable name."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from gsr.infra.numeric import format_number, format_p
from gsr.infra.store import atomic_write

HIDDEN_SUFFIXES = (
    " p",
    " mark",
    " p adjusted",
    " ci low",
    " ci high",
    " ci error",
)  # CSV/JSON columns Markdown/LaTeX fold
# into the value they qualify (marks) or leave to the machine-readable files (p-values, interval bounds)


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
        return format_p(value)  # as every table and chart shows p: 0.004, < 0.001
    digits, sign = 1 if column.endswith("%") else 4, column.startswith(("GSR", "rel.")) or column.endswith("%")
    text = format_number(value, digits=digits, sign=sign)
    mark = row.get(f"{column} mark", "")
    low, high = row.get(f"{column} ci low"), row.get(f"{column} ci high")
    bounds = (
        ""
        if low is None or high is None
        else f" [{format_number(low, digits=digits, sign=sign)}, {format_number(high, digits=digits, sign=sign)}]"
    )
    return text + (mark or "") + bounds


def displayed(rows: list[dict], display=None) -> tuple[list[str], list[list[str]]]:
    """(header, cells) of the displayed table: hidden columns dropped, headers through `display`."""
    if not rows:
        return [], []
    columns = [c for c in rows[0] if not c.endswith(HIDDEN_SUFFIXES)]
    header = [display(c) if display else c for c in columns]
    return header, [[_cell(row, column) for column in columns] for row in rows]


_MARKDOWN_ACTIVE = re.compile(r"[\\`*]|(?<!\w)_|_(?!\w)|\](?=[(\[])")


_MARKUP_OPENING = re.compile(r"<(?=[A-Za-z/!?])")


def markdown_text(text) -> str:
    """`text` shown as it is in Markdown, never as markup, by Python-Markdown (mkdocs) and CommonMark (GitHub) alike:
    HTML's `&` and `>` as entities, and `<` where it could open a tag, a comment or an autolink (before a letter,
    `/`, `!` or `?`: a name such as `<b>x</b>` is text, not a tag; `< 0.001` stays as the tables write it), `~` as
    one too (GitHub's strike-through, which Python-Markdown does not let a backslash escape), a backslash before
    every other character that would start markup (emphasis `*`, `_` at a word's edge, code, a link's `](`). Numbers and
    ordinary names (`w2v_add`, `BM25 (k1=0.9, b=0.4)`, `[low, high]`) come out unchanged."""
    escaped = str(text).replace("&", "&amp;").replace(">", "&gt;").replace("~", "&#126;")
    escaped = _MARKUP_OPENING.sub("&lt;", escaped)
    return _MARKDOWN_ACTIVE.sub(lambda found: "\\" + found.group(0), escaped)


def markdown_cell(text) -> str:
    """A table cell's text safe inside a Markdown table row: markdown_text, '|' escaped (a name cannot end its cell or
    start a column), every line break a space (a name cannot start a row)."""
    return " ".join(markdown_text(text).replace("|", "\\|").splitlines())


def markdown_grid(header: list[str], cells: list[list[str]]) -> str:
    """A Markdown table: first column left-aligned, the others right-aligned; every cell escaped (markdown_cell)."""
    if not header:
        return "(no rows)\n"
    lines = [
        "| " + " | ".join(map(markdown_cell, header)) + " |",
        "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|",
    ]
    lines += ["| " + " | ".join(map(markdown_cell, line)) + " |" for line in cells]
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
    "<": r"\textless{}",  # LaTeX's default OT1 encoding prints a raw < or > as ¡ or ¿
    ">": r"\textgreater{}",
    "†": r"$^\dagger$",
    "‡": r"$^\ddagger$",
    "−": "$-$",
    "—": "--",
    "±": r"$\pm$",
    "τ": r"$\tau$",
    "ρ": r"$\rho$",
    "Δ": r"$\Delta$",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "×": r"$\times$",
    "σ": r"$\sigma$",
    "μ": r"$\mu$",
    "α": r"$\alpha$",
}


def latex_escape(text: str) -> str:
    """`text` safe inside a LaTeX table cell (special characters escaped, the marks as daggers)."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text).replace("**", ""))


def latex_grid(header: list[str], cells: list[list[str]], caption: str = "", note: str = "") -> str:
    """A booktabs table (\\toprule, \\midrule, \\bottomrule; needs \\usepackage{booktabs}), first column left-aligned,
    with the caption and the notes below it."""
    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{latex_escape(caption)}}}")
    if header:
        lines += [
            r"\begin{tabular}{l" + "r" * (len(header) - 1) + "}",
            r"\toprule",
            " & ".join(latex_escape(h) for h in header) + r" \\",
            r"\midrule",
        ]
        lines += [" & ".join(latex_escape(c) for c in line) + r" \\" for line in cells]
        lines += [r"\bottomrule", r"\end{tabular}"]
    if note:
        lines.append(rf"\par\smallskip{{\footnotesize {latex_escape(note)}}}")
    lines.append(r"\end{table}")
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


def write_table(out: Path, stem: str, title: str, rows: list[dict], note: str = "", display=None) -> dict[str, Path]:
    """One table as {stem}.md (with title and note), {stem}.tex (booktabs), {stem}.csv and {stem}.json; `display`
    maps a column name to its displayed header (Markdown and LaTeX)."""
    header, cells = displayed(rows, display)
    markdown = f"### {title}\n\n{markdown_grid(header, cells)}" + (f"\n{note}\n" if note else "")
    return {
        f"{stem}.md": write_text(out / f"{stem}.md", markdown),
        f"{stem}.tex": write_text(out / f"{stem}.tex", latex_grid(header, cells, title, note)),
        f"{stem}.csv": write_text(out / f"{stem}.csv", csv_rows(rows)),
        f"{stem}.json": write_text(out / f"{stem}.json", json.dumps(rows, indent=2, ensure_ascii=False) + "\n"),
    }
