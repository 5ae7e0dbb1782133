"""`gsr run`: config → collection → embeddings → runs → measures → analyses, every expensive step cached.

The runner knows no system, analysis or collection by name: it asks experiments.registry for the declaration and
calls it. Cache entries are named by the content they were computed from (collection SHA-256, embedding version,
system settings), written atomically, verified before reuse and rebuilt when damaged; an interrupted run resumes at
the first missing entry.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from experiments.analyses import AnalysisError
from experiments.background import finished_aside, run_aside, start_training, training_done
from experiments.collections import Collection, load_collection
from experiments.config.experiment import ExperimentConfig
from experiments.config.systems import SystemSpec, output_name
from experiments.debiased import debiased_embedding
from experiments.experiment_result import PERFECT, RANDOM, ExperimentResult
from experiments.per_system import checked_run_ids, effectiveness_of, gsr_of, lazy_runs
from experiments.plan import embedding_key
from experiments.registry import ANALYSES, SYSTEMS
from experiments.run_files import write_ranked_run
from gsr.baselines import perfect_run, random_run
from gsr.effectiveness.evaluate import parse_measures
from gsr.errors import EmbeddingError, InputError, PluginError
from gsr.evaluate import GSRReport, cached_document_stats
from gsr.infra import logs
from gsr.infra.digests import content_key, file_content_key
from gsr.infra.progress import progress
from gsr.infra.store import CACHE_VARIABLE, cache_dir, cached_file, clean_stale_staging, recorded_digest, unwritable
from gsr.io.runs import read_trec_run
from gsr.io.types import Run
from gsr.lexicon import gender_lexicon
from gsr.lexicon_cache import note_debiased_measuring
from gsr.text.analyzer import TOKENS_VERSION, Analyzer, stopwords_of
from gsr.uncertainty import check_resample_memory

log = logs.get("run")


@dataclass
class LoadedEmbedding:
    name: str
    kv: Any  # what gsr.vectors.KeyedVectorsLike describes: WordVectors, or gensim's for fastText
    key: str  # version key: changes whenever the vectors could


def warn_unreliable(label: str, results: dict) -> None:
    """One warning per reason for the systems (and engines) whose GSR under a measuring column is undefined (their
    rows show "—", never a number), or measured on fewer than half their topics, as `gsr score` says of its runs."""
    reasons: dict[tuple[str, str], list[str]] = {}
    for system, result in results.items():
        if result.gsr is None:
            reasons.setdefault(("is undefined for", result.error or "undefined"), []).append(system)
        elif result.coverage_warning:
            reasons.setdefault(("warning for", result.coverage_warning), []).append(system)
    for (what, why), systems in reasons.items():
        log.warning("GSR (%s) %s %s: %s", label, what, ", ".join(systems), why)


class Experiment:
    """One config's experiment; `run()` executes it, reusing every cache entry that already exists.

    System types (experiments.systems) reach the collection, embeddings, document statistics, other systems' runs
    and shared resources through the public methods below.
    """

    def __init__(self, config: ExperimentConfig):
        self.config = config
        self.reused: list[str] = []
        self.timings: dict[str, float] = {}
        self.analyzer = Analyzer(stopwords_of(config.stopwords), exclusion=config.exclusion)
        self._embeddings: dict[str, LoadedEmbedding] = {}
        self._unit_embeddings: dict[str, LoadedEmbedding] = {}
        self._shared: dict[str, Any] = {}
        self._runs: dict[str, Run] = {}  # cache key -> run, read once by this experiment (not by derived ones)
        self._entries: dict[str, Path] = {}  # cache key -> the run's cache file, verified (or written) once
        self.part_keys: dict[str, str] = {}  # keys of this experiment's inputs, made once (experiments.per_system)
        self._collection: Collection | None = None
        # set on an experiment over edited queries: the one whose trained models score them (the adversarial probe)
        self.trained_by: Experiment | None = None
        # called with the result once its measures are in (None) and after each analysis (its name): `gsr run` draws
        # the report's figures then, on the core the next steps leave idle (experiments.report.writer.draw_ahead)
        self.measured: Callable[[ExperimentResult, str | None], None] | None = None

    # ------------------------------------------------------------ what system types use
    @contextmanager
    def step(self, name: str):
        """Times a step into self.timings and logs it."""
        log.info("%s …", name)
        start = time.perf_counter()
        try:
            yield
        except KeyboardInterrupt as interrupt:
            interrupt.add_note(f'"{name}"')  # the innermost step comes first: what the interrupt message names
            raise
        finally:
            self.timings[name] = time.perf_counter() - start
        log.info("%s: %.1f s", name, self.timings[name])

    def note_reused(self, what: str) -> None:
        """Record (and log) a cache entry that was reused instead of recomputed."""
        self.reused.append(what)
        log.info("reused %s", what)

    def shared(self, key: str, make: Callable[[], object]):
        """A resource made once per experiment (an index, a worker) and shared by every system that asks for it;
        one with a close() method is closed when the experiment ends."""
        if key not in self._shared:
            self._shared[key] = make()
        return self._shared[key]

    def forget_workers(self) -> None:
        """Forgets, without closing them, the shared resources that close (workers): in a forked process they are
        its parent's (experiments.background), and it starts its own where it needs one."""
        for key in [k for k, v in self._shared.items() if callable(getattr(v, "close", None))]:
            del self._shared[key]  # in place: the experiments derived from this one share the dictionary

    def close_shared(self) -> None:
        """Close every shared resource that can be closed (workers); run() does it when it ends."""
        for resource in self._shared.values():
            if callable(getattr(resource, "close", None)):
                resource.close()

    @property
    def collection(self) -> Collection:
        if self._collection is None:
            with self.step("collection"):
                self._collection = load_collection(self.config.collection)
            for note in self._collection.notes:
                log.info("note: %s", note)
        return self._collection

    def document_stats(self):
        """The collection's bag-of-words statistics after GSR's text handling (cached)."""

        def build():
            with self.step("document statistics"):
                return cached_document_stats(self.collection.documents, self.analyzer, n_jobs=self.config.threads)

        return self.shared("document statistics", build)

    def embedding(self, name: str) -> LoadedEmbedding:
        """The vectors systems retrieve with: every row unit-normalised, as debiaswe normalises on load.

        Debiased embeddings have unit rows already; a regular one is normalised once (debias.unit_normalised, the
        first step of debiasing alone, bit for bit) and cached, so a regular system and its debiased variants
        differ only by debiasing, never by normalisation (Tables 2-3). GSR is measured with `source_embedding`.
        """
        source = self.source_embedding(name)
        if self.config.embeddings[name].base is not None:
            return source
        if name not in self._unit_embeddings:
            from debias.hard import unit_normalised
            from gsr.vectors.loading import cached_embedding

            key = "unit-" + content_key(source.key)
            with self.step(f"embedding {name} (unit rows)"):
                kv = cached_embedding(key, lambda: unit_normalised(source.kv))
            self._unit_embeddings[name] = LoadedEmbedding(name, kv, key)
        return self._unit_embeddings[name]

    def source_embedding(self, name: str) -> LoadedEmbedding:
        """A named embedding of the config as its source gives it: loaded, trained on the collection or debiased,
        with its version key. GSR is measured with these vectors, and debiasing starts from them."""
        if name not in self._embeddings:
            spec = self.config.embeddings[name]
            with self.step(f"embedding {name}"):
                if spec.base is not None:
                    assert spec.debias is not None  # the config checker pairs base with debias
                    kv, key = debiased_embedding(self.source_embedding(spec.base), spec.debias, self.config)
                elif spec.source is not None:
                    from gsr.vectors.loading import loaded_embedding

                    kv, key = loaded_embedding(spec.source, allow_pickle=spec.allow_pickle)
                else:
                    from embeddings.training import TrainingSettings, trained_embedding

                    training_done(self, name, wait=True)
                    kv, key = trained_embedding(
                        self.collection.documents, self.collection.key, TrainingSettings(**(spec.train or {}))
                    )
            self._embeddings[name] = LoadedEmbedding(name, kv, key)
        return self._embeddings[name]

    def lexicon(self, name: str):
        """The GenderLexicon (Eq. 1) of a measuring embedding, with the config's definitional pairs (made once)."""

        def build():
            spec = self.config.embeddings[name]
            if spec.source:
                note_debiased_measuring(spec.source)
            pairs = None
            if self.config.definitional:
                from gsr.lexicon import load_word_pairs

                pairs = load_word_pairs(self.config.definitional)
            try:
                return gender_lexicon(self.source_embedding(name).kv, pairs=pairs, name=name)
            except EmbeddingError as err:  # which embedding of the config (no direction, a zero vector)
                raise EmbeddingError(f"embeddings.{name} (gsr.measuring): {err}") from None

        return self.shared(f"lexicon {name}", build)

    def gendered(self, name: str):
        """The collection's per-document sums of g(w) under a measuring embedding
        (gsr.documents.stats.GenderedDocuments), made once and shared by the GSR columns, the analyses and the label
        sources."""
        return self.shared(
            f"gendered {name}", lambda: self.document_stats().gendered(self.lexicon(name), self.analyzer)
        )

    def mention_words(self):
        """§4.2.5's gendered entity words and first names (gsr.text.intrinsic_gender.default_mention_words), loaded
        once: the intrinsic labels, their cache keys and Fig. 12 all read them."""
        from gsr.text.intrinsic_gender import default_mention_words

        return self.shared("mention words", default_mention_words)

    def with_queries(self, queries: dict[str, str], reuse_training: bool = False) -> Experiment:
        """This experiment on other query texts (some of its query ids, same qrels, documents and settings): its
        system runs are cached under their own keys (the queries are part of every key), and it shares this one's
        embeddings, index and document statistics. With `reuse_training`, trained systems train nothing: the models
        this experiment trained score the new texts (a query edit reaches a deployed model, it does not retrain it).
        The adversarial query probe runs every system through it."""
        unknown = sorted(set(queries) - set(self.collection.queries))
        if unknown:
            raise InputError(f"with_queries: query ids {', '.join(unknown[:3])} are not topics of the collection")
        derived = Experiment(self.config)
        derived._collection = replace(self.collection, queries=dict(queries))
        derived._embeddings, derived._unit_embeddings = self._embeddings, self._unit_embeddings
        derived._shared = self._shared
        derived.trained_by = self if reuse_training else None
        return derived

    def upstream(self, system: SystemSpec) -> SystemSpec:
        """The system whose run `system` re-ranks."""
        return next(s for s in self.config.systems if s.name == system.rerank)

    def system_key(self, system: SystemSpec) -> str:
        """The cache key of a system's run: collection, queries, model, parameters, embedding, upstream, version."""
        collection = self.collection
        system_type = SYSTEMS.get(system.model)
        embedding = embedding_key(self, system.embedding) if system.embedding else None
        upstream = self.system_key(self.upstream(system)) if system.rerank else None
        # systems with an embedding read the collection through GSR's analyzer: its stop list and tokens are in the key
        stopwords = (sorted(self.analyzer.stopwords or ()), TOKENS_VERSION) if system_type.needs_embedding else None
        files: list[object] = [file_content_key(Path(system.params[key])) for key in system_type.path_params]
        if system_type.cache_inputs is not None:  # appended only when declared: other systems' keys stay as they were
            files.append(system_type.cache_inputs(self, system))
        plugin = SYSTEMS.plugin_of(system.model)
        if plugin is not None:  # a plugin's code is part of its runs (gsr.infra.plugins); built-ins bump `version`
            files.append(plugin.code_key)
        return content_key(
            collection.key,
            sorted(collection.queries.items()),
            system.model,
            system.params,
            embedding,
            self.config.depth,
            upstream,
            system_type.version,
            stopwords,
            *files,
        )

    def run_file(self, system: SystemSpec) -> Path:
        """The cache file of the system's run (write_ranked_run's: trec_eval's order, the system's output name)."""
        return cache_dir() / "runs" / f"{self.system_key(system)}.run"

    def run_entry(self, system: SystemSpec) -> Path:
        """The cache file of the system's run, computed first where this exact (collection, queries, settings,
        embedding) was never run; verified, not read (system_run reads it, once)."""
        system_type = SYSTEMS.get(system.model)
        key = self.system_key(system)
        if key in self._entries:
            return self._entries[key]

        entry = self.run_file(system)
        seconds = finished_aside(self, system)
        if seconds is not None:  # computed and cached by a forked process (experiments.background)
            self.timings[f"run {system.name}"] = seconds
            self._entries[key] = entry
            return entry

        def retrieve(staging: Path) -> None:
            with self.step(f"run {system.name}"):
                run = system_type.run(self, system)
                # the file's order (trec_eval's) is the one every later step sees, and a run just written is taken
                # as the file holds it (scores written exactly, queries in file order, ranked as read) without
                # reading it back; a system may retrieve nothing at all
                self._runs[key] = write_ranked_run(run, staging, output_name(system.name), named=entry)

        path, reused = cached_file(entry, retrieve)
        if reused:
            self.note_reused(f"run {system.name}")
        self._entries[key] = path
        return path

    def system_run(self, system: SystemSpec) -> Run:
        """The system's run, from the cache when this exact (collection, queries, settings, embedding) was run; read
        once by this experiment, however many re-rankers and analyses ask for it."""
        key = self.system_key(system)
        if key not in self._runs:
            path = self.run_entry(system)
            if key not in self._runs:  # computed by run_entry, it is in memory already
                self._runs[key] = read_trec_run(path, allow_empty=True)
        return self._runs[key]

    def run_digest(self, system: SystemSpec) -> str:
        """The content digest of the system's run file (computed first where need be), which names the run in the
        keys of every part computed from it (experiments.parts): known without reading the run."""
        return recorded_digest(self.run_entry(system))

    # ------------------------------------------------------------ whole experiment
    def run(self) -> ExperimentResult:
        try:
            return self._run()
        finally:
            self.close_shared()

    def _run(self) -> ExperimentResult:
        config = self.config
        self.preflight()
        clean_stale_staging(cache_dir(), recursive=True)
        collection = self.collection
        check_resample_memory(len(collection.queries), config.resamples, "evaluation.resamples")
        judged = collection.judged_queries()
        start_training(self)
        pending = list(config.systems)
        with progress(total=len(pending), desc="runs", unit="system") as bar:
            while pending:  # while embeddings train: first the systems whose embeddings are ready, if any
                ready = [s for s in pending if all(training_done(self, e) for e in config.trained_embeddings_of(s))]
                system = ready[0] if ready else pending[0]
                if not (ready and run_aside(self, system)):  # a long run goes to a free core (experiments.background)
                    self.run_entry(system)
                pending.remove(system)
                bar.update(1)
        # each run is named by its content and read only where a part computed from it is missing (experiments.parts)
        keys = {s.name: self.run_digest(s) for s in config.systems}
        runs = lazy_runs(self, config.systems)
        with self.step("checking the runs' document ids"):
            checked_run_ids(self, runs, keys)
        measures = parse_measures(config.measures)
        runs.add(PERFECT, perfect_run(collection.qrels))
        docids = self.document_stats().docids  # the collection's order, which the random engine draws from
        runs.add(RANDOM, random_run({q: collection.qrels[q] for q in judged}, docids, config.random_seed))
        keys[PERFECT], keys[RANDOM] = (content_key("engine", name, runs[name]) for name in (PERFECT, RANDOM))
        with self.step("effectiveness"):
            effectiveness = effectiveness_of(self, runs, keys, measures, judged)
        reports: dict[str, GSRReport] = {}
        per_system: dict[str, dict] = {}
        genderedness: dict[str, dict] = {}
        systems = {s.name: keys[s.name] for s in config.systems}
        for label, name, cutoff in config.gsr_columns():
            with self.step(f"GSR ({label})"):
                # the perfect and random engines are measured once, for every system's report
                system_reports = gsr_of(self, name, cutoff, runs, systems)
                results = {system: report.system for system, report in system_reports.items()}
                report = system_reports[config.systems[-1].name]
                perfect, random = report.perfect, report.random
                assert perfect is not None and random is not None  # measured with the collection's qrels
                results[PERFECT], results[RANDOM] = perfect, random
                warn_unreliable(label, results)
                reports[label], per_system[label] = report, results
                genderedness.setdefault(name, {q.qid: q.g_query for q in perfect.per_query})
        result = ExperimentResult(
            config,
            collection,
            runs,
            effectiveness,
            reports,
            per_system,
            genderedness,
            judged,
            dict(self.timings),
            list(self.reused),
            run_keys=keys,
            run_files={s.name: self.run_entry(s) for s in config.systems},
        )
        if self.measured is not None:
            self.measured(result, None)
        with self.step("analyses"):
            self.analyses(result)
        return result

    def analyses(self, result: ExperimentResult) -> None:
        """Every analysis the config enables, into result.analyses; one that cannot be computed is reported in
        result.analysis_errors, not fatal."""
        if not result.query_genderedness:
            return
        for name, options in progress(self.config.analyses.items(), desc="analyses", unit="analysis"):
            try:
                value = ANALYSES.get(name).compute(self, result, options)
            except (AnalysisError, PluginError) as err:  # a plugin's failure included: one warning, not fatal
                result.analysis_errors[name] = str(err)
                log.warning("analysis %s skipped: %s", name, err)
                continue
            if value is not None:
                result.analyses[name] = value
                if self.measured is not None:
                    self.measured(result, name)

    def preflight(self, dry_run: bool = False) -> None:
        """Before any long step: a writable cache folder, every system type's checks (e.g. Java) and the definitional
        words of every embedding a gender direction is fitted on (experiments.definitional_words; `dry_run` writes
        nothing to the cache)."""
        from experiments.definitional_words import check_definitional_words

        problem = unwritable(cache_dir())
        if problem:
            raise InputError(f"the cache folder {cache_dir()} (${CACHE_VARIABLE}) {problem}")
        for system in self.config.systems:
            check = SYSTEMS.get(system.model).preflight
            if check is not None:
                check(self, system)
        check_definitional_words(self, dry_run)
