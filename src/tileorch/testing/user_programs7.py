"""The seventh user sweep (session 15): cuTile 1.7 programs in the shapes of NVIDIA's cuTile samples
(the MoE, grouped GEMM, RMSNorm, layer norm, transpose, FFT and split-K kernels of the public
cutile-python repository, read for how users write things) and of LLM building blocks that the
first six sweeps (:mod:`tileorch.testing.user_programs` .. ``user_programs6``) do not have.

Position and activation code: interleaved RoPE with per-batch position offsets and the angles
computed in the kernel (``theta ** (-2i / D)``, ``ct.cos`` / ``ct.sin``), half-split RoPE on Q and K
(fewer K heads) in one program with cos / sin rows gathered by a position-id tensor; SwiGLU and
GeGLU fused into a GEMM epilogue (a fused ``[K, 2I]`` gate-up weight; separate gate and up
weights), SiLU-and-mul as the MoE sample's separate kernel (``ct.add`` / ``ct.truediv`` with
``flush_to_zero`` and the approximate rounding, a power-of-two tile over a ragged width, no
padding mode), GeGLU over one ``[M, 2N]`` tile split by ``reshape`` + ``extract``.

Mixture of experts: the fused-MoE sample's shape (token-replica ids sorted by expert and padded
per expert, the expert of each row tile read with a 0-d ``ct.load``, A rows gathered, the expert's
weight ``[E, N, K]`` read K-major through ``order=(0, 2, 1)``, the routed weight, rows scattered),
a grouped GEMM over per-expert row offsets (``Offs [E + 1]``, an early return, masked gathers and
scatters), the samples' persistent grouped GEMM over lists of arrays with its ``while`` loop.

Vocabulary rows: a running top-k over 1000-wide chunks (each chunk's top-k ``ct.cat``-ed with the
running one), greedy sampling with Gumbel noise and an int64 token, a cross-entropy forward with
the log-sum-exp over a 32000-wide bf16 vocabulary, label smoothing and a z-loss, the mean by
``ct.atomic_add`` into one element, and the backward written over the logits in place.

Normalisation and quantisation: a fused residual add + RMSNorm (the new residual stored), the
RMSNorm sample's static persistent form (``ct.truediv`` of ``ct.full`` tiles, ``w.extract``,
``latency`` / ``allow_tma`` hints, ``occupancy=ct.ByTarget(...)``) and its gather / scatter form,
per-token int8 quantisation of a 3-D ``[B, S, D]`` tensor, group-wise (32-column) dequantisation
by a 3-D reshape, fp8 e4m3 quantisation by a per-tensor scale, an fp8 GEMM with per-tensor scales
whose output's absolute maximum goes to ``ct.atomic_max`` (delayed scaling), the layer-norm
sample's backward (dX, then dW / dB partial sums under an ``atomic_cas`` spin lock released by
``atomic_xchg``) and its dW / dB reduction, a chunked softmax backward, Welford statistics by a
tuple ``ct.reduce`` whose combiner merges (count, mean, M2).

GEMM shapes: the samples' ``swizzle_2d`` 1-D grid with ``num_ctas=ct.ByTarget(...)`` and the tf32
conversion of f32 operands, here with a bias and GELU(tanh) epilogue; a batched GEMM broadcasting
a ``[B, 1, M, K]`` A over heads and a ``[1, H, K, N]`` B over batches; the samples' split-K with a
lock and a count array; conv2d as an implicit GEMM (NHWC, 3 x 3, padding 1: the im2col rows
gathered by index math); a causal depthwise conv1d (Mamba's short conv).

Memory shapes: an embedding lookup scaled by ``sqrt(D)`` plus a positional row, the embedding
backward's scatter-add by ``ct.atomic_add`` over repeated ids, a KV-cache append at positions
read from a tensor, the samples' transpose with a cast on a 1-D grid, a batched 3-D transpose with
a cast, a histogram privatised per program (one-hot sums, one ``atomic_add`` of the program's
bins), a three-program prefix sum (block scans, a scan of the block totals, the offsets added),
a radix-2 Stockham FFT whose stages are ``ct.static_iter`` butterflies on ``reshape`` /
``extract`` / ``cat``, the FFT sample's factored DFT by batched f32 ``ct.matmul`` on 3-D tiles,
QK-norm over ``(rows, H, D)`` 3-D tiles, and a logit soft-cap with temperature in bf16.

Attention and more model blocks: f32 attention with the samples' tf32 conversion, DeepSeek MLA's
scores split over a no-position and a RoPE head-dim part, a step-by-step and a tuple-``ct.scan``
state-space recurrence (Mamba), a paged KV cache gathered by a block table, a W4A16 group-wise GEMM
unpacking int4 in the K loop, an LM head storing per-vocabulary-tile row max / sum-exp partials, an
MoE router's softmax top-2, RMSNorm fused with dynamic per-token fp8 quantisation, the block-scaled
sample (``ct.mma_scaled``) and MX (e8m0) scales.  API corners: int64 token ids into an
``ct.IndexedWithInt64`` table, ``ct.cumprod`` both ways, ``ct.atan2``, ``ct.isnan`` (a nanmean),
``ct.insert``, a tile width from ``ct.static_eval`` of a Python helper with ``ct.static_assert``,
a ``ct.ScalarInt64`` offset.

Found by this sweep (the entries' ``notes``): ``ct.transpose`` after ``.astype(ct.tfloat32)``
(``F.linear`` in tf32) left the dot without a WGMMA atom (tileas-fold-tf32-operands now moves the
transpose before the conversion: the GEMM tier runs it); an e8m0 tile raised an unlocated
``NotImplementedError`` in the SIMT lowering (now the located "not supported yet" at its load; the
launcher takes ``torch.float8_e8m0fnu``); refusals worded in the tier's bookkeeping are now in the
program's terms at the program's line: memory written in a ``while`` loop (the persistent grouped
GEMM) or under an ``if`` (split-K with a lock), a gathered dot operand (MoE, implicit-GEMM conv), a
dot operand computed in the K loop (W4A16), a product split over two dots (MLA's scores), a fused
gate-up weight read at two column tiles.  Still refused by the tiers (the SIMT path runs them, its
dots on mma.sync): the fused gate-up SwiGLU, gathered A rows, W4A16, a 4-D broadcast batch, an amax
beside an fp8 GEMM, the router's (tm, 2) outputs, tf32 attention, MLA's split scores, a dot outside
a loop (the FFT by DFT matrices).  Note: f32 ``ct.mma`` / ``ct.matmul`` operands ran as tf32 then;
since session 16 they are computed to f32 accuracy (cuTile lists f32 and tf32 apart, tileiras
computes an f32 dot in f32; ``astype(ct.tfloat32)`` asks for tensor-core tf32).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep7_*.py (CPU compile, the SIMT interpreter, the PTX emulator) and
tests/gpu/test_user_sweep7_gpu.py (the H200 against torch).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import ZERO, UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)

NEG_INF = ct.PaddingMode.NEG_INF
APPROX = ct.RoundingMode.APPROX
GELU_C = 0.7978845608028654  # sqrt(2 / pi)


# ----------------------------------------------------------------------------------------------- RoPE


@ct.kernel
def rope_interleaved_offsets(X, Start, Y, theta: float, BS: ct.Constant[int], H: ct.Constant[int],
                             D: ct.Constant[int]):
    """Interleaved (GPT-J) rotary embedding on ``[B, S, H, D]``: pairs ``(x[2i], x[2i+1])`` split by a
    ``(BS, H, D/2, 2)`` reshape and ``extract``; positions ``Start[b] + s`` (a KV-cache offset per
    batch); angles from ``theta ** (-2i / D)`` computed in the kernel; the pairs put back with
    ``ct.cat`` on the last axis."""
    st, b = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(b, st, 0, 0), shape=(1, BS, H, D)).astype(ct.float32).reshape((BS, H, D // 2, 2))
    x0 = ct.extract(x, index=(0, 0, 0, 0), shape=(BS, H, D // 2, 1))
    x1 = ct.extract(x, index=(0, 0, 0, 1), shape=(BS, H, D // 2, 1))
    pos = (ct.gather(Start, b) + st * BS + ct.arange(BS, dtype=ct.int32)).astype(ct.float32)
    inv = theta ** (ct.arange(D // 2, dtype=ct.int32).astype(ct.float32) * (-2.0 / D))
    ang = (pos[:, None] * inv[None, :]).reshape((BS, 1, D // 2, 1))
    c, s = ct.cos(ang), ct.sin(ang)
    y = ct.cat((x0 * c - x1 * s, x0 * s + x1 * c), axis=3).reshape((1, BS, H, D))
    ct.store(Y, index=(b, st, 0, 0), tile=y.astype(Y.dtype))


def _rotate_half(x, c, s, H: int, BS: int, HALF: int):
    """NeoX rotation of a ``(1, H, BS, 2 HALF)`` tile by ``(1, 1, BS, HALF)`` cos / sin."""
    x1 = ct.extract(x, index=(0, 0, 0, 0), shape=(1, H, BS, HALF))
    x2 = ct.extract(x, index=(0, 0, 0, 1), shape=(1, H, BS, HALF))
    return ct.cat((x1 * c - x2 * s, x2 * c + x1 * s), axis=-1)


@ct.kernel
def rope_half_qk_pos_ids(Q, K, Cos, Sin, Pos, QO, KO, BS: ct.Constant[int], HQ: ct.Constant[int],
                         HK: ct.Constant[int], D: ct.Constant[int]):
    """Half-split (NeoX) RoPE applied to Q ``[B, HQ, S, D]`` and K ``[B, HK, S, D]`` (GQA: fewer K
    heads) in one program by a helper called twice; the cos / sin rows ``[P, D/2]`` gathered by a
    position-id tensor ``Pos [B, S]`` (2-D gather indices), bf16 in and out."""
    st, b = ct.bid(0), ct.bid(1)
    pid = ct.load(Pos, index=(b, st), shape=(1, BS)).reshape((BS,))
    cols = ct.arange(D // 2, dtype=ct.int32)
    c = ct.gather(Cos, (pid[:, None], cols[None, :])).reshape((1, 1, BS, D // 2))
    s = ct.gather(Sin, (pid[:, None], cols[None, :])).reshape((1, 1, BS, D // 2))
    q = ct.load(Q, index=(b, 0, st, 0), shape=(1, HQ, BS, D)).astype(ct.float32)
    ct.store(QO, index=(b, 0, st, 0), tile=_rotate_half(q, c, s, HQ, BS, D // 2).astype(QO.dtype))
    k = ct.load(K, index=(b, 0, st, 0), shape=(1, HK, BS, D)).astype(ct.float32)
    ct.store(KO, index=(b, 0, st, 0), tile=_rotate_half(k, c, s, HK, BS, D // 2).astype(KO.dtype))


_add("rope_interleaved_offsets", rope_interleaved_offsets,
     [((2, 64, 4, 64), "float16"), ((2,), "int32"), ((2, 64, 4, 64), "float16"), 10000.0, 16, 4, 64], (4, 2),
     "simt", outputs=(2,))
_add("rope_half_qk_pos_ids", rope_half_qk_pos_ids,
     [((2, 4, 32, 64), "bfloat16"), ((2, 2, 32, 64), "bfloat16"), ((128, 32), "float32"), ((128, 32), "float32"),
      ((2, 32), "int32"), ((2, 4, 32, 64), "bfloat16"), ((2, 2, 32, 64), "bfloat16"), 16, 4, 2, 64], (2, 2),
     "simt", outputs=(5, 6))


# ----------------------------------------------------------------------------------------------- gated MLPs


@ct.kernel
def mm_swiglu_fused_gate_up(X, W, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """SwiGLU in a GEMM epilogue over a fused gate-up weight ``W [K, 2I]`` (gate columns ``[0, I)``,
    up columns ``[I, 2I)``): output tile ``j`` reads gate tile ``j`` and up tile ``j + I / tn``
    (``I`` from Y's shape), two accumulators sharing the X tile; ``silu(g) * u`` in f16."""
    i, j = ct.bid(0), ct.bid(1)
    half = ct.num_tiles(Y, axis=1, shape=(tm, tn))
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(i, k), shape=(tm, tk))
        g = ct.mma(x, ct.load(W, index=(k, j), shape=(tk, tn)), g)
        u = ct.mma(x, ct.load(W, index=(k, j + half), shape=(tk, tn)), u)
    ct.store(Y, index=(i, j), tile=(g / (1.0 + ct.exp(-g)) * u).astype(Y.dtype))


@ct.kernel
def mm_geglu_bias_epilogue(X, Wg, Wu, Bg, Bu, Y, tm: ct.Constant[int], tn: ct.Constant[int],
                           tk: ct.Constant[int]):
    """GeGLU in a GEMM epilogue with separate gate and up weights and f32 biases:
    ``gelu_tanh(x Wg + bg) * (x Wu + bu)``, ragged M (zero padding, the store clipped)."""
    i, j = ct.bid(0), ct.bid(1)
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(i, k), shape=(tm, tk), padding_mode=ZERO)
        g = ct.mma(x, ct.load(Wg, index=(k, j), shape=(tk, tn)), g)
        u = ct.mma(x, ct.load(Wu, index=(k, j), shape=(tk, tn)), u)
    g = g + ct.load(Bg, index=(j,), shape=(tn,))[None, :]
    u = u + ct.load(Bu, index=(j,), shape=(tn,))[None, :]
    act = 0.5 * g * (1.0 + ct.tanh(GELU_C * (g + 0.044715 * g * g * g)))
    ct.store(Y, index=(i, j), tile=(act * u).astype(Y.dtype))


@ct.kernel
def silu_and_mul_sample(A, B, C, TILE_N: ct.Constant[int]):
    """The MoE sample's separate SiLU-and-mul kernel: one row per program, ``TILE_N`` the next
    power of two of a ragged width (no padding mode: the lanes past the width are never stored),
    ``ct.add`` / ``ct.truediv`` / ``ct.mul`` with ``flush_to_zero`` and the approximate division.
    The GPU test passes A and B as the two halves of one ``[M, 2N]`` tensor (``chunk(2, -1)``)."""
    r = ct.bid(0)
    a = ct.load(A, (r, 0), (1, TILE_N)).astype(ct.float32)
    b = ct.load(B, (r, 0), (1, TILE_N)).astype(ct.float32)
    den = ct.add(1, ct.exp(-a), flush_to_zero=True)
    sig = ct.truediv(1.0, den, flush_to_zero=True, rounding_mode=APPROX)
    ct.store(C, (r, 0), ct.mul(ct.mul(a, sig, flush_to_zero=True), b, flush_to_zero=True).astype(C.dtype))


@ct.kernel
def geglu_split_rows(X, Y, BR: ct.Constant[int], N: ct.Constant[int]):
    """GeGLU on ``BR`` rows of ``[M, 2N]`` (gate first): one ``(BR, 2N)`` tile reshaped to
    ``(BR, 2, N)``, the halves taken by ``extract``, tanh GELU of the gate, bf16 out ``[M, N]``."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(BR, 2 * N), padding_mode=ZERO).astype(ct.float32).reshape((BR, 2, N))
    g = ct.extract(x, index=(0, 0, 0), shape=(BR, 1, N)).reshape((BR, N))
    u = ct.extract(x, index=(0, 1, 0), shape=(BR, 1, N)).reshape((BR, N))
    act = 0.5 * g * (1.0 + ct.tanh(GELU_C * (g + 0.044715 * g ** 3)))
    ct.store(Y, index=(r, 0), tile=(act * u).astype(ct.bfloat16))


_add("mm_swiglu_fused_gate_up", mm_swiglu_fused_gate_up,
     [((128, 256), "float16"), ((256, 512), "float16"), ((128, 256), "float16"), 128, 128, 64], (1, 2), "simt",
     outputs=(2,),
     error="dots sharing A read their B tiles at different column tile indices",
     notes="refused by the GEMM tier (the WGMMA kernel reads every B at C's column tile); mm_geglu_bias_epilogue's "
           "separate gate and up weights run on it")
_add("mm_geglu_bias_epilogue", mm_geglu_bias_epilogue,
     [((200, 128), "float16"), ((128, 256), "float16"), ((128, 256), "float16"), ((256,), "float32"),
      ((256,), "float32"), ((200, 256), "float16"), 128, 128, 64], (2, 2), "gemm", outputs=(5,))
_add("silu_and_mul_sample", silu_and_mul_sample,
     [((6, 300), "float16"), ((6, 300), "float16"), ((6, 300), "float16"), 512], (6,), "simt", outputs=(2,))
_add("geglu_split_rows", geglu_split_rows, [((10, 256), "float32"), ((10, 128), "bfloat16"), 4, 128], (3,),
     "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- mixture of experts


@ct.kernel
def moe_sorted_gather_gemm(X, W, Out, TopW, TokIds, BlockExpert, topk: int, tm: ct.Constant[int],
                           tn: ct.Constant[int], tk: ct.Constant[int]):
    """The fused-MoE sample's shape: ``TokIds`` the token-replica ids (token ``t`` replica ``r`` is
    ``t topk + r``) sorted by expert and padded per expert to ``tm`` rows with the sentinel
    ``T topk``; ``BlockExpert`` the expert of each row tile (a 0-d ``ct.load``); A rows gathered
    (``id // topk``, the padding rows masked), the expert's ``W [E, N, K]`` read as a ``(tk, tn)``
    tile through ``order=(0, 2, 1)``, the routed weight ``TopW [T topk]`` applied, rows scattered
    into ``Out [T topk, N]`` (the padding rows dropped)."""
    bm, bn = ct.bid(0), ct.bid(1)
    ids = ct.gather(TokIds, bm * tm + ct.arange(tm, dtype=ct.int32))
    valid = ids < Out.shape[0]
    rows = ids // topk
    e = ct.load(BlockExpert, index=(bm,), shape=())
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (rows[:, None], cols[None, :]), mask=valid[:, None])
        b = ct.load(W, index=(e, k, bn), shape=(1, tk, tn), order=(0, 2, 1), padding_mode=ZERO).reshape((tk, tn))
        acc = ct.mma(a, b, acc)
    acc = acc * ct.gather(TopW, ids, mask=valid)[:, None]
    ocols = bn * tn + ct.arange(tn, dtype=ct.int32)
    ct.scatter(Out, (ids[:, None], ocols[None, :]), acc.astype(Out.dtype), mask=valid[:, None])


@ct.kernel
def moe_expert_offsets_gemm(X, W, Y, Offs, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A grouped GEMM over each expert's contiguous row range of X ``[T, K]`` (tokens sorted by
    expert): ``Offs [E + 1]`` cumulative counts, grid (row tile, column tile, expert); a program
    whose rows start past its expert's count returns; rows gathered from ``Offs[e] + i tm + r``
    under a mask, ``W [E, K, N]``, Y rows scattered under the mask."""
    i, j, e = ct.bid(0), ct.bid(1), ct.bid(2)
    start = ct.gather(Offs, e)
    end = ct.gather(Offs, e + 1)
    if start + i * tm >= end:
        return
    rows = start + i * tm + ct.arange(tm, dtype=ct.int32)
    valid = rows < end
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (rows[:, None], cols[None, :]), mask=valid[:, None])
        acc = ct.mma(a, ct.load(W, index=(e, k, j), shape=(1, tk, tn)).reshape((tk, tn)), acc)
    ocols = j * tn + ct.arange(tn, dtype=ct.int32)
    ct.scatter(Y, (rows[:, None], ocols[None, :]), acc.astype(Y.dtype), mask=valid[:, None])


@ct.kernel
def grouped_gemm_lists_persistent(As, Bs, Cs, num_sm: ct.Constant[int], tm: ct.Constant[int],
                                  tn: ct.Constant[int], tk: ct.Constant[int]):
    """The samples' persistent grouped GEMM: lists of arrays, ``range(len(As))`` over the groups, a
    ``while`` loop taking this program's tiles of each group (``tile_idx += num_sm``), ragged
    shapes with zero padding."""
    tile_idx = ct.bid(0)
    last_end = 0
    for g in range(len(As)):
        A, B, C = As[g], Bs[g], Cs[g]
        nm = ct.num_tiles(A, 0, (tm, tk))
        nk = ct.num_tiles(A, 1, (tm, tk))
        nn = ct.num_tiles(B, 1, (tk, tn))
        count = nm * nn
        while tile_idx >= last_end and tile_idx < last_end + count:
            t = tile_idx - last_end
            acc = ct.zeros((tm, tn), dtype=ct.float32)
            for kk in range(nk):
                a = ct.load(A, (t // nn, kk), shape=(tm, tk), padding_mode=ZERO)
                b = ct.load(B, (kk, t % nn), shape=(tk, tn), padding_mode=ZERO)
                acc = ct.mma(a, b, acc)
            ct.store(C, (t // nn, t % nn), tile=ct.astype(acc, C.dtype))
            tile_idx += num_sm
        last_end = last_end + count


_add("moe_sorted_gather_gemm", moe_sorted_gather_gemm,
     [((24, 128), "float16"), ((4, 128, 128), "float16"), ((48, 128), "float32"), ((48,), "float32"),
      ((6 * 16,), "int32"), ((6,), "int32"), 2, 16, 64, 64], (6, 2), "simt", outputs=(2,),
     error="this dot operand is gathered",
     notes="found by this sweep: refused as 'expected a producer agent with 2 TMA tile loads (A and 1 B); found 1 "
           "staged loads' at the loop; now named at the gather")
_add("moe_expert_offsets_gemm", moe_expert_offsets_gemm,
     [((150, 128), "float16"), ((3, 128, 128), "float16"), ((150, 128), "float32"), ((4,), "int32"), 64, 64, 64],
     (2, 2, 3), "simt", outputs=(2,),
     error="this dot operand is gathered",
     notes="found by this sweep: refused as 'expected a producer agent with 2 TMA tile loads (A and 1 B); found 1 "
           "staged loads' at the loop; now named at the gather")
_add("grouped_gemm_lists_persistent", grouped_gemm_lists_persistent,
     [[((128, 64), "float16"), ((100, 96), "float16")], [((64, 128), "float16"), ((96, 64), "float16")],
      [((128, 128), "float32"), ((100, 64), "float32")], 3, 64, 64, 32], (3,), "simt", outputs=(2,),
     error="memory is written inside a while loop",
     notes="found by this sweep: refused as 'a memory token is used by scf.yield, an op TileAS does not order'; now "
           "said in the program's terms at the while")


# ----------------------------------------------------------------------------------------------- vocabulary rows


@ct.kernel
def topk_vocab_running(X, Vals, Idx, KK: ct.Constant[int], BV: ct.Constant[int]):
    """Top-``KK`` of a long row (vocabulary) in ``BV``-wide chunks: per chunk its top ``KK`` by
    repeated max / argmax (the picked lane masked with ``-inf``), ``ct.cat``-ed after the running
    ``KK`` and the top ``KK`` of the ``2 KK`` taken again; values descending, first index on ties."""
    r = ct.bid(0)
    best = ct.full((KK,), -math.inf, dtype=ct.float32)
    bidx = ct.zeros((KK,), dtype=ct.int32)
    lanes = ct.arange(BV, dtype=ct.int32)
    slots = ct.arange(KK, dtype=ct.int32)
    both = ct.arange(2 * KK, dtype=ct.int32)
    for c in range(ct.num_tiles(X, axis=1, shape=(1, BV))):
        x = ct.load(X, index=(r, c), shape=(1, BV), padding_mode=NEG_INF).reshape((BV,)).astype(ct.float32)
        cv = ct.full((KK,), -math.inf, dtype=ct.float32)
        ci = ct.zeros((KK,), dtype=ct.int32)
        for t in range(KK):
            m = ct.max(x, axis=0, keepdims=True)
            a = ct.argmax(x, axis=0, keepdims=True).astype(ct.int32)
            cv = ct.where(slots == t, m, cv)
            ci = ct.where(slots == t, a + c * BV, ci)
            x = ct.where(lanes == a, -math.inf, x)
        v2 = ct.cat((best, cv), axis=0)
        i2 = ct.cat((bidx, ci), axis=0)
        for t in range(KK):
            m = ct.max(v2, axis=0, keepdims=True)
            a = ct.argmax(v2, axis=0, keepdims=True).astype(ct.int32)
            best = ct.where(slots == t, m, best)
            bidx = ct.where(slots == t, ct.sum(ct.where(both == a, i2, 0), axis=0, keepdims=True), bidx)
            v2 = ct.where(both == a, -math.inf, v2)
    ct.store(Vals, index=(r, 0), tile=best.reshape((1, KK)))
    ct.store(Idx, index=(r, 0), tile=bidx.reshape((1, KK)))


@ct.kernel
def greedy_gumbel_sample(Logits, Noise, Temp, Tok, BV: ct.Constant[int]):
    """Sampling by the Gumbel-max trick over a bf16 vocabulary row in chunks: ``argmax(logits / T +
    g)`` with ``T`` per row (``Temp [R]``), the running best value / index carried, an int64 token."""
    r = ct.bid(0)
    inv_t = 1.0 / ct.gather(Temp, r)
    best = ct.full((1,), -math.inf, dtype=ct.float32)
    tok = ct.zeros((1,), dtype=ct.int64)
    for c in range(ct.num_tiles(Logits, axis=1, shape=(1, BV))):
        z = ct.load(Logits, index=(r, c), shape=(1, BV), padding_mode=NEG_INF).astype(ct.float32) * inv_t
        z = z + ct.load(Noise, index=(r, c), shape=(1, BV), padding_mode=ZERO)
        m = ct.max(z, axis=1)
        a = ct.argmax(z, axis=1).astype(ct.int64) + c * BV
        take = m > best
        tok = ct.where(take, a, tok)
        best = ct.where(take, m, best)
    ct.store(Tok, index=(r,), tile=tok)


@ct.kernel
def cross_entropy_vocab_smooth_zloss(Logits, Labels, Loss, Lse, Mean, smooth: float, zw: float,
                                     BV: ct.Constant[int]):
    """Cross-entropy forward over a 32000-wide bf16 vocabulary: an online max / sum-exp pass over
    ``BV`` chunks (the tail ``-inf`` padded) for the log-sum-exp, the label's logit by ``ct.gather``,
    label smoothing ``(1 - eps) nll + eps (lse - mean(z))`` and a z-loss ``zw lse^2``; the LSE stored
    for the backward, the per-row loss stored and divided by the row count into ``Mean`` by
    ``ct.atomic_add``."""
    r = ct.bid(0)
    v = Logits.shape[1]
    m = ct.full((1, 1), -math.inf, dtype=ct.float32)
    s = ct.zeros((1, 1), dtype=ct.float32)
    tot = ct.zeros((1, 1), dtype=ct.float32)
    for c in range(ct.cdiv(v, BV)):
        z = ct.load(Logits, index=(r, c), shape=(1, BV), padding_mode=NEG_INF).astype(ct.float32)
        m2 = ct.maximum(m, ct.max(z, axis=1, keepdims=True))
        s = s * ct.exp(m - m2) + ct.sum(ct.exp(z - m2), axis=1, keepdims=True)
        tot = tot + ct.sum(ct.where(z == -math.inf, 0.0, z), axis=1, keepdims=True)
        m = m2
    lse = (m + ct.log(s)).reshape((1,))
    zl = ct.gather(Logits, (r, ct.gather(Labels, r))).astype(ct.float32)
    loss = (1.0 - smooth) * (lse - zl) + smooth * (lse - tot.reshape((1,)) / v) + zw * lse * lse
    ct.store(Lse, index=(r,), tile=lse)
    ct.store(Loss, index=(r,), tile=loss)
    ct.atomic_add(Mean, 0, loss.reshape(()) / Logits.shape[0])


@ct.kernel
def cross_entropy_bwd_inplace(Logits, Labels, Lse, dLoss, BV: ct.Constant[int]):
    """Cross-entropy backward written over the bf16 logits in place (as fused LM-head losses do):
    ``dlogits = (softmax(z) - onehot(label)) * dloss`` chunk by chunk from the forward's LSE."""
    r = ct.bid(0)
    lse = ct.gather(Lse, r)
    lab = ct.gather(Labels, r)
    g = ct.gather(dLoss, r)
    for c in range(ct.num_tiles(Logits, axis=1, shape=(1, BV))):
        z = ct.load(Logits, index=(r, c), shape=(1, BV), padding_mode=ZERO).astype(ct.float32)
        hot = (c * BV + ct.arange(BV, dtype=ct.int32))[None, :] == lab
        d = (ct.exp(z - lse) - ct.where(hot, 1.0, 0.0)) * g
        ct.store(Logits, index=(r, c), tile=d.astype(Logits.dtype))


_add("topk_vocab_running", topk_vocab_running, [((3, 5000), "float32"), ((3, 4), "float32"), ((3, 4), "int32"),
                                                 4, 1024], (3,), "simt", outputs=(1, 2))
_add("greedy_gumbel_sample", greedy_gumbel_sample,
     [((3, 3000), "bfloat16"), ((3, 3000), "float32"), ((3,), "float32"), ((3,), "int64"), 1024], (3,), "simt",
     outputs=(3,))
_add("cross_entropy_vocab_smooth_zloss", cross_entropy_vocab_smooth_zloss,
     [((4, 32000), "bfloat16"), ((4,), "int32"), ((4,), "float32"), ((4,), "float32"), ((1,), "float32"), 0.1,
      1e-4, 4096], (4,), "simt", outputs=(2, 3, 4))
_add("cross_entropy_bwd_inplace", cross_entropy_bwd_inplace,
     [((4, 5000), "bfloat16"), ((4,), "int32"), ((4,), "float32"), ((4,), "float32"), 2048], (4,), "simt",
     outputs=(0,))


# ----------------------------------------------------------------------------------------------- norms


@ct.kernel
def residual_add_rmsnorm(X, Res, W, Y, ResOut, eps: float, BR: ct.Constant[int], BC: ct.Constant[int]):
    """The fused residual add + RMSNorm of a decoder layer: ``h = x + res`` stored as the next
    residual (bf16), ``y = h rsqrt(mean(h^2) + eps) w``; ``BR`` rows per program over ``BC``-wide
    column chunks (a ragged width: zero padding), the sum of squares carried as ``(BR, 1)``."""
    r = ct.bid(0)
    n = X.shape[1]
    ss = ct.zeros((BR, 1), dtype=ct.float32)
    for c in range(ct.cdiv(n, BC)):
        h = ct.load(X, index=(r, c), shape=(BR, BC), padding_mode=ZERO).astype(ct.float32) + \
            ct.load(Res, index=(r, c), shape=(BR, BC), padding_mode=ZERO).astype(ct.float32)
        ct.store(ResOut, index=(r, c), tile=h.astype(ResOut.dtype))
        ss = ss + ct.sum(h * h, axis=1, keepdims=True)
    rs = ct.rsqrt(ss / n + eps)
    for c in range(ct.cdiv(n, BC)):
        h = ct.load(X, index=(r, c), shape=(BR, BC), padding_mode=ZERO).astype(ct.float32) + \
            ct.load(Res, index=(r, c), shape=(BR, BC), padding_mode=ZERO).astype(ct.float32)
        w = ct.load(W, index=(c,), shape=(BC,), padding_mode=ZERO).astype(ct.float32)
        ct.store(Y, index=(r, c), tile=(h * rs * w[None, :]).astype(Y.dtype))


@ct.kernel(occupancy=ct.ByTarget(sm_100=16))
def rmsnorm_static_persistent(X, Y, W, TM: ct.Constant[int], TN: ct.Constant[int], N: ct.Constant[int],
                              eps: ct.Constant[float]):
    """The RMSNorm sample's static persistent form: ``range(bid, cdiv(M, TM), num_blocks)``, the
    weight loaded once and cut by ``w.extract``, the variance by ``ct.truediv`` of ``ct.full``
    tiles, ``latency`` / ``allow_tma`` hints, ``occupancy=ct.ByTarget(sm_100=16)``."""
    bid = ct.bid(0)
    upper = (X.shape[0] + TM - 1) // TM
    ntn = ct.cdiv(N, TN)
    w = ct.load(W, index=(0,), shape=(N,), padding_mode=ZERO)
    for cur in range(bid, upper, ct.num_blocks(0)):
        x2 = ct.full((TM, 1), 0.0, dtype=ct.float32)
        for j in range(ntn):
            x = ct.load(X, index=(cur, j), shape=(TM, TN), latency=10, padding_mode=ZERO).astype(ct.float32)
            x2 += ct.sum(ct.mul(x, x), axis=1, keepdims=True)
        var = ct.truediv(x2, ct.full((TM, 1), N * 1.0, dtype=ct.float32))
        rs = ct.rsqrt(ct.add(var, ct.full((TM, 1), eps, dtype=ct.float32)))
        for j in range(ntn):
            x = ct.load(X, index=(cur, j), shape=(TM, TN), latency=10, padding_mode=ZERO).astype(ct.float32)
            y = x * rs * w.extract((j,), (TN,))
            ct.store(Y, index=(cur, j), tile=y.astype(X.dtype), allow_tma=False, latency=3)


@ct.kernel
def rmsnorm_gather_scatter(X, W, Out, Rstd, N: ct.Constant[int], eps: ct.Constant[float], T: ct.Constant[int]):
    """The RMSNorm sample's gather / scatter form: 1-D offset tiles, ``ct.gather(x, (row, offs),
    latency=1)`` (out-of-range lanes read zero), the rstd by ``ct.scatter`` of a 0-d tile."""
    row = ct.bid(0)
    acc = ct.full((T,), 0.0, dtype=ct.float32)
    offsets = ct.arange(T, dtype=ct.int32)
    for j in range(ct.cdiv(N, T)):
        xj = ct.gather(X, (row, j * T + offsets), latency=1).astype(ct.float32)
        acc += xj * xj
    rms = ct.rsqrt(ct.sum(acc, axis=0, keepdims=False) / N + eps)
    ct.scatter(Rstd, row, rms)
    for j in range(ct.cdiv(N, T)):
        offs = j * T + offsets
        y = ct.gather(X, (row, offs)).astype(ct.float32) * rms * ct.gather(W, offs).astype(ct.float32)
        ct.scatter(Out, (row, offs), y.astype(X.dtype), latency=1)


@ct.kernel
def layernorm_bwd_dx_locked_dwdb(DX, DY, DW, DB, X, W, Mean, Rstd, Locks, TN: ct.Constant[int]):
    """The layer-norm sample's backward, part 1: dX from two column passes (``c1 = mean(xhat wdy)``,
    ``c2 = mean(wdy)``), then the row's dW / dB partials added into group ``row % G`` of ``DW / DB
    [G, N]`` under a spin lock (``while ct.atomic_cas(...) == 1``, acquire; ``ct.atomic_xchg``,
    release)."""
    r = ct.bid(0)
    n = X.shape[1]
    grp = r % DW.shape[0]
    mean = ct.load(Mean, index=(r,), shape=(1,))
    rstd = ct.load(Rstd, index=(r,), shape=(1,))
    c1 = ct.full((1, TN), 0, dtype=ct.float32)
    c2 = ct.full((1, TN), 0, dtype=ct.float32)
    for j in range(ct.num_tiles(X, axis=1, shape=(1, TN))):
        keep = j * TN + ct.arange(TN, dtype=ct.int32) < n
        xhat = ct.where(keep, (ct.load(X, index=(r, j), shape=(1, TN), padding_mode=ZERO) - mean) * rstd, 0)
        wdy = ct.load(W, index=(j,), shape=(TN,), padding_mode=ZERO) * \
            ct.load(DY, index=(r, j), shape=(1, TN), padding_mode=ZERO)
        c1 += xhat * wdy
        c2 += wdy
    c1 = ct.sum(c1, axis=1) / n
    c2 = ct.sum(c2, axis=1) / n
    for j in range(ct.num_tiles(X, axis=1, shape=(1, TN))):
        keep = j * TN + ct.arange(TN, dtype=ct.int32) < n
        dy = ct.load(DY, index=(r, j), shape=(1, TN), padding_mode=ZERO)
        xhat = ct.where(keep, (ct.load(X, index=(r, j), shape=(1, TN), padding_mode=ZERO) - mean) * rstd, 0)
        wdy = ct.load(W, index=(j,), shape=(TN,), padding_mode=ZERO) * dy
        ct.store(DX, index=(r, j), tile=((wdy - (xhat * c1 + c2)) * rstd).astype(DX.dtype))
        pdw = (dy * xhat).astype(DW.dtype)
        pdb = dy.astype(DB.dtype)
        while ct.atomic_cas(Locks, grp, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
            pass
        pdw += ct.load(DW, index=(grp, j), shape=(1, TN), padding_mode=ZERO)
        pdb += ct.load(DB, index=(grp, j), shape=(1, TN), padding_mode=ZERO)
        ct.store(DW, index=(grp, j), tile=pdw)
        ct.store(DB, index=(grp, j), tile=pdb)
        ct.atomic_xchg(Locks, grp, 0, memory_order=ct.MemoryOrder.RELEASE)


@ct.kernel
def layernorm_bwd_dwdb_reduce(DW, DB, FDW, FDB, TM: ct.Constant[int], TN: ct.Constant[int]):
    """The layer-norm sample's backward, part 2: the ``[G, N]`` partials summed over ``TM``-row
    chunks into dW / dB (a ragged N)."""
    c = ct.bid(0)
    dw = ct.zeros((TM, TN), dtype=ct.float32)
    db = ct.zeros((TM, TN), dtype=ct.float32)
    for i in range(ct.num_tiles(DW, axis=0, shape=(TM, TN))):
        dw += ct.load(DW, index=(i, c), shape=(TM, TN), padding_mode=ZERO)
        db += ct.load(DB, index=(i, c), shape=(TM, TN), padding_mode=ZERO)
    ct.store(FDW, index=(c,), tile=ct.sum(dw, axis=0).astype(FDW.dtype))
    ct.store(FDB, index=(c,), tile=ct.sum(db, axis=0).astype(FDB.dtype))


@ct.kernel
def softmax_bwd_chunked(Y, dY, dX, BC: ct.Constant[int]):
    """Softmax backward over a long row in chunks: ``dot = sum(y dy)`` in a first pass, ``dx = y (dy
    - dot)`` in a second; f16 y / dy, f32 dx, a ragged width."""
    r = ct.bid(0)
    dot = ct.zeros((1, 1), dtype=ct.float32)
    n = ct.num_tiles(Y, axis=1, shape=(1, BC))
    for c in range(n):
        y = ct.load(Y, index=(r, c), shape=(1, BC), padding_mode=ZERO).astype(ct.float32)
        dot = dot + ct.sum(y * ct.load(dY, index=(r, c), shape=(1, BC), padding_mode=ZERO), axis=1, keepdims=True)
    for c in range(n):
        y = ct.load(Y, index=(r, c), shape=(1, BC), padding_mode=ZERO).astype(ct.float32)
        dy = ct.load(dY, index=(r, c), shape=(1, BC), padding_mode=ZERO).astype(ct.float32)
        ct.store(dX, index=(r, c), tile=y * (dy - dot))


@ct.kernel
def welford_tuple_reduce(X, Mean, Var, BR: ct.Constant[int], N: ct.Constant[int]):
    """Column statistics of ``[R, C]`` by a tuple ``ct.reduce`` over axis 0 whose combiner is the
    parallel Welford merge of (count, mean, M2); the rows past ``R`` enter with count 0; the
    chunks' results merged the same way in the loop; population variance."""
    c = ct.bid(0)
    cnt = ct.zeros((N,), dtype=ct.float32)
    mean = ct.zeros((N,), dtype=ct.float32)
    m2 = ct.zeros((N,), dtype=ct.float32)

    def merge(na, ma, sa, nb, mb, sb):
        n = na + nb
        d = mb - ma
        w = ct.where(n > 0, nb / ct.maximum(n, 1.0), 0.0)
        return n, ma + d * w, sa + sb + d * d * na * w

    for i in range(ct.num_tiles(X, axis=0, shape=(BR, N))):
        x = ct.load(X, index=(i, c), shape=(BR, N), padding_mode=ZERO).astype(ct.float32)
        rows_ok = (i * BR + ct.arange(BR, dtype=ct.int32))[:, None] < X.shape[0]
        k = ct.broadcast_to(ct.where(rows_ok, 1.0, 0.0), (BR, N))
        nb, mb, sb = ct.reduce((k, x, ct.zeros((BR, N), dtype=ct.float32)), axis=0, func=merge,
                               identity=(0.0, 0.0, 0.0))
        cnt, mean, m2 = merge(cnt, mean, m2, nb, mb, sb)
    ct.store(Mean, index=(c,), tile=mean)
    ct.store(Var, index=(c,), tile=m2 / cnt)


_add("residual_add_rmsnorm", residual_add_rmsnorm,
     [((6, 1000), "bfloat16"), ((6, 1000), "bfloat16"), ((1000,), "bfloat16"), ((6, 1000), "bfloat16"),
      ((6, 1000), "bfloat16"), 1e-6, 2, 256], (3,), "simt", outputs=(3, 4))
_add("rmsnorm_static_persistent", rmsnorm_static_persistent,
     [((37, 256), "float16"), ((37, 256), "float16"), ((256,), "float32"), 8, 128, 256, 1e-6], (2,), "simt",
     outputs=(1,))
_add("rmsnorm_gather_scatter", rmsnorm_gather_scatter,
     [((5, 300), "bfloat16"), ((300,), "bfloat16"), ((5, 300), "bfloat16"), ((5,), "float32"), 300, 1e-6, 128],
     (5,), "simt", outputs=(2, 3))
_add("layernorm_bwd_dx_locked_dwdb", layernorm_bwd_dx_locked_dwdb,
     [((12, 200), "float32"), ((12, 200), "float32"), ((4, 200), "float32"), ((4, 200), "float32"),
      ((12, 200), "float32"), ((200,), "float32"), ((12,), "float32"), ((12,), "float32"), ((4,), "int32"), 128],
     (12,), "simt", outputs=(0, 2, 3))
_add("layernorm_bwd_dwdb_reduce", layernorm_bwd_dwdb_reduce,
     [((4, 200), "float32"), ((4, 200), "float32"), ((200,), "float32"), ((200,), "float32"), 2, 64], (4,), "simt",
     outputs=(2, 3))
_add("softmax_bwd_chunked", softmax_bwd_chunked,
     [((3, 700), "float16"), ((3, 700), "float16"), ((3, 700), "float32"), 256], (3,), "simt", outputs=(2,))
_add("welford_tuple_reduce", welford_tuple_reduce, [((50, 40), "float32"), ((40,), "float32"), ((40,), "float32"),
                                                    16, 32], (2,), "simt", outputs=(1, 2))


# ----------------------------------------------------------------------------------------------- quantisation


@ct.kernel
def quant_int8_per_token_3d(X, Q, S, BS: ct.Constant[int], D: ct.Constant[int]):
    """Dynamic per-token int8 quantisation of a bf16 ``[B, S, D]`` activation on ``(1, BS, D)``
    tiles: the scale ``amax / 127`` over the last axis (1 for an all-zero token), values rounded half
    up (``floor(x / s + 0.5)``) and clamped to ``[-127, 127]``; scales ``[B, S]``."""
    st, b = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(b, st, 0), shape=(1, BS, D)).astype(ct.float32)
    amax = ct.max(ct.abs(x), axis=2, keepdims=True)
    s = ct.where(amax > 0, amax / 127.0, 1.0)
    q = ct.minimum(ct.maximum(ct.floor(x / s + 0.5), -127.0), 127.0)
    ct.store(Q, index=(b, st, 0), tile=q.astype(ct.int8))
    ct.store(S, index=(b, st), tile=s.reshape((1, BS)))


@ct.kernel
def dequant_int8_groupwise(Q, S, Y, BR: ct.Constant[int], N: ct.Constant[int], G: ct.Constant[int]):
    """Group-wise dequantisation (a scale per ``G`` = 32 columns, AWQ / GPTQ style): the
    ``(BR, N)`` int8 tile reshaped to ``(BR, N / G, G)`` times the ``(BR, N / G, 1)`` f16 scales,
    reshaped back; f16 out, ragged rows."""
    r = ct.bid(0)
    q = ct.load(Q, index=(r, 0), shape=(BR, N), padding_mode=ZERO).astype(ct.float32).reshape((BR, N // G, G))
    s = ct.load(S, index=(r, 0), shape=(BR, N // G), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(r, 0), tile=(q * s[:, :, None]).reshape((BR, N)).astype(Y.dtype))


@ct.kernel
def quant_fp8_e4m3_per_tensor(X, Amax, Q, ScaleInv, BR: ct.Constant[int], BC: ct.Constant[int]):
    """fp8 e4m3 quantisation with a per-tensor scale ``448 / amax`` (amax read from a one-element
    array), saturated to +-448 before the cast; program (0, 0) stores the inverse scale."""
    i, j = ct.bid(0), ct.bid(1)
    amax = ct.load(Amax, index=(0,), shape=(1,))
    scale = 448.0 / ct.maximum(amax, 1e-12)
    x = ct.load(X, index=(i, j), shape=(BR, BC), padding_mode=ZERO).astype(ct.float32)
    q = ct.minimum(ct.maximum(x * scale[None, :], -448.0), 448.0)
    ct.store(Q, index=(i, j), tile=q.astype(ct.float8_e4m3fn))
    if i == 0 and j == 0:
        ct.store(ScaleInv, index=(0,), tile=1.0 / scale)


@ct.kernel
def mm_fp8_scaled_amax(A, Bt, SA, SB, C, Amax, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """fp8 e4m3 GEMM as ``torch._scaled_mm`` takes it: B stored ``[N, K]`` (turned by
    ``ct.transpose`` of its tile), per-tensor scales from one-element arrays, bf16 out; the output's
    absolute maximum sent to ``ct.atomic_max`` (delayed scaling's amax history) as its int32 bits
    (``ct.bitcast``: cuTile's ``atomic_max`` takes integers; non-negative floats order as their bits)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(i, k), shape=(tm, tk))
        b = ct.load(Bt, index=(j, k), shape=(tn, tk))
        acc = ct.mma(a, ct.transpose(b), acc)
    c = acc * (ct.load(SA, index=(0,), shape=(1,)) * ct.load(SB, index=(0,), shape=(1,)))[None, :]
    ct.store(C, index=(i, j), tile=c.astype(C.dtype))
    ct.atomic_max(Amax, 0, ct.bitcast(ct.max(ct.max(ct.abs(c), axis=1), axis=0), ct.int32))


_add("quant_int8_per_token_3d", quant_int8_per_token_3d,
     [((2, 48, 64), "bfloat16"), ((2, 48, 64), "int8"), ((2, 48), "float32"), 16, 64], (3, 2), "simt",
     outputs=(1, 2))
_add("dequant_int8_groupwise", dequant_int8_groupwise,
     [((10, 128), "int8"), ((10, 4), "float16"), ((10, 128), "float16"), 4, 128, 32], (3,), "simt", outputs=(2,))
_add("quant_fp8_e4m3_per_tensor", quant_fp8_e4m3_per_tensor,
     [((100, 96), "bfloat16"), ((1,), "float32"), ((100, 96), "float8_e4m3fn"), ((1,), "float32"), 32, 64], (4, 2),
     "simt", outputs=(2, 3))
_add("mm_fp8_scaled_amax", mm_fp8_scaled_amax,
     [((128, 256), "float8_e4m3fn"), ((256, 256), "float8_e4m3fn"), ((1,), "float32"), ((1,), "float32"),
      ((128, 256), "bfloat16"), ((1,), "int32"), 128, 128, 64], (1, 2), "simt", outputs=(4, 5),
     error="a second output of the epilogue other than a row or column reduction",
     notes="the amax (a whole-tile reduction into an atomic) beside C is refused by the GEMM tier; cuTile's atomic_max"
           " refuses f32 itself (the program sends the bits as int32)")


# ----------------------------------------------------------------------------------------------- GEMM shapes


def _swizzle_2d(M, N, tm, tn, GROUP):
    """The samples' ``swizzle_2d``: a 1-D grid raster in groups of ``GROUP`` row tiles."""
    bid = ct.bid(0)
    nbm = ct.cdiv(M, tm)
    nbn = ct.cdiv(N, tn)
    in_group = GROUP * nbn
    first = (bid // in_group) * GROUP
    gsz = min(nbm - first, GROUP)
    return first + (bid % gsz), (bid % in_group) // gsz


@ct.kernel(num_ctas=ct.ByTarget(sm_100=2))
def mm_tf32_bias_gelu_swizzle(A, B, Bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The matmul sample's form (``swizzle_2d`` on a 1-D grid, ``num_ctas=ct.ByTarget(sm_100=2)``,
    f32 operands converted with ``.astype(ct.tfloat32 if A.dtype == ct.float32 else A.dtype)``) with
    a bias row and a tanh-GELU epilogue, ragged M / N / K (zero padding)."""
    bm, bn = _swizzle_2d(A.shape[0], B.shape[1], tm, tn, 8)
    dt = ct.tfloat32 if A.dtype == ct.float32 else A.dtype
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO).astype(dt)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO).astype(dt)
        acc = ct.mma(a, b, acc)
    h = acc + ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    y = 0.5 * h * (1.0 + ct.tanh(GELU_C * (h + 0.044715 * ct.pow(h, 3.0))))
    ct.store(C, index=(bm, bn), tile=ct.astype(y, C.dtype))


@ct.kernel
def mm_tf32_linear_wt(X, W, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``F.linear`` in tf32: ``Y = X W^T`` with f32 X ``[M, K]`` and W ``[N, K]``, each tile converted
    by ``.astype(ct.tfloat32)`` and the W tile turned by ``ct.transpose`` after its conversion."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(i, k), shape=(tm, tk)).astype(ct.tfloat32)
        w = ct.load(W, index=(j, k), shape=(tn, tk)).astype(ct.tfloat32)
        acc = ct.mma(x, ct.transpose(w), acc)
    ct.store(Y, index=(i, j), tile=acc)


@ct.kernel
def bmm_broadcast_4d(A, B, C, H: ct.Constant[int], tm: ct.Constant[int], tn: ct.Constant[int],
                     tk: ct.Constant[int]):
    """A batched GEMM broadcasting both ways: ``A [Bt, 1, M, K]`` shared by the heads, ``B [1, H, K, N]``
    shared by the batches, ``C [Bt, H, M, N]``; grid (m tile, n tile, ``b H + h``), 4-D tiles of
    extent 1 reshaped."""
    i, j, z = ct.bid(0), ct.bid(1), ct.bid(2)
    b, h = z // H, z % H
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=3, shape=(1, 1, tm, tk))):
        a = ct.load(A, index=(b, 0, i, k), shape=(1, 1, tm, tk)).reshape((tm, tk))
        w = ct.load(B, index=(0, h, k, j), shape=(1, 1, tk, tn)).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(C, index=(b, h, i, j), tile=acc.astype(C.dtype).reshape((1, 1, tm, tn)))


@ct.kernel
def mm_splitk_lock_counts(A, B, C, Locks, Counts, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int],
                          SPLIT: ct.Constant[int]):
    """The matmul sample's split-K: split ``bid(1)`` takes K tiles ``z, z + SPLIT, ...``; under a spin
    lock per output tile the first finisher stores its partial (``Counts`` 0) and the others add to
    C; the count cycles back to 0 (``% SPLIT``) for the next launch; the lock released by
    ``atomic_xchg``."""
    t, z = ct.bid(0), ct.bid(1)
    nbn = ct.cdiv(B.shape[1], tn)
    bm, bn = t // nbn, t % nbn
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(z, ct.num_tiles(A, axis=1, shape=(tm, tk)), SPLIT):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    while ct.atomic_cas(Locks, t, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    count = ct.gather(Counts, t)
    if count == 0:
        ct.store(C, index=(bm, bn), tile=acc)
    else:
        ct.store(C, index=(bm, bn), tile=ct.load(C, index=(bm, bn), shape=(tm, tn)) + acc)
    ct.scatter(Counts, t, (count + 1) % SPLIT)
    ct.atomic_xchg(Locks, t, 0, memory_order=ct.MemoryOrder.RELEASE)


@ct.kernel
def conv2d_implicit_gemm_nhwc(X, Wt, Y, H: ct.Constant[int], W: ct.Constant[int], C: ct.Constant[int],
                              tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A 3 x 3 convolution (stride 1, padding 1) on NHWC f16 as an implicit GEMM: M = output
    pixels, N = output channels, K = (tap, channel chunk); the im2col rows gathered by index math
    (pixel -> (n, h + dh, w + dw), the halo masked to zero), the weight ``[9 C, Cout]`` tiles loaded;
    f16 out ``[N H W, Cout]``."""
    bm, bn = ct.bid(0), ct.bid(1)
    p = bm * tm + ct.arange(tm, dtype=ct.int32)
    n = p // (H * W)
    y0 = (p // W) % H
    x0 = p % W
    chunks = C // tk
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for kk in range(9 * chunks):
        tap = kk // chunks
        hh = y0 + (tap // 3 - 1)
        ww = x0 + (tap % 3 - 1)
        ok = (hh >= 0) & (hh < H) & (ww >= 0) & (ww < W) & (n < X.shape[0])
        ch = (kk % chunks) * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (n[:, None], hh[:, None], ww[:, None], ch[None, :]), mask=ok[:, None])
        acc = ct.mma(a, ct.load(Wt, index=(kk, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def conv1d_causal_depthwise_silu(X, Wt, Bias, Y, KW: ct.Constant[int], BT: ct.Constant[int], D: ct.Constant[int]):
    """Mamba's short causal depthwise conv1d on ``[B, L, D]`` (channels last): ``y[t] = silu(bias +
    sum_j w[j] x[t - KW + 1 + j])`` over ``BT`` time steps, the taps gathered at shifted times (the
    steps before 0 masked), f16 in, f32 weights, f16 out."""
    tb, b = ct.bid(0), ct.bid(1)
    t = tb * BT + ct.arange(BT, dtype=ct.int32)
    d = ct.arange(D, dtype=ct.int32)
    acc = ct.zeros((BT, D), dtype=ct.float32) + ct.load(Bias, index=(0,), shape=(D,))[None, :]
    for j in range(KW):
        ts = t - (KW - 1) + j
        x = ct.gather(X, (b, ts[:, None], d[None, :]), mask=(ts >= 0)[:, None]).astype(ct.float32)
        acc = acc + x * ct.load(Wt, index=(j, 0), shape=(1, D))
    y = acc / (1.0 + ct.exp(-acc))
    ct.store(Y, index=(b, tb, 0), tile=y.astype(Y.dtype).reshape((1, BT, D)))


_add("mm_tf32_bias_gelu_swizzle", mm_tf32_bias_gelu_swizzle,
     [((200, 96), "float32"), ((96, 136), "float32"), ((136,), "float32"), ((200, 136), "float32"), 64, 64, 32],
     (12,), "gemm", outputs=(3,))
_add("mm_f16_bias_gelu_swizzle", mm_tf32_bias_gelu_swizzle,
     [((200, 96), "float16"), ((96, 136), "float16"), ((136,), "float32"), ((200, 136), "float16"), 64, 64, 32],
     (12,), "gemm", outputs=(3,), notes="the same kernel on f16 operands (its astype a no-op)")
_add("mm_tf32_linear_wt", mm_tf32_linear_wt, [((128, 128), "float32"), ((256, 128), "float32"),
                                              ((128, 256), "float32"), 128, 128, 32], (1, 2), "gemm", outputs=(2,),
     notes="found by this sweep: ct.transpose after .astype(ct.tfloat32) left the dot on tf32 tiles (no WGMMA atom: "
           "refused as 'the dot's MMA atom is #nv_tileas.fma'); tileas-fold-tf32-operands now moves the transpose "
           "before the conversion")
_add("bmm_broadcast_4d", bmm_broadcast_4d,
     [((2, 1, 128, 128), "float16"), ((1, 3, 128, 128), "float16"), ((2, 3, 128, 128), "float16"), 3, 128, 128, 64],
     (1, 1, 6), "gemm", outputs=(2,),
     notes="a 4-D batch (as sweep 5's): compiled by the GEMM tier since session 15 (flat batch indices per work "
           "tile); A's and B's batch counts (2, 3) differ from C's (6), so the launcher runs it on the SIMT path")
_add("mm_splitk_lock_counts", mm_splitk_lock_counts,
     [((128, 512), "float16"), ((512, 128), "float16"), ((128, 128), "float32"), ((4,), "int32"), ((4,), "int32"),
      64, 64, 64, 2], (4, 2), "simt", outputs=(2,),
     error="memory is written under an if whose branches differ",
     notes="found by this sweep: refused as 'a memory token is used by scf.yield, an op TileAS does not order'; now "
           "said in the program's terms at the if")
_add("conv2d_implicit_gemm_nhwc", conv2d_implicit_gemm_nhwc,
     [((2, 8, 8, 32), "float16"), ((288, 64), "float16"), ((128, 64), "float16"), 8, 8, 32, 64, 64, 32], (2, 1),
     "gemm", outputs=(2,),
     notes="found by this sweep: refused as 'expected a producer agent with 2 TMA tile loads (A and 1 B); found 1 "
           "staged loads' at the loop, then named at the gather; since session 25 the im2col rows are the GEMM "
           "tier's gathered A (the consumers load WGMMA's register A, the halo masked to zero)")
_add("conv1d_causal_depthwise_silu", conv1d_causal_depthwise_silu,
     [((2, 50, 32), "float16"), ((4, 32), "float32"), ((32,), "float32"), ((2, 50, 32), "float16"), 4, 16, 32],
     (4, 2), "simt", outputs=(3,))


# ----------------------------------------------------------------------------------------------- memory shapes


@ct.kernel
def embedding_scaled_positional(Ids, E, P, Out, BS: ct.Constant[int], D: ct.Constant[int]):
    """Token embedding as models write it: ``E[ids] * sqrt(D) + P[s]`` (bf16 table, f32 positional
    table) for ``BS`` positions of ``Ids [B, S]``, rows gathered by id, bf16 out ``[B, S, D]``."""
    st, b = ct.bid(0), ct.bid(1)
    ids = ct.load(Ids, index=(b, st), shape=(1, BS)).reshape((BS,))
    rows = ct.gather(E, (ids[:, None], ct.arange(D, dtype=ct.int32)[None, :])).astype(ct.float32)
    y = rows * (D ** 0.5) + ct.load(P, index=(st, 0), shape=(BS, D))
    ct.store(Out, index=(b, st, 0), tile=y.astype(Out.dtype).reshape((1, BS, D)))


@ct.kernel
def embedding_bwd_scatter_add(dOut, Ids, dE, BN: ct.Constant[int], D: ct.Constant[int]):
    """The embedding backward: each of ``BN`` tokens' gradient rows added into ``dE[id]`` by
    ``ct.atomic_add`` with 2-D indices (repeated ids across and within programs), ragged tokens."""
    i = ct.bid(0)
    t = i * BN + ct.arange(BN, dtype=ct.int32)
    ok = t < Ids.shape[0]
    ids = ct.gather(Ids, t, mask=ok)
    g = ct.load(dOut, index=(i, 0), shape=(BN, D), padding_mode=ZERO)
    ct.atomic_add(dE, (ids[:, None], ct.arange(D, dtype=ct.int32)[None, :]), ct.where(ok[:, None], g, 0.0))


@ct.kernel
def kv_cache_append(New, Cache, Lens, T: ct.Constant[int], D: ct.Constant[int]):
    """Appending ``T`` new tokens' K (or V) ``[B, H, T, D]`` to a cache ``[B, H, Smax, D]`` at
    positions ``Lens[b] ..`` read from a tensor, by ``ct.scatter`` at computed rows (past the
    cache's end dropped)."""
    h, b = ct.bid(0), ct.bid(1)
    pos = ct.gather(Lens, b) + ct.arange(T, dtype=ct.int32)
    x = ct.load(New, index=(b, h, 0, 0), shape=(1, 1, T, D)).reshape((T, D))
    ct.scatter(Cache, (b, h, pos[:, None], ct.arange(D, dtype=ct.int32)[None, :]), x)


@ct.kernel
def transpose_cast_1d_grid(X, Y, tm: ct.Constant[int], tn: ct.Constant[int]):
    """The transpose sample with a cast: f32 ``[M, N]`` to bf16 ``[N, M]``, one ``(tm, tn)`` tile per
    program of a 1-D grid (``divmod`` by the column tile count), ragged edges."""
    bm, bn = ct.divmod(ct.bid(0), ct.cdiv(X.shape[1], tn))
    t = ct.load(X, index=(bm, bn), shape=(tm, tn))
    ct.store(Y, index=(bn, bm), tile=ct.transpose(t).astype(ct.bfloat16))


@ct.kernel
def transpose_batched_3d_cast(X, Y, tm: ct.Constant[int], tn: ct.Constant[int]):
    """A batched transpose ``[B, M, N] -> [B, N, M]`` with an f16 -> f32 cast on ``(1, tm, tn)`` tiles
    turned by ``ct.permute(t, (0, 2, 1))``; grid (m tile, n tile, batch)."""
    i, j, b = ct.bid(0), ct.bid(1), ct.bid(2)
    t = ct.load(X, index=(b, i, j), shape=(1, tm, tn))
    ct.store(Y, index=(b, j, i), tile=ct.permute(t, (0, 2, 1)).astype(ct.float32))


@ct.kernel
def histogram_private_onehot(X, Hist, lo: float, width: float, BLK: ct.Constant[int], NB: ct.Constant[int]):
    """A histogram privatised per program: ``BLK`` values binned (``floor((x - lo) / width)``, out of
    range clamped to the end bins), the program's counts by a one-hot ``(BLK, NB)`` comparison summed
    over axis 0, then one ``ct.atomic_add`` of the ``NB`` counts; the ragged tail masked."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BLK,), padding_mode=ZERO)
    ok = i * BLK + ct.arange(BLK, dtype=ct.int32) < X.shape[0]
    b = ct.minimum(ct.maximum(ct.floor((x - lo) / width), 0.0), NB - 1.0).astype(ct.int32)
    hot = (b[:, None] == ct.arange(NB, dtype=ct.int32)[None, :]) & ok[:, None]
    ct.atomic_add(Hist, ct.arange(NB, dtype=ct.int32), ct.sum(hot.astype(ct.int32), axis=0))


@ct.kernel
def scan_block_local(X, Y, Tot, B: ct.Constant[int]):
    """Prefix sum, pass 1 of 2: each program's inclusive int32 ``ct.cumsum`` of ``B`` elements and
    its total into ``Tot``."""
    i = ct.bid(0)
    y = ct.cumsum(ct.load(X, index=(i,), shape=(B,), padding_mode=ZERO), axis=0)
    ct.store(Y, index=(i,), tile=y)
    ct.store(Tot, index=(i,), tile=ct.extract(y, index=(B - 1,), shape=(1,)))


@ct.kernel
def scan_add_block_offsets(Y, Tot, B: ct.Constant[int], NBT: ct.Constant[int]):
    """Prefix sum, pass 2 of 2: each program adds the totals of the blocks before it (all totals
    loaded as one zero-padded tile, the later ones masked by ``where``) to its block, in place."""
    i = ct.bid(0)
    tot = ct.load(Tot, index=(0,), shape=(NBT,), padding_mode=ZERO)
    off = ct.sum(ct.where(ct.arange(NBT, dtype=ct.int32) < i, tot, 0), axis=0)
    ct.store(Y, index=(i,), tile=ct.load(Y, index=(i,), shape=(B,), padding_mode=ZERO) + off)


_add("embedding_scaled_positional", embedding_scaled_positional,
     [((2, 48), "int32"), ((100, 64), "bfloat16"), ((48, 64), "float32"), ((2, 48, 64), "bfloat16"), 16, 64], (3, 2),
     "simt", outputs=(3,))
_add("embedding_bwd_scatter_add", embedding_bwd_scatter_add,
     [((50, 32), "float32"), ((50,), "int32"), ((20, 32), "float32"), 16, 32], (4,), "simt", outputs=(2,))
_add("kv_cache_append", kv_cache_append,
     [((2, 3, 4, 64), "float16"), ((2, 3, 32, 64), "float16"), ((2,), "int32"), 4, 64], (3, 2), "simt",
     outputs=(1,))
_add("transpose_cast_1d_grid", transpose_cast_1d_grid, [((200, 136), "float32"), ((136, 200), "bfloat16"), 64, 64],
     (12,), "simt", outputs=(1,))
_add("transpose_batched_3d_cast", transpose_batched_3d_cast,
     [((3, 96, 64), "float16"), ((3, 64, 96), "float32"), 32, 64], (3, 1, 3), "simt", outputs=(1,))
_add("histogram_private_onehot", histogram_private_onehot, [((1000,), "float32"), ((16,), "int32"), -2.0, 0.25,
                                                            256, 16], (4,), "simt", outputs=(1,))
_add("scan_block_local", scan_block_local, [((1000,), "int32"), ((1000,), "int32"), ((4,), "int32"), 256], (4,),
     "simt", outputs=(1, 2))
_add("scan_add_block_offsets", scan_add_block_offsets, [((1000,), "int32"), ((4,), "int32"), 256, 4], (4,),
     "simt", outputs=(0,))


# ----------------------------------------------------------------------------------------------- FFT and 3-D tiles


@ct.kernel
def fft_stockham_radix2(Xr, Xi, Yr, Yi, BB: ct.Constant[int], N: ct.Constant[int], LOGN: ct.Constant[int]):
    """A radix-2 FFT of ``BB`` rows of length ``N`` (real and imaginary parts in separate f32 arrays),
    decimation in time without a bit reversal: the state is ``(BB, P, L)`` (row ``p`` the length-``L``
    DFT of ``x[p::P]``); each of the ``LOGN`` stages (``ct.static_iter``) reshapes it to
    ``(BB, 2, P/2, L)``, takes the even / odd halves by ``extract``, multiplies the odd one by the
    twiddles ``exp(-i pi k / L)`` (``ct.cos`` / ``ct.sin``) and ``ct.cat``-s the butterflies."""
    r = ct.bid(0)
    ar = ct.load(Xr, index=(r, 0), shape=(BB, N)).reshape((BB, N, 1))
    ai = ct.load(Xi, index=(r, 0), shape=(BB, N)).reshape((BB, N, 1))
    for s in ct.static_iter(range(LOGN)):
        L = 1 << s
        P = N // L
        er = ct.extract(ar.reshape((BB, 2, P // 2, L)), index=(0, 0, 0, 0), shape=(BB, 1, P // 2, L))
        ei = ct.extract(ai.reshape((BB, 2, P // 2, L)), index=(0, 0, 0, 0), shape=(BB, 1, P // 2, L))
        orr = ct.extract(ar.reshape((BB, 2, P // 2, L)), index=(0, 1, 0, 0), shape=(BB, 1, P // 2, L))
        oi = ct.extract(ai.reshape((BB, 2, P // 2, L)), index=(0, 1, 0, 0), shape=(BB, 1, P // 2, L))
        ang = ct.arange(L, dtype=ct.int32).astype(ct.float32) * (-math.pi / L)
        c = ct.cos(ang).reshape((1, 1, 1, L))
        sn = ct.sin(ang).reshape((1, 1, 1, L))
        tr = orr * c - oi * sn
        ti = orr * sn + oi * c
        ar = ct.cat((er + tr, er - tr), axis=3).reshape((BB, P // 2, 2 * L))
        ai = ct.cat((ei + ti, ei - ti), axis=3).reshape((BB, P // 2, 2 * L))
    ct.store(Yr, index=(r, 0), tile=ar.reshape((BB, N)))
    ct.store(Yi, index=(r, 0), tile=ai.reshape((BB, N)))


def _dft(F: int, scale: int):
    """The ``(1, F, F)`` real and imaginary parts of ``exp(-2 pi i j k / scale)`` (the product taken
    modulo ``scale`` in integers first)."""
    jk = ct.arange(F, dtype=ct.int32)[:, None] * ct.arange(F, dtype=ct.int32)[None, :]
    ang = (jk % scale).astype(ct.float32) * (-2.0 * math.pi / scale)
    return ct.cos(ang).reshape((1, F, F)), ct.sin(ang).reshape((1, F, F))


@ct.kernel
def fft_factored_dft_matmul(X, Y, BB: ct.Constant[int], F0: ct.Constant[int], F1: ct.Constant[int]):
    """The FFT sample's scheme with two factors: ``N = F0 F1``, ``[B, N, 2]`` interleaved real /
    imaginary f32 (``view_as_real``) split by ``extract``; the ``F0``-point DFTs as a batched
    ``ct.matmul`` of a ``(1, F0, F0)`` matrix with the ``(BB, F0, F1)`` data, the twiddles
    ``exp(-2 pi i k0 n1 / N)``, the ``F1``-point DFTs as a matmul on the right, the result turned
    by ``ct.permute`` (k = k0 + F0 k1) and interleaved again by ``ct.cat``."""
    r = ct.bid(0)
    N = F0 * F1
    x = ct.load(X, index=(r, 0, 0), shape=(BB, N, 2))
    xr = ct.extract(x, index=(0, 0, 0), shape=(BB, N, 1)).reshape((BB, F0, F1))
    xi = ct.extract(x, index=(0, 0, 1), shape=(BB, N, 1)).reshape((BB, F0, F1))
    w0r, w0i = _dft(F0, F0)
    yr = ct.matmul(w0r, xr) - ct.matmul(w0i, xi)
    yi = ct.matmul(w0i, xr) + ct.matmul(w0r, xi)
    tw = (ct.arange(F0, dtype=ct.int32)[:, None] * ct.arange(F1, dtype=ct.int32)[None, :]).astype(ct.float32)
    tr = ct.cos(tw * (-2.0 * math.pi / N)).reshape((1, F0, F1))
    ti = ct.sin(tw * (-2.0 * math.pi / N)).reshape((1, F0, F1))
    yr, yi = yr * tr - yi * ti, yr * ti + yi * tr
    w1r, w1i = _dft(F1, F1)
    zr = ct.matmul(yr, w1r) - ct.matmul(yi, w1i)
    zi = ct.matmul(yr, w1i) + ct.matmul(yi, w1r)
    zr = ct.permute(zr, (0, 2, 1)).reshape((BB, N, 1))
    zi = ct.permute(zi, (0, 2, 1)).reshape((BB, N, 1))
    ct.store(Y, index=(r, 0, 0), tile=ct.cat((zr, zi), axis=-1))


@ct.kernel
def qk_rmsnorm_heads_3d(X, W, Y, eps: float, BT: ct.Constant[int], H: ct.Constant[int], D: ct.Constant[int]):
    """QK-norm as a separate kernel on ``[T, H, D]`` bf16 (tokens, heads, head dim): ``(BT, H, D)``
    3-D tiles, the RMS over the last axis kept as ``(BT, H, 1)``, the ``[D]`` weight broadcast as
    ``(1, 1, D)``; ragged T."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0, 0), shape=(BT, H, D), padding_mode=ZERO).astype(ct.float32)
    rs = ct.rsqrt(ct.sum(x * x, axis=2, keepdims=True) / D + eps)
    w = ct.load(W, index=(0,), shape=(D,)).reshape((1, 1, D))
    ct.store(Y, index=(i, 0, 0), tile=(x * rs * w).astype(Y.dtype))


@ct.kernel
def logit_softcap_temperature(X, Y, cap: float, temp: float, BR: ct.Constant[int], BC: ct.Constant[int]):
    """Final-logit soft-capping with a temperature in bf16 (Gemma-2): ``cap tanh(x / cap) / T`` on a
    2-D grid of ``(BR, BC)`` tiles, ragged both ways."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BR, BC)).astype(ct.float32)
    ct.store(Y, index=(i, j), tile=(cap * ct.tanh(x / cap) / temp).astype(Y.dtype))


_add("fft_stockham_radix2", fft_stockham_radix2,
     [((4, 64), "float32"), ((4, 64), "float32"), ((4, 64), "float32"), ((4, 64), "float32"), 2, 64, 6], (2,),
     "simt", outputs=(2, 3))
_add("fft_factored_dft_matmul", fft_factored_dft_matmul, [((4, 64, 2), "float32"), ((4, 64, 2), "float32"), 2, 8, 8],
     (2,), "simt", outputs=(1,),
     error="this dot multiplies f32 tiles, which cuTile computes in f32",
     notes="cuTile's f32 dots (tileiras computes them in f32): to f32 accuracy on the SIMT path (3xTF32 mma.sync); "
           "the dot is also outside a loop, which the tier's kernels do not take")
_add("qk_rmsnorm_heads_3d", qk_rmsnorm_heads_3d,
     [((20, 4, 64), "bfloat16"), ((64,), "float32"), ((20, 4, 64), "bfloat16"), 1e-6, 8, 4, 64], (3,), "simt",
     outputs=(2,))
_add("logit_softcap_temperature", logit_softcap_temperature,
     [((10, 300), "bfloat16"), ((10, 300), "bfloat16"), 30.0, 0.7, 8, 128], (2, 3), "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- attention


@ct.kernel
def attn_f32_inputs_tf32(Q, K, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                         D: ct.Constant[int]):
    """Attention on f32 Q / K / V with the samples' operand conversion (``ct.tfloat32`` when the
    array is f32) before both dots; exp2 with the scale folded in, f32 out."""
    qt, bh = ct.bid(0), ct.bid(1)
    dt = ct.tfloat32 if Q.dtype == ct.float32 else Q.dtype
    q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D)).astype(dt)
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, D), dtype=ct.float32)
    for j in range(ct.num_tiles(K, axis=1, shape=(1, BN, D))):
        k = ct.load(K, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D)).astype(dt)
        s = ct.mma(q, ct.transpose(k), ct.zeros((BM, BN), dtype=ct.float32)) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, D)).reshape((BN, D)).astype(dt)
        o = ct.mma(p.astype(dt), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).reshape((1, BM, D)))


_add("attn_f32_inputs_tf32", attn_f32_inputs_tf32,
     [((2, 128, 64), "float32"), ((2, 256, 64), "float32"), ((2, 256, 64), "float32"), ((2, 128, 64), "float32"),
      0.125 * 1.4426950408889634, 64, 64, 64], (2, 2), "simt", outputs=(3,),
     error="the first dot's A element type f32",
     notes="tf32 attention: the chained tier takes f16 / bf16 operands")


@ct.kernel
def attn_mla_split_rope(QN, QR, KN, KR, V, O, qk_scale: float, BM: ct.Constant[int], BN: ct.Constant[int],
                        DN: ct.Constant[int], DR: ct.Constant[int], DV: ct.Constant[int]):
    """DeepSeek MLA's attention shape: the scores are the sum of a no-position part (head dim
    ``DN``) and a decoupled RoPE part (head dim ``DR``) held in separate arrays, ``s = qn kn^T + qr
    kr^T`` (two first dots into one score tile), then the online softmax and ``o += p v`` (V head dim
    ``DV``); exp2 with the scale folded in, f16."""
    qt, bh = ct.bid(0), ct.bid(1)
    qn = ct.load(QN, index=(bh, qt, 0), shape=(1, BM, DN)).reshape((BM, DN))
    qr = ct.load(QR, index=(bh, qt, 0), shape=(1, BM, DR)).reshape((BM, DR))
    m = ct.full((BM, 1), -math.inf, dtype=ct.float32)
    den = ct.zeros((BM, 1), dtype=ct.float32)
    o = ct.zeros((BM, DV), dtype=ct.float32)
    for j in range(ct.num_tiles(KN, axis=1, shape=(1, BN, DN))):
        kn = ct.load(KN, index=(bh, j, 0), shape=(1, BN, DN)).reshape((BN, DN))
        kr = ct.load(KR, index=(bh, j, 0), shape=(1, BN, DR)).reshape((BN, DR))
        s = ct.mma(qn, ct.transpose(kn), ct.zeros((BM, BN), dtype=ct.float32))
        s = ct.mma(qr, ct.transpose(kr), s) * qk_scale
        m2 = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m2)
        c = ct.exp2(m - m2)
        den = den * c + ct.sum(p, axis=1, keepdims=True)
        v = ct.load(V, index=(bh, j, 0), shape=(1, BN, DV)).reshape((BN, DV))
        o = ct.mma(p.astype(V.dtype), v, o * c)
        m = m2
    ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, DV)))


_add("attn_mla_split_rope", attn_mla_split_rope,
     [((2, 128, 128), "float16"), ((2, 128, 64), "float16"), ((2, 256, 128), "float16"), ((2, 256, 64), "float16"),
      ((2, 256, 128), "float16"), ((2, 128, 128), "float16"), 1.4426950408889634 / 192 ** 0.5, 64, 64, 128, 64, 128],
     (2, 2), "simt", outputs=(5,),
     error="this dot adds its product to the result of the dot at line",
     notes="found by this sweep: refused as '3 dots in one K loop that do not read the same A tile' (dots sharing A); "
           "now names the split product at the second dot")


# ----------------------------------------------------------------------------------------------- more model blocks


@ct.kernel
def ssm_scan_sequential(X, Dt, A, Y, HLast, T: ct.Constant[int], D: ct.Constant[int]):
    """A diagonal state-space recurrence (Mamba's selective scan, one state per channel) run step by
    step: ``h_t = exp(dt_t a) h_{t-1} + dt_t x_t``, ``y_t = h_t``, over ``T`` time steps of ``[B, T, D]``
    (a loop of ``(1, D)`` row loads carrying the ``(1, D)`` state); the last state stored."""
    b = ct.bid(0)
    a = ct.load(A, index=(0, 0), shape=(1, D))
    h = ct.zeros((1, D), dtype=ct.float32)
    for t in range(T):
        dt = ct.load(Dt, index=(b, t, 0), shape=(1, 1, D)).reshape((1, D))
        x = ct.load(X, index=(b, t, 0), shape=(1, 1, D)).reshape((1, D)).astype(ct.float32)
        h = ct.exp(dt * a) * h + dt * x
        ct.store(Y, index=(b, t, 0), tile=h.reshape((1, 1, D)))
    ct.store(HLast, index=(b, 0), tile=h)


@ct.kernel
def ssm_scan_parallel_tuple(Aa, Bb, H, T: ct.Constant[int], D: ct.Constant[int]):
    """The same linear recurrence ``h_t = a_t h_{t-1} + b_t`` as a parallel scan: ``ct.scan`` over the
    time axis of ``(T, D)`` tiles of a tuple ``(a, b)`` with the associative combiner ``(a1, b1) o
    (a2, b2) = (a1 a2, a2 b1 + b2)``; ``h`` is the scanned ``b``."""
    i, b = ct.bid(0), ct.bid(1)
    a = ct.load(Aa, index=(b, 0, i), shape=(1, T, D)).reshape((T, D))
    x = ct.load(Bb, index=(b, 0, i), shape=(1, T, D)).reshape((T, D))

    def combine(a1, b1, a2, b2):
        return a1 * a2, a2 * b1 + b2

    _, h = ct.scan((a, x), axis=0, func=combine, identity=(1.0, 0.0))
    ct.store(H, index=(b, 0, i), tile=h.reshape((1, T, D)))


@ct.kernel
def paged_kv_gather(Cache, Table, Out, PAGE: ct.Constant[int], D: ct.Constant[int]):
    """vLLM's paged KV cache gathered into a contiguous ``[B, S, D]``: logical page ``p`` of sequence
    ``b`` lives in physical page ``Table[b, p]`` of ``Cache [P, PAGE, D]``; one page per program
    (the page number read from the block table, then a tile load at that page)."""
    p, b = ct.bid(0), ct.bid(1)
    phys = ct.gather(Table, (b, p))
    page = ct.load(Cache, index=(phys, 0, 0), shape=(1, PAGE, D)).reshape((1, PAGE, D))
    ct.store(Out, index=(b, p, 0), tile=page)


@ct.kernel
def mm_w4a16_groupwise(X, Wq, Sc, Y, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int],
                       G: ct.Constant[int]):
    """A W4A16 GEMM (AWQ / GPTQ style): B packed 8 int4 values per int32 along K (``Wq [K/8, N]``,
    nibble ``i`` of row ``r`` is ``k = 8 r + i``), unpacked in the K loop by a ``(tk/8, 8, tn)``
    broadcast shift and mask, zero point 8, f16 scales per ``G`` rows of K (``Sc [K/G, N]``); f16 X,
    f32 accumulation, f16 out."""
    i, j = ct.bid(0), ct.bid(1)
    shifts = (ct.arange(8, dtype=ct.int32) * 4).reshape((1, 8, 1))
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        packed = ct.load(Wq, index=(k, j), shape=(tk // 8, tn)).reshape((tk // 8, 1, tn))
        q = ct.bitwise_and(ct.bitwise_rshift(packed, shifts), 15).reshape((tk, tn))
        s = ct.load(Sc, index=((k * tk) // G, j), shape=(1, tn)).astype(ct.float32)
        w = ((q.astype(ct.float32) - 8.0) * s).astype(ct.float16)
        acc = ct.mma(ct.load(X, index=(i, k), shape=(tm, tk)), w, acc)
    ct.store(Y, index=(i, j), tile=acc.astype(Y.dtype))


@ct.kernel
def mm_lm_head_partial_lse(H, W, Logits, PMax, PSum, tm: ct.Constant[int], tn: ct.Constant[int],
                           tk: ct.Constant[int]):
    """An LM head tile with the pieces of a fused cross entropy: ``logits = h W`` stored, and per
    (row, vocab tile) the row max and the sum of ``exp(logit - max)`` stored beside it as
    ``[tm, 1]`` tiles of ``[M, vocab tiles]`` partials (merged by a later pass)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(H, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(H, index=(i, k), shape=(tm, tk)), ct.load(W, index=(k, j), shape=(tk, tn)), acc)
    mx = ct.max(acc, axis=1, keepdims=True)
    ct.store(Logits, index=(i, j), tile=acc.astype(Logits.dtype))
    ct.store(PMax, index=(i, j), tile=mx)
    ct.store(PSum, index=(i, j), tile=ct.sum(ct.exp(acc - mx), axis=1, keepdims=True))


@ct.kernel
def moe_router_top2(X, Wr, Ids, Wts, tm: ct.Constant[int], E: ct.Constant[int], tk: ct.Constant[int]):
    """An MoE router: ``logits = x Wr`` over ``E`` experts (one ``(tm, E)`` tile), softmax over the
    experts, the top two by two arg-maxes (the first masked before the second), their weights
    renormalised to sum to one; int32 ids and f32 weights ``[T, 2]``."""
    i = ct.bid(0)
    acc = ct.zeros((tm, E), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(X, index=(i, k), shape=(tm, tk)), ct.load(Wr, index=(k, 0), shape=(tk, E)), acc)
    e = ct.exp(acc - ct.max(acc, axis=1, keepdims=True))
    p = e / ct.sum(e, axis=1, keepdims=True)
    lanes = ct.arange(E, dtype=ct.int32)[None, :]
    i1 = ct.argmax(p, axis=1, keepdims=True).astype(ct.int32)
    w1 = ct.max(p, axis=1, keepdims=True)
    p2 = ct.where(lanes == i1, -1.0, p)
    i2 = ct.argmax(p2, axis=1, keepdims=True).astype(ct.int32)
    w2 = ct.max(p2, axis=1, keepdims=True)
    ct.store(Ids, index=(i, 0), tile=ct.cat((i1, i2), axis=1))
    ct.store(Wts, index=(i, 0), tile=ct.cat((w1, w2), axis=1) / (w1 + w2))


@ct.kernel
def rmsnorm_fp8_dynamic_quant(X, W, Q, S, eps: float, BR: ct.Constant[int], N: ct.Constant[int]):
    """RMSNorm fused with dynamic per-token fp8 quantisation (the input of an fp8 GEMM): ``y =
    rmsnorm(x) w``, the token's scale ``amax(|y|) / 448``, ``q = e4m3(y / s)``; bf16 in, ``BR`` rows."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(BR, N), padding_mode=ZERO).astype(ct.float32)
    y = x * ct.rsqrt(ct.sum(x * x, axis=1, keepdims=True) / N + eps) * ct.load(W, index=(0,), shape=(N,))[None, :]
    s = ct.maximum(ct.max(ct.abs(y), axis=1, keepdims=True), 1e-12) / 448.0
    ct.store(Q, index=(r, 0), tile=(y / s).astype(ct.float8_e4m3fn))
    ct.store(S, index=(r,), tile=s.reshape((BR,)))


_add("ssm_scan_sequential", ssm_scan_sequential,
     [((2, 20, 32), "float16"), ((2, 20, 32), "float32"), ((1, 32), "float32"), ((2, 20, 32), "float32"),
      ((2, 32), "float32"), 20, 32], (2,), "simt", outputs=(3, 4))
_add("ssm_scan_parallel_tuple", ssm_scan_parallel_tuple,
     [((2, 64, 64), "float32"), ((2, 64, 64), "float32"), ((2, 64, 64), "float32"), 64, 32], (2, 2), "simt",
     outputs=(2,))
_add("paged_kv_gather", paged_kv_gather,
     [((10, 16, 64), "bfloat16"), ((2, 4), "int32"), ((2, 64, 64), "bfloat16"), 16, 64], (4, 2), "simt",
     outputs=(2,))
_add("mm_w4a16_groupwise", mm_w4a16_groupwise,
     [((128, 256), "float16"), ((32, 128), "int32"), ((2, 128), "float16"), ((128, 128), "float16"), 64, 64, 64,
      128], (2, 2), "simt", outputs=(3,), error="this dot operand is computed in the kernel",
     notes="found by this sweep: refused as 'expected a producer agent with 2 TMA tile loads (A and 1 B); found 3 "
           "staged loads' at the loop; now named at the op computing B")
_add("mm_lm_head_partial_lse", mm_lm_head_partial_lse,
     [((128, 128), "float16"), ((128, 512), "float16"), ((128, 512), "float16"), ((128, 4), "float32"),
      ((128, 4), "float32"), 128, 128, 64], (1, 4), "gemm", outputs=(2, 3, 4))
_add("moe_router_top2", moe_router_top2,
     [((100, 128), "float16"), ((128, 16), "float16"), ((100, 2), "int32"), ((100, 2), "float32"), 64, 16, 64], (2,),
     "simt", outputs=(2, 3), error="a second output tile [64, 2] at other indices than C's",
     notes="the (tm, 2) top-2 outputs are not of the accumulator's shape: the GEMM tier refuses, the SIMT path runs it")
_add("rmsnorm_fp8_dynamic_quant", rmsnorm_fp8_dynamic_quant,
     [((10, 128), "bfloat16"), ((128,), "float32"), ((10, 128), "float8_e4m3fn"), ((10,), "float32"), 1e-6, 4, 128],
     (3,), "simt", outputs=(2, 3))


@ct.kernel
def mm_block_scaled_mxfp8(A, AS, B, BS, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The BlockScaledMatMul sample's 2-D-scale path: e4m3 A and B with e8m0 scales per 32 elements of
    K (``AS [M, K/32]``, ``BS [K/32, N]``) through ``ct.mma_scaled`` (a Blackwell instruction)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(i, k), shape=(tm, tk), padding_mode=ZERO)
        sa = ct.load(AS, index=(i, k), shape=(tm, tk // 32), padding_mode=ZERO)
        b = ct.load(B, index=(k, j), shape=(tk, tn), padding_mode=ZERO)
        sb = ct.load(BS, index=(k, j), shape=(tk // 32, tn), padding_mode=ZERO)
        acc = ct.mma_scaled(a, sa, b, sb, acc)
    ct.store(C, index=(i, j), tile=acc)


_add("mm_block_scaled_mxfp8", mm_block_scaled_mxfp8,
     [((128, 256), "float8_e4m3fn"), ((128, 8), "float8_e8m0fnu"), ((256, 128), "float8_e4m3fn"),
      ((8, 128), "float8_e8m0fnu"), ((128, 128), "float32"), 128, 128, 128], (1, 1), "error",
     error="'cuda_tile.mmaf_scaled' is not supported yet", outputs=(4,),
     notes="ct.mma_scaled (block-scaled MMA) is a Blackwell instruction: a located error on sm_90a (docs/cuda-tile.md)")


@ct.kernel
def mx_scales_to_f32(S, Y, N: ct.Constant[int]):
    """Reading MX block scales (e8m0: a power of two per byte, as the BlockScaledMatMul sample's
    scales are) into f32 to inspect or apply them."""
    r = ct.bid(0)
    ct.store(Y, index=(r, 0), tile=ct.load(S, index=(r, 0), shape=(1, N)).astype(ct.float32))


_add("mx_scales_to_f32", mx_scales_to_f32, [((4, 32), "float8_e8m0fnu"), ((4, 32), "float32"), 32], (4,), "error",
     error="element type f8E8M0FNU is not supported yet", outputs=(1,),
     notes="found by this sweep: the SIMT lowering raised NotImplementedError('element type f8E8M0FNU') while "
           "sizing the program's loads (unlocated, a traceback); now the located 'not supported yet' of "
           "docs/cuda-tile.md at the load; the launcher now takes torch.float8_e8m0fnu arrays")


# ----------------------------------------------------------------------------------------------- API corners


@ct.kernel
def embedding_int64_ids(Ids, E: ct.IndexedWithInt64, Out, BS: ct.Constant[int], D: ct.Constant[int]):
    """An embedding lookup with torch's default int64 token ids (``ct.gather`` indices of int64) and
    the table annotated ``ct.IndexedWithInt64`` (i64 shapes and strides, as a vocabulary x hidden
    table past 2^31 elements needs)."""
    i = ct.bid(0)
    ids = ct.load(Ids, index=(i,), shape=(BS,), padding_mode=ZERO)
    rows = ct.gather(E, (ids[:, None], ct.arange(D, dtype=ct.int64)[None, :]))
    ct.store(Out, index=(i, 0), tile=rows)


@ct.kernel
def decay_cumprod_both_ways(G, Fwd, Bwd, T: ct.Constant[int], D: ct.Constant[int]):
    """RetNet / GLA-style decays: the running product of per-step gates along time, forward and
    ``reverse=True`` (``ct.cumprod`` on axis 0 of a ``(T, D)`` tile of ``[B, T, D]``)."""
    b = ct.bid(0)
    g = ct.load(G, index=(b, 0, 0), shape=(1, T, D)).reshape((T, D))
    ct.store(Fwd, index=(b, 0, 0), tile=ct.cumprod(g, axis=0).reshape((1, T, D)))
    ct.store(Bwd, index=(b, 0, 0), tile=ct.cumprod(g, axis=0, reverse=True).reshape((1, T, D)))


@ct.kernel
def spectrum_magnitude_phase(X, Mag, Phase, BB: ct.Constant[int], N: ct.Constant[int]):
    """Magnitude and phase of an interleaved complex ``[B, N, 2]`` spectrum: ``sqrt(re^2 + im^2)``
    and ``ct.atan2(im, re)`` (the quadrant from both signs)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0, 0), shape=(BB, N, 2))
    re = ct.extract(x, index=(0, 0, 0), shape=(BB, N, 1)).reshape((BB, N))
    im = ct.extract(x, index=(0, 0, 1), shape=(BB, N, 1)).reshape((BB, N))
    ct.store(Mag, index=(r, 0), tile=ct.sqrt(re * re + im * im))
    ct.store(Phase, index=(r, 0), tile=ct.atan2(im, re))


@ct.kernel
def nan_safe_row_mean(X, Y, Cnt, N: ct.Constant[int]):
    """``torch.nanmean`` of each row: NaNs (``ct.isnan``) and the padding left out of the sum and
    the count, a row of only NaNs gives 0; the count stored as int32."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N), padding_mode=ct.PaddingMode.NAN)
    ok = ~ct.isnan(x)
    n = ct.sum(ok.astype(ct.int32), axis=1)
    s = ct.sum(ct.where(ok, x, 0.0), axis=1)
    ct.store(Y, index=(r,), tile=ct.where(n > 0, s / ct.maximum(n, 1).astype(ct.float32), 0.0))
    ct.store(Cnt, index=(r,), tile=n)


@ct.kernel
def pack_halves_by_insert(A, B, Y, BR: ct.Constant[int], N: ct.Constant[int]):
    """Two ``(BR, N)`` tiles written into the halves of a ``(BR, 2N)`` tile by ``ct.insert`` (grid
    indices (0, 0) and (0, 1)), then a third insert overwriting rows ``[0, BR/2)`` of the left half
    with zeros (inserts compose); f16."""
    r = ct.bid(0)
    a = ct.load(A, index=(r, 0), shape=(BR, N))
    b = ct.load(B, index=(r, 0), shape=(BR, N))
    y = ct.zeros((BR, 2 * N), dtype=A.dtype)
    y = ct.insert(y, (0, 0), a)
    y = ct.insert(y, (0, 1), b)
    y = ct.insert(y, (0, 0), ct.zeros((BR // 2, N), dtype=A.dtype))
    ct.store(Y, index=(r, 0), tile=y)


def _next_pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


@ct.kernel
def softmax_static_eval_block(X, Y, N: ct.Constant[int]):
    """A row softmax whose tile width is computed at compile time from the true width
    (``ct.static_eval(_next_pow2(N))``: a plain Python helper), guarded by ``ct.static_assert``;
    the row start from ``ct.assume_divisible_by``."""
    BLOCK = ct.static_eval(_next_pow2(N))
    ct.static_assert(BLOCK <= 4096, "rows wider than 4096 need a chunked softmax")
    r = ct.assume_divisible_by(ct.bid(0) * 1, 1)
    x = ct.load(X, index=(r, 0), shape=(1, BLOCK), padding_mode=NEG_INF).astype(ct.float32)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(r, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(Y.dtype))


@ct.kernel
def gather_int64_scalar_offset(Flat, Y, base: ct.ScalarInt64, B: ct.Constant[int]):
    """A gather from a flat buffer at ``base + i`` with ``base`` an int64 kernel scalar
    (``ct.ScalarInt64``: an offset past 2^31 in a large buffer; small here)."""
    i = ct.bid(0)
    idx = base + i * B + ct.arange(B, dtype=ct.int64)
    ct.store(Y, index=(i,), tile=ct.gather(Flat, idx))


_add("embedding_int64_ids", embedding_int64_ids,
     [((50,), "int64"), ((1000, 64), "float16"), ((50, 64), "float16"), 16, 64], (4,), "simt", outputs=(2,))
_add("decay_cumprod_both_ways", decay_cumprod_both_ways,
     [((2, 32, 16), "float32"), ((2, 32, 16), "float32"), ((2, 32, 16), "float32"), 32, 16], (2,), "simt",
     outputs=(1, 2))
_add("spectrum_magnitude_phase", spectrum_magnitude_phase,
     [((4, 64, 2), "float32"), ((4, 64), "float32"), ((4, 64), "float32"), 2, 64], (2,), "simt", outputs=(1, 2))
_add("nan_safe_row_mean", nan_safe_row_mean, [((4, 100), "float32"), ((4,), "float32"), ((4,), "int32"), 128],
     (4,), "simt", outputs=(1, 2))
_add("pack_halves_by_insert", pack_halves_by_insert,
     [((8, 32), "float16"), ((8, 32), "float16"), ((8, 64), "float16"), 4, 32], (2,), "simt", outputs=(2,))
_add("softmax_static_eval_block", softmax_static_eval_block, [((3, 300), "float16"), ((3, 300), "float16"), 300],
     (3,), "simt", outputs=(1,))
_add("gather_int64_scalar_offset", gather_int64_scalar_offset, [((300,), "float32"), ((128,), "float32"), 100, 64],
     (2,), "simt", outputs=(1,))
