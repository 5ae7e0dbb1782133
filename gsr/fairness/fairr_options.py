"""FaiRR's and NFaiRR's settings as the command line declares them, without numpy: `gsr bias`'s and `gsr score`'s
parsers are built from these before any measuring module is imported (the command line starts at once)."""

DEFAULT_THRESHOLD = 1  # τ of the paper and of calc_documents_neutrality.py
DEFAULT_SHARES = {"f": 0.5, "m": 0.5}  # J_g: the reference's groups_portion
DEFAULT_CUTOFFS = (5, 10, 20, 50)  # the cut-offs the paper reports (metrics_fairness.py's thresholds)
DEFAULT_BACKGROUND_DEPTH = 200  # read_retrievalresults_from_runfile's cut_off: the background set's size per query
MISSING_POLICIES = ("error", "neutral")  # a run document the collection lacks: an error, or ω = 1 (counted)
TOKENISATIONS = ("whitespace", "words")
