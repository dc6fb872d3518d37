// RUN: tileorch-opt %s --split-input-file -p convert-pipeline-to-nvvm | filecheck %s
// The device fix-up keeps partial accumulators in CUTLASS's reduction-workspace layout
// (cutlass-semantics.md 2.6 and 5.5; block_striped.h: BlockStripedReduce<128, Array<T, V>, T>
// strides ONE element per access): element i of thread t (= tid.x % 128) of warp group w in
// reduction tile `tile` is element  BLK_M*BLK_N*tile + V*128*w + 128*i + t,  BLK_M*BLK_N = W*128*V.
//
// vector<4xf32> (V = 4, 4 bytes), W = num_barriers = 2, w = barrier_idx = 1, by hand:
//   tile stride   W*128*V*4       = 2*128*4*4 = 4096 bytes
//   slice of w=1  V*128*w*4       = 4*128*1*4 = 2048 bytes
//   thread t      t*4 bytes
//   element i     128*i*4         = 0, 512, 1024, 1536 bytes
// so thread t's element i is at byte 4096*tile + 2048 + 4*t + 512*i.
// Locks follow the reduction region (params field reduction_bytes at 0x70):
//   reduction_bytes + 4*(tile*W + w).

builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @fx(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>, %acc: vector<4xf32>) -> vector<4xf32> attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>} {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc {barrier_idx = 1 : i32, num_barriers = 2 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<4xf32>
    func.return %r : vector<4xf32>
  }
}
// tile_idx is work-tile field 8; the workspace pointer is params field 0x20.
// CHECK-LABEL: func.func @fx
// CHECK:      %[[TILE:.*]] = llvm.extractvalue %{{.*}}[8]
// CHECK:      %[[WSP:.*]] = llvm.getelementptr %p[32] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[WSI:.*]] = llvm.load %[[WSP]] <alignment = 8> : !llvm.ptr -> i64
// CHECK-NEXT: %[[WS:.*]] = llvm.inttoptr %[[WSI]] : i64 to !llvm.ptr<1>
// CHECK-NEXT: %[[REDP:.*]] = llvm.getelementptr %p[112] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT: %[[RED32:.*]] = llvm.load %[[REDP]]
// CHECK-NEXT: %[[RED:.*]] = llvm.zext %[[RED32]] : i32 to i64
// CHECK-NEXT: %[[W:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[TW:.*]] = llvm.mul %[[TILE]], %[[W]] : i32
// CHECK-NEXT: %[[G:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[SLOT:.*]] = llvm.add %[[TW]], %[[G]] : i32
// CHECK-NEXT: %[[SLOT64:.*]] = llvm.zext %[[SLOT]] : i32 to i64
// CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT: %[[LOFF:.*]] = llvm.mul %[[SLOT64]], %[[FOUR]] : i64
// CHECK-NEXT: %[[LOCKOFF:.*]] = llvm.add %[[RED]], %[[LOFF]] : i64
// CHECK-NEXT: %[[LOCK:.*]] = llvm.getelementptr %[[WS]][%[[LOCKOFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
//
// Final piece: wait (one thread's acquire load, then the group's bar.sync on StreamK0 + 1),
// then load the four striped elements and add them in.
// CHECK:      llvm.load %[[LOCK]] atomic syncscope("device") acquire
// CHECK:      nvvm.barrier
// CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[T:.*]] = llvm.urem %[[TID]], %[[C128]] : i32
// CHECK-NEXT: %[[TILE64:.*]] = llvm.zext %[[TILE]] : i32 to i64
// CHECK-NEXT: %[[TSTRIDE:.*]] = llvm.mlir.constant(4096) : i64
// CHECK-NEXT: %[[TOFF:.*]] = llvm.mul %[[TILE64]], %[[TSTRIDE]] : i64
// CHECK-NEXT: %[[T64:.*]] = llvm.zext %[[T]] : i32 to i64
// CHECK-NEXT: %[[B:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT: %[[THOFF:.*]] = llvm.mul %[[T64]], %[[B]] : i64
// CHECK-NEXT: %[[SLICE:.*]] = llvm.mlir.constant(2048) : i64
// CHECK-NEXT: %[[LANE:.*]] = llvm.add %[[SLICE]], %[[THOFF]] : i64
// CHECK-NEXT: %[[OFF:.*]] = llvm.add %[[TOFF]], %[[LANE]] : i64
// CHECK-NEXT: %[[BASE:.*]] = llvm.getelementptr %[[WS]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %[[V0:.*]] = llvm.mlir.undef : vector<4xf32>
// CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %[[BASE]][0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %[[X0:.*]] = llvm.load %[[P0]] : !llvm.ptr<1> -> f32
// CHECK-NEXT: %[[I0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[V1:.*]] = llvm.insertelement %[[X0]], %[[V0]][%[[I0]] : i32] : vector<4xf32>
// CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %[[BASE]][512] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %[[X1:.*]] = llvm.load %[[P1]] : !llvm.ptr<1> -> f32
// CHECK-NEXT: %[[I1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[V2:.*]] = llvm.insertelement %[[X1]], %[[V1]][%[[I1]] : i32] : vector<4xf32>
// CHECK-NEXT: %[[P2:.*]] = llvm.getelementptr %[[BASE]][1024] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %[[X2:.*]] = llvm.load %[[P2]] : !llvm.ptr<1> -> f32
// CHECK-NEXT: %[[I2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[V3:.*]] = llvm.insertelement %[[X2]], %[[V2]][%[[I2]] : i32] : vector<4xf32>
// CHECK-NEXT: %[[P3:.*]] = llvm.getelementptr %[[BASE]][1536] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %[[X3:.*]] = llvm.load %[[P3]] : !llvm.ptr<1> -> f32
// CHECK-NEXT: %[[I3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[V4:.*]] = llvm.insertelement %[[X3]], %[[V3]][%[[I3]] : i32] : vector<4xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %acc, %[[V4]] : vector<4xf32>
// CHECK-NEXT: scf.yield %[[SUM]] : vector<4xf32>
//
// First piece: store each element of the accumulator at the same four offsets.
// CHECK:      %[[SBASE:.*]] = llvm.getelementptr %[[WS]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %[[J0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[E0:.*]] = llvm.extractelement %acc[%[[J0]] : i32] : vector<4xf32>
// CHECK-NEXT: %[[Q0:.*]] = llvm.getelementptr %[[SBASE]][0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: llvm.store %[[E0]], %[[Q0]] : f32, !llvm.ptr<1>
// CHECK-NEXT: %[[J1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[E1:.*]] = llvm.extractelement %acc[%[[J1]] : i32] : vector<4xf32>
// CHECK-NEXT: %[[Q1:.*]] = llvm.getelementptr %[[SBASE]][512] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: llvm.store %[[E1]], %[[Q1]] : f32, !llvm.ptr<1>
// CHECK-NEXT: %[[J2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[E2:.*]] = llvm.extractelement %acc[%[[J2]] : i32] : vector<4xf32>
// CHECK-NEXT: %[[Q2:.*]] = llvm.getelementptr %[[SBASE]][1024] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: llvm.store %[[E2]], %[[Q2]] : f32, !llvm.ptr<1>
// CHECK-NEXT: %[[J3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: %[[E3:.*]] = llvm.extractelement %acc[%[[J3]] : i32] : vector<4xf32>
// CHECK-NEXT: %[[Q3:.*]] = llvm.getelementptr %[[SBASE]][1536] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
// CHECK-NEXT: llvm.store %[[E3]], %[[Q3]] : f32, !llvm.ptr<1>
// CHECK-NEXT: } else {

// -----

// A scalar f32 accumulator (V = 1) of the only warp group (W = 1, w = 0): tile stride
// 1*128*1*4 = 512 bytes, slice 0, thread t at 4*t.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @scalar(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>, %acc: f32) -> f32 attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, f32
    func.return %r : f32
  }
}
// CHECK-LABEL: func.func @scalar
// CHECK:      llvm.mlir.constant(512) : i64
// CHECK:      llvm.mlir.constant(4) : i64
// CHECK:      %[[SL:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: %[[LN:.*]] = llvm.add %[[SL]], %{{.*}} : i64
// CHECK-NEXT: %[[OF:.*]] = llvm.add %{{.*}}, %[[LN]] : i64
// CHECK-NEXT: %[[BS:.*]] = llvm.getelementptr %{{.*}}[%[[OF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT: %[[X:.*]] = llvm.load %[[BS]] : !llvm.ptr<1> -> f32
// CHECK-NEXT: arith.addf %acc, %[[X]] : f32

// -----

// vector<4xf16> (V = 4, 2 bytes), W = 1: CUTLASS stripes half2 pairs (BlockStripedReduce's
// half_t specialisation), so pair j of thread t is half2 element 128*j + t: thread stride
// 2*2 = 4 bytes, elements 0..3 at 0, 2, (2*128*1)*2 = 512, 514; tile stride 128*4*2 = 1024.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @half(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic>, %acc: vector<4xf16>) -> vector<4xf16> attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = heuristic> -> !cutlass.tile_scheduler<streamk>
    %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %r = cutlass.tile_scheduler.fixup %s, %w, %acc : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<4xf16>
    func.return %r : vector<4xf16>
  }
}
// CHECK-LABEL: func.func @half
// CHECK:      llvm.mlir.constant(1024) : i64
// CHECK-NEXT: llvm.mul
// CHECK-NEXT: llvm.zext
// CHECK-NEXT: llvm.mlir.constant(4) : i64
// CHECK:      %[[HB:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK-NEXT: llvm.mlir.undef : vector<4xf16>
// CHECK-NEXT: llvm.getelementptr %[[HB]][0] :
// CHECK:      llvm.getelementptr %[[HB]][2] :
// CHECK:      llvm.getelementptr %[[HB]][512] :
// CHECK:      llvm.getelementptr %[[HB]][514] :
// CHECK:      arith.addf %acc, %{{.*}} : vector<4xf16>
