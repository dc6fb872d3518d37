"""The twenty-sixth user sweep on the GPU: every program of ``tileorch.testing.user_programs26`` runs through
``tileorch.cutile.launch`` on its spec's ragged shapes and grid, against the independent numpy references of
tests/unit/test_user_sweep26_interp.py (the SIMT programs) and tests/unit/test_user_sweep26_emulated.py (the
tier's GEMMs), each with its ``run`` / ``emulate`` swapped for sweep_harness.gpu_run: every array inside a larger
buffer of the fill, whose tail must stay the fill; the path each program compiles to checked against its table
entry.  Then what the emulator cannot run -- the batched GEMM whose B is broadcast by a stride-0 batch axis (the
launch runs it on the SIMT path after a warning naming why) -- the MoE combine with fewer tokens than GEMM rows
(the same: a launch warning, then the right sums) and two GEMMs at larger ragged sizes against torch (the
implicit-GEMM convolution, the K loop of zero trips next to one of many).  Skipped without a GPU; needs torch,
cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_user_sweep26_gpu.py``."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
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
import test_user_sweep26_emulated as s26e  # noqa: E402
import test_user_sweep26_interp as s26  # noqa: E402
from sweep_harness import generator as _gen  # noqa: E402
from sweep_harness import launch as _launch  # noqa: E402

from tileorch.testing import user_programs26 as up  # noqa: E402
from tileorch.testing.user_programs26 import PROGRAMS  # noqa: E402



LAUNCH_RUNS_SIMT: set = set()  # session 42: bmm_b_broadcast_by_zero_batch_stride runs on the tier (B broadcast by a batch stride of 0: the b_shared kernel reads its one matrix at batch 0)
"""Tier programs whose launch on their spec's arrays runs the SIMT path by design, with a PerformanceWarning saying
why (none since session 42; before, a B broadcast by a batch stride of 0: the batched WGMMA GEMM's tensor maps need contiguous matrices); the
harness checks that the launch ran exactly that path (sweep_harness.gpu_run's ``ran``)."""


RESIZED_RUNS_SIMT = {"moe_combine_weighted_atomic_add"}
"""Tier programs whose RESIZED launch (a test's ``program=``, ``sweep.resized``) runs the SIMT path by design: the MoE
combine with fewer tokens (Y's rows) than GEMM rows (the tier's launch needs C of the GEMM's M rows: "GEMM shapes do
not agree", a PerformanceWarning; test_moe_combine_fewer_tokens_than_rows below checks the warning)."""


def _gpu_run(name, inputs, program=None):
    simt = name in LAUNCH_RUNS_SIMT or (program is not None and name in RESIZED_RUNS_SIMT)
    return sweep_harness.gpu_run(PROGRAMS if program is None else {**PROGRAMS, name: program}, name, inputs,
                                 ran="simt" if simt else None)


def test_every_program_has_a_test():
    """Whatever its path (the launcher picks it here): a test of test_user_sweep26_interp.py or a case of the emulated
    file (tests/unit/sweep_paths.py; moving a program between the tier and the SIMT path edits its table entry only)."""
    import sweep_paths

    assert not sweep_paths.untested(PROGRAMS, s26, s26e, cases=(s26e.CASES,))


@pytest.mark.parametrize("test", sorted(n for n in dir(s26) if n.startswith("test_")))
def test_on_the_gpu_against_numpy(test, monkeypatch):
    monkeypatch.setattr(s26, "run", _gpu_run)
    s26.every_case(getattr(s26, test))


@pytest.mark.parametrize("case", sorted(s26e.CASES))
def test_tier_case_on_the_gpu(case, monkeypatch):
    monkeypatch.setattr(s26e, "emulate", lambda name, inputs: sweep_harness.gpu_run(PROGRAMS, name, inputs))
    s26e.CASES[case]()


RNG = np.random.default_rng(2628)


def _fresh():
    """Forget the launcher's compiled programs: its slow-path warning is said once per compiled program, and the
    CPU tests' twins above may have launched the same one in this process."""
    from tileorch.launchers import cutile as rc

    rc.clear_caches()


def test_bmm_b_broadcast_by_zero_batch_stride():
    """B = w.expand(3, K, N): a batch stride of 0, which no tensor map's batch dimension addresses; since session 42
    the launch runs the tier's ``b_shared`` kernel (one B matrix read at batch index 0 by every work tile) on the
    tensor cores (the harness checks the path the launch ran) and says so in a launch remark, no PerformanceWarning."""
    from tileorch.diagnostics import PerformanceWarning

    a = RNG.standard_normal((3, 70, 64)).astype(np.float16)
    w = (RNG.standard_normal((64, 72)) * 0.5).astype(np.float16)
    _fresh()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = sweep_harness.gpu_run(PROGRAMS, "bmm_b_broadcast_by_zero_batch_stride",
                                    {0: a, 1: np.broadcast_to(w, (3, 64, 72))})[2]
    assert not [c for c in caught if issubclass(c.category, PerformanceWarning)], [str(c.message) for c in caught]
    ref = np.einsum("lmk,kn->lmn", a.astype(np.float64), w.astype(np.float64))
    np.testing.assert_allclose(out, ref, rtol=2e-3, atol=2e-2)


def test_moe_combine_fewer_tokens_than_rows():
    """128 sorted rows combined into 50 tokens: the tier's launch needs C of the GEMM's M rows, so the SIMT path
    runs it after a warning; every token's sum of its gated rows."""
    x = torch.randn(128, 64, device="cuda", generator=_gen(2621), dtype=torch.float16)
    w = torch.randn(64, 96, device="cuda", generator=_gen(2622), dtype=torch.float16) * 0.5
    tok = torch.randint(0, 50, (128,), device="cuda", generator=_gen(2623), dtype=torch.int32)
    tok[::7] = -1
    gate = torch.rand(128, device="cuda", generator=_gen(2624))
    y = torch.zeros(50, 96, device="cuda")
    _fresh()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _launch((2, 2), up.moe_combine_weighted_atomic_add, (x, w, tok, gate, y, 64, 64, 32))
    assert any("GEMM shapes do not agree" in str(c.message) for c in caught), [str(c.message) for c in caught]
    keep = tok >= 0
    ref = torch.zeros(50, 96, device="cuda", dtype=torch.float64)
    ref.index_add_(0, tok[keep].long(), (x.double() @ w.double())[keep] * gate[keep, None].double())
    torch.testing.assert_close(y.double(), ref, rtol=1e-3, atol=1e-2)


def test_conv2d_implicit_gemm_at_size_against_torch():
    """A 3 x 3 convolution of a 40 x 56 image, 64 channels in, 128 out (NHWC, batch 1) on the tier's gathered-A
    implicit GEMM, against ``torch.nn.functional.conv2d``."""
    h, w_, cin, cout = 40, 56, 64, 128
    x = torch.randn(h, w_, cin, device="cuda", generator=_gen(2625), dtype=torch.float16)
    wt = torch.randn(3, 3, cin, cout, device="cuda", generator=_gen(2626), dtype=torch.float16) * 0.1
    y = torch.full((h * w_, cout), float("nan"), device="cuda")
    _launch((-(-h * w_ // 64), cout // 64), up.conv2d_implicit_gemm_im2col_gather,
            (x, wt.reshape(9 * cin, cout), y, h, w_, cin, 64, 64, 32))
    ref = torch.nn.functional.conv2d(x.double().permute(2, 0, 1)[None], wt.double().permute(3, 2, 0, 1), padding=1)
    torch.testing.assert_close(y.double(), ref[0].permute(1, 2, 0).reshape(h * w_, cout), rtol=1e-3, atol=2e-2)


def test_k_tiles_zero_and_many_against_torch():
    """The same compiled program with 0 and with all 16 K tiles: the bias alone, then the full product."""
    m, n, k = 300, 200, 512
    a = torch.randn(m, k, device="cuda", generator=_gen(2627), dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", generator=_gen(2628), dtype=torch.float16)
    bias = torch.randn(n, device="cuda", generator=_gen(2629))
    for tiles, ref in ((0, bias.expand(m, n)), (k // 32, a.double().mm(b.double()).float() + bias)):
        c = torch.full((m, n), float("nan"), device="cuda")
        _launch((-(-m // 64), -(-n // 64)), up.gemm_k_tiles_argument_zero, (a, b, bias, c, tiles, 64, 64, 32))
        torch.testing.assert_close(c, ref, rtol=1e-3, atol=5e-2)
