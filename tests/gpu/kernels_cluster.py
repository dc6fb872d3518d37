"""MLIR of the cluster pipeline conformance kernels (``cutlass.cluster_shape`` 2x1 or 1x2).

Every CTA's producer warp (warp 0) multicasts its part of each stage -- ``in[cluster, k, rank]``,
``PART_WORDS`` words -- with one ``atom.bulk_copy_g2s ... multicast`` into slot ``rank`` of the
stage in every CTA named by ``cutlass.pipeline.get_producer_mask``, so each CTA's full barrier
receives ``cluster_size * PART`` transaction bytes per stage (its own leader arms them in
``producer_commit``).  The consumer groups of every CTA copy the whole stage to
``out[cta, group, k, :]`` and release it to every producer that writes into it (the cluster
release of ``consumer_release``: one arrive per consumer warp group on each same-row/column CTA,
cutlass-semantics.md §3.1).  Nothing but ``producer_tail`` keeps a CTA alive for its peers.

That release is sent by one thread per warp group (two lanes of a single-warp group) on behalf of
all of them; CUTLASS consumers are warp-group synchronous (``wgmma.wait_group``) when they
release.  With ``group_sync`` the kernel synchronises each consumer group on a named barrier
before ``consumer_release``, as such consumers would; without it, the release itself must order
every thread's shared-memory reads before the producers' next writes (as the single-CTA release
does, where every consumer thread arrives).

Named-barrier ids: the lowering's own release sync of a multi-warp group claims ids through
``cutlass.pipeline.init`` (``num_named_barriers()``).  The hand-written group syncs of the
``group_sync`` variant use ids ``8 + g`` and pin the pipeline's ``barrier_id_base`` past them
(``8 + groups``), so the two never share an id; without ``group_sync`` the allocator chooses.
"""

from __future__ import annotations

from dataclasses import dataclass

PART_WORDS = 128
FIRST_CONSUMER_WARP = 4
FIRST_NAMED_BARRIER = 8  # = RESERVED_BARRIER_IDS (not imported: the GPU machine has no xDSL)


@dataclass(frozen=True)
class ClusterConfig:
    cluster: tuple[int, int]
    stages: int
    consumer_warps: int  # warps per consumer group: 1 or 4
    groups: int  # consumer groups (each copies every stage)
    group_sync: bool  # named-barrier sync of each consumer group before consumer_release

    @property
    def size(self) -> int:
        return self.cluster[0] * self.cluster[1]

    @property
    def name(self) -> str:
        cx, cy = self.cluster
        sync = "_sync" if self.group_sync else ""
        return f"cluster_{cx}x{cy}_s{self.stages}_g{self.groups}x{self.consumer_warps}w{sync}"

    @property
    def stage_words(self) -> int:
        return self.size * PART_WORDS

    @property
    def block(self) -> int:
        return 32 * (FIRST_CONSUMER_WARP + self.groups * self.consumer_warps)

    @property
    def smem(self) -> int:
        return self.stages * self.stage_words * 4

    def group_mask(self, g: int) -> int:
        w = self.consumer_warps
        return ((1 << w) - 1) << (FIRST_CONSUMER_WARP + g * w)

    def group_sync_id(self, g: int) -> int:
        """Hand-written named-barrier id of consumer group ``g``'s sync (``group_sync`` only)."""
        return FIRST_NAMED_BARRIER + g

    @property
    def pipeline_barrier_base(self) -> str:
        """``barrier_id_base`` entry for ``cutlass.pipeline.init``: pinned past the hand-written
        ids when there are any, else left to cutlass-allocate-barrier-ids."""
        return f", barrier_id_base = {FIRST_NAMED_BARRIER + self.groups} : i32" if self.group_sync else ""

    def grid(self, clusters: int) -> tuple[int, int]:
        cx, cy = self.cluster
        return (cx * clusters, cy) if cx > 1 else (cx, cy * clusters)


def _consumer(cfg: ClusterConfig, g: int) -> str:
    mask = cfg.group_mask(g)
    threads = 32 * cfg.consumer_warps
    first = 32 * (FIRST_CONSUMER_WARP + g * cfg.consumer_warps)
    ty = f"!cutlass.pipeline_state<{cfg.stages}>"
    sync = (f"\n        cutlass.named_barrier.arrive_and_wait barrier_id = {cfg.group_sync_id(g)} "
            f"num_threads = {threads}" if cfg.group_sync else "")
    return f"""
    cutlass.async.exec warp mask(0x{mask:x}) {{
      %cfirst = arith.constant {first} : i32
      %tg = arith.subi %tid, %cfirst : i32
      %cstep = arith.constant {threads} : i32
      %cgroup = arith.constant {g} : i32
      %gslab = arith.addi %ctaslab, %cgroup : i32
      %gbase = arith.muli %gslab, %itersw : i32
      %start = cutlass.pipeline.state.create %ready consumer
      %last = scf.for %k = %c0 to %iters step %c1 iter_args(%s = %start) -> ({ty}) : i32 {{
        cutlass.pipeline.consumer_wait %ready, %s
        %idx = cutlass.pipeline.state.get_index %s
        %sbase = arith.muli %idx, %cstagew : i32
        %krow = arith.muli %k, %cstagew : i32
        %obase = arith.addi %gbase, %krow : i32
        scf.for %j = %tg to %cstagew step %cstep : i32 {{
          %si = arith.addi %sbase, %j : i32
          %sp = llvm.getelementptr %smem[%si] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
          %v = llvm.load %sp : !llvm.ptr<3> -> i32
          %oi = arith.addi %obase, %j : i32
          %op = llvm.getelementptr %out[%oi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %v, %op : i32, !llvm.ptr<1>
        }}{sync}
        cutlass.pipeline.consumer_release %ready, %s
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : {ty}
      }}
    }}"""


def cluster_kernel(cfg: ClusterConfig) -> str:
    """Module text of ``cfg.name(in, out, iters)``; launch with cluster ``cfg.cluster``."""
    cx, cy = cfg.cluster
    ty = f"!cutlass.pipeline_state<{cfg.stages}>"
    masks = ", ".join(f"0x{cfg.group_mask(g):x}" for g in range(cfg.groups))
    part_bytes = PART_WORDS * 4
    consumers = "".join(_consumer(cfg, g) for g in range(cfg.groups))
    return f"""builtin.module attributes {{cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: {cx}, {cy}, 1>}} {{
  func.func @{cfg.name}(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %iters: i32) attributes {{nvvm.kernel, nvvm.maxntid = array<i32: {cfg.block}, 1, 1>, nvvm.cluster_dim = array<i32: {cx}, {cy}, 1>}} {{
    %smem = atom.dynamic_smem : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %cstagew = arith.constant {cfg.stage_words} : i32
    %itersw = arith.muli %iters, %cstagew : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
    %clx = nvvm.read.ptx.sreg.clusterid.x : i32
    %cly = nvvm.read.ptx.sreg.clusterid.y : i32
    %nclx = nvvm.read.ptx.sreg.nclusterid.x : i32
    %cly_row = arith.muli %cly, %nclx : i32
    %cluster = arith.addi %cly_row, %clx : i32
    %ctax = nvvm.read.ptx.sreg.ctaid.x : i32
    %ctay = nvvm.read.ptx.sreg.ctaid.y : i32
    %nctax = nvvm.read.ptx.sreg.nctaid.x : i32
    %ctay_row = arith.muli %ctay, %nctax : i32
    %cta = arith.addi %ctay_row, %ctax : i32
    %cgroups = arith.constant {cfg.groups} : i32
    %ctaslab = arith.muli %cta, %cgroups : i32
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = {cfg.stages}, producers = 1, consumers = {cfg.groups}>
    %ready = cutlass.pipeline.init %pipe {{numStages = {cfg.stages} : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: {masks}>, transaction_size = array<i32: {cfg.size * part_bytes}>{cfg.pipeline_barrier_base}}}
    cutlass.async.exec warp mask(0x1) {{
      %lane0 = arith.cmpi eq, %tid, %c0 : i32
      %mcast = cutlass.pipeline.get_producer_mask %ready
      %cpart = arith.constant {PART_WORDS} : i32
      %nbytes = arith.constant {part_bytes} : i32
      %csize = arith.constant {cfg.size} : i32
      %slot = arith.muli %rank, %cpart : i32
      %cl_iters = arith.muli %cluster, %iters : i32
      %start = cutlass.pipeline.state.create %ready producer
      %last = scf.for %k = %c0 to %iters step %c1 iter_args(%s = %start) -> ({ty}) : i32 {{
        cutlass.pipeline.producer_acquire %ready, %s
        scf.if %lane0 {{
          %fb = cutlass.pipeline.get_producer_barrier %ready, %s
          %idx = cutlass.pipeline.state.get_index %s
          %stage0 = arith.muli %idx, %cstagew : i32
          %sword = arith.addi %stage0, %slot : i32
          %dst = llvm.getelementptr %smem[%sword] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
          %row = arith.addi %cl_iters, %k : i32
          %rowr = arith.muli %row, %csize : i32
          %part = arith.addi %rowr, %rank : i32
          %gword = arith.muli %part, %cpart : i32
          %src = llvm.getelementptr %in[%gword] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          atom.bulk_copy_g2s %dst, %src, %fb, %nbytes multicast %mcast : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
        }}
        cutlass.pipeline.producer_commit %ready, %s {{transaction_bytes = {cfg.size * part_bytes} : i32}}
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : {ty}
      }}
      cutlass.pipeline.producer_tail %ready, %last
    }}{consumers}
    func.return
  }}
}}
"""


def all_configs() -> list[ClusterConfig]:
    return [
        ClusterConfig(cluster, stages, warps, groups, sync)
        for cluster in ((2, 1), (1, 2))
        for stages in (1, 2, 4)
        for warps, groups in ((1, 1), (4, 1), (4, 2), (1, 2))
        for sync in (True, False)
    ]
