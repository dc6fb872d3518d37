// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s
// RUN: tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass,lower-to-llvm -t ptx > %t.ptx
// RUN: filecheck %s --check-prefix=PTX < %t.ptx
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: env TILEORCH_GEMM_SHARED_CONSUMER=0 tileorch-opt %s -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=GROUPS
// RUN: sed 's/{allow_tma = true}/{allow_tma = true, padding_value = #nv_tileaa.padding_value<zero>}/' %s | tileorch-opt -p tileas-tier,convert-nv-tileas-to-cutlass | filecheck %s --check-prefix=ZERO
// A GEMM that stores C and, beside it, two column reductions of its 128x128 tile as [1, 128] tiles:
// P = max(alpha * acc, axis 0) and Q = sum(relu(acc), axis 0).  Each consumer thread folds its two
// rows of each of its 32 columns, a butterfly over the lanes sharing the columns (xor 4, 8, 16)
// gives each warp's partial, lanes 0..3 write the partials to shared memory between two bar.sync of
// named barrier 1 over the 256 consumer threads, and consumer thread c folds column c's 8 partials
// and stores it.  The partials go to the TMA epilogue's staging buffer (no shared memory of their
// own: the pipeline keeps its 6 stages): each warp group's elected thread first waits until its
// previous TMA stores have read it, and a third barrier keeps C's staging behind the last read.  A's padding is undetermined: rows outside the array (a partial M tile) contribute
// the reduction's identity (-inf for the max, 0 for the sum); with A's padding zero (the ZERO run)
// the program defines those rows and they are folded in as they are.
!m = !nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!mp = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!va = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vbt = !nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, !m>
!vc = !nv_tileaa.tiled_view<array<i32: 128, 128>, array<i32: 128, 128>, array<i32: 0, 1>, !m>
!vp = !nv_tileaa.tiled_view<array<i32: 1, 128>, array<i32: 1, 128>, array<i32: 0, 1>, !mp>
builtin.module attributes {nv_tileaa.compute_capability = #nv_tileaa.compute_capability<90, 2>} {
  nv_tileaa.func @gemm_colmax(%a: !nv_tileaa.ptr<f16>, %b: !nv_tileaa.ptr<f16>, %c: !nv_tileaa.ptr<f16>, %p: !nv_tileaa.ptr<f32>, %q: !nv_tileaa.ptr<f32>, %m: i32, %n: i32, %k: i32, %tiles_m: i32, %alpha: f32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 8>} {
    %ma = nv_tileaa.make_memref %a[%m, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mb = nv_tileaa.make_memref %b[%n, %k] [%k] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mc = nv_tileaa.make_memref %c[%m, %n] [%n] : !nv_tileaa.ptr<f16> [i32, i32] [i32] -> !m
    %mp = nv_tileaa.make_memref %p[%tiles_m, %n] [%n] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mp
    %mq = nv_tileaa.make_memref %q[%tiles_m, %n] [%n] : !nv_tileaa.ptr<f32> [i32, i32] [i32] -> !mp
    %va = nv_tileaa.block_tile %ma : !m -> !va
    %vb = nv_tileaa.block_tile %mb : !m -> !vbt
    %vc = nv_tileaa.block_tile %mc : !m -> !vc
    %vp = nv_tileaa.block_tile %mp : !mp -> !vp
    %vq = nv_tileaa.block_tile %mq : !mp -> !vp
    %pm = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %pn = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %kt = nv_tileaa.get_dim_size %va {index = 1 : i32} : !va -> i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %acc = scf.for %i = %c0 to %kt step %c1 iter_args(%x = %zero) -> (tensor<128x128xf32>) : i32 {
      %ta, %t0 = nv_tileaa.tiled_load %va[%pm, %i] {allow_tma = true} : !va [i32, i32] -> tensor<128x64xf16>
      %tbt, %t1 = nv_tileaa.tiled_load %vb[%pn, %i] : !vbt [i32, i32] -> tensor<128x64xf16>
      %tb = "nv_tileaa.permute"(%tbt) <{permutation = array<i32: 1, 0>}> : (tensor<128x64xf16>) -> tensor<64x128xf16>
      %y = nv_tileaa.dot %ta, %tb, %x : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
      scf.yield %y : tensor<128x128xf32>
    }
    %h = nv_tileaa.fp_to_fp %acc : tensor<128x128xf32> -> tensor<128x128xf16>
    %t5 = nv_tileaa.tiled_store %h, %vc[%pm, %pn] : tensor<128x128xf16>, !vc [i32, i32]
    %al = nv_tileaa.splat %alpha : f32 -> tensor<128x128xf32>
    %scaled = nv_tileaa.mulf %acc, %al : tensor<128x128xf32>
    %mx = "nv_tileaa.reduce"(%scaled) <{dim = 0 : i32, identities = [0xff800000 : f32]}> ({
    ^bb0(%u: f32, %v: f32):
      %w = nv_tileaa.maxf %u, %v : f32
      "nv_tileaa.yield"(%w) : (f32) -> ()
    }) : (tensor<128x128xf32>) -> tensor<128xf32>
    %mx2 = nv_tileaa.reshape %mx : tensor<128xf32> -> tensor<1x128xf32>
    %t6 = nv_tileaa.tiled_store %mx2, %vp[%pm, %pn] : tensor<1x128xf32>, !vp [i32, i32]
    %r = nv_tileaa.maxf %acc, %zero : tensor<128x128xf32>
    %sm = "nv_tileaa.reduce"(%r) <{dim = 0 : i32, identities = [0.000000e+00 : f32]}> ({
    ^bb0(%u: f32, %v: f32):
      %w = nv_tileaa.addf %u, %v : f32
      "nv_tileaa.yield"(%w) : (f32) -> ()
    }) : (tensor<128x128xf32>) -> tensor<128xf32>
    %sm2 = nv_tileaa.expand_dims %sm {dim = 0 : i32} : tensor<128xf32> -> tensor<1x128xf32>
    %t7 = nv_tileaa.tiled_store %sm2, %vq[%pm, %pn] : tensor<1x128xf32>, !vp [i32, i32]
    nv_tileaa.return
  }
}
// Two column reductions: 2 x 8 consumer warps x 128 columns of f32 partials in the 32 KiB staging buffer
// CHECK:      func.func @gemm_f16_f16_bk_128x128x64_s6_{{.*}}_etma(
// CHECK-SAME: remarks = ["2 column reduction(s) of the result stored beside it
// CHECK-SAME: retile_safe = false
// CHECK-SAME: scratch_bytes = 0
// The one consumer body both warp groups run (TILEORCH_GEMM_SHARED_CONSUMER=1, the default): the staging
// buffer (after 6 stages of 32 KiB) is free once this warp group's TMA stores have read it; then the
// exchange barrier (a previous tile's readers are done)
// CHECK:      cutlass.async.exec warpgroup mask(0x6)
// CHECK:      %[[C31:.*]] = arith.constant 31 : i32
// CHECK:      %[[X16:.*]] = arith.constant 16 : i32
// CHECK:      %[[X8:.*]] = arith.constant 8 : i32
// CHECK:      %[[C128:.*]] = arith.constant 128 : i32
// CHECK-NEXT: %consumer = arith.subi %{{.*}}, %{{.*}} : i32
// CHECK:      arith.constant 196608 : i32
// CHECK-NEXT: %scratch = llvm.getelementptr %smem[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK:      %[[X4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %writer = arith.cmpi ult, %{{.*}}, %[[X4]] : i32
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK-NEXT:   nvvm.cp.async.bulk.wait_group 0 read
// CHECK:      cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 256
// The column max: this thread's two rows of column 0, scaled, rows outside the array as -inf (one constant:
// the builders share theirs per value and block)
// CHECK:      llvm.extractvalue %acc_out[0]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[NINF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT: arith.select %{{.*}}, %{{.*}}, %[[NINF]] : f32
// CHECK:      llvm.extractvalue %acc_out[2]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.select %{{.*}}, %{{.*}}, %[[NINF]] : f32
// CHECK-NEXT: "llvm.maxnum.f32"
// the butterfly over the lanes sharing the column: xor 4, 8, 16 (X8 and X16: the row coordinates' constants)
// CHECK-NEXT: arith.bitcast
// CHECK-NEXT: %[[MASK:.*]] = arith.constant -1 : i32
// CHECK-NEXT: "llvm.nvvm.shfl.sync.bfly.i32"(%[[MASK]], %{{.*}}, %[[X4]], %[[C31]])
// CHECK:      "llvm.maxnum.f32"
// CHECK-NEXT: arith.bitcast
// CHECK-NEXT: "llvm.nvvm.shfl.sync.bfly.i32"(%[[MASK]], %{{.*}}, %[[X8]], %[[C31]])
// CHECK:      "llvm.maxnum.f32"
// CHECK-NEXT: arith.bitcast
// CHECK-NEXT: "llvm.nvvm.shfl.sync.bfly.i32"(%[[MASK]], %{{.*}}, %[[X16]], %[[C31]])
// CHECK:      "llvm.maxnum.f32"
// lanes 0..3 write the warp's partial to the scratch
// CHECK:      llvm.getelementptr %scratch[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-NEXT: scf.if %writer {
// CHECK-NEXT:   llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// The column sum of relu(acc) (the accumulator elements already extracted): rows outside the array as 0
// CHECK:      arith.constant 0.000000e+00 : f32
// CHECK-NEXT: "llvm.maxnum.f32"
// CHECK-NEXT: %[[FZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.select %{{.*}}, %{{.*}}, %[[FZERO]] : f32
// Then consumer thread c folds column c's 8 partials (in warp order) and stores it
// CHECK:      cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 256
// CHECK-NEXT: %in_tile = arith.cmpi ult, %consumer, %[[C128]] : i32
// CHECK:      %column = arith.select %in_tile, %consumer, %{{.*}} : i32
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:      arith.cmpi slt
// CHECK:      arith.andi %in_tile, %{{.*}} : i1
// CHECK:      scf.if
// CHECK-NEXT:   llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:      scf.if
// CHECK-NEXT:   llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
// every partial read: then C's own TMA epilogue may stage into the buffer
// CHECK:      cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 256
// CHECK-NEXT: scf.if %wg_leader {
// CHECK-NEXT:   nvvm.cp.async.bulk.wait_group 1 read
// C's rounds: one epilogue barrier over both warp groups' 256 threads, no second consumer body
// CHECK:      cutlass.named_barrier.arrive_and_wait barrier_id = 14 num_threads = 256
// CHECK:      atom.stage_fragment
// CHECK-NOT:  cutlass.async.exec
// CHECK-NOT:  barrier_id = 15
// CHECK:      func.return
// With TILEORCH_GEMM_SHARED_CONSUMER=0 each warp group runs the same exchange on the same barrier in a body of
// its own, C's rounds on a barrier of its own (14, 15) over its 128 threads
// GROUPS:      cutlass.async.exec warpgroup mask(0x2)
// GROUPS:      cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 256
// GROUPS:      cutlass.named_barrier.arrive_and_wait barrier_id = 14 num_threads = 128
// GROUPS:      atom.stage_fragment
// GROUPS:      cutlass.async.exec warpgroup mask(0x4)
// GROUPS:      nvvm.cp.async.bulk.wait_group 0 read
// GROUPS:      cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 256
// GROUPS:      cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 256
// GROUPS:      cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 256
// GROUPS-NEXT: scf.if %wg_leader{{.*}} {
// GROUPS:      cutlass.named_barrier.arrive_and_wait barrier_id = 15 num_threads = 128
// GROUPS:      atom.stage_fragment

// A's padding zero: the program defines the rows outside the array, folded in as they are
// ZERO:       cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 256
// ZERO-NEXT:  arith.muli
// ZERO-NEXT:  arith.addi
// ZERO-NEXT:  llvm.extractvalue %acc_out[0]
// ZERO-NEXT:  arith.mulf
// ZERO-NEXT:  llvm.extractvalue %acc_out[2]
// ZERO-NEXT:  arith.mulf
// ZERO-NEXT:  "llvm.maxnum.f32"
// ZERO-NOT:   0xff800000

// In the PTX, the exchange barrier over the 256 consumer threads, three times in the one consumer body; the shuffles
// PTX:        .entry gemm_f16_f16_bk_128x128x64_
// PTX:        cp.async.bulk.wait_group.read 0;
// PTX:        bar.sync 1, 256;
// PTX:        shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// PTX:        shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// PTX:        shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// PTX:        st.shared.b32
// PTX:        bar.sync 1, 256;
// PTX:        ld.shared.b32
// PTX:        st.global.b32
// PTX:        bar.sync 1, 256;
// PTX:        cp.async.bulk.wait_group.read 1;
// PTX:        bar.sync 14, 256;
// PTX-NOT:    setmaxnreg.inc
