"""Label-based bias measures and re-rankers inside the harness: the label sources a config names, the labels of a
collection (computed once, cached), the measures' options shared by the `label_bias` and `adversarial_probe`
analyses, and the measures of every run of an experiment.

Label sources in configs: `auto` (the collection's own labels where its kind provides them, e.g. Grep-BiasIR's
content_gender, else `intrinsic`), `intrinsic` (§4.2.5's rule), `collection`, `genderedness:τ` (the sign of g(d)
beyond τ under the first measuring embedding) or `file:PATH` (docid<TAB>label; relative to the config file).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from experiments.parts import cached_parts
from gsr.documents.opening import iter_documents
from gsr.errors import InputError
from gsr.fairness.equations import DEFAULT_EPSILON, NEUTRAL_POLICIES, RAB_VARIANTS, SHORT_LISTS, check_target, groups_of
from gsr.fairness.evaluate import LABEL_MAGNITUDES, TARGETS, BiasMeasures, BiasReport, BiasSettings
from gsr.fairness.labels import (
    GENDEREDNESS,
    INTRINSIC,
    DocumentLabels,
    gendered_word_counts,
    genderedness_labels,
    parse_label_source,
    read_labels_file,
)
from gsr.infra.digests import content_key, fast_digest, file_content_key
from gsr.infra.params import Param, ParamError
from gsr.infra.store import cache_dir, cached_file
from gsr.io.types import Run, top_ranked
from gsr.text.intrinsic_gender import GENDERED_ENTITIES, LABELS, NEUTRAL, intrinsic_gender

AUTO, COLLECTION, FILE_PREFIX = "auto", "collection", "file:"
LABELS_VERSION = 2  # bump when a label source changes its output (2: mentions counted in NFKC text)


def _label_source(value, label: str) -> str:
    """A label source of a config: auto, intrinsic, collection, genderedness:τ or file:PATH."""
    if isinstance(value, str):
        if value in (AUTO, INTRINSIC, COLLECTION) or (value.startswith(FILE_PREFIX) and value[len(FILE_PREFIX) :]):
            return value
        if value.startswith(GENDEREDNESS):
            try:
                parse_label_source(value)
            except InputError as err:
                raise ParamError(f"{label}: {err}") from None
            return value
    raise ParamError(f"{label} must be auto, intrinsic, collection, genderedness:τ or file:PATH, not {value!r}")


def _measure_target(value, label: str):
    if isinstance(value, str) and value in TARGETS:
        return value
    if isinstance(value, dict):
        try:
            check_target(value, groups_of("group" if NEUTRAL in value else "exclude"))
        except ValueError as err:
            raise ParamError(f"{label}: {err}") from None
        return {str(k): float(v) for k, v in value.items()}
    raise ParamError(
        f"{label} must be one of {', '.join(TARGETS)} or shares such as {{female = 0.5, male = 0.5}}, not {value!r}"
    )


LABELS_PARAM = Param(
    "labels",
    object,
    AUTO,
    "document gender labels: the collection's own where it has them, else "
    "intrinsic (auto); intrinsic (§4.2.5); collection; genderedness:τ; file:PATH",
    validator=_label_source,
    range_help="auto, intrinsic, collection, genderedness:τ or file:PATH",
)
BIAS_PARAMS = (  # options of the analyses that measure label-based bias ([analyses] table, so prefixed)
    replace(LABELS_PARAM, name="bias_labels"),
    Param("bias_k", int, 10, "cut-off k of the bias measures (the label-based ones, RaB/ARaB, NFaiRR)", minimum=1),
    Param(
        "bias_target",
        object,
        "collection",
        "target distribution: the collection's labels, the query's relevant "
        "documents', uniform, the retrieved list's, or shares",
        validator=_measure_target,
        range_help=f"{', '.join(TARGETS)} or shares",
    ),
    Param(
        "bias_neutral",
        str,
        "exclude",
        "neutral documents: in no distribution, keeping their positions (exclude), or a third group",
        choices=NEUTRAL_POLICIES,
    ),
    Param(
        "bias_epsilon",
        float,
        DEFAULT_EPSILON,
        "what a zero share of the smoothed distribution becomes in KL",
        minimum=0,
        maximum=0.5,
        open_minimum=True,
    ),
    Param(
        "bias_short_lists",
        str,
        "present",
        "β's denominator for lists shorter than k: the documents present, or k (paper)",
        choices=SHORT_LISTS,
    ),
    Param(
        "bias_rab",
        str,
        "tf",
        "RaB/ARaB gender magnitude: ln(1 + entity-word count) (tf), the count (tc), count > 0 (bool), or the labels",
        choices=(*RAB_VARIANTS, LABEL_MAGNITUDES),
    ),
    Param(
        "bias_gender_words",
        str,
        "appendix-b",
        "the gender word list RaB/ARaB count: Appendix B's entity words, Rekabsaz & Schedl's list "
        "(msmarco-gender: the paper that defines RaB), or file:PATH",
        validator=lambda value, label: _gender_words(value, label),
        range_help="appendix-b, msmarco-gender or file:PATH",
    ),
)


FAIRR_PARAMS = (  # FaiRR/NFaiRR in the analyses that compute them (label_bias, measure_agreement)
    Param(
        "bias_fairr",
        bool,
        True,
        "FaiRR@k and NFaiRR@k (Rekabsaz, Kopeinik & Schedl 2021) at bias_k beside RaB/ARaB (label_bias)",
    ),
    Param(
        "bias_background",
        str,
        None,
        "FaiRR's background run: a system of the config whose top bias_background_depth documents per query "
        "normalise every run's NFaiRR (default: each run's own)",
    ),
    Param("bias_background_depth", int, 200, "documents per query of FaiRR's background set", minimum=1),
    Param(
        "bias_fairr_words",
        str,
        "gender-representative",
        "the word list FaiRR's document neutrality counts: the paper's gender-representative words, appendix-b, "
        "msmarco-gender, or file:PATH ('word,f' / 'word,m' lines or JSON)",
        validator=lambda value, label: _fairr_words(value, label),
        range_help="gender-representative, appendix-b, msmarco-gender or file:PATH",
    ),
)


def check_background_system(options: dict, config) -> str | None:
    """A bias_background that names no system of the config (checked when the config is read)."""
    background = options.get("bias_background")
    names = [s.name for s in config.systems]
    if background is not None and background not in names:
        return f"bias_background {background!r} is not a system of this config ({', '.join(names)})"
    return None


def _fairr_words(value, label: str) -> str:
    """FaiRR's word list of a config: gender-representative, appendix-b, msmarco-gender or file:PATH."""
    if value == "gender-representative":
        return value
    try:
        return _gender_words(value, label)
    except ParamError:
        raise ParamError(
            f"{label} must be gender-representative, appendix-b, msmarco-gender or file:PATH, not {value!r}"
        ) from None


def word_list(experiment, value: str) -> str:
    """A config's word list as gsr.fairness reads it: a built-in name, or a file's path (resolved against the
    config's folder)."""
    resolved = resolved_source(experiment, value)
    return resolved[len(FILE_PREFIX) :] if resolved.startswith(FILE_PREFIX) else resolved


def fairr_of(experiment, options: dict, cutoffs):
    """The FaiRRMeasures of the collection under an analysis's FaiRR options at `cutoffs` (None: bias_fairr off)."""
    from gsr.fairness.fairr_runs import FaiRRMeasures, FaiRRSettings

    if not options.get("bias_fairr", False):
        return None
    settings = FaiRRSettings(cutoffs=tuple(cutoffs), background_depth=options["bias_background_depth"])
    words = word_list(experiment, options["bias_fairr_words"])
    return FaiRRMeasures(experiment.collection.documents, settings, words, n_jobs=experiment.config.threads)


def _gender_words(value, label: str) -> str:
    """RaB's gender word list of a config: appendix-b, msmarco-gender or file:PATH."""
    if isinstance(value, str) and (
        value in ("appendix-b", "msmarco-gender") or (value.startswith(FILE_PREFIX) and value[len(FILE_PREFIX) :])
    ):
        return value
    raise ParamError(f"{label} must be appendix-b, msmarco-gender or file:PATH, not {value!r}")


def bias_settings(options: dict) -> BiasSettings:
    """The BiasSettings of an analysis's checked options."""
    return BiasSettings(
        k=options["bias_k"],
        target=options["bias_target"],
        neutral=options["bias_neutral"],
        epsilon=options["bias_epsilon"],
        short_lists=options["bias_short_lists"],
        rab=options["bias_rab"],
    )


def resolved_source(experiment, source: str) -> str:
    """`auto` made concrete, and a file path resolved against the config file's folder."""
    if source == AUTO:
        return COLLECTION if experiment.collection.document_genders else INTRINSIC
    if source.startswith(FILE_PREFIX):
        path = Path(source[len(FILE_PREFIX) :]).expanduser()
        if not path.is_absolute() and experiment.config.path is not None:
            path = experiment.config.path.resolve().parent / path
        return FILE_PREFIX + str(path)
    return source


def _intrinsic(experiment) -> DocumentLabels:
    """§4.2.5's labels of every collection document, computed once per collection and word lists and cached."""
    collection = experiment.collection
    words = experiment.mention_words()
    key = content_key(collection.key, INTRINSIC, words.names_source, fast_digest(GENDERED_ENTITIES), LABELS_VERSION)

    def build(staging: Path) -> None:
        with open(staging, "w", encoding="utf-8") as out:  # streamed: a collection's texts need not fit in memory
            for docid, text in iter_documents(collection.documents):
                out.write(f"{docid}\t{intrinsic_gender(text, words).label}\n")

    path, reused = cached_file(cache_dir() / "labels" / f"{key}.tsv", build)
    if reused:
        experiment.note_reused("intrinsic labels")
    labels = dict(line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8") if line.strip())
    return DocumentLabels(labels, INTRINSIC, complete=True, details={"first_names": words.names_source})


def _from_collection(experiment) -> DocumentLabels:
    collection = experiment.collection
    if not collection.document_genders:
        raise InputError(
            f"labels 'collection': collection {collection.name} has no document labels (use intrinsic, "
            "genderedness:τ or file:PATH)"
        )
    # Grep-BiasIR's 'both' (female and male wording) counts as neutral, as Dash leaves out images with both genders
    labels = {d: g if g in LABELS else NEUTRAL for d, g in collection.document_genders.items()}
    return DocumentLabels(labels, f"{COLLECTION}:{collection.name}", complete=True)


def collection_labels(experiment, source: str) -> DocumentLabels:
    """The labels of the collection's documents from a config's label source (made once per experiment)."""
    source = resolved_source(experiment, source)

    def build() -> DocumentLabels:
        if source == INTRINSIC:
            return _intrinsic(experiment)
        if source == COLLECTION:
            return _from_collection(experiment)
        if source.startswith(FILE_PREFIX):
            return read_labels_file(source[len(FILE_PREFIX) :])
        _, threshold = parse_label_source(source)
        return genderedness_labels(experiment.gendered(experiment.config.measuring[0]), threshold)

    return experiment.shared(f"labels {source}", build)


def labels_version(experiment, source: str) -> str:
    """A key that changes whenever the labels of `source` could (a re-ranker's run depends on them)."""
    source = resolved_source(experiment, source)
    if source == INTRINSIC:
        return content_key(
            source, experiment.mention_words().names_source, fast_digest(GENDERED_ENTITIES), LABELS_VERSION
        )
    if source.startswith(FILE_PREFIX):
        path = Path(source[len(FILE_PREFIX) :])
        if not path.is_file():
            raise InputError(f"labels file {path}: no such file")
        return file_content_key(path, LABELS_VERSION)
    if source.startswith(GENDEREDNESS):
        name = experiment.config.measuring[0]
        return content_key(
            source,
            experiment.source_embedding(name).key,
            sorted(experiment.analyzer.stopwords),
            str(experiment.config.definitional),
            LABELS_VERSION,
        )
    return content_key(source, LABELS_VERSION)  # the collection's own: part of the collection's key already


def bias_of_runs(
    experiment,
    runs: dict[str, Run],
    query_ids: list[str],
    options: dict,
    labels: DocumentLabels | None = None,
    background: Run | None = None,
) -> dict[str, BiasReport]:
    """The label-based measures of each run over `query_ids`, with the collection's qrels (for the relevant target)
    and, for RaB, the entity-word counts of the top-k documents; with bias_fairr on, FaiRR@k and NFaiRR@k against
    `background` (the bias_background system's run; None: each run's own)."""
    collection = experiment.collection
    settings = bias_settings(options)
    labels = labels or collection_labels(experiment, options["bias_labels"])
    mentions = None
    if settings.rab != LABEL_MAGNITUDES:
        wanted = {d for run in runs.values() for q in query_ids for d, _ in top_ranked(run, q, settings.k)}
        words = word_list(experiment, options.get("bias_gender_words", "appendix-b"))
        mentions = gendered_word_counts(collection.texts(wanted), entities=words)
    measures = BiasMeasures(labels, settings, mentions, fairr=fairr_of(experiment, options, [settings.k]))
    name = options.get("bias_background")
    return {n: measures.evaluate(run, collection.qrels, query_ids, background, name) for n, run in runs.items()}


def cached_bias_of_runs(
    experiment, runs: Mapping[str, Run], keys: dict[str, str], query_ids: list[str], options: dict
) -> dict[str, BiasReport]:
    """bias_of_runs of the runs `keys` names ({name: the run's content key}), one cached part per run
    (experiments.parts): keyed by the run, the version of the labels, the measures' settings, the gender word list
    RaB counts, the topics measured and the collection; with bias_fairr on, also FaiRR's word list, the background
    depth and the background run (its key: a system of `keys`). The labels are read only where a part is missing."""
    from experiments.per_system import collection_key

    def words_key(value: str) -> str:
        words = resolved_source(experiment, value)
        return file_content_key(Path(words[len(FILE_PREFIX) :])) if words.startswith(FILE_PREFIX) else words

    background_name = options.get("bias_background")
    fairr = None
    if options.get("bias_fairr", False):
        background = keys[background_name] if background_name else None
        fairr = (words_key(options["bias_fairr_words"]), options["bias_background_depth"], background_name, background)
    settings = (
        collection_key(experiment),
        labels_version(experiment, options["bias_labels"]),
        bias_settings(options).to_dict(),
        words_key(options.get("bias_gender_words", "appendix-b")),
        sorted(query_ids),
        fairr,
    )

    def compute(missing: list[str]) -> dict[str, BiasReport]:
        background = runs[background_name] if fairr is not None and background_name else None
        return bias_of_runs(
            experiment, {name: runs[name] for name in missing}, query_ids, options, background=background
        )

    return cached_parts("label bias", {name: (*settings, key) for name, key in keys.items()}, compute)
