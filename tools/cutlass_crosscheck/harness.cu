// Host-side driver of CUTLASS's SM90 stream-K tile scheduler, printing `tileorch schedule --json`.
//
// Build (CUTLASS headers are NOT part of this repository; extract them to /tmp/cutlass first):
//   nvcc -std=c++17 -O1 -I/tmp/cutlass/include -o /tmp/sk_harness tools/cutlass_crosscheck/harness.cu
//
// Reads one configuration per stdin line and prints one JSON object per line (``--sm100`` as the
// only argument drives the SM100 stream-K scheduler instead, see run_sm100; ``--persistent`` the
// SM90 static persistent scheduler, see run_persistent):
//   M N K L tileM tileN tileK clusterM clusterN sms splits max_swizzle raster reduction decomposition
//   mma_warp_groups accumulator_bits [ktile_start_alignment [max_active_clusters]]
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
using Sm100Params = PersistentTileSchedulerSm100StreamKParams;

struct Config {
  int m, n, k, l, tm, tn, tk, cm, cn, sms, splits, max_swizzle, raster, reduction, decomposition, mma_wg, acc_bits;
  int ktile_start_alignment = 1;
  int max_active_clusters = 0;
};

static bool parse(std::string const& line, Config& c) {
  std::istringstream in(line);
  if (!(in >> c.m >> c.n >> c.k >> c.l >> c.tm >> c.tn >> c.tk >> c.cm >> c.cn >> c.sms >> c.splits >>
        c.max_swizzle >> c.raster >> c.reduction >> c.decomposition >> c.mma_wg >> c.acc_bits)) {
    return false;
  }
  in >> c.ktile_start_alignment >> c.max_active_clusters;  // optional 18th and 19th fields
  return true;
}

static void print_params(std::ostringstream& out, Params const& p, size_t ws, dim3 grid) {
  out << "{\"params\":{\"units_per_problem\":" << p.units_per_problem_
      << ",\"log_swizzle\":" << p.log_swizzle_size_
      << ",\"raster_along_n\":" << (p.raster_order_ == RasterOrder::AlongN ? "true" : "false")
      << ",\"splits\":" << p.divmod_splits_.divisor << ",\"big_units\":" << p.big_units_
      << ",\"big_groups\":" << p.big_groups_ << ",\"sk_tiles\":" << p.sk_tiles_ << ",\"sk_units\":" << p.sk_units_
      << ",\"k_tiles_per_sk_unit\":" << p.divmod_k_tiles_per_sk_unit_.divisor
      << ",\"k_tiles_per_sk_big_unit\":" << p.divmod_k_tiles_per_sk_big_unit_.divisor
      << ",\"sk_groups\":" << p.divmod_sk_groups_.divisor
      << ",\"separate_reduction_units\":" << p.separate_reduction_units_
      << ",\"k_tiles_per_output_tile\":" << p.divmod_tiles_per_output_tile_.divisor << "}"
      << ",\"workspace_bytes\":" << ws << ",\"grid\":[" << grid.x << ',' << grid.y << ',' << grid.z << "]";
}

static void print_work(std::ostringstream& out, WorkTileInfo const& w) {
  out << '[' << w.M_idx << ',' << w.N_idx << ',' << w.L_idx << ',' << w.K_idx << ',' << w.k_tile_count
      << ',' << w.k_tile_remaining << ',' << (w.is_separate_reduction ? 1 : 0) << ']';
}

// One stream-K unit: its first work, then continue_current_work until it says stop.
static void walk_unit(std::ostringstream& out, bool& first_item, Params const& p, uint64_t linear,
                      dim3 block_in_cluster, uint32_t& unit_iter_start, WorkTileInfo w) {
  while (w.is_valid()) {
    out << (first_item ? "" : ",");
    first_item = false;
    print_work(out, w);
    if (!Scheduler::continue_current_work_for_linear_idx(linear, unit_iter_start, block_in_cluster, w, p)) {
      return;
    }
  }
}

static std::string run_sm90(Config const& c) {
  cutlass::gemm::BatchedGemmCoord problem(c.m, c.n, c.k, c.l);
  cutlass::gemm::GemmCoord tile(c.tm, c.tn, c.tk);
  cutlass::gemm::GemmCoord cluster(c.cm, c.cn, 1);
  cutlass::KernelHardwareInfo hw;
  hw.sm_count = c.sms;
  hw.max_active_clusters = c.max_active_clusters;
  auto raster = static_cast<RasterOrderOptions>(c.raster);
  auto red = static_cast<ReductionMode>(c.reduction);
  auto dec = static_cast<DecompositionMode>(c.decomposition);

  Params p;
  p.initialize(problem, tile, cluster, hw, c.splits, c.max_swizzle, raster, red, dec, nullptr, 1u,
               c.ktile_start_alignment);
  dim3 grid = Params::get_grid_shape(problem, tile, cluster, hw, c.max_swizzle, raster);
  size_t ws = Params::get_workspace_size(problem, tile, cluster, hw, c.splits, c.max_swizzle, raster, dec, red,
                                         c.mma_wg, cutlass::sizeof_bits<Scheduler::BarrierType>::value,
                                         c.acc_bits, 1u, 1u, c.ktile_start_alignment);

  std::ostringstream out;
  print_params(out, p, ws, grid);
  out << ",\"ctas\":[";
  uint64_t stride = uint64_t(grid.x) * grid.y * grid.z;
  for (uint32_t by = 0; by < grid.y; ++by) {
    for (uint32_t bx = 0; bx < grid.x; ++bx) {
      out << (by == 0 && bx == 0 ? "" : ",") << '[';
      dim3 block_in_cluster(bx % c.cm, by % c.cn, 0);
      // PersistentTileSchedulerSm90StreamK's constructor
      uint64_t linear = p.raster_order_ == RasterOrder::AlongN ? uint64_t(bx) + uint64_t(by) * grid.x
                                                               : uint64_t(bx) * grid.y + by;
      uint32_t unit_iter_start = 0;
      bool first_item = true;
      for (;;) {
        WorkTileInfo w = Scheduler::get_current_work_for_linear_idx(unit_iter_start, linear, block_in_cluster, p);
        if (!w.is_valid()) break;  // the kernel's while (work_tile_info.is_valid())
        walk_unit(out, first_item, p, linear, block_in_cluster, unit_iter_start, w);
        linear += stride;  // advance_to_next_work
      }
      out << ']';
    }
  }
  out << "]}";
  return out.str();
}

// SM100: PersistentTileSchedulerSm100StreamKParams (host API called directly). The kernel-side
// PersistentTileSchedulerSm100StreamK needs CLC hardware and gridDim, so its two private helpers
// are replicated here: to_linear_idx (grid position -> SM90 stream-K linear index) and convert_work's
// split-K / data-parallel branches. The grid position (bx, by, bz) stands for the CLC response with
// M_idx = bx, N_idx = by, L_idx = bz (max_swizzle forced to 0 and raster forced AlongM, as
// Sm100StreamKParams::initialize does for its PersistentTileSchedulerSm100Params).
// PersistentTileSchedulerSm100StreamK::to_underlying_arguments forces DataParallel for N == 192 tiles.
static std::string run_sm100(Config const& c) {
  cutlass::gemm::BatchedGemmCoord problem(c.m, c.n, c.k, c.l);
  cutlass::gemm::GemmCoord tile(c.tm, c.tn, c.tk);
  cutlass::gemm::GemmCoord cluster(c.cm, c.cn, 1);
  cutlass::KernelHardwareInfo hw;
  hw.sm_count = c.sms;
  hw.max_active_clusters = c.max_active_clusters;
  auto raster = static_cast<RasterOrderOptions>(c.raster);
  auto red = static_cast<ReductionMode>(c.reduction);
  auto dec = c.tn == 192 ? DecompositionMode::DataParallel : static_cast<DecompositionMode>(c.decomposition);

  Sm100Params p100;
  p100.initialize(problem, tile, cluster, hw, c.splits, c.max_swizzle, raster, red, dec, nullptr,
                  c.ktile_start_alignment);
  Params const& p = p100.sk_params_;
  dim3 problem_blocks = Sm100Params::get_tiled_cta_shape_mnl(problem, tile, cluster);
  dim3 grid = p100.get_grid_shape(problem_blocks, cluster);
  uint32_t kt = p.divmod_tiles_per_output_tile_.divisor;
  // The dim3 overload, as PersistentTileSchedulerSm100StreamK::get_workspace_size calls it (the
  // BatchedGemmCoord convenience overload would pass the alignment in the epilogue_subtile slot).
  size_t ws = Sm100Params::get_workspace_size(problem_blocks, kt, tile, cluster, hw, c.splits, c.max_swizzle, raster,
                                              dec, red, c.mma_wg, cutlass::sizeof_bits<Scheduler::BarrierType>::value,
                                              c.acc_bits, 1u, 1u, c.ktile_start_alignment);

  std::ostringstream out;
  print_params(out, p, ws, grid);
  out << ",\"ctas\":[";
  bool first_cta = true;
  for (uint32_t bz = 0; bz < grid.z; ++bz) {
    for (uint32_t by = 0; by < grid.y; ++by) {
      for (uint32_t bx = 0; bx < grid.x; ++bx) {
        out << (first_cta ? "" : ",") << '[';
        first_cta = false;
        bool first_item = true;
        dim3 block_in_cluster(bx % c.cm, by % c.cn, 0);
        if (p.sk_units_ > 0) {
          uint64_t m0 = p.truncate_to_cluster_size_m(bx), n0 = p.truncate_to_cluster_size_n(by);
          uint64_t linear = uint64_t(grid.x) * grid.y * bz + uint64_t(grid.y) * m0 + n0;
          linear += p.raster_order_ == RasterOrder::AlongN
                        ? p.divmod_cluster_shape_minor_.divisor * (by - n0) + (bx - m0)
                        : p.divmod_cluster_shape_minor_.divisor * (bx - m0) + (by - n0);
          uint32_t unit_iter_start = 0;
          WorkTileInfo w = Scheduler::get_current_work_for_linear_idx(unit_iter_start, linear, block_in_cluster, p);
          walk_unit(out, first_item, p, linear, block_in_cluster, unit_iter_start, w);
        } else if (p.divmod_splits_.divisor > 1) {
          int l_idx, split;
          p.divmod_splits_(l_idx, split, int(bz));
          uint32_t k_tiles = p.divmod_k_tiles_per_sk_unit_.divisor;
          uint32_t k_idx = split * k_tiles;
          if (uint32_t(split) < p.big_units_) {
            k_idx += split;
            k_tiles += 1;
          } else {
            k_idx += p.big_units_;
          }
          if (p.ktile_start_alignment_count_ == 2u && k_idx % 2 != 0) {
            k_idx += 1;
            k_tiles -= 1;
          }
          if (p.ktile_start_alignment_count_ == 2u && (k_idx + k_tiles) % 2 != 0 && (k_idx + k_tiles) < kt) {
            k_tiles += 1;
          }
          WorkTileInfo w{int32_t(bx), int32_t(by), int32_t(k_idx), l_idx, k_tiles, k_tiles};
          print_work(out, w);
        } else {
          WorkTileInfo w{int32_t(bx), int32_t(by), 0, int32_t(bz), kt, kt};
          print_work(out, w);
        }
        out << ']';
      }
    }
  }
  out << "]}";
  return out.str();
}

// SM90 static persistent (PersistentTileSchedulerSm90): Params::initialize, the scheduler's grid
// (get_grid_shape with truncate_by_problem_size = true, as StaticPersistentTileScheduler::get_grid_shape
// passes it) and the tile walk of get_current_work_for_linear_idx / advance_to_next_work, with
// cute::block_id_in_cluster() = (bx % cluster_m, by % cluster_n) passed to the 8-argument
// get_work_idx_m_and_n.  Prints {"grid": [...], "blocks_per_problem": N, "ctas": [[[m, n, l], ...], ...]}.
using Sm90Scheduler = PersistentTileSchedulerSm90;
static std::string run_persistent(Config const& c) {
  cutlass::gemm::BatchedGemmCoord problem(c.m, c.n, c.k, c.l);
  cutlass::gemm::GemmCoord tile(c.tm, c.tn, c.tk);
  cutlass::gemm::GemmCoord cluster(c.cm, c.cn, 1);
  cutlass::KernelHardwareInfo hw;
  hw.sm_count = c.sms;
  hw.max_active_clusters = c.max_active_clusters;
  auto raster = static_cast<RasterOrderOptions>(c.raster);
  PersistentTileSchedulerSm90Params p;
  p.initialize(problem, tile, cluster, hw, c.max_swizzle, raster);
  dim3 grid =
      PersistentTileSchedulerSm90Params::get_grid_shape(problem, tile, cluster, hw, c.max_swizzle, raster, true);
  std::ostringstream out;
  out << "{\"grid\":[" << grid.x << ',' << grid.y << ',' << grid.z << "],\"blocks_per_problem\":"
      << p.blocks_per_problem_ << ",\"ctas\":[";
  uint64_t stride = uint64_t(grid.x) * grid.y * grid.z;
  for (uint32_t by = 0; by < grid.y; ++by) {
    for (uint32_t bx = 0; bx < grid.x; ++bx) {
      out << (by == 0 && bx == 0 ? "" : ",") << '[';
      uint64_t linear = p.raster_order_ == RasterOrder::AlongN ? uint64_t(bx) + uint64_t(by) * grid.x
                                                               : uint64_t(bx) * grid.y + by;
      bool first = true;
      for (; linear < p.blocks_per_problem_; linear += stride) {
        uint64_t l, rem;
        p.divmod_batch_(l, rem, linear);
        uint64_t blk = p.divmod_cluster_shape_minor_.divide(rem);
        auto [m, n] = Sm90Scheduler::get_work_idx_m_and_n(blk, p.divmod_cluster_shape_major_,
                                                           p.divmod_cluster_shape_minor_, p.divmod_cluster_blk_major_,
                                                           p.log_swizzle_size_, p.raster_order_, bx % c.cm, by % c.cn);
        out << (first ? "" : ",") << '[' << m << ',' << n << ',' << l << ']';
        first = false;
      }
      out << ']';
    }
  }
  out << "]}";
  return out.str();
}

int main(int argc, char** argv) {
  bool sm100 = argc > 1 && std::string(argv[1]) == "--sm100";
  bool persistent = argc > 1 && std::string(argv[1]) == "--persistent";
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    Config c;
    if (!parse(line, c)) {
      std::cout << "{\"error\":\"bad input line\"}\n";
      continue;
    }
    std::cout << (persistent ? run_persistent(c) : sm100 ? run_sm100(c) : run_sm90(c)) << std::endl;
  }
  return 0;
}
