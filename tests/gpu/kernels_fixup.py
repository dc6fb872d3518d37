"""MLIR of the Stream-K fix-up kernels: ``W`` consumer warp groups per CTA walk the stream-K
schedule; for each work piece thread ``t`` of warp group ``w`` sums its K slices
``A[tile, k, w, t]`` (``vector<4xf32>`` of small integers, so every order of additions is exact),
folds the partials of the tile's other pieces in with ``cutlass.tile_scheduler.fixup`` (barrier
``w`` of ``W``) and, where ``compute_epilogue`` says it is the final piece, stores the result to
``out[tile, w, t]``.  ``tile = (l * tiles_m + m) * tiles_n + n``."""

from __future__ import annotations

VEC = 4


def fixup_name(wgs: int) -> str:
    return f"fixup_wg{wgs}"


def _group(wgs: int, w: int) -> str:
    ptype = "!cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>"
    stype = "!cutlass.tile_scheduler<streamk>"
    wtype = "!cutlass.streamk_work_tile_info"
    return f"""
    cutlass.async.exec warpgroup mask(0x{1 << w:x}) {{
      %cw = arith.constant {w} : i32
      %sched = cutlass.tile_scheduler.create_streamk_params %params : {ptype} -> {stype}
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched : {stype} -> {wtype}
      %last = scf.while (%wk = %first) : ({wtype}) -> {wtype} {{
        %count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %wk : {stype}, {wtype}
        %valid = arith.cmpi sgt, %count, %c0 : i32
        scf.condition(%valid) %wk : {wtype}
      }} do {{
      ^bb0(%wk: {wtype}):
        %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %wk : {wtype}
        %ks = cutlass.tile_scheduler.get_work_k_tile_start %sched, %wk : {stype}, {wtype}
        %kc = cutlass.tile_scheduler.get_work_k_tile_count %sched, %wk : {stype}, {wtype}
        %lm0 = arith.muli %l, %tiles_m : i32
        %lm = arith.addi %lm0, %m : i32
        %lmn0 = arith.muli %lm, %tiles_n : i32
        %tile = arith.addi %lmn0, %n : i32
        %kend = arith.addi %ks, %kc : i32
        %tk = arith.muli %tile, %k_tiles : i32
        %acc = scf.for %kk = %ks to %kend step %c1 iter_args(%a = %zero) -> (vector<{VEC}xf32>) : i32 {{
          %row0 = arith.addi %tk, %kk : i32
          %row1 = arith.muli %row0, %cwgs : i32
          %row2 = arith.addi %row1, %cw : i32
          %row3 = arith.muli %row2, %c128 : i32
          %ai = arith.addi %row3, %t : i32
          %ap = llvm.getelementptr %A[%ai] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<{VEC}xf32>
          %av = llvm.load %ap {{alignment = 16 : i64}} : !llvm.ptr<1> -> vector<{VEC}xf32>
          %sum = arith.addf %a, %av : vector<{VEC}xf32>
          scf.yield %sum : vector<{VEC}xf32>
        }}
        %fixed = cutlass.tile_scheduler.fixup %sched, %wk, %acc {{barrier_idx = {w} : i32, num_barriers = {wgs} : i32}} : {stype}, {wtype}, vector<{VEC}xf32>
        %epi = cutlass.tile_scheduler.compute_epilogue %sched, %wk : {stype}, {wtype}
        scf.if %epi {{
          %o0 = arith.muli %tile, %cwgs : i32
          %o1 = arith.addi %o0, %cw : i32
          %o2 = arith.muli %o1, %c128 : i32
          %oi = arith.addi %o2, %t : i32
          %op = llvm.getelementptr %out[%oi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<{VEC}xf32>
          llvm.store %fixed, %op {{alignment = 16 : i64}} : vector<{VEC}xf32>, !llvm.ptr<1>
        }}
        %next, %inc = cutlass.tile_scheduler.fetch_next_work %sched, %wk : {stype}, {wtype}
        scf.yield %next : {wtype}
      }}
    }}"""


def fixup_kernel(wgs: int) -> tuple[str, str]:
    """(name, text) of ``fixup_wg<W>(params, A, out, tiles_m, tiles_n, k_tiles)``; block 128 * W."""
    name = fixup_name(wgs)
    ptype = "!cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>"
    groups = "".join(_group(wgs, w) for w in range(wgs))
    text = f"""builtin.module attributes {{cutlass.target = "sm_90a"}} {{
  func.func @{name}(%params: {ptype}, %A: !llvm.ptr<1>, %out: !llvm.ptr<1>, %tiles_m: i32, %tiles_n: i32, %k_tiles: i32) attributes {{nvvm.kernel, nvvm.maxntid = array<i32: {128 * wgs}, 1, 1>}} {{
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %cwgs = arith.constant {wgs} : i32
    %zero = llvm.mlir.constant(dense<0.0> : vector<{VEC}xf32>) : vector<{VEC}xf32>
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %t = arith.remui %tid, %c128 : i32{groups}
    func.return
  }}
}}
"""
    return name, text
