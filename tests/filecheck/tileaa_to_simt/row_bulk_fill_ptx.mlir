// RUN: env TILEORCH_ROW_SMEM_CACHE=1 TILEORCH_ROW_BULK_FILL=1 tileorch-opt %s -p tileaa-row-smem-cache,tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=ON
// RUN: env TILEORCH_ROW_SMEM_CACHE=1 TILEORCH_ROW_BULK_FILL=0 tileorch-opt %s -p tileaa-row-smem-cache,tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=OFF

// The row cache's bulk fill (row_bulk_fill.py) of row_smem_cache_ptx.mlir's kernel (1024 bf16 a tile on 128 threads,
// the row's columns at stride 1).  With the switch: before the first loop thread 0 initialises the barriers, fences
// them, arrives with the bytes it expects and issues the bulk copies; a CTA barrier; the first loop waits on its
// tile's barrier before its first ld.shared of the tile (the loaded path, for the tiles not copied, stores the
// slot); the second loop reads the slots.  Without it: no bulk copy, no mbarrier.

// ON-LABEL: .entry taken(
// ON: mov.u32 %r{{[0-9]+}}, %dynamic_smem_size;
// ON: mbarrier.init.shared.b64
// ON: fence.mbarrier_init.release.cluster;
// ON: mbarrier.arrive.expect_tx.shared.b64
// ON: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], %r{{[0-9]+}}, [%rd{{[0-9]+}}];
// ON-NOT: ld.shared
// ON: bar.sync 0;
// ON-NOT: ld.shared
// ON: mbarrier.try_wait.parity.shared.b64
// ON-NEXT: not.pred
// ON-NEXT: @%p{{[0-9]+}} bra
// ON-NOT: st.shared
// ON: ld.shared.v4.b32
// ON: st.shared.v4.b32
// ON: ld.shared.v4.b32
// OFF-LABEL: .entry taken(
// OFF-NOT: mbarrier
// OFF-NOT: cp.async.bulk
// OFF: st.shared.v4.b32
// OFF: ld.shared.v4.b32
!mm = !nv_tileaa.memref<bf16, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!vv = !nv_tileaa.tiled_view<array<i32: 1, 1024>, array<i32: 1, 1024>, array<i32: 0, 1>, !mm>
builtin.module {
  nv_tileaa.func @taken(%x: !nv_tileaa.ptr<bf16>, %y: !nv_tileaa.ptr<bf16>, %rows: i32, %n: i32, %s: i32, %nt: i32, %nt2: i32) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %tok = nv_tileaa.create_mem_token
    %mx = nv_tileaa.make_memref %x[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %my = nv_tileaa.make_memref %y[%rows, %n] [%s] : !nv_tileaa.ptr<bf16>[i32, i32] [i32] -> !mm
    %vx = nv_tileaa.block_tile %mx : !mm -> !vv
    %vx2 = nv_tileaa.block_tile %mx : !mm -> !vv
    %vy = nv_tileaa.block_tile %my : !mm -> !vv
    %r = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %nt step %c1 : i32 {
      %a, %a_t = nv_tileaa.tiled_load %vx[%r, %i] token %tok {padding_value = #nv_tileaa.padding_value<neg_inf>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %a, %vy[%r, %i] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    scf.for %j = %c0 to %nt step %c1 : i32 {
      %b, %b_t = nv_tileaa.tiled_load %vx2[%r, %j] token %tok {padding_value = #nv_tileaa.padding_value<zero>} : !vv[i32, i32] -> tensor<1x1024xbf16>
      %st = nv_tileaa.tiled_store %b, %vy[%r, %j] token %tok : tensor<1x1024xbf16>, !vv[i32, i32]
    }
    nv_tileaa.return
  }
}
