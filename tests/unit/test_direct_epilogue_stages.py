"""The K loop's ring of a GEMM whose epilogue stores C from registers, over the shared memory the schedule kept for
C's TMA store staging (``TILEORCH_DIRECT_EPILOGUE_STAGES=1``, :mod:`tileorch.transforms.tileas.direct_epilogue_stages`):
the choice and its remark on configurations, session 27's ``three_operand_pairs`` (f32 C at its own 128 x 64 tile:
3 whole-pair stages where the schedule planned 2, 9 per-pair stages where it planned 6) and an f32 GEMM at 128 x 128
(7 stages where 6 were planned), their PTX under the PTX emulator against numpy float64 (ragged shapes, NaN-prefilled
outputs), ptxas without spills and ``tileorch check``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("xdsl")

from tileorch.kernels.gemm.config import SMEM_LIMIT, GemmConfig  # noqa: E402
from tileorch.transforms.tileas.direct_epilogue_stages import (  # noqa: E402
    DIRECT_EPILOGUE_STAGES_ENV, direct_epilogue_stages)
from tileorch.transforms.tileas.pair_stages import PAIR_STAGES_ENV  # noqa: E402

THREE = GemmConfig(tile_m=128, tile_n=64, tile_k=64, stages=2, cluster_m=1, schedule="persistent", dtype="f16",
                   out_dtype="f32", epilogue="direct", a_operands=3, b_operands=3, one_accumulator=True)
"""``three_operand_pairs`` at its own tile, whole pairs a stage (72 KiB), the 2 stages the schedule planned."""


def _fits(cfg) -> bool:
    return cfg.smem_bytes <= SMEM_LIMIT


@pytest.fixture
def on(monkeypatch):
    monkeypatch.setenv(DIRECT_EPILOGUE_STAGES_ENV, "1")


def test_the_direct_epilogue_takes_as_many_stages_as_fit(on):
    cfg, why = direct_epilogue_stages(THREE, _fits)
    assert cfg.stages == SMEM_LIMIT // THREE.stage_bytes == 3 and cfg.smem_bytes <= SMEM_LIMIT
    assert why.startswith(f"{DIRECT_EPILOGUE_STAGES_ENV}=1: the K loop's ring has 3 stages of 73728 bytes")
    assert "planned 2" in why and "direct epilogue stores C from registers" in why


def test_a_ring_of_a_stage_per_pair_counts_whole_pairs(on):
    """Per-pair stages (24 KiB each): as many as fit (9), at most 8 whole pairs' worth (16, the builder's bound)."""
    per_pair = replace(THREE, pair_stages=True, stages=6)
    assert direct_epilogue_stages(per_pair, _fits)[0].stages == 9
    small = replace(per_pair, tile_n=64, dtype="e4m3", one_accumulator=True)  # 12 KiB a stage: 18 would fit
    assert direct_epilogue_stages(small, _fits)[0].stages == 16


def test_the_tma_epilogue_and_the_default_keep_the_schedules_stages(monkeypatch):
    monkeypatch.setenv(DIRECT_EPILOGUE_STAGES_ENV, "1")
    tma = replace(THREE, out_dtype="f16", epilogue="tma")
    assert direct_epilogue_stages(tma, _fits) == (tma, None)
    assert direct_epilogue_stages(replace(THREE, stages=3), _fits) == (replace(THREE, stages=3), None)  # full already
    monkeypatch.delenv(DIRECT_EPILOGUE_STAGES_ENV)
    assert direct_epilogue_stages(THREE, _fits) == (THREE, None)


# ------------------------------------------------------------------------------------- the cover program's kernel

pytest.importorskip("cuda.tile")
from tileorch.testing.cover27_programs import PROGRAMS  # noqa: E402


def _compile(config: str = "", ptxas: bool = False):
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS["three_operand_pairs"]
    return compile_cutile(p.kernel, p.spec, "three_operand_pairs", config=config, ptxas=ptxas)


@pytest.mark.parametrize("pairs, planned, stages", [("0", 2, 3), ("1", 6, 9)])
def test_three_operand_pairs_gets_the_staging_bytes(monkeypatch, pairs, planned, stages):
    monkeypatch.setenv(PAIR_STAGES_ENV, pairs)
    monkeypatch.setenv(DIRECT_EPILOGUE_STAGES_ENV, "0")
    assert _compile().gemm_config.stages == planned
    monkeypatch.setenv(DIRECT_EPILOGUE_STAGES_ENV, "1")
    prog = _compile()
    cfg = prog.gemm_config
    assert (cfg.epilogue, cfg.epilogue_bytes, cfg.stages) == ("direct", 0, stages)
    assert any(f"ring has {stages} stages" in r and f"planned {planned}" in r for r in prog.remarks), prog.remarks
    assert cfg.smem_bytes <= SMEM_LIMIT < (stages + 1) * cfg.stage_bytes


def test_a_launchers_stage_count_is_kept(on, monkeypatch):
    """An override naming the stages (the launcher's) is the ring's count as before (whole pairs a stage: 2; a
    stage per pair: 3 for each)."""
    monkeypatch.setenv(PAIR_STAGES_ENV, "0")
    assert _compile("stages=2,epilogue=direct").gemm_config.stages == 2
    monkeypatch.setenv(PAIR_STAGES_ENV, "1")
    assert _compile("stages=2,epilogue=direct").gemm_config.stages == 6


@pytest.mark.parametrize("pairs", ["0", "1"])
def test_three_operand_pairs_emulated_against_numpy(monkeypatch, pairs):
    """The deeper ring's kernel on ragged M = 200, K = 136 (two full K tiles and an 8-wide one), C NaN-prefilled."""
    import test_cover27_emulated as c27

    monkeypatch.setenv(PAIR_STAGES_ENV, pairs)
    monkeypatch.setenv(DIRECT_EPILOGUE_STAGES_ENV, "1")
    c27.s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(c27.s14e, "PROGRAMS", {**c27.s14e.PROGRAMS, **PROGRAMS})
    assert _compile(c27.s14e.CONFIG).gemm_config.stages == (9 if pairs == "1" else 3)
    rng = np.random.default_rng(29)
    xs = [rng.standard_normal((200, 136)).astype(np.float16) for _ in range(3)]
    ws = [(rng.standard_normal((136, 128)) * 0.25).astype(np.float16) for _ in range(3)]
    y = c27.emulate("three_operand_pairs", {0: xs[0], 1: ws[0], 2: xs[1], 3: ws[1], 4: xs[2], 5: ws[2],
                                            6: np.full((200, 128), np.nan, np.float32)})[6]
    c27.s14e._check(y, sum(c27._mm(x, w) for x, w in zip(xs, ws)), 1e-3, 1e-4)


def test_no_spills(on):
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    prog = _compile()
    assert prog.gemm_config.stages == 9
    if not ptxas_available():
        pytest.skip("no ptxas")
    assert not run_ptxas(prog.ptx, "sm_90a").spill_warnings()


@pytest.mark.parametrize("pairs, stages", [("0", 3), ("1", 9)])
def test_the_deeper_pipeline_is_proved(monkeypatch, pairs, stages):
    """``tileorch check`` on the kernel's pipeline at its own tile: the deeper ring free of deadlocks and races."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv(PAIR_STAGES_ENV, pairs)
    monkeypatch.setenv(DIRECT_EPILOGUE_STAGES_ENV, "1")
    p, ctx = PROGRAMS["three_operand_pairs"], make_context()
    kind, lowered = lower_program(load(cutile_bytecode(p.kernel, p.spec), "three_operand_pairs", ctx), ctx,
                                  remarks=[])
    protocols = extract(lowered)
    assert kind == "gemm" and protocols
    assert all(f"_s{stages}_" in proto.name for proto in protocols), [proto.name for proto in protocols]
    for result in (check(proto) for proto in protocols):
        assert result.ok, (result.values, result.violation)


def test_an_f32_gemm_at_128x128_emulated_against_numpy(on):
    """``mm_clamp_tanh`` (f16 in, ``tanh(clamp(acc))`` stored as f32) at its 128 x 128 tiles: 7 stages where the
    schedule planned 6 beside 64 KiB of C's staging; ragged M = 200, N = 192, K = 136, C prefilled with NaN."""
    import test_user_sweep3_emulated as s3

    from tileorch.testing.gemm_emulation import compile_cutile
    from tileorch.testing.user_programs import PROGRAMS as USER

    p = replace(USER["mm_clamp_tanh"], spec=[((200, 136), "float16"), ((136, 192), "float16"),
                                             ((200, 192), "float32"), -1.0, 2.0, 128, 128, 64], grid=(2, 2))
    prog = compile_cutile(p.kernel, p.spec, "mm_clamp_tanh", config="cluster_m=1,epilogue=direct")  # (s3._gemm's)
    assert prog.gemm_config.stages == 7 and any("ring has 7 stages" in r and "planned 6" in r for r in prog.remarks)
    rng = np.random.default_rng(290)
    a = rng.standard_normal((200, 136)).astype(np.float16)
    b = (rng.standard_normal((136, 192)) * 0.25).astype(np.float16)
    c = s3._gemm("mm_clamp_tanh", {0: a, 1: b, 2: np.full((200, 192), np.nan, np.float32)}, program=p)[2]
    ref = np.tanh(np.clip(a.astype(np.float64) @ b.astype(np.float64), -1.0, 2.0))
    assert not np.isnan(c).any(), "unwritten outputs"
    np.testing.assert_allclose(c, ref, atol=2e-3, rtol=2e-3)
