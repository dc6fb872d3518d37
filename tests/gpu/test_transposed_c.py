"""The accumulator stored transposed on the tier's WGMMA kernel, on an H200, against torch fp32
references: C passed column-major (``torch.empty(N, M).t()``), ``ct.transpose(acc)`` stored at
``(bn, bm)`` into C ``[N, M]``, and bias + relu + cast then ``ct.permute``; f16 and bf16, ragged
M/N/K, NaN-prefilled outputs, the program's tiles and the launcher's (retiled), persistent and
Stream-K schedules.  Every program must take the tensor-core path (``kind == "gemm"``,
``c_transposed``) and write nothing outside C.  Skipped without a GPU (tests/gpu/conftest.py)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing import dot_programs as dp  # noqa: E402

NAMES = ["gemm_store_transposed_f16", "gemm_store_transposed_bf16", "gemm_bias_relu_store_permuted_f16",
         "gemm_bias_relu_store_permuted_bf16", "gemm_c_column_major_f16", "gemm_c_column_major_bf16"]
SHAPES = [(1000, 520, 384), (129, 264, 72), (333, 200, 700), (256, 256, 64), (77, 1030, 136)]
TOL = {torch.float16: dict(atol=5e-2, rtol=2e-2), torch.bfloat16: dict(atol=1.5e-1, rtol=3e-2)}


def _run(name, shape, tiles="auto", schedule="auto"):
    m, n, k = shape
    kernel, args, grid, out, ref, _lib = dp.build(name, m, n, k, seed=m + 3 * n + k)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args, tiles=tiles, schedule=schedule)
    torch.cuda.synchronize()
    assert not torch.isnan(out).any(), f"{int(torch.isnan(out).sum())} unwritten (NaN pre-filled) elements"
    torch.testing.assert_close(out.float(), ref, **TOL[out.dtype])
    program = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent").program
    assert program.kind == "gemm", f"{name} left the tensor-core path: {program.remarks}"
    assert program.gemm_config.c_transposed


@pytest.mark.parametrize("tiles", ["auto", "program"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", NAMES)
def test_transposed_c_matches_torch(name, shape, tiles):
    _run(name, shape, tiles)


@pytest.mark.parametrize("schedule", ["persistent", "streamk", "dp"])
@pytest.mark.parametrize("name", ["gemm_store_transposed_f16", "gemm_bias_relu_store_permuted_bf16",
                                  "gemm_c_column_major_f16"])
def test_transposed_c_schedules(name, schedule):
    _run(name, (1000, 520, 1000), "program", schedule)


@pytest.mark.parametrize("column_major", [False, True])
def test_transposed_c_writes_nothing_outside_c(column_major):
    """C ``[N, M]`` at the front of a NaN-filled buffer: the elements after it stay NaN (the
    predicated stores stop at the array's bounds)."""
    m, n, k = 129, 72, 64
    g = torch.Generator(device="cuda").manual_seed(7)
    a = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    buf = torch.full((n * m + 4096,), float("nan"), device="cuda", dtype=torch.float16)
    ct_ = buf[:n * m].view(n, m)
    if column_major:
        kernel, c = dp.gemm, ct_.t()
        grid = ((m + 127) // 128, (n + 127) // 128, 1)
    else:
        kernel, c = dp.gemm_store_transposed, ct_
        grid = ((m + 127) // 128, (n + 127) // 128, 1)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, (a, b, c, 128, 128, 64), tiles="program")
    torch.cuda.synchronize()
    assert torch.isnan(buf[n * m:]).all(), "stores past the end of C"
    torch.testing.assert_close(ct_.float(), (a.float() @ b.float()).t(), **TOL[torch.float16])
