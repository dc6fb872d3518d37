// RUN: env TILEORCH_ROW_SMEM_CACHE=1 tileorch-opt %s -p tileaa-row-smem-cache,tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=ON
// RUN: env TILEORCH_ROW_SMEM_CACHE=0 tileorch-opt %s -p tileaa-row-smem-cache,tileas-assign-load-store-layouts,tileas-remove-layout-conversions,convert-nv-tileaa-to-simt,lower-to-llvm -t ptx | filecheck %s --check-prefix=OFF

// The row cache's lowering (row_cache_lowering.py) of row_smem_cache.mlir's first kernel (y = x tile by tile,
// twice; 1024 bf16 a tile on 128 threads: one 16-byte run a thread).  With the switch the scratch is dynamic shared memory,
// the kernel reads %dynamic_smem_size, the first loop stores each tile's run to its slot (st.shared.v4) and the
// second loop loads it from there (ld.shared.v4) -- beside the global reload for the slots that do not fit.
// Without it the marks are ignored (no shared-memory access at all).

// ON: .extern .shared .align 16 .b8 __tileorch_simt_scratch[];
// ON-LABEL: .entry taken(
// ON: mov.u32 %r{{[0-9]+}}, %dynamic_smem_size;
// ON: st.shared.v4.b32
// ON: ld.shared.v4.b32
// ON: ld.global.v4.b32
// OFF-NOT: dynamic_smem_size
// OFF-NOT: st.shared
// OFF-NOT: ld.shared
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
