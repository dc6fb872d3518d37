"""Load-balance figures of a stream-K schedule (what ``tileorch schedule`` prints)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .raster import ceil_div
from .streamk_work import Schedule


@dataclass(frozen=True)
class ScheduleSummary:
    ctas: int
    waves: int  # most units any CTA executes
    units: int
    items: int
    fixup_items: int  # pieces that exchange partials through the workspace
    useful_k_iterations: int  # K iterations of tiles inside the problem
    busiest_cta_k_iterations: int

    @property
    def balance(self) -> float:
        """useful K iterations / (CTAs x the busiest CTA's K iterations)."""
        denom = self.ctas * self.busiest_cta_k_iterations
        return self.useful_k_iterations / denom if denom else 0.0


def cta_k_iterations(s: Schedule) -> np.ndarray:
    """K iterations each CTA executes, in launch order."""
    return np.bincount(s.cta_of_item(), weights=s.k_tile_count, minlength=s.num_ctas).astype(np.int64)


def summarize(s: Schedule, problem: tuple[int, int, int, int], tile: tuple[int, int, int]) -> ScheduleSummary:
    p = s.params
    real_tiles = ceil_div(problem[0], tile[0]) * ceil_div(problem[1], tile[1]) * problem[3]
    per_cta = cta_k_iterations(s)
    first_piece = np.ones(len(s.linear_idx), bool)
    first_piece[1:] = s.linear_idx[1:] != s.linear_idx[:-1]
    units_per_cta = np.bincount(s.cta_of_item()[first_piece], minlength=s.num_ctas)
    fixup = (s.k_tile_count != p.k_tiles_per_output_tile) & (s.k_tile_count > 0)
    return ScheduleSummary(
        ctas=s.num_ctas, waves=int(units_per_cta.max(initial=0)), units=int(first_piece.sum()),
        items=len(s.linear_idx), fixup_items=int(fixup.sum()),
        useful_k_iterations=real_tiles * p.k_tiles_per_output_tile,
        busiest_cta_k_iterations=int(per_cta.max(initial=0)))
