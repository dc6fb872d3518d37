"""Session 29's cover set (``tileorch.testing.cover29_programs``: an MLP block written as two loops, the second over
the output's column tiles reading the K loop's result; cover 27's ``two_k_loops_second_reads_first`` has its case in
test_cover27_emulated.py), run CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on
ragged shapes (M = 200, K = 200, N = 232 against 128 x 64 x 64 tiles), outputs prefilled with NaN, through
test_user_sweep14_emulated's GEMM runner (the launcher's problem derivation and tensor maps).  Each program took the
SIMT path before ``tileas-column-loop-to-tiles`` (refused at its second loop).  The same references run on the GPU in
tests/gpu/test_cover29_gpu.py.  Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402
from test_cover27_emulated import _h, _mm, _nan  # noqa: E402  (random f16 / bf16 arrays, float64 products, NaN)

from tileorch.testing.cover29_programs import PROGRAMS  # noqa: E402

BF16 = ml_dtypes.bfloat16


@pytest.fixture(autouse=True)
def _cover_set(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM program on its spec's shapes (test_user_sweep14_emulated's runner); an ``int`` in ``inputs`` is that
    scalar argument's value (the spec's otherwise), as tests/gpu/sweep_harness.gpu_run takes it."""
    import dataclasses

    scalars = {i: v for i, v in inputs.items() if isinstance(v, int)}
    if scalars:  # (a program of its own for the runner: its spec holds the scalars)
        program = PROGRAMS[name]
        name += "".join(f"_{i}_{v}" for i, v in sorted(scalars.items()))
        s14e.PROGRAMS[name] = dataclasses.replace(program, spec=[scalars.get(i, x) for i, x in enumerate(program.spec)])
    return s14e.emulate(name, {i: v for i, v in inputs.items() if i not in scalars})


def _gelu_mlp(name: str, hidden: int, scale2: float):
    """``gelu(x @ W1 + b1) @ W2 + b2`` (f16, gelu's tanh form rounded to f16 as the program does) through program
    ``name`` at a hidden width of ``hidden``; N = 232: three whole column tiles and a ragged one."""
    x, w1, b1 = _h(200, 200), _h(200, hidden, scale=0.1), _h(hidden, scale=0.5)
    w2, b2 = _h(hidden, 232, scale=scale2), _h(232, scale=0.5)
    y = emulate(name, {0: x, 1: w1, 2: b1, 3: w2, 4: b2, 5: _nan((200, 232))})[5]
    h = _mm(x, w1) + b1.astype(np.float64)[None, :]
    a = (0.5 * h * (1.0 + np.tanh(0.7978845608028654 * (h + 0.044715 * h ** 3)))).astype(np.float16)
    s14e._check(y, _mm(a, w2) + b2.astype(np.float64)[None, :], 2e-2, 1e-2)


def _case_mlp_loops_gelu_bias():
    """The MLP block at a hidden width of 128."""
    _gelu_mlp("mlp_loops_gelu_bias", 128, 0.1)


def _case_mlp_loops_gelu_hidden_256():
    """The same program at a hidden width of 256 (the second dot's register A at its widest)."""
    _gelu_mlp("mlp_loops_gelu_hidden_256", 256, 0.07)


def _case_mlp_loops_silu_linear_bt():
    """``silu(x @ W1^T) @ W2^T`` with nn.Linear's weights (bf16, ``W1 [64, K]``, ``W2 [N, 64]``), silu rounded to
    bf16 as the program does."""
    x, w1, w2 = _h(200, 200, dtype=BF16), _h(64, 200, scale=0.1, dtype=BF16), _h(232, 64, scale=0.25, dtype=BF16)
    y = emulate("mlp_loops_silu_linear_bt", {0: x, 1: w1, 2: w2, 3: _nan((200, 232), BF16)})[3]
    h = _mm(x, w1.T)
    a = (h / (1.0 + np.exp(-h))).astype(BF16)
    s14e._check(y, _mm(a, w2.T), 6e-2, 1e-2)


def _case_mlp_loops_scalar_k():
    """The K loop over the scalar argument's count of K tiles: 2 (a prefix of K = 200's 4 tiles), 4 (all, the last
    ragged) and 0 (an empty K loop: y = relu(b1) @ W2), each against numpy over that prefix."""
    x, w1, b1, w2 = _h(200, 200), _h(200, 64, scale=0.25), _h(64), _h(64, 232, scale=0.25)
    for nk in (2, 4, 0):
        y = emulate("mlp_loops_scalar_k", {0: x, 1: w1, 2: b1, 3: w2, 4: _nan((200, 232)), 5: nk})[4]
        h = _mm(x[:, :64 * nk], w1[:64 * nk]) + b1.astype(np.float64)[None, :]
        s14e._check(y, _mm(np.maximum(h, 0.0).astype(np.float16), w2), 3e-2, 1e-2)


def _case_own_a_scale_after_the_loop():
    """The rewrite ``own_a_beside_computed_a``'s refusal names: ``x @ w1 + s[:, None] * (z @ w2)``, two loaded As and an
    accumulator each, the per-row scale in the epilogue (N = 232 ragged)."""
    x, z, s = _h(200, 200), _h(200, 200), _h(200, dtype=np.float32)
    w1, w2 = _h(200, 232, scale=0.25), _h(200, 232, scale=0.25)
    y = emulate("own_a_scale_after_the_loop", {0: x, 1: w1, 2: z, 3: s, 4: w2, 5: _nan((200, 232))})[5]
    s14e._check(y, _mm(x, w1) + s.astype(np.float64)[:, None] * _mm(z, w2), 3e-2, 1e-2)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}


def test_every_tensor_core_program_has_a_case():
    """The GPU file reruns every case: each program the tensor-core tier takes has one."""
    assert sorted(n for n, p in PROGRAMS.items() if p.path != "simt") == sorted(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_ptx_against_numpy(case):
    CASES[case]()
