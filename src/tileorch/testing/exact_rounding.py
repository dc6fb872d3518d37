"""Exact references for directed IEEE rounding (tests and GPU checks): the exact result of ``add`` / ``sub`` /
``mul`` / ``fma`` of f32 or f64 operands, in Python rationals, rounded once toward zero (``rz``), -inf (``rm``) or
+inf (``rp``), computed independently of :mod:`tileorch.testing.ptx_emulator` (a neighbour search from the value
rounded through f64, not its nearest-then-step rule).  Imports numpy only."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def round_directed(q: Fraction, mode: str, dt) -> float:
    """The exact value ``q`` rounded to ``dt`` (f32 / f64) toward zero (rz), -inf (rm) or +inf (rp)."""
    fin = np.finfo(dt)
    big = Fraction(float(fin.max))
    down = mode == "rm" or (mode == "rz" and q > 0)
    if abs(q) > big:
        if q > 0:
            return float(fin.max) if down else math.inf
        return -math.inf if down else -float(fin.max)
    try:
        c = dt(float(q))  # within an ulp or two (rounded through f64)
    except OverflowError:  # (just under the largest f64, rounded up past it)
        c = dt(fin.max)
    while Fraction(float(c)) > q and down:
        c = np.nextafter(c, dt(-np.inf))
    while Fraction(float(c)) < q and not down:
        c = np.nextafter(c, dt(np.inf))
    while Fraction(float(c)) > q and not down and Fraction(float(np.nextafter(c, dt(-np.inf)))) >= q:
        c = np.nextafter(c, dt(-np.inf))
    while Fraction(float(c)) < q and down and Fraction(float(np.nextafter(c, dt(np.inf)))) <= q:
        c = np.nextafter(c, dt(np.inf))
    return float(c)


def reference(op: str, mode: str, args: list, dt) -> np.ndarray:
    """``op`` of the arrays ``args`` rounded once ``mode``: rationals where every operand is finite, IEEE's
    special values (numpy, exact for them) elsewhere; an exact zero is +0 except under ``rm`` (-0), and keeps
    the sign two zero addends of one sign share."""
    out = np.empty(len(args[0]), dt)
    with np.errstate(all="ignore"):
        ieee = {"add": lambda a: a[0] + a[1], "sub": lambda a: a[0] - a[1], "mul": lambda a: a[0] * a[1],
                "fma": lambda a: a[0] * a[1] + a[2]}[op]([np.asarray(v, np.float64) for v in args])
    for i in range(len(out)):
        v = [float(a[i]) for a in args]
        if not all(math.isfinite(t) for t in v):
            out[i] = dt(ieee[i])
            continue
        f = [Fraction(t) for t in v]
        if op == "mul":
            exact = f[0] * f[1]
            out[i] = round_directed(exact, mode, dt) if exact else math.copysign(0.0, v[0]) * math.copysign(1.0, v[1])
            continue
        if op == "fma":
            exact = f[0] * f[1] + f[2]
            prod_zero_sign = math.copysign(1.0, v[0]) * math.copysign(1.0, v[1])
            addends = ((prod_zero_sign if f[0] * f[1] == 0 else None), math.copysign(1.0, v[2]) if v[2] == 0 else None)
        else:
            second = f[1] if op == "add" else -f[1]
            exact = f[0] + second
            s1 = math.copysign(1.0, v[1]) * (1 if op == "add" else -1)
            addends = (math.copysign(1.0, v[0]) if v[0] == 0 else None, s1 if v[1] == 0 else None)
        if exact != 0:
            out[i] = round_directed(exact, mode, dt)
        elif addends[0] is not None and addends[0] == addends[1]:
            out[i] = math.copysign(0.0, addends[0])  # two zeros of one sign
        else:
            out[i] = -0.0 if mode == "rm" else 0.0
    return out
