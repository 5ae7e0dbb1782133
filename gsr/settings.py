"""The measure's own settings, declared once: GSR (gsr.evaluate.GSR.PARAMS), the experiment configs ([gsr] and
[evaluation]) and the `gsr score` options all check a value against these declarations, so they cannot disagree.

This module imports only gsr.infra.params, so the command line can build its options without loading numpy.
"""

from __future__ import annotations

from gsr.infra.params import Param, ParamError

RELEVANT = "relevant"  # the cut-off of §4.2.2: each query's list cut at its number of relevant documents
DEFAULT_RESAMPLES = 1000
DEFAULT_LEVEL = 0.95

# How a document word is matched to a query term when g_q(d) leaves the query's terms out (§3.2.2).
EXCLUSION_MODES = ("exact", "lemma", "stem")
DEFAULT_EXCLUSION = "lemma"
# Named stop lists: NLTK's English stop words (function words only; the default) and scikit-learn's (318 words, which
# also drop content words such as fire, bill, system, interest, mill).
STOP_LISTS = ("nltk", "sklearn")
DEFAULT_STOP_LIST = "nltk"
CORRECTIONS = ("holm", "bonferroni", "none")  # multiple-comparison corrections of a table's p-values


NO_CUTOFF = "none"  # how a config or an option says None: whole lists


def checked_cutoff(value, label: str):
    """'relevant', an integer K ≥ 1, or None / 'none' (no cut-off, returned as None); true/false and 0 are refused,
    never read as 1 or none."""
    if value is None or value == NO_CUTOFF:
        return None
    if value == RELEVANT or (isinstance(value, int) and not isinstance(value, bool) and value > 0):
        return value
    raise ParamError(f"{label} must be 'relevant', a positive integer or 'none', not {value!r}")


CUTOFF = Param(
    "cutoff",
    object,
    RELEVANT,
    "top-K cut-off of every list: 'relevant' (K = the query's relevant "
    "documents, §4.2.2; needs qrels), an integer K, or none (whole lists)",
    validator=checked_cutoff,
    range_help="'relevant', an integer ≥ 1 or 'none'",
)
EXCLUSION = Param(
    "exclusion",
    str,
    DEFAULT_EXCLUSION,
    "which document words count as a query term in g_q(d): the "
    "same word (exact), the same lemma (lemma) or the same Snowball stem (stem)",
    choices=EXCLUSION_MODES,
)
RANDOM_SEED = Param("random_seed", int, 0, "seed of the random engine", minimum=0)
MAX_RESAMPLES = 1_000_000  # and their memory is checked against the number of queries (uncertainty.check_memory)
RESAMPLES = Param(
    "resamples",
    int,
    DEFAULT_RESAMPLES,
    "bootstrap resamples over queries (0: no intervals) and randomisation draws",
    minimum=0,
    maximum=MAX_RESAMPLES,
)
LEVEL = Param(
    "level",
    float,
    DEFAULT_LEVEL,
    "confidence level of the bootstrap intervals",
    minimum=0,
    open_minimum=True,
    maximum=1,
    open_maximum=True,
)
SEED = Param("seed", int, 0, "seed of the bootstrap and of the randomisation tests", minimum=0)
TIE_SCORES = Param("tie_scores", bool, True, "documents with equal scores share their rank's weight in Eq. 2")

MEASURE_PARAMS = (CUTOFF, EXCLUSION, RANDOM_SEED, RESAMPLES, LEVEL, SEED, TIE_SCORES)
