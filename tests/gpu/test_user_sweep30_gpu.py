"""The thirtieth user sweep on the GPU: every program of ``tileorch.testing.user_programs30`` runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep30_interp.py (the SIMT programs and the refused dot) and
tests/unit/test_user_sweep30_emulated.py (the attention-shaped programs and the MLP chain -- bf16 ones with bf16
inputs here, the CPU emulator runs their f16 twins -- and the tier's GEMMs), each with its ``run`` / ``emulate``
swapped for sweep_harness.gpu_run: every array inside a larger buffer of the fill, whose tail must stay the fill;
the path each program compiles to checked against its table entry.  Then two programs at larger ragged sizes
against torch (float64): causal attention written as an additive bias (bf16, head dim 64, 1000 queries) and the
MLP's two chained dots.  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.  Run:
``python -m pytest -q tests/gpu/test_user_sweep30_gpu.py``."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
ml_dtypes = pytest.importorskip("ml_dtypes")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import numpy as np  # noqa: E402

import sweep_harness  # noqa: E402
import test_user_sweep30_emulated as s30e  # noqa: E402
import test_user_sweep30_interp as s30  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import user_programs30 as up  # noqa: E402
from tileorch.testing.user_programs30 import PROGRAMS  # noqa: E402

CHAINED = {n for n, p in PROGRAMS.items() if p.path == "chained"}


def _gpu_run(name, inputs, program=None):
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs)


def _bf16(x):
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def test_every_program_has_a_test():
    """Whatever its path (the launcher picks it here): a test of test_user_sweep30_interp.py or a case of the emulated
    file (tests/unit/sweep_paths.py; moving a program between the tier and the SIMT path edits its table entry only);
    the chained programs each an attention case (their runner of their own)."""
    import sweep_paths

    assert not sweep_paths.untested(PROGRAMS, s30, s30e, cases=(s30e.CASES, s30e.ATTENTION_CASES))
    assert set(s30e.ATTENTION_CASES) == CHAINED


@pytest.mark.parametrize("test", sorted(n for n in dir(s30) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s30, "run", _gpu_run)
    s30.every_case(getattr(s30, test))


@pytest.mark.parametrize("case", sorted(s30e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s30e, "emulate", lambda name, inputs: sweep_harness.gpu_run(PROGRAMS, name, inputs))
    s30e.CASES[case]()


@pytest.mark.parametrize("name", sorted(CHAINED))
def test_chained_program_on_the_gpu(name):
    bf16 = any(isinstance(s, tuple) and s[1] == "bfloat16" for s in PROGRAMS[name].spec)
    s30e.run_attention_case(name, lambda n, inputs: _gpu_run(n, inputs), _bf16 if bf16 else None)


def _cdiv(a, b):
    return -(-a // b)


def test_causal_additive_bias_attention_at_size_against_torch():
    """4 heads x 1000 queries (ragged: 16 query tiles of 64, the last of 40), head dim 64, bf16 in and out."""
    bh, s, d = 4, 1000, 64
    q, k, v = (torch.randn(bh, s, d, device="cuda", generator=_gen(3001 + i)).to(torch.bfloat16) for i in range(3))
    o = torch.full((bh, s, d), float("nan"), device="cuda", dtype=torch.bfloat16)
    _launch((_cdiv(s, 64), bh), up.attn_causal_additive_bias, (q, k, v, o, up.scale2(d), 64, 64, 64))
    sc = (q.double() @ k.double().transpose(1, 2)) / math.sqrt(d)
    sc = sc.masked_fill(torch.ones(s, s, device="cuda").triu(1).bool(), float("-inf"))
    ref = torch.softmax(sc, -1) @ v.double()
    torch.testing.assert_close(o.double(), ref, rtol=2e-2, atol=2e-2)


def test_mlp_two_chained_dots_at_size_against_torch():
    """1000 tokens (ragged), model dim 64, hidden 1024 in 16 tiles of 64: relu between the dots, f16 in, f32 out."""
    m, dm, f = 1000, 64, 1024
    x = torch.randn(m, dm, device="cuda", generator=_gen(3004)).half()
    w1 = (torch.randn(dm, f, device="cuda", generator=_gen(3005)) * 0.1).half()
    w2 = (torch.randn(f, dm, device="cuda", generator=_gen(3006)) * 0.1).half()
    y = torch.full((m, dm), float("nan"), device="cuda")
    _launch((_cdiv(m, 64),), up.mlp_two_dots_relu_chain, (x, w1, w2, y, 64, 64, 64))
    h = torch.relu(x.double() @ w1.double()).half().double()
    torch.testing.assert_close(y.double(), h @ w2.double(), rtol=1e-2, atol=1e-2)
