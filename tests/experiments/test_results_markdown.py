"""results.md (the runner's Markdown table) shows every name as text: a system, baseline or collection named with HTML
or Markdown markup, or with '|', neither breaks the table nor becomes markup when the file is rendered (issue 35.13).
Checked by rendering with Python-Markdown, the library mkdocs renders the docs' generated pages with."""

from __future__ import annotations

from html.parser import HTMLParser

import markdown
import pytest

from experiments.cli import main
from experiments.report.tables import markdown_grid, markdown_text
from tests.support.toy_collection import write_toy

NAMES = (
    "<b>x</b>",
    "<img src=x onerror=alert(1)>",
    "a|b",
    "*c* and _d_",
    "[link](http://example.org)",
    "![image](x.png)",
    "`code`",
    "~~gone~~",
    "R&D &amp; co",
    "back\\slash\\|",
    "w2v_add (k1=0.9, b=0.4) [low, high]",
)


class _Rendered(HTMLParser):
    """The tags of rendered HTML, and the text of each table cell."""

    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.cells: list[str] = []
        self.text = ""
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        self.text += data
        if self._cell is not None:
            self._cell.append(data)


def _render(text: str) -> _Rendered:
    parsed = _Rendered()
    parsed.feed(markdown.markdown(text, extensions=["tables"]))
    parsed.close()
    return parsed


@pytest.mark.parametrize("name", NAMES)
def test_a_table_cell_renders_as_its_text(name):
    rendered = _render(markdown_grid(["system", "MAP"], [[name, "0.5000"]]))
    assert rendered.cells == ["system", "MAP", name, "0.5000"]
    assert set(rendered.tags) == {"table", "thead", "tbody", "tr", "th", "td"}


@pytest.mark.parametrize("name", NAMES)
def test_text_in_a_paragraph_renders_as_itself(name):
    rendered = _render(f"against **{markdown_text(name)}**;")
    assert rendered.tags == ["p", "strong"] and rendered.text == f"against {name};"


def test_results_md_shows_names_with_markup_as_text(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    config = (folder / "config.toml").read_text(encoding="utf-8")
    config = config.replace('name = "add"', 'name = "<b>x</b>"').replace('name = "si"', 'name = "a|b *c* [l](u)"')
    config = config.replace("[embeddings.tiny]", '[evaluation]\nbaseline = "<b>x</b>"\n[embeddings.tiny]')
    (folder / "marked.toml").write_text(config, encoding="utf-8")
    assert main(["-q", "run", str(folder / "marked.toml"), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    text = (tmp_path / "out" / "results.md").read_text(encoding="utf-8")
    assert "<b>" not in text
    rendered = _render(text)
    assert not {"b", "a", "em", "img", "code"} & set(rendered.tags)
    columns = rendered.cells.index("rel. GSR (tiny) %") + 1
    systems = rendered.cells[columns::columns]
    assert systems == [
        "<b>x</b>",
        "a|b *c* [l](u)",
        "<b>x</b> (debiased)",
        "a|b *c* [l](u) (debiased)",
        "perfect",
        "random",
    ]
    assert len(rendered.cells) % columns == 0  # no row gained or lost a cell
    assert "against <b>x</b>;" not in text and "against **&lt;b&gt;x&lt;/b&gt;**;" in text


@pytest.mark.parametrize("text", ["a<b", "x > y", "<b>x</b>", "p < 0.001"])
def test_latex_cells_never_print_a_raw_angle_bracket(text):
    """results.tex: LaTeX's default OT1 encoding prints a raw < or > as ¡ or ¿, so both are written as text commands
    (\\textless{}, \\textgreater{}), whatever else the cell holds."""
    from experiments.report.tables import latex_escape, latex_grid

    escaped = latex_escape(text)
    assert "<" not in escaped and ">" not in escaped
    assert escaped.count(r"\textless{}") == text.count("<")
    assert escaped.count(r"\textgreater{}") == text.count(">")
    table = latex_grid(["system", text], [[text, "1.0"]], caption=text, note=text)
    assert "<" not in table and ">" not in table
