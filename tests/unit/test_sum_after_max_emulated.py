"""``tileaa-sum-after-max`` (``TILEORCH_SUM_AFTER_MAX``, default on with ``TILEORCH_ONLINE_SOFTMAX_EXP=ex2``): the
three-loop softmax's sum loop computes ``exp(x - max)`` as a sum term (``ex2.approx.ftz``).  On the PTX emulator
against numpy (f64), NaN-prefilled outputs, with the row cache and without it (the proof does not use its marks:
the two compiles give the same bits), a ragged row (the tail tile's padding) and rows of large spread (terms far
below the max flush to 0, as the online form's do).  Needs cuda-tile and ml_dtypes, no GPU."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from test_row_bulk_fill_emulated import _emulate  # noqa: E402
from test_row_smem_cache_emulated import BV, _bits  # noqa: E402

REMARK = "tileaa-sum-after-max"


def _softmax(x):
    xd = np.asarray(x, np.float64)
    e = np.exp(xd - xd.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


@pytest.mark.parametrize("v,scale", [(2 * BV + 3, 3.0), (2 * BV, 40.0)])
def test_three_loops(v, scale, monkeypatch):
    from tileorch.testing.row_cache_programs import softmax_three_loops as kernel

    x = (np.random.default_rng(51).standard_normal((3, v)) * scale).astype(np.float16)
    spec = [((3, v), "float16"), ((3, v), "float16"), BV]
    got, prog, _ = _emulate(monkeypatch, "sum_after_max", kernel, spec, (3,), {0: x}, True)
    assert any(REMARK in r for r in prog.remarks), prog.remarks
    np.testing.assert_allclose(got[1], _softmax(x), rtol=2e-3, atol=1e-6)
    monkeypatch.setenv("TILEORCH_ROW_SMEM_CACHE", "0")  # (no row cache marks: the same exponentials)
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode
    import test_user_sweep10_emulated as s10e

    plain = compile_once(cutile_bytecode(kernel, spec), "sum_after_max_nocache", arch="sm_90a", ptxas=False)
    assert plain.row_cache is None and any(REMARK in r for r in plain.remarks)
    np.testing.assert_array_equal(_bits(s10e.emulate("sum_after_max", {0: x})[1]), _bits(got[1]))


def test_switch_off(monkeypatch):
    from tileorch.testing.row_cache_programs import softmax_three_loops as kernel

    monkeypatch.setenv("TILEORCH_SUM_AFTER_MAX", "0")
    v = 2 * BV
    x = (np.random.default_rng(52).standard_normal((2, v)) * 3).astype(np.float16)
    spec = [((2, v), "float16"), ((2, v), "float16"), BV]
    got, prog, _ = _emulate(monkeypatch, "sum_after_max_off", kernel, spec, (2,), {0: x}, True)
    assert not any(REMARK in r for r in prog.remarks)
    np.testing.assert_allclose(got[1], _softmax(x), rtol=2e-3, atol=1e-6)
