"""Planning a GSR study before running it, from a pilot's per-query (g(q), g_q(L)) pairs: how precise GSR is for n
topics (precision), which differences between two runs n topics can detect (power), and which topics of a pool to
judge (selection). gsr.planning.planner.plan puts them together; docs/planning.md gives the formulas.

This package's own module is light: gsr.planning.options declares the settings without numpy, so the command line
can build its options from them.
"""
