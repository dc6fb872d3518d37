"""Directed rounding of elementwise arithmetic (issue 22, item 5): cuTile 1.7's ``ct.add`` / ``ct.sub`` /
``ct.mul(..., rounding_mode=RZ / RM / RP)`` and CUDA Tile IR's ``fma`` with a rounding, of f32 and f64 tiles, on
the SIMT path as PTX ``add.rz`` / ``sub.rm`` / ``mul.rp`` / ``fma.rz`` ..., run CTA by CTA on
``tileorch.testing.ptx_emulator`` bit for bit against a reference computed here: the exact result in Python
rationals rounded in the asked direction (the largest finite value where ``rz`` or the direction stops short of
an infinity, IEEE 754's signed zero of an exact zero sum: -0 under ``rm``), on hypothesis-drawn operands
(subnormals, huge values, zeros of both signs, infinities, NaN).  Also what stays refused: a reduction with a
rounding (``ct.sum(..., rounding_mode=RZ)``), f16 / bf16 directed arithmetic, each a located error at the user's
line; and a dot program with one takes the SIMT path with a located warning."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tileorch.testing.exact_rounding import reference  # noqa: E402
from tileorch.testing.noticed32_programs import directed_modes, directed_ops  # noqa: E402

RZ, RM, RP = ct.RoundingMode.RZ, ct.RoundingMode.RM, ct.RoundingMode.RP
N, TILE = 256, 128
MODES = {"add": "rz", "sub": "rm", "mul": "rp", "fma": "rz"}
"""The rounding of each output of :func:`directed_ops` (and of the fma the text form adds)."""


# ----------------------------------------------------------------------------------------------- the reference


def test_the_reference_rounds_as_ieee_says():  # (tileorch.testing.exact_rounding)
    """A few values worked by hand (f32): 1 + 2^-30 toward zero / +inf, 1 - 1 toward -inf, the largest finite
    value past overflow, subnormal products."""
    f32 = np.float32
    one, tiny = np.array([1.0], f32), np.array([2.0 ** -30], f32)
    assert reference("add", "rz", [one, tiny], f32)[0] == 1.0
    assert reference("add", "rp", [one, tiny], f32)[0] == float(np.nextafter(f32(1), f32(2)))
    assert math.copysign(1, reference("sub", "rm", [one, one], f32)[0]) < 0
    assert math.copysign(1, reference("sub", "rz", [one, one], f32)[0]) > 0
    big = np.array([3.0e38], f32)
    assert reference("add", "rz", [big, big], f32)[0] == float(np.finfo(f32).max)
    assert reference("add", "rp", [big, big], f32)[0] == math.inf
    sub = np.array([2.0 ** -75], f32)
    assert reference("mul", "rp", [sub, sub], f32)[0] == float(np.nextafter(f32(0), f32(1)))  # 2^-150 up
    assert reference("mul", "rz", [sub, sub], f32)[0] == 0.0


# ----------------------------------------------------------------------------------------------- the runs


def _params_of(ptx: str) -> list[str]:
    import re

    head = ptx[ptx.index(".entry"):]
    return re.findall(r"\.param\s+\.(\w+)", head[:head.index(")")])


def run_emulated(prog, arrays: list[np.ndarray], grid: int) -> None:
    """Run ``prog`` (compiled for 1-D contiguous arrays and a constant tile: per array its pointer, extent and
    unit stride) on ``arrays`` CTA by CTA; the arrays are written in place."""
    from tileorch.testing.ptx_emulator import Emu

    memory, values = [], []
    for i, a in enumerate(arrays):
        base = (i + 1) << 32
        memory.append((base, a.view(np.uint8), f"arg{i}"))
        values += [base, a.shape[0], 1]
    threads, nx = prog.threads, grid
    if prog.warp_programs:
        values.append(grid)
        threads, nx = 32, -(-grid // prog.programs_per_warp)
    types = _params_of(prog.ptx)
    assert len(types) == len(values), (types, values)
    for x in range(nx):
        emu = Emu(prog.ptx, [int(v) for v in values], 1 << 16, threads, (x, 0, 0), {}, memory, nctaid=(nx, 1, 1))
        emu.run()
        assert not emu.errors, emu.errors[:3]


_COMPILED: dict = {}


def compiled(kernel, dtype: str):
    """The kernel's program for N-element arrays of ``dtype`` (once per process)."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    key = (kernel.__name__ if hasattr(kernel, "__name__") else str(kernel), dtype)
    if key not in _COMPILED:
        data = cutile_bytecode(kernel, [((N,), dtype)] * 5 + [TILE])
        _COMPILED[key] = compile_once(data, f"directed_{key[0]}_{dtype}", arch="sm_90a", ptxas=False)
    return _COMPILED[key]


def compiled_fma(dtype: str):
    """:func:`directed_ops` as CUDA Tile IR text with its ``x * y`` (rp) feeding ``fma(m, y, x + y)`` rounded
    toward zero into the third output (cuTile 1.7's Python has no ``fma``)."""
    import re

    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    key = ("fma", dtype)
    if key not in _COMPILED:
        text = str(read_bytecode(cutile_bytecode(directed_ops, [((N,), dtype)] * 5 + [TILE])))
        m = re.search(r"^(\s*)(%\d+) = mulf (%\d+), (%\d+) rounding<positive_inf> : (tile<\d+xf\d+>)$", text, re.M)
        add = re.search(r"^\s*(%\d+) = addf ", text, re.M).group(1)
        ind, res, a, b, t = m.groups()
        text = text.replace(m.group(0), f"{ind}%m = mulf {a}, {b} rounding<positive_inf> : {t}\n"
                                         f"{ind}{res} = fma %m, {b}, {add} rounding<zero> : {t}")
        _COMPILED[key] = compile_once(text.encode(), f"directed_fma_{dtype}", arch="sm_90a", ptxas=False)
    return _COMPILED[key]


def test_the_ptx_rounds_each_op_as_asked():
    for dtype, w in (("float32", "f32"), ("float64", "f64")):
        ptx = compiled(directed_ops, dtype).ptx
        for ins in (f"add.rz.{w}", f"sub.rm.{w}", f"mul.rp.{w}"):
            assert ins in ptx, (dtype, ins)
        assert f"fma.rz.{w}" in compiled_fma(dtype).ptx, dtype
        assert compiled(directed_ops, dtype).kind == "simt"


SPECIALS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0]


def _values(dt, width):
    finite = st.floats(width=width, allow_nan=False, allow_infinity=False, allow_subnormal=True)
    return st.one_of(finite, finite, st.sampled_from(SPECIALS),
                     st.builds(lambda m, e: m * 2.0 ** e, st.floats(1.0, 2.0, width=width),
                               st.integers(-60, 60) if width == 32 else st.integers(-500, 500)))


@st.composite
def operands(draw, width: int):
    """Three arrays of N values: a seeded spread over every exponent (subnormals and the largest included,
    random signs), some elements replaced by hypothesis-drawn values (any float, zeros, infinities, NaN), and
    ``y = -x`` / ``y = x`` at some places (exact zero sums, doublings)."""
    dt = np.float32 if width == 32 else np.float64
    lo, hi = (-150, 128) if width == 32 else (-1075, 1024)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    span = draw(st.sampled_from([(lo, hi), (-30, 30), (hi - 8, hi), (lo, lo + 30)]))
    arrays = []
    for _ in range(3):
        with np.errstate(over="ignore"):
            a = (rng.uniform(1, 2, N) * rng.choice([-1.0, 1.0], N) * np.exp2(rng.integers(*span, N).astype(np.float64)))
        arrays.append(a.astype(dt))
    for a in arrays:
        for i, v in draw(st.lists(st.tuples(st.integers(0, N - 1), _values(dt, width)), max_size=8)):
            a[i] = v
    x, y, z = arrays
    idx = rng.choice(N, draw(st.integers(0, 24)), replace=False)
    y[idx[::2]], y[idx[1::2]] = -x[idx[::2]], x[idx[1::2]]
    return x, y, z


def _same(got: np.ndarray, want: np.ndarray, what: str) -> None:
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all(), what
    bits = np.uint32 if got.dtype == np.float32 else np.uint64
    bad = (got.view(bits) != want.view(bits)) & ~nan
    assert not bad.any(), (what, np.flatnonzero(bad)[:4], got[bad][:4], want[bad][:4])


def _check_ops(width: int, x, y, z) -> None:
    dt = np.float32 if width == 32 else np.float64
    dtype = "float32" if width == 32 else "float64"
    outs = [np.full(N, np.nan, dt) for _ in range(3)]
    run_emulated(compiled(directed_ops, dtype), [x, y, *outs], N // TILE)
    for op, got in zip(("add", "sub", "mul"), outs):
        _same(got, reference(op, MODES[op], [x, y], dt), f"{op}.{MODES[op]}.{width}")
    outs = [np.full(N, np.nan, dt) for _ in range(3)]
    run_emulated(compiled(directed_modes, dtype), [x, y, *outs], N // TILE)
    for mode, got in zip(("rz", "rm", "rp"), outs):
        _same(got, reference("mul", mode, [x, y], dt), f"mul.{mode}.{width}")
    outs = [np.full(N, np.nan, dt) for _ in range(3)]
    run_emulated(compiled_fma(dtype), [x, y, *outs], N // TILE)
    m, s = reference("mul", "rp", [x, y], dt), reference("add", "rz", [x, y], dt)
    _same(outs[2], reference("fma", "rz", [m, y, s], dt), f"fma.rz.{width}")


def test_signed_zeros_of_exact_sums_and_products():
    """Every pair of +-0, +-1 and +-2^-1074 / 2^-149 (f64 / f32) at fixed places: the sign of each exact zero (two
    zeros of one sign keep it, ``x - x`` is -0 under rm only; the fma of ``x = y = -0`` is ``+0 * -0 + -0 = -0``)
    and the smallest subnormals (found by the f64 draws: the emulator's f64 fma gave +0 for a -0 sum)."""
    for width, dt in ((32, np.float32), (64, np.float64)):
        tiny = dt(np.nextafter(dt(0), dt(1)))
        vals = np.array([0.0, -0.0, 1.0, -1.0, tiny, -tiny], dt)
        pairs = np.array([(a, b) for a in vals for b in vals], dt)
        x, y = (np.resize(pairs[:, k], N).astype(dt) for k in (0, 1))
        _check_ops(width, x, y, np.zeros(N, dt))


HYP = settings(max_examples=8, deadline=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.large_base_example])


@HYP
@given(ops=operands(32))
def test_f32_directed_arithmetic_is_exactly_rounded(ops):
    _check_ops(32, *ops)


@HYP
@given(ops=operands(64))
def test_f64_directed_arithmetic_is_exactly_rounded(ops):
    _check_ops(64, *ops)


# ----------------------------------------------------------------------------------------------- what stays refused


@ct.kernel
def sum_toward_zero(x, o, tile: ct.Constant[int]):
    a = ct.load(x, index=(ct.bid(0),), shape=(tile,))
    ct.store(o, index=(ct.bid(0),), tile=ct.reshape(ct.sum(a, rounding_mode=RZ), (1,)))  # refused: sum


@ct.kernel
def cumsum_toward_zero(x, o, tile: ct.Constant[int]):
    a = ct.load(x, index=(ct.bid(0),), shape=(tile,))
    ct.store(o, index=(ct.bid(0),), tile=ct.cumsum(a, rounding_mode=RM))  # refused: cumsum


@ct.kernel
def half_add_toward_zero(x, o, tile: ct.Constant[int]):
    a = ct.load(x, index=(ct.bid(0),), shape=(tile,))
    ct.store(o, index=(ct.bid(0),), tile=ct.add(a, a, rounding_mode=RZ))  # refused: f16


@ct.kernel
def mma_then_add_toward_zero(A, B, bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    b = ct.load(bias, index=(i, j), shape=(tm, tn))
    ct.store(C, index=(i, j), tile=ct.add(acc, b, rounding_mode=RZ))  # the SIMT path's warning


def _line_of(comment: str) -> str:
    with open(__file__) as f:
        lines = f.read().splitlines()
    found = [i + 1 for i, ln in enumerate(lines) if ln.rstrip().endswith(f"# {comment}")]
    assert len(found) == 1, comment
    return f"{__file__}:{found[0]}:"


@pytest.mark.parametrize("kernel, spec, comment, message", [
    (sum_toward_zero, [((256,), "float32"), ((2,), "float32"), 128], "refused: sum",
     "'cuda_tile.addf' with rounding<zero> is not supported yet"),
    (cumsum_toward_zero, [((256,), "float32"), ((256,), "float32"), 128], "refused: cumsum",
     "'cuda_tile.addf' with rounding<negative_inf> is not supported yet"),
    (half_add_toward_zero, [((256,), "float16"), ((256,), "float16"), 128], "refused: f16",
     "'cuda_tile.addf' with rounding<zero> of f16 is not supported yet"),
])
def test_reductions_scans_and_half_precision_stay_refused_at_the_users_line(kernel, spec, comment, message):
    from tileorch.diagnostics import CompileError, LocatedError
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    with pytest.raises((LocatedError, CompileError)) as info:
        compile_program(cutile_bytecode(kernel, spec), comment, arch="sm_90a", ptxas=False)
    first = str(info.value).splitlines()[0]
    assert first.startswith(_line_of(comment)) and f": error: {message}" in first, first


def test_a_dot_program_with_a_directed_add_takes_the_simt_path_with_a_located_warning():
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    spec = [((64, 64), "float16"), ((64, 64), "float16"), ((64, 64), "float32"), ((64, 64), "float32"), 64, 64, 32]
    lowered = lower_once(cutile_bytecode(mma_then_add_toward_zero, spec), "directed_mma", arch="sm_90a")
    assert lowered.kind == "simt", lowered.remarks
    warning, = [r for r in lowered.remarks if "directed rounding of add / sub / mul / fma" in r]
    assert warning.startswith(_line_of("the SIMT path's warning")) and ": warning: " in warning, warning
    assert "[the tensor-core path refused this kernel: " in warning, warning
    assert any("loop reductions and online softmax are not rewritten" in r for r in lowered.remarks), lowered.remarks
