"""Dots sharing A (the gated MLP's ``silu(X @ Wg) * (X @ Wu)``) on the WGMMA kernel: the
configuration's rules (``b_operands``: stage bytes, the accumulator-register budget, no Stream-K),
the builder's kernel (one A and N B tiles per stage, N WGMMA batches of a K tile committed as one
group, ptxas accepts it), the host's row sets of the other Bs, and the tier's refusals (located,
the SIMT path compiles the program).  The zoo test (test_dot_zoo_tier.py) compiles the zoo's
SwiGLU programs; tests/gpu/test_tier_programs.py runs them against torch."""

from __future__ import annotations

import dataclasses
import re

import pytest

from tileorch.kernels.gemm.config import ACCUMULATOR_REGISTERS, GemmConfig, GemmConfigError
from tileorch.launchers.gemm_host import operand_rows, staging_reasons


def test_config_stage_holds_every_b():
    one = GemmConfig(tile_n=128, dtype="f16", out_dtype="f16").check()
    two = dataclasses.replace(one, b_operands=2).check()
    assert two.stage_bytes == one.stage_bytes + one.b_stage_bytes == 3 * 16384
    assert two.accumulator_registers == 2 * 64 == ACCUMULATOR_REGISTERS
    assert two.name.endswith("_d2") and not one.name.endswith("_d2")


@pytest.mark.parametrize("changes, rule", [
    ({"tile_n": 256}, "256 registers per thread"),
    ({"tile_n": 128, "b_operands": 3}, "192 registers per thread"),
    ({"schedule": "streamk"}, "no Stream-K fix-up"),
    ({"epilogue": "atomic", "out_dtype": "f32"}, "not the atomic one"),
    ({"b_operands": 0}, "at least 1"),
])
def test_config_refuses(changes, rule):
    cfg = GemmConfig(tile_n=128, dtype="f16", out_dtype="f16", b_operands=2)
    with pytest.raises(GemmConfigError, match=rule):
        dataclasses.replace(cfg, **changes).check()


def test_host_rows_of_the_other_bs():
    cfg = GemmConfig(tile_n=128, dtype="f16", out_dtype="f16", b_operands=2, b_major="k")
    rows = operand_rows(cfg, 0x1000, 0x2000, 0x3000, 100, 72, 700, more_b=(0x4000,))
    assert [r.name for r in rows] == ["A", "B", "C", "B1"]
    assert rows[3].rows == rows[1].rows == 72 and rows[3].width == rows[1].width == 1400
    # K = 700: 1400-byte rows of A, B and B1 are staged (not a multiple of 16 bytes)
    reasons = staging_reasons(cfg, 0x1000, 0x2000, 0x3000, 100, 72, 700, more_b=(0x4000,))
    assert [r.split(":")[0] for r in reasons] == ["A", "B", "B1"]


ptxas = pytest.importorskip("tileorch.backend.ptxas")


@pytest.mark.skipif(not ptxas.ptxas_available(), reason="no ptxas")
@pytest.mark.parametrize("b_major", ["n", "k"])
def test_builder_two_wgmma_batches_per_k_tile(b_major):
    """Each consumer K step issues tile_k / 16 WGMMAs per B (the second B's descriptor a B tile
    further into the stage) between one fence and one commit; both Bs' boxes are loaded."""
    from tileorch.driver import compile_module
    from tileorch.kernels.gemm.build import build_gemm_kernel
    from tileorch.testing.gemm_structure import ptx_consumer_bodies

    cfg = GemmConfig(tile_n=128, dtype="bf16", out_dtype="bf16", b_operands=2, b_major=b_major).check()
    result = compile_module(build_gemm_kernel(cfg))
    ptx = result.ptx
    assert result.ptxas is not None and result.ptxas.cubin
    groups = re.findall(r"wgmma\.fence\.sync\.aligned;(.*?)wgmma\.commit_group\.sync\.aligned;", ptx, re.S)
    # one K step in the one consumer body the two warp groups share (TILEORCH_GEMM_SHARED_CONSUMER, default)
    assert len(groups) == 1 and ptx_consumer_bodies(ptx) == 1
    for body in groups:
        assert body.count("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16") == 2 * 4
    # the tensor map of the second B: the kernel's parameter after the scheduler params
    assert f"{cfg.name}_param_8[128]" in ptx
    # each of the three maps (A, B, the second B) prefetched once, in parameter space
    param8 = re.search(rf"mov\.b64\s+(%rd\d+), {cfg.name}_param_8;", ptx).group(1)
    assert ptx.count("prefetch.param.tensormap") == 3 and f"prefetch.param.tensormap \t[{param8}];" in ptx
    assert "prefetch.tensormap" not in ptx


cutile = pytest.importorskip("cuda.tile")
import cuda.tile as ct  # noqa: E402


@ct.kernel
def _three_dots_128(X, W1, W2, W3, H, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    a1 = ct.zeros((tm, tn), dtype=ct.float32)
    a2 = ct.zeros((tm, tn), dtype=ct.float32)
    a3 = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        a = ct.load(X, index=(bm, k), shape=(tm, tk))
        a1 = ct.mma(a, ct.load(W1, index=(k, bn), shape=(tk, tn)), a1)
        a2 = ct.mma(a, ct.load(W2, index=(k, bn), shape=(tk, tn)), a2)
        a3 = ct.mma(a, ct.load(W3, index=(k, bn), shape=(tk, tn)), a3)
    ct.store(H, index=(bm, bn), tile=(a1 * a2 + a3).astype(H.dtype))


@ct.kernel
def _swiglu_tile_index(X, Wg, Wu, H, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """SwiGLU whose epilogue reads its tile's column indices (not retileable) at 256 columns."""
    bm, bn = ct.bid(0), ct.bid(1)
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        a = ct.load(X, index=(bm, k), shape=(tm, tk))
        g = ct.mma(a, ct.load(Wg, index=(k, bn), shape=(tk, tn)), g)
        u = ct.mma(a, ct.load(Wu, index=(k, bn), shape=(tk, tn)), u)
    col = ct.reshape(ct.arange(tn, dtype=ct.int32).astype(ct.float32), (1, tn))
    ct.store(H, index=(bm, bn), tile=(g * u + col).astype(H.dtype))


def _arguments(kernel, shapes, tiles):
    from test_dot_zoo_tier import DeviceArray, TORCH_NAMES

    from tileorch.launchers import cutile as rc

    args = [DeviceArray(0x7F0000000000 + (i + 1) * 0x10000000, s) for i, s in enumerate(shapes)]
    arguments = rc.describe_arguments(kernel, (*args, *tiles))
    return [dataclasses.replace(a, dtype=TORCH_NAMES["f16"]) if i < len(shapes) else a
            for i, a in enumerate(arguments)]


def _compile(kernel, shapes, tiles):
    from tileorch.launchers import cutile as rc

    return rc.compiled(kernel, _arguments(kernel, shapes, tiles), "sm_90a", "persistent").program


def _lowered(kernel, shapes, tiles):
    """The program's lowering and the driver's record of it (path, remarks, configuration; no PTX),
    once per input in a test run (``tileorch.testing.compile_memo.lower_once``)."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.compile_memo import lower_once

    return lower_once(rc.export_bytecode(kernel, _arguments(kernel, shapes, tiles)), "<test>", arch="sm_90a")


def _lower(kernel, shapes, tiles) -> tuple[str, list[str]]:
    """(kind, remarks) of the program's lowering, without the backend (the SIMT path's PTX of a
    wide two-accumulator tile takes ptxas minutes)."""
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.launchers import cutile as rc
    from tileorch.registry import make_context

    ctx = make_context()
    module = load(rc.export_bytecode(kernel, _arguments(kernel, shapes, tiles)), "<test>", ctx)
    remarks: list[str] = []
    kind, _ = lower_program(module, ctx, "sm_90a", "persistent", "", remarks)
    return kind, remarks


M, N, K = 512, 512, 256


@pytest.mark.skipif(not ptxas.ptxas_available(), reason="no ptxas")
def test_three_accumulators_of_128_columns_refused_located():
    kind, remarks = _lower(_three_dots_128, [(M, K), (K, N), (K, N), (K, N), (M, N)], (128, 128, 64))
    assert kind == "simt"
    refusal = next(r for r in remarks if "tensor-core path refused" in r)
    assert re.match(r".*test_shared_a_dots\.py:\d+:\d+: warning: convert-nv-tileas-to-cutlass: 3 dots sharing A",
                    refusal), refusal
    assert "accumulator registers" in refusal


@pytest.mark.skipif(not ptxas.ptxas_available(), reason="no ptxas")
def test_tile_dependent_epilogue_too_wide_refused_located():
    kind, remarks = _lower(_swiglu_tile_index, [(M, K), (K, N), (K, N), (M, N)], (128, 256, 64))
    assert kind == "simt"
    refusal = next(r for r in remarks if "tensor-core path refused" in r)
    assert "test_shared_a_dots.py:" in refusal and "2 accumulators of 128x256 need 256 registers" in refusal


@pytest.mark.skipif(not ptxas.ptxas_available(), reason="no ptxas")
def test_wide_swiglu_tile_narrowed():
    """A retileable 128x256 SwiGLU tile runs as 128x128 tiles (two accumulators fill the registers)."""
    from tileorch.testing.dot_programs import swiglu

    program = _lowered(swiglu, [(M, K), (K, N), (K, N), (M, N)], (128, 256, 64))
    assert program.kind == "gemm", program.remarks
    assert program.gemm_config.tile_n == 128 and program.gemm_config.b_operands == 2
    assert any("runs as 128x128 tiles" in r and "2 accumulators" in r for r in program.remarks)
