"""Numbers written in text files, read as strictly as trec_eval's C parser can be trusted to read them: ASCII digits,
an optional sign, decimal point and exponent. Python's own int() and float() also take `1_000` and non-ASCII digits
(fullwidth １, Arabic-Indic ٣), which trec_eval would read differently or not at all; those are refused, naming
the file and line, never read as another number."""

from __future__ import annotations

import re

from gsr.errors import InputError

_DECIMAL = re.compile(
    r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)", re.IGNORECASE | re.ASCII
)
INTEGER_TEXT = re.compile(r"[+-]?[0-9]+", re.ASCII)
GRADE_RANGE = (-(2**31), 2**31 - 1)  # trec_eval and pytrec_eval keep grades in a C int


def decimal_text(text: str, where: str, what: str = "score") -> float:
    """`text` as a float: ASCII digits with an optional sign, point and exponent (or inf, nan); else an InputError
    at `where` naming `what`."""
    if not _DECIMAL.fullmatch(text):
        raise InputError(
            f"{where}: {what} must be a number written with ASCII digits (as trec_eval reads it), not {text!r}"
        )
    return float(text)


def integer_text(text: str, where: str, what: str, bounds: tuple[int, int] | None = None) -> int:
    """`text` as an int: ASCII digits with an optional sign, within `bounds` when given; else an InputError at
    `where` naming `what`."""
    if not INTEGER_TEXT.fullmatch(text):
        raise InputError(f"{where}: {what} must be an integer written with ASCII digits, not {text!r}")
    value = int(text)
    return checked_range(value, where, what, bounds)


def checked_range(value: int, where: str, what: str, bounds: tuple[int, int] | None) -> int:
    """`value`, or an InputError at `where` when it lies outside `bounds`."""
    if bounds is not None and not bounds[0] <= value <= bounds[1]:
        raise InputError(f"{where}: {what} {value} is outside [{bounds[0]}, {bounds[1]}]")
    return value
