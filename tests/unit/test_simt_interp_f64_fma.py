"""The SIMT interpreter's ``fma.rn.f64`` (tests/unit/simt_interp.py) gives IEEE 754's signed zero when the
exact result is zero: ``-0 * x + -0`` is -0 (it gave +0: the exact value was taken as a rational, which has
no sign), a zero product plus a zero of the other sign +0, a product cancelled by the addend +0.  The
references are the sign rules of IEEE 754-2019 6.3, not the interpreter's output."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")

from simt_interp import Interpreter  # noqa: E402

CASES = [  # (a, b, c, the sign bit IEEE gives the zero)
    (-0.0, 3.0, -0.0, 1), (0.0, -3.0, -0.0, 1), (-0.0, -3.0, -0.0, 0), (-0.0, 3.0, 0.0, 0),
    (0.0, 3.0, -0.0, 0), (2.0, 3.0, -6.0, 0), (-2.0, 3.0, 6.0, 0), (1e-300, 1e-300, -0.0, None),
]


@pytest.mark.parametrize("a, b, c, neg", CASES)
def test_fma_rn_f64_signed_zero(a, b, c, neg):
    got = []
    Interpreter.asm_f64("fma.rn.f64 $0, $1, $2, $3;", [np.array([a]), np.array([b]), np.array([c])], got.append)
    r = float(np.asarray(got[0]).ravel()[0])
    if neg is None:  # an underflowing nonzero product: the nearest f64 (+0 here), never the addend's -0
        assert r == 0.0 and math.copysign(1, r) == 1.0
        return
    assert r == 0.0 and (math.copysign(1, r) < 0) == bool(neg), (a, b, c, r)
