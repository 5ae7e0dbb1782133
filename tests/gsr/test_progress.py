"""Long stages say how far they are where stderr is a log file (Slurm, nohup, CI): a line at least every
LOG_EVERY_S seconds with done/total, elapsed<ETA and the rate, and one at the end; on a terminal, a bar."""

from __future__ import annotations

import logging
import re
import time

from gsr.documents import stats
from gsr.infra import progress


def test_a_slowed_stage_logs_its_progress_when_stderr_is_not_a_terminal(monkeypatch, caplog):
    monkeypatch.setattr(progress, "LOG_EVERY_S", 0.2)
    monkeypatch.setattr(progress, "_on_terminal", lambda: False)  # as under Slurm or nohup
    real = stats.count_shard

    def slowed(shard, analyzer):
        time.sleep(0.1)
        return real(shard, analyzer)

    monkeypatch.setattr(stats, "count_shard", slowed)
    documents = [(f"d{i}", "she is a nurse and he is an electrician") for i in range(20)]
    with caplog.at_level(logging.INFO, logger="gsr"):
        stats.DocumentStats.build(documents, n_jobs=1, shard_size=2)  # 10 shards, 1 s in all
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("document statistics")]
    assert len(lines) >= 4, lines
    # done/total [elapsed<ETA, rate] ("?" before the first shard is done)
    pattern = re.compile(
        r"document statistics: +\d+% ([\d.]+)/20(\.0)? \[\d\d:\d\d<(\d\d:\d\d|\?), +([\d.]+|\?)doc/s\]"
    )
    done = [float(pattern.fullmatch(line).group(1)) for line in lines]
    assert done == sorted(done) and done[-1] == 20


def test_quiet_runs_log_no_progress(monkeypatch, caplog):
    monkeypatch.setattr(progress, "_on_terminal", lambda: False)
    with caplog.at_level(logging.WARNING, logger="gsr"):
        for _ in progress.progress(range(3), desc="nothing to say"):
            pass
    assert not [r for r in caplog.records if "nothing to say" in r.getMessage()]


def test_a_loop_done_within_the_interval_logs_nothing(monkeypatch, caplog):
    """Short loops (a neural epoch's batches, a small collection) add no lines to a log file: only loops long enough
    to leave the reader waiting do."""
    monkeypatch.setattr(progress, "_on_terminal", lambda: False)
    with caplog.at_level(logging.INFO, logger="gsr"):
        for _ in progress.progress(range(100), total=100, desc="a short loop"):
            pass
    assert not [r for r in caplog.records if "a short loop" in r.getMessage()]
