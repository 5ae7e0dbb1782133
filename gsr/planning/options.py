"""The settings of a study plan, declared once: gsr.plan and `gsr plan` check a value against these declarations.
Imports only gsr.infra.params and gsr.settings, so the command line builds its options without numpy."""

from __future__ import annotations

import math

from gsr.infra.params import Param, ParamError
from gsr.settings import LEVEL, MAX_RESAMPLES, SEED

DEFAULT_TOPICS = (25, 50, 100, 250, 500, 1000, 2000)  # the study sizes every plan reports, besides the pilot's own
MAX_TOPICS = 10_000_000  # a study needing more topics than this is reported as out of reach, not as a number
MIN_TOPICS = 3  # Eq. 3's slope has a standard error (n − 2 residual degrees of freedom) from three topics on
MIN_STUDIES = 100  # fewer simulated studies leave too few beyond a 95% interval's quantiles to place them
DEFAULT_ALPHA = 0.05
DEFAULT_POWER = 0.8
DEFAULT_STUDIES = 2000


def _open_unit(name: str, default: float, help_text: str) -> Param:
    return Param(name, float, default, help_text, minimum=0, open_minimum=True, maximum=1, open_maximum=True)


def checked_difference(value, label: str) -> float:
    """A difference to detect: a finite number other than 0 (a difference of 0 is detected with probability α, at
    any number of topics)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value == 0:
        raise ParamError(f"{label} must be a finite number other than 0, not {value!r}")
    return float(value)


ALPHA = _open_unit("alpha", DEFAULT_ALPHA, "significance level of the two-sided paired tests")
POWER = _open_unit("power", DEFAULT_POWER, "the probability with which a detectable difference is detected")
TARGET_WIDTH = Param(
    "target_width", float, None, "the half-width of GSR's interval a study should reach", minimum=0, open_minimum=True
)
DIFFERENCE = Param(
    "difference",
    object,
    None,
    "the difference between two runs a study should detect",
    validator=checked_difference,
    range_help="a finite number other than 0",
)
TOPICS = Param("topics", int, None, "a study size, in topics", minimum=MIN_TOPICS, maximum=MAX_TOPICS)
STUDIES = Param(
    "resamples",
    int,
    DEFAULT_STUDIES,
    "simulated studies per study size (each draws its topics with replacement from the pilot's)",
    minimum=MIN_STUDIES,
    maximum=MAX_RESAMPLES,
)
SELECT = Param("select", int, None, "topics to choose from the pool", minimum=MIN_TOPICS, maximum=MAX_TOPICS)
NEUTRAL_SHARE = Param(
    "neutral_share",
    float,
    0.0,
    "share of the chosen topics that are the pool's most neutral (smallest |g(q)|)",
    minimum=0,
    maximum=1,
    open_maximum=True,
)
STRATA = Param("strata", int, None, "equal-count quantile strata of the pool's g(q)", minimum=2, maximum=MAX_TOPICS)

PLAN_PARAMS = (LEVEL, ALPHA, POWER, TARGET_WIDTH, DIFFERENCE, STUDIES, SEED, SELECT, NEUTRAL_SHARE, STRATA)
