"""A dot's A operand computed in the K loop as WGMMA's register A (``tileas/register_a_operand.py``, the
default but for a K-indexed vector in A's map; ``TILEORCH_COMPUTED_OPERAND=registers`` for all here) and staged
(``TILEORCH_COMPUTED_OPERAND=staged``) on the GPU, against torch fp32 references with
NaN-prefilled outputs and ragged M, N, K: the RMSNorm weight folded into the next GEMM in f16 and bf16 (bf16
WGMMA is not emulated on the CPU), relu of A and int8 activations dequantized, one and two consumer warp groups.
The remark must name the path taken.  Run: ``python -m pytest -q tests/gpu/test_register_a_gpu.py``."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.computed_b_programs import a8_dequant, a_times_gamma, relu_a  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)

SHAPES = [(1000, 520, 384), (129, 264, 72), (333, 200, 700), (2048, 2048, 2048)]
# "registers": register A also for gamma[k] (a K-indexed vector in A's map, staged by default since session 26)
PATHS = {"registers": "WGMMA's register A operand: the producer", "staged": "not WGMMA's register A operand"}


@pytest.fixture(autouse=True, params=list(PATHS), ids=["register", "staged"])
def path(monkeypatch, request):
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", request.param)
    return request.param


def _launch(kernel, args, tiles, m, n, path):
    tm, tn, _ = tiles
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn, 1)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, (*args, *tiles))
    torch.cuda.synchronize()
    program = rc.compiled(kernel, rc.describe_arguments(kernel, (*args, *tiles)), "sm_90a", "persistent").program
    assert program.kind == "gemm", program.remarks
    (remark,) = [r for r in program.remarks if "dot operand A computed in the K loop" in r]
    assert PATHS[path] in remark, remark


def _rel(out, ref):
    assert not torch.isnan(out).any(), "unwritten outputs"
    return float((out.float() - ref).abs().max() / ref.abs().max())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["f16", "bf16"])
@pytest.mark.parametrize("tiles", [(128, 128, 64), (64, 64, 64)], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_a_times_gamma(shape, tiles, dtype, path):
    m, n, k = shape
    g = torch.Generator(device="cuda").manual_seed(41 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).to(dtype)
    gamma = (torch.rand(k, device="cuda", generator=g) + 0.5).to(dtype)
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).to(dtype)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(a_times_gamma, (a, gamma, b, c), tiles, m, n, path)
    tol = 1e-3 if dtype == torch.float16 else 8e-3
    assert _rel(c, (a * gamma[None, :]).float() @ b.float()) < tol


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_relu_a_and_int8_activations(shape, path):
    m, n, k = shape
    g = torch.Generator(device="cuda").manual_seed(43 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(relu_a, (a, b, c), (128, 128, 64), m, n, path)
    assert _rel(c, torch.relu(a.float()) @ b.float()) < 1e-3
    q = torch.randint(-128, 128, (m, k), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(a8_dequant, (q, b, c, 0.02), (128, 128, 64), m, n, path)
    assert _rel(c, (q.float() * 0.02).half().float() @ b.float()) < 1e-3
