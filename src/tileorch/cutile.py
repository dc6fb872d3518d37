"""``tileorch.cutile.launch(stream, grid, kernel, args)``: run a cuTile kernel (a
``@cuda.tile.kernel`` function) through tileorch instead of tileiras, with the arguments
``cuda.tile.launch`` takes.  See :mod:`tileorch.launchers.cutile`; importing this module needs
neither a GPU nor cuda.tile.  ``synchronize(stream, timeout_s=None)`` waits for the queued
kernels with the hang watchdog (``KernelHang`` instead of a wait that never ends).

``launch`` is :func:`tileorch.launchers.cutile.launch` itself (no wrapper: a repeated call's
host time is that function's, issue 22; a wrapper importing the launcher at each call cost
~9k instructions per call, ``benchmarks/launch_instructions.py``)."""

from __future__ import annotations

from tileorch.launchers.cutile import launch, synchronize

__all__ = ["launch", "synchronize"]
