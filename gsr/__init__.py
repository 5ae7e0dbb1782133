"""Gender Stereotype Reinforcement (Fabris et al.): the measure, its baselines and its validation.

The equations live in gsr.equations (Eq. 2 and 3) and gsr.lexicon (Eq. 1), one function each; `GSR` (gsr.evaluate)
measures whole runs. Sub-packages: io (runs, qrels, topics), documents (where documents come from), text (tokens,
stop lists, intrinsic gender), fairness (label-based bias measures), integrations (ir_measures, PyTerrier),
validation (Fig. 1, toys) and infra (cache store, parameters, logging).

Importing gsr is cheap: the names below are loaded on first use, so `import gsr` pulls in neither numpy nor scipy.
"""

from __future__ import annotations

from gsr.errors import ConfigError, GSRError, InputError, ParamError, UndefinedMeasureError
from gsr.infra.lazy import lazy_names

# the single source of the version: pyproject.toml reads this literal ([tool.setuptools.dynamic]), CITATION.cff and
# CHANGELOG.md repeat it (tests/test_release.py checks they agree)
__version__ = "0.2.2"

_LAZY = {
    "cut_run": "gsr.baselines",
    "perfect_run": "gsr.baselines",
    "random_run": "gsr.baselines",
    "relevant_counts": "gsr.baselines",
    "DocumentSource": "gsr.documents.base",
    "open_documents": "gsr.documents.opening",
    "register_document_source": "gsr.documents.opening",
    "iter_documents": "gsr.documents.opening",
    "DocumentStats": "gsr.documents.stats",
    "GenderedDocuments": "gsr.documents.stats",
    "GSR": "gsr.evaluate",
    "GSRReport": "gsr.reports",
    "GSRResult": "gsr.reports",
    "QueryResult": "gsr.reports",
    "measure_run": "gsr.evaluate",
    "gsr_difference_test": "gsr.reports",
    "as_qrels": "gsr.io.convert",
    "as_queries": "gsr.io.convert",
    "as_run": "gsr.io.convert",
    "read_qrels": "gsr.io.qrels",
    "read_trec_run": "gsr.io.runs",
    "write_trec_run": "gsr.io.runs",
    "read_queries": "gsr.io.topics",
    "read_trec_topics": "gsr.io.topics",
    "GenderLexicon": "gsr.lexicon",
    "GenderDirection": "gsr.lexicon",
    "fit_gender_direction": "gsr.lexicon",
    "word_genderedness": "gsr.lexicon",
    "DEFAULT_DEFINITIONAL_PAIRS": "gsr.lexicon",
    "document_genderedness": "gsr.equations",
    "gsr_slope": "gsr.equations",
    "list_genderedness": "gsr.equations",
    "query_genderedness": "gsr.equations",
    "rank_discounts": "gsr.equations",
    "relative_gsr": "gsr.equations",
    "tied_rank_weights": "gsr.equations",
    "RankedRows": "gsr.ranked",
    "GENDERED_KEEP_WORDS": "gsr.text.analyzer",
    "Analyzer": "gsr.text.analyzer",
    "default_analyzer": "gsr.text.analyzer",
    "read_stopwords": "gsr.text.analyzer",
    "stopwords_of": "gsr.text.analyzer",
    "mean_genderedness": "gsr.equations",
    "gsr_slope_terms": "gsr.equations",
    "slope_noise_floor": "gsr.equations",
    "load_word_pairs": "gsr.lexicon",
    "vocabulary_key": "gsr.lexicon",
    "read_jsonl_queries": "gsr.io.topics",
    "read_tsv_queries": "gsr.io.topics",
    "is_msmarco_gender": "gsr.io.msmarco_gender",
    "msmarco_gender_labels": "gsr.io.msmarco_gender",
    "msmarco_gender_queries": "gsr.io.msmarco_gender",
    "read_annotated_queries": "gsr.io.msmarco_gender",
    "read_gender_wordlist": "gsr.io.msmarco_gender",
    "topic_set_labels": "gsr.io.msmarco_gender",
    "Interval": "gsr.uncertainty",
    "bootstrap_fit": "gsr.uncertainty",
    "paired_gsr_test": "gsr.uncertainty",
    "percentile_interval": "gsr.uncertainty",
    "add_uncertainty": "gsr.reports",
    "relative_to_perfect": "gsr.reports",
    "BiasMeasures": "gsr.fairness.evaluate",
    "BiasReport": "gsr.fairness.evaluate",
    "BiasSettings": "gsr.fairness.evaluate",
    "DocumentLabels": "gsr.fairness.labels",
    "LabelSourceError": "gsr.fairness.labels",
    "gendered_word_counts": "gsr.fairness.labels",
    "genderedness_labels": "gsr.fairness.labels",
    "intrinsic_labels": "gsr.fairness.labels",
    "read_labels_file": "gsr.fairness.labels",
    "BiasError": "gsr.fairness.label_measures",
    "average_rank_bias": "gsr.fairness.label_measures",
    "bias_aggregates": "gsr.fairness.label_measures",
    "feng_shah_bias": "gsr.fairness.label_measures",
    "kl_divergence": "gsr.fairness.label_measures",
    "ndkl": "gsr.fairness.label_measures",
    "rank_bias": "gsr.fairness.label_measures",
    "representation_bias": "gsr.fairness.label_measures",
    "top_k_kl": "gsr.fairness.label_measures",
    "BiasIRMeasures": "gsr.integrations.bias_measures",
    "GSRMeasures": "gsr.integrations.gsr_measures",
    "ir_measures_measures": "gsr.integrations.gsr_measures",
    "is_gsr_measure": "gsr.integrations.gsr_measures",
    "parse_measure_name": "gsr.integrations.gsr_measures",
    "EmbeddingError": "gsr.errors",
    "StorageError": "gsr.errors",
    "plan": "gsr.planning.planner",
}

__all__ = [
    "ConfigError",
    "GSRError",
    "InputError",
    "ParamError",
    "UndefinedMeasureError",
    "__version__",
    *sorted(_LAZY),
]


__getattr__, __dir__ = lazy_names(__name__, _LAZY)
