"""The declared parameters of an experiment config's own tables (top level, [gsr], [evaluation], [plots], [debias]):
type, default and range of every key, checked by experiments.config through gsr.infra.params before any work; and the
checks every config table goes through (ConfigError naming the file and the key)."""

from __future__ import annotations

from pathlib import Path

from debias.words import DEFAULT_LISTS, LIST_SETS
from gsr.errors import ConfigError
from gsr.infra.params import Param, ParamError, check_params
from gsr.io.fairness_sensitive import is_fairness_sensitive
from gsr.io.msmarco_gender import is_msmarco_gender
from gsr.settings import CUTOFF, EXCLUSION, RANDOM_SEED

MAX_DEPTH = 100_000  # documents per query: every run is held in memory, 250 queries × this many pairs
MAX_THREADS = 256  # each thread or process holds files open; tens of thousands exhaust the descriptors
THREADS = Param(
    "threads", int, 2, "threads and processes for indexing, search and statistics", minimum=1, maximum=MAX_THREADS
)
TOP_PARAMS = (
    Param("depth", int, 1000, "documents retrieved per query", minimum=1, maximum=MAX_DEPTH),
    THREADS,
    Param("name", str, None, "the experiment's name (default: the config file's name)"),
    Param("output", str, None, "output folder (default: out/NAME)"),
)


def _string_list(value, label: str) -> list[str]:
    """A string or a list of strings, as a list (a Param validator)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ParamError(f"{label} must be a string or a list of strings, not {value!r}")


GSR_PARAMS = (
    Param(
        "measuring",
        object,
        [],
        "the embeddings GSR is measured with (at least one)",
        validator=_string_list,
        range_help="an [embeddings] name or a list of them",
    ),
    CUTOFF,
    Param("stopwords", str, None, "stop list: 'nltk' (default), 'sklearn' or a file, one word per line"),
    EXCLUSION,
    Param("definitional", str, None, "definitional pairs, debiaswe JSON"),
    RANDOM_SEED,
)
EVALUATION_PARAMS = (
    Param(
        "measures",
        object,
        None,
        "ir_measures measure names",
        validator=_string_list,
        range_help="a measure name or a list of them",
    ),
    Param("baseline", str, None, "the system significance is tested against (default: the first)"),
)
PLOTS_PARAMS = (Param("enabled", bool, True, "draw the PNG figures"),)
DEBIAS_PARAMS = (
    Param("variants", object, None, "debiased variants", validator=_string_list, range_help="names"),
    Param("lists", str, DEFAULT_LISTS, "word lists: debiaswe's own or the project's", choices=LIST_SETS),
    Param(
        "systems", object, None, "systems that get debiased variants", validator=_string_list, range_help="system names"
    ),
    *(
        Param(key, str, None, f"{key} word list, debiaswe JSON")
        for key in ("definitional", "gender_specific", "equalize")
    ),
)


def declared_names(declared) -> tuple[str, ...]:
    return tuple(p.name for p in declared)


def checked_table(declared, table: dict, where: str, source: str) -> dict:
    """check_params for one config table, its errors as ConfigErrors naming the file and the key."""
    try:
        return check_params(declared, table, where)
    except ParamError as err:
        raise ConfigError(f"{source}: {err}") from None


def refuse_unknown(table: dict, allowed, where: str, source: str) -> None:
    """A ConfigError naming the first key of `table` that is not `allowed`."""
    for key in table:
        if key not in allowed:
            raise ConfigError(f"{source}: unknown key '{where}{key}' (allowed: {', '.join(allowed)})")


def config_table(value, where: str, source: str) -> dict:
    """`value` when it is a TOML table, a ConfigError naming `where` otherwise."""
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: '{where}' must be a table")
    return value


def is_source_name(text: str) -> bool:
    """True for a config value that names a source instead of a path: a pyserini: or irds: id, or a built-in topic set
    (msmarco-gender, fairness-sensitive). A name is never resolved against the config's folder nor looked for as a
    file."""
    return text.startswith(("pyserini:", "irds:")) or is_msmarco_gender(text) or is_fairness_sensitive(text)


def resolve_path(base: Path, value):
    """A config path (or a list of them) resolved against the config file's folder; names (is_source_name) kept."""
    if isinstance(value, list):
        return [resolve_path(base, v) for v in value]
    text = str(value)
    if is_source_name(text):
        return text
    path = Path(text).expanduser()
    return str(path if path.is_absolute() else base / path)
