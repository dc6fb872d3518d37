"""MLIR (cutlass dialect) of the producer/consumer pipeline conformance kernels.

One kernel per (stages, producers, consumer units, executor mode, transfer mode); the iteration
count is a kernel argument.  Warps 0..P-1 are producer groups; consumers start at warp 4.

* Producer ``p`` fills part ``p`` (``PART_WORDS`` u32 words) of the stage with
  ``in[k, p, :]``: ``arrive`` -- every lane copies with ld.global/st.shared and arrives in
  ``producer_commit`` (``producer_arv_count`` = 32 per producer warp, CUTLASS PipelineAsync);
  ``tx`` -- lane 0 issues one ``cp.async.bulk`` of the part completing on the stage's full
  barrier, and ``producer_commit`` (the group's leader) arms it with the part's bytes.
* ``ws`` (warp-specialized): every consumer unit is its own consumer group and copies the whole
  stage to ``out[c, k, :]``.  ``coop`` (cooperative): all consumer units form one group; unit
  ``u`` copies slice ``u`` of the stage to ``out[k, :]``.
"""

from __future__ import annotations

from dataclasses import dataclass

PART_WORDS = 128
UNIT_WARPS = {"warp": 1, "warpgroup": 4}
FIRST_CONSUMER_WARP = 4


@dataclass(frozen=True)
class PipelineConfig:
    stages: int
    producers: int
    unit: str  # "warp" | "warpgroup"
    units: int
    mode: str  # "ws" | "coop"
    transfer: str  # "arrive" | "tx"

    @property
    def name(self) -> str:
        return (f"pipe_s{self.stages}_p{self.producers}_{self.units}{self.unit}_{self.mode}_"
                f"{self.transfer}")

    @property
    def stage_words(self) -> int:
        return self.producers * PART_WORDS

    @property
    def block(self) -> int:
        return 32 * (FIRST_CONSUMER_WARP + self.units * UNIT_WARPS[self.unit])

    @property
    def smem(self) -> int:
        return self.stages * self.stage_words * 4

    @property
    def consumer_groups(self) -> int:
        return self.units if self.mode == "ws" else 1

    def unit_mask(self, u: int) -> int:
        """Warp mask of consumer unit ``u``."""
        w = UNIT_WARPS[self.unit]
        return ((1 << w) - 1) << (FIRST_CONSUMER_WARP + u * w)

    def consumer_masks(self) -> list[int]:
        masks = [self.unit_mask(u) for u in range(self.units)]
        return masks if self.mode == "ws" else [sum(masks)]


def _hex(v: int) -> str:
    return f"0x{v:x}"


def _producer(cfg: PipelineConfig, p: int) -> str:
    part_bytes = PART_WORDS * 4
    if cfg.transfer == "tx":
        move = f"""
          %lane0 = arith.cmpi eq, %lane, %c0 : i32
          scf.if %lane0 {{
            %fb = cutlass.pipeline.get_producer_barrier %ready, %s
            %src = llvm.getelementptr %in[%gword] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
            %dst = llvm.getelementptr %smem[%sword] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
            %nbytes = arith.constant {part_bytes} : i32
            atom.bulk_copy_g2s %dst, %src, %fb, %nbytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
          }}
          cutlass.pipeline.producer_commit %ready, %s {{transaction_bytes = {part_bytes} : i32}}"""
    else:
        move = f"""
          %c32 = arith.constant 32 : i32
          %cpart = arith.constant {PART_WORDS} : i32
          scf.for %j = %lane to %cpart step %c32 : i32 {{
            %gi = arith.addi %gword, %j : i32
            %si = arith.addi %sword, %j : i32
            %gp = llvm.getelementptr %in[%gi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
            %v = llvm.load %gp : !llvm.ptr<1> -> i32
            %sp = llvm.getelementptr %smem[%si] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
            llvm.store %v, %sp : i32, !llvm.ptr<3>
          }}
          cutlass.pipeline.producer_commit %ready, %s"""
    return f"""
    cutlass.async.exec warp mask({_hex(1 << p)}) {{
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %c31 = arith.constant 31 : i32
      %lane = arith.andi %tid, %c31 : i32
      %start = cutlass.pipeline.state.create %ready producer
      %last = scf.for %k = %c0 to %iters step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<{cfg.stages}>) : i32 {{
          cutlass.pipeline.producer_acquire %ready, %s
          %idx = cutlass.pipeline.state.get_index %s
          %cstage = arith.constant {cfg.stage_words} : i32
          %cpw = arith.constant {PART_WORDS} : i32
          %stage0 = arith.muli %idx, %cstage : i32
          %sword = arith.addi %stage0, %c{p}_part : i32
          %krow = arith.muli %k, %cstage : i32
          %gword = arith.addi %krow, %c{p}_part : i32{move}
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<{cfg.stages}>
      }}
      cutlass.pipeline.producer_tail %ready, %last
    }}"""


def _consumer(cfg: PipelineConfig, mask: int, group: int) -> str:
    """A consumer group over ``mask``: ws copies the whole stage to out[group]; coop copies the
    slice of the thread's unit to out."""
    first = (mask & -mask).bit_length() - 1
    threads = bin(mask).count("1") * 32
    unit_threads = 32 * UNIT_WARPS[cfg.unit]
    if cfg.mode == "ws":
        setup = f"""
      %tg = arith.subi %tid, %cfirst : i32
      %cstep = arith.constant {threads} : i32
      %cspan = arith.constant {cfg.stage_words} : i32
      %lo = arith.constant 0 : i32"""
        row = f"""
          %crow = arith.constant {cfg.stage_words} : i32
          %cbase = arith.constant {group} : i32
          %grow = arith.muli %cbase, %itersw : i32
          %krow = arith.muli %k, %crow : i32
          %kout = arith.addi %grow, %krow : i32"""
    else:
        slice_words = cfg.stage_words // cfg.units
        setup = f"""
      %tg0 = arith.subi %tid, %cfirst : i32
      %cut = arith.constant {unit_threads} : i32
      %unit = arith.divui %tg0, %cut : i32
      %tg = arith.remui %tg0, %cut : i32
      %cstep = arith.constant {unit_threads} : i32
      %cslice = arith.constant {slice_words} : i32
      %lo = arith.muli %unit, %cslice : i32
      %cspan = arith.addi %lo, %cslice : i32"""
        row = f"""
          %crow = arith.constant {cfg.stage_words} : i32
          %kout = arith.muli %k, %crow : i32"""
    return f"""
    cutlass.async.exec warp mask({_hex(mask)}) {{
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %cfirst = arith.constant {first * 32} : i32{setup}
      %cstagew = arith.constant {cfg.stage_words} : i32
      %itersw = arith.muli %iters, %cstagew : i32
      %j0 = arith.addi %lo, %tg : i32
      %start = cutlass.pipeline.state.create %ready consumer
      %last = scf.for %k = %c0 to %consumed step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<{cfg.stages}>) : i32 {{
          cutlass.pipeline.consumer_wait %ready, %s
          %idx = cutlass.pipeline.state.get_index %s
          %sbase = arith.muli %idx, %cstagew : i32{row}
          scf.for %j = %j0 to %cspan step %cstep : i32 {{
            %si = arith.addi %sbase, %j : i32
            %sp = llvm.getelementptr %smem[%si] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
            %v = llvm.load %sp : !llvm.ptr<3> -> i32
            %oi = arith.addi %kout, %j : i32
            %op = llvm.getelementptr %out[%oi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
            llvm.store %v, %op : i32, !llvm.ptr<1>
          }}
          cutlass.pipeline.consumer_release %ready, %s
          %next = cutlass.pipeline.state.increment %s
          scf.yield %next : !cutlass.pipeline_state<{cfg.stages}>
      }}
    }}"""


def pipeline_kernel(cfg: PipelineConfig, name: str | None = None, starve: bool = False) -> str:
    """The module text of kernel ``cfg.name(in, out, iters)`` (or ``name``).  ``starve``: the
    consumers wait for one stage more than the producers fill, so their last wait never ends."""
    masks = cfg.consumer_masks()
    if cfg.transfer == "tx":
        tx = ", transaction_size = array<i32: " + ", ".join([str(PART_WORDS * 4)] * cfg.producers) + ">"
    else:
        tx = ", producer_arv_count = array<i32: " + ", ".join(["32"] * cfg.producers) + ">"
    init = (f"%ready = cutlass.pipeline.init %pipe {{numStages = {cfg.stages} : i32, executor = "
            f"#cutlass<executor_type warp>, participants = array<i64: "
            f"{', '.join(_hex(1 << p) for p in range(cfg.producers))}>, consumers = array<i64: "
            f"{', '.join(_hex(m) for m in masks)}>{tx}}}")
    parts = "\n".join(f"    %c{p}_part = arith.constant {p * PART_WORDS} : i32" for p in range(cfg.producers))
    producers = "".join(_producer(cfg, p) for p in range(cfg.producers))
    consumers = "".join(_consumer(cfg, m, g) for g, m in enumerate(masks))
    return f"""builtin.module attributes {{cutlass.target = "sm_90a"}} {{
  func.func @{name or cfg.name}(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %iters: i32) attributes {{nvvm.kernel, nvvm.maxntid = array<i32: {cfg.block}, 1, 1>}} {{
    %smem = atom.dynamic_smem : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %consumed = arith.addi %iters, %c{int(starve)} : i32
{parts}
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = {cfg.stages}, producers = {cfg.producers}, consumers = {len(masks)}>
    {init}
    cutlass.async.exec cta mask(1) threads({cfg.block}) {{
      cutlass.named_barrier.arrive_and_wait barrier_id = 0
    }}{producers}{consumers}
    func.return
  }}
}}
"""


def all_configs() -> list[PipelineConfig]:
    units = [("warp", 1), ("warp", 2), ("warp", 4), ("warpgroup", 1), ("warpgroup", 2)]
    return [
        PipelineConfig(s, p, u, n, mode, transfer)
        for s in (1, 2, 3, 4, 6, 8)
        for p in (1, 2)
        for u, n in units
        for mode in ("ws", "coop")
        for transfer in ("arrive", "tx")
    ]


def iteration_counts(stages: int) -> list[int]:
    return sorted({1, stages - 1, stages, 10 * stages + 3} - {0})
