"""CUTLASS's stream-K workspace sizing can disagree with its own params; tileorch allocates enough.

``get_workspace_size`` re-derives the decomposition from swizzle-padded blocks, which it pads once
more; the raster heuristic on the re-padded counts can flip, and with a one-wave CTA count that the
larger cluster extent does not divide, the re-derived wave and ``sk_tiles`` differ from the params'.
Both cases below were run through CUTLASS 4.7's headers (tools/cutlass_crosscheck/harness.cu).
An exhaustive small-case search finds the shortfall only where the params' grid is not a whole
number of clusters (7 CTAs along x for a 2x1 cluster here), which CUDA would not launch.
"""

import pytest

from tileorch.schedulers import schedule_arrays, streamk_params, workspace_sizes
from tileorch.schedulers.workspace import WorkspaceSizes, params_workspace_sizes, sufficient_workspace_sizes

T = (128, 128, 64)
ARGS = dict(max_swizzle=4, decomposition="stream_k")


def partial_pieces(p):
    s = schedule_arrays(p)
    return int((s.k_tile_count != p.k_tiles_per_output_tile).sum())


def test_cutlass_allocates_nothing_for_ten_split_tiles():
    # harness "128 640 2368 1 128 128 64 2 1 7 1 4 0 0 3 1 32": sk_tiles 10, sk_units 6, raster along M,
    # 8 partial pieces, workspace_bytes 0 (its re-derivation walks along N: a 6-CTA wave, no stream-K)
    problem = (128, 640, 2368, 1)
    p = streamk_params(problem, T, (2, 1), 7, **ARGS)
    assert (p.sk_tiles, p.sk_units, p.raster.along_n, partial_pieces(p)) == (10, 6, False, 8)
    cutlass = workspace_sizes(problem, T, (2, 1), 7, **ARGS)
    assert cutlass == WorkspaceSizes(0, 0)
    # what the kernel addresses: 10 fp32 128x128 tiles, then 10 locks (one warp group)
    assert params_workspace_sizes(p, T) == WorkspaceSizes(10 * 128 * 128 * 4, 128)
    assert sufficient_workspace_sizes(p, cutlass, T) == WorkspaceSizes(655360, 128)


def test_cutlass_over_allocates_and_keeps_its_lock_offset():
    # harness "... 2 1 11 1 4 0 0 3 1 32": params have 12 stream-K tiles (reduction 786432 bytes), CUTLASS
    # sizes 14 (917504 + 128).  The device reads the lock offset from the allocated reduction size, so
    # taking CUTLASS's larger regions keeps the locks in the region the host zeroes.
    problem = (128, 640, 2368, 1)
    p = streamk_params(problem, T, (2, 1), 11, **ARGS)
    assert (p.sk_tiles, partial_pieces(p)) == (12, 12)
    cutlass = workspace_sizes(problem, T, (2, 1), 11, **ARGS)
    assert cutlass == WorkspaceSizes(917504, 128)
    assert sufficient_workspace_sizes(p, cutlass, T, mma_warp_groups=2) == WorkspaceSizes(917504, 128)


@pytest.mark.parametrize("sms", [132, 114, 20])
def test_no_change_where_cutlass_agrees(sms):
    problem = (3000, 5000, 4096, 1)
    p = streamk_params(problem, T, (2, 1), sms, decomposition="stream_k")
    cutlass = workspace_sizes(problem, T, (2, 1), sms, decomposition="stream_k")
    assert sufficient_workspace_sizes(p, cutlass, T) == cutlass == params_workspace_sizes(p, T)


FLIP_HOST = """
func.func @flip() -> (i64, i64, i64) {
  %m = arith.constant 128 : i32
  %n = arith.constant 640 : i32
  %k = arith.constant 2368 : i32
  %l = arith.constant 1 : i32
  %sms = arith.constant 7 : i32
  %sk = cutlass.tile_scheduler.make_streamk_params %m, %n, %k, %l sms(%sms)
      {tile_shape = array<i64: 128, 128, 64>, max_swizzle_size = 4 : i32, decomp_mode = #cutlass<decomp_mode stream_k>}
      : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic>
  %t, %r, %b = cutlass.tile_scheduler.get_workspace_sizes %sk
      : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = heuristic> -> i64, i64, i64
  func.return %t, %r, %b : i64, i64, i64
}
"""


def test_constant_workspace_query_folds_to_enough():
    from xdsl.dialects import arith

    from tileorch.diagnostics import parse_module
    from tileorch.registry import make_context
    from tileorch.transforms.pipeline_to_nvvm.scheduler import fold_static_queries

    module = parse_module(make_context(), FLIP_HOST)
    fold_static_queries(module)
    ret = next(op for op in module.walk() if op.name == "func.return")
    values = [v.owner.value.value.data for v in ret.operands if isinstance(v.owner, arith.ConstantOp)]
    assert values == [655360 + 128, 655360, 128]  # CUTLASS's get_workspace_size would say 0


def test_gemm_launcher_refuses_the_partial_cluster_grid_and_sizes_enough():
    # the same flip as above on the GEMM launcher's 128x128x64, 2x1-cluster stream-K configuration:
    # its grid along M is 7 CTAs, not whole 2-CTA clusters (CUDA refuses the launch), and the
    # workspace it would allocate covers the params' 10 split tiles, with a warning
    from dataclasses import replace

    from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError
    from tileorch.launchers.gemm_host import check_cluster_grid, scheduler_params, streamk_workspace_bytes

    cfg = replace(GemmConfig(), tile_n=128, stages=6, schedule="streamk", max_swizzle=4)
    p = scheduler_params(cfg, 128, 640, 2368, 7)
    assert p.grid == (7, 1, 1) and p.sk_tiles == 10
    with pytest.raises(GemmConfigError, match="not a whole number of 2x1 clusters"):
        check_cluster_grid(cfg, p.grid, 7)
    assert streamk_workspace_bytes(cfg, 128, 640, 2368, 7) == (0, 0)  # CUTLASS's answer
    with pytest.warns(UserWarning, match="smaller than its params address"):
        red, bar = streamk_workspace_bytes(cfg, 128, 640, 2368, 7, params=p)
    assert (red, bar) == (10 * 128 * 128 * 4, 128)
    check_cluster_grid(cfg, scheduler_params(cfg, 128, 640, 2368, 132).grid, 132)  # a whole-cluster grid
