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


@pytest.mark.parametrize("name, text", [("TILEORCH_ATTN_CTAS", "sms"), ("TILEORCH_CTA_PROGRAMS", "2"),
                                        ("TILEORCH_ROW_SMEM_CACHE_BYTES", "4096"), ("TILEORCH_LAUNCH_C", "0")])
def test_a_setting_read_when_a_launch_binds_forgets_the_bound_state(monkeypatch, name, text):
    """A setting a launch reads only when it binds (its CTA count, programs per CTA, row-cache room, launch
    mechanism: ``settings.BOUND_AT_LAUNCH``) changes no code, so the compile environment is the same; before
    session 36 the bound state outlived such a change (the next repeated launch kept the old CTA count).  A setting
    read elsewhere (``TILEORCH_SYNC_TIMEOUT``) forgets nothing."""
    assert name in settings.BOUND_AT_LAUNCH and not settings.SETTINGS[name].codegen
    monkeypatch.delenv(name, raising=False)
    forgotten = []
    forget = lambda: forgotten.append(1)  # noqa: E731
    stale_settings.watch(forget)
    try:
        stale_settings.note_bound()
        forgotten.clear()
        monkeypatch.setenv("TILEORCH_SYNC_TIMEOUT", "31")
        stale_settings.recheck()
        assert forgotten == []
        monkeypatch.setenv(name, text)
        assert stale_settings.stale[0]
        stale_settings.recheck()
        assert forgotten == [1], f"{name}={text} between two launches kept the launch bound under the old value"
        monkeypatch.delenv(name)
        stale_settings.recheck()
        assert forgotten == [1, 1]
    finally:
        stale_settings._forgets.remove(forget)


def test_every_bind_time_setting_is_a_setting_that_changes_no_code():
    for name in settings.BOUND_AT_LAUNCH:
        assert name in settings.SETTINGS and not settings.SETTINGS[name].codegen, name
