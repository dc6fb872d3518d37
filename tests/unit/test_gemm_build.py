"""The GEMM kernel builder (tileorch.kernels.gemm.build): the structure each configuration asks
for, counted in the built IR, and a printed kernel that parses back to the same module."""

from __future__ import annotations

import io
import itertools
from collections import Counter
from dataclasses import replace

import pytest
from xdsl.printer import Printer

from tileorch.diagnostics import parse_module
from tileorch.dialects.atoms import StageFragmentOp, StoreFragmentOp
from tileorch.dialects.cutlass.async_exec import AsyncExecOp
from tileorch.dialects.cutlass.pipeline import PipelineInitOp, ProducerCommitOp
from tileorch.dialects.nvvm_payload import (
    CpAsyncBulkTensorGlobalToSharedClusterOp,
    CpAsyncBulkTensorSharedCTAToGlobalOp,
    WgmmaMmaAsyncOp,
)
from tileorch.kernels.gemm.build import build_gemm_kernel
from tileorch.kernels.gemm.config import ELEMENT_BYTES, GemmConfig, GemmConfigError
from tileorch.kernels.gemm.ir import gemm_kernel_ir
from tileorch.registry import make_context


def _cfg(**kw) -> GemmConfig:
    dtype = kw.get("dtype", "bf16")
    return replace(GemmConfig(), tile_k=128 // ELEMENT_BYTES[dtype], **kw).check()


CONFIGS = [
    _cfg(),
    _cfg(schedule="streamk", tile_n=128, stages=6),
    _cfg(schedule="dp", cluster_m=1, tile_n=64, epilogue="direct", out_dtype="f32"),
    _cfg(dtype="f16", out_dtype="f16", b_major="n", a_major="m", tile_n=192, cluster_m=1, stages=3),
    _cfg(dtype="f16", out_dtype="f16", b_major="n", batched=True, tile_n=128),
    _cfg(dtype="e4m3", schedule="streamk", epilogue="direct", out_dtype="f32", batched=True, tile_n=256, stages=3),
    _cfg(dtype="e5m2", tile_n=128, producer_regs=24, consumer_regs=240),
    _cfg(dtype="tf32", transpose_b=True, tile_n=64, out_dtype="f16", stages=3),
]


def _ids(cfg: GemmConfig) -> str:
    return cfg.name


def _bodies(cfg: GemmConfig) -> int:
    """The consumer bodies the builder writes for these configurations (two consumer warp groups each): one that
    both warp groups run (``TILEORCH_GEMM_SHARED_CONSUMER=1``, the default), one per warp group for stream-K (its
    fix-up names a barrier per warp group)."""
    assert cfg.consumer_groups == 2
    return cfg.consumer_groups if cfg.schedule == "streamk" else 1


def _ops(module, cls) -> list:
    return [op for op in module.walk() if isinstance(op, cls)]


@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_wgmma_count_and_shape_follow_the_configuration(cfg):
    module = build_gemm_kernel(cfg)
    module.verify()
    mmas = _ops(module, WgmmaMmaAsyncOp)
    # every consumer body issues tile_k / mma_k WGMMAs (32 bytes of K each) per stage
    assert len(mmas) == _bodies(cfg) * cfg.tile_k * ELEMENT_BYTES[cfg.dtype] // 32
    layout_a = "row" if cfg.a_major == "k" else "col"
    layout_b = "col" if cfg.b_major == "k" else "row"
    for mma in mmas:
        shape = (mma.shape.m.data, mma.shape.n.data, mma.shape.k.data)
        assert shape == (64, cfg.tile_n, 32 // ELEMENT_BYTES[cfg.dtype])
        assert mma.typeA.data.value == mma.typeB.data.value == cfg.dtype
        assert (mma.layoutA.data.value, mma.layoutB.data.value) == (layout_a, layout_b)
        assert len(mma.results_.type.types) == cfg.tile_n // 2  # f32 accumulators per thread (m64nN / 128)


@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_pipeline_and_tma_bytes_follow_the_configuration(cfg):
    module = build_gemm_kernel(cfg)
    (init,) = _ops(module, PipelineInitOp)
    assert init.pipeline_type().stages == cfg.stages
    assert init.numStages.value.data == cfg.stages
    stage = cfg.tile_k * (cfg.tile_m + cfg.tile_n) * ELEMENT_BYTES[cfg.dtype]
    assert list(init.transaction_size.get_values()) == [stage]
    (commit,) = _ops(module, ProducerCommitOp)
    assert commit.transaction_bytes.value.data == stage
    # this CTA loads all of A and its 1/cluster_m slice of B; the other slices arrive by multicast
    loads = _ops(module, CpAsyncBulkTensorGlobalToSharedClusterOp)
    tx = sum(op.attributes["cutlass.tx_bytes"].value.data for op in loads)
    b_bytes = cfg.tile_k * cfg.tile_n * ELEMENT_BYTES[cfg.dtype]
    assert tx == cfg.tile_k * cfg.tile_m * ELEMENT_BYTES[cfg.dtype] + b_bytes // cfg.cluster_m
    for op in loads:
        assert len(op.coordinates) == (3 if cfg.batched else 2)
        is_b = op.tmaDescriptor is module.body.block.ops.first.body.block.args[1]
        assert (op.multicastMask is not None) == (is_b and cfg.cluster_m > 1)


@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_agents_scheduler_and_epilogue_follow_the_configuration(cfg):
    module = build_gemm_kernel(cfg)
    names = Counter(op.name for op in module.walk())
    outer = [op for op in _ops(module, AsyncExecOp) if op.executor_kind() == "warpgroup"]
    bodies = _bodies(cfg)
    consumers = [(0b110, cfg.consumer_regs)] if bodies == 1 else [(0b10, cfg.consumer_regs), (0b100, cfg.consumer_regs)]
    assert [(op.mask_bits(), op.max_regs.value.data) for op in outer] == [(0x1, cfg.producer_regs), *consumers]
    streamk = cfg.schedule == "streamk"
    creates = names["cutlass.tile_scheduler.create_streamk_params"] if streamk else \
        names["cutlass.tile_scheduler.create_static_persistent_params"]
    assert creates == 1 + bodies  # the producer walks the same tiles as each consumer body
    assert names["cutlass.tile_scheduler.fixup"] == (cfg.consumer_groups if streamk else 0)
    if cfg.epilogue == "tma":
        rounds = bodies * cfg.tile_n // 64
        assert len(_ops(module, StageFragmentOp)) == rounds
        assert len(_ops(module, CpAsyncBulkTensorSharedCTAToGlobalOp)) == rounds
        assert not _ops(module, StoreFragmentOp)
    else:
        stores = _ops(module, StoreFragmentOp)
        assert len(stores) == bodies and all(s.dtype.data == cfg.out_dtype for s in stores)
        assert not _ops(module, StageFragmentOp)
    fn = module.body.block.ops.first
    assert fn.sym_name.data == cfg.name
    assert list(fn.attributes["nvvm.maxntid"].get_values()) == [cfg.threads, 1, 1]
    assert list(module.attributes["cutlass.cluster_shape"].get_values()) == [cfg.cluster_m, 1, 1]


def _generic(module) -> str:
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


@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_printed_kernel_parses_back_to_the_built_module(cfg):
    parsed = parse_module(make_context(), gemm_kernel_ir(cfg), "gemm.mlir")
    parsed.verify()
    assert _generic(parsed) == _generic(build_gemm_kernel(cfg))


def test_every_configuration_the_rules_allow_builds_and_verifies():
    """A sweep over the fields that change the IR's structure (the rest at their defaults)."""
    built = 0
    for dtype, a_major, b_major, schedule, cluster_m, tile_n, epilogue in itertools.product(
            ("bf16", "e4m3", "tf32"), "km", "kn", ("persistent", "streamk"), (1, 2), (64, 192),
            ("tma", "direct")):
        try:
            cfg = _cfg(dtype=dtype, a_major=a_major, b_major=b_major, schedule=schedule, cluster_m=cluster_m,
                       tile_n=tile_n, epilogue=epilogue, stages=3)
        except GemmConfigError:
            continue
        build_gemm_kernel(cfg).verify()
        built += 1
    assert built >= 24


def test_a_configuration_the_rules_reject_is_not_built():
    with pytest.raises(GemmConfigError, match="tile_n must be"):
        build_gemm_kernel(replace(GemmConfig(), tile_n=320))
