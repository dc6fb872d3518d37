"""``Emu.step``'s common case runs the opcode's handler itself (looked up once per pc) only while
``Emu.execute`` is the emulator's own: a subclass's or a test's patched ``execute`` still sees every
straight instruction (tests count or change instructions that way: test_chained_row_div.py), and the
kernel's results are those of the independent sum (test_ptx_emulator_park's ring kernel)."""

from __future__ import annotations

import numpy as np
import pytest

from tileorch.testing import ptx_emulator
from tileorch.testing.ptx_emulator import Emu

from test_ptx_emulator_park import PTX, _expected  # noqa: E402


def _launch(cls, items=3, work=2):
    out = np.full(32, 0xFFFFFFFF, dtype=np.uint32)
    emu = cls(PTX, [1 << 32, items, 32, work], 0, 64, (0, 0, 0), {}, [(1 << 32, out.view(np.uint8), "out")])
    emu.run(max_steps=200_000)
    return emu, out


def test_the_handler_path_gives_the_independent_sums():
    emu, out = _launch(Emu)
    assert not emu.errors
    assert (out == _expected(3, 2)).all()


class _Seen(Emu):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.seen = []

    def execute(self, op, ops, T):
        self.seen.append(op)
        return super().execute(op, ops, T)


def test_a_subclass_execute_sees_every_straight_instruction():
    emu, out = _launch(_Seen)
    assert (out == _expected(3, 2)).all()
    # the kernel's straight integer ops (no predicate, no control flow) all went through execute
    assert {"xor.b32", "shl.b32", "and.b32", "shr.u32"} <= set(emu.seen)


def test_a_patched_execute_is_honoured(monkeypatch):
    real = ptx_emulator.Emu.execute

    def execute(self, op, ops, T):
        if op == "xor.b32":
            raise ptx_emulator.Fault("patched execute ran")
        return real(self, op, ops, T)

    monkeypatch.setattr(ptx_emulator.Emu, "execute", execute)
    with pytest.raises(ptx_emulator.Fault, match="patched execute ran"):
        _launch(Emu)
