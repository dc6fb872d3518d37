"""The fifth user sweep (session 13): cuTile 1.7 programs in shapes the first four sweeps
(:mod:`tileorch.testing.user_programs` .. ``user_programs4``) do not have.

GEMM: a 4-D ``[B, H, M, K]`` batch split from one program id, fp8 (e4m3, e5m2) with per-tensor
scales read from one-element arrays or passed as scalars, int8 with an int32 bias added before
the store, a weight-only int8 B converted to f16 in the K loop, a K trip count that is a
launch-time ``int`` argument, an f16 epilogue (accumulator cast first, bias and residual added in
f16), a persistent tile loop with GROUP_M rasterisation inside, split-K through a ``[S, M, N]``
workspace and a reduction program, a grouped GEMM whose (group, m, n) tiles come from a table,
a row-sum epilogue beside C.

Attention: head dim 32, GQA with the K/V head from ``(h * HKV) // H``, a causal sliding window
whose width is a launch-time scalar, ALiBi slopes gathered from an array with a causal mask,
per-batch key lengths from a table (the key loop's trip count read from memory), a ``[H, S, S]``
bias shared by the batches, a single key tile (kv length below the tile), logit soft-capping
(``cap * tanh(s / cap)``), a causal mask applied by multiplying P with a bool tile, a
deterministic hash dropout on P, and the backward pass's dQ (three dots per step) and dK / dV
(two accumulators) loops.

Memory-bound and the rest: softmax backward, layer-norm backward's dgamma / dbeta partial sums,
chunked cross entropy with an ``ignore_index``, an online argmax over column chunks, column
cumsums over row chunks (inclusive and exclusive), RoPE on 4-D ``[B, S, H, D]`` tiles with
``ct.cat``, a 4-D permute ``[B, S, H, D] -> [B, H, S, D]``, rank-3 ``ct.cat``, rank-4 reshapes,
int4 unpacking, an integer hash dropout, bool any / all / count, int32 ``where`` chains, group
norm on 3-D tiles, pairwise squared distances by 3-D broadcasting, loops whose start / stop /
step are launch-time scalars, Welford merges, an embedding bag with per-bag lengths, row-wise
int8 quantisation, stream compaction by an exclusive scan, a GEMV.

Then: lists of arrays (a grouped GEMM over three lists with a tile table, sums over ``len(Xs)``
arrays), attention on 3-D tiles without reshapes (plain and causal), two query heads sharing K/V
in one loop, K/V shared by every batch, a peeled first K step, two K loops into one accumulator,
``o * c + mma(p, v, 0)``, attention with ``@`` (f16 scores), causal 128 x 64 tiles, 128-deep K
tiles, the scale inside the exponent, fp8 attention, negative axes, uint32 / int64 arithmetic,
``None`` indexing, a ``static_iter`` K loop.

Found by this sweep (the entries' ``notes``): a persistent GEMM in Triton's later grouped raster
was refused with an internal-sounding token message (tile_order reads it; the message for a
persistent loop in another order now says what the tier takes); list-of-arrays parameters were
refused by the launcher and ``int_to_ptr`` by convert-cudatile-to-tileaa (now on the SIMT path);
a peeled first K step (tileas-unpeel-k-loop), attention on 3-D tiles (tileas-squeeze-unit-tiles) and
a ``static_iter`` K loop (tileas-reroll-unrolled-loops, session 15) were refused by the tiers; the PTX emulator computed f16 arithmetic as integers (a test-harness
bug).  Still refused by the tiers, with the reason at the user's line (the SIMT path runs them):
a 4-D batch, a mixed-input (int8 weight) dot, split-K into a workspace, a group index read from a
table, the attention backward's three / four dots per step, two heads' chains in one loop, two K
loops into one accumulator, a gather of a gathered index in the epilogue, fp8 attention, a list item as a dot operand.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep5_*.py (CPU compile, the SIMT interpreter, the PTX emulator) and
tests/gpu/test_user_sweep5_gpu.py (the H200 against torch).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, ZERO, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

MASKED = -1.0e30  # a finite "minus infinity"


# ----------------------------------------------------------------------------------------------- GEMM


@ct.kernel
def mm_4d_heads(A, B, C, H: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``[B, H, M, K] x [B, H, K, N]``: batch and head from ``bid(2)`` (``//`` and ``%`` by ``H``),
    4-D tiles ``(1, 1, tm, tk)`` reshaped to 2-D."""
    i, j, bh = ct.bid(0), ct.bid(1), ct.bid(2)
    b, h = bh // H, bh % H
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=3, shape=(1, 1, tm, tk))):
        a = ct.load(A, index=(b, h, i, k), shape=(1, 1, tm, tk)).reshape((tm, tk))
        w = ct.load(B, index=(b, h, k, j), shape=(1, 1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, h, i, j), tile=acc.astype(C.dtype).reshape((1, 1, tm, tn)))


@ct.kernel
def mm_fp8_tensor_scales(A, B, SA, SB, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """fp8 e4m3 operands with per-tensor scales in one-element f32 arrays (``ct.gather(SA, 0)``),
    the product of the scales applied once in the epilogue, bf16 out."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    s = ct.gather(SA, 0) * ct.gather(SB, 0)
    ct.store(C, index=(i, j), tile=(acc * s).astype(C.dtype))


@ct.kernel
def mm_e5m2_scalar_scales(A, B, C, sa: float, sb: float, tm: ct.Constant[int], tn: ct.Constant[int],
                          tk: ct.Constant[int]):
    """fp8 e5m2 x e5m2, the scales two float arguments multiplied in the epilogue, f16 out."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=(acc * sa * sb).astype(ct.float16))


@ct.kernel
def mm_int8_bias_i32(A, B, bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """int8 x int8 into int32, an int32 per-column bias added in integers, stored int32."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc + ct.load(bias, index=(j,), shape=(tn,))[None, :])


@ct.kernel
def mm_weight_only_int8(A, W, S, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Weight-only quantisation: f16 activations times an int8 weight converted to f16 in the K
    loop, the per-output-channel scale applied after the loop."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(k, j), shape=(tk, tn)).astype(ct.float16)
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), w, acc)
    ct.store(C, index=(i, j), tile=(acc * ct.load(S, index=(j,), shape=(tn,))[None, :]).astype(C.dtype))


@ct.kernel
def mm_k_tiles_scalar(A, B, C, k_tiles: int, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The K trip count is a launch-time ``int`` argument (the caller multiplies only the first
    ``k_tiles * tk`` columns of A)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(k_tiles):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def mm_f16_epilogue_chain(A, B, bias, R, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The accumulator cast to f16 first, then bias and residual added in f16 arithmetic, then a
    ReLU as ``ct.maximum`` with an f16 zero."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    y = acc.astype(ct.float16) + ct.load(bias, index=(j,), shape=(tn,))[None, :]
    y = y + ct.load(R, index=(i, j), shape=(tm, tn))
    ct.store(C, index=(i, j), tile=ct.maximum(y, ct.zeros((tm, tn), dtype=ct.float16)))


@ct.kernel
def mm_persistent_grouped(A, B, C, group: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                          tk: ct.Constant[int]):
    """A persistent loop over output tiles (``range(bid(0), tiles, num_blocks(0))``) with GROUP_M
    rasterisation of the tile id inside the loop."""
    n_m = ct.cdiv(A.shape[0], tm)
    n_n = ct.cdiv(B.shape[1], tn)
    per_group = group * n_n
    for t in range(ct.bid(0), n_m * n_n, ct.num_blocks(0)):
        first_m = (t // per_group) * group
        size_m = min(n_m - first_m, group)
        pm = first_m + (t % per_group) % size_m
        pn = (t % per_group) // size_m
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(pm, k), shape=(tm, tk)), ct.load(B, index=(k, pn), shape=(tk, tn)), acc)
        ct.store(C, index=(pm, pn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_splitk_workspace(A, B, Wk, splits: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                        tk: ct.Constant[int]):
    """Split-K into a workspace: split ``bid(2)`` takes every ``splits``-th K tile and stores its
    partial product at ``Wk[split]`` (``[S, M, N]``, f32); :func:`splitk_reduce` sums them."""
    i, j, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(z, ct.num_tiles(A, axis=1, shape=(tm, tk)), splits):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(Wk, index=(z, i, j), tile=acc.reshape((1, tm, tn)))


@ct.kernel
def splitk_reduce(Wk, C, S: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int]):
    """The split-K reduction: a ``(S, tm, tn)`` tile of the workspace summed over axis 0, cast."""
    i, j = ct.bid(0), ct.bid(1)
    p = ct.load(Wk, index=(0, i, j), shape=(S, tm, tn), padding_mode=ZERO)
    ct.store(C, index=(i, j), tile=ct.sum(p, axis=0).astype(C.dtype))


@ct.kernel
def mm_grouped_tile_table(A, B, C, Tiles, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A grouped GEMM scheduled by a table: program ``t`` reads ``(group, m tile, n tile)`` from
    ``Tiles [T, 3]`` and multiplies ``A[g] [M, K]`` by ``B[g] [K, N]`` into ``C[g]`` (3-D arrays)."""
    t = ct.bid(0)
    g = ct.gather(Tiles, (t, 0))
    i = ct.gather(Tiles, (t, 1))
    j = ct.gather(Tiles, (t, 2))
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(g, i, k), shape=(1, tm, tk)).reshape((tm, tk))
        w = ct.load(B, index=(g, k, j), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(g, i, j), tile=acc.astype(C.dtype).reshape((1, tm, tn)))


@ct.kernel
def mm_rowsum_epilogue(A, B, C, RS, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """C and, beside it, the row sums of this program's C tile stored at ``RS[:, j]`` (``[M, N / tn]``)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))
    ct.store(RS, index=(i, j), tile=ct.sum(acc, axis=1, keepdims=True))


_add("mm_4d_heads", mm_4d_heads, [((2, 2, 128, 128), "float16"), ((2, 2, 128, 256), "float16"),
                                  ((2, 2, 128, 256), "float16"), 2, 128, 128, 64], (1, 2, 4), "gemm", outputs=(2,),
     notes="a 4-D batch (two unit dimensions, batch and head split from one program id) was refused by the tier; "
           "since session 15 the batched WGMMA kernel evaluates each operand's flat batch index b * H + h per work "
           "tile (the launcher flattens the contiguous batch dimensions)")
_add("mm_fp8_tensor_scales", mm_fp8_tensor_scales,
     [((128, 256), "float8_e4m3fn"), ((256, 256), "float8_e4m3fn"), ((1,), "float32"), ((1,), "float32"),
      ((128, 256), "bfloat16"), 128, 128, 64], (1, 2), "gemm", outputs=(4,))
_add("mm_e5m2_scalar_scales", mm_e5m2_scalar_scales,
     [((128, 128), "float8_e5m2"), ((128, 256), "float8_e5m2"), ((128, 256), "float16"), 0.5, 0.25, 128, 128, 64],
     (1, 2), "gemm", outputs=(2,))
_add("mm_int8_bias_i32", mm_int8_bias_i32, [((128, 256), "int8"), ((256, 128), "int8"), ((128,), "int32"),
                                            ((128, 128), "int32"), 128, 128, 64], (1, 1), "gemm", outputs=(3,))
_add("mm_weight_only_int8", mm_weight_only_int8, [((128, 128), "float16"), ((128, 128), "int8"), ((128,), "float32"),
                                                  ((128, 128), "float16"), 64, 64, 64], (2, 2), "gemm", outputs=(3,),
     notes="mixed-input (f16 x int8 converted in the loop) dots were refused by the tier ('A and B must have the "
           "same element type'); since session 16 the raw int8 tile is TMA-loaded and converted by the consumer warp "
           "groups into the WGMMA's B tile")
_add("mm_k_tiles_scalar", mm_k_tiles_scalar, [((128, 256), "float16"), ((256, 128), "float16"),
                                              ((128, 128), "float32"), 3, 128, 128, 64], (1, 1), "gemm",
     outputs=(2,))
_add("mm_f16_epilogue_chain", mm_f16_epilogue_chain,
     [((128, 128), "float16"), ((128, 256), "float16"), ((256,), "float16"), ((128, 256), "float16"),
      ((128, 256), "float16"), 128, 128, 64], (1, 2), "gemm", outputs=(4,))
_add("mm_persistent_grouped", mm_persistent_grouped, [((384, 128), "float16"), ((128, 256), "float16"),
                                                      ((384, 256), "float16"), 2, 128, 128, 64], (2,), "gemm",
     outputs=(2,), notes="found by this sweep: the grouped raster written first + (t % w) % size was not "
                         "recognised and the kernel refused with 'a memory token is used by an op TileAS does "
                         "not know'; tile_order now reads it")
_add("mm_splitk_workspace", mm_splitk_workspace, [((128, 512), "float16"), ((512, 128), "float16"),
                                                  ((3, 128, 128), "float32"), 3, 128, 128, 64], (1, 1, 3), "gemm",
     outputs=(2,),
     notes="a batched C with unbatched A and B (the split index as C's batch) was refused by the tier; since "
           "session 15 the batched WGMMA kernel reads the 2-D A and B as one matrix for every batch")
_add("splitk_reduce", splitk_reduce, [((3, 96, 80), "float32"), ((96, 80), "float16"), 4, 32, 32], (3, 3), "simt",
     outputs=(1,))
_add("mm_grouped_tile_table", mm_grouped_tile_table,
     [((3, 128, 128), "float16"), ((3, 128, 128), "float16"), ((3, 128, 128), "float32"), ((5, 3), "int32"),
      64, 128, 64], (5,), "gemm", outputs=(2,),
     notes="the batch (group) index read from a table was refused by the GEMM tier (batch = program id 2 only); "
           "since session 15 each agent reads the table per work tile (the group as A's, B's and C's batch index)")
_add("mm_rowsum_epilogue", mm_rowsum_epilogue, [((128, 128), "float16"), ((128, 256), "float16"),
                                                ((128, 256), "float32"), ((128, 2), "float32"), 128, 128, 64],
     (1, 2), "gemm", outputs=(2, 3))


# ----------------------------------------------------------------------------------------------- attention


def _online(s, m, den, o, v, dt):
    """One online-softmax step (exp2): new (m, den, o)."""
    m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
    p = ct.exp2(s - m2)
    c = ct.exp2(m - m2)
    return m2, den * c + ct.sum(p, axis=1, keepdims=True), ct.mma(p.astype(dt), v, o * c)


@ct.kernel
def attn_head32(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Head dim 32, f16, 128 x 64 tiles, exp2."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_gqa_mul_form(Q, K, V, O, qk_scale: float, H: ct.Constant[int], HKV: ct.Constant[int], BM: ct.Constant[int],
                      BN: ct.Constant[int], D: ct.Constant[int]):
    """GQA on ``[B, H, S, D]`` / ``[B, HKV, S, D]``: batch and head from ``bid(1)``, the K/V head
    ``(h * HKV) // H`` (a product then a division)."""
    qt, bh = ct.bid(0), ct.bid(1)
    b, h = bh // H, bh % H
    kvh = (h * HKV) // H
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(b, h, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_window_scalar(Q, K, V, O, qk_scale: float, window: int, BM: ct.Constant[int], BN: ct.Constant[int],
                       D: ct.Constant[int]):
    """Causal sliding window whose width is a launch-time ``int``: key ``k`` is seen by query ``q``
    when ``q - window < k <= q``; the loop starts at ``max(0, (qt * BM - window) // BN)``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), MASKED, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    lo = max(0, (qt * BM - window) // BN)
    hi = ct.cdiv((qt + 1) * BM, BN)
    for j in range(lo, hi):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        ki = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where((ki <= qi) & (ki > qi - window), s, MASKED)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_alibi_slopes_causal(Q, K, V, Slopes, O, qk_scale: float, H: ct.Constant[int], BM: ct.Constant[int],
                             D: ct.Constant[int]):
    """ALiBi with the head's slope gathered from ``Slopes [H]`` (in log2 units), causal with square
    tiles (loop ``range(qt + 1)``, the bias ``slope * (k - q)`` and a ``-inf`` mask)."""
    qt, bh = ct.bid(0), ct.bid(1)
    slope = ct.gather(Slopes, bh % H)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(qt + 1):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BM), dtype=ct.float32)) * qk_scale
        ki = (j * BM + ct.arange(BM, dtype=ct.int32))[None, :]
        s = ct.where(ki <= qi, s + slope * (ki - qi).astype(ct.float32), -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_varlen_table(Q, K, V, Lens, O, qk_scale: float, H: ct.Constant[int], BM: ct.Constant[int],
                      BN: ct.Constant[int], D: ct.Constant[int]):
    """Per-batch key lengths from ``Lens [B]``: the loop runs ``ct.cdiv(Lens[b], BN)`` tiles (a
    trip count read from memory) and masks keys at or past the length."""
    qt, bh = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, bh // H)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(n, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < n, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bias_shared_batches(Q, K, V, Bias, O, qk_scale: float, H: ct.Constant[int], BM: ct.Constant[int],
                             BN: ct.Constant[int], D: ct.Constant[int]):
    """An additive f32 bias ``[H, Sq, Sk]`` shared by every batch (read at head ``bh % H``), added
    in log2 units after the scale."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = s + ct.load(Bias, index=(bh % H, qt, j), shape=(1, BM, BN)).reshape((BM, BN)) * LOG2E
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_short_kv(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Cross attention against 40 keys held in one 64-key tile (the loop runs once; the padding
    keys masked by ``ct.where``)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    sk = K.shape[1]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv(sk, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] < sk, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D), padding_mode=ZERO).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_softcap(Q, K, V, O, scale: float, cap: float, BM: ct.Constant[int], BN: ct.Constant[int],
                 D: ct.Constant[int]):
    """Logit soft-capping (``cap * tanh(s * scale / cap)``) before a natural-exp online softmax."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = cap * ct.tanh(s * (scale / cap))
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_bool_mul(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], D: ct.Constant[int]):
    """Causal by multiplication: the max over the unmasked scores (masked ones set to the finite
    minimum), P multiplied by the bool mask converted to f32 (the masked keys' weights zero)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), MASKED, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(qt + 1):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BM), dtype=ct.float32)) * qk_scale
        keep = (j * BM + ct.arange(BM, dtype=ct.int32))[None, :] <= qi
        m2 = ct.maximum(m, ct.max(ct.where(keep, s, MASKED), axis=1, keepdims=True))
        p = ct.exp2(s - m2) * keep.astype(ct.float32)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BM, D)).reshape((BM, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_hash_dropout(Q, K, V, O, qk_scale: float, seed: int, BM: ct.Constant[int], BN: ct.Constant[int],
                      D: ct.Constant[int]):
    """Deterministic dropout on P (keep probability 3/4): a uint32 hash of (head, query, key) and
    ``seed`` (multiply / xor / shift), a dropped weight zero in O but kept in the denominator,
    the kept ones divided by 3/4."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    sq = Q.shape[1]
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        ki = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        x = ((bh * sq + qi) * K.shape[1] + ki).astype(ct.uint32) ^ ct.astype(seed, ct.uint32)
        x = x * 0x9E3779B1
        x = x ^ (x >> 15)
        x = x * 0x85EBCA77
        x = x ^ (x >> 13)
        keep = (x & 3) != 0
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        pd = ct.where(keep, p * (4.0 / 3.0), 0.0)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(pd.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bwd_dq(Q, K, V, dO, LSE, Delta, dQ, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                D: ct.Constant[int]):
    """FlashAttention backward, dQ: per key tile ``P = exp2(S * scale - lse)`` (LSE in log2 units),
    ``dP = dO V^T``, ``dS = P (dP - delta)``, ``dQ += dS K`` (three dots per step); dQ scaled by
    ``scale / log2(e)`` at the end."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    do = ct.load(dO, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    lse = ct.load(LSE, index=(bh, qt), shape=(1, BM)).reshape((BM, 1))
    delta = ct.load(Delta, index=(bh, qt), shape=(1, BM)).reshape((BM, 1))
    dq = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        p = ct.exp2(s - lse)
        dp = ct.mma(do, ct.transpose(v), ct.zeros((BM, BN), dtype=ct.float32))
        ds = p * (dp - delta)
        dq = ct.mma(ds.astype(K.dtype), k, dq)
    ct.store(dQ, index=(bh, qt, 0), tile=(dq * (qk_scale / LOG2E)).reshape((1, BM, D)))


@ct.kernel
def attn_bwd_dkdv(Q, K, V, dO, LSE, Delta, dK, dV, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                  D: ct.Constant[int]):
    """FlashAttention backward, dK and dV for one key tile: a loop over query tiles with two
    accumulators, ``dV += P^T dO`` and ``dK += dS^T Q`` (``P^T`` computed as ``K Q^T``)."""
    kt, bh = ct.bid(0), ct.bid(1)
    k = ct.load(K, index=(bh, kt, 0), shape=(1, BN, D)).reshape((BN, D))
    v = ct.load(V, index=(bh, kt, 0), shape=(1, BN, D)).reshape((BN, D))
    dk = ct.zeros((BN, D), dtype=ct.float32)
    dv = ct.zeros((BN, D), dtype=ct.float32)
    for i in range(ct.num_tiles(Q, axis=1, shape=(1, BM, D))):
        q = ct.load(Q, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        do = ct.load(dO, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        lse = ct.load(LSE, index=(bh, i), shape=(1, BM))
        delta = ct.load(Delta, index=(bh, i), shape=(1, BM))
        st = ct.mma(k, ct.transpose(q), ct.zeros((BN, BM), dtype=ct.float32)) * qk_scale
        pt = ct.exp2(st - lse)
        dv = ct.mma(pt.astype(dO.dtype), do, dv)
        dpt = ct.mma(v, ct.transpose(do), ct.zeros((BN, BM), dtype=ct.float32))
        dst = pt * (dpt - delta)
        dk = ct.mma(dst.astype(Q.dtype), q, dk)
    ct.store(dK, index=(bh, kt, 0), tile=(dk * (qk_scale / LOG2E)).reshape((1, BN, D)))
    ct.store(dV, index=(bh, kt, 0), tile=dv.reshape((1, BN, D)))


def _qkv(q, k, dt="float16"):
    return [(q, dt), (k, dt), (k, dt), (q, dt)]


_S = 0.125 * LOG2E
_add("attn_head32", attn_head32, _qkv((2, 256, 32), (2, 256, 32)) + [LOG2E / math.sqrt(32), 128, 64, 32], (2, 2),
     "chained", outputs=(3,))
_add("attn_gqa_mul_form", attn_gqa_mul_form, _qkv((2, 4, 256, 64), (2, 2, 256, 64))[:3] + [
    ((2, 4, 256, 64), "float16"), _S, 4, 2, 128, 64, 64], (2, 8), "chained", outputs=(3,))
_add("attn_window_scalar", attn_window_scalar, _qkv((2, 384, 64), (2, 384, 64)) + [_S, 100, 64, 64, 64], (6, 2),
     "chained", outputs=(3,))
_add("attn_alibi_slopes_causal", attn_alibi_slopes_causal, _qkv((4, 256, 64), (4, 256, 64))[:3] + [
    ((2,), "float32"), ((4, 256, 64), "float16"), _S, 2, 64, 64], (4, 4), "chained", outputs=(4,))
_add("attn_varlen_table", attn_varlen_table, _qkv((4, 128, 64), (4, 256, 64))[:3] + [
    ((2,), "int32"), ((4, 128, 64), "float16"), _S, 2, 128, 64, 64], (1, 4), "chained", outputs=(4,))
_add("attn_bias_shared_batches", attn_bias_shared_batches, _qkv((4, 256, 64), (4, 256, 64))[:3] + [
    ((2, 256, 256), "float32"), ((4, 256, 64), "float16"), _S, 2, 128, 64, 64], (2, 4), "chained", outputs=(4,))
_add("attn_short_kv", attn_short_kv, _qkv((2, 256, 64), (2, 40, 64)) + [_S, 128, 64, 64], (2, 2), "chained",
     outputs=(3,))
_add("attn_softcap", attn_softcap, _qkv((2, 256, 64), (2, 256, 64)) + [0.125, 5.0, 128, 64, 64], (2, 2), "chained",
     outputs=(3,))
_add("attn_causal_bool_mul", attn_causal_bool_mul, _qkv((2, 256, 64), (2, 256, 64)) + [_S, 64, 64], (4, 2),
     "chained", outputs=(3,))
_add("attn_hash_dropout", attn_hash_dropout, _qkv((2, 128, 64), (2, 256, 64)) + [_S, 1234, 64, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_bwd_dq", attn_bwd_dq, _qkv((2, 128, 64), (2, 128, 64))[:3] + [
    ((2, 128, 64), "float16"), ((2, 128), "float32"), ((2, 128), "float32"), ((2, 128, 64), "float32"), _S, 64, 64, 64],
     (2, 2), "chained", outputs=(6,),
     notes="refused as 'first dots with different A operands' until session 23: S and dP read their own A tiles "
           "(Q, dO), dQ's B is S's K tile (one load)")
_add("attn_bwd_dkdv", attn_bwd_dkdv, _qkv((2, 128, 64), (2, 128, 64))[:3] + [
    ((2, 128, 64), "float16"), ((2, 128), "float32"), ((2, 128), "float32"), ((2, 128, 64), "float32"),
    ((2, 128, 64), "float32"), _S, 64, 64, 64], (2, 2), "chained", outputs=(6, 7),
     notes="refused as '4 dots in one K loop that do not read the same A tile' until session 23: a chain feeding "
           "two accumulators (dV, dK), first dots with their own A tiles (K, V), the second dots' B tiles the first "
           "dots' (dO, Q)")


# ----------------------------------------------------------------------------------------------- memory-bound


@ct.kernel
def softmax_bwd_rows(Y, dY, dX, R: ct.Constant[int], N: ct.Constant[int]):
    """Softmax backward on ``R`` rows a program: ``dx = y (dy - sum(y dy))`` (ragged width)."""
    r = ct.bid(0)
    y = ct.load(Y, index=(r, 0), shape=(R, N), padding_mode=ZERO).astype(ct.float32)
    g = ct.load(dY, index=(r, 0), shape=(R, N), padding_mode=ZERO).astype(ct.float32)
    ct.store(dX, index=(r, 0), tile=(y * (g - ct.sum(y * g, axis=1, keepdims=True))).astype(dX.dtype))


@ct.kernel
def layernorm_bwd_dwdb(X, dY, Mean, Rstd, dW, dB, R: ct.Constant[int], N: ct.Constant[int]):
    """Layer-norm backward's weight / bias partial sums: program ``p`` takes rows ``[p R, (p + 1) R)``
    (the last block ragged) and stores ``sum(dy * xhat)`` and ``sum(dy)`` over them at row ``p``."""
    p = ct.bid(0)
    x = ct.load(X, index=(p, 0), shape=(R, N), padding_mode=ZERO).astype(ct.float32)
    g = ct.load(dY, index=(p, 0), shape=(R, N), padding_mode=ZERO).astype(ct.float32)
    mu = ct.load(Mean, index=(p,), shape=(R,), padding_mode=ZERO)[:, None]
    rs = ct.load(Rstd, index=(p,), shape=(R,), padding_mode=ZERO)[:, None]
    ct.store(dW, index=(p, 0), tile=ct.sum(g * (x - mu) * rs, axis=0, keepdims=True))
    ct.store(dB, index=(p, 0), tile=ct.sum(g, axis=0, keepdims=True))


@ct.kernel
def cross_entropy_chunked_ignore(Logits, Labels, Loss, ignore: int, BV: ct.Constant[int]):
    """Cross entropy over a vocabulary in ``BV`` chunks: an online log-sum-exp, the label's logit
    picked by ``where(iota == label)``; a row whose label is ``ignore`` gets loss 0."""
    r = ct.bid(0)
    label = ct.gather(Labels, r)
    m = ct.full((1,), -math.inf, dtype=ct.float32)
    s = ct.zeros((1,), dtype=ct.float32)
    picked = ct.zeros((1,), dtype=ct.float32)
    for c in range(ct.cdiv(Logits.shape[1], BV)):
        x = ct.load(Logits, index=(r, c), shape=(1, BV), padding_mode=ct.PaddingMode.NEG_INF).reshape((BV,))
        x = x.astype(ct.float32)
        m2 = ct.maximum(m, ct.max(x, axis=0, keepdims=True))
        s = s * ct.exp(m - m2) + ct.sum(ct.exp(x - m2), axis=0, keepdims=True)
        col = c * BV + ct.arange(BV, dtype=ct.int32)
        picked = picked + ct.sum(ct.where(col == label, x, 0.0), axis=0, keepdims=True)
        m = m2
    loss = ct.where(label == ignore, 0.0, m + ct.log(s) - picked)
    ct.store(Loss, index=(r,), tile=loss)


@ct.kernel
def argmax_online_chunks(X, Val, Idx, BC: ct.Constant[int]):
    """Row argmax over column chunks: the chunk's ``ct.max`` / ``ct.argmax`` merged into a carried
    (value, index) pair with a strict ``>`` (ties keep the first index); padding ``-inf``."""
    r = ct.bid(0)
    best = ct.full((1,), -math.inf, dtype=ct.float32)
    where = ct.zeros((1,), dtype=ct.int32)
    for c in range(ct.cdiv(X.shape[1], BC)):
        x = ct.load(X, index=(r, c), shape=(1, BC), padding_mode=ct.PaddingMode.NEG_INF).reshape((BC,))
        v = ct.max(x, axis=0, keepdims=True)
        i = ct.argmax(x, axis=0, keepdims=True).astype(ct.int32) + c * BC
        better = v > best
        where = ct.where(better, i, where)
        best = ct.where(better, v, best)
    ct.store(Val, index=(r,), tile=best)
    ct.store(Idx, index=(r,), tile=where)


@ct.kernel
def cumsum_cols_carry(X, Inc, Exc, BR: ct.Constant[int], BC: ct.Constant[int]):
    """Column prefix sums over ``BR``-row chunks: the running column total carried between chunks
    (``carry + cumsum(axis 0)``); also the exclusive sum (inclusive minus the element)."""
    c = ct.bid(0)
    carry = ct.zeros((1, BC), dtype=ct.float32)
    for r in range(ct.cdiv(X.shape[0], BR)):
        x = ct.load(X, index=(r, c), shape=(BR, BC), padding_mode=ZERO)
        inc = carry + ct.cumsum(x, axis=0)
        ct.store(Inc, index=(r, c), tile=inc)
        ct.store(Exc, index=(r, c), tile=inc - x)
        carry = ct.extract(inc, index=(BR - 1, 0), shape=(1, BC))


@ct.kernel
def rope_bshd_cat(X, Cos, Sin, Y, BS: ct.Constant[int], H: ct.Constant[int], HALF: ct.Constant[int]):
    """RoPE on ``[B, S, H, D]`` with ``(1, BS, H, D / 2)`` half tiles, cos / sin ``[S, D / 2]`` broadcast
    over heads by a reshape to ``(1, BS, 1, D / 2)``, the halves joined by ``ct.cat`` on axis 3."""
    st, b = ct.bid(0), ct.bid(1)
    x1 = ct.load(X, index=(b, st, 0, 0), shape=(1, BS, H, HALF)).astype(ct.float32)
    x2 = ct.load(X, index=(b, st, 0, 1), shape=(1, BS, H, HALF)).astype(ct.float32)
    c = ct.load(Cos, index=(st, 0), shape=(BS, HALF)).reshape((1, BS, 1, HALF))
    s = ct.load(Sin, index=(st, 0), shape=(BS, HALF)).reshape((1, BS, 1, HALF))
    y = ct.cat((x1 * c - x2 * s, x2 * c + x1 * s), axis=3)
    ct.store(Y, index=(b, st, 0, 0), tile=y.astype(Y.dtype))


@ct.kernel
def permute_bshd_bhsd(X, Y, BS: ct.Constant[int], H: ct.Constant[int], D: ct.Constant[int]):
    """``[B, S, H, D] -> [B, H, S, D]`` through ``ct.permute(t, (0, 2, 1, 3))`` of a 4-D tile (ragged S)."""
    st, b = ct.bid(0), ct.bid(1)
    t = ct.load(X, index=(b, st, 0, 0), shape=(1, BS, H, D), padding_mode=ZERO)
    ct.store(Y, index=(b, 0, st, 0), tile=ct.permute(t, (0, 2, 1, 3)))


@ct.kernel
def cat_rank3(A, B, Y1, Y2, T: ct.Constant[int]):
    """``ct.cat`` of two ``(2, T, T)`` tiles along axis 1 and along axis 2."""
    b = ct.bid(0)
    a = ct.load(A, index=(b, 0, 0), shape=(2, T, T))
    c = ct.load(B, index=(b, 0, 0), shape=(2, T, T))
    ct.store(Y1, index=(b, 0, 0), tile=ct.cat((a, c), axis=1))
    ct.store(Y2, index=(b, 0, 0), tile=ct.cat((c * 2.0, a), axis=2))


@ct.kernel
def reshape_rank4(X, Y, Z):
    """A ``(4, 64)`` tile reshaped to ``(2, 2, 8, 8)``, summed over axis 1 and 3, and the ``(2, 8)``
    result reshaped to 16; also the rank-4 tile permuted ``(3, 2, 1, 0)`` and flattened."""
    t = ct.load(X, index=(0, 0), shape=(4, 64))
    u = ct.reshape(t, (2, 2, 8, 8))
    ct.store(Y, index=(0,), tile=ct.reshape(ct.sum(ct.sum(u, axis=3), axis=1), (16,)))
    ct.store(Z, index=(0,), tile=ct.reshape(ct.permute(u, (3, 2, 1, 0)), (256,)))


@ct.kernel
def int4_unpack_dequant(P, S, Y, B: ct.Constant[int]):
    """Two signed int4 values per uint8 (low nibble first): ``& 0xF`` and ``>> 4``, sign-extended by
    ``where(v >= 8, v - 16, v)``, scaled by a per-block f32 scale, interleaved by a reshape."""
    i = ct.bid(0)
    p = ct.load(P, index=(i,), shape=(B,)).astype(ct.int32)
    lo = p & 15
    hi = (p >> 4) & 15
    lo = ct.where(lo >= 8, lo - 16, lo)
    hi = ct.where(hi >= 8, hi - 16, hi)
    s = ct.gather(S, i)
    pair = ct.cat((lo[:, None], hi[:, None]), axis=1).astype(ct.float32) * s
    ct.store(Y, index=(i,), tile=ct.reshape(pair, (2 * B,)).astype(Y.dtype))


@ct.kernel
def hash_dropout(X, Y, seed: int, B: ct.Constant[int]):
    """Dropout with keep probability 1/2 from a uint32 hash of the element index and ``seed``:
    kept elements doubled, dropped ones 0 (ragged length)."""
    i = ct.bid(0)
    idx = i * B + ct.arange(B, dtype=ct.int32)
    h = idx.astype(ct.uint32) * 0x9E3779B1 + ct.astype(seed, ct.uint32)
    h = h ^ (h >> 16)
    h = h * 0x7FEB352D
    h = h ^ (h >> 15)
    x = ct.load(X, index=(i,), shape=(B,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.where((h & 1) == 1, x * 2.0, 0.0))


@ct.kernel
def bool_rows_any_all(X, Any, All, Cnt, Pos, N: ct.Constant[int]):
    """Per row of a bool array: any / all (max / min of the ints), the count of trues, and a bool
    output ``x > 0`` of an f32 row computed from the bools."""
    r = ct.bid(0)
    b = ct.load(X, index=(r, 0), shape=(1, N))
    n = b.astype(ct.int32)
    ct.store(Any, index=(r,), tile=(ct.max(n, axis=1) > 0))
    ct.store(All, index=(r,), tile=(ct.min(n, axis=1) == 1))
    ct.store(Cnt, index=(r,), tile=ct.sum(n, axis=1))
    f = ct.where(b, 1.5, -0.5)
    ct.store(Pos, index=(r, 0), tile=f > 0.0)


@ct.kernel
def int_where_chain(A, B, Y, lo: int, hi: int, T: ct.Constant[int]):
    """int32 ``where`` chains: clamp ``A`` to ``[lo, hi]``, take ``B`` where ``A`` is even, negate odd
    multiples of 3, a min / max of the two arrays added (ragged)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(T,), padding_mode=ZERO)
    b = ct.load(B, index=(i,), shape=(T,), padding_mode=ZERO)
    c = ct.where(a < lo, lo, ct.where(a > hi, hi, a))
    c = ct.where(a % 2 == 0, b, c)
    c = ct.where((a % 3 == 0) & (a % 2 != 0), -c, c)
    ct.store(Y, index=(i,), tile=c + ct.minimum(a, b) - ct.maximum(a, b))


@ct.kernel
def groupnorm_3d(X, W, Bb, Y, G: ct.Constant[int], CG: ct.Constant[int], L: ct.Constant[int], eps: float):
    """Group norm on ``[N, C, L]``: a ``(1, CG, L)`` tile per (sample, group), mean / variance over
    axes 1 and 2, per-channel weight and bias broadcast as ``(1, CG, 1)``."""
    g, n = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(n, g, 0), shape=(1, CG, L)).astype(ct.float32)
    mu = ct.sum(ct.sum(x, axis=2, keepdims=True), axis=1, keepdims=True) / (CG * L)
    d = x - mu
    var = ct.sum(ct.sum(d * d, axis=2, keepdims=True), axis=1, keepdims=True) / (CG * L)
    w = ct.load(W, index=(g,), shape=(CG,)).reshape((1, CG, 1))
    b = ct.load(Bb, index=(g,), shape=(CG,)).reshape((1, CG, 1))
    ct.store(Y, index=(n, g, 0), tile=(d * ct.rsqrt(var + eps) * w + b).astype(Y.dtype))


@ct.kernel
def pairwise_sqdist(X, Z, Dist, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Squared distances by 3-D broadcasting: ``(BM, 1, D) - (1, BN, D)`` squared and summed over
    axis 2 (ragged point counts)."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, 0), shape=(BM, D), padding_mode=ZERO)
    z = ct.load(Z, index=(j, 0), shape=(BN, D), padding_mode=ZERO)
    d = x.reshape((BM, 1, D)) - z.reshape((1, BN, D))
    ct.store(Dist, index=(i, j), tile=ct.sum(d * d, axis=2))


@ct.kernel
def scalar_loop_bounds(X, Y, start: int, stop: int, step: int, N: ct.Constant[int]):
    """Rows ``start, start + step, ... < stop`` (all three launch-time ``int`` arguments) summed
    into one row, and the number of rows visited counted in the loop."""
    acc = ct.zeros((1, N), dtype=ct.float32)
    n = 0
    for r in range(start, stop, step):
        acc = acc + ct.load(X, index=(r, 0), shape=(1, N))
        n = n + 1
    ct.store(Y, index=(0, 0), tile=acc / n)


@ct.kernel
def welford_chunks(X, Mean, Var, BC: ct.Constant[int]):
    """Row mean / variance by Welford merges of ``BC``-wide chunks (count, mean, M2), the tail
    chunk's count from the true width."""
    r = ct.bid(0)
    n = X.shape[1]
    cnt = ct.zeros((1,), dtype=ct.float32)
    mean = ct.zeros((1,), dtype=ct.float32)
    m2 = ct.zeros((1,), dtype=ct.float32)
    for c in range(ct.cdiv(n, BC)):
        x = ct.load(X, index=(r, c), shape=(1, BC), padding_mode=ZERO).reshape((BC,))
        valid = (c * BC + ct.arange(BC, dtype=ct.int32)) < n
        k = ct.sum(valid.astype(ct.float32), axis=0, keepdims=True)
        mk = ct.sum(x, axis=0, keepdims=True) / k
        dk = ct.where(valid, x - mk, 0.0)
        m2k = ct.sum(dk * dk, axis=0, keepdims=True)
        tot = cnt + k
        delta = mk - mean
        mean = mean + delta * k / tot
        m2 = m2 + m2k + delta * delta * cnt * k / tot
        cnt = tot
    ct.store(Mean, index=(r,), tile=mean)
    ct.store(Var, index=(r,), tile=m2 / cnt)


@ct.kernel
def embedding_bag_lengths(Ids, Lens, E, Out, L: ct.Constant[int], D: ct.Constant[int]):
    """Embedding bag (mean): bag ``b`` averages the rows ``E[Ids[b, t]]`` for ``t < Lens[b]`` (the ids
    past the length masked out of the gather)."""
    b = ct.bid(0)
    n = ct.gather(Lens, b)
    t = ct.arange(L, dtype=ct.int32)
    ids = ct.load(Ids, index=(b, 0), shape=(1, L)).reshape((L,))
    valid = t < n
    rows = ct.gather(E, (ids[:, None], ct.arange(D, dtype=ct.int32)[None, :]), mask=valid[:, None])
    ct.store(Out, index=(b, 0), tile=(ct.sum(rows, axis=0, keepdims=True) / ct.maximum(n, 1)))


@ct.kernel
def quant_int8_rows(X, Q, S, N: ct.Constant[int]):
    """Row-wise symmetric int8 quantisation: scale ``absmax / 127`` (1 for an all-zero row), values
    rounded half away from zero (``floor(|x| / s + 0.5)`` with the sign), clamped to 127."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=ZERO).astype(ct.float32)
    amax = ct.max(ct.abs(x), axis=1, keepdims=True)
    s = ct.where(amax > 0.0, amax / 127.0, 1.0)
    a = ct.minimum(ct.floor(ct.abs(x) / s + 0.5), 127.0)
    q = ct.where(x < 0.0, -a, a)
    ct.store(Q, index=(r, 0), tile=q.astype(ct.int8))
    ct.store(S, index=(r,), tile=s.reshape((1,)))


@ct.kernel
def compact_positive(X, Y, Count, B: ct.Constant[int]):
    """Stream compaction in one program: the positions of the positive elements by an exclusive
    scan of the bool mask (``cumsum - mask``), scattered there with the mask; the count stored."""
    x = ct.load(X, index=(0,), shape=(B,), padding_mode=ZERO)
    keep = x > 0.0
    k = keep.astype(ct.int32)
    pos = ct.cumsum(k, axis=0) - k
    ct.scatter(Y, pos, x, mask=keep)
    ct.store(Count, index=(0,), tile=ct.sum(k, axis=0, keepdims=True))


@ct.kernel
def gemv_rows(A, X, Y, BM: ct.Constant[int], BK: ct.Constant[int]):
    """``y = A x`` with ``(BM, BK)`` tiles of A times ``x[None, :]`` summed along axis 1 over a K loop
    (ragged M and K)."""
    i = ct.bid(0)
    acc = ct.zeros((BM,), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], BK)):
        a = ct.load(A, index=(i, k), shape=(BM, BK), padding_mode=ZERO).astype(ct.float32)
        x = ct.load(X, index=(k,), shape=(BK,), padding_mode=ZERO).astype(ct.float32)
        acc = acc + ct.sum(a * x[None, :], axis=1)
    ct.store(Y, index=(i,), tile=acc)


_add("softmax_bwd_rows", softmax_bwd_rows, [((10, 300), "float16"), ((10, 300), "float16"), ((10, 300), "float16"),
                                            4, 512], (3,), "simt", outputs=(2,))
_add("layernorm_bwd_dwdb", layernorm_bwd_dwdb,
     [((10, 96), "float32"), ((10, 96), "float32"), ((10,), "float32"), ((10,), "float32"), ((3, 96), "float32"),
      ((3, 96), "float32"), 4, 128], (3,), "simt", outputs=(4, 5))
_add("cross_entropy_chunked_ignore", cross_entropy_chunked_ignore,
     [((5, 300), "bfloat16"), ((5,), "int32"), ((5,), "float32"), -100, 128], (5,), "simt", outputs=(2,))
_add("argmax_online_chunks", argmax_online_chunks, [((4, 200), "float32"), ((4,), "float32"), ((4,), "int32"), 64],
     (4,), "simt", outputs=(1, 2))
_add("cumsum_cols_carry", cumsum_cols_carry, [((50, 20), "float32"), ((50, 20), "float32"), ((50, 20), "float32"),
                                              16, 8], (3,), "simt", outputs=(1, 2))
_add("rope_bshd_cat", rope_bshd_cat, [((2, 8, 2, 32), "float16"), ((8, 16), "float32"), ((8, 16), "float32"),
                                      ((2, 8, 2, 32), "float16"), 4, 2, 16], (2, 2), "simt", outputs=(3,))
_add("permute_bshd_bhsd", permute_bshd_bhsd, [((2, 10, 2, 8), "float32"), ((2, 2, 10, 8), "float32"), 4, 2, 8],
     (3, 2), "simt", outputs=(1,))
_add("cat_rank3", cat_rank3, [((4, 8, 8), "float32"), ((4, 8, 8), "float32"), ((4, 16, 8), "float32"),
                              ((4, 8, 16), "float32"), 8], (2,), "simt", outputs=(2, 3))
_add("reshape_rank4", reshape_rank4, [((4, 64), "float32"), ((16,), "float32"), ((256,), "float32")], (1,), "simt",
     outputs=(1, 2))
_add("int4_unpack_dequant", int4_unpack_dequant, [((96,), "uint8"), ((3,), "float32"), ((192,), "float16"), 32],
     (3,), "simt", outputs=(2,))
_add("hash_dropout", hash_dropout, [((300,), "float32"), ((300,), "float32"), 7, 128], (3,), "simt", outputs=(1,))
_add("bool_rows_any_all", bool_rows_any_all, [((4, 16), "bool_"), ((4,), "bool_"), ((4,), "bool_"), ((4,), "int32"),
                                              ((4, 16), "bool_"), 16], (4,), "simt", outputs=(1, 2, 3, 4))
_add("int_where_chain", int_where_chain, [((300,), "int32"), ((300,), "int32"), ((300,), "int32"), -5, 7, 128], (3,),
     "simt", outputs=(2,))
_add("groupnorm_3d", groupnorm_3d, [((2, 8, 32), "float16"), ((8,), "float32"), ((8,), "float32"),
                                    ((2, 8, 32), "float16"), 4, 2, 32, 1e-5], (4, 2), "simt", outputs=(3,))
_add("pairwise_sqdist", pairwise_sqdist, [((20, 8), "float32"), ((12, 8), "float32"), ((20, 12), "float32"), 16, 8, 8],
     (2, 2), "simt", outputs=(2,))
_add("scalar_loop_bounds", scalar_loop_bounds, [((10, 32), "float32"), ((1, 32), "float32"), 1, 9, 3, 32], (1,),
     "simt", outputs=(1,))
_add("welford_chunks", welford_chunks, [((3, 150), "float32"), ((3,), "float32"), ((3,), "float32"), 64], (3,),
     "simt", outputs=(1, 2))
_add("embedding_bag_lengths", embedding_bag_lengths, [((3, 8), "int32"), ((3,), "int32"), ((20, 16), "float32"),
                                                      ((3, 16), "float32"), 8, 16], (3,), "simt", outputs=(3,))
_add("quant_int8_rows", quant_int8_rows, [((4, 100), "float16"), ((4, 100), "int8"), ((4,), "float32"), 128], (4,),
     "simt", outputs=(1, 2))
_add("compact_positive", compact_positive, [((100,), "float32"), ((100,), "float32"), ((1,), "int32"), 128], (1,),
     "simt", outputs=(1, 2))
_add("gemv_rows", gemv_rows, [((50, 70), "float16"), ((70,), "float16"), ((50,), "float32"), 16, 32], (4,), "simt",
     outputs=(2,))


# ----------------------------------------------------------------------------------------------- lists of arrays


@ct.kernel
def mm_grouped_lists(As, Bs, Cs, Tiles, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The samples' grouped GEMM: three lists of arrays (each group its own M, N, K) and a tile
    table ``Tiles [T, 3]`` of (group, m tile, n tile); ``As[g]`` etc. are arrays, K from ``A.shape``."""
    t = ct.bid(0)
    g = ct.gather(Tiles, (t, 0))
    i = ct.gather(Tiles, (t, 1))
    j = ct.gather(Tiles, (t, 2))
    A, B, C = As[g], Bs[g], Cs[g]
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def list_sums(Xs, Out, B: ct.Constant[int]):
    """One program sums every array of a list (``range(len(Xs))``, ragged lengths read off each
    array's shape) into ``Out[g]``, and the grand total into ``Out[len(Xs)]``."""
    total = ct.zeros((1,), dtype=ct.float32)
    for g in range(len(Xs)):
        X = Xs[g]
        s = ct.zeros((1,), dtype=ct.float32)
        for c in range(ct.cdiv(X.shape[0], B)):
            s = s + ct.sum(ct.load(X, index=(c,), shape=(B,), padding_mode=ZERO), axis=0, keepdims=True)
        ct.store(Out, index=(g,), tile=s)
        total = total + s
    ct.store(Out, index=(len(Xs),), tile=total)


_add("mm_grouped_lists", mm_grouped_lists,
     [[((128, 64), "float16"), ((64, 96), "float16"), ((192, 128), "float16")],
      [((64, 128), "float16"), ((96, 64), "float16"), ((128, 64), "float16")],
      [((128, 128), "float32"), ((64, 64), "float32"), ((192, 64), "float32")], ((8, 3), "int32"), 64, 64, 32],
     (8,), "simt", outputs=(2,), error="an array of a list-of-arrays parameter",
     notes="found by this sweep: list-of-arrays parameters were refused by the launcher and int_to_ptr by "
           "convert-cudatile-to-tileaa; now the SIMT path runs them (the tier refuses a computed base pointer)")
_add("list_sums", list_sums, [[((100,), "float32"), ((37,), "float32"), ((256,), "float32")], ((4,), "float32"), 64],
     (1,), "simt", outputs=(1,))



# ----------------------------------------------------------------------------------------------- batch 2: riskier forms


@ct.kernel
def neg_axes_3d(X, Y, Z, W, BR: ct.Constant[int], N: ct.Constant[int]):
    """Negative axes on a ``(2, BR, N)`` tile: a softmax with ``axis=-1``, a cumsum along ``axis=-2``,
    a max over ``axis=-3`` stored as a 2-D tile, ``ct.cat(..., axis=-1)`` of two halves swapped."""
    i = ct.bid(0)
    x = ct.load(X, index=(0, i, 0), shape=(2, BR, N))
    e = ct.exp(x - ct.max(x, axis=-1, keepdims=True))
    ct.store(Y, index=(0, i, 0), tile=e / ct.sum(e, axis=-1, keepdims=True))
    ct.store(Z, index=(0, i, 0), tile=ct.cumsum(x, axis=-2))
    h = N // 2
    a = ct.extract(x, index=(0, 0, 0), shape=(2, BR, h))
    b = ct.extract(x, index=(0, 0, 1), shape=(2, BR, h))
    ct.store(W, index=(i, 0), tile=ct.max(ct.cat((b, a), axis=-1), axis=-3))


@ct.kernel
def attn_3d_tiles(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """Attention kept on 3-D ``(1, BM, D)`` tiles: batched ``ct.mma`` of ``(1, BM, D) x (1, D, BN)``
    (K turned by ``ct.permute(k, (0, 2, 1))``), reductions along ``axis=2``, no reshape."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D))
    m = ct.full((1, BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((1, BM, 1), dtype=ct.float32)
    o = ct.zeros((1, BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D))
        s = ct.mma(q, ct.permute(k, (0, 2, 1)), ct.zeros((1, BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=2, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=2, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype))


@ct.kernel
def attn_two_heads_shared_kv(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                             D: ct.Constant[int]):
    """GQA with both query heads of a K/V head in one program: Q / O ``[B, 2 * HKV, S, D]``, the two
    heads' online softmaxes side by side in one key loop reading each K / V tile once."""
    qt, bk = ct.bid(0), ct.bid(1)
    b, kvh = bk // K.shape[1], bk % K.shape[1]
    q0 = ct.load(Q, index=(b, 2 * kvh, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    q1 = ct.load(Q, index=(b, 2 * kvh + 1, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    m0 = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    m1 = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    l0 = ct.zeros((BM, 1), dtype=ct.float32)
    l1 = ct.zeros((BM, 1), dtype=ct.float32)
    o0 = ct.zeros((BM, D), dtype=ct.float32)
    o1 = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=2, shape=(1, 1, BN, D))):
        k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s0 = ct.mma(q0, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s1 = ct.mma(q1, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m0, l0, o0 = _online(s0, m0, l0, o0, v, V.dtype)
        m1, l1, o1 = _online(s1, m1, l1, o1, v, V.dtype)
    ct.store(O, index=(b, 2 * kvh, qt, 0), tile=(o0 / l0).astype(O.dtype).reshape((1, 1, BM, D)))
    ct.store(O, index=(b, 2 * kvh + 1, qt, 0), tile=(o1 / l1).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_kv_broadcast_batch(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                            D: ct.Constant[int]):
    """One K / V ``[1, S, D]`` (a shared prefix / memory) for every query batch ``[B, S, D]``: K and V
    read at batch 0."""
    qt, b = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(b, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(0, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(0, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(b, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def uint_int_ops(U, I, Y1, Y2, Y3, Y4, T: ct.Constant[int]):
    """uint32 ``//`` (as CUDA Tile IR wants it: through int64, the error's advice), ``%`` and ``>>``
    (logical) beside int32 ``>>`` (arithmetic) and ``//`` by a negative constant; ``bitwise_not``; a
    uint32 compare above 2**31."""
    i = ct.bid(0)
    u = ct.load(U, index=(i,), shape=(T,))
    x = ct.load(I, index=(i,), shape=(T,))
    q = (u.astype(ct.int64) // 7).astype(ct.uint32)
    ct.store(Y1, index=(i,), tile=q + (u % 7) + (u >> 29))
    ct.store(Y2, index=(i,), tile=(x >> 3) + x // -4)
    ct.store(Y3, index=(i,), tile=ct.bitwise_not(x) ^ (x << 2))
    ct.store(Y4, index=(i,), tile=(u > 0x80000000).astype(ct.int32))


@ct.kernel
def int64_row_sums(X, S, P, N: ct.Constant[int]):
    """Row sums of int32 values too large for int32 accumulated in int64, and an int64 product of
    two columns."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N)).astype(ct.int64)
    ct.store(S, index=(r,), tile=ct.sum(x, axis=1))
    a = ct.extract(x, index=(0, 0), shape=(1, 1)).reshape((1,))
    b = ct.extract(x, index=(0, 1), shape=(1, 1)).reshape((1,))
    ct.store(P, index=(r,), tile=a * b)


@ct.kernel
def none_indexing_3d(A, B, Y, BM: ct.Constant[int], BN: ct.Constant[int]):
    """``[:, None, :]`` and ``[None, :, :]`` views of 2-D tiles broadcast to 3-D, then a min over the
    middle axis (a min-plus product ``Y[i, j] = min_k A[i, k] + B[k, j]``)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i, 0), shape=(BM, BN))
    b = ct.load(B, index=(0, 0), shape=(BN, BN))
    ct.store(Y, index=(i, 0), tile=ct.min(a[:, :, None] + b[None, :, :], axis=1))


@ct.kernel
def mm_static_iter_k(A, B, C, KT: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                     tk: ct.Constant[int]):
    """The K loop unrolled by ``ct.static_iter(range(KT))`` (a constant trip count): KT copies of the
    body, no loop (tileas-reroll-unrolled-loops rolls them back into one)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in ct.static_iter(range(KT)):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


_add("neg_axes_3d", neg_axes_3d, [((2, 8, 32), "float32"), ((2, 8, 32), "float32"), ((2, 8, 32), "float32"),
                                  ((8, 32), "float32"), 4, 32], (2,), "simt", outputs=(1, 2, 3))
_add("attn_3d_tiles", attn_3d_tiles, _qkv((2, 256, 64), (2, 256, 64)) + [_S, 128, 64, 64], (2, 2), "chained",
     outputs=(3,), notes="found by this sweep: attention on 3-D (1, BM, D) tiles without a reshape was refused by "
                         "the chained tier ('loop-carried tile [1, 128, 1]'); tileas-squeeze-unit-tiles computes it "
                         "on the 2-D tiles")
_add("attn_two_heads_shared_kv", attn_two_heads_shared_kv, _qkv((2, 4, 128, 64), (2, 2, 128, 64))[:3] + [
    ((2, 4, 128, 64), "float16"), _S, 64, 64, 64], (2, 4), "chained", outputs=(3,),
     notes="two query heads' chains in one key loop: refused as '4 dots in one K loop that do not read the same A "
           "tile' until session 23 (first dots with their own A tiles, two second dots reading one V tile)")
_add("attn_kv_broadcast_batch", attn_kv_broadcast_batch, _qkv((3, 256, 64), (1, 256, 64)) + [_S, 128, 64, 64],
     (2, 3), "chained", outputs=(3,))
_add("uint_int_ops", uint_int_ops, [((256,), "uint32"), ((256,), "int32"), ((256,), "uint32"), ((256,), "int32"),
                                    ((256,), "int32"), ((256,), "int32"), 128], (2,), "simt", outputs=(2, 3, 4, 5))
_add("int64_row_sums", int64_row_sums, [((3, 64), "int32"), ((3,), "int64"), ((3,), "int64"), 64], (3,), "simt",
     outputs=(1, 2))
_add("none_indexing_3d", none_indexing_3d, [((20, 16), "float32"), ((16, 16), "float32"), ((20, 16), "float32"),
                                            8, 16], (3,), "simt", outputs=(2,))
_add("mm_static_iter_k", mm_static_iter_k, [((128, 256), "float16"), ((256, 128), "float16"), ((128, 128), "float32"),
                                            4, 128, 128, 64], (1, 1), "gemm", outputs=(2,),
     notes="found by this sweep: a K loop unrolled by ct.static_iter was refused by the tier ('this dot is not in "
           "a loop'); tileas-reroll-unrolled-loops rolls the copies back into a loop")


# ----------------------------------------------------------------------------------------------- batch 3: loop shapes


@ct.kernel
def mm_peeled_first_k(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The first K tile peeled before the loop (``acc = mma(a0, b0, zeros)``, then ``range(1, kt)``)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.mma(ct.load(A, index=(i, 0), shape=(tm, tk)), ct.load(B, index=(0, j), shape=(tk, tn)),
                 ct.zeros((tm, tn), dtype=ct.float32))
    for k in range(1, ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def mm_two_k_loops(A1, B1, A2, B2, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = A1 @ B1 + A2 @ B2`` as two K loops into one accumulator (a concatenated K), the two
    K extents different."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A1, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A1, index=(i, k), shape=(tm, tk)), ct.load(B1, index=(k, j), shape=(tk, tn)), acc)
    for k in range(ct.num_tiles(A2, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A2, index=(i, k), shape=(tm, tk)), ct.load(B2, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def attn_acc_added_after(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """O updated as ``o * c + mma(p, v, zeros)`` (the product added after, not accumulated into)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = o * c + ct.mma(p.astype(V.dtype), v, ct.zeros((BM, D), dtype=ct.float32))
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_matmul_operator(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """The scores and the PV product with ``@`` (f16 results, widened to f32 by the program): S is
    rounded to f16 before the softmax, P @ V to f16 before it is accumulated."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = (q @ ct.transpose(k)).astype(ct.float32) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = o * c + (p.astype(V.dtype) @ v).astype(ct.float32)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_causal_bm_twice_bn(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                            D: ct.Constant[int]):
    """Causal with 128-query tiles and 64-key tiles: ``range((qt + 1) * (BM // BN))`` key tiles,
    every one masked (the last two cross the diagonal)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range((qt + 1) * (BM // BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        s = ct.where((j * BN + ct.arange(BN, dtype=ct.int32))[None, :] <= qi, s, -math.inf)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def mm_epilogue_row_gather(A, B, Perm, Scale, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """An epilogue gathering a per-row scale through a permutation: ``Scale[Perm[row]]`` with the rows
    from ``ct.arange`` (two dependent element gathers), times the accumulator."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    rows = i * tm + ct.arange(tm, dtype=ct.int32)
    s = ct.gather(Scale, ct.gather(Perm, rows))
    ct.store(C, index=(i, j), tile=acc * s[:, None])


_add("mm_peeled_first_k", mm_peeled_first_k, [((128, 256), "float16"), ((256, 128), "float16"),
                                              ((128, 128), "float32"), 128, 128, 64], (1, 1), "gemm", outputs=(2,),
     notes="found by this sweep: refused ('not supported yet in the accumulator's register layout: the "
           "epilogue op nv_tileas.dot'); tileas-unpeel-k-loop starts the loop at the peeled step")
_add("mm_two_k_loops", mm_two_k_loops, [((128, 128), "float16"), ((128, 128), "float16"), ((128, 192), "float16"),
                                        ((192, 128), "float16"), ((128, 128), "float32"), 128, 128, 64], (1, 1),
     "simt", outputs=(4,), error="2 loops with dots one after another",
     notes="two K loops into one accumulator (a concatenated K) are not one loop's halves")
_add("attn_acc_added_after", attn_acc_added_after, _qkv((2, 256, 64), (2, 256, 64)) + [_S, 128, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_matmul_operator", attn_matmul_operator, _qkv((2, 256, 64), (2, 256, 64)) + [_S, 128, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_causal_bm_twice_bn", attn_causal_bm_twice_bn, _qkv((2, 256, 64), (2, 256, 64)) + [_S, 128, 64, 64],
     (2, 2), "chained", outputs=(3,))
_add("mm_epilogue_row_gather", mm_epilogue_row_gather,
     [((256, 128), "float16"), ((128, 128), "float16"), ((256,), "int32"), ((256,), "float32"),
      ((256, 128), "float32"), 128, 128, 64], (2, 1), "gemm", outputs=(4,),
     notes="an element gather whose index is itself gathered was refused ('the epilogue gathers a tile', until "
           "sweep 11 'the epilogue op nv_tileaa.load'); since session 24 (sweep 18) the epilogue loads through a "
           "tile of pointers per element, masked")


# ----------------------------------------------------------------------------------------------- batch 4: spellings


@ct.kernel
def mm_tk128(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """128-deep K tiles (``tk = 128``) with a 64 x 128 output tile and a ragged K (320)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def attn_scale_after_max(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """The running max kept on unscaled scores, the scale applied inside the exponent
    (``exp2((s - m) * scale)``), reductions written with ``axis=-1``, O normalised by a reciprocal."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        m2 = ct.maximum(m, ct.max(s, axis=-1, keepdims=True))
        p = ct.exp2((s - m2) * qk_scale)
        c = ct.exp2((m - m2) * qk_scale)
        den = den * c + ct.sum(p, axis=-1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o * (1.0 / den)).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_bm64_bn128(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
    """64-query tiles against 128-key tiles, bf16, head dim 64, the sequence 384 (3 key tiles)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


_add("mm_tk128", mm_tk128, [((192, 320), "float16"), ((320, 256), "float16"), ((192, 256), "float16"), 64, 128, 128],
     (3, 2), "gemm", outputs=(2,))
_add("attn_scale_after_max", attn_scale_after_max, _qkv((2, 256, 64), (2, 256, 64)) + [_S, 128, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_bm64_bn128", attn_bm64_bn128, _qkv((2, 384, 64), (2, 384, 64), "bfloat16") + [_S, 64, 128, 64], (6, 2),
     "chained", outputs=(3,))


@ct.kernel
def attn_fp8_e4m3(Q, K, V, O, qk_scale: float, v_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                  D: ct.Constant[int]):
    """fp8 attention (FlashAttention-3 style): Q, K, V in e4m3, P cast to e4m3 for the PV dot, the V
    scale applied to O at the end, f16 out."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        m, den, o = _online(s, m, den, o, v, V.dtype)
    ct.store(O, index=(bh, qt, 0), tile=(o * v_scale / den).astype(O.dtype).reshape((1, BM, D)))


_add("attn_fp8_e4m3", attn_fp8_e4m3, [((2, 256, 64), "float8_e4m3fn"), ((2, 256, 64), "float8_e4m3fn"),
                                      ((2, 256, 64), "float8_e4m3fn"), ((2, 256, 64), "float16"), _S, 0.5, 128, 64, 64],
     (2, 2), "chained", outputs=(3,),
     notes="fp8 attention with an e4m3 V (P cast to e4m3): the chained tier's first dot takes e4m3 Q / K since "
     "session 43, the fp8 P V (P packed to e4m3 in registers, V's launch-time key-major copy) since session 45; "
     "the interpreter test runs its SIMT fallback")


@ct.kernel
def attn_3d_causal(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], D: ct.Constant[int]):
    """Causal attention on 3-D tiles: the query and key positions reshaped to ``(1, BM, 1)`` and
    ``(1, 1, BM)``, the mask a 3-D ``ct.where``, square tiles, ``range(qt + 1)``."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D))
    qi = (qt * BM + ct.arange(BM, dtype=ct.int32)).reshape((1, BM, 1))
    m = ct.full((1, BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((1, BM, 1), dtype=ct.float32)
    o = ct.zeros((1, BM, D), dtype=ct.float32)
    for j in range(qt + 1):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BM, D))
        s = ct.mma(q, ct.permute(k, (0, 2, 1)), ct.zeros((1, BM, BM), dtype=ct.float32)) * qk_scale
        ki = (j * BM + ct.arange(BM, dtype=ct.int32)).reshape((1, 1, BM))
        s = ct.where(ki <= qi, s, -math.inf)
        m2 = ct.maximum(m, ct.max(s, axis=2, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=2, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BM, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype))


_add("attn_3d_causal", attn_3d_causal, _qkv((2, 256, 64), (2, 256, 64)) + [_S, 64, 64], (4, 2), "chained",
     outputs=(3,), notes="found by this sweep (with attn_3d_tiles): refused ('loop-carried tile [1, 64, 1]'); "
                         "tileas-squeeze-unit-tiles (the arange reshapes' leading expand_dims dropped)")
