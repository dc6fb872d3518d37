"""``ct.sin`` / ``ct.cos`` / ``ct.tan`` / ``ct.sinh`` / ``ct.cosh`` / ``ct.atan2`` of f64 tiles on the SIMT path
(tileaa_to_simt/f64_trig.py, f64_math.hyperbolic; before session 35 each a located "sin on f64 ... not supported"
error, issue 21's coverage): the PTX run CTA by CTA on the CPU's PTX emulator against C's libm (Python's ``math``;
at the reduction's worst case, where libm and numpy are both 8 ulp off, the exact values), on hypothesis-drawn arguments (every exponent, subnormals, the largest values, +-inf, NaN, +-0) and on fixed edge
arguments (the reduction's worst case 6381956970095103 * 2^797, ``1e22``, the 2^20 switch between the two
reductions, multiples of pi/2 rounded to f64, the overflow edge of sinh / cosh, the signed zeros and infinities
of atan2).  Bounds: sin / cos within 1 ulp of libm, tan within 3, sinh / cosh within 2, atan2 within 2 (libm's are
within about half an ulp of the exact values); special values bit for bit.  Needs cuda-tile, no GPU."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

N, TILE = 256, 128
BOUNDS = {"sin": 1, "cos": 1, "tan": 3, "sinh": 2, "cosh": 2, "atan2": 2}


@ct.kernel
def f64_trig_tiles(X, Y, S, C, T, SH, CH, A, B: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(Y, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(S, index=(i,), tile=ct.sin(x))
    ct.store(C, index=(i,), tile=ct.cos(x))
    ct.store(T, index=(i,), tile=ct.tan(x))
    ct.store(SH, index=(i,), tile=ct.sinh(x))
    ct.store(CH, index=(i,), tile=ct.cosh(x))
    ct.store(A, index=(i,), tile=ct.atan2(y, x))


_PROGRAM: list = []


def _program():
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    if not _PROGRAM:
        data = cutile_bytecode(f64_trig_tiles, [((N,), "float64")] * 8 + [TILE])
        _PROGRAM.append(compile_once(data, "f64_trig_tiles", arch="sm_90a", ptxas=False))
    return _PROGRAM[0]


def _run(x: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    from test_directed_rounding_emulated import run_emulated

    outs = [np.full(N, np.nan) for _ in range(6)]
    run_emulated(_program(), [x, y, *outs], N // TILE)
    return dict(zip(("sin", "cos", "tan", "sinh", "cosh", "atan2"), outs))


def _libm(fn, *args) -> np.ndarray:
    def one(*v):
        try:
            return fn(*v)
        except (ValueError, OverflowError):  # (math's errors for a NaN result and an overflow: numpy's values)
            with np.errstate(all="ignore"):
                return float(getattr(np, NUMPY[fn])(*v))
    return np.array([one(*v) for v in zip(*args)], np.float64)


NUMPY = {math.sin: "sin", math.cos: "cos", math.tan: "tan", math.sinh: "sinh", math.cosh: "cosh",
         math.atan2: "arctan2"}


def _reference(x, y) -> dict[str, np.ndarray]:
    """C's libm through Python's ``math``, element by element (numpy's values only where ``math`` raises: NaN
    results, overflow), and :data:`AT_WORST_CASE` at :data:`WORST_CASE`."""
    ref = {"sin": _libm(math.sin, x), "cos": _libm(math.cos, x), "tan": _libm(math.tan, x),
           "sinh": _libm(math.sinh, x), "cosh": _libm(math.cosh, x), "atan2": _libm(math.atan2, y, x)}
    for name, (at_plus, at_minus) in AT_WORST_CASE.items():  # (this machine's libm is 8 ulp off there too)
        ref[name] = np.where(x == WORST_CASE, at_plus, np.where(x == -WORST_CASE, at_minus, ref[name]))
    return ref


def ulps(got, ref) -> np.ndarray:
    """Distance in units in the last place; 0 where both are the same value (NaN and NaN, equal infinities,
    zeros of one sign), inf where they differ in kind (NaN against a number, a finite against an infinite value,
    the sign, a signed zero's sign)."""
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    same = ((got == ref) & (np.signbit(got) == np.signbit(ref))) | (np.isnan(got) & np.isnan(ref))
    gi, ri = got.view(np.int64).astype(object), ref.view(np.int64).astype(object)
    d = np.abs(gi - ri).astype(float)
    bad_kind = (np.signbit(got) != np.signbit(ref)) | ~np.isfinite(got) | ~np.isfinite(ref)
    return np.where(same, 0.0, np.where(bad_kind, np.inf, d))


def _check(x, y) -> dict[str, np.ndarray]:
    """Run the kernel on ``x``, ``y``, assert every function within its bound; its outputs."""
    got, ref = _run(x, y), _reference(x, y)
    worst = {}
    for name, bound in BOUNDS.items():
        arg = x
        u = ulps(got[name], ref[name])
        if name in ("sin", "cos", "tan"):  # (numpy's sign of a result within an ulp of 0: either is right)
            tiny = np.abs(ref[name]) < 1e-300
            u = np.where(tiny & (np.abs(got[name]) < 1e-300), 0.0, u)
        k = int(np.argmax(u))
        assert u[k] <= bound, (name, k, arg[k], y[k] if name == "atan2" else None, got[name][k], ref[name][k], u[k])
        worst[name] = float(u.max())
    print("worst ulps", worst)
    return got


WORST_CASE = 6381956970095103.0 * 2.0 ** 797
"""The f64 closest to a multiple of pi/2 (|x - k pi/2| about 2^-61: the reduction's hardest argument; J.-M. Muller,
Elementary Functions: x mod pi/2 = 4.6871659242546276111e-19)."""
AT_WORST_CASE = {"sin": (1.0, -1.0), "cos": (-4.687165924254628e-19, -4.687165924254628e-19),
                 "tan": (-2.133485385753704e18, 2.133485385753704e18)}
"""sin / cos / tan of +-:data:`WORST_CASE` rounded to f64, from the exact value (mpmath at 3000 bits, offline):
C's libm here and numpy both give cos = -4.68716592425462e-19, 8 ulp off."""
EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, 1e-8, -1e-8,
         0.5, 1.0, -1.0, math.pi / 4, math.pi / 2, -math.pi / 2, math.pi, 3 * math.pi / 2, 2 * math.pi, 1e22, -1e22,
         WORST_CASE, -WORST_CASE, 5.319372648326541e+255, 1.7976931348623157e308, -1.7976931348623157e308,
         2.0 ** 1023, 2.0 ** 20, np.nextafter(2.0 ** 20, 0), -2.0 ** 20, 2.0 ** 52, 2.0 ** 53 + 2, 1e15, 123456.789,
         710.47, 710.48, -710.47, 709.0, 20.0, 0.999, 1.0000001, 0.25, 1e10, 3.0e5, 1048575.9, 1e6, 1e7]


def test_f64_trig_edges_and_a_spread_within_their_bounds():
    """The fixed edge arguments of :data:`EDGES`, the rest of the array multiples of pi/2 rounded to f64 (up to
    2^30 pi/2, both reductions) and an even spread of every exponent; ``atan2``'s ``y`` takes every signed pair of
    zeros, infinities and ones against the edges."""
    rng = np.random.default_rng(3535)
    x = np.ldexp(rng.uniform(1.0, 2.0, N), rng.integers(-1074, 1024, N)) * rng.choice([-1.0, 1.0], N)
    x[:len(EDGES)] = EDGES
    k = rng.integers(1, 2 ** 30, 60)
    x[100:160] = k * (math.pi / 2)
    x[160:200] = rng.uniform(-800.0, 800.0, 40)
    y = np.ldexp(rng.uniform(1.0, 2.0, N), rng.integers(-1074, 1024, N)) * rng.choice([-1.0, 1.0], N)
    pairs = [(a, b) for a in (0.0, -0.0, math.inf, -math.inf, 1.0, -1.0, math.nan)
             for b in (0.0, -0.0, math.inf, -math.inf, 1.0, -1.0)]
    y[200:200 + len(pairs)], x[200:200 + len(pairs)] = np.array(pairs).T
    y[:len(EDGES)] = rng.uniform(-3.0, 3.0, len(EDGES))
    s = _check(x, y)["sin"]
    assert math.copysign(1.0, s[1]) < 0 and np.isnan(s[2]) and np.isnan(s[4])  # sin(-0) = -0, sin(inf) NaN


def _floats():
    finite = st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True)
    return st.one_of(finite, st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, WORST_CASE]),
                     st.builds(lambda m, e: m * 2.0 ** e, st.floats(-2.0, 2.0), st.integers(-40, 60)))


@st.composite
def arguments(draw):
    """``x`` and ``y`` of N values: a seeded spread over an exponent range hypothesis picks (random signs), up to
    16 elements of each replaced by hypothesis-drawn floats (any float, the special values)."""
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    lo, hi = draw(st.sampled_from([(-1075, 1024), (-4, 4), (-30, 25), (15, 25), (1000, 1024)]))
    arrays = []
    for _ in range(2):
        a = rng.uniform(1, 2, N) * rng.choice([-1.0, 1.0], N) * np.exp2(rng.integers(lo, hi, N).astype(np.float64))
        for i, v in draw(st.lists(st.tuples(st.integers(0, N - 1), _floats()), max_size=16)):
            a[i] = v
        arrays.append(a)
    return arrays


@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(xy=arguments())
def test_f64_trig_within_bounds_on_drawn_arguments(xy):
    _check(*xy)


def test_the_huge_argument_path_is_a_branch_and_needs_no_f32_math():
    """The Payne-Hanek reduction sits under a branch (``|x| >= 2^20``: 64-bit ``mul.hi``), made once for ``sin``,
    ``cos`` and ``tan`` of one tile element, and nothing of the f64 functions goes through the f32 MUFU
    approximations."""
    prog = _program()
    ptx = prog.ptx
    per_thread = TILE // prog.threads
    assert ptx.count("mul.hi.u64") == 2 * per_thread, ptx.count("mul.hi.u64")  # (one reduction for sin, cos, tan)
    for ins in ("sin.approx", "cos.approx", "ex2.approx", "lg2.approx", "cvt.rn.f32.f64"):
        assert ins not in ptx, ins
