"""The twenty-sixth user sweep (session 34): cuTile 1.7 programs in the style of real code bases (the cuTile
samples' MoE, RoPE, KV-cache, quantization, normalization, scan and convolution kernels), weighted to what the
earlier sweeps covered least: runtime trip counts of zero, ``ct.Constant`` specialisation of one kernel into
two programs, kernels of many arguments, broadcast (stride-0) batch operands, tile sizes 1 / 2 / 4 / 512 / 1024,
``ct.function`` helpers, ``pack_to_bytes`` / ``unpack_from_bytes``, ``IndexedWithInt64`` parameters.

Dots: an MoE grouped GEMM with the expert per row tile read from a table and W stored ``[E, N, K]`` (each
tile permuted), a weighted MoE combine by ``atomic_add`` after the expert GEMM, bias + GELU(tanh) + dropout
mask epilogue, a batched GEMM whose B is one matrix broadcast over the batch by a stride-0 batch axis, a GEMM
whose K loop has a runtime trip count of zero (the output is the epilogue's alone), a GEMM of twelve
arguments, one kernel specialised by ``ct.Constant`` flags into a bias / no-bias pair, 128 x 128 x 128 tiles,
an int4-nibble-dequantized weight multiplied in f16 (the operand computed, not loaded), an implicit-GEMM
convolution (A gathered by im2col index math), a GEMM with a row softmax over its whole N tile, a batch on grid
axis 2 of a 3-D grid.

Without a dot: RoPE from frequencies computed in the kernel (theta a kernel argument) on interleaved pairs and
on halves of a 3-D ``[T, H, D]`` tile, a KV-cache append at a scalar position, per-group int4 quantization packed
two nibbles a byte and its dequantization, per-row fp8 e4m3 quantization with its scale, softmax over rows that
are all ``-inf`` (NaN as torch gives), layernorm with ``eps`` an argument at a 1024-wide tile, a single-pass
Welford over chunks with a runtime length, a float histogram with clamped bins, an exclusive prefix sum of one
512 tile with the total, a depthwise 3 x 3 convolution by index math, a 3-D grid over (batch, head, row), a
top-4-of-8 router with renormalized weights, a hash dropout mask on uint32, a byte swap by pack / unpack, tile
sizes 1, 2 and 4, a loop of zero trips carrying values, a ``ct.function`` helper called twice.

Found by this sweep: a GEMM whose work tile writes, beside C's tile store, by ``ct.scatter`` (rows un-permuted to
token order) or ``ct.atomic_cas`` (a per-tile done flag) was taken by the TileAS tier, whose WGMMA epilogue has no
lowering for those writes and dropped them -- the scattered array never written, no flag set, no word said.  Now
the tier refuses such a kernel with a located warning at the write's line (``convert_to_cutlass.
UNLOWERED_WRITES``) and the SIMT path runs it (:func:`gemm_store_and_scatter_unpermuted_copy`,
:func:`gemm_tile_done_flags_by_cas`; a scatter alone, :func:`gemm_scatter_rows_only`, was refused before at the
kernel's first line as "found 0 tile stores", now at the scatter).  Every other program computed its numpy result
on the SIMT interpreter and the PTX emulator.  Left as they are, each said by a located warning: the stride-0 batch
B and an MoE combine into fewer tokens than GEMM rows run on the SIMT path (launch warnings), an int4 weight
unpacked in the K loop and a ``(TM, 1, TK)`` head slab on mma.sync (compile warnings).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep26_compile.py, tests/unit/test_user_sweep26_interp.py,
tests/unit/test_user_sweep26_emulated.py, tests/unit/test_user_sweep26_invalid.py (with :data:`INVALID` and
:data:`REJECTED_BY_CUTILE`), tests/unit/test_user_sweep26_cutlass.py (CUTLASS-dialect inputs) and
tests/gpu/test_user_sweep26_gpu.py.  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF
F16, BF16, F32, F64 = "float16", "bfloat16", "float32", "float64"
I8, I16, I32, I64, U8, U16, U32, U64, B = "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", \
    "bool_"
E4M3 = "float8_e4m3fn"


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


# ----------------------------------------------------------------------------------------------- GEMMs


@ct.kernel
def moe_expert_table_weights_nk(X, W, TileExpert, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A fused-MoE expert GEMM: tokens sorted by expert and padded to the row tile, row tile ``bm``'s expert
    read from ``TileExpert[bm]``; the experts' weights stored as ``nn.Linear`` stores them (``[E, N, K]``), each
    ``(1, TN, TK)`` tile reshaped and permuted to ``(TK, TN)``; f16 in and out."""
    bm, bn = ct.bid(0), ct.bid(1)
    e = ct.gather(TileExpert, bm)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        x = ct.load(X, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        w = ct.load(W, index=(e, bn, k), shape=(1, TN, TK), padding_mode=ZERO).reshape((TN, TK))
        acc = ct.mma(x, ct.permute(w, (1, 0)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def moe_combine_weighted_atomic_add(X, W, TokenOf, Gate, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The MoE down projection and combine: the expert GEMM of row tile ``bm`` (one expert's rows, sorted), each
    row scaled by its router weight and added into its token's row of Y with ``ct.atomic_add`` (two experts
    write each token); rows whose token is -1 (padding) add nothing.  (The table's Y has as many rows as the
    GEMM's M, which the tier's launch needs; fewer tokens than rows run on the SIMT path after a launch
    warning: tests/gpu/test_user_sweep26_gpu.py.)"""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        x = ct.load(X, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        w = ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(x, w, acc)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    tok = ct.gather(TokenOf, rows, padding_value=-1)
    g = ct.gather(Gate, rows, padding_value=0.0)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ok = (tok[:, None] >= 0) & (cols[None, :] < Y.shape[1])
    ct.atomic_add(Y, (tok[:, None], cols[None, :]), ct.where(ok, acc * g[:, None], 0.0), check_bounds=True)


@ct.kernel
def gemm_bias_gelu_tanh_dropout_mask(A, Bm, Bias, Keep, C, p_drop: float, TM: ConstInt, TN: ConstInt,
                                     TK: ConstInt):
    """A training MLP's fused epilogue: ``dropout(gelu_tanh(x @ W + b))`` with the keep mask given as uint8
    (0 / 1) and the kept values scaled by ``1 / (1 - p)``; bf16 in and out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    h = acc + ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO).astype(ct.float32)[None, :]
    g = 0.5 * h * (1.0 + ct.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h)))
    keep = ct.load(Keep, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    y = ct.where(keep != 0, g * (1.0 / (1.0 - p_drop)), 0.0)
    ct.store(C, index=(bm, bn), tile=y.astype(C.dtype))


@ct.kernel
def bmm_b_broadcast_by_zero_batch_stride(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``torch.matmul(a[L, M, K], w[K, N])`` as a batched GEMM whose B is ``w.expand(L, K, N)``: a batch stride
    of 0 (every batch reads the one matrix); the batch on grid axis 2."""
    bm, bn, l = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(l, bm, k), shape=(1, TM, TK), padding_mode=ZERO).reshape((TM, TK))
        b = ct.load(Bm, index=(l, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(l, bm, bn), tile=acc.reshape((1, TM, TN)))


@ct.kernel
def gemm_k_tiles_argument_zero(A, Bm, Bias, C, k_tiles: int, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GEMM whose K loop runs ``k_tiles`` (a kernel argument) times; launched with 0 (an empty K range after
    a split): the output is the bias row alone, broadcast over the rows."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(k_tiles):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    bias = ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=acc + bias[None, :])


@ct.kernel
def gemm_twelve_arguments(A, Bm, Bias, RowScale, ColScale, Res, C, alpha: float, beta: float, relu_floor: float,
                          TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A kernel of thirteen parameters, as a fused linear layer grows them: ``max(alpha * (A @ B) * rs[:, None] *
    cs[None, :] + bias + beta * res, relu_floor)``; f16 operands, f32 vectors, f16 residual, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rs = ct.load(RowScale, index=(bm,), shape=(TM,), padding_mode=ZERO)
    cs = ct.load(ColScale, index=(bn,), shape=(TN,), padding_mode=ZERO)
    bias = ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)
    res = ct.load(Res, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO).astype(ct.float32)
    y = alpha * acc * rs[:, None] * cs[None, :] + bias[None, :] + beta * res
    ct.store(C, index=(bm, bn), tile=ct.maximum(y, relu_floor))


@ct.kernel
def linear_constexpr_flags(A, Bm, Bias, C, HAS_BIAS: ConstBool, ACT: ConstInt, TM: ConstInt, TN: ConstInt,
                           TK: ConstInt):
    """One linear-layer kernel specialised by ``ct.Constant`` flags (the samples' ``if HAS_BIAS:`` and an
    activation code): the table holds two programs of it, with bias + SiLU and without bias + ReLU."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    if HAS_BIAS:
        acc = acc + ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO).astype(ct.float32)[None, :]
    if ACT == 1:
        acc = ct.maximum(acc, 0.0)
    elif ACT == 2:
        acc = acc / (1.0 + ct.exp(-acc))
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_128_cubed_tiles(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """128 x 128 x 128 tiles (a user's "bigger is faster"), f16 in and out, M and N ragged."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def w4a16_gemm_nibbles_dequant_in_loop(A, Wq, Scale, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """W4A16: the weight stored as int4 nibbles, two rows of K per byte (``Wq[K/2, N]`` uint8: low nibble row
    2i, high nibble row 2i+1, values offset by 8), one f16 scale per column; each K tile unpacked, dequantized
    to f16 and multiplied (the operand computed in registers, not loaded)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    s = ct.load(Scale, index=(bn,), shape=(TN,), padding_mode=ZERO)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        q = ct.load(Wq, index=(k, bn), shape=(TK // 2, TN), padding_mode=ZERO).astype(ct.int32)
        lo = (q & 15) - 8
        hi = ((q >> 4) & 15) - 8
        w = ct.reshape(ct.cat((lo[:, None, :], hi[:, None, :]), axis=1), (TK, TN))
        acc = ct.mma(a, (w.astype(ct.float16) * s[None, :]), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def conv2d_implicit_gemm_im2col_gather(X, Wt, Y, H: int, W: int, Cin: int, TM: ConstInt, TN: ConstInt,
                                       TK: ConstInt):
    """A 3 x 3, stride 1, padding 1 convolution on NHWC (batch 1) as an implicit GEMM: row ``m`` = output pixel
    ``(oh, ow)``, column ``kk`` = ``(r, s, c)``; A's tile gathered from X by index math (zero outside the image),
    B the ``[9*Cin, Cout]`` filter; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    oh, ow = rows // W, rows % W
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(9 * Cin, TK)):
        kk = k * TK + ct.arange(TK, dtype=ct.int32)
        rs, c = kk // Cin, kk % Cin
        ih = oh[:, None] + rs[None, :] // 3 - 1
        iw = ow[:, None] + rs[None, :] % 3 - 1
        ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W) & (rows[:, None] < H * W) & (kk[None, :] < 9 * Cin)
        a = ct.gather(X, (ih, iw, c[None, :] + 0 * ih), mask=ok, padding_value=0.0)
        b = ct.load(Wt, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_then_row_softmax_whole_n(A, Bm, P, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Logits and their softmax in one kernel (N = 100 fits the 128-wide tile): ``softmax(A @ B, axis=1)``
    with the padded columns set to ``-inf`` before the max; f16 in, f32 out."""
    bm = ct.bid(0)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, 0), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    cols = ct.arange(TN, dtype=ct.int32)
    z = ct.where(cols[None, :] < Bm.shape[1], acc, -float("inf"))
    e = ct.exp(z - ct.max(z, axis=1, keepdims=True))
    ct.store(P, index=(bm, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def gemm_heads_on_grid_axis2(Q, Wo, O, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Per-head projections ``O[h] = Q[:, h, :] @ Wo[h]`` with Q stored ``[T, H, D]`` (the head in the middle:
    each A tile a ``(TM, 1, TK)`` slab reshaped), the head on grid axis 2."""
    bm, bn, h = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(Q.shape[2], TK)):
        q = ct.load(Q, index=(bm, h, k), shape=(TM, 1, TK), padding_mode=ZERO).reshape((TM, TK))
        w = ct.load(Wo, index=(h, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(q, w, acc)
    ct.store(O, index=(h, bm, bn), tile=acc.reshape((1, TM, TN)).astype(O.dtype))



@ct.kernel
def gemm_store_and_scatter_unpermuted_copy(A, Bm, Perm, C, D, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An MoE expert GEMM writing its rows twice: as a tile of C (sorted order) and scattered back to token order,
    ``D[perm[r]] = (A @ B)[r]`` by ``ct.scatter`` (found by this sweep: the tier took it and dropped the scatter,
    D never written; now refused at the scatter's line)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    dst = ct.gather(Perm, rows, padding_value=-1)
    ct.scatter(D, (dst[:, None], cols[None, :]), acc)


@ct.kernel
def gemm_scatter_rows_only(A, Bm, Perm, D, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The un-permuting GEMM without the sorted copy: the product leaves the kernel by ``ct.scatter`` alone (the
    tier refused it before too, but at the kernel's first line, saying it found no tile store; now at the
    scatter's line, naming the scatter)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.scatter(D, (ct.gather(Perm, rows, padding_value=-1)[:, None], cols[None, :]), acc)


@ct.kernel
def gemm_tile_done_flags_by_cas(A, Bm, C, Done, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GEMM that marks each output tile done (0 -> tile id + 1) by ``ct.atomic_cas`` after storing it, for a
    consumer polling the flags (found by this sweep: the tier took it and dropped the compare-and-swap; now
    refused at its line)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)
    t = bm * ct.num_blocks(1) + bn
    ct.atomic_cas(Done, t, 0, t + 1)



@ct.kernel
def gemm_amax_by_atomic_max_beside_c(A, Bm, C, Amax, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """fp8 delayed scaling's amax: C stored, and ``max |C|`` of the tile sent to one int32 by ``ct.atomic_max`` of
    its bits (non-negative floats order as their bits).  The tier refuses a second output by atomics; found by
    this sweep: its warning named the K loop's line, now the ``atomic_max``'s."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)
    ct.atomic_max(Amax, 0, ct.bitcast(ct.max(ct.abs(acc)), ct.int32))



@ct.kernel
def attention_lse_stored_by_scatter(Q, K, V, O, LSE, qk_scale: float, BM: ConstInt, BN: ConstInt, D: ConstInt):
    """Flash attention's forward keeping the log-sum-exp for the backward pass, the LSE written by ``ct.scatter``
    at (head, row) element indices (the chained tier refused the scatter, said at its line; since session 43
    tileas-scatter-row-store makes it the row-vector tile store it is); keys ragged (100)."""
    qt, bh = ct.bid(0), ct.bid(1)
    nk = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D), padding_mode=ZERO).reshape((BM, D))
    m_i = ct.full((BM, 1), -1.0e30, dtype=ct.float32)
    l_i = ct.zeros((BM, 1), dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(nk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < nk, s, -1.0e30)
        m_new = ct.maximum(m_i, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m_i - m_new)
        l_i = l_i * alpha + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        acc = ct.mma(p.astype(ct.float16), v, acc * alpha)
        m_i = m_new
    ct.store(O, index=(bh, qt, 0), tile=(acc / l_i).astype(O.dtype).reshape((1, BM, D)))
    rows = qt * BM + ct.arange(BM, dtype=ct.int32)
    ct.scatter(LSE, (ct.full((BM,), 0, dtype=ct.int32) + bh, rows), (m_i + ct.log(l_i)).reshape((BM,)))


# ----------------------------------------------------------------------------------------------- RoPE, caches


@ct.kernel
def rope_interleaved_freqs_in_kernel(X, Pos, Y, theta: float, D: ConstInt):
    """GPT-J style RoPE on interleaved pairs ``(x[2i], x[2i+1])`` of row ``t``: ``freq_i = theta ** (-2i / D)``
    computed in the kernel (``theta`` a kernel argument), the angle ``pos[t] * freq_i``."""
    t = ct.bid(0)
    x = ct.load(X, index=(t, 0), shape=(1, D)).reshape((D // 2, 2))
    pos = ct.gather(Pos, t).astype(ct.float32)
    i = ct.arange(D // 2, dtype=ct.float32)
    ang = pos * ct.exp(i * (-2.0 / D) * ct.log(ct.full((D // 2,), theta, dtype=ct.float32)))
    c, s = ct.cos(ang)[:, None], ct.sin(ang)[:, None]
    x0 = ct.extract(x, index=(0, 0), shape=(D // 2, 1))
    x1 = ct.extract(x, index=(0, 1), shape=(D // 2, 1))
    y = ct.cat((x0 * c - x1 * s, x0 * s + x1 * c), axis=1)
    ct.store(Y, index=(t, 0), tile=y.reshape((1, D)))


@ct.kernel
def rope_half_split_3d_heads(X, Cos, Sin, Y, TT: ConstInt, H: ConstInt, D: ConstInt):
    """NeoX style RoPE on ``[T, H, D]`` (bf16): halves ``x1 = x[..., :D/2]``, ``x2 = x[..., D/2:]``, output
    ``cat(x1 c - x2 s, x2 c + x1 s)`` with the ``[T, D/2]`` cos / sin tables broadcast over the heads."""
    t = ct.bid(0)
    x = ct.load(X, index=(t, 0, 0), shape=(TT, H, D), padding_mode=ZERO).astype(ct.float32)
    c = ct.load(Cos, index=(t, 0), shape=(TT, D // 2), padding_mode=ZERO)[:, None, :]
    s = ct.load(Sin, index=(t, 0), shape=(TT, D // 2), padding_mode=ZERO)[:, None, :]
    x1 = ct.extract(x, index=(0, 0, 0), shape=(TT, H, D // 2))
    x2 = ct.extract(x, index=(0, 0, 1), shape=(TT, H, D // 2))
    y = ct.cat((x1 * c - x2 * s, x2 * c + x1 * s), axis=2)
    ct.store(Y, index=(t, 0, 0), tile=y.astype(Y.dtype))


@ct.kernel
def kv_cache_append_at_position(K, V, KC, VC, pos: int, BD: ConstInt):
    """Decode step's cache append: head ``h``'s new K and V rows (``[H, D]``) stored into the caches
    ``[H, S, D]`` at row ``pos`` (a kernel argument) by ``ct.store`` with a (1, 1, BD) tile at index ``(h,
    pos, 0)``; the other rows untouched."""
    h = ct.bid(0)
    k = ct.load(K, index=(h, 0), shape=(1, BD), padding_mode=ZERO)
    v = ct.load(V, index=(h, 0), shape=(1, BD), padding_mode=ZERO)
    ct.store(KC, index=(h, pos, 0), tile=k.reshape((1, 1, BD)))
    ct.store(VC, index=(h, pos, 0), tile=v.reshape((1, 1, BD)))


@ct.kernel
def kv_cache_scatter_per_sequence_lengths(K, SeqLen, KC, BD: ConstInt):
    """Batched decode append: sequence ``b``'s new K row written into ``KC[b, seqlen[b], :]`` by ``ct.scatter``
    (the position read from an array), then ``seqlen[b]`` incremented in place."""
    b = ct.bid(0)
    n = ct.gather(SeqLen, b)
    col = ct.arange(BD, dtype=ct.int32)
    k = ct.load(K, index=(b, 0), shape=(1, BD), padding_mode=ZERO).reshape((BD,))
    ct.scatter(KC, (ct.full((BD,), 0, dtype=ct.int32) + b, ct.full((BD,), 0, dtype=ct.int32) + n, col), k,
               mask=col < KC.shape[2])
    ct.scatter(SeqLen, b, n + 1)


# ----------------------------------------------------------------------------------------------- quantization


@ct.kernel
def quant_int4_per_group_pack_nibbles(X, Q, S, G: ConstInt):
    """Per-group symmetric int4 quantization (group of ``G`` values along a row): ``scale = amax / 7``, ``q =
    clamp(floor(x / scale + 0.5), -8, 7)``, stored two per byte (element 2j in the low nibble, 2j+1 in the high) as
    int8; the scales f32 ``[R, groups]``.  Program (row, group)."""
    r, g = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(r, g), shape=(1, G)).reshape((G,))
    amax = ct.max(ct.abs(x))
    scale = ct.where(amax > 0.0, amax / 7.0, 1.0)
    q = ct.minimum(ct.maximum(ct.floor(x / scale + 0.5).astype(ct.int32), -8), 7)
    pairs = q.reshape((G // 2, 2))
    lo = ct.extract(pairs, index=(0, 0), shape=(G // 2, 1)).reshape((G // 2,)) & 15
    hi = ct.extract(pairs, index=(0, 1), shape=(G // 2, 1)).reshape((G // 2,)) & 15
    ct.store(Q, index=(r, g), tile=((hi << 4) | lo).astype(ct.int8).reshape((1, G // 2)))
    ct.store(S, index=(r, g), tile=ct.full((1, 1), 0.0, dtype=ct.float32) + scale)


@ct.kernel
def dequant_int4_nibbles_sign_extend(Q, S, Y, G: ConstInt):
    """The inverse of :func:`quant_int4_per_group_pack_nibbles`: each int8 byte's nibbles sign-extended by
    shifts (``(b << 28) >> 28`` and ``(b << 24) >> 28`` in int32), times the group scale, f16 out."""
    r, g = ct.bid(0), ct.bid(1)
    b = ct.load(Q, index=(r, g), shape=(1, G // 2)).reshape((G // 2, 1)).astype(ct.int32)
    lo = (b << 28) >> 28
    hi = (b << 24) >> 28
    s = ct.load(S, index=(r, g), shape=(1, 1))
    v = ct.cat((lo, hi), axis=1).reshape((1, G)).astype(ct.float32) * s
    ct.store(Y, index=(r, g), tile=v.astype(ct.float16))


@ct.kernel
def quant_fp8_e4m3_per_row_scale(X, Q, S, BN: ConstInt):
    """Per-token fp8 quantization (one row of at most ``BN`` per program): ``scale = max(amax, 1e-12) / 448``,
    ``q = e4m3(x / scale)``, the scale stored for the GEMM's dequantization; bf16 in."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    scale = ct.maximum(ct.max(ct.abs(x)), 1e-12) / 448.0
    ct.store(Q, index=(r, 0), tile=(x / scale).astype(ct.float8_e4m3fn))
    ct.store(S, index=(r,), tile=ct.full((1,), 0.0, dtype=ct.float32) + scale)


# ----------------------------------------------------------------------------------------------- normalization


@ct.kernel
def softmax_rows_all_neg_inf_like_torch(X, Y, BN: ConstInt):
    """A row softmax written the textbook way (``exp(x - max) / sum``) on rows some of which are all ``-inf``
    (fully masked attention rows): torch gives NaN for them; the padded columns ``-inf`` too."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(r, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def layernorm_eps_argument_1024_tile(X, Wt, Bs, Y, eps: float, BN: ConstInt):
    """LayerNorm of 1000-wide rows in one 1024 tile, ``eps`` a kernel argument (a model's config value), the
    mean and variance over the real columns only (the padding masked), weight and bias f32, f16 in and out."""
    r = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    live = ct.arange(BN, dtype=ct.int32)[None, :] < n
    mean = ct.sum(x, axis=1, keepdims=True) / n
    d = ct.where(live, x - mean, 0.0)
    var = ct.sum(d * d, axis=1, keepdims=True) / n
    w = ct.load(Wt, index=(0,), shape=(BN,), padding_mode=ZERO)[None, :]
    b = ct.load(Bs, index=(0,), shape=(BN,), padding_mode=ZERO)[None, :]
    ct.store(Y, index=(r, 0), tile=(d * ct.rsqrt(var + eps) * w + b).astype(Y.dtype))


@ct.kernel
def welford_single_pass_runtime_chunks(X, Mean, Var, BN: ConstInt):
    """Welford's single-pass mean and (population) variance of a long row in chunks of ``BN``, merging each
    chunk's (count, mean, M2) into the running one (Chan's formula); the chunk count ``cdiv(n, BN)`` a runtime
    trip count, the last chunk partial."""
    r = ct.bid(0)
    n = X.shape[1]
    cnt = 0.0
    mean = 0.0
    m2 = 0.0
    for c in range(ct.cdiv(n, BN)):
        x = ct.load(X, index=(r, c), shape=(1, BN), padding_mode=ZERO)
        live = (c * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n
        nb = ct.sum(live.astype(ct.float32))
        mb = ct.sum(x) / nb
        d = ct.where(live, x - mb, 0.0)
        m2b = ct.sum(d * d)
        tot = cnt + nb
        delta = mb - mean
        mean = mean + delta * nb / tot
        m2 = m2 + m2b + delta * delta * cnt * nb / tot
        cnt = tot
    ct.store(Mean, index=(r,), tile=ct.full((1,), 0.0, dtype=ct.float32) + mean)
    ct.store(Var, index=(r,), tile=ct.full((1,), 0.0, dtype=ct.float32) + m2 / cnt)


# ----------------------------------------------------------------------------------------------- histograms, scans


@ct.kernel
def histogram_float_bins_clamped(X, Hist, lo: float, width: float, BN: ConstInt):
    """``torch.histc``-like counts of floats into ``Hist.shape[0]`` bins of ``width`` from ``lo``, values below
    the range counted in bin 0 and above in the last (clamped), NaN not counted; int32 counts by
    ``ct.atomic_add``."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ct.PaddingMode.NAN)
    nb = Hist.shape[0]
    b = ct.floor((x - lo) / width)
    b = ct.minimum(ct.maximum(b, 0.0), nb - 1.0)
    ok = x == x
    idx = ct.where(ok, b, 0.0).astype(ct.int32)
    ct.atomic_add(Hist, idx, ct.where(ok, 1, 0))


@ct.kernel
def exclusive_scan_one_512_tile_and_total(X, Y, Total, BN: ConstInt):
    """An exclusive prefix sum of int32 in one 512-element tile (a single-tile scan: ``cumsum - x``) and the
    total stored separately (a stream compaction's offsets and count)."""
    x = ct.load(X, index=(0,), shape=(BN,), padding_mode=ZERO)
    inc = ct.cumsum(x, axis=0)
    ct.store(Y, index=(0,), tile=inc - x)
    ct.store(Total, index=(0,), tile=ct.full((1,), 0, dtype=ct.int32) + ct.sum(x))


@ct.kernel
def stream_compact_positive_by_scan(X, Out, Count, BN: ConstInt):
    """Stream compaction of one tile: the positive values of X written in order to the front of Out by an
    exclusive scan of the keep flags and ``ct.scatter`` at those offsets; their count stored."""
    x = ct.load(X, index=(0,), shape=(BN,), padding_mode=ZERO)
    keep = x > 0.0
    flag = keep.astype(ct.int32)
    at = ct.cumsum(flag, axis=0) - flag
    ct.scatter(Out, at, x, mask=keep)
    ct.store(Count, index=(0,), tile=ct.full((1,), 0, dtype=ct.int32) + ct.sum(flag))


# ----------------------------------------------------------------------------------------------- convolution


@ct.kernel
def depthwise_conv3x3_index_math(X, Wt, Y, TH: ConstInt, TW: ConstInt):
    """A depthwise 3 x 3 convolution (padding 1) of one channel per grid axis 2 (``[C, H, W]``, filters ``[C,
    9]``), the output tile ``(TH, TW)`` at grid (0, 1); each tap a ``ct.gather`` at shifted rows and columns,
    zero outside the image."""
    bh, bw, c = ct.bid(0), ct.bid(1), ct.bid(2)
    H, W = X.shape[1], X.shape[2]
    rows = (bh * TH + ct.arange(TH, dtype=ct.int32))[:, None]
    cols = (bw * TW + ct.arange(TW, dtype=ct.int32))[None, :]
    acc = ct.zeros((TH, TW), dtype=ct.float32)
    for t in ct.static_iter(range(9)):
        ih = rows + (t // 3 - 1)
        iw = cols + (t % 3 - 1)
        ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        v = ct.gather(X, (ct.full((TH, TW), 0, dtype=ct.int32) + c, ih, iw), mask=ok, padding_value=0.0)
        acc = acc + v * ct.gather(Wt, (c, t))
    ct.store(Y, index=(c, bh, bw), tile=acc.reshape((1, TH, TW)))


# ----------------------------------------------------------------------------------------------- launch shapes


@ct.kernel
def three_d_grid_batch_head_row(X, Y, BD: ConstInt):
    """A 3-D grid over (row, head, batch) of ``[B, H, T, D]``: each program scales its row by ``1 + b + 10 h``
    and adds the row index (every axis of the grid used, axis 0 the fastest)."""
    t, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    x = ct.load(X, index=(b, h, t, 0), shape=(1, 1, 1, BD), padding_mode=ZERO)
    ct.store(Y, index=(b, h, t, 0), tile=x * (1.0 + b + 10.0 * h) + t)


@ct.kernel
def elementwise_fourteen_arguments(A, Bv, Cv, Dv, E, F, G, Out1, Out2, a: float, b: float, c: int, d: float,
                                   BN: ConstInt):
    """Fourteen parameters (seven inputs of four dtypes, two outputs, four scalars of two types):
    ``out1 = a*A + b*B*C - D + c`` and ``out2 = where(E, F, G) * d`` with E a bool mask, int8 / f16 / f64
    inputs."""
    i = ct.bid(0)
    x = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = ct.load(Bv, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    z = ct.load(Cv, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    w = ct.load(Dv, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    ct.store(Out1, index=(i,), tile=a * x + b * y * z - w + c)
    e = ct.load(E, index=(i,), shape=(BN,), padding_mode=ZERO)
    f = ct.load(F, index=(i,), shape=(BN,), padding_mode=ZERO)
    g = ct.load(G, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Out2, index=(i,), tile=ct.where(e, f, g) * d)


@ct.kernel
def activation_constexpr_code(X, Y, ACT: ConstInt, BN: ConstInt):
    """One activation kernel specialised by a ``ct.Constant`` code (0 identity, 1 ReLU, 2 GELU erf-free tanh,
    3 SiLU): the table holds two programs of it (codes 2 and 3)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    if ACT == 1:
        x = ct.maximum(x, 0.0)
    elif ACT == 2:
        x = 0.5 * x * (1.0 + ct.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    elif ACT == 3:
        x = x / (1.0 + ct.exp(-x))
    ct.store(Y, index=(i,), tile=x)


@ct.kernel
def loop_zero_trips_carries_init(X, Y, n_iter: int, BN: ConstInt):
    """A fixed-point loop run ``n_iter`` times (a kernel argument; launched with 0): the carried values leave the
    loop as they entered (``y = x``, a count of 0 and a max of ``-inf`` clamped to x)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    y = x
    m = ct.full((BN,), -float("inf"), dtype=ct.float32)
    cnt = ct.zeros((BN,), dtype=ct.int32)
    for _ in range(n_iter):
        y = 0.5 * (y + 1.0)
        m = ct.maximum(m, y)
        cnt = cnt + 1
    ct.store(Y, index=(i,), tile=ct.maximum(m, y) + cnt.astype(ct.float32))


@ct.kernel
def tiles_of_one_two_four(X, Y1, Y2, Y4, N1: ConstInt, N2: ConstInt, N4: ConstInt):
    """Tile sizes 1, 2 and 4 in one kernel (program ``i`` owns elements ``[4i, 4i+4)``): Y1 by four tiles of
    one element, Y2 by two of two, Y4 by one of four; each a different function of x."""
    i = ct.bid(0)
    for j in ct.static_iter(range(4)):
        x1 = ct.load(X, index=(4 * i + j,), shape=(N1,), padding_mode=ZERO)
        ct.store(Y1, index=(4 * i + j,), tile=x1 + 1.0)
    for j in ct.static_iter(range(2)):
        x2 = ct.load(X, index=(2 * i + j,), shape=(N2,), padding_mode=ZERO)
        ct.store(Y2, index=(2 * i + j,), tile=x2 * ct.cat((ct.full((1,), 2.0, dtype=ct.float32),
                                                             ct.full((1,), 3.0, dtype=ct.float32)), axis=0))
    x4 = ct.load(X, index=(i,), shape=(N4,), padding_mode=ZERO)
    ct.store(Y4, index=(i,), tile=x4 - ct.sum(x4))


@ct.kernel
def row_sum_max_512_tile_int16(X, S, M, BN: ConstInt):
    """int16 rows of 500 in one 512 tile: the sum widened to int32 and the max kept in int16 (the padding read
    as the int16 minimum by a where)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    live = ct.arange(BN, dtype=ct.int32)[None, :] < X.shape[1]
    ct.store(S, index=(r,), tile=ct.sum(x.astype(ct.int32), axis=1))
    ct.store(M, index=(r,), tile=ct.max(ct.where(live, x, ct.full((1, BN), -32768, dtype=ct.int16)), axis=1))


@ct.kernel
def copy_scale_1024_tile_bf16(X, Y, alpha: float, BN: ConstInt):
    """``y = alpha * x`` in bf16 by tiles of 1024 (the largest tile a user writes for an elementwise kernel),
    the last partial."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=(x.astype(ct.float32) * alpha).astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- routing, RNG, bytes


@ct.kernel
def moe_router_top4_of_8_renormalized(Logits, Ids, Wts, E: ConstInt, K: ConstInt):
    """Mixtral-style router, top 4 of 8 experts by repeated argmax: each pick recorded (int32 expert id) and
    masked to ``-inf``; the picked logits softmaxed among themselves (renormalized weights)."""
    t = ct.bid(0)
    z = ct.load(Logits, index=(t, 0), shape=(1, E)).reshape((E,))
    cols = ct.arange(E, dtype=ct.int32)
    ids = ct.zeros((K,), dtype=ct.int32)
    vals = ct.zeros((K,), dtype=ct.float32)
    slots = ct.arange(K, dtype=ct.int32)
    for j in ct.static_iter(range(K)):
        a = ct.argmax(z, axis=0)
        v = ct.max(z, axis=0)
        ids = ct.where(slots == j, a.astype(ct.int32), ids)
        vals = ct.where(slots == j, v, vals)
        z = ct.where(cols == a, -float("inf"), z)
    e = ct.exp(vals - ct.max(vals, axis=0))
    ct.store(Ids, index=(t, 0), tile=ids.reshape((1, K)))
    ct.store(Wts, index=(t, 0), tile=(e / ct.sum(e, axis=0)).reshape((1, K)))


@ct.kernel
def dropout_hash_mask_uint32(X, Y, seed: int, p_keep: float, BN: ConstInt):
    """Dropout with its mask from a counter hash (a user's philox stand-in): ``h = (idx * 0x9E3779B1) ^ seed``,
    mixed by ``h ^= h >> 16; h *= 0x85EBCA6B; h ^= h >> 13`` in uint32, kept where ``h / 2**32 < p``."""
    i = ct.bid(0)
    idx = (i * BN + ct.arange(BN, dtype=ct.int32)).astype(ct.uint32)
    h = idx * ct.full((BN,), 0x9E3779B1, dtype=ct.uint32) ^ ct.full((BN,), seed, dtype=ct.uint32)
    h = h ^ (h >> 16)
    h = h * ct.full((BN,), 0x85EBCA6B, dtype=ct.uint32)
    h = h ^ (h >> 13)
    u = h.astype(ct.float32) * (1.0 / 4294967296.0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.where(u < p_keep, x / p_keep, 0.0))


@ct.kernel
def byteswap_int32_pack_unpack(X, Y, BN: ConstInt):
    """An endianness swap of int32 by bytes: ``pack_to_bytes`` of the tile, the bytes reordered through a
    ``(BN, 4)`` reshape reversed along axis 1 by four extracts, ``unpack_from_bytes`` back to int32."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.pack_to_bytes(x).reshape((BN, 4))
    b3, b2 = ct.extract(b, index=(0, 3), shape=(BN, 1)), ct.extract(b, index=(0, 2), shape=(BN, 1))
    b1, b0 = ct.extract(b, index=(0, 1), shape=(BN, 1)), ct.extract(b, index=(0, 0), shape=(BN, 1))
    r = ct.cat((ct.cat((b3, b2), axis=1), ct.cat((b1, b0), axis=1)), axis=1)
    ct.store(Y, index=(i,), tile=ct.unpack_from_bytes(r.reshape((4 * BN,)), ct.int32))


@ct.function
def _softclip(x, limit):
    """``limit * tanh(x / limit)`` (Gemma's logit soft-capping), a tile function."""
    return limit * ct.tanh(x / limit)


@ct.kernel
def softcap_helper_function_twice(X, Y, Z, cap1: float, cap2: float, BN: ConstInt):
    """A ``ct.function`` helper called twice with different caps (attention logits and final logits)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=_softclip(x, cap1))
    ct.store(Z, index=(i,), tile=_softclip(x * 2.0, cap2))


@ct.kernel
def int64_indexed_parameter_offsets(X: ct.IndexedWithInt64, Y, BN: ConstInt):
    """An ``IndexedWithInt64`` input (64-bit shape and strides, as for arrays past 2**31 elements) read by
    tiles and a 32-bit-indexed output: ``y = x[::-1]`` within each tile by a gather of reversed offsets."""
    i = ct.bid(0)
    off = i * BN + (BN - 1 - ct.arange(BN, dtype=ct.int64))
    x = ct.gather(X, off, padding_value=0.0)
    ct.store(Y, index=(i,), tile=x)


# ----------------------------------------------------------------------------------------------- the table

_add("moe_expert_table_weights_nk", moe_expert_table_weights_nk,
     [_a((192, 96), F16), _a((3, 80, 96), F16), _a((3,), I32), _a((192, 80), F16), 64, 64, 32], (3, 2), "gemm",
     outputs=(3,))
_add("moe_combine_weighted_atomic_add", moe_combine_weighted_atomic_add,
     [_a((128, 64), F16), _a((64, 96), F16), _a((128,), I32), _a((128,)), _a((128, 96)), 64, 64, 32], (2, 2), "gemm",
     outputs=(4,))
_add("gemm_bias_gelu_tanh_dropout_mask", gemm_bias_gelu_tanh_dropout_mask,
     [_a((100, 64), BF16), _a((64, 96), BF16), _a((96,), BF16), _a((100, 96), U8), _a((100, 96), BF16), 0.25, 64,
      64, 32], (2, 2), "gemm", outputs=(4,))
_add("bmm_b_broadcast_by_zero_batch_stride", bmm_b_broadcast_by_zero_batch_stride,
     [_a((3, 70, 64), F16), _a((3, 64, 72), F16, (0, 72, 1)), _a((3, 70, 72)), 64, 64, 32], (2, 2, 3), "gemm",
     outputs=(2,))
_add("gemm_k_tiles_argument_zero", gemm_k_tiles_argument_zero,
     [_a((100, 64), F16), _a((64, 80), F16), _a((80,)), _a((100, 80)), 0, 64, 64, 32], (2, 2), "gemm", outputs=(3,))
_add("gemm_twelve_arguments", gemm_twelve_arguments,
     [_a((130, 64), F16), _a((64, 70), F16), _a((70,)), _a((130,)), _a((70,)), _a((130, 70), F16), _a((130, 70)),
      1.25, -0.5, -0.75, 64, 64, 32], (3, 2), "gemm", outputs=(6,))
_add("linear_bias_silu", linear_constexpr_flags,
     [_a((100, 64), F16), _a((64, 72), F16), _a((72,), F16), _a((100, 72), F16), True, 2, 64, 64, 32], (2, 2),
     "gemm", outputs=(3,))
_add("linear_no_bias_relu", linear_constexpr_flags,
     [_a((100, 64), F16), _a((64, 72), F16), _a((72,), F16), _a((100, 72), F16), False, 1, 64, 64, 32], (2, 2),
     "gemm", outputs=(3,))
_add("gemm_128_cubed_tiles", gemm_128_cubed_tiles,
     [_a((200, 256), F16), _a((256, 150), F16), _a((200, 150), F16), 128, 128, 128], (2, 2), "gemm", outputs=(2,))
_add("w4a16_gemm_nibbles_dequant_in_loop", w4a16_gemm_nibbles_dequant_in_loop,
     [_a((64, 128), F16), _a((64, 64), U8), _a((64,), F16), _a((64, 64)), 64, 64, 32], (1, 1), "simt",
     outputs=(3,), error="this dot operand is computed in the kernel")
_add("conv2d_implicit_gemm_im2col_gather", conv2d_implicit_gemm_im2col_gather,
     [_a((6, 10, 8), F16), _a((72, 16), F16), _a((60, 16)), 6, 10, 8, 64, 64, 32], (1, 1), "gemm", outputs=(2,))
_add("gemm_then_row_softmax_whole_n", gemm_then_row_softmax_whole_n,
     [_a((130, 64), F16), _a((64, 100), F16), _a((130, 100)), 64, 128, 32], (3,), "gemm", outputs=(2,))
_add("gemm_heads_on_grid_axis2", gemm_heads_on_grid_axis2,
     [_a((100, 3, 64), F16), _a((3, 64, 80), F16), _a((3, 100, 80), F16), 64, 64, 32], (2, 2, 3), "gemm",
     outputs=(2,), notes="session 40: the tier takes A batched in its middle dimension (GemmConfig.batch_mid); "
                         "was the SIMT path after a located refusal")

_add("gemm_store_and_scatter_unpermuted_copy", gemm_store_and_scatter_unpermuted_copy,
     [_a((128, 64), F16), _a((64, 96), F16), _a((128,), I32), _a((128, 96)), _a((128, 96)), 64, 64, 32], (2, 2),
     "simt", outputs=(3, 4), error="a store at computed element indices (ct.scatter")
_add("gemm_scatter_rows_only", gemm_scatter_rows_only,
     [_a((128, 64), F16), _a((64, 96), F16), _a((128,), I32), _a((128, 96)), 64, 64, 32], (2, 2), "simt",
     outputs=(3,), error="a store at computed element indices (ct.scatter")
_add("gemm_tile_done_flags_by_cas", gemm_tile_done_flags_by_cas,
     [_a((128, 64), F16), _a((64, 96), F16), _a((128, 96)), _a((4,), I32), 64, 64, 32], (2, 2), "simt",
     outputs=(2, 3), error="an atomic compare-and-swap (ct.atomic_cas)")

_add("gemm_amax_by_atomic_max_beside_c", gemm_amax_by_atomic_max_beside_c,
     [_a((128, 64), F16), _a((64, 128), F16), _a((128, 128)), _a((1,), I32), 64, 64, 32], (2, 2), "simt",
     outputs=(2, 3), error="found 1 tile stores and 1 atomic updates")

_add("attention_lse_stored_by_scatter", attention_lse_stored_by_scatter,
     [_a((2, 64, 64), F16), _a((2, 100, 64), F16), _a((2, 100, 64), F16), _a((2, 64, 64), F16), _a((2, 64)), 0.125,
      64, 64, 64], (1, 2), "chained", outputs=(3, 4),
     notes="session 43: tileas-scatter-row-store stores the scattered LSE as the row-vector tile it is (rows "
           "qt BM + arange(BM), the other indices uniform): the chained kernel; the SIMT path after a located "
           "refusal before")

_add("rope_interleaved_freqs_in_kernel", rope_interleaved_freqs_in_kernel,
     [_a((7, 64)), _a((7,), I32), _a((7, 64)), 10000.0, 64], (7,), "simt", outputs=(2,))
_add("rope_half_split_3d_heads", rope_half_split_3d_heads,
     [_a((10, 4, 32), BF16), _a((10, 16)), _a((10, 16)), _a((10, 4, 32), BF16), 4, 4, 32], (3,), "simt",
     outputs=(3,))
_add("kv_cache_append_at_position", kv_cache_append_at_position,
     [_a((4, 48), F16), _a((4, 48), F16), _a((4, 20, 48), F16), _a((4, 20, 48), F16), 13, 64], (4,), "simt",
     outputs=(2, 3))
_add("kv_cache_scatter_per_sequence_lengths", kv_cache_scatter_per_sequence_lengths,
     [_a((5, 40)), _a((5,), I32), _a((5, 12, 40)), 64], (5,), "simt", outputs=(1, 2))
_add("quant_int4_per_group_pack_nibbles", quant_int4_per_group_pack_nibbles,
     [_a((6, 128)), _a((6, 64), I8), _a((6, 4)), 32], (6, 4), "simt", outputs=(1, 2))
_add("dequant_int4_nibbles_sign_extend", dequant_int4_nibbles_sign_extend,
     [_a((6, 64), I8), _a((6, 4)), _a((6, 128), F16), 32], (6, 4), "simt", outputs=(2,))
_add("quant_fp8_e4m3_per_row_scale", quant_fp8_e4m3_per_row_scale,
     [_a((9, 200), BF16), _a((9, 200), E4M3), _a((9,)), 256], (9,), "simt", outputs=(1, 2))
_add("softmax_rows_all_neg_inf_like_torch", softmax_rows_all_neg_inf_like_torch,
     [_a((8, 50)), _a((8, 50)), 64], (8,), "simt", outputs=(1,))
_add("layernorm_eps_argument_1024_tile", layernorm_eps_argument_1024_tile,
     [_a((5, 1000), F16), _a((1000,)), _a((1000,)), _a((5, 1000), F16), 1e-5, 1024], (5,), "simt", outputs=(3,))
_add("welford_single_pass_runtime_chunks", welford_single_pass_runtime_chunks,
     [_a((4, 300)), _a((4,)), _a((4,)), 64], (4,), "simt", outputs=(1, 2))
_add("histogram_float_bins_clamped", histogram_float_bins_clamped,
     [_a((300,)), _a((10,), I32), -2.0, 0.4, 128], (3,), "simt", outputs=(1,))
_add("exclusive_scan_one_512_tile_and_total", exclusive_scan_one_512_tile_and_total,
     [_a((500,), I32), _a((500,), I32), _a((1,), I32), 512], (1,), "simt", outputs=(1, 2))
_add("stream_compact_positive_by_scan", stream_compact_positive_by_scan,
     [_a((200,)), _a((200,)), _a((1,), I32), 256], (1,), "simt", outputs=(1, 2))
_add("depthwise_conv3x3_index_math", depthwise_conv3x3_index_math,
     [_a((3, 10, 13)), _a((3, 9)), _a((3, 10, 13)), 8, 8], (2, 2, 3), "simt", outputs=(2,))
_add("three_d_grid_batch_head_row", three_d_grid_batch_head_row,
     [_a((2, 3, 5, 20)), _a((2, 3, 5, 20)), 32], (5, 3, 2), "simt", outputs=(1,))
_add("elementwise_fourteen_arguments", elementwise_fourteen_arguments,
     [_a((100,)), _a((100,), I8), _a((100,), F16), _a((100,), F64), _a((100,), B), _a((100,)), _a((100,)),
      _a((100,)), _a((100,)), 0.5, -2.0, 3, 1.5, 64], (2,), "simt", outputs=(7, 8))
_add("activation_gelu_code_2", activation_constexpr_code, [_a((100,)), _a((100,)), 2, 64], (2,), "simt",
     outputs=(1,))
_add("activation_silu_code_3", activation_constexpr_code, [_a((100,)), _a((100,)), 3, 64], (2,), "simt",
     outputs=(1,))
_add("loop_zero_trips_carries_init", loop_zero_trips_carries_init,
     [_a((100,)), _a((100,)), 0, 64], (2,), "simt", outputs=(1,))
_add("tiles_of_one_two_four", tiles_of_one_two_four,
     [_a((22,)), _a((22,)), _a((22,)), _a((22,)), 1, 2, 4], (6,), "simt", outputs=(1, 2, 3))
_add("row_sum_max_512_tile_int16", row_sum_max_512_tile_int16,
     [_a((4, 500), I16), _a((4,), I32), _a((4,), I16), 512], (4,), "simt", outputs=(1, 2))
_add("copy_scale_1024_tile_bf16", copy_scale_1024_tile_bf16,
     [_a((3000,), BF16), _a((3000,), BF16), 0.5, 1024], (3,), "simt", outputs=(1,))
_add("moe_router_top4_of_8_renormalized", moe_router_top4_of_8_renormalized,
     [_a((20, 8)), _a((20, 4), I32), _a((20, 4)), 8, 4], (20,), "simt", outputs=(1, 2))
_add("dropout_hash_mask_uint32", dropout_hash_mask_uint32,
     [_a((300,)), _a((300,)), 1234567, 0.75, 128], (3,), "simt", outputs=(1,))
_add("byteswap_int32_pack_unpack", byteswap_int32_pack_unpack,
     [_a((100,), I32), _a((100,), I32), 64], (2,), "simt", outputs=(1,))
_add("softcap_helper_function_twice", softcap_helper_function_twice,
     [_a((100,)), _a((100,)), _a((100,)), 30.0, 15.0, 64], (2,), "simt", outputs=(1, 2))
_add("int64_indexed_parameter_offsets", int64_indexed_parameter_offsets,
     [_a((100,)), _a((100,)), 64], (2,), "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- rejected by cuTile


@ct.kernel
def int8_gemm_f32_accumulator(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An int8 GEMM written with an f32 accumulator (as for f16): cuTile takes int32 only for int8 operands."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def atomic_cas_on_f16_flags(F, BN: ConstInt):
    """A compare-and-swap on f16 flags (0 -> 1): cuTile's ``atomic_cas`` takes 32- and 64-bit elements."""
    i, zero, one = ct.arange(BN, dtype=ct.int32), ct.zeros((BN,), dtype=ct.float16), ct.ones((BN,), dtype=ct.float16)
    ct.atomic_cas(F, i, zero, one)


@ct.kernel
def e8m0_scales_rounded_to_nearest(X, Y, BN: ConstInt):
    """MX scales as e8m0 by a plain ``astype`` (round to nearest): cuTile allows only RZ / RP for e8m0."""
    i = ct.bid(0)
    ct.store(Y, index=(i,), tile=ct.load(X, index=(i,), shape=(BN,)).astype(ct.float8_e8m0fnu))


@ct.kernel
def pack_unpack_in_a_comprehension(X, Y, BN: ConstInt):
    """Four byte extracts built by a list comprehension (a Python idiom cuTile's front end does not take)."""
    b = ct.pack_to_bytes(ct.load(X, index=(0,), shape=(BN,))).reshape((BN, 4))
    parts = [ct.extract(b, index=(0, j), shape=(BN, 1)) for j in (3, 2, 1, 0)]
    ct.store(Y, index=(0,), tile=ct.unpack_from_bytes(ct.cat((parts[0], parts[1]), axis=1).reshape((2 * BN,)),
                                                      ct.int16))


REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "int8_gemm_f32_accumulator": (int8_gemm_f32_accumulator,
                                  [_a((128, 64), I8), _a((64, 64), I8), _a((128, 64)), 64, 64, 32],
                                  "Unsupported acc dtype float32", "acc = ct.mma(a, b, acc)"),
    "atomic_cas_on_f16_flags": (atomic_cas_on_f16_flags, [_a((64,), F16), 64], "Unsupported array dtype: float16",
                                "ct.atomic_cas(F, i, zero, one)"),
    "e8m0_scales_rounded_to_nearest": (e8m0_scales_rounded_to_nearest, [_a((64,)), _a((64,), "float8_e8m0fnu"), 64],
                                       "is not supported for conversion from float32 to float8_e8m0fnu",
                                       "astype(ct.float8_e8m0fnu)"),
    "pack_unpack_in_a_comprehension": (pack_unpack_in_a_comprehension, [_a((64,), I32), _a((128,), I16), 64],
                                       "Unsupported syntax", "parts = [ct.extract"),
}
"""Programs cuTile's front end refuses at the user's line (tileorch never sees them)."""


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def fp4_e2m1_round_trip(X, Y, BN: ConstInt):
    """Weights rounded through NVFP4 (``astype(ct.float4_e2m1fn)`` and back to f32): sub-byte element types
    have no lowering on tileorch's SIMT path."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=x.astype(ct.float4_e2m1fn).astype(ct.float32))


@ct.kernel
def fp4_e2m1_packed_to_bytes(X, Y, BN: ConstInt):
    """NVFP4 quantization stored two values a byte by ``ct.pack_to_bytes`` of an e2m1 tile."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.pack_to_bytes(x.astype(ct.float4_e2m1fn)))


@ct.kernel
def four_d_tile_half_a_million(X, Y):
    """A whole ``[64, 64, 64, 2]`` activation as one 4-D tile (524288 elements: 2 MiB of registers)."""
    ct.store(Y, index=(0, 0, 0, 0), tile=ct.load(X, index=(0, 0, 0, 0), shape=(64, 64, 64, 2)) * 0.5)


@ct.kernel
def atan2_in_float64(Y, X, Out, BN: ConstInt):
    """``atan2`` of f64 tiles (a geometry kernel in double precision): refused until session 35 (the SIMT path
    computed transcendental functions in f32 only); now ``f64_trig.atan2``, tested by
    tests/unit/test_f64_trig_emulated.py."""
    i = ct.bid(0)
    y = ct.load(Y, index=(i,), shape=(BN,), padding_mode=ZERO)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Out, index=(i,), tile=ct.atan2(y, x))


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("fp4_e2m1_round_trip", fp4_e2m1_round_trip, [_a((64,)), _a((64,)), 64], (1,), "error",
     error="element type f4E2M1FN is not supported yet", notes="x.astype(ct.float4_e2m1fn).astype(ct.float32)")
_bad("fp4_e2m1_packed_to_bytes", fp4_e2m1_packed_to_bytes, [_a((64,)), _a((32,), U8), 64], (1,), "error",
     error="(sub-byte element types) is not supported yet", notes="ct.pack_to_bytes(x.astype(ct.float4_e2m1fn))")
_bad("four_d_tile_half_a_million", four_d_tile_half_a_million, [_a((64, 64, 64, 2)), _a((64, 64, 64, 2))], (1,),
     "error", error="a tile of 524288 elements is too large", notes="shape=(64, 64, 64, 2)")
