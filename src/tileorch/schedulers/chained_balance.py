"""Host math of the persistent chained (attention) kernel's dealing: how evenly it spreads a grid whose
instances' work grows along one axis (causal attention's query tiles) over its CTAs, and from that how
many CTAs a launch gets.

The model (a model, not a measurement).  The program's grid has ``heavy`` instances along its
heavy-first axis (``record["heavy_first"]``: query tiles) and ``rest`` along the others (batch x heads).
The instance at position ``t`` of the heavy axis (0 the lightest) costs ``t + 1`` units (causal
attention with square tiles: query tile ``t`` runs ``t + 1`` key tiles) plus ``overhead`` units per
instance (its Q load, epilogue and store).  A persistent kernel of ``G`` CTAs runs round ``r`` =
instances ``[r G, r G + n_r)`` (``n_r = min(G, total - r G)``): CTA ``b`` takes ``r G + b``, or under a
snake schedule in odd rounds ``r G + n_r - 1 - b``.  The linear instance ``w`` is a (``rest`` index,
heavy position) pair in one of the orders of ``_WorkTiles`` (transforms/tileas/chained_dots.py), the
heavy position always reversed (heaviest first):

- ``round_robin`` / ``snake_lpt``: the heavy axis slowest (every head's heaviest tile first);
- ``snake``: the heavy axis fastest (one head's query tiles in a row; what the one-CTA-per-instance
  kernel's launch order is too, the heavy axis being ``x``).

:func:`busiest_over_mean` is the busiest CTA's work over the mean; :func:`persistent_ctas` picks the
launch's CTA count from it: the SM count when the dealing is balanced (at most
:data:`IMBALANCE_LIMIT`), else one CTA per instance (``G = total``: every CTA runs round 0 only, the
instance ``w = b``, so the CTAs take the order's instances in their launch order).  On the H200
(2026-12-04, benchmarks/session19_attn_probe.sh, causal fp16, 128x128 tiles, 132 SMs) the snake
dealing was 1.06-1.24x the one-CTA-per-instance kernel at 1k and 4k (modelled 1.03) and 0.70x at 16k
(modelled 1.47).
"""

from __future__ import annotations

from functools import lru_cache

ORDERS = ("round_robin", "snake", "snake_lpt")
IMBALANCE_LIMIT = 1.05
"""The busiest CTA's modelled work over the mean above which a launch runs one CTA per instance."""
OVERHEAD = 1.0
"""Per-instance work beside the key tiles, in key tiles (the model's default)."""


def instance(order: str, w: int, heavy: int, rest: int) -> tuple[int, int]:
    """(``rest`` index, heavy position) of linear instance ``w`` (``0 <= w < heavy * rest``) in
    ``order``; heavy position ``heavy - 1`` (the heaviest) comes first."""
    if order == "snake":
        return w // heavy, heavy - 1 - w % heavy
    return w % rest, heavy - 1 - w // rest


def dealt(w0: int, it: int, b: int, ctas: int, total: int, backwards: bool) -> int:
    """The instance CTA ``b`` of ``ctas`` runs in its round ``it`` (``w0 = b + it * ctas < total``):
    ``w0``, or with ``backwards`` (the snake schedules) in odd rounds ``it ctas + n - 1 - b``,
    ``n = min(ctas, total - it ctas)``.  Each round is a bijection of ``[it ctas, it ctas + n)``."""
    if not backwards or it % 2 == 0:
        return w0
    base = w0 - b
    return base + min(ctas, total - base) - 1 - b


def loads(order: str, heavy: int, rest: int, ctas: int, overhead: float = OVERHEAD) -> list[float]:
    """Each CTA's modelled work (units of key tiles) under ``order`` with ``ctas`` CTAs."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, got {order!r}")
    if heavy < 1 or rest < 1 or ctas < 1:
        raise ValueError(f"heavy, rest and ctas must be positive, got {heavy}, {rest}, {ctas}")
    total = heavy * rest
    out = []
    for b in range(ctas):
        work, it, w0 = 0.0, 0, b
        while w0 < total:
            _, t = instance(order, dealt(w0, it, b, ctas, total, order != "round_robin"), heavy, rest)
            work += t + 1 + overhead
            it, w0 = it + 1, w0 + ctas
        out.append(work)
    return out


@lru_cache(maxsize=256)
def busiest_over_mean(order: str, heavy: int, rest: int, ctas: int, overhead: float = OVERHEAD) -> float:
    """The busiest CTA's modelled work over the mean of the ``ctas`` CTAs (>= 1; 1: perfectly
    balanced).  Cached: a launch asks once per grid."""
    per = loads(order, heavy, rest, ctas, overhead)
    return max(per) * len(per) / sum(per)


def persistent_ctas(order: str, heavy: int, rest: int, sms: int,
                    limit: float = IMBALANCE_LIMIT) -> tuple[int, float | None]:
    """(CTAs to launch, the modelled busiest / mean at ``sms`` CTAs or None when not modelled) for a
    persistent kernel dealing ``heavy * rest`` instances in ``order`` on a device of ``sms`` SMs:
    ``min(sms, total)`` when the ratio is at most ``limit``, else ``total`` (one CTA per instance)."""
    total = heavy * rest
    if total <= sms:
        return total, None
    ratio = busiest_over_mean(order, heavy, rest, sms)
    return (sms if ratio <= limit else total), ratio


__all__ = ["IMBALANCE_LIMIT", "ORDERS", "OVERHEAD", "busiest_over_mean", "dealt", "instance", "loads",
           "persistent_ctas"]
