"""The checks before any work of the systems with a device (DRMM, MatchPyramid, the dense encoders) start nothing
where nothing can be refused: "auto" and "cpu" are always there, so a rerun that computes nothing with PyTorch does not
spend seconds importing it; "cuda" without a GPU is still refused before any work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from retrievers.device import DeviceError, check_device

PROJECT = Path(__file__).resolve().parents[2]


def test_auto_and_cpu_are_checked_without_importing_pytorch():
    code = (
        "import sys\nfrom retrievers.device import check_device\n"
        "check_device('auto', 'DRMM.device'); check_device('cpu', 'DRMM.device')\nprint('torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_gpu_this_machine_lacks_is_refused(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DeviceError, match="DRMM.device = 'cuda', but PyTorch sees no CUDA GPU"):
        check_device("cuda", "DRMM.device")
