"""``TILEORCH_ROW_RUNS`` (issue 22, off by default): a single-pass row reduction with 1 or 2 vector
runs per thread instead of 4 (fewer lowered ops, a faster compile, more threads per row).  The PTX
of row softmax and layernorm compiled with the switch runs in ``tileorch.testing.ptx_emulator``
CTA by CTA against numpy in fp64 (ragged rows, NaN-prefilled outputs).  The GPU runs the same
programs: tests/gpu/test_row_runs_gpu.py."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")

from tileorch.transforms.tileas import simt_layouts  # noqa: E402

RNG = np.random.default_rng(2205)


@pytest.mark.parametrize("value,runs", [(None, 4), ("", 4), ("1", 1), ("2", 2), ("8", 8), ("0", None), ("-1", None),
                                        ("two", None), ("1.5", None)])
def test_row_runs_reads_a_positive_integer_else_an_error(monkeypatch, value, runs):
    """Unset: 4; a positive integer: that; anything else is an error naming the variable (tileorch.settings;
    it was read as the default silently)."""
    from tileorch.settings import SettingError

    if value is None:
        monkeypatch.delenv("TILEORCH_ROW_RUNS", raising=False)
    else:
        monkeypatch.setenv("TILEORCH_ROW_RUNS", value)
    assert simt_layouts.ROW_RUNS == 4
    if runs is None:
        with pytest.raises(SettingError, match=f"TILEORCH_ROW_RUNS='{value}'"):
            simt_layouts.row_runs()
    else:
        assert simt_layouts.row_runs() == runs


def _emulate_views(*args):
    pytest.importorskip("cuda.tile")
    from test_user_sweep13_strided import emulate_views

    return emulate_views(*args)


def _mp():
    pytest.importorskip("cuda.tile")
    from tileorch.testing import memory_programs

    return memory_programs


@pytest.mark.parametrize("runs,threads", [(1, 128), (2, 64)])
def test_row_softmax_f16_with_fewer_runs_per_thread(monkeypatch, runs, threads):
    """1024 f16 columns = 128 runs of 8: 128 threads at 1 run each, 64 at 2 (4 runs: 32, one warp)."""
    monkeypatch.setenv("TILEORCH_ROW_RUNS", str(runs))
    x = RNG.standard_normal((3, 1000)).astype(np.float16)
    y = np.full((3, 1000), np.nan, np.float16)
    prog = _emulate_views(_mp().softmax, f"softmax_f16_1024_row_runs{runs}", [x, y, 1024], (3,))
    per_program = 32 if prog.warp_programs else prog.threads
    assert per_program == threads
    assert any(f"{runs} vector runs per thread of the row reduction (TILEORCH_ROW_RUNS" in r for r in prog.remarks)
    ref = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y.astype(np.float64), ref / ref.sum(axis=1, keepdims=True), atol=2e-3, rtol=0)


@pytest.mark.parametrize("runs", [1, 2])
def test_layernorm_f16_with_fewer_runs_per_thread(monkeypatch, runs):
    monkeypatch.setenv("TILEORCH_ROW_RUNS", str(runs))
    x = RNG.standard_normal((2, 1024)).astype(np.float16)
    w = RNG.standard_normal(1024).astype(np.float16)
    b = RNG.standard_normal(1024).astype(np.float16)
    y = np.full((2, 1024), np.nan, np.float16)
    _emulate_views(_mp().layernorm, f"layernorm_f16_1024_row_runs{runs}", [x, w, b, y, 1024], (2,))
    xf = x.astype(np.float64)
    ref = (xf - xf.mean(1, keepdims=True)) / np.sqrt(xf.var(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(y.astype(np.float64), ref, atol=2e-2, rtol=0)
