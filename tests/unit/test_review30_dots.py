"""Review 30: K loops a ported model writes around ``ct.mma`` -- the accumulator started from a loaded ``beta * C``
or from ones, SwiGLU as two dots sharing A, a whole-row softmax of the logits tile, a strided (split-K) K loop
per program id 2, a triangular K range ``range(bm + 1)``, a K loop skipping the first K tile; and the forms the
tensor-core tier must refuse at the user's line because the WGMMA kernel keeps the accumulator on the tensor
cores: math on the accumulator *after* the dot in the same K step (``acc = ct.mma(a, b, acc) + a``, a reset
``acc = ct.where(k == 1, 0, acc)``), the gate and up halves of one accumulator tile, a row sum of A carried beside
the accumulator (an int8 zero point).

A loop of its own after the K loop was refused with the K loop's words ("a tile that the K loop computes beside
the dot"): it now says what it is and that ``ct.static_iter`` (which the tier takes) unrolls it.

**Wrong results fixed** (``convert_to_cutlass._carried_result``): ``acc = ct.mma(a, b, acc) + x`` and
``acc = ct.where(k == 1, zeros, acc)`` took the TMA + WGMMA kernel, which dropped the per-step math (the plain
product; maximum error 6.5 and 8.5 on the emulator); now refused at the dot, and the SIMT path computes them
(the sweeps' interpreter: the PTX emulator has no ``ldmatrix``).  ``test_the_accumulator_changed_after_the_dot``
fails before.  Tensor-core programs run on the PTX emulator (f16 operands) against numpy with NaN-prefilled
outputs.  Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
from test_review30_epilogues import F32, ZERO, C, _a, _acc, _h, _mm, _nan  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402


def _pair(A, B, bm, bn, k, tm, tn, tk):
    return (ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
            ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO))


@ct.kernel
def beta_c_start(A, B, Cin, Y, beta: float, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.load(Cin, index=(bm, bn), shape=(tm, tn), padding_mode=ZERO).astype(ct.float32) * beta
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(*_pair(A, B, bm, bn, k, tm, tn, tk), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def ones_start(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.full((tm, tn), 1.0, dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(*_pair(A, B, bm, bn, k, tm, tn, tk), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def swiglu_two_dots(A, Wg, Wu, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        g = ct.mma(a, ct.load(Wg, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), g)
        u = ct.mma(a, ct.load(Wu, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), u)
    ct.store(Y, index=(bm, bn), tile=(g / (1.0 + ct.exp(-g)) * u).astype(Y.dtype))


@ct.kernel
def logits_softmax(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The whole logits row in one column tile (N = tn), its softmax stored."""
    bm = ct.bid(0)
    acc = _acc(A, B, bm, 0, tm, tn, tk)
    e = ct.exp(acc - ct.max(acc, axis=1, keepdims=True))
    ct.store(Y, index=(bm, 0), tile=e / ct.sum(e, axis=1, keepdims=True))


@ct.kernel
def split_k_by_parity(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Program id 2 takes every other K tile from its parity; partial products stored apart."""
    bm, bn, bz = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(bz, ct.cdiv(A.shape[1], tk), 2):
        acc = ct.mma(*_pair(A, B, bm, bn, k, tm, tn, tk), acc)
    ct.store(Y, index=(bz, bm, bn), tile=ct.reshape(acc, (1, tm, tn)))


@ct.kernel
def lower_block_triangle(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """K tiles 0 .. bm only (tk == tm): a block-lower-triangular A."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(bm + 1):
        acc = ct.mma(*_pair(A, B, bm, bn, k, tm, tn, tk), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def skip_first_k_tile(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk) - 1):
        acc = ct.mma(*_pair(A, B, bm, bn, k + 1, tm, tn, tk), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def plus_a_after_the_dot(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """acc = A_k @ B_k + acc, then + A_k itself (tk == tn) in the same step."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a, b = _pair(A, B, bm, bn, k, tm, tn, tk)
        acc = ct.mma(a, b, acc) + a.astype(ct.float32)  # the dot, then math on the accumulator
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def reset_after_step_1(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The accumulator zeroed after K step 1: only the later steps' products remain."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(*_pair(A, B, bm, bn, k, tm, tn, tk), acc)  # the dot, then a reset
        acc = ct.where(k == 1, ct.zeros((tm, tn), dtype=ct.float32), acc)
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def swiglu_halves_of_one_acc(A, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """W [K, 2H] with gate / up blocks of tn columns interleaved; the (tm, 2 tn) accumulator split in halves."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, 2 * tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(W, index=(k, bn), shape=(tk, 2 * tn), padding_mode=ZERO), acc)
    g = ct.extract(acc, index=(0, 0), shape=(tm, tn))
    u = ct.extract(acc, index=(0, 1), shape=(tm, tn))
    ct.store(Y, index=(bm, bn), tile=(g / (1.0 + ct.exp(-g)) * u).astype(Y.dtype))  # (halves of the accumulator)


@ct.kernel
def zero_point_row_sum(A, B, Zb, Y, tm: C[int], tn: C[int], tk: C[int]):
    """y = A @ (B - zb[n]) as A @ B - rowsum(A) zb: the row sum carried beside the accumulator."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    asum = ct.zeros((tm, 1), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):  # (the K loop carrying the row sum)
        a, b = _pair(A, B, bm, bn, k, tm, tn, tk)
        acc = ct.mma(a, b, acc)
        asum = asum + ct.sum(a.astype(ct.float32), axis=1, keepdims=True)
    zb = ct.load(Zb, index=(bn,), shape=(tn,), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=acc - asum * zb[None, :])


@ct.kernel
def loop_after_the_dots(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = _acc(A, B, bm, bn, tm, tn, tk)
    for i in range(3):  # (a loop of its own after the dots)
        acc = acc * 0.5 + 1.0
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def static_loop_after_the_dots(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The same loop unrolled by cuTile (what the refusal above suggests)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = _acc(A, B, bm, bn, tm, tn, tk)
    for i in ct.static_iter(range(3)):
        acc = acc * 0.5 + 1.0
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def if_after_the_dots(A, B, Y, flag: int, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = _acc(A, B, bm, bn, tm, tn, tk)
    if flag > 0:
        acc = acc * 2.0
    ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def store_unless_row_tile_1(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = _acc(A, B, bm, bn, tm, tn, tk)
    if bm != 1:
        ct.store(Y, index=(bm, bn), tile=acc)


@ct.kernel
def add_into_y(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Y += A @ B in place: Y's tile read, then stored."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = _acc(A, B, bm, bn, tm, tn, tk)
    ct.store(Y, index=(bm, bn), tile=ct.load(Y, index=(bm, bn), shape=(tm, tn), padding_mode=ZERO) + acc)


@ct.kernel
def projection_batch_in_the_middle(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """X (S, B, K) sequence-first, the batch in the middle: y[:, b] = x[:, b] @ W into Y (S, B, N)."""
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], tk)):
        a = ct.reshape(ct.load(X, index=(bm, b, k), shape=(tm, 1, tk), padding_mode=ZERO), (tm, tk))  # (middle)
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, b, bn), tile=ct.reshape(acc, (tm, 1, tn)).astype(Y.dtype))


MN = [_a((130, 96)), _a((96, 80)), _a((130, 80), F32), 64, 64, 32]
SPECS = {
    "beta_c_start": ([_a((130, 96)), _a((96, 80)), _a((130, 80)), _a((130, 80), F32), 0.5, 64, 64, 32], (3, 2), 3),
    "ones_start": (MN, (3, 2), 2),
    "swiglu_two_dots": ([_a((130, 96)), _a((96, 128)), _a((96, 128)), _a((130, 128)), 64, 64, 32], (3, 2), 3),
    "logits_softmax": ([_a((130, 96)), _a((96, 128)), _a((130, 128), F32), 64, 128, 32], (3,), 2),
    "split_k_by_parity": ([_a((130, 160)), _a((160, 80)), _a((2, 130, 80), F32), 64, 64, 32], (3, 2, 2), 2),
    "lower_block_triangle": ([_a((130, 192)), _a((192, 80)), _a((130, 80), F32), 64, 64, 64], (3, 2), 2),
    "skip_first_k_tile": (MN, (3, 2), 2),
    "plus_a_after_the_dot": ([_a((130, 96)), _a((96, 64)), _a((130, 64), F32), 64, 32, 32], (3, 2), 2),
    "reset_after_step_1": (MN, (3, 2), 2),
    "swiglu_halves_of_one_acc": ([_a((130, 96)), _a((96, 256)), _a((130, 128)), 64, 64, 32], (3, 2), 2),
    "zero_point_row_sum": ([_a((130, 96)), _a((96, 80)), _a((80,), F32), _a((130, 80), F32), 64, 64, 32], (3, 2), 3),
    "loop_after_the_dots": (MN, (3, 2), 2),
    "static_loop_after_the_dots": (MN, (3, 2), 2),
    "if_after_the_dots": ([_a((130, 96)), _a((96, 80)), _a((130, 80), F32), 1, 64, 64, 32], (3, 2), 2),
    "store_unless_row_tile_1": (MN, (3, 2), 2),
    "add_into_y": (MN, (3, 2), 2),
    "projection_batch_in_the_middle": ([_a((130, 3, 96)), _a((96, 80)), _a((130, 3, 80), F32), 64, 64, 32], (3, 2, 3),
                                       2),
}
"""name -> (spec, launch grid, the written argument)."""

REFUSED = {"plus_a_after_the_dot": ("the accumulator is changed in the K loop after this dot", "the dot, then math"),
           "reset_after_step_1": ("the accumulator is changed in the K loop after this dot", "the dot, then a reset"),
           "swiglu_halves_of_one_acc": ("is not the 64x128 accumulator tile", "(halves of the accumulator)"),
           "zero_point_row_sum": ("a tile that the K loop computes beside the dot", "(the K loop carrying the row sum)"),
           "loop_after_the_dots": ("in a loop of its own after the dots", "(a loop of its own after the dots)")}
"""Dot programs the tensor-core tier refuses: (the warning's words, a marker on the line it names)."""


def _compile(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    return compile_once(cutile_bytecode(globals()[name], SPECS[name][0]), f"rv30_{name}", arch="sm_90a", ptxas=False)


@pytest.mark.parametrize("name", sorted(set(SPECS) - set(REFUSED)))
def test_these_take_the_tensor_cores(name):
    p = _compile(name)
    assert p.kind == "gemm", (name, p.kind, p.remarks)
    assert any("compiled through the TileAS tier to the warp-specialized TMA/WGMMA kernel" in r for r in p.remarks)


def _line_of(kernel, marker: str) -> int:
    import inspect

    src, first = inspect.getsourcelines(kernel._pyfunc)
    return first + next(i for i, line in enumerate(src) if marker in line)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_dot_program_says_why_at_the_users_line(name):
    words, marker = REFUSED[name]
    p = _compile(name)
    assert p.kind == "simt", (name, p.remarks)
    said = [r for r in p.remarks if ": warning: " in r and words in r]
    assert said and said[0].startswith(f"{__file__}:{_line_of(globals()[name], marker)}:"), p.remarks
    assert "[the tensor-core path refused this kernel: the SIMT path compiles it" in said[0]


@pytest.fixture
def gemm(monkeypatch):
    programs = {f"rv30_{n}": UserProgram(globals()[n], spec, grid, "gemm", outputs=(out,))
                for n, (spec, grid, out) in SPECS.items() if n not in REFUSED}
    s4.add_sweep_programs(monkeypatch, programs)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **programs})
    return lambda name, inputs: s14e.emulate(f"rv30_{name}", inputs)


@pytest.fixture
def simt(monkeypatch):
    """The sweeps' SIMT interpreter on a refused program's lowering (a tier program's SIMT fallback)."""
    import test_user_sweep_interp as interp

    def run(name, inputs):
        spec, grid, _ = SPECS[name]
        path = "simt" if name in REFUSED else "gemm"  # (a tier program: the interpreter runs its SIMT fallback)
        monkeypatch.setattr(interp, "PROGRAMS", {f"rv30_{name}": UserProgram(globals()[name], spec, grid, path)})
        return interp.run(f"rv30_{name}", inputs)
    return run


def _steps(a, b, tk=32):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return [a[:, i:i + tk] @ b[i:i + tk] for i in range(0, a.shape[1], tk)]


def _silu(x):
    return x / (1 + np.exp(-x))


def test_an_accumulator_started_from_beta_c_or_ones(gemm):
    a, b, c = _h(130, 96), _h(96, 80, scale=0.25), _h(130, 80)
    y = gemm("beta_c_start", {0: a, 1: b, 2: c, 3: _nan((130, 80), np.float32)})[3]
    s14e._check(y, _mm(a, b) + 0.5 * c.astype(np.float64), 1e-4, 1e-4)
    y = gemm("ones_start", {0: a, 1: b, 2: _nan((130, 80), np.float32)})[2]
    s14e._check(y, _mm(a, b) + 1, 1e-4, 1e-4)


def test_swiglu_as_two_dots_sharing_a(gemm):
    a, wg, wu = _h(130, 96), _h(96, 128, scale=0.25), _h(96, 128, scale=0.25)
    y = gemm("swiglu_two_dots", {0: a, 1: wg, 2: wu, 3: _nan((130, 128))})[3]
    s14e._check(y, _silu(_mm(a, wg)) * _mm(a, wu), 3e-2, 1e-2)


def test_a_softmax_of_the_whole_logits_row(gemm):
    a, b = _h(130, 96), _h(96, 128, scale=0.25)
    y = gemm("logits_softmax", {0: a, 1: b, 2: _nan((130, 128), np.float32)})[2]
    z = _mm(a, b)
    e = np.exp(z - z.max(1, keepdims=True))
    s14e._check(y, e / e.sum(1, keepdims=True), 1e-6, 1e-4)


def test_k_ranges_split_by_parity_triangular_and_shifted(gemm):
    a, b = _h(130, 160), _h(160, 80, scale=0.25)
    y = gemm("split_k_by_parity", {0: a, 1: b, 2: _nan((2, 130, 80), np.float32)})[2]
    p = _steps(a, b)
    s14e._check(y, np.stack([p[0] + p[2] + p[4], p[1] + p[3]]), 1e-4, 1e-4)
    a, b = _h(130, 192), _h(192, 80, scale=0.25)
    y = gemm("lower_block_triangle", {0: a, 1: b, 2: _nan((130, 80), np.float32)})[2]
    want = np.concatenate([_mm(a[64 * i:64 * i + 64, :64 * (i + 1)], b[:64 * (i + 1)]) for i in range(3)])
    s14e._check(y, want, 1e-4, 1e-4)
    a, b = _h(130, 96), _h(96, 80, scale=0.25)
    y = gemm("skip_first_k_tile", {0: a, 1: b, 2: _nan((130, 80), np.float32)})[2]
    s14e._check(y, _mm(a[:, 32:], b[32:]), 1e-4, 1e-4)


def test_the_accumulator_changed_after_the_dot(simt):
    """Failed before: both took the tensor cores and computed the plain product."""
    a, b = _h(130, 96), _h(96, 64, scale=0.25)
    y = np.asarray(simt("plus_a_after_the_dot", {0: a, 1: b})[2], np.float64)
    s14e._check(y, _mm(a, b) + sum(np.tile(a[:, i:i + 32].astype(np.float64), (1, 2)) for i in (0, 32, 64)), 1e-4,
                1e-4)
    a, b = _h(130, 96), _h(96, 80, scale=0.25)
    y = np.asarray(simt("reset_after_step_1", {0: a, 1: b})[2], np.float64)
    s14e._check(y, _steps(a, b)[2], 1e-4, 1e-4)


def test_math_after_the_k_loop(gemm):
    """An unrolled loop, a runtime ``if``, a store under an ``if``, and ``Y += A @ B`` in place."""
    a, b = _h(130, 96), _h(96, 80, scale=0.25)
    p = _mm(a, b)
    y = gemm("static_loop_after_the_dots", {0: a, 1: b, 2: _nan((130, 80), np.float32)})[2]
    s14e._check(y, p * 0.125 + 1.75, 1e-4, 1e-4)
    y = gemm("if_after_the_dots", {0: a, 1: b, 2: _nan((130, 80), np.float32)})[2]
    s14e._check(y, 2 * p, 1e-4, 1e-4)
    y = np.asarray(gemm("store_unless_row_tile_1", {0: a, 1: b, 2: _nan((130, 80), np.float32)})[2], np.float64)
    assert np.isnan(y[64:128]).all()
    s14e._check(np.concatenate([y[:64], y[128:]]), np.concatenate([p[:64], p[128:]]), 1e-4, 1e-4)
    y0 = np.random.default_rng(7).standard_normal((130, 80)).astype(np.float32)
    y = gemm("add_into_y", {0: a, 1: b, 2: y0.copy()})[2]
    s14e._check(y, p + y0, 1e-4, 1e-4)


def test_a_projection_with_the_batch_in_the_middle(simt):
    """On the tensor cores since session 40 (``GemmConfig.batch_mid``: test_these_take_the_tensor_cores,
    tests/unit/test_mid3d_emulated.py); its SIMT fallback's result (a launch whose arrays TMA cannot address)."""
    x, w = _h(130, 3, 96), _h(96, 80, scale=0.25)
    y = np.asarray(simt("projection_batch_in_the_middle", {0: x, 1: w})[2], np.float64)
    s14e._check(y, np.einsum("sbk,kn->sbn", x.astype(np.float64), w.astype(np.float64)), 1e-4, 1e-4)
