"""Effectiveness beside GSR: ir_measures measures per query and their means, paired tests with the paper's marks and
corrections for multiple comparisons (evaluate), and the common measures computed from a run's arrays (native)."""
