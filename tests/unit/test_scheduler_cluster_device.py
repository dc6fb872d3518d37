"""The cluster-coordinated SM100 Stream-K lowering, checked on the CPU against the host model:
a function asking the scheduler for its first work tile, this CTA's share, its coordinates, the
epilogue decision and the next piece is lowered by ``convert-pipeline-to-nvvm`` and evaluated op
by op (a small interpreter of its straight-line ``llvm`` integer ops and of the scheduler body it
calls, reading the host-packed params record), for every cluster position (``%clusterid``) and
cluster rank (``%cluster_ctarank``).  Reference: ``sm100_cluster_streamk.cta_work``."""

from __future__ import annotations


import pytest

from llvm_int_interp import Interpreter

from tileorch.diagnostics import parse_module
from tileorch.registry import make_context
from tileorch.schedulers.device_params import pack_device_params
from tileorch.schedulers.sm100_cluster_streamk import cluster_positions, cluster_streamk_params, cta_work
from tileorch.transforms.pipeline_to_nvvm import ConvertPipelineToNVVM

FIELD = "#cutlass<streamk_work_tile_info_field {}>"


def module_text(cluster: tuple[int, int], raster: str) -> str:
    p = f"!cutlass.tile_scheduler_streamk_params<cga = [{cluster[0]}, {cluster[1]}, 1], raster = {raster}>"
    s, w = "!cutlass.tile_scheduler<streamk>", "!cutlass.streamk_work_tile_info"
    return f"""builtin.module attributes {{cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: {cluster[0]}, {cluster[1]}, 1>}} {{
  func.func @k(%p: {p}) -> (i32, i32, i32, i32, i32, i32, i1, i32, i32, i1, i32, i32) attributes {{nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}} {{
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : {p} -> {s}
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : {s} -> {w}
    %start = cutlass.tile_scheduler.get_work_k_tile_start %s, %w : {s}, {w}
    %count = cutlass.tile_scheduler.get_work_k_tile_count %s, %w : {s}, {w}
    %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_cta_coord %s, %w : {s}, {w}
    %e = cutlass.tile_scheduler.compute_epilogue %s, %w : {s}, {w}
    %ps = cutlass.tile_scheduler.work_tile_info_get_value %w {{field = {FIELD.format('k_tile_start')}}} : {w} -> i32
    %pc = cutlass.tile_scheduler.work_tile_info_get_value %w {{field = {FIELD.format('k_tile_count')}}} : {w} -> i32
    %next, %valid, %inc = cutlass.tile_scheduler.advance_to_next_work %s, %w : {s}, {w}
    %ns = cutlass.tile_scheduler.get_work_k_tile_start %s, %next : {s}, {w}
    %nc = cutlass.tile_scheduler.get_work_k_tile_count %s, %next : {s}, {w}
    func.return %start, %count, %m, %n, %k, %l, %e, %ps, %pc, %valid, %ns, %nc : i32, i32, i32, i32, i32, i32, i1, i32, i32, i1, i32, i32
  }}
}}"""


CONFIGS = [((1000, 900, 64 * 37, 2), (2, 2), 40, "stream_k", 1, "along_n"),
           ((700, 1100, 64 * 13, 1), (4, 1), 60, "heuristic", 1, "along_m"),
           ((500, 500, 64 * 20, 1), (2, 1), 20, "split_k", 3, "along_m"),
           ((1024, 2560, 64 * 32, 1), (1, 2), 148, "stream_k", 1, "along_n"),
           ((300, 200, 64 * 5, 1), (4, 2), 64, "stream_k", 1, "along_m")]


@pytest.mark.parametrize("problem,cluster,sms,decomposition,splits,raster", CONFIGS)
def test_lowered_scheduler_matches_the_host_model(problem, cluster, sms, decomposition, splits, raster):
    p = cluster_streamk_params(problem, (128, 128, 64), cluster, sms, decomposition=decomposition,
                               splits=splits, raster=raster)
    ctx = make_context()
    module = parse_module(ctx, module_text(cluster, raster), "device.mlir")
    ConvertPipelineToNVVM().apply(ctx, module)
    interp = Interpreter(module)
    record = pack_device_params(p.unit.sk)
    checked = 0
    for x, y, z in cluster_positions(p):
        for rank in range(p.size):
            sregs = {"clusterid.x": x, "clusterid.y": y, "clusterid.z": z, "cluster.ctarank": rank}
            start, count, m, n, k, l, epi, ps, pc, valid, ns, nc = interp.run("k", [0], record, sregs)
            host = cta_work(p, x, y, z, rank)
            if not host:
                assert pc <= 0
                continue
            first = host[0]
            assert (start, count, k) == (first.k_tile_start, first.k_tile_count, first.k_tile_start)
            assert (m, n, l, ps, pc) == (first.piece.m, first.piece.n, first.piece.l,
                                         first.piece.k_tile_start, first.piece.k_tile_count)
            assert bool(epi) == first.epilogue
            assert bool(valid) == (len(host) > 1)
            if len(host) > 1:
                assert (ns, nc) == (host[1].k_tile_start, host[1].k_tile_count)
            checked += 1
    assert checked > 0
