"""The Python tile-program builder produces the same nv_tileaa program as examples/tile_gemm.mlir
and it goes through the TileAS tier."""

from collections import Counter
from pathlib import Path

import pytest

from tileorch.diagnostics import parse_module
from tileorch.frontend import TileProgram, tile_gemm
from tileorch.registry import make_context, resolve, PASSES

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tile_gemm.mlir"


def _ops(module):
    return Counter(op.name for op in module.walk())


def test_builder_matches_example_program():
    built = tile_gemm().finish()
    example = parse_module(make_context(), EXAMPLE.read_text(), str(EXAMPLE))
    assert _ops(built) == _ops(example)


def test_builder_text_round_trips_and_compiles_through_the_tier():
    ctx = make_context()
    module = parse_module(ctx, tile_gemm(tn=256, num_worker_warps=8).text())
    module.verify()
    resolve(PASSES["tileas-tier"])().apply(ctx, module)
    module.verify()
    switches = [op for op in module.walk() if op.name == "nv_tileas.async.pipeline.agent_switch"]
    assert len(switches) == 1
    assert list(switches[0].num_warps.get_values())[:2] == [8, 1]
    dots = [op for op in module.walk() if op.name == "nv_tileas.dot"]
    assert str(dots[0].atom) == "#nv_tileas.mma.sm90<[64, 256, 16]>"
    create = next(op for op in module.walk() if op.name == "nv_tileas.async.pipeline.create_pipeline")
    # (128x64 + 64x256) f16 = 48 KiB a stage; the 128x256 f16 epilogue tile is stored as 64x128
    # TMA boxes drained through two 16 KiB slots = 32 KiB: 4 stages in 227 KiB (3 if the whole
    # 64 KiB tile were reserved)
    assert create.num_stages.value.data == 4


@pytest.mark.parametrize("tn, stages", [(128, 6), (64, 8)])
def test_stage_count_from_the_shared_memory_budget(tn, stages):
    """(128 + tn) x 64 f16 a stage next to two 64-column TMA store boxes (at most the tile):
    tn=128: 32 KiB stages + 32 KiB epilogue -> 6; tn=64: 24 KiB + 16 KiB (the whole 128x64
    tile) -> 8, the max-stages cap."""
    ctx = make_context()
    module = parse_module(ctx, tile_gemm(tn=tn, num_ctas=1).text())
    resolve(PASSES["tileas-tier"])().apply(ctx, module)
    create = next(op for op in module.walk() if op.name == "nv_tileas.async.pipeline.create_pipeline")
    assert create.num_stages.value.data == stages


def test_loop_yield_type_mismatch_is_reported():
    p = TileProgram("bad")
    acc = p.zeros((64, 64), "f32")
    with pytest.raises(ValueError, match="the loop yields"):
        with p.loop(p.scalar("n"), carry=[acc]) as k:
            k.yield_(p.zeros((64, 64), "f16"))


def test_unknown_dtype_is_reported():
    with pytest.raises(ValueError, match="unknown element type"):
        TileProgram("x").array("a", "f8")


def test_tile_gemm_lowers_to_the_hand_built_kernel_of_its_configuration():
    """The tier's output for the example is the hand-built GEMM for the configuration the tier
    chose (so it runs and performs as that kernel does)."""
    from tileorch.kernels.gemm.config import GemmConfig
    from tileorch.kernels.gemm.ir import gemm_kernel_ir
    from tileorch.transforms.tileas.nv_tileas_to_cutlass import lower_tile_program

    for schedule in ("streamk",):
        cfg, module = lower_tile_program(EXAMPLE.read_text(), schedule=schedule)
        assert cfg == GemmConfig(tile_m=128, tile_n=256, tile_k=64, stages=4, cluster_m=2, schedule=schedule,
                                 dtype="f16", out_dtype="f16", b_major="n", epilogue="tma")
        hand = parse_module(make_context(), gemm_kernel_ir(cfg))
        ours = next(op for op in module.walk() if op.name == "func.func")
        theirs = next(op for op in hand.walk() if op.name == "func.func")
        assert _ops(ours) == _ops(theirs)
        assert ours.sym_name == theirs.sym_name
