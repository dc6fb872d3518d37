"""The chained kernel's accumulator tile stored transposed: ``ct.store(OT, (.., 0, qt), ct.transpose(o).reshape(
(1, D, BM)))`` writes the ``[dv, tm]`` transpose of the ``[tm, dv]`` epilogue value (O stored ``[BH, D, S]``).

:func:`transposed_tile` says whether a store is one: its tile, read through layout changes and reshapes that
only add or drop unit dimensions (``expand_dims`` included) and casts, is a 2-D ``nv_tileaa.permute`` (``[1, 0]``) of a
``[rows, dv]`` tile.
:func:`store_dims` gives the stored tile's dimension of the accumulator's rows and of its columns: for a plain
store the one wide dimension before the last (or the next-to-last) and the last; for a transposed one the
other way round.  The epilogue then evaluates each of the thread's accumulator elements (row, col) at the
stored tile's (.., col, row) (the permute maps them back to the value's own register) and stores it element
by element, predicated on the bounds (no packed column pairs: a row's neighbouring columns are a stride apart
in memory).  Contract: nothing here changes IR."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tileorch.transforms.tileas.epilogue import EXPANDS, LAYOUT_ONLY


def _wide(shape: list[int]) -> list[int]:
    return [x for x in shape if x != 1]


def _permute_under(v: SSAValue) -> Operation | None:
    """The ``nv_tileaa.permute`` ``v`` is read from through layout changes and unit-dimension reshapes, or None."""
    while isinstance(v.owner, Operation):
        op = v.owner
        if op.name in LAYOUT_ONLY or op.name in EXPANDS or op.name == "nv_tileaa.fp_to_fp":
            v = op.operands[0]  # (an expand_dims adds a unit dimension; a cast after the transpose is elementwise)
        elif op.name == "nv_tileaa.reshape" and \
                _wide(list(op.operands[0].type.get_shape())) == _wide(list(op.results[0].type.get_shape())):
            v = op.operands[0]
        elif op.name == "nv_tileaa.permute":
            return op
        else:
            return None
    return None


def transposed_tile(store: Operation, rows: int, dv: int) -> bool:
    """Whether ``store`` (a ``tiled_store``) writes the transpose of a ``[rows, dv]`` tile: its tile a 2-D
    ``[1, 0]`` permute of one (through layout changes and unit-dimension reshapes), itself ``[dv, rows]`` without
    its unit dimensions."""
    op = _permute_under(store.tile)
    if op is None or list(op.permutation.get_values()) != [1, 0]:
        return False
    src = list(op.operands[0].type.get_shape())
    return src == [rows, dv] and _wide(list(store.tile.type.get_shape())) == _wide([dv, rows])


def store_dims(store: Operation, transposed: bool) -> tuple[int, int]:
    """(the stored tile's dimension of the accumulator's rows, that of its columns): the one dimension before the
    last with an extent other than 1 (the next-to-last when there is none or several) and the last; swapped for a
    transposed store."""
    shape = list(store.tile.type.get_shape())
    wide = [i for i, x in enumerate(shape[:-1]) if x != 1]
    r, c = (wide[0] if len(wide) == 1 else len(shape) - 2), len(shape) - 1
    return (c, r) if transposed else (r, c)
