"""``tileorch.gemm``'s automatic configuration (``launchers.gemm.default_config``): the tile width whose
wave efficiency (weighted by its measured full-wave speed) is best, Stream-K only where no data-parallel
walk keeps 85% of the SM-waves busy and K >= 8192."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.launchers.gemm import N192_EFFICIENCY, default_config, wave_efficiency

SMS = 132


def _score(m, n, tile_n):
    return (N192_EFFICIENCY if tile_n == 192 else 1.0) * wave_efficiency(m, n, tile_n, SMS)


def test_wave_efficiency_counts_the_last_wave():
    # 11 x 25 = 275 tiles of 128 x 256: three waves of 132, the last holding 11
    assert math.isclose(wave_efficiency(1344, 6272, 256, SMS), 275 / 396)
    assert math.isclose(wave_efficiency(1344, 6272, 192, SMS), 363 / 396)


def test_a_wave_quantised_shape_takes_192_wide_tiles():
    """1344 x 6272 x 2048 (the suite): 0.739 of cuBLAS at 128 x 256, 0.902 at 128 x 192 (H100, session 30)."""
    cfg = default_config(1344, 6272, 2048, "bf16", "bf16", "k", "auto", SMS)
    assert (cfg.tile_n, cfg.stages, cfg.schedule) == (192, 4, "persistent")


def test_full_waves_keep_256_wide_tiles():
    for m, n, k in ((4096, 4096, 4096), (8192, 8192, 8192), (1920, 1920, 16384)):
        cfg = default_config(m, n, k, "bf16", "bf16", "k", "auto", SMS)
        assert (cfg.tile_n, cfg.schedule) == (256, "persistent"), (m, n, k)


def test_long_k_with_no_good_wave_takes_stream_k_on_256_wide_tiles():
    cfg = default_config(2016, 2176, 8192, "bf16", "bf16", "k", "auto", SMS)
    assert (cfg.tile_n, cfg.schedule) == (256, "streamk")


def test_the_cutile_path_can_leave_192_out():
    cfg = default_config(1344, 6272, 2048, "bf16", "bf16", "k", "auto", SMS, tile_192=False)
    assert cfg.tile_n == 256


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 16384), st.integers(8, 16384), st.integers(8, 32768))
def test_the_choice_is_the_best_scored_tile(m, n, k):
    n, k = n // 8 * 8 or 8, k // 8 * 8 or 8
    cfg = default_config(m, n, k, "bf16", "bf16", "k", "auto", SMS)
    best = max(_score(m, n, t) for t in (256, 192))
    if m <= 128 and n <= 256 and cfg.schedule != "streamk":  # one tile covers it (every width scores the same)
        assert cfg.tile_n == min(t for t in (128, 192, 256) if t >= n) and cfg.cluster_m == 1
    elif cfg.schedule == "streamk":
        assert cfg.tile_n == 256 and k >= 8192
        assert max(best, _score(m, n, 128) if cfg.tile_n == 128 else 0) < 0.85
    elif cfg.tile_n == 192:
        assert _score(m, n, 192) > _score(m, n, 256)
    elif cfg.tile_n == 256:
        assert _score(m, n, 256) >= _score(m, n, 192)
    else:  # the short-K rule's 128-wide tile, then kept unless 192 scores higher
        assert k <= 2048 and cfg.tile_n == 128 and _score(m, n, 128) >= _score(m, n, 192)


def test_stream_k_keeps_the_multicast_cluster_for_an_n_major_b():
    """Stream-K runs 128 x 256 tiles in 2x1 clusters whatever tile the data-parallel choice scored best
    (the 192 rule's 1x1 cluster for an N-major B was kept on the Stream-K kernel: the final review)."""
    for m, n, k in ((2016, 2176, 8192), (4096, 2176, 16384), (1088, 15232, 16384)):
        cfg = default_config(m, n, k, "bf16", "bf16", "n", "auto", SMS)
        if cfg.schedule == "streamk":
            assert (cfg.tile_n, cfg.cluster_m) == (256, 2), (m, n, k, cfg)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 128), st.integers(1, 256), st.integers(8, 8184), st.sampled_from(["k", "n"]),
       st.booleans(), st.sampled_from([1, 66, 132]))
def test_a_problem_smaller_than_one_tile_takes_the_narrowest_covering_tile(m, n, k, b_major, tile_192, sms):
    """Session 41: 100 x 80 took 128 x 256 tiles in 2x1 clusters.  For a problem one 128 x 256 tile covers (K below
    Stream-K's 8192): the chosen tile never exceeds N padded to the next valid width when a narrower valid
    configuration exists (each width checked valid here: ``GemmConfig.check``), and no cluster."""
    from dataclasses import replace

    from tileorch.kernels.gemm.config import GemmConfigError

    cfg = default_config(m, n, k, "bf16", "bf16", b_major, "auto", sms, tile_192)
    assert cfg.cluster_m == 1 and cfg.tile_n >= n and cfg.schedule == "persistent"
    for narrower in (t for t in (128, 192, 256) if n <= t < cfg.tile_n):
        try:
            replace(cfg, tile_n=narrower).check()
        except GemmConfigError:
            continue
        assert narrower == 192 and not tile_192, (m, n, cfg.tile_n, narrower)  # (192 left out when asked)


def test_a_one_tile_retile_says_why():
    """The launcher's retile of a 100 x 80 GEMM program (sweep 26's C-reading shape of session 41): 128 x 128 in 1x1
    clusters, and its remark says one tile covers the problem."""
    from tileorch.kernels.gemm.config import GemmConfig
    from tileorch.launchers.cutile import retile_config

    chosen, why = retile_config(GemmConfig(dtype="f16", out_dtype="f32", b_major="n"), 100, 80, 64, "n", "auto",
                                SMS, False)
    assert (chosen.tile_n, chosen.cluster_m, chosen.schedule) == (128, 1, "persistent")
    assert "retiled to 128 x 128 tiles (persistent, 1x1 clusters) for 100 x 80 x 64" in why
    assert "one tile covers 100 x 80: the narrowest tile covering N, no cluster" in why


def test_a_batched_one_tile_retile_names_each_matrix():
    """Three batches of 40 x 80 (the launcher passes M as every batch's rows, 120): each matrix is one tile — the
    remark says so of each matrix, not of a 120 x 80 problem (session 42's review)."""
    from tileorch.kernels.gemm.config import GemmConfig
    from tileorch.launchers.cutile import retile_config

    chosen, why = retile_config(GemmConfig(dtype="f16", out_dtype="f32", b_major="n", batched=True), 120, 80, 64, "n",
                                "auto", SMS, False, batch=3)
    assert (chosen.tile_n, chosen.cluster_m) == (128, 1)
    assert "one tile covers each of the 3 matrices' 40 x 80" in why and "covers 120 x 80" not in why
