"""MLIR of the persistent-scheduler walk kernels: each CTA's warp 0 walks its work with the
device scheduler (``cutlass.tile_scheduler.*``) and lane 0 records every item in the CTA's row of
``out``: ``out[row] = items``, then per item ``m, n, l, k_tile_start, k_tile_count`` (stream-K)
or ``m, n, l`` (static persistent).  Rows are in launch order (``ctaid.y * nctaid.x + ctaid.x``).
The params record is packed on the host by ``tileorch.schedulers.device_params``.
"""

from __future__ import annotations

ITEM_WORDS = {"streamk": 5, "static_persistent": 3}


def walk_name(kind: str, cluster: tuple[int, int], raster: str) -> str:
    return f"walk_{kind}_c{cluster[0]}x{cluster[1]}_{raster}"


def walk_kernel(kind: str, cluster: tuple[int, int], raster: str) -> tuple[str, str]:
    """(name, text) of ``walk_<kind>_c<X>x<Y>_<raster>(params, out, max_items)``."""
    cx, cy = cluster
    name = walk_name(kind, cluster, raster)
    ptype = f"!cutlass.tile_scheduler_{kind}_params<cga = [{cx}, {cy}, 1], raster = {raster}>"
    stype = f"!cutlass.tile_scheduler<{kind}>"
    wtype = f"!cutlass.{kind}_work_tile_info"
    words = ITEM_WORDS[kind]
    if kind == "streamk":
        create = f"cutlass.tile_scheduler.create_streamk_params %params : {ptype} -> {stype}"
        valid = f"""%count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w : {stype}, {wtype}
        %valid = arith.cmpi sgt, %count, %c0 : i32"""
        extra = f"""
          %ks = cutlass.tile_scheduler.get_work_k_tile_start %sched, %w : {stype}, {wtype}
          %kc = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w : {stype}, {wtype}
          %p3 = llvm.getelementptr %item[%c3] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %ks, %p3 : i32, !llvm.ptr<1>
          %p4 = llvm.getelementptr %item[%c4] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %kc, %p4 : i32, !llvm.ptr<1>"""
        advance = f"%next, %inc = cutlass.tile_scheduler.fetch_next_work %sched, %w : {stype}, {wtype}"
    else:
        create = f"cutlass.tile_scheduler.create_static_persistent_params %params : {ptype} -> {stype}"
        valid = (f"%valid = cutlass.tile_scheduler.work_tile_info_get_value %w "
                 f"{{field = #cutlass<static_persistent_work_tile_info_field is_valid_tile>}} : {wtype} -> i1")
        extra = ""
        advance = f"%next, %inc = cutlass.tile_scheduler.static_fetch_next_work %sched, %w : {stype}, {wtype}"
    text = f"""builtin.module attributes {{cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: {cx}, {cy}, 1>}} {{
  func.func @{name}(%params: {ptype}, %out: !llvm.ptr<1>, %max_items: i32) attributes {{nvvm.kernel, nvvm.maxntid = array<i32: 32, 1, 1>, nvvm.cluster_dim = array<i32: {cx}, {cy}, 1>}} {{
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %cw = arith.constant {words} : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %lane0 = arith.cmpi eq, %tid, %c0 : i32
    %bx = nvvm.read.ptx.sreg.ctaid.x : i32
    %by = nvvm.read.ptx.sreg.ctaid.y : i32
    %gx = nvvm.read.ptx.sreg.nctaid.x : i32
    %byx = arith.muli %by, %gx : i32
    %cta = arith.addi %byx, %bx : i32
    %itemw = arith.muli %max_items, %cw : i32
    %rowlen = arith.addi %itemw, %c1 : i32
    %row = arith.muli %cta, %rowlen : i32
    %rowp = llvm.getelementptr %out[%row] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    cutlass.async.exec warp mask(0x1) {{
      %sched = {create}
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched : {stype} -> {wtype}
      %last, %items = scf.while (%w = %first, %i = %c0) : ({wtype}, i32) -> ({wtype}, i32) {{
        {valid}
        scf.condition(%valid) %w, %i : {wtype}, i32
      }} do {{
      ^bb0(%w: {wtype}, %i: i32):
        %fits = arith.cmpi slt, %i, %max_items : i32
        %record = arith.andi %lane0, %fits : i1
        scf.if %record {{
          %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %w : {wtype}
          %iw = arith.muli %i, %cw : i32
          %at = arith.addi %iw, %c1 : i32
          %item = llvm.getelementptr %rowp[%at] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %m, %item : i32, !llvm.ptr<1>
          %p1 = llvm.getelementptr %item[%c1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %n, %p1 : i32, !llvm.ptr<1>
          %p2 = llvm.getelementptr %item[%c2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %l, %p2 : i32, !llvm.ptr<1>{extra}
        }}
        {advance}
        %i1 = arith.addi %i, %c1 : i32
        scf.yield %next, %i1 : {wtype}, i32
      }}
      scf.if %lane0 {{
        llvm.store %items, %rowp : i32, !llvm.ptr<1>
      }}
    }}
    func.return
  }}
}}
"""
    return name, text
