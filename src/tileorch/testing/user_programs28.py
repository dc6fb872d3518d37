"""The twenty-eighth user sweep (session 36): cuTile 1.7 programs written the way the cuTile samples and model code
write them, weighted to what sweeps 1-27 covered least: fused MLP pieces (SwiGLU / GeGLU as two dots of one A tile),
GEMM epilogues with a bias, a per-channel scale and a clamp, GEMMs whose output is stored transposed or into a
strided slice of a larger tensor, a batched GEMM whose B has batch stride 0 (broadcast), a K loop bounded by
``ct.num_tiles``, bf16 -> f32 and f32 operands (tf32), a GEMV as a dot of N = 1 and as a reduction, boundary
specialisation by a scalar ``if`` on the program id, default arguments, ``C += A @ B``, a GRU's two K loops into one
accumulator, K tiles walked backwards, epilogues with a row softmax or an int8 requantization, a K loop unrolled by
hand; without a dot: RMSNorm with a residual,
rotary embedding on interleaved pairs, softmax with a temperature, log-softmax, top-p by a cumulative sum, uint8 /
int4 unpacking, masked mean pooling by a length array, a depthwise 1-D convolution, a histogram by atomics, a bitonic
sorting network of a 16-element tile by reshape / extract / where, a rank sort by a comparison matrix, outer
products, loops with ``break``-like masks, ``ct.cdiv`` / ``ct.bid(2)`` / ``ct.num_blocks`` programs.

Found by this sweep: a GEMM whose A tile an ``if`` on the program id chooses (ZERO-padded for the last row tile,
unpadded for the others) was refused with a warning about "int4 weights unpacked and scaled" -- nothing the program
does; now such an ``if`` of one tile is the padded load and the GEMM takes the tier
(:func:`gemm_last_row_tile_specialised_by_if`, padded_load_choice.py), and an ``if`` choosing between two arrays'
tiles is refused with a warning naming the if / else (:func:`gemm_a_from_one_of_two_arrays_by_if`).
The SIMT lowering's error for a 4-bit float names cuTile's ``ct.float4_e2m1fn`` (:data:`INVALID`).  CUTLASS-dialect
inputs (tests/unit/test_user_sweep28_cutlass.py): a vector ``arith.constant`` had no LLVM lowering, and a
``syncthreads`` semaphore op's ``num_threads`` other than its CTA's compiled to the whole-CTA barrier silently.
Left as they are (located reasons): GeGLU's gate and up read from one concatenated weight at two column tiles, LoRA
of rank 16 (the tier takes 64 to 256), f32 operands without a tf32 cast (the f32 rule), a K loop unrolled by hand.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_user_sweep28_compile.py, tests/unit/test_user_sweep28_interp.py,
tests/unit/test_user_sweep28_emulated.py, tests/unit/test_user_sweep28_invalid.py (with :data:`INVALID` and
:data:`REJECTED_BY_CUTILE`), tests/unit/test_user_sweep28_cutlass.py and tests/gpu/test_user_sweep28_gpu.py.
Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO
NEG_INF = ct.PaddingMode.NEG_INF
F16, BF16, F32, F64 = "float16", "bfloat16", "float32", "float64"
I8, I16, I32, I64, U8, U32, B = "int8", "int16", "int32", "int64", "uint8", "uint32", "bool_"


def _a(shape, dt=F32, strides=None):
    return (tuple(shape), dt) if strides is None else (tuple(shape), dt, tuple(strides))


# ----------------------------------------------------------------------------------------------- GEMMs


@ct.kernel
def swiglu_two_dots_of_one_a_tile(A, Wg, Wu, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A LLaMA MLP's gate and up projections fused: one A tile per K step multiplied by the gate and the up
    weight (two accumulators), ``silu(g) * u`` in the epilogue; f16 in, f16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    g = ct.zeros((TM, TN), dtype=ct.float32)
    u = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        wg = ct.load(Wg, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        wu = ct.load(Wu, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        g = ct.mma(a, wg, g)
        u = ct.mma(a, wu, u)
    y = g / (1.0 + ct.exp(-g)) * u
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def geglu_gate_up_in_one_weight(A, W, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """GeGLU with the gate and up weights concatenated ``[K, 2N]`` (as checkpoints store them): the gate's tile
    at column tile ``bn``, the up's at ``bn + N / TN``; tanh-GELU of the gate times the up; bf16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    half = ct.cdiv(W.shape[1], 2 * TN)
    g = ct.zeros((TM, TN), dtype=ct.float32)
    u = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        g = ct.mma(a, ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), g)
        u = ct.mma(a, ct.load(W, index=(k, bn + half), shape=(TK, TN), padding_mode=ZERO), u)
    inner = 0.7978845608028654 * (g + 0.044715 * g * g * g)
    ct.store(Y, index=(bm, bn), tile=0.5 * g * (1.0 + ct.tanh(inner)) * u)


@ct.kernel
def gemm_bias_channel_scale_clamp(A, Bm, Bias, Scale, C, lo: float, hi: float, TM: ConstInt, TN: ConstInt,
                                  TK: ConstInt):
    """``clamp((A @ B) * scale[n] + bias[n], lo, hi)`` (a quantized linear's dequant epilogue with an activation
    clamp); f16 in, bf16 out, ``lo`` / ``hi`` launch-time floats."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    s = ct.load(Scale, index=(bn,), shape=(TN,), padding_mode=ZERO)
    bias = ct.load(Bias, index=(bn,), shape=(TN,), padding_mode=ZERO)
    y = ct.minimum(ct.maximum(acc * s[None, :] + bias[None, :], lo), hi)
    ct.store(C, index=(bm, bn), tile=y.astype(C.dtype))


@ct.kernel
def gemm_store_transposed_output(A, Bm, Ct, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C.T = A @ B`` written into a ``[N, M]`` output (a backward pass's weight gradient laid out as the
    weight): the accumulator transposed before its store at ``(bn, bm)``; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(Ct, index=(bn, bm), tile=ct.transpose(acc))


@ct.kernel
def gemm_into_strided_slice_of_bigger(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The QKV projection writing its output into a column slice of a wider buffer (``out[:, 64:64+N]``: C is a
    view with a row stride of 256 elements); f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def bmm_batch_axis2_b_broadcast_stride0(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``torch.bmm(a, w.expand(B, K, N))``: batch on grid axis 2, B a 3-D view whose batch stride is 0 (one
    weight seen by every batch); f16 in, f32 out."""
    bm, bn, bb = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[2], TK)):
        a = ct.load(A, index=(bb, bm, k), shape=(1, TM, TK), padding_mode=ZERO).reshape((TM, TK))
        b = ct.load(Bm, index=(bb, k, bn), shape=(1, TK, TN), padding_mode=ZERO).reshape((TK, TN))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bb, bm, bn), tile=acc.reshape((1, TM, TN)))


@ct.kernel
def gemm_k_loop_by_num_tiles(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The cuTile samples' matmul: the K trip count ``ct.num_tiles(A, axis=1, shape=(TM, TK))``; bf16 in, f32 out,
    K = 200 (the last K tile partial)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_fp32_operands_as_tf32(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """f32 activations and weights (a model kept in f32) multiplied as tf32 (``astype(ct.tfloat32)``, as
    ``torch.backends.cuda.matmul.allow_tf32``), f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO).astype(ct.tfloat32)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO).astype(ct.tfloat32)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_fp32_operands_plain(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """f32 operands given to ``ct.mma`` as they are (no tf32 cast): an f32 x f32 product."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemv_as_a_dot_of_n16(A, X, Y, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GEMV written as a GEMM of one column: ``x`` ``[K, 1]`` loaded as a ``(TK, 16)`` tile (15 columns of
    padding), ``y`` ``[M, 1]``; f16 in, f32 out."""
    bm = ct.bid(0)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        x = ct.load(X, index=(k, 0), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, x, acc)
    ct.store(Y, index=(bm, 0), tile=acc)


@ct.kernel
def gemm_last_row_tile_specialised_by_if(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Boundary specialisation: ``if bm == ct.num_blocks(0) - 1`` the last row tile's loads pad with zeros, the
    others load without a padding mode (their tiles in bounds); f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    last = ct.num_blocks(0) - 1
    for k in range(ct.cdiv(A.shape[1], TK)):
        if bm == last:
            a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        else:
            a = ct.load(A, index=(bm, k), shape=(TM, TK))
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_a_from_one_of_two_arrays_by_if(A, A2, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """An A tile read from one of two arrays by ``if bm == 0`` (a first row tile of another source): two
    different tiles, so the ``if`` stays and the tier refuses the operand at the ``if``; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        if bm == 0:
            a = ct.load(A2, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        else:
            a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def blas_gemm_alpha_beta_c_f32_in_place(A, Bm, C, alpha: float, beta: float, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """BLAS's ``C = alpha * A @ B + beta * C``: C read and written in place; f16 operands, f32 C."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    c = ct.load(C, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    ct.store(C, index=(bm, bn), tile=alpha * acc + beta * c)


@ct.kernel
def gemm_default_tile_arguments(A, Bm, C, TM: ConstInt = 64, TN: ConstInt = 64, TK: ConstInt = 32):
    """A GEMM whose tile sizes are default arguments (``TM: ct.Constant[int] = 64``), launched with them given;
    bf16 in, bf16 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gemm_relu_squared_bf16(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Primer's squared ReLU after a linear: ``relu(A @ B) ** 2`` written ``r * r``; bf16 in, bf16 out, a 1-D grid
    mapped to tiles by ``ct.cdiv``."""
    pid = ct.bid(0)
    nn = ct.cdiv(Bm.shape[1], TN)
    bm, bn = pid // nn, pid % nn
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    r = ct.maximum(acc, 0.0)
    ct.store(C, index=(bm, bn), tile=(r * r).astype(C.dtype))


@ct.kernel
def lora_linear_two_chained_dots(X, W, La, Lb, Y, scaling: float, TM: ConstInt, TN: ConstInt, TK: ConstInt,
                                 R: ConstInt):
    """A LoRA linear: ``X @ W + scaling * (X @ A) @ B`` with rank ``R`` = 16 -- the low-rank product accumulated
    over K next to the main one, then a second dot of it (as f16) with B; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    xa = ct.zeros((TM, R), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        x = ct.load(X, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        acc = ct.mma(x, ct.load(W, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
        xa = ct.mma(x, ct.load(La, index=(k, 0), shape=(TK, R), padding_mode=ZERO), xa)
    lb = ct.load(Lb, index=(0, bn), shape=(R, TN), padding_mode=ZERO)
    low = ct.mma(xa.astype(ct.float16), lb, ct.zeros((TM, TN), dtype=ct.float32))
    ct.store(Y, index=(bm, bn), tile=acc + scaling * low)


@ct.kernel
def gemm_matmul_operator_bf16_f32_out(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``acc += ct.matmul(a, b)`` (the functional form), bf16 in, f32 out, tiles 128 x 64 x 64."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = acc + ct.matmul(a, b)
    ct.store(C, index=(bm, bn), tile=acc)



@ct.kernel
def gemm_accumulates_into_c_in_place(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """``C += A @ B`` (a gradient accumulated over micro-batches): the accumulator starts as C's tile, not zeros;
    f16 operands, f32 C read and written in place."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.load(C, index=(bm, bn), shape=(TM, TN), padding_mode=ZERO)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gru_gates_two_k_loops_x_then_h(X, H, Wx, Wh, G, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A GRU cell's gate pre-activations ``x @ Wx + h @ Wh`` (``cat([x, h]) @ W`` without the cat): one
    accumulator through two K loops, K = 64 then K = 96; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], TK)):
        a = ct.load(X, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        acc = ct.mma(a, ct.load(Wx, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    for k in range(ct.cdiv(H.shape[1], TK)):
        a = ct.load(H, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        acc = ct.mma(a, ct.load(Wh, index=(k, bn), shape=(TK, TN), padding_mode=ZERO), acc)
    ct.store(G, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_k_tiles_walked_backwards(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The K tiles taken last to first (``k = nk - 1 - i``: a port of a kernel that walks a triangular operand
    from its end); K = 100, the partial tile first; f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    nk = ct.cdiv(A.shape[1], TK)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for i in range(nk):
        k = nk - 1 - i
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def gemm_then_softmax_over_the_row(A, Bm, P, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A classifier's logits and their softmax in one kernel: N = 64 = one column tile, so the row softmax runs in
    the epilogue (max / sum over axis 1 of the accumulator); f16 in, f32 probabilities out."""
    bm = ct.bid(0)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, 0), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    e = ct.exp(acc - ct.max(acc, axis=1, keepdims=True))
    ct.store(P, index=(bm, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def gemm_requantized_to_int8(A, Bm, Q, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """A quantized layer's output requantized in the epilogue: ``clamp(floor(acc * 4 + 0.5), -128, 127)`` stored
    as int8; f16 in."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    q = ct.minimum(ct.maximum(ct.floor(acc * 4.0 + 0.5), -128.0), 127.0)
    ct.store(Q, index=(bm, bn), tile=q.astype(ct.int8))


@ct.kernel
def gemm_whole_tile_skipped_by_scalar_if(A, Bm, C, m_valid: int, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Row tiles past ``m_valid`` skip everything (``if bm * TM < m_valid:`` around the K loop and the store,
    rows past it zeroed by ``ct.where``); f16 in, f32 out, C of 256 rows of which 130 valid."""
    bm, bn = ct.bid(0), ct.bid(1)
    if bm * TM < m_valid:
        acc = ct.zeros((TM, TN), dtype=ct.float32)
        for k in range(ct.cdiv(A.shape[1], TK)):
            a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
            b = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
            acc = ct.mma(a, b, acc)
        rows = bm * TM + ct.arange(TM, dtype=ct.int32)[:, None]
        ct.store(C, index=(bm, bn), tile=ct.where(rows < m_valid, acc, 0.0))


@ct.kernel
def gemm_two_k_tiles_a_step_by_hand(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """The K loop unrolled by hand: two K tiles of A and B a step (``range(0, nk, 2)``), two chained ``ct.mma``;
    K = 160 (five tiles: the last step's second tile all padding); f16 in, f32 out."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(0, ct.cdiv(A.shape[1], TK), 2):
        a0 = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b0 = ct.load(Bm, index=(k, bn), shape=(TK, TN), padding_mode=ZERO)
        a1 = ct.load(A, index=(bm, k + 1), shape=(TM, TK), padding_mode=ZERO)
        b1 = ct.load(Bm, index=(k + 1, bn), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a1, b1, ct.mma(a0, b0, acc))
    ct.store(C, index=(bm, bn), tile=acc)


# ----------------------------------------------------------------------------------------------- normalization


@ct.kernel
def rmsnorm_gemma_residual_fused(X, Res, W, ResOut, Y, eps: float, N: ConstInt, BN: ConstInt):
    """Gemma's RMSNorm fused with the residual add: ``r = x + res`` (written back, f16), ``y = r * rsqrt(mean(r^2)
    + eps) * (1 + w)``; statistics in f32, f16 out."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    res = ct.load(Res, index=(i, 0), shape=(1, BN), padding_mode=ZERO).astype(ct.float32)
    r = x + res
    ct.store(ResOut, index=(i, 0), tile=r.astype(ResOut.dtype))
    ms = ct.sum(r * r, axis=1, keepdims=True) / N
    w = ct.load(W, index=(0,), shape=(BN,), padding_mode=ZERO).astype(ct.float32)
    y = r * ct.rsqrt(ms + eps) * (1.0 + w[None, :])
    ct.store(Y, index=(i, 0), tile=y.astype(Y.dtype))


@ct.kernel
def softmax_with_temperature(X, Y, temperature: float, BN: ConstInt):
    """Sampling's softmax of logits divided by a launch-time temperature; rows of 100 (NEG_INF padding)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(1, BN), padding_mode=NEG_INF) / temperature
    e = ct.exp(x - ct.max(x, axis=1, keepdims=True))
    ct.store(Y, index=(i, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def log_softmax_f16_in_f32_out(X, Y, BN: ConstInt):
    """``x - max - log(sum(exp(x - max)))`` per row (a loss's log-probabilities), f16 in, f32 out."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(1, BN), padding_mode=NEG_INF).astype(ct.float32)
    z = x - ct.max(x, axis=1, keepdims=True)
    ct.store(Y, index=(i, 0), tile=z - ct.log(ct.sum(ct.exp(z), axis=1, keepdims=True)))


@ct.kernel
def top_p_mask_by_cumsum(P, Keep, top_p: float, BN: ConstInt):
    """Nucleus sampling's mask on probabilities sorted descending: keep token j while the cumulative sum before it
    is below ``top_p`` (the first token always kept); a bool row out."""
    i = ct.bid(0)
    p = ct.load(P, index=(i, 0), shape=(1, BN), padding_mode=ZERO)
    before = ct.cumsum(p, axis=1) - p
    ct.store(Keep, index=(i, 0), tile=before < top_p)


@ct.kernel
def log_sum_exp_online_over_chunks(X, Out, BN: ConstInt):
    """A row's log-sum-exp over chunks of ``BN`` columns with a running max and rescaled sum (flash-style), the
    row length not a multiple of the chunk."""
    i = ct.bid(0)
    m = ct.full((1, 1), -1e30, dtype=ct.float32)
    s = ct.zeros((1, 1), dtype=ct.float32)
    for c in range(ct.cdiv(X.shape[1], BN)):
        x = ct.load(X, index=(i, c), shape=(1, BN), padding_mode=NEG_INF)
        m_new = ct.maximum(m, ct.max(x, axis=1, keepdims=True))
        s = s * ct.exp(m - m_new) + ct.sum(ct.exp(x - m_new), axis=1, keepdims=True)
        m = m_new
    ct.store(Out, index=(i,), tile=(m + ct.log(s)).reshape((1,)))


# ----------------------------------------------------------------------------------------------- positional, quant


@ct.kernel
def rotary_interleaved_pairs(X, Cos, Sin, Y, TT: ConstInt, H: ConstInt):
    """GPT-J style rotary embedding on interleaved pairs ``(x[2i], x[2i+1])``: X viewed ``[T, D/2, 2]``, the pair's
    halves taken by ``ct.extract``, rotated by per-position ``cos`` / ``sin`` ``[T, D/2]`` and joined by ``ct.cat``."""
    t = ct.bid(0)
    x = ct.load(X, index=(t, 0, 0), shape=(TT, H, 2), padding_mode=ZERO)
    x0 = ct.extract(x, index=(0, 0, 0), shape=(TT, H, 1))
    x1 = ct.extract(x, index=(0, 0, 1), shape=(TT, H, 1))
    c = ct.load(Cos, index=(t, 0), shape=(TT, H), padding_mode=ZERO).reshape((TT, H, 1))
    s = ct.load(Sin, index=(t, 0), shape=(TT, H), padding_mode=ZERO).reshape((TT, H, 1))
    y = ct.cat((x0 * c - x1 * s, x0 * s + x1 * c), axis=2)
    ct.store(Y, index=(t, 0, 0), tile=y)


@ct.kernel
def unpack_uint8_nibbles_dequant(Q, Scale, Lo, Hi, BN: ConstInt):
    """Two unsigned 4-bit weights a byte (low nibble first): ``(q & 15) - 8`` and ``(q >> 4) - 8`` times a
    per-row scale, two f32 outputs."""
    r, c = ct.bid(0), ct.bid(1)
    q = ct.load(Q, index=(r, c), shape=(1, BN), padding_mode=ZERO).astype(ct.int32)
    s = ct.load(Scale, index=(r,), shape=(1,), padding_mode=ZERO).reshape((1, 1))
    ct.store(Lo, index=(r, c), tile=((q & 15) - 8).astype(ct.float32) * s)
    ct.store(Hi, index=(r, c), tile=((q >> 4) - 8).astype(ct.float32) * s)


@ct.kernel
def unpack_int4_words_by_shift_arange(Wq, Out, BN: ConstInt):
    """AWQ-style packing: eight signed 4-bit values in an int32 word, unpacked by shifting each word by
    ``4 * arange(8)`` and sign-extending with ``(v << 28) >> 28``; ``[N]`` words -> ``[N, 8]`` f32."""
    i = ct.bid(0)
    w = ct.load(Wq, index=(i,), shape=(BN,), padding_mode=ZERO)
    sh = (ct.arange(8, dtype=ct.int32) * 4)[None, :]
    v = (w[:, None] >> sh) & 15
    v = (v << 28) >> 28
    ct.store(Out, index=(i, 0), tile=v.astype(ct.float32))


@ct.kernel
def quantize_rows_int8_symmetric(X, Q, Scales, BN: ConstInt):
    """Dynamic per-token int8 quantization: ``scale = max|x| / 127``, ``q = floor(x / scale + 0.5)`` clamped to
    [-127, 127] as int8, the scale stored per row."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(1, BN), padding_mode=ZERO)
    amax = ct.maximum(ct.max(ct.abs(x), axis=1, keepdims=True), 1e-8)
    scale = amax / 127.0
    q = ct.minimum(ct.maximum(ct.floor(x / scale + 0.5), -127.0), 127.0)
    ct.store(Q, index=(i, 0), tile=q.astype(ct.int8))
    ct.store(Scales, index=(i,), tile=scale.reshape((1,)))


@ct.kernel
def image_uint8_normalize_channels_last(Img, Mean, Std, Out, TP: ConstInt):
    """A vision preprocessor: uint8 HWC pixels -> ``(x / 255 - mean[c]) / std[c]`` f32, channels last (C = 4
    padded RGBA), ``TP`` pixels a program."""
    i = ct.bid(0)
    x = ct.load(Img, index=(i, 0), shape=(TP, 4), padding_mode=ZERO).astype(ct.float32)
    m = ct.load(Mean, index=(0,), shape=(4,))
    s = ct.load(Std, index=(0,), shape=(4,))
    ct.store(Out, index=(i, 0), tile=(x / 255.0 - m[None, :]) / s[None, :])


# ----------------------------------------------------------------------------------------------- pooling, conv


@ct.kernel
def masked_mean_pool_by_lengths(X, Lens, Out, TL: ConstInt, D: ConstInt):
    """Sentence embeddings: the mean of each sequence's first ``lens[b]`` token vectors (``[B, L, D]``, padded
    tokens masked by ``arange < len``), a length of 0 giving 0."""
    b = ct.bid(0)
    n = ct.load(Lens, index=(b,), shape=(1,)).reshape((1, 1))
    acc = ct.zeros((1, D), dtype=ct.float32)
    for c in range(ct.cdiv(X.shape[1], TL)):
        x = ct.load(X, index=(b, c, 0), shape=(1, TL, D), padding_mode=ZERO).reshape((TL, D))
        pos = c * TL + ct.arange(TL, dtype=ct.int32)[:, None]
        acc = acc + ct.sum(ct.where(pos < n, x, 0.0), axis=0, keepdims=True)
    mean = acc / ct.maximum(n, 1).astype(ct.float32)
    ct.store(Out, index=(b, 0), tile=mean)


@ct.kernel
def conv1d_depthwise_k3_by_gather(X, Wt, Y, BN: ConstInt):
    """A depthwise 1-D convolution of width 3 with zero padding (Mamba's short conv): ``y[c, t] = w[c, 0] *
    x[c, t-1] + w[c, 1] * x[c, t] + w[c, 2] * x[c, t+1]``, neighbours by ``ct.gather`` (out of bounds -> 0)."""
    ch, tb = ct.bid(0), ct.bid(1)
    t = tb * BN + ct.arange(BN, dtype=ct.int32)
    w = ct.load(Wt, index=(ch, 0), shape=(1, 4), padding_mode=ZERO).reshape((4,))
    y = ct.zeros((BN,), dtype=ct.float32)
    for j in ct.static_iter(range(3)):
        x = ct.gather(X, (ch, t + (j - 1)))
        y = y + ct.extract(w, index=(j,), shape=(1,)) * x
    ct.store(Y, index=(ch, tb), tile=y.reshape((1, BN)))


@ct.kernel
def avg_pool1d_stride2_by_reshape(X, Y, BN: ConstInt):
    """``F.avg_pool1d(x, 2)``: a row tile reshaped ``(BN / 2, 2)`` and summed over the pair axis."""
    r, c = ct.bid(0), ct.bid(1)
    x = ct.load(X, index=(r, c), shape=(1, BN), padding_mode=ZERO).reshape((BN // 2, 2))
    ct.store(Y, index=(r, c), tile=(ct.sum(x, axis=1) * 0.5).reshape((1, BN // 2)))


# ----------------------------------------------------------------------------------------------- atomics, sorting


@ct.kernel
def histogram_int32_atomic_bins(X, Counts, lo: float, hi: float, NB: ConstInt, BN: ConstInt):
    """``torch.histc``: values in ``[lo, hi]`` counted into ``NB`` equal bins by ``ct.atomic_add`` of ones (the
    top edge in the last bin, values outside ignored by a mask of the index)."""
    i = ct.bid(0)
    idx = i * BN + ct.arange(BN, dtype=ct.int32)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    b = ct.minimum(ct.floor((x - lo) * (NB / (hi - lo))).astype(ct.int32), NB - 1)
    ok = (idx < X.shape[0]) & (x >= lo) & (x <= hi)
    ct.atomic_add(Counts, ct.where(ok, b, NB), ct.ones((BN,), dtype=ct.int32), check_bounds=True)


@ct.kernel
def bitonic_sort_rows_of_16(X, Y, N: ConstInt):
    """A bitonic sorting network over a 16-element row tile: each compare-exchange step views the tile ``(16 / 2j,
    2, j)``, takes the halves by ``ct.extract``, and picks min / max by ``ct.where`` on the block's direction;
    ascending rows out."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N)).reshape((N,))
    for k in ct.static_iter((2, 4, 8, 16)):
        for j in ct.static_iter((8, 4, 2, 1)):
            if j < k:
                v = x.reshape((N // (2 * j), 2, j))
                lo = ct.extract(v, index=(0, 0, 0), shape=(N // (2 * j), 1, j))
                hi = ct.extract(v, index=(0, 1, 0), shape=(N // (2 * j), 1, j))
                pos = (ct.arange(N // (2 * j), dtype=ct.int32) * (2 * j))[:, None, None]
                asc = (pos & k) == 0
                mn, mx = ct.minimum(lo, hi), ct.maximum(lo, hi)
                x = ct.cat((ct.where(asc, mn, mx), ct.where(asc, mx, mn)), axis=1).reshape((N,))
    ct.store(Y, index=(r, 0), tile=x.reshape((1, N)))


@ct.kernel
def rank_sort_by_comparison_matrix(X, Y, N: ConstInt):
    """A small sort by ranks: ``rank[i] = #{j: x[j] < x[i] or (x[j] == x[i] and j < i)}`` from an ``N x N``
    comparison tile, each value scattered to its rank."""
    r = ct.bid(0)
    x = ct.load(X, index=(r, 0), shape=(1, N)).reshape((N,))
    ids = ct.arange(N, dtype=ct.int32)
    before = (x[None, :] < x[:, None]) | ((x[None, :] == x[:, None]) & (ids[None, :] < ids[:, None]))
    rank = ct.sum(before.astype(ct.int32), axis=1)
    ct.scatter(Y, (r, rank), x)


@ct.kernel
def argmin_int64_with_first_tie(X, Out, BN: ConstInt):
    """The index of each row's smallest value (the first of ties) as int64, rows of 70 padded with +inf."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(1, BN), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(Out, index=(i,), tile=ct.argmin(x, axis=1).astype(ct.int64))


# ----------------------------------------------------------------------------------------------- products, control


@ct.kernel
def gemv_by_row_reduction(A, X, Y, TM: ConstInt, TK: ConstInt):
    """A GEMV without a dot: ``y[m] = sum_k A[m, k] * x[k]`` over K tiles (f16 weights, f32 x and y)."""
    bm = ct.bid(0)
    acc = ct.zeros((TM,), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO).astype(ct.float32)
        x = ct.load(X, index=(k,), shape=(TK,), padding_mode=ZERO)
        acc = acc + ct.sum(a * x[None, :], axis=1)
    ct.store(Y, index=(bm,), tile=acc)


@ct.kernel
def outer_product_scaled(U, V, Out, alpha: float, TM: ConstInt, TN: ConstInt):
    """``alpha * u v^T`` on a 2-D grid (a rank-1 update's term), ragged on both axes."""
    bm, bn = ct.bid(0), ct.bid(1)
    u = ct.load(U, index=(bm,), shape=(TM,), padding_mode=ZERO)
    v = ct.load(V, index=(bn,), shape=(TN,), padding_mode=ZERO)
    ct.store(Out, index=(bm, bn), tile=alpha * u[:, None] * v[None, :])


@ct.kernel
def first_crossing_with_done_mask(X, Out, thresh: float, BN: ConstInt):
    """A ``break``-like loop: walk a row's chunks accumulating a running total and record the first index where it
    exceeds ``thresh`` (-1 if never); once found, a ``done`` flag masks the later chunks' updates."""
    i = ct.bid(0)
    total = ct.zeros((1,), dtype=ct.float32)
    found = ct.full((1,), -1, dtype=ct.int32)
    for c in range(ct.cdiv(X.shape[1], BN)):
        x = ct.load(X, index=(i, c), shape=(1, BN), padding_mode=ZERO).reshape((BN,))
        run = ct.cumsum(x, axis=0) + total
        hit = run > thresh
        first = ct.min(ct.where(hit, ct.arange(BN, dtype=ct.int32), BN), axis=0, keepdims=True)
        done = found >= 0
        found = ct.where(~done & (first < BN), c * BN + first, found)
        total = ct.extract(run, index=(BN - 1,), shape=(1,))
    ct.store(Out, index=(i,), tile=found)


@ct.kernel
def bucketize_by_binary_search_while(Bounds, Q, Out, BN: ConstInt):
    """``torch.bucketize(q, bounds)`` (``searchsorted``, left side) by a branchless binary search: a ``while`` loop
    halving a scalar step from 64, each query's position advanced by ``ct.where`` on a ``ct.gather`` of the bound
    before it; 100 sorted bounds, int32 positions out."""
    q = ct.load(Q, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    n = Bounds.shape[0]
    pos = ct.zeros((BN,), dtype=ct.int32)
    step = 64
    while step > 0:
        cand = pos + step
        b = ct.gather(Bounds, ct.minimum(cand, n) - 1)
        pos = ct.where((cand <= n) & (b < q), cand, pos)
        step = step // 2
    ct.store(Out, index=(ct.bid(0),), tile=pos)

@ct.kernel
def scale_3d_batch_on_bid2(X, S, Y, TM: ConstInt, TN: ConstInt):
    """``y[b] = x[b] * s[b]`` over a ``[B, M, N]`` tensor with the batch on grid axis 2 (``ct.bid(2)``), M and N
    tiled on axes 0 and 1 by ``ct.cdiv`` grids."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    s = ct.load(S, index=(b,), shape=(1,)).reshape((1, 1, 1))
    x = ct.load(X, index=(b, bm, bn), shape=(1, TM, TN), padding_mode=ZERO)
    ct.store(Y, index=(b, bm, bn), tile=x * s)


@ct.kernel
def grid_stride_copy_num_blocks(X, Y, BN: ConstInt):
    """A grid-stride loop: program ``p`` copies tiles ``p, p + num_blocks, ...`` doubled (fewer programs than
    tiles: 3 programs for 13 tiles)."""
    for t in range(ct.bid(0), ct.cdiv(X.shape[0], BN), ct.num_blocks(0)):
        x = ct.load(X, index=(t,), shape=(BN,), padding_mode=ZERO)
        ct.store(Y, index=(t,), tile=x * 2.0)


@ct.kernel
def edge_programs_specialised_by_if(X, Y, BN: ConstInt):
    """A 3-point moving average where the first and last programs take their own branch (``if ct.bid(0) == 0`` /
    ``elif ct.bid(0) == ct.num_blocks(0) - 1``) clamping the edge neighbour; interior programs gather freely."""
    i = ct.bid(0)
    n = X.shape[0]
    idx = i * BN + ct.arange(BN, dtype=ct.int32)
    if i == 0:
        left = ct.gather(X, ct.maximum(idx - 1, 0))
        right = ct.gather(X, idx + 1)
    elif i == ct.num_blocks(0) - 1:
        left = ct.gather(X, idx - 1)
        right = ct.gather(X, ct.minimum(idx + 1, n - 1))
    else:
        left = ct.gather(X, idx - 1)
        right = ct.gather(X, idx + 1)
    mid = ct.gather(X, idx)
    ct.scatter(Y, idx, (left + mid + right) / 3.0)


@ct.kernel
def defaults_scale_and_tile(X, Y, scale: float = 0.5, BN: ConstInt = 64):
    """A scalar and a constant with default values (``scale: float = 0.5``, ``BN: ct.Constant[int] = 64``), the
    launch passing both."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=x * scale)


@ct.kernel
def causal_mask_fill_scores(S, Y, TM: ConstInt, TN: ConstInt):
    """Attention scores masked causally (``col > row`` -> ``-inf``) by absolute row / column indices of a 2-D grid
    of tiles, then a row-wise softmax over a single column tile (N = TN)."""
    bm = ct.bid(0)
    s = ct.load(S, index=(bm, 0), shape=(TM, TN), padding_mode=ZERO)
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)[:, None]
    cols = ct.arange(TN, dtype=ct.int32)[None, :]
    s = ct.where(cols > rows, -float("inf"), s)
    e = ct.exp(s - ct.max(s, axis=1, keepdims=True))
    ct.store(Y, index=(bm, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def cumprod_discount_factors(G, Out, BN: ConstInt):
    """Reinforcement learning's discounting: the cumulative product of per-step factors ``gamma_t`` along a row
    (``ct.cumprod``), padded with ones."""
    i = ct.bid(0)
    g = ct.load(G, index=(i, 0), shape=(1, BN), padding_mode=ZERO)
    cols = ct.arange(BN, dtype=ct.int32)[None, :]
    g = ct.where(cols < G.shape[1], g, 1.0)
    ct.store(Out, index=(i, 0), tile=ct.cumprod(g, axis=1))


@ct.kernel
def layer_scale_residual_bf16(X, F, Gamma, Y, TR: ConstInt, D: ConstInt):
    """CaiT's layer scale: ``y = x + gamma * f(x)`` with a per-channel ``gamma`` ``[D]`` broadcast over rows; bf16
    tensors, f32 arithmetic."""
    i = ct.bid(0)
    x = ct.load(X, index=(i, 0), shape=(TR, D), padding_mode=ZERO).astype(ct.float32)
    f = ct.load(F, index=(i, 0), shape=(TR, D), padding_mode=ZERO).astype(ct.float32)
    g = ct.load(Gamma, index=(0,), shape=(D,)).astype(ct.float32)
    ct.store(Y, index=(i, 0), tile=(x + g[None, :] * f).astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- the table

_add("swiglu_two_dots_of_one_a_tile", swiglu_two_dots_of_one_a_tile,
     [_a((130, 64), F16), _a((64, 96), F16), _a((64, 96), F16), _a((130, 96), F16), 64, 64, 32], (3, 2), "gemm",
     outputs=(3,))
_add("geglu_gate_up_in_one_weight", geglu_gate_up_in_one_weight,
     [_a((100, 64), BF16), _a((64, 256), BF16), _a((100, 128)), 64, 64, 32], (2, 2), "simt", outputs=(2,),
     error="dots sharing A read their B tiles at different column tile indices")
_add("gemm_bias_channel_scale_clamp", gemm_bias_channel_scale_clamp,
     [_a((130, 64), F16), _a((64, 96), F16), _a((96,)), _a((96,)), _a((130, 96), BF16), -2.0, 3.0, 64, 64, 32],
     (3, 2), "gemm", outputs=(4,))
_add("gemm_store_transposed_output", gemm_store_transposed_output,
     [_a((100, 64), F16), _a((64, 80), F16), _a((80, 100)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_into_strided_slice_of_bigger", gemm_into_strided_slice_of_bigger,
     [_a((100, 64), F16), _a((64, 96), F16), _a((100, 96), F32, (256, 1)), 64, 64, 32], (2, 2), "gemm",
     outputs=(2,))
_add("bmm_batch_axis2_b_broadcast_stride0", bmm_batch_axis2_b_broadcast_stride0,
     [_a((3, 70, 64), F16), _a((3, 64, 80), F16, (0, 80, 1)), _a((3, 70, 80)), 64, 64, 32], (2, 2, 3), "gemm",
     outputs=(2,))
_add("gemm_k_loop_by_num_tiles", gemm_k_loop_by_num_tiles,
     [_a((100, 200), BF16), _a((200, 96), BF16), _a((100, 96)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_fp32_operands_as_tf32", gemm_fp32_operands_as_tf32,
     [_a((100, 64)), _a((64, 80)), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_fp32_operands_plain", gemm_fp32_operands_plain,
     [_a((100, 64)), _a((64, 80)), _a((100, 80)), 64, 64, 32], (2, 2), "simt", outputs=(2,),
     error="this dot multiplies f32 tiles, which cuTile computes in f32")
_add("gemv_as_a_dot_of_n16", gemv_as_a_dot_of_n16,
     [_a((100, 96), F16), _a((96, 1), F16), _a((100, 1)), 64, 16, 32], (2,), "gemm", outputs=(2,))
_add("gemm_last_row_tile_specialised_by_if", gemm_last_row_tile_specialised_by_if,
     [_a((130, 64), F16), _a((64, 96), F16), _a((130, 96)), 64, 64, 32], (3, 2), "gemm", outputs=(2,))
_add("gemm_a_from_one_of_two_arrays_by_if", gemm_a_from_one_of_two_arrays_by_if,
     [_a((130, 64), F16), _a((130, 64), F16), _a((64, 96), F16), _a((130, 96)), 64, 64, 32], (3, 2), "simt",
     outputs=(3,), error="this dot operand is chosen by an if / else in the kernel")
_add("blas_gemm_alpha_beta_c_f32_in_place", blas_gemm_alpha_beta_c_f32_in_place,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), 1.5, -0.5, 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_default_tile_arguments", gemm_default_tile_arguments,
     [_a((100, 64), BF16), _a((64, 96), BF16), _a((100, 96), BF16), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_relu_squared_bf16", gemm_relu_squared_bf16,
     [_a((130, 64), BF16), _a((64, 96), BF16), _a((130, 96), BF16), 64, 64, 32], (6,), "gemm", outputs=(2,))
_add("lora_linear_two_chained_dots", lora_linear_two_chained_dots,
     [_a((100, 64), F16), _a((64, 96), F16), _a((64, 16), F16), _a((16, 96), F16), _a((100, 96)), 0.5, 64, 64, 32,
      16], (2, 2), "simt", outputs=(4,), error="the first dot's N (the second dot's K) is 16")
_add("gemm_matmul_operator_bf16_f32_out", gemm_matmul_operator_bf16_f32_out,
     [_a((200, 128), BF16), _a((128, 96), BF16), _a((200, 96)), 128, 64, 64], (2, 2), "gemm", outputs=(2,))

_add("gemm_accumulates_into_c_in_place", gemm_accumulates_into_c_in_place,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gru_gates_two_k_loops_x_then_h", gru_gates_two_k_loops_x_then_h,
     [_a((100, 64), F16), _a((100, 96), F16), _a((64, 80), F16), _a((96, 80), F16), _a((100, 80)), 64, 64, 32],
     (2, 2), "gemm", outputs=(4,))
_add("gemm_k_tiles_walked_backwards", gemm_k_tiles_walked_backwards,
     [_a((100, 100), F16), _a((100, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_then_softmax_over_the_row", gemm_then_softmax_over_the_row,
     [_a((100, 64), F16), _a((64, 64), F16), _a((100, 64)), 64, 64, 32], (2,), "gemm", outputs=(2,))
_add("gemm_requantized_to_int8", gemm_requantized_to_int8,
     [_a((100, 64), F16), _a((64, 80), F16), _a((100, 80), I8), 64, 64, 32], (2, 2), "gemm", outputs=(2,))
_add("gemm_whole_tile_skipped_by_scalar_if", gemm_whole_tile_skipped_by_scalar_if,
     [_a((256, 64), F16), _a((64, 80), F16), _a((256, 80)), 130, 64, 64, 32], (4, 2), "gemm", outputs=(2,))
_add("gemm_two_k_tiles_a_step_by_hand", gemm_two_k_tiles_a_step_by_hand,
     [_a((100, 160), F16), _a((160, 80), F16), _a((100, 80)), 64, 64, 32], (2, 2), "simt", outputs=(2,),
     error="two K tiles per iteration: a K loop unrolled by hand")

_add("rmsnorm_gemma_residual_fused", rmsnorm_gemma_residual_fused,
     [_a((6, 100), F16), _a((6, 100), F16), _a((100,), F16), _a((6, 100), F16), _a((6, 100), F16), 1e-6, 100, 128],
     (6,), "simt", outputs=(3, 4))
_add("softmax_with_temperature", softmax_with_temperature, [_a((5, 100)), _a((5, 100)), 0.7, 128], (5,), "simt",
     outputs=(1,))
_add("log_softmax_f16_in_f32_out", log_softmax_f16_in_f32_out, [_a((5, 100), F16), _a((5, 100)), 128], (5,), "simt",
     outputs=(1,))
_add("top_p_mask_by_cumsum", top_p_mask_by_cumsum, [_a((4, 50)), _a((4, 50), B), 0.9, 64], (4,), "simt",
     outputs=(1,))
_add("log_sum_exp_online_over_chunks", log_sum_exp_online_over_chunks, [_a((5, 300)), _a((5,)), 128], (5,), "simt",
     outputs=(1,))
_add("rotary_interleaved_pairs", rotary_interleaved_pairs,
     [_a((10, 16, 2)), _a((10, 16)), _a((10, 16)), _a((10, 16, 2)), 4, 16], (3,), "simt", outputs=(3,))
_add("unpack_uint8_nibbles_dequant", unpack_uint8_nibbles_dequant,
     [_a((4, 100), U8), _a((4,)), _a((4, 100)), _a((4, 100)), 64], (4, 2), "simt", outputs=(2, 3))
_add("unpack_int4_words_by_shift_arange", unpack_int4_words_by_shift_arange, [_a((50,), I32), _a((50, 8)), 32],
     (2,), "simt", outputs=(1,))
_add("quantize_rows_int8_symmetric", quantize_rows_int8_symmetric, [_a((5, 100)), _a((5, 100), I8), _a((5,)), 128],
     (5,), "simt", outputs=(1, 2))
_add("image_uint8_normalize_channels_last", image_uint8_normalize_channels_last,
     [_a((50, 4), U8), _a((4,)), _a((4,)), _a((50, 4)), 16], (4,), "simt", outputs=(3,))
_add("masked_mean_pool_by_lengths", masked_mean_pool_by_lengths,
     [_a((4, 20, 32)), _a((4,), I32), _a((4, 32)), 8, 32], (4,), "simt", outputs=(2,))
_add("conv1d_depthwise_k3_by_gather", conv1d_depthwise_k3_by_gather, [_a((6, 100)), _a((6, 4)), _a((6, 100)), 64],
     (6, 2), "simt", outputs=(2,))
_add("avg_pool1d_stride2_by_reshape", avg_pool1d_stride2_by_reshape, [_a((4, 100)), _a((4, 50)), 32], (4, 4),
     "simt", outputs=(1,))
_add("histogram_int32_atomic_bins", histogram_int32_atomic_bins, [_a((300,)), _a((16,), I32), -2.0, 2.0, 16, 128],
     (3,), "simt", outputs=(1,))
_add("bitonic_sort_rows_of_16", bitonic_sort_rows_of_16, [_a((5, 16)), _a((5, 16)), 16], (5,), "simt",
     outputs=(1,))
_add("rank_sort_by_comparison_matrix", rank_sort_by_comparison_matrix, [_a((5, 32)), _a((5, 32)), 32], (5,),
     "simt", outputs=(1,))
_add("argmin_int64_with_first_tie", argmin_int64_with_first_tie, [_a((6, 70)), _a((6,), I64), 128], (6,), "simt",
     outputs=(1,))
_add("gemv_by_row_reduction", gemv_by_row_reduction, [_a((100, 200), F16), _a((200,)), _a((100,)), 32, 64], (4,),
     "simt", outputs=(2,))
_add("outer_product_scaled", outer_product_scaled, [_a((70,)), _a((50,)), _a((70, 50)), 2.0, 32, 32], (3, 2),
     "simt", outputs=(2,))
_add("first_crossing_with_done_mask", first_crossing_with_done_mask, [_a((5, 100)), _a((5,), I32), 3.0, 32], (5,),
     "simt", outputs=(1,))
_add("bucketize_by_binary_search_while", bucketize_by_binary_search_while,
     [_a((100,)), _a((200,)), _a((200,), I32), 128], (2,), "simt", outputs=(2,))
_add("scale_3d_batch_on_bid2", scale_3d_batch_on_bid2, [_a((3, 20, 30)), _a((3,)), _a((3, 20, 30)), 16, 16],
     (2, 2, 3), "simt", outputs=(2,))
_add("grid_stride_copy_num_blocks", grid_stride_copy_num_blocks, [_a((200,)), _a((200,)), 16], (3,), "simt",
     outputs=(1,))
_add("edge_programs_specialised_by_if", edge_programs_specialised_by_if, [_a((200,)), _a((200,)), 64], (4,), "simt",
     outputs=(1,))
_add("defaults_scale_and_tile", defaults_scale_and_tile, [_a((100,)), _a((100,)), 0.5, 64], (2,), "simt",
     outputs=(1,))
_add("causal_mask_fill_scores", causal_mask_fill_scores, [_a((100, 64)), _a((100, 64)), 32, 64], (4,), "simt",
     outputs=(1,))
_add("cumprod_discount_factors", cumprod_discount_factors, [_a((4, 50)), _a((4, 50)), 64], (4,), "simt",
     outputs=(1,))
_add("layer_scale_residual_bf16", layer_scale_residual_bf16,
     [_a((10, 64), BF16), _a((10, 64), BF16), _a((64,), BF16), _a((10, 64), BF16), 4, 64], (3,), "simt",
     outputs=(3,))


# ----------------------------------------------------------------------------------------------- rejected by cuTile


@ct.kernel
def mx_scales_e8m0_round_to_nearest(X, Y, BN: ConstInt):
    """MX block scales converted to e8m0 with ``astype`` alone (round to nearest, cuTile's default)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=x.astype(ct.float8_e8m0fnu).astype(ct.float32))


@ct.kernel
def int16_gemm_of_audio_samples(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """16-bit PCM samples multiplied as int16 tiles by ``ct.mma`` into int32."""
    acc = ct.zeros((TM, TN), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(ct.bid(0), k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc)


@ct.kernel
def fp8_e5m2_times_e4m3_gemm(A, Bm, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """Gradients in e5m2 times weights in e4m3 (FP8 training's backward mix) in one ``ct.mma``."""
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(ct.bid(0), k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bm, index=(k, ct.bid(1)), shape=(TK, TN), padding_mode=ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=acc)


@ct.kernel
def running_min_by_float_atomic_min(X, Mins, BN: ConstInt):
    """A per-slot running minimum of f32 values by ``ct.atomic_min`` (cuTile's atomic min / max take integers)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.atomic_min(Mins, ct.arange(BN, dtype=ct.int32), x)


@ct.kernel
def sqrt_rounded_down(X, Y, BN: ConstInt):
    """``ct.sqrt(x, rounding_mode=ct.RoundingMode.RD)`` (CUDA's ``__fsqrt_rd`` spelled as a user guesses)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(ct.bid(0),), tile=ct.sqrt(x, rounding_mode=ct.RoundingMode.RD))


REJECTED_BY_CUTILE: dict[str, tuple] = {
    # name: (kernel, spec, words of cuTile's message, the source text of the line it names)
    "mx_scales_e8m0_round_to_nearest": (mx_scales_e8m0_round_to_nearest, [_a((64,)), _a((64,)), 64],
                                        "is not supported for conversion from float32 to float8_e8m0fnu",
                                        "x.astype(ct.float8_e8m0fnu)"),
    "int16_gemm_of_audio_samples": (int16_gemm_of_audio_samples, [_a((64, 64), I16), _a((64, 64), I16),
                                                                  _a((64, 64), I32), 64, 64, 32],
                                    "Unsupported input dtype int16", "acc = ct.mma(a, b, acc)"),
    "fp8_e5m2_times_e4m3_gemm": (fp8_e5m2_times_e4m3_gemm, [_a((64, 64), "float8_e5m2"), _a((64, 64), "float8_e4m3fn"),
                                                            _a((64, 64)), 64, 64, 32],
                                 "x and y must have the same dtype unless they are int8/uint8, got float8_e5m2 "
                                 "float8_e4m3fn", "acc = ct.mma(a, b, acc)"),
    "running_min_by_float_atomic_min": (running_min_by_float_atomic_min, [_a((64,)), _a((64,)), 64],
                                        "Unsupported array dtype: float32", "ct.atomic_min(Mins"),
    "sqrt_rounded_down": (sqrt_rounded_down, [_a((64,)), _a((64,)), 64], "has no attribute 'RD'",
                          "rounding_mode=ct.RoundingMode.RD"),
}
"""Programs cuTile's front end refuses at the user's line (tileorch never sees them)."""


# ----------------------------------------------------------------------------------------------- invalid programs


@ct.kernel
def fp4_e2m1_fake_quantize(X, Y, BN: ConstInt):
    """NVFP4 fake quantization: activations rounded through ``ct.float4_e2m1fn`` and back to f32 (the SIMT path
    holds no 4-bit float; as sweep 26's, whose error named the MLIR type alone: now cuTile's name too)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=x.astype(ct.float4_e2m1fn).astype(ct.float32))


@ct.kernel
def cumsum_rounded_toward_zero(X, Y, BN: ConstInt):
    """A prefix sum with ``rounding_mode=ct.RoundingMode.RZ`` (reproducible truncating sums)."""
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(BN,), padding_mode=ZERO)
    ct.store(Y, index=(i,), tile=ct.cumsum(x, axis=0, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def counts_by_system_scope_atomics(X, Counts, BN: ConstInt):
    """Counters bumped with ``memory_scope=ct.MemoryScope.SYS`` (host-visible, mapped memory)."""
    x = ct.load(X, index=(ct.bid(0),), shape=(BN,), padding_mode=ZERO)
    ct.atomic_add(Counts, ct.arange(BN, dtype=ct.int32), x, memory_scope=ct.MemoryScope.SYS)


INVALID: dict[str, UserProgram] = {}
"""Programs cuTile's front end accepts that tileorch cannot run: each stops with ``file:line:col: error:`` at the
user's line (``error``: words of the message; ``notes``: the source text of the line)."""
_bad = registrar(INVALID)
_bad("fp4_e2m1_fake_quantize", fp4_e2m1_fake_quantize, [_a((64,)), _a((64,)), 64], (1,), "error",
     error="element type f4E2M1FN is not supported yet by convert-nv-tileaa-to-simt (cuTile's ct.float4_e2m1fn; ",
     notes="x.astype(ct.float4_e2m1fn)")
_bad("cumsum_rounded_toward_zero", cumsum_rounded_toward_zero, [_a((64,)), _a((64,)), 64], (1,), "error",
     error="with rounding<zero> is not supported yet", notes="rounding_mode=ct.RoundingMode.RZ")
_bad("counts_by_system_scope_atomics", counts_by_system_scope_atomics, [_a((64,)), _a((64,)), 64], (1,), "error",
     error="a system-scope atomic_rmw", notes="memory_scope=ct.MemoryScope.SYS")
