"""The deprecated alias (a name a README example used: embeddings.load_embedding, until 0.4) works, warns naming its
new place, and is the same object; gsr.params went away in 0.3 as announced; the meta-path hook that mapped 23 module
names is gone, so old names fail as any missing module does."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest


def test_gsr_params_went_away_in_0_3_as_its_warning_announced():
    sys.modules.pop("gsr.params", None)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("gsr.params")
    from gsr.infra.params import Param  # noqa: F401 - where it lives


def test_embeddings_load_embedding_is_a_deprecated_alias_of_gsr_vectors_load_embedding():
    import embeddings
    from gsr.vectors import load_embedding as current

    warned = "embeddings.load_embedding is deprecated and goes away in gsr-bench 0.4: .* GenderLexicon.from_embedding"
    with pytest.warns(DeprecationWarning, match=warned):
        from embeddings import load_embedding
    assert load_embedding is current
    with pytest.raises(AttributeError):
        embeddings.BUILTIN_EMBEDDINGS  # noqa: B018 - the only old name kept is the README's
    code = "import warnings\nwarnings.simplefilter('error')\nfrom embeddings import load_embedding"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1 and "DeprecationWarning: embeddings.load_embedding is deprecated" in done.stderr


@pytest.mark.parametrize("old", ["gsr.store", "gsr.statistics", "experiments.config_params", "gsr.plots"])
def test_module_names_no_release_shipped_are_gone(old):
    sys.modules.pop(old, None)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
    assert not [finder for finder in sys.meta_path if type(finder).__module__.startswith("gsr")]
