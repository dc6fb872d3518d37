"""Resident CTAs asked of ptxas for a loop-free gather kernel (``nvvm.minctasm`` -> ``.minnctapersm``).

A gather (a tile loaded through a tile of pointers whose addresses come from another load, with no
loop: :func:`tileorch.transforms.tileas.simt_layouts.gathers`) waits two memory latencies in a row,
the index load's and then the rows', so what hides them is the number of warps resident on an SM.
Left to itself ptxas spends registers on address and predicate arithmetic: 45 per thread for a
4 x 1024 f32 row gather at 256 threads (5 CTAs, 40 warps per SM), 71 for bf16 at 128 threads (7 CTAs,
28 warps).  Asking for ``W`` resident warps (``TILEORCH_GATHER_WARPS``, default :data:`DEFAULT_WARPS`)
makes it fit the CTA into ``65536 / (32 W)`` registers a thread: 48 warps -> 42, i.e. 38-40 for
those two kernels, no spills (ptxas 13.0).  ``TILEORCH_GATHER_WARPS=0``: no hint.  The kernel
records the CTAs asked for in :data:`ATTR` (the driver's remark); read at each compile (part of the
disk-cache key)."""

from __future__ import annotations

from tileorch import settings

ENV = "TILEORCH_GATHER_WARPS"
DEFAULT_WARPS = 48
ATTR = "tileorch.gather_min_ctas"
MAX_WARPS_PER_SM = 64
MAX_CTAS_PER_SM = 32


def target_warps() -> int:
    """Resident warps per SM asked for a gather kernel (0: none): ``TILEORCH_GATHER_WARPS`` when it
    is a number in [0, 64], else :data:`DEFAULT_WARPS`."""
    value = settings.integer(ENV)
    return DEFAULT_WARPS if value is None else value


def min_ctas(threads: int) -> int | None:
    """CTAs of ``threads`` threads to ask ptxas to keep resident per SM for the target warps, or
    None where that is no more than one CTA (nothing to ask)."""
    warps = target_warps()
    if warps == 0 or threads <= 0:
        return None
    n = min(warps * 32 // threads, MAX_CTAS_PER_SM)
    return n if n >= 2 else None


__all__ = ["ATTR", "DEFAULT_WARPS", "ENV", "min_ctas", "target_warps"]
