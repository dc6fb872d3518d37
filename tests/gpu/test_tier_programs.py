"""cuTile dot programs with fused epilogues and transposed operands, compiled by the TileAS tier
onto tensor cores and run through ``tileorch.cutile.launch``, against torch fp32 references
(NaN-prefilled outputs; ragged sizes).  Each program must take the tier (``kind == "gemm"``:
the warp-specialized TMA/WGMMA kernel, HGMMA in its SASS when cuobjdump is present), never the
SIMT path.  Skipped without a GPU (tests/gpu/conftest.py); needs torch and cuda-tile."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.dot_programs import KNOWN_REFUSED, PROGRAMS, build, unwritten  # noqa: E402

SHAPES = [(1000, 520, 384), (129, 264, 72), (4097, 1016, 1000), (256, 256, 64), (333, 200, 700)]
"""The last: K = 700 (a 16-bit row of 1400 bytes: not a multiple of 16, the host stages padded copies)."""
TOL = {"f16": dict(atol=5e-2, rtol=2e-2), "bf16": dict(atol=1.5e-1, rtol=3e-2), "f32": dict(atol=2e-3, rtol=2e-3),
       "tf32": dict(atol=5e-2, rtol=1e-2)}


def _check(out, ref, dtype):
    if isinstance(out, tuple):  # several outputs (the GEMM and a reduction of it)
        for o, r in zip(out, ref):
            _check(o, r, dtype)
        return
    assert not unwritten(out).any(), "unwritten (NaN / -2^31 pre-filled) outputs"
    if out.dtype == torch.int32:  # int8 x int8 -> int32 (and mixed signedness): exact
        torch.testing.assert_close(out, ref, atol=0, rtol=0)
        return
    if dtype in ("e4m3", "e5m2"):
        # fp8 WGMMA accumulates with fewer mantissa bits than f32 (Hopper's fp8 tensor cores), so the
        # output type's elementwise tolerance fails where a sum nearly cancels: compare the error
        # relative to the whole result instead (a wrong tile or a missed K step gives >> 1e-2)
        err = float((out.float() - ref).norm() / ref.norm())
        assert err < 5e-3, f"relative error {err:.2e} of the fp8 GEMM against the fp32 reference"
        return
    # tolerance of the output's type (tf32 products: the tf32 one)
    key = "tf32" if dtype == "tf32" else {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"}[out.dtype]
    torch.testing.assert_close(out.float(), ref, **TOL[key])


CASES = [(shape, "auto") for shape in SHAPES] + [(shape, "program") for shape in SHAPES[:2]]
if os.environ.get("TILEORCH_QUICK_GPU"):  # a short device session: ragged and medium shapes only
    CASES = [(SHAPES[0], "auto"), (SHAPES[1], "auto"), (SHAPES[1], "program")]


TIER_PROGRAMS = [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_REFUSED[n]))
                 if n in KNOWN_REFUSED else n for n in PROGRAMS]


@pytest.mark.parametrize("shape,tiles", CASES, ids=lambda v: str(v))
@pytest.mark.parametrize("name", TIER_PROGRAMS)
def test_dot_program_on_tensor_cores(name, shape, tiles):
    m, n, k = shape
    kernel, args, grid, out, ref, _lib = build(name, m, n, k, seed=m + n + k)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args, tiles=tiles)
    torch.cuda.synchronize()
    _check(out, ref, PROGRAMS[name].dtype)
    entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent")
    assert entry.program.kind == "gemm", f"{name} left the tensor-core path: {entry.program.remarks}"


@pytest.mark.parametrize("name", TIER_PROGRAMS)
def test_dot_program_sass_has_wgmma(name, tmp_path):
    if shutil.which("cuobjdump") is None:
        pytest.skip("cuobjdump not on PATH")
    kernel, args, grid, out, ref, _lib = build(name, 256, 256, 128)
    program = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent").program
    assert program.cubin is not None
    path = tmp_path / "k.cubin"
    path.write_bytes(program.cubin)
    sass = subprocess.run(["cuobjdump", "-sass", str(path)], capture_output=True, text=True, timeout=120).stdout
    # HGMMA (f16/bf16/tf32), QGMMA (fp8), IGMMA (int8): the warpgroup MMA instructions
    want = ("IGMMA",) if PROGRAMS[name].dtype in ("i8", "u8") else ("HGMMA", "QGMMA", "IGMMA")
    assert any(op in sass for op in want), f"no WGMMA ({'/'.join(want)}) instruction in the SASS of {name}"


@pytest.mark.parametrize("a_dtype", ["int8", "uint8"])
def test_int8_dot_on_the_simt_path_is_exact(a_dtype):
    """An integer dot the tensor-core path cannot take (W a column slice of a wider array: not the
    row-major operand the WGMMA GEMM reads) runs on the SIMT path, which reads each operand by its
    signedness (uint8 A zero-extends): exact against the int reference."""
    from tileorch.testing.dot_programs import linear_i8

    m, n, k, t = 200, 136, 96, 32
    g = torch.Generator(device="cuda").manual_seed(7)
    lo = 0 if a_dtype == "uint8" else -128
    x = torch.randint(lo, lo + 256, (m, k), generator=g, device="cuda", dtype=torch.int32).to(getattr(torch, a_dtype))
    w = torch.randint(-128, 128, (n, k + 16), generator=g, device="cuda", dtype=torch.int32).to(torch.int8)[:, :k]
    y = torch.full((m, n), -2**31, device="cuda", dtype=torch.int32)
    grid = (-(-m // t), -(-n // t), 1)
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, linear_i8, (x, w, y, t, t, t))
    torch.cuda.synchronize()
    ref = (x.double() @ w.double().t()).to(torch.int32)
    torch.testing.assert_close(y, ref, atol=0, rtol=0)


@pytest.mark.parametrize("tiles", ["auto", "program"])
def test_one_n_tile_program_on_a_wider_output_runs_as_written(tiles):
    """``gemm_one_n_tile`` computes only column tile 0 (B and C at column index 0).  Compiled onto
    the tensor cores for outputs of one column tile; launched on a wider C it must still compute
    only columns [0, 128) (the SIMT path runs it as written) and leave the rest untouched."""
    from tileorch.testing.dot_programs import gemm_one_n_tile

    m, n, k = 300, 300, 192
    g = torch.Generator(device="cuda").manual_seed(11)
    a = (torch.randn(m, k, device="cuda", generator=g) * 0.5).half()
    b = (torch.randn(k, n, device="cuda", generator=g) * 0.5).half()
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    tileorch.cutile.launch(torch.cuda.current_stream(), (-(-m // 128), 1, 1), gemm_one_n_tile,
                           (a, b, c, 128, 128, 64), tiles=tiles)
    torch.cuda.synchronize()
    torch.testing.assert_close(c[:, :128].float(), a.float() @ b[:, :128].float(), **TOL["f16"])
    assert torch.isnan(c[:, 128:]).all(), "columns past the program's tile 0 were written"
