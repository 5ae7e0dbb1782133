"""Where the shared public data lives (../shared/data beside the checkout, or $GSR_SHARED_DATA), and the error-
message check several test modules use."""

from __future__ import annotations

import os
from pathlib import Path

# the checkout's sibling shared/data; GSR_SHARED_DATA points elsewhere (e.g. from a worktree one level deeper)
SHARED_DATA = Path(os.environ.get("GSR_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data")
ROBUST04_TOPICS = SHARED_DATA / "robust04" / "topics.robust04.txt"
PAPER = SHARED_DATA.parent / "papers" / "gsr-fabris-et-al.md"
NLTK_DATA = SHARED_DATA / "nltk_data"


def assert_message(error: BaseException, expected: str, path) -> None:
    """str(error) is `expected` with "{path}" standing for `path`; an `expected` ending with "…" is a prefix."""
    expected = expected.replace("{path}", str(path))
    if expected.endswith("…"):
        assert str(error).startswith(expected[:-1]), str(error)
    else:
        assert str(error) == expected
