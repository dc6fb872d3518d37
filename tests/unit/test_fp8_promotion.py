"""The GEMM tier's choice of two-level accumulation for an e4m3 / e5m2 dot (transforms/tileas/fp8_promotion.py)
and the builder's rules for it (GemmConfig.fp8_promote): promoted by default every K tile; not where the program
asks for fast accumulation, where the setting is 0, or where the kernel runs several dots, a register A or a
second dot; a 256-column tile narrowed to 128 (the scratch accumulator's registers) when its epilogue allows,
else not promoted.  Every outcome a remark saying why.  No cuTile, no GPU."""

from __future__ import annotations

import pytest

from tileorch.kernels.gemm.config import ACCUMULATOR_REGISTERS, GemmConfig, GemmConfigError
from tileorch.transforms.tileas.fp8_promotion import ENV, promotion

FP8 = GemmConfig(dtype="e4m3", out_dtype="f32", epilogue="direct", tile_n=128, tile_k=128, cluster_m=1)


def _choose(cfg=FP8, retile_safe=True, fast=False):
    return promotion(cfg, retile_safe, cfg.dtype, ACCUMULATOR_REGISTERS, fast)


def test_default_promotes_every_k_tile(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    cfg, why = _choose()
    assert cfg.fp8_promote == 1 and cfg.tile_n == 128 and cfg.accumulator_registers == 128
    assert f"accumulated in two levels ({ENV}=1)" in why and "1 K tile (128 products)" in why
    cfg.check()


@pytest.mark.parametrize("p", [2, 3, 64])
def test_the_interval_is_the_setting(p, monkeypatch):
    monkeypatch.setenv(ENV, str(p))
    cfg, why = _choose()
    assert cfg.fp8_promote == p and f"{p} K tiles ({p * 128} products)" in why
    assert cfg.name.endswith(f"_pr{p}")


def test_zero_and_fast_accumulation_do_not_promote(monkeypatch):
    monkeypatch.setenv(ENV, "0")
    cfg, why = _choose()
    assert cfg == FP8 and f"(no promotion: {ENV}=0)" in why
    monkeypatch.setenv(ENV, "1")
    cfg, why = _choose(fast=True)
    assert cfg == FP8 and "use_fast_acc=True" in why and "summed by the WGMMAs themselves" in why


def test_a_wide_tile_is_narrowed_or_not_promoted(monkeypatch):
    monkeypatch.setenv(ENV, "1")
    wide = GemmConfig(dtype="e5m2", out_dtype="f32", epilogue="direct", tile_n=256, tile_k=128)
    cfg, why = _choose(wide)
    assert (cfg.tile_n, cfg.fp8_promote) == (128, 1) and "the 128x256 tile runs as 128x128" in why
    # 4 stages of 16 + 32 KiB planned: 6 of 16 + 16 KiB in the same shared memory
    assert cfg.stages == 6 and "its ring 6 stages of 32768 bytes in the planned 4 x 49152" in why, why
    cfg.check()
    cfg, why = _choose(wide, retile_safe=False)
    assert cfg == wide and "not promoted although" in why and "need 256 registers per consumer thread" in why


@pytest.mark.parametrize("change,words", [
    (dict(b_operands=2), "the K loop runs 2 dots"),
    (dict(a_regs=True, a_raw="f16"), "register operand"),
    (dict(epi_n=64), "a second dot reads the accumulator"),
])
def test_forms_not_built_say_so(change, words, monkeypatch):
    monkeypatch.setenv(ENV, "1")
    from dataclasses import replace

    cfg, why = _choose(replace(FP8, **change))
    assert cfg.fp8_promote == 0 and "not promoted although" in why and words in why, why


@pytest.mark.parametrize("change", [dict(dtype="bf16"), dict(b_operands=2), dict(tile_n=256), dict(fp8_promote=-1)])
def test_the_builder_refuses_promotion_it_does_not_build(change):
    from dataclasses import replace

    with pytest.raises(GemmConfigError):
        replace(FP8, fp8_promote=1, **change).check() if "fp8_promote" not in change else \
            replace(FP8, **change).check()


@pytest.mark.parametrize("tile_n", [128, 256])
def test_the_promoted_kernel_assembles_without_spills(tile_n, monkeypatch):
    """ptxas -v on the promoted kernel: the program's 128x128 tile, and its 128x256 tile narrowed to 128x128 (the
    main accumulator and the scratch: 128 registers a consumer thread); no spill, no serialized WGMMAs."""
    pytest.importorskip("cuda.tile")
    from tileorch.backend.ptxas import ptxas_available

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    from tileorch.testing import fp8_promotion_programs as fp
    from tileorch.testing.gemm_emulation import compile_cutile

    monkeypatch.setenv(ENV, "1")
    p = fp.PROGRAMS["fp8_e4m3_long_k_f32_out"]
    spec = list(p.spec)
    spec[4] = tile_n
    prog = compile_cutile(p.kernel, spec, f"fp8_promoted_{tile_n}", ptxas=True)
    cfg = prog.gemm_config
    assert (cfg.tile_n, cfg.fp8_promote) == (128, 1), cfg.name
    resources = [r for r in prog.remarks if r.startswith("remark: ptxas:")]
    assert resources and all(" 0 spills" in r for r in resources), prog.remarks
    assert not [r for r in prog.remarks if r.startswith("warning: ptxas")], prog.remarks


@pytest.mark.parametrize("tile_n, p, fast, want", [(128, 1, False, 1), (128, 0, False, 0), (128, 2, True, 0),
                                                    (256, 1, False, 0), (192, 1, False, 0)])
def test_an_asked_configuration_keeps_its_tile(tile_n, p, fast, want):
    """A configuration given to the lowering (``tileorch.gemm``'s; the launcher's retiled one: session 39's CI,
    where the tier narrowed an asked 128x256 e4m3 tile and promoted what tileorch.gemm built unpromoted, so the
    kernel differed from the one asked for): its ``fp8_promote`` where the asked tile leaves the registers, never a
    narrower tile."""
    from tileorch.transforms.tileas.fp8_promotion import asked

    cfg = GemmConfig(tile_n=tile_n, dtype="e4m3")
    got, why = asked(cfg, p, "e4m3", ACCUMULATOR_REGISTERS, fast)
    assert got.tile_n == tile_n and got.fp8_promote == want, why
    assert ("two levels" in why) == bool(want)


@pytest.mark.parametrize("fast, want", [(False, 1), (True, 0)])
def test_the_launchers_retiled_configuration_keeps_the_default_promotion(fast, want, monkeypatch):
    """The launcher retiles a GEMM program for its shape (``retile_config``) and gives the configuration to the
    lowering whole, ``fp8_promote`` included: session 39's CI fix made the tier honour a given ``fp8_promote``, and
    the retiled configuration (``tileorch.gemm``'s tile rule) carried 0, so the GPU's 1024 x 1024 x 4096 e4m3 launch
    ran unpromoted (max rel error 3.6e-2, tests/gpu/test_fp8_promotion_gpu.py, session 40).  Now: promoted as the
    tier promoted the program unasked (the wide tile narrowed to 128 columns), and a ``use_fast_acc=True`` program
    keeps its one-level sum and its tile (review M3: it was narrowed and said two-level)."""
    pytest.importorskip("cuda.tile")
    from tileorch.kernels.gemm.config import override_string
    from tileorch.launchers.cutile import retile_config
    from tileorch.testing import fp8_promotion_programs as fp
    from tileorch.testing.gemm_emulation import compile_cutile

    monkeypatch.setenv(ENV, "1")
    name = "fp8_e4m3_long_k_fast_acc" if fast else "fp8_e4m3_long_k_f32_out"
    p = fp.PROGRAMS[name]
    own = compile_cutile(p.kernel, list(p.spec), f"{name}_own").gemm_config
    chosen, why = retile_config(own, 1024, 1024, 4096, own.b_major, "auto", 132, False)
    # (promoted: narrowed to the registers' width; fast: the auto rule's 192-wide tile, not narrowed for nothing)
    assert (chosen.tile_n <= ACCUMULATOR_REGISTERS, chosen.fp8_promote) == (bool(want), want), why
    assert ("runs as 128x128" in why) == bool(want), why
    prog = compile_cutile(p.kernel, list(p.spec), f"{name}_retiled", schedule=chosen.schedule,
                          config=override_string(chosen))
    assert prog.gemm_config.fp8_promote == want, prog.remarks
    said = "are accumulated in two levels" if want else "are summed by the WGMMAs themselves"
    assert any(said in r for r in prog.remarks), prog.remarks


def test_a_retiled_fp8_launch_says_each_fact_once(monkeypatch):
    """The remarks of a retiled, narrowed, promoted fp8 launch (the launcher's retile remark, then the tier's remarks
    of the retiled compile): the narrowing said once (by the launcher, in the words ``narrowed_for_scratch`` builds
    for the tier too), the two-level accumulation and its ``fp8_promote`` once (by the tier, at the dot).  Session
    40's retile remark repeated the tier's ("run as 128 x 128 with two-level fp8 accumulation (fp8_promote=1 ...")."""
    pytest.importorskip("cuda.tile")
    from tileorch.kernels.gemm.config import override_string
    from tileorch.launchers.cutile import retile_config
    from tileorch.testing import fp8_promotion_programs as fp
    from tileorch.testing.gemm_emulation import compile_cutile
    from tileorch.transforms.tileas.fp8_promotion import narrowed_for_scratch

    monkeypatch.setenv(ENV, "1")
    name = "fp8_e4m3_long_k_f32_out"
    p = fp.PROGRAMS[name]
    own = compile_cutile(p.kernel, list(p.spec), f"{name}_own").gemm_config
    chosen, why = retile_config(own, 1024, 1024, 4096, own.b_major, "auto", 132, False)
    prog = compile_cutile(p.kernel, list(p.spec), f"{name}_retiled", schedule=chosen.schedule,
                          config=override_string(chosen))
    said = [why, *prog.remarks]
    assert narrowed_for_scratch(GemmConfig(dtype="e4m3", tile_n=192), ACCUMULATOR_REGISTERS)[1].split("(")[0] in why, why
    for fact in ("runs as 128x128", "are accumulated in two levels", "fp8_promote=1", "two-level accumulation scratch"):
        assert sum(r.count(fact) for r in said) == 1, (fact, said)
