"""``tileorch.settings.overridden`` per thread (issue 22, item 2): the row cache's ``auto`` choice compiles a
launch's program under ``TILEORCH_ROW_SMEM_CACHE=0`` while another thread may be launching; the override is a
layer of the thread that entered it (its :func:`settings.value` and its compile key), never the process's
environment, so the other thread reads its own value and key at the same moment."""

from __future__ import annotations

import os
import threading

import pytest

from tileorch import cache, settings

NAME = "TILEORCH_ROW_SMEM_CACHE"


@pytest.fixture(autouse=True)
def _unset(monkeypatch):
    monkeypatch.delenv(NAME, raising=False)


def _in_two_threads(inside, outside):
    """``inside()`` in a thread inside ``overridden(NAME, "0")``, ``outside()`` in another thread while the first
    is inside its block (both wait for each other there); returns (inside's result, outside's result)."""
    meet, leave = threading.Barrier(2, timeout=10), threading.Barrier(2, timeout=10)
    out: dict = {}

    def first():
        with settings.overridden(NAME, "0"):
            meet.wait()
            out["inside"] = inside()
            leave.wait()

    def second():
        meet.wait()
        out["outside"] = outside()
        leave.wait()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert set(out) == {"inside", "outside"}, out
    return out["inside"], out["outside"]


def _seen():
    return settings.value(NAME), settings.asked(NAME), cache.compile_environment(), os.environ.get(NAME)


def test_another_thread_reads_its_own_value_and_key_during_an_override():
    inside, outside = _in_two_threads(_seen, _seen)
    assert inside[:3] == ("0", "0", inside[2]) and f"{NAME}=0;" in inside[2]
    assert outside[:2] == ("auto", None) and NAME not in outside[2]
    assert inside[3] is None and outside[3] is None  # the environment is never written


def test_the_environment_still_counts_outside_the_override(monkeypatch):
    monkeypatch.setenv(NAME, "1")
    inside, outside = _in_two_threads(_seen, _seen)
    assert inside[0] == "0" and outside[0] == "1" and f"{NAME}=1;" in outside[2] and f"{NAME}=0;" in inside[2]
    assert settings.value(NAME) == "1" and os.environ[NAME] == "1"


def test_overrides_nest_and_unwind_on_an_exception():
    with settings.overridden(NAME, "0"):
        with pytest.raises(RuntimeError):
            with settings.overridden(NAME, "1"):
                assert settings.value(NAME) == "1"
                raise RuntimeError
        assert settings.value(NAME) == "0"
    assert settings.value(NAME) == "auto" and NAME not in cache.compile_environment()
    with pytest.raises(settings.SettingError):
        settings.overridden(NAME, "sometimes")


def test_the_launchers_row_cache_choice_compiles_under_its_own_override(monkeypatch):
    """``_row_cache_choice`` (a launch whose row the ``auto`` cache declines) compiles the plain program with
    ``TILEORCH_ROW_SMEM_CACHE=0`` in its own thread while another thread's compile key is the default's."""
    from types import SimpleNamespace

    from tileorch.launchers import cutile as rc
    from tileorch.launchers import row_cache_smem

    monkeypatch.setattr(row_cache_smem, "auto_declines", lambda program, params: "a long row")
    plain = SimpleNamespace(launch_remarks={})

    def compiled(kernel, arguments, arch, schedule, config):
        plain.seen = _seen()
        return plain

    monkeypatch.setattr(rc, "compiled", compiled)
    entry = SimpleNamespace(program=None, asked=None, launch_remarks={})
    meet = threading.Barrier(2, timeout=10)
    seen_elsewhere = {}
    real_value = settings.value

    def value(name):  # the launcher's thread meets the other thread inside its override
        if name == NAME and threading.current_thread().name == "launch":
            meet.wait()
            meet.wait()
        return real_value(name)

    monkeypatch.setattr(settings, "value", value)
    launch = threading.Thread(target=rc._row_cache_choice, args=(entry, None, [], "sm_90a", [], (1, 1, 1)),
                              name="launch")
    launch.start()
    meet.wait()
    seen_elsewhere["key"] = cache.compile_environment()
    seen_elsewhere["value"] = real_value(NAME)
    meet.wait()
    launch.join(20)
    assert plain.seen[0] == "0" and f"{NAME}=0;" in plain.seen[2]
    assert seen_elsewhere == {"key": seen_elsewhere["key"], "value": "auto"} and NAME not in seen_elsewhere["key"]
