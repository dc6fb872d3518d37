"""tileorch.gemm's kernel comes from a tile program through the TileAS tier
(:mod:`tileorch.launchers.gemm_program`): the tier's kernel is the configuration asked for, and
is the kernel builder's kernel for that configuration."""

import dataclasses

import pytest

pytest.importorskip("xdsl")

from xdsl.dialects import func  # noqa: E402

from tileorch.dialects import nv_tileaa as aa  # noqa: E402
from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError  # noqa: E402
from tileorch.kernels.gemm.build import build_gemm_kernel  # noqa: E402
from tileorch.launchers.gemm_program import gemm_program, lower_gemm  # noqa: E402
from tileorch.transforms.tileas.convert_to_cutlass import CONFIG_ATTR, read_config  # noqa: E402

CONFIGS = [
    GemmConfig(),
    GemmConfig(b_major="n", dtype="f16", out_dtype="f16"),
    GemmConfig(a_major="m"),
    GemmConfig(tile_n=128, stages=6, schedule="streamk", out_dtype="f32", epilogue="direct"),
    GemmConfig(cluster_m=1, schedule="dp", b_major="n", a_major="m", raster="along_n", max_swizzle=4),
    GemmConfig(tile_n=192, stages=3, producer_regs=56, consumer_regs=224),
    GemmConfig(dtype="e4m3", out_dtype="f16", tile_k=128, transpose_b=True),
    GemmConfig(dtype="tf32", out_dtype="f32", tile_k=32, epilogue="direct"),
    GemmConfig(dtype="f16", out_dtype="f16", b_major="n", batched=True),
    GemmConfig(a_major="m", batched=True),
]


def _kernel_body(module) -> str:
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes)
    for key in (CONFIG_ATTR, "tileorch.tile_kernel"):
        fn.attributes.pop(key, None)
    return str(fn)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.name)
def test_tier_builds_the_asked_configuration(cfg):
    module = lower_gemm(cfg)
    fn = next(op for op in module.walk() if CONFIG_ATTR in op.attributes)
    assert read_config(fn)[0] == dataclasses.replace(cfg, transpose_b=False)  # the launcher's copy, not the kernel's
    assert not any(isinstance(op, aa.FuncOp) for op in module.walk()), "the tile kernel was not lowered"
    direct = build_gemm_kernel(dataclasses.replace(cfg, transpose_b=False))
    assert _kernel_body(module) == _kernel_body(direct)


@pytest.mark.parametrize("cfg", CONFIGS[:3], ids=lambda c: c.name)
def test_program_reads_operands_in_storage_order(cfg):
    text = gemm_program(cfg).text()
    permutes = text.count("nv_tileaa.permute")
    assert permutes == (cfg.a_major == "m") + (cfg.b_major == "k")
    assert "nv_tileaa.dot" in text


def test_configurations_without_a_tile_program_are_refused():
    with pytest.raises(GemmConfigError, match="no tile program"):
        gemm_program(dataclasses.replace(GemmConfig(), dtype="f64"))
