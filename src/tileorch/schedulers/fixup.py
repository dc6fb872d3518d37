"""CPU execution of the stream-K / split-K fix-up protocol on a byte-exact NumPy workspace.

Each (CTA, consumer warp group) is an agent walking its CTA's work items.  For a split tile:
the piece with ``K_idx == 0`` stores its partials; later non-final pieces wait (deterministic:
``lock == K_idx``; nondeterministic: ``lock >= 1``) and atomically add theirs; every non-final
piece then adds ``k_tile_count`` to the lock; the final piece waits for ``lock == K_idx``,
adds the workspace into its accumulators and runs the epilogue.  Agents are interleaved by a
seeded random choice among those whose wait is satisfied, so different seeds model different
timings.

Workspace bytes: reduction region (``BLK_M*BLK_N`` float32 per reduction tile, warp group
``w``'s slice at element ``V*128*w``, thread ``t``'s fragment element ``i`` at ``128*i + t``,
``V = BLK_M*BLK_N/(128*W)``), rounded up to 128 bytes, then one int32 lock per
(reduction tile, warp group) at ``tile*W + w``.  Accumulator fragments follow the SM90 GMMA
64xN layout; warp groups split the tile along M (the cooperative kernel).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .enums import ReductionMode
from .streamk_params import StreamKParams
from .streamk_work import schedule_arrays
from .workspace import barrier_workspace_size, reduction_workspace_size

THREADS_PER_WARP_GROUP = 128


def gmma_fragment_coords(tile_m: int, tile_n: int, warp_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, cols)``, each ``(W, 128, V)``: tile coordinates of thread ``t``'s element ``i``.

    Inside one 64xN GMMA atom thread ``t`` (warp ``t//32``, lane ``t%32``) holds value
    ``v0 + 2*v1 + 4*v2`` at row ``16*warp + lane//4 + 8*v1``, column ``2*(lane%4) + v0 + 8*v2``;
    atoms repeat along M (index ``+ N/2 * atom``).
    """
    if tile_m % (64 * warp_groups) or tile_n % 8 or tile_n > 256:
        raise ValueError(f"tile {tile_m}x{tile_n} does not split into 64xN GMMA atoms over {warp_groups} warp groups")
    atoms_m = tile_m // (64 * warp_groups)
    t = np.arange(THREADS_PER_WARP_GROUP)[:, None]
    v = np.arange(tile_n // 2 * atoms_m)[None, :]
    per_atom = tile_n // 2
    atom, va = v // per_atom, v % per_atom
    v0, v1, v2 = va % 2, (va // 2) % 2, va // 4
    warp, lane = t // 32, t % 32
    rows = 64 * atom + 16 * warp + lane // 4 + 8 * v1
    cols = 2 * (lane % 4) + v0 + 8 * v2 + 0 * t
    wg = np.arange(warp_groups)[:, None, None]
    return rows[None] + wg * (tile_m // warp_groups), np.broadcast_to(cols, (warp_groups,) + cols.shape)


@dataclass
class FixupRun:
    output: np.ndarray  # (L, M, N) float32
    workspace: np.ndarray  # uint8, reduction region then locks
    reduction_bytes: int
    steps: list[tuple[int, int, str, int]]  # (cta, warp group, action, tile_idx) in execution order

    @property
    def locks(self) -> np.ndarray:
        return self.workspace[self.reduction_bytes:].view(np.int32)


def simulate_fixup(p: StreamKParams, tile: tuple[int, int, int], a: np.ndarray, b: np.ndarray, *,
                   mma_warp_groups: int = 1, seed: int = 0) -> FixupRun:
    """Run every CTA's work on ``a`` (L, M, K) and ``b`` (L, K, N), float32, through the workspace."""
    if p.separate_reduction_units:
        raise ValueError("separate-reduction units are not simulated (CUTLASS never enables them)")
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    L, M, K = a.shape
    N = b.shape[2]
    bm, bn, bk = tile
    rp, kt, W = p.raster, p.k_tiles_per_output_tile, mma_warp_groups
    pa = np.zeros((L, rp.blocks_m * bm, kt * bk), np.float32)
    pa[:, :M, :K] = a
    pb = np.zeros((L, kt * bk, rp.blocks_n * bn), np.float32)
    pb[:, :K, :N] = b
    out = np.zeros((L, rp.blocks_m * bm, rp.blocks_n * bn), np.float32)
    rows, cols = gmma_fragment_coords(bm, bn, W)
    vals = rows.shape[2]

    red_bytes = reduction_workspace_size(p.reduction_tiles, tile, 32)
    ws = np.zeros(red_bytes + barrier_workspace_size(p.reduction_tiles, W), np.uint8)
    partials, locks = ws[:red_bytes].view(np.float32), ws[red_bytes:].view(np.int32)
    deterministic = p.reduction_mode is ReductionMode.DETERMINISTIC
    sched = schedule_arrays(p)
    steps: list[tuple[int, int, str, int]] = []

    def agent(cta: int, w: int):
        for it in sched.items(cta):
            acc = np.zeros((THREADS_PER_WARP_GROUP, vals), np.float32)
            r, c = it.m * bm + rows[w], it.n * bn + cols[w]
            for k in range(it.k_tile_start, it.k_tile_start + it.k_tile_count):
                ks = slice(k * bk, (k + 1) * bk)
                acc += (pa[it.l, it.m * bm:(it.m + 1) * bm, ks] @ pb[it.l, ks, it.n * bn:(it.n + 1) * bn])[
                    rows[w], cols[w]]
                yield None
            if it.k_tile_count != kt:
                lock = it.tile_idx * W + w
                slot = bm * bn * it.tile_idx + vals * THREADS_PER_WARP_GROUP * w
                idx = slot + THREADS_PER_WARP_GROUP * np.arange(vals)[None, :] + np.arange(THREADS_PER_WARP_GROUP)[:, None]
                if not it.is_final_split(kt):
                    if it.k_tile_start == 0:
                        partials[idx] = acc
                        steps.append((cta, w, "store", it.tile_idx))
                    else:
                        yield ((lambda want: lambda: locks[lock] == want)(it.k_tile_start) if deterministic
                               else (lambda: locks[lock] >= 1))
                        partials[idx] += acc
                        steps.append((cta, w, "reduce", it.tile_idx))
                    yield None
                    locks[lock] += it.k_tile_count
                    steps.append((cta, w, "arrive", it.tile_idx))
                    continue
                yield (lambda want: lambda: locks[lock] == want)(it.k_tile_start)
                acc += partials[idx]
                steps.append((cta, w, "load_add", it.tile_idx))
            out[it.l, r, c] = acc
            steps.append((cta, w, "epilogue", it.tile_idx))

    _interleave([agent(c, w) for c in range(sched.num_ctas) for w in range(W)], np.random.default_rng(seed))
    return FixupRun(out[:, :M, :N], ws, red_bytes, steps)


def _interleave(agents: list, rng: np.random.Generator) -> None:
    """Step agents in random order; an agent blocked on a wait is only stepped once it holds."""
    waits = [None] * len(agents)
    live = list(range(len(agents)))
    while live:
        ready = [i for i in live if waits[i] is None or waits[i]()]
        if not ready:
            raise RuntimeError(f"fix-up deadlock: {len(live)} agents wait on locks that never change")
        i = ready[rng.integers(len(ready))]
        try:
            waits[i] = next(agents[i])
        except StopIteration:
            live.remove(i)
