// Host-side driver of CUTLASS's SM90 stream-K tile scheduler, printing `tileorch schedule --json`.
//
// Build (CUTLASS headers are NOT part of this repository; extract them to /tmp/cutlass first):
//   nvcc -std=c++17 -O1 -I/tmp/cutlass/include -o /tmp/sk_harness tools/cutlass_crosscheck/harness.cu
//
// Reads one configuration per stdin line and prints one JSON object per line (``--sm100`` as the
// only argument drives the SM100 stream-K scheduler instead, see run_sm100):
//   M N K L tileM tileN tileK clusterM clusterN sms splits max_swizzle raster reduction decomposition
//   mma_warp_groups accumulator_bits
// raster: 0 heuristic, 1 along_m, 2 along_n; reduction: 0 deterministic, 1 nondeterministic;
// decomposition: 0 heuristic, 1 data_parallel, 2 split_k, 3 stream_k (CUTLASS's enum order).
//
// What is called, and how it mirrors a CUTLASS kernel:
//  * params: PersistentTileSchedulerSm90StreamKParams::initialize(BatchedGemmCoord, GemmCoord tile,
//    GemmCoord cluster, hw_info, ...) -- the call PersistentTileSchedulerSm90StreamK::to_underlying_arguments
//    makes, with runtime tile/cluster shapes instead of static CuTe shapes.
//  * grid: Params::get_grid_shape (the scheduler's get_grid_shape forwards to it).
//  * workspace: Params::get_workspace_size with the scheduler's barrier width (sizeof_bits<BarrierType>),
//    epilogue_subtile = 1, num_accumulator_mtxs = 1.
//  * work sequence: the scheduler's static get_current_work_for_linear_idx /
//    continue_current_work_for_linear_idx, driven exactly as the persistent kernels' fetch_next_work
//    loop does: linear index from blockIdx as in the scheduler constructor, continue while
//    continue_current_work says so, otherwise advance by gridDim.x*y*z; stop at the first invalid work.
//    Those two functions are CUTLASS_DEVICE; they touch no device state, so this file re-declares
//    CUTLASS_DEVICE (and CUTE_DEVICE for cute/arch/cluster_sm90.hpp) as __host__ __device__ just
//    around the scheduler headers to call them on the host.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "cutlass/cutlass.h"
#include "cute/config.hpp"

// The scheduler's work functions and the two cluster queries they reach are device-only by
// declaration but host-safe in body (the cluster queries fall back to 0 outside device code).
#pragma push_macro("CUTLASS_DEVICE")
#pragma push_macro("CUTE_DEVICE")
#undef CUTLASS_DEVICE
#undef CUTE_DEVICE
#define CUTLASS_DEVICE __forceinline__ __host__ __device__
#define CUTE_DEVICE __forceinline__ __host__ __device__
#include "cute/arch/cluster_sm90.hpp"
#pragma pop_macro("CUTE_DEVICE")
#pragma pop_macro("CUTLASS_DEVICE")

#include "cutlass/barrier.h"
#include "cutlass/block_striped.h"
#include "cutlass/fast_math.h"
#include "cutlass/gemm_coord.hpp"
#include "cutlass/kernel_hardware_info.hpp"
#include "cutlass/gemm/kernel/tile_scheduler_params.h"
#include "cutlass/pipeline/pipeline.hpp"
#include "cute/layout.hpp"
#include "cute/tensor.hpp"

#pragma push_macro("CUTLASS_DEVICE")
#undef CUTLASS_DEVICE
#define CUTLASS_DEVICE __forceinline__ __host__ __device__
#include "cutlass/gemm/kernel/static_tile_scheduler.hpp"
#include "cutlass/gemm/kernel/sm90_tile_scheduler.hpp"
#include "cutlass/gemm/kernel/sm90_tile_scheduler_stream_k.hpp"
#pragma pop_macro("CUTLASS_DEVICE")

using namespace cutlass::gemm::kernel::detail;
using Scheduler = PersistentTileSchedulerSm90StreamK<cute::Shape<cute::_128, cute::_128, cute::_64>,
                                                     cute::Shape<cute::_1, cute::_1, cute::_1>>;
using Params = Scheduler::Params;
using WorkTileInfo = Scheduler::WorkTileInfo;

static void print_work(std::ostringstream& out, WorkTileInfo const& w) {
  out << '[' << w.M_idx << ',' << w.N_idx << ',' << w.L_idx << ',' << w.K_idx << ',' << w.k_tile_count
      << ',' << w.k_tile_remaining << ',' << (w.is_separate_reduction ? 1 : 0) << ']';
}

static std::string run(std::string const& line) {
  std::istringstream in(line);
  int m, n, k, l, tm, tn, tk, cm, cn, sms, splits, max_swizzle, raster, reduction, decomposition, mma_wg, acc_bits;
  if (!(in >> m >> n >> k >> l >> tm >> tn >> tk >> cm >> cn >> sms >> splits >> max_swizzle >> raster >>
        reduction >> decomposition >> mma_wg >> acc_bits)) {
    return "{\"error\":\"bad input line\"}";
  }
  cutlass::gemm::BatchedGemmCoord problem(m, n, k, l);
  cutlass::gemm::GemmCoord tile(tm, tn, tk);
  cutlass::gemm::GemmCoord cluster(cm, cn, 1);
  cutlass::KernelHardwareInfo hw;
  hw.sm_count = sms;
  auto raster_opt = static_cast<RasterOrderOptions>(raster);
  auto red = static_cast<ReductionMode>(reduction);
  auto dec = static_cast<DecompositionMode>(decomposition);

  Params p;
  p.initialize(problem, tile, cluster, hw, splits, max_swizzle, raster_opt, red, dec, nullptr);
  dim3 grid = Params::get_grid_shape(problem, tile, cluster, hw, max_swizzle, raster_opt);
  size_t ws = Params::get_workspace_size(problem, tile, cluster, hw, splits, max_swizzle, raster_opt, dec, red,
                                         mma_wg, cutlass::sizeof_bits<Scheduler::BarrierType>::value, acc_bits,
                                         1u, 1u);

  std::ostringstream out;
  print_params(out, p, ws, grid);
  uint64_t stride = uint64_t(grid.x) * grid.y * grid.z;
      << ",\"log_swizzle\":" << p.log_swizzle_size_
      << ",\"raster_along_n\":" << (p.raster_order_ == RasterOrder::AlongN ? "true" : "false")
      << ",\"splits\":" << p.divmod_splits_.divisor << ",\"big_units\":" << p.big_units_
      << ",\"big_groups\":" << p.big_groups_ << ",\"sk_tiles\":" << p.sk_tiles_ << ",\"sk_units\":" << p.sk_units_
      << ",\"k_tiles_per_sk_unit\":" << p.divmod_k_tiles_per_sk_unit_.divisor
      << ",\"k_tiles_per_sk_big_unit\":" << p.divmod_k_tiles_per_sk_big_unit_.divisor
      << ",\"sk_groups\":" << p.divmod_sk_groups_.divisor
      << ",\"separate_reduction_units\":" << p.separate_reduction_units_
      << ",\"k_tiles_per_output_tile\":" << p.divmod_tiles_per_output_tile_.divisor << "}"
XX
  bool first_cta = true;
  for (uint32_t by = 0; by < grid.y; ++by) {
    for (uint32_t bx = 0; bx < grid.x; ++bx) {
      out << (first_cta ? "" : ",") << '[';
      first_cta = false;
      dim3 block_in_cluster(bx % cm, by % cn, 0);
      uint64_t linear = p.raster_order_ == RasterOrder::AlongN ? uint64_t(bx) + uint64_t(by) * grid.x
                                                               : uint64_t(bx) * grid.y + by;
      uint32_t unit_iter_start = 0;
      WorkTileInfo w = Scheduler::get_current_work_for_linear_idx(unit_iter_start, linear, block_in_cluster, p);
      bool first_item = true;
      while (w.is_valid()) {
        out << (first_item ? "" : ",");
        first_item = false;
        print_work(out, w);
        WorkTileInfo next = w;  // fetch_next_work takes its argument by value
        if (!Scheduler::continue_current_work_for_linear_idx(linear, unit_iter_start, block_in_cluster, next, p)) {
          linear += stride;
          next = Scheduler::get_current_work_for_linear_idx(unit_iter_start, linear, block_in_cluster, p);
        }
        w = next;
      }
      out << ']';
    }
  }
  out << "]}";
  return out.str();
}

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::cout << run(line) << '\n';
  }
  return 0;
}
