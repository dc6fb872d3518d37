"""Draw schedules: one row per CTA, K iterations on x, one colour per output tile.

Pieces that exchange partial accumulators (fix-up) are hatched; the piece that finishes a split
tile (waits for the partials, then runs the epilogue) has a thick black edge; separate-reduction
units are black crosses.  Needs matplotlib (imported lazily).
"""

from __future__ import annotations

import numpy as np

from .streamk_work import Schedule
from .summary import ScheduleSummary


def plot_schedules(panels: list[tuple[str, Schedule, ScheduleSummary]], path: str) -> None:
    """Write one panel per ``(title, schedule, summary)`` side by side to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    cmap = ListedColormap(plt.get_cmap("tab20").colors + plt.get_cmap("tab20b").colors)
    height = max(3.0, min(24.0, 0.06 * max(s.num_ctas for _t, s, _m in panels) + 1.5))
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), height), squeeze=False, sharey=True)
    for ax, (title, s, summ) in zip(axes[0], panels):
        _draw(ax, s, cmap)
        ax.set_title(f"{title}\n{summ.ctas} CTAs, {summ.units} units, busiest CTA "
                     f"{summ.busiest_cta_k_iterations} K-iters, balance {summ.balance:.3f}", fontsize=9)
        ax.set_xlabel("K iterations")
    axes[0][0].set_ylabel("CTA (launch order)")
    axes[0][0].invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _draw(ax, s: Schedule, cmap) -> None:
    kt = s.params.k_tiles_per_output_tile
    cta = s.cta_of_item()
    x0 = np.zeros(len(cta), np.int64)
    for c in range(s.num_ctas):
        lo, hi = s.cta_ptr[c], s.cta_ptr[c + 1]
        x0[lo:hi] = np.concatenate(([0], np.cumsum(s.k_tile_count[lo:hi])[:-1])) if hi > lo else []
    split = (s.k_tile_count != kt) & (s.k_tile_count > 0)
    final = split & (s.k_idx + s.k_tile_count == kt)
    colours = cmap(s.tile_idx % cmap.N)
    ax.barh(cta, s.k_tile_count, left=x0, height=0.8, color=colours, linewidth=0)
    ax.barh(cta[split], s.k_tile_count[split], left=x0[split], height=0.8, fill=False, hatch="///",
            linewidth=0, edgecolor="black")
    ax.barh(cta[final], s.k_tile_count[final], left=x0[final], height=0.8, fill=False, linewidth=1.2,
            edgecolor="black")
    red = s.is_separate_reduction
    if red.any():
        ax.scatter(x0[red], cta[red], marker="x", color="black", s=12)
    ax.set_xlim(0, max(1, int((x0 + s.k_tile_count).max(initial=1))))
