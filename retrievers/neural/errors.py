"""The error of the neural re-rankers."""

from __future__ import annotations

from gsr.errors import InputError


class NeuralRankerError(InputError):
    """Bad input to a neural ranker: unknown model, bad folds, a query without candidates, a missing text."""
