"""Deprecated: the declared parameters moved to gsr.infra.params (gsr-bench 0.2); this name, which the README's
"Extending" example used, goes away in 0.3. Import `Param` and the checks from gsr.infra.params."""

from __future__ import annotations

import warnings

from gsr.infra.params import Param, ParamError, argparse_type, check_params

__all__ = ["Param", "ParamError", "argparse_type", "check_params"]

warnings.warn(
    "gsr.params is deprecated and goes away in gsr-bench 0.3: import from gsr.infra.params",
    DeprecationWarning,
    stacklevel=2,
)
