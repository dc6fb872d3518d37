"""Contiguity of pointer tiles along their last dimension: when may a gather or scatter move as
16-byte vectors?

Contract: :func:`last_dim_step` reads the ops that define an ``nv_tileaa`` integer or pointer
tile and returns the amount by which element ``[..., j + 1]`` exceeds element ``[..., j]`` (for
a pointer tile: in elements of its pointee), when that amount is the same constant for every
``j`` and every index of the other dimensions; ``None`` when it cannot tell.  A pointer tile
with step 1 holds, along its last dimension, consecutive addresses: a row gather
``table[idx[:, None], arange(n)[None, :]]`` (cuTile's ``offset(broadcast(base), idx * stride +
arange)``) is one.  The analysis is structural, over values the program computes the same way
for every element:

* 0 for a splat, a scalar, a dense constant with one value, and a broadcast whose source's
  last dimension is 1 (or that adds the last dimension);
* 1 for ``make_range`` (its only dimension is the last);
* ``expand_dims`` before the last dimension, ``broadcast`` along the other dimensions, integer
  extensions and ``assume`` keep the step; ``expand_dims`` at the last dimension gives 0;
* ``addi``/``subi`` add/subtract the steps, ``muli`` by an operand of step 0 that is a known
  constant scales the other's, ``muli`` of two step-0 operands is 0;
* ``offset(ptr, off)``: the pointer's step plus the offset's.

Wrapping is not modelled (an index past the 32-bit range within one run of 16 bytes).  Whether
a run is also in bounds and aligned is the caller's run-time check (``pointers.py``)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import OpResult, SSAValue

from tileorch.transforms.dense_splat import splat_value

_KEEP = ("nv_tileaa.extsi", "nv_tileaa.extui", "nv_tileaa.assume", "arith.extsi", "arith.extui")


def _rank(v: SSAValue) -> int:
    return len(v.type.get_shape()) if isinstance(v.type, TensorType) else 0


def _last(v: SSAValue) -> int | None:
    return v.type.get_shape()[-1] if isinstance(v.type, TensorType) and v.type.get_shape() else None


def constant_value(v: SSAValue) -> int | None:
    """The one integer value every element of ``v`` holds, when ``v`` is an ``arith.constant``
    (a scalar or a dense tile of one value), a splat or a broadcast of one; else None."""
    while isinstance(v, OpResult) and v.op.name in ("nv_tileaa.splat", "nv_tileaa.broadcast",
                                                    "nv_tileaa.expand_dims"):
        v = v.op.operands[0]
    if not isinstance(v, OpResult) or not isinstance(v.op, arith.ConstantOp):
        return None
    value = v.op.value
    if isinstance(value, IntegerAttr):
        return value.value.data
    splat, first = splat_value(value)
    return first if splat and isinstance(first, int) else None


def last_dim_step(v: SSAValue, depth: int = 32) -> int | None:
    """The constant step of ``v`` along its last dimension (see the module docstring), or None."""
    if _rank(v) == 0 or _last(v) == 1:
        return 0
    if depth == 0 or not isinstance(v, OpResult):
        return None
    op = v.op
    name = op.name
    if name == "nv_tileaa.splat" or constant_value(v) is not None:
        return 0
    if name == "nv_tileaa.make_range":
        return 1
    if name in _KEEP:
        return last_dim_step(op.operands[0], depth - 1)
    if name == "nv_tileaa.expand_dims":
        if op.dim.value.data == _rank(v) - 1:
            return 0
        return last_dim_step(op.operands[0], depth - 1)
    if name == "nv_tileaa.broadcast":
        src = op.operands[0]
        if _rank(src) < _rank(v) or _last(src) == 1:
            return 0
        return last_dim_step(src, depth - 1)
    if name in ("nv_tileaa.addi", "nv_tileaa.subi", "nv_tileaa.offset"):
        a, b = (last_dim_step(x, depth - 1) for x in op.operands[:2])
        if a is None or b is None:
            return None
        return a - b if name == "nv_tileaa.subi" else a + b
    if name == "nv_tileaa.muli":
        x, y = op.operands[:2]
        sx, sy = last_dim_step(x, depth - 1), last_dim_step(y, depth - 1)
        if sx == 0 and sy == 0:
            return 0
        cx, cy = constant_value(x), constant_value(y)
        if sy == 0 and cy is not None and sx is not None:
            return sx * cy
        if sx == 0 and cx is not None and sy is not None:
            return sy * cx
        return None
    return None


__all__ = ["constant_value", "last_dim_step"]
