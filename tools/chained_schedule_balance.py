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
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from tileorch.schedulers import chained_balance  # noqa: E402


# the model's core is host math the launcher uses (launchers/cutile.py chained_ctas)
instance, dealt, loads = chained_balance.instance, chained_balance.dealt, chained_balance.loads


def greedy(gx: int, heads: int, ctas: int, overhead: float, order: str = "round_robin") -> float:
    """The makespan of one CTA per instance dispatched in ``order`` to the CTA slot free first."""
    slots = [0.0] * ctas
    for w in range(gx * heads):
        _, t = instance(order, w, gx, heads)
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
    print(f"{'seq':>6s} {'heads':>5s} " + " ".join(f"{o:>16s}" for o in orders) + f" {'greedy':>8s} {'g_snake':>8s}"
          "   (busiest CTA / mean of the persistent kernel; heads per round; one CTA per instance: heaviest first "
          "over the grid, head after head; the launcher's choice)")
    for seq in (int(x) for x in ns.seqs.split(",")):
        gx, heads = seq // ns.tile, max(1, ns.tokens // seq)
        per = loads("round_robin", gx, heads, ns.ctas, ns.overhead)
        mean = sum(per) / len(per)
        cells = []
        for o in orders:
            busiest = max(loads(o, gx, heads, ns.ctas, ns.overhead)) / mean
            cells.append(f"{busiest:.3f} ({round_heads(o, gx, heads, ns.ctas):3d})")
        g = greedy(gx, heads, ns.ctas, ns.launch_overhead) / mean
        gs = greedy(gx, heads, ns.ctas, ns.launch_overhead, "snake") / mean
        ctas, _ = chained_balance.persistent_ctas("snake", gx, heads, ns.ctas)
        print(f"{seq:6d} {heads:5d} " + " ".join(f"{c:>16s}" for c in cells) + f" {g:8.3f} {gs:8.3f}  G={ctas}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
