"""MLIR of the MODS probe kernels: one warp group per CTA opens the MODS window
(``mods_report_mainloop_start`` with every CTA of the cluster a participant), reads its SM id,
runs ``iters`` throttle points of one profile, closes the window (``mods_report_mainloop_end``,
returning the elapsed global-timer ns) and thread 0 writes ``smid, elapsed_lo, elapsed_hi, 1`` to
``out[cta]``."""

from __future__ import annotations

MODS_THREADS = 128


def mods_name(cluster_x: int, profile: int) -> str:
    return f"mods_c{cluster_x}x1_p{profile}"


def mods_kernel(cluster_x: int, profile: int) -> tuple[str, str]:
    name = mods_name(cluster_x, profile)
    ptype = f"!cutlass.tile_scheduler_streamk_params<cga = [{cluster_x}, 1, 1], raster = heuristic>"
    stype = "!cutlass.tile_scheduler<streamk>"
    text = f"""builtin.module attributes {{cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: {cluster_x}, 1, 1>}} {{
  func.func @{name}(%params: {ptype}, %out: !llvm.ptr<1>, %iters: i32) attributes {{nvvm.kernel, nvvm.maxntid = array<i32: {MODS_THREADS}, 1, 1>, nvvm.cluster_dim = array<i32: {cluster_x}, 1, 1>}} {{
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %c32 = arith.constant 32 : i64
    %participants = arith.constant {(1 << cluster_x) - 1} : i64
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %cta = nvvm.read.ptx.sreg.ctaid.x : i32
    %t0 = arith.cmpi eq, %tid, %c0 : i32
    %slot = arith.muli %cta, %c4 : i32
    %rec = llvm.getelementptr %out[%slot] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
    cutlass.async.exec warpgroup mask(0x1) {{
      %sched = cutlass.tile_scheduler.create_streamk_params %params : {ptype} -> {stype}
      %start = cutlass.tile_scheduler.mods_report_mainloop_start %sched, %participants : {stype}, i64 -> i64
      %smid = cutlass.tile_scheduler.mods_report_smid : i32
      scf.for %i = %c0 to %iters step %c1 : i32 {{
        cutlass.tile_scheduler.mods_throttle {{profile = {profile} : i32}}
      }}
      %elapsed = cutlass.tile_scheduler.mods_report_mainloop_end %sched, %participants, %start : {stype}, i64, i64 -> i64
      scf.if %t0 {{
        %lo = arith.trunci %elapsed : i64 to i32
        %hi64 = arith.shrui %elapsed, %c32 : i64
        %hi = arith.trunci %hi64 : i64 to i32
        llvm.store %smid, %rec : i32, !llvm.ptr<1>
        %p1 = llvm.getelementptr %rec[%c1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %lo, %p1 : i32, !llvm.ptr<1>
        %p2 = llvm.getelementptr %rec[%c2] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %hi, %p2 : i32, !llvm.ptr<1>
        %p3 = llvm.getelementptr %rec[%c3] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %c1, %p3 : i32, !llvm.ptr<1>
      }}
    }}
    func.return
  }}
}}
"""
    return name, text
