"""``tileorch.testing.rowred_probes`` (the cross-entropy probes of ``benchmarks/memory_bound.py``) on the PTX
emulator against numpy in f64: ragged rows (1029 = 4 tiles of 256 and 5 elements), bf16 logits, an ignored
label, the last column as a label, NaN-prefilled outputs.  The probes time parts of the cross entropy on the
GPU; this holds that they compute what the program they stand beside computes.  Needs cuda-tile and
ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

V, BV, ROWS = 1029, 256, 5


def _inputs():
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((ROWS, V)) * 3).astype(np.float32)
    x = (x.view(np.uint32) & 0xFFFF0000).view(np.float32)  # bf16 values
    labels = np.array([3, -100, V - 1, 1024, 0], np.int64)
    lse = np.log(np.exp(x.astype(np.float64)).sum(1))
    keep = labels != -100
    loss = np.where(keep, lse - x[np.arange(ROWS), np.where(keep, labels, 0)], 0.0)
    return x, labels, lse, loss, keep


def _emulate(monkeypatch, name, kernel, spec, inputs):
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(kernel, spec, (ROWS,), "simt")})
    return s10e.emulate(name, inputs)


def test_relaxed_atomics_probe(monkeypatch):
    from tileorch.testing.rowred_probes import cross_entropy_fwd_relaxed_atomics as kernel

    x, labels, lse, loss, keep = _inputs()
    spec = [((ROWS, V), "bfloat16"), ((ROWS,), "int64"), ((ROWS,), "float32"), ((1,), "float32"), ((1,), "int32"),
            -100, BV]
    out = _emulate(monkeypatch, "probe_ce_relaxed", kernel, spec,
                   {0: x, 1: labels, 3: np.zeros(1, np.float32), 4: np.zeros(1, np.int32)})
    np.testing.assert_allclose(out[2], lse, rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(out[3][0], loss.sum(), rtol=1e-5)
    assert out[4][0] == keep.sum() == 4


def test_row_loss_probe(monkeypatch):
    from tileorch.testing.rowred_probes import cross_entropy_fwd_row_loss as kernel

    x, labels, lse, loss, _ = _inputs()
    spec = [((ROWS, V), "bfloat16"), ((ROWS,), "int64"), ((ROWS,), "float32"), ((ROWS,), "float32"), -100, BV]
    out = _emulate(monkeypatch, "probe_ce_row_loss", kernel, spec, {0: x, 1: labels})
    np.testing.assert_allclose(out[2], lse, rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(out[3], loss, rtol=2e-5, atol=2e-5)
    assert out[3][1] == 0.0
