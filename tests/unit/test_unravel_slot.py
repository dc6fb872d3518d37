"""``Emitter.unravel_slot``: a slot's coordinates as the thread's first run's plus constants.

The identity it rests on, checked over random power-of-two shapes, runs and thread counts (every
thread, every slot): when the threads' slots cover the tile exactly, the flat index
``tid * vec + off`` (``off`` = ``(slot // vec) * vec * T + slot % vec``) unravels to
``unravel(tid * vec) + unravel(off)`` coordinate by coordinate; and the emitted IR computes that,
checked by evaluating it."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith
from xdsl.dialects.builtin import i32
from xdsl.ir import Block

from tileorch.transforms.tileaa_to_simt.emit import Emitter


def _unravel(f: int, shape) -> list[int]:
    out, stride = [], math.prod(shape)
    for d in shape:
        stride //= d
        out.append((f // stride) % d)
    return out


def _evaluate(v, tid: int) -> int:
    """The i32 value of ``v`` (built from constants, the thread id and add/mul/div/rem/and/shift)."""
    op = v.owner
    if isinstance(op, Block):
        return tid
    if isinstance(op, arith.ConstantOp):
        return op.value.value.data
    a, b = (_evaluate(x, tid) for x in op.operands)
    return {arith.AddiOp: a + b, arith.MuliOp: a * b, arith.DivUIOp: a // b, arith.RemUIOp: a % b,
            arith.AndIOp: a & b, arith.ShRUIOp: a >> b, arith.ShLIOp: a << b}[type(op)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=4), st.integers(0, 3), st.integers(5, 9), st.data())
def test_slot_coordinates_are_the_first_runs_plus_constants(exps, vexp, texp, data):
    shape = [1 << e for e in exps]
    vec, threads = 1 << vexp, 1 << texp
    numel = math.prod(shape)
    block = Block(arg_types=[i32])
    e = Emitter(block, threads, block.args[0])
    slot = data.draw(st.integers(0, max(numel // threads, 1) - 1))
    coords = e.unravel_slot(slot, vec, shape)
    if numel % (vec * threads):
        assert coords is None  # the threads' slots do not cover the tile exactly
        return
    assert coords is not None
    for tid in data.draw(st.lists(st.integers(0, threads - 1), min_size=1, max_size=6)):
        f = (slot // vec) * vec * threads + tid * vec + slot % vec
        assert [_evaluate(c, tid) for c in coords] == _unravel(f, shape)


def test_not_applied_where_slots_do_not_cover_the_tile():
    block = Block(arg_types=[i32])
    e = Emitter(block, 128, block.args[0])
    assert e.unravel_slot(0, 4, [3, 64]) is None  # not a power of two
    assert e.unravel_slot(0, 4, [64]) is None  # 64 elements, 128 threads x 4: ragged
    assert e.unravel_slot(1, 4, [4, 128]) is not None
