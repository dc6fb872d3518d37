"""The GEMM example (hand-written MLIR) is the builder's default kernel, op for op, and compiles
to PTX that ptxas accepts for sm_90a with no register spills (WGMMA accumulators must stay in
registers)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from xdsl.printer import Printer

from tileorch.backend.ptxas import ptxas_available
from tileorch.diagnostics import parse_module
from tileorch.kernels.gemm.build import build_gemm_kernel
from tileorch.kernels.gemm.config import GemmConfig
from tileorch.registry import make_context

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gemm_sm90.mlir"


def _generic(module) -> str:
    """The module in generic form with every value numbered (the example's names are its own)."""
    for op in module.walk():
        for value in op.results:
            value.name_hint = None
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg.name_hint = None
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def test_example_is_the_default_kernel():
    example = parse_module(make_context(), EXAMPLE.read_text(), str(EXAMPLE))
    assert _generic(example) == _generic(build_gemm_kernel(GemmConfig()))


@pytest.mark.skipif(not ptxas_available(), reason="no ptxas (pip install nvidia-cuda-nvcc)")
def test_example_compiles_without_spills():
    from tileorch.driver import compile_text
    from tileorch.backend.ptxas import run_ptxas

    result = compile_text(EXAMPLE.read_text(), str(EXAMPLE), ptxas=False)
    ptx = result.ptx
    # 4 k16 steps in the one consumer body both warp groups run (TILEORCH_GEMM_SHARED_CONSUMER=1, the default)
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16") == 4
    assert "bar.sync \t14, 256;" in ptx and "bar.sync \t15" not in ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster" in ptx
    assert "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" in ptx
    assert "fence.proxy.async.shared::cta" in ptx
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40", ptx)
    assert re.search(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+232", ptx)
    assert ptx.count(".param .align 64 .b8") == 3  # grid-constant tensor maps A, B, C
    # the static-persistent params record (72 bytes) is a grid-constant byval parameter too
    assert re.search(r"\.param \.align 8 \.b8 \w+_param_7\[72\]", ptx)
    assert "__local_depot" not in ptx  # nothing copied to local memory
    info = run_ptxas(ptx, "sm_90a", extra_args=("-v",))
    spills = [m for m in info.info if "spill" in m]
    assert spills and all(re.search(r"\b0 bytes spill stores, 0 bytes spill loads", m) for m in spills), spills
    assert not info.spill_warnings()
