"""``TILEORCH_ATOMIC_FENCES=holders`` (a tile's ordered ``atomic_rmw`` fenced only by the threads
holding a live element, between two CTA barriers; tileaa_to_simt/pointers.py) on the PTX emulator:
sweep 15's cross entropy forward, whose loss sum and valid count are two ``acq_rel`` atomics of a
one-element tile per row, at ragged widths (one tile short of 256, five tiles with a last of 5
elements) with ignored labels, NaN-prefilled outputs, against numpy in f64 (the log-sum-exp per
row, the loss sum, the count) and against the default form (``each``: the same log-sum-exp bits
and count).  The barrier and fence placement is FileCheck's (atomic_fences.mlir); this checks the
values.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402


def _bf16(a):
    return (np.asarray(a, np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)


def _run(form: str, v: int, x, labels, monkeypatch):
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    monkeypatch.setenv("TILEORCH_ATOMIC_FENCES", form)
    rows = x.shape[0]
    spec = [((rows, v), "bfloat16"), ((rows,), "int64"), ((rows,), "float32"), ((1,), "float32"), ((1,), "int32"),
            -100, 256]
    name = f"ce_fences_{v}"
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(kernel, spec, (rows,), "simt")})
    # the log-sum-exp prefilled with NaN (unwritten rows show), the two sums start at 0 as the host zeroes them
    out = s10e.emulate(name, {0: x, 1: labels, 2: np.full(rows, np.nan, np.float32),
                              3: np.zeros(1, np.float32), 4: np.zeros(1, np.int32)})
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    return out, compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False).ptx


@pytest.mark.parametrize("v", [200, 1029])
def test_cross_entropy_atomics_fenced_by_holders(v, monkeypatch):
    rng = np.random.default_rng(v)
    x = _bf16(rng.standard_normal((5, v)) * 3)
    labels = np.array([3, -100, v - 1, 0, -100], np.int64)
    got, ptx = _run("holders", v, x, labels, monkeypatch)
    lse = np.log(np.exp(x.astype(np.float64)).sum(1))
    keep = labels != -100
    loss = (lse[keep] - x[np.nonzero(keep)[0], labels[keep]]).sum()
    np.testing.assert_allclose(got[2], lse, rtol=2e-6, atol=2e-6)
    assert got[4][0] == keep.sum() == 3
    np.testing.assert_allclose(got[3][0], loss, rtol=1e-5)
    each, each_ptx = _run("each", v, x, labels, monkeypatch)
    np.testing.assert_array_equal(got[2], each[2])
    assert each[4][0] == got[4][0]
    # the two forms were compiled (the switch took): holders adds the barrier before the first release
    assert ptx.count("bar.sync") > each_ptx.count("bar.sync"), (ptx.count("bar.sync"), each_ptx.count("bar.sync"))
