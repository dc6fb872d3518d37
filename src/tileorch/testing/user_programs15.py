"""The fifteenth user sweep (session 22, issue 21: programs acceptance runs that we will not see):
**whole memory-bound kernels from real models**, written as a user ports them from Triton / PyTorch
(Liger-, Unsloth-, DeepSeek- and apex-style kernels), in the variants the earlier sweeps
(:mod:`tileorch.testing.user_programs` .. ``user_programs13``) do not hold: RMSNorm forward over a
block of rows storing ``rstd``, its backward with a partial dgamma per program and a column-reduce
kernel; LayerNorm backward recomputing its statistics with dgamma / dbeta by atomics; log-softmax
backward; cross-entropy forward over a long bf16 vocabulary row (loop of tiles, ``ignore_index``,
the mean's numerator and count by atomics) and its backward on a 2-D grid from the stored
log-sum-exp; partial rotary embedding (half-split, cos / sin table rows gathered by int64
positions, pass-through tail) and interleaved rotary (even / odd lanes by gathers); SwiGLU forward
and backward in place, GeGLU (tanh) backward; a fused AdamW step in place (f32 master weights, bf16
grads, two moments, bias corrections from a runtime step count); fp8 quantization per 1x128 group
and dequantization per 2-D weight block, int8 per-token quantization with a saturating conversion;
int8 and uint8 outputs saturated by the conversion alone (``ftoi`` to 8 bits: found wrapping
in this sweep, session 22, now clamped through i32); argmin with ties along long bf16 rows and a multi-row max-with-index; a weighted bincount by
atomics; an exclusive prefix sum over a long 1-D array with a carry; a KV-cache scatter to slots (-1: padding)
and a stream compaction (``masked_select``: positions from a cumsum with a carry); sentence-embedding mean pooling
under an attention mask then L2 normalization; group norm over ``(N, C, HW)``; dropout with a given
byte mask and scale, fused with the residual add.  Ragged sizes, fp32 / fp16 / bf16 mixed as users
mix them.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep15_compile.py (CPU compile to PTX, ptxas without spills),
tests/unit/test_user_sweep15_interp.py (the SIMT interpreter against numpy),
tests/unit/test_user_sweep15_emulated.py (the PTX emulator on a few) and
tests/gpu/test_user_sweep15_gpu.py (the H200, the same references).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
F32, F16, BF16, I32, I64 = "float32", "float16", "bfloat16", "int32", "int64"
C = ct.Constant
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF
POS_INF = ct.PaddingMode.POS_INF


# ----------------------------------------------------------------------------------------------- normalization


@ct.kernel
def rmsnorm_fwd_rows_block_rstd(X, W, Y, Rstd, eps: float, BM: C[int], BN: C[int]):
    """Liger's RMSNorm forward over a block of ``BM`` bf16 rows (ragged rows and columns): the mean
    square in f32, ``y = (x * rstd) * w`` with an f32 weight, cast back to bf16; ``rstd`` stored per
    row for the backward."""
    b = ct.bid(0)
    n = X.shape[1]
    x = ct.load(X, index=(b, 0), shape=(BM, BN), padding_mode=ZERO).astype(ct.float32)
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO)
    rstd = ct.rsqrt(ct.sum(x * x, axis=1, keepdims=True) / n + eps)
    ct.store(Y, index=(b, 0), tile=((x * rstd) * w[None, :]).astype(Y.dtype))
    ct.store(Rstd, index=(b,), tile=rstd.reshape((BM,)))


@ct.kernel
def rmsnorm_bwd_partial_dgamma(X, DY, W, Rstd, DX, DWp, rows_per_program: int, BN: C[int]):
    """RMSNorm backward, Liger's layout: each program walks ``rows_per_program`` rows (the last
    program fewer), ``dx = rstd * (dy*w - x * rstd^2 * mean(dy*w*x))`` per row from the stored
    ``rstd``, and keeps ``sum dy * x * rstd`` over its rows in registers, stored as its row of the
    partial ``DWp [programs, N]`` (reduced by :func:`dgamma_reduce_columns`).  f16 x / dy / dx."""
    p = ct.bid(0)
    n = X.shape[1]
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)[None, :]
    dw = ct.zeros((1, BN), dtype=ct.float32)
    start = p * rows_per_program
    stop = min(start + rows_per_program, X.shape[0])
    for r in range(start, stop):
        x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
        dy = ct.load(DY, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
        rstd = ct.load(Rstd, index=(r,), shape=(1,)).reshape((1, 1))
        dyw = dy * w
        c = ct.sum(dyw * x, axis=1, keepdims=True) / n
        dx = rstd * (dyw - x * (rstd * rstd * c))
        ct.store(DX, index=(r, 0), tile=dx.astype(DX.dtype))
        dw = dw + dy * x * rstd
    ct.store(DWp, index=(p, 0), tile=dw)


@ct.kernel
def dgamma_reduce_columns(DWp, DW, BM: C[int], BN: C[int]):
    """The column sum of the partial dgamma ``DWp [P, N]`` (a loop of ``BM``-row tiles, zero-padded)
    into the bf16 ``DW [N]``; one program per ``BN`` columns."""
    j = ct.bid(0)
    acc = ct.zeros((BN,), dtype=ct.float32)
    for i in range(ct.num_tiles(DWp, axis=0, shape=(BM, BN))):
        acc = acc + ct.sum(ct.load(DWp, index=(i, j), shape=(BM, BN), padding_mode=ZERO), axis=0)
    ct.store(DW, index=(j,), tile=acc.astype(DW.dtype))


@ct.kernel
def layernorm_bwd_recompute_atomic_dwdb(X, DY, W, DX, DW, DB, eps: float, BN: C[int]):
    """LayerNorm backward without saved statistics (recomputed from the bf16 row): ``xhat``,
    ``dx = rstd * (dy*w - mean(dy*w) - xhat * mean(dy*w*xhat))`` stored bf16, and ``dw += dy*xhat``,
    ``db += dy`` accumulated into f32 ``[N]`` arrays by ``ct.atomic_add`` with a column mask
    (ragged N)."""
    r = ct.bid(0)
    n = X.shape[1]
    cols = ct.arange(BN, dtype=ct.int32)
    valid = cols < n
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32).reshape((BN,))
    dy = ct.load(DY, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32).reshape((BN,))
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    mean = ct.sum(x) / n
    xc = ct.where(valid, x - mean, 0.0)
    rstd = ct.rsqrt(ct.sum(xc * xc) / n + eps)
    xhat = xc * rstd
    g = dy * w
    dx = rstd * (g - ct.sum(g) / n - xhat * (ct.sum(g * xhat) / n))
    ct.store(DX, index=(r, 0), tile=dx.reshape((1, BN)).astype(DX.dtype))
    ct.atomic_add(DW, ct.where(valid, cols, 0), ct.where(valid, dy * xhat, 0.0))
    ct.atomic_add(DB, ct.where(valid, cols, 0), ct.where(valid, dy, 0.0))


@ct.kernel
def group_norm_nchw(X, W, B, Y, eps: float, G: C[int], CG: C[int], BHW: C[int]):
    """GroupNorm of an f16 ``(N, C, HW)`` array: program ``(n, g)`` loads its ``(CG, BHW)`` group
    (ragged HW, zero-padded), mean and variance over the group's ``CG * HW`` values in f32, per-channel
    affine ``w[c], b[c]`` (f32), stored f16."""
    n, g = ct.bid(0), ct.bid(1)
    hw = X.shape[2]
    x = ct.load(X, index=(n, g, 0), shape=(1, CG, BHW), padding_mode=ZERO).astype(ct.float32).reshape((CG, BHW))
    cnt = CG * hw
    mean = ct.sum(x) / cnt
    valid = ct.arange(BHW, dtype=ct.int32)[None, :] < hw
    xc = ct.where(valid, x - mean, 0.0)
    rstd = ct.rsqrt(ct.sum(xc * xc) / cnt + eps)
    w = ct.load(W, index=(g,), shape=(CG,)).reshape((CG, 1))
    b = ct.load(B, index=(g,), shape=(CG,)).reshape((CG, 1))
    y = xc * rstd * w + b
    ct.store(Y, index=(n, g, 0), tile=y.reshape((1, CG, BHW)).astype(Y.dtype))


@ct.kernel
def masked_mean_pool_l2_normalize(X, Mask, Y, eps: float, BS: C[int], BD: C[int]):
    """Sentence-embedding pooling: the mean of a bf16 ``(S, D)`` sequence over the tokens whose int64
    attention mask is 1 (a loop of ``BS``-token tiles, ragged S and D), then ``F.normalize``:
    ``y / max(||y||, eps)``; f32 out.  An all-masked row divides by ``max(count, 1)``."""
    b = ct.bid(0)
    acc = ct.zeros((1, BD), dtype=ct.float32)
    cnt = ct.zeros((1, 1), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BS, BD))):
        x = ct.load(X, index=(b, k, 0), shape=(1, BS, BD), padding_mode=ZERO).astype(ct.float32).reshape((BS, BD))
        m = ct.load(Mask, index=(b, k), shape=(1, BS), padding_mode=ZERO).astype(ct.float32).reshape((BS, 1))
        acc = acc + ct.sum(x * m, axis=0, keepdims=True)
        cnt = cnt + ct.sum(m, axis=0, keepdims=True)
    mean = acc / ct.maximum(cnt, 1.0)
    norm = ct.sqrt(ct.sum(mean * mean, axis=1, keepdims=True))
    ct.store(Y, index=(b, 0), tile=mean / ct.maximum(norm, eps))


# ----------------------------------------------------------------------------------------------- softmax / cross-entropy


@ct.kernel
def log_softmax_bwd_rows(Y, DY, DX, BN: C[int]):
    """Log-softmax backward of fp16 rows: ``dx = dy - exp(y) * sum(dy)`` (``y`` the log-probabilities;
    padded with -inf so ``exp`` of a pad is 0), f32 math, fp16 out, ragged columns."""
    r = ct.bid(0)
    y = ct.load(Y, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF).astype(ct.float32)
    dy = ct.load(DY, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    dx = dy - ct.exp(y) * ct.sum(dy, axis=1, keepdims=True)
    ct.store(DX, index=(r, 0), tile=dx.astype(DX.dtype))


@ct.kernel
def cross_entropy_fwd_mean_atomic(Logits, Labels, Lse, LossSum, Count, ignore_index: int, BV: C[int]):
    """Cross-entropy forward, one bf16 row per program over a long vocabulary (a loop of ``BV``
    tiles, online max / sum-exp, ragged V): the row's log-sum-exp stored (f32), the target's
    logit read by ``ct.gather`` at its int64 label; rows whose label is ``ignore_index`` add
    nothing; ``loss`` and ``1`` are added to the scalar ``LossSum`` / ``Count`` by atomics (the
    host divides for the mean)."""
    r = ct.bid(0)
    label = ct.load(Labels, index=(r,), shape=(1,)).item()
    m = -float("inf")
    s = 0.0
    for k in range(ct.num_tiles(Logits, axis=1, shape=(1, BV))):
        x = ct.load(Logits, index=(r, k), shape=(1, BV), padding_mode=NEG_INF).astype(ct.float32)
        m_new = ct.maximum(m, ct.max(x))
        s = s * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new))
        m = m_new
    lse = m + ct.log(s)
    ct.store(Lse, index=(r,), tile=ct.reshape(lse, (1,)))
    keep = label != ignore_index
    target = ct.gather(Logits, (r, ct.where(keep, label, 0))).astype(ct.float32)
    loss = ct.where(keep, lse - target, 0.0)
    zero = ct.zeros((1,), dtype=ct.int32)
    ct.atomic_add(LossSum, zero, ct.reshape(loss, (1,)))
    ct.atomic_add(Count, zero, ct.reshape(ct.where(keep, 1, 0), (1,)).astype(ct.int32))


@ct.kernel
def cross_entropy_bwd_2d_grid(Logits, Labels, Lse, DLoss, Count, DLogits, ignore_index: int, BV: C[int]):
    """Cross-entropy backward of the mean loss on a 2-D grid (row, vocabulary tile): ``dlogits =
    (softmax - onehot(label)) * dloss / count`` from the stored log-sum-exp, the upstream scalar
    ``DLoss [1]`` and the valid count ``Count [1]`` (int32) read from device arrays; zero for an
    ignored row; bf16 logits, f16 gradient, ragged V."""
    r, k = ct.bid(0), ct.bid(1)
    label = ct.load(Labels, index=(r,), shape=(1,)).item()
    lse = ct.load(Lse, index=(r,), shape=(1,)).item()
    scale = ct.load(DLoss, index=(0,), shape=(1,)).item() / ct.load(Count, index=(0,), shape=(1,)).item()
    x = ct.load(Logits, index=(r, k), shape=(1, BV), padding_mode=ZERO).astype(ct.float32)
    cols = ct.arange(BV, dtype=ct.int64)[None, :] + k * BV
    g = ct.exp(x - lse) - ct.where(cols == label, 1.0, 0.0)
    g = ct.where(label == ignore_index, 0.0, g * scale)
    ct.store(DLogits, index=(r, k), tile=g.astype(DLogits.dtype))


# ----------------------------------------------------------------------------------------------- rotary


@ct.kernel
def rope_partial_rotary_positions(X, Pos, Cos, Sin, Y, ROT: C[int], BH: C[int], BD: C[int]):
    """Partial rotary (GPT-NeoX ``rotary_pct``): token ``t`` of a bf16 ``(T, H, D)`` array, all heads
    at once; the first ``ROT`` dims rotate half-split by the ``Cos`` / ``Sin [max_pos, ROT/2]`` f32
    table rows gathered at the token's int64 position, dims ``ROT..D`` pass through (ragged H)."""
    t = ct.bid(0)
    half = ROT // 2
    pos = ct.load(Pos, index=(t,), shape=(1,)).item()
    j = ct.arange(BD, dtype=ct.int32)
    jj = ct.where(j < half, j, j - half)
    c = ct.gather(Cos, (pos, jj), mask=j < ROT, padding_value=1.0)[None, :]
    s = ct.gather(Sin, (pos, jj), mask=j < ROT, padding_value=0.0)[None, :]
    x = ct.load(X, index=(t, 0, 0), shape=(1, BH, BD), padding_mode=ZERO).reshape((BH, BD)).astype(ct.float32)
    h = ct.arange(BH, dtype=ct.int32)[:, None]
    partner = ct.where(j < half, j + half, j - half)[None, :]
    xp = ct.gather(X, (t, h, ct.where(j[None, :] < ROT, partner, j[None, :])),
                   mask=h < X.shape[1], padding_value=0.0).astype(ct.float32)
    rot = ct.where(j[None, :] < half, -xp, xp)
    y = ct.where(j[None, :] < ROT, x * c + rot * s, x)
    ct.store(Y, index=(t, 0, 0), tile=y.astype(Y.dtype).reshape((1, BH, BD)))


@ct.kernel
def rope_halves_table_rows(X, Pos, Cos, Sin, Y, BH: C[int], HALF: C[int]):
    """Llama's rotary as most ports write it: token ``t`` of a bf16 ``(T, H, D)`` array, all heads at
    once, the two halves loaded as tiles ``(t, 0, 0)`` and ``(t, 0, 1)`` of shape ``(1, BH, D/2)``,
    the f32 ``Cos`` / ``Sin [max_pos, D/2]`` rows loaded at the token's int64 position (a runtime
    tile index), ``y1 = x1 c - x2 s``, ``y2 = x2 c + x1 s`` stored as two tiles (ragged H)."""
    t = ct.bid(0)
    pos = ct.load(Pos, index=(t,), shape=(1,)).item()
    c = ct.load(Cos, index=(pos, 0), shape=(1, HALF)).reshape((1, 1, HALF))
    s = ct.load(Sin, index=(pos, 0), shape=(1, HALF)).reshape((1, 1, HALF))
    x1 = ct.load(X, index=(t, 0, 0), shape=(1, BH, HALF), padding_mode=ZERO).astype(ct.float32)
    x2 = ct.load(X, index=(t, 0, 1), shape=(1, BH, HALF), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(t, 0, 0), tile=(x1 * c - x2 * s).astype(Y.dtype))
    ct.store(Y, index=(t, 0, 1), tile=(x2 * c + x1 * s).astype(Y.dtype))


@ct.kernel
def rope_interleaved_even_odd_gather(X, Cos, Sin, Y, BT: C[int], HALF: C[int]):
    """GPT-J interleaved rotary of an f16 ``(T, D)`` array: even lanes ``x[2i]`` and odd lanes
    ``x[2i+1]`` read by ``ct.gather`` (ragged T masked), ``y[2i] = e*cos - o*sin``,
    ``y[2i+1] = e*sin + o*cos`` with ``(T, D/2)`` f32 tables, written back by two ``ct.scatter``."""
    b = ct.bid(0)
    t = ct.arange(BT, dtype=ct.int32)[:, None] + b * BT
    i = ct.arange(HALF, dtype=ct.int32)[None, :]
    live = t < X.shape[0]
    e = ct.gather(X, (t, 2 * i), mask=live).astype(ct.float32)
    o = ct.gather(X, (t, 2 * i + 1), mask=live).astype(ct.float32)
    c = ct.load(Cos, index=(b, 0), shape=(BT, HALF), padding_mode=ZERO)
    s = ct.load(Sin, index=(b, 0), shape=(BT, HALF), padding_mode=ZERO)
    ct.scatter(Y, (t, 2 * i), (e * c - o * s).astype(Y.dtype), mask=live)
    ct.scatter(Y, (t, 2 * i + 1), (e * s + o * c).astype(Y.dtype), mask=live)


# ----------------------------------------------------------------------------------------------- gated activations


@ct.kernel
def swiglu_fwd_bf16(A, B, Y, BN: C[int]):
    """SwiGLU forward of bf16 ``(M, N)`` gate / up arrays: ``silu(a) * b`` in f32, cast back (2-D grid,
    ragged both ways)."""
    i, j = ct.bid(0), ct.bid(1)
    a = ct.load(A, index=(i, j), shape=(1, BN)).astype(ct.float32)
    b = ct.load(B, index=(i, j), shape=(1, BN)).astype(ct.float32)
    ct.store(Y, index=(i, j), tile=(a / (1.0 + ct.exp(-a)) * b).astype(Y.dtype))


@ct.kernel
def swiglu_bwd_inplace(DY, A, B, BN: C[int]):
    """Liger's SwiGLU backward in place: from ``dy``, gate ``a`` and up ``b`` (bf16), ``da = dy * b *
    sig(a) * (1 + a * (1 - sig(a)))`` overwrites A and ``db = dy * silu(a)`` overwrites B."""
    i = ct.bid(0)
    dy = ct.load(DY, index=(i, 0), shape=(1, BN)).astype(ct.float32)
    a = ct.load(A, index=(i, 0), shape=(1, BN)).astype(ct.float32)
    b = ct.load(B, index=(i, 0), shape=(1, BN)).astype(ct.float32)
    sig = 1.0 / (1.0 + ct.exp(-a))
    silu = a * sig
    ct.store(A, index=(i, 0), tile=(dy * b * sig * (1.0 + a * (1.0 - sig))).astype(A.dtype))
    ct.store(B, index=(i, 0), tile=(dy * silu).astype(B.dtype))


@ct.kernel
def geglu_tanh_bwd(DY, A, B, DA, DB, BN: C[int]):
    """GeGLU backward with the tanh GELU (fp16): ``g = 0.5 a (1 + tanh(u))``, ``u = sqrt(2/pi) (a +
    0.044715 a^3)``; ``db = dy * g``, ``da = dy * b * (0.5 (1 + tanh(u)) + 0.5 a (1 - tanh(u)^2) u')``."""
    i = ct.bid(0)
    dy = ct.load(DY, index=(i,), shape=(BN,)).astype(ct.float32)
    a = ct.load(A, index=(i,), shape=(BN,)).astype(ct.float32)
    b = ct.load(B, index=(i,), shape=(BN,)).astype(ct.float32)
    k = 0.7978845608028654
    th = ct.tanh(k * (a + 0.044715 * a * a * a))
    g = 0.5 * a * (1.0 + th)
    dg = 0.5 * (1.0 + th) + 0.5 * a * (1.0 - th * th) * k * (1.0 + 3.0 * 0.044715 * a * a)
    ct.store(DB, index=(i,), tile=(dy * g).astype(DB.dtype))
    ct.store(DA, index=(i,), tile=(dy * b * dg).astype(DA.dtype))


# ----------------------------------------------------------------------------------------------- optimizer


@ct.kernel
def adamw_step_inplace(P, G, M, V, lr: float, beta1: float, beta2: float, eps: float, weight_decay: float,
                       step: int, BN: C[int]):
    """A fused AdamW step in place over a flat parameter (ragged length): f32 master weights ``P``,
    bf16 gradients ``G``, f32 moments ``M`` / ``V``; decoupled weight decay ``p *= 1 - lr*wd``; bias
    corrections ``1 - beta**step`` from the runtime step count (``**`` of scalars)."""
    i = ct.bid(0)
    p = ct.load(P, index=(i,), shape=(BN,))
    g = ct.load(G, index=(i,), shape=(BN,)).astype(ct.float32)
    m = ct.load(M, index=(i,), shape=(BN,))
    v = ct.load(V, index=(i,), shape=(BN,))
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    bc1 = 1.0 - beta1 ** step
    bc2 = 1.0 - beta2 ** step
    p = p * (1.0 - lr * weight_decay)
    p = p - lr * (m / bc1) / (ct.sqrt(v / bc2) + eps)
    ct.store(P, index=(i,), tile=p)
    ct.store(M, index=(i,), tile=m)
    ct.store(V, index=(i,), tile=v)


# ----------------------------------------------------------------------------------------------- quantization


@ct.kernel
def quant_fp8_per_group_1x128(X, Q, S, BM: C[int], GS: C[int]):
    """DeepSeek's activation quantization: a ``(BM, GS)`` tile of bf16 ``X [M, K]`` (ragged M), per
    row of the group ``amax``, scale ``max(amax, 1e-4) / 448``, ``q = x / scale`` saturated to e4m3
    by the conversion; the f32 scale stored into ``S [M, K / GS]`` at ``(row, group)``."""
    i, g = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, g), shape=(BM, GS), padding_mode=ZERO).astype(ct.float32)
    amax = ct.max(ct.abs(x), axis=1, keepdims=True)
    scale = ct.maximum(amax, 1e-4) / 448.0
    ct.store(Q, index=(i, g), tile=(x / scale).astype(ct.float8_e4m3fn))
    ct.store(S, index=(i, g), tile=scale)


@ct.kernel
def dequant_fp8_weight_blocks(Q, S, Y, BLK: C[int]):
    """DeepSeek's weight dequantization: ``y = q * s[i, j]`` for the ``(BLK, BLK)`` block ``(i, j)``
    of an e4m3 weight (ragged on both axes), one f32 scale per block, bf16 out."""
    i, j = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(i, j), shape=(BLK, BLK), padding_mode=ZERO).astype(ct.float32)
    s = ct.load(S, index=(i, j), shape=(1, 1))
    ct.store(Y, index=(i, j), tile=(q * s).astype(Y.dtype))


@ct.kernel
def quant_int8_per_token_saturating(X, Q, S, BN: C[int]):
    """Per-token int8 quantization of an f16 row with the scale ``amax / 127`` (a zero row: 1) and
    ``q = round-half-away(x / scale)`` clamped to ``[-127, 127]`` by the user before the int8
    conversion; the f32 scale stored per row (ragged columns)."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    amax = ct.max(ct.abs(x), axis=1, keepdims=True)
    scale = ct.where(amax > 0.0, amax / 127.0, 1.0)
    y = x / scale
    q = ct.where(y >= 0.0, ct.floor(y + 0.5), -ct.floor(-y + 0.5))
    q = ct.minimum(ct.maximum(q, -127.0), 127.0)
    ct.store(Q, index=(r, 0), tile=q.astype(ct.int8))
    ct.store(S, index=(r,), tile=scale.reshape((1,)))


@ct.kernel
def quant_int8_cast_saturates(X, Q, inv_scale: float, BN: C[int]):
    """Per-tensor int8 quantization relying on the conversion alone: ``(x * inv_scale).astype(int8)``
    with no clamp by the user (``ftoi`` truncates toward zero and saturates: 300.0 -> 127, -300.0 ->
    -128; NaN -> 0), f32 in, ragged length."""
    i = ct.bid(0)
    ct.store(Q, index=(i,), tile=(ct.load(X, index=(i,), shape=(BN,)) * inv_scale).astype(ct.int8))


@ct.kernel
def image_to_uint8_saturating(X, Y, BM: C[int], BN: C[int]):
    """An f16 image in roughly ``[-0.5, 1.5]`` to bytes: ``(x * 255 + 0.5).astype(uint8)`` (negative
    values saturate to 0, values past 255 to 255), a 2-D tile, ragged both ways."""
    i, j = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(i, j), shape=(BM, BN)).astype(ct.float32)
    ct.store(Y, index=(i, j), tile=(x * 255.0 + 0.5).astype(ct.uint8))


# ----------------------------------------------------------------------------------------------- argmin / argmax / counting / scans


@ct.kernel
def argmin_ties_long_rows_bf16(X, Idx, Val, BN: C[int]):
    """The first index of a bf16 row's minimum over a loop of ``BN`` tiles (ragged, +inf padding):
    per tile ``ct.min`` / ``ct.argmin``, the running best replaced only by a strictly smaller value
    (ties keep the earlier tile's index); int32 index and f32 value out."""
    r = ct.bid(0)
    best = float("inf")
    best_i = 0
    for k in range(ct.num_tiles(X, axis=1, shape=(1, BN))):
        x = ct.load(X, index=(r, k), shape=(1, BN), padding_mode=POS_INF).astype(ct.float32)
        v = ct.min(x)
        j = ct.argmin(x).astype(ct.int32) + k * BN
        take = v < best
        best_i = ct.where(take, j, best_i)
        best = ct.where(take, v, best)
    ct.store(Idx, index=(r,), tile=ct.reshape(best_i, (1,)))
    ct.store(Val, index=(r,), tile=ct.reshape(best, (1,)))


@ct.kernel
def row_max_with_index_multi_row(X, Val, Idx, BM: C[int], BN: C[int]):
    """Max-with-index for ``BM`` f16 rows at once over a loop of ``(BM, BN)`` tiles (ragged rows and
    columns, -inf padding): per tile ``ct.max`` / ``ct.argmax`` along axis 1 and a per-row running
    best (strictly greater replaces: first index on ties); f16 value and int64 index out."""
    b = ct.bid(0)
    best = ct.full((BM,), -float("inf"), dtype=ct.float32)
    best_i = ct.zeros((BM,), dtype=ct.int64)
    for k in range(ct.num_tiles(X, axis=1, shape=(BM, BN))):
        x = ct.load(X, index=(b, k), shape=(BM, BN), padding_mode=NEG_INF).astype(ct.float32)
        v = ct.max(x, axis=1)
        j = ct.argmax(x, axis=1).astype(ct.int64) + k * BN
        take = v > best
        best_i = ct.where(take, j, best_i)
        best = ct.where(take, v, best)
    ct.store(Val, index=(b,), tile=best.astype(Val.dtype))
    ct.store(Idx, index=(b,), tile=best_i)


@ct.kernel
def bincount_weighted_atomic(Ids, Wt, Counts, Sums, BN: C[int]):
    """``torch.bincount(ids)`` and ``bincount(ids, weights)``: int32 ids of a ragged 1-D array, the
    tail masked; ``Counts [nbins]`` int32 and ``Sums [nbins]`` f32 by ``ct.atomic_add``."""
    i = ct.bid(0)
    lane = ct.arange(BN, dtype=ct.int32) + i * BN
    live = lane < Ids.shape[0]
    ids = ct.load(Ids, index=(i,), shape=(BN,), padding_mode=ZERO)
    w = ct.load(Wt, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.atomic_add(Counts, ids, ct.where(live, 1, 0).astype(ct.int32))
    ct.atomic_add(Sums, ids, ct.where(live, w, 0.0))


@ct.kernel
def exclusive_cumsum_long_carry(X, Y, BN: C[int]):
    """One program's exclusive prefix sum over a long f32 1-D array (a loop of ``BN`` tiles): each
    tile's inclusive ``ct.cumsum`` minus itself plus the carry, the carry advanced by the tile's sum
    (ragged tail zero-padded)."""
    carry = 0.0
    for k in range(ct.num_tiles(X, axis=0, shape=(BN,))):
        x = ct.load(X, index=(k,), shape=(BN,), padding_mode=ZERO)
        c = ct.cumsum(x, axis=0)
        ct.store(Y, index=(k,), tile=c - x + carry)
        carry = carry + ct.sum(x)


@ct.kernel
def kv_cache_scatter_slots(K, Slots, Cache, BT: C[int], BD: C[int]):
    """vLLM's ``reshape_and_cache``: token ``t``'s f16 key row written to row ``Slots[t]`` (int64) of
    the paged cache by ``ct.scatter``; padding tokens have slot -1 and are masked off, as are the
    ragged tail tokens and columns; the other cache rows keep their contents."""
    b = ct.bid(0)
    slot = ct.load(Slots, index=(b,), shape=(BT,), padding_mode=ZERO)
    t = ct.arange(BT, dtype=ct.int32) + b * BT
    live = (t < K.shape[0]) & (slot >= 0)
    k = ct.load(K, index=(b, 0), shape=(BT, BD), padding_mode=ZERO)
    cols = ct.arange(BD, dtype=ct.int32)[None, :]
    ct.scatter(Cache, (slot[:, None], cols), k, mask=live[:, None] & (cols < K.shape[1]))


@ct.kernel
def masked_select_compaction(X, M, Y, Count, BN: C[int]):
    """``torch.masked_select`` of a 1-D f32 array in one program: per tile the kept elements' output
    positions are ``carry + cumsum(mask) - 1`` (a bool mask as int32), written by a masked
    ``ct.scatter``; the carry advances by the tile's count, stored at the end (ragged length)."""
    carry = 0
    for k in range(ct.num_tiles(X, axis=0, shape=(BN,))):
        x = ct.load(X, index=(k,), shape=(BN,), padding_mode=ZERO)
        m = ct.load(M, index=(k,), shape=(BN,), padding_mode=ZERO).astype(ct.int32)
        ct.scatter(Y, ct.cumsum(m, axis=0) - 1 + carry, x, mask=m != 0)
        carry = carry + ct.sum(m)
    ct.store(Count, index=(0,), tile=ct.reshape(carry, (1,)))


# ----------------------------------------------------------------------------------------------- dropout


@ct.kernel
def dropout_given_mask_residual(X, Mask, R, Y, scale: float, BN: C[int]):
    """``y = residual + x * mask * scale`` (dropout with a given uint8 keep mask and scale
    ``1 / (1 - p)``), bf16 x and residual, f32 out (ragged length)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,)).astype(ct.float32)
    m = ct.load(Mask, index=(i,), shape=(BN,))
    r = ct.load(R, index=(i,), shape=(BN,)).astype(ct.float32)
    ct.store(Y, index=(i,), tile=r + ct.where(m != 0, x * scale, 0.0))


@ct.kernel
def dropout_bool_mask_bwd_f16(DY, Mask, DX, p: float, BN: C[int]):
    """Dropout backward with a bool mask: ``dx = dy * mask / (1 - p)`` in f16 (ragged length)."""
    i = ct.bid(0)
    dy = ct.load(DY, index=(i,), shape=(BN,))
    m = ct.load(Mask, index=(i,), shape=(BN,))
    ct.store(DX, index=(i,), tile=ct.where(m, dy * (1.0 / (1.0 - p)), 0.0).astype(DX.dtype))


# ----------------------------------------------------------------------------------------------- the table


_add("rmsnorm_fwd_rows_block_rstd", rmsnorm_fwd_rows_block_rstd,
     [((13, 200), BF16), ((200,), F32), ((13, 200), BF16), ((13,), F32), 1e-6, 4, 256], (4,), "simt", outputs=(2, 3))
_add("rmsnorm_bwd_partial_dgamma", rmsnorm_bwd_partial_dgamma,
     [((11, 150), F16), ((11, 150), F16), ((150,), F32), ((11,), F32), ((11, 150), F16), ((3, 150), F32), 4, 256],
     (3,), "simt", outputs=(4, 5))
_add("dgamma_reduce_columns", dgamma_reduce_columns, [((37, 150), F32), ((150,), BF16), 16, 64], (3,), "simt",
     outputs=(1,))
_add("layernorm_bwd_recompute_atomic_dwdb", layernorm_bwd_recompute_atomic_dwdb,
     [((6, 100), BF16), ((6, 100), BF16), ((100,), BF16), ((6, 100), BF16), ((100,), F32), ((100,), F32), 1e-5, 128],
     (6,), "simt", outputs=(3, 4, 5))
_add("group_norm_nchw", group_norm_nchw,
     [((2, 8, 50), F16), ((8,), F32), ((8,), F32), ((2, 8, 50), F16), 1e-5, 4, 2, 64], (2, 4), "simt", outputs=(3,))
_add("masked_mean_pool_l2_normalize", masked_mean_pool_l2_normalize,
     [((3, 37, 48), BF16), ((3, 37), I64), ((3, 48), F32), 1e-12, 16, 64], (3,), "simt", outputs=(2,))
_add("log_softmax_bwd_rows", log_softmax_bwd_rows, [((5, 300), F16), ((5, 300), F16), ((5, 300), F16), 512], (5,),
     "simt", outputs=(2,))
_add("cross_entropy_fwd_mean_atomic", cross_entropy_fwd_mean_atomic,
     [((6, 1000), BF16), ((6,), I64), ((6,), F32), ((1,), F32), ((1,), I32), -100, 256], (6,), "simt",
     outputs=(2, 3, 4))
_add("cross_entropy_bwd_2d_grid", cross_entropy_bwd_2d_grid,
     [((6, 1000), BF16), ((6,), I64), ((6,), F32), ((1,), F32), ((1,), I32), ((6, 1000), F16), -100, 256], (6, 4),
     "simt", outputs=(5,))
_add("rope_partial_rotary_positions", rope_partial_rotary_positions,
     [((5, 3, 32), BF16), ((5,), I64), ((64, 8), F32), ((64, 8), F32), ((5, 3, 32), BF16), 16, 4, 32], (5,), "simt",
     outputs=(4,))
_add("rope_halves_table_rows", rope_halves_table_rows,
     [((5, 3, 32), BF16), ((5,), I64), ((64, 16), F32), ((64, 16), F32), ((5, 3, 32), BF16), 4, 16], (5,), "simt",
     outputs=(4,))
_add("rope_interleaved_even_odd_gather", rope_interleaved_even_odd_gather,
     [((21, 32), F16), ((21, 16), F32), ((21, 16), F32), ((21, 32), F16), 8, 16], (3,), "simt", outputs=(3,))
_add("swiglu_fwd_bf16", swiglu_fwd_bf16, [((5, 300), BF16), ((5, 300), BF16), ((5, 300), BF16), 128], (5, 3), "simt",
     outputs=(2,))
_add("swiglu_bwd_inplace", swiglu_bwd_inplace, [((4, 200), BF16), ((4, 200), BF16), ((4, 200), BF16), 256], (4,),
     "simt", outputs=(1, 2))
_add("geglu_tanh_bwd", geglu_tanh_bwd,
     [((300,), F16), ((300,), F16), ((300,), F16), ((300,), F16), ((300,), F16), 128], (3,), "simt", outputs=(3, 4))
_add("adamw_step_inplace", adamw_step_inplace,
     [((1000,), F32), ((1000,), BF16), ((1000,), F32), ((1000,), F32), 1e-3, 0.9, 0.999, 1e-8, 0.01, 7, 256], (4,),
     "simt", outputs=(0, 2, 3))
_add("quant_fp8_per_group_1x128", quant_fp8_per_group_1x128,
     [((10, 256), BF16), ((10, 256), "float8_e4m3fn"), ((10, 2), F32), 8, 128], (2, 2), "simt", outputs=(1, 2))
_add("dequant_fp8_weight_blocks", dequant_fp8_weight_blocks,
     [((40, 72), "float8_e4m3fn"), ((2, 3), F32), ((40, 72), BF16), 32], (2, 3), "simt", outputs=(2,))
_add("quant_int8_per_token_saturating", quant_int8_per_token_saturating,
     [((5, 100), F16), ((5, 100), "int8"), ((5,), F32), 128], (5,), "simt", outputs=(1, 2))
_add("quant_int8_cast_saturates", quant_int8_cast_saturates, [((300,), F32), ((300,), "int8"), 100.0, 128], (3,), "simt",
     outputs=(1,))
_add("image_to_uint8_saturating", image_to_uint8_saturating, [((20, 70), F16), ((20, 70), "uint8"), 8, 32], (3, 3),
     "simt", outputs=(1,))
_add("argmin_ties_long_rows_bf16", argmin_ties_long_rows_bf16, [((4, 1000), BF16), ((4,), I32), ((4,), F32), 128],
     (4,), "simt", outputs=(1, 2))
_add("row_max_with_index_multi_row", row_max_with_index_multi_row,
     [((7, 300), F16), ((7,), F16), ((7,), I64), 4, 64], (2,), "simt", outputs=(1, 2))
_add("bincount_weighted_atomic", bincount_weighted_atomic,
     [((300,), I32), ((300,), F32), ((17,), I32), ((17,), F32), 128], (3,), "simt", outputs=(2, 3))
_add("exclusive_cumsum_long_carry", exclusive_cumsum_long_carry, [((1000,), F32), ((1000,), F32), 128], (1,), "simt",
     outputs=(1,))
_add("kv_cache_scatter_slots", kv_cache_scatter_slots, [((13, 40), F16), ((13,), I64), ((32, 40), F16), 8, 64], (2,),
     "simt", outputs=(2,))
_add("masked_select_compaction", masked_select_compaction, [((300,), F32), ((300,), "bool_"), ((300,), F32), ((1,), I32), 128],
     (1,), "simt", outputs=(2, 3))
_add("dropout_given_mask_residual", dropout_given_mask_residual,
     [((300,), BF16), ((300,), "uint8"), ((300,), BF16), ((300,), F32), 1.25, 128], (3,), "simt", outputs=(3,))
_add("dropout_bool_mask_bwd_f16", dropout_bool_mask_bwd_f16,
     [((300,), F16), ((300,), "bool_"), ((300,), F16), 0.25, 128], (3,), "simt", outputs=(2,))
