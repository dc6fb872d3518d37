"""At most ``N`` resident CTAs per SM for a SIMT kernel, by the shared memory each asks for (a switch for measuring).

A memory-bound kernel that reads its row twice (a log-softmax: a max / sum-of-exp pass, then ``x - lse``) finds
the row in L2 the second time only when the bytes read between the two reads fit in L2, and those are the
resident rows times a row's bytes: 2112 resident 64 KB rows (16 CTAs of 128 threads on 132 SMs) are 138 MB
against the H200's 50 MB, so the second pass reads DRAM again.  ``TILEORCH_SIMT_CTAS_PER_SM=N`` (default
unset: no cap) gives every CTA ``SMEM_PER_SM // N - CTA_RESERVED`` bytes of shared memory less one
:data:`GRANULE`, rounded down to one (at least what its exchanges need; as dynamic shared memory, sized at
launch), so no more than ``N`` fit an SM; with
``TILEORCH_PREFETCH_DEPTH`` the fewer CTAs keep as many bytes in flight.  No instruction changes.  The kernel
records ``N`` in :data:`ATTR` (the driver's remark); read at each compile (part of the disk-cache key)."""

from __future__ import annotations

from tileorch import settings

ENV = "TILEORCH_SIMT_CTAS_PER_SM"
ATTR = "tileorch.ctas_per_sm"
SMEM_PER_SM = {90: 228 * 1024, 100: 228 * 1024, 80: 164 * 1024, 87: 164 * 1024}
"""Shared memory of one SM by compute capability (major * 10 + minor); others :data:`DEFAULT_SMEM_PER_SM`."""
DEFAULT_SMEM_PER_SM = 100 * 1024
CTA_RESERVED = 1024
"""Shared memory the hardware keeps per resident CTA (sm_80 and later)."""
GRANULE = 128


def cap() -> int | None:
    """``TILEORCH_SIMT_CTAS_PER_SM`` (1 to 32), or None (no cap)."""
    return settings.integer(ENV)


def reserve(sm: int | None, needed: int) -> int:
    """Bytes of shared memory a CTA asks for so that at most :func:`cap` fit one SM of compute capability
    ``sm`` (``None``: sm_90), never fewer than ``needed``; ``needed`` when there is no cap."""
    n = cap()
    if n is None:
        return needed
    per_sm = SMEM_PER_SM.get(sm if sm is not None else 90, DEFAULT_SMEM_PER_SM)
    want = (per_sm // n - CTA_RESERVED - GRANULE) // GRANULE * GRANULE  # a granule short: N fit, N + 1 do not
    return max(needed, want)


__all__ = ["ATTR", "CTA_RESERVED", "ENV", "GRANULE", "SMEM_PER_SM", "cap", "reserve"]
