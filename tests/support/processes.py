"""Starting a command the way a terminal starts `gsr`, for the tests that stop it with a signal."""

from __future__ import annotations

import signal
import subprocess

import pytest

from tests.support.plugins import REPOSITORY


def _ctrl_c_heard() -> None:
    """In the child before it starts: SIGINT handled as a terminal's Ctrl-C is, even where the test run itself was
    started as a background job (a shell then ignores SIGINT in it, and every child inherits that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_until(command: list[str], env: dict, when: str) -> tuple[subprocess.Popen, list[str]]:
    """`command` in a new process group (as a terminal's job: a signal sent to the group reaches its workers too),
    run from the repository, its stderr read until a line contains `when`; (the process, the lines read). Fails the
    test when the command ends first."""
    process = subprocess.Popen(
        command,
        cwd=REPOSITORY,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_ctrl_c_heard,
    )
    lines = []
    assert process.stderr is not None
    for line in process.stderr:
        lines.append(line)
        if when in line:
            return process, lines
    process.wait()
    process.stderr.close()
    pytest.fail(f"the command ended before {when!r}:\n{''.join(lines)}")
