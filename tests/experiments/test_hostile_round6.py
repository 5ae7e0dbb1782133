"""Round 6 of hostile testing (the surfaces of the last round: gsr plan, the outputs check, names, signals, gsr
bias's FaiRR, the measure inside a user's project): each case that went wrong, tried as a user would."""

from __future__ import annotations

import numpy as np

from gsr.planning.precision import precision
from gsr.planning.studies import StudyDraws


def test_plan_of_a_pilot_without_noise_says_so_instead_of_crashing():
    """A pilot run whose lists have one genderedness (toy1's neutral run on three topics: g_q(L) equal everywhere)
    has no residual noise: every resampled study has the same slope (half-width exactly 0) while the formula's
    standard error is float rounding (1e-17). Their ratio at the pilot's n was 0, and `gsr plan` ended in a
    ZeroDivisionError traceback."""
    x = np.array([-0.053212333939052295, 0.11850905710306327, -0.16137760770080833])
    y = np.full(3, 0.02889806102837581)
    planned = precision(x, y, [25, 100], 0.95, 0.05, StudyDraws(200, 0))
    assert planned.method == "analytic" and "lie on a line" in planned.method_why
    assert all(width is not None and width < 1e-12 for width in planned.half_width.values())
    assert planned.n_for_target_width == 3
