"""Tile programs whose second dot reads a K loop's result after the loop (GEMM then GEMM), for the GEMM
kernel's second dot on the accumulator (:mod:`tileorch.transforms.tileas.epilogue_dot`): a low-rank chain
with an epilogue on the second accumulator, a fused MLP whose hidden width is one tile (SiLU and ReLU
between the dots, biases on both layers, a mask on the hidden positions), and the shapes the lowering refuses at
the program's line (a rank beyond one tile, an A that reads another tile, a second accumulator that starts from a
loaded tile, E loaded with NaN padding, scaled or at a fixed column tile, second dots of 8-bit or mixed operand
types, a first dot whose B is read at the column tile); a hidden activation reading the column tile (the kernel
then keeps one N tile per work tile); E stored K-major ``[N2, R]`` (nn.Linear's layout) read by a transpose, a
permute or a transposed view, and both weights of an MLP in that layout.  Driven by
tests/unit/test_epilogue_dot_programs.py (paths, remarks, refusals, the PTX emulator against numpy) and
tests/gpu/test_epilogue_dot_gpu.py (torch fp32).  Importing it needs ``cuda.tile``."""

from __future__ import annotations

import cuda.tile as ct

C = ct.Constant


@ct.kernel
def lowrank_scaled_bias(X, La, Lb, bias, Y, alpha: float, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """``alpha * ((x @ A) rounded to f16) @ B + bias[n]``: the epilogue on the second accumulator reads a
    scalar argument and a column vector at the output's column tile."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    y = ct.mma(t.astype(ct.float16), ct.load(Lb, index=(0, bn), shape=(R, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    b = ct.load(bias, index=(bn,), shape=(tn,))
    ct.store(Y, index=(bm, bn), tile=(alpha * y + b[None, :]).astype(Y.dtype))


@ct.kernel
def mlp_silu_one_hidden_tile(X, W1, W2, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """A fused MLP ``silu(x @ W1) @ W2`` whose hidden width ``H`` is one tile: SiLU on the first
    accumulator, in f32, before the cast to f16."""
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, 0), shape=(tk, H)), h)
    a = (h / (1.0 + ct.exp(-h))).astype(ct.float16)
    y = ct.mma(a, ct.load(W2, index=(0, bn), shape=(H, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def mlp_relu_scaled(X, W1, W2, Y, s: float, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """``relu(s * (x @ W1)) @ W2`` into an f32 output, the hidden width one tile of 128."""
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, 0), shape=(tk, H)), h)
    a = ct.maximum(h * s, 0.0).astype(ct.float16)
    y = ct.mma(a, ct.load(W2, index=(0, bn), shape=(H, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y)



@ct.kernel
def mlp_exp_masked_hidden(X, W1, W2, Y, h_valid: int, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """``exp(x W1 / 8)`` on the hidden columns below ``h_valid`` only (a mask on the positions between the dots,
    zero elsewhere, where the exponential is 1) times ``W2``: the hidden width one tile."""
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, 0), shape=(tk, H)), h)
    live = ct.arange(H, dtype=ct.int32)[None, :] < h_valid
    a = ct.where(live, ct.exp(h * 0.125), 0.0).astype(ct.float16)
    y = ct.mma(a, ct.load(W2, index=(0, bn), shape=(H, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))

@ct.kernel
def refused_rank_tile_one(X, La, Lb, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Refused: the second dot reads B's row tile 1 (a rank beyond one tile)."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    y = ct.mma(t.astype(ct.float16), ct.load(Lb, index=(1, bn), shape=(R, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def refused_a_reads_a_tile(X, La, G, Lb, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Refused: the second dot's A multiplies the accumulator by a loaded tile (not a function of it)."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    g = ct.load(G, index=(bm, 0), shape=(tm, R)).astype(ct.float32)
    y = ct.mma((t * g).astype(ct.float16), ct.load(Lb, index=(0, bn), shape=(R, tn)),
               ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def refused_second_acc_loaded(X, La, Lb, Z, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Refused: the second dot accumulates into a loaded tile."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    z = ct.load(Z, index=(bm, bn), shape=(tm, tn))
    y = ct.mma(t.astype(ct.float16), ct.load(Lb, index=(0, bn), shape=(R, tn)), z)
    ct.store(Y, index=(bm, bn), tile=y)


@ct.kernel
def lowrank_e_transposed(X, La, LbT, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """E given ``[N2, R]`` (K-major) and its ``[tn, R]`` tile read transposed by ``ct.transpose``."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    e = ct.load(LbT, index=(bn, 0), shape=(tn, R))
    y = ct.mma(t.astype(ct.float16), ct.transpose(e), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def k_range_from_tile_one(X, La, Lb, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """The K loop skips its first tile (the program's own K range, ``range(1, K tiles)``) beside the second dot: the
    kernel evaluates the trip count per work tile (refused until session 29)."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(1, ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    y = ct.mma(t.astype(ct.float16), ct.load(Lb, index=(0, bn), shape=(R, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))



@ct.kernel
def refused_e_padded_nan(X, La, Lb, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Refused: E loaded with ``padding_mode=NAN`` (its rows past a ragged rank would be NaN; TMA gives zeros)."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    e = ct.load(Lb, index=(0, bn), shape=(R, tn), padding_mode=ct.PaddingMode.NAN)
    y = ct.mma(t.astype(ct.float16), e, ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def refused_e_computed(X, La, Lb, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Refused: the second dot's B is computed from E's tile (scaled), not E's tile as loaded."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    e = ct.load(Lb, index=(0, bn), shape=(R, tn)) * 2.0
    y = ct.mma(t.astype(ct.float16), e.astype(ct.float16), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def refused_e_fixed_column(X, La, Lb, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Refused: E's column tile is the constant 0 while the output's is program id 1."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    y = ct.mma(t.astype(ct.float16), ct.load(Lb, index=(0, 0), shape=(R, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def lowrank_e_view_transposed(X, La, LbT, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """E given ``[N2, R]`` (K-major) and read through a transposed view (``order=(1, 0)``), no permute."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    e = ct.load(LbT, index=(0, bn), shape=(R, tn), order=(1, 0))
    y = ct.mma(t.astype(ct.float16), e, ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))

@ct.kernel
def mlp_biases_relu(X, W1, b1, W2, b2, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """A fused MLP layer pair with biases, ``relu(x W1 + b1) W2 + b2``, the hidden width one tile: the first
    bias is a vector along the first accumulator's columns, read between the dots."""
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, 0), shape=(tk, H)), h)
    a = ct.maximum(h + ct.load(b1, index=(0,), shape=(H,))[None, :], 0.0).astype(ct.float16)
    y = ct.mma(a, ct.load(W2, index=(0, bn), shape=(H, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=(y + ct.load(b2, index=(bn,), shape=(tn,))[None, :]).astype(Y.dtype))


@ct.kernel
def lowrank_e_view_and_tile_transposed(X, La, Lb, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """E given ``[R, N2]`` (N-major) read through a transposed view as a ``[tn, R]`` tile and transposed back:
    the two flips cancel."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    e = ct.load(Lb, index=(bn, 0), shape=(tn, R), order=(1, 0))
    y = ct.mma(t.astype(ct.float16), ct.transpose(e), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def mlp_nn_linear_weights(X, W1, b1, W2, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """A fused MLP ``silu(x W1^T + b1) W2^T`` with both weights in nn.Linear's layout (``W1 [H, K]``,
    ``W2 [N, H]``: K-major operands of both dots), W1's ``[H, tk]`` tiles turned by ``ct.transpose`` and
    W2's ``[tn, H]`` tile by ``ct.permute``; the hidden width one tile, the operand type X's (f16 or bf16)."""
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.transpose(ct.load(W1, index=(0, k), shape=(H, tk))),
                   h)
    h = h + ct.load(b1, index=(0,), shape=(H,))[None, :]
    a = (h / (1.0 + ct.exp(-h))).astype(X.dtype)
    w2 = ct.permute(ct.load(W2, index=(bn, 0), shape=(tn, H)), (1, 0))
    y = ct.mma(a, w2, ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def refused_e8_second_dot(X, La, LbT, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Refused: the second dot's operands are float8 e4m3 (the hidden values cast to e4m3, E's tile e4m3, read
    K-major): its register A fragment is not the accumulator's layout."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    e = ct.transpose(ct.load(LbT, index=(bn, 0), shape=(tn, R)))
    y = ct.mma(t.astype(LbT.dtype), e, ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def refused_mixed_dot_types(X, La, Lb, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Refused: an f16 first dot and a bf16 second dot (the hidden values cast to E's bf16): the kernel's two
    dots read one operand type."""
    bm, bn = ct.bid(0), ct.bid(1)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        t = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(La, index=(k, 0), shape=(tk, R)), t)
    y = ct.mma(t.astype(Lb.dtype), ct.load(Lb, index=(0, bn), shape=(R, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def lora_linear(X, W, La, Lb, Y, s: float, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """LoRA, ``y = x W + ((s x A) rounded) B`` in three dots: the main dot and the low-rank one share x's tile in
    the K loop (``W [K, N]``, ``A [K, R]``); after it the scaled low-rank product, rounded to x's type, is the A
    of a third dot whose accumulator is the main one (``ct.mma(.., acc)``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk))
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(tk, tn)), acc)
        t = ct.mma(x, ct.load(La, index=(k, 0), shape=(tk, R)), t)
    y = ct.mma((t * s).astype(X.dtype), ct.load(Lb, index=(0, bn), shape=(R, tn)), acc)
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def lora_nn_linear(X, W, La, Lb, bias, Y, s: float, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """LoRA with PEFT's weight layouts (``W [N, K]``, ``lora_A [R, K]``, ``lora_B [N, R]``: every B K-major) and
    a bias: ``y = x W^T + bias + ((s x A^T) rounded) B^T``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk))
        acc = ct.mma(x, ct.transpose(ct.load(W, index=(bn, k), shape=(tn, tk))), acc)
        t = ct.mma(x, ct.transpose(ct.load(La, index=(0, k), shape=(R, tk))), t)
    y = ct.mma((t * s).astype(X.dtype), ct.transpose(ct.load(Lb, index=(bn, 0), shape=(tn, R))), acc)
    ct.store(Y, index=(bm, bn), tile=(y + ct.load(bias, index=(bn,), shape=(tn,))[None, :]).astype(Y.dtype))


@ct.kernel
def lora_added_after(X, W, La, Lb, Y, s: float, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """LoRA as often written, ``y = x W + s ((x A) rounded) B``: the low-rank product's dot starts from zeros and is
    scaled and added to the main accumulator after it (the second dot into an accumulator of its own, the
    epilogue reading both)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk))
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(tk, tn)), acc)
        t = ct.mma(x, ct.load(La, index=(k, 0), shape=(tk, R)), t)
    lo = ct.mma(t.astype(X.dtype), ct.load(Lb, index=(0, bn), shape=(R, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=(acc + s * lo).astype(Y.dtype))


@ct.kernel
def refused_lora_onto_a_loaded_tile(X, W, La, Lb, Z, Y, R: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Refused: the low-rank product's dot accumulates into a loaded tile (neither the main accumulator nor
    zeros)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    t = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        x = ct.load(X, index=(bm, k), shape=(tm, tk))
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(tk, tn)), acc)
        t = ct.mma(x, ct.load(La, index=(k, 0), shape=(tk, R)), t)
    z = ct.load(Z, index=(bm, bn), shape=(tm, tn))
    lo = ct.mma(t.astype(X.dtype), ct.load(Lb, index=(0, bn), shape=(R, tn)), z)
    ct.store(Y, index=(bm, bn), tile=(acc + lo).astype(Y.dtype))


@ct.kernel
def mlp_hidden_scaled_by_column_tile(X, W1, W2, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """A fused MLP whose hidden activation reads the program's column tile (``relu(x W1) * (bn + 1)``): the
    second dot's A differs per N tile, so the kernel keeps one N tile per work tile (no loop over N tiles)."""
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, 0), shape=(tk, H)), h)
    a = (ct.maximum(h, 0.0) * (bn + 1)).astype(ct.float16)
    y = ct.mma(a, ct.load(W2, index=(0, bn), shape=(H, tn)), ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def refused_first_b_at_column_tile(X, W1, W2, Y, H: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Refused: the first dot's B is read at the program's column tile ``(k, bn)``, not at column tile 0 (the
    kernel reads the ``[K, R]`` block whole at column 0; sessions 24-25 accepted it and read column 0)."""
    bm, bn = ct.bid(0), ct.bid(1)
    h = ct.zeros((tm, H), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk)), ct.load(W1, index=(k, bn), shape=(tk, H)), h)
    y = ct.mma(ct.maximum(h, 0.0).astype(ct.float16), ct.load(W2, index=(0, bn), shape=(H, tn)),
               ct.zeros((tm, tn), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))
