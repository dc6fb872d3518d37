"""The WorkID pull model, checked on the CPU: the shared body that ``convert-pipeline-to-nvvm``
emits for a pull-model scheduler is evaluated op by op (a small interpreter of its ``llvm``
integer ops, reading the host-packed params record) for the ids a pull-model run claims (each
CTA's launch index, then ``total_ctas + k`` for the k-th claim of the workspace counter, in a
random claim order).  Independent reference: the tiles of the padded problem, every
``(m, n, l)`` in ``blocks_m x blocks_n x blocks_l``, each walked exactly once."""

from __future__ import annotations

import random

import pytest

from llvm_int_interp import Interpreter

from tileorch.diagnostics import parse_module
from tileorch.registry import make_context
from tileorch.schedulers import RasterOrderOptions, static_persistent_params
from tileorch.schedulers.device_params import pack_device_params
from tileorch.transforms.pipeline_to_nvvm import ConvertPipelineToNVVM

TILE = (128, 128, 64)


def module_text(raster: str) -> str:
    ptype = f"!cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = {raster}>"
    return f"""builtin.module attributes {{cutlass.target = "sm_90a"}} {{
  func.func @k(%p: {ptype}, %resp: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {{nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}} {{
    cutlass.async.exec cta mask(1) threads(128) {{
      %s = cutlass.tile_scheduler.create_dp_params %p workid(%resp : !llvm.ptr<3>) {{runtime_pull}} : {ptype} -> !cutlass.tile_scheduler<dp>
      cutlass.tile_scheduler.query_next_work %s : !cutlass.tile_scheduler<dp>
      %w = cutlass.tile_scheduler.get_current_work %s : !cutlass.tile_scheduler<dp> -> !cutlass.dp_work_tile_info
      %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %w : !cutlass.dp_work_tile_info
      llvm.store %m, %out : i32, !llvm.ptr<1>
    }}
    func.return
  }}
}}
"""


def lowered_body(raster: str):
    """The emitted ``__tileorch_sched_dp_c1x1_<r>`` llvm.func."""
    ctx = make_context()
    module = parse_module(ctx, module_text(raster), "pull.mlir")
    ConvertPipelineToNVVM().apply(ctx, module)
    suffix = {"along_m": "m", "along_n": "n"}[raster]
    bodies = [op for op in module.body.block.ops
              if op.name == "llvm.func" and op.sym_name.data == f"__tileorch_sched_dp_c1x1_{suffix}"]
    assert len(bodies) == 1
    return bodies[0]


class BodyInterpreter:
    """Evaluates the pull body (``llvm_int_interp.Interpreter``) for a linear work index, the
    ``Params*`` argument at offset 0 of the packed record; this CTA's position in its (1x1)
    cluster is 0."""

    SREGS = {f"cluster.ctaid.{d}": 0 for d in "xyz"}

    def __init__(self, fn):
        self.interp = Interpreter(funcs={"body": fn})
        self.names = {op.name for op in fn.body.blocks[0].ops}

    def __call__(self, record: bytes, linear_id: int) -> tuple[int, ...]:
        return self.interp.run("body", [0, linear_id], record, self.SREGS)


def launch_index(p, bx: int, by: int) -> int:
    """CUTLASS's persistent constructor: the CTA's first linear work index."""
    gx, gy, _ = p.grid
    return bx + by * gx if p.raster.along_n else bx * gy + by


def pull_run(p, decode, rng: random.Random, first_claim: int | None = None) -> list[tuple[int, int, int]]:
    """The tiles a pull-model run walks: every CTA starts at its launch index; while its tile is
    valid it claims ``total_ctas + counter++`` (the CTAs' claims interleave in random order)."""
    gx, gy, gz = p.grid
    total_ctas = gx * gy * gz
    base = total_ctas if first_claim is None else first_claim
    walked, counter = [], 0
    active = {}
    for by in range(gy):
        for bx in range(gx):
            active[(bx, by)] = decode(launch_index(p, bx, by))
    while active:
        cta = rng.choice(sorted(active))
        m, n, l, lin, valid = active[cta]
        if not valid:
            del active[cta]
            continue
        walked.append((m, n, l))
        active[cta] = decode(base + counter)
        counter += 1
    return walked


CONFIGS = [((1024, 1024, 4096, 1), 8, 1, "along_m"), ((384, 640, 2048, 2), 20, 2, "along_n"),
           ((4096, 2048, 512, 3), 132, 8, "along_m"), ((4096, 4096, 64, 1), 114, 4, "along_n"),
           ((128, 256, 64, 1), 132, 1, "along_m"), ((2000, 3000, 64, 2), 66, 2, "along_m")]


@pytest.fixture(scope="module")
def interpreters():
    return {r: BodyInterpreter(lowered_body(r)) for r in ("along_m", "along_n")}


@pytest.mark.parametrize("problem,sms,swizzle,raster", CONFIGS)
def test_pull_model_walks_every_tile_once(interpreters, problem, sms, swizzle, raster):
    p = static_persistent_params(problem, TILE, (1, 1), sms, max_swizzle=swizzle, raster=RasterOrderOptions(raster))
    record = pack_device_params(p, workspace_ptr=0x1000)
    body = interpreters[raster]
    rp = p.raster
    every = sorted((m, n, l) for m in range(rp.blocks_m) for n in range(rp.blocks_n) for l in range(rp.blocks_l))
    for seed in range(3):
        walked = pull_run(p, lambda lin: body(record, lin), random.Random(seed))
        assert sorted(walked) == every


def test_order_changes_who_walks_what_not_the_tiles(interpreters):
    """Two claim orders give different CTA-to-tile assignments, the same tile multiset."""
    p = static_persistent_params((2048, 2048, 64, 1), TILE, (1, 1), 8, raster=RasterOrderOptions("along_m"))
    record = pack_device_params(p)
    body = interpreters["along_m"]
    runs = [pull_run(p, lambda lin: body(record, lin), random.Random(seed)) for seed in (1, 2)]
    assert runs[0] != runs[1] and sorted(runs[0]) == sorted(runs[1])


def test_claims_overlapping_the_launch_ids_are_caught(interpreters):
    """The coverage check can fail: claims starting one id early walk a tile twice."""
    p = static_persistent_params((1024, 1024, 64, 1), TILE, (1, 1), 8, raster=RasterOrderOptions("along_m"))
    record = pack_device_params(p)
    body = interpreters["along_m"]
    walked = pull_run(p, lambda lin: body(record, lin), random.Random(0), first_claim=p.grid_width - 1)
    assert len(walked) != len(set(walked))


def test_body_reads_only_the_record_and_the_cluster_position(interpreters):
    names = interpreters["along_m"].names
    assert {"llvm.load", "llvm.return"} <= names
    assert not {n for n in names if n.startswith("nvvm.") and "cluster.ctaid" not in n}
