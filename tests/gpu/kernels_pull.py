"""MLIR of the WorkID pull-model walk kernels: every CTA (128 threads, one ``cta`` executor) walks
its work with a pull-model scheduler: the first tile is its launch index, then
``query_next_work`` (the leader claims the next id from the workspace counter and publishes it
through the shared response slot) and ``get_current_work`` (the shared body decodes it) until the
tile is invalid.  Thread 0 records every tile in the CTA's row of ``out``: ``out[row] = items``,
then per item ``m, n, l, linearized_id``; rows are in launch order (``ctaid.y * nctaid.x + ctaid.x``).
"""

from __future__ import annotations

ITEM_WORDS = 4
THREADS = 128
KINDS = {"dp": ("sm_90a", "create_dp_params", "{runtime_pull}"),
         "dynamic_persistent": ("sm_100a", "create_SM100_scheduler", "")}


def pull_name(kind: str, raster: str) -> str:
    return f"pull_walk_{kind}_{raster}"


def pull_kernel(kind: str = "dp", raster: str = "along_m") -> tuple[str, str]:
    """(name, text) of ``pull_walk_<kind>_<raster>(params, out, max_items)``."""
    target, create, pull = KINDS[kind]
    name = pull_name(kind, raster)
    ptype = f"!cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = {raster}>"
    stype = f"!cutlass.tile_scheduler<{kind}>"
    wtype = "!cutlass.dp_work_tile_info"
    text = f"""builtin.module attributes {{cutlass.target = "{target}"}} {{
  llvm.mlir.global internal @workid_slot() {{addr_space = 3 : i32, alignment = 16 : i64}} : i32
  func.func @{name}(%params: {ptype}, %out: !llvm.ptr<1>, %max_items: i32) attributes {{nvvm.kernel, nvvm.reqntid = array<i32: {THREADS}, 1, 1>}} {{
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %cw = arith.constant {ITEM_WORDS} : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %leader = arith.cmpi eq, %tid, %c0 : i32
    %bx = nvvm.read.ptx.sreg.ctaid.x : i32
    %by = nvvm.read.ptx.sreg.ctaid.y : i32
    %gx = nvvm.read.ptx.sreg.nctaid.x : i32
    %byx = arith.muli %by, %gx : i32
    %cta = arith.addi %byx, %bx : i32
    %itemw = arith.muli %max_items, %cw : i32
    %rowlen = arith.addi %itemw, %c1 : i32
    %row = arith.muli %cta, %rowlen : i32
    %rowp = llvm.getelementptr %out[%row] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    %slot = llvm.mlir.addressof @workid_slot : !llvm.ptr<3>
    cutlass.async.exec cta mask(1) threads({THREADS}) {{
      %sched = cutlass.tile_scheduler.{create} %params workid(%slot : !llvm.ptr<3>) {pull} : {ptype} -> {stype}
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched : {stype} -> {wtype}
      %last, %items = scf.while (%w = %first, %i = %c0) : ({wtype}, i32) -> ({wtype}, i32) {{
        %valid = cutlass.tile_scheduler.work_tile_info_get_value %w {{field = #cutlass<dp_work_tile_info_field is_valid_tile>}} : {wtype} -> i1
        scf.condition(%valid) %w, %i : {wtype}, i32
      }} do {{
      ^bb0(%w: {wtype}, %i: i32):
        %fits = arith.cmpi slt, %i, %max_items : i32
        %record = arith.andi %leader, %fits : i1
        scf.if %record {{
          %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %w : {wtype}
          %lin = cutlass.tile_scheduler.work_tile_info_get_value %w {{field = #cutlass<dp_work_tile_info_field linearized_id>}} : {wtype} -> i32
          %iw = arith.muli %i, %cw : i32
          %at = arith.addi %iw, %c1 : i32
          %item = llvm.getelementptr %rowp[%at] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %m, %item : i32, !llvm.ptr<1>
          %p1 = llvm.getelementptr %item[%c1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %n, %p1 : i32, !llvm.ptr<1>
          %p2 = llvm.getelementptr %item[%c2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %l, %p2 : i32, !llvm.ptr<1>
          %p3 = llvm.getelementptr %item[%c3] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %lin, %p3 : i32, !llvm.ptr<1>
        }}
        cutlass.tile_scheduler.query_next_work %sched : {stype}
        %next = cutlass.tile_scheduler.get_current_work %sched : {stype} -> {wtype}
        %i1 = arith.addi %i, %c1 : i32
        scf.yield %next, %i1 : {wtype}, i32
      }}
      scf.if %leader {{
        llvm.store %items, %rowp : i32, !llvm.ptr<1>
      }}
    }}
    func.return
  }}
}}
"""
    return name, text
