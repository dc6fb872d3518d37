"""K-indexed vectors of a computed operand TMA-loaded by the producer into each pipeline stage (session 41,
``tileas/k_vector_tma.py``, the default) on the GPU: an RMSNorm weight on A (``a * gamma[k]``; staged A, register A
with ``registers``), B scaled per K row, W8A16 group scales; ragged M, N and K (K = 700, 72: the vector's last box
past its end, TMA's zero fill), more work tiles than SMs; against torch fp32 references with NaN-prefilled
outputs.  The remark must say the vectors are TMA-loaded.
Run: ``python -m pytest -q tests/gpu/test_k_vector_tma_gpu.py``."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

from computed_operand_gpu import f16, gen, launch, rel  # noqa: E402
from tileorch.testing.computed_b_programs import a_times_gamma, b_times_k_row_vector, w8a16_group_scale  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)

SHAPES = [(1000, 520, 384), (129, 264, 72), (333, 200, 700), (4096, 4096, 1024)]


@pytest.fixture(autouse=True, params=["", "registers", "pairs,rows"])
def _switch(monkeypatch, request):
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", request.param)


def _launch(kernel, args, tiles, m, n, extra=(), k_vectors=True):
    launch(kernel, args, tiles, m, n, extra, "indexed by the K tile TMA-loaded by the producer" if k_vectors else None)


@pytest.mark.parametrize("tiles", [(128, 128, 64), (64, 64, 64)], ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_a_times_gamma_tma(shape, tiles):
    m, n, k = shape
    g = gen(31 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    gamma = (torch.rand(k, device="cuda", generator=g) + 0.5).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(a_times_gamma, (a, gamma, b, c), tiles, m, n)
    assert rel(c, (a * gamma[None, :]).float() @ b.float()) < 1e-3


@pytest.mark.parametrize("shape", SHAPES[:3], ids=str)
def test_b_times_k_row_vector_tma(shape):
    m, n, k = shape
    g = gen(41 * m + n + k)
    a = torch.randn(m, k, device="cuda", generator=g).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    r = (torch.rand(k, device="cuda", generator=g) + 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(b_times_k_row_vector, (a, b, r, c), (128, 128, 64), m, n)
    assert rel(c, a.float() @ (b * r[:, None]).float()) < 1e-3


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_w8a16_group_scales_tma(shape):
    m, n, k = shape
    g = gen(17 * m + n + k)
    a = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    w = torch.randint(-128, 128, (k, n), device="cuda", generator=g, dtype=torch.int32).to(torch.int8)
    s = torch.rand((k + 127) // 128, n, device="cuda", generator=g) * 1e-2 + 5e-3
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
    _launch(w8a16_group_scale, (a, w, s, c), (128, 128, 64), m, n, (128,))
    ref = a.float() @ f16(w.float() * s.repeat_interleave(128, 0)[:k])
    assert rel(c, ref) < 1e-3
