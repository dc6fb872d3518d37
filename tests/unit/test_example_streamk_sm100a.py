"""examples/streamk_sm100a.mlir (SM100 Stream-K with cluster-level coordination, seed 000 sub_R01)
compiles for sm_100a, ptxas accepts it, the PTX has the cluster protocol in order; host queries of
SM100 Stream-K params fold to the cluster-coordinated decomposition of the host library."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from xdsl.dialects import arith

from tileorch.driver import compile_text
from tileorch.diagnostics import parse_module
from tileorch.registry import make_context
from tileorch.transforms.pipeline_to_nvvm.scheduler import fold_static_queries
from tileorch.schedulers.sm100_cluster_streamk import cluster_streamk_params, cluster_workspace_sizes

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "streamk_sm100a.mlir"


def _compile(ptxas: bool):
    return compile_text(EXAMPLE.read_text(), str(EXAMPLE), arch="sm_100a", ptxas=ptxas, isolate=True)


def test_example_has_the_cluster_protocol_in_order():
    ptx = _compile(ptxas=False).ptx
    body = ptx[ptx.index(".entry streamk_sm100"):]
    steps = [r"%clusterid\.x", r"%cluster_ctarank", r"st\.shared\.b32", r"barrier\.cluster\.arrive\.aligned;",
             r"barrier\.cluster\.wait\.aligned;", r"mapa\.shared::cluster", r"ld\.shared::cluster\.b32",
             r"barrier\.cluster\.arrive\.aligned;", r"barrier\.cluster\.wait\.aligned;",
             r"ld\.acquire\.gpu\.global\.b32"]
    at = 0
    for step in steps:
        found = re.compile(step).search(body, at)
        assert found is not None, f"{step} not found after offset {at}"
        at = found.end()
    assert len(re.findall(r"barrier\.cluster\.arrive", body)) == 2  # one piece: two cluster barriers
    assert ".extern" not in ptx and "%ctaid" not in body.split(".func")[0]


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
def test_example_assembles_for_sm_100a():
    result = _compile(ptxas=True)
    assert result.arch == "sm_100a"
    assert result.ptxas is not None and result.ptxas.cubin_bytes > 0


HOST = """
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @host() -> (i32, i32, i32, i64, i64, i64) {
    %m = arith.constant 1024 : i32
    %n = arith.constant 2560 : i32
    %k = arith.constant 2048 : i32
    %l = arith.constant 1 : i32
    %sms = arith.constant 148 : i32
    %p = cutlass.tile_scheduler.make_streamk_params %m, %n, %k, %l sms(%sms)
        {tile_shape = array<i64: 128, 128, 64>, decomp_mode = #cutlass<decomp_mode stream_k>}
        : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>
    %gx, %gy, %gz = cutlass.tile_scheduler.get_grid_shape %p, %sms
        : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>
    %t, %r, %b = cutlass.tile_scheduler.get_workspace_sizes %p
        : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> i64, i64, i64
    func.return %gx, %gy, %gz, %t, %r, %b : i32, i32, i32, i64, i64, i64
  }
}
"""


def test_host_queries_fold_to_the_cluster_decomposition():
    module = parse_module(make_context(), HOST)
    fold_static_queries(module)
    ret = next(op for op in module.walk() if op.name == "func.return")
    values = [v.owner.value.value.data for v in ret.operands if isinstance(v.owner, arith.ConstantOp)]
    problem, tile = (1024, 2560, 2048, 1), (128, 128, 64)
    p = cluster_streamk_params(problem, tile, (2, 1), 148, decomposition="stream_k", raster="along_m")
    ws = cluster_workspace_sizes(problem, tile, (2, 1), 148, decomposition="stream_k", raster="along_m")
    assert values == [*p.grid, ws.total, ws.reduction, ws.barrier]
    # 148 SMs = 74 two-CTA clusters; the CTA grid is the cluster grid doubled along x
    assert p.grid[0] == 2 * p.cluster_grid[0] and ws.reduction > 0


def test_sm90_host_queries_still_fold_to_the_generic_decomposition():
    from tileorch.schedulers import workspace_sizes
    from tileorch.schedulers.raster import tiled_cta_shape_mnl
    from tileorch.schedulers.streamk_params import streamk_grid_shape

    text = HOST.replace('"sm_100a"', '"sm_90a"')
    module = parse_module(make_context(), text)
    fold_static_queries(module)
    ret = next(op for op in module.walk() if op.name == "func.return")
    values = [v.owner.value.value.data for v in ret.operands if isinstance(v.owner, arith.ConstantOp)]
    problem, tile = (1024, 2560, 2048, 1), (128, 128, 64)
    grid = streamk_grid_shape(tiled_cta_shape_mnl(problem, tile, (2, 1)), (2, 1), 148, 1, "along_m")
    ws = workspace_sizes(problem, tile, (2, 1), 148, decomposition="stream_k", raster="along_m")
    assert values == [*grid, ws.total, ws.reduction, ws.barrier]
