"""Bound launches and the compile settings (launchers/stale_settings.py, session 35): ``tileorch.cutile.launch``
keeps a launch bound under a key of the call's arguments; a ``TILEORCH_*`` compile setting changed between two
calls must not relaunch the kernel compiled under the old value.  The launcher is run against a stand-in driver
and a stand-in compiler (``benchmarks/launch_overhead.stubbed_cutile``: nothing compiled, every driver call
returns at once); what is checked is how many times the program was compiled and whether the hot path launched.
No GPU; needs cuda-tile."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("cuda.tile")

from tileorch import settings  # noqa: E402
from tileorch.launchers import stale_settings  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import launch_overhead  # noqa: E402

SWITCH = "TILEORCH_ATTN_TREE_REDUCE"


def test_environment_changes_of_tileorch_variables_are_seen_without_reading_it():
    seen = []
    settings.on_change(lambda: seen.append(1))
    saved = os.environ.get("TILEORCH_PROGRESS_INTERVAL")
    os.environ["TILEORCH_PROGRESS_INTERVAL"] = "1"
    del os.environ["TILEORCH_PROGRESS_INTERVAL"]
    os.environ.setdefault("TILEORCH_PROGRESS_INTERVAL", "2")
    os.environ.pop("TILEORCH_PROGRESS_INTERVAL")
    os.environ["NOT_TILEORCH_PROBE"] = "1"
    del os.environ["NOT_TILEORCH_PROBE"]
    assert len(seen) == 4
    if saved is not None:
        os.environ["TILEORCH_PROGRESS_INTERVAL"] = saved
    settings._watchers.pop()


def test_a_compile_setting_changed_between_launches_compiles_and_binds_again(monkeypatch):
    """Three launches: one compile; a setting that changes no code: none; the switch set: compiled again (before
    session 35 the bound launch of the old program ran); an ``overridden`` block: its own program; set back: the
    program of that value from the in-process cache, bound again; set to the value it has: nothing forgotten."""
    monkeypatch.delenv(SWITCH, raising=False)
    with launch_overhead.stubbed_cutile() as (rc, scale, Dev):
        from tileorch import driver

        compiles = []
        stub = driver.compile_program

        def counting(*args, **kwargs):
            compiles.append(settings.value(SWITCH))
            return stub(*args, **kwargs)

        driver.compile_program = counting
        try:
            x, y = Dev(0x7F0000000000, 1 << 12), Dev(0x7F0001000000, 1 << 12)
            args = (x, y, 2.0, 1024)

            def launch():
                rc.launch(0, (4,), scale, args)

            for _ in range(3):
                launch()
            assert compiles == ["0"]
            monkeypatch.setenv("TILEORCH_SYNC_TIMEOUT", "30")
            launch()
            assert compiles == ["0"] and not stale_settings.stale[0]
            monkeypatch.setenv(SWITCH, "1")
            assert stale_settings.stale[0]
            launch()
            assert compiles == ["0", "1"], "the kernel compiled under the old value was launched again"
            launch()
            with settings.overridden(SWITCH, "0"):
                launch()
                launch()
            assert compiles == ["0", "1", "0"]
            launch()
            launch()
            assert compiles == ["0", "1", "0"]
            bound = dict(rc.hot_launchers)
            monkeypatch.setenv(SWITCH, "1")
            launch()
            assert dict(rc.hot_launchers) == bound
        finally:
            driver.compile_program = stub
