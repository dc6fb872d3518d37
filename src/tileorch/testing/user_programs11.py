"""The eleventh user sweep (session 18, issue 20: "the tier as a compiler"): dot-bearing cuTile 1.7
programs written the way users write them, in kinds the first ten sweeps
(:mod:`tileorch.testing.user_programs` .. ``user_programs10``, ``dot_programs``,
``computed_b_programs``, ``k_range_programs``, ``attention_programs*``) did not write.

Operand spellings: A stored ``[K, M]`` turned by ``ct.permute`` with B stored ``[N, K]`` turned by
``ct.transpose`` in one program (bf16, ragged M / N); ``A^T A`` and the upper tiles of ``A A^T``
(SYRK) with both operands read from one array argument; B a 3-D expert weight ``W[e]`` picked by a
runtime scalar; C stored into a column slice of a wider output (``Array.slice``).
Batches: a 4-D ``[B, H, M, K] x [B, H, K, N]`` product with a per-head scale gathered from an
array, a batched GEMM whose persistent tile loop over (batch, m, n) the user wrote, a persistent
loop over a 2-D grid linearised by the user.
Split-K and groups: a split-K whose first split adds the bias (``if ct.bid(2) == 0``), a split-K
whose K tiles per split are a runtime scalar, an MoE grouped GEMM that finds its group by scanning
an offsets array in the kernel, equal-sized groups with A 2-D and the expert weight 3-D by
``ct.bid(2)``.
Epilogues: a residual add + RMSNorm over the whole row in bf16, a bias per row and per column at
once, alpha / beta read from one-element arrays into a separate output, a sigmoid gate read as a
tile, a runtime row count masking rows by ``ct.where``.
Types: f32 operands given to ``ct.mma`` as they are, a bf16 A with an f32 B converted in the K loop,
an fp8 A widened to f16 in the K loop, f16 operands quantised to fp8 in the K loop, asymmetric int8
with zero points (row sums of A in the K loop), int8 walked by ``range(0, K, tk)``.
Loops: a lower-triangular product (TRMM: ``range(bm + 1)``), a banded K range clamped at both
ends, two K tiles per iteration written out by hand, two accumulators for even and odd K tiles, an
early ``return`` on a runtime M, a block-sparse product skipping K tiles by a flag array, a QKV
projection choosing its weight by ``if`` on the program id.
Two and more dots: a SwiGLU gate-up whose gate weight is transposed and whose up weight is not,
an MLP with biases and GELU(tanh) between the dots (bf16), the attention backward's dV with P
recomputed from a saved log-sum-exp (K the first dot's A operand, ``P^T`` the second's),
Gemma-2's soft cap with a sliding window and GQA at once, FlashAttention-1's output normalised at
every step, a T5 bucketed relative-position bias gathered from a table, K^T by a 3-D ``ct.permute``,
cross attention over ragged query and key counts with a V head dim (64) below the QK head dim
(128) in bf16, ALiBi slopes read from an array with a causal mask and GQA, Q added to the output
under a runtime flag.

Found by this sweep (the entries' ``notes``; each fix has a test that failed before it): an epilogue term
under an ``if`` (split-K's bias by split 0, attention's output plus Q under a runtime flag) was refused
with "a memory token is used by an op TileAS does not know" (now selected per element); a residual
stored before its RMSNorm was refused as "the epilogue op nv_tileaa.reduce" (the output reading the
row reduction is now C); a persistent loop over a 2-D grid the program linearised was refused (now
tileas-program-loop-to-tiles takes it); an f32 weight converted to A's type in the K loop was refused
("A and B must have the same element type": now a computed B); refusals in the tier's terms (a 3-D
weight picked by a scalar, a tile carried beside the accumulator, a gathered tile in the scores, dot
loops in if branches, a hand-unrolled K loop) or unlocated (a dot under an if in its loop) now say
what the program does, at its line; the 3-D weight picked by a scalar then became a view of the argument
the launcher addresses (session 19: ``tileas/operand_views.py``, GEMM tier).  Still refused (located; the SIMT path runs them): the
programs whose ``path`` is ``simt`` and whose ``error`` says why.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep11_compile.py (CPU compile and path), tests/unit/test_user_sweep11_emulated.py
(the PTX emulator), tests/unit/test_user_sweep11_interp.py (the SIMT interpreter) and
tests/gpu/test_user_sweep11_gpu.py (the H200 against torch).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import LOG2E, ZERO, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

C = ct.Constant
MASKED = -1.0e30


def _f(shape, dt="float16"):
    return (shape, dt)


# ----------------------------------------------------------------------------------------------- operand spellings


@ct.kernel
def mm_at_permute_bt_transpose(At, Bt, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """``C = A @ B`` from ``A^T [K, M]`` (its ``[tk, tm]`` tiles turned by ``ct.permute``) and
    ``B^T [N, K]`` (its ``[tn, tk]`` tiles turned by ``ct.transpose``); bf16, M and N ragged."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(At, axis=0, shape=(tk, tm))):
        a = ct.permute(ct.load(At, index=(k, bm), shape=(tk, tm), padding_mode=ZERO), (1, 0))
        b = ct.transpose(ct.load(Bt, index=(bn, k), shape=(tn, tk), padding_mode=ZERO))
        acc = ct.mma(a, b, acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def gram_at_a_one_array(A, G, tm: C[int], tk: C[int]):
    """The Gram matrix ``G = A^T A`` of ``A [K, N]``: both operands are tiles of the one argument,
    the first turned by ``ct.transpose``."""
    bi, bj = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tm), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=0, shape=(tk, tm))):
        ai = ct.load(A, index=(k, bi), shape=(tk, tm))
        aj = ct.load(A, index=(k, bj), shape=(tk, tm))
        acc = ct.mma(ct.transpose(ai), aj, acc)
    ct.store(G, index=(bi, bj), tile=acc)


@ct.kernel
def syrk_upper_tiles(A, Cout, tm: C[int], tk: C[int]):
    """SYRK: the upper tiles of ``C = A A^T`` (programs below the diagonal return at once), B the
    transpose of a row tile of the same ``A``."""
    bm, bn = ct.bid(0), ct.bid(1)
    if bn < bm:
        return
    acc = ct.zeros((tm, tm), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk))
        b = ct.load(A, index=(bn, k), shape=(tm, tk))
        acc = ct.mma(a, ct.transpose(b), acc)
    ct.store(Cout, index=(bm, bn), tile=acc)


@ct.kernel
def mm_expert_weight_by_scalar(X, W, Y, e: int, tm: C[int], tn: C[int], tk: C[int]):
    """``Y = X @ W[e]`` for one expert ``e`` (a runtime scalar) of a 3-D weight ``[E, K, N]``:
    ``(1, tk, tn)`` tiles reshaped to 2-D."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(e, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def mm_store_into_column_slice(A, B, Out, col0: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """The product written into columns ``col0 .. col0 + N`` of a wider ``Out`` (a fused
    projection's output buffer): ``Out.slice(axis=1, ...)`` as the store's array."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    dst = Out.slice(axis=1, start=col0, stop=col0 + B.shape[1])
    ct.store(dst, index=(bm, bn), tile=acc.astype(Out.dtype))


# ----------------------------------------------------------------------------------------------- batches and persistent loops


@ct.kernel
def bmm_4d_head_scale_gather(A, B, Scale, Cout, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """``[B, H, M, K] x [B, H, K, N]``, the (batch, head) pair split from ``ct.bid(2)`` by ``//`` /
    ``%``, the product scaled by the head's scale ``Scale[h]`` (``ct.gather``)."""
    bm, bn, bh = ct.bid(0), ct.bid(1), ct.bid(2)
    b, h = bh // H, bh % H
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=3, shape=(1, 1, tm, tk))):
        a = ct.load(A, index=(b, h, bm, k), shape=(1, 1, tm, tk)).reshape((tm, tk))
        w = ct.load(B, index=(b, h, k, bn), shape=(1, 1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    s = ct.gather(Scale, h)
    ct.store(Cout, index=(b, h, bm, bn), tile=(acc * s).astype(Cout.dtype).reshape((1, 1, tm, tn)))


@ct.kernel
def bmm_persistent_user_loop(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """A batched GEMM ``[L, M, K] x [L, K, N]`` whose persistent loop over (batch, m, n) tiles the
    user wrote: ``t -> (t // (tiles_m * tiles_n), ...)``."""
    tiles_m = ct.cdiv(A.shape[1], tm)
    tiles_n = ct.cdiv(B.shape[2], tn)
    per_batch = tiles_m * tiles_n
    for t in range(ct.bid(0), A.shape[0] * per_batch, ct.num_blocks(0)):
        lb = t // per_batch
        r = t % per_batch
        bm, bn = r // tiles_n, r % tiles_n
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
            a = ct.load(A, index=(lb, bm, k), shape=(1, tm, tk)).reshape((tm, tk))
            b = ct.load(B, index=(lb, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
            acc = ct.mma(a, b, acc)
        ct.store(Cout, index=(lb, bm, bn), tile=acc.astype(Cout.dtype).reshape((1, tm, tn)))


@ct.kernel
def mm_persistent_2d_grid_linearised(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """A persistent loop on a 2-D launch grid that the user linearised: the first tile
    ``bid(0) + bid(1) * num_blocks(0)``, the step ``num_blocks(0) * num_blocks(1)``."""
    tiles_n = ct.cdiv(B.shape[1], tn)
    n_tiles = ct.cdiv(A.shape[0], tm) * tiles_n
    first = ct.bid(0) + ct.bid(1) * ct.num_blocks(0)
    for t in range(first, n_tiles, ct.num_blocks(0) * ct.num_blocks(1)):
        bm, bn = t // tiles_n, t % tiles_n
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
        ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


# ----------------------------------------------------------------------------------------------- split-K and groups


@ct.kernel
def mm_splitk_bias_first_split(A, B, Bias, Cacc, SPLITS: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Split-K into a zeroed f32 C by ``ct.atomic_add``; only split 0 (``ct.bid(2) == 0``) adds the
    column bias, so it is counted once."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    per = ct.cdiv(ct.num_tiles(A, axis=1, shape=(tm, tk)), SPLITS)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s * per, (s + 1) * per):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    if s == 0:
        acc = acc + ct.load(Bias, index=(bn,), shape=(tn,))[None, :]
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(Cacc, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def mm_splitk_runtime_chunk(A, B, Cacc, chunk: int, tm: C[int], tn: C[int], tk: C[int]):
    """Split-K whose K tiles per split are a runtime scalar ``chunk``; the last split's range is
    clamped to the K tile count (``min``)."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    nk = ct.num_tiles(A, axis=1, shape=(tm, tk))
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s * chunk, min(nk, (s + 1) * chunk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    cols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.atomic_add(Cacc, (rows[:, None], cols[None, :]), acc)


@ct.kernel
def moe_group_by_offsets_scan(X, W, Offs, Y, E: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """An MoE grouped GEMM: rows ``Offs[g] .. Offs[g + 1]`` of X belong to expert ``g``; each
    program finds the group of its row tile by scanning ``Offs`` (a loop of ``ct.gather``), row tiles
    aligned to the groups (every group a multiple of ``tm`` rows)."""
    bm, bn = ct.bid(0), ct.bid(1)
    row0 = bm * tm
    g = 0
    for e in range(1, E):
        if ct.gather(Offs, e) <= row0:
            g = e
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(g, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def grouped_equal_groups_bid2(X, W, Y, MG: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Equal-sized expert groups: ``X [E * MG, K]`` (2-D), the expert ``ct.bid(2)`` of a 3-D
    weight ``[E, K, N]``, the row tile ``g * (MG // tm) + bm``."""
    bm, bn, g = ct.bid(0), ct.bid(1), ct.bid(2)
    row = g * (MG // tm) + bm
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(g, k, bn), shape=(1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(ct.load(X, index=(row, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(row, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- epilogues


@ct.kernel
def mm_residual_rmsnorm_bf16(X, W, R, G, Y, Rout, eps: float, tm: C[int], N: C[int], tk: C[int]):
    """``h = X @ W + R`` (the new residual stored), then ``Y = h * rsqrt(mean(h^2) + eps) * G``
    over the whole row (one ``[tm, N]`` tile per program), bf16."""
    bm = ct.bid(0)
    acc = ct.zeros((tm, N), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W, index=(k, 0), shape=(tk, N)), acc)
    h = acc + ct.load(R, index=(bm, 0), shape=(tm, N)).astype(ct.float32)
    ct.store(Rout, index=(bm, 0), tile=h.astype(Rout.dtype))
    ms = ct.sum(h * h, axis=1, keepdims=True) / N
    y = h * ct.rsqrt(ms + eps) * ct.load(G, index=(0,), shape=(N,)).astype(ct.float32)[None, :]
    ct.store(Y, index=(bm, 0), tile=y.astype(Y.dtype))


@ct.kernel
def mm_bias_row_and_col(A, B, RowB, ColB, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """A bias per row and a bias per column added at once (``r[:, None] + c[None, :]``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    r = ct.load(RowB, index=(bm,), shape=(tm,))
    c = ct.load(ColB, index=(bn,), shape=(tn,))
    ct.store(Cout, index=(bm, bn), tile=(acc + r[:, None] + c[None, :]).astype(Cout.dtype))


@ct.kernel
def mm_alpha_beta_from_arrays(A, B, Cin, Alpha, Beta, D, tm: C[int], tn: C[int], tk: C[int]):
    """``D = alpha A B + beta C`` with alpha a ``(1,)`` tile loaded from an array and beta a scalar
    gathered from another; C read, D written (two arrays)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    alpha = ct.load(Alpha, index=(0,), shape=(1,))
    beta = ct.gather(Beta, 0)
    c = ct.load(Cin, index=(bm, bn), shape=(tm, tn)).astype(ct.float32)
    ct.store(D, index=(bm, bn), tile=(acc * alpha[None, :] + beta * c).astype(D.dtype))


@ct.kernel
def mm_sigmoid_gate_tile(A, B, Gt, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """``C = (A @ B) * sigmoid(G)`` with the gate ``G [M, N]`` read as a tile (f16), sigmoid
    written ``1 / (1 + exp(-g))``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    g = ct.load(Gt, index=(bm, bn), shape=(tm, tn)).astype(ct.float32)
    ct.store(Cout, index=(bm, bn), tile=(acc / (1.0 + ct.exp(-g))).astype(Cout.dtype))


@ct.kernel
def mm_rows_masked_by_runtime_count(A, B, Cout, valid: int, tm: C[int], tn: C[int], tk: C[int]):
    """Rows at or past a runtime ``valid`` count are written as zeros (``ct.where`` on an iota
    comparison): padded tokens of a batch."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    rows = (bm * tm + ct.arange(tm, dtype=ct.int32))[:, None]
    ct.store(Cout, index=(bm, bn), tile=ct.where(rows < valid, acc, 0.0).astype(Cout.dtype))


# ----------------------------------------------------------------------------------------------- types


@ct.kernel
def mm_f32_operands_as_is(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """f32 tiles handed to ``ct.mma`` as they are (no ``tfloat32`` conversion written)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc)


@ct.kernel
def mm_bf16_a_f32_b_cast_in_loop(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """A bf16 (or f16) activation times an f32 weight converted to A's type in the K loop."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        b = ct.load(B, index=(k, bn), shape=(tk, tn)).astype(A.dtype)
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), b, acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_fp8_a_widened_to_f16(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """An fp8 e4m3 activation widened to f16 in the K loop, times an f16 weight."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk)).astype(ct.float16)
        acc = ct.mma(a, ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_f16_quantised_to_e4m3_in_loop(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """f16 operands rounded to fp8 e4m3 in the K loop (an fp8 ``ct.mma``), f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk)).astype(ct.float8_e4m3fn)
        b = ct.load(B, index=(k, bn), shape=(tk, tn)).astype(ct.float8_e4m3fn)
        acc = ct.mma(a, b, acc)
    ct.store(Cout, index=(bm, bn), tile=acc)


@ct.kernel
def mm_int8_zero_points(A, B, Cout, za: int, zb: int, tm: C[int], tn: C[int], tk: C[int]):
    """Asymmetric int8: ``C = (A - za)(B - zb)`` as ``AB - zb rowsum(A) - za colsum(B) + K za zb``,
    the row sums of A and column sums of B accumulated in the K loop beside the dot (int32)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    ra = ct.zeros((tm, 1), dtype=ct.int32)
    cb = ct.zeros((1, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk))
        b = ct.load(B, index=(k, bn), shape=(tk, tn))
        acc = ct.mma(a, b, acc)
        ra = ra + ct.sum(a.astype(ct.int32), axis=1, keepdims=True)
        cb = cb + ct.sum(b.astype(ct.int32), axis=0, keepdims=True)
    out = acc - zb * ra - za * cb + A.shape[1] * za * zb
    ct.store(Cout, index=(bm, bn), tile=out)


@ct.kernel
def mm_int8_range_step_tk(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """int8 x int8 -> int32 with the K loop written ``for k0 in range(0, K, tk)`` and the tile index
    ``k0 // tk``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k0 in range(0, A.shape[1], tk):
        acc = ct.mma(ct.load(A, index=(bm, k0 // tk), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k0 // tk, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Cout, index=(bm, bn), tile=acc)


# ----------------------------------------------------------------------------------------------- loops


@ct.kernel
def trmm_lower_triangular(L, B, Cout, t: C[int], tn: C[int]):
    """TRMM ``C = L @ B`` for a lower-triangular ``L`` stored square: row tile ``bm`` reads only K
    tiles ``0 .. bm`` (``range(bm + 1)``), K tiles as tall as the row tiles."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((t, tn), dtype=ct.float32)
    for k in range(bm + 1):
        acc = ct.mma(ct.load(L, index=(bm, k), shape=(t, t)), ct.load(B, index=(k, bn), shape=(t, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_banded_k_range(A, B, Cout, W: C[int], tm: C[int], tn: C[int]):
    """A banded A (non-zero only within ``W`` tiles of the diagonal): the K range
    ``max(0, bm - W) .. min(nk, bm + W + 1)`` clamped at both ends, K tiles of ``tm``."""
    bm, bn = ct.bid(0), ct.bid(1)
    nk = ct.num_tiles(A, axis=1, shape=(tm, tm))
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(max(0, bm - W), min(nk, bm + W + 1)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tm)), ct.load(B, index=(k, bn), shape=(tm, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_two_k_tiles_per_iteration(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """The K loop unrolled by two by hand: each iteration loads K tiles ``2k`` and ``2k + 1`` and
    runs two dots into the accumulator."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, 2 * tk))):
        acc = ct.mma(ct.load(A, index=(bm, 2 * k), shape=(tm, tk)), ct.load(B, index=(2 * k, bn), shape=(tk, tn)), acc)
        acc = ct.mma(ct.load(A, index=(bm, 2 * k + 1), shape=(tm, tk)),
                     ct.load(B, index=(2 * k + 1, bn), shape=(tk, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def mm_even_odd_accumulators(A, B, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """Two accumulators, one for even and one for odd K tiles (an ILP habit from CPU code), summed
    after the loop."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc0 = ct.zeros((tm, tn), dtype=ct.float32)
    acc1 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, 2 * tk))):
        acc0 = ct.mma(ct.load(A, index=(bm, 2 * k), shape=(tm, tk)), ct.load(B, index=(2 * k, bn), shape=(tk, tn)),
                      acc0)
        acc1 = ct.mma(ct.load(A, index=(bm, 2 * k + 1), shape=(tm, tk)),
                      ct.load(B, index=(2 * k + 1, bn), shape=(tk, tn)), acc1)
    ct.store(Cout, index=(bm, bn), tile=(acc0 + acc1).astype(Cout.dtype))


@ct.kernel
def mm_early_return_runtime_m(A, B, Cout, M: int, tm: C[int], tn: C[int], tk: C[int]):
    """A grid sized for the largest M of a batch of calls: programs whose row tile starts at or past
    the runtime ``M`` return before loading anything."""
    bm, bn = ct.bid(0), ct.bid(1)
    if bm * tm >= M:
        return
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def bsmm_skip_zero_blocks(A, B, Flags, Cout, tm: C[int], tn: C[int], tk: C[int]):
    """Block-sparse A: the K step runs its dot only where ``Flags[bm, k]`` is non-zero (a dot
    under an ``if`` on a value read from memory)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        if ct.gather(Flags, (bm, k)) != 0:
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Cout, index=(bm, bn), tile=acc.astype(Cout.dtype))


@ct.kernel
def qkv_weight_by_branch(X, Wq, Wk, Wv, Q, K, V, tm: C[int], tn: C[int], tk: C[int]):
    """A QKV projection on a 3-axis grid: ``ct.bid(2)`` picks the weight and output by
    ``if / elif / else``, each branch its own K loop."""
    bm, bn, which = ct.bid(0), ct.bid(1), ct.bid(2)
    nk = ct.num_tiles(X, axis=1, shape=(tm, tk))
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    if which == 0:
        for k in range(nk):
            acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(Wq, index=(k, bn), shape=(tk, tn)), acc)
        ct.store(Q, index=(bm, bn), tile=acc.astype(Q.dtype))
    elif which == 1:
        for k in range(nk):
            acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(Wk, index=(k, bn), shape=(tk, tn)), acc)
        ct.store(K, index=(bm, bn), tile=acc.astype(K.dtype))
    else:
        for k in range(nk):
            acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(Wv, index=(k, bn), shape=(tk, tn)), acc)
        ct.store(V, index=(bm, bn), tile=acc.astype(V.dtype))


# ----------------------------------------------------------------------------------------------- two and more dots


@ct.kernel
def swiglu_gate_transposed_up_plain(X, WgT, Wu, Hout, tm: C[int], tn: C[int], tk: C[int]):
    """SwiGLU gate-up in one K loop: the gate weight stored ``[I, D]`` (turned by ``ct.transpose``),
    the up weight ``[D, I]`` as it is; ``silu(g) * u`` stored."""
    bm, bn = ct.bid(0), ct.bid(1)
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk))
        g = ct.mma(x, ct.transpose(ct.load(WgT, index=(bn, k), shape=(tn, tk))), g)
        u = ct.mma(x, ct.load(Wu, index=(k, bn), shape=(tk, tn)), u)
    ct.store(Hout, index=(bm, bn), tile=(g / (1.0 + ct.exp(-g)) * u).astype(Hout.dtype))


@ct.kernel
def mlp_bias_gelu_bias_bf16(X, W1, B1, W2, B2, Y, TM: C[int], TH: C[int], D: C[int]):
    """A transformer MLP in one program: ``y = gelu_tanh(x @ W1 + b1) @ W2 + b2`` over hidden tiles
    (the up projection's K is the whole ``D``), bf16 in and out."""
    bm = ct.bid(0)
    x = ct.load(X, index=(bm, 0), shape=(TM, D))
    y = ct.zeros((TM, D), dtype=ct.float32)
    for h in range(ct.num_tiles(W1, axis=1, shape=(D, TH))):
        z = ct.mma(x, ct.load(W1, index=(0, h), shape=(D, TH)), ct.zeros((TM, TH), dtype=ct.float32))
        z = z + ct.load(B1, index=(h,), shape=(TH,)).astype(ct.float32)[None, :]
        act = 0.5 * z * (1.0 + ct.tanh(0.7978845608028654 * (z + 0.044715 * z * z * z)))
        y = ct.mma(act.astype(X.dtype), ct.load(W2, index=(h, 0), shape=(TH, D)), y)
    y = y + ct.load(B2, index=(0,), shape=(D,)).astype(ct.float32)[None, :]
    ct.store(Y, index=(bm, 0), tile=y.astype(Y.dtype))


@ct.kernel
def attn_bwd_dv_recompute(Q, K, dO, Lse, dV, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """The attention backward's dV, one program per key tile: ``S^T = K Q^T`` per query tile,
    ``P^T = exp2(S^T * qk_scale - lse2)`` from the saved base-2 log-sum-exp ``Lse [BH, S]`` (a row
    vector broadcast down the columns), ``dV += P^T dO``; non-causal."""
    jt, bh = ct.bid(0), ct.bid(1)
    k = ct.load(K, index=(bh, jt, 0), shape=(1, BN, D)).reshape((BN, D))
    dv = ct.zeros((BN, D), dtype=ct.float32)
    for i in range(ct.num_tiles(Q, axis=1, shape=(1, BM, D))):
        q = ct.load(Q, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        st = ct.mma(k, ct.transpose(q), ct.zeros((BN, BM), dtype=ct.float32))
        lse = ct.load(Lse, index=(bh, i), shape=(1, BM))
        pt = ct.exp2(st * qk_scale - lse)
        do = ct.load(dO, index=(bh, i, 0), shape=(1, BM, D)).reshape((BM, D))
        dv = ct.mma(pt.astype(dO.dtype), do, dv)
    ct.store(dV, index=(bh, jt, 0), tile=dv.astype(dV.dtype).reshape((1, BN, D)))


@ct.kernel
def attn_gemma2_softcap_window_gqa(Q, K, V, O, scale: float, cap: float, WIN: C[int], G: C[int], BM: C[int],
                                   BN: C[int], D: C[int]):
    """Gemma-2's local layers: GQA (``G`` query heads per K/V head, ``kvh = h // G`` on ``[B, H, S,
    D]``), logit soft cap ``cap * tanh(s / cap)``, a causal sliding window of ``WIN`` keys (key tiles
    before the window skipped by the loop's start), finite mask, exp2."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    kvh = h // G
    q = ct.load(Q, index=(b, h, qt, 0), shape=(1, 1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), MASKED, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    lo = max(0, (qt * BM - WIN + 1) // BN)
    for j in range(lo, ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(b, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        s = cap * ct.tanh(s * (scale / cap))
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        keep = (kpos <= qpos) & (kpos > qpos - WIN)
        s = ct.where(keep, s * LOG2E, MASKED)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, kvh, j, 0), shape=(1, 1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, h, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, 1, BM, D)))


@ct.kernel
def attn_fa1_normalised_each_step(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """FlashAttention-1's update: the output kept normalised after every key tile,
    ``o = o * (l * c / l_new) + (p / l_new) @ v`` (no division after the loop)."""
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
        den2 = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma((p / den2).astype(V.dtype), v, o * (den * c / den2))
        m, den = m2, den2
    ct.store(O, index=(bh, qt, 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_scores_in_fp8(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Attention whose scores are computed on fp8 operands: Q and each K tile rounded to e4m3 by
    ``astype`` before ``S = Q K^T`` (P and V stay f16)."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D)).astype(ct.float8_e4m3fn)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D)).astype(ct.float8_e4m3fn)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_t5_bucket_bias_gather(Q, K, V, Table, O, NB: C[int], BM: C[int], BN: C[int], D: C[int]):
    """T5's relative-position bias: the bucket of ``j - i`` (sign and a clamped magnitude) gathered
    per score element from a ``[H, NB]`` table (``ct.gather`` with a ``[BM, BN]`` index tile);
    no scale, natural exp."""
    qt, bh = ct.bid(0), ct.bid(1)
    h = bh % Table.shape[0]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    half = NB // 2
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32))
        rel = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :] - qpos
        bucket = ct.where(rel > 0, half, 0) + ct.minimum(ct.abs(rel), half - 1)
        s = s + ct.gather(Table, (h, bucket)).astype(ct.float32)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m2)
        c = ct.exp(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def attn_k_transposed_by_3d_permute(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """K^T written as ``ct.permute`` of the 3-D ``(1, BN, D)`` tile to ``(1, D, BN)`` then reshaped
    (no ``ct.transpose``); the exp2 online softmax."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        kt = ct.permute(ct.load(K, index=(bh, j, 0), shape=(1, BN, D)), (0, 2, 1)).reshape((D, BN))
        s = ct.mma(q, kt, ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


@ct.kernel
def xattn_ragged_dv64_bf16(Q, K, V, O, qk_scale: float, BM: C[int], BN: C[int], DK: C[int], DV: C[int]):
    """Cross attention: 200 queries over 333 keys (both ragged), QK head dim 128 and V head dim 64,
    bf16; key columns past the key count masked by ``ct.where`` with a finite minimum."""
    qt, bh = ct.bid(0), ct.bid(1)
    nkeys = K.shape[1]
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, DK), padding_mode=ZERO).reshape((BM, DK))
    m = ct.full((BM, 1), MASKED, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, DV), dtype=ct.float32)
    for j in range(ct.cdiv(nkeys, BN)):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, DK), padding_mode=ZERO).reshape((BN, DK))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = ct.where(kpos < nkeys, s, MASKED)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DV), padding_mode=ZERO).reshape((BN, DV))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, DV)))


@ct.kernel
def attn_alibi_array_causal_gqa_bf16(Q, K, V, Slopes, O, qk_scale: float, G: C[int], BM: C[int], BN: C[int],
                                     D: C[int]):
    """ALiBi with the head's slope read from ``Slopes [H]`` (``ct.gather``), causal (later key tiles
    skipped, the diagonal masked), GQA with the K/V head ``h // G`` on ``[B, S, H, D]`` arrays
    (``(1, BM, 1, D)`` tiles), bf16."""
    qt, h, b = ct.bid(0), ct.bid(1), ct.bid(2)
    kvh = h // G
    slope = ct.gather(Slopes, h) * LOG2E
    q = ct.load(Q, index=(b, qt, h, 0), shape=(1, BM, 1, D)).reshape((BM, D))
    qpos = (qt * BM + ct.arange(BM, dtype=ct.int32))[:, None]
    m = ct.full((BM, 1), MASKED, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.cdiv((qt + 1) * BM, BN)):
        k = ct.load(K, index=(b, j, kvh, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        kpos = (j * BN + ct.arange(BN, dtype=ct.int32))[None, :]
        s = s + slope * (kpos - qpos).astype(ct.float32)
        s = ct.where(kpos <= qpos, s, MASKED)
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(b, j, kvh, 0), shape=(1, BN, 1, D)).reshape((BN, D))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(b, qt, h, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, 1, D)))


@ct.kernel
def attn_residual_if_flag(Q, K, V, O, add_q: int, qk_scale: float, BM: C[int], BN: C[int], D: C[int]):
    """Attention whose output gets the query added back when a runtime flag says so
    (``if add_q != 0: o = o + q``, after the loop): an epilogue term under an if."""
    qt, bh = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
    m = ct.full((BM, 1), MASKED, dtype=ct.float32)
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
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    o = o / den
    if add_q != 0:
        o = o + ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D)).astype(ct.float32)
    ct.store(O, index=(bh, qt, 0), tile=o.astype(O.dtype).reshape((1, BM, D)))


# ----------------------------------------------------------------------------------------------- the table

_M256 = [_f((256, 256)), _f((256, 128)), _f((256, 128))]
_BF = "bfloat16"
_F32 = "float32"

_add("mm_at_permute_bt_transpose", mm_at_permute_bt_transpose,
     [_f((256, 200), _BF), _f((136, 256), _BF), _f((200, 136), _BF), 128, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("gram_at_a_one_array", gram_at_a_one_array, [_f((256, 256)), _f((256, 256), _F32), 128, 64], (2, 2), "gemm",
     outputs=(1,))
_add("syrk_upper_tiles", syrk_upper_tiles, [_f((256, 256)), _f((256, 256), _F32), 128, 64], (2, 2), "gemm",
     outputs=(1,))
_add("mm_expert_weight_by_scalar", mm_expert_weight_by_scalar,
     [_f((256, 256)), _f((3, 256, 128)), _f((256, 128)), 1, 128, 64, 64], (2, 2), "gemm", outputs=(2,),
     notes="found by this sweep: refused as 'C is 2-D while an operand is batched: every batch would store the same C tile' (no batch here: one expert for the whole launch), then as 'B is one matrix of a 3-D array picked by the program'; now B is a view of W the launcher addresses (W[e]: the pointer offset by e's matrix, e checked in range at each launch)")
_add("mm_store_into_column_slice", mm_store_into_column_slice,
     [_f((256, 256)), _f((256, 128)), _f((256, 384)), 128, 128, 64, 64], (2, 2), "gemm", outputs=(2,),
     notes="found by this sweep: refused as \"C's view: its base pointer is computed\"; since session 20 C's column "
           "slice is recorded (c_view) and the kernel stores rows the wider array's row stride apart (c_ld)")
_add("bmm_4d_head_scale_gather", bmm_4d_head_scale_gather,
     [_f((2, 2, 128, 128)), _f((2, 2, 128, 128)), _f((2,), _F32), _f((2, 2, 128, 128)), 2, 128, 64, 64], (1, 2, 4),
     "gemm", outputs=(3,))
_add("bmm_persistent_user_loop", bmm_persistent_user_loop,
     [_f((3, 256, 128)), _f((3, 128, 128)), _f((3, 256, 128)), 128, 128, 64], (4,), "gemm", outputs=(2,),
     notes="refused until session 22 ('the tile is stored inside a loop around its computation'); now the "
           "batched GEMM's tile grid (tileas-program-loop-to-tiles, sweep 14)")
_add("mm_persistent_2d_grid_linearised", mm_persistent_2d_grid_linearised,
     [_f((384, 256)), _f((256, 256)), _f((384, 256)), 128, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("mm_splitk_bias_first_split", mm_splitk_bias_first_split,
     [_f((256, 512)), _f((512, 128)), _f((128,), _F32), _f((256, 128), _F32), 2, 128, 64, 64], (2, 2, 2), "gemm",
     outputs=(3,), notes="found by this sweep: refused as 'a memory token is used by an op TileAS does not know' "
                         "(the bias load's token out of the if), then as the epilogue op 'scf.if'; now both "
                         "branches are evaluated per element and the condition selects")
_add("mm_splitk_runtime_chunk", mm_splitk_runtime_chunk,
     [_f((256, 448)), _f((448, 128)), _f((256, 128), _F32), 3, 128, 64, 64], (2, 2, 3), "gemm", outputs=(2,))
_add("moe_group_by_offsets_scan", moe_group_by_offsets_scan,
     [_f((384, 128)), _f((3, 128, 128)), _f((4,), "int32"), _f((384, 128)), 3, 128, 64, 64], (3, 2), "simt",
     outputs=(3,),
     error="B's batch index is not a function of program ids",
     notes="found by this sweep: refused as 'C is 2-D while an operand is batched' (as mm_expert_weight_by_scalar), "
           "then (to session 22) as 'B is one matrix of a 3-D array picked by the program'; since session 23 a "
           "B picked per work tile beside a 2-D C is taken, but this group index comes from a loop over the "
           "offsets, which the kernel cannot evaluate per tile")
_add("grouped_equal_groups_bid2", grouped_equal_groups_bid2,
     [_f((512, 128)), _f((2, 128, 128)), _f((512, 128)), 256, 128, 64, 64], (2, 2, 2), "gemm", outputs=(2,),
     notes="refused as 'A, B and C must all be batched' until session 24 (sweep 18): the weight W[bid(2)] beside a "
           "2-D C whose row tile reads program id 2 is now B's batch index per work tile, C the one matrix")
_RMS = ("found by this sweep: refused as 'the epilogue op nv_tileaa.reduce' (the new residual, stored first, was "
        "taken as C and the normalised row as a second output, evaluated without its row reduction); now the "
        "output that reads the row reduction is C")
_add("mm_residual_rmsnorm_bf16", mm_residual_rmsnorm_bf16,
     [_f((256, 256), _BF), _f((256, 128), _BF), _f((256, 128), _BF), _f((128,), _BF), _f((256, 128), _BF),
      _f((256, 128), _BF), 1e-6, 128, 128, 64], (2,), "gemm", outputs=(4, 5), notes=_RMS)
_add("mm_residual_rmsnorm_f16", mm_residual_rmsnorm_bf16,
     [_f((256, 256)), _f((256, 128)), _f((256, 128)), _f((128,)), _f((256, 128)), _f((256, 128)), 1e-6, 128, 128,
      64], (2,), "gemm", outputs=(4, 5), notes=_RMS + " (the f16 instance: the CPU emulator runs it)")
_add("mm_bias_row_and_col", mm_bias_row_and_col,
     _M256[:2] + [_f((256,), _F32), _f((128,), _F32), _f((256, 128)), 128, 64, 64], (2, 2), "gemm",
     outputs=(4,))
_add("mm_alpha_beta_from_arrays", mm_alpha_beta_from_arrays,
     _M256 + [_f((1,), _F32), _f((1,), _F32), _f((256, 128), _F32), 128, 64, 64], (2, 2), "gemm", outputs=(5,))
_add("mm_sigmoid_gate_tile", mm_sigmoid_gate_tile, _M256 + [_f((256, 128)), 128, 64, 64], (2, 2), "gemm",
     outputs=(3,))
_add("mm_rows_masked_by_runtime_count", mm_rows_masked_by_runtime_count, _M256 + [200, 128, 64, 64], (2, 2), "gemm",
     outputs=(2,))
_add("mm_f32_operands_as_is", mm_f32_operands_as_is,
     [_f((256, 256), _F32), _f((256, 128), _F32), _f((256, 128), _F32), 128, 64, 32], (2, 2), "simt", outputs=(2,),
     error="this dot multiplies f32 tiles, which cuTile computes in f32")
_CASTB = ("found by this sweep: refused as 'A and B must have the same element type' (the f32 weight's tile, "
          "converted to A's type in the loop, was read as the WGMMA's B); now a computed B (GemmConfig.b_raw f32)")
_add("mm_bf16_a_f32_b_cast_in_loop", mm_bf16_a_f32_b_cast_in_loop,
     [_f((256, 256), _BF), _f((256, 128), _F32), _f((256, 128), _BF), 128, 64, 64], (2, 2), "gemm", outputs=(2,),
     notes=_CASTB)
_add("mm_f16_a_f32_b_cast_in_loop", mm_bf16_a_f32_b_cast_in_loop,
     [_f((256, 256)), _f((256, 128), _F32), _f((256, 128)), 128, 64, 64], (2, 2), "gemm", outputs=(2,),
     notes=_CASTB + " (the f16 instance: the CPU emulator runs it)")
_add("mm_fp8_a_widened_to_f16", mm_fp8_a_widened_to_f16,
     [_f((256, 256), "float8_e4m3fn"), _f((256, 128)), _f((256, 128)), 128, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("mm_f16_quantised_to_e4m3_in_loop", mm_f16_quantised_to_e4m3_in_loop,
     [_f((256, 256)), _f((256, 128)), _f((256, 128), _F32), 128, 64, 64], (2, 2), "simt", outputs=(2,),
     error="its f16 tile converted to e4m3 in the K loop (astype)",
     notes="the GEMM tier multiplied the f16 values unconverted (H200, session 18: errors up to 11 against the "
           "e4m3-rounded reference); refused, the SIMT path rounds each element")
_add("mm_int8_zero_points", mm_int8_zero_points,
     [_f((256, 256), "int8"), _f((256, 128), "int8"), _f((256, 128), "int32"), 3, -2, 128, 64, 64], (2, 2), "simt",
     outputs=(2,),
     error="reads a tile that the K loop computes beside the dot",
     notes="found by this sweep: refused as 'the epilogue op scf.for' (the tier's terms); now what the program does")
_add("mm_int8_range_step_tk", mm_int8_range_step_tk,
     [_f((256, 320), "int8"), _f((320, 128), "int8"), _f((256, 128), "int32"), 128, 64, 64], (2, 2), "gemm",
     outputs=(2,))
_add("trmm_lower_triangular", trmm_lower_triangular, [_f((384, 384)), _f((384, 128)), _f((384, 128)), 128, 64],
     (3, 2), "simt", outputs=(2,),
     error="the K loop runs its own range of K tiles of 128")
_add("mm_banded_k_range", mm_banded_k_range, [_f((512, 512)), _f((512, 128)), _f((512, 128)), 1, 128, 64], (4, 2),
     "simt", outputs=(2,),
     error="the K loop runs its own range of K tiles of 128")
_add("mm_two_k_tiles_per_iteration", mm_two_k_tiles_per_iteration, _M256 + [128, 64, 64], (2, 2), "simt",
     outputs=(2,),
     error="two K tiles per iteration: a K loop unrolled by hand",
     notes="found by this sweep: refused as one product split over two operand pairs 'e.g. MLA's no-position and RoPE head-dim parts'; now in the program's terms")
_add("mm_even_odd_accumulators", mm_even_odd_accumulators, _M256 + [128, 64, 64], (2, 2), "simt", outputs=(2,),
     error="2 dots in one K loop that do not read the same A tile")
_add("mm_early_return_runtime_m", mm_early_return_runtime_m, _M256 + [100, 128, 64, 64], (2, 2), "gemm",
     outputs=(2,))
_add("bsmm_skip_zero_blocks", bsmm_skip_zero_blocks, _M256[:2] + [_f((2, 4), "int32"), _f((256, 128)), 128, 64, 64],
     (2, 2), "simt", outputs=(3,),
     error="this dot runs under a condition inside its loop",
     notes="found by this sweep: an unlocated 'the TileAS tier left a kernel unlowered' (a silent slow path); now at the dot")
_add("qkv_weight_by_branch", qkv_weight_by_branch,
     [_f((256, 256))] + [_f((256, 128))] * 6 + [128, 64, 64], (2, 2, 3), "simt", outputs=(4, 5, 6),
     error="loops with dots in the branches of an if",
     notes="found by this sweep: refused with the advice for loops over consecutive ranges; now it names the if's branches")
_add("swiglu_gate_transposed_up_plain", swiglu_gate_transposed_up_plain,
     [_f((256, 256)), _f((128, 256)), _f((256, 128)), _f((256, 128)), 128, 64, 64], (2, 2), "simt", outputs=(3,),
     error="dots sharing A read their B tiles in different layouts")
_add("mlp_bias_gelu_bias_bf16", mlp_bias_gelu_bias_bf16,
     [_f((256, 64), _BF), _f((64, 256), _BF), _f((256,), _BF), _f((256, 64), _BF), _f((64,), _BF), _f((256, 64), _BF),
      128, 64, 64], (2,), "chained", outputs=(5,))
_add("attn_bwd_dv_recompute", attn_bwd_dv_recompute,
     [_f((2, 256, 64)), _f((2, 256, 64)), _f((2, 256, 64)), _f((2, 256), _F32), _f((2, 256, 64)), 0.125 * LOG2E,
      64, 128, 64], (2, 2), "chained", outputs=(4,))
_add("attn_gemma2_softcap_window_gqa", attn_gemma2_softcap_window_gqa,
     [_f((1, 4, 256, 64)), _f((1, 2, 256, 64)), _f((1, 2, 256, 64)), _f((1, 4, 256, 64)), 0.125, 50.0, 96, 2, 64,
      64, 64], (4, 4, 1), "chained", outputs=(3,))
_add("attn_fa1_normalised_each_step", attn_fa1_normalised_each_step,
     [_f((2, 128, 64)), _f((2, 256, 64)), _f((2, 256, 64)), _f((2, 128, 64)), 0.125 * LOG2E, 64, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("attn_scores_in_fp8", attn_scores_in_fp8,
     [_f((2, 128, 64)), _f((2, 256, 64)), _f((2, 256, 64)), _f((2, 128, 64)), 0.125 * LOG2E, 64, 64, 64], (2, 2),
     "simt", outputs=(3,), error="prologue changes the tile's element type",
     notes="K rounded to fp8 in the loop: the chained kernel applies a K prologue in place in shared memory")
_add("attn_t5_bucket_bias_gather", attn_t5_bucket_bias_gather,
     [_f((2, 128, 64)), _f((2, 128, 64)), _f((2, 128, 64)), _f((2, 32), _F32), _f((2, 128, 64)), 32, 64, 64, 64],
     (2, 2), "chained", outputs=(4,),
     notes="found by this sweep: refused as 'the epilogue op nv_tileaa.load' (the tier's terms), then as 'gathers a "
           "tile (ct.gather with a tile of indices ...)'; since session 24 (sweep 18) the chained kernel loads the "
           "table per score element (masked by the gather's bounds)")
_add("attn_k_transposed_by_3d_permute", attn_k_transposed_by_3d_permute,
     [_f((2, 128, 64)), _f((2, 192, 64)), _f((2, 192, 64)), _f((2, 128, 64)), 0.125 * LOG2E, 64, 64, 64], (2, 2),
     "chained", outputs=(3,))
_add("xattn_ragged_dv64_bf16", xattn_ragged_dv64_bf16,
     [_f((2, 200, 128), _BF), _f((2, 333, 128), _BF), _f((2, 333, 64), _BF), _f((2, 200, 64), _BF),
      LOG2E / math.sqrt(128), 64, 64, 128, 64], (4, 2), "chained", outputs=(3,))
_add("attn_alibi_array_causal_gqa_bf16", attn_alibi_array_causal_gqa_bf16,
     [_f((1, 256, 4, 64), _BF), _f((1, 256, 2, 64), _BF), _f((1, 256, 2, 64), _BF), _f((4,), _F32),
      _f((1, 256, 4, 64), _BF), 0.125 * LOG2E, 2, 64, 64, 64], (4, 4, 1), "chained", outputs=(4,))
_add("attn_residual_if_flag", attn_residual_if_flag,
     [_f((2, 128, 64)), _f((2, 256, 64)), _f((2, 256, 64)), _f((2, 128, 64)), 1, 0.125 * LOG2E, 64, 64, 64], (2, 2),
     "chained", outputs=(3,),
     notes="found by this sweep: refused ('a memory token is used by an op TileAS does not know': the load's token "
           "out of the if); now the chained epilogue selects between the branches")
