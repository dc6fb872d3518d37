"""The 128 x 192 choice for an N-major B (``launchers.gemm.default_config``: 1x1 clusters, a
192-column tile not being two multicast halves of whole 64-column boxes) and the cuTile launcher's
retile choice (``launchers.cutile.retile_config``): the program's layouts kept, its remark naming the
tile width and the wave efficiencies."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.kernels.gemm.config import GemmConfig
from tileorch.launchers.cutile import retile_config
from tileorch.launchers.gemm import default_config

SMS = 132


def test_n_major_b_takes_192_wide_tiles_in_one_cta_clusters():
    """1344 x 6272 x 2048 with B ``[K, N]`` (torch's layout): raised GemmConfigError before (2x1
    multicast of 96 N-major columns); 192-wide tiles in 1x1 clusters now, K-major keeps 2x1."""
    n_major = default_config(1344, 6272, 2048, "f16", "f16", "n", "auto", SMS)
    k_major = default_config(1344, 6272, 2048, "f16", "f16", "k", "auto", SMS)
    assert (n_major.tile_n, n_major.cluster_m) == (192, 1)
    assert (k_major.tile_n, k_major.cluster_m) == (192, 2)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 16384), st.integers(1, 2048), st.integers(8, 16384), st.sampled_from(["n", "k"]),
       st.sampled_from(["f16", "f32"]), st.sampled_from([6, 78, 114, 132]))
def test_every_auto_choice_is_a_valid_configuration(m, n8, k, b_major, out_dtype, sms):
    cfg = default_config(m, 8 * n8, k // 8 * 8, "f16", out_dtype, b_major, "auto", sms)  # (check() raises if not)
    assert cfg.b_major == "k" or (cfg.tile_n // cfg.cluster_m) % 64 == 0


def test_retile_keeps_the_program_layouts_and_says_why():
    program = GemmConfig(dtype="f16", out_dtype="f32", b_major="n", batched=True, epilogue="direct")
    chosen, why = retile_config(program, 1344, 6272, 2048, "n", "auto", SMS, c_ld=False)
    assert (chosen.tile_n, chosen.cluster_m, chosen.batched, chosen.c_ld, chosen.out_dtype) == (192, 1, True, False,
                                                                                                "f32")
    assert why.startswith("remark: retiled to 128 x 192 tiles (persistent, 1x1 clusters)"), why
    assert "256-wide 0.69" in why and "192-wide 0.92" in why, why  # 275/396 and 363/396 SM-slots busy


def test_retile_without_192_keeps_the_auto_rule_of_256():
    program = GemmConfig(dtype="f16", out_dtype="f16", b_major="k")
    chosen, why = retile_config(program, 1344, 6272, 2048, "k", "auto", SMS, False, tile_192=False)
    assert chosen.tile_n == 256 and "retiled to 128 x 256 tiles" in why, why


def test_the_narrower_retiles_leave_half_the_accumulator_registers_to_the_epilogue():
    """After a spilled retile (``launchers.cutile.narrower_retiles``): the widest builder tile whose accumulator takes
    at most half of the consumer's accumulator registers (one f32 accumulator: 128 columns, 64 registers), in the
    spilled choice's clusters and then in 1x1, its ring in the shared memory the wider tile's took; nothing wider
    than the spilled tile, nothing already tried."""
    from tileorch.kernels.gemm.config import ACCUMULATOR_REGISTERS
    from tileorch.launchers.cutile import narrower_retiles

    wide = default_config(4096, 4096, 64, "f16", "f32", "n", "auto", SMS)  # (100 x 80: one tile, 128 x 128 since s42)
    assert (wide.tile_n, wide.cluster_m) == (256, 2)
    got = narrower_retiles(wide)
    assert [(c.tile_n, c.cluster_m) for c in got] == [(128, 2), (128, 1)]
    assert all(2 * c.accumulator_registers <= ACCUMULATOR_REGISTERS for c in got)
    assert all(c.stages * c.stage_bytes <= wide.stages * wide.stage_bytes for c in got)
    assert [(c.tile_n, c.cluster_m) for c in narrower_retiles(got[0])] == [(128, 1)]
    assert narrower_retiles(got[1]) == []
