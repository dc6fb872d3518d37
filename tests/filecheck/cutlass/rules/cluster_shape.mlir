// CGA shapes the cluster rule accepts: equal to the declared launch cluster (module or kernel),
// 16 CTAs on sm_90a (non-portable size), and host-built shapes in a module that declares none.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @matching_module
// CHECK: cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<2, 2, 1>}
// CHECK: cutlass.tile_scheduler.create_static_persistent_params
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @matching_module(%p: !cutlass.tile_scheduler_static_persistent_params<cga = [2, 2, 1], raster = along_n>) {
    %d = cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<2, 2, 1>} : !cutlass.dynamic_participants<1, 1>
    %s = cutlass.tile_scheduler.create_static_persistent_params %p : !cutlass.tile_scheduler_static_persistent_params<cga = [2, 2, 1], raster = along_n> -> !cutlass.tile_scheduler<static_persistent>
    func.return
  }
}

// -----

// CHECK-LABEL: func.func @matching_kernel
// CHECK: cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<1, 2, 1>}
func.func @matching_kernel() attributes {nvvm.kernel, nvvm.cluster_dim = array<i32: 1, 2>} {
  %d = cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<1, 2, 1>} : !cutlass.dynamic_participants<1, 1>
  func.return
}

// -----

// 4x4x1 = 16 CTAs: the non-portable cluster of sm_90a.
// CHECK-LABEL: func.func @sixteen
// CHECK: cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<4, 4, 1>}
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 4, 4, 1>} {
  func.func @sixteen() {
    %d = cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<4, 4, 1>} : !cutlass.dynamic_participants<1, 1>
    func.return
  }
}

// -----

// No cluster declared: host-built params keep their own (launchable) CGA shape.
// CHECK-LABEL: func.func @undeclared
// CHECK: cutlass.tile_scheduler.make_dp_params
func.func @undeclared(%m: i32) {
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) {tile_shape = array<i64: 128, 128, 64>, raster_order = #cutlass<raster_order along_m>} : !cutlass.tile_scheduler_dp_params<cga = [2, 1, 1]>
  func.return
}
