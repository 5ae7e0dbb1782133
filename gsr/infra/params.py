"""Declared parameters: name, type, default, valid range and meaning, checked in one place.

Systems, re-rankers, measures and analyses declare their parameters as `Param` objects (as ir_measures
declares a measure's); the config checker, the command line, the README's parameter tables and the code
that runs them all read the same declaration.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from gsr.errors import ParamError

_KIND_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


@dataclass(frozen=True)
class Param:
    """One declared parameter. `minimum`/`maximum` bound numbers (inclusive unless `open_minimum`); a parameter
    whose values have no simple type (kind `object`) is checked by `validator(value, label)`, which returns the
    value to use or raises ParamError, and described by `range_help`."""

    name: str
    kind: type
    default: object
    help: str
    minimum: float | None = None
    maximum: float | None = None
    open_minimum: bool = False
    open_maximum: bool = False
    choices: tuple | None = None
    validator: Callable[[object, str], object] | None = None
    range_help: str = ""
    required: bool = False  # check_params fails when it is not given

    def check(self, value, where: str = ""):
        """`value` as this parameter's type; ParamError naming `where` when it is not one or is out of range."""
        label = f"{where}{self.name}"
        if self.validator is not None:
            return self.validator(value, label)
        if self.kind in (int, float):
            # true/false are ints to Python, never numbers to a user (`depth = true` is a mistake)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ParamError(f"{label} must be {_KIND_NAMES[self.kind]}, not {value!r}")
            if self.kind is int and isinstance(value, float) and not value.is_integer():
                raise ParamError(f"{label} must be an integer, not {value!r}")
            try:
                value = self.kind(value)
            except (OverflowError, ValueError):  # a float that is inf/NaN, or an int past a float's range
                raise ParamError(f"{label} must be {self.range_text()}, not {_short(value)}") from None
            if isinstance(value, float) and not math.isfinite(value):
                raise ParamError(f"{label} must be finite, not {value!r}")
            if self.minimum is not None and (value < self.minimum or (self.open_minimum and value == self.minimum)):
                raise ParamError(f"{label} must be {self.range_text()}, not {_short(value)}")
            if self.maximum is not None and (value > self.maximum or (self.open_maximum and value == self.maximum)):
                raise ParamError(f"{label} must be {self.range_text()}, not {_short(value)}")
        elif not isinstance(value, self.kind):
            raise ParamError(f"{label} must be {_KIND_NAMES.get(self.kind, self.kind.__name__)}, not {value!r}")
        if self.choices is not None and value not in self.choices:
            raise ParamError(f"{label} must be one of {', '.join(map(str, self.choices))}, not {value!r}")
        return value

    def range_text(self) -> str:
        """The valid values in words: '> 0', 'in [0, 1]', 'one of a, b', or the type."""
        if self.range_help:
            return self.range_help
        if self.choices is not None:
            return "one of " + ", ".join(map(str, self.choices))
        low = None if self.minimum is None else ("> " if self.open_minimum else "≥ ") + _plain(self.minimum)
        if self.maximum is None:
            return low or "any"
        if self.minimum is None:
            return ("< " if self.open_maximum else "≤ ") + _plain(self.maximum)
        opening, closing = "(" if self.open_minimum else "[", ")" if self.open_maximum else "]"
        return f"in {opening}{_plain(self.minimum)}, {_plain(self.maximum)}{closing}"


def _short(value) -> str:
    """repr of a value for a message, a 400-digit integer cut to its first and last digits."""
    text = repr(value)
    return text if len(text) <= 30 else f"{text[:12]}…{text[-6:]} ({len(text)} digits)"


def _plain(number: float) -> str:
    if float(number).is_integer():
        return f"{int(number):,}" if abs(number) >= 10_000 else str(int(number))
    return str(number)


def check_params(declared: Sequence[Param], given: Mapping, where: str = "") -> dict:
    """Every declared parameter's value: the given one checked, else its default; an unknown name or a missing
    required one is an error."""
    names = {p.name: p for p in declared}
    for key in given:
        if key not in names:
            allowed = ", ".join(names) or "none"
            raise ParamError(f"{where}{key} is not a parameter here (parameters: {allowed})")
    for p in declared:
        if p.required and p.name not in given:
            raise ParamError(f"{where}{p.name} is required ({p.range_text()})")
    return {p.name: p.check(given[p.name], where) if p.name in given else p.default for p in declared}


def argparse_type(param: Param, parse: Callable[[str], object] | None = None) -> Callable[[str], object]:
    """An argparse `type=` for `param`: the option's text parsed (by `parse`, else as the declared kind) and checked
    by the declaration itself, so an option and a config key accept exactly the same values."""
    import argparse

    def converted(text: str):
        try:
            value = parse(text) if parse is not None else param.kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{param.name} must be {param.range_text()}, not {text!r}") from None
        try:
            return param.check(value)
        except ParamError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    converted.__name__ = param.name  # argparse names the type in its messages
    return converted


def params_table(declared: Sequence[Param]) -> list[dict]:
    """Rows {name, type, default, range, help, required} for documentation tables."""
    return [
        {
            "name": p.name,
            "type": "—" if p.kind is object else p.kind.__name__,
            "default": p.default,
            "range": p.range_text(),
            "help": p.help,
            "required": p.required,
        }
        for p in declared
    ]
