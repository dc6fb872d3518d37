"""The heavy-first launch order (transforms/tileas/program_order.py): the sign analysis of a loop
bound against the program ids, and the chained-dots lowering reversing the block order of the axis
along which causal attention's trip count grows."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Block

from tileorch.dialects import nv_tileaa as aa
from tileorch.transforms.tileas.program_order import (CONSTANT, DECREASING, INCREASING, dependence_sign,
                                                      heavy_first_axis)


class Ops:
    """Builds scalar ops into one block (a kernel argument ``arg`` stands for any parameter)."""

    def __init__(self):
        self.block = Block(arg_types=[i32])
        self.arg = self.block.args[0]

    def add(self, op):
        self.block.add_op(op)
        return op.results[0]

    def c(self, v):
        return self.add(arith.ConstantOp(IntegerAttr(v, i32)))

    def pid(self, axis):
        return self.add(aa.GetProgramIdOp(axis))


def test_causal_bound_grows_along_its_axis_only():
    b = Ops()
    # cdiv(min((pid0 + 1) * 128, n), 64), n a kernel argument; pid1 read but unused by the bound
    ub = b.add(arith.CeilDivSIOp(b.add(arith.MinSIOp(b.add(aa.MulIOp(b.add(aa.AddIOp(b.pid(0), b.c(1))), b.c(128))),
                                                     b.arg)), b.c(64)))
    assert [dependence_sign(ub, a) for a in range(3)] == [INCREASING, CONSTANT, CONSTANT]
    assert heavy_first_axis(ub) == 0


@pytest.mark.parametrize("build,signs", [
    (lambda b: b.add(aa.SubIOp(b.arg, b.pid(1))), [CONSTANT, DECREASING, CONSTANT]),
    (lambda b: b.add(aa.MulIOp(b.pid(0), b.c(-2))), [DECREASING, CONSTANT, CONSTANT]),
    (lambda b: b.add(aa.MulIOp(b.pid(0), b.arg)), [None, CONSTANT, CONSTANT]),  # sign of the argument unknown
    (lambda b: b.add(arith.DivSIOp(b.pid(2), b.arg)), [CONSTANT, CONSTANT, None]),
    (lambda b: b.add(aa.AddIOp(b.pid(0), b.pid(1))), [INCREASING, INCREASING, CONSTANT]),
    (lambda b: b.add(aa.SubIOp(b.pid(0), b.pid(0))), [None, CONSTANT, CONSTANT]),  # not proved constant
    (lambda b: b.add(arith.RemSIOp(b.pid(0), b.c(4))), [None, CONSTANT, CONSTANT]),  # periodic
    (lambda b: b.add(arith.MaxSIOp(b.c(3), b.arg)), [CONSTANT, CONSTANT, CONSTANT]),
])
def test_signs(build, signs):
    b = Ops()
    v = build(b)
    assert [dependence_sign(v, a) for a in range(3)] == signs


@pytest.mark.parametrize("build", [
    lambda b: b.add(aa.SubIOp(b.arg, b.pid(0))),          # lightest first already: no reversal
    lambda b: b.add(aa.AddIOp(b.pid(0), b.pid(1))),       # two axes grow: no single order
    lambda b: b.add(arith.RemSIOp(b.pid(0), b.c(4))),     # unknown
    lambda b: b.arg,                                      # balanced grid
])
def test_no_heavy_axis(build):
    assert heavy_first_axis(build(Ops())) is None


@pytest.mark.parametrize("schedule", ["off", None])
def test_causal_attention_launches_heaviest_first(schedule, monkeypatch):
    """The textbook causal program's query blocks are read reversed (``nctaid.x - 1 - ctaid.x``) by
    the one-CTA-per-instance kernel (TILEORCH_ATTN_SCHEDULE=off), and by default (session 19) the
    persistent kernel deals them heaviest first (the snake order); the non-causal one keeps the block
    order; the driver says so in a remark."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.attention_programs import attention_fwd
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import FakeDeviceArray

    monkeypatch.delenv("TILEORCH_ATTN_PERSISTENT", raising=False)
    if schedule is None:
        monkeypatch.delenv("TILEORCH_ATTN_SCHEDULE", raising=False)
    else:
        monkeypatch.setenv("TILEORCH_ATTN_SCHEDULE", schedule)
    arrays = tuple(FakeDeviceArray(0x7F0000000000 + (i + 1) * 0x10000000, (4, 1000, 64)) for i in range(4))
    for causal in (False, True):
        args = arrays + (0.18, 1000, 128, 128, 64, causal)
        p = compile_once(rc.export_bytecode(attention_fwd, rc.describe_arguments(attention_fwd, args)), "<t>")
        assert p.chained["heavy_first"] == (0 if causal else None)
        if causal and schedule == "off":  # one CTA per program instance, the query blocks read reversed
            assert "%nctaid.x" in p.ptx and not p.chained.get("persistent")
        elif causal:  # persistent, the snake order: heaviest first, one head's query tiles in a row
            assert p.chained["persistent"]["schedule"] == "snake", p.chained
        else:  # one trip count for every instance: the persistent kernel deals them in grid order
            assert p.chained["persistent"], p.chained
        assert any("heaviest first" in r for r in p.remarks) == causal
