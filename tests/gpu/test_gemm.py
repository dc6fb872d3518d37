"""The TMA + WGMMA GEMM on the GPU against an independent reference (torch fp32 matmul of the
same bf16/fp16 inputs): every shape of the suite for each schedule, ragged and tiny shapes,
both B layouts, fp16, f32 output.  Outputs are pre-filled with NaN so an unwritten element
fails; inputs are fresh random normals per case.  Cubins come from the cache
(``TILEORCH_CACHE_DIR``; ``python benchmarks/gemm.py build --variants all`` fills it)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from tileorch.kernels.gemm.config import GemmConfig  # noqa: E402

SUITE = [tuple(s) for s in json.loads((Path(__file__).resolve().parents[2] / "benchmarks" / "gemm_shape_suite.json").read_text())["shapes"]]
RAGGED = [(1000, 1000, 1000), (300, 520, 72), (129, 264, 16), (8, 8, 8), (1, 256, 64), (4097, 1032, 1048), (128, 256, 16)]
BASE = GemmConfig()
SCHEDULES = {"persistent": BASE, "streamk": replace(BASE, schedule="streamk"), "dp": replace(BASE, schedule="dp")}
OTHERS = {
    "n128": replace(BASE, tile_n=128, stages=6),
    "bn": replace(BASE, b_major="n"),
    "bn_streamk": replace(BASE, b_major="n", schedule="streamk"),
    "f16": replace(BASE, dtype="f16", out_dtype="f16"),
    "f32out": replace(BASE, out_dtype="f32", epilogue="direct"),
    "c1": replace(BASE, cluster_m=1),
    "direct": replace(BASE, epilogue="direct"),
}


def _check(m, n, k, cfg, seed):
    import tileorch

    dt = torch.bfloat16 if cfg.dtype == "bf16" else torch.float16
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((m, k), device="cuda", dtype=dt, generator=g)
    b = (torch.randn((n, k), device="cuda", dtype=dt, generator=g).t() if cfg.b_major == "k"
         else torch.randn((k, n), device="cuda", dtype=dt, generator=g))
    out_dt = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[cfg.out_dtype]
    out = torch.full((m, n), float("nan"), device="cuda", dtype=out_dt)
    tileorch.gemm(a, b, out, config=cfg)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    assert torch.isfinite(out).all(), "unwritten (NaN) or non-finite outputs"
    err = float((out.float() - ref).norm() / ref.norm())
    tol = 1e-5 if cfg.out_dtype == "f32" else 1e-2
    assert err < tol, f"relative error {err:.3e}"


@pytest.mark.parametrize("schedule", list(SCHEDULES))
@pytest.mark.parametrize("shape", SUITE + RAGGED, ids=lambda s: "x".join(map(str, s)))
def test_gemm_schedules(shape, schedule):
    _check(*shape, SCHEDULES[schedule], seed=hash((shape, schedule)) % 1000)


@pytest.mark.parametrize("variant", list(OTHERS))
@pytest.mark.parametrize("shape", [(2016, 2176, 8192), (1000, 1000, 1000), (300, 520, 72), (8, 8, 8)],
                         ids=lambda s: "x".join(map(str, s)))
def test_gemm_variants(shape, variant):
    _check(*shape, OTHERS[variant], seed=7)


def test_auto_schedule_matches_reference():
    import tileorch

    for m, n, k in [(2016, 2176, 8192), (2432, 1792, 1024), (512, 512, 512)]:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        out = tileorch.gemm(a, b)
        torch.cuda.synchronize()
        ref = a.float() @ b.float()
        assert float((out.float() - ref).norm() / ref.norm()) < 1e-2


def test_bad_inputs_are_refused():
    import tileorch

    a = torch.randn(64, 64, device="cuda", dtype=torch.float32)
    with pytest.raises(TypeError, match="must both be bf16 or both fp16"):
        tileorch.gemm(a, a)
    a = torch.randn(64, 12, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="inner dimensions"):
        tileorch.gemm(a, a)
    # an unknown schedule is refused as an argument before any configuration (cc9e474f: a ValueError naming
    # the choices; this test still expected the builder's GemmConfigError, H100 session 27)
    with pytest.raises(ValueError, match="schedule must be one of"):
        tileorch.gemm(a, a.t().contiguous(), schedule="nope")
    sq = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    for out, name in ((sq, "a"), (b, "b")):  # in place: the kernel would read what it has overwritten
        with pytest.raises(ValueError, match=f"out overlaps {name}"):
            tileorch.gemm(sq, b, out=out)
    tileorch.gemm(sq, b)  # resolved and bound for separate tensors; then the same shapes with out = a
    with pytest.raises(ValueError, match="out overlaps a"):
        tileorch.gemm(sq, b, out=sq)


@pytest.mark.parametrize("m, n, k", [(64, 64, 12), (200, 260, 700), (130, 72, 66)])
def test_row_strides_tma_cannot_take_are_staged(m, n, k):
    """K = 700 in bf16 (1400-byte rows), N = 260 (520-byte C rows): padded copies, a
    PerformanceWarning naming the operand, and the right product."""
    import tileorch
    from tileorch.diagnostics import PerformanceWarning

    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    with pytest.warns(PerformanceWarning, match="row stride"):
        tileorch.gemm(a, b, out=out)
    torch.cuda.synchronize()
    torch.testing.assert_close(out.float(), a.float() @ b.float(), atol=0.15, rtol=3e-2)


@pytest.mark.parametrize("m, n, k", [(256, 512, 128), (1000, 264, 72)])
def test_transposed_a_view_is_an_m_major_operand(m, n, k):
    import tileorch

    at = torch.randn(k, m, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    out = tileorch.gemm(at.t(), b)
    torch.cuda.synchronize()
    torch.testing.assert_close(out.float(), at.float().t() @ b.float(), atol=5e-2, rtol=2e-2)


@pytest.mark.parametrize("schedule", ["persistent", "streamk"])
def test_repeated_calls_on_two_streams(schedule):
    """tileorch.gemm's bound launches (one launch configuration per stream handle): the same
    problem called again and again, alternating between the current stream and a side stream,
    A changed in place between calls, outputs NaN-filled (a new one every third call, the bound
    pointers otherwise), each against torch fp32."""
    import tileorch

    m, n, k = 1000, 1000, 1024
    g = torch.Generator(device="cuda").manual_seed(22)
    a = torch.randn((m, k), device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn((k, n), device="cuda", dtype=torch.bfloat16, generator=g)
    kept = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
    side = torch.cuda.Stream()
    cfg = replace(BASE, schedule=schedule)
    for i in range(9):
        stream = side if i % 2 else torch.cuda.current_stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            a.mul_(-1.0)
            out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16) if i % 3 == 0 \
                else kept.fill_(float("nan"))
            tileorch.gemm(a, b, out, config=cfg)
            ref = a.float() @ b.float()
        stream.synchronize()
        assert torch.isfinite(out).all(), f"call {i}: unwritten (NaN) or non-finite outputs"
        err = float((out.float() - ref).norm() / ref.norm())
        assert err < 1e-2, f"call {i}: relative error {err:.3e}"
