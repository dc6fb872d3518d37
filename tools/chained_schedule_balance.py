"""How evenly the chained kernel's persistent schedules spread causal attention's work over the CTAs
(a model, not a measurement): for each grid of ``benchmarks/attention_variants.py`` (``tokens / seq``
heads of ``seq / tile`` query tiles, query tile ``t`` running ``t + 1`` key tiles, plus ``--overhead``
key tiles' worth of time per instance), the busiest CTA's work over the mean, and how many heads the
instances of one round (``G`` consecutive instances, about what runs at one time) touch: their K/V
is what L2 must hold.

Orders (``_WorkTiles`` in transforms/tileas/chained_dots.py): ``round_robin`` (the persistent default:
CTA ``b`` runs ``b, b + G, ..``, every head's heaviest query tile first), ``snake`` (the heavy axis
fastest: one head's query tiles in a row, heaviest first; odd rounds dealt backwards) and ``snake_lpt``
(the round-robin order, odd rounds dealt backwards).  ``greedy`` is the one-CTA-per-instance kernel as
the hardware dispatches it (each instance, heaviest first, to the CTA slot free first), with
``--launch-overhead`` per instance.

    python3 tools/chained_schedule_balance.py [--ctas 132] [--tokens 262144] [--tile 128]
"""

from __future__ import annotations

import argparse
import heapq


def instance(order: str, w: int, gx: int, heads: int) -> tuple[int, int]:
    """(head, query tile) of instance ``w`` in ``order``."""
    if order == "snake":
        return w // gx, gx - 1 - w % gx
    return w % heads, gx - 1 - w // heads


def dealt(w0: int, it: int, b: int, ctas: int, total: int, snake: bool) -> int:
    """The instance CTA ``b`` runs in its round ``it`` (``w0 = b + it * ctas``)."""
    if not snake or it % 2 == 0:
        return w0
    base = w0 - b
    return base + min(ctas, total - base) - 1 - b


def loads(order: str, gx: int, heads: int, ctas: int, overhead: float) -> list[float]:
    total = gx * heads
    out = []
    for b in range(ctas):
        work, it, w0 = 0.0, 0, b
        while w0 < total:
            _, t = instance(order, dealt(w0, it, b, ctas, total, order != "round_robin"), gx, heads)
            work += t + 1 + overhead
            it, w0 = it + 1, w0 + ctas
        out.append(work)
    return out


def greedy(gx: int, heads: int, ctas: int, overhead: float) -> float:
    slots = [0.0] * ctas
    for w in range(gx * heads):
        _, t = instance("round_robin", w, gx, heads)
        heapq.heappush(slots, heapq.heappop(slots) + t + 1 + overhead)
    return max(slots)


def round_heads(order: str, gx: int, heads: int, ctas: int) -> int:
    total = gx * heads
    return max(len({instance(order, w, gx, heads)[0] for w in range(s, min(total, s + ctas))})
               for s in range(0, total, ctas))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ctas", type=int, default=132)
    ap.add_argument("--tokens", type=int, default=262144)
    ap.add_argument("--tile", type=int, default=128)
    ap.add_argument("--seqs", default="1024,2048,4096,8192,16384")
    ap.add_argument("--overhead", type=float, default=1.0, help="per instance, persistent (key tiles)")
    ap.add_argument("--launch-overhead", type=float, default=2.5, help="per instance, one CTA each (key tiles)")
    ns = ap.parse_args(argv)
    orders = ("round_robin", "snake", "snake_lpt")
    print(f"{'seq':>6s} {'heads':>5s} " + " ".join(f"{o:>16s}" for o in orders) + f" {'greedy':>8s}"
          "   (busiest CTA / mean of the persistent kernel; heads per round)")
    for seq in (int(x) for x in ns.seqs.split(",")):
        gx, heads = seq // ns.tile, max(1, ns.tokens // seq)
        per = loads("round_robin", gx, heads, ns.ctas, ns.overhead)
        mean = sum(per) / len(per)
        cells = []
        for o in orders:
            busiest = max(loads(o, gx, heads, ns.ctas, ns.overhead)) / mean
            cells.append(f"{busiest:.3f} ({round_heads(o, gx, heads, ns.ctas):3d})")
        g = greedy(gx, heads, ns.ctas, ns.launch_overhead) / mean
        print(f"{seq:6d} {heads:5d} " + " ".join(f"{c:>16s}" for c in cells) + f" {g:8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
