"""``TILEORCH_ONLINE_SOFTMAX_RUNS=R`` on the PTX emulator: a kernel holding the per-thread online softmax
(``tileaa-hoist-online-softmax``) is laid out with ``R`` vector runs per thread (``simt_layouts.online_runs``),
so its CTA is ``R`` times narrower: the cross entropy over 1024-element bf16 tiles at 64 (``R = 2``) and 32
threads (``R = 4``, one warp) instead of 128, named in the layout remark.  Its outputs, from NaN-prefilled
buffers, on ragged rows (the last tile 5 elements) with a ``-inf`` first tile, a ``+inf``, a NaN and
scattered ``-inf``: NaN exactly where the loop as written gives NaN, elsewhere its value and numpy's
log-sum-exp (f64) within 2e-6; the loss sum and count from the atomics.  Both exponential forms
(``TILEORCH_ONLINE_SOFTMAX_EXP``).  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_online_softmax_emulated as online  # noqa: E402
import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402


def _compile(kernel, spec, name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    return compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False)


@pytest.mark.parametrize("exps", ["full", "ex2"])
@pytest.mark.parametrize("runs,threads", [(2, 64), (4, 32)])
def test_cross_entropy_with_runs_per_thread(monkeypatch, runs, threads, exps):
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    v, bv = 4101, 1024
    x, finite = online._rows(v, bv, seed=5)
    x = online._bf16(x)
    labels = np.array([3, -100, 5, 7, v - 1, 0], np.int64)
    spec = [((6, v), "bfloat16"), ((6,), "int64"), ((6,), "float32"), ((1,), "float32"), ((1,), "int32"), -100, bv]
    inputs = {0: x, 1: labels, 3: np.zeros(1, np.float32), 4: np.zeros(1, np.int32)}
    name = f"ce_runs_{runs}_{exps}"
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(kernel, spec, (6,), "simt")})
    monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX", "1")
    monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX_EXP", exps)
    monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX_RUNS", str(runs))
    prog = _compile(kernel, spec, name)
    assert prog.threads == threads
    assert any(f"{runs} vector runs per thread of the online softmax loop" in r for r in prog.remarks), prog.remarks
    got = s10e.emulate(name, inputs)
    monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX", "0")  # the loop as written (128 threads: the runs setting
    assert _compile(kernel, spec, name).threads == 128  # reads only the per-thread form)
    written = s10e.emulate(name, inputs)
    online._same_as_written(got[2], written[2], finite, online._lse(x))
    assert got[4][0] == written[4][0] == 5
    assert np.isnan(got[3][0]) == np.isnan(written[3][0])
