// REQUIRES: ptxas
// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts | filecheck %s --check-prefix=ASSIGN
// RUN: tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: env TILEORCH_PREDICATED_INDEX_LOADS=0 tileorch-opt %s -p tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=BRANCH
// RUN: ptxas -arch=sm_90a %t.ptx -o %t.cubin

// An embedding lookup through int64 ids (issue 21, session 19): 16 rows of 128 bf16 gathered
// through a tile of pointers and scattered to the output, masked by `rows < n` and `cols < d`.
// * The CTA is sized by the pointer tiles' vector accesses as by a view's (4 runs of 16 bytes per
//   thread in a loop-free gather: 16 x 128 bf16 / 8 / 4 = 64 threads), not by the 16-id load
//   alone (32 threads holding 8 runs each: 81 registers, against 54).
// * The masks (compares of ranges with scalars, then broadcast) are recomputed by each thread
//   (rematerialize.py), not exchanged through shared memory: no barrier, no shared memory.
// * An int64 id is one predicated 8-byte load (`@p ld.global.v2.b32`, no branch), not two 4-byte
//   halves behind a branch; with TILEORCH_PREDICATED_INDEX_LOADS=0 (a branch around a plain load)
//   one `ld.global.b64` (a global element read with its natural alignment).

// ASSIGN: nv_tileaa.func @emb{{.*}}nv_tileaa.simt_layout = #nv_tileaa.blocked<elems = [8], lanes = [32], warps = [2], order = [0]>
// ASSIGN: nv_tileaa.load {{.*}}nv_tileaa.layout = #nv_tileaa.blocked<elems = [1, 8], lanes = [2, 16], warps = [2, 1], order = [1, 0]>

// BRANCH: .maxntid 64, 1, 1
// BRANCH: bra
// BRANCH: ld.global.b64
// BRANCH-NOT: ld.global.b32

// CHECK: .maxntid 64, 1, 1
// CHECK-NOT: bar.sync
// CHECK-NOT: .shared
// CHECK: @p ld.global.v2.b32
// CHECK-NOT: ld.global.b32
// CHECK-NOT: bar.sync
// CHECK-NOT: st.shared
// CHECK: ld.global.v4.b32
// CHECK: ld.global.v4.b32
// CHECK: ld.global.v4.b32
// CHECK: ld.global.v4.b32
// CHECK-NOT: bar.sync
// CHECK: st.global.v4.b32
builtin.module {
  nv_tileaa.func @emb(%pid: !nv_tileaa.ptr<i64>, %nids: i32, %ptab: !nv_tileaa.ptr<bf16>, %d: i32, %pout: !nv_tileaa.ptr<bf16>, %rows: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>, tileorch.num_warps_auto} {
    %tok = nv_tileaa.create_mem_token
    %pid16 = nv_tileaa.assume %pid {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<i64>
    %ids_m = nv_tileaa.make_memref %pid16[%nids] [] : !nv_tileaa.ptr<i64>[i32] [] -> !nv_tileaa.memref<i64, array<i64: ?>, array<i64: 1>, i32>
    %ids_v = nv_tileaa.block_tile %ids_m : !nv_tileaa.memref<i64, array<i64: ?>, array<i64: 1>, i32> -> !nv_tileaa.tiled_view<array<i32: 16>, array<i32: 16>, array<i32: 0>, !nv_tileaa.memref<i64, array<i64: ?>, array<i64: 1>, i32>>
    %c16 = arith.constant 16 : i32
    %bid = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %ids, %t0 = nv_tileaa.tiled_load %ids_v[%bid] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !nv_tileaa.tiled_view<array<i32: 16>, array<i32: 16>, array<i32: 0>, !nv_tileaa.memref<i64, array<i64: ?>, array<i64: 1>, i32>> [i32] -> tensor<16xi64>
    %cols = nv_tileaa.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi64>
    %r16 = nv_tileaa.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi64>
    %base = nv_tileaa.muli %bid, %c16 : i32
    %base64 = arith.extsi %base : i32 to i64
    %base_s = nv_tileaa.splat %base64 : i64 -> tensor<16xi64>
    %row = nv_tileaa.addi %r16, %base_s : tensor<16xi64>
    %n64 = arith.extsi %nids : i32 to i64
    %n_s = nv_tileaa.splat %n64 : i64 -> tensor<16xi64>
    %row_ok = nv_tileaa.cmpi "slt", %row, %n_s : tensor<16xi64> -> tensor<16xi1>
    %d64 = arith.extsi %d : i32 to i64
    %d_s = nv_tileaa.splat %d64 : i64 -> tensor<128xi64>
    %col_ok = nv_tileaa.cmpi "slt", %cols, %d_s : tensor<128xi64> -> tensor<128xi1>
    %row_ok2 = nv_tileaa.expand_dims %row_ok {dim = 1 : i32} : tensor<16xi1> -> tensor<16x1xi1>
    %col_ok2 = nv_tileaa.expand_dims %col_ok {dim = 0 : i32} : tensor<128xi1> -> tensor<1x128xi1>
    %row_okb = nv_tileaa.broadcast %row_ok2 : tensor<16x1xi1> -> tensor<16x128xi1>
    %col_okb = nv_tileaa.broadcast %col_ok2 : tensor<1x128xi1> -> tensor<16x128xi1>
    %mask = arith.andi %row_okb, %col_okb : tensor<16x128xi1>
    %d_b = nv_tileaa.splat %d64 : i64 -> tensor<16x128xi64>
    %ids2 = nv_tileaa.expand_dims %ids {dim = 1 : i32} : tensor<16xi64> -> tensor<16x1xi64>
    %idsb = nv_tileaa.broadcast %ids2 : tensor<16x1xi64> -> tensor<16x128xi64>
    %cols2 = nv_tileaa.expand_dims %cols {dim = 0 : i32} : tensor<128xi64> -> tensor<1x128xi64>
    %colsb = nv_tileaa.broadcast %cols2 : tensor<1x128xi64> -> tensor<16x128xi64>
    %src_row = nv_tileaa.muli %idsb, %d_b : tensor<16x128xi64>
    %src_off = nv_tileaa.addi %src_row, %colsb : tensor<16x128xi64>
    %ptab16 = nv_tileaa.assume %ptab {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<bf16>
    %tab_s = nv_tileaa.splat %ptab16 : !nv_tileaa.ptr<bf16> -> tensor<16x128x!nv_tileaa.ptr<bf16>>
    %src = nv_tileaa.offset %tab_s, %src_off : tensor<16x128x!nv_tileaa.ptr<bf16>>, tensor<16x128xi64> -> tensor<16x128x!nv_tileaa.ptr<bf16>>
    %zero = arith.constant 0.000000e+00 : bf16
    %zeros = nv_tileaa.splat %zero : bf16 -> tensor<16x128xbf16>
    %v, %t1 = nv_tileaa.load %src mask %mask : tensor<16x128xi1> other %zeros : tensor<16x128xbf16> token %tok : tensor<16x128x!nv_tileaa.ptr<bf16>> -> tensor<16x128xbf16>
    %row2 = nv_tileaa.expand_dims %row {dim = 1 : i32} : tensor<16xi64> -> tensor<16x1xi64>
    %rowb = nv_tileaa.broadcast %row2 : tensor<16x1xi64> -> tensor<16x128xi64>
    %dst_row = nv_tileaa.muli %rowb, %d_b : tensor<16x128xi64>
    %dst_off = nv_tileaa.addi %dst_row, %colsb : tensor<16x128xi64>
    %pout16 = nv_tileaa.assume %pout {predicate = #nv_tileaa.div_by<16>} : !nv_tileaa.ptr<bf16>
    %out_s = nv_tileaa.splat %pout16 : !nv_tileaa.ptr<bf16> -> tensor<16x128x!nv_tileaa.ptr<bf16>>
    %dst = nv_tileaa.offset %out_s, %dst_off : tensor<16x128x!nv_tileaa.ptr<bf16>>, tensor<16x128xi64> -> tensor<16x128x!nv_tileaa.ptr<bf16>>
    %t2 = nv_tileaa.store %v, %dst mask %mask : tensor<16x128xi1> token %tok : tensor<16x128xbf16>, tensor<16x128x!nv_tileaa.ptr<bf16>>
    nv_tileaa.return
  }
}
