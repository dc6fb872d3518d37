"""The twenty-first user sweep (session 25, issue 21 item 1: every ``cuda_tile`` op cuTile 1.7 emits,
on programs without a dot, and the user's mistakes), written as a user writes them, in the variants
the earlier sweeps (:mod:`tileorch.testing.user_programs` .. ``user_programs19``) do not hold: whole
fused kernels of real models and their edges.  Normalization and activations: RMSNorm fused with the
residual add and an fp8 e4m3 quantization whose per-tensor amax is an ``atomic_max`` on the f32 bits
(positive floats order as int32), a Mamba-2 gated RMSNorm per group of channels, QK L2-normalization
per head of a ``(tokens, heads, dim)`` tile, GeGLU with erf written as the Abramowitz-Stegun
polynomial, SwiGLU on ``[tokens, 2 * hidden]`` with the up half found by a column block offset, a
Welford mean / variance merged over chunks of a long row, rows L2-normalized by ``rsqrt`` / ``sqrt``
with ``flush_to_zero=True``, a norm's enclosure by ``sqrt`` rounded down and up.  Softmax: rows divided by a runtime
temperature with top-k masking (the k-th largest by repeated ``max``), along the middle axis of a 3-D
tensor, an MoE router (softmax over experts, top-2 by ``argmax`` twice, renormalized weights) and the
per-expert token count / slot by ``atomic_add``'s returned old value.  Backward and optimizers:
LayerNorm backward over blocks of rows with dgamma / dbeta partial sums by ``atomic_add``; Lion
(``sign`` by ``where``) and Adam with AMSGrad after a loss-scale unscale and a found-inf flag by
``atomic_max``.  Caches and sequences: KV-cache append to a paged ``[blocks, block_size, width]``
cache through a slot mapping (block ``//``, offset ``%``, -1 skipped), a paged gather of KV blocks
through a block table for per-sequence lengths, Mamba's causal depthwise conv1d of width 4 with SiLU,
a selective-scan recurrence over a runtime sequence loop with a ``(channels, state)`` carry, an
exclusive cumsum along the sequence axis of ``[batch, seq, hidden]``, an embedding bag (mean over
CSR offsets, empty bags 0), a masked mean over per-row lengths.  Quantization: per-token int8 with
each of cuTile's float -> int rounding modes (nearest even, toward zero, down, up, nearest away),
per-block e5m2 round trip with a stored reciprocal scale, AWQ-style int4 dequantization from packed
bytes with zero points per group, signed int4 packing / unpacking by shifts, TFLite-style int32
requantization by an int64 multiplier and a rounding right shift, stochastic rounding of f32 to bf16
by adding random bits, truncating casts that pass ``rounding_mode=RZ`` to widenings too.  Bits and
counting: byte popcount / bit reversal / parity by shifts and masks,
a bincount that drops negative and too-large ids, a per-channel histogram of uint8 pixels by an index
pair.  Shapes: transposes of non-square tiles on a 2-D grid with padding on both edges, every second
column by ``reshape`` + ``extract``, GQA's KV heads repeated by a rank-4 ``broadcast_to``, Swin's window
partition through a rank-5 ``permute``, an ALiBi
bias ``[heads, q, k]`` built from ``arange`` with a causal -inf, a box IoU matrix from ``extract``
of the coordinate columns, the rank of each element in its row by an ``(n, n)`` compare.

The invalid half (:data:`INVALID`): programs cuTile's front end accepts that no compiler can run as
written; each must stop with ``file:line:col: error:`` at the user's line.  (Mistakes cuTile's own
front end rejects never reach tileorch: :data:`REJECTED_BY_CUTILE` lists them with the error cuTile
raises, so that a change of cuTile shows.)

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep21_compile.py (CPU compile to PTX, ptxas without spills),
tests/unit/test_user_sweep21_interp.py (the SIMT interpreter against numpy),
tests/unit/test_user_sweep21_emulated.py (the PTX emulator), tests/unit/test_user_sweep21_invalid.py
and tests/gpu/test_user_sweep21_gpu.py (the GPU, the same references).  Importing it needs
``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
F32, F16, BF16, I8, I16, I32, U32, I64, U8, B = ("float32", "float16", "bfloat16", "int8", "int16", "int32",
                                                 "uint32", "int64", "uint8", "bool_")
E4M3, E5M2 = "float8_e4m3fn", "float8_e5m2"
C = ct.Constant
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF


# ----------------------------------------------------------------------------------------------- normalization


@ct.kernel
def rmsnorm_residual_fp8_quant_amax(X, R, W, H, Q, Amax, inv_scale: float, eps: float, BN: C[int]):
    """One bf16 row of ``[tokens, hidden]`` (hidden 300 in a 512 tile): ``h = x + residual`` stored
    (bf16) as the next residual, ``y = h * rsqrt(mean(h^2) + eps) * w``, quantized to e4m3 as
    ``y * inv_scale`` (saturating), and ``max |y|`` of the row folded into a per-tensor amax by
    ``atomic_max`` on its f32 bits read as int32 (non-negative floats order as their bits)."""
    t = ct.bid(0)
    h = ct.load(X, index=(t, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32) + \
        ct.load(R, index=(t, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    h = h.astype(ct.bfloat16).astype(ct.float32)
    ct.store(H, index=(t, 0), tile=h.astype(ct.bfloat16))
    ms = ct.sum(h * h, axis=1, keepdims=True) / X.shape[1]
    y = h * ct.rsqrt(ms + eps) * ct.reshape(ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO), (1, BN))
    ct.store(Q, index=(t, 0), tile=(y * inv_scale).astype(ct.float8_e4m3fn))
    amax = ct.max(ct.abs(y))
    ct.atomic_max(Amax, ct.zeros((1,), dtype=ct.int32), ct.reshape(ct.bitcast(amax, ct.int32), (1,)))


@ct.kernel
def gated_rmsnorm_groups_mamba2(X, Z, W, Y, eps: float, HD: C[int], G: C[int]):
    """Mamba-2's gated RMSNorm: ``x * silu(z)`` normalized per group of ``G`` channels (the
    ``(1, hidden)`` row reshaped to ``(groups, G)``), times ``w``; f16 in, f16 out, ragged tokens."""
    t = ct.bid(0)
    x = ct.load(X, index=(t, 0), shape=(1, HD)).astype(ct.float32)
    z = ct.load(Z, index=(t, 0), shape=(1, HD)).astype(ct.float32)
    g = x * (z / (1.0 + ct.exp(-z)))
    gg = ct.reshape(g, (HD // G, G))
    r = ct.rsqrt(ct.sum(gg * gg, axis=1, keepdims=True) / G + eps)
    y = ct.reshape(gg * r, (1, HD)) * ct.reshape(ct.load(W, index=(0,), shape=(HD,)), (1, HD))
    ct.store(Y, index=(t, 0), tile=y.astype(ct.float16))


@ct.kernel
def qk_l2norm_per_head_3d(Q, S, Y, BT: C[int], NH: C[int], D: C[int]):
    """QK-norm of a ``(tokens, heads, dim)`` bf16 tensor: each head's vector divided by its L2 norm
    (``max(norm, 1e-6)``) times a per-dim scale; ``(BT, NH, D)`` tiles, ragged tokens and heads."""
    i = ct.bid(0)
    q = ct.load(Q, index=(i, 0, 0), shape=(BT, NH, D), padding_mode=ZERO).astype(ct.float32)
    nrm = ct.sqrt(ct.sum(q * q, axis=2, keepdims=True))
    s = ct.reshape(ct.load(S, index=(0,), shape=(D,)), (1, 1, D))
    ct.store(Y, index=(i, 0, 0), tile=(q / ct.maximum(nrm, 1e-6) * s).astype(ct.bfloat16))


@ct.kernel
def welford_var_mean_long_rows(X, Mean, Var, CH: C[int]):
    """``torch.var_mean(x, dim=1, unbiased=False)`` of rows longer than a tile: per chunk its own
    mean and M2, merged into the running ones by Chan's formula (the last chunk ragged)."""
    r = ct.bid(0)
    n = X.shape[1]
    mean = ct.zeros((1,), dtype=ct.float32)
    m2 = ct.zeros((1,), dtype=ct.float32)
    count = ct.zeros((1,), dtype=ct.float32)
    for k in range(ct.cdiv(n, CH)):
        x = ct.load(X, index=(r, k), shape=(1, CH), padding_mode=ZERO)
        valid = (k * CH + ct.arange(CH, dtype=ct.int32)) < n
        nb = ct.sum(ct.where(valid, 1.0, 0.0), axis=0, keepdims=True)
        xb = ct.reshape(x, (CH,))
        mb = ct.sum(xb, axis=0, keepdims=True) / nb
        d = ct.where(valid, xb - mb, 0.0)
        m2b = ct.sum(d * d, axis=0, keepdims=True)
        tot = count + nb
        delta = mb - mean
        mean = mean + delta * nb / tot
        m2 = m2 + m2b + delta * delta * count * nb / tot
        count = tot
    ct.store(Mean, index=(r,), tile=mean)
    ct.store(Var, index=(r,), tile=m2 / count)


@ct.kernel
def l2_normalize_rows_flush_to_zero(X, Y, N, BN: C[int]):
    """Rows L2-normalized the way a user chasing speed writes it: ``rsqrt`` and ``sqrt`` with
    ``flush_to_zero=True`` (the lowering keeps subnormals: a located warning at each line says so;
    on these normal values the results are the same)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ss = ct.sum(x * x, axis=1, keepdims=True)
    ct.store(Y, index=(r, 0), tile=x * ct.rsqrt(ss + 1e-12, flush_to_zero=True))
    ct.store(N, index=(r,), tile=ct.reshape(ct.sqrt(ss, flush_to_zero=True), (1,)))


@ct.kernel
def norm_interval_bounds_directed_sqrt(X, D, S, Lo, Hi, Dz, BN: C[int]):
    """Verified numerics: an enclosure of each f32 row's L2 norm from its sum of squares (stored) by
    ``ct.sqrt(ss, rounding_mode=RM)`` and ``RP`` (the largest f32 whose square is at most ``ss``, the
    smallest whose square is at least it), and an f64 array's roots rounded toward zero."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ss = ct.sum(x * x, axis=1)
    ct.store(S, index=(r,), tile=ss)
    ct.store(Lo, index=(r,), tile=ct.sqrt(ss, rounding_mode=ct.RoundingMode.RM))
    ct.store(Hi, index=(r,), tile=ct.sqrt(ss, rounding_mode=ct.RoundingMode.RP))
    d = ct.load(D, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    ct.store(Dz, index=(r, 0), tile=ct.sqrt(d, rounding_mode=ct.RoundingMode.RZ))


# ----------------------------------------------------------------------------------------------- activations


@ct.kernel
def geglu_erf_polynomial_tokens(X, Y, BT: C[int], BH: C[int]):
    """GeGLU on ``[tokens, 2 * hidden]`` f16: ``gelu(a) * b`` with the exact GELU's erf written as
    Abramowitz-Stegun 7.1.26 (``1 - poly(t) * exp(-x^2)``, ``t = 1 / (1 + p|x|)``, the sign put back
    by ``where``); ``a`` the column block ``j``, ``b`` the block ``j + hidden / BH``."""
    i, j = ct.bid(0), ct.bid(1)
    nb = Y.shape[1] // BH
    a = ct.load(X, index=(i, j), shape=(BT, BH), padding_mode=ZERO).astype(ct.float32)
    b = ct.load(X, index=(i, j + nb), shape=(BT, BH), padding_mode=ZERO).astype(ct.float32)
    z = a * 0.7071067811865476
    az = ct.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * az)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    e = 1.0 - poly * ct.exp(-az * az)
    erf = ct.where(z < 0.0, -e, e)
    ct.store(Y, index=(i, j), tile=(0.5 * a * (1.0 + erf) * b).astype(ct.float16))


@ct.kernel
def swiglu_tokens_2h_bf16_with_limit(X, Y, limit: float, BT: C[int], BH: C[int]):
    """SwiGLU on ``[tokens, 2 * hidden]`` bf16 with gpt-oss's clamp: the gate clamped above at
    ``limit``, the up half to ``[-limit, limit]``, ``silu(gate) * (up + 1)``; the up half is the
    column block ``j + hidden / BH`` (hidden a multiple of BH, tokens ragged)."""
    i, j = ct.bid(0), ct.bid(1)
    nb = Y.shape[1] // BH
    g = ct.load(X, index=(i, j), shape=(BT, BH), padding_mode=ZERO).astype(ct.float32)
    u = ct.load(X, index=(i, j + nb), shape=(BT, BH), padding_mode=ZERO).astype(ct.float32)
    g = ct.minimum(g, limit)
    u = ct.maximum(ct.minimum(u, limit), -limit)
    ct.store(Y, index=(i, j), tile=(g / (1.0 + ct.exp(-g)) * (u + 1.0)).astype(ct.bfloat16))


# ----------------------------------------------------------------------------------------------- softmax and routing


@ct.kernel
def softmax_temperature_topk_mask(X, Y, temperature: float, K: C[int], BN: C[int]):
    """Sampling's logits processing: ``x / temperature``, every logit below the row's k-th largest
    (found by ``K`` rounds of ``max`` that mask the maximum out) set to -inf, then a softmax (a row
    of 300 logits in a 512 tile, padding -inf; ties at the threshold kept)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF) / temperature
    rest = x
    kth = ct.max(x, axis=1, keepdims=True)
    for _ in ct.static_iter(range(K)):
        kth = ct.max(rest, axis=1, keepdims=True)
        rest = ct.where(rest >= kth, float("-inf"), rest)
    x = ct.where(x >= kth, x, float("-inf"))
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(r, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def softmax_3d_middle_axis_f16(X, Y, BS: C[int], BD: C[int]):
    """Softmax along the middle axis of an f16 ``[batch, seq, dim]`` tensor: one ``(1, BS, BD)`` tile
    per (batch, dim block), seq 37 and dim 50 ragged (padding -inf, stores clipped)."""
    b, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(b, 0, j), shape=(1, BS, BD), padding_mode=NEG_INF).astype(ct.float32)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(b, 0, j), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(ct.float16))


@ct.kernel
def moe_router_top2_renormalized(L, W, Idx, BT: C[int], E: C[int]):
    """An MoE router over ``E`` = 8 experts (of 6 real ones: padding -inf): softmax over the
    experts, the top-2 by ``argmax`` twice (the first masked out), their weights renormalized to sum
    to 1; weights f32 ``[tokens, 2]`` and expert ids int32 ``[tokens, 2]`` built by ``cat``."""
    i = ct.bid(0)
    x = ct.load(L, index=(i, 0), shape=(BT, E), padding_mode=NEG_INF)
    p = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    p = p / ct.sum(p, axis=1, keepdims=True)
    e1 = ct.argmax(p, axis=1, keepdims=True)
    cols = ct.arange(E, dtype=ct.int32)[None, :]
    w1 = ct.max(p, axis=1, keepdims=True)
    p2 = ct.where(cols == e1, -1.0, p)
    e2 = ct.argmax(p2, axis=1, keepdims=True)
    w2 = ct.max(p2, axis=1, keepdims=True)
    s = w1 + w2
    ct.store(W, index=(i, 0), tile=ct.cat((w1 / s, w2 / s), 1))
    ct.store(Idx, index=(i, 0), tile=ct.cat((e1, e2), 1).astype(ct.int32))


@ct.kernel
def moe_expert_counts_and_slots(Ids, Count, Slot, BN: C[int]):
    """``moe_align``'s first pass: each (token, k) pair's expert id adds 1 to its expert's count by
    ``atomic_add``, the old count returned being the pair's slot within its expert (ids of -1 are
    dropped tokens: masked out of the atomic by a past-the-end index; their slot is -1)."""
    i = ct.bid(0)
    e = ct.load(Ids, index=(i,), shape=(BN,), padding_mode=ct.PaddingMode.ZERO)
    lane = i * BN + ct.arange(BN, dtype=ct.int32)
    ok = (e >= 0) & (lane < Ids.shape[0])
    old = ct.atomic_add(Count, ct.where(ok, e, Count.shape[0]), ct.ones((BN,), dtype=ct.int32))
    ct.store(Slot, index=(i,), tile=ct.where(ok, old, -1))


# ---------------------------------------------------------------------------------------------- backward and optimizers


@ct.kernel
def layernorm_bwd_rows_block_atomic_dgamma(X, DY, W, Mean, Rstd, DX, DW, DB, BM: C[int], BN: C[int]):
    """LayerNorm backward over a block of ``BM`` f16 rows (hidden 200 in a 256 tile, rows ragged) with
    the saved mean / rstd: ``dx = rstd * (wdy - mean(wdy) - xhat * mean(xhat * wdy))``, and the
    block's column sums of ``dy * xhat`` / ``dy`` added to f32 dgamma / dbeta by ``atomic_add``."""
    i = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(i, 0), shape=(BM, BN), padding_mode=ZERO).astype(ct.float32)
    dy = ct.load(DY, index=(i, 0), shape=(BM, BN), padding_mode=ZERO).astype(ct.float32)
    w = ct.reshape(ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO), (1, BN))
    mean = ct.reshape(ct.load(Mean, index=(i,), shape=(BM,), padding_mode=ZERO), (BM, 1))
    rstd = ct.reshape(ct.load(Rstd, index=(i,), shape=(BM,), padding_mode=ZERO), (BM, 1))
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    xhat = ct.where(cols < n, (x - mean) * rstd, 0.0)
    wdy = w * dy
    c1 = ct.sum(xhat * wdy, axis=1, keepdims=True) / n
    c2 = ct.sum(wdy, axis=1, keepdims=True) / n
    ct.store(DX, index=(i, 0), tile=((wdy - c2 - xhat * c1) * rstd).astype(ct.float16))
    idx = ct.arange(BN, dtype=ct.int32)
    ct.atomic_add(DW, idx, ct.sum(dy * xhat, axis=0))
    ct.atomic_add(DB, idx, ct.sum(dy, axis=0))


@ct.kernel
def lion_step_sign_update(P, G, M, lr: float, beta1: float, beta2: float, wd: float, BN: C[int]):
    """A Lion step in place (bf16 params, f32 grads and momentum): ``update = sign(b1 m + (1-b1) g)``
    by ``where`` (0 stays 0), ``p = p (1 - lr wd) - lr update``, ``m = b2 m + (1-b2) g``."""
    i = ct.bid(0)
    p = ct.load(P, index=(i,), shape=(BN,)).astype(ct.float32)
    g = ct.load(G, index=(i,), shape=(BN,))
    m = ct.load(M, index=(i,), shape=(BN,))
    c = beta1 * m + (1.0 - beta1) * g
    s = ct.where(c > 0.0, 1.0, ct.where(c < 0.0, -1.0, 0.0))
    ct.store(P, index=(i,), tile=(p * (1.0 - lr * wd) - lr * s).astype(ct.bfloat16))
    ct.store(M, index=(i,), tile=beta2 * m + (1.0 - beta2) * g)


@ct.kernel
def adam_amsgrad_unscale_found_inf(P, G, M, V, Vmax, Found, inv_scale: float, lr: float, beta1: float,
                                   beta2: float, eps: float, BN: C[int]):
    """AMP's unscale + Adam with AMSGrad: f16 grads times ``inv_scale``; any non-finite gradient of
    the block raises the found-inf flag by ``atomic_max`` (and the step still writes, as the fused
    kernels do: the caller discards it); ``vmax = max(vmax, v)`` used in the denominator."""
    i = ct.bid(0)
    g = ct.load(G, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float32) * inv_scale
    bad = ct.max(ct.where((g - g) != 0.0, 1, 0))
    ct.atomic_max(Found, ct.zeros((1,), dtype=ct.int32), ct.reshape(bad, (1,)))
    p = ct.load(P, index=(i,), shape=(BN,), padding_mode=ZERO)
    m = beta1 * ct.load(M, index=(i,), shape=(BN,), padding_mode=ZERO) + (1.0 - beta1) * g
    v = beta2 * ct.load(V, index=(i,), shape=(BN,), padding_mode=ZERO) + (1.0 - beta2) * g * g
    vmax = ct.maximum(ct.load(Vmax, index=(i,), shape=(BN,), padding_mode=ZERO), v)
    ct.store(P, index=(i,), tile=p - lr * m / (ct.sqrt(vmax) + eps))
    ct.store(M, index=(i,), tile=m)
    ct.store(V, index=(i,), tile=v)
    ct.store(Vmax, index=(i,), tile=vmax)


# ----------------------------------------------------------------------------------------------- caches and sequences


@ct.kernel
def kv_cache_append_paged_slots(K, V, Slots, KC, VC, BW: C[int]):
    """vLLM's ``reshape_and_cache``: token ``t``'s K and V rows (f16, width 96 in a 128 tile) written
    to a paged cache ``[blocks, block_size, width]`` at block ``slot // block_size``, offset ``slot %
    block_size`` by a 3-D index ``scatter``; a slot of -1 (padding token) writes nothing."""
    t = ct.bid(0)
    slot = ct.gather(Slots, t)
    bs = KC.shape[1]
    col = ct.arange(BW, dtype=ct.int32)
    ok = (col < K.shape[1]) & (slot >= 0)
    blk = ct.full((BW,), 0, dtype=ct.int32) + slot // bs
    off = ct.full((BW,), 0, dtype=ct.int32) + slot % bs
    k = ct.reshape(ct.load(K, index=(t, 0), shape=(1, BW), padding_mode=ZERO), (BW,))
    v = ct.reshape(ct.load(V, index=(t, 0), shape=(1, BW), padding_mode=ZERO), (BW,))
    ct.scatter(KC, (blk, off, col), k, mask=ok)
    ct.scatter(VC, (blk, off, col), v, mask=ok)


@ct.kernel
def paged_kv_gather_block_table(Cache, Table, Lens, Out, BT: C[int], BW: C[int]):
    """Paged attention's prologue as its own kernel: for sequence ``s`` and token block ``j``, the
    rows ``j*BT ..`` of the sequence gathered from a paged cache ``[blocks, block_size, width]``
    through its row of the block table (token ``p`` at block ``table[s, p // bs]``, offset ``p %
    bs``), written to ``Out [seqs, max_len, width]``; tokens past ``lens[s]`` are written as 0."""
    s, j = ct.bid(0), ct.bid(1)
    bs = Cache.shape[1]
    n = ct.gather(Lens, s)
    p = j * BT + ct.arange(BT, dtype=ct.int32)
    live = p < n
    blk = ct.gather(Table, (ct.full((BT,), 0, dtype=ct.int32) + s, p // bs), mask=live, padding_value=0)
    col = ct.arange(BW, dtype=ct.int32)
    rows = ct.gather(Cache, (blk[:, None], (p % bs)[:, None], col[None, :]),
                     mask=live[:, None] & (col[None, :] < Cache.shape[2]), padding_value=0.0)
    ct.store(Out, index=(s, j, 0), tile=ct.reshape(rows, (1, BT, BW)))


@ct.kernel
def causal_conv1d_width4_silu(X, W, Bias, Y, BD: C[int], BL: C[int]):
    """Mamba's short convolution: ``x [dim, seqlen]``, per-channel taps ``w [dim, 4]`` and bias,
    ``y[d, t] = silu(b[d] + sum_k w[d, k] x[d, t - 3 + k])`` (zero before the start), by a
    ``static_iter`` over the taps whose shifted tiles are gathers masked at ``t - 3 + k < 0``."""
    d, j = ct.bid(0), ct.bid(1)
    rows = d * BD + ct.arange(BD, dtype=ct.int32)
    t = j * BL + ct.arange(BL, dtype=ct.int32)
    acc = ct.load(Bias, index=(d,), shape=(BD,), padding_mode=ZERO)[:, None] + ct.zeros((BD, BL), dtype=ct.float32)
    w = ct.load(W, index=(d, 0), shape=(BD, 4), padding_mode=ZERO)
    for k in ct.static_iter(range(4)):
        src = t - 3 + k
        xs = ct.gather(X, (rows[:, None], src[None, :]), mask=(src >= 0)[None, :], padding_value=0.0)
        acc = acc + ct.extract(w, index=(0, k), shape=(BD, 1)) * xs
    ct.store(Y, index=(d, j), tile=acc / (1.0 + ct.exp(-acc)))


@ct.kernel
def selective_scan_sequence_loop(X, Dt, A, Bs, Cs, Dskip, Y, BD: C[int], N: C[int]):
    """A Mamba-1 selective scan over a runtime-length sequence: state ``h (BD, N)`` per block of
    channels, per step ``h = exp(dt A) h + dt B_t x_t``, ``y_t = sum(C_t h) + D x_t``; ``x, dt [L,
    dim]``, ``A [dim, N]``, ``B, C [L, N]`` (dim 40 ragged in 32-channel blocks)."""
    d = ct.bid(0)
    a = ct.load(A, index=(d, 0), shape=(BD, N), padding_mode=ZERO)
    dsk = ct.load(Dskip, index=(d,), shape=(BD,), padding_mode=ZERO)
    h = ct.zeros((BD, N), dtype=ct.float32)
    for t in range(X.shape[0]):
        x = ct.reshape(ct.load(X, index=(t, d), shape=(1, BD), padding_mode=ZERO), (BD, 1))
        dt = ct.reshape(ct.load(Dt, index=(t, d), shape=(1, BD), padding_mode=ZERO), (BD, 1))
        b = ct.load(Bs, index=(t, 0), shape=(1, N))
        c = ct.load(Cs, index=(t, 0), shape=(1, N))
        h = ct.exp(dt * a) * h + dt * b * x
        y = ct.sum(c * h, axis=1) + dsk * ct.reshape(x, (BD,))
        ct.store(Y, index=(t, d), tile=ct.reshape(y, (1, BD)))


@ct.kernel
def exclusive_cumsum_seq_axis_3d(X, Y, BS: C[int], BH: C[int]):
    """The exclusive prefix sum along the sequence axis of an f32 ``[batch, seq, hidden]`` tensor
    (``cumsum - x``), one ``(1, BS, BH)`` tile per (batch, hidden block); seq and hidden ragged."""
    b, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(b, 0, j), shape=(1, BS, BH), padding_mode=ZERO)
    ct.store(Y, index=(b, 0, j), tile=ct.cumsum(x, axis=1) - x)


@ct.kernel
def embedding_bag_mean_offsets(Wt, Ids, Offs, Out, BR: C[int], BD: C[int]):
    """``nn.EmbeddingBag(mode="mean")`` with offsets: bag ``b`` averages the bf16 table rows of ids
    ``[offs[b], offs[b+1])`` (a runtime loop over ``BR``-id chunks, the ids gathered, the rows by a
    2-D gather); an empty bag gives 0; the last offset is the number of ids."""
    b = ct.bid(0)
    lo = ct.gather(Offs, b)
    hi = ct.gather(Offs, b + 1)
    col = ct.arange(BD, dtype=ct.int32)
    acc = ct.zeros((BD,), dtype=ct.float32)
    for k in range(ct.cdiv(hi - lo, BR)):
        pos = lo + k * BR + ct.arange(BR, dtype=ct.int32)
        ids = ct.gather(Ids, pos, mask=pos < hi, padding_value=0)
        rows = ct.gather(Wt, (ids[:, None], col[None, :]), mask=(pos < hi)[:, None] & (col < Wt.shape[1])[None, :],
                         padding_value=0.0)
        acc = acc + ct.sum(rows.astype(ct.float32), axis=0)
    cnt = ct.maximum(hi - lo, 1).astype(ct.float32)
    ct.store(Out, index=(b, 0), tile=ct.reshape(acc / cnt, (1, BD)))


@ct.kernel
def masked_mean_per_row_lengths(X, Lens, Y, BL: C[int], BH: C[int]):
    """Mean pooling of ``[batch, seq, hidden]`` f16 over each sequence's first ``lens[b]`` tokens
    (a loop over ``BL``-token chunks up to the length, the tail masked by ``where``); a length of 0
    gives 0 / max(0, 1) = 0."""
    b, j = ct.bid(0), ct.bid(1)
    n = ct.gather(Lens, b)
    acc = ct.zeros((1, BH), dtype=ct.float32)
    for k in range(ct.cdiv(n, BL)):
        x = ct.reshape(ct.load(X, index=(b, k, j), shape=(1, BL, BH), padding_mode=ZERO), (BL, BH))
        keep = (k * BL + ct.arange(BL, dtype=ct.int32)) < n
        acc = acc + ct.sum(ct.where(keep[:, None], x.astype(ct.float32), 0.0), axis=0, keepdims=True)
    ct.store(Y, index=(b, j), tile=acc / ct.maximum(n, 1).astype(ct.float32))


# ----------------------------------------------------------------------------------------------- quantization


@ct.kernel
def int8_per_token_quant_rounding_modes(X, S, QN, QZ, QM, QP, QA, BN: C[int]):
    """Per-token symmetric int8 quantization of an f32 ``[tokens, 200]`` (tile 256): scale
    ``amax / 127`` stored, ``x / scale`` rounded five ways as users write them (cuTile's float ->
    int ``astype`` truncates and takes no rounding mode): nearest even by the ``1.5 * 2**23`` magic
    add and subtract, toward zero by the conversion, down by ``floor``, up by ``ceil``, nearest away
    from zero by ``floor(|y| + 0.5)`` with the sign put back; each narrowed to int8."""
    t = ct.bid(0)
    x = ct.load(X, index=(t, 0), shape=(1, BN), padding_mode=ZERO)
    scale = ct.maximum(ct.max(ct.abs(x), axis=1, keepdims=True), 1e-8) / 127.0
    ct.store(S, index=(t,), tile=ct.reshape(scale, (1,)))
    y = x / scale
    ct.store(QN, index=(t, 0), tile=((y + 12582912.0) - 12582912.0).astype(ct.int8))
    ct.store(QZ, index=(t, 0), tile=y.astype(ct.int8))
    ct.store(QM, index=(t, 0), tile=ct.floor(y).astype(ct.int8))
    ct.store(QP, index=(t, 0), tile=ct.ceil(y).astype(ct.int8))
    a = ct.floor(ct.abs(y) + 0.5)
    ct.store(QA, index=(t, 0), tile=ct.where(y < 0.0, -a, a).astype(ct.int8))


@ct.kernel
def e5m2_block_quant_roundtrip_recip_scale(X, Q, RS, Err, BM: C[int], BN: C[int]):
    """Per ``(BM, BN)`` block of an f32 weight (ragged both ways): ``scale = amax / 57344`` (e5m2's
    max), ``q = e5m2(x / scale)``, the reciprocal ``1 / scale`` stored per block (as the GEMM that
    reads it wants), and the round trip's error ``q * scale - x`` stored."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
    scale = ct.maximum(ct.max(ct.abs(x)), 1e-12) / 57344.0
    q = (x / scale).astype(ct.float8_e5m2)
    ct.store(Q, index=(i, j), tile=q)
    ct.store(RS, index=(i, j), tile=ct.reshape(1.0 / scale, (1, 1)))
    ct.store(Err, index=(i, j), tile=q.astype(ct.float32) * scale - x)


@ct.kernel
def awq_int4_dequant_zero_points(Qw, Sc, Zp, W, BK: C[int], BN: C[int], GS: C[int]):
    """AWQ-style int4 weight dequantization: ``Qw [K, N / 2]`` uint8 holds two unsigned nibbles per
    byte (low nibble the even column), per group of ``GS`` rows a f16 scale and a uint8 zero point
    per column; ``w = (q - z) * s`` as f16 ``[K, N]`` (the nibbles interleaved back by ``reshape``
    of a ``(BK, BN/2, 2)`` ``cat``)."""
    i, j = ct.bid(0), ct.bid(1)
    q = ct.load(Qw, index=(i, j), shape=(BK, BN // 2), padding_mode=ZERO).astype(ct.int32)
    lo = q & 15
    hi = (q >> 4) & 15
    nib = ct.reshape(ct.cat((ct.reshape(lo, (BK, BN // 2, 1)), ct.reshape(hi, (BK, BN // 2, 1))), 2), (BK, BN))
    g = (i * BK) // GS
    s = ct.load(Sc, index=(g, j), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    z = ct.load(Zp, index=(g, j), shape=(1, BN), padding_mode=ZERO).astype(ct.int32)
    ct.store(W, index=(i, j), tile=((nib - z).astype(ct.float32) * s).astype(ct.float16))


@ct.kernel
def int4_signed_pack_unpack_shifts(X, P, U, BN: C[int]):
    """Signed int4 packing: int8 values in [-8, 7] in pairs (even -> low nibble, odd -> high) packed
    into one int8 byte ``(hi << 4) | (lo & 15)``, and unpacked again with the sign restored by
    shifting left then arithmetic-right (``(b << 4) >> 4`` and ``b >> 4`` on int8)."""
    i = ct.bid(0)
    x = ct.reshape(ct.load(X, index=(i,), shape=(2 * BN,), padding_mode=ZERO), (BN, 2))
    lo = ct.reshape(ct.extract(x, index=(0, 0), shape=(BN, 1)), (BN,))
    hi = ct.reshape(ct.extract(x, index=(0, 1), shape=(BN, 1)), (BN,))
    packed = (hi << 4) | (lo & 15)
    ct.store(P, index=(i,), tile=packed)
    lo2 = (packed << 4) >> 4
    hi2 = packed >> 4
    ct.store(U, index=(i,), tile=ct.reshape(ct.cat((ct.reshape(lo2, (BN, 1)), ct.reshape(hi2, (BN, 1))), 1),
                                            (2 * BN,)))


@ct.kernel
def int32_requant_multiplier_rounding_shift(Acc, Bias, Y, mult: int, shift: int, zp: int, BN: C[int]):
    """TFLite-style requantization of int32 accumulators: ``(acc + bias) * mult`` in int64, a
    rounding right shift by ``31 + shift`` (adding half before ``>>``, arithmetic), plus the output
    zero point, clamped to [-128, 127] and stored as int8."""
    i = ct.bid(0)
    a = ct.load(Acc, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.int64) + \
        ct.load(Bias, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.int64)
    total = 31 + shift
    half = ct.full((BN,), 1, dtype=ct.int64) << (total - 1)
    r = (a * mult + half) >> total
    ct.store(Y, index=(i,), tile=ct.maximum(ct.minimum(r + zp, 127), -128).astype(ct.int8))


@ct.kernel
def stochastic_round_f32_to_bf16(X, Rnd, Y, BN: C[int]):
    """Stochastic rounding of f32 to bf16: the low 16 bits of a random uint32 added to the f32
    bits (as int32), then the low half cleared and the bits reinterpreted (NaN and infinities passed
    through by ``where``)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    r = ct.load(Rnd, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.int32) & 0xFFFF
    bits = (ct.bitcast(x, ct.int32) + r) & -65536
    y = ct.bitcast(bits, ct.float32)
    ct.store(Y, index=(i,), tile=ct.where((x - x) != 0.0, x, y).astype(ct.bfloat16))


@ct.kernel
def truncating_casts_with_one_rounding_mode(X, H, T, W, Hw, BN: C[int]):
    """Mixed-precision emulation code that passes one ``rounding_mode=RZ`` to every cast it makes:
    f32 -> bf16 toward zero (the low 16 bits cut), that bf16 back to f32 and an f16 array to f32 with
    the same mode (widenings: nothing rounds, so any mode gives the same values)."""
    i = ct.bid(0)
    t = ct.astype(ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO), ct.bfloat16,
                  rounding_mode=ct.RoundingMode.RZ)
    ct.store(T, index=(i,), tile=t)
    ct.store(W, index=(i,), tile=ct.astype(t, ct.float32, rounding_mode=ct.RoundingMode.RZ))
    h = ct.load(H, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Hw, index=(i,), tile=ct.astype(h, ct.float32, rounding_mode=ct.RoundingMode.RZ))


# ----------------------------------------------------------------------------------------------- bits and counting


@ct.kernel
def byte_popcount_reverse_parity(X, Pc, Rv, Par, BN: C[int]):
    """On uint8 bytes: the popcount by the SWAR steps (``x - ((x >> 1) & 0x55)`` ...), the bit
    reversal by swapping nibbles, pairs and bits with masks, and the parity as the popcount's low
    bit (int32 arithmetic, results narrowed to uint8)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.int32)
    c = x - ((x >> 1) & 0x55)
    c = (c & 0x33) + ((c >> 2) & 0x33)
    c = (c + (c >> 4)) & 0x0F
    ct.store(Pc, index=(i,), tile=c.astype(ct.uint8))
    r = ((x & 0x0F) << 4) | ((x & 0xF0) >> 4)
    r = ((r & 0x33) << 2) | ((r & 0xCC) >> 2)
    r = ((r & 0x55) << 1) | ((r & 0xAA) >> 1)
    ct.store(Rv, index=(i,), tile=r.astype(ct.uint8))
    ct.store(Par, index=(i,), tile=(c & 1).astype(ct.uint8))


@ct.kernel
def bincount_drops_bad_ids(Ids, H, BN: C[int]):
    """``torch.bincount`` guarded as users guard it: ids below 0 or at least the number of bins are
    sent past the table's end so that the bounds-checked ``atomic_add`` drops them (the padding
    lanes of the ragged tail too)."""
    i = ct.bid(0)
    x = ct.load(Ids, index=(i,), shape=(BN,), padding_mode=ZERO)
    lane = i * BN + ct.arange(BN, dtype=ct.int32)
    nb = H.shape[0]
    ok = (x >= 0) & (x < nb) & (lane < Ids.shape[0])
    ct.atomic_add(H, ct.where(ok, x, nb), ct.ones((BN,), dtype=ct.int32))


@ct.kernel
def per_channel_pixel_histogram_u8(Img, H, BP: C[int], CH: C[int]):
    """A per-channel histogram of an HWC uint8 image ``[pixels, channels]`` (channels 3 in a tile
    of 4): ``atomic_add`` of 1 at the index pair ``(channel, value)`` of an int32 ``[3, 256]``
    table; the padding channel and pixels are sent past the table."""
    i = ct.bid(0)
    v = ct.load(Img, index=(i, 0), shape=(BP, CH), padding_mode=ZERO).astype(ct.int32)
    ch = ct.arange(CH, dtype=ct.int32)[None, :] + ct.zeros((BP, CH), dtype=ct.int32)
    px = (i * BP + ct.arange(BP, dtype=ct.int32))[:, None] + ct.zeros((BP, CH), dtype=ct.int32)
    ok = (ch < Img.shape[1]) & (px < Img.shape[0])
    ct.atomic_add(H, (ct.where(ok, ch, H.shape[0]), v), ct.ones((BP, CH), dtype=ct.int32))


# ----------------------------------------------------------------------------------------------- shapes


@ct.kernel
def transpose_nonsquare_tiles_2d_grid(X, Y, BM: C[int], BN: C[int]):
    """``Y = X.T`` of a ragged f16 ``(37, 50)`` by non-square ``(BM, BN) = (16, 32)`` tiles on a
    2-D grid: tile ``(i, j)`` of ``X`` becomes tile ``(j, i)`` of ``Y`` (padding on both edges,
    dropped by the clipped stores)."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
    ct.store(Y, index=(j, i), tile=ct.transpose(x))


@ct.kernel
def every_second_column_by_reshape_extract(X, Ev, Od, BM: C[int], BN: C[int]):
    """The even and odd columns of an int16 ``(M, 2N)`` array (``x[:, ::2]`` / ``x[:, 1::2]``): a
    ``(BM, 2 BN)`` tile reshaped to ``(BM, BN, 2)`` and each phase taken by ``extract``; M and N
    ragged."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.reshape(ct.load(X, index=(i, j), shape=(BM, 2 * BN), padding_mode=ZERO), (BM, BN, 2))
    ct.store(Ev, index=(i, j), tile=ct.reshape(ct.extract(x, index=(0, 0, 0), shape=(BM, BN, 1)), (BM, BN)))
    ct.store(Od, index=(i, j), tile=ct.reshape(ct.extract(x, index=(0, 0, 1), shape=(BM, BN, 1)), (BM, BN)))


@ct.kernel
def gqa_repeat_kv_heads_broadcast_rank4(KV, Out, BT: C[int], HKV: C[int], G: C[int], D: C[int]):
    """``repeat_interleave`` of KV heads for grouped-query attention: ``[tokens, Hkv, D]`` ->
    ``[tokens, Hkv * G, D]`` by reshaping to ``(BT, Hkv, 1, D)``, ``broadcast_to`` ``(BT, Hkv, G,
    D)`` and reshaping to ``(BT, Hkv * G, D)`` (tokens ragged)."""
    i = ct.bid(0)
    kv = ct.load(KV, index=(i, 0, 0), shape=(BT, HKV, D), padding_mode=ZERO)
    r = ct.broadcast_to(ct.reshape(kv, (BT, HKV, 1, D)), (BT, HKV, G, D))
    ct.store(Out, index=(i, 0, 0), tile=ct.reshape(r, (BT, HKV * G, D)))


@ct.kernel
def swin_window_partition_rank5(X, Y, C4: C[int]):
    """Swin Transformer's ``window_partition`` of an f16 ``(H, W, C)`` feature map into 4 x 4 windows:
    the ``(8, 8, C)`` tile (H 7, W 6 ragged, zero padded) reshaped to rank 5 ``(2, 4, 2, 4, C)``,
    permuted ``(0, 2, 1, 3, 4)`` (window rows and columns first) and reshaped to ``(4, 16, C)``:
    ``[windows, tokens, channels]``."""
    x = ct.reshape(ct.load(X, index=(0, 0, 0), shape=(8, 8, C4), padding_mode=ZERO), (2, 4, 2, 4, C4))
    w = ct.reshape(ct.permute(x, (0, 2, 1, 3, 4)), (4, 16, C4))
    ct.store(Y, index=(0, 0, 0), tile=w)


@ct.kernel
def alibi_causal_bias_heads(Slopes, Bias, BQ: C[int], BK: C[int]):
    """An ALiBi bias ``[heads, q, k]``: ``slope[h] * (k - q)`` for ``k <= q`` and -inf above the
    diagonal, built from ``arange`` only (one ``(1, BQ, BK)`` tile per (head, q block, k block);
    q and k ragged)."""
    h, i, j = ct.bid(0), ct.bid(1), ct.bid(2)
    q = (i * BQ + ct.arange(BQ, dtype=ct.int32))[:, None]
    k = (j * BK + ct.arange(BK, dtype=ct.int32))[None, :]
    s = ct.gather(Slopes, h)
    b = ct.where(k <= q, (k - q).astype(ct.float32) * s, float("-inf"))
    ct.store(Bias, index=(h, i, j), tile=ct.reshape(b, (1, BQ, BK)))


@ct.kernel
def box_iou_matrix_extract_coords(Bx, Iou, BN: C[int]):
    """The IoU matrix of ``n`` boxes ``[n, 4]`` (x1, y1, x2, y2) as NMS computes it: the coordinate
    columns cut from one ``(BN, 4)`` tile by ``extract``, the intersection by ``maximum`` /
    ``minimum`` of an ``(BN, 1)`` column against a ``(1, BN)`` row; boxes 37 of a 64 tile, one
    row block per program."""
    i = ct.bid(0)
    a = ct.load(Bx, index=(i, 0), shape=(BN, 4), padding_mode=ZERO)
    b = ct.load(Bx, index=(0, 0), shape=(64, 4), padding_mode=ZERO)
    ax1, ay1 = ct.extract(a, index=(0, 0), shape=(BN, 1)), ct.extract(a, index=(0, 1), shape=(BN, 1))
    ax2, ay2 = ct.extract(a, index=(0, 2), shape=(BN, 1)), ct.extract(a, index=(0, 3), shape=(BN, 1))
    bt = ct.transpose(b)
    bx1, by1 = ct.extract(bt, index=(0, 0), shape=(1, 64)), ct.extract(bt, index=(1, 0), shape=(1, 64))
    bx2, by2 = ct.extract(bt, index=(2, 0), shape=(1, 64)), ct.extract(bt, index=(3, 0), shape=(1, 64))
    iw = ct.maximum(ct.minimum(ax2, bx2) - ct.maximum(ax1, bx1), 0.0)
    ih = ct.maximum(ct.minimum(ay2, by2) - ct.maximum(ay1, by1), 0.0)
    inter = iw * ih
    union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
    ct.store(Iou, index=(i, 0), tile=inter / ct.maximum(union, 1e-9))


@ct.kernel
def rank_in_row_by_pairwise_compare(X, Rk, BN: C[int]):
    """The rank of each element in its f32 row (``argsort(argsort(x))``, ties by position): for each
    ``a`` the count of ``b < a`` plus of ``b == a`` earlier, from an ``(BN, BN)`` compare of the row
    against itself; padding (+inf past 50 of 64) counted out by a column mask."""
    r = ct.bid(0)
    x = ct.reshape(ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.POS_INF), (BN,))
    pos = ct.arange(BN, dtype=ct.int32)
    a = x[:, None]
    b = x[None, :]
    before = (b < a) | ((b == a) & (pos[None, :] < pos[:, None]))
    live = (pos < X.shape[1])[None, :]
    rk = ct.sum(ct.where(before & live, 1, 0), axis=1)
    ct.store(Rk, index=(r, 0), tile=ct.reshape(rk, (1, BN)))


@ct.kernel
def rope_interleaved_pairs_extract_cat(X, Cos, Sin, Pos, Y, BT: C[int], D: C[int]):
    """GPT-J / interleaved rotary embedding of bf16 ``[tokens, D]``: pairs ``(x[2i], x[2i+1])`` of
    each row as a ``(BT, D/2, 2)`` reshape, each half by ``extract``, rotated by the cos / sin rows
    of each token's position (``Pos`` int32, rows gathered), joined by ``cat`` on the last axis and
    reshaped back; tokens ragged."""
    i = ct.bid(0)
    x = ct.reshape(ct.load(X, index=(i, 0), shape=(BT, D), padding_mode=ZERO).astype(ct.float32), (BT, D // 2, 2))
    t = i * BT + ct.arange(BT, dtype=ct.int32)
    p = ct.gather(Pos, t, mask=t < X.shape[0], padding_value=0)
    half = ct.arange(D // 2, dtype=ct.int32)
    c = ct.reshape(ct.gather(Cos, (p[:, None], half[None, :])), (BT, D // 2, 1))
    s = ct.reshape(ct.gather(Sin, (p[:, None], half[None, :])), (BT, D // 2, 1))
    x0 = ct.extract(x, index=(0, 0, 0), shape=(BT, D // 2, 1))
    x1 = ct.extract(x, index=(0, 0, 1), shape=(BT, D // 2, 1))
    y = ct.cat((x0 * c - x1 * s, x1 * c + x0 * s), 2)
    ct.store(Y, index=(i, 0), tile=ct.reshape(y, (BT, D)).astype(ct.bfloat16))


@ct.kernel
def cat_two_halves_of_different_sources(A, Bm, Y, BN: C[int]):
    """A row assembled from halves of different sources and types: the first ``BN`` of an int8
    array widened to f32 and the second ``BN`` of an f16 array, joined by ``ct.cat`` into ``2 BN``
    (the arrays' lengths 100 and 37: each half ragged on its own)."""
    i = ct.bid(0)
    a = ct.load(A, index=(i,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    b = ct.load(Bm, index=(i,), shape=(BN,), padding_mode=ct.PaddingMode.NAN).astype(ct.float32)
    ct.store(Y, index=(i,), tile=ct.cat((a, b), 0))


@ct.kernel
def topk_threshold_mask_int16_scores(S, M, K: C[int], BN: C[int]):
    """Per row of int16 scores: a bool mask of the ``K`` largest (ties at the K-th value all kept)
    by ``K`` rounds of integer ``max`` that mask the maximum out with the int16 minimum."""
    r = ct.bid(0)
    x = ct.load(S, index=(r, 0), shape=(1, BN), padding_mode=ZERO)
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    x = ct.where(cols < S.shape[1], x, -32768)
    rest = x
    kth = ct.max(x, axis=1, keepdims=True)
    for _ in ct.static_iter(range(K)):
        kth = ct.max(rest, axis=1, keepdims=True)
        rest = ct.where(rest >= kth, -32768, rest)
    ct.store(M, index=(r, 0), tile=(x >= kth) & (cols < S.shape[1]))


@ct.kernel
def cross_entropy_z_loss_bf16_rows(X, T, Loss, Lse, z_coef: float, BN: C[int]):
    """PaLM's cross-entropy with z-loss over bf16 logits rows (vocab 300 in a 512 tile): ``lse =
    logsumexp(x)``, ``loss = lse - x[target] + z_coef * lse^2`` (the target's logit by a
    ``where`` against the column index); targets of -100 give loss 0."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF).astype(ct.float32)
    tgt = ct.gather(T, r)
    mx = ct.max(x, axis=1, keepdims=True)
    lse = mx + ct.log(ct.sum(ct.exp(x - mx), axis=1, keepdims=True))
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    xt = ct.sum(ct.where(cols == tgt, x, 0.0), axis=1, keepdims=True)
    loss = ct.where(tgt == -100, 0.0, lse - xt + z_coef * lse * lse)
    ct.store(Loss, index=(r,), tile=ct.reshape(loss, (1,)))
    ct.store(Lse, index=(r,), tile=ct.reshape(lse, (1,)))


@ct.kernel
def im2col_3x3_pad1_gather(Img, Col, BP: C[int]):
    """``im2col`` of a single-channel f32 ``H x W`` image for a 3 x 3 convolution with padding 1:
    row ``p`` of ``Col [H*W, 9]`` holds the 9 neighbours of pixel ``p`` (zero outside), by one 2-D
    gather masked at the borders (H 7, W 9: ragged pixel blocks; 9 taps in a tile of 16)."""
    i = ct.bid(0)
    h, w = Img.shape[0], Img.shape[1]
    p = i * BP + ct.arange(BP, dtype=ct.int32)
    tap = ct.arange(16, dtype=ct.int32)
    y = (p // w)[:, None] + tap[None, :] // 3 - 1
    x = (p % w)[:, None] + tap[None, :] % 3 - 1
    ok = (y >= 0) & (y < h) & (x >= 0) & (x < w) & (tap < 9)[None, :]
    v = ct.gather(Img, (y, x), mask=ok, padding_value=0.0)
    zero = ct.zeros((BP, 16), dtype=ct.int32)
    ct.scatter(Col, (p[:, None] + zero, tap[None, :] + zero), v, mask=(tap < 9)[None, :] & (p < h * w)[:, None])


@ct.kernel
def token_dropping_capacity_by_cumsum(Ids, Keep, Pos, E: C[int], BN: C[int]):
    """Switch-Transformer capacity: within one block of ``BN`` tokens routed to ``E`` experts, each
    token's position among its expert's tokens is the running count of a one-hot ``(BN, E)`` matrix
    (``cumsum`` along axis 0 minus one, read at its expert); tokens at positions past ``capacity``
    (the array ``Keep``'s dtype bool) are dropped."""
    i = ct.bid(0)
    e = ct.load(Ids, index=(i,), shape=(BN,), padding_mode=ZERO)
    lane = i * BN + ct.arange(BN, dtype=ct.int32)
    oh = ct.where((e[:, None] == ct.arange(E, dtype=ct.int32)[None, :]) & (lane < Ids.shape[0])[:, None], 1, 0)
    run = ct.cumsum(oh, axis=0) - 1
    pos = ct.sum(ct.where(oh == 1, run, 0), axis=1)
    ct.store(Pos, index=(i,), tile=pos)
    ct.store(Keep, index=(i,), tile=pos < 5)


# ----------------------------------------------------------------------------------------------- the table


_add("rmsnorm_residual_fp8_quant_amax", rmsnorm_residual_fp8_quant_amax,
     [((37, 300), BF16), ((37, 300), BF16), ((300,), F32), ((37, 300), BF16), ((37, 300), E4M3), ((1,), I32), 0.5,
      1e-6, 512], (37,), "simt", outputs=(3, 4, 5))
_add("gated_rmsnorm_groups_mamba2", gated_rmsnorm_groups_mamba2,
     [((21, 256), F16), ((21, 256), F16), ((256,), F32), ((21, 256), F16), 1e-5, 256, 64], (21,), "simt",
     outputs=(3,))
_add("qk_l2norm_per_head_3d", qk_l2norm_per_head_3d,
     [((37, 6, 32), BF16), ((32,), F32), ((37, 6, 32), BF16), 8, 8, 32], (5,), "simt", outputs=(2,))
_add("welford_var_mean_long_rows", welford_var_mean_long_rows, [((5, 1000), F32), ((5,), F32), ((5,), F32), 256],
     (5,), "simt", outputs=(1, 2))
_add("l2_normalize_rows_flush_to_zero", l2_normalize_rows_flush_to_zero,
     [((9, 200), F32), ((9, 200), F32), ((9,), F32), 256], (9,), "simt", outputs=(1, 2))
_add("norm_interval_bounds_directed_sqrt", norm_interval_bounds_directed_sqrt,
     [((9, 200), F32), ((9, 200), "float64"), ((9,), F32), ((9,), F32), ((9,), F32), ((9, 200), "float64"), 256], (9,),
     "simt", outputs=(2, 3, 4, 5))
_add("geglu_erf_polynomial_tokens", geglu_erf_polynomial_tokens,
     [((37, 256), F16), ((37, 128), F16), 16, 64], (3, 2), "simt", outputs=(1,))
_add("swiglu_tokens_2h_bf16_with_limit", swiglu_tokens_2h_bf16_with_limit,
     [((37, 256), BF16), ((37, 128), BF16), 7.0, 16, 64], (3, 2), "simt", outputs=(1,))
_add("softmax_temperature_topk_mask", softmax_temperature_topk_mask, [((7, 300), F32), ((7, 300), F32), 0.7, 5, 512],
     (7,), "simt", outputs=(1,))
_add("softmax_3d_middle_axis_f16", softmax_3d_middle_axis_f16, [((3, 37, 50), F16), ((3, 37, 50), F16), 64, 32],
     (3, 2), "simt", outputs=(1,))
_add("moe_router_top2_renormalized", moe_router_top2_renormalized,
     [((37, 6), F32), ((37, 2), F32), ((37, 2), I32), 16, 8], (3,), "simt", outputs=(1, 2))
_add("moe_expert_counts_and_slots", moe_expert_counts_and_slots, [((300,), I32), ((8,), I32), ((300,), I32), 128],
     (3,), "simt", outputs=(1, 2))
_add("layernorm_bwd_rows_block_atomic_dgamma", layernorm_bwd_rows_block_atomic_dgamma,
     [((37, 200), F16), ((37, 200), F16), ((200,), F32), ((37,), F32), ((37,), F32), ((37, 200), F16), ((200,), F32),
      ((200,), F32), 8, 256], (5,), "simt", outputs=(5, 6, 7))
_add("lion_step_sign_update", lion_step_sign_update,
     [((1000,), BF16), ((1000,), F32), ((1000,), F32), 1e-2, 0.9, 0.99, 0.1, 256], (4,), "simt", outputs=(0, 2))
_add("adam_amsgrad_unscale_found_inf", adam_amsgrad_unscale_found_inf,
     [((1000,), F32), ((1000,), F16), ((1000,), F32), ((1000,), F32), ((1000,), F32), ((1,), I32), 1.0 / 1024, 1e-3,
      0.9, 0.999, 1e-8, 256], (4,), "simt", outputs=(0, 2, 3, 4, 5))
_add("kv_cache_append_paged_slots", kv_cache_append_paged_slots,
     [((13, 96), F16), ((13, 96), F16), ((13,), I32), ((5, 8, 96), F16), ((5, 8, 96), F16), 128], (13,), "simt",
     outputs=(3, 4))
_add("paged_kv_gather_block_table", paged_kv_gather_block_table,
     [((6, 8, 40), F16), ((3, 4), I32), ((3,), I32), ((3, 32, 40), F16), 16, 64], (3, 2), "simt", outputs=(3,))
_add("causal_conv1d_width4_silu", causal_conv1d_width4_silu,
     [((40, 50), F32), ((40, 4), F32), ((40,), F32), ((40, 50), F32), 16, 32], (3, 2), "simt", outputs=(3,))
_add("selective_scan_sequence_loop", selective_scan_sequence_loop,
     [((11, 40), F32), ((11, 40), F32), ((40, 16), F32), ((11, 16), F32), ((11, 16), F32), ((40,), F32),
      ((11, 40), F32), 32, 16], (2,), "simt", outputs=(6,))
_add("exclusive_cumsum_seq_axis_3d", exclusive_cumsum_seq_axis_3d, [((2, 37, 50), F32), ((2, 37, 50), F32), 64, 32],
     (2, 2), "simt", outputs=(1,))
_add("embedding_bag_mean_offsets", embedding_bag_mean_offsets,
     [((50, 24), BF16), ((70,), I32), ((6,), I32), ((5, 24), F32), 16, 32], (5,), "simt", outputs=(3,))
_add("masked_mean_per_row_lengths", masked_mean_per_row_lengths,
     [((4, 37, 50), F16), ((4,), I32), ((4, 50), F32), 8, 32], (4, 2), "simt", outputs=(2,))
_add("int8_per_token_quant_rounding_modes", int8_per_token_quant_rounding_modes,
     [((13, 200), F32), ((13,), F32), ((13, 200), I8), ((13, 200), I8), ((13, 200), I8), ((13, 200), I8),
      ((13, 200), I8), 256], (13,), "simt", outputs=(1, 2, 3, 4, 5, 6))
_add("e5m2_block_quant_roundtrip_recip_scale", e5m2_block_quant_roundtrip_recip_scale,
     [((37, 50), F32), ((37, 50), E5M2), ((3, 2), F32), ((37, 50), F32), 16, 32], (3, 2), "simt",
     outputs=(1, 2, 3))
_add("awq_int4_dequant_zero_points", awq_int4_dequant_zero_points,
     [((40, 32), U8), ((3, 64), F16), ((3, 64), U8), ((40, 64), F16), 16, 32, 16], (3, 2), "simt", outputs=(3,))
_add("int4_signed_pack_unpack_shifts", int4_signed_pack_unpack_shifts,
     [((300,), I8), ((150,), I8), ((300,), I8), 64], (3,), "simt", outputs=(1, 2))
_add("int32_requant_multiplier_rounding_shift", int32_requant_multiplier_rounding_shift,
     [((300,), I32), ((300,), I32), ((300,), I8), 1518500250, 7, -3, 128], (3,), "simt", outputs=(2,))
_add("stochastic_round_f32_to_bf16", stochastic_round_f32_to_bf16, [((300,), F32), ((300,), U32), ((300,), BF16), 128],
     (3,), "simt", outputs=(2,))
_add("truncating_casts_with_one_rounding_mode", truncating_casts_with_one_rounding_mode,
     [((300,), F32), ((300,), F16), ((300,), BF16), ((300,), F32), ((300,), F32), 128], (3,), "simt",
     outputs=(2, 3, 4))
_add("byte_popcount_reverse_parity", byte_popcount_reverse_parity,
     [((300,), U8), ((300,), U8), ((300,), U8), ((300,), U8), 128], (3,), "simt", outputs=(1, 2, 3))
_add("bincount_drops_bad_ids", bincount_drops_bad_ids, [((300,), I32), ((10,), I32), 128], (3,), "simt", outputs=(1,))
_add("per_channel_pixel_histogram_u8", per_channel_pixel_histogram_u8, [((77, 3), U8), ((3, 256), I32), 32, 4], (3,),
     "simt", outputs=(1,))
_add("transpose_nonsquare_tiles_2d_grid", transpose_nonsquare_tiles_2d_grid, [((37, 50), F16), ((50, 37), F16), 16, 32],
     (3, 2), "simt", outputs=(1,))
_add("every_second_column_by_reshape_extract", every_second_column_by_reshape_extract,
     [((21, 74), I16), ((21, 37), I16), ((21, 37), I16), 8, 16], (3, 3), "simt", outputs=(1, 2))
_add("gqa_repeat_kv_heads_broadcast_rank4", gqa_repeat_kv_heads_broadcast_rank4,
     [((13, 2, 16), BF16), ((13, 8, 16), BF16), 8, 2, 4, 16], (2,), "simt", outputs=(1,))
_add("swin_window_partition_rank5", swin_window_partition_rank5, [((7, 6, 4), F16), ((4, 16, 4), F16), 4], (1,),
     "simt", outputs=(1,))
_add("alibi_causal_bias_heads", alibi_causal_bias_heads, [((3,), F32), ((3, 37, 50), F32), 16, 32], (3, 3, 2), "simt",
     outputs=(1,))
_add("box_iou_matrix_extract_coords", box_iou_matrix_extract_coords, [((37, 4), F32), ((37, 37), F32), 16], (3,),
     "simt", outputs=(1,))
_add("rank_in_row_by_pairwise_compare", rank_in_row_by_pairwise_compare, [((5, 50), F32), ((5, 50), I32), 64], (5,),
     "simt", outputs=(1,))
_add("rope_interleaved_pairs_extract_cat", rope_interleaved_pairs_extract_cat,
     [((37, 64), BF16), ((100, 32), F32), ((100, 32), F32), ((37,), I32), ((37, 64), BF16), 16, 64], (3,), "simt",
     outputs=(4,))
_add("cat_two_halves_of_different_sources", cat_two_halves_of_different_sources,
     [((100,), I8), ((37,), F16), ((256,), F32), 64], (2,), "simt", outputs=(2,))
_add("topk_threshold_mask_int16_scores", topk_threshold_mask_int16_scores, [((6, 50), I16), ((6, 50), B), 4, 64],
     (6,), "simt", outputs=(1,))
_add("cross_entropy_z_loss_bf16_rows", cross_entropy_z_loss_bf16_rows,
     [((9, 300), BF16), ((9,), I32), ((9,), F32), ((9,), F32), 1e-4, 512], (9,), "simt", outputs=(2, 3))
_add("im2col_3x3_pad1_gather", im2col_3x3_pad1_gather, [((7, 9), F32), ((63, 9), F32), 32], (2,), "simt",
     outputs=(1,))
_add("token_dropping_capacity_by_cumsum", token_dropping_capacity_by_cumsum,
     [((300,), I32), ((300,), B), ((300,), I32), 8, 128], (3,), "simt", outputs=(1, 2))


# ----------------------------------------------------------------------------------------------- what users get wrong
# Programs cuTile's front end accepts but that cannot run as written: each must stop at the user's
# line (``file:line:col: error:``), saying why, never with a traceback or an internal error.


@ct.kernel
def row_norm_stored_as_a_vector_into_a_matrix(X, Y, BN: C[int]):
    """A normalized row (a rank-1 tile) stored into the 2-D output with the index ``(row, 0)``
    without reshaping it to ``(1, BN)``: the tile's rank is not the array's."""
    r = ct.bid(0)
    x = ct.reshape(ct.load(X, index=(r, 0), shape=(1, BN)), (BN,))
    y = x * ct.rsqrt(ct.sum(x * x) / BN + 1e-6)
    ct.store(Y, index=(r, 0), tile=y)


@ct.kernel
def keepdims_row_sums_into_a_vector(X, S, BN: C[int]):
    """Row sums with ``keepdims=True`` (a ``(BM, 1)`` tile) stored into a 1-D ``[rows]`` output."""
    i = ct.bid(0)
    s = ct.sum(ct.load(X, index=(i, 0), shape=(BN, BN), padding_mode=ZERO), axis=1, keepdims=True)
    ct.store(S, index=(i,), tile=s)


@ct.kernel
def nan_padding_of_int_token_ids(Ids, Y, BN: C[int]):
    """A float kernel's load copied for int32 token ids: ``padding_mode=NAN`` on an int array."""
    i = ct.bid(0)
    ids = ct.load(Ids, index=(i,), shape=(BN,), padding_mode=ct.PaddingMode.NAN)
    ct.store(Y, index=(i,), tile=ids + 1)


@ct.kernel
def argmax_of_int_scores_neg_inf_padding(S, A, BN: C[int]):
    """A float argmax copied for int32 scores: ``padding_mode=NEG_INF`` on an int array."""
    r = ct.bid(0)
    s = ct.load(S, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
    ct.store(A, index=(r,), tile=ct.argmax(s, axis=1).astype(ct.int32))


@ct.kernel
def f16_std_by_sqrt_rounded_up(X, Y, BN: C[int]):
    """An upper bound of an f16 standard deviation by ``ct.sqrt(var, rounding_mode=RP)`` on the f16
    tile (directed square roots have a lowering for f32 and f64 only: f16 computes in f32)."""
    x = ct.load(X, index=(0,), shape=(BN,), padding_mode=ZERO)
    m = ct.sum(x) / BN
    var = ct.sum((x - m) * (x - m)) / BN
    ct.store(Y, index=(0,), tile=ct.reshape(ct.sqrt(var, rounding_mode=ct.RoundingMode.RP), (1,)))


@ct.kernel
def f16_to_bf16_truncated(X, Y, BN: C[int]):
    """f16 activations converted to bf16 rounding toward zero (only f32 -> f16 / bf16 toward zero
    has a lowering; the error says which conversion)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.astype(x, ct.bfloat16, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def f64_reference_to_f16_truncated(X, Y, BN: C[int]):
    """An f64 reference narrowed straight to f16 toward zero."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.astype(x, ct.float16, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def interval_lower_bound_mul_round_down(Lo, Hi, Y, BN: C[int]):
    """Interval arithmetic's lower bound of ``lo * hi`` by ``ct.mul(..., rounding_mode=RM)``, of f16 tiles (f32
    and f64 take it since session 32; f16 computes in f32, and the conversion back would round a second time)."""
    lo = ct.load(Lo, index=(0,), shape=(BN,))
    hi = ct.load(Hi, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.mul(lo, hi, rounding_mode=ct.RoundingMode.RM))


@ct.kernel
def mean_divided_toward_zero(X, Y, BN: C[int]):
    """An f16 mean whose division rounds toward zero (``ct.truediv(..., rounding_mode=RZ)``: f32 and f64 take it
    since review 29; f16 computes in f32, and the conversion back would round a second time)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(1, BN))
    ct.store(Y, index=(i,), tile=ct.truediv(ct.sum(x, axis=1), BN, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def rank_in_a_vocab_row_of_1024(X, Rk, BN: C[int]):
    """The pairwise-compare rank of a 1024-logit row: a ``(1024, 1024)`` compare tile (a million
    elements: far past the registers; the error names the compare's line)."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Rk, index=(0,), tile=ct.sum(ct.where(x[None, :] < x[:, None], 1, 0), axis=1))


@ct.kernel
def gather_a_whole_1024x1024_block(X, Y, BN: C[int]):
    """A ``(1024, 1024)`` f32 block read by one 2-D ``gather`` (4 MiB in one tile)."""
    i = ct.arange(BN, dtype=ct.int32)
    ct.store(Y, index=(0, 0), tile=ct.gather(X, (i[:, None], i[None, :])))


@ct.kernel
def multi_gpu_counter_system_scope(Cnt, X, BN: C[int]):
    """A counter shared with the host / peers: ``atomic_add`` at system scope (the SIMT lowering's
    NVPTX route would emit it at device scope, so it is refused)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.atomic_add(Cnt, ct.zeros((1,), dtype=ct.int32), ct.reshape(ct.sum(ct.where(x > 0.0, 1, 0)), (1,)),
                  memory_scope=ct.MemoryScope.SYS)


INVALID: dict[str, UserProgram] = {}
"""The programs above as :class:`UserProgram` with path "error": ``error`` is part of the message and
``notes`` the source text of the line the error must name."""
_bad = registrar(INVALID)
_bad("row_norm_stored_as_a_vector_into_a_matrix", row_norm_stored_as_a_vector_into_a_matrix,
     [((4, 128), F32), ((4, 128), F32), 128], (4,), "error",
     error="tensor_view of rank 2 and tiles of rank 1", notes="ct.store(Y, index=(r, 0), tile=y)")
_bad("keepdims_row_sums_into_a_vector", keepdims_row_sums_into_a_vector, [((64, 64), F32), ((64,), F32), 16], (4,),
     "error", error="tensor_view of rank 1 and tiles of rank 2", notes="ct.store(S, index=(i,), tile=s)")
_bad("nan_padding_of_int_token_ids", nan_padding_of_int_token_ids, [((300,), I32), ((300,), I32), 128], (3,), "error",
     error="padding_value nan can only be used with floating point element types, got i32",
     notes="padding_mode=ct.PaddingMode.NAN")
_bad("argmax_of_int_scores_neg_inf_padding", argmax_of_int_scores_neg_inf_padding,
     [((4, 100), I32), ((4,), I32), 128], (4,), "error",
     error="padding_value neg_inf can only be used with floating point element types, got i32",
     notes="padding_mode=NEG_INF")
_bad("f16_std_by_sqrt_rounded_up", f16_std_by_sqrt_rounded_up, [((100,), F16), ((1,), F16), 128], (1,), "error",
     error="'cuda_tile.sqrt' with rounding<positive_inf> of f16 is not supported yet",
     notes="rounding_mode=ct.RoundingMode.RP")
_bad("f16_to_bf16_truncated", f16_to_bf16_truncated, [((300,), F16), ((300,), BF16), 128], (3,), "error",
     error="with rounding<zero> from f16 to bf16 is not supported yet", notes="rounding_mode=ct.RoundingMode.RZ")
_bad("f64_reference_to_f16_truncated", f64_reference_to_f16_truncated, [((128,), "float64"), ((128,), F16), 128], (1,),
     "error", error="with rounding<zero> from f64 to f16 is not supported yet",
     notes="rounding_mode=ct.RoundingMode.RZ")
_bad("interval_lower_bound_mul_round_down", interval_lower_bound_mul_round_down,
     [((128,), F16), ((128,), F16), ((128,), F16), 128], (1,), "error",
     error="'cuda_tile.mulf' with rounding<negative_inf> of f16 is not supported yet",
     notes="rounding_mode=ct.RoundingMode.RM")
_bad("mean_divided_toward_zero", mean_divided_toward_zero, [((4, 128), F16), ((4,), F16), 128], (4,), "error",
     error="'cuda_tile.divf' with rounding<zero> of f16 is not supported yet", notes="rounding_mode=ct.RoundingMode.RZ")
_bad("rank_in_a_vocab_row_of_1024", rank_in_a_vocab_row_of_1024, [((1024,), F32), ((1024,), I32), 1024], (1,), "error",
     error="a tile of 1048576 elements is too large", notes="x[None, :] < x[:, None]")
_bad("gather_a_whole_1024x1024_block", gather_a_whole_1024x1024_block,
     [((1024, 1024), F32), ((1024, 1024), F32), 1024], (1,), "error", error="a tile of 1048576 elements is too large",
     notes="ct.gather(X, (i[:, None], i[None, :]))")
_bad("multi_gpu_counter_system_scope", multi_gpu_counter_system_scope, [((1,), I32), ((300,), F32), 128], (3,),
     "error", error="a system-scope atomic_rmw", notes="ct.atomic_add(Cnt")


# ----------------------------------------------------------------------------------------------- cuTile says no
# Mistakes cuTile's own front end rejects (with its ``"file", line N, col A-B`` location): they never
# reach tileorch.  Kept, with the words cuTile uses, so that a cuTile that starts accepting one shows.


@ct.kernel
def residual_add_of_mismatched_tiles(X, R, Y, BN: C[int]):
    """A residual add of a ``BN`` tile and a ``2 BN`` tile (the hidden size typed twice)."""
    x = ct.load(X, index=(0,), shape=(BN,))
    r = ct.load(R, index=(0,), shape=(2 * BN,))
    ct.store(Y, index=(0,), tile=x + r)


@ct.kernel
def f32_result_stored_into_f16_output(X, Y, BN: C[int]):
    """An f32 result stored into an f16 output without ``astype``."""
    x = ct.load(X, index=(0,), shape=(BN,)).astype(ct.float32)
    ct.store(Y, index=(0,), tile=x * 2.0)


@ct.kernel
def row_index_missing_for_a_2d_store(X, Y, BN: C[int]):
    """A ``(1, BN)`` tile stored into a 2-D array with the one index ``(i,)``."""
    i = ct.bid(0)
    ct.store(Y, index=(i,), tile=ct.load(X, index=(i, 0), shape=(1, BN)))


@ct.kernel
def hidden_tile_of_96(X, Y, BN: C[int]):
    """A hidden size of 96 used as the tile size."""
    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(BN,)) * 2.0)


@ct.kernel
def histogram_of_int16_counts_by_atomic_cas(T, BN: C[int]):
    """``atomic_cas`` on an int16 table (16-bit atomics: none in cuTile)."""
    ct.atomic_cas(T, ct.arange(BN, dtype=ct.int32), ct.zeros((BN,), dtype=ct.int16), ct.ones((BN,), dtype=ct.int16))


@ct.kernel
def f16_table_by_atomic_xchg(T, X, BN: C[int]):
    """``atomic_xchg`` of f16 values."""
    ct.atomic_xchg(T, ct.arange(BN, dtype=ct.int32), ct.load(X, index=(0,), shape=(BN,)))


@ct.kernel
def softmax_over_axis_2_of_a_row_tile(X, Y, BN: C[int]):
    """``ct.max(x, axis=2)`` of a 2-D ``(1, BN)`` row tile."""
    x = ct.load(X, index=(0, 0), shape=(1, BN))
    ct.store(Y, index=(0, 0), tile=ct.exp(x - ct.max(x, axis=2, keepdims=True)))


@ct.kernel
def cat_of_unequal_halves(X, Y, BN: C[int]):
    """``ct.cat`` of a ``BN`` and a ``2 BN`` tile (``3 BN`` elements: not a power of two)."""
    a, b = ct.load(X, index=(0,), shape=(BN,)), ct.load(X, index=(0,), shape=(2 * BN,))
    ct.store(Y, index=(0,), tile=ct.cat((a, b), 0))


@ct.kernel
def quantize_with_a_rounding_mode_to_int(X, Q, BN: C[int]):
    """``astype(int32, rounding_mode=RN)`` (cuTile's float -> int conversion takes no rounding mode)."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Q, index=(0,), tile=ct.astype(x * 127.0, ct.int32, rounding_mode=ct.RoundingMode.RN))


@ct.kernel
def bf16_rounded_down(X, Y, BN: C[int]):
    """``astype(bfloat16, rounding_mode=RM)`` (f32 -> bf16 takes nearest-even or toward zero)."""
    x = ct.load(X, index=(0,), shape=(BN,))
    ct.store(Y, index=(0,), tile=ct.astype(x, ct.bfloat16, rounding_mode=ct.RoundingMode.RM))


@ct.kernel
def transpose_of_a_3d_tile_without_axes(X, Y, BN: C[int]):
    """``ct.transpose`` of a 3-D tile with no ``axes``."""
    ct.store(Y, index=(0, 0, 0), tile=ct.transpose(ct.load(X, index=(0, 0, 0), shape=(2, 4, BN))))


@ct.kernel
def scatter_mask_of_twice_the_indices(X, Y, BN: C[int]):
    """A ``scatter`` whose mask has twice as many lanes as its indices."""
    i = ct.arange(BN, dtype=ct.int32)
    ct.scatter(Y, i, ct.load(X, index=(0,), shape=(BN,)), mask=ct.arange(2 * BN, dtype=ct.int32) < 5)


@ct.kernel
def load_latency_of_11(X, Y, BN: C[int]):
    """``ct.load(..., latency=11)`` (cuTile's hint is 1 to 10)."""
    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(BN,), latency=11))


@ct.kernel
def printf_of_a_string_specifier(X, BN: C[int]):
    """``ct.printf("%s", x)``."""
    ct.printf("%s\n", ct.load(X, index=(0,), shape=(BN,)))


REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "residual_add_of_mismatched_tiles": (residual_add_of_mismatched_tiles,
                                         [((128,), F32), ((128,), F32), ((128,), F32), 32],
                                         "Shapes are not broadcastable", "tile=x + r"),
    "f32_result_stored_into_f16_output": (f32_result_stored_into_f16_output, [((128,), F16), ((128,), F16), 128],
                                          "cannot implicitly cast float32 to float16", "ct.store(Y"),
    "row_index_missing_for_a_2d_store": (row_index_missing_for_a_2d_store, [((4, 64), F32), ((4, 64), F32), 64],
                                         "does not match the array rank", "ct.store(Y, index=(i,)"),
    "hidden_tile_of_96": (hidden_tile_of_96, [((128,), F32), ((128,), F32), 96], "is not a power of two",
                          "ct.load(X, index=(0,), shape=(BN,))"),
    "histogram_of_int16_counts_by_atomic_cas": (histogram_of_int16_counts_by_atomic_cas, [((128,), I16), 128],
                                                "Unsupported array dtype: int16", "ct.atomic_cas("),
    "f16_table_by_atomic_xchg": (f16_table_by_atomic_xchg, [((128,), F16), ((128,), F16), 128],
                                 "Unsupported array dtype: float16", "ct.atomic_xchg("),
    "softmax_over_axis_2_of_a_row_tile": (softmax_over_axis_2_of_a_row_tile, [((1, 64), F32), ((1, 64), F32), 64],
                                          "out of range for rank 2", "ct.max(x, axis=2"),
    "cat_of_unequal_halves": (cat_of_unequal_halves, [((128,), F32), ((128,), F32), 32],
                              "Result tile shape must be power of 2", "ct.cat("),
    "quantize_with_a_rounding_mode_to_int": (quantize_with_a_rounding_mode_to_int, [((128,), F32), ((128,), I32), 128],
                                             "rounding_mode is only valid for float to float conversions",
                                             "rounding_mode=ct.RoundingMode.RN"),
    "bf16_rounded_down": (bf16_rounded_down, [((128,), F32), ((128,), BF16), 128],
                          "rounding_mode=RoundingMode.RM is not supported for conversion from float32 to bfloat16",
                          "rounding_mode=ct.RoundingMode.RM"),
    "transpose_of_a_3d_tile_without_axes": (transpose_of_a_3d_tile_without_axes,
                                            [((2, 4, 8), F32), ((8, 4, 2), F32), 8],
                                            "`axes` must be specified", "ct.transpose("),
    "scatter_mask_of_twice_the_indices": (scatter_mask_of_twice_the_indices, [((128,), F32), ((128,), F32), 128],
                                          "is not broadcastable to the index shape", "mask=ct.arange(2 * BN"),
    "load_latency_of_11": (load_latency_of_11, [((128,), F32), ((128,), F32), 128], "Latency must be between 1 and 10",
                           "latency=11"),
    "printf_of_a_string_specifier": (printf_of_a_string_specifier, [((128,), F32), 128],
                                     "Specifier s in %s is not supported", "ct.printf("),
}
"""Mistakes cuTile 1.7's front end rejects before tileorch sees a program (the brief's mismatched
elementwise shapes, a store of the wrong dtype, an index tuple of the wrong rank, a tile that is not a
power of two, atomics of an unsupported dtype, a reduction over a missing axis, and others): cuTile's
message holds the words given and names the user's line."""
