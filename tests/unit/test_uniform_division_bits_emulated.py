"""The shared-reciprocal division (``tileaa_to_simt/uniform_division.py``'s :func:`divide`, which the chained
consumer loop's ``transforms/tileas/loop_division.py`` calls for the soft cap's ``s / cap``) bit for bit against
numpy's f32 ``x / y``, on hypothesis-drawn numerators and divisors: every magnitude from subnormals to the
largest finite, values either side of the range test's bounds ``2^-60`` and ``2^60``, huge and tiny divisors,
infinities, NaNs and zeros of both signs (issue 22, item 4: the session 31 tests compared with allclose only).

The kernel is ``y = x / s`` with ``s`` a scalar argument (one register for all of a thread's elements, as the
cap is in the consumer loop), compiled once and run CTA by CTA on ``tileorch.testing.ptx_emulator``; its PTX
must hold the sequence (``rcp.approx.ftz.f32`` beside ``div.rn.f32`` in the other branch).  The emulator's
``rcp.approx.ftz`` is the hardware's worst case here: 1 ulp off (:attr:`Emu.rcp_approx_ulps`), subnormal inputs
and results flushed to zero, so the sequence's correction step and the bounds that keep it away from flushed
reciprocals, overflowing quotients and subnormal remainders are what the bits check.  A thread's elements
share one test, so each example draws one scale for the whole array (every thread in the same regime: the fast
sequence runs on values near the bounds), then sprinkles special values into some threads.  NaN results
compare as NaN (any payload); every other result by its bits, the sign of a zero included.  Mutating the bounds
(``LOW``/``HIGH`` widened past the range where the sequence is exact, a bound on the divisor dropped) fails
this test."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from test_user_sweep13_strided import emulate_views  # noqa: E402

from tileorch.testing import ptx_emulator  # noqa: E402
from tileorch.testing.noticed32_programs import divide_by_scalar  # noqa: E402

N = 512


def _f32(v) -> np.float32:
    return np.float32(v)


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.401298464324817e-45, -1.401298464324817e-45,
           1.1754942106924411e-38, 1.1754943508222875e-38, 3.4028234663852886e38, -3.4028234663852886e38,
           2.0 ** -60, np.nextafter(_f32(2.0 ** -60), _f32(0)), 2.0 ** 60, np.nextafter(_f32(2.0 ** 60), _f32(np.inf))]
DIVISORS = st.one_of(
    st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True),
    st.sampled_from(SPECIAL + [-3.0, 3.0, 2.0 ** 126, 2.0 ** 127, 2.0 ** -126, 2.0 ** -127, 1.0]),
    st.builds(lambda e, m, sign: sign * m * 2.0 ** e, st.integers(-149, 127), st.floats(1.0, 2.0, width=32),
              st.sampled_from([1.0, -1.0])),
    st.builds(lambda e, m: m * 2.0 ** e, st.integers(-64, -56) | st.integers(56, 64), st.floats(1.0, 2.0, width=32)),
)


@st.composite
def numerators(draw, exponents=st.integers(-149, 127) | st.integers(-64, -56) | st.integers(56, 64)):
    """An array of N f32: one regime (a power-of-two scale ``2^e``, sometimes near a bound) for all of them, some
    elements replaced by zeros, specials or any float."""
    e = draw(exponents)
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        x = (rng.uniform(1.0, 2.0, N) * rng.choice([-1.0, 1.0], N) * 2.0 ** e).astype(np.float32)
    picks = draw(st.lists(st.tuples(st.integers(0, N - 1), st.sampled_from(SPECIAL) | st.floats(width=32)),
                          max_size=6))
    for i, v in picks:
        x[i] = v
    zeros = draw(st.integers(0, 3))  # some zeros at random places (they pass the range test)
    x[rng.choice(N, zeros * 8, replace=False)] = draw(st.sampled_from([0.0, -0.0]))
    return x


_PROG = {}


class OneUlpOff(ptx_emulator.Emu):
    rcp_approx_ulps = 1


def _run(x: np.ndarray, s: float) -> np.ndarray:
    y = np.full(N, np.nan, np.float32)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ptx_emulator, "Emu", OneUlpOff)
        prog = emulate_views(divide_by_scalar, "uniform_division_bits", [x, y, float(s), 128], (N // 128,))
    _PROG.setdefault("ptx", prog.ptx)
    return y


def _check(x: np.ndarray, s: float, y: np.ndarray) -> None:
    with np.errstate(all="ignore"):
        want = x / np.float32(s)
    nan = np.isnan(want)
    assert (np.isnan(y) == nan).all(), (s, x[np.isnan(y) != nan], y[np.isnan(y) != nan])
    bad = (y.view(np.uint32) != want.view(np.uint32)) & ~nan
    assert not bad.any(), (s, x[bad][:4], y[bad][:4], want[bad][:4])


def test_the_kernel_takes_the_shared_reciprocal():
    x = np.linspace(-3, 3, N, dtype=np.float32)
    _check(x, 1.7, _run(x, 1.7))
    assert "rcp.approx.ftz.f32" in _PROG["ptx"] and "div.rn.f32" in _PROG["ptx"], "the sequence is not taken"


@st.composite
def corners(draw):
    """A numerator regime and a divisor whose quotients lie near the ends of f32 (``2^-126`` .. ``2^128``: a
    subnormal or overflowing quotient), both operands near or past one of the range test's bounds."""
    if draw(st.booleans()):  # a bound B: numerators just under 2^B, divisors just over 2^-B (or the mirror image)
        bound, sign = draw(st.integers(58, 127)), draw(st.sampled_from([1, -1]))
        e, es = sign * (bound - 1), -sign * bound
    else:
        e = draw(st.sampled_from([1, -1])) * draw(st.integers(56, 127) | st.sampled_from(
            [59, 60, 61, 63, 64, 65, 70, 80, 90, 99, 100, 101, 110, 120, 126, 127]))
        qe = draw(st.integers(-140, -118) | st.integers(118, 135) | st.sampled_from([-150, -149, -127, -126, 128, 130]))
        es = max(-149, min(127, e - qe))
    x = draw(numerators_at(e))
    return x, float(_f32(draw(st.floats(1.0, 2.0, width=32)) * 2.0 ** es))


def numerators_at(e):
    return numerators(st.just(e))


HYP = settings(max_examples=40, deadline=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _case(x, s):
    s = float(_f32(s))
    _check(x, s, _run(x, s))


@HYP
@given(x=numerators(), s=DIVISORS)
@example(x=np.full(N, 2.0 ** -60, np.float32), s=2.0 ** 60)
@example(x=np.full(N, 1.0, np.float32), s=2.0 ** 127)  # a reciprocal that flushes to zero
@example(x=np.full(N, 0.0, np.float32), s=-3.0)  # the signed zero of a negative divisor
@example(x=np.full(N, -0.0, np.float32), s=3.0)
@example(x=np.full(N, np.inf, np.float32), s=3.0)
@example(x=np.full(N, 3.0e38, np.float32), s=0.25)  # a quotient that overflows
@example(x=np.full(N, 1.5, np.float32), s=1.0e-39)  # subnormal divisors (flushed by rcp.approx.ftz)
@example(x=np.full(N, 1.5, np.float32), s=8.0e-39)
@example(x=np.full(N, 1.5e-39, np.float32), s=1.5)  # subnormal numerators
@example(x=np.full(N, 1.5 * 2.0 ** -100, np.float32), s=3.0 * 2.0 ** 40)  # a subnormal quotient
def test_division_by_a_shared_divisor_is_div_rn_bit_for_bit(x, s):
    _case(x, s)


@HYP
@given(case=corners())
@example(case=(np.full(N, 1.9 * 2.0 ** 99, np.float32), 2.0 ** -30))  # past f32's largest
def test_quotients_at_the_ends_of_f32_are_div_rn_bit_for_bit(case):
    _case(*case)
