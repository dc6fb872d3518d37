"""Session 29's cover set: a fused MLP block written as two loops, the second over the output's column tiles reading
the first (K) loop's result, ``y[bm, j] = f(x[bm] @ W1) @ W2[:, j]`` (``tileas-column-loop-to-tiles`` makes the
second loop the grid's axis 1, and the tier's dot on the K loop's result computes ``f`` in registers as the second
dot's A, the producer streaming W2's column tiles: ``GemmConfig.epi_loop``), and the two-loop forms still refused,
each with the located reason (:data:`ERRORS`: a hidden width no path compiles, the error naming the tier's limit).

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS` ("gemm" = TMA + WGMMA, "simt"
with ``error`` = the located remark saying why not), driven by tests/unit/test_cover29_compile.py (path, remark,
ptxas without spills, ``tileorch check``), tests/unit/test_cover29_emulated.py (the PTX emulator against numpy,
NaN-prefilled outputs, ragged M, K and N) and tests/gpu/test_cover29_gpu.py (the GPU).  Importing it needs
``cuda.tile``."""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
C = ct.Constant
ZERO = ct.PaddingMode.ZERO
F16, BF16, F32 = "float16", "bfloat16", "float32"


def _a(shape, dt=F16):
    return (tuple(shape), dt)


@ct.kernel
def mlp_loops_gelu_bias(X, W1, B1, W2, B2, Y, tm: C[int], th: C[int], tn: C[int], tk: C[int]):
    """An MLP block as two loops: ``h = x @ W1 + b1`` over K, ``gelu`` (tanh form) rounded to f16, then for each
    column tile ``j`` of Y (the loop bounded by Y's column tiles) ``y = a @ W2[:, j] + b2[j]``."""
    bm = ct.bid(0)
    h = ct.zeros((tm, th), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                   ct.load(W1, index=(k, 0), shape=(tk, th), padding_mode=ZERO), h)
    h = h + ct.load(B1, index=(0,), shape=(th,), padding_mode=ZERO).astype(ct.float32)[None, :]
    g = 0.5 * h * (1.0 + ct.tanh(0.7978845608028654 * (h + 0.044715 * h * h * h)))
    a = g.astype(ct.float16)
    for j in range(ct.cdiv(Y.shape[1], tn)):
        y = ct.mma(a, ct.load(W2, index=(0, j), shape=(th, tn), padding_mode=ZERO),
                   ct.zeros((tm, tn), dtype=ct.float32))
        y = y + ct.load(B2, index=(j,), shape=(tn,), padding_mode=ZERO).astype(ct.float32)[None, :]
        ct.store(Y, index=(bm, j), tile=y.astype(Y.dtype))


@ct.kernel
def mlp_loops_silu_linear_bt(X, W1, W2, Y, tm: C[int], th: C[int], tn: C[int], tk: C[int]):
    """nn.Linear's weights (``W1 [H, K]``, ``W2 [N, H]``, bf16): ``h = x @ W1^T`` over K, ``silu`` rounded to bf16,
    then for each of W2's row tiles ``j`` (Y's column tile) ``y = a @ W2[j]^T``."""
    bm = ct.bid(0)
    h = ct.zeros((tm, th), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        w = ct.load(W1, index=(0, k), shape=(th, tk), padding_mode=ZERO)
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO), ct.transpose(w), h)
    a = (h / (1.0 + ct.exp(-h))).astype(ct.bfloat16)
    for j in range(ct.cdiv(W2.shape[0], tn)):
        w2 = ct.load(W2, index=(j, 0), shape=(tn, th), padding_mode=ZERO)
        y = ct.mma(a, ct.transpose(w2), ct.zeros((tm, tn), dtype=ct.float32))
        ct.store(Y, index=(bm, j), tile=y.astype(Y.dtype))


@ct.kernel
def mlp_loops_running_sum(X, W1, W2, Y, tm: C[int], tk: C[int]):
    """Refused: the second loop carries its accumulator from one column tile to the next (``y[:, j]`` is the sum of
    the products of tiles ``0 .. j``), so its iterations are not independent tile programs."""
    bm = ct.bid(0)
    h = ct.zeros((tm, tk), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                   ct.load(W1, index=(k, 0), shape=(tk, tk), padding_mode=ZERO), h)
    a = ct.maximum(h, 0.0).astype(ct.float16)
    acc = ct.zeros((tm, tk), dtype=ct.float32)
    for j in range(ct.cdiv(W2.shape[1], tk)):
        acc = ct.mma(a, ct.load(W2, index=(0, j), shape=(tk, tk), padding_mode=ZERO), acc)
        ct.store(Y, index=(bm, j), tile=acc.astype(Y.dtype))


@ct.kernel
def mlp_loops_hidden_512(X, W1, W2, Y, tm: C[int], th: C[int], tn: C[int], tk: C[int]):
    """Refused: a hidden width of 512 columns in one tile (the first accumulator, 128 x 512 f32, does not fit a
    consumer warp group's registers beside the packed second-dot operand)."""
    bm = ct.bid(0)
    h = ct.zeros((tm, th), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                   ct.load(W1, index=(k, 0), shape=(tk, th), padding_mode=ZERO), h)
    a = ct.maximum(h, 0.0).astype(ct.float16)
    for j in range(ct.cdiv(Y.shape[1], tn)):
        y = ct.mma(a, ct.load(W2, index=(0, j), shape=(th, tn), padding_mode=ZERO),
                   ct.zeros((tm, tn), dtype=ct.float32))
        ct.store(Y, index=(bm, j), tile=y.astype(Y.dtype))


@ct.kernel
def mlp_loops_scalar_k(X, W1, B1, W2, Y, nk: int, tm: C[int], tk: C[int]):
    """The MLP block's K loop over a scalar argument's count of K tiles (``range(nk)``: the first ``nk`` K tiles of x
    and W1, a K prefix the program chooses), then ``relu(h + b1)`` and the loop over Y's column tiles."""
    bm = ct.bid(0)
    h = ct.zeros((tm, tk), dtype=ct.float32)
    for k in range(nk):
        h = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                   ct.load(W1, index=(k, 0), shape=(tk, tk), padding_mode=ZERO), h)
    b = ct.load(B1, index=(0,), shape=(tk,), padding_mode=ZERO).astype(ct.float32)
    a = ct.maximum(h + b[None, :], 0.0).astype(ct.float16)
    for j in range(ct.cdiv(Y.shape[1], tk)):
        y = ct.mma(a, ct.load(W2, index=(0, j), shape=(tk, tk), padding_mode=ZERO),
                   ct.zeros((tm, tk), dtype=ct.float32))
        ct.store(Y, index=(bm, j), tile=y.astype(Y.dtype))


_M, _K, _N = 200, 200, 232  # ragged M, K and N against the 128 x 64 x 64 tiles
_add("mlp_loops_gelu_bias", mlp_loops_gelu_bias,
     [_a((_M, _K)), _a((_K, 128)), _a((128,)), _a((128, _N)), _a((_N,)), _a((_M, _N)), 128, 128, 64, 64], (2,),
     "gemm", outputs=(5,))
_add("mlp_loops_gelu_hidden_256", mlp_loops_gelu_bias,
     [_a((_M, _K)), _a((_K, 256)), _a((256,)), _a((256, _N)), _a((_N,)), _a((_M, _N)), 128, 256, 64, 64], (2,),
     "gemm", outputs=(5,), notes="the widest hidden tile the second dot's register A takes (256 columns: 128 "
                                 "accumulator registers a thread), without spills")
_add("mlp_loops_silu_linear_bt", mlp_loops_silu_linear_bt,
     [_a((_M, _K), BF16), _a((64, _K), BF16), _a((_N, 64), BF16), _a((_M, _N), BF16), 128, 64, 64, 64], (2,),
     "gemm", outputs=(3,))
_add("mlp_loops_scalar_k", mlp_loops_scalar_k,
     [_a((_M, _K)), _a((_K, 64)), _a((64,)), _a((64, _N)), _a((_M, _N)), 2, 128, 64], (2,), "gemm", outputs=(4,))
_add("mlp_loops_running_sum", mlp_loops_running_sum,
     [_a((_M, _K)), _a((_K, 64)), _a((64, _N)), _a((_M, _N)), 128, 64], (2,), "simt",
     error="it carries a value from one iteration to the next", outputs=(3,))

ERRORS: dict[str, UserProgram] = {}
"""Programs no path compiles ("error": the located error, whose note names the tensor-core tier's refusal)."""
registrar(ERRORS)("mlp_loops_hidden_512", mlp_loops_hidden_512,
                  [_a((_M, _K)), _a((_K, 512)), _a((512, _N)), _a((_M, _N)), 128, 512, 64, 64], (2,), "error",
                  error="the hidden width) is 512 columns", outputs=(3,))



@ct.kernel
def own_a_beside_computed_a(X, W1, Z, S, W2, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Refused: two dots in one K loop into one accumulator, ``x @ w1`` with x's tile as it is loaded (TMA) and
    ``(z * s) @ w2`` with its A computed in the loop (z scaled by a per-row vector, rounded to f16): the WGMMA kernel
    reads an A per dot by TMA or one computed A, not both yet (the refusal names the rewrites)."""
    bm, bn = ct.bid(0), ct.bid(1)
    s = ct.load(S, index=(bm,), shape=(tm,), padding_mode=ZERO).astype(ct.float32)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
        z = ct.load(Z, index=(bm, k), shape=(tm, tk), padding_mode=ZERO).astype(ct.float32)
        acc = ct.mma((z * s[:, None]).astype(ct.float16),
                     ct.load(W2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def own_a_scale_after_the_loop(X, W1, Z, S, W2, Y, tm: C[int], tn: C[int], tk: C[int]):
    """``own_a_beside_computed_a`` written as its refusal says: the per-row scale after the loop, each dot's A
    loaded and an accumulator each (``y = x @ w1 + s[:, None] * (z @ w2)``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc1 = ct.zeros((tm, tn), dtype=ct.float32)
    acc2 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[1], tk)):
        acc1 = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                      ct.load(W1, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc1)
        acc2 = ct.mma(ct.load(Z, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                      ct.load(W2, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc2)
    s = ct.load(S, index=(bm,), shape=(tm,), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=(acc1 + s[:, None] * acc2).astype(Y.dtype))


_add("own_a_beside_computed_a", own_a_beside_computed_a,
     [_a((_M, _K)), _a((_K, _N)), _a((_M, _K)), _a((_M,), F32), _a((_K, _N)), _a((_M, _N)), 64, 64, 64], (4, 4),
     "simt", error="this dot's A is computed in the K loop", outputs=(5,))
_add("own_a_scale_after_the_loop", own_a_scale_after_the_loop,
     [_a((_M, _K)), _a((_K, _N)), _a((_M, _K)), _a((_M,), F32), _a((_K, _N)), _a((_M, _N)), 128, 64, 64], (2, 4),
     "gemm", outputs=(5,))
