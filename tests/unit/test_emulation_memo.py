"""tileorch.testing.emulation_memo: an emulation once per key in a test run (process, then the run's memo
directory), every time while the emulator is patched, a copy returned."""

from __future__ import annotations

import numpy as np
import pytest

from tileorch.testing import compile_memo, emulation_memo, ptx_emulator


@pytest.fixture
def memo_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(compile_memo.MEMO_ENV, str(tmp_path))
    monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
    return tmp_path


def counting(value):
    calls = []

    def emulate():
        calls.append(1)
        return {"out": np.array([value, np.nan], dtype=np.float32), "errors": []}

    return emulate, calls


def test_an_input_is_emulated_once_and_a_copy_returned(memo_dir):
    emulate, calls = counting(1.5)
    first = emulation_memo.emulate_once("helper", ("ptx", {"smem": 64}, (300, 64)), emulate)
    first["out"][0] = 7.0  # the caller's copy
    first["errors"].append("changed")
    again = emulation_memo.emulate_once("helper", ("ptx", {"smem": 64}, (300, 64)), emulate)
    assert len(calls) == 1
    assert again["out"][0] == 1.5 and np.isnan(again["out"][1]) and again["errors"] == []
    compile_memo._PROGRAMS.clear()  # another process of the run: the directory's copy
    assert emulation_memo.emulate_once("helper", ("ptx", {"smem": 64}, (300, 64)), emulate)["out"][0] == 1.5
    assert len(calls) == 1
    for other in (("helper", ("ptx", {"smem": 64}, (300, 128))), ("helper", ("ptx2", {"smem": 64}, (300, 64))),
                  ("helper", ("ptx", {"smem": 128}, (300, 64))), ("other helper", ("ptx", {"smem": 64}, (300, 64)))):
        emulation_memo.emulate_once(*other, emulate)
    assert len(calls) == 5


@pytest.mark.parametrize("patch", ["method", "class", "module global"])
def test_a_patched_emulator_emulates_every_time_and_stores_nothing(memo_dir, monkeypatch, patch):
    assert emulation_memo.emulator_unpatched()
    if patch == "method":
        monkeypatch.setattr(ptx_emulator.Emu, "run", lambda self, max_steps=0: True)
    elif patch == "class":
        monkeypatch.setattr(ptx_emulator, "Emu", type("Counted", (ptx_emulator.Emu,), {}))
    else:
        monkeypatch.setattr(ptx_emulator, "_fma_f32", lambda a, b, c: a)
    assert not emulation_memo.emulator_unpatched()
    emulate, calls = counting(2.0)
    for _ in range(2):
        emulation_memo.emulate_once("helper", ("patched",), emulate)
    assert len(calls) == 2 and not compile_memo._PROGRAMS and not list(memo_dir.iterdir())
    monkeypatch.undo()
    assert emulation_memo.emulator_unpatched()


def test_a_raising_emulation_stores_nothing(memo_dir):
    def fails():
        raise ptx_emulator.Fault("deadlock")

    for _ in range(2):
        with pytest.raises(ptx_emulator.Fault):
            emulation_memo.emulate_once("helper", ("fails",), fails)
    assert not compile_memo._PROGRAMS and not list(memo_dir.iterdir())


def test_a_warning_raised_in_the_emulator_is_no_patch(monkeypatch):
    """A warning raised in the emulator module's code (numpy's overflow in a cast, say) adds
    ``__warningregistry__`` to its globals: not a patch (the clean-clone CI of session 32 ran the
    suite with every memo bypassed and these tests failing after one such warning)."""
    from tileorch.testing import ptx_emulator

    monkeypatch.setitem(vars(ptx_emulator), "__warningregistry__", {"version": 1})
    assert emulation_memo.emulator_unpatched()
    monkeypatch.setitem(vars(ptx_emulator), "SOME_NEW_GLOBAL", 1)
    assert not emulation_memo.emulator_unpatched()
