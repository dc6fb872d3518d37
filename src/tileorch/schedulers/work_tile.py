"""Work-tile-info values, one class per tileiras type, with the shipping dialect's field names.

``m``/``n``/``l`` are CTA tile coordinates (the SM90 convention: in-cluster offsets included).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DataParallelWorkTileInfo:
    """``!cutlass.dp_work_tile_info``: the single tile of a data-parallel CTA."""

    m: int
    n: int
    l: int
    linearized_id: int


@dataclass(frozen=True, slots=True)
class StaticPersistentWorkTileInfo:
    """``!cutlass.static_persistent_work_tile_info``.

    ``tile_idx`` counts tiles within the current pipeline round (see ``persistent_advance``).
    """

    m: int
    n: int
    l: int
    linearized_id: int
    tile_idx: int
    is_valid_tile: bool


@dataclass(frozen=True, slots=True)
class WorkTileInfo:
    """``!cutlass.streamk_work_tile_info`` (CUTLASS's stream-K ``WorkTileInfo``).

    ``k_tile_start`` is CUTLASS's ``K_idx`` (for a separate-reduction unit: its epilogue
    subtile), ``k_tile_count`` the K tiles of this piece, ``k_tile_remaining`` the K tiles the
    unit still owns including this piece, ``linearized_id`` the unit's linear work index and
    ``tile_idx`` the output tile index that addresses the fix-up workspace and locks.
    """

    m: int
    n: int
    l: int
    k_tile_start: int
    k_tile_count: int
    k_tile_remaining: int
    is_separate_reduction: bool
    linearized_id: int = -1
    tile_idx: int = -1

    @property
    def is_valid(self) -> bool:
        return self.k_tile_count > 0 or self.is_separate_reduction

    def is_final_split(self, k_tiles_per_output_tile: int) -> bool:
        return self.k_tile_start + self.k_tile_count == k_tiles_per_output_tile

    def row(self) -> list[int]:
        """``[m, n, l, k_idx, k_tile_count, k_tile_remaining, is_reduction_unit]`` (CLI JSON)."""
        return [self.m, self.n, self.l, self.k_tile_start, self.k_tile_count,
                self.k_tile_remaining, int(self.is_separate_reduction)]
