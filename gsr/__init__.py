"""Gender Stereotype Reinforcement (Fabris et al.): the measure, its baselines and its validation.

The equations live in gsr.equations (Eq. 2 and 3) and gsr.lexicon (Eq. 1), one function each; `GSR` (gsr.evaluate)
measures whole runs into gsr.results. Sub-packages: vectors (embedding files), io (runs, qrels, topics), documents
(where documents come from), text (tokens, stop lists, intrinsic gender), effectiveness (ir_measures measures, paired
tests, corrections), fairness (label-based bias measures), integrations (ir_measures, PyTerrier), validation (Fig. 1,
toys), cli (`gsr score`) and infra (cache store, parameters, logging). gsr imports none of the harness's packages.

Importing gsr is cheap: the names below are loaded on first use, so `import gsr` pulls in neither numpy nor scipy;
type checkers see them through the `TYPE_CHECKING` imports, which never run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gsr.errors import ConfigError, GSRError, InputError, ParamError, UndefinedMeasureError
from gsr.infra.lazy import lazy_names

# the lazy names as type checkers and IDEs see them: each from its module in _LAZY (tests/test_api_reference.py)
if TYPE_CHECKING:
    from gsr.baselines import cut_run as cut_run
    from gsr.baselines import perfect_run as perfect_run
    from gsr.baselines import random_run as random_run
    from gsr.baselines import relevant_counts as relevant_counts
    from gsr.documents.base import DocumentSource as DocumentSource
    from gsr.documents.opening import iter_documents as iter_documents
    from gsr.documents.opening import open_documents as open_documents
    from gsr.documents.opening import register_document_source as register_document_source
    from gsr.documents.stats import DocumentStats as DocumentStats
    from gsr.documents.stats import GenderedDocuments as GenderedDocuments
    from gsr.equations import document_genderedness as document_genderedness
    from gsr.equations import gsr_slope as gsr_slope
    from gsr.equations import gsr_slope_terms as gsr_slope_terms
    from gsr.equations import list_genderedness as list_genderedness
    from gsr.equations import mean_genderedness as mean_genderedness
    from gsr.equations import query_genderedness as query_genderedness
    from gsr.equations import rank_discounts as rank_discounts
    from gsr.equations import relative_gsr as relative_gsr
    from gsr.equations import slope_noise_floor as slope_noise_floor
    from gsr.equations import tied_rank_weights as tied_rank_weights
    from gsr.errors import EmbeddingError as EmbeddingError
    from gsr.errors import StorageError as StorageError
    from gsr.evaluate import GSR as GSR
    from gsr.evaluate import measure_run as measure_run
    from gsr.fairness.agreement import AgreementMeasure as AgreementMeasure
    from gsr.fairness.agreement import AgreementReport as AgreementReport
    from gsr.fairness.agreement import bias_direction as bias_direction
    from gsr.fairness.agreement import kendall_tau as kendall_tau
    from gsr.fairness.agreement import measure_agreement as measure_agreement
    from gsr.fairness.equations import BiasError as BiasError
    from gsr.fairness.equations import average_rank_bias as average_rank_bias
    from gsr.fairness.equations import bias_aggregates as bias_aggregates
    from gsr.fairness.equations import feng_shah_bias as feng_shah_bias
    from gsr.fairness.equations import kl_divergence as kl_divergence
    from gsr.fairness.equations import ndkl as ndkl
    from gsr.fairness.equations import rank_bias as rank_bias
    from gsr.fairness.equations import representation_bias as representation_bias
    from gsr.fairness.equations import top_k_kl as top_k_kl
    from gsr.fairness.evaluate import BiasMeasures as BiasMeasures
    from gsr.fairness.evaluate import BiasReport as BiasReport
    from gsr.fairness.evaluate import BiasSettings as BiasSettings
    from gsr.fairness.fairr import FaiRRError as FaiRRError
    from gsr.fairness.fairr import document_neutrality as document_neutrality
    from gsr.fairness.fairr import fairr as fairr
    from gsr.fairness.fairr import ideal_fairr as ideal_fairr
    from gsr.fairness.fairr import nfairr as nfairr
    from gsr.fairness.fairr import position_weights as position_weights
    from gsr.fairness.fairr import ranker_agnostic_fairr as ranker_agnostic_fairr
    from gsr.fairness.fairr_runs import FaiRRMeasures as FaiRRMeasures
    from gsr.fairness.fairr_runs import FaiRRResult as FaiRRResult
    from gsr.fairness.fairr_runs import FaiRRSettings as FaiRRSettings
    from gsr.fairness.labels import DocumentLabels as DocumentLabels
    from gsr.fairness.labels import LabelSourceError as LabelSourceError
    from gsr.fairness.labels import gendered_word_counts as gendered_word_counts
    from gsr.fairness.labels import genderedness_labels as genderedness_labels
    from gsr.fairness.labels import intrinsic_labels as intrinsic_labels
    from gsr.fairness.labels import read_labels_file as read_labels_file
    from gsr.fairness.neutrality import GroupWords as GroupWords
    from gsr.fairness.neutrality import group_words as group_words
    from gsr.fairness.neutrality import read_group_words as read_group_words
    from gsr.integrations.ir_measures_bias import BiasIRMeasures as BiasIRMeasures
    from gsr.integrations.ir_measures_gsr import GSRMeasures as GSRMeasures
    from gsr.integrations.ir_measures_gsr import ir_measures_measures as ir_measures_measures
    from gsr.integrations.ir_measures_gsr import is_gsr_measure as is_gsr_measure
    from gsr.integrations.ir_measures_gsr import parse_measure_name as parse_measure_name
    from gsr.io.convert import as_qrels as as_qrels
    from gsr.io.convert import as_queries as as_queries
    from gsr.io.convert import as_run as as_run
    from gsr.io.fairness_sensitive import fairness_sensitive_annotations as fairness_sensitive_annotations
    from gsr.io.fairness_sensitive import fairness_sensitive_queries as fairness_sensitive_queries
    from gsr.io.fairness_sensitive import is_fairness_sensitive as is_fairness_sensitive
    from gsr.io.msmarco_gender import is_msmarco_gender as is_msmarco_gender
    from gsr.io.msmarco_gender import msmarco_gender_labels as msmarco_gender_labels
    from gsr.io.msmarco_gender import msmarco_gender_queries as msmarco_gender_queries
    from gsr.io.msmarco_gender import read_annotated_queries as read_annotated_queries
    from gsr.io.msmarco_gender import read_gender_wordlist as read_gender_wordlist
    from gsr.io.msmarco_gender import topic_set_labels as topic_set_labels
    from gsr.io.qrels import read_qrels as read_qrels
    from gsr.io.runs import read_trec_run as read_trec_run
    from gsr.io.runs import write_trec_run as write_trec_run
    from gsr.io.topics import read_jsonl_queries as read_jsonl_queries
    from gsr.io.topics import read_queries as read_queries
    from gsr.io.topics import read_trec_topics as read_trec_topics
    from gsr.io.topics import read_tsv_queries as read_tsv_queries
    from gsr.lexicon import DEFAULT_DEFINITIONAL_PAIRS as DEFAULT_DEFINITIONAL_PAIRS
    from gsr.lexicon import GenderDirection as GenderDirection
    from gsr.lexicon import GenderLexicon as GenderLexicon
    from gsr.lexicon import fit_gender_direction as fit_gender_direction
    from gsr.lexicon import load_word_pairs as load_word_pairs
    from gsr.lexicon import vocabulary_key as vocabulary_key
    from gsr.lexicon import word_genderedness as word_genderedness
    from gsr.planning.planner import plan as plan
    from gsr.ranked import RankedRows as RankedRows
    from gsr.results import GSRReport as GSRReport
    from gsr.results import GSRResult as GSRResult
    from gsr.results import QueryResult as QueryResult
    from gsr.results import add_uncertainty as add_uncertainty
    from gsr.results import gsr_difference_test as gsr_difference_test
    from gsr.results import relative_to_perfect as relative_to_perfect
    from gsr.text.analyzer import GENDERED_KEEP_WORDS as GENDERED_KEEP_WORDS
    from gsr.text.analyzer import Analyzer as Analyzer
    from gsr.text.analyzer import default_analyzer as default_analyzer
    from gsr.text.analyzer import read_stopwords as read_stopwords
    from gsr.text.analyzer import stopwords_of as stopwords_of
    from gsr.uncertainty import Interval as Interval
    from gsr.uncertainty import bootstrap_fit as bootstrap_fit
    from gsr.uncertainty import paired_gsr_test as paired_gsr_test
    from gsr.uncertainty import percentile_interval as percentile_interval

# the single source of the version: pyproject.toml reads this literal ([tool.setuptools.dynamic]), CITATION.cff and
# CHANGELOG.md repeat it (tests/test_release.py checks they agree)
__version__ = "0.3.0"

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
    "GSRReport": "gsr.results",
    "GSRResult": "gsr.results",
    "QueryResult": "gsr.results",
    "measure_run": "gsr.evaluate",
    "gsr_difference_test": "gsr.results",
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
    "add_uncertainty": "gsr.results",
    "relative_to_perfect": "gsr.results",
    "BiasMeasures": "gsr.fairness.evaluate",
    "BiasReport": "gsr.fairness.evaluate",
    "BiasSettings": "gsr.fairness.evaluate",
    "DocumentLabels": "gsr.fairness.labels",
    "LabelSourceError": "gsr.fairness.labels",
    "gendered_word_counts": "gsr.fairness.labels",
    "genderedness_labels": "gsr.fairness.labels",
    "intrinsic_labels": "gsr.fairness.labels",
    "read_labels_file": "gsr.fairness.labels",
    "BiasError": "gsr.fairness.equations",
    "average_rank_bias": "gsr.fairness.equations",
    "bias_aggregates": "gsr.fairness.equations",
    "feng_shah_bias": "gsr.fairness.equations",
    "kl_divergence": "gsr.fairness.equations",
    "ndkl": "gsr.fairness.equations",
    "rank_bias": "gsr.fairness.equations",
    "representation_bias": "gsr.fairness.equations",
    "top_k_kl": "gsr.fairness.equations",
    "FaiRRError": "gsr.fairness.fairr",
    "document_neutrality": "gsr.fairness.fairr",
    "fairr": "gsr.fairness.fairr",
    "ideal_fairr": "gsr.fairness.fairr",
    "nfairr": "gsr.fairness.fairr",
    "position_weights": "gsr.fairness.fairr",
    "ranker_agnostic_fairr": "gsr.fairness.fairr",
    "FaiRRMeasures": "gsr.fairness.fairr_runs",
    "FaiRRResult": "gsr.fairness.fairr_runs",
    "FaiRRSettings": "gsr.fairness.fairr_runs",
    "GroupWords": "gsr.fairness.neutrality",
    "group_words": "gsr.fairness.neutrality",
    "read_group_words": "gsr.fairness.neutrality",
    "fairness_sensitive_annotations": "gsr.io.fairness_sensitive",
    "fairness_sensitive_queries": "gsr.io.fairness_sensitive",
    "is_fairness_sensitive": "gsr.io.fairness_sensitive",
    "AgreementMeasure": "gsr.fairness.agreement",
    "AgreementReport": "gsr.fairness.agreement",
    "bias_direction": "gsr.fairness.agreement",
    "kendall_tau": "gsr.fairness.agreement",
    "measure_agreement": "gsr.fairness.agreement",
    "BiasIRMeasures": "gsr.integrations.ir_measures_bias",
    "GSRMeasures": "gsr.integrations.ir_measures_gsr",
    "ir_measures_measures": "gsr.integrations.ir_measures_gsr",
    "is_gsr_measure": "gsr.integrations.ir_measures_gsr",
    "parse_measure_name": "gsr.integrations.ir_measures_gsr",
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
