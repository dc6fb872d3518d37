"""An ACQUIRE load is one access the program placed (``tileaa_to_simt/rematerialize.py``, ``prefetch.py``): a
broadcast of its tile is not reloaded by each thread as a weak load (which could read a newer value than the
one ordered), and the loop's other loads are not prefetched above it (FileCheck
``tileaa_to_simt/prefetch_ordered_loads.mlir``).  On the PTX emulator against numpy, NaN-prefilled.

Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402


def test_acquired_flag_broadcast_is_not_reloaded_weakly(monkeypatch):
    from prefetch_programs import sum_tiles_after_acquired_flags as kernel
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv("TILEORCH_REMATERIALIZE_FLOAT_LOADS", "1")  # the switch that reloaded the flag weakly
    bv, v = 128, 5 * 128 + 3
    spec = [((2, v), "float32"), ((6,), "float32"), ((2,), "float32"), bv]
    prog = compile_once(cutile_bytecode(kernel, spec), "sum_tiles_after_acquired_flags", arch="sm_90a", ptxas=False)
    assert "ld.acquire.gpu.global" in prog.ptx
    # every other global load is a tile's vector or predicated element load; a plain weak scalar reload of the
    # flag (as the float-load rematerialization gave) is gone
    assert not re.search(r"^\s*ld\.global\.b32\b", prog.ptx, re.M), "a weak reload of the acquired flag"
    assert not any("recomputed by each thread" in r for r in prog.remarks), prog.remarks

    x = np.random.default_rng(7).standard_normal((2, v)).astype(np.float32)
    f = np.array([1.0, -2.0, 0.5, 3.0, 0.25, 9.0], np.float32)
    monkeypatch.setattr(s10e, "PROGRAMS", {"sum_tiles_after_acquired_flags": UserProgram(kernel, spec, (2,), "simt")})
    got = s10e.emulate("sum_tiles_after_acquired_flags", {0: x, 1: f, 2: np.full(2, np.nan, np.float32)})
    tiles = [x[:, k * bv:(k + 1) * bv].sum(1, dtype=np.float64) * f[k] for k in range(6)]
    np.testing.assert_allclose(got[2], np.sum(tiles, 0), rtol=1e-5, atol=1e-4)
