"""A dot operand B computed in the K loop (``GemmConfig.b_raw``: the raw tile TMA-loaded, the consumer
warp groups computing the WGMMA's B tile) on the H200, against torch fp32 references: W8A16 with the
weight ``[N, K]`` and ``[K, N]`` on several tiles (one and two consumer warp groups, 64 to 256
columns), a zero point, a bf16 B scaled by a launch-time scalar (bf16 WGMMA: not emulated on the
CPU) and an e4m3 weight upcast to bf16 / f16.  Ragged shapes: a partial last tile in M, N and K (TMA zero fill of the raw tile), K = 700 (the
int8 rows staged by the host: 700 bytes is not a multiple of 16).  Each program must take the tensor-core
path.  Run: ``python -m pytest -q tests/gpu/test_computed_b_gpu.py``."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.computed_b_programs import (b_times_scalar, fp8_b_upcast, w8a16_batched_shared_weight,  # noqa: E402
                                                  w8a16_linear, w8a16_zero_point)

if not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)

SHAPES = [(1000, 520, 384), (129, 264, 72), (333, 200, 700), (256, 512, 1024)]


def _gen(seed):
    return torch.Generator(device="cuda").manual_seed(seed)


def _launch(kernel, args, tiles, m, n, batch=1):
    tm, tn, _ = tiles
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn, batch)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, (*args, *tiles))
    torch.cuda.synchronize()
    program = rc.compiled(kernel, rc.describe_arguments(kernel, (*args, *tiles)), "sm_90a", "persistent").program
    assert program.kind == "gemm", program.remarks
    assert any("computed in the K loop" in r for r in program.remarks), program.remarks


def _rel(out, ref):
    assert not torch.isnan(out).any(), "unwritten outputs"
    return float((out.float() - ref).abs().max() / ref.abs().max())


@pytest.mark.parametrize("tiles", [(128, 128, 64), (64, 64, 64), (128, 256, 64), (64, 128, 64)], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_w8a16_linear(shape, tiles):
    m, n, k = shape
    g = _gen(m + n + k)
    x = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    w = torch.randint(-128, 128, (n, k), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    s = torch.rand(n, device="cuda", generator=g) * 1e-2 + 5e-3
    y = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    _launch(w8a16_linear, (x, w, s, y), tiles, m, n)
    assert _rel(y, (x.float() @ w.float().t()) * s[None, :]) < 2e-3


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_w8a16_kn_zero_point(shape):
    m, n, k = shape
    g = _gen(m * n + k)
    a = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    w = torch.randint(-128, 128, (k, n), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(w8a16_zero_point, (a, w, c), (128, 128, 64), m, n)
    assert _rel(c, a.float() @ (w.float() - 3.0)) < 1e-4


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("shape", SHAPES[:2], ids=str)
def test_b_times_scalar(shape, dtype):
    m, n, k = shape
    g = _gen(m + 7 * n + k)
    a = torch.randn(m, k, device="cuda", generator=g).to(dtype)
    b = torch.randn(k, n, device="cuda", generator=g).to(dtype)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(b_times_scalar, (a, b, c, 0.3), (128, 128, 64), m, n)
    ref = a.float() @ (b.float() * 0.3).to(dtype).float()
    assert _rel(c, ref) < 1e-4


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("shape", SHAPES[:3], ids=str)
def test_fp8_b_upcast(shape, dtype):
    m, n, k = shape
    g = _gen(3 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).to(dtype)
    b = (torch.randn(n, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(fp8_b_upcast, (a, b, c), (128, 128, 64), m, n)
    assert _rel(c, a.float() @ b.float().t()) < 1e-4


@pytest.mark.parametrize("shape", SHAPES[:3], ids=str)
def test_w8a16_batched_activations_one_weight(shape):
    m, n, k = shape
    g = _gen(5 * m + n + k)
    x = (torch.randn(3, m, k, device="cuda", generator=g) * 0.5).half()
    w = torch.randint(-128, 128, (n, k), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    y = torch.full((3, m, n), float("nan"), device="cuda", dtype=torch.float16)
    _launch(w8a16_batched_shared_weight, (x, w, y), (128, 128, 64), m, n, batch=3)
    assert _rel(y, x.float() @ w.float().t()) < 2e-3
