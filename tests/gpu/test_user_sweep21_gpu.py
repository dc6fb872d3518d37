"""The twenty-first user sweep on the GPU (issue 21 item 1: fused kernels of real models without a
dot): every program of ``tileorch.testing.user_programs21`` (SIMT path) runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid, against the independent numpy
references of tests/unit/test_user_sweep21_interp.py: each test there runs again with its ``run``
swapped for sweep_harness.gpu_run (every array inside a larger buffer of the fill: NaN / an integer
sentinel / the fp8 NaN byte / the bool byte 2, whose tail must stay the fill; the outputs start as
the fill; the atomics' tables start as the test gives them).  Then a few kernels against torch on
larger ragged shapes (NaN-prefilled outputs): the MoE counts and slots under contention (100k ids
on 8 experts: counts against ``torch.bincount``, each expert's slots a permutation), the guarded
bincount at 1M ids, RMSNorm + residual + e4m3 with the amax by ``atomic_max`` over 4096 rows against
torch's ``rms_norm`` / ``amax``, the int8 rounding modes against ``torch.round`` / ``floor`` / ``ceil``
/ ``trunc`` at 4096 tokens.  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_user_sweep21_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
pytest.importorskip("ml_dtypes")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # the CPU tests' numpy references (appended: tests/gpu's modules come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402
import test_user_sweep21_interp as s21  # noqa: E402
from sweep_harness import filled as _fill  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import user_programs21 as up  # noqa: E402
from tileorch.testing.user_programs21 import PROGRAMS  # noqa: E402

test_every_program_has_a_test, test_on_the_gpu_against_numpy = sweep_harness.numpy_reference_tests(
    PROGRAMS, s21, s21.every_case)


def test_moe_counts_and_slots_under_contention():
    n = 100_003
    ids = torch.randint(-1, 8, (n,), device="cuda", generator=_gen(2101), dtype=torch.int32)
    count = torch.zeros(8, device="cuda", dtype=torch.int32)
    slot = _fill((n,), torch.int32)
    _launch((-(-n // 1024),), up.moe_expert_counts_and_slots, (ids, count, slot, 1024))
    live = ids >= 0
    assert torch.equal(count.long(), torch.bincount(ids[live].long(), minlength=8))
    assert bool((slot[~live] == -1).all())
    for e in range(8):
        mine = torch.sort(slot[ids == e]).values
        assert torch.equal(mine, torch.arange(mine.numel(), device="cuda", dtype=torch.int32)), e


def test_bincount_drops_bad_ids_at_1m():
    n, bins = 1_000_003, 1000
    ids = torch.randint(-50, bins + 50, (n,), device="cuda", generator=_gen(2102), dtype=torch.int32)
    h = torch.zeros(bins, device="cuda", dtype=torch.int32)
    _launch((-(-n // 1024),), up.bincount_drops_bad_ids, (ids, h, 1024))
    ok = (ids >= 0) & (ids < bins)
    assert torch.equal(h.long(), torch.bincount(ids[ok].long(), minlength=bins))


def test_rmsnorm_residual_fp8_amax_against_torch():
    t, d = 4096, 300
    x = torch.randn(t, d, device="cuda", generator=_gen(2103)).bfloat16()
    r = torch.randn(t, d, device="cuda", generator=_gen(2104)).bfloat16()
    w = torch.randn(d, device="cuda", generator=_gen(2105)) * 0.5
    h, q = _fill((t, d), torch.bfloat16), torch.full((t, d), 0x7F, device="cuda", dtype=torch.uint8)
    amax = torch.zeros(1, device="cuda", dtype=torch.int32)
    _launch((t,), up.rmsnorm_residual_fp8_quant_amax, (x, r, w, h, q.view(torch.float8_e4m3fn), amax, 0.5, 1e-6, 512))
    hh = (x.float() + r.float()).bfloat16()
    assert torch.equal(h, hh)
    y = torch.nn.functional.rms_norm(hh.double(), (d,), eps=1e-6) * w.double()
    torch.testing.assert_close(q.view(torch.float8_e4m3fn).double(), y * 0.5, rtol=0.07, atol=2.0 ** -9)
    torch.testing.assert_close(amax.view(torch.float32).double(), y.abs().max().reshape(1), rtol=1e-5, atol=0)


def test_int8_rounding_modes_against_torch():
    t, d = 4096, 200
    x = torch.randn(t, d, device="cuda", generator=_gen(2106)) * 3
    s = _fill((t,), torch.float32)
    outs = [_fill((t, d), torch.int8) for _ in range(5)]
    _launch((t,), up.int8_per_token_quant_rounding_modes, (x, s, *outs, 256))
    # (a tensor divisor: torch divides by a Python scalar as a multiplication by its reciprocal, 1 ulp
    # off IEEE division in 1.5% of the rows (H200, session 25); the program's ``/ 127.0`` is div.rn)
    amax = x.abs().amax(dim=1, keepdim=True).clamp_min(1e-8)
    scale = amax / torch.full_like(amax, 127.0)
    torch.testing.assert_close(s, scale[:, 0], rtol=1e-7, atol=0)
    y = x / scale
    away = torch.sign(y) * torch.floor(y.abs() + 0.5)
    for got, want in zip(outs, (torch.round(y), torch.trunc(y), torch.floor(y), torch.ceil(y), away)):
        assert torch.equal(got, want.clamp(-128, 127).to(torch.int8))
