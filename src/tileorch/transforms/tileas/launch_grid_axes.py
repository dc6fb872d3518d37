"""How a GEMM program's launch grid maps onto its output tiles, kept through the tier's program-id rewrites.

The tier's GEMM kernels walk the output's tile space themselves (a persistent scheduler), so the launcher must
know which programs of the user's launch grid compute which output tiles to compute exactly the tiles of the
programs launched (cuTile's rule: a program not launched stores nothing).  Before any rewrite, program id ``p``
is launch-grid axis ``p``.  The passes that rename or replace program ids (``tileas-program-loop-to-tiles``,
``tileas-column-loop-to-tiles``, ``tileas-split-batch-tiles``) update the map kept on the function in
:data:`LAUNCH_GRID_AXES`: for each program axis of the rewritten kernel (0 the output's row tiles, 1 its
column tiles, 2 its batch, as the GEMM host side walks them) the launch-grid axis it came from and the output
tiles one launched program covers along it, or

* :data:`WHOLE`: every launched program covers the whole axis (a persistent loop over the tiles written in the
  program, a loop over the column tiles, an axis of one tile): any launch grid computes all of it;
* :data:`LINEAR`: the row and column tiles are one linear program id along launch axis 0 split into
  coordinates (``pid // tiles_n``, ``pid % tiles_n`` or a grouped raster): a launch of fewer programs than
  tiles computes the first tiles of that order, which the GEMM kernel's scheduler cannot stop at (the launcher
  runs it on the SIMT path: ``launchers.user_grid.linear_refusal`` says why and how to avoid it).

The map is a ``DenseArray<i32>`` of six values: the three axes, then the three tile counts per program.
Contract: a function without the attribute has the identity map (no rewrite renumbered its program ids)."""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, i32
from xdsl.ir import Operation

LAUNCH_GRID_AXES = "tileorch.launch_grid_axes"
WHOLE = -1
LINEAR = -2
IDENTITY = ((0, 1), (1, 1), (2, 1))


def read(fn: Operation) -> list[tuple[int, int]]:
    """``[(launch axis or WHOLE or LINEAR, tiles per program)]`` of program axes 0, 1, 2 of ``fn``."""
    attr = fn.attributes.get(LAUNCH_GRID_AXES)
    if attr is None:
        return list(IDENTITY)
    v = [int(x) for x in attr.get_values()]
    return [(v[i], v[3 + i]) for i in range(3)]


def _write(fn: Operation, axes: list[tuple[int, int]]) -> None:
    if tuple(axes) == IDENTITY:
        fn.attributes.pop(LAUNCH_GRID_AXES, None)
        return
    fn.attributes[LAUNCH_GRID_AXES] = DenseArrayBase.from_list(i32, [a for a, _ in axes] + [s for _, s in axes])


def program_id_ops(fn: Operation) -> set[Operation]:
    """The ``get_program_id`` ops of ``fn`` now (taken before a rewrite, for :func:`replaced`)."""
    return {o for o in fn.walk() if o.name == "nv_tileaa.get_program_id"}


def replaced(fn: Operation, before: set[Operation], how: int = WHOLE) -> None:
    """A rewrite created program ids of ``fn`` that are not launch-grid axes (``before``: the function's
    ``get_program_id`` ops before it): each program axis a created one reads becomes ``how`` (:data:`WHOLE` or
    :data:`LINEAR`); an axis that an op from before also reads still holds launch-grid coordinates beside the
    new ones, which no map can say: :data:`LINEAR` (the launcher then refuses a launch of fewer programs than
    tiles along it: the SIMT path, with a warning; ``launchers.user_grid.covered``)."""
    axes = read(fn)
    now = program_id_ops(fn)
    new = {o.axis.value.data for o in now - before if any(True for _ in o.results[0].uses)}
    old = {o.axis.value.data for o in now & before if any(True for _ in o.results[0].uses)}
    for a in new:
        axes[a] = (LINEAR if a in old else how, 1)
    _write(fn, axes)


def covered_whole(fn: Operation, program_axes: list[int]) -> None:
    """Every launched program of ``fn`` covers the whole output along ``program_axes`` (:data:`WHOLE`)."""
    axes = read(fn)
    for a in program_axes:
        axes[a] = (WHOLE, 1)
    _write(fn, axes)


def permuted(fn: Operation, perm: dict[int, int]) -> None:
    """``fn``'s program axes renamed by ``perm`` (old axis -> new axis, a permutation of 0, 1, 2)."""
    axes = read(fn)
    out = list(axes)
    for old, new in perm.items():
        out[new] = axes[old]
    _write(fn, out)


def scaled(fn: Operation, axis: int, tiles: int) -> None:
    """Program axis ``axis`` of ``fn`` now numbers single tiles where one launched program covered ``tiles``."""
    axes = read(fn)
    a, s = axes[axis]
    axes[axis] = (a, s * tiles)
    _write(fn, axes)
