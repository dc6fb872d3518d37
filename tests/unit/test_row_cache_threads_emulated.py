"""``TILEORCH_ROW_CACHE_THREADS`` (``transforms/tileas/simt_layouts.row_cache_run``): a kernel keeping a bulk-filled
row in shared memory is laid out over 256 / 512 threads (narrower accesses: 4 / 2 bf16 elements a thread) instead of
128, so a long row's few resident CTAs are more warps.  On the PTX emulator against numpy (f64), NaN-prefilled
outputs: the kernel has the threads asked, the row's whole tiles are still bulk-copied (the slot layout holds at
the narrower run), ragged rows and the tail tile right; the switch changes nothing where there is no bulk-filled
row (bulk fill off, a one-pass row).  Needs cuda-tile and ml_dtypes, no GPU."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from test_row_bulk_fill_emulated import _emulate, _expected, _f16, _lsm  # noqa: E402
from test_row_smem_cache_emulated import BV, _x  # noqa: E402


@pytest.mark.parametrize("threads,v", [(512, 3 * BV + 1), (256, 2 * BV)])
def test_softmax_three_loops(threads, v, monkeypatch):
    """One bulk fill, two reads, 512 / 256 threads; 3073 columns: rows 1 and 2 not 16-byte aligned (the loaded
    path), a tail tile of one element."""
    from tileorch.testing.row_cache_programs import softmax_three_loops as kernel

    monkeypatch.setenv("TILEORCH_ROW_CACHE_THREADS", str(threads))
    x = _f16(3, v, 31)
    spec = [((3, v), "float16"), ((3, v), "float16"), BV]
    got, prog, copied = _emulate(monkeypatch, f"threads_sm3_{threads}", kernel, spec, (3,), {0: x}, True)
    assert prog.threads == threads, prog.remarks
    assert dict(copied) == _expected(3, v, 2)
    xd = x.astype(np.float64)
    e = np.exp(xd - xd.max(1, keepdims=True))
    np.testing.assert_allclose(got[1], e / e.sum(1, keepdims=True), rtol=2e-3, atol=1e-5)


def test_cross_entropy_forward_backward(monkeypatch):
    from tileorch.testing.user_programs10 import cross_entropy_fwd_bwd_vocab as kernel

    monkeypatch.setenv("TILEORCH_ROW_CACHE_THREADS", "512")
    v = 2 * BV + 8
    x = _f16(4, v, 32)
    labels = np.array([3, -100, v - 1, 0], np.int64)
    spec = [((4, v), "float16"), ((4,), "int64"), ((4,), "float32"), ((4, v), "float16"), -100, 0.25, BV]
    got, prog, copied = _emulate(monkeypatch, "threads_ce", kernel, spec, (4,), {0: x, 1: labels}, True)
    assert prog.threads == 512 and dict(copied) == _expected(4, v, 2), (prog.threads, dict(copied))
    xd = x.astype(np.float64)
    lse = np.log(np.exp(xd).sum(1))
    keep = labels != -100
    np.testing.assert_allclose(got[2], np.where(keep, lse - xd[np.arange(4), np.where(keep, labels, 0)], 0.0),
                               rtol=1e-5, atol=1e-4)
    onehot = np.zeros_like(xd)
    onehot[np.arange(4)[keep], labels[keep]] = 1
    want = np.where(keep[:, None], (np.exp(xd - lse[:, None]) - onehot) * 0.25, 0.0)
    np.testing.assert_allclose(got[3], want, rtol=1e-2, atol=1e-5)


def test_log_softmax_bf16(monkeypatch):
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    monkeypatch.setenv("TILEORCH_ROW_CACHE_THREADS", "512")
    v = 3 * BV
    x = _x(2, v, 33)
    spec = [((2, v), "bfloat16"), ((2, v), "bfloat16"), BV]
    got, prog, copied = _emulate(monkeypatch, "threads_lsm", kernel, spec, (2,), {0: x}, True)
    assert prog.threads == 512 and dict(copied) == _expected(2, v, 2)
    np.testing.assert_allclose(got[1], _lsm(x), rtol=2e-2, atol=5e-2)


def test_no_bulk_filled_row_keeps_its_threads(monkeypatch):
    """The switch applies only to a bulk-filled row: with the bulk fill off, or a one-pass row (no row cache),
    the kernel keeps the threads it is sized to."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.row_cache_programs import softmax_three_loops
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic

    monkeypatch.setenv("TILEORCH_ROW_CACHE_THREADS", "512")
    monkeypatch.setenv("TILEORCH_ROW_SMEM_CACHE", "1")
    monkeypatch.setenv("TILEORCH_ROW_BULK_FILL", "0")
    sm3 = [((3, 4 * BV), "float16"), ((3, 4 * BV), "float16"), BV]
    assert lower_once(cutile_bytecode(softmax_three_loops, sm3), "threads_nobulk", arch="sm_90a").threads == 128
    monkeypatch.setenv("TILEORCH_ROW_BULK_FILL", "1")
    ce = [((4, 4 * BV), "bfloat16"), ((4,), "int64"), ((4,), "float32"), ((1,), "float32"), ((1,), "int32"), -100, BV]
    assert lower_once(cutile_bytecode(cross_entropy_fwd_mean_atomic, ce), "threads_onepass", arch="sm_90a").threads == 128
