// Rule: a CGA (thread-block cluster) shape stated by an op -- the cgaShape of
// cutlass.pipeline.make_participants, the `cga = [x, y, z]` of a scheduler params type (read by every
// op that takes or builds the params) -- has positive extents, at most the CTAs the target launches in
// one cluster (none before sm_90; 16 with the non-portable opt-in on sm_90 / sm_100; 8 portably), and
// equals the launch cluster the kernel (nvvm.cluster_dim) or module (cutlass.cluster_shape) declares.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Pipeline participants built for a 4-CTA CGA in a module launched as 2x1x1 clusters.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @participants_vs_module() {
    %d = cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<4, 1, 1>} : !cutlass.dynamic_participants<1, 1>
    func.return
  }
}
// CHECK: cluster_shape_invalid.mlir:[[# @LINE - 4]]:5: error: cutlass.pipeline.make_participants: cgaShape 4x1x1 differs from the launch cluster (the module's cutlass.cluster_shape = 2x1x1): a CGA is the set of CTAs of one launched cluster, so its shape must be the cluster shape

// -----

// The kernel's own cluster attribute declares the launch cluster too.
func.func @participants_vs_kernel() attributes {nvvm.kernel, nvvm.cluster_dim = array<i32: 1, 2, 1>} {
  %d = cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<2, 1, 1>} : !cutlass.dynamic_participants<1, 1>
  func.return
}
// CHECK: cluster_shape_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.pipeline.make_participants: cgaShape 2x1x1 differs from the launch cluster (the kernel's nvvm.cluster_dim of @participants_vs_kernel = 1x2x1): a CGA is the set of CTAs of one launched cluster, so its shape must be the cluster shape

// -----

// No GPU launches a 32-CTA cluster (the attribute is rejected where it is written).
func.func @cga_attr_too_big() {
  %d = cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<16, 2, 1>} : !cutlass.dynamic_participants<1, 1>
  func.return
}
// CHECK: cluster_shape_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: cga_attr [16, 2, 1] has 32 CTAs: no GPU launches a thread-block cluster of more than 16 CTAs

// -----

// An extent of 2^64 does not wrap: it is a cluster of 2^64 CTAs.
func.func @cga_attr_2_64() {
  %d = cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<18446744073709551616, 1, 1>} : !cutlass.dynamic_participants<1, 1>
  func.return
}
// CHECK: cluster_shape_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: cga_attr [18446744073709551616, 1, 1] has 18446744073709551616 CTAs: no GPU launches a thread-block cluster of more than 16 CTAs

// -----

// The same limit on a params type, with an extent of 2^63 - 1.
func.func @params_2_63(%p: !cutlass.tile_scheduler_dp_params<cga = [9223372036854775807, 1, 1], raster = along_m>) {
  func.return
}
// CHECK: cluster_shape_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: cutlass.tile_scheduler_dp_params: cga shape [9223372036854775807, 1, 1] has 9223372036854775807 CTAs: no GPU launches a thread-block cluster of more than 16 CTAs

// -----

// 16 CTAs need the non-portable size of sm_90 / sm_100: a target without it launches at most 8.
builtin.module attributes {cutlass.target = "sm_120a"} {
  func.func @portable_limit() {
    %d = cutlass.pipeline.make_participants cga {cgaShape = #cutlass.cga_attr<4, 4, 1>} : !cutlass.dynamic_participants<1, 1>
    func.return
  }
}
// CHECK: cluster_shape_invalid.mlir:[[# @LINE - 4]]:5: error: cutlass.pipeline.make_participants: cgaShape 4x4x1 has 16 CTAs, more than the hardware launches in one cluster: a portable cluster has at most 8 CTAs (sm_120a)

// -----

// Before sm_90 there are no clusters at all.
builtin.module attributes {cutlass.target = "sm_80a"} {
  func.func @no_clusters(%p: !cutlass.tile_scheduler_dp_params<cga = [2, 1, 1], raster = along_m>) {
    %s = cutlass.tile_scheduler.create_dp_params %p : !cutlass.tile_scheduler_dp_params<cga = [2, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<dp>
    func.return
  }
}
// CHECK: cluster_shape_invalid.mlir:[[# @LINE - 4]]:5: error: the CGA shape of !cutlass.tile_scheduler_dp_params<cga = [2, 1, 1], raster = along_m> 2x1x1 has 2 CTAs, more than the hardware launches in one cluster: sm_80a has no thread-block clusters (they start with sm_90)

// -----

// A scheduler created from params for another cluster than the launched one.
builtin.module attributes {cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @scheduler_vs_module(%p: !cutlass.tile_scheduler_static_persistent_params<cga = [4, 1, 1], raster = along_m>) {
    %s = cutlass.tile_scheduler.create_static_persistent_params %p : !cutlass.tile_scheduler_static_persistent_params<cga = [4, 1, 1], raster = along_m> -> !cutlass.tile_scheduler<static_persistent>
    func.return
  }
}
// CHECK: cluster_shape_invalid.mlir:[[# @LINE - 4]]:5: error: the CGA shape of !cutlass.tile_scheduler_static_persistent_params<cga = [4, 1, 1], raster = along_m> 4x1x1 differs from the launch cluster (the module's cutlass.cluster_shape = 2x1x1)

// -----

// Host-side queries of those params are held to the same cluster.
builtin.module attributes {cutlass.cluster_shape = array<i32: 1, 2, 1>} {
  func.func @grid_vs_module(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>, %sms: i32) {
    %gx, %gy, %gz = cutlass.tile_scheduler.get_grid_shape %p, %sms : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>
    func.return
  }
}
// CHECK: cluster_shape_invalid.mlir:[[# @LINE - 4]]:{{[0-9]+}}: error: the CGA shape of !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> 2x1x1 differs from the launch cluster (the module's cutlass.cluster_shape = 1x2x1)

// -----

// Params built from constant cga(...) operands for a kernel launched as 1x1x1 clusters.
func.func @make_vs_kernel(%m: i32) attributes {nvvm.kernel, nvvm.cluster_dim = array<i32: 1, 1, 1>} {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) cga(%c2, %c1, %c1) {tile_shape = array<i64: 128, 128, 64>, raster_order = #cutlass<raster_order along_m>} : !cutlass.tile_scheduler_dp_params
  func.return
}
// CHECK: cluster_shape_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: the scheduler's CGA shape 2x1x1 differs from the launch cluster (the kernel's nvvm.cluster_dim of @make_vs_kernel = 1x1x1)
