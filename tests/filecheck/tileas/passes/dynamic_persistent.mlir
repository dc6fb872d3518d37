// RUN: tileorch-opt %s --split-input-file -p tileas-dynamic-persistent 2>&1 | filecheck %s
// RUN: tileorch-opt %s --split-input-file -p tileas-dynamic-persistent,tileas-dynamic-persistent 2>&1 | filecheck %s --check-prefix=TWICE

!m = !nv_tileaa.memref<f32, array<i64: ?, ?>, array<i64: ?, 1>, i32>
!v = !nv_tileaa.tiled_view<array<i32: 64, 64>, array<i32: 64, 64>, array<i32: 0, 1>, !m>
builtin.module {
  nv_tileaa.func @k(%v: !v) attributes {nv_tileaa.kernel_spec = #nv_tileaa.kernel_spec<1, 4>} {
    %p0 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    %p1 = nv_tileaa.get_program_id {axis = 1 : i32} : i32
    %x = nv_tileas.tiled_load %v[%p0, %p1] {atom = #nv_tileas.ldg<4>} : !v [i32, i32] -> tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>
    nv_tileas.tiled_store %x, %v[%p1, %p0] {atom = #nv_tileas.stg<4>} : tensor<64x64xf32, #nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>>, !v [i32, i32]
    nv_tileaa.return
  }
  nv_tileaa.func @device_helper() {
    %p0 = nv_tileaa.get_program_id {axis = 0 : i32} : i32
    nv_tileaa.return
  }
}
// CHECK-LABEL: nv_tileaa.func @k
// CHECK-NEXT: %[[FIRST:.*]] = nv_tileaa.current_program_id
// CHECK-NEXT: %{{.*}} = scf.while (%[[P:.*]] = %[[FIRST]]) : (!nv_tileaa.program_id) -> !nv_tileaa.program_id {
// CHECK-NEXT:   %[[V:.*]] = nv_tileaa.is_valid_program_id %[[P]]
// CHECK-NEXT:   scf.condition(%[[V]]) %[[P]] : !nv_tileaa.program_id
// CHECK-NEXT: } do {
// CHECK-NEXT: ^{{.*}}(%[[ID:.*]]: !nv_tileaa.program_id):
// CHECK-NEXT:   %[[X0:.*]] = nv_tileaa.get_program_id %[[ID]] {axis = 0 : i32} : i32
// CHECK-NEXT:   %[[X1:.*]] = nv_tileaa.get_program_id %[[ID]] {axis = 1 : i32} : i32
// CHECK-NEXT:   nv_tileas.tiled_load %{{.*}}[%[[X0]], %[[X1]]]
// CHECK-NEXT:   nv_tileas.tiled_store
// CHECK-NEXT:   %[[N:.*]] = nv_tileas.cancel_next_program_id
// CHECK-NEXT:   scf.yield %[[N]] : !nv_tileaa.program_id
// CHECK-NEXT: }
// CHECK-NEXT: nv_tileaa.return
// A device function (no kernel_spec) is not a kernel.
// CHECK-LABEL: nv_tileaa.func @device_helper
// CHECK-NEXT: nv_tileaa.get_program_id {axis = 0 : i32}
// TWICE: dynamic_persistent.mlir:7:3: warning: Kernel is already dynamic persistent
// TWICE-COUNT-1: scf.while
// TWICE-NOT: scf.while
