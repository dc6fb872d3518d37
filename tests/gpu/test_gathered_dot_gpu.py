"""Dots whose operand rows are gathered (``tileorch.testing.gathered_dot_programs``) on the GPU: every program
through ``tileorch.cutile.launch`` on its spec's ragged shapes and grid against the numpy references of
tests/unit/test_gathered_dot_interp.py (each test there with its ``run`` swapped for the sweep harness's
``gpu_run``: arrays inside larger buffers of NaN / a sentinel whose tails must stay the fill, outputs
NaN-prefilled); then the MoE program at a larger size against torch fp32 (``index_select`` + one matmul per
expert), every output written.  Skipped without a GPU; needs torch, cuda-tile and ml_dtypes.
Run: ``python -m pytest -q tests/gpu/test_gathered_dot_gpu.py``."""

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
import test_gathered_dot_interp as refs  # noqa: E402

import tileorch.cutile  # noqa: E402
from tileorch.testing.gathered_dot_programs import PROGRAMS, moe_gathered_rows_expert_table, moe_routing  # noqa: E402

test_every_program_has_a_test, test_on_the_gpu_against_numpy = sweep_harness.numpy_reference_tests(PROGRAMS, refs)


def test_moe_sorted_tokens_against_torch():
    """1000 tokens (ragged), K = 320 (five K tiles), N = 200 (a ragged column tile), 4 experts, top-2 routing:
    the rows of each expert padded to the 64-row tile with token 0, the tile's expert from the table."""
    g = torch.Generator(device="cuda").manual_seed(2525)
    tokens, k, n, experts = 1000, 320, 200, 4
    x = torch.randn(tokens, k, device="cuda", generator=g).half()
    w = (torch.randn(experts, k, n, device="cuda", generator=g) / k ** 0.5).half()
    route = torch.randint(0, experts, (tokens, 2), device="cuda", generator=g)
    tok, te, _ = moe_routing(route, experts, 64, generator=g)  # out of order within each expert
    y = torch.full((tok.numel(), n), float("nan"), device="cuda", dtype=torch.float16)
    tileorch.cutile.launch(torch.cuda.current_stream(), (tok.numel() // 64, -(-n // 64), 1),
                           moe_gathered_rows_expert_table, (x, tok, te, w, y, 64, 64, 64))
    torch.cuda.synchronize()
    ref = x[tok.long()].float()
    ref = torch.cat([ref[64 * t:64 * t + 64] @ w[e].float() for t, e in enumerate(te.tolist())])
    assert not torch.isnan(y).any()
    torch.testing.assert_close(y.float(), ref, atol=2e-2, rtol=2e-2)
