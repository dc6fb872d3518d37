"""The thirty-sixth user sweep (session 44): cuTile programs of LLM inference / training stacks written the way their
authors write them in cuTile -- scaled-mm GEMMs (fp8 e4m3 with a per-token and a per-channel scale vector, int8 with
bias, per-tensor fp8 scales as scalars), GEMMs with bias + GELU(tanh) / SiLU / a residual epilogue, gated pairs (two
dots sharing the activation tile: SwiGLU and GeGLU, also at decode shapes), grouped GEMM over an array of tile-aligned
group offsets, split-K into a workspace then a second reduction program, LoRA (``x W + s (x A) B``: a rank-16 dot
chained after the K loop), a fused QKV projection storing into three outputs, the weight gradient ``X^T dY`` read
through ``order``, 4-D batched matmul with bf16 in and f16 out, decode GEMVs with M = 3 and 5; and the memory-bound
kernels around them: residual add + RMSNorm with two outputs over several column tiles, RoPE on Q and K at position
ids (cos / sin rows gathered), GPT-J interleaved RoPE, KV-cache append (rows scattered at positions, and paged by a
slot mapping with -1 for padding tokens), per-token int8 and per-channel fp8 quantization with their amax
reductions, dequantization, RMSNorm + int8 quantize fused, cross-entropy forward over a vocabulary loop (online
logsumexp, ignore_index), embedding backward by atomic adds, top-4 over rows, a MoE router (softmax + top-2,
renormalised), softmax with a temperature and a mask, layernorm backward's dgamma / dbeta as partial sums then a
reduction program, an AdamW step over four tensors (bf16 gradient), a bf16 sequence mean pool into f16, GeLU-and-mul
over a ragged N by gathers. Shapes are the ragged ones users launch.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep36_compile.py, tests/unit/test_user_sweep36_interp.py,
tests/unit/test_user_sweep36_emulated.py, tests/unit/test_user_sweep36_invalid.py (with :data:`INVALID` and
:data:`REJECTED_BY_CUTILE`) and tests/gpu/test_user_sweep36_gpu.py.  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import math

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF
F16, BF16, F32 = "float16", "bfloat16", "float32"
I8, I32 = "int8", "int32"
E4M3 = "float8_e4m3fn"
SQRT_2_OVER_PI = 0.7978845608028654


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


# ----------------------------------------------------------------------------------------------- GEMMs


@ct.kernel
def fp8_scaled_mm_weight_nk_token_channel_scales(A, W, SA, SW, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """vLLM's ``cutlass_scaled_mm`` as a cuTile kernel: fp8 e4m3 activations ``[M, K]`` with a per-token scale
    ``[M]``, the fp8 weight stored ``[N, K]`` (K-major) read as ``[K, N]`` tiles by ``order=(1, 0)`` with a
    per-channel scale ``[N]``; f32 accumulation, bf16 out; M = 100, N = 80, K = 192."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        w = ct.load(W, index=(k, bn), shape=(tk, tn), order=(1, 0), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    sa = ct.load(SA, index=(bm,), shape=(tm,), padding_mode=ZERO)
    sw = ct.load(SW, index=(bn,), shape=(tn,), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=(acc * sa[:, None] * sw[None, :]).astype(C.dtype))


@ct.kernel
def fp8_gemm_per_tensor_scales_as_scalars_f16(A, W, C, scale_a: float, scale_w: float, tm: ConstInt, tn: ConstInt,
                                              tk: ConstInt):
    """Per-tensor fp8: both scales passed as Python floats (torch's ``_scaled_mm`` with scalar scales), the weight
    ``[N, K]`` by ``order``; f16 out, M = 70, N = 96, K = 128."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 0.0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), order=(1, 0), padding_mode=ZERO), acc)
    ct.store(C, index=(bm, bn), tile=(acc * (scale_a * scale_w)).astype(ct.float16))


@ct.kernel
def int8_scaled_mm_bias_f16_out(A, B, SA, SB, Bias, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """W8A8 with bias (SmoothQuant's linear): int8 x int8 into int32, dequantised by a per-token scale ``[M]`` and a
    per-channel scale ``[N]``, plus an f16 bias, f16 out; B ``[K, N]`` as the user has it; M = 90, N = 80, K = 160."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    sa = ct.load(SA, index=(bm,), shape=(tm,), padding_mode=ZERO)
    sb = ct.load(SB, index=(bn,), shape=(tn,), padding_mode=ZERO)
    bias = ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO).astype(ct.float32)
    y = acc.astype(ct.float32) * sa[:, None] * sb[None, :] + bias[None, :]
    ct.store(C, index=(bm, bn), tile=y.astype(C.dtype))


@ct.kernel
def int8_gemm_int32_out_weight_nk(A, W, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The raw int32 product of int8 activations and an int8 ``[N, K]`` weight read by ``order`` (dequantised by the
    caller); M = 100, N = 64, K = 96."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), order=(1, 0), padding_mode=ZERO), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def linear_bias_gelu_tanh_ragged_k_200(X, W, Bias, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A GPT-2 MLP up projection: ``gelu_tanh(x W + b)``, f16 in, f32 bias, f16 out, K = 200 not a multiple of the
    64-wide K tile (the last tile zero padded); M = 130, N = 96."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    h = acc + ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    y = 0.5 * h * (1.0 + ct.tanh(SQRT_2_OVER_PI * (h + 0.044715 * h * h * h)))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def linear_bias_silu_bf16_decode_m7(X, W, Bias, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A decode step's linear + bias + SiLU with 7 tokens in a 16-row tile: bf16 in / out, bf16 bias; N = 200,
    K = 256, grid over N only."""
    bn = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(0, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    h = acc + ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO).astype(ct.float32)[None, :]
    ct.store(Y, index=(0, bn), tile=(h / (1.0 + ct.exp(-h))).astype(ct.bfloat16))


@ct.kernel
def geglu_gate_up_weights_nk_shared_x(X, Wg, Wu, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """GeGLU (Gemma's MLP): ``gelu_tanh(x Wg^T) * (x Wu^T)`` with both ``nn.Linear`` weights ``[N, K]`` read through
    ``order=(1, 0)``, two accumulators fed by one x tile; f16 in / out, M = 90, N = 64, K = 128."""
    bm, bn = ct.bid(0), ct.bid(1)
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        g = ct.mma(x, ct.load(Wg, index=(k, bn), shape=(tk, tn), order=(1, 0), padding_mode=ZERO), g)
        u = ct.mma(x, ct.load(Wu, index=(k, bn), shape=(tk, tn), order=(1, 0), padding_mode=ZERO), u)
    gelu = 0.5 * g * (1.0 + ct.tanh(SQRT_2_OVER_PI * (g + 0.044715 * g * g * g)))
    ct.store(Y, index=(bm, bn), tile=(gelu * u).astype(Y.dtype))


@ct.kernel
def swiglu_pair_decode_m5_bf16(X, Wg, Wu, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The SwiGLU gated pair at a decode shape: 5 tokens (a 16-row tile), ``silu(x Wg) * (x Wu)``, bf16, N = 160,
    K = 192."""
    bn = ct.bid(0)
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(0, k), shape=(tm, tk), padding_mode=ZERO)
        g = ct.mma(x, ct.load(Wg, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), g)
        u = ct.mma(x, ct.load(Wu, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), u)
    ct.store(Y, index=(0, bn), tile=(g / (1.0 + ct.exp(-g)) * u).astype(Y.dtype))


@ct.kernel
def grouped_gemm_tile_aligned_group_starts(X, W, Starts, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Grouped GEMM over a list of problems sharing N and K: group ``g``'s rows are ``X[Starts[g]:Starts[g+1]]``
    (starts multiples of tm, as MoE kernels pad them), its weight ``W[g]``; grid (most M tiles of a group, N tiles,
    groups); a program whose tile starts past its group's end does nothing (an empty group too); f16, G = 4."""
    bm, bn, g = ct.bid(0), ct.bid(1), ct.bid(2)
    start = ct.load(Starts, index=(g,), shape=(1,)).item()
    end = ct.load(Starts, index=(g + 1,), shape=(1,)).item()
    t = start // tm + bm
    if t * tm < end:
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.cdiv(X.shape[1], tk)):
            x = ct.load(X, index=(t, k), shape=(tm, tk), padding_mode=ZERO)
            w = ct.load(W, index=(g, k, bn), shape=(1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
            acc = ct.mma(x, w, acc)
        ct.store(Y, index=(t, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def split_k_partials_into_workspace(A, B, Ws, SPLIT: ConstInt, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Split-K without atomics, first program: split ``s`` (grid axis 2) writes its partial product of K tiles
    ``[s * per, (s + 1) * per)`` into slab ``s`` of an f32 workspace ``[SPLIT, M, N]``; M = 100, N = 80, K = 448
    (7 K tiles in 3 splits: the last split shorter)."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    k_tiles = ct.cdiv(A.shape[1], tk)
    per = ct.cdiv(k_tiles, SPLIT)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(s * per, min(k_tiles, (s + 1) * per)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Ws, index=(s, bm, bn), tile=acc.reshape((1, tm, tn)))


@ct.kernel
def lora_linear_x_w_plus_scaled_x_a_b(X, W, LA, LB, Y, scaling: float, tm: ConstInt, tn: ConstInt, tk: ConstInt,
                                      R: ConstInt):
    """A LoRA linear: ``y = x W + scaling (x A) B`` with rank R = 16: ``x A`` accumulated in the same K loop as
    ``x W`` (two dots sharing the x tile), then the rank-16 product ``(x A) B`` added into the accumulator after the
    loop (a chained small dot); f16, M = 100, N = 80, K = 128."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    xa = ct.zeros((tm, R), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        x = ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
        xa = ct.mma(x, ct.load(LA, index=(k, 0), shape=(tk, R), padding_mode=ZERO), xa)
    b = ct.load(LB, index=(0, bn), shape=(R, tn), padding_mode=ZERO)
    acc = ct.mma((xa * scaling).astype(X.dtype), b, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def fused_qkv_projection_three_outputs(X, Wqkv, Q, K, V, tm: ConstInt, tn: ConstInt, tk: ConstInt,
                                       NQ: ConstInt, NKV: ConstInt):
    """A fused QKV projection: one GEMM over ``Wqkv [K, NQ + 2 NKV]`` whose column tile ``bn`` lands in Q, K or V
    (the tile's output chosen by ``if`` on ``bn``); f16, M = 100, K = 128, NQ = 128, NKV = 64 (GQA)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(Wqkv, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    out = acc.astype(ct.float16)
    if bn < NQ // tn:
        ct.store(Q, index=(bm, bn), tile=out)
    elif bn < (NQ + NKV) // tn:
        ct.store(K, index=(bm, bn - NQ // tn), tile=out)
    else:
        ct.store(V, index=(bm, bn - (NQ + NKV) // tn), tile=out)


@ct.kernel
def weight_grad_x_transposed_by_order(X, DY, DW, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A linear layer's weight gradient ``dW = X^T dY``: X ``[T, K_in]`` read as ``[K_in, T]`` tiles through
    ``order=(1, 0)`` (an M-major A), the reduction over T = 200 tokens; f16 in, f32 out, K_in = 96, N = 80."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for t in range(ct.cdiv(X.shape[0], tk)):
        xt = ct.load(X, index=(bm, t), shape=(tm, tk), order=(1, 0), padding_mode=ZERO)
        acc = ct.mma(xt, ct.load(DY, index=(t, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(DW, index=(bm, bn), tile=acc)


@ct.kernel
def bmm_4d_heads_bf16_in_f16_out(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Batched matmul over ``[batch, heads]``: A ``[2, 3, 50, 64]`` and B ``[2, 3, 64, 40]`` bf16, C f16 (mixed
    dtype: bf16 in, f32 accumulate, f16 out); grid (tiles of one matrix, head, batch)."""
    t, h, z = ct.bid(0), ct.bid(1), ct.bid(2)
    n_n = ct.cdiv(B.shape[3], tn)
    bm, bn = t // n_n, t % n_n
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[3], tk)):
        a = ct.load(A, index=(z, h, bm, k), shape=(1, 1, tm, tk), padding_mode=ZERO).reshape((tm, tk))
        b = ct.load(B, index=(z, h, k, bn), shape=(1, 1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(z, h, bm, bn), tile=acc.astype(ct.float16).reshape((1, 1, tm, tn)))


@ct.kernel
def linear_residual_add_epilogue_bf16(X, W, Res, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """The attention output projection with the residual added in the epilogue: ``y = x W + res``, bf16 in / out,
    the residual read in bf16 and added in f32; M = 77, N = 128, K = 192."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    acc = acc + ct.load(Res, index=(bm, bn), shape=(tm, tn), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(bm, bn), tile=acc.astype(ct.bfloat16))


@ct.kernel
def decode_gemv_m3_weight_nk_bf16(X, W, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """Decode with 3 sequences: ``x [3, K]`` in a 16-row tile times the ``[N, K]`` weight through ``order``, bf16
    in / out; N = 200, K = 512."""
    bn = ct.bid(0)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(0, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), order=(1, 0), padding_mode=ZERO), acc)
    ct.store(Y, index=(0, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def batched_linear_bias_gelu_3d_activations(X, W, Bias, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A linear layer on ``[B, S, K]`` activations without flattening them: batch on grid axis 2, one ``[K, N]``
    weight, bias + GELU(tanh), f16 in / out; B = 2, S = 70, K = 128, N = 96."""
    bm, bn, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], tk)):
        x = ct.load(X, index=(z, bm, k), shape=(1, tm, tk), padding_mode=ZERO).reshape((tm, tk))
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    h = acc + ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    y = 0.5 * h * (1.0 + ct.tanh(SQRT_2_OVER_PI * (h + 0.044715 * h * h * h)))
    ct.store(Y, index=(z, bm, bn), tile=y.astype(Y.dtype).reshape((1, tm, tn)))


@ct.kernel
def gemm_fp8_e4m3_output_quantized(A, B, C, inv_scale: float, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A GEMM whose output is quantized to fp8 e4m3 in the epilogue (the next layer's fp8 input, times the inverse of
    its scale, a runtime float): f16 in, M = 100, N = 80, K = 128."""
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(ct.bid(0), k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, ct.bid(1)), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=(acc * inv_scale).astype(ct.float8_e4m3fn))



@ct.kernel
def linear_k_100_rows_of_200_bytes(X, W, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A linear layer with K = 100 (f16 rows of 200 bytes: not a multiple of TMA's 16-byte pitch), M = 90,
    N = 64, f32 out -- a hidden size users do launch (a small adapter, a classifier head)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


_add("fp8_scaled_mm_weight_nk_token_channel_scales", fp8_scaled_mm_weight_nk_token_channel_scales,
     [_a((100, 192), E4M3), _a((80, 192), E4M3), _a((100,)), _a((80,)), _a((100, 80), BF16), 64, 64, 64], (2, 2),
     "gemm", outputs=(4,))
_add("fp8_gemm_per_tensor_scales_as_scalars_f16", fp8_gemm_per_tensor_scales_as_scalars_f16,
     [_a((70, 128), E4M3), _a((96, 128), E4M3), _a((70, 96), F16), 0.02, 0.05, 64, 64, 64], (2, 2), "gemm",
     outputs=(2,))
_add("int8_scaled_mm_bias_f16_out", int8_scaled_mm_bias_f16_out,
     [_a((90, 160), I8), _a((160, 80), I8), _a((90,)), _a((80,)), _a((80,), F16), _a((90, 80), F16), 64, 64, 64],
     (2, 2), "gemm", outputs=(5,))
_add("int8_gemm_int32_out_weight_nk", int8_gemm_int32_out_weight_nk,
     [_a((100, 96), I8), _a((64, 96), I8), _a((100, 64), I32), 64, 64, 32], (2, 1), "gemm", outputs=(2,))
_add("linear_bias_gelu_tanh_ragged_k_200", linear_bias_gelu_tanh_ragged_k_200,
     [_a((130, 200), F16), _a((200, 96), F16), _a((96,)), _a((130, 96), F16), 64, 64, 64], (3, 2), "gemm",
     outputs=(3,))
_add("linear_bias_silu_bf16_decode_m7", linear_bias_silu_bf16_decode_m7,
     [_a((7, 256), BF16), _a((256, 200), BF16), _a((200,), BF16), _a((7, 200), BF16), 16, 64, 64], (4,), "gemm",
     outputs=(3,))
_add("geglu_gate_up_weights_nk_shared_x", geglu_gate_up_weights_nk_shared_x,
     [_a((90, 128), F16), _a((64, 128), F16), _a((64, 128), F16), _a((90, 64), F16), 64, 64, 64], (2, 1), "gemm",
     outputs=(3,))
_add("swiglu_pair_decode_m5_bf16", swiglu_pair_decode_m5_bf16,
     [_a((5, 192), BF16), _a((192, 160), BF16), _a((192, 160), BF16), _a((5, 160), BF16), 16, 64, 64], (3,),
     "gemm", outputs=(3,))
_add("grouped_gemm_tile_aligned_group_starts", grouped_gemm_tile_aligned_group_starts,
     [_a((292, 128), F16), _a((4, 128, 80), F16), _a((5,), I32), _a((292, 80), F16), 64, 64, 64], (2, 2, 4),
     "gemm", outputs=(3,))
_add("split_k_partials_into_workspace", split_k_partials_into_workspace,
     [_a((100, 448), F16), _a((448, 80), F16), _a((3, 100, 80)), 3, 64, 64, 64], (2, 2, 3), "gemm", outputs=(2,))
_add("lora_linear_x_w_plus_scaled_x_a_b", lora_linear_x_w_plus_scaled_x_a_b,
     [_a((100, 128), F16), _a((128, 80), F16), _a((128, 16), F16), _a((16, 80), F16), _a((100, 80), F16), 0.5,
      64, 64, 64, 16], (2, 2), "simt",
     error="the first dot's N (the second dot's K) is 16: 64, 128, 192 or 256 columns are taken", outputs=(4,))
_add("fused_qkv_projection_three_outputs", fused_qkv_projection_three_outputs,
     [_a((100, 128), F16), _a((128, 256), F16), _a((100, 128), F16), _a((100, 64), F16), _a((100, 64), F16),
      64, 64, 64, 128, 64], (2, 4), "simt", error="a second output tile [64, 64] at other indices than C's",
     outputs=(2, 3, 4))
_add("weight_grad_x_transposed_by_order", weight_grad_x_transposed_by_order,
     [_a((200, 96), F16), _a((200, 80), F16), _a((96, 80)), 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("bmm_4d_heads_bf16_in_f16_out", bmm_4d_heads_bf16_in_f16_out,
     [_a((2, 3, 50, 64), BF16), _a((2, 3, 64, 40), BF16), _a((2, 3, 50, 40), F16), 64, 64, 64], (1, 3, 2), "gemm",
     outputs=(2,))
_add("linear_residual_add_epilogue_bf16", linear_residual_add_epilogue_bf16,
     [_a((77, 192), BF16), _a((192, 128), BF16), _a((77, 128), BF16), _a((77, 128), BF16), 64, 64, 64], (2, 2),
     "gemm", outputs=(3,))
_add("decode_gemv_m3_weight_nk_bf16", decode_gemv_m3_weight_nk_bf16,
     [_a((3, 512), BF16), _a((200, 512), BF16), _a((3, 200), BF16), 16, 64, 64], (4,), "gemm", outputs=(2,))
_add("batched_linear_bias_gelu_3d_activations", batched_linear_bias_gelu_3d_activations,
     [_a((2, 70, 128), F16), _a((128, 96), F16), _a((96,)), _a((2, 70, 96), F16), 64, 64, 64], (2, 2, 2), "gemm",
     outputs=(3,))

_add("gemm_fp8_e4m3_output_quantized", gemm_fp8_e4m3_output_quantized,
     [_a((100, 128), F16), _a((128, 80), F16), _a((100, 80), E4M3), 0.5, 64, 64, 64], (2, 2), "gemm", outputs=(2,))
_add("linear_k_100_rows_of_200_bytes", linear_k_100_rows_of_200_bytes,
     [_a((90, 100), F16), _a((100, 64), F16), _a((90, 64)), 64, 64, 64], (2, 1), "gemm", outputs=(2,))

# ----------------------------------------------------------------------------------------------- memory-bound programs


@ct.kernel
def split_k_reduce_workspace_to_f16(Ws, C, SPLIT: ConstInt, TM: ConstInt, TN: ConstInt):
    """Split-K's second program: the SPLIT f32 partial slabs of the workspace summed in f32 and stored as f16."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for s in range(SPLIT):
        acc = acc + ct.load(Ws, index=(s, bm, bn), shape=(1, TM, TN), padding_mode=ZERO).reshape((TM, TN))
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def residual_add_rmsnorm_two_outputs_column_tiles(X, Res, W, HOut, Y, eps: float, TILE_N: ConstInt):
    """Residual add + RMSNorm over a hidden size of 1000 in 256-column tiles, two outputs: the new residual
    ``h = x + res`` (bf16, its own array) and ``rmsnorm(h) * w`` (bf16); pass 1 stores h and sums h^2 in f32, pass
    2 recomputes h from x and res (not from the stored bf16 h)."""
    row = ct.bid(0)
    nt = ct.num_tiles(X, axis=1, shape=(1, TILE_N))
    ss = ct.zeros((1, TILE_N), dtype=ct.float32)
    for j in range(nt):
        h = ct.load(X, index=(row, j), shape=(1, TILE_N), padding_mode=ZERO).astype(ct.float32) + \
            ct.load(Res, index=(row, j), shape=(1, TILE_N), padding_mode=ZERO).astype(ct.float32)
        ct.store(HOut, index=(row, j), tile=h.astype(HOut.dtype))
        ss = ss + h * h
    rrms = ct.rsqrt(ct.sum(ss, axis=1, keepdims=True) / X.shape[1] + eps)
    for j in range(nt):
        h = ct.load(X, index=(row, j), shape=(1, TILE_N), padding_mode=ZERO).astype(ct.float32) + \
            ct.load(Res, index=(row, j), shape=(1, TILE_N), padding_mode=ZERO).astype(ct.float32)
        w = ct.load(W, index=(j,), shape=(TILE_N,), padding_mode=ZERO).astype(ct.float32)
        ct.store(Y, index=(row, j), tile=(h * rrms * w[None, :]).astype(Y.dtype))


@ct.kernel
def rope_q_k_position_ids_gathered_cos_sin(Q, K, Pos, Cos, Sin, TT: ConstInt, HALF: ConstInt):
    """RoPE (rotate-half) applied in place to Q ``[T, Hq, D]`` and K ``[T, Hkv, D]`` (GQA: 4 query heads, 2 key
    heads) at arbitrary position ids ``Pos [T]`` (a continuous batch: positions not 0..T-1): the cos / sin rows of
    the ``[max_pos, D / 2]`` caches gathered at the tokens' positions; grid (token tiles, query heads); a program
    whose head is < Hkv rotates that K head too.  T = 37, D = 64."""
    bt, h = ct.bid(0), ct.bid(1)
    tok = bt * TT + ct.arange(TT, dtype=ct.int32)
    pos = ct.gather(Pos, tok)
    cols = ct.arange(HALF, dtype=ct.int32)
    c = ct.gather(Cos, (pos[:, None], cols[None, :]))
    s = ct.gather(Sin, (pos[:, None], cols[None, :]))
    q1 = ct.load(Q, index=(bt, h, 0), shape=(TT, 1, HALF), padding_mode=ZERO).reshape((TT, HALF))
    q2 = ct.load(Q, index=(bt, h, 1), shape=(TT, 1, HALF), padding_mode=ZERO).reshape((TT, HALF))
    ct.store(Q, index=(bt, h, 0), tile=(q1 * c - q2 * s).reshape((TT, 1, HALF)))
    ct.store(Q, index=(bt, h, 1), tile=(q2 * c + q1 * s).reshape((TT, 1, HALF)))
    if h < K.shape[1]:
        k1 = ct.load(K, index=(bt, h, 0), shape=(TT, 1, HALF), padding_mode=ZERO).reshape((TT, HALF))
        k2 = ct.load(K, index=(bt, h, 1), shape=(TT, 1, HALF), padding_mode=ZERO).reshape((TT, HALF))
        ct.store(K, index=(bt, h, 0), tile=(k1 * c - k2 * s).reshape((TT, 1, HALF)))
        ct.store(K, index=(bt, h, 1), tile=(k2 * c + k1 * s).reshape((TT, 1, HALF)))


@ct.kernel
def rope_gptj_interleaved_pairs_gather(X, Cos, Sin, Y, TT: ConstInt, HALF: ConstInt):
    """GPT-J / interleaved RoPE: pairs ``(x[2i], x[2i+1])`` rotated by angle ``i``, the even and odd elements
    gathered at column indices ``2i`` and ``2i + 1`` of ``[T, H, D]`` and scattered back into Y; T = 45, H = 3,
    D = 64, cos / sin ``[T, D / 2]``; grid (token tiles, heads)."""
    bt, h = ct.bid(0), ct.bid(1)
    tok = (bt * TT + ct.arange(TT, dtype=ct.int32))[:, None]
    i = ct.arange(HALF, dtype=ct.int32)[None, :]
    head = ct.full((1, 1), h, dtype=ct.int32)
    xe = ct.gather(X, (tok, head, 2 * i))
    xo = ct.gather(X, (tok, head, 2 * i + 1))
    c = ct.gather(Cos, (tok, i))
    s = ct.gather(Sin, (tok, i))
    ct.scatter(Y, (tok, head, 2 * i), xe * c - xo * s)
    ct.scatter(Y, (tok, head, 2 * i + 1), xo * c + xe * s)


@ct.kernel
def kv_cache_append_rows_at_positions(KNew, VNew, Pos, KCache, VCache, TT: ConstInt, HD: ConstInt):
    """KV-cache append: the new tokens' K and V rows ``[T, H * D]`` written at rows ``Pos[t]`` of the caches
    ``[S_max, H * D]`` by ``ct.scatter`` with a mask for the padding tokens of the last tile (without it they would
    write row ``Pos``'s padding 0); T = 21, H * D = 128, f16."""
    bt = ct.bid(0)
    tok = bt * TT + ct.arange(TT, dtype=ct.int32)
    pos = ct.gather(Pos, tok)
    cols = ct.arange(HD, dtype=ct.int32)
    live = (tok < KNew.shape[0])[:, None]
    k = ct.load(KNew, index=(bt, 0), shape=(TT, HD), padding_mode=ZERO)
    v = ct.load(VNew, index=(bt, 0), shape=(TT, HD), padding_mode=ZERO)
    ct.scatter(KCache, (pos[:, None], cols[None, :]), k, mask=live)
    ct.scatter(VCache, (pos[:, None], cols[None, :]), v, mask=live)


@ct.kernel
def kv_cache_paged_append_slot_mapping(K, SlotMapping, KCache, BLOCK: ConstInt, TT: ConstInt, D: ConstInt):
    """vLLM's ``reshape_and_cache``: token ``t``'s key row goes to slot ``SlotMapping[t]`` of a paged cache
    ``[num_blocks, BLOCK, D]`` (block ``slot // BLOCK``, offset ``slot % BLOCK``); slot -1 marks a padding token
    (CUDA-graph padding), not written; T = 19, D = 64, BLOCK = 16, bf16."""
    bt = ct.bid(0)
    tok = bt * TT + ct.arange(TT, dtype=ct.int32)
    slot = ct.gather(SlotMapping, tok, padding_value=-1)
    k = ct.load(K, index=(bt, 0), shape=(TT, D), padding_mode=ZERO)
    cols = ct.arange(D, dtype=ct.int32)[None, :]
    blk = (slot // BLOCK)[:, None]
    off = (slot % BLOCK)[:, None]
    ct.scatter(KCache, (blk, off, cols), k, mask=(slot >= 0)[:, None])


@ct.kernel
def per_token_int8_quant_amax_rows(X, Q, Scale, TILE_N: ConstInt):
    """Dynamic per-token int8 quantization: each row's ``amax = max |x|`` (bf16 in, N = 300 in one 512 tile), scale
    ``amax / 127`` (at least 1e-10) stored, ``q = clamp(floor(x / scale + 0.5), -127, 127)`` as int8."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, TILE_N), padding_mode=ZERO).astype(ct.float32)
    amax = ct.max(ct.abs(x), axis=1, keepdims=True)
    scale = ct.maximum(amax / 127.0, 1e-10)
    q = ct.minimum(ct.maximum(ct.floor(x / scale + 0.5), -127.0), 127.0)
    ct.store(Q, index=(row, 0), tile=q.astype(ct.int8))
    ct.store(Scale, index=(row,), tile=scale.reshape((1,)))


@ct.kernel
def per_channel_fp8_quant_amax_over_row_tiles(X, Q, Scale, TM: ConstInt, TN: ConstInt):
    """Per-channel fp8 e4m3 quantization of a weight ``[M, N]`` (f32, M = 150 in 64-row tiles, N = 80): one program
    per column tile; pass 1 reduces each column's amax over the row tiles, ``scale = amax / 448`` stored, pass 2 writes
    ``x / scale`` converted to e4m3."""
    bn = ct.bid(0)
    nt = ct.cdiv(X.shape[0], TM)
    amax = ct.zeros((1, TN), dtype=ct.float32)
    for i in range(nt):
        x = ct.load(X, index=(i, bn), shape=(TM, TN), padding_mode=ZERO)
        amax = ct.maximum(amax, ct.max(ct.abs(x), axis=0, keepdims=True))
    scale = ct.maximum(amax, 1e-12) / 448.0
    ct.store(Scale, index=(bn,), tile=scale.reshape((TN,)))
    for i in range(nt):
        x = ct.load(X, index=(i, bn), shape=(TM, TN), padding_mode=ZERO)
        ct.store(Q, index=(i, bn), tile=(x / scale).astype(ct.float8_e4m3fn))


@ct.kernel
def dequant_int8_token_channel_scales_bf16(Q, SR, SC, Y, TM: ConstInt, TN: ConstInt):
    """int8 ``[M, N]`` back to bf16 with a per-row and a per-column scale: ``y = q * sr[:, None] * sc[None, :]``;
    M = 90, N = 200."""
    bm, bn = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO).astype(ct.float32)
    sr = ct.load(SR, index=(bm,), shape=(TM,), padding_mode=ZERO)
    sc = ct.load(SC, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=(q * sr[:, None] * sc[None, :]).astype(ct.bfloat16))


@ct.kernel
def rmsnorm_then_int8_quant_fused(X, W, Q, Scale, eps: float, TILE_N: ConstInt):
    """SmoothQuant's fused RMSNorm + per-token int8 quantization: ``y = rmsnorm(x) * w`` in f32, then its row amax,
    scale and rounded int8 values; f16 in, N = 200 in 256."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, TILE_N), padding_mode=ZERO).astype(ct.float32)
    w = ct.load(W, index=(0,), shape=(TILE_N,), padding_mode=ZERO).astype(ct.float32)
    y = x * ct.rsqrt(ct.sum(x * x, axis=1, keepdims=True) / X.shape[1] + eps) * w[None, :]
    scale = ct.maximum(ct.max(ct.abs(y), axis=1, keepdims=True), 1e-8) / 127.0
    q = ct.minimum(ct.maximum(ct.floor(y / scale + 0.5), -127.0), 127.0)
    ct.store(Q, index=(row, 0), tile=q.astype(ct.int8))
    ct.store(Scale, index=(row,), tile=scale.reshape((1,)))


@ct.kernel
def cross_entropy_fwd_online_lse_vocab_loop_ignore(Logits, Labels, Loss, Lse, TILE_V: ConstInt):
    """Cross-entropy forward over a vocabulary of 1000 (bf16 logits) in 256-wide tiles: an online logsumexp (running
    max, sum rescaled), the label's logit gathered; ``ignore_index = -100`` rows get loss 0 (the gather of column
    -100 is out of bounds: its padding value); loss and lse stored (the backward's input)."""
    row = ct.bid(0)
    label = ct.load(Labels, index=(row,), shape=(1,))
    m = ct.full((1,), -math.inf, dtype=ct.float32)
    d = ct.zeros((1,), dtype=ct.float32)
    for j in range(ct.cdiv(Logits.shape[1], TILE_V)):
        x = ct.load(Logits, index=(row, j), shape=(1, TILE_V), padding_mode=NEG_INF).astype(ct.float32)
        m_new = ct.maximum(m, ct.max(x, axis=1))
        d = d * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new[:, None]), axis=1)
        m = m_new
    lse = m + ct.log(d)
    picked = ct.gather(Logits, (ct.full((1,), row, dtype=ct.int32), label)).astype(ct.float32)
    ct.store(Loss, index=(row,), tile=ct.where(label == -100, 0.0, lse - picked))
    ct.store(Lse, index=(row,), tile=lse)


@ct.kernel
def embedding_backward_atomic_add_rows(DOut, Ids, DW, TT: ConstInt, D: ConstInt):
    """Embedding backward: each token's gradient row added into ``dW[ids[t]]`` by ``ct.atomic_add`` (repeated ids
    add up); padding tokens of the last tile get id -1 (``padding_value``), out of bounds, dropped; T = 50, D = 64,
    vocabulary 40, f32."""
    bt = ct.bid(0)
    tok = bt * TT + ct.arange(TT, dtype=ct.int32)
    ids = ct.gather(Ids, tok, padding_value=-1)
    g = ct.load(DOut, index=(bt, 0), shape=(TT, D), padding_mode=ZERO)
    ct.atomic_add(DW, (ids[:, None], ct.arange(D, dtype=ct.int32)[None, :]), g)


@ct.kernel
def topk_4_rows_iterative_argmax(X, Vals, Ids, K: ConstInt, TILE_N: ConstInt):
    """Top-k (k = 4) of each row of 50 scores in a 64 tile: k rounds of argmax, the winner's value and index stored
    at column ``t`` of ``[M, 4]`` outputs, the winner masked to -inf for the next round (a loop-carried tile)."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, TILE_N), padding_mode=NEG_INF)
    cols = ct.arange(TILE_N, dtype=ct.int32)[None, :]
    for t in range(K):
        i = ct.argmax(x, axis=1, keepdims=True).astype(ct.int32)
        ct.store(Vals, index=(row, t), tile=ct.max(x, axis=1, keepdims=True))
        ct.store(Ids, index=(row, t), tile=i)
        x = ct.where(cols == i, -math.inf, x)


@ct.kernel
def moe_router_softmax_top2_renormalized(Logits, Weights, Experts, TT: ConstInt, E: ConstInt):
    """A MoE router over 8 experts for 16 tokens per program: softmax of each token's logits, the top-2 experts
    and their probabilities renormalised to sum to 1 (Mixtral), ``[T, 2]`` weights (f32) and ids (int32); T = 37."""
    bt = ct.bid(0)
    x = ct.load(Logits, index=(bt, 0), shape=(TT, E), padding_mode=ZERO).astype(ct.float32)
    p = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    p = p / ct.sum(p, axis=1, keepdims=True)
    cols = ct.arange(E, dtype=ct.int32)[None, :]
    i1 = ct.argmax(p, axis=1, keepdims=True).astype(ct.int32)
    w1 = ct.max(p, axis=1, keepdims=True)
    p2 = ct.where(cols == i1, -1.0, p)
    i2 = ct.argmax(p2, axis=1, keepdims=True).astype(ct.int32)
    w2 = ct.max(p2, axis=1, keepdims=True)
    ct.store(Weights, index=(bt, 0), tile=w1 / (w1 + w2))
    ct.store(Weights, index=(bt, 1), tile=w2 / (w1 + w2))
    ct.store(Experts, index=(bt, 0), tile=i1)
    ct.store(Experts, index=(bt, 1), tile=i2)


@ct.kernel
def softmax_temperature_and_keep_mask(X, Keep, Y, temperature: float, TILE_N: ConstInt):
    """Sampling's softmax: logits divided by a runtime temperature, positions with ``Keep == 0`` (an int8 mask,
    e.g. banned tokens) set to -inf, softmax over N = 200 in one 256 tile (padding -inf too); f32."""
    row = ct.bid(0)
    x = ct.load(X, index=(row, 0), shape=(1, TILE_N), padding_mode=NEG_INF) / temperature
    keep = ct.load(Keep, index=(row, 0), shape=(1, TILE_N), padding_mode=ZERO)
    x = ct.where(keep != 0, x, -math.inf)
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(row, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def layernorm_bwd_dgamma_dbeta_partial_rows(DY, X, Mean, Rstd, PartW, PartB, ROW_TILES: ConstInt, TM: ConstInt,
                                            TN: ConstInt):
    """Layer norm backward, dgamma / dbeta stage 1 (no atomics): program ``(p, bn)`` sums ``dy * xhat`` and ``dy``
    over ROW_TILES row tiles starting at ``p * ROW_TILES`` into row ``p`` of ``[P, N]`` partial arrays; M = 150 rows
    (tiles of 32, 2 per program: P = 3), N = 96 in 64-column tiles."""
    p, bn = ct.bid(0), ct.bid(1)
    sw = ct.zeros((TN,), dtype=ct.float32)
    sb = ct.zeros((TN,), dtype=ct.float32)
    for r in range(p * ROW_TILES, min((p + 1) * ROW_TILES, ct.cdiv(X.shape[0], TM))):
        x = ct.load(X, index=(r, bn), shape=(TM, TN), padding_mode=ZERO)
        dy = ct.load(DY, index=(r, bn), shape=(TM, TN), padding_mode=ZERO)
        mean = ct.load(Mean, index=(r,), shape=(TM,), padding_mode=ZERO)
        rstd = ct.load(Rstd, index=(r,), shape=(TM,), padding_mode=ZERO)
        sw = sw + ct.sum(dy * (x - mean[:, None]) * rstd[:, None], axis=0)
        sb = sb + ct.sum(dy, axis=0)
    ct.store(PartW, index=(p, bn), tile=sw.reshape((1, TN)))
    ct.store(PartB, index=(p, bn), tile=sb.reshape((1, TN)))


@ct.kernel
def layernorm_bwd_dgamma_reduce_partials(PartW, PartB, DW, DB, P: ConstInt, TN: ConstInt):
    """Stage 2: the P partial rows summed per column (a ``(P, TN)`` tile reduced over axis 0; P = 3 rows in a
    4-row tile, the padding row zero)."""
    bn = ct.bid(0)
    ct.store(DW, index=(bn,), tile=ct.sum(ct.load(PartW, index=(0, bn), shape=(P, TN), padding_mode=ZERO), axis=0))
    ct.store(DB, index=(bn,), tile=ct.sum(ct.load(PartB, index=(0, bn), shape=(P, TN), padding_mode=ZERO), axis=0))


@ct.kernel
def adamw_step_bf16_grad_bias_corrections(Param, Grad, ExpAvg, ExpAvgSq, lr: float, beta1: float, beta2: float,
                                          eps: float, weight_decay: float, bc1: float, bc2: float, TILE: ConstInt):
    """An AdamW step over four tensors in place: f32 parameters and moments, bf16 gradient; the bias corrections
    ``1 - beta^step`` passed in (as torch's fused Adam computes them on the host); decoupled weight decay; 1000
    elements in tiles of 256."""
    bid = ct.bid(0)
    p = ct.load(Param, index=(bid,), shape=(TILE,), padding_mode=ZERO)
    g = ct.load(Grad, index=(bid,), shape=(TILE,), padding_mode=ZERO).astype(ct.float32)
    m = ct.load(ExpAvg, index=(bid,), shape=(TILE,), padding_mode=ZERO)
    v = ct.load(ExpAvgSq, index=(bid,), shape=(TILE,), padding_mode=ZERO)
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    p = p * (1.0 - lr * weight_decay)
    p = p - lr * (m / bc1) / (ct.sqrt(v / bc2) + eps)
    ct.store(ExpAvg, index=(bid,), tile=m)
    ct.store(ExpAvgSq, index=(bid,), tile=v)
    ct.store(Param, index=(bid,), tile=p)


@ct.kernel
def sequence_mean_pool_bf16_in_f16_out(X, Y, TS: ConstInt, TD: ConstInt):
    """Mean pooling over the sequence: ``[B, S, D]`` bf16 (S = 77 in 32-row tiles, D = 96 in a 128 tile) summed in
    f32 and divided by S, stored f16 ``[B, D]`` (mixed dtype: bf16 in, f32 accumulate, f16 out)."""
    b = ct.bid(0)
    acc = ct.zeros((TD,), dtype=ct.float32)
    for s in range(ct.cdiv(X.shape[1], TS)):
        x = ct.load(X, index=(b, s, 0), shape=(1, TS, TD), padding_mode=ZERO).reshape((TS, TD))
        acc = acc + ct.sum(x.astype(ct.float32), axis=0)
    ct.store(Y, index=(b, 0), tile=(acc / X.shape[1]).astype(ct.float16).reshape((1, TD)))


@ct.kernel
def gelu_tanh_and_mul_ragged_n_gathers(X, Y, N: ConstInt, TM: ConstInt, TN: ConstInt):
    """vLLM's ``gelu_tanh_and_mul`` with N = 344 (not a multiple of the 128-column tile, so the up half cannot be
    addressed as a tile index): gate and up elements gathered at columns ``c`` and ``c + N`` with a mask on
    ``c < N``, the result scattered; f16, M = 20."""
    bm, bn = ct.bid(0), ct.bid(1)
    rows = (bm * TM + ct.arange(TM, dtype=ct.int32))[:, None]
    cols = (bn * TN + ct.arange(TN, dtype=ct.int32))[None, :]
    ok = cols < N
    g = ct.gather(X, (rows, cols), mask=ok).astype(ct.float32)
    u = ct.gather(X, (rows, cols + N), mask=ok).astype(ct.float32)
    y = 0.5 * g * (1.0 + ct.tanh(SQRT_2_OVER_PI * (g + 0.044715 * g * g * g))) * u
    ct.scatter(Y, (rows, cols), y.astype(ct.float16), mask=ok)


@ct.kernel
def amax_per_tensor_atomic_max_of_float_bits(X, AmaxBits, TILE: ConstInt):
    """The amax of a whole tensor for per-tensor fp8 scaling: each program's ``max |x|`` folded into a one-element
    int32 array by ``ct.atomic_max`` of its bits (``ct.bitcast``: non-negative floats order as their int32 bits;
    cuTile's atomic max takes integer arrays), zeroed by the caller; 1000 elements in tiles of 256."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    amax = ct.max(ct.abs(x), axis=0, keepdims=True)
    ct.atomic_max(AmaxBits, (ct.zeros((1,), dtype=ct.int32),), ct.bitcast(amax, ct.int32))


_add("split_k_reduce_workspace_to_f16", split_k_reduce_workspace_to_f16,
     [_a((3, 100, 80)), _a((100, 80), F16), 3, 64, 64], (2, 2), "simt", outputs=(1,))
_add("residual_add_rmsnorm_two_outputs_column_tiles", residual_add_rmsnorm_two_outputs_column_tiles,
     [_a((4, 1000), BF16), _a((4, 1000), BF16), _a((1000,), BF16), _a((4, 1000), BF16), _a((4, 1000), BF16), 1e-6,
      256], (4,), "simt", outputs=(3, 4))
_add("rope_q_k_position_ids_gathered_cos_sin", rope_q_k_position_ids_gathered_cos_sin,
     [_a((37, 4, 64)), _a((37, 2, 64)), _a((37,), I32), _a((300, 32)), _a((300, 32)), 16, 32], (3, 4), "simt",
     outputs=(0, 1))
_add("rope_gptj_interleaved_pairs_gather", rope_gptj_interleaved_pairs_gather,
     [_a((45, 3, 64)), _a((45, 32)), _a((45, 32)), _a((45, 3, 64)), 16, 32], (3, 3), "simt", outputs=(3,))
_add("kv_cache_append_rows_at_positions", kv_cache_append_rows_at_positions,
     [_a((21, 128), F16), _a((21, 128), F16), _a((21,), I32), _a((64, 128), F16), _a((64, 128), F16), 16, 128],
     (2,), "simt", outputs=(3, 4))
_add("kv_cache_paged_append_slot_mapping", kv_cache_paged_append_slot_mapping,
     [_a((19, 64), BF16), _a((19,), I32), _a((6, 16, 64), BF16), 16, 8, 64], (3,), "simt", outputs=(2,))
_add("per_token_int8_quant_amax_rows", per_token_int8_quant_amax_rows,
     [_a((5, 300), BF16), _a((5, 300), I8), _a((5,)), 512], (5,), "simt", outputs=(1, 2))
_add("per_channel_fp8_quant_amax_over_row_tiles", per_channel_fp8_quant_amax_over_row_tiles,
     [_a((150, 80)), _a((150, 80), E4M3), _a((80,)), 64, 32], (3,), "simt", outputs=(1, 2))
_add("dequant_int8_token_channel_scales_bf16", dequant_int8_token_channel_scales_bf16,
     [_a((90, 200), I8), _a((90,)), _a((200,)), _a((90, 200), BF16), 32, 64], (3, 4), "simt", outputs=(3,))
_add("rmsnorm_then_int8_quant_fused", rmsnorm_then_int8_quant_fused,
     [_a((6, 200), F16), _a((200,), F16), _a((6, 200), I8), _a((6,)), 1e-6, 256], (6,), "simt", outputs=(2, 3))
_add("cross_entropy_fwd_online_lse_vocab_loop_ignore", cross_entropy_fwd_online_lse_vocab_loop_ignore,
     [_a((6, 1000), BF16), _a((6,), I32), _a((6,)), _a((6,)), 256], (6,), "simt", outputs=(2, 3))
_add("embedding_backward_atomic_add_rows", embedding_backward_atomic_add_rows,
     [_a((50, 64)), _a((50,), I32), _a((40, 64)), 16, 64], (4,), "simt", outputs=(2,))
_add("topk_4_rows_iterative_argmax", topk_4_rows_iterative_argmax,
     [_a((5, 50)), _a((5, 4)), _a((5, 4), I32), 4, 64], (5,), "simt", outputs=(1, 2))
_add("moe_router_softmax_top2_renormalized", moe_router_softmax_top2_renormalized,
     [_a((37, 8), BF16), _a((37, 2)), _a((37, 2), I32), 16, 8], (3,), "simt", outputs=(1, 2))
_add("softmax_temperature_and_keep_mask", softmax_temperature_and_keep_mask,
     [_a((5, 200)), _a((5, 200), I8), _a((5, 200)), 0.7, 256], (5,), "simt", outputs=(2,))
_add("layernorm_bwd_dgamma_dbeta_partial_rows", layernorm_bwd_dgamma_dbeta_partial_rows,
     [_a((150, 96)), _a((150, 96)), _a((150,)), _a((150,)), _a((3, 96)), _a((3, 96)), 2, 32, 64], (3, 2), "simt",
     outputs=(4, 5))
_add("layernorm_bwd_dgamma_reduce_partials", layernorm_bwd_dgamma_reduce_partials,
     [_a((3, 96)), _a((3, 96)), _a((96,)), _a((96,)), 4, 64], (2,), "simt", outputs=(2, 3))
_add("adamw_step_bf16_grad_bias_corrections", adamw_step_bf16_grad_bias_corrections,
     [_a((1000,)), _a((1000,), BF16), _a((1000,)), _a((1000,)), 1e-3, 0.9, 0.999, 1e-8, 0.01, 0.271, 0.00499, 256],
     (4,), "simt", outputs=(0, 2, 3))
_add("sequence_mean_pool_bf16_in_f16_out", sequence_mean_pool_bf16_in_f16_out,
     [_a((3, 77, 96), BF16), _a((3, 96), F16), 32, 128], (3,), "simt", outputs=(1,))
_add("gelu_tanh_and_mul_ragged_n_gathers", gelu_tanh_and_mul_ragged_n_gathers,
     [_a((20, 688), F16), _a((20, 344), F16), 344, 16, 128], (2, 3), "simt", outputs=(1,))
_add("amax_per_tensor_atomic_max_of_float_bits", amax_per_tensor_atomic_max_of_float_bits,
     [_a((1000,)), _a((1,), I32), 256], (4,), "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def softmax_by_ct_softmax(X, Y, TILE_N: ConstInt):
    """``ct.softmax(x, axis=1)`` as torch / Triton users reach for it (cuTile has no softmax)."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, TILE_N), padding_mode=NEG_INF)
    ct.store(Y, index=(ct.bid(0), 0), tile=ct.softmax(x, axis=1))


@ct.kernel
def reduction_with_torch_dim_keyword(X, Y, TILE_N: ConstInt):
    """``ct.sum(x, dim=1)``: torch's ``dim`` for cuTile's ``axis``."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, TILE_N), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.sum(x, dim=1))


@ct.kernel
def reduction_with_torch_keepdim_keyword(X, Y, TILE_N: ConstInt):
    """``ct.max(x, axis=1, keepdim=True)``: torch's ``keepdim`` for ``keepdims``."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, TILE_N), padding_mode=NEG_INF)
    ct.store(Y, index=(ct.bid(0), 0), tile=x - ct.max(x, axis=1, keepdim=True))


@ct.kernel
def tile_to_dtype_torch_spelling(X, Y, TILE: ConstInt):
    """``x.to(ct.float16)``: torch's tensor method for ``astype``."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x.to(ct.float16))


@ct.kernel
def clamp_by_ct_clamp(X, Y, TILE: ConstInt):
    """``ct.clamp(q, -127, 127)`` in an int8 quantizer (cuTile: ``ct.minimum(ct.maximum(...))``)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.clamp(x * 127.0, -127.0, 127.0).astype(ct.int8))


@ct.kernel
def zeros_without_a_dtype(X, Y, TILE: ConstInt):
    """``ct.zeros((TILE,))``: the accumulator's dtype left out."""
    acc = ct.zeros((TILE,))
    ct.store(Y, index=(ct.bid(0),), tile=acc + ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO))


@ct.kernel
def gather_of_cos_rows_with_one_index(Cos, Pos, Y, TT: ConstInt, HALF: ConstInt):
    """RoPE's cos rows gathered with the positions alone, ``ct.gather(Cos, pos)`` of a 2-D ``[max_pos, HALF]``
    cache (the column index tile forgotten)."""
    pos = ct.load(Pos, index=(ct.bid(0),), shape=(TT,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=ct.gather(Cos, pos))


@ct.kernel
def mma_of_fp8_by_bf16(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """fp8 activations times a bf16 weight (the weight not quantized)."""
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    a = ct.load(A, index=(ct.bid(0), 0), shape=(tm, tk), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(tk, tn), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b, acc))


@ct.kernel
def mma_with_a_bf16_accumulator(A, B, C, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """A bf16 accumulator (``ct.zeros(..., dtype=ct.bfloat16)``, C's dtype)."""
    acc = ct.zeros((tm, tn), dtype=ct.bfloat16)
    a = ct.load(A, index=(ct.bid(0), 0), shape=(tm, tk), padding_mode=ZERO)
    b = ct.load(B, index=(0, ct.bid(1)), shape=(tk, tn), padding_mode=ZERO)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(a, b, acc))


@ct.kernel
def weight_transposed_by_dot_t(X, W, Y, tm: ConstInt, tn: ConstInt, tk: ConstInt):
    """``w.T`` (numpy / torch's transpose attribute) of an ``[N, K]`` weight tile."""
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    x = ct.load(X, index=(ct.bid(0), 0), shape=(tm, tk), padding_mode=ZERO)
    w = ct.load(W, index=(ct.bid(1), 0), shape=(tn, tk), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(x, w.T, acc))


@ct.kernel
def math_exp_of_a_tile(X, Y, TILE: ConstInt):
    """``math.exp(x)`` of a tile (the Python math module, not ``ct.exp``)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=math.exp(x))


@ct.kernel
def where_without_the_else_value(X, Keep, Y, TILE: ConstInt):
    """``ct.where(keep != 0, x)``: the value for masked positions left out."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    keep = ct.load(Keep, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.where(keep != 0, x))


@ct.kernel
def tile_shape_from_a_float_argument(X, Y, eps: float, TILE: ConstInt):
    """A tile shape built from a runtime float argument."""
    x = ct.load(X, index=(ct.bid(0),), shape=(eps,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def astype_to_a_dtype_string(X, Y, TILE: ConstInt):
    """``x.astype("float16")``: the dtype as a string."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x.astype("float16"))


@ct.kernel
def atomic_max_of_f32_amax(X, Amax, TILE: ConstInt):
    """The per-tensor amax by ``ct.atomic_max`` into an f32 array (cuTile's atomic max takes integers; this sweep's
    valid form atomically maxes the float's int32 bits)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    ct.atomic_max(Amax, (ct.zeros((1,), dtype=ct.int32),), ct.max(ct.abs(x), axis=0, keepdims=True))


@ct.kernel
def python_list_of_tiles_appended(X, Y, TILE: ConstInt, K: ConstInt):
    """Top-k values collected in a Python list (``vals.append(...)``) inside the kernel."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=NEG_INF)
    vals = []
    for t in range(K):
        vals.append(ct.max(x, axis=0))
    ct.store(Y, index=(ct.bid(0),), tile=vals[0])


@ct.kernel
def scatter_mask_of_another_shape(X, Pos, Cache, TT: ConstInt, D: ConstInt):
    """KV-cache append whose mask is the ``(TT,)`` token mask, not broadcast to the ``(TT, D)`` rows."""
    tok = ct.bid(0) * TT + ct.arange(TT, dtype=ct.int32)
    pos = ct.gather(Pos, tok)
    k = ct.load(X, index=(ct.bid(0), 0), shape=(TT, D), padding_mode=ZERO)
    ct.scatter(Cache, (pos[:, None], ct.arange(D, dtype=ct.int32)[None, :]), k, mask=tok < X.shape[0])


@ct.kernel
def bid_without_an_axis(X, Y, TILE: ConstInt):
    """``ct.bid()``: the axis left out."""
    x = ct.load(X, index=(ct.bid(),), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x)


@ct.kernel
def tile_indexed_by_an_integer(X, Y, TILE: ConstInt):
    """``x[0]`` of a loaded tile (the first element as in numpy)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=x - x[0])


@ct.kernel
def topk_by_ct_topk(X, Vals, TILE_N: ConstInt):
    """``ct.topk(x, 4)`` (torch.topk's spelling)."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, TILE_N), padding_mode=NEG_INF)
    ct.store(Vals, index=(ct.bid(0), 0), tile=ct.topk(x, 4))


@ct.kernel
def rope_tile_stored_with_its_head_axis(Q, Cos, Y, TT: ConstInt, HALF: ConstInt):
    """A ``(TT, 1, HALF)`` rotated tile stored into a 2-D ``[T, HALF]`` output (the head axis kept from the 3-D
    load's shape)."""
    q = ct.load(Q, index=(ct.bid(0), ct.bid(1), 0), shape=(TT, 1, HALF), padding_mode=ZERO)
    c = ct.load(Cos, index=(ct.bid(0), 0), shape=(TT, HALF), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0), 0), tile=q * c.reshape((TT, 1, HALF)))


@ct.kernel
def attention_scores_of_512_by_512_tiles(Q, K, S, TM: ConstInt, TN: ConstInt, D: ConstInt):
    """Attention scores ``Q K^T`` of a 512-query by 512-key tile per program (one program per 512 x 512 block)."""
    q = ct.load(Q, index=(ct.bid(0), 0), shape=(TM, D), padding_mode=ZERO)
    k = ct.load(K, index=(ct.bid(1), 0), shape=(TN, D), padding_mode=ZERO)
    ct.store(S, index=(ct.bid(0), ct.bid(1)), tile=ct.mma(q, ct.transpose(k), ct.zeros((TM, TN), dtype=ct.float32)))


_V, _M, _H = _a((200,)), _a((64, 128)), _a((128, 128), F16)
REJECTED_BY_CUTILE = {
    # name: (kernel, spec, words of cuTile's message, text of the line it names)
    "softmax_by_ct_softmax": (softmax_by_ct_softmax, [_M, _M, 128], "Module 'cuda.tile' has no attribute 'softmax'",
                              "tile=ct.softmax(x, axis=1)"),
    "reduction_with_torch_dim_keyword": (reduction_with_torch_dim_keyword, [_M, _a((64,)), 128],
                                         "sum(): got an unexpected keyword argument 'dim'", "ct.sum(x, dim=1)"),
    "reduction_with_torch_keepdim_keyword": (reduction_with_torch_keepdim_keyword, [_M, _M, 128],
                                             "max(): got an unexpected keyword argument 'keepdim'", "keepdim=True"),
    "tile_to_dtype_torch_spelling": (tile_to_dtype_torch_spelling, [_V, _a((200,), F16), 64],
                                     "No such attribute 'to' for object of type Tile[float32,(64)]",
                                     "x.to(ct.float16)"),
    "clamp_by_ct_clamp": (clamp_by_ct_clamp, [_V, _a((200,), I8), 64], "Module 'cuda.tile' has no attribute 'clamp'",
                          "ct.clamp(x * 127.0"),
    "zeros_without_a_dtype": (zeros_without_a_dtype, [_V, _V, 64], "zeros(): missing a required argument: 'dtype'",
                              "acc = ct.zeros((TILE,))"),
    "gather_of_cos_rows_with_one_index": (gather_of_cos_rows_with_one_index,
                                          [_a((300, 32)), _a((37,), I32), _a((37, 32)), 16, 32],
                                          "For array of rank 2, `indices` must be a tuple of length 2",
                                          "ct.gather(Cos, pos)"),
    "mma_of_fp8_by_bf16": (mma_of_fp8_by_bf16, [_a((128, 128), E4M3), _a((128, 128), BF16), _M, 64, 64, 64],
                           "x and y must have the same dtype unless they are int8/uint8, got float8_e4m3fn bfloat16",
                           "tile=ct.mma(a, b, acc)"),
    "mma_with_a_bf16_accumulator": (mma_with_a_bf16_accumulator, [_H, _H, _a((128, 128), BF16), 64, 64, 64],
                                    "Unsupported acc dtype bfloat16", "tile=ct.mma(a, b, acc)"),
    "weight_transposed_by_dot_t": (weight_transposed_by_dot_t, [_H, _H, _M, 64, 64, 64],
                                   "No such attribute 'T' for object of type Tile[float16,(64,64)]",
                                   "ct.mma(x, w.T, acc)"),
    "math_exp_of_a_tile": (math_exp_of_a_tile, [_V, _V, 64], "exp() is not supported in device code",
                           "tile=math.exp(x)"),
    "where_without_the_else_value": (where_without_the_else_value, [_V, _a((200,), I8), _V, 64],
                                     "where(): missing a required argument: 'y'", "ct.where(keep != 0, x)"),
    "tile_shape_from_a_float_argument": (tile_shape_from_a_float_argument, [_V, _V, 0.5, 64],
                                         "Expected a constant integer tuple, but given value is not constant",
                                         "shape=(eps,)"),
    "astype_to_a_dtype_string": (astype_to_a_dtype_string, [_V, _a((200,), F16), 64],
                                 "Expected a dtype constant, but given value has type <string constant 'float16'>",
                                 'x.astype("float16")'),
    "atomic_max_of_f32_amax": (atomic_max_of_f32_amax, [_V, _a((1,)), 64], "Unsupported array dtype: float32",
                               "ct.atomic_max(Amax"),
    "python_list_of_tiles_appended": (python_list_of_tiles_appended, [_V, _V, 64, 4], "Unsupported syntax",
                                      "vals = []"),
    "scatter_mask_of_another_shape": (scatter_mask_of_another_shape,
                                      [_a((21, 128), F16), _a((21,), I32), _a((64, 128), F16), 16, 128],
                                      "Custom mask shape (16,) is not broadcastable to the index shape (16, 128)",
                                      "mask=tok < X.shape[0]"),
    "bid_without_an_axis": (bid_without_an_axis, [_V, _V, 64], "bid(): missing a required argument: 'axis'",
                            "index=(ct.bid(),)"),
    "tile_indexed_by_an_integer": (tile_indexed_by_an_integer, [_V, _V, 64],
                                   "Directly indexing a tile is not supported; use `extract()` or `item()` instead",
                                   "tile=x - x[0]"),
    "topk_by_ct_topk": (topk_by_ct_topk, [_M, _M, 128], "Module 'cuda.tile' has no attribute 'topk'",
                        "ct.topk(x, 4)"),
}
"""Programs cuTile's front end refuses at the user's line (tileorch never sees them)."""


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("rope_tile_stored_with_its_head_axis", rope_tile_stored_with_its_head_axis,
     [_a((37, 4, 32)), _a((37, 32)), _a((37, 32)), 16, 32], (3, 4), "error",
     error="expected tensor_view rank and tile rank to match, got tensor_view of rank 2 and tiles of rank 3",
     notes="ct.store(Y, index=(ct.bid(0), 0), tile=q * c.reshape((TT, 1, HALF)))")
_bad("attention_scores_of_512_by_512_tiles", attention_scores_of_512_by_512_tiles,
     [_a((1024, 64), F16), _a((1024, 64), F16), _a((1024, 1024)), 512, 512, 64], (2, 2), "error",
     error="a tile of 262144 elements is too large", notes="ct.zeros((TM, TN), dtype=ct.float32)")

