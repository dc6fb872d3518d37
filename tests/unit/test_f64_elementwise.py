"""Elementwise f64 math on the SIMT path (a first-hour finding: ``-t`` of a float64 tile was
refused as ``neg on f64``, ``abs``/``sqrt``/``rsqrt`` likewise, and ``ct.maximum``/``ct.minimum``/
``%`` of float64 produced invalid LLVM IR reported at the program's 0:0).  Each runs in the
lockstep interpreter (tests/unit/simt_interp.py, its f64 instructions exact in float64) against
numpy float64; the transcendental functions on f64 run at double precision (f64_math.py, session 32: exp / exp2 /
log / log2 / pow / tanh; f64_trig.py, session 35: sin / cos / tan / atan2, and sinh / cosh), here ``sin``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

from simt_interp import run_cutile  # noqa: E402

N, TILE = 300, 128  # a ragged last tile


@ct.kernel
def f64_ops(x, y, out, which: ct.Constant[int], tile: ct.Constant[int]):
    i = ct.bid(0)
    a = ct.load(x, index=(i,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    b = ct.load(y, index=(i,), shape=(tile,), padding_mode=ct.PaddingMode.ZERO)
    if which == 0:
        r = -a
    elif which == 1:
        r = ct.abs(a)
    elif which == 2:
        r = ct.sqrt(ct.abs(a))
    elif which == 3:
        r = ct.rsqrt(ct.abs(a) + 1.0)
    elif which == 4:
        r = ct.maximum(a, b)
    elif which == 5:
        r = ct.minimum(a, b)
    elif which == 6:
        r = ct.maximum(a, b, propagate_nan=True)
    elif which == 7:
        r = ct.mod(a, b)
    else:
        r = ct.sin(a)
    ct.store(out, index=(i,), tile=r)


@ct.kernel
def f64_row_max_min(x, out_max, out_min, tn: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, tn), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(out_max, index=(r,), tile=ct.max(t, axis=1))
    u = ct.load(x, index=(r, 0), shape=(1, tn), padding_mode=ct.PaddingMode.POS_INF)
    ct.store(out_min, index=(r,), tile=ct.min(u, axis=1))


def test_f64_row_max_and_min_reductions():
    """The reductions' combining max/min in f64 (they went through the f32 form: invalid IR)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 200)) * 1e-3 + 1.0  # neighbours f32 cannot tell apart
    outs = [np.full(5, np.nan), np.full(5, np.nan)]
    spec = [((5, 200), "float64"), ((5,), "float64"), ((5,), "float64"), 256]
    got_max, got_min = run_cutile(f64_row_max_min, spec, [x, *outs], (5, 1, 1))[1:]
    np.testing.assert_array_equal(got_max, x.max(axis=1))
    np.testing.assert_array_equal(got_min, x.min(axis=1))


def _inputs():
    rng = np.random.default_rng(64)
    # values f32 cannot hold: a result computed in f32 would differ in the last 29 bits
    x = rng.standard_normal(N) * 1e3 + 1e-9
    y = rng.standard_normal(N) * 7 + 0.5
    x[:4] = [np.nan, -0.0, np.inf, 1e300]
    y[4:6] = [np.nan, 3.0]
    return x, y


REFERENCE = {
    0: lambda x, y: -x,
    1: np.abs,
    2: lambda x, y: np.sqrt(np.abs(x)),
    3: lambda x, y: 1 / np.sqrt(np.abs(x) + 1.0),
    4: np.fmax,
    5: np.fmin,
    6: np.maximum,
    7: np.mod,  # ct.mod is Python's %: the sign of the divisor
}


@pytest.mark.parametrize("which", sorted(REFERENCE))
def test_f64_elementwise_runs_in_f64(which):
    x, y = _inputs()
    out = np.full(N, np.nan)
    spec = [((N,), "float64"), ((N,), "float64"), ((N,), "float64"), which, TILE]
    got = run_cutile(f64_ops, spec, [x, y, out], (-(-N // TILE), 1, 1))[2]
    with np.errstate(all="ignore"):
        want = REFERENCE[which](x, y) if which not in (1,) else np.abs(x)
        if which == 7:  # exact while |x / y| < 2^53 (1e300 / y is not: the quotient's units are lost)
            keep = ~(np.abs(x / y) >= 2.0**53)
            got, want = got[keep], want[keep]
    np.testing.assert_allclose(got, want, rtol=2e-16, atol=0, equal_nan=True)


def test_f64_sin_runs_in_f64_in_the_interpreter():
    """``ct.sin`` of f64 (refused until session 35, "sin on f64": f64_trig.py) in the lockstep interpreter: within
    1 ulp of numpy, ``1e300`` through the huge-argument reduction's 64-bit integer products (``mul.hi.u64``),
    NaN for NaN and inf, ``sin(-0) = -0``.  (tests/unit/test_f64_trig_emulated.py: the PTX, many more arguments.)"""
    from test_f64_trig_emulated import ulps

    x, y = _inputs()
    out = np.full(N, np.nan)
    spec = [((N,), "float64"), ((N,), "float64"), ((N,), "float64"), 8, TILE]
    got = run_cutile(f64_ops, spec, [x, y, out], (-(-N // TILE), 1, 1))[2]
    with np.errstate(all="ignore"):
        u = ulps(got, np.sin(x))
    assert u.max() <= 1, (int(np.argmax(u)), u.max())
    assert np.isnan(got[0]) and np.signbit(got[1]) and got[1] == 0 and np.isnan(got[2])
