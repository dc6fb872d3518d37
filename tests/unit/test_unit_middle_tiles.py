"""Issue 21 item 2: dot operand tiles of 3-D arrays with a unit dimension.

* The leading-unit form -- ``(1, tm, tk)`` tiles of ``[B, M, K]`` at ``(program id 2, ...)``, squeezed by
  ``reshape`` or given to ``ct.mma`` as 3-D -- takes the TMA/WGMMA tier (``tileas-squeeze-unit-batch-dots``);
  emulated against numpy (``TILEORCH_EMULATE_ALL=1``: each GEMM emulation costs tens of CPU seconds).
* The unit *middle* dimension -- ``(tm, 1, tk)`` tiles of a sequence-first ``[S, B, K]`` array, spelled with
  ``reshape``, with ``permute`` before the reshape, or as a ``(1, tm, tk)`` tile read through ``order=(1, 0, 2)``
  -- takes the tier too since session 40 (``GemmConfig.batch_mid``: a located remark at the load; emulated in
  tests/unit/test_mid3d_emulated.py); its SIMT fallback (a launch whose arrays TMA cannot address) is checked
  here by the sweeps' SIMT interpreter against numpy (CI: the ``order=`` spelling; ``TILEORCH_EMULATE_ALL=1``:
  all three).

Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
from test_review30_epilogues import F32, ZERO, C, _a, _h, _nan  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402


@ct.kernel
def lead_reshape(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], tk)):
        a = ct.reshape(ct.load(X, index=(b, bm, k), shape=(1, tm, tk), padding_mode=ZERO), (tm, tk))
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(b, bm, bn), tile=ct.reshape(acc, (1, tm, tn)).astype(Y.dtype))


@ct.kernel
def lead_3d_dot(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], tk)):
        w = ct.reshape(ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), (1, tk, tn))
        acc = ct.mma(ct.load(X, index=(b, bm, k), shape=(1, tm, tk), padding_mode=ZERO), w, acc)
    ct.store(Y, index=(b, bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def middle_reshape(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], tk)):
        a = ct.reshape(ct.load(X, index=(bm, b, k), shape=(tm, 1, tk), padding_mode=ZERO), (tm, tk))  # (the load)
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, b, bn), tile=ct.reshape(acc, (tm, 1, tn)).astype(Y.dtype))


@ct.kernel
def middle_permute(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], tk)):
        t = ct.load(X, index=(bm, b, k), shape=(tm, 1, tk), padding_mode=ZERO)  # (the load)
        acc = ct.mma(ct.reshape(ct.permute(t, (1, 0, 2)), (tm, tk)),
                     ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, b, bn), tile=ct.reshape(acc, (tm, 1, tn)).astype(Y.dtype))


@ct.kernel
def middle_order(X, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn, b = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(X.shape[2], tk)):
        t = ct.load(X, index=(b, bm, k), shape=(1, tm, tk), order=(1, 0, 2), padding_mode=ZERO)  # (the load)
        acc = ct.mma(ct.reshape(t, (tm, tk)), ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, b, bn), tile=ct.reshape(acc, (tm, 1, tn)).astype(Y.dtype))


LEAD = [_a((3, 130, 96)), _a((96, 80)), _a((3, 130, 80), F32), 64, 64, 32]
MIDDLE = [_a((130, 3, 96)), _a((96, 80)), _a((130, 3, 80), F32), 64, 64, 32]
SPECS = {"lead_reshape": LEAD, "lead_3d_dot": LEAD, "middle_reshape": MIDDLE, "middle_permute": MIDDLE,
         "middle_order": MIDDLE}
GRID = (3, 2, 3)
ALL = os.environ.get("TILEORCH_EMULATE_ALL")


def _ci(names, in_ci):
    """``names`` as parameters, those not ``in_ci`` skipped unless ``TILEORCH_EMULATE_ALL=1`` (the reshape
    spelling's refusal and values are test_review30_dots's ``projection_batch_in_the_middle``)."""
    skip = pytest.mark.skip(reason="CI-sized subset: TILEORCH_EMULATE_ALL=1 runs it (CI time)")
    return [pytest.param(n, marks=() if n in in_ci or ALL else (skip,), id=n) for n in names]


def _compile(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    return compile_once(cutile_bytecode(globals()[name], SPECS[name]), f"s39mid_{name}", arch="sm_90a", ptxas=False)


@pytest.mark.parametrize("name", ["lead_reshape", "lead_3d_dot"])
def test_the_leading_unit_forms_take_the_tensor_cores(name):
    p = _compile(name)
    assert p.kind == "gemm", (name, p.kind, p.remarks)


@pytest.mark.parametrize("name", _ci(["middle_reshape", "middle_permute", "middle_order"], {"middle_permute",
                                                                                          "middle_order"}))
def test_the_middle_unit_forms_take_the_tensor_cores(name):
    p = _compile(name)
    assert p.kind == "gemm", (name, p.remarks)
    src, first = inspect.getsourcelines(globals()[name]._pyfunc)
    line = first + next(i for i, text in enumerate(src) if "(the load)" in text)
    said = [r for r in p.remarks if ": remark: " in r and "holds the batch in its middle dimension" in r]
    assert said and f".py:{line}:" in said[0], (line, said)


@pytest.fixture
def simt(monkeypatch):
    import test_user_sweep_interp as interp

    def run(name, inputs):
        # (a tier program: the interpreter runs its SIMT fallback)
        monkeypatch.setattr(interp, "PROGRAMS", {f"s39mid_{name}": UserProgram(globals()[name], SPECS[name], GRID,
                                                                                "gemm")})
        return interp.run(f"s39mid_{name}", inputs)
    return run


@pytest.mark.parametrize("name", _ci(["middle_reshape", "middle_permute", "middle_order"], {"middle_order"}))
def test_the_middle_unit_forms_compute_the_product(simt, name):
    x, w = _h(130, 3, 96), _h(96, 80, scale=0.25)
    y = np.asarray(simt(name, {0: x, 1: w})[2], np.float64)
    s14e._check(y, np.einsum("sbk,kn->sbn", x.astype(np.float64), w.astype(np.float64)), 1e-4, 1e-4)


@pytest.mark.skipif(not ALL,
                    reason="CI-sized subset: TILEORCH_EMULATE_ALL=1 runs it (CI time)")
@pytest.mark.parametrize("name", ["lead_reshape", "lead_3d_dot"])
def test_the_leading_unit_forms_on_the_emulator(monkeypatch, name):
    programs = {f"s39mid_{name}": UserProgram(globals()[name], SPECS[name], GRID, "gemm", outputs=(2,))}
    s4.add_sweep_programs(monkeypatch, programs)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **programs})
    x, w = _h(3, 130, 96), _h(96, 80, scale=0.25)
    y = s14e.emulate(f"s39mid_{name}", {0: x, 1: w, 2: _nan((3, 130, 80), np.float32)})[2]
    s14e._check(y, np.einsum("bsk,kn->bsn", x.astype(np.float64), w.astype(np.float64)), 1e-4, 1e-4)
