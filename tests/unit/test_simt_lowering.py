"""cuTile programs that are not GEMM-shaped compile through ``convert-nv-tileaa-to-simt`` to PTX
(ptxas-checked when ptxas is present); GEMM-shaped ones take the WGMMA tier on sm_90a only."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("xdsl")

from test_cuda_tile_bytecode import HAVE_CUTILE, KERNELS, MORE_KERNELS  # noqa: E402

pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

SIMT = ["layernorm", "transpose", "argmax", "whileloop"]


@pytest.fixture(scope="module")
def bytecode(tmp_path_factory):
    out = tmp_path_factory.mktemp("cutile")
    for name, source in (("more.py", MORE_KERNELS), ("kernels.py", KERNELS)):
        script = out / name
        script.write_text(source)
        subprocess.run([sys.executable, str(script), str(out)], check=True, capture_output=True, timeout=300)
    return out


_COMPILED: dict = {}


def _compile(bytecode, name, **kw):
    from tileorch.driver import compile_program

    key = (name, tuple(sorted(kw.items())))
    if key not in _COMPILED:
        _COMPILED[key] = compile_program((bytecode / f"{name}.tileirbc").read_bytes(), name, **kw)
    return _COMPILED[key]


def _ptxas() -> bool:
    from tileorch.backend.ptxas import ptxas_available

    return ptxas_available()


@pytest.mark.parametrize("name", SIMT)
def test_non_gemm_kernels_compile_through_the_simt_lowering(bytecode, name):
    prog = _compile(bytecode, name, ptxas=_ptxas())
    # no warps hint: the CTA is sized to the tiles (layout.choose_threads), a power of two in [32, 512]
    assert prog.kind == "simt" and prog.threads in (32, 64, 128, 256, 512)
    assert f".entry {prog.kernel}(" in prog.ptx
    assert "wgmma" not in prog.ptx and f".maxntid {prog.threads}, 1, 1" in prog.ptx
    if _ptxas():
        assert prog.cubin and prog.cubin[:4] == b"\x7fELF"


def test_one_warp_row_reductions_use_shuffles_only(bytecode):
    """layernorm's rows fit one warp (layout.ROW_RUNS): its reductions are shuffles, no shared
    memory, no barrier (the cross-warp step: FileCheck tileaa_to_simt/simt.mlir @rowmax)."""
    prog = _compile(bytecode, "layernorm", ptxas=_ptxas())
    assert prog.warp_programs == 2 and prog.threads == 64  # one-warp programs, up to 2 per CTA
    assert "shfl.sync.bfly.b32" in prog.ptx and "rsqrt.approx.f32" in prog.ptx
    assert "bar.sync" not in prog.ptx and "st.shared" not in prog.ptx


def _lower(bytecode, name, arch="sm_90a"):
    """(kind, lowered module text) of ``lower_program`` (no LLVM code generation: fast)."""
    from tileorch.frontend.cutile import load
    from tileorch.driver import lower_program
    from tileorch.registry import make_context

    ctx = make_context()
    kind, module = lower_program(load((bytecode / f"{name}.tileirbc").read_bytes(), name, ctx), ctx, arch)
    return kind, str(module)


def test_gemm_takes_the_tier_on_hopper_and_the_simt_path_elsewhere(bytecode):
    kind, text = _lower(bytecode, "gemm", "sm_90a")
    assert kind == "gemm" and "nvvm.wgmma.mma_async" in text
    assert "_c2x1_" in text  # num_ctas left to the compiler: a 2x1 cluster on sm_90
    kind, text = _lower(bytecode, "gemm", "sm_100a")
    assert kind == "simt" and "wgmma" not in text and "nvvm.maxntid" in text


def test_gemm_with_an_epilogue_takes_the_tensor_cores(bytecode):
    """The bias+ReLU epilogue is compiled into the WGMMA kernel's consumer warp groups: per
    thread one bias load per accumulator column it holds (tile_n / 4 of them for 2 rows x 2
    columns per 8-column group), a max per accumulator element, the new fragment staged."""
    kind, text = _lower(bytecode, "gemm_epi")
    assert kind == "gemm" and "nvvm.wgmma.mma_async" in text
    # 128x128 tile: each thread holds 64 accumulator elements in 32 distinct columns
    # one consumer body that both warp groups run (TILEORCH_GEMM_SHARED_CONSUMER=1, the default)
    assert text.count("llvm.insertvalue") == 64
    assert text.count("llvm.load") == 32
    assert text.count("\"llvm.maxnum.f32\"") == 64  # (PTX max.f32: an LLVM intrinsic since session 41)
