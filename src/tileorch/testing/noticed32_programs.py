"""cuTile kernels of session 32's leftovers (issue 22), shared by the CPU tests and the GPU check
(benchmarks/session32_noticed.py): directed rounding of elementwise arithmetic, a division by a scalar (the
shared-reciprocal sequence), rows with annotated static strides.  Importing it needs ``cuda.tile``."""

from __future__ import annotations

from typing import Annotated

import cuda.tile as ct

RZ, RM, RP = ct.RoundingMode.RZ, ct.RoundingMode.RM, ct.RoundingMode.RP


@ct.kernel
def directed_ops(x, y, o_add, o_sub, o_mul, tile: ct.Constant[int]):
    """``x + y`` toward zero, ``x - y`` toward -inf, ``x * y`` toward +inf."""
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(tile,))
    b = ct.load(y, index=(i,), shape=(tile,))
    ct.store(o_add, index=(i,), tile=ct.add(a, b, rounding_mode=RZ))
    ct.store(o_sub, index=(i,), tile=ct.sub(a, b, rounding_mode=RM))
    ct.store(o_mul, index=(i,), tile=ct.mul(a, b, rounding_mode=RP))


@ct.kernel
def directed_modes(x, y, o_rz, o_rm, o_rp, tile: ct.Constant[int]):
    """``x * y`` rounded each way (the three modes of one op side by side)."""
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(tile,))
    b = ct.load(y, index=(i,), shape=(tile,))
    ct.store(o_rz, index=(i,), tile=ct.mul(a, b, rounding_mode=RZ))
    ct.store(o_rm, index=(i,), tile=ct.mul(a, b, rounding_mode=RM))
    ct.store(o_rp, index=(i,), tile=ct.mul(a, b, rounding_mode=RP))


@ct.kernel
def divide_by_scalar(x, y, s: float, tile: ct.Constant[int]):
    """``y = x / s`` over tiles of ``tile`` elements."""
    i = ct.bid(0)
    ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) / s)


@ct.kernel
def scaled_rows(x: Annotated[ct.Array, ct.ArrayAnnotation(static_stride_dims=(0,))],
                y: Annotated[ct.Array, ct.ArrayAnnotation(static_stride_dims=(-2,))], tile: ct.Constant[int]):
    """``y[r, :] = 2 x[r, :] + 1``, one row per program, the row strides of x and y compile-time constants."""
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, tile), padding_mode=ct.PaddingMode.ZERO)
    ct.store(y, index=(r, 0), tile=t * 2.0 + 1.0)
