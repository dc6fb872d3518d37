"""Options of ``convert-pipeline-to-nvvm`` that change what the patterns emit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LoweringOptions:
    """``debug_timeout``: when > 0, every barrier wait counts its polls and, after that many
    unsuccessful polls, prints the barrier it waits on and traps (debug builds); 0 = off."""

    debug_timeout: int = 0
