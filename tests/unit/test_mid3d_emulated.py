"""GEMMs whose operand / output tiles have a unit *middle* dimension (``tileorch.testing.mid3d_programs``: A
``(tm, 1, tk)`` tiles of ``[M, B, K]``, B ``(tk, 1, tn)`` of ``[K, B, N]``, C ``(tm, 1, tn)`` of ``[M, B, N]``, at
program id 2): the TileAS tier's TMA/WGMMA PTX run CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator``
(test_user_sweep3_emulated's runner: the launcher's own problem derivation, ``gemm_problem_operand_batches``, and
tile parameters; the direct epilogue on 1-CTA clusters, the emulator's subset) against numpy float64 on ragged M,
N and K, outputs NaN-prefilled.  The emulator's WGMMA is f16: bf16 / fp8 forms run on the GPU
(tests/gpu/test_mid3d_gpu.py).  :data:`EMULATED` is the CI-sized subset; ``TILEORCH_EMULATE_ALL=1`` runs every
case.  Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.mid3d_programs import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(4040)
CONFIG = "cluster_m=1,epilogue=direct"


@pytest.fixture(autouse=True)
def _mid3d_programs(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _h(*shape):
    return RNG.standard_normal(shape).astype(np.float16)


def _d(x):
    return np.asarray(x, np.float64)


def emulate(name: str, inputs: dict) -> dict:
    """Program ``name`` on its spec's shapes (a batched kernel: L = C's matrices), every CTA; its arrays after."""
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS[name]
    cfg = compile_cutile(p.kernel, p.spec, name, config=CONFIG).gemm_config
    assert cfg.batched and cfg.batch_mid, cfg.name
    out = p.spec[p.outputs[0]][0]
    batch = out[1] if "c" in cfg.batch_mid else out[0]
    return s3._gemm(name, inputs, program=p, config=CONFIG, problem=lambda c, m, n, k: (m, n, k, batch))


def _check(out, ref, atol, rtol=2e-3):
    out = np.asarray(out, np.float64)
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=atol, rtol=rtol)


def _case_mid_a_reshape():
    x, w = _h(100, 3, 72), _h(3, 72, 80)
    c = emulate("mid_a_reshape", {0: x, 1: w})[2]
    _check(c, np.einsum("mbk,bkn->bmn", _d(x), _d(w)), 1e-4)


def _case_mid_b_reshape():
    a, w = _h(3, 100, 72), _h(72, 3, 80)
    c = emulate("mid_b_reshape", {0: a, 1: w})[2]
    _check(c, np.einsum("bmk,kbn->bmn", _d(a), _d(w)), 1e-4)


def _case_mid_a_c_shared_w():
    x, w = _h(100, 3, 72), _h(72, 80)
    y = emulate("mid_a_c_shared_w", {0: x, 1: w})[2]
    _check(y, np.einsum("mbk,kn->mbn", _d(x), _d(w)), 1e-4)


def _case_mid_a_c_shared_w_f16_out():
    x, w = _h(100, 3, 72), _h(72, 80)
    y = emulate("mid_a_c_shared_w_f16_out", {0: x, 1: w})[2]
    _check(y, np.einsum("mbk,kn->mbn", _d(x), _d(w)), 3e-2)  # (f16 C: half an ulp at |y| ~ 30)


def _case_mid_all_three():
    x, w = _h(100, 3, 72), _h(72, 3, 80)
    y = emulate("mid_all_three", {0: x, 1: w})[2]
    _check(y, np.einsum("mbk,kbn->mbn", _d(x), _d(w)), 1e-4)


def _case_mid_b_k_major():
    x, wt = _h(100, 3, 72), _h(80, 3, 72)
    y = emulate("mid_b_k_major", {0: x, 1: wt})[2]
    _check(y, np.einsum("mbk,nbk->mbn", _d(x), _d(wt)), 1e-4)


def _case_mid_a_permute():
    x, w = _h(100, 3, 72), _h(72, 80)
    y = emulate("mid_a_permute", {0: x, 1: w})[2]
    _check(y, np.einsum("mbk,kn->mbn", _d(x), _d(w)), 1e-4)


def _case_mid_a_order():
    x, w = _h(100, 3, 72), _h(72, 80)
    y = emulate("mid_a_order", {0: x, 1: w})[2]
    _check(y, np.einsum("mbk,kn->mbn", _d(x), _d(w)), 1e-4)


def _case_mid_bias_relu():
    x, w, bias = _h(100, 3, 72), _h(72, 80), RNG.standard_normal(80).astype(np.float32)
    y = emulate("mid_bias_relu", {0: x, 1: w, 2: bias})[3]
    _check(y, np.maximum(np.einsum("mbk,kn->mbn", _d(x), _d(w)) + _d(bias), 0), 3e-2)


def _case_mid_relu_and_preact():
    """Review M4: a second output (the f32 pre-activation) stored as (tm, 1, tn) tiles like C: on the tier, each of
    its elements at its own array's address (it took the SIMT path before, the epilogue refusing to read it)."""
    x, w = _h(100, 3, 72), _h(72, 80)
    out = emulate("mid_relu_and_preact", {0: x, 1: w})
    ref = np.einsum("mbk,kn->mbn", _d(x), _d(w))
    _check(out[2], ref, 1e-4)
    _check(out[3], np.maximum(ref, 0), 3e-2)


def _case_mid_relu_and_stacked_preact():
    """The pre-activation batch-first ``[B, S, N]`` beside Y ``[S, B, N]`` (the same tile indices as C's)."""
    x, w = _h(100, 3, 72), _h(72, 80)
    out = emulate("mid_relu_and_stacked_preact", {0: x, 1: w})
    ref = np.einsum("mbk,kn->mbn", _d(x), _d(w))
    _check(out[2], ref.transpose(1, 0, 2), 1e-4)
    _check(out[3], np.maximum(ref, 0), 3e-2)


CASES = {name[len("_case_"):]: fn for name, fn in globals().items() if name.startswith("_case_")}
EMULATED = ["mid_a_c_shared_w", "mid_all_three", "mid_relu_and_preact"]
"""In CI: A and C batched in the middle beside a shared W (the sequence-first projection), all three, and a second
output batched in the middle beside C (review M4); the other
spellings (reshape of B, permute, order=, the bias + relu epilogue, the f16 C) with ``TILEORCH_EMULATE_ALL=1``."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
    EMULATED = sorted(CASES)


@pytest.mark.parametrize("case", EMULATED)
def test_the_ptx_against_numpy(case):
    CASES[case]()
