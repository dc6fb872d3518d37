// Every tile_scheduler op (31 of seed 002 plus the 4 shipping extras) parses, verifies and
// survives custom and generic round trips.
// RUN: tileorch-opt %s --split-input-file | filecheck %s
// RUN: TILEORCH_ROUNDTRIP
// RUN: TILEORCH_CUSTOM_ROUNDTRIP

// Host side: param builders, grid, workspace, params fields, swizzle selection.
func.func @host(%m: i32, %n: i32, %k: i32, %l: i32, %sms: i32, %ws: !llvm.ptr<1>) {
  %c2 = arith.constant 2 : i32
  %c1 = arith.constant 1 : i32
  %dp = cutlass.tile_scheduler.make_dp_params %m, %n, %k, %l sms(%sms) cga(%c2, %c1, %c1) {tile_shape = array<i64: 128, 128, 64>, raster_order = #cutlass<raster_order along_n>} : !cutlass.tile_scheduler_dp_params
  %sp = cutlass.tile_scheduler.make_static_persistent_params %m, %n, %k, %l sms(%sms) {tile_shape = array<i64: 128, 256, 64>, max_swizzle_size = 4 : i32} : !cutlass.tile_scheduler_static_persistent_params<cga = [2, 1, 1], raster = heuristic>
  %sk = cutlass.tile_scheduler.make_streamk_params %m, %n, %k, %l sms(%sms) cga(%c2, %c1, %c1) {tile_shape = array<i64: 128, 128, 64>, decomp_mode = #cutlass<decomp_mode stream_k>} : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>
  %gx, %gy, %gz = cutlass.tile_scheduler.get_grid_shape %sk, %sms {is_upperbound_requested} : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>
  %total, %reduc, %bar = cutlass.tile_scheduler.get_workspace_sizes %sk : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> i64, i64, i64
  %dp_total = cutlass.tile_scheduler.get_workspace_sizes %dp : !cutlass.tile_scheduler_dp_params -> i64
  cutlass.tile_scheduler.initialize_workspace %sk, %ws sizes(%reduc, %bar : i64, i64) : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>, !llvm.ptr<1>
  cutlass.tile_scheduler.initialize_workspace %sp, %ws : !cutlass.tile_scheduler_static_persistent_params<cga = [2, 1, 1], raster = heuristic>, !llvm.ptr<1>
  %units = cutlass.tile_scheduler.params_get_value %sk {field = #cutlass<tile_scheduler_streamk_param_field n_sk_units>} : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> i32
  %wsp = cutlass.tile_scheduler.params_get_value %sk {field = #cutlass<tile_scheduler_streamk_param_field workspace>} : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m> -> !llvm.ptr<1>
  %major = cutlass.tile_scheduler.params_get_value %dp {field = #cutlass<tile_scheduler_dp_param_field n_cga_tiles_major>} : !cutlass.tile_scheduler_dp_params -> i32
  %per_sm = cutlass.tile_scheduler.params_get_value %sp {field = #cutlass<tile_scheduler_static_persistent_param_field n_cgas_per_sms>} : !cutlass.tile_scheduler_static_persistent_params<cga = [2, 1, 1], raster = heuristic> -> i32
  %swz = cutlass.tile_scheduler.create_select_swizzle_size %m, %n {max_swizzle_size = 8 : i32}
  func.return
}

// CHECK-LABEL: func.func @host
// CHECK:       %{{.*}} = cutlass.tile_scheduler.make_dp_params %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} sms(%{{.*}}) cga(%{{.*}}, %{{.*}}, %{{.*}}) {tile_shape = array<i64: 128, 128, 64>, raster_order = #cutlass<raster_order along_n>} : !cutlass.tile_scheduler_dp_params
// CHECK-NEXT:  cutlass.tile_scheduler.make_static_persistent_params {{.*}} {tile_shape = array<i64: 128, 256, 64>, max_swizzle_size = 4 : i32} : !cutlass.tile_scheduler_static_persistent_params<cga = [2, 1, 1], raster = heuristic>
// CHECK-NEXT:  %[[SK:.*]] = cutlass.tile_scheduler.make_streamk_params {{.*}} {tile_shape = array<i64: 128, 128, 64>, decomp_mode = #cutlass<decomp_mode stream_k>} : !cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_m>
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}} = cutlass.tile_scheduler.get_grid_shape %[[SK]], %{{.*}} {is_upperbound_requested} :
// CHECK-NEXT:  %{{.*}}, %[[R:.*]], %[[B:.*]] = cutlass.tile_scheduler.get_workspace_sizes %[[SK]] : {{.*}} -> i64, i64, i64
// CHECK-NEXT:  %{{.*}} = cutlass.tile_scheduler.get_workspace_sizes %{{.*}} : !cutlass.tile_scheduler_dp_params -> i64
// CHECK-NEXT:  cutlass.tile_scheduler.initialize_workspace %[[SK]], %{{.*}} sizes(%[[R]], %[[B]] : i64, i64) :
// CHECK-NEXT:  cutlass.tile_scheduler.initialize_workspace %{{.*}}, %{{.*}} : !cutlass.tile_scheduler_static_persistent_params
// CHECK-NEXT:  cutlass.tile_scheduler.params_get_value %[[SK]] {field = #cutlass<tile_scheduler_streamk_param_field n_sk_units>} : {{.*}} -> i32
// CHECK-NEXT:  cutlass.tile_scheduler.params_get_value %[[SK]] {field = #cutlass<tile_scheduler_streamk_param_field workspace>} : {{.*}} -> !llvm.ptr<1>
// CHECK-NEXT:  cutlass.tile_scheduler.params_get_value %{{.*}} {field = #cutlass<tile_scheduler_dp_param_field n_cga_tiles_major>}
// CHECK-NEXT:  cutlass.tile_scheduler.params_get_value %{{.*}} {field = #cutlass<tile_scheduler_static_persistent_param_field n_cgas_per_sms>}
// CHECK-NEXT:  cutlass.tile_scheduler.create_select_swizzle_size %{{.*}}, %{{.*}} {max_swizzle_size = 8 : i32}

// -----

// Device side on sm_90a: generic Stream-K, static persistent and data-parallel (pull model).
func.func @device(%skp: !cutlass.tile_scheduler_streamk_params, %spp: !cutlass.tile_scheduler_static_persistent_params,
                  %dpp: !cutlass.tile_scheduler_dp_params, %resp: !llvm.ptr<3>, %acc: vector<4xf32>, %v: i32) {
  cutlass.async.exec warpgroup mask(1) {
    %sk = cutlass.tile_scheduler.create_streamk_params %skp : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
    %sp = cutlass.tile_scheduler.create_static_persistent_params %spp : !cutlass.tile_scheduler_static_persistent_params -> !cutlass.tile_scheduler<static_persistent>
    %dp = cutlass.tile_scheduler.create_dp_params %dpp workid(%resp : !llvm.ptr<3>) {runtime_pull} : !cutlass.tile_scheduler_dp_params -> !cutlass.tile_scheduler<dp>
    %w0 = cutlass.tile_scheduler.initial_work_tile_info %sk : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %cur = cutlass.tile_scheduler.get_current_work %sk : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
    %kc = cutlass.tile_scheduler.get_work_k_tile_count %sk, %w0 : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %ks = cutlass.tile_scheduler.get_work_k_tile_start %sk, %w0 : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %epi = cutlass.tile_scheduler.compute_epilogue %sk, %w0 : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %m, %n, %kk, %l = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %w0 : !cutlass.streamk_work_tile_info
    %cm, %cn, %ck, %cl = cutlass.tile_scheduler.work_tile_info_to_cta_coord %sk, %w0 : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %rem = cutlass.tile_scheduler.work_tile_info_get_value %w0 {field = #cutlass<streamk_work_tile_info_field k_tile_remaining>} : !cutlass.streamk_work_tile_info -> i32
    %sep = cutlass.tile_scheduler.work_tile_info_get_value %w0 {field = #cutlass<streamk_work_tile_info_field is_separate_reduction>} : !cutlass.streamk_work_tile_info -> i1
    %w1 = cutlass.tile_scheduler.work_tile_info_set_value %w0, %v {field = #cutlass<streamk_work_tile_info_field k_tile_count>} : !cutlass.streamk_work_tile_info, i32
    cutlass.tile_scheduler.fixup_wait %sk, %w1 {barrier_idx = 1 : i32, num_barriers = 2 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %acc2 = cutlass.tile_scheduler.fixup %sk, %w1, %acc {barrier_idx = 1 : i32, num_barriers = 2 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<4xf32>
    cutlass.tile_scheduler.fixup_increment %sk, %w1 : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %w2, %valid, %inc = cutlass.tile_scheduler.advance_to_next_work %sk, %w1 : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %w3, %inc3 = cutlass.tile_scheduler.fetch_next_work %sk, %w2 : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
    %s0 = cutlass.tile_scheduler.create_static_persistent_work_tile_info
    %s1, %sinc = cutlass.tile_scheduler.static_fetch_next_work %sp, %s0 : !cutlass.tile_scheduler<static_persistent>, !cutlass.static_persistent_work_tile_info
    %tidx = cutlass.tile_scheduler.work_tile_info_get_value %s1 {field = #cutlass<static_persistent_work_tile_info_field tile_idx>} : !cutlass.static_persistent_work_tile_info -> i32
    %d0 = cutlass.tile_scheduler.create_dp_work_tile_info
    cutlass.tile_scheduler.query_next_work %dp : !cutlass.tile_scheduler<dp>
    %r = cutlass.tile_scheduler.get_workid_response_ptr %dp : !cutlass.tile_scheduler<dp> -> !llvm.ptr<3>
    %d1, %dinc = cutlass.tile_scheduler.fetch_next_work %dp, %d0 : !cutlass.tile_scheduler<dp>, !cutlass.dp_work_tile_info
    %lin = cutlass.tile_scheduler.work_tile_info_get_value %d1 {field = #cutlass<dp_work_tile_info_field linearized_id>} : !cutlass.dp_work_tile_info -> i32
    %k0 = cutlass.tile_scheduler.create_streamk_work_tile_info
  }
  func.return
}

// CHECK-LABEL: func.func @device
// CHECK:       %[[SK:.*]] = cutlass.tile_scheduler.create_streamk_params %{{.*}} : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
// CHECK-NEXT:  %[[SP:.*]] = cutlass.tile_scheduler.create_static_persistent_params
// CHECK-NEXT:  %[[DP:.*]] = cutlass.tile_scheduler.create_dp_params %{{.*}} workid(%{{.*}} : !llvm.ptr<3>) {runtime_pull} : !cutlass.tile_scheduler_dp_params -> !cutlass.tile_scheduler<dp>
// CHECK-NEXT:  %[[W0:.*]] = cutlass.tile_scheduler.initial_work_tile_info %[[SK]] : !cutlass.tile_scheduler<streamk> -> !cutlass.streamk_work_tile_info
// CHECK-NEXT:  cutlass.tile_scheduler.get_current_work %[[SK]]
// CHECK-NEXT:  cutlass.tile_scheduler.get_work_k_tile_count %[[SK]], %[[W0]] : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
// CHECK-NEXT:  cutlass.tile_scheduler.get_work_k_tile_start %[[SK]], %[[W0]]
// CHECK-NEXT:  cutlass.tile_scheduler.compute_epilogue %[[SK]], %[[W0]]
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %[[W0]] : !cutlass.streamk_work_tile_info
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = cutlass.tile_scheduler.work_tile_info_to_cta_coord %[[SK]], %[[W0]]
// CHECK-NEXT:  cutlass.tile_scheduler.work_tile_info_get_value %[[W0]] {field = #cutlass<streamk_work_tile_info_field k_tile_remaining>} : !cutlass.streamk_work_tile_info -> i32
// CHECK-NEXT:  cutlass.tile_scheduler.work_tile_info_get_value %[[W0]] {field = #cutlass<streamk_work_tile_info_field is_separate_reduction>} : !cutlass.streamk_work_tile_info -> i1
// CHECK-NEXT:  %[[W1:.*]] = cutlass.tile_scheduler.work_tile_info_set_value %[[W0]], %{{.*}} {field = #cutlass<streamk_work_tile_info_field k_tile_count>} : !cutlass.streamk_work_tile_info, i32
// CHECK-NEXT:  cutlass.tile_scheduler.fixup_wait %[[SK]], %[[W1]] {barrier_idx = 1 : i32, num_barriers = 2 : i32}
// CHECK-NEXT:  cutlass.tile_scheduler.fixup %[[SK]], %[[W1]], %{{.*}} {barrier_idx = 1 : i32, num_barriers = 2 : i32} : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info, vector<4xf32>
// CHECK-NEXT:  cutlass.tile_scheduler.fixup_increment %[[SK]], %[[W1]] :
// CHECK-NEXT:  %[[W2:.*]], %{{.*}}, %{{.*}} = cutlass.tile_scheduler.advance_to_next_work %[[SK]], %[[W1]] : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
// CHECK-NEXT:  %{{.*}}, %{{.*}} = cutlass.tile_scheduler.fetch_next_work %[[SK]], %[[W2]]
// CHECK-NEXT:  %[[S0:.*]] = cutlass.tile_scheduler.create_static_persistent_work_tile_info
// CHECK-NEXT:  %{{.*}}, %{{.*}} = cutlass.tile_scheduler.static_fetch_next_work %[[SP]], %[[S0]] : !cutlass.tile_scheduler<static_persistent>, !cutlass.static_persistent_work_tile_info
// CHECK-NEXT:  cutlass.tile_scheduler.work_tile_info_get_value {{.*}} {field = #cutlass<static_persistent_work_tile_info_field tile_idx>}
// CHECK-NEXT:  cutlass.tile_scheduler.create_dp_work_tile_info
// CHECK-NEXT:  cutlass.tile_scheduler.query_next_work %[[DP]] : !cutlass.tile_scheduler<dp>
// CHECK-NEXT:  cutlass.tile_scheduler.get_workid_response_ptr %[[DP]] : !cutlass.tile_scheduler<dp> -> !llvm.ptr<3>
// CHECK-NEXT:  cutlass.tile_scheduler.fetch_next_work %[[DP]], %{{.*}} : !cutlass.tile_scheduler<dp>, !cutlass.dp_work_tile_info
// CHECK-NEXT:  cutlass.tile_scheduler.work_tile_info_get_value {{.*}} {field = #cutlass<dp_work_tile_info_field linearized_id>}
// CHECK-NEXT:  cutlass.tile_scheduler.create_streamk_work_tile_info

// -----

// Blackwell: the SM100 scheduler factory (dynamic persistent with its WorkID response slot)
// and the MODS instrumentation record.
builtin.module attributes {cutlass.target = "sm_100a"} {
  func.func @sm100(%dpp: !cutlass.tile_scheduler_dp_params, %skp: !cutlass.tile_scheduler_streamk_params, %resp: !llvm.ptr<3>, %n: i64) {
    %dyn = cutlass.tile_scheduler.create_SM100_scheduler %dpp workid(%resp : !llvm.ptr<3>) : !cutlass.tile_scheduler_dp_params -> !cutlass.tile_scheduler<dynamic_persistent>
    %sk = cutlass.tile_scheduler.create_SM100_scheduler %skp : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
    %inst = cutlass.tile_scheduler.create_mods_instrumentation {period_ns = 1000 : i64, pulse_ns = 100 : i64, min_sleep = 20 : i64, is_2cta_mma = true}
    %p = cutlass.tile_scheduler.mods_get_value %inst {field = #cutlass<mods_instrumentation_field period_ns>} : i64
    %inst2 = cutlass.tile_scheduler.mods_set_value %inst, %n {field = #cutlass<mods_instrumentation_field pulse_ns>} : i64
    %two = cutlass.tile_scheduler.mods_get_value %inst2 {field = #cutlass<mods_instrumentation_field is_2cta_mma>} : i1
    func.return
  }
}

// CHECK-LABEL: func.func @sm100
// CHECK:       cutlass.tile_scheduler.create_SM100_scheduler %{{.*}} workid(%{{.*}} : !llvm.ptr<3>) : !cutlass.tile_scheduler_dp_params -> !cutlass.tile_scheduler<dynamic_persistent>
// CHECK-NEXT:  cutlass.tile_scheduler.create_SM100_scheduler %{{.*}} : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
// CHECK-NEXT:  %[[I:.*]] = cutlass.tile_scheduler.create_mods_instrumentation {period_ns = 1000 : i64, pulse_ns = 100 : i64, min_sleep = 20 : i64, is_2cta_mma = true}
// CHECK-NEXT:  cutlass.tile_scheduler.mods_get_value %[[I]] {field = #cutlass<mods_instrumentation_field period_ns>} : i64
// CHECK-NEXT:  cutlass.tile_scheduler.mods_set_value %[[I]], %{{.*}} {field = #cutlass<mods_instrumentation_field pulse_ns>} : i64
// CHECK-NEXT:  cutlass.tile_scheduler.mods_get_value %{{.*}} {field = #cutlass<mods_instrumentation_field is_2cta_mma>} : i1

// -----

// max_swizzle_size = 0 is valid (CUTLASS's can_implement asks >= 0; it behaves like 1).
func.func @swizzle_zero(%m: i32) {
  %s = cutlass.tile_scheduler.create_select_swizzle_size %m, %m {max_swizzle_size = 0 : i32}
  func.return
}

// CHECK-LABEL: func.func @swizzle_zero
// CHECK:       cutlass.tile_scheduler.create_select_swizzle_size %{{.*}}, %{{.*}} {max_swizzle_size = 0 : i32}
