"""Review 28: a new cuTile user's first hour -- 65 programs written with cuTile's Python API the way users
write them, over what no other test exercises, each exported to bytecode on the CPU, compiled for sm_90a and
run CTA by CTA on the PTX emulator against numpy with NaN / sentinel-prefilled outputs.

* Tensor-core programs (TMA + WGMMA, ``test_user_sweep14_emulated``'s runner, ragged M / N / K): GEMM
  epilogues mixing a row vector, a column vector and scalars; batched ``A^T`` operands (``[L, K, M]``, 3-D
  loads reshaped); a strided ``B^T`` view with a bias and relu; f32 loads cast to bf16 before the dot; split-K
  written by hand (program id 2 owns a K slice, ``atomic_add`` of the f32 partial tile).  The tf32, fp8,
  int8 and uint8 x int8 dots compile to the same kernel (their results are GPU-only: the emulator's WGMMA is
  f16 / bf16).
* Dot programs the tensor-core tier refuses take the SIMT path with a located warning saying why (f64
  operands, a 3-D dot tile of batch 2, an A masked by the loop counter, a dot outside a loop): never a
  silent slow path.
* SIMT programs: softmax / layernorm over 3-D tiles (last and middle axis), argmin / argmax with ties and
  NaN (``propagate_nan`` both ways), scans (int16 wrapping, uint8 down the columns, reversed cumprod),
  gathers / scatters with masks on ragged sizes, uint8 / uint16 / uint32 / int16 / int64 arithmetic,
  float <-> integer and narrowing conversions, ``ct.where`` on NaN, reshape / permute of unit dims, loops
  with runtime bounds and early exits (an int64 one near the int64 maximum), a negative runtime tile index, f16
  atomics, 3-D scans / permutes / broadcasts, 2-D gathers by int64 indices, atomics to repeated indices.
* A tile too large for the registers stops at the user's line.

Found and fixed here: ``abs.s16`` (LLVM's form of ``where(p > 0, p, -p)`` on int8) was an emulator
``Fault``; ``//`` of unsigned tiles and loops near the integer maximum: test_review28_integer_loops.py.
Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
from test_review28_integer_loops import emulate  # noqa: E402,F401  (the fixture: SIMT programs on the emulator)

from tileorch.testing.user_programs import UserProgram  # noqa: E402

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
F16, BF16, F32 = "float16", "bfloat16", "float32"
NP_BF16 = ml_dtypes.bfloat16
RNG = np.random.default_rng(2828)
SENTINEL = 77


def _a(shape, dt=F16, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, strides)


# ----------------------------------------------------------------------------------------------- the programs

@ct.kernel
def gemm_row_col_scalar_epi(A, B, RowS, ColB, Y, alpha: float, tm: C[int], tn: C[int], tk: C[int]):
    """y = alpha * (a @ b) * rows[:, None] + colbias[None, :] - 0.5"""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    r = ct.load(RowS, index=(bm,), shape=(tm,), padding_mode=ZERO)
    c = ct.load(ColB, index=(bn,), shape=(tn,), padding_mode=ZERO)
    y = alpha * acc * ct.reshape(r, (tm, 1)) + ct.reshape(c, (1, tn)) - 0.5
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def gemm_batched_at(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """batched y[b] = A[b]^T @ B[b] with A stored [L, K, M]"""
    bm, bn, bl = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bl, k, bm), shape=(1, tk, tm), padding_mode=ZERO)
        b = ct.load(B, index=(bl, k, bn), shape=(1, tk, tn), padding_mode=ZERO)
        acc = ct.mma(ct.transpose(ct.reshape(a, (tk, tm))), ct.reshape(b, (tk, tn)), acc)
    ct.store(Y, index=(bl, bm, bn), tile=ct.reshape(acc, (1, tm, tn)).astype(Y.dtype))


@ct.kernel
def gemm_tf32(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """f32 operands cast to tf32 explicitly"""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO).astype(ct.tfloat32)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO).astype(ct.tfloat32)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_f32_inputs_cast_bf16(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """f32 loads cast to bf16 before the dot"""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO).astype(ct.bfloat16)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO).astype(ct.bfloat16)
        acc = acc + a @ b
    ct.store(Y, index=(bm, bn), tile=acc.astype(ct.bfloat16))


@ct.kernel
def gemm_fp8_scaled(A, B, Y, sa: float, sb: float, tm: C[int], tn: C[int], tk: C[int]):
    """e4m3 x e4m3, scaled epilogue, f16 out"""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=(acc * (sa * sb)).astype(ct.float16))


@ct.kernel
def gemm_split_k_atomic(A, B, Y, splits: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """split-K by hand: program id 2 owns K slice; atomic_add f32 into Y"""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    nk = ct.cdiv(A.shape[1], tk)
    per = ct.cdiv(nk, splits)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s * per, min(nk, (s + 1) * per)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(Y, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def gemm_bt_strided_bias_relu(A, Bt, Bias, Y, tm: C[int], tn: C[int], tk: C[int]):
    """y = relu(a @ Bt^T + bias) where Bt is a strided view"""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        b = ct.load(Bt, index=(bn, k), shape=(tn, tk), padding_mode=ZERO)
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO), ct.transpose(b), acc)
    bias = ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=ct.maximum(acc + bias[None, :].astype(ct.float32), 0.0).astype(Y.dtype))


@ct.kernel
def gemm_int8_rowscale(A, B, Sa, Sb, Y, tm: C[int], tn: C[int], tk: C[int]):
    """int8 x int8 -> int32, dequant per row and per column"""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    sa = ct.load(Sa, index=(bm,), shape=(tm,), padding_mode=ZERO)
    sb = ct.load(Sb, index=(bn,), shape=(tn,), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=(acc.astype(ct.float32) * sa[:, None] * sb[None, :]).astype(ct.float16))


@ct.kernel
def softmax_3d_last(X, Y, B: C[int], R: C[int], N: C[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0, 0), shape=(B, R, N), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    m = ct.max(x, axis=2, keepdims=True)
    e = ct.exp(x - m)
    ct.store(Y, index=(i, 0, 0), tile=(e / ct.sum(e, axis=2, keepdims=True)).astype(Y.dtype))


@ct.kernel
def layernorm_3d_middle(X, W, Y, eps: float, B: C[int], R: C[int], N: C[int]):
    """normalize over axis 1 of a [B, R, N] tile"""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0, 0), shape=(B, R, N)).astype(ct.float32)
    mu = ct.sum(x, axis=1, keepdims=True) / R
    d = x - mu
    var = ct.sum(d * d, axis=1, keepdims=True) / R
    w = ct.load(W, index=(0,), shape=(R,)).astype(ct.float32)
    y = d * ct.rsqrt(var + eps) * ct.reshape(w, (1, R, 1))
    ct.store(Y, index=(i, 0, 0), tile=y.astype(Y.dtype))


@ct.kernel
def argmin_ties(X, I, BM: C[int], BN: C[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, BN))
    ct.store(I, index=(i,), tile=ct.argmin(x, axis=1).astype(ct.int32))


@ct.kernel
def argmax_ties_axis0(X, I, BM: C[int], BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(BM, BN))
    ct.store(I, index=(0,), tile=ct.argmax(x, axis=0).astype(ct.int64))


@ct.kernel
def cumsum_int16_wrap(X, Y, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.cumsum(x, axis=0))


@ct.kernel
def cumprod_rev_rows(X, Y, BM: C[int], BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(BM, BN))
    ct.store(Y, index=(0, 0), tile=ct.cumprod(x, axis=1, reverse=True))


@ct.kernel
def gather_masked_ragged(X, Idx, Y, n: int, BN: C[int]):
    i = ct.bid(0)
    offs = i * BN + ct.arange(BN, dtype=ct.int32)
    idx = ct.gather(Idx, offs, padding_value=0)
    v = ct.gather(X, idx, mask=(offs < n) & (idx >= 0), padding_value=-1.0)
    ct.scatter(Y, offs, v, mask=offs < n)


@ct.kernel
def scatter_2d_mask(X, Y, BM: C[int], BN: C[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, BN), padding_mode=ZERO)
    r = i * BM + ct.arange(BM, dtype=ct.int32)
    c = ct.arange(BN, dtype=ct.int32)
    m = (r[:, None] < Y.shape[0]) & (c[None, :] < Y.shape[1]) & (x > 0)
    ct.scatter(Y, (r[:, None], c[None, :]), x, mask=m)


@ct.kernel
def uint8_avg_pool(X, Y, BN: C[int]):
    """(a + b + 1) // 2 in uint16 then back to uint8"""
    x = ct.load(X, index=(0, 0), shape=(2, BN)).astype(ct.uint16)
    s = ct.sum(x, axis=0) + 1
    ct.store(Y, index=(0,), tile=(s // 2).astype(ct.uint8))


@ct.kernel
def uint32_hash(X, Y, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    h = x * 2654435761
    h = h ^ (h >> 16)
    ct.store(Y, index=(0,), tile=h // 7 + h % 13)


@ct.kernel
def int64_big_ops(X, Y, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=(x * 3 - (1 << 40)) // 1000)


@ct.kernel
def int16_mixed(X, Y, Z, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(Z, index=(0,), tile=ct.maximum(x, y) - ct.minimum(x, y) * 2)


@ct.kernel
def where_nan(X, Y, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.where(x != x, 0.0, ct.where(x > 0.0, x, x * 0.1)))


@ct.kernel
def max_nan_props(X, Y, Z, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(Z, index=(0,), tile=ct.maximum(x, y))


@ct.kernel
def reshape_permute_units(X, Y, BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(1, BN))
    t = ct.reshape(x, (1, BN, 1))
    t = ct.permute(t, (2, 0, 1))
    t = ct.permute(t, (0, 2, 1))
    ct.store(Y, index=(0, 0), tile=ct.reshape(t, (BN, 1)) * 2.0)


@ct.kernel
def row_sum_f16_acc(X, Y, BM: C[int], BN: C[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.sum(x.astype(ct.float32), axis=1).astype(Y.dtype))


@ct.kernel
def col_max_ragged(X, Y, BM: C[int], BN: C[int]):
    j = ct.bid(0)
    acc = ct.full((BN,), -np.inf, dtype=ct.float32)
    for i in range(ct.cdiv(X.shape[0], BM)):
        x = ct.load(X, index=(i, j), shape=(BM, BN), padding_mode=ct.PaddingMode.NEG_INF)
        acc = ct.maximum(acc, ct.max(x, axis=0))
    ct.store(Y, index=(j,), tile=acc)


@ct.kernel
def loop_runtime_bound_i64(X, Y, n: int, BN: C[int]):
    acc = ct.zeros((BN,), dtype=ct.float32)
    for i in range(0, n, 1):
        acc = acc + ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def while_early_exit(X, Y, limit: float, BN: C[int]):
    acc = ct.zeros((BN,), dtype=ct.float32)
    i = 0
    while i < ct.cdiv(X.shape[0], BN):
        acc = acc + ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
        if ct.sum(acc) > limit:
            break
        i += 1
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def cdiv_unsigned_edge(X, Y, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.cdiv(x, 16) + x // 16)


@ct.kernel
def scalar_uint_div(X, Y, d: C[int], BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=x // d + x % d)


@ct.kernel
def full_int8_out_of_range(Y, BN: C[int]):
    ct.store(Y, index=(0,), tile=ct.full((BN,), 300, dtype=ct.int8))


@ct.kernel
def k_loop_dot(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A plain K loop accumulating in Y's type (f64 x f64 -> f64, uint8 x int8 -> int32)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=Y.dtype)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def tiny_dot(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(tm, tk)), ct.load(B, index=(0, 0), shape=(tk, tn)), acc)
    ct.store(Y, index=(0, 0), tile=acc)


@ct.kernel
def batched_3d_tile_dot(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """(2, tm, tk) @ (2, tk, tn) inside one program"""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((2, tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], tk)):
        acc = ct.mma(ct.load(A, index=(0, bm, k), shape=(2, tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(0, k, bn), shape=(2, tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(0, bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def masked_a_dot(A, B, Y, kv: int, tm: C[int], tn: C[int], tk: C[int]):
    """A masked past column kv with where (a computed A operand)"""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.where(cols[None, :] < kv, a, 0.0)
        acc = ct.mma(a, ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def atomic_add_f16(X, Y, BN: C[int]):
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.atomic_add(Y, ct.arange(BN, dtype=ct.int32) % 4, x)


@ct.kernel
def huge_tile(X, Y, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.exp(x))


@ct.kernel
def dot_f16_acc_epilogue(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float16)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=ct.tanh(acc))


@ct.kernel
def dot_no_loop_runtime_k(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """one K tile, no loop: K = tk"""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.load(A, index=(bm, 0), shape=(tm, tk), padding_mode=ZERO) @ ct.load(B, index=(0, bn), shape=(tk, tn), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gemv_dot(A, X, Y, tm: C[int], tk: C[int]):
    """matrix-vector as a dot with a 1-wide N"""
    bm = ct.bid(0)
    acc = ct.zeros((tm, 16), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        x = ct.load(X, index=(k, 0), shape=(tk, 16), padding_mode=ZERO)
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO), x, acc)
    ct.store(Y, index=(bm, 0), tile=acc.astype(Y.dtype))


@ct.kernel
def store_i64_index_scalar_neg(X, Y, off: int, BN: C[int]):
    """negative tile index at run time"""
    x = ct.load(X, index=(off,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=x)


@ct.kernel
def propagate_nan_max(X, Y, Z, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(Z, index=(0,), tile=ct.maximum(x, y, propagate_nan=True) + ct.max(x, axis=0))


@ct.kernel
def argmin_with_nan(X, I, BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(4, BN))
    ct.store(I, index=(0,), tile=ct.argmin(x, axis=1).astype(ct.int32))


@ct.kernel
def argmin_argmax_propagate(X, I, J, BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(4, BN))
    ct.store(I, index=(0,), tile=ct.argmin(x, axis=1, propagate_nan=True).astype(ct.int32))
    ct.store(J, index=(0,), tile=ct.argmax(x, axis=1, propagate_nan=True).astype(ct.int32))


@ct.kernel
def cumsum_u8_axis0(X, Y, BM: C[int], BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(BM, BN))
    ct.store(Y, index=(0, 0), tile=ct.cumsum(x, axis=0))


@ct.kernel
def f32_to_int_conversions(X, I8, U8, I32, U32, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(I8, index=(0,), tile=x.astype(ct.int8))
    ct.store(U8, index=(0,), tile=x.astype(ct.uint8))
    ct.store(I32, index=(0,), tile=x.astype(ct.int32))
    ct.store(U32, index=(0,), tile=x.astype(ct.uint32))


@ct.kernel
def narrowing_floats(X, H, B, E, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(H, index=(0,), tile=x.astype(ct.float16))
    ct.store(B, index=(0,), tile=x.astype(ct.bfloat16))
    ct.store(E, index=(0,), tile=x.astype(ct.float8_e4m3fn))


@ct.kernel
def u64_to_float(X, Y, D, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=x.astype(ct.float32))
    ct.store(D, index=(0,), tile=x.astype(ct.float64))


@ct.kernel
def unsigned_ops(X, Y, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=(~x) + (x >> 3) - ct.maximum(x, 4000000000))


@ct.kernel
def int_abs_neg(X, A, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(A, index=(0,), tile=ct.abs(x) - x)


@ct.kernel
def floor_ceil_neg(X, F, Cc, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(F, index=(0,), tile=ct.floor(x))
    ct.store(Cc, index=(0,), tile=ct.ceil(x))


@ct.kernel
def bool_sum_mean(X, S, M, BM: C[int], BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(BM, BN))
    ct.store(S, index=(0,), tile=ct.sum((x > 0).astype(ct.int32), axis=1))
    ct.store(M, index=(0,), tile=ct.sum(x, axis=1) / BN)


@ct.kernel
def i8_mul_wrap_cmp(X, Y, Z, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(Z, index=(0,), tile=ct.where(x * y > 0, x * y, -(x * y)))


@ct.kernel
def uint16_reduce_max_min(X, Y, BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(2, BN))
    ct.store(Y, index=(0,), tile=ct.max(x, axis=0) - ct.min(x, axis=0))


@ct.kernel
def cumsum_3d_mid(X, Y, A: C[int], B: C[int], N: C[int]):
    x = ct.load(X, index=(0, 0, 0), shape=(A, B, N))
    ct.store(Y, index=(0, 0, 0), tile=ct.cumsum(x, axis=1))


@ct.kernel
def argmax_3d_axis0(X, I, A: C[int], B: C[int], N: C[int]):
    x = ct.load(X, index=(0, 0, 0), shape=(A, B, N))
    ct.store(I, index=(0, 0), tile=ct.argmax(x, axis=0).astype(ct.int32))


@ct.kernel
def int8_sum(X, Y, BN: C[int]):
    x = ct.load(X, index=(0, 0), shape=(4, BN))
    ct.store(Y, index=(0,), tile=ct.sum(x, axis=0))


@ct.kernel
def gather_2d_i64(X, R, Cc, Y, BM: C[int], BN: C[int]):
    r = ct.load(R, index=(0,), shape=(BM,))
    c = ct.load(Cc, index=(0,), shape=(BN,))
    ct.store(Y, index=(0, 0), tile=ct.gather(X, (r[:, None], c[None, :]), padding_value=-5.0))


@ct.kernel
def permute_201(X, Y, A: C[int], B: C[int], N: C[int]):
    x = ct.load(X, index=(0, 0, 0), shape=(A, B, N))
    ct.store(Y, index=(0, 0, 0), tile=ct.permute(x, (2, 0, 1)))


@ct.kernel
def loop_i64_bounds(X, Y, start: ct.ScalarInt64, stop: ct.ScalarInt64, BN: C[int]):
    acc = ct.zeros((BN,), dtype=ct.int64)
    for i in range(start, stop, 5):
        acc = acc + (i - start)
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def bcast_3d_mix(X, V, W, Y, A: C[int], B: C[int], N: C[int]):
    x = ct.load(X, index=(0, 0, 0), shape=(A, B, N))
    v = ct.load(V, index=(0,), shape=(B,))
    w = ct.load(W, index=(0,), shape=(N,))
    ct.store(Y, index=(0, 0, 0), tile=x * v[None, :, None] + w[None, None, :] - 1.0)


@ct.kernel
def f16_math(X, Y, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.exp2(x) + ct.log(ct.abs(x) + 1.0) + ct.sqrt(ct.abs(x)))


@ct.kernel
def float_mod_neg(X, Y, Z, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    y = ct.load(Y, index=(0,), shape=(BN,))
    ct.store(Z, index=(0,), tile=x % y)


@ct.kernel
def where_int_scalar(X, Y, BN: C[int]):
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.where(x > 0, x, -1) * 3)


@ct.kernel
def scatter_dup_add(X, Idx, Y, BN: C[int]):
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,))
    i = ct.load(Idx, index=(ct.bid(0),), shape=(BN,))
    ct.atomic_add(Y, i, x)


@ct.kernel
def unsigned_loop_index(X, Y, n: ct.uint32, BN: C[int]):
    acc = ct.zeros((BN,), dtype=ct.float32)
    for i in range(n):
        acc = acc + ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(0,), tile=acc)


# ----------------------------------------------------------------------------------------------- specs and paths

SPECS = {
    "gemm_row_col_scalar_epi": [_a((200, 136)), _a((136, 192)), _a((200,), F32), _a((192,), F32), _a((200, 192)), 1.5,
                                128, 64, 64],
    "gemm_batched_at": [_a((3, 136, 200)), _a((3, 136, 192)), _a((3, 200, 192)), 128, 64, 64],
    "gemm_tf32": [_a((200, 136), F32), _a((136, 192), F32), _a((200, 192), F32), 128, 64, 32],
    "gemm_f32_inputs_cast_bf16": [_a((200, 136), F32), _a((136, 192), F32), _a((200, 192), BF16), 128, 64, 64],
    "gemm_fp8_scaled": [_a((256, 256), "float8_e4m3fn"), _a((256, 256), "float8_e4m3fn"), _a((256, 256)), 0.5, 0.25,
                        128, 128, 128],
    "gemm_split_k_atomic": [_a((200, 512)), _a((512, 192)), _a((200, 192), F32), 4, 128, 64, 64],
    "gemm_bt_strided_bias_relu": [_a((200, 136)), _a((192, 136), F16, (272, 1)), _a((192,)), _a((200, 192)),
                                  128, 64, 64],
    "gemm_int8_rowscale": [_a((256, 256), "int8"), _a((256, 256), "int8"), _a((256,), F32), _a((256,), F32),
                           _a((256, 256)), 128, 128, 64],
    "u8_s8_dot": [_a((256, 256), "uint8"), _a((256, 256), "int8"), _a((256, 256), "int32"), 128, 128, 64],
    "dot_f16_acc_epilogue": [_a((200, 136)), _a((136, 192)), _a((200, 192)), 128, 64, 64],
    "dot_no_loop_runtime_k": [_a((200, 64)), _a((64, 192)), _a((200, 192)), 128, 64, 64],
    "gemv_dot": [_a((200, 136)), _a((136, 16)), _a((200, 16)), 128, 64],
    "f64_dot": [_a((64, 64), "float64"), _a((64, 64), "float64"), _a((64, 64), "float64"), 32, 32, 16],
    "tiny_dot": [_a((16, 16)), _a((16, 8)), _a((16, 8), F32), 16, 8, 16],
    "batched_3d_tile_dot": [_a((2, 200, 136)), _a((2, 136, 192)), _a((2, 200, 192)), 64, 64, 64],
    "masked_a_dot": [_a((200, 136)), _a((136, 192)), _a((200, 192)), 100, 128, 64, 64],
    "huge_tile": [_a((1 << 22,), F32), _a((1 << 22,), F32), 1 << 22],
}

TENSOR_CORE = ["gemm_row_col_scalar_epi", "gemm_batched_at", "gemm_tf32", "gemm_f32_inputs_cast_bf16", "gemm_fp8_scaled",
               "gemm_split_k_atomic", "gemm_bt_strided_bias_relu", "gemm_int8_rowscale", "u8_s8_dot",
               "dot_f16_acc_epilogue", "dot_no_loop_runtime_k", "gemv_dot", "masked_a_dot"]
"""Dot programs that take the TMA + WGMMA kernel (``masked_a_dot``, A masked past a runtime column by
``k * tk + arange``, since session 31's K-tail masks on computed operands: sweep 22's emulated twins)."""

SIMT_DOTS = {"f64_dot": "not f64", "tiny_dot": "this dot is not in a loop",
             "batched_3d_tile_dot": "a 3-D dot of tile [2, 64, 64]"}
"""Dot programs the tensor-core tier refuses: the located warning's reason (the SIMT path then says how it
computes the dot)."""


KERNELS = {"f64_dot": "k_loop_dot", "u8_s8_dot": "k_loop_dot"}
"""Programs named apart from their kernel (one kernel, two specs)."""


def kernel_of(name):
    return globals()[KERNELS.get(name, name)]


def _compile(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    return compile_once(cutile_bytecode(kernel_of(name), SPECS[name]), name, arch="sm_90a", ptxas=False)


@pytest.mark.parametrize("name", TENSOR_CORE)
def test_dot_programs_take_the_tensor_cores(name):
    p = _compile(name)
    assert p.kind == "gemm", (name, p.kind, p.remarks)
    assert any("compiled through the TileAS tier to the warp-specialized TMA/WGMMA kernel" in r for r in p.remarks)


@pytest.mark.parametrize("name", sorted(SIMT_DOTS))
def test_a_refused_dot_says_why_at_its_line(name):
    """A dot program on the SIMT path: a located warning at the dot naming the reason, and a remark naming
    how the SIMT path computes it (never a silent slow path)."""
    p = _compile(name)
    assert p.kind == "simt", (name, p.kind)
    warnings = [r for r in p.remarks if ": warning: " in r and SIMT_DOTS[name] in r]
    assert warnings and warnings[0].startswith(f"{__file__}:"), p.remarks
    assert "[the tensor-core path refused this kernel: the SIMT path compiles it" in warnings[0]
    assert any(": remark: the SIMT path computes this" in r for r in p.remarks), p.remarks


def test_a_tile_too_large_stops_at_the_users_line():
    from tileorch.diagnostics import CompileError, LocatedError

    with pytest.raises((LocatedError, CompileError)) as info:
        _compile("huge_tile")
    message = str(info.value)
    assert message.startswith(f"{__file__}:") and ": error: a tile of 4194304 elements is too large" in message
    assert "Traceback" not in message and "internal error" not in message


# ----------------------------------------------------------------------------------------------- tensor cores, emulated

GEMM_RUNS = {"gemm_row_col_scalar_epi": ((2, 3), (4,)), "gemm_batched_at": ((2, 3, 3), (2,)),
             "gemm_bt_strided_bias_relu": ((2, 3), (3,)), "gemm_f32_inputs_cast_bf16": ((2, 3), (2,)),
             "gemm_split_k_atomic": ((2, 3, 4), ())}
"""name -> (launch grid, written arguments) of the tensor-core programs the emulator runs."""


@pytest.fixture
def gemm(monkeypatch):
    programs = {n: UserProgram(kernel_of(n), SPECS[n], grid, "gemm", outputs=out) for n, (grid, out) in GEMM_RUNS.items()}
    s4.add_sweep_programs(monkeypatch, programs)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **programs})
    return s14e.emulate


def _h(*shape, scale=1.0, dtype=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(dtype)


def _nan(shape, dtype=np.float16):
    return np.full(shape, np.nan, dtype)


def _mm(a, b):
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def test_gemm_epilogue_of_a_row_vector_a_column_vector_and_scalars(gemm):
    a, b, r, c = _h(200, 136), _h(136, 192, scale=0.25), _h(200, dtype=np.float32), _h(192, dtype=np.float32)
    y = gemm("gemm_row_col_scalar_epi", {0: a, 1: b, 2: r, 3: c, 4: _nan((200, 192))})[4]
    s14e._check(y, 1.5 * _mm(a, b) * r[:, None] + c[None, :] - 0.5, 3e-2, 1e-2)


def test_batched_transposed_a(gemm):
    a, b = _h(3, 136, 200), _h(3, 136, 192, scale=0.25)
    y = gemm("gemm_batched_at", {0: a, 1: b, 2: _nan((3, 200, 192))})[2]
    s14e._check(y, np.einsum("lkm,lkn->lmn", a.astype(np.float64), b.astype(np.float64)), 3e-2, 1e-2)


def test_strided_transposed_b_with_bias_and_relu(gemm):
    """B^T is columns 0..135 of a [192, 272] array (row stride 272)."""
    a, bt, bias = _h(200, 136), _h(192, 272, scale=0.25)[:, :136], _h(192)
    y = gemm("gemm_bt_strided_bias_relu", {0: a, 1: bt, 2: bias, 3: _nan((200, 192))})[3]
    s14e._check(y, np.maximum(_mm(a, bt.T) + bias.astype(np.float64)[None, :], 0.0), 3e-2, 1e-2)


def test_f32_loads_cast_to_bf16_before_the_dot(gemm):
    a, b = _h(200, 136, dtype=np.float32), _h(136, 192, scale=0.25, dtype=np.float32)
    y = gemm("gemm_f32_inputs_cast_bf16", {0: a, 1: b, 2: _nan((200, 192), NP_BF16)})[2]
    s14e._check(y, _mm(a.astype(NP_BF16), b.astype(NP_BF16)), 8e-2, 1e-2)


def test_split_k_by_hand_with_atomics(gemm):
    """4 K slices of 2 K tiles each (program id 2), each adding its partial tile into a zeroed Y."""
    a, b = _h(200, 512, scale=0.5), _h(512, 192, scale=0.25)
    y = gemm("gemm_split_k_atomic", {0: a, 1: b, 2: np.zeros((200, 192), np.float32)})[2]
    s14e._check(y, _mm(a, b), 3e-2, 1e-2)


# ----------------------------------------------------------------------------------------------- SIMT, emulated


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _close(got, want, atol=1e-5, rtol=1e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), atol=atol, rtol=rtol)


def test_softmax_over_the_last_axis_of_a_3d_tile(emulate):
    x = _f32(8, 4, 64).astype(np.float16)
    y = emulate(softmax_3d_last, [x, _nan((8, 4, 64))], [2, 4, 64], grid=(4,))[1]
    e = np.exp(x.astype(np.float64) - x.max(axis=2, keepdims=True))
    _close(y, e / e.sum(2, keepdims=True), 2e-3, 2e-3)


def test_layernorm_over_the_middle_axis_of_a_3d_tile(emulate):
    x, w = _f32(4, 8, 16), _f32(8)
    y = emulate(layernorm_3d_middle, [x, w, _nan((4, 8, 16), np.float32)], [1e-5, 2, 8, 16], grid=(2,))[2]
    mu = x.mean(1, keepdims=True)
    var = ((x - mu) ** 2).mean(1, keepdims=True)
    _close(y, (x - mu) / np.sqrt(var + 1e-5) * w[None, :, None], 1e-4, 1e-4)


def test_argmin_and_argmax_with_ties_give_the_first_index(emulate):
    x = RNG.integers(0, 3, (8, 16)).astype(np.float32)
    x[2, :] = 5.0
    i = emulate(argmin_ties, [x, np.full(8, -7, np.int32)], [4, 16], grid=(2,))[1]
    np.testing.assert_array_equal(i, x.argmin(1))
    x[:, 4] = 1.0
    j = emulate(argmax_ties_axis0, [x, np.full(16, -7, np.int64)], [8, 16])[1]
    np.testing.assert_array_equal(j, x.argmax(0))


NAN_ROWS = np.tile(np.array([[3, np.nan, 1, 1], [2, 2, 2, 2], [np.nan, np.nan, 0, -1], [5, 1, np.nan, 1]], np.float32),
                   (1, 4))


def test_argmin_skips_nan_unless_asked_to_propagate(emulate):
    """``propagate_nan=False`` (cuTile's default): NaN never wins (numpy's ``nanargmin``); ``True``: the first NaN
    wins (numpy's ``argmin`` / ``argmax``)."""
    i = emulate(argmin_with_nan, [NAN_ROWS, np.full(4, -7, np.int32)], [16])[1]
    np.testing.assert_array_equal(i, np.nanargmin(NAN_ROWS, 1))
    i, j = emulate(argmin_argmax_propagate, [NAN_ROWS, np.full(4, -7, np.int32), np.full(4, -7, np.int32)], [16])[1:]
    np.testing.assert_array_equal(i, NAN_ROWS.argmin(1))
    np.testing.assert_array_equal(j, NAN_ROWS.argmax(1))


def test_integer_scans_wrap(emulate):
    x = RNG.integers(-30000, 30000, 32).astype(np.int16)
    y = emulate(cumsum_int16_wrap, [x, np.full(32, SENTINEL, np.int16)], [32])[1]
    np.testing.assert_array_equal(y, np.cumsum(x.astype(np.int64)).astype(np.int16))
    u = RNG.integers(0, 256, (8, 16)).astype(np.uint8)
    v = emulate(cumsum_u8_axis0, [u, np.full((8, 16), SENTINEL, np.uint8)], [8, 16])[1]
    np.testing.assert_array_equal(v, np.cumsum(u.astype(np.int64), 0).astype(np.uint8))


def test_reversed_cumprod_along_rows(emulate):
    x = (RNG.random((4, 8)) + 0.5).astype(np.float32)
    y = emulate(cumprod_rev_rows, [x, _nan((4, 8), np.float32)], [4, 8])[1]
    _close(y, np.cumprod(x[:, ::-1].astype(np.float64), axis=1)[:, ::-1])


def test_masked_gather_and_scatter_on_ragged_sizes(emulate):
    table, idx = _f32(50), RNG.integers(-3, 50, 37).astype(np.int32)
    y = emulate(gather_masked_ragged, [table, idx, _nan(37, np.float32)], [37, 16], grid=(3,))[2]
    np.testing.assert_array_equal(y, np.where(idx >= 0, table[np.clip(idx, 0, 49)], -1.0).astype(np.float32))
    x = _f32(10, 8)
    z = emulate(scatter_2d_mask, [x, np.full((10, 8), 9.0, np.float32)], [4, 8], grid=(3,))[1]
    np.testing.assert_array_equal(z, np.where(x > 0, x, 9.0).astype(np.float32))


def test_small_unsigned_and_signed_integers(emulate):
    x = RNG.integers(0, 256, (2, 16)).astype(np.uint8)
    x[:, 0] = 255
    y = emulate(uint8_avg_pool, [x, np.full(16, SENTINEL, np.uint8)], [16])[1]
    np.testing.assert_array_equal(y, ((x.astype(np.int64).sum(0) + 1) // 2).astype(np.uint8))
    u = np.array([[0, 65535, 40000, 1] * 4, [65535, 0, 2, 40001] * 4], np.uint16)
    v = emulate(uint16_reduce_max_min, [u, np.full(16, SENTINEL, np.uint16)], [16])[1]
    np.testing.assert_array_equal(v, u.max(0) - u.min(0))
    a, b = (RNG.integers(-32768, 32768, 16).astype(np.int16) for _ in range(2))
    z = emulate(int16_mixed, [a, b, np.full(16, SENTINEL, np.int16)], [16])[2]
    np.testing.assert_array_equal(z, (np.maximum(a, b).astype(np.int64) - np.minimum(a, b) * 2).astype(np.int16))


def test_uint32_hash_and_unsigned_bit_ops(emulate):
    x = RNG.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)
    y = emulate(uint32_hash, [x, np.full(16, SENTINEL, np.uint32)], [16])[1]
    h = (x.astype(np.uint64) * 2654435761) & 0xFFFFFFFF
    h = h ^ (h >> 16)
    np.testing.assert_array_equal(y, ((h // 7 + h % 13) & 0xFFFFFFFF).astype(np.uint32))
    x = np.array([0, 1, 2**32 - 1, 2**31, 4000000001, 3999999999, 12345, 2**31 - 1] * 2, np.uint32)
    y = emulate(unsigned_ops, [x, np.full(16, SENTINEL, np.uint32)], [16])[1]
    want = ((~x).astype(np.uint64) + (x >> 3) - np.maximum(x, np.uint32(4000000000)).astype(np.uint64)) & 0xFFFFFFFF
    np.testing.assert_array_equal(y, want.astype(np.uint32))


def test_unsigned_division_by_a_constant_and_cdiv(emulate):
    x = np.array([255, 254, 0, 1, 16, 17, 240, 241, 128, 127, 15, 31, 32, 33, 200, 100], np.uint8)
    y = emulate(cdiv_unsigned_edge, [x, np.full(16, SENTINEL, np.uint8)], [16])[1]
    np.testing.assert_array_equal(y, (-(-x.astype(np.int64) // 16) + x.astype(np.int64) // 16).astype(np.uint8))
    u = RNG.integers(0, 2**32, 16, dtype=np.uint64).astype(np.uint32)
    v = emulate(scalar_uint_div, [u, np.full(16, SENTINEL, np.uint32)], [7, 16])[1]
    np.testing.assert_array_equal(v, (u // 7 + u % 7).astype(np.uint32))


def test_int64_beyond_32_bits(emulate):
    x = RNG.integers(-2**50, 2**50, 16).astype(np.int64)
    y = emulate(int64_big_ops, [x, np.full(16, SENTINEL, np.int64)], [16])[1]
    np.testing.assert_array_equal(y, np.array([(int(v) * 3 - (1 << 40)) // 1000 for v in x], np.int64))


def test_int8_products_that_wrap_and_their_absolute_value(emulate):
    """``where(p > 0, p, -p)`` of int8 products: LLVM writes ``abs.s16`` (an emulator ``Fault`` before)."""
    x = np.array([100, -100, 16, -128, 127, 3, 0, -1] * 2, np.int8)
    y = np.array([3, 3, 16, -1, 127, -50, 5, -128] * 2, np.int8)
    z = emulate(i8_mul_wrap_cmp, [x, y, np.full(16, SENTINEL, np.int8)], [16])[2]
    p = ((x.astype(np.int64) * y + 128) % 256 - 128)
    np.testing.assert_array_equal(z, ((np.where(p > 0, p, -p) + 128) % 256 - 128).astype(np.int8))


def test_int_abs_of_the_minimum_wraps(emulate):
    x = np.array([-128, 127, -1, 0, 5, -5, -127, 1] * 2, np.int8)
    a = emulate(int_abs_neg, [x, np.full(16, SENTINEL, np.int8)], [16])[1]
    np.testing.assert_array_equal(a, ((np.abs(x.astype(np.int64)) - x + 128) % 256 - 128).astype(np.int8))


def test_float_to_integer_conversions_saturate(emulate):
    """NaN -> 0, out-of-range values clamp to the type's range, fractions truncate (the spec's ``ftoi``; PTX's
    ``cvt.rzi.sat``)."""
    x = np.array([1.7, -1.7, 127.9, -128.5, 300.0, -300.0, np.nan, 3e9, -3e9, np.inf, -np.inf, 255.5, 0.5, -0.5,
                  65535.0, 4.5e9], np.float32)
    outs = emulate(f32_to_int_conversions, [x] + [np.full(16, SENTINEL, d) for d in (np.int8, np.uint8, np.int32,
                                                                                     np.uint32)], [16])[1:]
    for got, dt in zip(outs, (np.int8, np.uint8, np.int32, np.uint32)):
        info = np.iinfo(dt)
        want = np.clip(np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0, posinf=info.max, neginf=info.min)),
                       info.min, info.max)
        np.testing.assert_array_equal(got, want.astype(dt))


def test_narrowing_float_conversions(emulate):
    x = np.array([1e5, -1e5, 70000, 65504, 65520, 1e-8, 3e38, np.nan, 448, 480, 500, -1e4, 0.001, 1.0 / 3, np.inf,
                  -np.inf], np.float32)
    with np.errstate(over="ignore"):
        h, b = emulate(narrowing_floats, [x, _nan(16), _nan(16, NP_BF16), np.zeros(16, ml_dtypes.float8_e4m3fn)],
                       [16])[1:3]
        np.testing.assert_array_equal(h, x.astype(np.float16))
    np.testing.assert_array_equal(np.asarray(b, np.float32), x.astype(NP_BF16).astype(np.float32))


def test_u64_to_float_rounds_to_nearest(emulate):
    x = np.array([2**64 - 1, 2**63, 2**63 + 2**40, 1, 0, 2**53 + 1, 2**24 + 1, 12345] * 2, np.uint64)
    y, d = emulate(u64_to_float, [x, _nan(16, np.float32), _nan(16, np.float64)], [16])[1:]
    np.testing.assert_array_equal(y, x.astype(np.float32))
    np.testing.assert_array_equal(d, x.astype(np.float64))


def test_floor_and_ceil_keep_signed_zeros_and_nan(emulate):
    x = np.array([-1.5, -0.5, -0.0, 0.0, 1.5, -2.0, 1e30, -1e-30, np.nan, np.inf, -np.inf, 2.5, -2.5, 0.49999997,
                  -1.0000001, 8388609.0], np.float32)
    f, c = emulate(floor_ceil_neg, [x, np.full(16, SENTINEL, np.float32), np.full(16, SENTINEL, np.float32)], [16])[1:]
    np.testing.assert_array_equal(f, np.floor(x))
    np.testing.assert_array_equal(c, np.ceil(x))
    np.testing.assert_array_equal(np.signbit(f), np.signbit(np.floor(x)))
    np.testing.assert_array_equal(np.signbit(c), np.signbit(np.ceil(x)))


def test_where_on_nan_and_maximum_with_and_without_nan_propagation(emulate):
    x = np.array([np.nan, 1, -1, 0, -0.0, np.inf, -np.inf, np.nan] * 2, np.float32)
    y = emulate(where_nan, [x, np.full(16, SENTINEL, np.float32)], [16])[1]
    np.testing.assert_array_equal(y, np.where(np.isnan(x), 0.0, np.where(x > 0, x, x * np.float32(0.1))))
    a = np.array([np.nan, 1, -0.0, 0.0, np.nan, 2, -np.inf, 3] * 2, np.float32)
    b = np.array([1, np.nan, 0.0, -0.0, np.nan, np.inf, np.nan, 3] * 2, np.float32)
    z = emulate(max_nan_props, [a, b, np.full(16, SENTINEL, np.float32)], [16])[2]
    np.testing.assert_array_equal(z, np.fmax(a, b))  # maxNum: NaN only where both are
    np.testing.assert_array_equal(np.signbit(z[2:4]), [False, False])
    w = emulate(propagate_nan_max, [a, b, np.full(16, SENTINEL, np.float32)], [16])[2]
    np.testing.assert_array_equal(w, np.maximum(a, b) + np.nanmax(a))


def test_reshape_and_permute_of_unit_dims(emulate):
    x = _f32(1, 16)
    y = emulate(reshape_permute_units, [x, _nan((16, 1), np.float32)], [16])[1]
    np.testing.assert_array_equal(y, x.reshape(16, 1) * 2)


def test_row_sums_and_a_column_max_on_ragged_shapes(emulate):
    x = _f32(10, 40).astype(np.float16)
    y = emulate(row_sum_f16_acc, [x, _nan(10)], [4, 64], grid=(3,))[1]
    _close(y, x.astype(np.float64).sum(1), 1e-2, 1e-3)
    m = _f32(37, 20)
    z = emulate(col_max_ragged, [m, _nan(20, np.float32)], [16, 8], grid=(3,))[1]
    np.testing.assert_array_equal(z, m.max(0))


def test_bool_counts_and_a_mean(emulate):
    x = _f32(4, 16)
    s, m = emulate(bool_sum_mean, [x, np.full(4, SENTINEL, np.int32), _nan(4, np.float32)], [4, 16])[1:]
    np.testing.assert_array_equal(s, (x > 0).sum(1))
    _close(m, x.mean(1), 1e-6)


def test_loops_with_runtime_bounds_and_an_early_exit(emulate):
    x = _f32(64)
    y = emulate(loop_runtime_bound_i64, [x, _nan(8, np.float32)], [5, 8])[1]
    _close(y, x[:40].reshape(5, 8).sum(0))
    x = np.abs(x)
    z = emulate(while_early_exit, [x, _nan(8, np.float32)], [10.0, 8])[1]
    acc = np.zeros(8)
    for i in range(8):
        acc = acc + x[i * 8:(i + 1) * 8]
        if acc.sum() > 10.0:
            break
    _close(z, acc)


def test_a_negative_runtime_tile_index_reads_the_padding(emulate):
    x = np.arange(64, dtype=np.float32)
    y = emulate(store_i64_index_scalar_neg, [x, _nan(16, np.float32)], [-3, 16])[1]
    np.testing.assert_array_equal(y, 0.0)


def test_f16_atomic_add(emulate):
    x = np.arange(64, dtype=np.float16) * 0.5
    y = emulate(atomic_add_f16, [x, np.zeros(4, np.float16)], [16], grid=(4,))[1]
    np.testing.assert_array_equal(y, [x[i::4].astype(np.float64).sum() for i in range(4)])


def test_an_out_of_range_int8_constant_is_cutiles_wrapped_value(emulate):
    """``ct.full((BN,), 300, dtype=ct.int8)``: cuTile's exporter writes 44 (300 mod 256) into the bytecode."""
    y = emulate(full_int8_out_of_range, [np.full(16, SENTINEL, np.int8)], [16])[0]
    np.testing.assert_array_equal(y, 44)



# ----------------------------------------------------------------------------------------------- 3-D tiles, int64 loops


MAX64 = 2**63 - 1


def test_scans_permutes_and_broadcasts_of_3d_tiles(emulate):
    x = _f32(2, 4, 8)
    y = emulate(cumsum_3d_mid, [x, _nan((2, 4, 8), np.float32)], [2, 4, 8])[1]
    _close(y, np.cumsum(x.astype(np.float64), 1))
    z = emulate(permute_201, [x, _nan((8, 2, 4), np.float32)], [2, 4, 8])[1]
    np.testing.assert_array_equal(z, x.transpose(2, 0, 1))
    v, w = _f32(4), _f32(8)
    b = emulate(bcast_3d_mix, [x, v, w, _nan((2, 4, 8), np.float32)], [2, 4, 8])[3]
    _close(b, x * v[None, :, None] + w[None, None, :] - 1.0)
    t = RNG.integers(0, 3, (4, 2, 8)).astype(np.float32)
    i = emulate(argmax_3d_axis0, [t, np.full((2, 8), -7, np.int32)], [4, 2, 8])[1]
    np.testing.assert_array_equal(i, t.argmax(0))


def test_int8_sum_wraps_and_where_with_an_int_scalar(emulate):
    x = RNG.integers(-128, 128, (4, 16)).astype(np.int8)
    y = emulate(int8_sum, [x, np.full(16, SENTINEL, np.int8)], [16])[1]
    np.testing.assert_array_equal(y, ((x.astype(np.int64).sum(0) + 128) % 256 - 128).astype(np.int8))
    v = np.array([3, -3, 0, 7, -100, 2**30, -2**31, 1], np.int32)
    w = emulate(where_int_scalar, [v, np.full(8, SENTINEL, np.int32)], [8])[1]
    np.testing.assert_array_equal(w, (np.where(v > 0, v, -1).astype(np.int64) * 3).astype(np.int32))


def test_a_2d_gather_by_int64_indices_pads_out_of_range(emulate):
    table = _f32(20, 12)
    r = np.array([0, 19, 25, -1, 3, 7, 7, 2], np.int64)
    c = np.array([0, 11, 12, 5, -2, 1, 1, 3], np.int64)
    y = emulate(gather_2d_i64, [table, r, c, _nan((8, 8), np.float32)], [8, 8])[3]
    inside = (r[:, None] >= 0) & (r[:, None] < 20) & (c[None, :] >= 0) & (c[None, :] < 12)
    np.testing.assert_array_equal(y, np.where(inside, table[np.clip(r, 0, 19)[:, None], np.clip(c, 0, 11)[None, :]],
                                              -5.0).astype(np.float32))


def test_atomic_adds_to_repeated_indices(emulate):
    x, i = np.arange(32, dtype=np.float32), np.array([0, 1, 0, 1, 2, 2, 2, 0] * 4, np.int32)
    y = emulate(scatter_dup_add, [x, i, np.zeros(4, np.float32)], [8], grid=(4,))[2]
    np.testing.assert_array_equal(y, np.bincount(i, weights=x, minlength=4).astype(np.float32))


def test_f16_math_and_float_modulo_of_negative_operands(emulate):
    x = (RNG.standard_normal(16) * 3).astype(np.float16)
    y = emulate(f16_math, [x, _nan(16)], [16])[1]
    xf = x.astype(np.float64)
    _close(y, np.exp2(xf) + np.log(np.abs(xf) + 1) + np.sqrt(np.abs(xf)), 1e-2, 1e-2)
    a = np.array([5.5, -5.5, 5.5, -5.5, 0.0, -0.0, 1e10, 3.0], np.float32)
    b = np.array([2, 2, -2, -2, 3, 3, 3, np.inf], np.float32)
    m = emulate(float_mod_neg, [a, b, np.full(8, SENTINEL, np.float32)], [8])[2]
    np.testing.assert_array_equal(m, np.mod(a.astype(np.float64), b.astype(np.float64)).astype(np.float32))


def test_a_loop_over_an_unsigned_count(emulate):
    x = _f32(64)
    y = emulate(unsigned_loop_index, [x, _nan(8, np.float32)], [5, 8])[1]
    _close(y, x[:40].reshape(5, 8).sum(0))


@pytest.mark.parametrize("start, stop", [(MAX64 - 12, MAX64), (0, 23), (-MAX64 - 1, -MAX64 + 9)])
def test_an_int64_loop_near_the_int64_maximum(emulate, start, stop):
    """``range(start, stop, 5)`` over ``ct.ScalarInt64`` bounds: before review 28, ``MAX - 12`` never ended."""
    y = emulate(loop_i64_bounds, [np.zeros(8, np.int64), np.full(8, SENTINEL, np.int64)], [start, stop, 8])[1]
    np.testing.assert_array_equal(y, sum(i - start for i in range(start, stop, 5)))
