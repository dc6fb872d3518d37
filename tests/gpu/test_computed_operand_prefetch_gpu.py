"""``TILEORCH_COMPUTED_OPERAND=prefetch`` on the H200 (session 22): a computed operand's K-indexed vectors
loaded one K step ahead (``tileas/prefetch_k_vectors.py``), against torch fp32 references with NaN-prefilled
outputs: an RMSNorm weight on A (``a * gamma[k]``, tiles 128x128 and 64x64), B scaled per K row, W8A16
group scales; ragged M, N and K (K = 700: the last K tile partial, the prefetch past K reading padding),
more work tiles than SMs (persistent loop: the carry restarts per work tile); each also with ``pairs``
(f16 values of the operand's type packed as bits) and with ``rows`` (each consumer warp group computes
its own 64 A rows behind its own barrier: relu(a) and int8 activations too).  The remark must name the
prefetch where the program has K-indexed vectors.  Run: ``python -m pytest -q tests/gpu/test_computed_operand_prefetch_gpu.py``."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

from computed_operand_gpu import f16, gen, launch, rel  # noqa: E402
from tileorch.testing.computed_b_programs import (a8_dequant, a_times_gamma, b_times_k_row_vector, relu_a,  # noqa: E402
                                                  w8a16_group_scale)

if not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)

SHAPES = [(1000, 520, 384), (129, 264, 72), (333, 200, 700), (4096, 4096, 1024)]


@pytest.fixture(autouse=True, params=["prefetch", "prefetch,pairs", "prefetch,pairs,rows"])
def _prefetch(monkeypatch, request):
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", request.param)


def _launch(kernel, args, tiles, m, n, extra=(), k_vectors=True):
    launch(kernel, args, tiles, m, n, extra, "one K step ahead" if k_vectors else None)


@pytest.mark.parametrize("tiles", [(128, 128, 64), (64, 64, 64)], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_a_times_gamma_prefetched(shape, tiles):
    m, n, k = shape
    g = gen(31 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    gamma = (torch.rand(k, device="cuda", generator=g) + 0.5).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(a_times_gamma, (a, gamma, b, c), tiles, m, n)
    assert rel(c, (a * gamma[None, :]).float() @ b.float()) < 1e-3


@pytest.mark.parametrize("shape", SHAPES[:3], ids=str)
def test_b_times_k_row_vector_prefetched(shape):
    m, n, k = shape
    g = gen(41 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    r = (torch.rand(k, device="cuda", generator=g) + 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(b_times_k_row_vector, (a, b, r, c), (128, 128, 64), m, n)
    assert rel(c, a.float() @ (b * r[:, None]).float()) < 1e-3


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_w8a16_group_scales_prefetched(shape):
    m, n, k = shape
    g = gen(17 * m + n + k)
    a = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    w = torch.randint(-128, 128, (k, n), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    s = torch.rand((k + 127) // 128, n, device="cuda", generator=g) * 1e-2 + 5e-3
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(w8a16_group_scale, (a, w, s, c), (128, 128, 64), m, n, (128,))
    ref = a.float() @ f16(w.float() * s.repeat_interleave(128, 0)[:k])
    assert rel(c, ref) < 1e-3


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_relu_a_and_int8_activations(shape):
    """Computed As without vectors (``rows`` changes them: two consumer warp groups at 128x128)."""
    m, n, k = shape
    g = gen(53 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(relu_a, (a, b, c), (128, 128, 64), m, n, k_vectors=False)
    assert rel(c, torch.relu(a.float()) @ b.float()) < 1e-3
    q = torch.randint(-128, 128, (m, k), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(a8_dequant, (q, b, c, 0.02), (128, 128, 64), m, n, k_vectors=False)
    assert rel(c, f16(q.float() * 0.02) @ b.float()) < 1e-3
