"""What results.json records so a result can be traced: the project's version, the config (its text and its checked
settings) and the SHA-256 of every input file (collection sources, topics, qrels, folds, embedding files, stop and
word lists, run files). Hashes are cached per file version (path, size, modification time), so a rerun does not read
large inputs again."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
from pathlib import Path

from experiments.collections.base import topics_path
from experiments.config.experiment import ExperimentConfig
from experiments.registry import COLLECTION_KINDS, SYSTEMS
from gsr.errors import InputError
from gsr.infra.store import cache_dir, cached_file, file_content_key

PROJECT = "gsr-bench"


def project_version() -> str:
    """The installed gsr-bench version (pyproject.toml's when not installed)."""
    try:
        return importlib.metadata.version(PROJECT)
    except importlib.metadata.PackageNotFoundError:
        import tomllib

        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]


def sha256(path: Path) -> str:
    """SHA-256 of a file's content, computed once per file version and cached."""
    def build(staging: Path) -> None:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
        staging.write_text(digest.hexdigest(), encoding="utf-8")

    entry, _ = cached_file(cache_dir() / "sha256" / f"{file_content_key(path)}.txt", build)
    return entry.read_text(encoding="utf-8").strip()


def _files(value, what: str) -> list[Path]:
    """The files a path value names: itself, every file under a folder, a Pyserini cache file; ids ('irds:') none."""
    values = value if isinstance(value, list) else [value]
    files = []
    for item in values:
        text = str(item)
        if text.startswith("irds:"):
            continue
        try:
            path = topics_path(text, what) if text.startswith("pyserini:") else Path(text)
        except InputError:
            continue
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.is_file())
        elif path.is_file():
            files.append(path)
    return files


def input_files(config: ExperimentConfig) -> list[dict]:
    """Every input file of the config with its role, size and SHA-256; ids (irds:, pyserini:, built-in names) as is."""
    entries: list[tuple[str, object]] = []
    if config.path:
        entries.append(("config", str(config.path)))
    kind = COLLECTION_KINDS.get(config.collection["kind"])
    entries += [(f"collection.{key}", config.collection[key]) for key in kind.path_keys if key in config.collection]
    entries += [(f"embeddings.{spec.name}", spec.source) for spec in config.embeddings.values() if spec.source]
    entries += [(f"gsr.{key}", value) for key, value in (("stopwords", config.stopwords),
                                                          ("definitional", config.definitional)) if value]
    entries += [(f"debias.{key}", value) for key, value in config.debias_lists.items()]
    for system in config.systems:
        entries += [(f"systems.{system.name}.{key}", system.params[key])
                    for key in SYSTEMS.get(system.model).path_params]
    records = []
    for role, value in entries:
        files = _files(value, role.rsplit(".", 1)[-1])
        if not files:
            records.append({"role": role, "id": str(value)})
        for path in files:
            records.append({"role": role, "path": str(path), "bytes": path.stat().st_size, "sha256": sha256(path)})
    return records


def config_record(config: ExperimentConfig) -> dict:
    """The config as run: its file's text and the checked settings (defaults filled in)."""
    settings = {k: v for k, v in dataclasses.asdict(config).items() if k not in ("path",)}
    text = config.path.read_text(encoding="utf-8") if config.path and config.path.is_file() else None
    return {"path": str(config.path) if config.path else None, "text": text,
            "settings": _plain(settings)}


def _plain(value):
    """JSON-ready copy: paths as strings, tuples as lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value
