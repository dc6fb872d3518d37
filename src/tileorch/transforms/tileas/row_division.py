"""Branch-free IEEE division in an accumulator epilogue, with one reciprocal per divisor value.

The program's ``a / b`` (``nv_tileaa.divf`` with the default rounding: IEEE round to nearest even,
PTX ``div.rn.f32``) costs, per element, a ``MUFU.RCP``, five ``FFMA``, an ``FCHK`` and a branch
around the slow path: ptxas cannot share the reciprocal of a row's ``l_i`` between its elements,
and the per-element branches keep the elements' dependency chains (~30 cycles each) from
overlapping.  At seq 1k the attention epilogue's ``acc / l_i`` was ~1 key tile of time per
program instance (d128: 64 divisions per thread, 10-11 SASS instructions each).

:class:`RowDivision` evaluates ``a / b`` as ptxas's own fast path does, with the reciprocal
computed once per divisor *value* (a row vector's element: once per row)::

    r0  = rcp.approx.ftz(b);  r = fma(r0, fma(-b, r0, 1), r0)      # once per divisor value
    q   = a * r;  rem = fma(q, -b, a);  res = fma(r, rem, q)      # per element: 3 instructions

and records ``|a|`` and ``|b|`` of every division.  The result is the correctly rounded ``a / b``
whenever every ``|a|`` and ``|b|`` lies in ``[2^-60, 2^60]`` (quotient, reciprocal and remainder
normal: ``rem`` is exact, and one Newton step on ``rcp.approx`` (1 ulp) leaves ``r`` accurate
enough for the final FMA to round correctly: the argument of CUDA's own ``div.rn`` fast path;
checked exactly with rationals for reciprocals up to 1 ulp off).  :meth:`RowDivision.in_range`
is that test (a pairwise min/max tree over the recorded values, NaN failing it); the caller
branches once per thread on it and recomputes the epilogue with ``div.rn`` where it fails (zeros,
infinities, NaN, extreme magnitudes: results are bit-identical to ``div.rn`` either way).

On by default (``TILEORCH_ATTN_ROW_DIV=0`` turns it off; read at each compile, part of the
disk-cache key): measured on the H200 (attention_variants_2026-12-03c.json) 1.03-1.05x at sequence
1k and d64 16k, 0.995-1.01x elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, TensorType
from xdsl.ir import Operation, SSAValue

from tileorch import settings
from tileorch.transforms.tileaa_to_simt.emit import Emitter

ROW_DIV_ENV = "TILEORCH_ATTN_ROW_DIV"
LOW, HIGH = 2.0 ** -60, 2.0 ** 60  # the magnitudes of a and b for which the sequence is div.rn


def row_div_enabled() -> bool:
    """Whether the chained epilogue evaluates IEEE divisions with :class:`RowDivision` (and one
    per-thread branch to ``div.rn`` outside its range): the default; ``TILEORCH_ATTN_ROW_DIV=0``
    turns it off."""
    return settings.value(ROW_DIV_ENV) != "0"


def is_ieee_division(op: Operation) -> bool:
    """An ``nv_tileaa.divf`` of f32 tiles with the default rounding (``div.rn.f32``)."""
    if op.name != "nv_tileaa.divf" or getattr(op, "rounding", None) is not None:
        return False
    return all(isinstance(x.type, TensorType) and isinstance(x.type.element_type, Float32Type)
               for x in (*op.operands, op.results[0]))


@dataclass
class RowDivision:
    """The state of one evaluation of an epilogue's divisions (see the module docstring):
    ``recip``: divisor value -> (its reciprocal, its negation); ``magnitudes``: ``|a|``, ``|b|``
    of every division evaluated so far."""

    e: Emitter
    recip: dict = field(default_factory=dict)
    magnitudes: list = field(default_factory=list)

    def _asm(self, text: str, *args: SSAValue) -> SSAValue:
        return self.e.ptx_f32(text, list(args))

    def divide(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """``a / b`` (f32 registers) by the reciprocal of ``b`` (computed at its first use)."""
        hit = self.recip.get(b)
        if hit is None:
            r0 = self._asm("rcp.approx.ftz.f32 $0, $1;", b)
            nb = self._asm("neg.f32 $0, $1;", b)
            err = self._asm("fma.rn.f32 $0, $1, $2, $3;", nb, r0, self.e.fconst(1.0))
            hit = (self._asm("fma.rn.f32 $0, $1, $2, $3;", r0, err, r0), nb)
            self.recip[b] = hit
            self.magnitudes.append(self._asm("abs.f32 $0, $1;", b))
        r, nb = hit
        q = self._asm("mul.rn.f32 $0, $1, $2;", a, r)
        rem = self._asm("fma.rn.f32 $0, $1, $2, $3;", q, nb, a)
        self.magnitudes.append(self._asm("abs.f32 $0, $1;", a))
        return self._asm("fma.rn.f32 $0, $1, $2, $3;", r, rem, q)

    def in_range(self) -> SSAValue | None:
        """i1: every recorded magnitude within ``[2^-60, 2^60]`` (false for a NaN); None when no
        division was evaluated."""
        if not self.magnitudes:
            return None

        def tree(values: list[SSAValue], op: str) -> SSAValue:
            while len(values) > 1:
                values = [self._asm(f"{op}.f32 $0, $1, $2;", values[i], values[i + 1]) if i + 1 < len(values)
                          else values[i] for i in range(0, len(values), 2)]
            return values[0]

        lo = tree(list(self.magnitudes), "min")
        hi = tree(list(self.magnitudes), "max.NaN")
        e = self.e
        above = e.v(arith.CmpfOp(lo, e.fconst(LOW), "oge"))
        below = e.v(arith.CmpfOp(hi, e.fconst(HIGH), "ole"))
        return e.v(arith.AndIOp(above, below))


__all__ = ["HIGH", "LOW", "ROW_DIV_ENV", "RowDivision", "is_ieee_division", "row_div_enabled"]
