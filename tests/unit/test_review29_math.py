"""Review 29: elementwise math at its edges on the SIMT path (PTX emulator against numpy, NaN-prefilled).

* ``ct.atan2``: NaN operands gave pi/4 (``max.f32`` / ``min.f32`` drop a NaN), ``atan2(-0, x > 0)`` gave +0,
  ``atan2(+-0, -0)`` gave +-0 instead of +-pi (the quadrant was chosen by ``x < 0``, false for -0), and both
  operands infinite gave NaN (inf / inf) instead of +-pi/4 or +-3pi/4.  Fixed in ``Emitter.atan2``; the
  test failed before.
Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from test_review28_integer_loops import emulate  # noqa: E402,F401  (the fixture: SIMT programs on the emulator)

C = ct.Constant
INF, NAN = np.inf, np.nan


@ct.kernel
def atan2_of(Y, X, A, BN: C[int]):
    ct.store(A, index=(0,), tile=ct.atan2(ct.load(Y, index=(0,), shape=(BN,)), ct.load(X, index=(0,), shape=(BN,))))


PAIRS = [(NAN, 1.0), (1.0, NAN), (NAN, NAN), (-0.0, 3.0), (0.0, 3.0), (0.0, -0.0), (-0.0, -0.0), (0.0, 0.0),
         (-0.0, 0.0), (-0.0, -3.0), (0.0, -3.0), (INF, INF), (INF, -INF), (-INF, INF), (-INF, -INF), (INF, 2.0),
         (-INF, -2.0), (3.0, INF), (3.0, -INF), (-3.0, -INF), (5.5, 2.0), (-5.5, -2.0), (1e-30, 1e-30), (1.0, -1e-30),
         (2.0, 0.5), (-8.0, 1 / 3), (0.5, -1.0), (1e30, 1e-30), (-1.0, 0.5), (7.0, -7.0), (1e-38, -1.0), (4.0, 0.0)]


def test_atan2_at_zeros_infinities_and_nan(emulate):
    y = np.array([p[0] for p in PAIRS], np.float32)
    x = np.array([p[1] for p in PAIRS], np.float32)
    a = np.asarray(emulate(atan2_of, [y, x, np.full(len(PAIRS), np.nan, np.float32)], [len(PAIRS)])[2], np.float64)
    want = np.arctan2(y.astype(np.float64), x.astype(np.float64))
    np.testing.assert_array_equal(np.isnan(a), np.isnan(want))
    finite = ~np.isnan(want)
    np.testing.assert_allclose(a[finite], want[finite], rtol=4e-7, atol=0)
    np.testing.assert_array_equal(np.signbit(a[finite]), np.signbit(want[finite]))  # (+-0 and +-pi)
