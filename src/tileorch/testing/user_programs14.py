"""The fourteenth user sweep (session 22, issue 22: dot programs acceptance runs that we will not see):
cuTile 1.7 programs with a dot, written the ways users write them and combined in ways the dot zoo
(:mod:`tileorch.testing.dot_programs`), the computed-B / K-range / operand-view / column-view
collections and the earlier sweeps do not: MoE GEMMs whose A rows are gathered by a token-index array
or whose expert groups are ragged row ranges read from an offsets array, split-K with the split folded
into a linear program id and a second kernel summing the partials, int8 weights with a per-group
scale and zero point, int4 nibbles packed along K as two halves, e5m2 x e5m2 with a
per-row scale and a bf16 output, int8 x int8 -> int32 with an int32 bias, tf32 on 64 x 32 tiles, a
1-row GEMV tile, skinny M (8 rows) and skinny N (16 columns), K = 40 and K = 1000, a batched
persistent loop, a GROUP_SIZE_M raster whose group size is a runtime argument, ``C += A @ B`` in bf16,
row + column biases with SiLU and a residual, GELU (tanh) into bf16, ``clamp`` then a saturating cast
to e4m3, a transposed store with a per-row scale, a 4-D ``[B, H, M, K]`` A against a per-head ``[H, K, N]``
B, 3-D tiles fed to ``ct.matmul`` directly, ``a @ b + acc`` in that order, tiles 64 x 32, 256 x 128
and 128 x 256 with K tiles 32 / 64 / 128, a dot whose only outputs are row reductions (row max,
logsumexp), and two products summed in one accumulator (a concatenated-K GEMM).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` (``path`` the path
the compiler takes: "gemm" = TMA + WGMMA, "simt" with ``error`` = the located remark saying why not),
driven by tests/unit/test_user_sweep14_compile.py (path, remark, ptxas without spills),
tests/unit/test_user_sweep14_emulated.py (the PTX emulator against numpy: the f16 GEMMs; the emulator's
WGMMA is ``.f32.f16.f16`` only, so bf16 / fp8 / int8 / tf32 operands run on the GPU alone) and
tests/gpu/test_user_sweep14_gpu.py (the H200 against torch fp32, NaN-prefilled).  Importing it needs
``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
C = ct.Constant
ZERO = ct.PaddingMode.ZERO
F16, BF16, F32, I32, I8, U8 = "float16", "bfloat16", "float32", "int32", "int8", "uint8"
E4M3, E5M2 = "float8_e4m3fn", "float8_e5m2"


def _a(shape, dt=F16):
    return (tuple(shape), dt)


# ----------------------------------------------------------------------------------------------- MoE / grouped


@ct.kernel
def moe_gather_token_rows(X, Idx, W, Y, e: int, tm: C[int], tn: C[int], tk: C[int]):
    """One expert's GEMM over the tokens routed to it: A's rows gathered by ``Idx`` (``X[Idx[r], :]``,
    ``ct.gather`` with a ``(tm, 1)`` row tile and a ``(1, tk)`` column tile), B the expert ``W[e]``,
    the output rows in routed order (row ``r`` of Y is token ``Idx[r]``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    rows = ct.load(Idx, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (rows[:, None], cols[None, :]), padding_value=0)
        w = ct.load(W, index=(e, k, bn), shape=(1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def moe_ragged_groups_offsets(X, W, Offs, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Grouped GEMM with ragged M per group: group ``g = bid(2)`` owns rows ``Offs[g] .. Offs[g+1]`` of X
    and Y (any length, not tile aligned); program ``bm`` of the group computes its rows
    ``Offs[g] + bm * tm ..`` (a gather masked to the group) and scatters them back masked; a program
    past its group's end returns."""
    bm, bn, g = ct.bid(0), ct.bid(1), ct.bid(2)
    start = ct.gather(Offs, g)
    end = ct.gather(Offs, g + 1)
    row0 = start + bm * tm
    if row0 >= end:
        return
    rows = row0 + ct.arange(tm, dtype=ct.int32)
    live = rows < end
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (rows[:, None], cols[None, :]), mask=live[:, None], padding_value=0)
        w = ct.load(W, index=(g, k, bn), shape=(1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ocols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.scatter(Y, (rows[:, None], ocols[None, :]), acc.astype(Y.dtype), mask=live[:, None])


@ct.kernel
def grouped_experts_bid2_offsets_aligned(X, W, Offs, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Grouped GEMM whose groups start at tile-aligned rows read from ``Offs`` (``first = Offs[g] // tm``)
    and hold up to ``bid(0)``'s extent of tiles: the row tile ``first + bm`` loaded with ``ct.load``
    (no gather), a program past its group returns."""
    bm, bn, g = ct.bid(0), ct.bid(1), ct.bid(2)
    first = ct.gather(Offs, g) // tm
    last = ct.cdiv(ct.gather(Offs, g + 1), tm)
    if first + bm >= last:
        return
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(g, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(first + bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(first + bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- split-K


@ct.kernel
def splitk_linear_pid_atomic(A, B, Cacc, S: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Split-K with the split folded into a 1-D program id (``split = pid % S``, the tile ``pid // S``
    in row-major order over C's tiles), strided K tiles ``split, split + S, ...``, partials added
    into the f32 C (zeroed by the caller) with ``ct.atomic_add``."""
    pid = ct.bid(0)
    s = pid % S
    t = pid // S
    tiles_n = ct.num_tiles(B, axis=1, shape=(tk, tn))
    bm, bn = t // tiles_n, t % tiles_n
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s, ct.num_tiles(A, axis=1, shape=(tm, tk)), S):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(Cacc, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def splitk_partials_workspace_3d(A, B, Wk, S: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Split-K, first kernel: split ``s = bid(2)`` takes the contiguous K tiles ``s * per ..`` and
    stores its partial tile into ``Wk[s]`` of a ``[S, M, N]`` f32 workspace (3-D store of a
    ``(1, tm, tn)`` reshape); :func:`splitk_sum_partials` adds them."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    nk = ct.num_tiles(A, axis=1, shape=(tm, tk))
    per = ct.cdiv(nk, S)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s * per, min(s * per + per, nk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Wk, index=(s, bm, bn), tile=acc.reshape((1, tm, tn)))


@ct.kernel
def splitk_sum_partials(Wk, Bias, Y, S: C[int], tm: C[int], tn: C[int]):
    """Split-K, second kernel: ``Y = sum_s Wk[s] + bias`` in bf16 (no dot: the SIMT path)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for s in range(S):
        acc = acc + ct.load(Wk, index=(s, bm, bn), shape=(1, tm, tn)).reshape((tm, tn))
    acc = acc + ct.load(Bias, index=(bn,), shape=(tn,))[None, :]
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- dequant in the loop


@ct.kernel
def w8_group_scale_zero_point(X, Wq, Sc, Zp, Y, G: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """W8A16 with a per-group (along K) scale and zero point per column: ``(w - z[g, n]) * s[g, n]`` in
    f16 before the dot (``g = k * tk // G``, one ``(1, tn)`` row of each table per K tile)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        g = k * tk // G
        s = ct.load(Sc, index=(g, bn), shape=(1, tn))
        z = ct.load(Zp, index=(g, bn), shape=(1, tn))
        w = (ct.load(Wq, index=(k, bn), shape=(tk, tn)).astype(ct.float16) - z) * s
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def w4_nibbles_two_halves(X, Wp, Sc, Y, tm: C[int], tn: C[int], tk: C[int]):
    """W4A16 with the nibbles packed along K in two halves (byte ``p[r, n]`` of a K tile holds row ``r``
    in its low nibble and row ``r + tk / 2`` in its high one, offset 8), a per-column f16 scale: two
    dots per K step into one accumulator, A's two half tiles against the two unpacked halves."""
    bm, bn = ct.bid(0), ct.bid(1)
    s = ct.load(Sc, index=(bn,), shape=(tn,))[None, :]
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(Wp, axis=0, shape=(tk // 2, tn))):
        p = ct.load(Wp, index=(k, bn), shape=(tk // 2, tn)).astype(ct.int32)
        lo = ((p & 15) - 8).astype(ct.float16) * s
        hi = ((p >> 4) - 8).astype(ct.float16) * s
        acc = ct.mma(ct.load(X, index=(bm, 2 * k), shape=(tm, tk // 2)), lo, acc)
        acc = ct.mma(ct.load(X, index=(bm, 2 * k + 1), shape=(tm, tk // 2)), hi, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- fp8 / int8 / tf32


@ct.kernel
def fp8_e5m2_row_scale_bt_bf16(A, Bt, Sa, sb: float, Y, tm: C[int], tn: C[int], tk: C[int]):
    """e5m2 activations and weights (``Bt [N, K]``, nn.Linear's layout, ``ct.transpose``; cuTile refuses
    an e4m3 x e5m2 ``mma``), a per-row activation scale from an array and a per-tensor weight scale
    argument, bf16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        b = ct.transpose(ct.load(Bt, index=(bn, k), shape=(tn, tk)))
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), b, acc)
    sa = ct.load(Sa, index=(bm,), shape=(tm,))[:, None]
    ct.store(Y, index=(bm, bn), tile=(acc * sa * sb).astype(ct.bfloat16))


@ct.kernel
def i8_i32_bias_i32(A, Bt, Bias, Y, tm: C[int], tn: C[int], tk: C[int]):
    """int8 x int8 -> int32 (``Bt [N, K]`` transposed in the program) plus an int32 bias per column,
    stored as int32."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)),
                     ct.transpose(ct.load(Bt, index=(bn, k), shape=(tn, tk))), acc)
    ct.store(Y, index=(bm, bn), tile=acc + ct.load(Bias, index=(bn,), shape=(tn,))[None, :])


@ct.kernel
def tf32_tiles_64x32_k32(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """f32 operands through tf32 (``.astype(ct.tfloat32)``) on 64 x 32 tiles with K tiles of 32,
    f32 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk)).astype(ct.tfloat32)
        b = ct.load(B, index=(k, bn), shape=(tk, tn)).astype(ct.tfloat32)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc)


# ----------------------------------------------------------------------------------------------- skinny and ragged K


@ct.kernel
def gemv_one_row_tile(X, W, Y, tn: C[int], tk: C[int]):
    """A GEMV written as a dot on a ``(1, tk)`` row of X (M = 1: a decode step's ``x @ W``)."""
    bn = ct.bid(0)
    acc = ct.zeros((1, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, tk))):
        acc = ct.mma(ct.load(X, index=(0, k), shape=(1, tk)), ct.load(W, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(0, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def skinny_m8_tile16(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """8 rows of X (a batch of decode tokens) on 16-row program tiles, zero-padded, bias-free."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def skinny_n16_router(X, Wr, Logits, tm: C[int], tn: C[int], tk: C[int]):
    """A router projection: 16 experts (N = 16, one ``tn = 16`` tile), f32 logits."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(Wr, index=(k, 0), shape=(tk, tn)), acc)
    ct.store(Logits, index=(bm, 0), tile=acc)


@ct.kernel
def k40_one_partial_tile(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """K = 40 with K tiles of 64: the only K tile is partial (zero padding), ``ct.cdiv`` trip count."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def k1000_tk128_tile_256x128(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """K = 1000 with 256 x 128 program tiles and K tiles of 128 (the last one 104 wide)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ------------------------------------------------------------------------------------------- persistence and rasters


@ct.kernel
def persistent_batched_tiles(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A persistent loop written in the program over every (batch, row tile, column tile) of a batched
    GEMM (``for t in range(ct.bid(0), L * tiles, ct.num_blocks(0))``), 3-D arrays."""
    tiles_m = ct.num_tiles(Y, axis=1, shape=(1, tm, tn))
    tiles_n = ct.num_tiles(Y, axis=2, shape=(1, tm, tn))
    per = tiles_m * tiles_n
    for t in range(ct.bid(0), A.shape[0] * per, ct.num_blocks(0)):
        b = t // per
        bm = (t % per) // tiles_n
        bn = t % tiles_n
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
            a = ct.load(A, index=(b, bm, k), shape=(1, tm, tk)).reshape((tm, tk))
            w = ct.load(B, index=(b, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
            acc = ct.mma(a, w, acc)
        ct.store(Y, index=(b, bm, bn), tile=acc.astype(Y.dtype).reshape((1, tm, tn)))


@ct.kernel
def group_m_raster_runtime_group(A, B, Y, group_m: int, tm: C[int], tn: C[int], tk: C[int]):
    """Triton's GROUP_SIZE_M raster from a 1-D program id with the group size a runtime argument."""
    pid = ct.bid(0)
    num_m = ct.cdiv(A.shape[0], tm)
    num_n = ct.cdiv(B.shape[1], tn)
    in_group = group_m * num_n
    first_m = (pid // in_group) * group_m
    size_m = min(num_m - first_m, group_m)
    bm = first_m + (pid % in_group) % size_m
    bn = (pid % in_group) // size_m
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- accumulate / epilogues


@ct.kernel
def c_plus_ab_bf16(A, B, Cm, tm: C[int], tn: C[int], tk: C[int]):
    """``C += A @ B`` on a bf16 C: the accumulator starts from C's tile widened to f32."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.load(Cm, index=(bm, bn), shape=(tm, tn)).astype(ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Cm, index=(bm, bn), tile=acc.astype(Cm.dtype))


@ct.kernel
def epi_row_col_bias_silu_residual(A, B, RowB, ColB, R, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``y = silu(acc + r_bias[:, None] + c_bias[None, :]) + residual`` (SiLU as ``x * sigmoid(x)`` via
    ``1 / (1 + exp(-x))``), f16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    h = acc + ct.load(RowB, index=(bm,), shape=(tm,))[:, None] + ct.load(ColB, index=(bn,), shape=(tn,))[None, :]
    y = h / (1.0 + ct.exp(-h)) + ct.load(R, index=(bm, bn), shape=(tm, tn)).astype(ct.float32)
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def epi_gelu_tanh_bf16_operands(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """bf16 operands, GELU with the tanh approximation written out, bf16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    y = 0.5 * acc * (1.0 + ct.tanh(0.7978845608028654 * (acc + 0.044715 * acc * acc * acc)))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def epi_clamp_then_e4m3(A, B, Y, inv_scale: float, tm: C[int], tn: C[int], tk: C[int]):
    """Quantised output: ``clamp(acc * inv_scale, -448, 448)`` cast to e4m3 (the user's clamp, then the
    conversion's saturation)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    y = ct.minimum(ct.maximum(acc * inv_scale, -448.0), 448.0)
    ct.store(Y, index=(bm, bn), tile=y.astype(ct.float8_e4m3fn))


@ct.kernel
def epi_rowscale_store_transposed(A, B, Sr, Yt, tm: C[int], tn: C[int], tk: C[int]):
    """``Y^T`` stored: the tile scaled per row then ``ct.transpose``d and stored at ``(bn, bm)`` of an
    ``[N, M]`` output, f16."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    y = acc * ct.load(Sr, index=(bm,), shape=(tm,))[:, None]
    ct.store(Yt, index=(bn, bm), tile=ct.transpose(y).astype(Yt.dtype))


# ----------------------------------------------------------------------------------------------- batches and ranks


@ct.kernel
def bmm_4d_a_per_head_b(A, B, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """``[Bt, H, M, K] @ [H, K, N]``: one weight per head shared by the batch (``bid(2) = b * H + h``)."""
    bm, bn, bh = ct.bid(0), ct.bid(1), ct.bid(2)
    b, h = bh // H, bh % H
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=3, shape=(1, 1, tm, tk))):
        a = ct.load(A, index=(b, h, bm, k), shape=(1, 1, tm, tk)).reshape((tm, tk))
        w = ct.load(B, index=(h, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(b, h, bm, bn), tile=acc.astype(Y.dtype).reshape((1, 1, tm, tn)))


@ct.kernel
def bmm_3d_tiles_matmul(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A batched product on 3-D tiles without reshapes: ``ct.matmul`` of ``(1, tm, tk)`` and
    ``(1, tk, tn)`` tiles added into a ``(1, tm, tn)`` accumulator, batch on ``bid(2)``."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        acc = acc + ct.matmul(ct.load(A, index=(b, bm, k), shape=(1, tm, tk)),
                              ct.load(B, index=(b, k, bn), shape=(1, tk, tn)))
    ct.store(Y, index=(b, bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def bmm_grid2_broadcast_b_bias(A, B, Bias, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Batch from grid axis 2 with one B for every batch (a 2-D ``[K, N]`` weight) and a per-batch
    bias row ``Bias[b, :]``."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(b, bm, k), shape=(1, tm, tk)).reshape((tm, tk))
        acc = ct.mma(a, ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    acc = acc + ct.load(Bias, index=(b, bn), shape=(1, tn))
    ct.store(Y, index=(b, bm, bn), tile=acc.astype(Y.dtype).reshape((1, tm, tn)))


# ----------------------------------------------------------------------------------------------- spellings and tiles


@ct.kernel
def matmul_plus_acc_reversed(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``acc = a @ b + acc`` (the product first), f16 operands, f32 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.load(A, index=(bm, k), shape=(tm, tk)) @ ct.load(B, index=(k, bn), shape=(tk, tn)) + acc
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def tile_64x32_k64(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """64 x 32 program tiles, K tiles of 64, ragged M and N."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def tile_128x256_k32(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """128 x 256 program tiles, K tiles of 32."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def tile_256x128_k64_bt(A, Bt, Y, tm: C[int], tn: C[int], tk: C[int]):
    """256 x 128 program tiles, K tiles of 64, B given as ``[N, K]`` and ``ct.transpose``d."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)),
                     ct.transpose(ct.load(Bt, index=(bn, k), shape=(tn, tk))), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ------------------------------------------------------------------------------------------- reductions after the dot


@ct.kernel
def logits_row_max_only(X, W, Mx, tm: C[int], tn: C[int], tk: C[int]):
    """A dot whose only output is the row maximum of its tile (the logits never stored; N one tile)."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W, index=(k, 0), shape=(tk, tn)), acc)
    ct.store(Mx, index=(bm, 0), tile=ct.max(acc, axis=1, keepdims=True))


@ct.kernel
def logits_lse_and_argmax(X, W, Lse, Am, tm: C[int], tn: C[int], tk: C[int]):
    """The row logsumexp and the row argmax of the logits tile (greedy decoding's token and the
    loss's normaliser), no logits stored."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W, index=(k, 0), shape=(tk, tn)), acc)
    m = ct.max(acc, axis=1, keepdims=True)
    ct.store(Lse, index=(bm, 0), tile=m + ct.log(ct.sum(ct.exp(acc - m), axis=1, keepdims=True)))
    ct.store(Am, index=(bm,), tile=ct.argmax(acc, axis=1))


@ct.kernel
def logits_and_row_max_1d(X, W, Logits, Mx, tm: C[int], tn: C[int], tk: C[int]):
    """The logits tile stored (f32) and its row maximum stored as a 1-D ``[tm]`` tile of an ``[M]``
    array (``ct.max(acc, axis=1)`` without ``keepdims``)."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W, index=(k, 0), shape=(tk, tn)), acc)
    ct.store(Logits, index=(bm, 0), tile=acc)
    ct.store(Mx, index=(bm,), tile=ct.max(acc, axis=1))


@ct.kernel
def colsum_1d_beside_c(X, W, Y, Cs, tm: C[int], tn: C[int], tk: C[int]):
    """C stored (f16) and its column sums stored as a 1-D ``[tn]`` tile of an ``[N]`` array (``ct.sum(acc,
    axis=0)`` without ``keepdims``; M is one row tile, so each column is one program's)."""
    bn = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(0, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(0, bn), tile=acc.astype(Y.dtype))
    ct.store(Cs, index=(bn,), tile=ct.sum(acc, axis=0))


@ct.kernel
def two_products_one_acc(A1, B1, A2, B2, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``Y = A1 @ B1 + A2 @ B2`` in one accumulator and one K loop (a concatenated-K GEMM: the
    base weight and a LoRA-merged delta of the same K), f16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A1, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A1, index=(bm, k), shape=(tm, tk)), ct.load(B1, index=(k, bn), shape=(tk, tn)), acc)
        acc = ct.mma(ct.load(A2, index=(bm, k), shape=(tm, tk)), ct.load(B2, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- the table

# (paths: the probe of session 22; "simt" entries carry the located remark's text in ``error``)
_add("moe_gather_token_rows", moe_gather_token_rows,
     [_a((300, 128)), _a((200,), I32), _a((3, 128, 128)), _a((200, 128)), 1, 64, 64, 64], (4, 2), "gemm",
     outputs=(3,), notes="refused as 'this dot operand is gathered' until session 25: now the GEMM tier's gathered A")
_add("moe_ragged_groups_offsets", moe_ragged_groups_offsets,
     [_a((250, 128)), _a((3, 128, 128)), _a((4,), I32), _a((250, 128)), 64, 64, 64], (3, 2, 3), "simt",
     error="this dot operand is gathered", outputs=(3,))
_add("grouped_experts_bid2_offsets_aligned", grouped_experts_bid2_offsets_aligned,
     [_a((384, 128)), _a((3, 128, 128)), _a((4,), I32), _a((384, 128)), 64, 64, 64], (3, 2, 3), "gemm",
     outputs=(3,), notes="refused as 'A, B and C must all be batched' until session 24 (sweep 18): the weight "
                         "W[bid(2)] beside a 2-D C whose row tile reads program id 2 is now B's batch index per "
                         "work tile, C the one matrix")
_add("splitk_linear_pid_atomic", splitk_linear_pid_atomic,
     [_a((200, 448)), _a((448, 192)), _a((200, 192), F32), 3, 128, 64, 64], (2 * 3 * 3,), "gemm", outputs=(2,))
_add("splitk_partials_workspace_3d", splitk_partials_workspace_3d,
     [_a((256, 320)), _a((320, 128)), _a((2, 256, 128), F32), 2, 128, 128, 64], (2, 1, 2), "gemm", outputs=(2,))
_add("w8_group_scale_zero_point", w8_group_scale_zero_point,
     [_a((128, 256)), _a((256, 128), I8), _a((2, 128)), _a((2, 128)), _a((128, 128)), 128, 128, 64, 64], (1, 2), "gemm",
     outputs=(4,))
_add("w4_nibbles_two_halves", w4_nibbles_two_halves,
     [_a((128, 256)), _a((128, 128), U8), _a((128,)), _a((128, 128)), 128, 64, 128], (1, 2), "simt",
     error="adds its product to the result of the dot at line", outputs=(3,))
_add("fp8_e5m2_row_scale_bt_bf16", fp8_e5m2_row_scale_bt_bf16,
     [_a((200, 256), E5M2), _a((192, 256), E5M2), _a((200,), F32), 0.5, _a((200, 192), BF16), 128, 64, 64], (2, 3),
     "gemm",
     outputs=(4,))
_add("i8_i32_bias_i32", i8_i32_bias_i32,
     [_a((200, 256), I8), _a((192, 256), I8), _a((192,), I32), _a((200, 192), I32), 128, 64, 64], (2, 3), "gemm",
     outputs=(3,))
_add("tf32_tiles_64x32_k32", tf32_tiles_64x32_k32,
     [_a((100, 96), F32), _a((96, 80), F32), _a((100, 80), F32), 64, 32, 32], (2, 3), "gemm", outputs=(2,))
_add("gemv_one_row_tile", gemv_one_row_tile,
     [_a((1, 256)), _a((256, 300)), _a((1, 300), F32), 64, 64], (5,), "simt",
     error="has no WGMMA shape", outputs=(2,))
_add("skinny_m8_tile16", skinny_m8_tile16,
     [_a((8, 256)), _a((256, 320)), _a((8, 320)), 16, 128, 64], (1, 3), "gemm", outputs=(2,))
_add("skinny_n16_router", skinny_n16_router,
     [_a((300, 256)), _a((256, 16)), _a((300, 16), F32), 128, 16, 64], (3,), "gemm", outputs=(2,))
_add("k40_one_partial_tile", k40_one_partial_tile,
     [_a((130, 40)), _a((40, 96)), _a((130, 96)), 128, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("k1000_tk128_tile_256x128", k1000_tk128_tile_256x128,
     [_a((300, 1000)), _a((1000, 200)), _a((300, 200)), 256, 128, 128], (2, 2), "gemm", outputs=(2,))
_add("persistent_batched_tiles", persistent_batched_tiles,
     [_a((3, 200, 128)), _a((3, 128, 192)), _a((3, 200, 192)), 128, 64, 64], (5,), "gemm", outputs=(2,),
     notes="found by this sweep: refused as 'the tile is stored inside a loop around its computation' (the "
           "persistent loop's index split three ways); now the batched GEMM's tile grid")
_add("group_m_raster_runtime_group", group_m_raster_runtime_group,
     [_a((384, 128)), _a((128, 320)), _a((384, 320)), 2, 128, 64, 64], (3 * 5,), "gemm", outputs=(2,))
_add("c_plus_ab_bf16", c_plus_ab_bf16,
     [_a((200, 128), BF16), _a((128, 192), BF16), _a((200, 192), BF16), 128, 64, 64], (2, 3),
     "gemm", outputs=(2,))
_add("epi_row_col_bias_silu_residual", epi_row_col_bias_silu_residual,
     [_a((200, 128)), _a((128, 192)), _a((200,), F32), _a((192,), F32), _a((200, 192)), _a((200, 192)), 128, 64, 64],
     (2, 3), "gemm", outputs=(5,))
_add("epi_gelu_tanh_bf16_operands", epi_gelu_tanh_bf16_operands,
     [_a((200, 128), BF16), _a((128, 192), BF16), _a((200, 192), BF16), 128, 64, 64], (2, 3),
     "gemm", outputs=(2,))
_add("epi_clamp_then_e4m3", epi_clamp_then_e4m3,
     [_a((200, 128)), _a((128, 192)), _a((200, 192), E4M3), 4.0, 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("epi_rowscale_store_transposed", epi_rowscale_store_transposed,
     [_a((256, 128)), _a((128, 192)), _a((256,), F32), _a((192, 256)), 128, 64, 64], (2, 3), "gemm", outputs=(3,))
_add("bmm_4d_a_per_head_b", bmm_4d_a_per_head_b,
     [_a((2, 3, 128, 128)), _a((3, 128, 128)), _a((2, 3, 128, 128)), 3, 128, 64, 64], (1, 2, 6), "gemm", outputs=(2,),
     notes="found by this sweep: compiled to the batched WGMMA kernel, but the launcher refused it (A, B and C "
           "shared one batch count in the host's tensor maps; B has H matrices, C B * H) and ran the SIMT path "
           "with that warning; session 23: each tensor map holds its operand's own matrices")
_add("bmm_3d_tiles_matmul", bmm_3d_tiles_matmul,
     [_a((3, 200, 128)), _a((3, 128, 192)), _a((3, 200, 192)), 128, 64, 64], (2, 3, 3), "gemm", outputs=(2,))
_add("bmm_grid2_broadcast_b_bias", bmm_grid2_broadcast_b_bias,
     [_a((3, 200, 128)), _a((128, 192)), _a((3, 192), F32), _a((3, 200, 192)), 128, 64, 64], (2, 3, 3), "gemm",
     outputs=(3,))
_add("matmul_plus_acc_reversed", matmul_plus_acc_reversed,
     [_a((200, 128)), _a((128, 192)), _a((200, 192), F32), 128, 64, 64], (2, 3), "gemm", outputs=(2,))
_add("tile_64x32_k64", tile_64x32_k64,
     [_a((100, 192)), _a((192, 80)), _a((100, 80)), 64, 32, 64], (2, 3), "gemm", outputs=(2,))
_add("tile_128x256_k32", tile_128x256_k32,
     [_a((256, 96)), _a((96, 512)), _a((256, 512)), 128, 256, 32], (2, 2), "gemm", outputs=(2,))
_add("tile_256x128_k64_bt", tile_256x128_k64_bt,
     [_a((300, 192)), _a((200, 192)), _a((300, 200)), 256, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("logits_row_max_only", logits_row_max_only,
     [_a((200, 128)), _a((128, 128)), _a((200, 1), F32), 128, 128, 64], (2,), "simt",
     error="the product tile is not stored", outputs=(2,))
_add("logits_lse_and_argmax", logits_lse_and_argmax,
     [_a((200, 128)), _a((128, 128)), _a((200, 1), F32), _a((200,), I32), 128, 128, 64], (2,), "simt",
     error="an argmax / argmin or another 1-D value", outputs=(2, 3))
_add("logits_and_row_max_1d", logits_and_row_max_1d,
     [_a((200, 128)), _a((128, 128)), _a((200, 128), F32), _a((200,), F32), 128, 128, 64], (2,), "gemm", outputs=(2, 3))
_add("colsum_1d_beside_c", colsum_1d_beside_c,
     [_a((100, 128)), _a((128, 320)), _a((100, 320)), _a((320,), F32), 128, 64, 64], (5,), "gemm", outputs=(2, 3))
_add("two_products_one_acc", two_products_one_acc,
     [_a((200, 128)), _a((128, 192)), _a((200, 128)), _a((128, 192)), _a((200, 192)), 128, 64, 64], (2, 3), "gemm",
     outputs=(4,),
     notes="was refused ('adds its product to the result of the dot at line'); since session 27 the WGMMA kernel's "
           "stages hold an A per dot (GemmConfig.a_operands) and the chain runs into one accumulator")

SIMT_KERNELS = {"splitk_sum_partials": (splitk_sum_partials,
                                        [_a((2, 256, 128), F32), _a((128,), F32), _a((256, 128), BF16), 2, 128, 128],
                                        (2, 1))}
"""Kernels without a dot that the sweep's programs need (the split-K's second kernel)."""
