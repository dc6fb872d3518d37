"""cuTile 1.7 programs as a new user writes them (issues 18 and 21, "the front door"): GEMM idioms
(``@``, ``ct.matmul``, ``ct.mma`` with an f16 accumulator, K loops from ``ct.cdiv`` and from
``ct.num_tiles`` of either operand, grid swizzles, alpha/beta epilogues, int8 with dequant, bf16
outputs, kernel hints), row and column normalisations, log-softmax and cross-entropy rows, masks
from ``ct.arange`` and ``where``, scans, arg-reductions, bool / int64 tiles, 3-D reshapes, scalar
arguments of several types, atomics, gathers and scatters with masks, early exits and loops of
several shapes, plus programs cuTile accepts that a compiler has to refuse with a located error.

Each entry of :data:`PROGRAMS` is a :class:`UserProgram`: the kernel, its arguments for the
launcher's front door (``(shape, dtype name)`` per array, Python values for scalars and
constants; :func:`tileorch.testing.export.cutile_bytecode`), the launch grid of those shapes and
the path the compiler should take.  Used by tests/unit/test_user_sweep*.py (CPU compile, the SIMT
interpreter) and tests/gpu/test_user_sweep_gpu.py (the H200 against torch).  Importing it needs
``cuda.tile``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cuda.tile as ct

ZERO = ct.PaddingMode.ZERO


@dataclass(frozen=True)
class UserProgram:
    """``spec``: per kernel argument ``(shape, dtype name)`` for an array, else the value;
    ``grid``: the launch grid for these shapes; ``path``: "gemm"/"chained"/"simt" (the program
    compiles and takes that path) or "error" (a located error whose message holds ``error``)."""

    kernel: object
    spec: list
    grid: tuple
    path: str
    error: str = ""
    notes: str = ""
    outputs: tuple = field(default=())  # argument positions the kernel writes

    def overridden(self, overrides: dict) -> dict[int, object]:
        """``overrides`` (kernel parameter name -> value, in place of the spec's scalar or constant) by argument
        position; TypeError naming the parameter for a name the kernel does not have or an array parameter
        (arrays are the runners' ``inputs``), so a misspelt override is never silently the spec's value."""
        from tileorch.launchers.cutile import _parameters

        names = _parameters(self.kernel)[0]
        out = {}
        for name, value in overrides.items():
            if name not in names:
                raise TypeError(f"{getattr(self.kernel, '__name__', self.kernel)} has no parameter {name!r} "
                                f"(its parameters: {', '.join(names)})")
            i = names.index(name)
            if isinstance(self.spec[i], (tuple, list)):
                raise TypeError(f"parameter {name!r} is an array: pass it in inputs (position {i})")
            out[i] = value
        return out


NEG_INF = ct.PaddingMode.NEG_INF
LOG2E = 1.4426950408889634


def registrar(programs: dict[str, UserProgram]):
    """The ``add(name, kernel, spec, grid, path, error="", notes="", outputs=())`` that files a
    :class:`UserProgram` under ``name`` in ``programs`` (each sweep module's table)."""

    def add(name, kernel, spec, grid, path, error="", notes="", outputs=()):
        programs[name] = UserProgram(kernel, spec, tuple(grid), path, error, notes, tuple(outputs))

    return add


PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)


# ----------------------------------------------------------------------------------------------- GEMM idioms


@ct.kernel
def mm_at_operator(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``acc = acc + a @ b`` with the K trip count ``ct.cdiv(A.shape[1], tk)``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = acc + a @ b
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_f16_acc(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The accumulator kept in f16 (``ct.mma`` with an f16 ``acc``)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float16)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def mm_k_from_b(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The K tile count read off B's axis 0, ``ct.matmul`` returning a fresh tile per step."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(B, axis=0, shape=(tk, tn))):
        p = ct.matmul(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)))
        acc = acc + p.astype(ct.float32)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_diagonal_swizzle(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A 2-D grid whose column tile is shifted by the row tile (a diagonal raster)."""
    bm = ct.bid(0)
    bn = (ct.bid(1) + ct.bid(0)) % ct.num_blocks(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_alpha_beta(A, B, C, alpha: float, beta: float, tm: ct.Constant[int], tn: ct.Constant[int],
                  tk: ct.Constant[int]):
    """BLAS ``C = alpha * A @ B + beta * C`` (C read and written)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    c = ct.load(C, index=(bm, bn), shape=(tm, tn)).astype(ct.float32)
    ct.store(C, index=(bm, bn), tile=(alpha * acc + beta * c).astype(C.dtype))


@ct.kernel
def mm_i8_scalar_dequant(A, B, C, scale: float, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """int8 x int8 -> int32, dequantised by one scale to a bf16 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=(acc.astype(ct.float32) * scale).astype(ct.bfloat16))


@ct.kernel
def mm_bf16_wide(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """bf16 in and out, a 64 x 256 tile."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(ct.bfloat16))


@ct.kernel
def mm_permute_b(A, W, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = A @ W^T`` with the W tile ([tn, tk]) turned by ``ct.permute(w, (1, 0))``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        w = ct.load(W, index=(bn, k), shape=(tn, tk))
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.permute(w, (1, 0)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_clamp_tanh(A, B, C, lo: float, hi: float, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """An epilogue of ``tanh(clamp(acc, lo, hi))`` with two float scalars."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=ct.tanh(ct.minimum(ct.maximum(acc, lo), hi)).astype(C.dtype))


@ct.kernel(num_ctas=2, occupancy=1)
def mm_hints(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM with ``num_ctas=2`` and ``occupancy=1`` hints."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_early_exit(A, B, C, rows_used: int, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """Programs whose row tile starts at or past ``rows_used`` return before the K loop."""
    bm, bn = ct.bid(0), ct.bid(1)
    if bm * tm >= rows_used:
        return
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_small_f32(A, B, C, t: ct.Constant[int]):
    """A 16 x 16 f32 matmul per program, one K tile (``ct.matmul`` of f32 tiles)."""
    bm, bn = ct.bid(0), ct.bid(1)
    ct.store(C, index=(bm, bn), tile=ct.matmul(ct.load(A, index=(bm, 0), shape=(t, t)),
                                              ct.load(B, index=(0, bn), shape=(t, t))))


@ct.kernel
def mm_row_vector(X, W, Y, tn: ct.Constant[int], tk: ct.Constant[int]):
    """A GEMV written as a (1, tk) x (tk, tn) matmul per column tile."""
    bn = ct.bid(0)
    acc = ct.zeros((1, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(W, axis=0, shape=(tk, tn))):
        acc = ct.mma(ct.load(X, index=(0, k), shape=(1, tk)), ct.load(W, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(Y, index=(0, bn), tile=acc)


for _name, _k in [("mm_at_operator", mm_at_operator), ("mm_f16_acc", mm_f16_acc), ("mm_k_from_b", mm_k_from_b),
                  ("mm_hints", mm_hints)]:
    _add(_name, _k, [((512, 320), "float16"), ((320, 384), "float16"), ((512, 384), "float16"), 128, 128, 64],
         (4, 3), "gemm", outputs=(2,))
_add("mm_alpha_beta", mm_alpha_beta,
     [((256, 256), "float16"), ((256, 256), "float16"), ((256, 256), "float16"), 1.5, -0.5, 128, 128, 64],
     (2, 2), "gemm", outputs=(2,))
_add("mm_i8_scalar_dequant", mm_i8_scalar_dequant,
     [((256, 256), "int8"), ((256, 256), "int8"), ((256, 256), "bfloat16"), 0.01, 128, 128, 64],
     (2, 2), "gemm", outputs=(2,))
_add("mm_bf16_wide", mm_bf16_wide, [((256, 256), "bfloat16"), ((256, 512), "bfloat16"), ((256, 512), "bfloat16"),
                                    64, 256, 64], (4, 2), "gemm", outputs=(2,))
_add("mm_permute_b", mm_permute_b, [((256, 256), "float16"), ((384, 256), "float16"), ((256, 384), "float16"),
                                    128, 128, 64], (2, 3), "gemm", outputs=(2,))
_add("mm_clamp_tanh", mm_clamp_tanh, [((256, 256), "float16"), ((256, 256), "float16"), ((256, 256), "float32"),
                                      -1.0, 2.0, 128, 128, 64], (2, 2), "gemm", outputs=(2,))
# tile coordinates from an expression of program ids and grid sizes, an early return: the
# tensor-core kernel walks the launch grid and evaluates the program's own coordinates and
# condition per tile (convert_to_cutlass.py, "program grid"); 128-row tiles (the WGMMA kernel's)
_add("mm_diagonal_swizzle", mm_diagonal_swizzle, [((512, 320), "float16"), ((320, 384), "float16"),
                                                  ((512, 384), "float16"), 128, 128, 64], (4, 3), "gemm",
     outputs=(2,))
_add("mm_early_exit", mm_early_exit, [((512, 128), "float16"), ((128, 256), "float16"), ((512, 256), "float16"),
                                      300, 128, 128, 64], (4, 2), "gemm", outputs=(2,))
_add("mm_small_f32", mm_small_f32, [((64, 16), "float32"), ((16, 48), "float32"), ((64, 48), "float32"), 16],
     (4, 3), "simt", outputs=(2,),
     notes="cuTile's f32 dot (tileiras computes it in f32): to f32 accuracy on the SIMT path (3xTF32 mma.sync); "
           "the tier's WGMMA multiplies tf32 (TILEORCH_F32_DOT=tf32 sends it there)")
_add("mm_row_vector", mm_row_vector, [((1, 512), "float16"), ((512, 768), "float16"), ((1, 768), "float32"),
                                      128, 64], (6,), "simt", outputs=(2,))


# ----------------------------------------------------------------------------------------------- rows and columns


@ct.kernel
def softmax_cols(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    """Softmax down each column (axis 0) of an (tm, tn) tile: the whole column in one tile."""
    j = ct.bid(0)
    t = ct.load(x, index=(0, j), shape=(tm, tn), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    e = ct.exp(t - ct.max(t, axis=0, keepdims=True))
    ct.store(y, index=(0, j), tile=e / ct.sum(e, axis=0, keepdims=True))


@ct.kernel
def log_softmax_rows(x, y, n: ct.Constant[int]):
    """``log_softmax`` of f16 rows into f32: ``t - max - log(sum(exp(t - max)))``."""
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, n), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    m = ct.max(t, axis=1, keepdims=True)
    lse = ct.log(ct.sum(ct.exp(t - m), axis=1, keepdims=True))
    ct.store(y, index=(r, 0), tile=t - m - lse)


@ct.kernel
def cross_entropy_rows(logits, labels, loss, n: ct.Constant[int]):
    """Per-row cross entropy: the log-sum-exp of the row minus the logit of its label (a gather
    of one element at (row, label))."""
    r = ct.bid(0)
    t = ct.load(logits, index=(r, 0), shape=(1, n), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    m = ct.max(t)
    lse = m + ct.log(ct.sum(ct.exp(t - m)))
    label = ct.gather(labels, r)
    picked = ct.gather(logits, (r, label)).astype(ct.float32)
    ct.scatter(loss, r, lse - picked)


@ct.kernel
def layernorm_bwd_dx(x, dy, w, mean, rstd, dx, n: ct.Constant[int]):
    """LayerNorm's input gradient for one row: ``(wdy - mean(wdy) - xhat * mean(wdy * xhat)) * rstd``."""
    r = ct.bid(0)
    xr = ct.load(x, index=(r, 0), shape=(1, n)).astype(ct.float32)
    g = ct.load(dy, index=(r, 0), shape=(1, n)).astype(ct.float32)
    ww = ct.reshape(ct.load(w, index=(0,), shape=(n,)).astype(ct.float32), (1, n))
    mu = ct.gather(mean, r)
    rs = ct.gather(rstd, r)
    xhat = (xr - mu) * rs
    wdy = ww * g
    c1 = ct.sum(xhat * wdy, axis=1, keepdims=True) / n
    c2 = ct.sum(wdy, axis=1, keepdims=True) / n
    ct.store(dx, index=(r, 0), tile=((wdy - (xhat * c1 + c2)) * rs).astype(dx.dtype))


@ct.kernel
def add_rmsnorm(x, res, w, h, y, n: ct.Constant[int], eps: float):
    """``h = x + res`` (stored) and ``y = rmsnorm(h) * w``: two outputs of one row."""
    r = ct.bid(0)
    s = ct.load(x, index=(r, 0), shape=(1, n)).astype(ct.float32)
    s = s + ct.load(res, index=(r, 0), shape=(1, n)).astype(ct.float32)
    ct.store(h, index=(r, 0), tile=s.astype(h.dtype))
    inv = ct.rsqrt(ct.sum(s * s, axis=1, keepdims=True) / n + eps)
    ww = ct.load(w, index=(0, 0), shape=(1, n)).astype(ct.float32)
    ct.store(y, index=(r, 0), tile=(s * inv * ww).astype(y.dtype))


@ct.kernel
def row_min_max_idx(x, vmin, imin, vmax, imax, tm: ct.Constant[int], tn: ct.Constant[int]):
    """Per column of a (tm, tn) tile: the minimum and maximum over axis 0 and their row indices."""
    j = ct.bid(0)
    t = ct.load(x, index=(0, j), shape=(tm, tn))
    ct.store(vmin, index=(j,), tile=ct.min(t, axis=0))
    ct.store(imin, index=(j,), tile=ct.argmin(t, axis=0))
    ct.store(vmax, index=(j,), tile=ct.max(t, axis=0))
    ct.store(imax, index=(j,), tile=ct.argmax(t, axis=0))


@ct.kernel
def row_prod_reduce(x, y, n: ct.Constant[int]):
    """A product over each row through ``ct.reduce`` with a lambda combiner."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n))
    ct.store(y, index=(ct.bid(0),), tile=ct.reduce(t, axis=1, func=lambda a, b: a * b, identity=1.0))


_add("softmax_cols", softmax_cols, [((64, 256), "float16"), ((64, 256), "float32"), 64, 32], (8,), "simt",
     outputs=(1,))
_add("log_softmax_rows", log_softmax_rows, [((6, 1000), "float16"), ((6, 1000), "float32"), 1024], (6,), "simt",
     outputs=(1,))
_add("cross_entropy_rows", cross_entropy_rows, [((5, 300), "bfloat16"), ((5,), "int32"), ((5,), "float32"), 512],
     (5,), "simt", outputs=(2,))
_add("layernorm_bwd_dx", layernorm_bwd_dx, [((4, 256), "float16"), ((4, 256), "float16"), ((256,), "float16"),
                                            ((4,), "float32"), ((4,), "float32"), ((4, 256), "float16"), 256],
     (4,), "simt", outputs=(5,))
_add("add_rmsnorm", add_rmsnorm, [((3, 512), "bfloat16"), ((3, 512), "bfloat16"), ((1, 512), "bfloat16"),
                                  ((3, 512), "bfloat16"), ((3, 512), "bfloat16"), 512, 1e-6], (3,), "simt",
     outputs=(3, 4))
_add("row_min_max_idx", row_min_max_idx, [((32, 128), "float32"), ((128,), "float32"), ((128,), "int32"),
                                          ((128,), "float32"), ((128,), "int32"), 32, 64], (2,), "simt",
     outputs=(1, 2, 3, 4))
_add("row_prod_reduce", row_prod_reduce, [((4, 32), "float32"), ((4,), "float32"), 32], (4,), "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- masks, scans, types


@ct.kernel
def arange_mask(x, y, limit: int, n: ct.Constant[int]):
    """Elements at global positions below ``limit`` are kept, others zeroed (``ct.arange`` + ``where``)."""
    i = ct.bid(0)
    pos = i * n + ct.arange(n, dtype=ct.int32)
    t = ct.load(x, index=(i,), shape=(n,), padding_mode=ZERO)
    ct.store(y, index=(i,), tile=ct.where(pos < limit, t, 0.0))


@ct.kernel
def cumsum_i64_rev(x, y, n: ct.Constant[int]):
    """A reverse inclusive cumsum of int32 values widened to int64."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n), padding_mode=ZERO).astype(ct.int64)
    ct.store(y, index=(ct.bid(0), 0), tile=ct.cumsum(t, axis=1, reverse=True))


@ct.kernel
def cumprod_cols(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    """A cumulative product down the columns (axis 0) of a 2-D tile."""
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn), padding_mode=ZERO)
    ct.store(y, index=(i, j), tile=ct.cumprod(t, axis=0))


@ct.kernel
def bool_logic(a, b, both, either, count, n: ct.Constant[int]):
    """bool tiles: ``a & b``, ``a | ~b``, and the number of ``a & b`` per program (atomic add)."""
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(n,), padding_mode=ZERO)
    y = ct.load(b, index=(i,), shape=(n,), padding_mode=ZERO)
    ct.store(both, index=(i,), tile=x & y)
    ct.store(either, index=(i,), tile=x | ~y)
    ct.atomic_add(count, 0, ct.sum((x & y).astype(ct.int32)))


@ct.kernel
def wide_index(x: ct.IndexedWithInt64, y: ct.IndexedWithInt64, offset: ct.ScalarInt64, n: ct.Constant[int]):
    """int64 indexing: an array indexed with int64 and an int64 scalar offset of tiles."""
    i = ct.bid(0) + offset
    ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(n,)) * 2)


@ct.kernel
def scalar_types(x, y, f: float, k: int, big: ct.ScalarInt64, flip: ct.Constant[bool], n: ct.Constant[int]):
    """A float, an int, an int64 scalar and a bool constant: ``y = x * f + k + (big % 7)``, negated if ``flip``."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,)) * f + k + (big % 7)
    if flip:
        t = -t
    ct.store(y, index=(i,), tile=t)


@ct.kernel
def constant_shapes(x, y, n: ct.Constant[int]):
    """Tile shapes computed from a constant (``2 * n``, ``n // 2``): load 2n, add its halves' sums."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(2 * n,))
    h = ct.reshape(t, (2, n))
    lo = ct.extract(h, index=(0, 0), shape=(1, n))
    hi = ct.extract(h, index=(1, 0), shape=(1, n))
    ct.store(y, index=(i,), tile=ct.reshape(lo + hi, (n,)))


@ct.kernel
def int_math(a, b, q, r, s, n: ct.Constant[int]):
    """Integer floor division and modulo of signed values (Python semantics), shifts and xor."""
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(n,))
    y = ct.load(b, index=(i,), shape=(n,))
    ct.store(q, index=(i,), tile=x // y)
    ct.store(r, index=(i,), tile=x % y)
    ct.store(s, index=(i,), tile=((x << 2) ^ (y >> 1)) & 0xFFFF)


@ct.kernel
def float_math(x, y, z, n: ct.Constant[int]):
    """exp2, log2, pow, atan2, floor, ceil, sqrt and abs of one f32 tile."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    u = ct.load(y, index=(i,), shape=(n,))
    a = ct.exp2(t * 0.5) + ct.log2(ct.abs(u) + 1.0) + ct.pow(ct.abs(t) + 0.5, 1.5)
    b = ct.atan2(t, u) + ct.floor(t * 3.0) - ct.ceil(u * 2.0) + ct.sqrt(ct.abs(u))
    ct.store(z, index=(i,), tile=a + b)


@ct.kernel
def bitcast_bits(x, y, n: ct.Constant[int]):
    """The exponent field of f32 values through ``ct.bitcast`` to int32."""
    i = ct.bid(0)
    bits = ct.bitcast(ct.load(x, index=(i,), shape=(n,)), ct.int32)
    ct.store(y, index=(i,), tile=(bits >> 23) & 0xFF)


_add("arange_mask", arange_mask, [((1000,), "float32"), ((1000,), "float32"), 777, 128], (8,), "simt", outputs=(1,))
_add("cumsum_i64_rev", cumsum_i64_rev, [((3, 100), "int32"), ((3, 100), "int64"), 128], (3,), "simt", outputs=(1,))
_add("cumprod_cols", cumprod_cols, [((16, 64), "float32"), ((16, 64), "float32"), 16, 32], (1, 2), "simt",
     outputs=(1,))
_add("bool_logic", bool_logic, [((300,), "bool_"), ((300,), "bool_"), ((300,), "bool_"), ((300,), "bool_"),
                                ((1,), "int32"), 128], (3,), "simt", outputs=(2, 3, 4))
_add("wide_index", wide_index, [((4096,), "float32"), ((4096,), "float32"), 2, 256], (14,), "simt", outputs=(1,))
_add("scalar_types", scalar_types, [((512,), "float32"), ((512,), "float32"), 0.25, -3, 2**40 + 5, True, 128],
     (4,), "simt", outputs=(1,))
_add("constant_shapes", constant_shapes, [((512,), "float32"), ((256,), "float32"), 64], (4,), "simt", outputs=(1,))
_add("int_math", int_math, [((256,), "int32"), ((256,), "int32"), ((256,), "int32"), ((256,), "int32"),
                            ((256,), "int32"), 128], (2,), "simt", outputs=(2, 3, 4))
_add("float_math", float_math, [((256,), "float32"), ((256,), "float32"), ((256,), "float32"), 128], (2,), "simt",
     outputs=(2,))
_add("bitcast_bits", bitcast_bits, [((256,), "float32"), ((256,), "int32"), 256], (1,), "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- shapes


@ct.kernel
def cat_permute_3d(x, z, y, a: ct.Constant[int], b: ct.Constant[int], c: ct.Constant[int]):
    """Two (a, b, c) tiles joined on axis 2 and permuted to (2c, a, b)."""
    t = ct.load(x, index=(0, 0, 0), shape=(a, b, c))
    u = ct.load(z, index=(0, 0, 0), shape=(a, b, c))
    ct.store(y, index=(0, 0, 0), tile=ct.permute(ct.cat((t, u), axis=2), (2, 0, 1)))


@ct.kernel
def broadcast_sum_3d(x, v, y, a: ct.Constant[int], b: ct.Constant[int], c: ct.Constant[int]):
    """``y[j, k] = sum_i (x[j, k] * v[i])``: an (a,) vector and a (b, c) tile broadcast to (a, b, c)."""
    t = ct.expand_dims(ct.load(x, index=(0, 0), shape=(b, c)), axis=0)
    w = ct.reshape(ct.load(v, index=(0,), shape=(a,)), (a, 1, 1))
    p = ct.broadcast_to(t, (a, b, c)) * ct.broadcast_to(w, (a, b, c))
    ct.store(y, index=(0, 0), tile=ct.sum(p, axis=0))


@ct.kernel
def transpose_on_load(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    """A transposed copy read through the load's ``order=(1, 0)`` (no transpose op)."""
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn), order=(1, 0))
    ct.store(y, index=(i, j), tile=t)


@ct.kernel
def transpose_3d(x, y, a: ct.Constant[int], b: ct.Constant[int]):
    """``ct.transpose`` of the last two axes of a 3-D tile (batch of matrices)."""
    k = ct.bid(0)
    t = ct.load(x, index=(k, 0, 0), shape=(1, a, b))
    ct.store(y, index=(k, 0, 0), tile=ct.transpose(t, 1, 2))


_add("cat_permute_3d", cat_permute_3d, [((2, 4, 8), "float16"), ((2, 4, 8), "float16"), ((16, 2, 4), "float16"),
                                        2, 4, 8], (1,), "simt", outputs=(2,))
_add("broadcast_sum_3d", broadcast_sum_3d, [((8, 16), "float32"), ((4,), "float32"), ((8, 16), "float32"), 4, 8, 16],
     (1,), "simt", outputs=(2,))
_add("transpose_on_load", transpose_on_load, [((64, 96), "float32"), ((96, 64), "float32"), 32, 32], (3, 2), "simt",
     outputs=(1,))
_add("transpose_3d", transpose_3d, [((3, 16, 32), "float16"), ((3, 32, 16), "float16"), 16, 32], (3,), "simt",
     outputs=(1,))


# ------------------------------------------------------------------------------------ memory and control flow


@ct.kernel
def float_histogram(x, bins, nbins: int, n: ct.Constant[int]):
    """Values in [0, 1) counted into ``nbins`` bins; values outside go to the last (overflow) bin."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,), padding_mode=ZERO)
    b = (t * nbins).astype(ct.int32)
    b = ct.where((b >= 0) & (b < nbins), b, nbins)
    ct.atomic_add(bins, b, ct.full((n,), 1, dtype=ct.int32))


@ct.kernel
def scatter_masked(src, idx, out, n: ct.Constant[int]):
    """``out[idx[i]] = src[i]`` only where ``src[i] > 0``."""
    i = ct.bid(0)
    v = ct.load(src, index=(i,), shape=(n,))
    d = ct.load(idx, index=(i,), shape=(n,))
    ct.scatter(out, d, v, mask=v > 0)


@ct.kernel
def gather_2d_clamped(src, rows, cols, out, n: ct.Constant[int]):
    """``out[i] = src[rows[i], cols[i]]`` with out-of-bounds pairs reading 0 (bounds-checked gather)."""
    i = ct.bid(0)
    r = ct.load(rows, index=(i,), shape=(n,))
    c = ct.load(cols, index=(i,), shape=(n,))
    ct.store(out, index=(i,), tile=ct.gather(src, (r, c), padding_value=0.0))


@ct.kernel
def early_exit_rows(x, y, valid: int, n: ct.Constant[int]):
    """Rows at or past ``valid`` return at once; the others are doubled."""
    r = ct.bid(0)
    if r >= valid:
        return
    ct.store(y, index=(r, 0), tile=ct.load(x, index=(r, 0), shape=(1, n)) * 2.0)


@ct.kernel
def nested_loops(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    """A sum over a program's (tiles_m x tiles_n) grid of tiles in two nested loops."""
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for i in range(ct.num_tiles(x, axis=0, shape=(tm, tn))):
        for j in range(ct.num_tiles(x, axis=1, shape=(tm, tn))):
            acc = acc + ct.load(x, index=(i, j), shape=(tm, tn), padding_mode=ZERO)
    ct.store(y, index=(ct.bid(0), 0), tile=acc)


@ct.kernel
def while_doubling(x, y, limit: float, n: ct.Constant[int]):
    """A while loop on a scalar: double a scale until ``scale * max|x|`` reaches ``limit``."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    m = ct.max(ct.abs(t)) + 1e-3
    s = 1.0
    steps = 0
    while s * m < limit and steps < 64:
        s = s * 2.0
        steps += 1
    ct.store(y, index=(ct.bid(0),), tile=t * s)


@ct.kernel
def stencil_same_array(x, y, n: ct.Constant[int]):
    """One array read twice (tile i and tile i + 1): ``y = x[i] - x[i+1]`` at the same slot."""
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(n,))
    b = ct.load(x, index=(i + 1,), shape=(n,), padding_mode=ZERO)
    ct.store(y, index=(i,), tile=a - b)


@ct.kernel
def odd_length_axpy(x, y, a: float, n: ct.Constant[int]):
    """``y += a * x`` on an array of odd length with 1-D tiles of 32 (a ragged last tile)."""
    i = ct.bid(0)
    ct.store(y, index=(i,), tile=ct.load(y, index=(i,), shape=(n,)) + a * ct.load(x, index=(i,), shape=(n,)))


@ct.kernel
def loop_carried_max(x, y, tn: ct.Constant[int]):
    """A running row maximum across column tiles (the carried tile starts at -inf)."""
    r = ct.bid(0)
    m = ct.full((1, tn), float("-inf"), dtype=ct.float32)
    for j in range(ct.num_tiles(x, axis=1, shape=(1, tn))):
        m = ct.maximum(m, ct.load(x, index=(r, j), shape=(1, tn), padding_mode=ct.PaddingMode.NEG_INF))
    ct.store(y, index=(r,), tile=ct.max(m, axis=1))


_add("float_histogram", float_histogram, [((1000,), "float32"), ((17,), "int32"), 16, 256], (4,), "simt",
     outputs=(1,))
_add("scatter_masked", scatter_masked, [((256,), "float32"), ((256,), "int32"), ((256,), "float32"), 128], (2,),
     "simt", outputs=(2,))
_add("gather_2d_clamped", gather_2d_clamped, [((16, 8), "float32"), ((256,), "int32"), ((256,), "int32"),
                                              ((256,), "float32"), 128], (2,), "simt", outputs=(3,))
_add("early_exit_rows", early_exit_rows, [((8, 128), "float32"), ((8, 128), "float32"), 5, 128], (8,), "simt",
     outputs=(1,))
_add("nested_loops", nested_loops, [((100, 200), "float32"), ((32, 64), "float32"), 32, 64], (1,), "simt",
     outputs=(1,))
_add("while_doubling", while_doubling, [((256,), "float32"), ((256,), "float32"), 100.0, 128], (2,), "simt",
     outputs=(1,))
_add("stencil_same_array", stencil_same_array, [((512,), "float32"), ((512,), "float32"), 128], (4,), "simt",
     outputs=(1,))
_add("odd_length_axpy", odd_length_axpy, [((1001,), "float32"), ((1001,), "float32"), 0.5, 32], (32,), "simt",
     outputs=(1,))
_add("loop_carried_max", loop_carried_max, [((4, 1000), "float32"), ((4,), "float32"), 256], (4,), "simt",
     outputs=(1,))


# ------------------------------------------------------------------------ cuTile accepts, the compiler refuses


@ct.kernel
def huge_tile(x, y, n: ct.Constant[int]):
    """A 2^22-element f32 tile in one program: more registers than a CTA has."""
    ct.store(y, index=(0,), tile=ct.exp(ct.load(x, index=(0,), shape=(n,))))


@ct.kernel
def mm_f64(A, B, C, t: ct.Constant[int]):
    """An f64 matmul (a dot the tensor-core path does not take)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((t, t), dtype=ct.float64)
    for k in range(ct.num_tiles(A, axis=1, shape=(t, t))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(t, t)), ct.load(B, index=(k, bn), shape=(t, t)), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def insert_op(x, y, n: ct.Constant[int]):
    """``ct.insert`` (Tile IR 13.4's ``insert``)."""
    t = ct.load(x, index=(0,), shape=(n,))
    ct.store(y, index=(0,), tile=ct.insert(t, index=(0,), value=ct.zeros((n // 2,), dtype=ct.float32)))


_add("huge_tile", huge_tile, [((1 << 22,), "float32"), ((1 << 22,), "float32"), 1 << 22], (1,), "error",
     error="registers", outputs=(1,))
_add("mm_f64", mm_f64, [((64, 64), "float64"), ((64, 64), "float64"), ((64, 64), "float64"), 16], (4, 4), "simt",
     outputs=(2,))
_add("insert_op", insert_op, [((64,), "float32"), ((64,), "float32"), 64], (1,), "simt", outputs=(1,))


# ----------------------------------------------------------------------------------------------- cuTile refuses


@ct.kernel
def bad_shape_mismatch(x, y, n: ct.Constant[int]):
    a = ct.load(x, index=(0,), shape=(n,))
    b = ct.load(y, index=(0,), shape=(2 * n,))
    ct.store(y, index=(0,), tile=a + b)


@ct.kernel
def bad_mma_dtype(A, B, C, t: ct.Constant[int]):
    acc = ct.zeros((t, t), dtype=ct.float32)
    acc = ct.mma(ct.load(A, index=(0, 0), shape=(t, t)), ct.load(B, index=(0, 0), shape=(t, t)), acc)
    ct.store(C, index=(0, 0), tile=acc)


@ct.kernel
def bad_tile_size(x, y, n: ct.Constant[int]):
    ct.store(y, index=(0,), tile=ct.load(x, index=(0,), shape=(n,)))


@ct.kernel
def bad_axis(x, y, n: ct.Constant[int]):
    ct.store(y, index=(0,), tile=ct.sum(ct.load(x, index=(0, 0), shape=(n, n)), axis=2))


#: Programs cuTile's own front end refuses at export: the user's error is cuTile's, raised from
#: ``export_bytecode``; (kernel, spec, words the message holds).
CUTILE_REFUSES = {
    "bad_shape_mismatch": (bad_shape_mismatch, [((64,), "float32"), ((128,), "float32"), 64], "not broadcastable"),
    "bad_mma_dtype": (bad_mma_dtype, [((16, 16), "float16"), ((16, 16), "float32"), ((16, 16), "float32"), 16],
                      "must have the same dtype"),
    "bad_tile_size": (bad_tile_size, [((100,), "float32"), ((100,), "float32"), 100], "not a power of two"),
    "bad_axis": (bad_axis, [((16, 16), "float32"), ((16,), "float32"), 16], "out of range"),
}


@ct.kernel
def mm_guarded(A, B, C, rows_used: int, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The whole GEMM of a program under ``if bm * tm < rows_used`` (no return)."""
    bm, bn = ct.bid(0), ct.bid(1)
    if bm * tm < rows_used:
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
        ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def mm_guarded_store(A, B, C, rows_used: int, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM computed by every program, stored only ``if bm * tm < rows_used``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    if bm * tm < rows_used:
        ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


for _name, _k in [("mm_guarded", mm_guarded), ("mm_guarded_store", mm_guarded_store)]:
    _add(_name, _k, [((512, 128), "float16"), ((128, 256), "float16"), ((512, 256), "float16"), 300, 128, 128, 64],
         (4, 2), "gemm", outputs=(2,))


@ct.kernel
def rope_rows(x, pos, y, theta: float, d: ct.Constant[int]):
    """Rotary embedding of one row of ``d`` values (pairs ``(x[2i], x[2i+1])`` rotated by
    ``pos * theta^(-2i/d)``): ``ct.cos``/``ct.sin``, ``ct.pow``, the pairs split by reshape + extract."""
    r = ct.bid(0)
    t = ct.reshape(ct.load(x, index=(r, 0), shape=(1, d)).astype(ct.float32), (d // 2, 2))
    a = ct.reshape(ct.extract(t, index=(0, 0), shape=(d // 2, 1)), (d // 2,))
    b = ct.reshape(ct.extract(t, index=(0, 1), shape=(d // 2, 1)), (d // 2,))
    i = ct.arange(d // 2, dtype=ct.int32).astype(ct.float32)
    ang = ct.gather(pos, r) * ct.pow(ct.full((d // 2,), theta, dtype=ct.float32), i * (-2.0 / d))
    c, s = ct.cos(ang), ct.sin(ang)
    out = ct.cat((ct.reshape(a * c - b * s, (d // 2, 1)), ct.reshape(a * s + b * c, (d // 2, 1))), axis=1)
    ct.store(y, index=(r, 0), tile=ct.reshape(out, (1, d)).astype(y.dtype))


@ct.kernel
def trig_zoo(x, y, n: ct.Constant[int]):
    """tan, sinh, cosh and floor/ceil of an f16 tile, computed in f32 and stored as f16."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,)).astype(ct.float32)
    v = ct.tan(t * 0.5) + ct.sinh(t) - ct.cosh(t * 0.5) + ct.floor(t) * ct.ceil(t * 0.25)
    ct.store(y, index=(i,), tile=v.astype(ct.float16))


@ct.kernel
def bf16_sign_bits(x, y, n: ct.Constant[int]):
    """The sign bit of bf16 values through ``ct.bitcast`` to int16, as 0/1 int32."""
    i = ct.bid(0)
    bits = ct.bitcast(ct.load(x, index=(i,), shape=(n,)), ct.int16).astype(ct.int32)
    ct.store(y, index=(i,), tile=(bits >> 15) & 1)


_add("rope_rows", rope_rows, [((3, 64), "bfloat16"), ((3,), "float32"), ((3, 64), "float32"), 10000.0, 64], (3,),
     "simt", outputs=(2,))
_add("trig_zoo", trig_zoo, [((256,), "float16"), ((256,), "float16"), 128], (2,), "simt", outputs=(1,))
_add("bf16_sign_bits", bf16_sign_bits, [((256,), "bfloat16"), ((256,), "int32"), 128], (2,), "simt", outputs=(1,))


@ct.kernel
def mm_load_hints(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The GEMM with ``latency=`` and ``allow_tma=`` hints on its loads (the tier may ignore them)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), latency=4, allow_tma=True)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), latency=4)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


def _row_partial(x, r, j, n):
    """A helper the kernel calls: the sum of squares of column tile ``j`` of row ``r``."""
    t = ct.load(x, index=(r, j), shape=(1, n), padding_mode=ZERO).astype(ct.float32)
    return ct.sum(t * t)


@ct.kernel(num_worker_warps=8)
def row_norms_unrolled(x, y, n: ct.Constant[int], parts: ct.Constant[int]):
    """Row L2 norms over ``parts`` column tiles in a ``ct.static_iter`` loop (unrolled by cuTile),
    a helper function, ``num_worker_warps=8``."""
    r = ct.bid(0)
    s = 0.0
    for j in ct.static_iter(range(parts)):
        s = s + _row_partial(x, r, j, n)
    ct.scatter(y, r, ct.sqrt(s))


@ct.kernel
def printf_debug(x, y, n: ct.Constant[int]):
    """A user debugging with ``ct.printf``."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.printf("block %d max %f\n", ct.bid(0), ct.max(t))
    ct.store(y, index=(ct.bid(0),), tile=t)


@ct.kernel
def assert_positive(x, y, n: ct.Constant[int]):
    """A device-side ``ct.assert_`` on the input."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.assert_(ct.min(t) >= 0.0, "negative input")
    ct.store(y, index=(ct.bid(0),), tile=ct.sqrt(t))


_add("mm_load_hints", mm_load_hints, [((256, 256), "float16"), ((256, 256), "float16"), ((256, 256), "float16"),
                                      128, 128, 64], (2, 2), "gemm", outputs=(2,))
_add("row_norms_unrolled", row_norms_unrolled, [((5, 1000), "float16"), ((5,), "float32"), 256, 4], (5,), "simt",
     outputs=(1,))
_add("printf_debug", printf_debug, [((256,), "float32"), ((256,), "float32"), 128], (2,), "simt",
     outputs=(1,))
_add("assert_positive", assert_positive, [((256,), "float32"), ((256,), "float32"), 128], (2,), "simt",
     outputs=(1,))


# ----------------------------------------------------------------------------------------------- second batch


@ct.kernel
def embedding_rows(table, ids, out, d: ct.Constant[int], rows: ct.Constant[int], start: int):
    """An embedding lookup through ``ct.load_advanced_indexing``: ``rows`` token ids (sparse dim)
    and a column slice from ``start`` (dense dim)."""
    i = ct.bid(0)
    tok = ct.load(ids, index=(i,), shape=(rows,))
    t = ct.load_advanced_indexing(table, (tok, ct.Slice(start, d)), padding_mode=ZERO)
    ct.store(out, index=(i, 0), tile=t)


@ct.kernel
def reverse_loop_sum(x, y, n: ct.Constant[int]):
    """A loop with a negative step (``range(tiles - 1, -1, -1)``) carrying a weighted sum."""
    acc = ct.zeros((n,), dtype=ct.float32)
    tiles = ct.num_tiles(x, axis=0, shape=(n,))
    for j in range(tiles - 1, -1, -1):
        acc = acc * 0.5 + ct.load(x, index=(j,), shape=(n,), padding_mode=ZERO)
    ct.store(y, index=(0,), tile=acc)


@ct.kernel
def loop_break(x, y, thresh: float, n: ct.Constant[int]):
    """A ``for`` with ``break``: the first column tile whose maximum exceeds ``thresh`` is copied
    (tile index stored in y's first element); none found: -1."""
    found = -1
    for j in range(ct.num_tiles(x, axis=0, shape=(n,))):
        if ct.max(ct.load(x, index=(j,), shape=(n,), padding_mode=ct.PaddingMode.NEG_INF)) > thresh:
            found = j
            break
    ct.scatter(y, 0, found)


@ct.kernel
def whole_tile_sum_f64(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    """The sum of a whole 2-D f64 tile (``axis=None``) added into y[0] (atomic f64 add)."""
    t = ct.load(x, index=(ct.bid(0), ct.bid(1)), shape=(tm, tn), padding_mode=ZERO)
    ct.atomic_add(y, 0, ct.sum(t))


@ct.kernel
def where_scalar_branches(x, y, n: ct.Constant[int]):
    """``where`` with a scalar on one side, an if/else producing a value from a runtime scalar, a
    float ``%`` of negative values and f16 math without an upcast."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    if i % 2 == 0:
        s = 2.0
    else:
        s = -1.0
    u = ct.where(t > 0, 1.0, t) * s + (t % 0.75)
    ct.store(y, index=(i,), tile=ct.exp(u.astype(ct.float16) * 0.5))


@ct.kernel
def argmax_keepdims_3d(x, idx, tot, b: ct.Constant[int], m: ct.Constant[int], n: ct.Constant[int]):
    """A 3-D tile: argmax over axis 2 (keepdims, reshaped away) and the sum over axis 1."""
    t = ct.load(x, index=(0, 0, 0), shape=(b, m, n))
    ct.store(idx, index=(0, 0), tile=ct.reshape(ct.argmax(t, axis=2, keepdims=True), (b, m)))
    ct.store(tot, index=(0, 0), tile=ct.sum(t, axis=1))


@ct.kernel
def int8_wrap(a, b, o, n: ct.Constant[int]):
    """int8 arithmetic that wraps (``a * b + 100``), uint8 widened to f32 and back."""
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(n,))
    y = ct.load(b, index=(i,), shape=(n,))
    ct.store(o, index=(i,), tile=(x * x + y.astype(ct.int8)).astype(ct.float32) * 0.5)


@ct.kernel
def persistent_rows(x, y, n: ct.Constant[int]):
    """A grid-stride loop over rows (``range(bid, rows, num_blocks)``) doing a row max - min."""
    for r in range(ct.bid(0), x.shape[0], ct.num_blocks(0)):
        t = ct.load(x, index=(r, 0), shape=(1, n), padding_mode=ZERO)
        ct.scatter(y, r, ct.max(t) - ct.min(t))


@ct.kernel
def mm_narrow_n(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A GEMM with 16-column tiles (a skinny output)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def pos_inf_padding_min(x, y, n: ct.Constant[int]):
    """Row minima of ragged rows with ``PaddingMode.POS_INF`` (the padding never wins)."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(y, index=(ct.bid(0),), tile=ct.min(t, axis=1))


_add("embedding_rows", embedding_rows, [((50, 64), "bfloat16"), ((32,), "int32"), ((32, 32), "bfloat16"), 32, 8, 16],
     (4,), "simt", outputs=(2,))


@ct.kernel
def scatter_columns(src, cols, out, rows: ct.Constant[int], k: ct.Constant[int]):
    """``out[r, cols[j]] = src[r, j]`` for a block of rows through ``ct.store_advanced_indexing``
    (the sparse dimension is axis 1; column indices out of range are dropped)."""
    i = ct.bid(0)
    c = ct.load(cols, index=(0,), shape=(k,))
    ct.store_advanced_indexing(out, (ct.Slice(i * rows, rows), c), ct.load(src, index=(i, 0), shape=(rows, k)))


_add("scatter_columns", scatter_columns, [((12, 16), "float32"), ((16,), "int32"), ((12, 40), "float32"), 4, 16],
     (3,), "simt", outputs=(2,))
CUTILE_REFUSES["reverse_loop_sum"] = (reverse_loop_sum, [((1000,), "float32"), ((128,), "float32"), 128],
                                      "Step must be positive")
_add("loop_break", loop_break, [((1000,), "float32"), ((1,), "int32"), 2.5, 128], (1,), "simt", outputs=(1,))
_add("whole_tile_sum_f64", whole_tile_sum_f64, [((100, 70), "float64"), ((1,), "float64"), 32, 32], (4, 3), "simt",
     outputs=(1,))
_add("where_scalar_branches", where_scalar_branches, [((512,), "float32"), ((512,), "float16"), 128], (4,), "simt",
     outputs=(1,))
_add("argmax_keepdims_3d", argmax_keepdims_3d, [((2, 8, 16), "float32"), ((2, 8), "int32"), ((2, 16), "float32"),
                                                2, 8, 16], (1,), "simt", outputs=(1, 2))
_add("int8_wrap", int8_wrap, [((256,), "int8"), ((256,), "uint8"), ((256,), "float32"), 128], (2,), "simt",
     outputs=(2,))
_add("persistent_rows", persistent_rows, [((37, 300), "float32"), ((37,), "float32"), 512], (8,), "simt",
     outputs=(1,))
_add("mm_narrow_n", mm_narrow_n, [((256, 128), "float16"), ((128, 48), "float16"), ((256, 48), "float16"),
                                  128, 16, 64], (2, 3), "gemm", outputs=(2,))
_add("pos_inf_padding_min", pos_inf_padding_min, [((3, 100), "float32"), ((3,), "float32"), 128], (3,), "simt",
     outputs=(1,))


@ct.kernel
def mm_math_epilogue(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A GEMM whose epilogue uses the math ops without an nv_tileaa op: ``sin(acc) + floor(acc) *
    pow(|acc| + 1, 0.5)``."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    y = ct.sin(acc) + ct.floor(acc) * ct.pow(ct.abs(acc) + 1.0, ct.full((tm, tn), 0.5, dtype=ct.float32))
    ct.store(C, index=(bm, bn), tile=y.astype(C.dtype))


_add("mm_math_epilogue", mm_math_epilogue, [((256, 256), "float16"), ((256, 256), "float16"),
                                            ((256, 256), "float32"), 128, 128, 64], (2, 2), "gemm", outputs=(2,))


# ----------------------------------------------------------------------------------------------- third batch


@ct.kernel
def softmax_f16_math(x, y, n: ct.Constant[int]):
    """A row softmax computed in f16 throughout (no upcast: exp and sums of f16 tiles)."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n), padding_mode=ct.PaddingMode.NEG_INF)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(y, index=(ct.bid(0), 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def scalar_store_loop(x, y, iters: int, n: ct.Constant[int]):
    """A runtime trip count (``range(iters)``) and a scalar stored with ``ct.store`` into a
    one-element tile."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    s = ct.sum(t)
    for _ in range(iters):
        s = s * 0.5 + 1.0
    ct.store(y, index=(ct.bid(0),), tile=s)


@ct.kernel
def unsigned_bits(a, o, n: ct.Constant[int]):
    """uint32 shifts and a rotate: ``(a >> 3) | (a << 29)`` on unsigned values."""
    x = ct.load(a, index=(ct.bid(0),), shape=(n,))
    ct.store(o, index=(ct.bid(0),), tile=(x >> 3) | (x << 29))


@ct.kernel
def column_of_3d(x, y, n: ct.Constant[int]):
    """A (1, 1, n) tile of a 3-D array at (i, j, 0) stored as a row of a 2-D array."""
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j, 0), shape=(1, 1, n))
    ct.store(y, index=(i * ct.num_blocks(1) + j, 0), tile=ct.reshape(t, (1, n)))


@ct.kernel
def nan_max(x, y, n: ct.Constant[int]):
    """Row maxima that propagate NaN (``propagate_nan=True``) beside ones that ignore it."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n))
    both = ct.cat((ct.max(t, axis=1, propagate_nan=True), ct.max(t, axis=1)), axis=0)
    ct.store(y, index=(ct.bid(0), 0), tile=ct.reshape(both, (1, 2)))


@ct.kernel
def mm_bf16_k16(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """bf16 GEMM with 64 x 64 x 16 tiles (small K steps)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def gather_2d_mask(src, rows, out, n: ct.Constant[int], cols: ct.Constant[int]):
    """A 2-D gather with a 2-D mask (row index tile x column arange, masked where the row index is
    odd); masked elements read -1."""
    r = ct.load(rows, index=(ct.bid(0),), shape=(n,))
    c = ct.arange(cols, dtype=ct.int32)
    m = (r[:, None] % 2 == 0) & (c[None, :] >= 0)
    ct.store(out, index=(ct.bid(0), 0), tile=ct.gather(src, (r[:, None], c[None, :]), mask=m, padding_value=-1.0))


_add("softmax_f16_math", softmax_f16_math, [((4, 300), "float16"), ((4, 300), "float16"), 512], (4,), "simt",
     outputs=(1,))
_add("scalar_store_loop", scalar_store_loop, [((512,), "float32"), ((4,), "float32"), 5, 128], (4,), "simt",
     outputs=(1,))
_add("unsigned_bits", unsigned_bits, [((256,), "uint32"), ((256,), "uint32"), 128], (2,), "simt", outputs=(1,))
_add("column_of_3d", column_of_3d, [((2, 3, 64), "float32"), ((6, 64), "float32"), 64], (2, 3), "simt", outputs=(1,))
_add("nan_max", nan_max, [((3, 64), "float32"), ((3, 2), "float32"), 64], (3,), "simt", outputs=(1,))
_add("mm_bf16_k16", mm_bf16_k16, [((128, 64), "bfloat16"), ((64, 128), "bfloat16"), ((128, 128), "float32"),
                                  64, 64, 16], (2, 2), "gemm", outputs=(2,))
_add("gather_2d_mask", gather_2d_mask, [((20, 32), "float32"), ((64,), "int32"), ((64, 32), "float32"), 16, 32],
     (4,), "simt", outputs=(2,))


@ct.kernel
def int_misc(a, b, q, r, m, n: ct.Constant[int]):
    """``divmod`` of signed ints, ``ct.minimum``/``abs``/negation of int tiles."""
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(n,))
    y = ct.load(b, index=(i,), shape=(n,))
    dq, dr = ct.divmod(x, y)
    ct.store(q, index=(i,), tile=dq)
    ct.store(r, index=(i,), tile=dr)
    ct.store(m, index=(i,), tile=ct.minimum(ct.abs(x), -y) + ct.negative(x))


@ct.kernel
def nan_cleanup(x, y, flags, n: ct.Constant[int]):
    """``ct.isnan`` to replace NaNs by 0 and flag them (a bool output from ``astype(bool)``)."""
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(n,))
    bad = ct.isnan(t)
    ct.store(y, index=(i,), tile=ct.where(bad, 0.0, t))
    ct.store(flags, index=(i,), tile=bad.astype(ct.int32).astype(ct.bool_))


@ct.kernel
def f16_direct_math(x, y, n: ct.Constant[int]):
    """f16 ``log``, ``rsqrt`` and ``cumsum`` without an upcast."""
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n))
    ct.store(y, index=(ct.bid(0), 0), tile=ct.cumsum(ct.log(t) * ct.rsqrt(t), axis=1))


@ct.kernel
def sum_keepdims_3d(x, y, a: ct.Constant[int], b: ct.Constant[int], c: ct.Constant[int]):
    """A 3-D tile normalised by its sum over axis 0 (keepdims, broadcast back)."""
    t = ct.load(x, index=(0, 0, 0), shape=(a, b, c))
    ct.store(y, index=(0, 0, 0), tile=t / ct.sum(t, axis=0, keepdims=True))


@ct.kernel
def cas_counter(slots, out):
    """Each program increments ``slots[bid % 2]`` with a compare-and-swap retry loop."""
    s = ct.bid(0) % 2
    done = False
    while not done:
        old = ct.gather(slots, s)
        done = ct.atomic_cas(slots, s, old, old + 1) == old
    ct.scatter(out, ct.bid(0), 1)


_add("int_misc", int_misc, [((256,), "int32"), ((256,), "int32"), ((256,), "int32"), ((256,), "int32"),
                            ((256,), "int32"), 128], (2,), "simt", outputs=(2, 3, 4))
_add("nan_cleanup", nan_cleanup, [((256,), "float32"), ((256,), "float32"), ((256,), "bool_"), 128], (2,), "simt",
     outputs=(1, 2))
_add("f16_direct_math", f16_direct_math, [((2, 64), "float16"), ((2, 64), "float16"), 64], (2,), "simt",
     outputs=(1,))
_add("sum_keepdims_3d", sum_keepdims_3d, [((4, 8, 16), "float32"), ((4, 8, 16), "float32"), 4, 8, 16], (1,), "simt",
     outputs=(1,))
_add("cas_counter", cas_counter, [((2,), "int32"), ((64,), "int32")], (64,), "simt", outputs=(0, 1))


@ct.kernel
def round_toward_zero(x, y, n: ct.Constant[int]):
    """f32 -> f16 rounded toward zero (``astype(..., rounding_mode=RoundingMode.RZ)``)."""
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.store(y, index=(ct.bid(0),), tile=ct.astype(t, ct.float16, rounding_mode=ct.RoundingMode.RZ))


@ct.kernel
def acquire_release(flag, data, out, n: ct.Constant[int]):
    """A load with ``memory_order=ACQUIRE`` and a store with ``RELEASE`` (device scope), unchecked
    bounds (``check_bounds=False``) on a tile known to fit."""
    t = ct.load(data, index=(ct.bid(0),), shape=(n,), check_bounds=False, memory_order=ct.MemoryOrder.ACQUIRE,
                memory_scope=ct.MemoryScope.DEVICE)
    ct.store(out, index=(ct.bid(0),), tile=t + 1.0, memory_order=ct.MemoryOrder.RELEASE,
             memory_scope=ct.MemoryScope.DEVICE)
    ct.atomic_add(flag, 0, 1, memory_order=ct.MemoryOrder.RELEASE)


# cuTile 1.7 writes ftof rounding<zero>: a located error until session 16, now cvt.rz on the SIMT path
_add("round_toward_zero", round_toward_zero, [((256,), "float32"), ((256,), "float16"), 128], (2,), "simt",
     outputs=(1,))
_add("acquire_release", acquire_release, [((1,), "int32"), ((256,), "float32"), ((256,), "float32"), 128], (2,),
     "simt", outputs=(0, 2))
