"""Bad input to study planning (issue 39): a pilot with fewer than three topics, no spread of g(q), a target width
≤ 0, a power or α outside (0, 1), a pool without any query the lexicon can measure, and the --json target rules;
each stops with one line naming the option or the run, before any work (nothing written), from `gsr plan` and from
gsr.plan alike."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import gsr
from experiments.cli import main
from gsr.errors import InputError, ParamError
from gsr.validation.planning import SimulatedTopics
from tests.support.toy_collection import write_toy


def plan_args(folder: Path, *extra: str, topics: str = "topics.tsv") -> list[str]:
    return [
        "plan",
        "--run",
        str(folder / "run.txt"),
        "--topics",
        str(folder / topics),
        "--docs",
        str(folder / "docs.jsonl"),
        "--jobs",
        "1",
        "--embedding",
        str(folder / "vectors.txt"),
        "--resamples",
        "200",
        *extra,
    ]


def status_of(args: list[str]) -> int:
    """`gsr ARGS` run in this process: its exit status (argparse's own errors exit)."""
    try:
        return main(args)
    except SystemExit as exit_:
        return int(exit_.code or 0)


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error: " in line]
    assert len(errors) == 1 and errors[0].startswith("gsr"), err  # one message (argparse adds a usage above)
    assert "Traceback" not in err
    return errors[0]


@pytest.fixture
def toy(tmp_path) -> Path:
    folder = write_toy(tmp_path / "toy")
    (folder / "two.tsv").write_text("q1\telectrician tools\nq2\tnurse hospital\n")
    (folder / "same.tsv").write_text("q1\tnurse\nq2\tnurse\nq4\tnurse\n")
    (folder / "unmeasurable.tsv").write_text("p1\tzzz qqq\np2\txyzzy\n")
    return folder


CASES = {
    "fewer than three topics": (
        (),
        "two.tsv",
        "pilot run run.txt: 2 topics with both g(q) and g_q(L); a plan needs at least 3",
    ),
    "no spread of g(q)": ((), "same.tsv", "every query has the same genderedness (zero variance)"),
    "target width 0": (("--target-width", "0"), "topics.tsv", "target_width must be > 0, not 0.0"),
    "target width negative": (("--target-width", "-0.1"), "topics.tsv", "target_width must be > 0, not -0.1"),
    "power 1": (("--power", "1"), "topics.tsv", "power must be in (0, 1), not 1.0"),
    "power 0": (("--power", "0"), "topics.tsv", "power must be in (0, 1), not 0.0"),
    "power above 1": (("--power", "1.5"), "topics.tsv", "power must be in (0, 1), not 1.5"),
    "alpha 0": (("--alpha", "0"), "topics.tsv", "alpha must be in (0, 1), not 0.0"),
    "alpha 1": (("--alpha", "1"), "topics.tsv", "alpha must be in (0, 1), not 1.0"),
    "pool unmeasurable": (
        ("--pool", "{dir}/unmeasurable.tsv", "--select", "3"),
        "topics.tsv",
        "pool: none of its 2 queries has a term the lexicon can measure",
    ),
    "select beyond the pool": (
        ("--pool", "{dir}/topics.tsv", "--select", "9"),
        "topics.tsv",
        "pool: 9 topics asked for, but only 5 of its queries have a g(q)",
    ),
    "more strata than topics": (
        ("--pool", "{dir}/topics.tsv", "--select", "4", "--neutral-share", "0.5", "--strata", "3"),
        "topics.tsv",
        "strata = 3, but only 2 topics are chosen outside the neutral share",
    ),
    "select without a pool": (("--select", "3"), "topics.tsv", "--select chooses topics from a pool"),
    "a difference of 0": (("--difference", "0"), "topics.tsv", "a finite number other than 0"),
    "a difference of an unasked measure": (("--difference", "AP=0.1"), "topics.tsv", "AP is not one of --measures"),
    "too few resamples": (("--resamples", "10"), "topics.tsv", "resamples must be in [100, 1,000,000], not 10"),
    "a study of two topics": (("--n", "2"), "topics.tsv", "topics must be in [3, 10,000,000], not 2"),
}


@pytest.mark.parametrize(("extra", "topics", "message"), CASES.values(), ids=CASES.keys())
def test_bad_input_is_one_line_before_any_work(extra, topics, message, toy, capsys):
    target = toy / "plan.json"
    extra = tuple(a.replace("{dir}", str(toy)) for a in extra)
    assert status_of(plan_args(toy, *extra, "--json", str(target), topics=topics)) == 2
    assert message in one_error(capsys)
    assert not target.exists()


def test_the_pool_is_checked_before_the_pilot_is_read(toy, capsys):
    """An unmeasurable pool is refused before the pilot's documents are even opened (they do not exist here)."""
    args = plan_args(toy, "--pool", str(toy / "unmeasurable.tsv"), "--select", "3")
    args[args.index("--docs") + 1] = str(toy / "missing.jsonl")
    assert status_of(args) == 2
    assert "pool: none of its 2 queries" in one_error(capsys)


def test_json_never_replaces_a_file_without_overwrite_nor_an_input_at_all(toy, capsys):
    existing = toy / "plan.json"
    existing.write_text("mine\n")
    assert status_of(plan_args(toy, "--json", str(existing))) == 2
    assert "--json" in one_error(capsys) and existing.read_text() == "mine\n"
    topics = toy / "topics.tsv"
    before = topics.read_text()
    assert status_of(plan_args(toy, "--json", str(topics), "--overwrite")) == 2
    assert "is the input --topics" in one_error(capsys) and topics.read_text() == before
    assert status_of(plan_args(toy, "--json", str(existing), "--overwrite")) == 0
    assert existing.read_text().startswith("{")


@pytest.mark.parametrize(
    ("settings", "error", "message"),
    [
        ({"power": 1.0}, ParamError, "power must be in (0, 1), not 1.0"),
        ({"power": 0.0}, ParamError, "power must be in (0, 1), not 0.0"),
        ({"alpha": 1.2}, ParamError, "alpha must be in (0, 1), not 1.2"),
        ({"target_width": 0.0}, ParamError, "target_width must be > 0, not 0.0"),
        ({"target_width": -1.0}, ParamError, "target_width must be > 0, not -1.0"),
        ({"pool": {"p1": math.nan, "p2": math.nan}, "select": 3}, InputError, "none of its 2 queries"),
        ({"select": 3}, ParamError, "give the pool"),
        ({"difference": {"nDCG@10": 0.1}}, ParamError, "'nDCG@10' is not GSR nor one of the measures"),
    ],
)
def test_bad_settings_of_gsr_plan(settings, error, message):
    pilot = SimulatedTopics().pilot(20, 0)
    with pytest.raises(error) as caught:
        gsr.plan(pilot, **settings)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_bad_pilots_of_gsr_plan():
    run = {"q1": (0.1, 0.2), "q2": (-0.1, 0.0), "q3": (None, 0.1), "q4": (0.2, math.nan)}
    with pytest.raises(
        InputError, match="pilot run short: 2 topics with both g.q. and g_q.L.; a plan needs at least 3"
    ):
        gsr.plan({"short": run})
    flat = {f"q{i}": (0.25, 0.1 * i) for i in range(10)}
    with pytest.raises(InputError, match="pilot run flat: GSR is undefined: every query has the same genderedness"):
        gsr.plan({"flat": flat})
    with pytest.raises(InputError, match="at least one pilot run"):
        gsr.plan({})
