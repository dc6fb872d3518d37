"""``TILEORCH_SIMT_ONE_ELEMENT_LOADS``: a one-element tile load (a cross entropy's int64 label, f32 / i32
scalars read from device arrays) is loaded by every thread and held replicated (the default), or by thread 0
and handed out through shared memory (``0``).  On the PTX emulator against numpy (NaN-prefilled outputs,
ragged vocabularies, an ignored label) under both settings, and the PTX: by default no shared-memory
store and no barrier before the row loop's first tile load.  Needs cuda-tile and ml_dtypes, no GPU."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

RNG = np.random.default_rng(26)


def _bf16(a):
    return (np.asarray(a, np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)


def _program(name, kernel, spec, grid, monkeypatch, switch):
    monkeypatch.setenv("TILEORCH_SIMT_ONE_ELEMENT_LOADS", switch)
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(kernel, spec, grid, "simt")})
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    return compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False)


@pytest.mark.parametrize("switch", ["1", "0"])
@pytest.mark.parametrize("v", [1000, 2053])
def test_cross_entropy_label_loads(v, switch, monkeypatch):
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    rows, bv = 5, 256
    x = _bf16(RNG.standard_normal((rows, v)) * 3)
    labels = np.array([3, -100, v - 1, 0, v // 2], np.int64)
    spec = [((rows, v), "bfloat16"), ((rows,), "int64"), ((rows,), "float32"), ((1,), "float32"), ((1,), "int32"),
            -100, bv]
    name = f"one_elt_ce_{v}_{switch}"
    prog = _program(name, kernel, spec, (rows,), monkeypatch, switch)
    out = s10e.emulate(name, {0: x, 1: labels, 3: np.zeros(1, np.float32), 4: np.zeros(1, np.int32)})
    lse = np.log(np.exp(x.astype(np.float64)).sum(1))
    keep = labels != -100
    loss = (lse[keep] - x.astype(np.float64)[np.nonzero(keep)[0], labels[keep]]).sum()
    np.testing.assert_allclose(out[2], lse, rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(out[3][0], loss, rtol=1e-5)
    assert out[4][0] == keep.sum()
    # before the first tile load of the row (a 16-byte vector load): a shared-memory store and a
    # barrier only when thread 0 alone loads the label
    head = prog.ptx[:prog.ptx.index("ld.global.v4.b32")]
    handed_out = bool(re.search(r"st\.shared", head)) and "bar.sync" in head
    assert handed_out == (switch == "0"), head[-2000:]


@pytest.mark.parametrize("switch", ["1", "0"])
def test_cross_entropy_backward_scalar_loads(switch, monkeypatch):
    """Four one-element loads a program (label, log-sum-exp, the upstream gradient, the count), on a 2-D grid."""
    from tileorch.testing.user_programs15 import cross_entropy_bwd_2d_grid as kernel

    rows, v, bv = 4, 600, 256
    x = _bf16(RNG.standard_normal((rows, v)) * 2)
    labels = np.array([7, -100, v - 1, 0], np.int64)
    lse = np.log(np.exp(x.astype(np.float64)).sum(1)).astype(np.float32)
    dloss, count = np.array([1.5], np.float32), np.array([3], np.int32)
    spec = [((rows, v), "bfloat16"), ((rows,), "int64"), ((rows,), "float32"), ((1,), "float32"), ((1,), "int32"),
            ((rows, v), "float16"), -100, bv]
    name = f"one_elt_ce_bwd_{switch}"
    _program(name, kernel, spec, (rows, -(-v // bv)), monkeypatch, switch)
    out = s10e.emulate(name, {0: x, 1: labels, 2: lse, 3: dloss, 4: count})
    p = np.exp(x.astype(np.float64) - lse[:, None].astype(np.float64))
    onehot = np.zeros_like(p)
    onehot[np.arange(rows), np.where(labels >= 0, labels, 0)] = 1.0
    want = np.where((labels == -100)[:, None], 0.0, (p - onehot) * (1.5 / 3))
    np.testing.assert_allclose(np.asarray(out[5], np.float64), want, rtol=2e-3, atol=2e-3)
