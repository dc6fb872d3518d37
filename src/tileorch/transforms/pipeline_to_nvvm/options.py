"""Options of ``convert-pipeline-to-nvvm`` that change what the patterns emit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LoweringOptions:
    """``debug_timeout``: barrier waits count their polls and trap after a bound (debug builds)."""

    debug_timeout: bool = False
