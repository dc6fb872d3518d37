"""``ct.exp`` / ``ct.exp2`` / ``ct.log`` / ``ct.log2`` / ``ct.pow`` of f64 tiles on the SIMT path
(tileaa_to_simt/f64_math.py; before session 32 a located "exp on f64 ... not supported" error, found by
user sweep 23's f64 logsumexp): the PTX run by the CPU's PTX emulator against numpy's float64 functions,
within 2 ulp over the whole range (random arguments whose results span normal and subnormal values, the
overflow / underflow edges, subnormal and huge logarithm arguments) and bit for bit on the special values
(NaN, +-inf, +-0, negative arguments, ``exp(0) = 1``, ``log(1) = 0``); ``pow`` within 4 ulp (2 measured) and C
``pow``'s special cases; ``tanh`` within 4 ulp.  Needs cuda-tile, no GPU."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

import test_user_sweep10_emulated as s10e  # noqa: E402

RNG = np.random.default_rng(3264)
N = 512


@ct.kernel
def f64_exp_log_tiles(X, Z, Y, E, E2, L, L2, B: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)
    z = ct.load(Z, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(Y, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(E, index=(i,), tile=ct.exp(x))
    ct.store(E2, index=(i,), tile=ct.exp2(z))
    ct.store(L, index=(i,), tile=ct.log(y))
    ct.store(L2, index=(i,), tile=ct.log2(y))


EXP_SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 709.78, 709.79, 710.0, -708.4, -708.3, -745.1,
               -745.2, -746.0, 1e-300, -1e-300, 0.5 * np.log(2), 1e3, -1e3]
EXP2_SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1023.0, 1023.999, 1024.0, -1022.0, -1022.5, -1074.0,
                -1074.6, -1075.0, -1076.0, 0.5, -0.5, 1e-300]
LOG_SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 5e-324, 1e-310, 2.2250738585072014e-308,
               1.7976931348623157e308, np.sqrt(2), np.sqrt(2) * (1 - 2 ** -52), 1 + 2 ** -52, 1 - 2 ** -53, 2.0, 0.5]


def _inputs():
    x = RNG.uniform(-745.0, 709.7, N)
    x[:len(EXP_SPECIAL)] = EXP_SPECIAL
    x[40:140] = RNG.uniform(-1.0, 1.0, 100)
    z = RNG.uniform(-1076.0, 1025.0, N)
    z[:len(EXP2_SPECIAL)] = EXP2_SPECIAL
    z[40:140] = RNG.uniform(-1.0, 1.0, 100)
    y = np.ldexp(RNG.uniform(1.0, 2.0, N), RNG.integers(-1074, 1024, N))
    y[:len(LOG_SPECIAL)] = LOG_SPECIAL
    y[40:140] = RNG.uniform(0.5, 2.0, 100)
    return x, z, y


def _ulps(got, ref):
    """Distance in units in the last place (same sign, finite) or 0 / huge where the values agree / disagree
    in kind (NaN, inf, sign)."""
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    same = (got == ref) | (np.isnan(got) & np.isnan(ref))
    gi, ri = got.view(np.int64), ref.view(np.int64)
    d = np.abs(gi.astype(object) - ri.astype(object)).astype(float)
    bad_kind = (np.sign(got) != np.sign(ref)) | ~np.isfinite(got) | ~np.isfinite(ref)
    return np.where(same, 0.0, np.where(bad_kind, np.inf, d))


def test_f64_exp_and_log_within_two_ulp_on_the_ptx(monkeypatch):
    x, z, y = _inputs()
    outs = [np.full(N, np.nan) for _ in range(4)]
    e, e2, lg, lg2 = s10e.emulate_kernel(monkeypatch, "f64_exp_log_tiles", f64_exp_log_tiles,
                                        [x, z, y, *outs], (128,), grid=(N // 128,))[3:]
    with np.errstate(all="ignore"):
        refs = [np.exp(x), np.exp2(z), np.log(y), np.log2(y)]
    for name, arg, got, ref in zip(("exp", "exp2", "log", "log2"), (x, z, y, y), (e, e2, lg, lg2), refs):
        u = _ulps(got, ref)
        worst = int(np.argmax(u))
        assert u.max() <= 2, (name, worst, arg[worst], got[worst], ref[worst])


@ct.kernel
def f64_pow_tiles(X, Y, P, B: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(X, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(Y, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(P, index=(i,), tile=ct.pow(x, y))


POW_X = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, np.inf, -np.inf, np.nan, 5e-324, 1e300]
POW_Y = [0.0, -0.0, 1.0, -1.0, 2.0, 3.0, -3.0, 0.5, -0.5, np.inf, -np.inf, np.nan, 1e300, 1e-300]


def test_f64_pow_within_four_ulp_and_c_special_cases_on_the_ptx(monkeypatch):
    """``ct.pow`` of f64 tiles (before session 32 refused: "pow on f64"): random bases over the whole range with
    exponents keeping the result finite or past its edges, negative bases with integral exponents, and every
    pair of :data:`POW_X` x :data:`POW_Y` bit for bit as numpy's (C ``pow``) special cases."""
    n = 1024
    x = np.ldexp(RNG.uniform(1.0, 2.0, n), RNG.integers(-1074, 1024, n))
    y = RNG.uniform(-1.0, 1.0, n) * 700.0 / np.maximum(np.abs(np.log(x)), 1e-3)
    x[:300] = RNG.uniform(0.01, 10.0, 300)
    y[:300] = RNG.uniform(-60.0, 60.0, 300)
    x[300:400] = -RNG.uniform(0.5, 2.0, 100)
    y[300:400] = RNG.integers(-200, 200, 100)
    sx, sy = np.meshgrid(POW_X, POW_Y)
    k = sx.size
    x[400:400 + k], y[400:400 + k] = sx.ravel(), sy.ravel()
    p = s10e.emulate_kernel(monkeypatch, "f64_pow_tiles", f64_pow_tiles, [x, y, np.full(n, np.nan)], (128,),
                            grid=(n // 128,))[2]
    with np.errstate(all="ignore"):
        ref = np.power(x, y)
    u = _ulps(p, ref)
    worst = int(np.argmax(u))
    assert u.max() <= 4, (worst, x[worst], y[worst], p[worst], ref[worst], u.max())
    num = ~np.isnan(ref[400:400 + k])  # (the sign of zeros and infinities; a NaN's sign is not C pow's)
    np.testing.assert_array_equal(np.signbit(p[400:400 + k][num]), np.signbit(ref[400:400 + k][num]))


@ct.kernel
def f64_tanh_tiles(X, T, B: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(T, index=(i,), tile=ct.tanh(ct.load(X, index=(i,), shape=(B,), padding_mode=ct.PaddingMode.ZERO)))


def test_f64_tanh_within_four_ulp_on_the_ptx(monkeypatch):
    """``ct.tanh`` of f64 tiles (before session 32 refused: "tanh on f64"): arguments from 1e-300 to 40 of both
    signs (the polynomial and the ``exp`` sides of ``expm1``, the saturation to +-1), ``+-0``, ``+-inf``, NaN."""
    n = 512
    x = np.copysign(np.exp(RNG.uniform(np.log(1e-300), np.log(40.0), n)), RNG.uniform(-1, 1, n))
    x[:200] = RNG.uniform(-1.0, 1.0, 200)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.175, -0.17500001, 19.06]
    t = s10e.emulate_kernel(monkeypatch, "f64_tanh_tiles", f64_tanh_tiles, [x, np.full(n, np.nan)], (128,),
                            grid=(n // 128,))[1]
    u = _ulps(t, np.tanh(x))
    worst = int(np.argmax(u))
    assert u.max() <= 4, (worst, x[worst], t[worst], np.tanh(x[worst]), u.max())
    assert np.signbit(t[1]) and not np.signbit(t[0])
