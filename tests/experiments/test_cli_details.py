"""Command-line details (issue 37.4): `gsr list` wraps to the terminal and lists the built-in configs, `gsr queries`
keeps its columns with long query ids, `gsr validate` says that *corageous* is the paper's spelling."""

from __future__ import annotations

import re
import tomllib

import pytest

from experiments.cli import main
from experiments.commands.listing import ENTRIES, TABLES, text_listing
from experiments.config.experiment import BUILTIN_CONFIGS
from gsr.validation.stereotypes import AGENCY, PAPER_SPELLINGS
from tests.support.toy_collection import write_toy


@pytest.mark.parametrize("width", [60, 100, 160])
def test_gsr_list_wraps_to_the_terminal(width, monkeypatch, capsys):
    """Every line fits the terminal's width ($COLUMNS, as shutil.get_terminal_size reads it); today's Markdown rows
    ran to 2,384 characters. Every registered entry and every parameter is still there."""
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["list"]) == 0
    text = capsys.readouterr().out
    assert max(map(len, text.splitlines())) <= width
    for what, entries in ENTRIES.items():
        for entry in entries():
            assert re.search(rf"^{re.escape(entry.name)}: ", text, re.M), (what, entry.name)
            for name, _, _ in entry.params:
                assert re.search(rf"^ +{re.escape(name)} \(", text, re.M), (entry.name, name)
    assert "`" not in text  # Markdown's code marks are for the docs


def test_gsr_list_names_the_built_in_configs(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "120")
    assert main(["list", "configs"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Built-in configs (gsr run NAME)\n")
    for name, path in BUILTIN_CONFIGS.items():
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        assert re.search(rf"^{re.escape(name)}: ", text, re.M)
        assert f"collection: {raw['collection']['kind']}" in text and f"file: experiments/{path.name}" in text
    assert "demo: The built-in demo: every system and analysis of the paper's §4.2" in text.replace("\n    ", " ")


def test_a_narrow_terminal_still_gets_readable_lines():
    lines = text_listing("systems", 10).splitlines()
    assert max(map(len, lines)) <= 40 and all(line.strip() for line in lines if line)


def test_gsr_list_markdown_is_the_docs_table(capsys):
    assert main(["list", "systems", "--markdown"]) == 0
    assert capsys.readouterr().out == "## systems\n\n" + TABLES["systems"]()
    assert TABLES["configs"]().startswith("| config | what | collection | systems | writes | file |\n")


def test_gsr_queries_keeps_its_columns_with_long_ids(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    long_id = "msmarco-gender-question-0001234567"
    (folder / "long.tsv").write_text(f"q1\tnurse hospital\n{long_id}\telectrician tools\n")
    assert (
        main(["-q", "queries", "--topics", str(folder / "long.tsv"), "--embedding", str(folder / "vectors.txt")]) == 0
    )
    lines = capsys.readouterr().out.splitlines()[1:]
    header, rows = lines[0], lines[1:]
    end = header.index("g(q)") + len("g(q)")  # the g(q) column is right-aligned under its header
    assert len(rows) == 2 and end > len(long_id) + 2
    for line in rows:
        found = re.match(r"  (\S+) +([+-]\d\.\d{4}|—)  ", line)
        assert found and found.end(2) == end, line
        assert line[end : end + 2] == "  " and line.index(found.group(1)) == header.index("qid")


def test_validate_says_corageous_is_the_papers_spelling(glove_lexicon, capsys):
    """Table A.4 of the paper spells 'corageous': the list stays the paper's (docs/paper.md), and the missing word is
    explained where it is reported."""
    assert "corageous" in AGENCY and PAPER_SPELLINGS == {"corageous": "courageous"}
    assert main(["validate"]) == 0
    text = capsys.readouterr().out
    assert "corageous: Appendix A's spelling of 'courageous', kept as the paper lists it" in text
