"""The skeleton a user sweep's ``_interp`` file shares (sweeps 29 on; sweeps before wrote it out in each file): the
sweep's programs made known to test_user_sweep_interp.run, a seeded sampler, float64 helpers, the hook the emulated
and GPU files call each test through, and the CI subset.

A file binds them::

    from interp_sweep_checks import ALL, F32, _ci_subset, _close, _d, every_case, register, sampler
    from test_user_sweep_interp import run     # (a module global: the emulated and GPU files swap it)
    register(PROGRAMS)
    RNG, _f = sampler(3030)
    CI = {...}                                  # the tests CI runs; every test with TILEORCH_EMULATE_ALL=1

(``_ci_subset`` is an autouse fixture: importing it into the file applies it there; it reads the file's ``CI``.)"""

from __future__ import annotations

import os

import numpy as np
import pytest

import test_user_sweep_interp as sweep
from test_user_sweep_interp import sample

F32 = np.float32
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
"""Every test runs with ``TILEORCH_EMULATE_ALL=1``; otherwise only a file's ``CI`` set (the suite's time budget)."""

_close = sweep._close  # float64 assert_allclose(got, ref, atol, rtol=0)


def register(programs: dict) -> None:
    """Make ``programs`` known to test_user_sweep_interp.run (it looks programs up in its ``PROGRAMS``), with the
    unsigned and fp8 (bytes) dtypes the later sweeps use."""
    sweep.PROGRAMS.update(programs)
    sweep.NP.update({"uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float8_e4m3fn": np.uint8,
                     "float8_e5m2": np.uint8})


def sampler(seed: int):
    """(the file's generator, ``_f(shape, dt="float32", scale=1.0)``: a sample of that dtype drawn from it)."""
    rng = np.random.default_rng(seed)

    def _f(shape, dt="float32", scale=1.0):
        return sample(rng, shape, dt, scale)

    return rng, _f


def _d(x):
    return np.asarray(x, np.float64)


def every_case(test) -> None:
    """Call the test function ``test`` (the emulated and GPU files call each through this)."""
    test()


@pytest.fixture(autouse=True)
def _ci_subset(request):
    if not ALL and request.function.__name__ not in request.module.CI:
        pytest.skip("TILEORCH_EMULATE_ALL=1 runs it (CI time)")
