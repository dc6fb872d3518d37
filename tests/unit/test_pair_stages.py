"""A ring stage per operand pair (``GemmConfig.pair_stages``, ``TILEORCH_PAIR_STAGES=1``;
:mod:`tileorch.transforms.tileas.pair_stages`): the configuration's stage bytes and rules, the tier's choice and its
remark, the kernel's producer (one full barrier's expected bytes per pair per K tile) on session 27's cover programs,
their PTX under the PTX emulator against numpy float64 (ragged M and K, NaN-prefilled outputs), ptxas without spills
at the launcher's 128 x 256 retile, and ``tileorch check`` on the pipeline."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

pytest.importorskip("xdsl")

from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError  # noqa: E402
from tileorch.testing.gemm_structure import ptx_consumer_bodies  # noqa: E402
from tileorch.transforms.tileas.pair_stages import PAIR_STAGES_ENV, pair_stages_chosen  # noqa: E402

THREE = GemmConfig(tile_m=128, tile_n=128, tile_k=64, stages=2, schedule="persistent", dtype="f16", out_dtype="f32",
                   epilogue="direct", a_operands=3, b_operands=3, one_accumulator=True)
RETILE = "tile_n=256,stages=4,cluster_m=2,raster=heuristic,max_swizzle=1,producer_regs=40,consumer_regs=232,epilogue=direct"
"""The launcher's override for 4096 x 4096 x 4096 f16 -> f32 (``tileorch.launchers.gemm.default_config``)."""


def test_a_stage_holds_one_pairs_tiles():
    ps = replace(THREE, pair_stages=True).check()
    one_pair = (128 + 128) * 64 * 2
    assert THREE.stage_bytes == 3 * one_pair and ps.stage_bytes == ps.tx_bytes == one_pair
    assert ps.name.endswith("_ps") and not THREE.name.endswith("_ps")


@pytest.mark.parametrize("change, rule", [
    ({"a_operands": 1, "b_operands": 1, "one_accumulator": False}, "a stage per operand pair"),
    ({"a_operands": 2, "b_operands": 1, "one_accumulator": False, "tile_n": 64}, "a stage per operand pair"),
    ({"k_segments": True}, "not K segments"),
])
def test_the_rules_refuse_a_stage_per_pair_without_pairs(change, rule):
    with pytest.raises(GemmConfigError, match=rule):
        replace(THREE, pair_stages=True, **change).check()


@pytest.mark.parametrize("pairs,one", [(2, False), (3, True)])
def test_the_builder_commits_a_stage_per_pair(pairs, one):
    """The kernel builder: the pipeline's transaction size and each of the ``pairs`` producer commits per K tile one
    pair's A and B tiles, every pair's TMA loads into its stage's first slots (no offset past one pair), the WGMMAs
    per K step unchanged."""
    from tileorch.dialects.cutlass.pipeline import PipelineInitOp, ProducerCommitOp
    from tileorch.dialects.nvvm_payload import CpAsyncBulkTensorGlobalToSharedClusterOp, WgmmaMmaAsyncOp
    from tileorch.kernels.gemm.build import build_gemm_kernel
    from tileorch.testing.gemm_structure import consumer_exec_masks

    cfg = replace(THREE, tile_n=64, stages=4, out_dtype="f16", a_operands=pairs, b_operands=pairs,
                  one_accumulator=one, pair_stages=True).check()
    module = build_gemm_kernel(cfg)
    module.verify()
    one_pair = (128 + 64) * 64 * 2

    def ops(cls):
        return [op for op in module.walk() if isinstance(op, cls)]

    (init,) = ops(PipelineInitOp)
    assert list(init.transaction_size.get_values()) == [one_pair]
    commits = ops(ProducerCommitOp)
    assert [c.transaction_bytes.value.data for c in commits] == [one_pair] * pairs
    assert len(ops(CpAsyncBulkTensorGlobalToSharedClusterOp)) == 2 * pairs
    assert not [v for op in module.walk() for v in op.results if (v.name_hint or "").startswith(("a1_off", "b1_off"))]
    # one consumer body over both warp groups (TILEORCH_GEMM_SHARED_CONSUMER, default): one copy of the WGMMAs
    assert consumer_exec_masks(module) == [0b110]
    assert len(ops(WgmmaMmaAsyncOp)) == pairs * (64 // 16)


def test_the_tier_chooses_it_by_default_and_0_turns_it_off(monkeypatch):
    monkeypatch.setenv(PAIR_STAGES_ENV, "0")
    cfg, why = pair_stages_chosen(THREE)
    assert cfg is THREE and f"{PAIR_STAGES_ENV}=1: a stage per operand pair" in why
    monkeypatch.delenv(PAIR_STAGES_ENV, raising=False)
    cfg, why = pair_stages_chosen(THREE)
    assert (cfg.pair_stages, cfg.stages) == (True, 6) and "3 consecutive stages" in why
    seg = replace(THREE, k_segments=True, one_accumulator=False)
    assert pair_stages_chosen(seg) == (seg, "each stage holds all 3 operand pairs' tiles; no stage per operand "
                                            "pair: K segments already hold one pair a stage")
    single = replace(THREE, a_operands=1, b_operands=1, one_accumulator=False)
    assert pair_stages_chosen(single) == (single, "")


# ------------------------------------------------------------------------------------- the cover programs' kernels

pytest.importorskip("cuda.tile")
from tileorch.testing.cover27_programs import PROGRAMS  # noqa: E402


def _compile(name: str, config: str = "", ptxas: bool = False):
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS[name]
    return compile_cutile(p.kernel, p.spec, name, config=config, ptxas=ptxas)


@pytest.fixture
def pair_stages(monkeypatch):
    monkeypatch.setenv(PAIR_STAGES_ENV, "1")


def test_three_pairs_fill_three_stages_per_k_tile(monkeypatch):
    """The producer's K loop commits three stages (three expected-byte arrivals, each one pair's bytes) where the
    whole-pair kernel commits one; the consumers' WGMMAs per K step are the same."""
    monkeypatch.setenv(PAIR_STAGES_ENV, "0")
    assert len(re.findall(r"mbarrier\.arrive\.expect_tx", _compile("three_operand_pairs").ptx)) == 1
    monkeypatch.delenv(PAIR_STAGES_ENV, raising=False)
    prog = _compile("three_operand_pairs")
    cfg = prog.gemm_config
    assert cfg.pair_stages and cfg.stage_bytes == (cfg.tile_m + cfg.tile_n) * cfg.tile_k * 2
    assert any("a stage per operand pair instead" in r for r in prog.remarks), prog.remarks
    assert len(re.findall(r"mbarrier\.arrive\.expect_tx", prog.ptx)) == 3
    # (one consumer body for both warp groups: TILEORCH_GEMM_SHARED_CONSUMER, default)
    assert cfg.consumer_groups == 2 and ptx_consumer_bodies(prog.ptx) == 1
    assert len(re.findall(r"wgmma\.mma_async", prog.ptx)) == 3 * cfg.tile_k // cfg.mma_k


def test_the_launchers_retile_keeps_256_columns_without_spills(pair_stages):
    """At the launcher's 128 x 256 tile, three pairs a stage were narrowed to 128 columns and 2 stages; a stage per
    pair keeps 256 columns in 4 stages, and ptxas assembles it without spills."""
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    cfg = _compile("three_operand_pairs", RETILE).gemm_config
    assert (cfg.tile_n, cfg.stages, cfg.pair_stages) == (256, 4, True)
    if not ptxas_available():
        pytest.skip("no ptxas")
    for name in ("three_operand_pairs", "concat_k_linear_bt"):
        assert not run_ptxas(_compile(name, RETILE).ptx, "sm_90a").spill_warnings(), name


def test_the_pipeline_is_proved_at_the_launchers_retile(pair_stages):
    """``tileorch check`` on concat-K's kernel at the launcher's 128 x 256 tile in 2-CTA clusters (nn.Linear's
    K-major Bs): two stages per K tile, their B tiles multicast, free of deadlocks and races."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    p, ctx = PROGRAMS["concat_k_linear_bt"], make_context()
    kind, lowered = lower_program(load(cutile_bytecode(p.kernel, p.spec), "concat_k_linear_bt", ctx), ctx,
                                  config=RETILE, remarks=[])
    protocols = extract(lowered)
    assert kind == "gemm" and protocols
    assert all(proto.name.endswith("_c2x1_persistent_r40_232_heuristic_sw1_edirect_d2_a2_acc1_ps") for proto in protocols)
    for result in (check(proto) for proto in protocols):
        assert result.ok, (result.values, result.violation)


@pytest.mark.parametrize("case", ["three_operand_pairs", "concat_k_linear_bt", "two_k_loops_two_accumulators",
                                  "dual_input_gated_batched"])
def test_the_ptx_against_numpy(pair_stages, monkeypatch, case):
    """Session 27's emulator cases (ragged M = 200 and K = 136 / 200, NaN-prefilled outputs) on the kernel of a
    stage per pair: one accumulator, nn.Linear's [N, K] weights, two accumulators, a batch grid dimension."""
    pytest.importorskip("ml_dtypes")
    import test_cover27_emulated as c27
    import test_user_sweep4_emulated as s4
    import test_user_sweep14_emulated as s14e

    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    assert _compile(case, s14e.CONFIG).gemm_config.pair_stages
    c27.CASES[case]()  # (NaN-prefilled output against numpy: the case's own assertions)


def test_the_launchers_stages_count_whole_pairs(pair_stages):
    """The launcher's ``stages=4`` (whole pairs' stages) becomes 4 x 2 stages of one pair, trimmed to what fits beside
    the epilogue's staging: two accumulators narrowed to 128 columns, 32 KiB a pair, 32 KiB of TMA staging."""
    from tileorch.kernels.gemm.config import SMEM_LIMIT

    cfg = _compile("two_k_loops_two_accumulators", RETILE.replace("epilogue=direct", "epilogue=tma")).gemm_config
    assert cfg.pair_stages and cfg.tile_n == 128 and cfg.stage_bytes == (128 + 128) * 64 * 2
    fits = max(s for s in range(2, 4 * 2 + 1) if s * cfg.stage_bytes + cfg.epilogue_bytes <= SMEM_LIMIT)
    assert cfg.stages == fits
