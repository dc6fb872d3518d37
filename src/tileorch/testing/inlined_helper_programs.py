"""cuTile programs whose mistake (or the tier's refusal) is inside a ``ct.function`` helper that cuTile
inlines into the kernel: the diagnostic must name the helper's line and, as a ``note: called from``,
each call on the way from the kernel (tests/unit/test_inlined_helper_diagnostics.py).  Importing it
needs ``cuda.tile``."""

from __future__ import annotations

import cuda.tile as ct

ZERO = ct.PaddingMode.ZERO


@ct.function
def _store_row(Y, x):
    ct.store(Y, index=(0, 0), tile=x)  # a 1-D tile into a 2-D array: the reader's error


@ct.function
def _store_row_twice_removed(Y, x):
    _store_row(Y, x)  # the inner call


@ct.kernel
def helper_stores_1d_tile_into_2d(X, Y, BN: ct.Constant[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    _store_row(Y, x)  # the kernel's call


@ct.kernel
def helper_in_helper_stores_1d_tile(X, Y, BN: ct.Constant[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    _store_row_twice_removed(Y, x)  # the kernel's call


@ct.function
def _system_add(Y, x, BN):
    ct.atomic_add(Y, ct.arange(BN, dtype=ct.int32), x, memory_scope=ct.MemoryScope.SYS)  # the SIMT lowering's error


@ct.kernel
def helper_system_scope_atomic(X, Y, BN: ct.Constant[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    _system_add(Y, x, BN)  # the kernel's call


@ct.function
def _neg_inf_tile(A, i, k, tm, tk):
    return ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ct.PaddingMode.NEG_INF)  # the tier's refusal


@ct.kernel
def mm_helper_loads_neg_inf_padded_a(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(_neg_inf_tile(A, i, k, tm, tk), b, acc)  # the kernel's call
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def mm_helper_refused_then_helper_atomic(A, B, C, Y, tm: ct.Constant[int], tn: ct.Constant[int],
                                         tk: ct.Constant[int]):
    """The tier refuses the NEG_INF-padded A inside one helper, and the SIMT path then fails at a system-scope
    atomic inside another helper: the error's own "called from" note under its first line, the refusal as a
    note with the refusal's own call below it."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(_neg_inf_tile(A, i, k, tm, tk), b, acc)  # the refused call
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))
    _system_add(Y, ct.load(Y, index=(0,), shape=(tn,)), tn)  # the failing call


F32 = "float32"
SPECS = {
    "helper_stores_1d_tile_into_2d": [((128,), F32), ((4, 128), F32), 128],
    "helper_in_helper_stores_1d_tile": [((128,), F32), ((4, 128), F32), 128],
    "helper_system_scope_atomic": [((128,), F32), ((128,), F32), 128],
    "mm_helper_loads_neg_inf_padded_a": [((64, 32), "float16"), ((32, 64), "float16"), ((64, 64), "float16"),
                                         64, 64, 32],
    "mm_helper_refused_then_helper_atomic": [((64, 32), "float16"), ((32, 64), "float16"), ((64, 64), "float16"),
                                             ((64,), F32), 64, 64, 32],
}
KERNELS = {"helper_stores_1d_tile_into_2d": helper_stores_1d_tile_into_2d,
           "helper_in_helper_stores_1d_tile": helper_in_helper_stores_1d_tile,
           "helper_system_scope_atomic": helper_system_scope_atomic,
           "mm_helper_loads_neg_inf_padded_a": mm_helper_loads_neg_inf_padded_a,
           "mm_helper_refused_then_helper_atomic": mm_helper_refused_then_helper_atomic}
