"""SM100 Stream-K with cluster-level coordination (seed 000, scheduler body ``sub_R01``).

The seed's SM100 body lets *each cluster* claim a contiguous range of (M, N, K) work, spread it
over the cluster's CTAs and reduce the K-split partials of one output tile *inside the cluster*
through the cluster barrier (``barrier.cluster.arrive`` / ``wait``), where the generic body
(``sub_R03``) needs per-CTA global atomics.  This module is the host side of tileorch's reading
of it, used whenever an SM100 Stream-K scheduler runs on a cluster of more than one CTA; the
device lowering (``transforms/pipeline_to_nvvm/scheduler_cluster.py``) traces these functions.

Decomposition (``cluster`` = ``(cx, cy)``, ``size = cx * cy`` CTAs):

* **Cluster units.**  A whole cluster is one Stream-K worker: the units are those of the SM100
  scheduler (:mod:`.sm100_streamk`, CUTLASS's ``PersistentTileSchedulerSm100StreamK``) for a
  one-CTA cluster and ``max(1, sms // size)`` workers, over CTA-sized output tiles.  Unit ``u``
  (a contiguous range of the flattened (tile, K) iteration space, walked backwards one *piece*
  per output tile, or one data-parallel tile, or one split-K split) belongs to the cluster at
  position ``(x, y, z)`` of the cluster grid ``unit.grid``; the CTA grid is that grid scaled by
  ``(cx, cy, 1)``.  Every CTA of a cluster sees the same piece sequence (the work tile is
  cluster-uniform), so every CTA passes the same number of cluster barriers.
* **Rank shares.**  A piece of ``c`` K tiles starting at ``s`` is cut into ``size`` contiguous
  shares in rank order (``%cluster_ctarank``): rank ``r`` gets ``c // size + (r < c % size)``
  tiles from ``s + r * (c // size) + min(r, c % size)``.  Ranks with no tile (``c < size``) do
  no mainloop work and contribute nothing.
* **In-cluster reduction.**  Each rank with a share stores its partial into its own shared
  memory; cluster barrier (release / acquire); rank 0 (the leader) adds the other ranks'
  partials in rank order (increasing K), read through DSMEM; cluster barrier again (the peers'
  buffers stay live until the leader has read them).  The leader then holds the cluster's
  partial of the piece.
* **Across clusters.**  When the piece is not the whole K extent of its tile, the leader runs
  the generic Stream-K fix-up (:mod:`.fixup`: reduction workspace + per-tile lock, sized by
  :func:`cluster_workspace_sizes`) with the *piece's* K range; the non-leaders skip it.  The
  leader of the piece that ends the tile's K range (``is_final_split``) runs the epilogue.
"""

from __future__ import annotations

from dataclasses import dataclass

from .raster import check_launch_grid
from .sm100_streamk import Sm100StreamKParams, block_linear_idx, sm100_streamk_params, sm100_workspace_sizes
from .streamk_work import continue_work, get_work
from .work_tile import WorkTileInfo
from .workspace import WorkspaceSizes

MAX_CLUSTER_CTAS = 16  # the largest (non-portable) cluster of sm_100


@dataclass(frozen=True)
class ClusterStreamKParams:
    """``unit``: the one-CTA-cluster SM100 decomposition whose workers are whole clusters."""

    unit: Sm100StreamKParams
    cluster: tuple[int, int]

    @property
    def size(self) -> int:
        return self.cluster[0] * self.cluster[1]

    @property
    def cluster_grid(self) -> tuple[int, int, int]:
        return self.unit.grid

    @property
    def grid(self) -> tuple[int, int, int]:
        """The launch grid in CTAs (a multiple of the cluster shape)."""
        gx, gy, gz = self.unit.grid
        return (gx * self.cluster[0], gy * self.cluster[1], gz)


def workers(cluster: tuple[int, int], sms: int) -> int:
    return max(1, sms // (cluster[0] * cluster[1]))


def cluster_streamk_params(problem: tuple[int, int, int, int], tile: tuple[int, int, int],
                           cluster: tuple[int, int], sms: int, **kw) -> ClusterStreamKParams:
    """Params of the cluster-coordinated SM100 Stream-K scheduler (``kw`` as
    :func:`.sm100_streamk.sm100_streamk_params`: splits, decomposition, raster, ...)."""
    size = cluster[0] * cluster[1]
    if not 1 <= size <= MAX_CLUSTER_CTAS or min(cluster) < 1:
        raise ValueError(f"cluster {cluster[0]}x{cluster[1]}: an sm_100 cluster has 1 to {MAX_CLUSTER_CTAS} CTAs")
    unit = sm100_streamk_params(problem, tile, (1, 1), workers(cluster, sms), **kw)
    p = ClusterStreamKParams(unit, cluster)
    check_launch_grid(p.grid, "the SM100 cluster stream-K schedule")
    return p


def cluster_workspace_sizes(problem, tile, cluster, sms: int, **kw) -> WorkspaceSizes:
    """The cross-cluster fix-up workspace: that of the one-CTA-cluster decomposition (one
    partial and one lock per split tile); the in-cluster reduction needs none."""
    return sm100_workspace_sizes(problem, tile, (1, 1), workers(cluster, sms), **kw)


def cluster_linear_idx(p: Sm100StreamKParams, x, y, z):
    """The unit of the cluster at position ``(x, y, z)`` of the cluster grid (``%clusterid``);
    ``p`` is :attr:`ClusterStreamKParams.unit`."""
    return block_linear_idx(p, x, y, z)


def cluster_pieces(p: ClusterStreamKParams, x: int, y: int, z: int) -> list[WorkTileInfo]:
    """The pieces (cluster-uniform work tiles) of the cluster at ``(x, y, z)``, in order: the
    unit at :func:`cluster_linear_idx` (``streamk_work.get_work``), then its earlier pieces
    (``continue_work``) -- exactly what the device body and ``advance_to_next_work`` compute.
    (For data-parallel and split-K params this is the linear-index walk, whose tile order differs
    from CUTLASS's SM100 grid-coordinate mapping in :func:`.sm100_streamk.block_work`.)"""
    sk = p.unit.sk
    work, start = get_work(sk, cluster_linear_idx(p.unit, x, y, z))
    items = []
    while work is not None and work.is_valid:
        items.append(work)
        work = continue_work(sk, work, start)
    return items


def rank_share(k_tile_start, k_tile_count, rank, size: int):
    """``(first K tile, K tiles)`` of cluster rank ``rank`` in a piece (works on symbolic values)."""
    base, extra = k_tile_count // size, k_tile_count % size
    return k_tile_start + rank * base + min(rank, extra), base + (rank < extra)


def contributing_ranks(k_tile_count, size: int):
    """How many ranks (0, 1, ...) hold K tiles of a piece of ``k_tile_count`` tiles."""
    return min(k_tile_count, size)


def runs_epilogue(work: WorkTileInfo, rank, k_tiles_per_output_tile):
    """The leader of the piece that ends the tile's K range runs the epilogue."""
    return (rank == 0) & work.is_final_split(k_tiles_per_output_tile)


def needs_cross_cluster_fixup(work: WorkTileInfo, k_tiles_per_output_tile):
    """The piece is not the whole tile: the leader reduces through the global workspace."""
    return work.k_tile_count != k_tiles_per_output_tile


@dataclass(frozen=True)
class CtaWork:
    """One piece as one CTA of the cluster sees it."""

    piece: WorkTileInfo
    rank: int
    k_tile_start: int
    k_tile_count: int
    epilogue: bool


def cta_work(p: ClusterStreamKParams, x: int, y: int, z: int, rank: int) -> list[CtaWork]:
    """Every piece CTA ``rank`` of the cluster at ``(x, y, z)`` takes part in."""
    kt = p.unit.sk.k_tiles_per_output_tile
    out = []
    for w in cluster_pieces(p, x, y, z):
        s, c = rank_share(w.k_tile_start, w.k_tile_count, rank, p.size)
        out.append(CtaWork(w, rank, s, c, bool(runs_epilogue(w, rank, kt))))
    return out


def cluster_positions(p: ClusterStreamKParams):
    gx, gy, gz = p.cluster_grid
    return [(x, y, z) for z in range(gz) for y in range(gy) for x in range(gx)]
