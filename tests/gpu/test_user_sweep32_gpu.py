"""The thirty-second user sweep on the GPU: every program of ``tileorch.testing.user_programs32`` runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep32_interp.py (the SIMT programs and the refused GEMM) and
tests/unit/test_user_sweep32_emulated.py (the two-dot programs on the chained kernel, bf16 ones with bf16 inputs,
and the tier's GEMMs), each with its ``run`` / ``emulate`` swapped for sweep_harness.gpu_run: every array inside a
larger buffer of the fill, whose tail must stay the fill; the path each program compiles to checked against its
table entry.  Then two programs at larger ragged sizes against torch (float64): f16 scores with a bf16 ``P @ V``
(head dim 128, 1000 queries; the chained kernel with each dot's own type, new in this sweep) and GQA with the KV head
``h * HKV // H``.  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep32_gpu.py``."""

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

import sweep_harness  # noqa: E402
import test_user_sweep32_emulated as s32e  # noqa: E402
import test_user_sweep32_interp as s32  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import user_programs32 as up  # noqa: E402
from tileorch.testing.user_programs32 import PROGRAMS  # noqa: E402

CHAINED = {n for n, p in PROGRAMS.items() if p.path == "chained"}
GEMM = {n for n, p in PROGRAMS.items() if p.path == "gemm"}
SIMT = {n: p for n, p in PROGRAMS.items() if p.path == "simt"}


def _gpu_run(name, inputs, program=None):
    """sweep_harness.gpu_run (which checks the path the launch ran, not only the compile's: a tier program whose
    launch fell back to the SIMT path fails there; this file checked that on its own in session 40)."""
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs)


def test_every_program_has_a_test():
    import inspect

    source = inspect.getsource(s32)
    assert all(f'run("{n}"' in source for n in SIMT), [n for n in SIMT if f'run("{n}"' not in source]
    assert set(s32e.CASES) == GEMM and set(s32e.ATTENTION_CASES) == CHAINED


@pytest.mark.parametrize("test", sorted(n for n in dir(s32) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s32, "run", _gpu_run)
    s32.every_case(getattr(s32, test))


@pytest.mark.parametrize("case", sorted(s32e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s32e, "emulate", lambda name, inputs: _gpu_run(name, inputs))
    s32e.CASES[case]()


@pytest.mark.parametrize("name", sorted(CHAINED))
def test_chained_program_on_the_gpu(name):
    s32e.run_attention_case(name, lambda n, inputs: _gpu_run(n, inputs))


def _cdiv(a, b):
    return -(-a // b)


def test_f16_scores_bf16_pv_at_size_against_torch():
    """2 x 4 heads x 1000 queries and keys (ragged: 16 tiles of 64, the last of 40), head dim 128, Q / K f16, V
    bf16, f32 out: the chained kernel with an f16 first dot and a bf16 second dot."""
    bh, s, d = 8, 1000, 128
    q, k = (torch.randn(bh, s, d, device="cuda", generator=_gen(3201 + i)).half() for i in range(2))
    v = torch.randn(bh, s, d, device="cuda", generator=_gen(3203)).bfloat16()
    o = torch.full((bh, s, d), float("nan"), device="cuda")
    _launch((_cdiv(s, 64), bh), up.attn_f16_scores_bf16_pv, (q, k, v, o, up.scale2(d), 64, 64, d))
    ref = torch.softmax((q.double() @ k.double().transpose(1, 2)) / math.sqrt(d), -1) @ v.double()
    torch.testing.assert_close(o.double(), ref, rtol=2e-2, atol=1e-2)


def test_gqa_kv_head_by_product_at_size_against_torch():
    """B = 2, 8 query heads over 2 KV heads (``h * HKV // H``), 1000 queries against 777 keys, head dim 64."""
    b, h, hkv, sq, sk, d = 2, 8, 2, 1000, 777, 64
    q = torch.randn(b, h, sq, d, device="cuda", generator=_gen(3205)).half()
    k, v = (torch.randn(b, hkv, sk, d, device="cuda", generator=_gen(3206 + i)).half() for i in range(2))
    o = torch.full((b, h, sq, d), float("nan"), device="cuda", dtype=torch.float16)
    _launch((_cdiv(sq, 64), h, b), up.attn_gqa_kv_head_by_product, (q, k, v, o, up.scale2(d), h, hkv, 64, 64, d))
    kk, vv = (x.double().repeat_interleave(h // hkv, dim=1) for x in (k, v))
    ref = torch.softmax((q.double() @ kk.transpose(2, 3)) / math.sqrt(d), -1) @ vv
    torch.testing.assert_close(o.double(), ref, rtol=1e-2, atol=1e-2)
