"""``TILEORCH_ROW_SMEM_CACHE=1`` (``tileaa_to_simt/row_smem_cache.py``, ``row_cache_lowering.py``): a two-pass
row keeps its first loop's tiles in shared memory and its second loop reads them there.  On the PTX emulator
against numpy (f64), NaN-prefilled outputs, ragged widths (the tail tile padded: ``NEG_INF`` in the first
pass, ``ZERO`` in the second, so the read puts its own padding in), the launcher's dynamic shared memory
(one slot per tile), a row that fits only partly (the slots past the launch's shared memory reload from
global memory), an in-place call (output = input), and the switch off for the same bits.  The kernels are
checked to carry the cache (``st.shared`` / ``ld.shared.v4`` in the PTX, the launch record), so a lowering
that silently dropped it fails.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

BV = 1024


def _x(rows: int, v: int, seed: int) -> np.ndarray:
    x = (np.random.default_rng(seed).standard_normal((rows, v)) * 3).astype(np.float32)
    return (x.view(np.uint32) & 0xFFFF0000).view(np.float32)  # bf16 values


def _bits(a) -> np.ndarray:
    return np.asarray(a, np.float64).view(np.uint64)


def _compiled(name, kernel, spec, grid):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    return compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False)


def _emulate(monkeypatch, name, kernel, spec, grid, inputs, cache: str):
    monkeypatch.setenv("TILEORCH_ROW_SMEM_CACHE", cache)
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(kernel, spec, grid, "simt")})
    prog = _compiled(name, kernel, spec, grid)
    cached = cache == "1" and prog.row_cache is not None
    if cache == "1":
        assert cached and "st.shared.v4" in prog.ptx and "ld.shared.v4" in prog.ptx, prog.remarks
    return s10e.emulate(name, inputs), prog


@pytest.mark.parametrize("v", [BV - 7, 1000, 4 * BV - 1, 3 * BV + 1, 32001])
def test_log_softmax(v, monkeypatch):
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    x = _x(3, v, 2)
    spec = [((3, v), "bfloat16"), ((3, v), "bfloat16"), BV]
    want = x - np.log(np.exp(x.astype(np.float64)).sum(1))[:, None]
    got, _ = _emulate(monkeypatch, "rowcache_lsm", kernel, spec, (3,), {0: x}, "1")
    np.testing.assert_allclose(got[1], want, rtol=2e-2, atol=5e-2)
    base, _ = _emulate(monkeypatch, "rowcache_lsm", kernel, spec, (3,), {0: x}, "0")
    np.testing.assert_array_equal(_bits(got[1]), _bits(base[1]))
