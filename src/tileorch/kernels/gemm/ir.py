"""The warp-specialized TMA + WGMMA GEMM, written as tileorch IR for one :class:`GemmConfig`.

Structure (CUTLASS ``KernelTmaWarpSpecializedCooperative``, docs/gemm.md has the picture):

* warp group 0 = producer (``setmaxnreg`` down to ``producer_regs``); its warp 0 walks the tile
  scheduler and, per K tile, acquires a stage (``cutlass.pipeline.producer_acquire``), lets one
  elected thread issue the TMA loads of A and B into it (B split into ``cluster_m`` slices, each
  multicast to every CTA of the cluster) and commits the stage's transaction bytes;
* warp groups 1..2 = one consumer group (``setmaxnreg`` up to ``consumer_regs``); per K tile
  they wait for the stage, issue 4 ``wgmma.mma_async m64n{tile_n}k16`` (warp group ``w`` owns rows
  ``64w..64w+63`` of the tile), keep one wgmma batch in flight (``wait_group 1``) and release the
  previous stage; after the last K tile of a work unit they drain (``wait_group 0``), fix up
  Stream-K partials (``cutlass.tile_scheduler.fixup``) and store the fragment to C;
* every stage is handed over through ``cutlass.pipeline`` (full/empty mbarriers, cluster-wide
  release when B is multicast); the walk over tiles is ``cutlass.tile_scheduler``.

The tensor maps are grid-constant byval kernel parameters; A's box is ``[64 (K), 128 (M)]``, B's
``[64 (K), tile_n / cluster_m (N)]`` (K-major B) or ``[64 (N), 64 (K)]`` chunks (N-major B),
all with the 128-byte swizzle the WGMMA descriptors name.
"""

from __future__ import annotations

from tileorch.kernels.gemm.config import WGMMA_TYPES, GemmConfig

TMAP = "!llvm.ptr {llvm.byval = !llvm.array<128 x i8>, llvm.align = 64 : i64, nvvm.grid_constant}"
SWIZZLE_128B = 1 << 62


def descriptor_constant(lbo_bytes: int, sbo_bytes: int) -> int:
    """The constant bits of a 128B-swizzled WGMMA shared-memory descriptor."""
    return ((lbo_bytes >> 4) << 16) | ((sbo_bytes >> 4) << 32) | SWIZZLE_128B


def _types(cfg: GemmConfig) -> dict[str, str]:
    kind = "streamk" if cfg.schedule == "streamk" else "static_persistent"
    cga = f"cga = [{cfg.cluster_m}, 1, 1], raster = heuristic"
    acc_field = "i32" if cfg.acc_type == "s32" else "f32"  # s8/u8 inputs accumulate in i32 registers
    acc = "!llvm.struct<(" + ", ".join([acc_field] * cfg.accumulators) + ")>"
    return {
        "P": f"!cutlass.tile_scheduler_{kind}_params<{cga}>",
        "S": f"!cutlass.tile_scheduler<{kind}>",
        "W": f"!cutlass.{kind}_work_tile_info",
        "ST": f"!cutlass.pipeline_state<{cfg.stages}>",
        "ACC": acc,
        "kind": kind,
    }


def _scheduler_prologue(cfg: GemmConfig, t: dict[str, str], ind: str) -> str:
    create = ("create_streamk_params" if t["kind"] == "streamk" else "create_static_persistent_params")
    return (f"{ind}%sched = cutlass.tile_scheduler.{create} %params : {t['P']} -> {t['S']}\n"
            f"{ind}%first = cutlass.tile_scheduler.initial_work_tile_info %sched : {t['S']} -> {t['W']}\n")


def _valid(cfg: GemmConfig, t: dict[str, str], ind: str) -> str:
    if t["kind"] == "streamk":
        return (f"{ind}%count = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w : {t['S']}, {t['W']}\n"
                f"{ind}%valid = arith.cmpi sgt, %count, %c0 : i32\n")
    return (f"{ind}%valid = cutlass.tile_scheduler.work_tile_info_get_value %w "
            f"{{field = #cutlass<static_persistent_work_tile_info_field is_valid_tile>}} : {t['W']} -> i1\n")


def _k_range(cfg: GemmConfig, t: dict[str, str], ind: str) -> str:
    """``%kbeg``, ``%kend``: the K tiles of work unit ``%w``."""
    if t["kind"] == "streamk":
        return (f"{ind}%kbeg = cutlass.tile_scheduler.get_work_k_tile_start %sched, %w : {t['S']}, {t['W']}\n"
                f"{ind}%kcnt = cutlass.tile_scheduler.get_work_k_tile_count %sched, %w : {t['S']}, {t['W']}\n"
                f"{ind}%kend = arith.addi %kbeg, %kcnt : i32\n")
    return f"{ind}%kbeg = arith.constant 0 : i32\n{ind}%kend = arith.addi %k_tiles, %c0 : i32\n"


def _advance(cfg: GemmConfig, t: dict[str, str], ind: str) -> str:
    op = "fetch_next_work" if t["kind"] == "streamk" else "static_fetch_next_work"
    return f"{ind}%next, %inc = cutlass.tile_scheduler.{op} %sched, %w : {t['S']}, {t['W']}\n"


def _l(cfg: GemmConfig) -> str:
    """The batch coordinate appended to every TMA box of a batched kernel."""
    return ", %tl" if cfg.batched else ""


def _a_loads(cfg: GemmConfig, ind: str) -> str:
    """TMA loads of the A tile: one ``[tile_m, 64 K]`` box (A ``[M, K]``, K-major) or, for A stored
    ``[K, M]`` (M-major), ``tile_m / 64`` boxes of 64 K rows x 64 M columns, box j at + 8 KiB * j
    (warp group j's 64 rows)."""
    if cfg.a_major == "k":
        lines = [
            "%adst = llvm.getelementptr %smem[%a_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8",
            "%adst7 = llvm.addrspacecast %adst : !llvm.ptr<3> to !llvm.ptr<7>",
            f"nvvm.cp.async.bulk.tensor.shared.cluster.global %adst7, %tmap_a, %fb, box[%kc, %m0{_l(cfg)}] "
            f"{{cutlass.tx_bytes = {cfg.a_stage_bytes} : i32}} : !llvm.ptr<7>, !llvm.ptr",
        ]
    else:
        lines = []
        for j in range(cfg.tile_m // 64):
            lines += [
                f"%ac{j} = arith.constant {64 * j} : i32",
                f"%arow{j} = arith.addi %m0, %ac{j} : i32",
                f"%aoff{j}0 = arith.constant {8192 * j} : i32",
                f"%aoff{j} = arith.addi %a_off, %aoff{j}0 : i32",
                f"%adst{j} = llvm.getelementptr %smem[%aoff{j}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8",
                f"%adst7{j} = llvm.addrspacecast %adst{j} : !llvm.ptr<3> to !llvm.ptr<7>",
                f"nvvm.cp.async.bulk.tensor.shared.cluster.global %adst7{j}, %tmap_a, %fb, box[%arow{j}, %kc{_l(cfg)}] "
                f"{{cutlass.tx_bytes = 8192 : i32}} : !llvm.ptr<7>, !llvm.ptr",
            ]
    return "".join(f"{ind}{line}\n" for line in lines)


def _b_loads(cfg: GemmConfig, ind: str) -> str:
    """TMA loads of this CTA's slice of the B tile (multicast to the cluster when cluster_m > 1)."""
    mcast = " multicast_mask = %mcast" if cfg.cluster_m > 1 else ""
    lines = []
    if cfg.b_major == "k":
        # B [N, K]: the tile is tile_n rows of 128 bytes; CTA rank r loads rows r*slice ...
        slice_rows = cfg.tile_n // cfg.cluster_m
        lines += [
            f"%bs_rows = arith.constant {slice_rows} : i32",
            "%bs_row = arith.muli %rank, %bs_rows : i32",
            "%bn = arith.addi %n0, %bs_row : i32",
            f"%bs_bytes = arith.constant {slice_rows * 128} : i32",
            "%bs_off0 = arith.muli %rank, %bs_bytes : i32",
            "%bs_off = arith.addi %b_off, %bs_off0 : i32",
            "%bdst = llvm.getelementptr %smem[%bs_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8",
            "%bdst7 = llvm.addrspacecast %bdst : !llvm.ptr<3> to !llvm.ptr<7>",
            f"nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst7, %tmap_b, %fb, box[%kc, %bn{_l(cfg)}]{mcast} "
            f"{{cutlass.tx_bytes = {slice_rows * 128} : i32}} : !llvm.ptr<7>, !llvm.ptr",
        ]
    else:
        # B [K, N]: 64-column chunks of 64 K rows x 128 bytes, chunk j at +8 KiB * j.
        chunks = cfg.tile_n // 64 // cfg.cluster_m
        for j in range(chunks):
            lines += [
                f"%bc{j} = arith.constant {j} : i32",
                f"%bj{j} = arith.addi %bchunk0, %bc{j} : i32",
                f"%bcol{j}0 = arith.muli %bj{j}, %c64 : i32",
                f"%bcol{j} = arith.addi %n0, %bcol{j}0 : i32",
                f"%boff{j}0 = arith.muli %bj{j}, %c8192 : i32",
                f"%boff{j} = arith.addi %b_off, %boff{j}0 : i32",
                f"%bdst{j} = llvm.getelementptr %smem[%boff{j}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8",
                f"%bdst7{j} = llvm.addrspacecast %bdst{j} : !llvm.ptr<3> to !llvm.ptr<7>",
                f"nvvm.cp.async.bulk.tensor.shared.cluster.global %bdst7{j}, %tmap_b, %fb, box[%bcol{j}, %kc{_l(cfg)}]{mcast} "
                f"{{cutlass.tx_bytes = 8192 : i32}} : !llvm.ptr<7>, !llvm.ptr",
            ]
        lines = [f"%bchunks = arith.constant {chunks} : i32", "%bchunk0 = arith.muli %rank, %bchunks : i32"] + lines
    return "".join(f"{ind}{line}\n" for line in lines)


def _producer(cfg: GemmConfig, t: dict[str, str]) -> str:
    i6, i8, i10, i12, i14 = (" " * n for n in (6, 8, 10, 12, 14))
    mcast = f"{i8}%mcast = arith.constant {(1 << cfg.cluster_m) - 1} : i16\n" if cfg.cluster_m > 1 else ""
    return f"""    // ---- producer: warp group 0 gives registers back; its warp 0 walks the tiles and one
    //      elected thread issues the TMA loads of each stage.
    cutlass.async.exec warpgroup mask(0x1) regs({cfg.producer_regs}) {{
      cutlass.async.exec warp mask(0x1) {{
        %leader = nvvm.elect.sync -> i1
        scf.if %leader {{
          nvvm.prefetch tensormap, %tmap_a : !llvm.ptr
          nvvm.prefetch tensormap, %tmap_b : !llvm.ptr
        }}
        %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
{mcast}{_scheduler_prologue(cfg, t, i8)}        %start = cutlass.pipeline.state.create %ready producer
        %lastw, %last = scf.while (%w = %first, %s = %start) : ({t['W']}, {t['ST']}) -> ({t['W']}, {t['ST']}) {{
{_valid(cfg, t, i10)}          scf.condition(%valid) %w, %s : {t['W']}, {t['ST']}
        }} do {{
        ^bb0(%w: {t['W']}, %s: {t['ST']}):
          %tm, %tn, %tk, %tl = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %w : {t['W']}
          %m0 = arith.muli %tm, %bm : i32
          %n0 = arith.muli %tn, %bn_tile : i32
{_k_range(cfg, t, i10)}          %s_out = scf.for %kt = %kbeg to %kend step %c1 iter_args(%st = %s) -> ({t['ST']}) : i32 {{
            // wait until every consumer (of every CTA reading this stage) has released it
            cutlass.pipeline.producer_acquire %ready, %st
            scf.if %leader {{
              %fb = cutlass.pipeline.get_producer_barrier %ready, %st
              %idx = cutlass.pipeline.state.get_index %st
              %a_off = arith.muli %idx, %stage_bytes : i32
              %b_off = arith.addi %a_off, %a_bytes : i32
              %kc = arith.muli %kt, %c_tile_k : i32
              // each box's bytes (the box shapes live in the host's tensor maps) for tileorch check
{_a_loads(cfg, i14)}{_b_loads(cfg, i14)}            }}
            // the elected thread arrives expecting the stage's bytes (A + all B slices)
            cutlass.pipeline.producer_commit %ready, %st {{transaction_bytes = {cfg.stage_bytes} : i32}}
            %nx = cutlass.pipeline.state.increment %st
            scf.yield %nx : {t['ST']}
          }}
{_advance(cfg, t, i10)}          scf.yield %next, %s_out : {t['W']}, {t['ST']}
        }}
        // drain: no CTA of the cluster may exit while its multicast loads are in flight
        cutlass.pipeline.producer_tail %ready, %last
      }}
    }}
"""


def _wgmma_steps(cfg: GemmConfig, t: dict[str, str], ind: str) -> str:
    # per WGMMA (k16 of 16-bit, k32 of fp8: 32 bytes of K), in 16-B units: 32 B along a K-major
    # row, 16 rows of 128 B (2 KiB) across an M/N-major tile
    k_step_a = 2 if cfg.a_major == "k" else 128
    k_step_b = 2 if cfg.b_major == "k" else 128
    layout_a = "row" if cfg.a_major == "k" else "col"
    layout_b = "col" if cfg.b_major == "k" else "row"
    # the operand and accumulator types of the instruction (WGMMA_TYPES: e.g. s8 x u8 -> s32)
    ta, tb, td = WGMMA_TYPES[cfg.dtype][0], WGMMA_TYPES[cfg.dtype_b][0], cfg.acc_type
    out = []
    steps = cfg.tile_k // cfg.mma_k
    for j in range(steps):
        src = "%acc" if j == 0 else f"%d{j - 1}"
        if j == 0:
            out += ["%da0 = arith.addi %da_stage, %c0_i64 : i64", "%db0 = arith.addi %db_stage, %c0_i64 : i64"]
        else:
            out += [f"%da{j} = arith.addi %da_stage, %ka{j} : i64", f"%db{j} = arith.addi %db_stage, %kb{j} : i64"]
        out.append(f"%d{j} = nvvm.wgmma.mma_async %da{j}, %db{j}, {src}, <m = 64, n = {cfg.tile_n}, k = {cfg.mma_k}>, "
                   f"D[<{td}>, <one>], A[<{ta}>, <one>, <{layout_a}>], B[<{tb}>, <one>, <{layout_b}>] : !acc -> !acc")
    consts = [f"%ka{j} = arith.constant {k_step_a * j} : i64" for j in range(1, steps)]
    consts += [f"%kb{j} = arith.constant {k_step_b * j} : i64" for j in range(1, steps)]
    return "".join(f"{ind}{line}\n" for line in consts + out)


def _fixup(cfg: GemmConfig, t: dict[str, str], wg: int, ind: str) -> str:
    """``%res`` (the accumulator to store) and ``%store`` (this unit runs the epilogue)."""
    if t["kind"] != "streamk":
        return f"{ind}%store = arith.constant true\n"
    return (f"{ind}// Stream-K: a partial unit stores/reduces into the workspace; the final one folds the\n"
            f"{ind}// partials in (warp group {wg} uses its own lock, workspace slice and named barrier)\n"
            f"{ind}%fixed = cutlass.tile_scheduler.fixup %sched, %w, %acc_out "
            f"{{barrier_idx = {wg} : i32, num_barriers = {cfg.consumer_groups} : i32}} "
            f": {t['S']}, {t['W']}, !acc\n"
            f"{ind}%store = cutlass.tile_scheduler.compute_epilogue %sched, %w : {t['S']}, {t['W']}\n")


EPILOGUE_BARRIER = 14
"""Named barriers 14 and 15 sync the two consumer warp groups' epilogues (claimed by
``cutlass-allocate-barrier-ids`` from the constant ids)."""


def _epilogue(cfg: GemmConfig, wg: int, res: str, ind: str) -> str:
    """Store the warp group's 64 x tile_n slice of C starting at (%row0, %n0).

    TMA epilogue: ``tile_n / 64`` rounds through two 8 KiB staging slots (double buffering):
    before round ``r`` writes slot ``r % 2`` the elected thread waits until at most one bulk
    group is still reading (the previous round's), so round ``r - 2``'s store has left the slot."""
    if cfg.epilogue == "direct":
        if cfg.batched:  # C is [L, M, N] contiguous: matrix l starts l * M * N elements in
            esize = 4 if cfg.out_dtype in ("f32", "s32") else 2
            return (f"{ind}%c_mn = arith.muli %m, %n : i32\n{ind}%c_mn64 = arith.extui %c_mn : i32 to i64\n"
                    f"{ind}%c_l64 = arith.extui %tl : i32 to i64\n{ind}%c_off = arith.muli %c_l64, %c_mn64 : i64\n"
                    f"{ind}%c_b = llvm.getelementptr %c[%c_off] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i{8 * esize}\n"
                    f'{ind}atom.store_fragment {res}, %c_b, %row0, %n0, %m, %n, %n {{dtype = "{cfg.out_dtype}"}} : !acc\n')
        return f'{ind}atom.store_fragment {res}, %c, %row0, %n0, %m, %n, %n {{dtype = "{cfg.out_dtype}"}} : !acc\n'
    bar = f"cutlass.named_barrier.arrive_and_wait barrier_id = {EPILOGUE_BARRIER + wg} num_threads = 128"
    lines = [f"// {cfg.tile_n // 64} rounds of 64 columns through 2 swizzled 8 KiB slots; one thread TMA-stores each"]
    for r in range(cfg.tile_n // 64):
        slot = r % 2
        lines += [
            "scf.if %wg_leader {",
            "  nvvm.cp.async.bulk.wait_group 1 {read}",
            "}",
            bar,
            f"%eslot{r}_off = arith.constant {8192 * slot} : i32",
            f"%eslot{r} = llvm.getelementptr %ebuf[%eslot{r}_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8",
            f'atom.stage_fragment {res}, %eslot{r} {{first_column = {64 * r} : i64, columns = 64 : i64, dtype = "{cfg.out_dtype}"}} : !acc',
            "// generic-proxy writes must be visible to the TMA (async proxy) before the store",
            "nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}",
            bar,
            "scf.if %wg_leader {",
            f"  %ec{r} = arith.constant {64 * r} : i32",
            f"  %ecol{r} = arith.addi %n0, %ec{r} : i32",
            f"  nvvm.cp.async.bulk.tensor.global.shared.cta %tmap_c, %eslot{r}, box[%ecol{r}, %row0{_l(cfg)}] : !llvm.ptr, !llvm.ptr<3>",
            "  nvvm.cp.async.bulk.commit.group",
            "}",
        ]
    return "".join(f"{ind}{line}\n" for line in lines)


def _epilogue_drain(cfg: GemmConfig, ind: str) -> str:
    if cfg.epilogue == "direct":
        return ""
    return (f"{ind}// shared memory must outlive the last TMA store's reads\n"
            f"{ind}scf.if %wg_leader {{\n{ind}  nvvm.cp.async.bulk.wait_group 0 {{read}}\n{ind}}}\n")


def _consumer(cfg: GemmConfig, t: dict[str, str], wg: int) -> str:
    i10 = " " * 10
    a_desc = descriptor_constant(16, 1024) if cfg.a_major == "k" else descriptor_constant(8192, 1024)
    b_desc = descriptor_constant(16, 1024) if cfg.b_major == "k" else descriptor_constant(8192, 1024)
    res = "%fixed" if t["kind"] == "streamk" else "%acc_out"
    return f"""    // ---- consumer warp group {wg + 1}: rows {64 * wg}..{64 * wg + 63} of every tile; reads every stage.
    cutlass.async.exec warpgroup mask(0x{1 << (wg + 1):x}) regs({cfg.consumer_regs}) {{
      // WGMMA descriptors of stage 0 (128B swizzle, 1024-byte atoms); stage i is + i*stage_bytes/16
      %a_wg = arith.constant {wg * 64 * 128} : i32
      %a0 = llvm.getelementptr %smem[%a_wg] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %b0 = llvm.getelementptr %smem[%a_bytes] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %a0i = llvm.ptrtoint %a0 : !llvm.ptr<3> to i64
      %b0i = llvm.ptrtoint %b0 : !llvm.ptr<3> to i64
      %addr_mask = arith.constant 262143 : i64
      %c4_i64 = arith.constant 4 : i64
      %c0_i64 = arith.constant 0 : i64
      %a0m = arith.andi %a0i, %addr_mask : i64
      %b0m = arith.andi %b0i, %addr_mask : i64
      %a0s = arith.shrui %a0m, %c4_i64 : i64
      %b0s = arith.shrui %b0m, %c4_i64 : i64
      %a_bits = arith.constant {a_desc} : i64
      %b_bits = arith.constant {b_desc} : i64
      %da_base = arith.ori %a0s, %a_bits : i64
      %db_base = arith.ori %b0s, %b_bits : i64
      %stage_units = arith.constant {cfg.stage_bytes // 16} : i64
      %row_wg = arith.constant {64 * wg} : i32
      %c127 = arith.constant 127 : i32
      %t_in_wg = arith.andi %tid, %c127 : i32
      %wg_leader = arith.cmpi eq, %t_in_wg, %c0 : i32
      %ebuf_off = arith.constant {cfg.stages * cfg.stage_bytes + wg * 64 * cfg.epilogue_columns * 2} : i32
      %ebuf = llvm.getelementptr %smem[%ebuf_off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
{_scheduler_prologue(cfg, t, "      ")}      %start = cutlass.pipeline.state.create %ready consumer
      %zero = llvm.mlir.zero : !acc
      %lastw, %last = scf.while (%w = %first, %s = %start) : ({t['W']}, {t['ST']}) -> ({t['W']}, {t['ST']}) {{
{_valid(cfg, t, "        ")}        scf.condition(%valid) %w, %s : {t['W']}, {t['ST']}
      }} do {{
      ^bb0(%w: {t['W']}, %s: {t['ST']}):
        %tm, %tn, %tk, %tl = cutlass.tile_scheduler.work_tile_info_to_coord_mnkl %w : {t['W']}
{_k_range(cfg, t, "        ")}        // mainloop: one wgmma batch stays in flight; the stage read by the previous batch is
        // released once that batch has completed (wait_group 1)
        %acc_out, %s_out, %prev_out = scf.for %kt = %kbeg to %kend step %c1 iter_args(%acc = %zero, %st = %s, %prev = %s) -> (!acc, {t['ST']}, {t['ST']}) : i32 {{
          cutlass.pipeline.consumer_wait %ready, %st
          %idx = cutlass.pipeline.state.get_index %st
          %idx64 = arith.extui %idx : i32 to i64
          %soff = arith.muli %idx64, %stage_units : i64
          %da_stage = arith.addi %da_base, %soff : i64
          %db_stage = arith.addi %db_base, %soff : i64
          nvvm.wgmma.fence.aligned
{_wgmma_steps(cfg, t, i10)}          nvvm.wgmma.commit.group.sync.aligned
          nvvm.wgmma.wait.group.sync.aligned 1
          %not_first = arith.cmpi ne, %kt, %kbeg : i32
          scf.if %not_first {{
            cutlass.pipeline.consumer_release %ready, %prev {{cutlass.reads_retired}}
          }}
          %nx = cutlass.pipeline.state.increment %st
          scf.yield %d{cfg.tile_k // cfg.mma_k - 1}, %nx, %st : !acc, {t['ST']}, {t['ST']}
        }}
        nvvm.wgmma.wait.group.sync.aligned 0
        %ran = arith.cmpi slt, %kbeg, %kend : i32
        scf.if %ran {{
          cutlass.pipeline.consumer_release %ready, %prev_out {{cutlass.reads_retired}}
        }}
{_fixup(cfg, t, wg, "        ")}        scf.if %store {{
          %m0 = arith.muli %tm, %bm : i32
          %n0 = arith.muli %tn, %bn_tile : i32
          %row0 = arith.addi %m0, %row_wg : i32
{_epilogue(cfg, wg, res, "          ")}        }}
{_advance(cfg, t, "        ")}        scf.yield %next, %s_out : {t['W']}, {t['ST']}
      }}
{_epilogue_drain(cfg, "      ")}    }}
"""


def gemm_kernel_ir(cfg: GemmConfig) -> str:
    """The MLIR text of the kernel ``cfg.name`` (one ``func.func`` in a module)."""
    cfg.check()
    t = _types(cfg)
    consumers = ", ".join(f"0x{1 << (w + 1):x}" for w in range(cfg.consumer_groups))
    consumer_code = "".join(_consumer(cfg, t, w) for w in range(cfg.consumer_groups))
    return f"""// Warp-specialized persistent GEMM (TMA + WGMMA), generated by tileorch.kernels.gemm for
// {cfg}
//   C[M, N] = A{'^T' if cfg.a_major == 'm' else ''} @ B{'^T' if cfg.b_major == 'k' else ''}, {cfg.dtype}{' x ' + cfg.b_dtype if cfg.b_dtype else ''} inputs, {cfg.acc_type} accumulation, {cfg.out_dtype} output
//   block = {cfg.threads} threads, dynamic shared memory = {cfg.smem_bytes} bytes, cluster = {cfg.cluster_m}x1
!acc = {t['ACC']}
builtin.module attributes {{cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: {cfg.cluster_m}, 1, 1>}} {{
  func.func @{cfg.name}(%tmap_a: {TMAP}, %tmap_b: {TMAP}, %tmap_c: {TMAP},
      %c: !llvm.ptr<1>, %m: i32, %n: i32, %k: i32, %params: {t['P']} {{nvvm.grid_constant}})
      attributes {{nvvm.kernel, nvvm.maxntid = array<i32: {cfg.threads}, 1, 1>, nvvm.minctasm = 1 : i32}} {{
    %smem = atom.dynamic_smem : !llvm.ptr<3>
    // {cfg.stages} stages of A ({cfg.a_stage_bytes} B) + B ({cfg.b_stage_bytes} B); the producer group is warp
    // group 0 (one elected arrive); each consumer warp group is a consumer group of its own.
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = {cfg.stages}, producers = 1, consumers = {cfg.consumer_groups}>
    %ready = cutlass.pipeline.init %pipe {{numStages = {cfg.stages} : i32, executor = #cutlass<executor_type warpgroup>,
        participants = array<i64: 0x1>, consumers = array<i64: {consumers}>, producer_arv_count = array<i32: 1>,
        transaction_size = array<i32: {cfg.stage_bytes}>, compute_capability = #cutlass<pipeline_compute_capability sm90>}}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c_tile_k = arith.constant {cfg.tile_k} : i32
    %c63 = arith.constant 63 : i32
    %c8192 = arith.constant 8192 : i32
    %bm = arith.constant {cfg.tile_m} : i32
    %bn_tile = arith.constant {cfg.tile_n} : i32
    %stage_bytes = arith.constant {cfg.stage_bytes} : i32
    %a_bytes = arith.constant {cfg.a_stage_bytes} : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %c_tile_k1 = arith.constant {cfg.tile_k - 1} : i32
    %k_round = arith.addi %k, %c_tile_k1 : i32
    %k_tiles = arith.divui %k_round, %c_tile_k : i32
{_producer(cfg, t)}{consumer_code}    func.return
  }}
}}
"""
