"""The error of the neural re-rankers."""

from __future__ import annotations


class NeuralRankerError(ValueError):
    """Bad input to a neural ranker: unknown model, bad folds, a query without candidates, a missing text."""
