"""A dot operand B computed in the K loop (``GemmConfig.b_raw``: the raw tile TMA-loaded, the consumer
warp groups computing the WGMMA's B tile) on the H200, against torch fp32 references: W8A16 with the
weight ``[N, K]`` and ``[K, N]`` on several tiles (one and two consumer warp groups, 64 to 256
columns), a zero point, a bf16 B scaled by a launch-time scalar (bf16 WGMMA: not emulated on the
CPU) and an e4m3 weight upcast to bf16 / f16.  Ragged shapes: a partial last tile in M, N and K (TMA zero fill of the raw tile), K = 700 (the
int8 rows staged by the host: 700 bytes is not a multiple of 16).  Session 17: B with vectors (a per-output-
channel scale before the loop, a per-K-row vector and group-wise scales in the loop) and a computed A (relu,
int8 activations dequantized, an RMSNorm weight per K, A and B both computed).  Each program must take the
tensor-core path.  Run: ``python -m pytest -q tests/gpu/test_computed_b_gpu.py``."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.computed_b_programs import (a8_dequant, a_and_b_computed, a_times_gamma,  # noqa: E402
                                                  b_times_k_row_vector, b_times_scalar, fp8_b_upcast, relu_a,
                                                  w8a16_batched_shared_weight, w8a16_channel_scale_kn,
                                                  w8a16_channel_scale_nk, w8a16_group_scale, w8a16_linear,
                                                  w8a16_zero_point)

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


def _f16(x):
    return x.half().float()


@pytest.mark.parametrize("tiles", [(128, 128, 64), (64, 64, 64), (128, 256, 64)], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_w8a16_channel_scale_k_major(shape, tiles):
    """nn.Linear int8 ``W [N, K]`` times its f16 per-channel scale in the loop (f16 products)."""
    m, n, k = shape
    g = _gen(11 * m + n + k)
    x = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    w = torch.randint(-128, 128, (n, k), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    s = (torch.rand(n, device="cuda", generator=g) * 1e-2 + 5e-3).half()
    y = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    _launch(w8a16_channel_scale_nk, (x, w, s, y), tiles, m, n)
    assert _rel(y, x.float() @ (w.half() * s[:, None]).float().t()) < 2e-3


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_w8a16_channel_scale_n_major(shape):
    m, n, k = shape
    g = _gen(13 * m + n + k)
    a = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    w = torch.randint(-128, 128, (k, n), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    s = torch.rand(n, device="cuda", generator=g) * 1e-2 + 5e-3
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(w8a16_channel_scale_kn, (a, w, s, c), (128, 128, 64), m, n)
    assert _rel(c, a.float() @ _f16(w.float() * s[None, :])) < 1e-3


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_w8a16_group_scales(shape):
    """``S [ceil(K / 128), N]`` f32, the group's row loaded per K step (a ragged K: the last group short)."""
    m, n, k = shape
    g = _gen(17 * m + n + k)
    a = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    w = torch.randint(-128, 128, (k, n), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    s = torch.rand((k + 127) // 128, n, device="cuda", generator=g) * 1e-2 + 5e-3
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    tm, tn, tk = 128, 128, 64
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn, 1)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, w8a16_group_scale, (a, w, s, c, tm, tn, tk, 128))
    torch.cuda.synchronize()
    args = (a, w, s, c, tm, tn, tk, 128)
    program = rc.compiled(w8a16_group_scale, rc.describe_arguments(w8a16_group_scale, args), "sm_90a",
                          "persistent").program
    assert program.kind == "gemm", program.remarks
    ref = a.float() @ _f16(w.float() * s.repeat_interleave(128, 0)[:k])
    assert _rel(c, ref) < 1e-3


@pytest.mark.parametrize("shape", SHAPES[:3], ids=str)
def test_b_times_k_row_vector(shape):
    m, n, k = shape
    g = _gen(19 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    b = torch.randn(k, n, device="cuda", generator=g).half()
    r = (torch.rand(k, device="cuda", generator=g) + 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(b_times_k_row_vector, (a, b, r, c), (128, 128, 64), m, n)
    assert _rel(c, a.float() @ (b * r[:, None]).float()) < 1e-3


@pytest.mark.parametrize("tiles", [(128, 128, 64), (64, 64, 64)], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_relu_a(shape, tiles):
    m, n, k = shape
    g = _gen(23 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(relu_a, (a, b, c), tiles, m, n)
    assert _rel(c, torch.relu(a.float()) @ b.float()) < 1e-3


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_int8_activations_dequantized(shape):
    m, n, k = shape
    g = _gen(29 * m + n + k)
    a = torch.randint(-128, 128, (m, k), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(a8_dequant, (a, b, c, 0.02), (128, 128, 64), m, n)
    assert _rel(c, _f16(a.float() * 0.02) @ b.float()) < 1e-3


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_a_times_gamma_per_k(shape):
    m, n, k = shape
    g = _gen(31 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    gamma = (torch.rand(k, device="cuda", generator=g) + 0.5).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(a_times_gamma, (a, gamma, b, c), (128, 128, 64), m, n)
    assert _rel(c, (a * gamma[None, :]).float() @ b.float()) < 1e-3


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_a_and_b_computed(shape):
    m, n, k = shape
    g = _gen(37 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    w = torch.randint(-128, 128, (n, k), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    s = (torch.rand(n, device="cuda", generator=g) * 1e-2 + 5e-3).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(a_and_b_computed, (a, w, s, c), (128, 128, 64), m, n)
    assert _rel(c, torch.relu(a.float()) @ (w.half() * s[:, None]).float().t()) < 1e-3
