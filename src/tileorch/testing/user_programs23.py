"""The twenty-third user sweep (session 32: acceptance runs cuTile programs nobody here has seen): 39 cuTile 1.7
programs written as users write them, 36 without a dot (memory-bound, elementwise, reductions, scans), in the
areas the earlier sweeps covered least.

Normalization backward: RMSNorm backward with dgamma partial sums per program (a loop over the program's rows),
LayerNorm backward over a block of rows per program (dx, and dgamma / dbeta partials stored per program for a
second reduction).  Rotary embedding on the half-split layout (NeoX: the halves as the last axis' two tiles) and
on the interleaved layout (GPT-J: even / odd columns by ``ct.gather`` / ``ct.scatter``).  Softmax with an
additive mask whose rows can be all ``-inf``, twice: as torch computes it (NaN rows) and the "safe" variant
users write (0 rows).  Top-1 with ties (``ct.argmax`` gives the first index) along rows and columns; the max and
argmin of columns with NaNs (``propagate_nan=True``).  A float histogram by ``atomic_add`` (torch.histc's bins,
values out of range dropped); segment sums over CSR offsets with a data-dependent trip count; a Collatz step
count by a scalar ``while`` loop; a ``while True`` scan with ``break``; nested loops whose inner bounds are
loaded offsets.  Scans: cumsum down axis 0 with a carry across row tiles, cumprod along axis 1 in f64 (and
reversed), exclusive int64 positions of a bool mask.  Quantization: int8 per row with saturation, e4m3 with a
per-row scale and an explicit clamp to +-448, int8 dequant with per-group f16 scales to bf16.  Integers: Python
``//`` and ``%`` of negatives, arithmetic and logical right shifts, bitwise ops, min / max of uint32 above
2**31, a wrapping uint32 multiply, saturating uint8 adds.  Casts of NaN / inf / overflow to f16 and bf16, clamp
with NaN by ``ct.minimum(..., propagate_nan=True)``, ``ct.where`` with a row and a column broadcast, keepdims
reductions along each axis of a 3-D tile, a ``[B, H, S, D]`` to ``[B, S, H, D]`` permute on a 3-axis grid, 2 x 2
max pooling of odd-sized images (``NEG_INF`` padding), gather / scatter through an index array with -1 holes, a
one-program reduction (grid of 1), strided views (``q.transpose(1, 2)`` not made contiguous, a column-major
``w.t()``, a slice keeping its row stride), bool tiles, f64 variance and logsumexp, f16 * bf16 + f32 in one
expression, scalar arguments of each kind.  With a dot: a Gram matrix ``X^T X`` (the A tile transposed by
``ct.transpose``; the WGMMA tier), a per-head causal score tile stored per key tile on a 3-axis grid and a
one-hot matmul (the embedding gradient as ``onehot^T @ dY``), both refused by the tier with a located warning
and run on the SIMT path's mma.sync.

Found by this sweep: ``ct.exp`` / ``ct.log`` of f64 tiles stopped the compile ("exp on f64 ... not supported",
located): now computed in f64 within 2 ulp (tileaa_to_simt/f64_math.py; tests/unit/test_f64_math_emulated.py
failed before), and with them ``exp2`` / ``log2``, ``ct.pow`` (``x ** 0.5``: "pow on f64" before) and ``ct.tanh``
of f64.  cuTile's own: a Python float literal in an f64 expression reaches the bytecode rounded to f32
(``x * 1.4426950408889634`` multiplies by ``1.4426950216293335``; ``ct.full(..., 0.1, dtype=ct.float64)``
likewise), and :data:`REJECTED_BY_CUTILE` (a float -> int cast with a rounding mode).  No program computed a
wrong result on the interpreter or the PTX emulator.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (a spec entry
``(shape, dtype, strides)`` is a strided view), driven by tests/unit/test_user_sweep23_compile.py (path,
remarks, ptxas), tests/unit/test_user_sweep23_interp.py (the SIMT interpreter against numpy),
tests/unit/test_user_sweep23_emulated.py (the PTX emulator) and tests/gpu/test_user_sweep23_gpu.py (the GPU,
the same references).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF
F16, BF16, F32, F64 = "float16", "bfloat16", "float32", "float64"
I8, I16, I32, I64, U8, U16, U32, B = "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "bool_"
E4M3 = "float8_e4m3fn"


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


# ----------------------------------------------------------------------------------------------- norms, backward


@ct.kernel
def rmsnorm_bwd_dx_dgamma_partials(X, W, DY, Rstd, DX, DWp, rows_per_prog: int, N: ConstInt):
    """RMSNorm backward as Liger / Unsloth write it: each program walks ``rows_per_prog`` rows,
    ``dx = rstd * (dy * w - x * rstd^2 * mean(dy * w * x))``, and accumulates ``dy * x * rstd`` into an f32
    row that it stores as its dgamma partial ``DWp[pid]`` (the host sums the partials)."""
    pid = ct.bid(0)
    M = X.shape[0]
    w = ct.load(W, index=(0,), shape=(N,), padding_mode=ZERO).astype(ct.float32)
    dw = ct.zeros((N,), dtype=ct.float32)
    start = pid * rows_per_prog
    for r in range(start, min(start + rows_per_prog, M)):
        x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=ZERO).astype(ct.float32)
        dy = ct.load(DY, index=(r, 0), shape=(1, N), padding_mode=ZERO).astype(ct.float32)
        rstd = ct.load(Rstd, index=(r,), shape=())
        xhat = x * rstd
        wdy = dy * w[None, :]
        c = ct.sum(wdy * xhat, axis=1, keepdims=True) / X.shape[1]
        dx = (wdy - xhat * c) * rstd
        ct.store(DX, index=(r, 0), tile=dx.astype(DX.dtype))
        dw = dw + ct.reshape(dy * xhat, (N,))
    ct.store(DWp, index=(pid, 0), tile=ct.reshape(dw, (1, N)))


@ct.kernel
def layernorm_bwd_block_rows_partials(X, W, DY, Mean, Rstd, DX, DWp, DBp, BM: ConstInt, N: ConstInt):
    """LayerNorm backward on a block of ``BM`` rows per program (ragged M and N): dx from the row sums of
    ``w * dy`` and ``w * dy * xhat``; dgamma and dbeta summed over the block's rows (padded rows zero) and
    stored as this program's partial row."""
    pid = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(pid, 0), shape=(BM, N), padding_mode=ZERO).astype(ct.float32)
    dy = ct.load(DY, index=(pid, 0), shape=(BM, N), padding_mode=ZERO).astype(ct.float32)
    w = ct.load(W, index=(0,), shape=(N,), padding_mode=ZERO)
    mean = ct.load(Mean, index=(pid,), shape=(BM,), padding_mode=ZERO)
    rstd = ct.load(Rstd, index=(pid,), shape=(BM,), padding_mode=ZERO)
    cols = ct.arange(N, dtype=ct.int32)
    xhat = ct.where(cols[None, :] < n, (x - mean[:, None]) * rstd[:, None], 0.0)
    wdy = w[None, :] * dy
    c1 = ct.sum(xhat * wdy, axis=1, keepdims=True) / n
    c2 = ct.sum(wdy, axis=1, keepdims=True) / n
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    ct.store(DX, index=(pid, 0), tile=dx.astype(DX.dtype))
    ct.store(DWp, index=(pid, 0), tile=ct.sum(dy * xhat, axis=0, keepdims=True))
    ct.store(DBp, index=(pid, 0), tile=ct.sum(dy, axis=0, keepdims=True))


# ----------------------------------------------------------------------------------------------- rotary


@ct.kernel
def rope_half_split_neox(Q, Cos, Sin, Out, H: ConstInt, HALF: ConstInt):
    """NeoX rotary on ``[tokens, heads, dim]`` f16: the two halves of the head dim are its tiles 0 and 1
    of width ``dim / 2``; ``(x1 cos - x2 sin, x2 cos + x1 sin)`` with cos / sin ``[tokens, dim / 2]`` in
    f32, one token per program, every head at once."""
    t = ct.bid(0)
    x1 = ct.load(Q, index=(t, 0, 0), shape=(1, H, HALF)).astype(ct.float32)
    x2 = ct.load(Q, index=(t, 0, 1), shape=(1, H, HALF)).astype(ct.float32)
    c = ct.reshape(ct.load(Cos, index=(t, 0), shape=(1, HALF)), (1, 1, HALF))
    s = ct.reshape(ct.load(Sin, index=(t, 0), shape=(1, HALF)), (1, 1, HALF))
    ct.store(Out, index=(t, 0, 0), tile=(x1 * c - x2 * s).astype(Out.dtype))
    ct.store(Out, index=(t, 0, 1), tile=(x2 * c + x1 * s).astype(Out.dtype))


@ct.kernel
def rope_interleaved_gather_pairs(X, Cos, Sin, Out, BT: ConstInt, HALF: ConstInt):
    """GPT-J rotary on ``[tokens, dim]`` bf16 with pairs ``(x[2i], x[2i + 1])``: the even and odd columns
    read by ``ct.gather`` with index tiles ``2 * arange`` and ``2 * arange + 1`` (ragged tokens: the gather's
    bounds check drops rows past the end), written back by ``ct.scatter`` at the same positions."""
    b = ct.bid(0)
    rows = b * BT + ct.arange(BT, dtype=ct.int32)
    j = ct.arange(HALF, dtype=ct.int32)
    ev = ct.gather(X, (rows[:, None], 2 * j[None, :])).astype(ct.float32)
    od = ct.gather(X, (rows[:, None], 2 * j[None, :] + 1)).astype(ct.float32)
    c = ct.load(Cos, index=(b, 0), shape=(BT, HALF), padding_mode=ZERO)
    s = ct.load(Sin, index=(b, 0), shape=(BT, HALF), padding_mode=ZERO)
    ct.scatter(Out, (rows[:, None], 2 * j[None, :]), (ev * c - od * s).astype(Out.dtype))
    ct.scatter(Out, (rows[:, None], 2 * j[None, :] + 1), (od * c + ev * s).astype(Out.dtype))


# ----------------------------------------------------------------------------------------------- softmax


@ct.kernel
def softmax_additive_mask_torch_nan_rows(X, Mask, Y, BN: ConstInt):
    """``softmax(x + mask)`` with an additive f32 mask of 0 / -inf (a key-padding mask), written the
    textbook way: a row masked everywhere has max ``-inf`` and ``exp(-inf - -inf)`` is NaN, as torch's
    softmax gives; columns past N read ``-inf``."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    m = ct.load(Mask, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    z = x + m
    e = ct.exp(z - ct.max(z, axis=1, keepdims=True))
    ct.store(Y, index=(r, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def softmax_bool_mask_safe_zero_rows(X, Keep, Y, scale: float, BN: ConstInt):
    """The "safe" masked softmax (FlashAttention's convention): a bool keep-mask, ``where(keep, x * scale,
    -inf)``, the row max replaced by 0 where it is ``-inf`` and the sum by 1 where it is 0, so that an
    all-masked row is 0 rather than NaN; bf16 input."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    keep = ct.load(Keep, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    z = ct.where(keep, x * scale, -float("inf"))
    m = ct.max(z, axis=1, keepdims=True)
    m = ct.where(m == -float("inf"), 0.0, m)
    e = ct.exp(z - m)
    s = ct.sum(e, axis=1, keepdims=True)
    ct.store(Y, index=(r, 0), tile=e / ct.where(s == 0.0, 1.0, s))


# ----------------------------------------------------------------------------------------------- arg reductions


@ct.kernel
def top1_ties_rows_and_cols(X, RowIdx, RowVal, ColIdx, BM: ConstInt, BN: ConstInt):
    """Top-1 of a small integer-valued f32 matrix (ties everywhere): ``ct.argmax`` along axis 1 (the
    first index of the max, as torch and numpy) with the max beside it, and ``ct.argmax`` down axis 0 of
    the same tile; one program holds the whole ragged matrix (``-inf`` padding)."""
    x = ct.load(X, index=(0, 0), shape=(BM, BN), padding_mode=NEG_INF)
    ct.store(RowIdx, index=(0,), tile=ct.argmax(x, axis=1).astype(ct.int32))
    ct.store(RowVal, index=(0,), tile=ct.max(x, axis=1))
    ct.store(ColIdx, index=(0,), tile=ct.argmax(x, axis=0).astype(ct.int32))


@ct.kernel
def column_nanmax_argmin_propagate(X, Mx, Amin, Cnt, BM: ConstInt, BN: ConstInt):
    """Column statistics of data with NaNs: ``ct.max(..., propagate_nan=True)`` (a NaN column's max is NaN,
    as torch.amax), ``ct.argmin(..., propagate_nan=True)`` (the first NaN's row, as torch.argmin) and the NaN
    count per column from ``ct.isnan``; column blocks on the grid, every row in one tile (``NAN`` padding
    would poison the reductions: the padded rows read ``+inf`` for the min, ``-inf`` for the max)."""
    c = ct.bid(0)
    rows = ct.arange(BM, dtype=ct.int32)
    x = ct.load(X, index=(0, c), shape=(BM, BN), padding_mode=ZERO)
    live = rows[:, None] < X.shape[0]
    ct.store(Mx, index=(c,), tile=ct.max(ct.where(live, x, -float("inf")), axis=0, propagate_nan=True))
    ct.store(Amin, index=(c,), tile=ct.argmin(ct.where(live, x, float("inf")), axis=0,
                                              propagate_nan=True).astype(ct.int32))
    ct.store(Cnt, index=(c,), tile=ct.sum(ct.where(live & ct.isnan(x), 1, 0), axis=0).astype(ct.int32))


# ----------------------------------------------------------------------------------------------- atomics, segments


@ct.kernel
def histc_float_bins_atomic(X, Hist, lo: float, hi: float, BLOCK: ConstInt):
    """``torch.histc``: ``bins = Hist.shape[0]`` equal bins over ``[lo, hi]``, ``x == hi`` in the last bin,
    values outside (and NaN) dropped; ``ct.atomic_add`` of 1 at each value's bin under a mask (the masked
    lanes' index set to 0)."""
    b = ct.bid(0)
    nb = Hist.shape[0]
    x = ct.load(X, index=(b,), shape=(BLOCK,), padding_mode=ct.PaddingMode.NAN)
    ok = (x >= lo) & (x <= hi)
    idx = ct.astype(ct.floor((x - lo) * (nb / (hi - lo))), ct.int32)
    idx = ct.minimum(idx, nb - 1)
    idx = ct.where(ok, idx, 0)
    ct.atomic_add(Hist, idx, ct.where(ok, 1, 0))


@ct.kernel
def segment_sum_csr_runtime_trip(X, Offs, Y, T: ConstInt, D: ConstInt):
    """Segment sums of rows ``X[offs[s]:offs[s+1]]`` (a CSR / ragged batch: PyTorch's ``segment_reduce``):
    one segment per program, a loop of ``cdiv(len, T)`` tiles of rows read from the program's own offsets
    (a data-dependent trip count, 0 for an empty segment), rows past the segment's end masked by ``ct.where``."""
    s = ct.bid(0)
    start = ct.load(Offs, index=(s,), shape=())
    stop = ct.load(Offs, index=(s + 1,), shape=())
    acc = ct.zeros((D,), dtype=ct.float32)
    rows = ct.arange(T, dtype=ct.int32)
    for t in range(ct.cdiv(stop - start, T)):
        r = start + t * T + rows
        x = ct.gather(X, (r[:, None], ct.arange(D, dtype=ct.int32)[None, :]))
        acc = acc + ct.sum(ct.where(r[:, None] < stop, x, 0.0), axis=0)
    ct.store(Y, index=(s, 0), tile=ct.reshape(acc, (1, D)))


@ct.kernel
def collatz_steps_while_loop(N, Steps):
    """A scalar loop whose trip count is the data's: the Collatz step count of one int64 per program,
    ``while n != 1`` with ``n // 2`` and ``3 * n + 1`` (n = 1 takes no step)."""
    i = ct.bid(0)
    n = ct.load(N, index=(i,), shape=())
    k = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        k = k + 1
    ct.store(Steps, index=(i,), tile=k)


@ct.kernel
def first_above_threshold_while_break(X, Out, thr: float, T: ConstInt):
    """``(x > thr).int().argmax()`` with "none" as -1, the way a user scans: ``while True`` over the row's
    tiles, ``break`` at the row's end or at the first tile holding a hit (its smallest column by ``ct.min``)."""
    r = ct.bid(0)
    n = X.shape[1]
    k = 0
    found = -1
    while True:
        if k * T >= n:
            break
        x = ct.load(X, index=(r, k), shape=(1, T), padding_mode=ZERO)
        cols = k * T + ct.arange(T, dtype=ct.int32)
        m = ct.min(ct.where((x > thr) & (cols[None, :] < n), cols[None, :], 2147483647))
        if m < 2147483647:
            found = m
            break
        k = k + 1
    ct.store(Out, index=(r,), tile=found)


@ct.kernel
def nested_loops_segments_rows(Offs, X, Y, SEGS: ConstInt, D: ConstInt):
    """Two segments per program in an outer loop, each summed row by row in an inner loop whose bounds are
    the segment's offsets (empty segments: no trip)."""
    p = ct.bid(0)
    for s in range(SEGS * p, SEGS * p + SEGS):
        a = ct.load(Offs, index=(s,), shape=())
        b = ct.load(Offs, index=(s + 1,), shape=())
        acc = ct.zeros((1, D), dtype=ct.float32)
        for r in range(a, b):
            acc = acc + ct.load(X, index=(r, 0), shape=(1, D), padding_mode=ZERO)
        ct.store(Y, index=(s, 0), tile=acc)


# ----------------------------------------------------------------------------------------------- scans


@ct.kernel
def cumsum_axis0_carry_row_tiles(X, Y, BM: ConstInt, BN: ConstInt):
    """``torch.cumsum(x, dim=0)`` of a tall ``[M, N]`` matrix: each program owns a column block and walks
    the row tiles in order, ``ct.cumsum(axis=0)`` of the tile plus the carry (the previous tile's last row,
    kept as the column sums so far)."""
    c = ct.bid(0)
    carry = ct.zeros((1, BN), dtype=ct.float32)
    for i in range(ct.cdiv(X.shape[0], BM)):
        x = ct.load(X, index=(i, c), shape=(BM, BN), padding_mode=ZERO)
        y = ct.cumsum(x, axis=0) + carry
        ct.store(Y, index=(i, c), tile=y)
        carry = carry + ct.sum(x, axis=0, keepdims=True)


@ct.kernel
def cumprod_axis1_f64_reverse(X, Y, Z, BN: ConstInt):
    """f64 cumulative products along a row, forward and reversed (``torch.cumprod(x.flip(1), 1).flip(1)``:
    survival products); padding 1 so that the reversed scan starts from the row's last real element."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    cols = ct.arange(BN, dtype=ct.int32)
    x = ct.where(cols[None, :] < X.shape[1], x, 1.0)
    ct.store(Y, index=(r, 0), tile=ct.cumprod(x, axis=1))
    ct.store(Z, index=(r, 0), tile=ct.cumprod(x, axis=1, reverse=True))


@ct.kernel
def exclusive_positions_bool_mask_int64(Keep, Pos, Count, BN: ConstInt):
    """Stream compaction's positions: for a bool keep-mask row, the exclusive prefix count as int64
    (``cumsum(keep) - keep``), -1 where dropped, and the row's kept count."""
    r = ct.bid(0)
    k = ct.load(Keep, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.int64)
    inc = ct.cumsum(k, axis=1)
    ct.store(Pos, index=(r, 0), tile=ct.where(k == 1, inc - k, -1))
    ct.store(Count, index=(r,), tile=ct.sum(k, axis=1))


# ----------------------------------------------------------------------------------------------- quantization


@ct.kernel
def int8_per_row_quant_saturate(X, Q, S, qmax: float, BN: ConstInt):
    """Per-row symmetric int8 with a user's ``qmax`` (127 normally; 100 here, with the amax clipped at 4,
    leaves values that saturate): ``scale = min(amax, 4) / qmax``, ``q = clamp(floor(x / scale + 0.5),
    -128, 127)`` (round half up, then the float -> int8 cast of an integral value)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    amax = ct.max(ct.abs(x), axis=1, keepdims=True)
    scale = ct.maximum(ct.minimum(amax, 4.0), 1e-8) / qmax
    y = ct.minimum(ct.maximum(ct.floor(x / scale + 0.5), -128.0), 127.0)
    ct.store(Q, index=(r, 0), tile=y.astype(ct.int8))
    ct.store(S, index=(r,), tile=ct.reshape(scale, (1,)))


@ct.kernel
def int8_quant_rounding_mode_rn(X, Q, BN: ConstInt):
    """The int8 cast given ``rounding_mode=RN`` (a user's round-to-nearest): cuTile refuses it (rounding
    modes are for float -> float conversions only)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Q, index=(r, 0), tile=ct.astype(x * 10.0, ct.int8, rounding_mode=ct.RoundingMode.RN))


@ct.kernel
def fp8_e4m3_per_row_scale_clamp(X, Q, InvS, BN: ConstInt):
    """Per-row dynamic fp8 (e4m3) as SGLang's per-token quant writes it: ``scale = amax / 448``, the
    reciprocal stored, ``clamp(x / scale, -448, 448)`` before ``astype(float8_e4m3fn)``; bf16 rows, a row of
    zeros (the 1e-12 floor)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    amax = ct.maximum(ct.max(ct.abs(x), axis=1, keepdims=True), 1e-12)
    scale = amax / 448.0
    y = ct.minimum(ct.maximum(x / scale, -448.0), 448.0)
    ct.store(Q, index=(r, 0), tile=y.astype(ct.float8_e4m3fn))
    ct.store(InvS, index=(r,), tile=ct.reshape(scale, (1,)))


@ct.kernel
def int8_dequant_group_scales_bf16(Wq, Sc, Out, BN: ConstInt, G: ConstInt, NG: ConstInt):
    """Weight-only int8 dequant with a group size ``G`` along K: ``Wq [N, K]`` int8, ``Sc [N, K / G]``
    f16; the tile reshaped to ``(BN, NG, G)`` so each group meets its scale, bf16 out; ragged N."""
    b = ct.bid(0)
    w = ct.load(Wq, index=(b, 0), shape=(BN, NG * G), padding_mode=ZERO).astype(ct.float32)
    s = ct.load(Sc, index=(b, 0), shape=(BN, NG), padding_mode=ZERO).astype(ct.float32)
    y = ct.reshape(w, (BN, NG, G)) * s[:, :, None]
    ct.store(Out, index=(b, 0), tile=ct.reshape(y, (BN, NG * G)).astype(ct.bfloat16))


# ----------------------------------------------------------------------------------------------- integers


@ct.kernel
def int_floordiv_mod_negatives_shifts(A, Bv, Q, R, Sh, Bits, BLOCK: ConstInt):
    """int32 arithmetic as Python / torch define it: ``a // b`` and ``a % b`` with negative operands
    (floor; the remainder takes the divisor's sign), ``a >> 3`` (arithmetic), ``(a << 4) ^ (a & 0xFF) | ~b``."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    b = ct.load(Bv, index=(i,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.where(b == 0, 1, b)
    ct.store(Q, index=(i,), tile=a // b)
    ct.store(R, index=(i,), tile=a % b)
    ct.store(Sh, index=(i,), tile=a >> 3)
    ct.store(Bits, index=(i,), tile=((a << 4) ^ (a & 0xFF)) | ~b)


@ct.kernel
def uint32_min_max_shift_high_values(A, Bv, Mn, Mx, Shr, BLOCK: ConstInt):
    """uint32 values across 2**31 (hashes): ``ct.minimum`` / ``ct.maximum`` compare unsigned, ``>> 28`` is a
    logical shift (the top nibble), a wrapping multiply by an odd constant (a multiplicative hash)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    b = ct.load(Bv, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    ct.store(Mn, index=(i,), tile=ct.minimum(a, b))
    ct.store(Mx, index=(i,), tile=ct.maximum(a, b))
    ct.store(Shr, index=(i,), tile=(a >> 28) + (b * 2654435761) % 16)


@ct.kernel
def uint8_saturating_add_image(A, Bv, Y, BH: ConstInt, BW: ConstInt):
    """uint8 images blended as OpenCV's ``cv2.add`` does: widened to int32, summed, clamped to 255
    (saturation), narrowed back; odd-sized image on a 2-D grid."""
    i, j = ct.bid(0), ct.bid(1)
    a = ct.load(A, index=(i, j), shape=(BH, BW), padding_mode=ZERO).astype(ct.int32)
    b = ct.load(Bv, index=(i, j), shape=(BH, BW), padding_mode=ZERO).astype(ct.int32)
    ct.store(Y, index=(i, j), tile=ct.minimum(a + b, 255).astype(ct.uint8))


# ----------------------------------------------------------------------------------------------- casts, clamp, where


@ct.kernel
def casts_nan_inf_overflow_f16_bf16(X, H, Bf, Back, BLOCK: ConstInt):
    """f32 values with NaN, +-inf, values above f16's 65504 and below its subnormals cast to f16 and bf16
    (overflow to inf, NaN kept, bf16 keeping the range), and the f16 cast back to f32 minus the input."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    h = x.astype(ct.float16)
    ct.store(H, index=(i,), tile=h)
    ct.store(Bf, index=(i,), tile=x.astype(ct.bfloat16))
    ct.store(Back, index=(i,), tile=h.astype(ct.float32) - x)


@ct.kernel
def clamp_nan_propagate_where_broadcast(X, Lo, Hi, Y, Z, BM: ConstInt, BN: ConstInt):
    """``torch.clamp(x, lo[:, None], hi[None, :])`` with NaNs in x: ``ct.minimum`` / ``ct.maximum`` with
    ``propagate_nan=True`` (a NaN stays NaN, as torch.clamp); and ``where(x > hi, hi, where(x < lo, lo, x))``
    (a NaN passes both compares: NaN)."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
    lo = ct.load(Lo, index=(i,), shape=(BM,), padding_mode=ZERO)[:, None]
    hi = ct.load(Hi, index=(j,), shape=(BN,), padding_mode=ZERO)[None, :]
    ct.store(Y, index=(i, j), tile=ct.minimum(ct.maximum(x, lo, propagate_nan=True), hi, propagate_nan=True))
    ct.store(Z, index=(i, j), tile=ct.where(x > hi, hi, ct.where(x < lo, lo, x)))


@ct.kernel
def keepdims_reductions_each_axis_3d(X, S0, M1, N2, BA: ConstInt, BB: ConstInt, BC: ConstInt):
    """A ``[A, B, C]`` tensor in one tile per leading block: ``x - x.sum(0, keepdim=True)`` (axis 0 within
    the block), ``x.amax(1, keepdim=True)`` and ``x / x.abs().amin(2, keepdim=True)`` as users chain them,
    broadcasting the keepdims results back."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0, 0), shape=(BA, BB, BC))
    ct.store(S0, index=(i, 0, 0), tile=x - ct.sum(x, axis=0, keepdims=True))
    ct.store(M1, index=(i, 0, 0), tile=ct.max(x, axis=1, keepdims=True))
    ct.store(N2, index=(i, 0, 0), tile=x / ct.min(ct.abs(x), axis=2, keepdims=True))


# ----------------------------------------------------------------------------------------------- shapes


@ct.kernel
def bhsd_to_bshd_permute_three_axis_grid(X, Y, TS: ConstInt, H: ConstInt, D: ConstInt):
    """``x.transpose(1, 2)`` of ``[B, H, S, D]`` into ``[B, S, H, D]`` (heads merged after attention):
    grid ``(S tiles, 1, B)``, a ``(1, H, TS, D)`` tile permuted by ``ct.permute(0, 2, 1, 3)``; ragged S."""
    s, b = ct.bid(0), ct.bid(2)
    x = ct.load(X, index=(b, 0, s, 0), shape=(1, H, TS, D), padding_mode=ZERO)
    ct.store(Y, index=(b, s, 0, 0), tile=ct.permute(x, (0, 2, 1, 3)))


@ct.kernel
def maxpool2x2_odd_image_neg_inf(X, Y, BH: ConstInt, BW: ConstInt):
    """``F.max_pool2d(x, 2, ceil_mode=True)`` of an odd-sized ``[C, H, W]`` image: each program a ``(1, 2
    BH, 2 BW)`` window of one channel (``NEG_INF`` padding: the ragged last windows keep their real
    values), reshaped to ``(BH, 2, BW, 2)`` and reduced over the 2 x 2 axes."""
    i, j, c = ct.bid(0), ct.bid(1), ct.bid(2)
    x = ct.load(X, index=(c, i, j), shape=(1, 2 * BH, 2 * BW), padding_mode=NEG_INF)
    x = ct.reshape(x, (BH, 2, BW, 2))
    y = ct.max(ct.max(x, axis=3), axis=1)
    ct.store(Y, index=(c, i, j), tile=ct.reshape(y, (1, BH, BW)))


@ct.kernel
def gather_scatter_index_holes(X, Idx, Src, Y, Acc, BLOCK: ConstInt):
    """``y[i] = x[idx[i]]`` with idx -1 meaning "none" (gather mask, padding value -1.5) and
    ``acc[idx[i]] += src[i]`` (``ct.atomic_add`` of f32 at the valid indices only; duplicates add)."""
    b = ct.bid(0)
    idx = ct.load(Idx, index=(b,), shape=(BLOCK,), padding_mode=ct.PaddingMode.ZERO)
    lanes = b * BLOCK + ct.arange(BLOCK, dtype=ct.int32)
    ok = (idx >= 0) & (lanes < Idx.shape[0])
    ct.store(Y, index=(b,), tile=ct.gather(X, idx, mask=ok, padding_value=-1.5))
    src = ct.load(Src, index=(b,), shape=(BLOCK,), padding_mode=ZERO)
    ct.atomic_add(Acc, ct.where(ok, idx, 0), ct.where(ok, src, 0.0))


@ct.kernel
def whole_array_stats_one_program(X, Out, BLOCK: ConstInt):
    """A small kernel launched with a grid of 1: one program loops over the array in blocks, sums and
    sums of squares in f32, and stores ``[mean, var (unbiased), min, max]``."""
    n = X.shape[0]
    s = ct.zeros((BLOCK,), dtype=ct.float32)
    q = ct.zeros((BLOCK,), dtype=ct.float32)
    lo = ct.full((BLOCK,), float("inf"), dtype=ct.float32)
    hi = ct.full((BLOCK,), -float("inf"), dtype=ct.float32)
    for k in range(ct.cdiv(n, BLOCK)):
        x = ct.load(X, index=(k,), shape=(BLOCK,), padding_mode=ZERO)
        live = k * BLOCK + ct.arange(BLOCK, dtype=ct.int32) < n
        s = s + x
        q = q + x * x
        lo = ct.minimum(lo, ct.where(live, x, float("inf")))
        hi = ct.maximum(hi, ct.where(live, x, -float("inf")))
    mean = ct.sum(s) / n
    var = (ct.sum(q) - n * mean * mean) / (n - 1)
    ct.store(Out, index=(0,), tile=mean)
    ct.store(Out, index=(1,), tile=var)
    ct.store(Out, index=(2,), tile=ct.min(lo))
    ct.store(Out, index=(3,), tile=ct.max(hi))


@ct.kernel
def scale_heads_of_a_transposed_view(X, Scale, Y, TS: ConstInt, D: ConstInt):
    """Per-head scaling of ``q.transpose(1, 2)`` handed over without ``.contiguous()``: X is ``[B, H, S, D]``
    with the strides of a ``[B, S, H, D]`` buffer (``(S H D, D, H D, 1)``), a ``(1, 1, TS, D)`` tile per
    (sequence tile, head, batch) on a 3-axis grid, ragged S; Y contiguous."""
    s, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    x = ct.load(X, index=(b, h, s, 0), shape=(1, 1, TS, D), padding_mode=ZERO).astype(ct.float32)
    g = ct.load(Scale, index=(h,), shape=())
    ct.store(Y, index=(b, h, s, 0), tile=(x * g).astype(Y.dtype))


@ct.kernel
def row_stats_of_a_column_major_view(X, Mean, Amax, BM: ConstInt, BN: ConstInt):
    """Row means and absolute maxima of ``w.t()`` (a column-major ``[M, N]`` view, strides ``(1, M)``): the
    reduced axis is the strided one; ragged M and N (zero padding, the max over ``abs``)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Mean, index=(r,), tile=ct.sum(x, axis=1) / X.shape[1])
    ct.store(Amax, index=(r,), tile=ct.max(ct.abs(x), axis=1))


@ct.kernel
def add_bias_to_a_sliced_3d_view(X, Bias, Y, BR: ConstInt, BC: ConstInt):
    """``x[:, :, :50] + bias`` where the slice of a ``[2, 30, 64]`` buffer keeps its row stride 64 (a view the
    caller did not copy), a ``(1, BR, BC)`` tile per (row tile, batch)."""
    i, b = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(b, i, 0), shape=(1, BR, BC), padding_mode=ZERO)
    bias = ct.load(Bias, index=(0,), shape=(BC,), padding_mode=ZERO)
    ct.store(Y, index=(b, i, 0), tile=x + bias[None, None, :])


# ----------------------------------------------------------------------------------------------- dtypes


@ct.kernel
def bool_mask_logic_counts(A, Bm, X, And, Xor, Cnt, Any, BN: ConstInt):
    """bool tiles as users combine them: ``a & b``, ``a ^ (x > 0)``, ``~a`` counted, each row's any() as a
    bool (``max`` of the int8 view) stored to bool arrays."""
    r = ct.bid(0)
    a = ct.load(A, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    b = ct.load(Bm, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(And, index=(r, 0), tile=a & b)
    ct.store(Xor, index=(r, 0), tile=a ^ (x > 0.0))
    cols = ct.arange(BN, dtype=ct.int32)
    na = ct.where((cols[None, :] < A.shape[1]) & ~a, 1, 0)
    ct.store(Cnt, index=(r,), tile=ct.sum(na, axis=1).astype(ct.int32))
    ct.store(Any, index=(r,), tile=ct.max(b.astype(ct.int8), axis=1) > 0)


@ct.kernel
def f64_two_pass_variance_exp(X, Var, Lse, BN: ConstInt):
    """f64 rows (a scientific user's data): two-pass variance ``sum((x - mean)^2) / (n - 1)`` and
    ``logsumexp`` in f64 (``exp`` / ``log`` of doubles)."""
    r = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    live = ct.arange(BN, dtype=ct.int32)[None, :] < n
    mean = ct.sum(x, axis=1, keepdims=True) / n
    d = ct.where(live, x - mean, 0.0)
    ct.store(Var, index=(r,), tile=ct.reshape(ct.sum(d * d, axis=1) / (n - 1), (1,)))
    xm = ct.where(live, x, -float("inf"))
    m = ct.max(xm, axis=1, keepdims=True)
    lse = m + ct.log(ct.sum(ct.exp(xm - m), axis=1, keepdims=True))
    ct.store(Lse, index=(r,), tile=ct.reshape(lse, (1,)))


@ct.kernel
def mixed_f16_bf16_f32_one_expression(A, Bb, Cf, Y, alpha: float, BLOCK: ConstInt):
    """An f16, a bf16 and an f32 array in one expression: ``a.astype(f32) * b.astype(f32) + alpha * c``
    (cuTile promotes neither 16-bit type to the other), then ``+ a`` (f32 + f16 promotes to f32), bf16 out."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    b = ct.load(Bb, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    c = ct.load(Cf, index=(i,), shape=(BLOCK,), padding_mode=ZERO)
    y = a.astype(ct.float32) * b.astype(ct.float32) + alpha * c
    ct.store(Y, index=(i,), tile=(y + a).astype(ct.bfloat16))


@ct.kernel
def scalar_args_every_width(X, Y, Z, a: int, b: float, big: ct.ScalarInt64, flag: bool, k: ConstInt,
                            f: ct.Constant[float], BLOCK: ConstInt):
    """Scalars of each kind a launcher passes: an int (int32), a float (f32), an int64 beyond 32 bits, a
    runtime bool, constant int and float: ``y = x * b + a`` (f16 x), ``z = (big >> 20) + k`` (int64),
    the sign of ``y`` flipped where ``flag``, ``f`` added."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BLOCK,), padding_mode=ZERO).astype(ct.float32)
    y = x * b + a
    if flag:
        y = -y
    ct.store(Y, index=(i,), tile=y + f)
    lanes = ct.arange(BLOCK, dtype=ct.int64)
    ct.store(Z, index=(i,), tile=lanes + (big >> 20) + k)


# ----------------------------------------------------------------------------------------------- with a dot


@ct.kernel
def gram_matrix_xtx_transposed_tile(X, G, TD: ConstInt, TN: ConstInt):
    """A covariance-style Gram matrix ``X^T X`` of ``[N, D]`` f16 samples: the K loop runs over samples,
    A is ``ct.transpose`` of the ``(TN, TD)`` tile at ``(k, i)``, B the tile at ``(k, j)``; ragged N."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TD, TD), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[0], TN)):
        a = ct.load(X, index=(k, i), shape=(TN, TD), padding_mode=ZERO)
        b = ct.load(X, index=(k, j), shape=(TN, TD), padding_mode=ZERO)
        acc = ct.mma(ct.transpose(a), b, acc)
    ct.store(G, index=(i, j), tile=acc)


@ct.kernel
def causal_scores_per_head_three_axes(Q, K, S, scale: float, TQ: ConstInt, TK: ConstInt, D: ConstInt):
    """Attention scores of one (batch, head) per grid axes 1 and 2 and a query tile on axis 0:
    ``q @ k^T * scale`` with keys after the query masked to ``-inf`` (causal), stored f32; ``[B, H, S, D]``
    bf16 inputs, S = 100 (ragged), every key tile."""
    qi, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    q = ct.reshape(ct.load(Q, index=(b, h, qi, 0), shape=(1, 1, TQ, D), padding_mode=ZERO), (TQ, D))
    rows = qi * TQ + ct.arange(TQ, dtype=ct.int32)
    for kj in range(ct.cdiv(S.shape[3], TK)):
        k = ct.reshape(ct.load(K, index=(b, h, kj, 0), shape=(1, 1, TK, D), padding_mode=ZERO), (TK, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((TQ, TK), dtype=ct.float32)) * scale
        cols = kj * TK + ct.arange(TK, dtype=ct.int32)
        s = ct.where(cols[None, :] > rows[:, None], -float("inf"), s)
        ct.store(S, index=(b, h, qi, kj), tile=ct.reshape(s, (1, 1, TQ, TK)))


@ct.kernel
def embedding_grad_onehot_matmul(Ids, DY, DW, TV: ConstInt, TT: ConstInt, D: ConstInt):
    """The embedding gradient ``dW[v] = sum over tokens t with ids[t] == v of dY[t]`` as a one-hot matmul:
    ``onehot(ids)^T`` built by comparing a vocabulary ``arange`` with the token ids (f16 0 / 1), times the
    ``(TT, D)`` tile of dY, over token tiles; ragged tokens (ids past the end taken as -1)."""
    v = ct.bid(0)
    acc = ct.zeros((TV, D), dtype=ct.float32)
    vocab = v * TV + ct.arange(TV, dtype=ct.int32)
    for t in range(ct.cdiv(Ids.shape[0], TT)):
        tok = t * TT + ct.arange(TT, dtype=ct.int32)
        ids = ct.where(tok < Ids.shape[0], ct.load(Ids, index=(t,), shape=(TT,), padding_mode=ZERO), -1)
        onehot = ct.where(vocab[:, None] == ids[None, :], 1.0, 0.0).astype(ct.float16)
        dy = ct.load(DY, index=(t, 0), shape=(TT, D), padding_mode=ZERO)
        acc = ct.mma(onehot, dy, acc)
    ct.store(DW, index=(v, 0), tile=acc)


# ----------------------------------------------------------------------------------------------- the table

_add("rmsnorm_bwd_dx_dgamma_partials", rmsnorm_bwd_dx_dgamma_partials,
     [_a((77, 300), BF16), _a((300,)), _a((77, 300), BF16), _a((77,)), _a((77, 300), BF16), _a((10, 512)), 8, 512],
     (10,), "simt", outputs=(4, 5))
_add("layernorm_bwd_block_rows_partials", layernorm_bwd_block_rows_partials,
     [_a((70, 200), F16), _a((200,)), _a((70, 200), F16), _a((70,)), _a((70,)), _a((70, 200), F16),
      _a((5, 256)), _a((5, 256)), 16, 256], (5,), "simt", outputs=(5, 6, 7))
_add("rope_half_split_neox", rope_half_split_neox,
     [_a((37, 8, 64), F16), _a((37, 32)), _a((37, 32)), _a((37, 8, 64), F16), 8, 32], (37,), "simt", outputs=(3,))
_add("rope_interleaved_gather_pairs", rope_interleaved_gather_pairs,
     [_a((45, 64), BF16), _a((45, 32)), _a((45, 32)), _a((45, 64), BF16), 16, 32], (3,), "simt", outputs=(3,))
_add("softmax_additive_mask_torch_nan_rows", softmax_additive_mask_torch_nan_rows,
     [_a((20, 100)), _a((20, 100)), _a((20, 100)), 128], (20,), "simt", outputs=(2,))
_add("softmax_bool_mask_safe_zero_rows", softmax_bool_mask_safe_zero_rows,
     [_a((20, 100), BF16), _a((20, 100), B), _a((20, 100)), 0.125, 128], (20,), "simt", outputs=(2,))
_add("top1_ties_rows_and_cols", top1_ties_rows_and_cols,
     [_a((30, 50)), _a((30,), I32), _a((30,)), _a((50,), I32), 32, 64], (1,), "simt", outputs=(1, 2, 3))
_add("column_nanmax_argmin_propagate", column_nanmax_argmin_propagate,
     [_a((50, 70)), _a((70,)), _a((70,), I32), _a((70,), I32), 64, 32], (3,), "simt", outputs=(1, 2, 3))
_add("histc_float_bins_atomic", histc_float_bins_atomic,
     [_a((1000,)), _a((17,), I32), -2.0, 2.5, 256], (4,), "simt", outputs=(1,))
_add("segment_sum_csr_runtime_trip", segment_sum_csr_runtime_trip,
     [_a((150, 32)), _a((7,), I32), _a((6, 32)), 16, 32], (6,), "simt", outputs=(2,))
_add("collatz_steps_while_loop", collatz_steps_while_loop,
     [_a((40,), I64), _a((40,), I32)], (40,), "simt", outputs=(1,))
_add("first_above_threshold_while_break", first_above_threshold_while_break,
     [_a((6, 100)), _a((6,), I32), 2.0, 16], (6,), "simt", outputs=(1,))
_add("nested_loops_segments_rows", nested_loops_segments_rows,
     [_a((9,), I32), _a((60, 16)), _a((8, 16)), 2, 16], (4,), "simt", outputs=(2,))
_add("cumsum_axis0_carry_row_tiles", cumsum_axis0_carry_row_tiles,
     [_a((300, 40)), _a((300, 40)), 64, 32], (2,), "simt", outputs=(1,))
_add("cumprod_axis1_f64_reverse", cumprod_axis1_f64_reverse,
     [_a((9, 50), F64), _a((9, 50), F64), _a((9, 50), F64), 64], (9,), "simt", outputs=(1, 2))
_add("exclusive_positions_bool_mask_int64", exclusive_positions_bool_mask_int64,
     [_a((11, 90), B), _a((11, 90), I64), _a((11,), I64), 128], (11,), "simt", outputs=(1, 2))
_add("int8_per_row_quant_saturate", int8_per_row_quant_saturate,
     [_a((25, 130)), _a((25, 130), I8), _a((25,)), 100.0, 256], (25,), "simt", outputs=(1, 2))
_add("fp8_e4m3_per_row_scale_clamp", fp8_e4m3_per_row_scale_clamp,
     [_a((25, 130), BF16), _a((25, 130), E4M3), _a((25,)), 256], (25,), "simt", outputs=(1, 2))
_add("int8_dequant_group_scales_bf16", int8_dequant_group_scales_bf16,
     [_a((70, 128), I8), _a((70, 4), F16), _a((70, 128), BF16), 16, 32, 4], (5,), "simt", outputs=(2,))
_add("int_floordiv_mod_negatives_shifts", int_floordiv_mod_negatives_shifts,
     [_a((300,), I32), _a((300,), I32), _a((300,), I32), _a((300,), I32), _a((300,), I32), _a((300,), I32), 128],
     (3,), "simt", outputs=(2, 3, 4, 5))
_add("uint32_min_max_shift_high_values", uint32_min_max_shift_high_values,
     [_a((200,), U32), _a((200,), U32), _a((200,), U32), _a((200,), U32), _a((200,), U32), 128], (2,), "simt",
     outputs=(2, 3, 4))
_add("uint8_saturating_add_image", uint8_saturating_add_image,
     [_a((37, 53), U8), _a((37, 53), U8), _a((37, 53), U8), 16, 32], (3, 2), "simt", outputs=(2,))
_add("casts_nan_inf_overflow_f16_bf16", casts_nan_inf_overflow_f16_bf16,
     [_a((100,)), _a((100,), F16), _a((100,), BF16), _a((100,)), 64], (2,), "simt", outputs=(1, 2, 3))
_add("clamp_nan_propagate_where_broadcast", clamp_nan_propagate_where_broadcast,
     [_a((40, 70)), _a((40,)), _a((70,)), _a((40, 70)), _a((40, 70)), 16, 32], (3, 3), "simt", outputs=(3, 4))
_add("keepdims_reductions_each_axis_3d", keepdims_reductions_each_axis_3d,
     [_a((8, 8, 16)), _a((8, 8, 16)), _a((8, 1, 16)), _a((8, 8, 16)), 4, 8, 16], (2,), "simt", outputs=(1, 2, 3))
_add("bhsd_to_bshd_permute_three_axis_grid", bhsd_to_bshd_permute_three_axis_grid,
     [_a((2, 4, 50, 16), F16), _a((2, 50, 4, 16), F16), 16, 4, 16], (4, 1, 2), "simt", outputs=(1,))
_add("maxpool2x2_odd_image_neg_inf", maxpool2x2_odd_image_neg_inf,
     [_a((3, 37, 29)), _a((3, 19, 15)), 8, 8], (3, 2, 3), "simt", outputs=(1,))
_add("gather_scatter_index_holes", gather_scatter_index_holes,
     [_a((60,)), _a((150,), I32), _a((150,)), _a((150,)), _a((60,)), 64], (3,), "simt", outputs=(3, 4))
_add("scale_heads_of_a_transposed_view", scale_heads_of_a_transposed_view,
     [_a((2, 4, 50, 32), F16, (50 * 4 * 32, 32, 4 * 32, 1)), _a((4,)), _a((2, 4, 50, 32), F16), 16, 32], (4, 4, 2),
     "simt", outputs=(2,))
_add("row_stats_of_a_column_major_view", row_stats_of_a_column_major_view,
     [_a((70, 45), F32, (1, 70)), _a((70,)), _a((70,)), 16, 64], (5,), "simt", outputs=(1, 2))
_add("add_bias_to_a_sliced_3d_view", add_bias_to_a_sliced_3d_view,
     [_a((2, 30, 50), F32, (30 * 64, 64, 1)), _a((50,)), _a((2, 30, 50)), 16, 64], (2, 2), "simt", outputs=(2,))
_add("whole_array_stats_one_program", whole_array_stats_one_program,
     [_a((1000,)), _a((4,)), 256], (1,), "simt", outputs=(1,))
_add("bool_mask_logic_counts", bool_mask_logic_counts,
     [_a((12, 70), B), _a((12, 70), B), _a((12, 70)), _a((12, 70), B), _a((12, 70), B), _a((12,), I32),
      _a((12,), B), 128], (12,), "simt", outputs=(3, 4, 5, 6))
_add("f64_two_pass_variance_exp", f64_two_pass_variance_exp,
     [_a((9, 100), F64), _a((9,), F64), _a((9,), F64), 128], (9,), "simt", outputs=(1, 2))
_add("mixed_f16_bf16_f32_one_expression", mixed_f16_bf16_f32_one_expression,
     [_a((300,), F16), _a((300,), BF16), _a((300,)), _a((300,), BF16), 0.5, 128], (3,), "simt", outputs=(3,))
_add("scalar_args_every_width", scalar_args_every_width,
     [_a((300,), F16), _a((300,)), _a((300,), I64), -7, 0.75, 2**40 + 12345, True, 3, 0.5, 128], (3,), "simt",
     outputs=(1, 2))
_add("gram_matrix_xtx_transposed_tile", gram_matrix_xtx_transposed_tile,
     [_a((300, 128), F16), _a((128, 128)), 64, 64], (2, 2), "gemm", outputs=(1,))
_add("causal_scores_per_head_three_axes", causal_scores_per_head_three_axes,
     [_a((2, 3, 100, 64), BF16), _a((2, 3, 100, 64), BF16), _a((2, 3, 100, 100)), 0.125, 64, 64, 64],
     (2, 3, 2), "simt", outputs=(2,))
_add("embedding_grad_onehot_matmul", embedding_grad_onehot_matmul,
     [_a((300,), I32), _a((300, 64), F16), _a((200, 64)), 64, 64, 64], (4,), "simt", outputs=(2,))

REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "int8_quant_rounding_mode_rn": (int8_quant_rounding_mode_rn, [_a((25, 130)), _a((25, 130), I8), 256],
                                    "rounding_mode is only valid for float to float conversions",
                                    "ct.astype(x * 10.0, ct.int8, rounding_mode=ct.RoundingMode.RN)"),
}
"""A float -> int cast with a rounding mode: cuTile's front end refuses it at the user's line (the user
rounds first: :func:`int8_per_row_quant_saturate`)."""
