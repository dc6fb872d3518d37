// Programs that were rejected for another reason than the rule they break; each error now names it.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A pipeline created at module scope (rule: cutlass ops are inside a function; before, the only error
// was the isolated-from-above use in the kernel).
%p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
func.func @kernel() {
  %r = cutlass.pipeline.init %p {numStages = 2 : i32, participants = array<i64: 1>, consumers = array<i64: 2>}
  func.return
}
// CHECK: placement_and_types_invalid.mlir:[[# @LINE - 5]]:1: error: cutlass.pipeline.create is at module scope, but cutlass ops run on the threads of a kernel: put it inside a function (func.func, llvm.func or gpu.func), e.g. the kernel whose CTAs use it

// -----

// Module scope inside an explicit module, for the other barrier families too.
builtin.module {
  %s = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
  %r = cutlass.seq_bar.init %s group_size(128)
}
// CHECK: placement_and_types_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.seq_bar.create is at module scope, but cutlass ops run on the threads of a kernel
// CHECK: placement_and_types_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.seq_bar.init is at module scope, but cutlass ops run on the threads of a kernel

// -----

// A MODS probe directly in a function body: the error says it needs a kernel's agent (executor)
// region and where it is.
func.func @device_helper(%s: !cutlass.tile_scheduler<streamk>, %m: i64) {
  cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
  func.return
}
// CHECK: placement_and_types_invalid.mlir:[[# @LINE - 3]]:3: error: cutlass.tile_scheduler.mods_throttle must be nested in an nv_tileas.async.exec or cutlass.async.exec region (MODS ops never appear at module or kernel scope): MODS ops run inside a kernel's agent (executor) region of the persistent mainloop, but this one is at function scope (directly in the body of func.func @device_helper, outside any executor region)

// -----

// ... and in a kernel body.
func.func @kernel() attributes {nvvm.kernel} {
  %smid = cutlass.tile_scheduler.mods_report_smid : i32
  func.return
}
// CHECK: placement_and_types_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: cutlass.tile_scheduler.mods_report_smid must be nested in an nv_tileas.async.exec or cutlass.async.exec region {{.*}} but this one is at kernel scope (directly in the body of func.func @kernel, outside any executor region)

// -----

// Workspace sizes of a float type (before: "Unexpected attribute f32" at the type).
func.func @sizes_f32(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m>) {
  %t, %r, %b = cutlass.tile_scheduler.get_workspace_sizes %p : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m> -> f32, f32, f32
  func.return
}
// CHECK: placement_and_types_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: workspace sizes are byte counts: result 'total_size' must be a signless integer of at least 32 bits (e.g. i64) or index, found f32

// -----

// An i1 cannot hold a byte count (before: accepted).
func.func @sizes_i1(%p: !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m>) {
  %t = cutlass.tile_scheduler.get_workspace_sizes %p : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_m> -> i1
  func.return
}
// CHECK: placement_and_types_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: workspace sizes are byte counts: result 'total_size' must be a signless integer of at least 32 bits (e.g. i64) or index, found i1

// -----

// The sizes handed to initialize_workspace.
func.func @init_sizes(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m>, %ws: !llvm.ptr<1>, %r: f32, %b: f32) {
  cutlass.tile_scheduler.initialize_workspace %p, %ws sizes(%r, %b : f32, f32) : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m>, !llvm.ptr<1>
  func.return
}
// CHECK: placement_and_types_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: workspace sizes are byte counts: operand 'reduc_workspace_size' must be a signless integer of at least 32 bits (e.g. i64) or index, found f32

// -----

// A params field that holds a workspace size, read as i16.
func.func @field_i16(%p: !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m>) {
  %v = cutlass.tile_scheduler.params_get_value %p {field = #cutlass<tile_scheduler_streamk_param_field bar_workspace_size>} : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_m> -> i16
  func.return
}
// CHECK: placement_and_types_invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: workspace sizes are byte counts: field 'bar_workspace_size' must be a signless integer of at least 32 bits (e.g. i64) or index, found i16
