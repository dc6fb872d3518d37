"""``tileorch.cutile.launch(stream, grid, kernel, args)``: run a cuTile kernel (a
``@cuda.tile.kernel`` function) through tileorch instead of tileiras, with the arguments
``cuda.tile.launch`` takes.  See :mod:`tileorch.launchers.cutile`; importing this module needs
neither a GPU nor cuda.tile."""

from __future__ import annotations

from typing import Any


def launch(stream: Any, grid: Any, kernel: Any, args: Any, *, arch: str = "sm_90a", schedule: str = "auto",
           sync: bool = False, tiles: str = "auto") -> None:
    """Compile ``kernel`` for ``args`` with tileorch (cached) and launch it on ``stream``
    (``schedule``/``tiles``: see :func:`tileorch.launchers.cutile.launch`)."""
    from tileorch.launchers.cutile import launch as _launch

    _launch(stream, grid, kernel, args, arch=arch, schedule=schedule, sync=sync, tiles=tiles)


__all__ = ["launch"]
