"""Progress lines: periodic counts/rate/time left, and a one-line summary."""

from __future__ import annotations

import io

from tileorch.progress import Progress


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_periodic_lines_and_summary(monkeypatch):
    monkeypatch.delenv("TILEORCH_PROGRESS", raising=False)
    out, clock = io.StringIO(), Clock()
    with Progress("conformance", total=40, unit="cases", stream=out, interval=5, clock=clock) as p:
        for i in range(40):
            clock.t += 0.5  # 2 cases/s
            p.step(ok=i != 7)
    lines = out.getvalue().splitlines()
    # a line at most every 5 s over 20 s, then the summary
    assert lines[0] == "conformance: 10/40 cases (25.0%), 2.0 cases/s, 1 failed, ~15s left"
    assert len(lines) == 5 and lines[3].startswith("conformance: 40/40 cases (100.0%), 2.0 cases/s, 1 failed, 20s elapsed")
    assert lines[-1] == "conformance: 40 cases in 20.0 s (2.0 cases/s): 39 ok, 1 failed"


def test_short_work_prints_only_the_summary_and_unknown_totals():
    out, clock = io.StringIO(), Clock()
    p = Progress("check", unit="states", stream=out, interval=5, clock=clock)
    clock.t += 1.0
    p.set(123_456)
    assert out.getvalue() == ""
    clock.t += 5.0
    p.set(600_000, note="1.2M transitions")
    assert out.getvalue() == "check: 600.0k states, 100.0k states/s, 6s elapsed, 1.2M transitions\n"
    assert p.finish("OK") == "check: 600.0k states in 6.0 s (100.0k states/s): OK"
    p.finish()
    assert out.getvalue().count("\n") == 2  # finish prints once


def test_quiet_and_interrupted(monkeypatch):
    monkeypatch.setenv("TILEORCH_PROGRESS", "0")
    out, clock = io.StringIO(), Clock()
    try:
        with Progress("bench", total=3, unit="shapes", stream=out, interval=0, clock=clock) as p:
            clock.t += 1
            p.step()
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert out.getvalue() == "bench: 1 shapes in 1.0 s (1.0 shapes/s): interrupted by KeyboardInterrupt\n"
