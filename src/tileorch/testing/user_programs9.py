"""The ninth user sweep (session 17): dot-bearing cuTile 1.7 programs written the way users write
them (NVIDIA's cuTile samples and docs, Triton's tutorials ported), in kinds the first eight sweeps
(:mod:`tileorch.testing.user_programs` .. ``user_programs8``, ``dot_programs``,
``computed_b_programs``, ``attention_programs*``) did not write.

GEMM shapes and loops: a persistent tile loop written by the user with a bf16 column bias, one
with Triton's GROUP_M swizzle over ragged M / N / K, one on a ``num_ctas=2`` kernel, tiles of
256 x 128 x 32 and 64 x 256, ``occupancy`` / ``latency`` hints, K (200) not a multiple of the K
tile, M and N ragged, a K trip count from a runtime ``K`` argument, ``ct.full`` as the accumulator's
start, nested K loops (blocks of K tiles), two ``ct.static_iter`` halves of every K step, an f16
accumulator updated by ``acc += a @ b`` (the product rounded to f16 first), skinny M (decode: 1
and 16 rows), a matrix-vector product (N = 1) and sixteen vectors at once (N = 16).

Operands: A read transposed (``A^T [K, M]`` tiles turned by ``ct.transpose``), B read with
swapped indices (``W [N, K]`` tiles turned by ``ct.permute``), a dot of a loaded tile with a
constant ``ct.ones`` tile (row sums on tensor cores), a 4-D ``[B, H, M, K]`` batch with a
``[H, K, N]`` weight broadcast over B (grid axis split by divmod), a 3-D ``ct.matmul`` of
``(1, tm, tk)`` by ``(1, tk, tn)`` tiles without reshapes.

Integer and fp8: int8 x int8 -> int32 stored as int32 over a ragged M, dequantised to f32 by
per-row / per-column scales, with an int32 bias before the scales to bf16; fp8 e4m3 with a
per-tensor scale pair (runtime floats), with per-row / per-column scales, DeepSeek-style 1 x 128 /
128 x 128 block scales applied per K step, e5m2 with a scale read from a one-element array.

Epilogues: ``C = alpha A B + beta C`` into an f32 C read and written in place, a column-broadcast
(per-row) bias, per-row logsumexp beside the logits, the loss of a cross-entropy over a one-tile
vocabulary, a greedy argmax per row per N tile, a row L2 normalisation, a scaled split-K partial
added with ``ct.atomic_add`` (program id 2 picks the K range; another with the K tiles
interleaved), two dots sharing A with outputs of two dtypes, two dots sharing B.

Programs the tier may not take (the SIMT path runs them, the refusal located): a cross-entropy
over a vocabulary tile loop (a K loop nested in a vocabulary loop with an online max / sum), the
four dots of a complex matrix product, an MoE GEMM in vLLM's ``moe_align_block_size`` layout
(rows gathered by sorted token ids, expert per row block, top-k weight, rows scattered), a grouped
GEMM whose group sizes come from an array (offsets summed in the kernel).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep9_compile.py (CPU compile and path), tests/unit/test_user_sweep9_emulated.py
(the PTX emulator) and tests/gpu/test_user_sweep9_gpu.py (the H200 against torch).  Importing it
needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import ZERO, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

C = ct.Constant


def _f(shape, dt="float16"):
    return (shape, dt)


# ----------------------------------------------------------------------------------------------- persistent loops


@ct.kernel
def mm_persistent_bf16_col_bias(A, B, Bias, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """The cuTile sample's persistent GEMM: ``for tile in range(ct.bid(0), n, ct.num_blocks(0))``
    over row-major tile ids, bf16 operands, a bias per output column, bf16 out."""
    tiles_n = ct.cdiv(Cout.shape[1], tn)
    n_tiles = ct.cdiv(Cout.shape[0], tm) * tiles_n
    for tile in range(ct.bid(0), n_tiles, ct.num_blocks(0)):
        bm = tile // tiles_n
        bn = tile % tiles_n
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
            b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
            acc = ct.mma(a, b, acc)
        bias = ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)
        ct.store(Cout, index=(bm, bn), tile=(acc + bias[None, :]).astype(Cout.dtype))


@ct.kernel
def mm_persistent_group_m_ragged(A, B, Cout, GROUP_M: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Triton tutorial 09 ported: a persistent loop whose tile id is swizzled GROUP_M rows at a time
    (``group_id = tile // (GROUP_M * num_pid_n)``), M / N / K all ragged."""
    num_pid_m = ct.cdiv(A.shape[0], tm)
    num_pid_n = ct.cdiv(B.shape[1], tn)
    num_in_group = GROUP_M * num_pid_n
    for tile in range(ct.bid(0), num_pid_m * num_pid_n, ct.num_blocks(0)):
        group_id = tile // num_in_group
        first_m = group_id * GROUP_M
        group_size = min(num_pid_m - first_m, GROUP_M)
        pid_m = first_m + (tile % group_size)
        pid_n = (tile % num_in_group) // group_size
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.cdiv(A.shape[1], tk)):
            acc = ct.mma(ct.load(A, index=(pid_m, k), shape=(tm, tk), padding_mode=ZERO),
                         ct.load(B, index=(k, pid_n), shape=(tk, tn), padding_mode=ZERO), acc)
        ct.store(Cout, index=(pid_m, pid_n), tile=acc.astype(Cout.dtype))


@ct.kernel(num_ctas=2)
def mm_persistent_num_ctas2(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """A ``num_ctas=2`` kernel whose persistent loop walks the tiles column-major (``bm = tile %
    tiles_m``)."""
    tiles_m = ct.cdiv(A.shape[0], tm)
    for tile in range(ct.bid(0), tiles_m * ct.cdiv(B.shape[1], tn), ct.num_blocks(0)):
        bm, bn = tile % tiles_m, tile // tiles_m
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
        ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


# ----------------------------------------------------------------------------------------------- tiles, hints, raggedness


def _plain(A, B, Cout, tm, tn, tk):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_tile_256x128x32(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """A 256 x 128 program tile with 32-wide K steps (tm = 256 as cuTile's large-tile samples)."""
    _plain(A, B, Cout, tm, tn, tk)


@ct.kernel
def mm_tile_64x256(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """A 64 x 256 program tile (wide N, short M)."""
    _plain(A, B, Cout, tm, tn, tk)


@ct.kernel(occupancy=2)
def mm_occupancy_latency_hints(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """``occupancy=2`` on the kernel and ``latency=`` hints on both operand loads."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), latency=4)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), latency=4)
        acc = ct.mma(a, b, acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_ragged_k200(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """M = 200, N = 136, K = 200 with 128 x 128 x 64 tiles: the last K tile is zero-padded, rows and
    columns past M / N are clipped at the store."""
    _plain(A, B, Cout, tm, tn, tk)


@ct.kernel
def mm_k_from_runtime_arg(A, B, Cout, K: int, tm: C[int], tn: C[int], tk: C[int]):
    """The K trip count from a runtime ``K`` argument (``ct.cdiv(K, tk)``), not from the array."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(K, tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_full_zero_start(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """The accumulator started by ``ct.full((tm, tn), 0.0, ct.float32)`` instead of ``ct.zeros``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 0.0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_nested_k_blocks(A, B, Cout, KB: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Nested K loops: an outer loop over blocks of ``KB`` K tiles and an inner loop over the tiles
    of a block (``k = kb * KB + ki``); K a multiple of ``KB * tk``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for kb in range(ct.num_tiles(A, axis=1, shape=(tm, tk * KB))):
        for ki in range(KB):
            k = kb * KB + ki
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_nested_k_strided_outer(A, B, Cout, KB: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Nested K loops whose outer loop steps by the block (``for k0 in range(0, nk, KB)``) and whose
    inner loop adds the offset (``k = k0 + ki``); ``nk`` a multiple of ``KB``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k0 in range(0, ct.num_tiles(A, axis=1, shape=(tm, tk)), KB):
        for ki in range(KB):
            acc = ct.mma(ct.load(A, index=(bm, k0 + ki), shape=(tm, tk)),
                         ct.load(B, index=(k0 + ki, bn), shape=(tk, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))

@ct.kernel
def mm_static_iter_halves(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """Each K step of ``2 tk`` done as two ``ct.static_iter`` halves (``k = 2 kk + h``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for kk in range(ct.num_tiles(A, axis=1, shape=(tm, 2 * tk))):
        for h in ct.static_iter(range(2)):
            k = 2 * kk + h
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_f16_acc_operator(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """An f16 accumulator updated with ``acc += a @ b``: cuTile's ``@`` of f16 tiles is an f16 dot,
    so each K step's product is rounded to f16 and added in f16 (what the user wrote)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float16)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc += ct.load(A, index=(bm, k), shape=(tm, tk)) @ ct.load(B, index=(k, bn), shape=(tk, tn))
    ct.store(Cout, index=(bm, bn), tile=acc)


@ct.kernel
def mm_decode_one_row(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Decode-time projection of one token: ``X [1, K]`` in a 64-row tile (63 rows padded), bf16."""
    _plain(X, W, Y, tm, tn, tk)


@ct.kernel
def mm_skinny_m16(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Sixteen tokens through a wide weight with a 16-row program tile (``tm = 16``)."""
    _plain(X, W, Y, tm, tn, tk)


@ct.kernel
def gemv_n1(A, x, y, tm: C[int], tk: C[int]):
    """Matrix-vector ``y = A x`` written as a dot with N = 1 (``x [K, 1]``, ``y [M, 1]``)."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, 1), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(x, index=(k, 0), shape=(tk, 1), padding_mode=ZERO), acc)
    ct.store(y, index=(bm, 0), tile=acc.astype(y.dtype))


@ct.kernel
def gemv_16_vectors(A, X, Y, tm: C[int], tk: C[int]):
    """Sixteen vectors at once: ``Y [M, 16] = A [M, K] X [K, 16]`` with a 16-column tile."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, 16), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(X, index=(k, 0), shape=(tk, 16)), acc)
    ct.store(Y, index=(bm, 0), tile=acc.astype(Y.dtype))


_M256 = [_f((256, 256)), _f((256, 128)), _f((256, 128))]
_add("mm_persistent_bf16_col_bias", mm_persistent_bf16_col_bias,
     [_f((320, 256), "bfloat16"), _f((256, 192), "bfloat16"), _f((192,), "float32"), _f((320, 192), "bfloat16"),
      128, 128, 64], (4,), "gemm", outputs=(3,))
_add("mm_persistent_group_m_ragged", mm_persistent_group_m_ragged,
     [_f((328, 200)), _f((200, 264)), _f((328, 264)), 2, 128, 128, 64], (5,), "gemm", outputs=(2,))
_add("mm_persistent_num_ctas2", mm_persistent_num_ctas2, [_f((512, 256)), _f((256, 256)), _f((512, 256)), 128, 128, 64],
     (4,), "gemm", outputs=(2,))
_add("mm_tile_256x128x32", mm_tile_256x128x32, [_f((512, 256)), _f((256, 256)), _f((512, 256)), 256, 128, 32], (2, 2),
     "gemm", outputs=(2,))
_add("mm_tile_64x256", mm_tile_64x256, [_f((128, 256)), _f((256, 512)), _f((128, 512)), 64, 256, 64], (2, 2), "gemm",
     outputs=(2,))
_add("mm_occupancy_latency_hints", mm_occupancy_latency_hints, _M256 + [128, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("mm_ragged_k200", mm_ragged_k200, [_f((200, 200)), _f((200, 136)), _f((200, 136)), 128, 128, 64], (2, 2), "gemm",
     outputs=(2,))
_add("mm_k_from_runtime_arg", mm_k_from_runtime_arg, _M256 + [256, 128, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("mm_full_zero_start", mm_full_zero_start, _M256 + [128, 64, 64], (2, 2), "gemm", outputs=(2,))
_NESTED = ("found by this sweep: refused ('this loop carries on the result of a K loop nested in it ... an MLP "
           "...'); tileas-flatten-nested-k-loops makes the two loops one K loop")
_add("mm_nested_k_blocks", mm_nested_k_blocks, _M256 + [2, 128, 64, 64], (2, 2), "gemm", outputs=(2,), notes=_NESTED)
_add("mm_nested_k_strided_outer", mm_nested_k_strided_outer, _M256 + [2, 128, 64, 64], (2, 2), "gemm", outputs=(2,),
     notes=_NESTED)
_add("mm_static_iter_halves", mm_static_iter_halves, _M256 + [128, 64, 64], (2, 2), "gemm", outputs=(2,),
     notes=_NESTED + " (the static_iter copies re-rolled into the inner loop first)")
_add("mm_f16_acc_operator", mm_f16_acc_operator, _M256 + [128, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("mm_decode_one_row", mm_decode_one_row,
     [_f((1, 256), "bfloat16"), _f((256, 512), "bfloat16"), _f((1, 512), "bfloat16"), 64, 128, 64], (1, 4), "gemm",
     outputs=(2,))
_add("mm_skinny_m16", mm_skinny_m16, [_f((16, 256)), _f((256, 256)), _f((16, 256)), 16, 128, 64], (1, 2), "gemm",
     outputs=(2,), notes="the 16-row program tile is retiled to the kernel's 128-row tile (plain epilogue)")
_add("gemv_n1", gemv_n1, [_f((256, 256)), _f((256, 1)), _f((256, 1), "float32"), 64, 64], (4,), "simt", outputs=(2,),
     error="this dot's product has 1 column(s) ([64, 1] from a K tile of 64: a matrix-vector product)",
     notes="found by this sweep: refused as \"the dot's MMA atom is #nv_tileas.fma<[1, 1, 1]>, not a WGMMA "
           "(mma.sm90) atom\" (the tier's bookkeeping); now the product's column count and what to write")
_add("gemv_16_vectors", gemv_16_vectors, [_f((256, 256)), _f((256, 16)), _f((256, 16), "float32"), 128, 64], (2,),
     "gemm", outputs=(2,))


# ----------------------------------------------------------------------------------------------- operand layouts


@ct.kernel
def mm_a_transposed_by_ct_transpose(At, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """A given as ``At [K, M]`` (a weight-gradient's activations): ``(tk, tm)`` tiles at ``(k, bm)``
    turned by ``ct.transpose``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(At, axis=0, shape=(tk, tm))):
        a = ct.transpose(ct.load(At, index=(k, bm), shape=(tk, tm)))
        acc = ct.mma(a, ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_b_swapped_indices_permute(A, W, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """``nn.Linear``'s weight ``W [N, K]`` read with swapped indices (``(bn, k)``, shape ``(tn, tk)``)
    and turned by ``ct.permute(w, (1, 0))``, bf16."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(bn, k), shape=(tn, tk))
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.permute(w, (1, 0)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_dot_with_ones_tile(A, RowSum, tm: C[int], tk: C[int]):
    """Row sums on tensor cores: each A tile times a constant ``ct.ones((tk, 16))`` tile; column 0
    of the product stored (``RowSum [M, 16]``, every column the row sum)."""
    bm = ct.bid(0)
    ones = ct.ones((tk, 16), dtype=ct.float16)
    acc = ct.zeros((tm, 16), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ones, acc)
    ct.store(RowSum, index=(bm, 0), tile=acc)


@ct.kernel
def bmm_4d_weight_broadcast_over_batch(X, W, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Per-head weights broadcast over the batch: ``X [B, H, M, K]``, ``W [H, K, N]``, ``Y [B, H, M,
    N]``; grid ``(M tiles, N tiles, B H)`` with ``b, h = divmod(bid(2), H)``."""
    bm, bn, bh = ct.bid(0), ct.bid(1), ct.bid(2)
    b = bh // H
    h = bh % H
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(W, axis=1, shape=(1, tk, tn))):
        x = ct.load(X, index=(b, h, bm, k), shape=(1, 1, tm, tk)).reshape((tm, tk))
        w = ct.load(W, index=(h, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(x, w, acc)
    ct.store(Y, index=(b, h, bm, bn), tile=acc.reshape((1, 1, tm, tn)).astype(Y.dtype))


@ct.kernel
def bmm_3d_tiles_no_reshape(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """A batched ``ct.matmul`` of ``(1, tm, tk)`` and ``(1, tk, tn)`` tiles kept 3-D (no reshape), the
    ``(1, tm, tn)`` accumulator stored as is."""
    bm, bn, g = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        acc = acc + ct.matmul(ct.load(A, index=(g, bm, k), shape=(1, tm, tk)),
                              ct.load(B, index=(g, k, bn), shape=(1, tk, tn)))
    ct.store(Cout, index=(g, bm, bn), tile=acc.astype(Cout.dtype))


_add("mm_a_transposed_by_ct_transpose", mm_a_transposed_by_ct_transpose,
     [_f((256, 256)), _f((256, 128)), _f((256, 128)), 128, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("mm_b_swapped_indices_permute", mm_b_swapped_indices_permute,
     [_f((256, 256), "bfloat16"), _f((128, 256), "bfloat16"), _f((256, 128), "bfloat16"), 128, 64, 64], (2, 2),
     "gemm", outputs=(2,))
_add("mm_dot_with_ones_tile", mm_dot_with_ones_tile, [_f((256, 256)), _f((256, 16), "float32"), 128, 64], (2,),
     "simt", outputs=(1,), error="this dot operand is a constant tile",
     notes="found by this sweep: refused as 'computed in the kernel (e.g. int4 weights unpacked ...)'; now says "
           "the operand is a constant tile and what to write")
_add("bmm_4d_weight_broadcast_over_batch", bmm_4d_weight_broadcast_over_batch,
     [_f((2, 2, 128, 128)), _f((2, 128, 128)), _f((2, 2, 128, 128)), 2, 128, 64, 64], (1, 2, 4), "gemm",
     outputs=(2,))
_add("bmm_3d_tiles_no_reshape", bmm_3d_tiles_no_reshape,
     [_f((3, 128, 128)), _f((3, 128, 128)), _f((3, 128, 128)), 64, 64, 64], (2, 2, 3), "gemm", outputs=(2,))


# ----------------------------------------------------------------------------------------------- int8 and fp8


def _int8_loop(A, B, tm, tn, tk):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    return bm, bn, acc


@ct.kernel
def mm_int8_i32_ragged_m(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """int8 x int8 -> int32 stored as int32, M = 200 ragged, K = 320 (five 64-wide K tiles)."""
    bm, bn, acc = _int8_loop(A, B, tm, tn, tk)
    ct.store(Cout, index=(bm, bn), tile=acc)


@ct.kernel
def mm_int8_rowcol_scales_f32(A, B, SA, SB, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """SmoothQuant-style W8A8: int32 accumulation dequantised by a per-token (row) scale and a
    per-channel (column) scale to an f32 output."""
    bm, bn, acc = _int8_loop(A, B, tm, tn, tk)
    sa = ct.load(SA, index=(bm,), shape=(tm,))
    sb = ct.load(SB, index=(bn,), shape=(tn,))
    ct.store(Cout, index=(bm, bn), tile=acc.astype(ct.float32) * sa[:, None] * sb[None, :])


@ct.kernel
def mm_int8_i32_bias_then_scales_bf16(A, B, BiasI, SA, SB, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """An int32 bias added to the int32 accumulator before the per-row / per-column scales, bf16 out."""
    bm, bn, acc = _int8_loop(A, B, tm, tn, tk)
    acc = acc + ct.load(BiasI, index=(bn,), shape=(tn,))[None, :]
    v = acc.astype(ct.float32) * ct.load(SA, index=(bm,), shape=(tm,))[:, None] \
        * ct.load(SB, index=(bn,), shape=(tn,))[None, :]
    ct.store(Cout, index=(bm, bn), tile=v.astype(Cout.dtype))


def _fp8_loop(A, B, tm, tn, tk):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    return bm, bn, acc


@ct.kernel
def mm_fp8_tensor_scale_args(A, B, Cout, scale_a: float, scale_b: float, tm: C[int], tn: C[int], tk: C[int]):
    """e4m3 x e4m3 with per-tensor scales passed as runtime floats, bf16 out."""
    bm, bn, acc = _fp8_loop(A, B, tm, tn, tk)
    ct.store(Cout, index=(bm, bn), tile=(acc * (scale_a * scale_b)).astype(Cout.dtype))


@ct.kernel
def mm_fp8_rowwise_scales(A, B, SA, SB, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """e4m3 with a per-row A scale ``[M]`` and a per-column B scale ``[N]`` (torch's rowwise
    ``_scaled_mm``), bf16 out."""
    bm, bn, acc = _fp8_loop(A, B, tm, tn, tk)
    acc = acc * ct.load(SA, index=(bm,), shape=(tm,))[:, None] * ct.load(SB, index=(bn,), shape=(tn,))[None, :]
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_fp8_deepseek_block_scales(A, B, SA, SB, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """DeepSeek-V3's fp8 GEMM: A scaled per row per 128 K (``SA [M, K / 128]``), B per 128 x 128
    block (``SB [K / 128, N / 128]``); each K step's product (a fresh dot from zero) scaled and
    added to the f32 accumulator (tk = tn = 128), bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        p = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)),
                   ct.zeros((tm, tn), dtype=ct.float32))
        sa = ct.load(SA, index=(bm, k), shape=(tm, 1))
        sb = ct.load(SB, index=(k, bn), shape=(1, 1))
        acc = acc + p * sa * sb
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_e5m2_scale_from_array(A, B, S, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """e5m2 x e5m2 with the combined scale read from a one-element array (``ct.gather(S, 0)``), f16
    out."""
    bm, bn, acc = _fp8_loop(A, B, tm, tn, tk)
    ct.store(Cout, index=(bm, bn), tile=(acc * ct.gather(S, 0)).astype(Cout.dtype))


_I8 = [_f((200, 320), "int8"), _f((320, 128), "int8")]
_add("mm_int8_i32_ragged_m", mm_int8_i32_ragged_m, _I8 + [_f((200, 128), "int32"), 128, 64, 64], (2, 2), "gemm",
     outputs=(2,))
_add("mm_int8_rowcol_scales_f32", mm_int8_rowcol_scales_f32,
     _I8 + [_f((200,), "float32"), _f((128,), "float32"), _f((200, 128), "float32"), 128, 64, 64], (2, 2), "gemm",
     outputs=(4,))
_add("mm_int8_i32_bias_then_scales_bf16", mm_int8_i32_bias_then_scales_bf16,
     _I8 + [_f((128,), "int32"), _f((200,), "float32"), _f((128,), "float32"), _f((200, 128), "bfloat16"),
            128, 64, 64], (2, 2), "gemm", outputs=(5,))
_E4 = [_f((256, 256), "float8_e4m3fn"), _f((256, 256), "float8_e4m3fn")]
_add("mm_fp8_tensor_scale_args", mm_fp8_tensor_scale_args,
     _E4 + [_f((256, 256), "bfloat16"), 0.5, 0.25, 128, 128, 128], (2, 2), "gemm", outputs=(2,))
_add("mm_fp8_rowwise_scales", mm_fp8_rowwise_scales,
     _E4 + [_f((256,), "float32"), _f((256,), "float32"), _f((256, 256), "bfloat16"), 128, 128, 128], (2, 2),
     "gemm", outputs=(4,))
_add("mm_fp8_deepseek_block_scales", mm_fp8_deepseek_block_scales,
     _E4 + [_f((256, 2), "float32"), _f((2, 2), "float32"), _f((256, 256), "bfloat16"), 128, 128, 128], (2, 2),
     "simt", outputs=(4,), error="this dot starts from zero in every K step and its product is changed",
     notes="found by this sweep: refused as 'the dot does not accumulate into a tile the K loop carries'; now "
           "says what the program does (per-K-block scales of the product) and what the tier takes. Per-K-step "
           "promotion of WGMMA partial sums (CUTLASS's blockwise scaling) is not implemented")
_add("mm_e5m2_scale_from_array", mm_e5m2_scale_from_array,
     [_f((256, 256), "float8_e5m2"), _f((256, 128), "float8_e5m2"), _f((1,), "float32"), _f((256, 128)),
      128, 64, 64], (2, 2), "gemm", outputs=(3,))


# ----------------------------------------------------------------------------------------------- epilogues


def _f16_loop(A, B, tm, tn, tk):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    return bm, bn, acc


@ct.kernel
def mm_alpha_beta_inplace_f32(A, B, Cio, alpha: float, beta: float, tm: C[int], tn: C[int], tk: C[int]):
    """BLAS ``C = alpha A B + beta C`` on an f32 C read and written in place (f16 operands)."""
    bm, bn, acc = _f16_loop(A, B, tm, tn, tk)
    c = ct.load(Cio, index=(bm, bn), shape=(tm, tn))
    ct.store(Cio, index=(bm, bn), tile=alpha * acc + beta * c)


@ct.kernel
def mm_row_bias_column_broadcast(A, B, Bias, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """A bias per output row (``Bias [M]``, broadcast along the columns: ``bias[:, None]``) with a
    residual ``R [M, N]``, f16 out."""
    bm, bn, acc = _f16_loop(A, B, tm, tn, tk)
    ct.store(Cout, index=(bm, bn), tile=(acc + ct.load(Bias, index=(bm,), shape=(tm,))[:, None]).astype(Cout.dtype))


@ct.kernel
def mm_logits_and_row_lse(A, B, Logits, Lse, tm: C[int], tn: C[int], tk: C[int]):
    """A logits tile covering the whole (small) vocabulary (one N tile), stored in f16, and beside it
    each row's logsumexp ``m + log(sum(exp(x - m)))`` in f32 (``Lse [M, 1]``)."""
    bm, bn, acc = _f16_loop(A, B, tm, tn, tk)
    ct.store(Logits, index=(bm, bn), tile=acc.astype(Logits.dtype))
    m = ct.max(acc, axis=1, keepdims=True)
    ct.store(Lse, index=(bm, 0), tile=m + ct.log(ct.sum(ct.exp(acc - m), axis=1, keepdims=True)))


@ct.kernel
def mm_cross_entropy_one_vocab_tile(X, W, Labels, Loss, tm: C[int], V: C[int], tk: C[int]):
    """Cross-entropy of a linear head whose vocabulary ``V`` fits one tile: ``loss = lse(logits) -
    logits[label]`` per row (the label's logit picked by ``where(cols == label)``); only ``Loss [M, 1]``
    is stored."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, V), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W, index=(k, 0), shape=(tk, V)), acc)
    lab = ct.load(Labels, index=(bm,), shape=(tm,))
    cols = ct.arange(V, dtype=ct.int32)
    m = ct.max(acc, axis=1, keepdims=True)
    lse = m + ct.log(ct.sum(ct.exp(acc - m), axis=1, keepdims=True))
    picked = ct.sum(ct.where(cols[None, :] == lab[:, None], acc, 0.0), axis=1, keepdims=True)
    ct.store(Loss, index=(bm, 0), tile=lse - picked)


@ct.kernel
def mm_greedy_argmax_per_tile(A, B, Idx, Val, tm: C[int], tn: C[int], tk: C[int]):
    """Greedy decoding's first pass: per row of each logits tile its max and the (global) column of
    the max, ``Idx / Val [M, N tiles]``; the logits are not stored."""
    bm, bn, acc = _f16_loop(A, B, tm, tn, tk)
    ct.store(Idx, index=(bm, bn), tile=(ct.argmax(acc, axis=1, keepdims=True) + bn * tn).astype(ct.int32))
    ct.store(Val, index=(bm, bn), tile=ct.max(acc, axis=1, keepdims=True))


@ct.kernel
def mm_row_l2_normalize(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """Embeddings normalised per row after the projection (N one tile): ``y / sqrt(sum(y^2) + eps)``."""
    bm, bn, acc = _f16_loop(A, B, tm, tn, tk)
    inv = ct.rsqrt(ct.sum(acc * acc, axis=1, keepdims=True) + 1e-12)
    ct.store(Cout, index=(bm, bn), tile=(acc * inv).astype(Cout.dtype))


@ct.kernel
def mm_splitk_bid2_scaled_atomic(A, B, Cacc, alpha: float, splits: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Split-K over program id 2 with contiguous K ranges of ``cdiv(nk, splits)`` tiles (the last
    shorter), each partial ``alpha A_s B_s`` added into the f32 C with ``ct.atomic_add``, bf16 operands."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    nk = ct.num_tiles(A, axis=1, shape=(tm, tk))
    per = ct.cdiv(nk, splits)
    k0 = s * per
    k1 = min(k0 + per, nk)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(k0, k1):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(Cacc, (rows[:, None], cols[None, :]), acc * alpha)


@ct.kernel
def mm_splitk_interleaved_atomic(A, B, Cacc, splits: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Split-K with the K tiles interleaved (split ``s`` takes ``s, s + splits, ...``), partials added
    into the f32 C by ``ct.atomic_add`` (C starts at zero)."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s, ct.num_tiles(A, axis=1, shape=(tm, tk)), splits):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(Cacc, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def mm_two_dots_shared_a_two_dtypes(A, B1, B2, C1, C2, tm: C[int], tn: C[int], tk: C[int]):
    """Two products of one A tile (``A B1`` stored in bf16 after a SiLU, ``A B2`` stored in f32)."""
    bm, bn = ct.bid(0), ct.bid(1)
    c1 = ct.zeros((tm, tn), dtype=ct.float32)
    c2 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk))
        c1 = ct.mma(a, ct.load(B1, index=(k, bn), shape=(tk, tn)), c1)
        c2 = ct.mma(a, ct.load(B2, index=(k, bn), shape=(tk, tn)), c2)
    ct.store(C1, index=(bm, bn), tile=(c1 / (1.0 + ct.exp(-c1))).astype(C1.dtype))
    ct.store(C2, index=(bm, bn), tile=c2)


@ct.kernel
def mm_two_dots_shared_b(A1, A2, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """Two products with one B tile (``A1 B - A2 B``: a difference of two inputs through one weight,
    written as two dots)."""
    bm, bn = ct.bid(0), ct.bid(1)
    c1 = ct.zeros((tm, tn), dtype=ct.float32)
    c2 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A1, axis=1, shape=(tm, tk))):
        b = ct.load(B, index=(k, bn), shape=(tk, tn))
        c1 = ct.mma(ct.load(A1, index=(bm, k), shape=(tm, tk)), b, c1)
        c2 = ct.mma(ct.load(A2, index=(bm, k), shape=(tm, tk)), b, c2)
    ct.store(Cout, index=(bm, bn), tile=(c1 - c2).astype(Cout.dtype))


_add("mm_alpha_beta_inplace_f32", mm_alpha_beta_inplace_f32,
     [_f((256, 256)), _f((256, 128)), _f((256, 128), "float32"), 1.5, -0.5, 128, 64, 64], (2, 2), "gemm",
     outputs=(2,))
_add("mm_row_bias_column_broadcast", mm_row_bias_column_broadcast,
     [_f((256, 256)), _f((256, 128)), _f((256,), "float32"), _f((256, 128)), 128, 64, 64], (2, 2), "gemm",
     outputs=(3,))
_add("mm_logits_and_row_lse", mm_logits_and_row_lse,
     [_f((256, 256)), _f((256, 128)), _f((256, 128)), _f((256, 1), "float32"), 128, 128, 64], (2, 1),
     "gemm", outputs=(2, 3),
     notes="found by this sweep: refused ('a second output tile [128, 1] at other indices than C's'): a row store "
           "reading two chained row reductions was not a side output; both are now evaluated in the registers")
_add("mm_cross_entropy_one_vocab_tile", mm_cross_entropy_one_vocab_tile,
     [_f((256, 256)), _f((256, 128)), _f((256,), "int32"), _f((256, 1), "float32"), 128, 128, 64], (2,), "simt",
     outputs=(3,), error="the product tile is not stored: this kernel stores only row reductions of it",
     notes="found by this sweep: refused as 'the stored tile [128, 1] is not the 128x128 accumulator tile'; the "
           "WGMMA GEMM has no epilogue without C yet")
_add("mm_greedy_argmax_per_tile", mm_greedy_argmax_per_tile,
     [_f((256, 256)), _f((256, 256)), _f((256, 2), "int32"), _f((256, 2), "float32"), 128, 128, 64], (2, 2), "simt",
     outputs=(2, 3), error="the product tile is not stored: this kernel stores only row reductions of it")
_add("mm_row_l2_normalize", mm_row_l2_normalize, [_f((256, 256)), _f((256, 128)), _f((256, 128)), 128, 128, 64],
     (2, 1), "gemm", outputs=(2,))
_add("mm_splitk_bid2_scaled_atomic", mm_splitk_bid2_scaled_atomic,
     [_f((256, 640), "bfloat16"), _f((640, 128), "bfloat16"), _f((256, 128), "float32"), 0.5, 3, 128, 64, 64],
     (2, 2, 3), "gemm", outputs=(2,))
_add("mm_splitk_interleaved_atomic", mm_splitk_interleaved_atomic,
     [_f((256, 512)), _f((512, 128)), _f((256, 128), "float32"), 3, 128, 64, 64], (2, 2, 3), "gemm", outputs=(2,))
_add("mm_two_dots_shared_a_two_dtypes", mm_two_dots_shared_a_two_dtypes,
     [_f((256, 256)), _f((256, 128)), _f((256, 128)), _f((256, 128), "bfloat16"), _f((256, 128), "float32"),
      128, 64, 64], (2, 2), "gemm", outputs=(3, 4))
_add("mm_two_dots_shared_b", mm_two_dots_shared_b,
     [_f((256, 256)), _f((256, 256)), _f((256, 128)), _f((256, 128)), 128, 64, 64], (2, 2), "gemm", outputs=(3,),
     notes="was refused ('2 dots in one K loop that do not read the same A tile': the WGMMA lowering shared A between "
           "dots, not B); since session 27 each stage holds an A tile per dot beside the one B tile")


# ----------------------------------------------------------------------------------------------- programs beyond one GEMM


@ct.kernel
def ce_vocab_tile_loop(X, W, Labels, Loss, tm: C[int], tv: C[int], tk: C[int]):
    """Fused linear cross-entropy (Liger-style): for each vocabulary tile a K loop computes the logits
    tile, folded into an online max / sum-of-exp and the label's logit; ``Loss [M, 1]``."""
    bm = ct.bid(0)
    lab = ct.load(Labels, index=(bm,), shape=(tm,))
    m = ct.full((tm, 1), float("-inf"), dtype=ct.float32)
    s = ct.zeros((tm, 1), dtype=ct.float32)
    picked = ct.zeros((tm, 1), dtype=ct.float32)
    for v in range(ct.num_tiles(W, axis=1, shape=(tk, tv))):
        logits = ct.zeros((tm, tv), dtype=ct.float32)
        for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
            logits = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W, index=(k, v), shape=(tk, tv)),
                            logits)
        cols = v * tv + ct.arange(tv, dtype=ct.int32)
        m_new = ct.maximum(m, ct.max(logits, axis=1, keepdims=True))
        s = s * ct.exp(m - m_new) + ct.sum(ct.exp(logits - m_new), axis=1, keepdims=True)
        picked = picked + ct.sum(ct.where(cols[None, :] == lab[:, None], logits, 0.0), axis=1, keepdims=True)
        m = m_new
    ct.store(Loss, index=(bm, 0), tile=m + ct.log(s) - picked)


@ct.kernel
def complex_matmul_four_dots(Ar, Ai, Br, Bi, Cr, Ci, tm: C[int], tn: C[int], tk: C[int]):
    """A complex matrix product from real and imaginary planes: four dots, ``Cr = Ar Br - Ai Bi``,
    ``Ci = Ar Bi + Ai Br``."""
    bm, bn = ct.bid(0), ct.bid(1)
    rr = ct.zeros((tm, tn), dtype=ct.float32)
    ii = ct.zeros((tm, tn), dtype=ct.float32)
    ri = ct.zeros((tm, tn), dtype=ct.float32)
    ir = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(Ar, axis=1, shape=(tm, tk))):
        ar = ct.load(Ar, index=(bm, k), shape=(tm, tk))
        ai = ct.load(Ai, index=(bm, k), shape=(tm, tk))
        br = ct.load(Br, index=(k, bn), shape=(tk, tn))
        bi = ct.load(Bi, index=(k, bn), shape=(tk, tn))
        rr = ct.mma(ar, br, rr)
        ii = ct.mma(ai, bi, ii)
        ri = ct.mma(ar, bi, ri)
        ir = ct.mma(ai, br, ir)
    ct.store(Cr, index=(bm, bn), tile=(rr - ii).astype(Cr.dtype))
    ct.store(Ci, index=(bm, bn), tile=(ri + ir).astype(Ci.dtype))


@ct.kernel
def moe_align_block_gemm(X, W, Y, SortedIds, ExpertIds, TopkW, num_valid: int, topk: C[int], tm: C[int],
                         tn: C[int], tk: C[int]):
    """vLLM's fused MoE GEMM layout: token slots sorted by expert and padded to row blocks
    (``SortedIds``; a pad slot is ``>= num_valid``), one expert per row block (``ExpertIds``); A rows
    gathered from ``X [T, K]`` (token = slot // topk), ``W [E, K, N]``, each row weighted by its top-k
    weight, rows scattered into ``Y [T topk, N]``."""
    bm, bn = ct.bid(0), ct.bid(1)
    ids = ct.load(SortedIds, index=(bm,), shape=(tm,))
    e = ct.gather(ExpertIds, bm)
    valid = ids < num_valid
    tok = ids // topk
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (tok[:, None], cols[None, :]), mask=valid[:, None])
        w = ct.load(W, index=(e, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    acc = acc * ct.gather(TopkW, ids, mask=valid)[:, None]
    ocols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.scatter(Y, (ids[:, None], ocols[None, :]), acc.astype(Y.dtype), mask=valid[:, None])


@ct.kernel
def grouped_gemm_sizes_prefix(A, B, Cout, Sizes, tm: C[int], tn: C[int], tk: C[int]):
    """A grouped GEMM over groups stacked along M (``A [sum M_g, K]``, ``B [G, K, N]``), the sizes
    in ``Sizes [G]``: program (i, j, g) sums the sizes of the groups before ``g`` for its row offset,
    returns past its group's rows, gathers its rows and scatters its tile under the row mask."""
    i, j, g = ct.bid(0), ct.bid(1), ct.bid(2)
    start = 0
    for h in range(g):
        start += ct.gather(Sizes, h)
    m = ct.gather(Sizes, g)
    if i * tm >= m:
        return
    rows = start + i * tm + ct.arange(tm, dtype=ct.int32)
    valid = rows < start + m
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(A, (rows[:, None], cols[None, :]), mask=valid[:, None])
        acc = ct.mma(a, ct.load(B, index=(g, k, j), shape=(1, tk, tn)).reshape((tk, tn)), acc)
    ocols = j * tn + ct.arange(tn, dtype=ct.int32)
    ct.scatter(Cout, (rows[:, None], ocols[None, :]), acc.astype(Cout.dtype), mask=valid[:, None])


_add("ce_vocab_tile_loop", ce_vocab_tile_loop,
     [_f((128, 128)), _f((128, 512)), _f((128,), "int32"), _f((128, 1), "float32"), 64, 128, 64], (2,), "simt",
     outputs=(3,), error="this loop carries on the result of a K loop nested in it",
     notes="a K loop per vocabulary tile whose logits feed an online max / sum: neither the GEMM tier (one K loop) "
           "nor the chained tier (a second dot) takes it")
_add("complex_matmul_four_dots", complex_matmul_four_dots,
     [_f((128, 128))] * 4 + [_f((128, 128), "float32")] * 2 + [64, 64, 64], (2, 2), "simt", outputs=(4, 5),
     error="4 dots in one K loop that do not read the same A tile")
_add("moe_align_block_gemm", moe_align_block_gemm,
     [_f((64, 128)), _f((4, 128, 128)), _f((128, 128)), _f((256,), "int32"), _f((4,), "int32"),
      _f((128,), "float32"), 128, 2, 64, 64, 64], (4, 2), "simt", outputs=(2,),
     error="this dot operand is gathered")
_add("grouped_gemm_sizes_prefix", grouped_gemm_sizes_prefix,
     [_f((300, 128)), _f((3, 128, 128)), _f((300, 128)), _f((3,), "int32"), 64, 64, 64], (3, 2, 3), "simt",
     outputs=(2,), error="this dot operand is gathered")


# ----------------------------------------------------------------------------------------------- more outputs and layouts


@ct.kernel
def mm_alpha_beta_inplace_f16(A, B, Cio, alpha: float, beta: float, tm: C[int], tn: C[int], tk: C[int]):
    """``C = alpha A B + beta C`` on an f16 C read and written in place (the f32 sum rounded once)."""
    bm, bn, acc = _f16_loop(A, B, tm, tn, tk)
    c = ct.load(Cio, index=(bm, bn), shape=(tm, tn)).astype(ct.float32)
    ct.store(Cio, index=(bm, bn), tile=(alpha * acc + beta * c).astype(Cio.dtype))


@ct.kernel
def mm_bf16_f32_out_k72(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """bf16 operands, f32 C, K = 72 (a full 64 tile and a zero-padded 8), N = 200 ragged."""
    bm, bn, acc = _f16_loop(A, B, tm, tn, tk)
    ct.store(Cout, index=(bm, bn), tile=acc)


@ct.kernel
def mm_fp8_row_and_nblock_scales(A, B, SA, SB, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """e4m3 with a per-row A scale and one B scale per 128-column block (``SB [N / 128]``, tn = 128,
    read by ``ct.gather(SB, bn)``), f32 out."""
    bm, bn, acc = _fp8_loop(A, B, tm, tn, tk)
    ct.store(Cout, index=(bm, bn), tile=acc * ct.load(SA, index=(bm,), shape=(tm,))[:, None] * ct.gather(SB, bn))


@ct.kernel
def bmm_a_shared_b_batched(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """One A ``[M, K]`` for every batch of ``B [L, K, N]`` (A broadcast over the batch), grid
    ``(M tiles, N tiles, L)``, ``C [L, M, N]``."""
    bm, bn, l = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        b = ct.load(B, index=(l, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), b, acc)
    ct.store(Cout, index=(l, bm, bn), tile=acc.reshape((1, tm, tn)).astype(Cout.dtype))


@ct.kernel
def mm_logit_softcap_bf16(A, B, Cout, cap: float, tm: C[int], tn: C[int], tk: C[int]):
    """Gemma's final-logit soft cap ``cap * tanh(logits / cap)``, bf16 in and out."""
    bm, bn, acc = _f16_loop(A, B, tm, tn, tk)
    ct.store(Cout, index=(bm, bn), tile=(cap * ct.tanh(acc / cap)).astype(Cout.dtype))


@ct.kernel
def mm_relu_colsum_atomic(A, B, Cout, ColSum, tm: C[int], tn: C[int], tk: C[int]):
    """``relu(A B)`` stored, and its column sums over the tile's rows added into ``ColSum [N]`` (f32)
    with a 1-D ``ct.atomic_add`` (a bias-gradient-style reduction over M)."""
    bm, bn, acc = _f16_loop(A, B, tm, tn, tk)
    r = ct.maximum(acc, 0.0)
    ct.store(Cout, index=(bm, bn), tile=r.astype(Cout.dtype))
    ct.atomic_add(ColSum, bn * tn + ct.arange(tn, dtype=ct.int32), ct.sum(r, axis=0))


@ct.kernel
def mm_tile_128x256x128_bf16(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """A 128 x 256 tile with 128-wide K steps (a large-smem configuration), bf16."""
    _plain(A, B, Cout, tm, tn, tk)


_add("mm_alpha_beta_inplace_f16", mm_alpha_beta_inplace_f16,
     [_f((256, 256)), _f((256, 128)), _f((256, 128)), 2.0, 0.5, 128, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("mm_bf16_f32_out_k72", mm_bf16_f32_out_k72,
     [_f((128, 72), "bfloat16"), _f((72, 200), "bfloat16"), _f((128, 200), "float32"), 64, 64, 64], (2, 4), "gemm",
     outputs=(2,))
_add("mm_fp8_row_and_nblock_scales", mm_fp8_row_and_nblock_scales,
     _E4 + [_f((256,), "float32"), _f((2,), "float32"), _f((256, 256), "float32"), 128, 128, 128], (2, 2), "gemm",
     outputs=(4,))
_add("bmm_a_shared_b_batched", bmm_a_shared_b_batched,
     [_f((128, 128)), _f((3, 128, 128)), _f((3, 128, 128)), 64, 64, 64], (2, 2, 3), "gemm", outputs=(2,))
_add("mm_logit_softcap_bf16", mm_logit_softcap_bf16,
     [_f((256, 256), "bfloat16"), _f((256, 128), "bfloat16"), _f((256, 128), "bfloat16"), 30.0, 128, 64, 64], (2, 2),
     "gemm", outputs=(2,))
_add("mm_relu_colsum_atomic", mm_relu_colsum_atomic,
     [_f((256, 256)), _f((256, 128)), _f((256, 128)), _f((128,), "float32"), 128, 64, 64], (2, 2), "gemm",
     outputs=(2, 3),
     notes="found by this sweep: refused as 'expected one tile store of C (or one atomic add of the result), found "
           "1 tile stores and 1 atomic updates' at the K loop; then named at the atomic add with what to write; "
           "on the tier since sweep 33 (session 41): a reduction of the result added atomically beside C is a side "
           "output whose one partial per column each CTA tile adds")
_add("mm_tile_128x256x128_bf16", mm_tile_128x256x128_bf16,
     [_f((256, 256), "bfloat16"), _f((256, 512), "bfloat16"), _f((256, 512), "bfloat16"), 128, 256, 128], (2, 2),
     "gemm", outputs=(2,))
