"""The GEMM kernel builder's A per dot (``GemmConfig.a_operands``, session 27): every stage holds ``a_operands`` A
tiles then the B tiles, the producer issues one TMA per operand tile on the stage's full barrier (its transaction
count the sum), the consumers run one WGMMA batch per (A i, B i) pair, reading A i's descriptor ``i * a_stage_bytes``
into the stage; ``one_accumulator`` chains the pairs' WGMMAs on one accumulator.  The configuration rules refuse the
combinations the builder does not make."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tileorch.dialects.cutlass.pipeline import PipelineInitOp, ProducerCommitOp
from tileorch.dialects.nvvm_payload import CpAsyncBulkTensorGlobalToSharedClusterOp, WgmmaMmaAsyncOp
from tileorch.kernels.gemm.build import build_gemm_kernel
from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError
from tileorch.testing.gemm_structure import consumer_exec_masks

BASE = GemmConfig(tile_m=128, tile_n=64, tile_k=64, stages=4, cluster_m=1, dtype="f16", out_dtype="f16", b_major="n",
                  epilogue="direct")


def _ops(module, cls) -> list:
    return [op for op in module.walk() if isinstance(op, cls)]


@pytest.mark.parametrize("pairs,one,a_major", [(2, False, "k"), (2, True, "k"), (3, True, "k"), (2, False, "m")])
def test_stage_holds_a_tile_per_dot_and_one_tma_per_tile(pairs, one, a_major):
    cfg = replace(BASE, b_operands=pairs, a_operands=pairs, one_accumulator=one, a_major=a_major, stages=3).check()
    module = build_gemm_kernel(cfg)
    module.verify()
    a_tile, b_tile = 128 * 64 * 2, 64 * 64 * 2
    assert cfg.stage_bytes == cfg.tx_bytes == pairs * (a_tile + b_tile)
    (init,) = _ops(module, PipelineInitOp)
    assert list(init.transaction_size.get_values()) == [pairs * (a_tile + b_tile)]
    (commit,) = _ops(module, ProducerCommitOp)
    assert commit.transaction_bytes.value.data == pairs * (a_tile + b_tile)
    loads = _ops(module, CpAsyncBulkTensorGlobalToSharedClusterOp)
    args = module.body.block.ops.first.body.block.args
    a_maps = [args[0], *args[8 + pairs - 1:8 + 2 * (pairs - 1)]]  # A, then the other As after the other Bs
    b_maps = [args[1], *args[8:8 + pairs - 1]]
    a_boxes = 1 if a_major == "k" else 2  # (an M-major A: a box per consumer warp group's 64 columns)
    for tmap in a_maps:
        mine = [op for op in loads if op.tmaDescriptor is tmap]
        assert len(mine) == a_boxes and sum(op.attributes["cutlass.tx_bytes"].value.data for op in mine) == a_tile
    for tmap in b_maps:
        assert sum(op.attributes["cutlass.tx_bytes"].value.data for op in loads if op.tmaDescriptor is tmap) == b_tile
    assert len(loads) == pairs * (a_boxes + 1)
    mmas = _ops(module, WgmmaMmaAsyncOp)
    # one consumer body over both warp groups (TILEORCH_GEMM_SHARED_CONSUMER, default): one copy of the WGMMAs
    assert consumer_exec_masks(module) == [0b110]
    assert len(mmas) == pairs * (64 // 16)
    assert cfg.accumulator_registers == (32 if one else pairs * 32)


def test_dots_sharing_b_read_the_one_b_tile():
    """An A per dot beside one B (``A1 B - A2 B``): the stage holds both A tiles and one B tile, both pairs' WGMMAs
    read B's descriptor, two accumulators."""
    cfg = replace(BASE, b_operands=1, a_operands=2).check()
    assert cfg.pairs == 2 and cfg.tx_bytes == 2 * 128 * 64 * 2 + 64 * 64 * 2 and cfg.accumulator_registers == 64
    module = build_gemm_kernel(cfg)
    module.verify()
    assert len(_ops(module, CpAsyncBulkTensorGlobalToSharedClusterOp)) == 3
    mmas = _ops(module, WgmmaMmaAsyncOp)
    assert len(mmas) == 2 * 4  # (2 pairs x 4 K steps in the one consumer body of both warp groups)
    base = [(m.operands[1].owner.operands[0], m.operands[2].owner.operands[0]) for m in mmas]  # (A's, B's stage base)
    assert {b for _, b in base[:4]} == {b for _, b in base[4:]} and len({b for _, b in base}) == 1  # the one B tile
    assert len({a for a, _ in base[:4]} | {a for a, _ in base[4:]}) == 2  # each pair its own A tile


@pytest.mark.parametrize("one", [False, True])
def test_k_segments_run_the_pairs_one_after_the_other(one):
    """K segments: a stage holds one pair (the transaction count one A and one B tile), the producer and each consumer
    run one K loop per pair, the later pairs' K tile counts from the kernel's ``k1``; pair i's loads read A i's and
    B i's maps."""
    from xdsl.dialects import scf

    cfg = replace(BASE, b_operands=2, a_operands=2, k_segments=True, one_accumulator=one).check()
    assert cfg.stage_bytes == cfg.tx_bytes == (128 + 64) * 64 * 2
    module = build_gemm_kernel(cfg)
    module.verify()
    fn = module.body.block.ops.first
    args = fn.body.block.args
    assert [a.name_hint for a in args[8:11]] == ["tmap_b1", "tmap_a1", "k1"]
    k_loops = [o for o in module.walk() if isinstance(o, scf.ForOp) and any(
        isinstance(x, (CpAsyncBulkTensorGlobalToSharedClusterOp, WgmmaMmaAsyncOp)) for x in o.walk())]
    assert len(k_loops) == 2 * (1 + cfg.consumer_groups)  # two segments in the producer and in each consumer
    producer = k_loops[:2]
    for seg, loop in enumerate(producer):
        maps = {op.tmaDescriptor for op in loop.walk() if isinstance(op, CpAsyncBulkTensorGlobalToSharedClusterOp)}
        assert maps == ({args[0], args[1]} if seg == 0 else {args[8], args[9]})
    assert producer[1].lb is producer[0].ub  # the second segment's K tiles follow the first's
    consumer = k_loops[2:4]
    assert len(consumer[0].results) == (1 if one else 2) + 2 and consumer[1].operands[3:] == consumer[0].results


def test_one_accumulator_chains_the_pairs():
    """One accumulator: each pair's first WGMMA reads the previous pair's last result, a single loop-carried value."""
    cfg = replace(BASE, b_operands=2, a_operands=2, one_accumulator=True).check()
    mmas = _ops(build_gemm_kernel(cfg), WgmmaMmaAsyncOp)
    per_group = 2 * 4
    first_group = mmas[:per_group]
    for prev, nxt in zip(first_group, first_group[1:]):
        assert nxt.operands[0] is prev.results[0]


def test_two_accumulators_keep_the_pairs_apart():
    cfg = replace(BASE, b_operands=2, a_operands=2).check()
    mmas = _ops(build_gemm_kernel(cfg), WgmmaMmaAsyncOp)[:8]
    assert mmas[4].operands[0] is not mmas[3].results[0]  # pair 1 starts from its own accumulator


@pytest.mark.parametrize("kw,why", [
    (dict(b_operands=2, a_operands=3), "a_operands must be 1"),
    (dict(b_operands=3, a_operands=2), "a_operands must be 1"),
    (dict(b_operands=2, a_operands=2, a_raw="f16"), "an A per dot"),
    (dict(b_operands=2, a_operands=2, transpose_a=True, dtype="e4m3", b_major="k", out_dtype="f32"), "an A per dot"),
    (dict(one_accumulator=True), "one_accumulator"),
    (dict(b_operands=2, a_operands=2, schedule="streamk"), "Stream-K"),
    (dict(b_operands=1, a_operands=2, k_segments=True), "K segments"),
])
def test_the_rules_refuse_what_the_builder_does_not_make(kw, why):
    with pytest.raises(GemmConfigError, match=why):
        replace(BASE, **kw).check()


def test_the_name_says_an_a_per_dot_and_one_accumulator():
    assert replace(BASE, b_operands=2, a_operands=2, one_accumulator=True).name.endswith("_d2_a2_acc1")
    assert "_a2" not in replace(BASE, b_operands=2).name
