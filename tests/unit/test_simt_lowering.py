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
    from tileorch.frontend.cutile import compile_program

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
    assert prog.kind == "simt" and prog.threads == 128
    assert f".entry {prog.kernel}(" in prog.ptx
    assert "wgmma" not in prog.ptx and ".maxntid 128, 1, 1" in prog.ptx
    if _ptxas():
        assert prog.cubin and prog.cubin[:4] == b"\x7fELF"


def test_reductions_use_barriers_and_shared_scratch(bytecode):
    prog = _compile(bytecode, "layernorm", ptxas=_ptxas())
    assert "bar.sync" in prog.ptx and ".shared" in prog.ptx and "rsqrt.approx.f32" in prog.ptx


def test_gemm_takes_the_tier_on_hopper_and_the_simt_path_elsewhere(bytecode):
    from tileorch.frontend.cutile import compile_program

    data = (bytecode / "gemm.tileirbc").read_bytes()
    hopper = compile_program(data, "gemm", arch="sm_90a", ptxas=False)
    assert hopper.kind == "gemm" and "wgmma.mma_async" in hopper.ptx
    assert hopper.gemm_config.cluster_m == 2  # num_ctas left to the compiler: 2x1 on sm_90
    blackwell = compile_program(data, "gemm", arch="sm_100a", ptxas=False)
    assert blackwell.kind == "simt" and "wgmma" not in blackwell.ptx


def test_gemm_with_an_epilogue_falls_back_to_simt(bytecode):
    """The tier refuses the bias+ReLU epilogue (it would drop it); the SIMT path keeps it."""
    from tileorch.frontend.cutile import compile_program

    prog = compile_program((bytecode / "gemm_epi.tileirbc").read_bytes(), "gemm_epi", ptxas=False)
    assert prog.kind == "simt" and "max.f32" in prog.ptx
