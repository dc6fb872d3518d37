"""Requests past CUTLASS's exact integer range, or past CUDA's grid limits, are refused, not wrapped.

Each refused case was run through CUTLASS 4.7's own host code (tools/cutlass_crosscheck/harness.cu);
the comment says what CUTLASS produced.  Requests just inside each bound are still accepted.
"""

import pytest

from tileorch.cli.main import main
from tileorch.schedulers import (data_parallel_params, static_persistent_params, streamk_params,
                                 workspace_sizes)
from tileorch.schedulers.sm100_streamk import sm100_streamk_params

T = (128, 128, 64)


def test_tile_count_past_int32_is_refused():
    # harness "8388608 8388608 64 1 128 128 64 1 1 132 1 1 0 0 1 1 32": 2**32 tiles wrap to 0, CUTLASS's
    # params say units_per_problem_ = 0 and every CTA of its 132-CTA grid gets no work
    for build in (lambda: streamk_params((8388608, 8388608, 64, 1), T, (1, 1), 132),
                  lambda: static_persistent_params((8388608, 8388608, 64, 1), T, (1, 1), 132),
                  lambda: workspace_sizes((8388608, 8388608, 64, 1), T, (1, 1), 132, decomposition="stream_k")):
        with pytest.raises(ValueError, match="32-bit integers"):
            build()
    # 2**31 tiles are one too many; 2**30 are fine
    with pytest.raises(ValueError, match="32-bit"):
        static_persistent_params((256, 2**30, 64, 1), (128, 1, 64), (1, 1), 132)
    p = static_persistent_params((128, 2**30, 64, 1), (128, 1, 64), (1, 1), 132)
    assert p.raster.blocks_per_problem == 2**30 and p.grid == (132, 1, 1)


def test_swizzle_padding_counts_toward_the_bound():
    # 46341**2 > 2**31 - 1 only after padding 46340 + 1 tiles up to a multiple of 8
    ok = (46340 * 128, 46340 * 128, 64, 1)
    assert static_persistent_params(ok, T, (1, 1), 132).raster.blocks_per_problem == 46340**2
    with pytest.raises(ValueError, match="swizzle- and cluster-padded"):
        static_persistent_params(ok, T, (1, 1), 132, max_swizzle=8)


def test_extent_plus_tile_past_int32_is_refused():
    # get_tiled_cta_shape_mnl computes M + BLK_M - 1 in an int
    with pytest.raises(ValueError, match="M \\+ tile - 1"):
        streamk_params((2**31 - 64, 128, 64, 1), T, (1, 1), 132)
    streamk_params((2**31 - 128, 128, 64, 1), T, (1, 1), 132, decomposition="data_parallel")


def test_split_k_iterations_past_int32_are_refused():
    # harness "512 1024 2147483632 1 128 128 16 1 1 132 2 1 0 0 2 1 32": 32 tiles x 2 splits = 64
    # pieces, but CUTLASS's uint32 K-iteration start wraps (kt * tile reaches 2**32 - 33) and its host
    # schedule lists 82 pieces
    with pytest.raises(ValueError, match="split-K over 32 cluster tiles"):
        streamk_params((512, 1024, 2147483632, 1), (128, 128, 16), (1, 1), 132, splits=2)
    # 16 tiles: the last K index is 16 * kt - 1 < 2**31, exact
    p = streamk_params((512, 512, 2147483632, 1), (128, 128, 16), (1, 1), 132, splits=2)
    assert (p.splits, p.units_per_problem) == (2, 16)


def test_stream_k_iterations_past_int32_are_refused():
    # 1 x 133 tiles on 132 SMs: one group (walk along M over 1 M tile) of 133 stream-K tiles, so a
    # unit's K iterations reach 133 * kt.  harness "128 17024 1033375616 1 128 128 64 1 1 132 1 1 0 0 3 1 32":
    # kt = 16146838, 133 * kt > 2**31 - 1, CUTLASS's int FastDivmod goes wrong and its schedule has 265
    # pieces where the exact one has 264; one K tile less per output tile (264 pieces) it is exact
    big = (128, 133 * 128, (2**31 // 133 + 1) * 64, 1)
    with pytest.raises(ValueError, match="stream-K tiles per group"):
        streamk_params(big, T, (1, 1), 132, decomposition="stream_k")
    p = streamk_params((128, 133 * 128, 2**31 // 133 * 64, 1), T, (1, 1), 132, decomposition="stream_k")
    assert (p.sk_tiles, p.sk_units, p.sk_groups) == (133, 132, 1)


def test_stream_k_unit_count_product_past_uint32_is_refused():
    # 7 x 19 tiles on 20 SMs: 33 stream-K tiles; kt = 130150525 makes 33 * kt = 2**32 + 29, which
    # get_num_sk_units' uint32 product wraps to 29: harness "896 2432 2082408400 1 128 128 16 1 1 20 1 1 0 0 3 1 32"
    # gives sk_units 3 (133 pieces) where the exact count is 20 (146 pieces); 4 K tiles fewer, CUTLASS is exact
    problem = (7 * 128, 19 * 128, 130150525 * 16, 1)
    with pytest.raises(ValueError, match="get_num_sk_units"):
        streamk_params(problem, (128, 128, 16), (1, 1), 20, decomposition="stream_k")
    with pytest.raises(ValueError, match="get_num_sk_units"):
        workspace_sizes(problem, (128, 128, 16), (1, 1), 20, decomposition="stream_k")
    ok = streamk_params((7 * 128, 19 * 128, 130150521 * 16, 1), (128, 128, 16), (1, 1), 20, decomposition="stream_k")
    assert (ok.sk_tiles, ok.sk_units) == (33, 20)


def test_linear_index_stays_in_int32_after_the_last_step():
    # the device walks the linear work index in i32 and steps one grid past the last tile
    with pytest.raises(ValueError, match="32-bit linear work index"):
        static_persistent_params((128, 2**31 - 1, 64, 1), (128, 1, 64), (1, 1), 132)
    with pytest.raises(ValueError, match="32-bit linear work index"):
        streamk_params((128, 2**31 - 1, 64, 1), (128, 1, 64), (1, 1), 132, decomposition="data_parallel")
    assert static_persistent_params((128, 2**31 - 132, 64, 1), (128, 1, 64), (1, 1), 132).grid == (132, 1, 1)


def test_data_parallel_grid_past_65535_along_y_is_refused():
    # one CTA per tile: walking along N puts every tile on grid.y, which CUDA caps at 65535
    with pytest.raises(ValueError, match="y = 65536 exceeds CUDA's limit of 65535"):
        data_parallel_params((65536 * 128, 128, 64, 1), T, (1, 1))
    assert data_parallel_params((65535 * 128, 128, 64, 1), T, (1, 1)).grid == (1, 65535, 1)
    assert data_parallel_params((65536 * 128, 128, 64, 1), T, (1, 1), raster="along_m").grid == (65536, 1, 1)


def test_sm100_grid_past_65535_along_z_is_refused():
    # SM100 stream-K launches cdiv(units, sk_units) waves along z
    problem = (128 * 1000, 128 * 1000, 64 * 20, 1)  # 10**6 tiles over 13 units: 76924 waves
    with pytest.raises(ValueError, match="z = .* exceeds CUDA's limit"):
        sm100_streamk_params(problem, T, (1, 1), 13, decomposition="stream_k")


def test_cli_refusal_is_one_error_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["schedule", "--problem", "8388608", "8388608", "64", "--json"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "32-bit integers" in err and "Traceback" not in err
