"""Session 41's CUTLASS-side acceptance sweep: hand-written ``cutlass``-dialect kernels of forms sweeps 26-32, session
40's sweep (test_cutlass_sweep40.py) and ``examples/`` did not write, through the commands a user runs on them
(:func:`cutlass_sweep_checks.cutlass_sweep_tests`): each compiles to PTX holding its protocol, ``tileorch check`` proves
it, ``tileorch-opt`` round-trips it, upstream MLIR (``iree-opt``) accepts what the driver leaves; edits that break one
rule are rejected by ``tileorch check`` (located, non-zero exit) or by ``tileorch compile`` (``k.mlir:L:C: error:`` at
the op's line).

* :func:`multi_ring`: three and four pipelines in one kernel (one per operand / scale), each filled by its own producer
  warp, the barriers of all of them in one shared-memory block (``storage`` = ``%smem[128 i]``);
* rings (session 40's :func:`ring`) on 1x4 and 4x1 clusters with multicast, sm_100a on 2x1 and 1x4 clusters, three
  consumer warp groups on a 1x2 cluster, one stage for two consumer groups on a 2x1 cluster;
* the load ring + epilogue store ring kernel at other depths (6 + 3, 2 + 1);
* persistent Stream-K consumers in data-parallel and Stream-K modes on 1x2 / 2x1 clusters, raster along N / M;
* ordered sequence barriers for three math warp groups (depth 3, alternating tiles) and two groups at depth 2.

CI runs :data:`CI` (the suite's time budget); ``TILEORCH_EMULATE_ALL=1`` runs every test."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")

from cutlass_sweep_checks import cutlass_sweep_tests, seq_bar_pingpong  # noqa: E402
from test_cutlass_sweep40 import TWO_RINGS, ring, streamk_groups  # noqa: E402


def multi_ring(name, depths, bytes_=2048, consumers=1, comment=""):
    """`len(depths)` pipelines in one kernel, pipeline i with depths[i] stages: its barriers at %smem[128 * i], its
    stages at %smem[1024 + 16384 * i + stage * bytes_]; warp i's elected lane fills it; `consumers` consumer warp
    groups (warp groups 1..C, each its own consumer group) wait on every pipeline's stage of a k tile, in order, then
    release them in order."""
    n = len(depths)
    prod_mask = (1 << n) - 1
    cmask = sum(0xf << (4 * (g + 1)) for g in range(consumers))
    masks = ", ".join(hex(0xf << (4 * (g + 1))) for g in range(consumers))
    pipes = ""
    for i, d in enumerate(depths):
        pipes += (f"    %bar{i}_at = arith.constant {128 * i} : i32\n"
                  f"    %bar{i} = llvm.getelementptr %smem[%bar{i}_at] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8\n"
                  f"    %pc{i} = cutlass.pipeline.create storage(%bar{i}) : !cutlass.pipeline<stages = {d}, producers = 1, "
                  f"consumers = {consumers}>\n"
                  f"    %r{i} = cutlass.pipeline.init %pc{i} {{numStages = {d} : i32, executor = #cutlass<executor_type warp>, "
                  f"participants = array<i64: {hex(1 << i)}>, consumers = array<i64: {masks}>, transaction_size = "
                  f"array<i32: {bytes_}>}}\n")
    args = ", ".join(f"%p{i} = %r{i}" for i in range(n))
    cargs = ", ".join(f"%q{i} = %r{i}" for i in range(n))
    arms = ""
    for i, d in enumerate(depths):
        arms += f"""      {"cutlass.pipeline.switch_by_executor" if i == 0 else "}"} case masks({hex(1 << i)}) args({args}) {{
        %start = cutlass.pipeline.state.create %p{i} producer
        %last = scf.for %k = %c0 to %k_tiles step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<{d}>) : i32 {{
          cutlass.pipeline.producer_acquire %p{i}, %s
          %full = cutlass.pipeline.get_producer_barrier %p{i}, %s
          %leader = nvvm.elect.sync -> i1
          scf.if %leader {{
            %bytes = arith.constant {bytes_} : i32
            %idx = cutlass.pipeline.state.get_index %s
            %sidx = arith.muli %idx, %bytes : i32
            %data = arith.constant {1024 + 16384 * i} : i32
            %soff = arith.addi %sidx, %data : i32
            %dst = llvm.getelementptr %smem[%soff] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %goff = arith.muli %k, %bytes : i32
            %from = llvm.getelementptr %src{i}[%goff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
            atom.bulk_copy_g2s %dst, %from, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }}
          cutlass.pipeline.producer_commit %p{i}, %s {{transaction_bytes = {bytes_} : i32}}
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<{d}>
        }}
        cutlass.pipeline.producer_tail %p{i}, %last
"""
    starts = "".join(f"        %start{i} = cutlass.pipeline.state.create %q{i} consumer\n" for i in range(n))
    iters = ", ".join(f"%s{i} = %start{i}" for i in range(n))
    types = ", ".join(f"!cutlass.pipeline_state<{d}>" for d in depths)
    waits = "".join(f"          cutlass.pipeline.consumer_wait %q{i}, %s{i}\n          %stage{i} = cutlass.pipeline.state.get_index %s{i}\n" for i in range(n))
    rels = "".join(f"          cutlass.pipeline.consumer_release %q{i}, %s{i}\n" for i in range(n))
    incs = "".join(f"          %n{i} = cutlass.pipeline.state.increment %s{i}\n" for i in range(n))
    nexts = ", ".join(f"%n{i}" for i in range(n))
    results = ", ".join(f"%l{i}" for i in range(n))
    srcs = ", ".join(f"%src{i}: !llvm.ptr<1>" for i in range(n))
    return f"""// {name}: {n} pipelines in one kernel ({", ".join(map(str, depths))} stages; CUTLASS's split mainloop
// pipelines, one per operand): pipeline i's barriers at %smem[128 i], its stages from %smem[1024 + 16384 i]; warp i
// fills pipeline i ({bytes_} bytes a stage, one elected lane); {consumers} consumer warp group(s) wait on every
// pipeline's stage of a k tile in order and release them in order.{comment}
builtin.module attributes {{cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 1, 1, 1>}} {{
  func.func @{name}(%k_tiles: i32, %smem: !llvm.ptr<3>, {srcs}) attributes {{nvvm.kernel}} {{
{pipes}    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask({hex(prod_mask | cmask)}) {{
{arms}      }} case masks({hex(cmask)}) args({cargs}) {{
{starts}        %lasts:{n} = scf.for %k = %c0 to %k_tiles step %c1 iter_args({iters}) -> ({types}) : i32 {{
{waits}{rels}{incs}          scf.yield {nexts} : {types}
        }}
      }}
    }}
    func.return
  }}
}}
"""


RINGS = {name: ring(name, stages, consumers, **kw) for name, stages, consumers, kw in [
    ("ring_s3_c1_1x4", 3, 1, {"cluster": (1, 4, 1), "bytes_": 8192}),
    ("ring_s2_c2_4x1", 2, 2, {"cluster": (4, 1, 1), "bytes_": 8192}),
    ("ring_s4_c1_sm100_2x1", 4, 1, {"target": "sm_100a", "cc": "sm100", "cluster": (2, 1, 1)}),
    ("ring_s3_c3_1x2", 3, 3, {"cluster": (1, 2, 1)}),
    ("ring_s1_c2_2x1", 1, 2, {"cluster": (2, 1, 1)}),
    ("ring_s2_c2_sm100_1x4", 2, 2, {"target": "sm_100a", "cc": "sm100", "cluster": (1, 4, 1), "bytes_": 4096}),
]}

MULTI = {
    "three_rings": multi_ring("three_rings", [2, 3, 4]),
    "four_rings": multi_ring("four_rings", [2, 2, 3, 1], bytes_=1024),
    "two_rings_two_groups": multi_ring("two_rings_two_groups", [3, 2], consumers=2),
}


def _two_rings(name: str, load: int, store: int) -> str:
    """Session 40's load ring + epilogue store ring kernel with ``load`` and ``store`` stages."""
    text = (TWO_RINGS.replace("@load_and_epilogue_rings", f"@{name}")
            .replace("pipeline_state<4>", "pipeline_state<LOAD>").replace("pipeline_state<2>", "pipeline_state<STORE>")
            .replace("stages = 4,", "stages = LOAD,").replace("stages = 2,", "stages = STORE,")
            .replace("numStages = 4 :", "numStages = LOAD :").replace("numStages = 2 :", "numStages = STORE :"))
    return text.replace("LOAD", str(load)).replace("STORE", str(store))


TWO = {"rings_6_and_3": _two_rings("rings_6_and_3", 6, 3), "rings_2_and_1": _two_rings("rings_2_and_1", 2, 1)}

STREAMK = {
    "dp_1x2": streamk_groups("data_parallel_one_group_1x2", 1, (1, 2, 1), "along_n", "data_parallel", 1),
    "streamk_2groups_along_m": streamk_groups("streamk_two_groups_along_m", 2, (1, 1, 1), "along_m", "stream_k", 1),
    "heuristic_2x1": streamk_groups("heuristic_one_group_2x1", 1, (2, 1, 1), "along_n", "heuristic", 1),
}

SEQ = {
    "seq3_three_groups": seq_bar_pingpong(
        "// Three math warp groups take turns at three ordered phases (an OrderedSequenceBarrier<3, 3>), each every\n"
        "// third tile; the producer at 24 registers and the math groups at 160.",
        "seq_bar_three_groups", [("mma_tile", "st", ""), ("softmax_tile", "st_sm", ""), ("epi_tile", "st_epi", "")],
        (24, 160), alternate=True, groups=3),
    "seq2_walk_all": seq_bar_pingpong(
        "// Two math warp groups walk every tile through two ordered phases (an OrderedSequenceBarrier<2, 2>).",
        "seq_bar_two_phases_every_tile", [("mma_tile", "st", ""), ("epi_tile", "st_epi", "")], (40, 232),
        alternate=False),
}

INPUTS = {**RINGS, **MULTI, **TWO, **STREAMK, **SEQ}
CHECKS = {name: "ok" for name in INPUTS}
PTX_NEEDS: dict = {}
CHECK_FAILURES: dict = {}
COMPILE_ERRORS: dict = {}
CI = {"ring_s3_c1_1x4", "three_rings", "rings_6_and_3", "seq3_three_groups"}

(test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input, test_the_input_round_trips_through_tileorch_opt,
 test_a_broken_protocol_compiles_and_fails_the_check, test_an_invalid_input_stops_at_its_line) = \
    cutlass_sweep_tests(INPUTS, PTX_NEEDS, CHECKS, CHECK_FAILURES, COMPILE_ERRORS, ci=CI)
