"""Scheduler enumerations, spelled as CUTLASS's ``tile_scheduler_detail.hpp`` names them.

The string values are the spellings the ``tileorch schedule`` command accepts.
"""

from __future__ import annotations

from enum import Enum


class RasterOrder(str, Enum):
    """The raster order a scheduler actually uses."""

    ALONG_M = "along_m"
    ALONG_N = "along_n"


class RasterOrderOptions(str, Enum):
    """The raster order a user asks for (``heuristic`` lets the scheduler choose)."""

    HEURISTIC = "heuristic"
    ALONG_M = "along_m"
    ALONG_N = "along_n"


class ReductionMode(str, Enum):
    """How stream-K / split-K partial accumulators are folded together."""

    DETERMINISTIC = "deterministic"
    NONDETERMINISTIC = "nondeterministic"


class DecompositionMode(str, Enum):
    """How the stream-K scheduler decomposes the problem."""

    HEURISTIC = "heuristic"
    DATA_PARALLEL = "data_parallel"
    SPLIT_K = "split_k"
    STREAM_K = "stream_k"
