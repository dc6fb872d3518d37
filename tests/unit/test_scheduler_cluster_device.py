"""The cluster-coordinated SM100 Stream-K lowering, checked on the CPU against the host model:
a function asking the scheduler for its first work tile, this CTA's share, its coordinates, the
epilogue decision and the next piece is lowered by ``convert-pipeline-to-nvvm`` and evaluated op
by op (a small interpreter of its straight-line ``llvm`` integer ops and of the scheduler body it
calls, reading the host-packed params record), for every cluster position (``%clusterid``) and
cluster rank (``%cluster_ctarank``).  Reference: ``sm100_cluster_streamk.cta_work``."""

from __future__ import annotations

import struct

import pytest

from tileorch.diagnostics import parse_module
from tileorch.registry import make_context
from tileorch.schedulers.device_params import pack_device_params
from tileorch.schedulers.sm100_cluster_streamk import cluster_positions, cluster_streamk_params, cta_work
from tileorch.transforms.pipeline_to_nvvm import ConvertPipelineToNVVM

MOD = 1 << 32
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


def s32(v: int) -> int:
    v %= MOD
    return v - MOD if v >= 1 << 31 else v


def cdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


BINARY = {"llvm.add": lambda a, b: a + b, "llvm.sub": lambda a, b: a - b, "llvm.mul": lambda a, b: a * b,
          "llvm.and": lambda a, b: a & b, "llvm.or": lambda a, b: a | b, "llvm.xor": lambda a, b: a ^ b,
          "llvm.shl": lambda a, b: a << b, "llvm.ashr": lambda a, b: a >> b,
          "llvm.sdiv": cdiv, "llvm.srem": lambda a, b: a - cdiv(a, b) * b}
ICMP = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b, 3: lambda a, b: a <= b,
        4: lambda a, b: a > b, 5: lambda a, b: a >= b}


class Interpreter:
    """Straight-line ``llvm`` integer code with i32 semantics; ``Params*`` loads read the record."""

    def __init__(self, module):
        self.funcs = {op.sym_name.data: op for op in module.body.block.ops if op.name in ("func.func", "llvm.func")}

    def run(self, name: str, args: list, record: bytes, sregs: dict[str, int]):
        fn = self.funcs[name]
        block = fn.body.blocks[0]
        env: dict = dict(zip(block.args, args))
        for op in block.ops:
            name = op.name
            a = [env.get(v) for v in op.operands]
            res = op.results[0] if op.results else None
            if name == "llvm.mlir.constant":
                value = op.properties["value"].value.data
                env[res] = value if res.type.width.data > 1 else bool(value)
            elif name == "llvm.getelementptr":
                env[res] = a[0] + op.properties["rawConstantIndices"].get_values()[0]
            elif name == "llvm.load":
                fmt = "<q" if res.type.width.data == 64 else "<i"
                env[res] = struct.unpack_from(fmt, record, a[0])[0]
            elif name in BINARY:
                env[res] = s32(BINARY[name](*a)) if res.type.width.data > 1 else bool(BINARY[name](*a))
            elif name == "llvm.icmp":
                env[res] = ICMP[op.properties["predicate"].value.data](*a)
            elif name == "llvm.select":
                env[res] = a[1] if a[0] else a[2]
            elif name.startswith("nvvm.read.ptx.sreg."):
                env[res] = sregs[name.removeprefix("nvvm.read.ptx.sreg.")]
            elif name == "llvm.mlir.undef":
                env[res] = ()
            elif name == "llvm.insertvalue":
                pos = op.properties["position"].get_values()[0]
                agg = list(a[0]) + [None] * (pos + 1 - len(a[0]))
                agg[pos] = int(a[1])
                env[res] = tuple(agg)
            elif name == "llvm.extractvalue":
                env[res] = a[0][op.properties["position"].get_values()[0]]
            elif name == "llvm.call":
                env[res] = self.run(op.properties["callee"].root_reference.data, a, record, sregs)
            elif name in ("llvm.return", "func.return"):
                values = [env[v] for v in op.operands]
                return values[0] if name == "llvm.return" else values
            else:
                raise AssertionError(f"the interpreter does not model {name}")
        raise AssertionError("no return")


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
