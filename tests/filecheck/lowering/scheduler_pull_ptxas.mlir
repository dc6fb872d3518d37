// REQUIRES: ptxas
// A pull-model persistent walk kernel (the GPU case's kernel, tests/gpu/kernels_pull.py) compiles
// to PTX that ptxas -arch=sm_90a accepts: relaxed global atomic add on the counter, the CTA-wide
// bar.sync 0 pair around the leader's st.shared of the claimed id, ld.shared by every thread and a
// call of the shared body.
// RUN: tileorch compile %s --no-ptxas -o %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: filecheck %s < %t.ptx
// CHECK: .entry pull_walk_dp_along_m(
// CHECK: .shared .align 16 .u32 workid_slot;
// CHECK: st.shared.b32 [workid_slot],
// CHECK: bar.sync 0;
// CHECK: bar.sync 0;
// CHECK-NEXT: ld.shared.b32 %r{{[0-9]+}}, [workid_slot];
// CHECK: call.uni (retval0), __tileorch_sched_dp_c1x1_m,
// CHECK: atom.global.add.u32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], 1;
// CHECK: st.shared.b32 [workid_slot],
// CHECK: .func {{.*}}__tileorch_sched_dp_c1x1_m(

builtin.module attributes {cutlass.target = "sm_90a"} {
  llvm.mlir.global internal @workid_slot() {addr_space = 3 : i32, alignment = 16 : i64} : i32
  func.func @pull_walk_dp_along_m(%params: !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m>, %out: !llvm.ptr<1>, %max_items: i32) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %cw = arith.constant 4 : i32
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
    cutlass.async.exec cta mask(1) threads(128) {
      %sched = cutlass.tile_scheduler.create_dp_params %params workid(%slot : !llvm.ptr<3>) {runtime_pull} : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<dp>
      %first = cutlass.tile_scheduler.initial_work_tile_info %sched : !cutlass.tile_scheduler<dp> -> !cutlass.dp_work_tile_info
      %last, %items = scf.while (%w = %first, %i = %c0) : (!cutlass.dp_work_tile_info, i32) -> (!cutlass.dp_work_tile_info, i32) {
        %valid = cutlass.tile_scheduler.work_tile_info_get_value %w {field = #cutlass<dp_work_tile_info_field is_valid_tile>} : !cutlass.dp_work_tile_info -> i1
        scf.condition(%valid) %w, %i : !cutlass.dp_work_tile_info, i32
      } do {
      ^bb0(%w: !cutlass.dp_work_tile_info, %i: i32):
        %fits = arith.cmpi slt, %i, %max_items : i32
        %record = arith.andi %leader, %fits : i1
        scf.if %record {
          %m, %n, %k, %l = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %w : !cutlass.dp_work_tile_info
          %lin = cutlass.tile_scheduler.work_tile_info_get_value %w {field = #cutlass<dp_work_tile_info_field linearized_id>} : !cutlass.dp_work_tile_info -> i32
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
        }
        cutlass.tile_scheduler.query_next_work %sched : !cutlass.tile_scheduler<dp>
        %next = cutlass.tile_scheduler.get_current_work %sched : !cutlass.tile_scheduler<dp> -> !cutlass.dp_work_tile_info
        %i1 = arith.addi %i, %c1 : i32
        scf.yield %next, %i1 : !cutlass.dp_work_tile_info, i32
      }
      scf.if %leader {
        llvm.store %items, %rowp : i32, !llvm.ptr<1>
      }
    }
    func.return
  }
}
