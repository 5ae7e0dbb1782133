"""`gsr run`: config → collection → embeddings → runs → measures → report, every expensive step cached.

Cache entries are named by the content they were computed from (collection SHA-256, embedding version, system
settings), written atomically, and reused on the next run; an interrupted run resumes at the first missing entry.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from experiments.collections import Collection, collection_docids, load_collection
from experiments.config import LEXICAL_MODELS, NEURAL_MODELS, VECTOR_MODELS, ExperimentConfig, SystemSpec
from experiments.effectiveness import Effectiveness, check_run_ids, evaluate_run, parse_measures
from gsr.baselines import perfect_run, random_run
from gsr.evaluate import GSR, GSRReport, cached_document_stats
from gsr.io import Run, read_trec_run, write_trec_run
from embeddings.direction import gender_lexicon
from gsr.store import cache_dir, file_version_key
from gsr.text import Analyzer, read_stopwords

PERFECT, RANDOM = "perfect", "random"


def _log(message: str) -> None:
    print(f"[gsr run {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _hash(*parts) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


@dataclass
class LoadedEmbedding:
    name: str
    kv: object
    key: str  # version key: changes whenever the vectors could


@dataclass
class ExperimentResult:
    """Everything the report needs: runs, effectiveness per system, GSR per system and measuring embedding."""

    config: ExperimentConfig
    collection: Collection
    runs: dict[str, Run]
    effectiveness: dict[str, Effectiveness]
    gsr: dict[str, GSRReport]  # measuring embedding name -> report holding every system (see system_gsr)
    system_gsr: dict[str, dict[str, object]]  # measuring name -> system name -> GSRResult (perfect/random included)
    query_genderedness: dict[str, dict[str, float | None]] = field(default_factory=dict)
    evaluated_queries: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    reused: list[str] = field(default_factory=list)
    analyses: dict = field(default_factory=dict)  # see Experiment.analyses


class Experiment:
    """One config's experiment; `run()` executes it, reusing every cache entry that already exists."""

    def __init__(self, config: ExperimentConfig, progress: bool = True):
        self.config = config
        self.progress = progress
        self.reused: list[str] = []
        self.timings: dict[str, float] = {}
        self._embeddings: dict[str, LoadedEmbedding] = {}
        self._stats = None
        self._analyzer = Analyzer(read_stopwords(config.stopwords)) if config.stopwords else Analyzer()
        self.collection: Collection | None = None

    # ------------------------------------------------------------ steps
    @contextmanager
    def _step(self, name: str):
        """Times a step into self.timings and reports it on stderr."""
        if self.progress:
            _log(f"{name} …")
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = time.perf_counter() - start
        if self.progress:
            _log(f"{name}: {self.timings[name]:.1f} s")

    def load_collection(self) -> Collection:
        if self.collection is None:
            with self._step("collection"):
                self.collection = load_collection(self.config.collection, self.progress)
            for note in self.collection.notes:
                _log(f"note: {note}")
        return self.collection

    def document_stats(self):
        if self._stats is None:
            collection = self.load_collection()
            with self._step("document statistics"):
                self._stats = cached_document_stats(collection.documents, self._analyzer, n_jobs=self.config.threads,
                                                    progress=self.progress)
        return self._stats

    def embedding(self, name: str) -> LoadedEmbedding:
        if name not in self._embeddings:
            spec = self.config.embeddings[name]
            with self._step(f"embedding {name}"):
                if spec.base is not None:
                    kv, key = self._debiased(spec)
                elif spec.source is not None:
                    from embeddings.loading import BUILTIN_EMBEDDINGS, load_embedding

                    kv = load_embedding(spec.source)
                    key = spec.source if spec.source in BUILTIN_EMBEDDINGS else file_version_key(Path(spec.source))
                else:
                    from embeddings.training import TrainingSettings, trained_embedding

                    collection = self.load_collection()
                    settings = TrainingSettings(**spec.train)
                    kv, key = trained_embedding(collection.documents, collection.key, settings, self.progress)
            self._embeddings[name] = LoadedEmbedding(name, kv, key)
        return self._embeddings[name]

    def _debiased(self, spec) -> tuple[object, str]:
        """A debiased copy of another named embedding, computed once and cached (memory-mapped) like any other."""
        from debias import METHODS
        from embeddings.loading import cached_embedding

        base = self.embedding(spec.base)
        lists = dict(self.config.debias_lists)
        if self.config.definitional and "definitional" not in lists:
            lists["definitional"] = self.config.definitional
        options = {"definitional_pairs": lists.get("definitional")}
        if spec.debias == "regular":
            options.update(gender_specific=lists.get("gender_specific"), equalize_pairs=lists.get("equalize"))
        key = "debiased-" + _hash(base.key, spec.debias, {k: file_version_key(Path(v)) for k, v in lists.items()})
        return cached_embedding(key, lambda: METHODS[spec.debias](**options).fit_transform(base.kv)), key

    def lucene_index(self) -> Path:
        from retrievers.lucene import build_index

        collection = self.load_collection()
        index = cache_dir() / "indexes" / collection.key
        if index.exists():  # build_index renames a finished index into place, so existing means complete
            self.reused.append(f"index {index}")
            return index
        with self._step("Lucene index"):
            build_index(collection.documents, index, threads=self.config.threads, progress=self.progress)
        return index

    def system_key(self, system: SystemSpec) -> str:
        collection = self.load_collection()
        embedding_key = self.embedding(system.embedding).key if system.embedding else None
        upstream = None
        if system.model in NEURAL_MODELS:
            upstream = self.system_key(self._rerank_source(system))
        return _hash(collection.key, sorted(collection.queries.items()), system.model, system.params, embedding_key,
                     self.config.depth, upstream, 1)

    def _rerank_source(self, system: SystemSpec) -> SystemSpec:
        name = system.params.get("rerank")
        systems = {s.name: s for s in self.config.systems}
        if name is None:
            name = next((s.name for s in self.config.systems if s.model == "bm25"), None)
            if name is None:
                from experiments.config import ConfigError

                raise ConfigError(f"{system.name}: a neural re-ranker needs a BM25 system or 'rerank = NAME'")
        return systems[name]

    def system_run(self, system: SystemSpec) -> Run:
        """The system's run, from the cache when this exact (collection, queries, settings, embedding) was run."""

        path = cache_dir() / "runs" / f"{self.system_key(system)}.run"
        if path.exists():
            self.reused.append(f"run {system.name}")
            if self.progress:
                _log(f"run {system.name}: reused {path}")
            return read_trec_run(path)
        with self._step(f"run {system.name}"):
            run = self._retrieve(system)
            write_trec_run(run, path, tag=system.name.replace(" ", "_"))
        return read_trec_run(path)  # the file's order (trec_eval's) is the one every later step sees

    def _retrieve(self, system: SystemSpec) -> Run:
        collection = self.load_collection()
        queries = collection.queries
        if system.model in LEXICAL_MODELS:
            from retrievers.lucene import search

            return search(self.lucene_index(), queries, system.model, k=self.config.depth,
                          threads=self.config.threads, params=system.params, progress=self.progress)
        if system.model in VECTOR_MODELS:
            from retrievers.embedding import VectorRetriever

            embedding = self.embedding(system.embedding)
            stats = self.document_stats()
            retriever = VectorRetriever(embedding.kv, stats, system.model, self._analyzer,
                                        cache_key=_hash(collection.key, embedding.key, sorted(self._analyzer.stopwords)),
                                        progress=self.progress)
            return retriever.search(queries, k=self.config.depth)
        return self._neural_run(system)

    def _neural_run(self, system: SystemSpec) -> Run:
        from retrievers.neural import rerank_cross_validated

        collection = self.load_collection()
        candidates = self.system_run(self._rerank_source(system))
        depth = int(system.params.get("depth", 100))
        needed = {d for ranked in candidates.values() for d, _ in ranked[:depth]}
        texts = document_texts(collection.documents, needed)
        # Only judged topics with candidates can be trained on and evaluated; the others keep the candidates' order.
        trainable = {q for q in collection.judged_queries() if candidates.get(q)}
        folds = collection.folds
        if folds is not None:
            folds = [[q for q in fold if q in trainable] for fold in folds]
        reranked = rerank_cross_validated(
            system.model, {q: collection.queries[q] for q in sorted(trainable)}, texts,
            {q: candidates[q] for q in sorted(trainable)}, collection.qrels, self.embedding(system.embedding).kv,
            folds=folds, depth=depth, epochs=int(system.params.get("epochs", 10)),
            seed=int(system.params.get("seed", 0)), threads=1,  # tiny models: a second thread only adds contention
            checkpoint_dir=cache_dir() / "checkpoints" / self.system_key(system), progress=self.progress)
        return {q: reranked.get(q, ranked) for q, ranked in candidates.items()}

    # ------------------------------------------------------------ whole experiment
    def run(self) -> ExperimentResult:
        config = self.config
        collection = self.load_collection()
        self._check_before_work()
        judged = collection.judged_queries()
        runs = {s.name: self.system_run(s) for s in config.systems}
        docids = collection_docids(collection.documents)
        for name, run in runs.items():
            check_run_ids(run, docids, name)
        measures = parse_measures(config.measures)
        stats = self.document_stats()
        runs[PERFECT] = perfect_run(collection.qrels)
        runs[RANDOM] = random_run({q: collection.qrels[q] for q in judged}, stats.docids, config.random_seed)
        with self._step("effectiveness"):
            effectiveness = {name: evaluate_run(run, collection.qrels, measures, judged) for name, run in runs.items()}
        reports, per_system, genderedness = {}, {}, {}
        for name in config.measuring:
            embedding = self.embedding(name)
            with self._step(f"GSR ({name})"):
                pairs = None
                if config.definitional:
                    from embeddings.direction import load_word_pairs

                    pairs = load_word_pairs(config.definitional)
                lexicon = gender_lexicon(embedding.kv, pairs=pairs, name=name)
                measure = GSR(lexicon, self._analyzer, cutoff=config.cutoff, random_seed=config.random_seed)
                gendered = stats.gendered(lexicon, self._analyzer)
                results = {}
                report = None
                for system in config.systems:
                    report = measure.evaluate(runs[system.name], collection.queries, gendered, collection.qrels)
                    results[system.name] = report.system
                results[PERFECT], results[RANDOM] = report.perfect, report.random
                reports[name], per_system[name] = report, results
                genderedness[name] = {q.qid: q.g_query for q in report.perfect.per_query}
        result = ExperimentResult(config, collection, runs, effectiveness, reports, per_system, genderedness, judged,
                                  dict(self.timings), list(self.reused))
        with self._step("analyses"):
            result.analyses = self.analyses(result)
        return result

    def analyses(self, result: ExperimentResult) -> dict:
        """Every analysis the config switches on; one that cannot be computed is reported, not fatal."""
        from experiments.analyses import AnalysisError

        out = {}
        for name, compute in (("rank_change", self._rank_change), ("reliability", self._reliability),
                              ("intrinsic_gender", self._intrinsic_gender)):
            if not self.config.analyses.get(name) or not result.query_genderedness:
                continue
            try:
                value = compute(result)
            except AnalysisError as err:
                value = {"error": str(err)}
                _log(f"analysis {name} skipped: {err}")
            if value is not None:
                out[name] = value
        return out

    def _g_query(self, result: ExperimentResult) -> dict:
        return result.query_genderedness[self.config.measuring[0]]  # g(q) of the first measuring embedding

    def _rank_change(self, result: ExperimentResult):
        """Fig. 10 (§4.2.3): Kendall τ distance between each system's top lists before and after debiasing."""
        from experiments.analyses import rank_change_by_genderedness

        if not self.config.debias_variants:
            return None
        depth = int(self.config.analyses.get("rank_depth", 100))
        return {spec.name: rank_change_by_genderedness(result.runs[spec.base_system], result.runs[spec.name],
                                                       self._g_query(result), depth=depth)
                for spec in self.config.systems if spec.base_system}

    def _reliability(self, result: ExperimentResult):
        """Fig. 11 (§4.2.4): g(q) and the systems' GSR ranking under the first two measuring embeddings."""
        from experiments.analyses import query_genderedness_agreement, system_ranking_agreement

        if len(self.config.measuring) < 2:
            return None
        a, b = self.config.measuring[:2]
        systems = [s.name for s in self.config.systems]
        return {"query_genderedness": query_genderedness_agreement(
                    result.query_genderedness[a], result.query_genderedness[b], names=(a, b)),
                "system_ranking": system_ranking_agreement(
                    {s: result.system_gsr[a][s].gsr for s in systems},
                    {s: result.system_gsr[b][s].gsr for s in systems}, names=(a, b))}

    def _intrinsic_gender(self, result: ExperimentResult):
        """Fig. 12 (§4.2.5): Δgap of each system's top-K against the perfect engine's, shares per g(q) bin."""
        from experiments.analyses import PAPER_GAP_BIN_EDGES, delta_gap, favoured_share_by_bin, gendered_mention_words
        from gsr.baselines import relevant_counts

        judged = set(result.evaluated_queries)
        cutoff = {q: k for q, k in relevant_counts(result.collection.qrels).items() if q in judged}
        systems = [s.name for s in self.config.systems] + [RANDOM]
        wanted = {d for name in systems + [PERFECT] for q, ranked in result.runs[name].items() if q in cutoff
                  for d, _ in ranked[:cutoff[q]]}
        texts = document_texts(result.collection.documents, wanted)
        female, male = gendered_mention_words()
        deltas = {name: delta_gap(result.runs[name], result.runs[PERFECT], texts, cutoff, female=female, male=male)
                  for name in systems}
        bins = self.config.analyses.get("gap_bins", PAPER_GAP_BIN_EDGES)
        return {"delta_gap": deltas,
                "shares": {n: favoured_share_by_bin(d, self._g_query(result), bins=bins) for n, d in deltas.items()}}

    def _check_before_work(self) -> None:
        """Fail before any long step when a needed tool is missing (Java for the lexical systems)."""
        if any(s.model in LEXICAL_MODELS for s in self.config.systems):
            from retrievers.lucene import java_home

            java_home()


def document_texts(documents: Path, wanted: set[str]) -> dict[str, str]:
    """Texts of the `wanted` documents, read in one pass over the canonical JSONL file."""
    texts = {}
    with open(documents, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record["id"] in wanted:
                texts[record["id"]] = record["contents"]
    return texts


def run_experiment(config: ExperimentConfig, progress: bool = True) -> ExperimentResult:
    """Execute a config (see Experiment)."""
    return Experiment(config, progress).run()
