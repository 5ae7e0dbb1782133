"""The synthetic collections: toy 1 (§3.4, direct stereotype), toy 2 (§4.1, indirect) and Fig. 5's enumeration."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gsr.documents.stats import DocumentStats
from gsr.equations import query_genderedness
from gsr.errors import ParamError, UndefinedMeasureError
from gsr.evaluate import GSRResult, measure_run
from gsr.io.types import Run
from gsr.text.analyzer import Analyzer, default_analyzer
from gsr.validation.stereotypes import AGENCY, COMMUNION, JOBS_FEMALE, JOBS_MALE

# §3.4's query list (it names 'hairdresser' where Table A.7 has 'hairstylist'; the toys follow §3.4).
TOY_JOBS_FEMALE = tuple("hairdresser" if job == "hairstylist" else job for job in JOBS_FEMALE)
TOY_JOBS_MALE = JOBS_MALE
ENGINES = ("S", "N", "CS")


@dataclass
class ToyCollection:
    """Queries (one job each), documents, the S / N / CS engines and which documents are stereotypical."""

    name: str
    queries: dict[str, str]
    documents: dict[str, str]
    engines: dict[str, Run]
    stereotypical: dict[str, set[str]]
    counter: dict[str, set[str]]
    missing: list[str] = field(default_factory=list)

    def qrels(self, engine: str) -> dict[str, dict[str, int]]:
        """An engine's lists as qrels (every retrieved document relevant), as the original toys were stored."""
        return {q: {d: 1 for d, _ in docs} for q, docs in self.engines[engine].items()}


def _tied(docids) -> list[tuple[str, float]]:
    return [(d, 1.0) for d in sorted(docids)]


def _engines(stereo: dict[str, set[str]], counter: dict[str, set[str]]) -> dict[str, Run]:
    return {
        "S": {q: _tied(stereo[q]) for q in stereo},
        "N": {q: _tied(stereo[q] | counter[q]) for q in stereo},
        "CS": {q: _tied(counter[q]) for q in stereo},
    }


def _known(words, lexicon, missing: list[str]) -> list[str]:
    if lexicon is None:
        return list(words)
    kept = [w for w in words if w in lexicon]
    missing.extend(w for w in words if w not in lexicon)
    return kept


def toy1(lexicon=None) -> ToyCollection:
    """§3.4: 'The <person> is a <job>' for person in {man, woman}; S returns the census-stereotypical person."""
    missing: list[str] = []
    female_jobs = _known(TOY_JOBS_FEMALE, lexicon, missing)
    male_jobs = _known(TOY_JOBS_MALE, lexicon, missing)
    documents, stereo, counter = {}, {}, {}
    for job in male_jobs + female_jobs:
        article = "an" if job[0] in "aeiou" else "a"
        for person in ("man", "woman"):
            documents[f"{person}_{job}"] = f"The {person} is {article} {job}."
        typical = "woman" if job in female_jobs else "man"
        other = "man" if typical == "woman" else "woman"
        stereo[job], counter[job] = {f"{typical}_{job}"}, {f"{other}_{job}"}
    queries = {job: job for job in male_jobs + female_jobs}
    return ToyCollection("toy1", queries, documents, _engines(stereo, counter), stereo, counter, missing)


def toy2(lexicon=None) -> ToyCollection:
    """§4.1: 'The <job> is <adjective>' with Table A.4's adjectives; S pairs female jobs with communion."""
    missing: list[str] = []
    female_jobs = _known(TOY_JOBS_FEMALE, lexicon, missing)
    male_jobs = _known(TOY_JOBS_MALE, lexicon, missing)
    agency = _known(AGENCY, lexicon, missing)
    communion = _known(COMMUNION, lexicon, missing)
    documents, stereo, counter = {}, {}, {}
    for job in male_jobs + female_jobs:
        for adjective in agency + communion:
            documents[f"{job}_{adjective}"] = f"The {job} is {adjective}."
        typical, other = (communion, agency) if job in female_jobs else (agency, communion)
        stereo[job] = {f"{job}_{a}" for a in typical}
        counter[job] = {f"{job}_{a}" for a in other}
    queries = {job: job for job in male_jobs + female_jobs}
    return ToyCollection("toy2", queries, documents, _engines(stereo, counter), stereo, counter, missing)


def toy_slopes(toy: ToyCollection, lexicon, analyzer: Analyzer | None = None) -> dict[str, GSRResult]:
    """GSR of the S, N and CS engines on a toy collection (Figs. 4 and 6)."""
    gendered = _gendered(toy, lexicon, analyzer)
    return {name: measure_run(toy.engines[name], toy.queries, gendered) for name in ENGINES}


def _gendered(toy: ToyCollection, lexicon, analyzer: Analyzer | None):
    analyzer = analyzer or default_analyzer()
    return DocumentStats.build(toy.documents.items(), analyzer, n_jobs=1).gendered(lexicon, analyzer)


# What makes a retrieved document stereotypical in Fig. 5: its genderedness has the polarity of g(q) (§3.5, the
# paper's definition, the default), or it matches the job's census majority (Table A.7), as engine S returns.
STEREOTYPE_DEFINITIONS = ("polarity", "census")


@dataclass
class ParityAgreement:
    """Fig. 5: GSR against the share of stereotypical documents over every reasonable solution."""

    pearson_r: float
    n_solutions: int
    sample_gsr: np.ndarray
    sample_share: np.ndarray
    stereotype: str = "polarity"
    disagreeing: tuple[str, ...] = ()  # queries whose census-stereotypical document is not of g(q)'s polarity


def same_polarity(g_query: float, g_documents: np.ndarray) -> np.ndarray:
    """§3.5: a document is stereotypical for a query when g_q(d) has the same (non-zero) sign as g(q)."""
    return np.sign(np.asarray(g_documents, dtype=np.float64)) * np.sign(g_query) > 0


def parity_agreement(
    toy: ToyCollection,
    lexicon,
    analyzer: Analyzer | None = None,
    sample: int = 3000,
    seed: int = 0,
    stereotype: str = "polarity",
) -> ParityAgreement:
    """§3.5 / Fig. 5: Pearson r between GSR and the stereotypical share, over all 3^N reasonable solutions.

    A reasonable solution returns, for each query, its census-stereotypical document, its census-counter-
    stereotypical one, or both (tied). Of the retrieved documents, the stereotypical ones are those whose g_q(d)
    has the polarity of g(q) (stereotype='polarity', §3.5's definition) or, with stereotype='census', the census
    majority's. GSR is linear in the g_q(L), m = Σ_i c_i y_i with c_i = (x_i − μ)/(N σ²), and the share depends
    only on the counts, so a dynamic programme over (stereotypical, retrieved) counts gives the exact moments of
    all 3^N solutions; a seeded sample of solutions is kept for the plot.
    """
    if stereotype not in STEREOTYPE_DEFINITIONS:
        raise ParamError(f"stereotype must be one of {', '.join(STEREOTYPE_DEFINITIONS)}, not {stereotype!r}")
    gendered = _gendered(toy, lexicon, analyzer)
    analyzer = gendered.analyzer
    index = gendered.stats.doc_index
    options = []  # per query: [(stereotypical docs, retrieved docs, g_q(L))] for census S only, CS only, both
    x = []
    disagreeing = []
    for qid in sorted(toy.queries):
        terms = analyzer.tokens(toy.queries[qid])
        g_query = query_genderedness(terms, lexicon)
        if math.isnan(g_query):
            continue
        stereo, counter = sorted(toy.stereotypical[qid]), sorted(toy.counter[qid])
        g_s = gendered.query_document_genderedness(terms, np.array([index[d] for d in stereo]))
        g_c = gendered.query_document_genderedness(terms, np.array([index[d] for d in counter]))
        both = np.concatenate([g_s, g_c])
        if not same_polarity(g_query, g_s).all():
            disagreeing.append(qid)
        if stereotype == "polarity":
            n_s, n_c = int(same_polarity(g_query, g_s).sum()), int(same_polarity(g_query, g_c).sum())
        else:
            n_s, n_c = len(stereo), 0
        options.append(
            [
                (n_s, len(stereo), float(np.nanmean(g_s))),
                (n_c, len(counter), float(np.nanmean(g_c))),
                (n_s + n_c, len(stereo) + len(counter), float(np.nanmean(both))),
            ]
        )
        x.append(g_query)
    xs = np.array(x)
    n = len(xs)
    if n < 2:
        raise UndefinedMeasureError(f"{toy.name}: fewer than two queries with genderedness")
    c = (xs - xs.mean()) / (n * xs.var())
    max_s = sum(max(o[0] for o in opts) for opts in options)
    max_n = sum(max(o[1] for o in opts) for opts in options)
    count = np.zeros((max_s + 1, max_n + 1))
    sum_m = np.zeros_like(count)
    sum_m2 = np.zeros_like(count)
    count[0, 0] = 1.0
    for ci, opts in zip(c, options):
        new = [np.zeros_like(count) for _ in range(3)]
        for ds, dn, y in opts:
            term = ci * y
            shifted = [_shift(a, ds, dn) for a in (count, sum_m, sum_m2)]
            new[0] += shifted[0]
            new[1] += shifted[1] + term * shifted[0]
            new[2] += shifted[2] + 2 * term * shifted[1] + term * term * shifted[0]
        count, sum_m, sum_m2 = new
    s_grid, n_grid = np.meshgrid(np.arange(max_s + 1), np.arange(max_n + 1), indexing="ij")
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n_grid > 0, s_grid / np.maximum(n_grid, 1), 0.0)
    total = count.sum()
    e_m, e_m2 = sum_m.sum() / total, sum_m2.sum() / total
    e_s, e_s2 = (count * share).sum() / total, (count * share**2).sum() / total
    e_ms = (sum_m * share).sum() / total
    r = (e_ms - e_m * e_s) / math.sqrt((e_m2 - e_m**2) * (e_s2 - e_s**2))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, 3, size=(sample, n))
    ys = np.array([[options[i][k][2] for i, k in enumerate(row)] for row in picks])
    stereo_docs = np.array([[options[i][k][0] for i, k in enumerate(row)] for row in picks]).sum(axis=1)
    retrieved = np.array([[options[i][k][1] for i, k in enumerate(row)] for row in picks]).sum(axis=1)
    return ParityAgreement(float(r), 3**n, ys @ c, stereo_docs / retrieved, stereotype, tuple(disagreeing))


def _shift(counts: np.ndarray, ds: int, dn: int) -> np.ndarray:
    """The table moved by (ds, dn) cells, zero-filled; reachable states never fall off the end."""
    out = np.zeros_like(counts)
    rows, cols = counts.shape
    out[ds:, dn:] = counts[: rows - ds, : cols - dn]
    return out
