"""Integer shifts and divisions as LLVM ops whose result is defined for every operand value.

The CUDA Tile IR spec runs ``shli`` / ``shri`` / ``divi`` / ``remi`` on "the target architecture's
native integer instructions" (wrap-around); PTX's ``shl`` / ``shr`` clamp a shift amount to the
register width (0, or the sign for ``shr.s``), and PTX's ``div`` / ``rem`` never trap (division by
zero gives an unspecified value; the spec leaves it, and the signed ``MIN / -1``, undefined).
LLVM's ``shl`` / ``lshr`` / ``ashr`` by the width or more are poison, and its ``udiv`` / ``sdiv`` /
``urem`` / ``srem`` by zero (signed: ``MIN / -1``) immediate undefined behaviour: once LLVM folds
such an amount or divisor to a constant (``x << (x * 0 + 35)``, ``x // (x * 0)``) it deletes the
store of the result.  :func:`lowering` builds, for an op whose right operand is not a constant in
the range where the LLVM op is defined, a sequence that is defined for every value:

* ``shl`` / ``lshr``: the amount masked to ``width - 1`` (never poison), the result selected to 0
  where the amount (unsigned) is ``>= width`` -- PTX's clamp;
* ``ashr``: the amount clamped (unsigned) to ``width - 1`` -- the sign, as PTX's ``shr.s``;
* ``udiv`` / ``urem``: a zero divisor replaced by 1 (``x / 0 = x``, ``x % 0 = 0``: the spec's
  undefined value, one the program may store);
* ``sdiv`` / ``srem``: a divisor of 0 or -1 replaced by 1, the quotient by -1 taken as ``0 - x``
  (wrap-around: ``MIN / -1 = MIN``; ``x % -1 = 0``).

A constant right operand in range keeps the single op (every shift and division the compiler
itself writes by a constant); LLVM folds the guards away where it proves them constant.
"""

from __future__ import annotations

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import IntegerAttr, IntegerType, i64
from xdsl.ir import Operation, SSAValue

SHIFTS: dict[type[Operation], type[Operation]] = {
    arith.ShLIOp: llvm.ShlOp, arith.ShRUIOp: llvm.LShrOp, arith.ShRSIOp: llvm.AShrOp}
DIVISIONS: dict[type[Operation], type[Operation]] = {
    arith.DivUIOp: llvm.UDivOp, arith.RemUIOp: llvm.URemOp, arith.DivSIOp: llvm.SDivOp, arith.RemSIOp: llvm.SRemOp}
SIGNED = (arith.DivSIOp, arith.RemSIOp)

_EQ, _ULT, _UGT = 0, 6, 8
"""``llvm.icmp`` predicates (eq, ult, ugt)."""


def constant_int(v: SSAValue) -> int | None:
    """The value of ``v`` where an ``arith.constant`` or ``llvm.mlir.constant`` of an integer defines
    it (as the attribute holds it), else None."""
    owner = v.owner
    if isinstance(owner, arith.ConstantOp | llvm.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _width(op: Operation) -> int | None:
    t = op.results[0].type
    return t.width.data if isinstance(t, IntegerType) else None


def defined_as_is(op: Operation) -> bool:
    """Whether the single LLVM op of ``op`` (a shift or division of :data:`SHIFTS` / :data:`DIVISIONS`)
    is defined for every left operand: its right operand is a constant shift amount below the
    width, a nonzero divisor (signed: nor -1), or the type is not a scalar integer (left as it was)."""
    width = _width(op)
    if width is None:
        return True
    c = constant_int(op.rhs)
    if c is None:
        return False
    u = c % (1 << width)
    if type(op) in SHIFTS:
        return u < width
    return u != 0 and (type(op) not in SIGNED or u != (1 << width) - 1)


def lowering(op: Operation) -> list[Operation]:
    """The LLVM ops computing ``op`` (a shift or division of :data:`SHIFTS` / :data:`DIVISIONS`,
    scalar integer, right operand not :func:`defined_as_is`) for every operand value, as the
    module docstring says; the last op's result is the value."""
    t = op.results[0].type
    width = t.width.data
    ops: list[Operation] = []

    def add(o: Operation) -> SSAValue:
        ops.append(o)
        return o.results[0]

    def const(value: int) -> SSAValue:
        return add(llvm.ConstantOp(IntegerAttr(value, t, truncate_bits=True), t))

    def icmp(a: SSAValue, b: SSAValue, pred: int) -> SSAValue:
        return add(llvm.ICmpOp(a, b, IntegerAttr(pred, i64)))

    x, y = op.lhs, op.rhs
    cls = type(op)
    if cls in SHIFTS:
        top = const(width - 1)
        past = icmp(y, top, _UGT)
        if cls is arith.ShRSIOp:
            add(llvm.AShrOp(x, add(llvm.SelectOp(past, top, y))))
        else:
            shifted = add(SHIFTS[cls](x, add(llvm.AndOp(y, top))))
            add(llvm.SelectOp(past, const(0), shifted))
        return ops
    one = const(1)
    if cls in SIGNED:  # y in {-1, 0}: y + 1 <u 2
        bad = icmp(add(llvm.AddOp(y, one)), const(2), _ULT)
    else:
        bad = icmp(y, const(0), _EQ)
    result = add(DIVISIONS[cls](x, add(llvm.SelectOp(bad, one, y))))
    if cls is arith.DivSIOp:
        by_minus_one = icmp(y, const(-1), _EQ)
        add(llvm.SelectOp(by_minus_one, add(llvm.SubOp(const(0), x)), result))
    return ops


def ceil_div_unsigned(op: Operation) -> list[Operation]:
    """``arith.ceildivui`` as LLVM ops: ``x == 0 ? 0 : (x - 1) / y + 1`` (``(x + y - 1) / y`` wraps
    for ``x`` near the largest value), the division by a zero ``y`` defined as in :func:`lowering`."""
    t = op.results[0].type
    x, y = op.lhs, op.rhs
    ops: list[Operation] = []

    def add(o: Operation) -> SSAValue:
        ops.append(o)
        return o.results[0]

    zero = add(llvm.ConstantOp(IntegerAttr(0, t), t))
    one = add(llvm.ConstantOp(IntegerAttr(1, t), t))
    divisor = y
    c = constant_int(y)
    if c is None or c % (1 << t.width.data) == 0:
        divisor = add(llvm.SelectOp(add(llvm.ICmpOp(y, zero, IntegerAttr(_EQ, i64))), one, y))
    q = add(llvm.AddOp(add(llvm.UDivOp(add(llvm.SubOp(x, one)), divisor)), one))
    add(llvm.SelectOp(add(llvm.ICmpOp(x, zero, IntegerAttr(_EQ, i64))), zero, q))
    return ops


__all__ = ["DIVISIONS", "SHIFTS", "ceil_div_unsigned", "constant_int", "defined_as_is", "lowering"]
