"""Where a model runs: `device = "auto" | "cpu" | "cuda"` (or "cuda:N"), shared by the bi-encoders, the
cross-encoders, DRMM and MatchPyramid.

"auto" is the first CUDA GPU where PyTorch sees one, else the CPU; "cuda" where PyTorch sees none is refused naming
the setting before any model is loaded or any document encoded. Running out of GPU memory is turned into one error
naming the device and what to lower (`out_of_memory`).
"""

from __future__ import annotations

from contextlib import contextmanager

from gsr.errors import InputError
from gsr.infra.params import Param, ParamError

DEVICES = ("auto", "cpu", "cuda")


def _device(value, label: str):
    """A Param validator: auto, cpu, cuda or cuda:N."""
    if isinstance(value, str) and (value in DEVICES or (value.startswith("cuda:") and value[5:].isdigit())):
        return value
    raise ParamError(f"{label} must be one of auto, cpu, cuda or cuda:N, not {value!r}")


DEVICE_PARAM = Param(
    "device",
    object,
    "auto",
    "where the model runs: auto (a CUDA GPU where PyTorch sees one, else "
    "the CPU), cpu, or cuda (refused where there is no GPU)",
    validator=_device,
    range_help="auto, cpu, cuda or cuda:N",
)


class DeviceError(InputError):
    """A device asked for that this machine lacks, or a model that does not fit in its memory."""


def resolve_device(device: str = "auto", setting: str = "device") -> str:
    """The torch device name to use for `device` ('auto', 'cpu', 'cuda', 'cuda:N'); DeviceError naming `setting`
    where a GPU is asked for and PyTorch sees none (or not that many)."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        return "cpu"
    if not str(device).startswith("cuda"):
        raise DeviceError(f"{setting} = {device!r}: choose auto, cpu, cuda or cuda:N")
    if not torch.cuda.is_available():
        raise DeviceError(
            f"{setting} = {device!r}, but PyTorch sees no CUDA GPU on this machine (torch "
            f'{torch.__version__}); set {setting} = "cpu" or "auto"'
        )
    index = int(device.split(":", 1)[1]) if ":" in device else 0
    if index >= torch.cuda.device_count():
        raise DeviceError(f"{setting} = {device!r}, but PyTorch sees only {torch.cuda.device_count()} CUDA GPU(s)")
    return device


def check_device(device: str, setting: str = "device") -> None:
    """Before any work: DeviceError (resolve_device's) where `device` asks for a GPU this machine lacks. "auto" and
    "cpu" are always available: checking them starts nothing (PyTorch takes seconds to import, which a rerun that
    computes nothing with it would spend)."""
    if device not in ("auto", "cpu"):
        resolve_device(device, setting)


def is_out_of_memory(error: BaseException) -> bool:
    """True for PyTorch's CUDA out-of-memory error (and the RuntimeError older builds raise)."""
    import torch

    oom = getattr(torch.cuda, "OutOfMemoryError", None)
    return (oom is not None and isinstance(error, oom)) or (
        isinstance(error, RuntimeError) and "out of memory" in str(error).lower()
    )


@contextmanager
def out_of_memory(what: str, device: str, hint: str):
    """Turns a GPU out-of-memory error inside the block into one DeviceError naming `what`, the device and `hint`
    (e.g. 'lower batch_size'), after freeing what PyTorch cached."""
    try:
        yield
    except Exception as err:
        if not is_out_of_memory(err):
            raise
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
        raise DeviceError(f'{what}: out of memory on {device}; {hint}, or set device = "cpu"') from None
