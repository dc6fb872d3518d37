"""Dots on the SIMT path computed with warp-level ``mma.sync`` (transforms/tileaa_to_simt/mma.py),
on an H200 against torch fp32 references (exact for int8), outputs pre-filled with NaN (-2^31 for
int32): zoo programs forced onto the SIMT path (``schedule="simt"``: f16, bf16, tf32, e4m3, e5m2,
int8 and uint8 x int8, batched, fused epilogues, reductions, atomics), tiles smaller than the atoms
and ragged problems, an f16 accumulator, and programs the tensor-core tier refuses (a transposed C
beside a row sum, a transposed tile into a column-major C) in their natural schedule.  Each
compiled program must name ``mma.sync`` in its remarks and PTX.  Skipped without a GPU."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

from test_tier_programs import _check  # noqa: E402  (the zoo's tolerances per dtype)

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing import dot_programs as dp  # noqa: E402
from tileorch.testing.dot_programs import PROGRAMS, build  # noqa: E402
from tileorch.testing.user_programs import mm_f16_acc  # noqa: E402

ZOO = ["gemm_f16_tile64x64", "gemm_f16", "gemm_bias_relu_two_outputs_bf16", "linear_tf32", "gemm_grouped_tf32_32x32",
       "gemm_fp8_e4m3_scaled", "linear_fp8_e5m2_scaled", "bmm_f16", "bmm_bias_bf16", "linear_i8_i32",
       "gemm_u8_i8_n_major_b", "gemm_colsum_f16", "gemm_row_softmax_f16", "swiglu_f16", "gemm_atomic_epilogue_f16",
       "gemm_store_transposed_f16", "gemm_c_column_major_bf16"]
SHAPES = [(129, 264, 72), (256, 256, 128)]


def _assert_mma(kernel, args, schedule):
    program = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", schedule).program
    assert program.kind == "simt", program.remarks
    assert "mma.sync.aligned" in program.ptx, "no mma.sync in the PTX"
    assert any("dot on tensor cores with mma.sync" in r for r in program.remarks), program.remarks
    return program


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", ZOO)
def test_zoo_program_on_the_simt_path_matches_torch(name, shape):
    m, n, k = shape
    if name == "gemm_row_softmax_f16" and n % 128:
        # its softmax spans a 128-column tile: a partial tile's columns past N load cuTile's default
        # padding (PaddingMode.UNDETERMINED), so the row's max and sum, hence every value of a ragged
        # last tile, are undefined (the SIMT path reads zeros there, the reference -inf); M and K
        # stay ragged
        n += 128 - n % 128
    kernel, args, grid, out, ref, _ = build(name, m, n, k, seed=m + n + k)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args, schedule="simt", tiles="program")
    torch.cuda.synchronize()
    _check(out, ref, PROGRAMS[name].dtype)
    _assert_mma(kernel, args, "simt")


@pytest.mark.parametrize("dtype, tiles", [("f16", (16, 8, 8)), ("f16", (32, 16, 8)), ("bf16", (8, 32, 16)),
                                          ("f32", (16, 16, 4)), ("i8", (16, 8, 16)), ("f16acc", (64, 32, 32))])
@pytest.mark.parametrize("shape", [(77, 45, 100), (16, 8, 16)], ids=str)
def test_small_tiles_and_ragged_problems(dtype, tiles, shape):
    """Tiles smaller than the atom (M < 16, K < the atom's K: padded with zeros) and problems
    ragged against the tiles."""
    m, n, k = shape
    g = torch.Generator(device="cuda").manual_seed(m * n + k)
    tm, tn, tk = tiles
    if dtype == "i8":
        a = torch.randint(-128, 128, (m, k), generator=g, device="cuda", dtype=torch.int32).to(torch.int8)
        b = torch.randint(-128, 128, (k, n), generator=g, device="cuda", dtype=torch.int32).to(torch.int8)
        c = torch.full((m, n), -2**31, device="cuda", dtype=torch.int32)
        kernel = dp.gemm_i8
    else:
        t = {"f16": torch.float16, "f16acc": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[dtype]
        a = (torch.randn(m, k, generator=g, device="cuda") * 0.5).to(t)
        b = (torch.randn(k, n, generator=g, device="cuda") * 0.5).to(t)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16 if dtype == "f16acc" else torch.float32)
        kernel = mm_f16_acc if dtype == "f16acc" else dp.gemm
    args = (a, b, c, tm, tn, tk)
    grid = (-(-m // tm), -(-n // tn), 1)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args, schedule="simt", tiles="program")
    torch.cuda.synchronize()
    if dtype == "i8":
        torch.testing.assert_close(c, (a.double() @ b.double()).to(torch.int32), atol=0, rtol=0)
    else:
        assert not torch.isnan(c).any(), "unwritten elements"
        tol = {"f16acc": dict(atol=2e-2, rtol=1e-2), "f32": dict(atol=2e-2, rtol=1e-2)}.get(dtype, dict(atol=1e-3,
                                                                                                        rtol=1e-3))
        torch.testing.assert_close(c.float(), a.float() @ b.float(), **tol)
    _assert_mma(kernel, args, "simt")


@ct.kernel
def transposed_with_rowsum(A, B, C, S, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """C^T stored at (bn, bm) beside the row sums of the accumulator: refused by the tier."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    ct.store(S, index=(bm, bn), tile=ct.sum(acc, axis=1, keepdims=True))
    ct.store(C, index=(bn, bm), tile=ct.transpose(acc).astype(C.dtype))


def test_refused_transposed_c_with_row_sums_runs_on_mma():
    m, n, k, tiles = 300, 200, 96, (64, 64, 32)
    g = torch.Generator(device="cuda").manual_seed(3)
    a = (torch.randn(m, k, generator=g, device="cuda") * 0.5).half()
    b = (torch.randn(k, n, generator=g, device="cuda") * 0.5).half()
    c = torch.full((n, m), float("nan"), device="cuda", dtype=torch.float16)
    s = torch.full((m, -(-n // 64)), float("nan"), device="cuda", dtype=torch.float32)
    args = (a, b, c, s, *tiles)
    tileorch.cutile.launch(torch.cuda.current_stream(), (-(-m // 64), -(-n // 64), 1), transposed_with_rowsum, args)
    torch.cuda.synchronize()
    ref = a.float() @ b.float()
    torch.testing.assert_close(c.float(), ref.t(), atol=5e-2, rtol=2e-2)
    padded = torch.nn.functional.pad(ref, (0, 64 * s.shape[1] - n))
    torch.testing.assert_close(s, padded.view(m, s.shape[1], 64).sum(dim=2), atol=5e-2, rtol=1e-3)
    program = _assert_mma(transposed_with_rowsum, args, "persistent")
    assert any("refused" in r and "its dots on mma.sync" in r for r in program.remarks), program.remarks


def test_refused_transposed_tile_into_column_major_c_runs_on_mma():
    m, n, k, tiles = 257, 130, 72, (64, 64, 32)
    g = torch.Generator(device="cuda").manual_seed(5)
    a = (torch.randn(m, k, generator=g, device="cuda") * 0.5).half()
    b = (torch.randn(k, n, generator=g, device="cuda") * 0.5).half()
    buf = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    c = buf.t()  # C [N, M] column-major
    args = (a, b, c, *tiles)
    tileorch.cutile.launch(torch.cuda.current_stream(), (-(-m // 64), -(-n // 64), 1), dp.gemm_store_transposed, args)
    torch.cuda.synchronize()
    torch.testing.assert_close(buf.float(), a.float() @ b.float(), atol=5e-2, rtol=2e-2)
    program = _assert_mma(dp.gemm_store_transposed, args, "persistent")
    assert any("refused" in r for r in program.remarks), program.remarks
