// One verifier rule per split; each message names what was expected and what was found.
// RUN: tileorch-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Module cutlass.target absent = sm_90a: the SM100 Stream-K body needs Blackwell cluster barriers.
func.func @sm100_on_sm90(%p: !cutlass.tile_scheduler_streamk_params) {
  %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
  func.return
}
// CHECK: invalid.mlir:6:{{[0-9]+}}: error: the SM100 'streamk' scheduler is illegal on sm_90a (module cutlass.target): it needs an sm_100 family target

// -----

builtin.module attributes {cutlass.target = "sm_100a"} {
  func.func @generic_streamk_on_sm100(%p: !cutlass.tile_scheduler_streamk_params) {
    %s = cutlass.tile_scheduler.create_streamk_params %p : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
    func.return
  }
}
// CHECK: error: the generic Stream-K scheduler is illegal on sm_100a (module cutlass.target): use cutlass.tile_scheduler.create_SM100_scheduler

// -----

func.func @dp_pull_without_source(%p: !cutlass.tile_scheduler_dp_params) {
  %s = cutlass.tile_scheduler.create_dp_params %p {runtime_pull} : !cutlass.tile_scheduler_dp_params -> !cutlass.tile_scheduler<dp>
  func.return
}
// CHECK: error: a 'dp' scheduler with the runtime pull model needs a WorkID response source: add workid(%ptr : !llvm.ptr<3>)

// -----

func.func @dp_pointer_without_pull(%p: !cutlass.tile_scheduler_dp_params, %r: !llvm.ptr<3>) {
  %s = cutlass.tile_scheduler.create_dp_params %p workid(%r : !llvm.ptr<3>) : !cutlass.tile_scheduler_dp_params -> !cutlass.tile_scheduler<dp>
  func.return
}
// CHECK: error: a 'dp' scheduler without runtime_pull must not use the WorkID response pointer path; remove workid(...)

// -----

func.func @static_persistent_with_pointer(%p: !cutlass.tile_scheduler_static_persistent_params, %r: !llvm.ptr<3>) {
  %s = cutlass.tile_scheduler.create_static_persistent_params %p workid(%r : !llvm.ptr<3>) : !cutlass.tile_scheduler_static_persistent_params -> !cutlass.tile_scheduler<static_persistent>
  func.return
}
// CHECK: error: a 'static_persistent' scheduler (closed-form iterator) must not use the WorkID response pointer path

// -----

func.func @streamk_with_pointer(%p: !cutlass.tile_scheduler_streamk_params, %r: !llvm.ptr<3>) {
  %s = cutlass.tile_scheduler.create_streamk_params %p workid(%r : !llvm.ptr<3>) : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
  func.return
}
// CHECK: error: a 'streamk' scheduler (Stream-K) must not use the WorkID response pointer path

// -----

builtin.module attributes {cutlass.target = "sm_100a"} {
  func.func @dynamic_without_pointer(%p: !cutlass.tile_scheduler_dp_params) {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_dp_params -> !cutlass.tile_scheduler<dynamic_persistent>
    func.return
  }
}
// CHECK: error: a 'dynamic_persistent' scheduler (dynamic persistent) needs a WorkID response source

// -----

builtin.module attributes {cutlass.target = "sm_100a"} {
  func.func @sm100_static_with_pointer(%p: !cutlass.tile_scheduler_static_persistent_params, %r: !llvm.ptr<3>) {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p workid(%r : !llvm.ptr<3>) : !cutlass.tile_scheduler_static_persistent_params -> !cutlass.tile_scheduler<static_persistent>
    func.return
  }
}
// CHECK: error: a 'static_persistent' scheduler (not dynamic persistent) must not use the WorkID response pointer path

// -----

builtin.module attributes {cutlass.target = "sm_100a"} {
  func.func @sm100_dp(%p: !cutlass.tile_scheduler_dp_params) {
    %s = cutlass.tile_scheduler.create_SM100_scheduler %p : !cutlass.tile_scheduler_dp_params -> !cutlass.tile_scheduler<dp>
    func.return
  }
}
// CHECK: error: cutlass.tile_scheduler.create_SM100_scheduler builds a dynamic_persistent or static_persistent or streamk scheduler, found result !cutlass.tile_scheduler<dp>

// -----

func.func @response_in_global_memory(%p: !cutlass.tile_scheduler_dp_params, %r: !llvm.ptr<1>) {
  %s = cutlass.tile_scheduler.create_dp_params %p workid(%r : !llvm.ptr<1>) {runtime_pull} : !cutlass.tile_scheduler_dp_params -> !cutlass.tile_scheduler<dp>
  func.return
}
// CHECK: error: workIdResponsePtr must point to shared memory (!llvm.ptr<3>), found !llvm.ptr<1>

// -----

func.func @response_misaligned(%p: !cutlass.tile_scheduler_dp_params) {
  %a = arith.constant 1032 : i64
  %r = llvm.inttoptr %a : i64 to !llvm.ptr<3>
  %s = cutlass.tile_scheduler.create_dp_params %p workid(%r : !llvm.ptr<3>) {runtime_pull} : !cutlass.tile_scheduler_dp_params -> !cutlass.tile_scheduler<dp>
  func.return
}
// CHECK: error: workIdResponsePtr must be 16-byte aligned, found a constant address aligned to 8 bytes

// -----

func.func @workspace_misaligned(%p: !cutlass.tile_scheduler_streamk_params, %rs: i64, %bs: i64) {
  %a = arith.constant 4100 : i64
  %ws = llvm.inttoptr %a : i64 to !llvm.ptr<1>
  cutlass.tile_scheduler.initialize_workspace %p, %ws sizes(%rs, %bs : i64, i64) : !cutlass.tile_scheduler_streamk_params, !llvm.ptr<1>
  func.return
}
// CHECK: error: the scheduler workspace must be 16-byte aligned, found a constant address aligned to 4 bytes

// -----

func.func @advance_outside_async(%s: !cutlass.tile_scheduler<static_persistent>, %w: !cutlass.static_persistent_work_tile_info) {
  %n, %v, %i = cutlass.tile_scheduler.advance_to_next_work %s, %w : !cutlass.tile_scheduler<static_persistent>, !cutlass.static_persistent_work_tile_info
  func.return
}
// CHECK: error: cutlass.tile_scheduler.advance_to_next_work must be nested in a cutlass.async.exec region (it advances the scheduler and may clock the enclosing pipeline)

// -----

func.func @params_kind_mismatch(%p: !cutlass.tile_scheduler_streamk_params) {
  %s = cutlass.tile_scheduler.create_dp_params %p : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<dp>
  func.return
}
// CHECK: error: a 'dp' scheduler expects !cutlass.tile_scheduler_dp_params, found !cutlass.tile_scheduler_streamk_params

// -----

func.func @result_kind_mismatch(%p: !cutlass.tile_scheduler_static_persistent_params) {
  %s = cutlass.tile_scheduler.create_static_persistent_params %p : !cutlass.tile_scheduler_static_persistent_params -> !cutlass.tile_scheduler<streamk>
  func.return
}
// CHECK: error: cutlass.tile_scheduler.create_static_persistent_params builds a static_persistent scheduler, found result !cutlass.tile_scheduler<streamk>

// -----

func.func @work_tile_kind_mismatch(%s: !cutlass.tile_scheduler<streamk>, %w: !cutlass.dp_work_tile_info) {
  %k = cutlass.tile_scheduler.get_work_k_tile_count %s, %w : !cutlass.tile_scheduler<streamk>, !cutlass.dp_work_tile_info
  func.return
}
// CHECK: error: work-tile-info type !cutlass.dp_work_tile_info does not match scheduler kind 'streamk': expected !cutlass.streamk_work_tile_info

// -----

func.func @initial_tile_kind_mismatch(%s: !cutlass.tile_scheduler<dynamic_persistent>) {
  %w = cutlass.tile_scheduler.initial_work_tile_info %s : !cutlass.tile_scheduler<dynamic_persistent> -> !cutlass.static_persistent_work_tile_info
  func.return
}
// CHECK: error: work-tile-info type !cutlass.static_persistent_work_tile_info does not match scheduler kind 'dynamic_persistent': expected !cutlass.dp_work_tile_info

// -----

func.func @field_of_other_kind(%w: !cutlass.streamk_work_tile_info) {
  %v = cutlass.tile_scheduler.work_tile_info_get_value %w {field = #cutlass<dp_work_tile_info_field linearized_id>} : !cutlass.streamk_work_tile_info -> i32
  func.return
}
// CHECK: error: field #cutlass<dp_work_tile_info_field linearized_id> does not belong to !cutlass.streamk_work_tile_info: expected a #cutlass<streamk_work_tile_info_field ...> field

// -----

func.func @field_value_type(%w: !cutlass.static_persistent_work_tile_info) {
  %v = cutlass.tile_scheduler.work_tile_info_get_value %w {field = #cutlass<static_persistent_work_tile_info_field is_valid_tile>} : !cutlass.static_persistent_work_tile_info -> i32
  func.return
}
// CHECK: error: field 'is_valid_tile' holds i1, found i32

// -----

func.func @params_field_of_other_kind(%p: !cutlass.tile_scheduler_dp_params) {
  %v = cutlass.tile_scheduler.params_get_value %p {field = #cutlass<tile_scheduler_streamk_param_field n_sk_units>} : !cutlass.tile_scheduler_dp_params -> i32
  func.return
}
// CHECK: error: field #cutlass<tile_scheduler_streamk_param_field n_sk_units> does not belong to !cutlass.tile_scheduler_dp_params: expected a #cutlass<tile_scheduler_dp_param_field ...> field

// -----

func.func @fixup_on_data_parallel(%s: !cutlass.tile_scheduler<dp>, %w: !cutlass.dp_work_tile_info) {
  cutlass.tile_scheduler.fixup_wait %s, %w : !cutlass.tile_scheduler<dp>, !cutlass.dp_work_tile_info
  func.return
}
// CHECK: error: cutlass.tile_scheduler.fixup_wait needs a Stream-K scheduler, found !cutlass.tile_scheduler<dp>

// -----

func.func @fixup_barrier_index(%s: !cutlass.tile_scheduler<streamk>, %w: !cutlass.streamk_work_tile_info) {
  cutlass.tile_scheduler.fixup_increment %s, %w {barrier_idx = 2 : i32, num_barriers = 2 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
  func.return
}
// CHECK: error: barrier_idx must be in [0, num_barriers), found barrier_idx = 2, num_barriers = 2

// -----

func.func @streamk_sizes_missing(%p: !cutlass.tile_scheduler_streamk_params) {
  %t = cutlass.tile_scheduler.get_workspace_sizes %p : !cutlass.tile_scheduler_streamk_params -> i64
  func.return
}
// CHECK: error: Stream-K workspace sizes: !cutlass.tile_scheduler_streamk_params needs both reduc_workspace_size and bar_workspace_size results

// -----

func.func @dp_sizes(%p: !cutlass.tile_scheduler_dp_params) {
  %t, %r, %b = cutlass.tile_scheduler.get_workspace_sizes %p : !cutlass.tile_scheduler_dp_params -> i64, i64, i64
  func.return
}
// CHECK: error: workspace sizes disagree with the scheduler kind: only Stream-K has reduction and barrier workspace results, found !cutlass.tile_scheduler_dp_params

// -----

func.func @sizes_share_type(%p: !cutlass.tile_scheduler_streamk_params) {
  %t, %r, %b = cutlass.tile_scheduler.get_workspace_sizes %p : !cutlass.tile_scheduler_streamk_params -> i64, i64, i32
  func.return
}
// CHECK: error: reduction and barrier workspace sizes must share one type, found i64 and i32

// -----

func.func @init_dp_workspace(%p: !cutlass.tile_scheduler_dp_params, %ws: !llvm.ptr<1>) {
  cutlass.tile_scheduler.initialize_workspace %p, %ws : !cutlass.tile_scheduler_dp_params, !llvm.ptr<1>
  func.return
}
// CHECK: error: data-parallel schedulers have no workspace to initialize (!cutlass.tile_scheduler_dp_params)

// -----

func.func @init_streamk_without_sizes(%p: !cutlass.tile_scheduler_streamk_params, %ws: !llvm.ptr<1>) {
  cutlass.tile_scheduler.initialize_workspace %p, %ws : !cutlass.tile_scheduler_streamk_params, !llvm.ptr<1>
  func.return
}
// CHECK: error: Stream-K workspace sizes: !cutlass.tile_scheduler_streamk_params needs both reduc_workspace_size and bar_workspace_size operands

// -----

func.func @cga_neither(%m: i32) {
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) {tile_shape = array<i64: 128, 128, 64>, raster_order = #cutlass<raster_order along_m>} : !cutlass.tile_scheduler_dp_params
  func.return
}
// CHECK: error: CGA shape missing: give cga(%x, %y, %z) operands or a `cga = [x, y, z]` parameter on the result type !cutlass.tile_scheduler_dp_params

// -----

func.func @cga_inconsistent(%m: i32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %p = cutlass.tile_scheduler.make_static_persistent_params %m, %m, %m, %m sms(%m) cga(%c1, %c2, %c1) {tile_shape = array<i64: 128, 128, 64>} : !cutlass.tile_scheduler_static_persistent_params<cga = [2, 1, 1], raster = along_n>
  func.return
}
// CHECK: error: CGA shape operands [1, 2, 1] disagree with the result type's cga = [2, 1, 1]

// -----

func.func @cga_dynamic(%m: i32) {
  %c1 = arith.constant 1 : i32
  %p = cutlass.tile_scheduler.make_streamk_params %m, %m, %m, %m sms(%m) cga(%m, %c1, %c1) {tile_shape = array<i64: 128, 128, 64>} : !cutlass.tile_scheduler_streamk_params<raster = along_n>
  func.return
}
// CHECK: error: CGA shapes must be static: cga operand 0 (%m) is not defined by a constant

// -----

func.func @raster_neither(%m: i32) {
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) {tile_shape = array<i64: 128, 128, 64>} : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1]>
  func.return
}
// CHECK: error: raster order missing: set the raster_order property or a `raster = ...` parameter on the result type !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1]>

// -----

func.func @raster_inconsistent(%m: i32) {
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) {tile_shape = array<i64: 128, 128, 64>, raster_order = #cutlass<raster_order along_m>} : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_n>
  func.return
}
// CHECK: error: raster_order along_m disagrees with the result type's raster = along_n

// -----

func.func @tile_shape_dynamic(%m: i32) {
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) {tile_shape = array<i64: 128, -1, 64>} : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_n>
  func.return
}
// CHECK: error: CGA tile shapes must be static: tile_shape extent N is dynamic (-1)

// -----

func.func @splits_need_split_k(%m: i32) {
  %p = cutlass.tile_scheduler.make_streamk_params %m, %m, %m, %m sms(%m) {tile_shape = array<i64: 128, 128, 64>, splits = 2 : i32, decomp_mode = #cutlass<decomp_mode stream_k>} : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_n>
  func.return
}
// CHECK: error: splits = 2 needs decomp_mode heuristic or split_k, found stream_k

// -----

// CUTLASS's stream-K can_implement: splits >= 1.
func.func @splits_zero(%m: i32) {
  %p = cutlass.tile_scheduler.make_streamk_params %m, %m, %m, %m sms(%m) {tile_shape = array<i64: 128, 128, 64>, splits = 0 : i32} : !cutlass.tile_scheduler_streamk_params<cga = [1, 1, 1], raster = along_n>
  func.return
}
// CHECK: error: splits must be >= 1, found 0

// -----

func.func @tile_shape_rank(%m: i32) {
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) {tile_shape = array<i64: 128, 128>} : !cutlass.tile_scheduler_dp_params<cga = [1, 1, 1], raster = along_n>
  func.return
}
// CHECK: error: tile_shape must have 3 extents (M, N, K), found 2

// -----

// A zero tile extent would divide the problem extents by zero (get_tiled_cta_shape_mnl).
func.func @tile_shape_zero(%m: i32) {
  %p = cutlass.tile_scheduler.make_static_persistent_params %m, %m, %m, %m sms(%m) {tile_shape = array<i64: 128, 128, 0>} : !cutlass.tile_scheduler_static_persistent_params<cga = [1, 1, 1], raster = along_n>
  func.return
}
// CHECK: error: tile_shape extent K must be positive, found 0

// -----

func.func @cga_operand_count(%m: i32) {
  %c1 = arith.constant 1 : i32
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) cga(%c1, %c1) {tile_shape = array<i64: 128, 128, 64>, raster_order = #cutlass<raster_order along_n>} : !cutlass.tile_scheduler_dp_params
  func.return
}
// CHECK: error: cga(...) takes 3 operands (x, y, z), found 2

// -----

// FastDivmodU64Pow2 divides by the cluster extents with shifts: 3 would mis-map tiles.
func.func @cga_not_power_of_two(%m: i32) {
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %p = cutlass.tile_scheduler.make_streamk_params %m, %m, %m, %m sms(%m) cga(%c3, %c1, %c1) {tile_shape = array<i64: 128, 128, 64>, raster_order = #cutlass<raster_order along_m>} : !cutlass.tile_scheduler_streamk_params
  func.return
}
// CHECK: error: CGA shape extents must be powers of two (the scheduler divides by them with shifts), found [3, 1, 1]

// -----

func.func @static_fetch_on_dynamic(%s: !cutlass.tile_scheduler<dynamic_persistent>, %w: !cutlass.dp_work_tile_info) {
  %n, %i = cutlass.tile_scheduler.static_fetch_next_work %s, %w : !cutlass.tile_scheduler<dynamic_persistent>, !cutlass.dp_work_tile_info
  func.return
}
// CHECK: error: static_fetch_next_work needs a closed-form scheduler, found !cutlass.tile_scheduler<dynamic_persistent>: use fetch_next_work

// -----

func.func @query_on_static(%s: !cutlass.tile_scheduler<static_persistent>) {
  cutlass.tile_scheduler.query_next_work %s : !cutlass.tile_scheduler<static_persistent>
  func.return
}
// CHECK: error: cutlass.tile_scheduler.query_next_work needs a WorkID pull-model scheduler (dp or dynamic_persistent); 'static_persistent' schedulers do not use the WorkID response pointer path

// -----

func.func @response_of_push_dp(%p: !cutlass.tile_scheduler_dp_params) {
  %s = cutlass.tile_scheduler.create_dp_params %p : !cutlass.tile_scheduler_dp_params -> !cutlass.tile_scheduler<dp>
  %r = cutlass.tile_scheduler.get_workid_response_ptr %s : !cutlass.tile_scheduler<dp> -> !llvm.ptr<3>
  func.return
}
// CHECK: error: cutlass.tile_scheduler.get_workid_response_ptr needs a WorkID pull-model scheduler: %s is a data-parallel scheduler created without runtime_pull

// -----

func.func @swizzle(%m: i32) {
  %s = cutlass.tile_scheduler.create_select_swizzle_size %m, %m {max_swizzle_size = -1 : i32}
  func.return
}
// CHECK: error: max_swizzle_size must be >= 0, found -1

// -----

func.func @mods_record() {
  %i = cutlass.tile_scheduler.create_mods_instrumentation {period_ns = 100 : i64, pulse_ns = 200 : i64, min_sleep = 0 : i64}
  func.return
}
// CHECK: error: expected 0 <= pulse_ns <= period_ns and period_ns > 0, found pulse_ns = 200, period_ns = 100

// -----

func.func @mods_field_type(%i: !cutlass.mods_instrumentation) {
  %v = cutlass.tile_scheduler.mods_get_value %i {field = #cutlass<mods_instrumentation_field mainloop_count>} : i1
  func.return
}
// CHECK: error: field 'mainloop_count' holds i32, found i1

// -----

func.func @cga_not_power_of_two(%m: i32) {
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %p = cutlass.tile_scheduler.make_dp_params %m, %m, %m, %m sms(%m) cga(%c3, %c1, %c1) {tile_shape = array<i64: 128, 128, 64>} : !cutlass.tile_scheduler_dp_params<raster = along_m>
  func.return
}
// CHECK: error: CGA shape extents must be powers of two (the scheduler divides by them with shifts), found [3, 1, 1]

// -----

func.func @cga_parameter_shape(%p: !cutlass.tile_scheduler_streamk_params<cga = [2, 1]>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:{{[0-9]+}}: error: cga shape must be three positive extents, found [2, 1]

// -----

func.func @workspace_in_shared_memory(%p: !cutlass.tile_scheduler_streamk_params, %ws: !llvm.ptr<3>, %rs: i64, %bs: i64) {
  cutlass.tile_scheduler.initialize_workspace %p, %ws sizes(%rs, %bs : i64, i64) : !cutlass.tile_scheduler_streamk_params, !llvm.ptr<3>
  func.return
}
// CHECK: error: the scheduler workspace must be global memory (!llvm.ptr<1>, or a generic !llvm.ptr to it): every CTA of the grid reads and writes it, found !llvm.ptr<3>

// -----

func.func @workspace_in_param_space(%p: !cutlass.tile_scheduler_static_persistent_params, %ws: !llvm.ptr<101>) {
  cutlass.tile_scheduler.initialize_workspace %p, %ws : !cutlass.tile_scheduler_static_persistent_params, !llvm.ptr<101>
  func.return
}
// CHECK: error: the scheduler workspace must be global memory (!llvm.ptr<1>, or a generic !llvm.ptr to it): every CTA of the grid reads and writes it, found !llvm.ptr<101>
