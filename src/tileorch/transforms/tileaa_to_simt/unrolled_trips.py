"""The counter of a prefetching loop that runs several iterations a trip (:func:`prefetch.unrolled`: two;
``TILEORCH_PREFETCH_DEPTH=D``: ``D + 1``), and the guard of each iteration after a trip's first.

The trip loop steps ``n * step`` from ``lb`` to ``ub``; iteration ``j`` of a trip at ``iv`` (``0 < j < n``) runs
where ``iv + j * step < ub``.  In the loop's own 32-bit type both sums wrap near the type's largest value: a
guard ``iv + j * step`` past ``2**31 - 1`` read negative and ran an iteration ``range`` has not
(``range(2**31 - 3, 2**31 - 1, 4)`` ran 2), and a trip step ``n * step`` of ``2**31`` or more read negative and
the loop ran none (session 29).  Each guard therefore compares ``j * step < ub - iv`` unsigned: ``iv < ub``
inside the loop and the step is positive, so ``ub - iv`` is the exact distance (a 32-bit one fits 32 unsigned
bits); the trip loop's own increment that wraps ends it (``scf_while_to_cf.PositiveStepFor``).  That leaves
``n * step`` itself: where the step is a constant with ``n * step`` in the counter's range, or the counter is
64 bits (``i64``, ``index``), the trip loop keeps the counter's type; a 32-bit (or narrower) counter with a
run-time step is widened: the trip loop counts in ``i64`` (``lb``, ``ub`` and the step sign-extended; every sum
is below ``2**35`` in magnitude) and each iteration reads its counter truncated back, exact because
``lb <= iv < ub``."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, i64
from xdsl.ir import Attribute, SSAValue

from tileorch.transforms.tileaa_to_simt.emit import Emitter, cmpi, int_constant


@dataclass(frozen=True)
class TripCounter:
    """A trip loop's bounds: ``lb``, ``ub``, ``step`` (the loop's), ``trip`` (``n * step``), all in the trip
    loop's type; ``narrow``: the loop's own counter type where the trip loop counts wider, else None."""

    lb: SSAValue
    ub: SSAValue
    step: SSAValue
    trip: SSAValue
    narrow: Attribute | None

    def counter(self, b: Emitter, iv: SSAValue) -> SSAValue:
        """The loop's counter at the trip loop's ``iv`` (``lb <= iv < ub``: the truncation is exact)."""
        return b.v(arith.TruncIOp(iv, self.narrow)) if self.narrow is not None else iv

    def runs(self, b: Emitter, iv: SSAValue, j: int) -> SSAValue:
        """Whether iteration ``j`` of the trip at ``iv`` is in range: ``iv + j * step < ub``, without wrapping."""
        far = self.step if j == 1 else b.mul_i(self.step, b.const(j, self.step.type))
        return b.v(cmpi(far, b.v(arith.SubiOp(self.ub, iv)), "ult"))


def trip_counter(e: Emitter, lb: SSAValue, ub: SSAValue, step: SSAValue, n: int) -> TripCounter:
    """The bounds of a loop ``lb, ub, step`` run ``n`` iterations a trip (module docstring)."""
    typ = step.type
    c = int_constant(step)
    if isinstance(typ, IntegerType) and typ.width.data < 64 and (c is None or c * n >= 1 << (typ.width.data - 1)):
        lb, ub, step = (e.sext(v, i64) for v in (lb, ub, step))
    else:
        typ = None
    return TripCounter(lb, ub, step, e.mul_i(step, e.const(n, step.type)), typ)
