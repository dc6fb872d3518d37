"""Launch-time K-major copies are ordered with the launch stream's earlier work.

A tf32 / fp8 GEMM program with an N-major B (or an M-major A) runs on a K-major copy the launcher
makes at each launch.  Made through ``torch.cuda.ExternalStream(0)``, the copy ran unordered with
the default stream: under load on the H200 it read operands the default stream had not finished
writing (benchmarks/stress_launch_copies.py: stale copies in 2 of 3 launches, NaN or wrong output
columns, no error).  Here B is NaN until a slow kernel on the default stream (``torch.cuda._sleep``)
has run and B is written after it: a copy not ordered after that work reads NaN.  Against the fp32
reference, output pre-filled with NaN.  Skipped without a GPU (tests/gpu/conftest.py)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.testing.dot_programs import build, unwritten  # noqa: E402


@pytest.mark.parametrize("name", ["gemm_tf32_n_major_b", "gemm_fp8_e4m3_n_major_b", "gemm_fp8_e4m3_at"])
def test_k_major_copy_waits_for_the_streams_earlier_writes(name):
    kernel, args, grid, out, ref, _lib = build(name, 333, 200, 704, seed=5)
    operand = 0 if name.endswith("_at") else 1
    src = args[operand]
    true = src.clone()
    for trial in range(4):
        out.fill_(float("nan"))
        src.copy_(torch.full_like(true.float(), float("nan")).to(true.dtype))
        torch.cuda._sleep(20_000_000)  # ~10 ms of the default stream before the operand is written
        src.copy_(true)
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
        torch.cuda.synchronize()
        assert not unwritten(out).any(), f"trial {trial}: NaN / unwritten output columns (a stale copy)"
        err = float((out.float() - ref).norm() / ref.norm())
        assert err < 5e-3, f"trial {trial}: relative error {err:.2e}"
