"""IEEE division of a tile by a value all its elements share (a row's sum broadcast back: softmax's
``e / sum(e)``), with one reciprocal per thread and no slow path for zero numerators.

The program's ``a / b`` (``divf`` with the default rounding, PTX ``div.rn.f32``) costs per element,
in ptxas's expansion, a ``MUFU.RCP``, five ``FFMA``, an ``FCHK`` and a branch around a call of the
slow path (10 issue slots, 11 with the call's reconvergence).  ``FCHK`` sends every zero numerator
to the slow path (its fast path would give ``-0 / b`` the wrong sign): a row of 1000 in a tile of
1024, whose 24 padding elements are ``exp(-inf - max) = 0``, calls it 8 times per warp (lanes
29-31 diverge), ~240 issue slots per row: what kept ``softmax_f16_4096x1000`` at 0.70 of the
copy while the same kernel on rows of 1024 reached 0.91 (probe_2026-12-03e: same bytes, same
occupancy, fewer long-scoreboard stalls: issue-bound).

When the divisor of an f32 ``divf`` with the default rounding is one register for all of this
thread's elements, :func:`divide` evaluates it as ptxas's own fast path does, the reciprocal
computed once::

    r0 = rcp.approx.ftz(b);  r = fma(r0, fma(-b, r0, 1), r0)          # once per thread
    q  = a * r;  rem = fma(b, q, -a);  res = fma(-r, rem, q)          # per element: 3 FFMA

(the remainder's sign flipped against ptxas's ``fma(q, -b, a)``: the same rounded result for
every nonzero ``a``, and the right signed zero for ``a = +-0`` when ``b > 0``), after a per-thread
test, one branch, of every numerator: ``|a|`` in ``[2^-60, 2^60]`` or zero (two instructions per
element: the high side a ``max.NaN`` tree of ``|a|``, the low side an unsigned ``min`` tree of
``2 bits(a) - 1``, where zero wraps to the largest value) and of the divisor: ``b`` in
``[2^-60, 2^60]`` (positive).  Inside that range the quotient, reciprocal and remainder are
normal, the remainder exact, and the result the correctly rounded ``a / b`` (CUDA's fast-path
argument; checked exactly with rationals for reciprocals up to 2 ulp off, and on the CPU
interpreter bit for bit against numpy, signed zeros included; on the PTX emulator, its ``rcp.approx.ftz`` 1 ulp
off and flushing, bit for bit against numpy's ``x / y`` on hypothesis-drawn operands:
tests/unit/test_uniform_division_bits_emulated.py, which fails when a bound is widened past where the sequence stays
exact); where the test fails (a negative
divisor, a subnormal, infinite, NaN or extreme operand) the thread computes every element with
``div.rn`` as before.  Numerators stay live through the branch, quotients are computed inside it,
so the registers live across it are those of the unbranched code.

On by default; ``TILEORCH_UNIFORM_DIV=0`` turns it off (read at each compile, part of the disk
cache key).  The kernel records how many divisions took it (:data:`ATTR`, the driver's remark).
The chained-dot epilogue has its own form of this (``tileas/row_division.py``, zeros excluded); the
chained consumer loop calls :func:`divide` for a tile divided by a scalar (``tileas/loop_division.py``,
the same switch).
"""

from __future__ import annotations

import struct

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, TensorType, f32, i32
from xdsl.ir import Operation, SSAValue

from tileorch import settings
from tileorch.transforms.tileaa_to_simt.emit import Emitter, cmpi

UNIFORM_DIV_ENV = "TILEORCH_UNIFORM_DIV"
ATTR = "tileorch.uniform_divisions"
"""On the lowered kernel: how many tile divisions by a shared divisor took :func:`divide`."""
LOW, HIGH = 2.0 ** -60, 2.0 ** 60
"""The magnitudes of a nonzero numerator and of the (positive) divisor for which the sequence is
``div.rn``."""
MIN_SLOTS = 2
"""Fewer elements per thread: nothing to share, ``div.rn`` as it is."""


def enabled() -> bool:
    """The default; ``TILEORCH_UNIFORM_DIV=0`` turns :func:`divide` off."""
    return settings.value(UNIFORM_DIV_ENV) != "0"


def _bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def applies(op: Operation, numerators: list[SSAValue], divisor: list[SSAValue]) -> bool:
    """Whether ``op`` (this thread's ``numerators`` and ``divisor`` slots) is an f32 ``divf`` with
    the default rounding whose divisor is one register for every slot, over at least
    :data:`MIN_SLOTS` distinct numerators, and the switch is on."""
    if op.name not in ("nv_tileaa.divf", "arith.divf") or not enabled():
        return False
    if getattr(op, "rounding", None) is not None:
        return False
    types = [x.type for x in (*op.operands, op.results[0])]
    if not all(isinstance(t.element_type if isinstance(t, TensorType) else t, Float32Type) for t in types):
        return False
    if len(set(divisor)) != 1 or len(set(numerators)) < MIN_SLOTS:
        return False
    return all(v.type == f32 for v in (*numerators, divisor[0]))


def _tree(e: Emitter, values: list[SSAValue], fold) -> SSAValue:
    while len(values) > 1:
        values = [fold(values[i], values[i + 1]) if i + 1 < len(values) else values[i]
                  for i in range(0, len(values), 2)]
    return values[0]


def divide(e: Emitter, numerators: list[SSAValue], b: SSAValue) -> list[SSAValue]:
    """``a / b`` for each ``a`` of ``numerators`` (f32 registers), bit for bit ``div.rn.f32``: the
    shared-reciprocal sequence where this thread's operands allow it, else ``div.rn`` per element
    (see the module docstring)."""
    # the test, before any quotient: |a| <= HIGH (NaN fails), a == 0 or |a| >= LOW, b in [LOW, HIGH]
    hi = _tree(e, [e.ptx("abs.f32", [a]) for a in numerators], lambda x, y: e.ptx("max.NaN.f32", [x, y]))
    one = e.const(1)

    def twice_minus_one(a: SSAValue) -> SSAValue:
        bits = e.v(arith.BitcastOp(a, i32))
        return e.v(arith.SubiOp(e.v(arith.ShLIOp(bits, one)), one))

    lo = _tree(e, [twice_minus_one(a) for a in numerators], lambda x, y: e.v(arith.MinUIOp(x, y)))
    ok = e.v(arith.AndIOp(e.v(arith.CmpfOp(hi, e.fconst(HIGH), "ole")),
                          e.v(cmpi(lo, e.const(2 * _bits(LOW) - 1), "uge"))))
    ok = e.v(arith.AndIOp(ok, e.v(arith.AndIOp(e.v(arith.CmpfOp(b, e.fconst(LOW), "oge")),
                                               e.v(arith.CmpfOp(b, e.fconst(HIGH), "ole"))))))
    r0 = e.ptx("rcp.approx.ftz.f32", [b])
    nb = e.v(arith.NegfOp(b))  # (neg.f32)
    r = e.ptx("fma.rn.f32", [r0, e.ptx("fma.rn.f32", [nb, r0, e.fconst(1.0)]), r0])
    nr = e.v(arith.NegfOp(r))

    def fast(bb: Emitter) -> list[SSAValue]:
        out = []
        for a in numerators:
            q = bb.ptx("mul.rn.f32", [a, r])
            rem = bb.ptx("fma.rn.f32", [b, q, bb.v(arith.NegfOp(a))])
            out.append(bb.ptx("fma.rn.f32", [nr, rem, q]))
        return out

    def slow(bb: Emitter) -> list[SSAValue]:
        return [bb.v(arith.DivfOp(a, b)) for a in numerators]

    return e.if_(ok, fast, slow, [f32] * len(numerators))


__all__ = ["ATTR", "HIGH", "LOW", "MIN_SLOTS", "UNIFORM_DIV_ENV", "applies", "divide", "enabled"]
