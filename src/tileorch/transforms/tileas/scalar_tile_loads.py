"""``tileas-scalar-tile-loads``: a one-element tile load read as a scalar (``ct.load(Table, index=(b, j),
shape=(1, 1)).item()``: a paged KV cache's page number read from its block table) that another tile
load's indices depend on, inside a dot loop, becomes the scalar load ``ct.gather(Table, (b, j))`` spells.

cuTile exports ``.item()`` of a ``(1, .., 1)`` tile as ``nv_tileaa.extract`` of an
``nv_tileaa.tiled_load``; the tier's producer agent replays scalar reads (``nv_tileaa.load`` of one
element, the pointer offset it reads through, integer casts: ``materialize_schedule._scalar_read``)
to compute a TMA coordinate, but not a tile load, so such a program was refused ("a TMA load
depends on 'nv_tileas.tiled_load', which the producer agent cannot replay") and ran on the SIMT path.

Matched: ``%t = tiled_load %view[%i...]`` whose result type has every extent 1, whose view is a
``block_tile`` of a ``make_memref`` with unit tiles in the identity order, whose padding is zero (or
unset), whose tile results are read only by ``extract`` ops, in the body of an ``scf.for`` holding a
dot, where some ``extract``'s scalar reaches (through side-effect-free scalar ops) the indices of
another ``tiled_load`` of that body.  Rewritten, as ``convert-cudatile-to-tileaa`` lowers a gather::

    %ok  = and_d (extsi(%i_d) ult extsi(extent_d))     (tile index = element index: unit tiles)
    %off = sum_d extsi(%i_d) * extsi(stride_d)
    %v, %tok = nv_tileaa.load offset(%ptr, %off) mask %ok other 0 [token, memory order as the load's]

and each ``extract`` reads ``%v``: the same element where it is in bounds, zero where it is not (the
tile load's zero padding); the SIMT path's clone is untouched (the driver clones before the tier).
Loads whose scalar feeds no tile index are left as they were (their kernels' PTX is unchanged).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, TensorType, i1, i64
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import copy_location
from tileorch.dialects.nv_tileaa.attrs import DYNAMIC, ints
from tileorch.dialects.nv_tileaa.ops import (AddIOp, BlockTileOp, ExtractOp, MakeMemrefOp, MulIOp, TiledLoadOp)
from tileorch.dialects.nv_tileaa.pointer_ops import LoadOp, OffsetOp
from tileorch.transforms.pass_kinds import ModuleTransform

_SCALAR_OPS = ("arith.", "nv_tileaa.assume", "nv_tileaa.addi", "nv_tileaa.subi", "nv_tileaa.muli",
               "nv_tileaa.divi", "nv_tileaa.remi", "nv_tileaa.maxi", "nv_tileaa.mini", "nv_tileaa.extract")


def _memref(ld: TiledLoadOp) -> MakeMemrefOp | None:
    view = ld.view.owner
    if not isinstance(view, BlockTileOp) or not isinstance(view.memref.owner, MakeMemrefOp):
        return None
    vt = view.result.type
    if any(s != 1 for s in [*vt.tile_shape(), *ints(vt.step)]) or ints(vt.order) != list(range(len(vt.order))):
        return None
    return view.memref.owner


def _one_element(ld: Operation) -> bool:
    if not isinstance(ld, TiledLoadOp) or not isinstance(ld.result.type, TensorType):
        return False
    if any(s != 1 for s in ld.result.type.get_shape()) or _memref(ld) is None:
        return False
    pad = ld.padding_value
    if pad is not None and pad.data not in ("zero",):
        return False
    return bool(ld.result.uses) and all(isinstance(u.operation, ExtractOp) for u in ld.result.uses)


def _feeds_tile_index(ld: TiledLoadOp, body) -> bool:
    """Some scalar extracted from ``ld`` reaches another tile load's indices in ``body``."""
    seen: set[SSAValue] = set()
    work = [u.operation.results[0] for u in ld.result.uses]
    targets = {id(v) for o in body.ops if isinstance(o, TiledLoadOp) and o is not ld for v in o.indices}
    while work:
        v = work.pop()
        if v in seen or isinstance(v.type, TensorType):
            continue
        seen.add(v)
        if id(v) in targets:
            return True
        for u in v.uses:
            op = u.operation
            if op.parent_block() is body and op.name.startswith(_SCALAR_OPS):
                work.extend(op.results)
    return False


def _extents(values: list[SSAValue], static: list[int], rw: Rewriter, at: InsertPoint, loc_op) -> list[SSAValue]:
    out, it = [], iter(values)
    for s in static:
        if s == DYNAMIC:
            out.append(next(it))
        else:
            c = arith.ConstantOp(IntegerAttr(s, i64))
            copy_location(loc_op, [c])
            rw.insert_op(c, at)
            out.append(c.result)
    return out


def _i64(v: SSAValue, rw: Rewriter, at: InsertPoint, loc_op) -> SSAValue:
    if v.type == i64:
        return v
    op = arith.ExtSIOp(v, i64)
    copy_location(loc_op, [op])
    rw.insert_op(op, at)
    return op.result


def rewrite(ld: TiledLoadOp) -> None:
    mm = _memref(ld)
    assert mm is not None
    mt = mm.result.type
    rw = Rewriter()
    at = InsertPoint.before(ld)

    def emit(op):
        copy_location(ld, [op])
        rw.insert_op(op, at)
        return op

    shape = _extents(list(mm.shape), list(mt.get_shape()), rw, at, ld)
    strides = _extents(list(mm.strides), list(mt.get_strides()), rw, at, ld)
    ok: SSAValue | None = None
    off: SSAValue | None = None
    for idx, ext, st in zip(ld.indices, shape, strides):
        i = _i64(idx, rw, at, ld)
        inb = emit(arith.CmpiOp(i, _i64(ext, rw, at, ld), "ult")).result
        ok = inb if ok is None else emit(arith.AndIOp(ok, inb)).result
        term = emit(MulIOp(i, _i64(st, rw, at, ld))).result
        off = term if off is None else emit(AddIOp(off, term)).result
    assert ok is not None and off is not None
    elem = ld.result.type.element_type
    zero = emit(arith.ConstantOp(IntegerAttr(0, elem)) if isinstance(elem, IntegerType)
                else arith.ConstantOp.from_float_and_width(0.0, elem)).result
    ptr = emit(OffsetOp(mm.ptr, off)).result
    new = LoadOp(ptr, elem, mask=ok, other=zero, token=ld.token)
    for prop in ("mem_semantic", "mem_scope"):
        if prop in ld.properties:
            new.properties[prop] = ld.properties[prop]
    emit(new)
    for u in list(ld.result.uses):
        ex = u.operation
        ex.results[0].replace_all_uses_with(new.result)
        rw.erase_op(ex)
    ld.result_token.replace_all_uses_with(new.result_token)
    rw.erase_op(ld)


def scalar_tile_loads(module: ModuleOp) -> int:
    """Rewrite the matched loads of ``module`` (module doc); the number rewritten."""
    found = []
    for loop in module.walk():
        if not isinstance(loop, scf.ForOp) or not any(o.name == "nv_tileaa.dot" for o in loop.walk()):
            continue
        body = loop.body.block
        found += [o for o in body.ops if _one_element(o) and _feeds_tile_index(o, body)]
    for ld in found:
        rewrite(ld)
    return len(found)


class ScalarTileLoads(ModuleTransform):
    """One-element tile loads feeding tile indices in a dot loop become scalar loads (module doc)."""

    name = "tileas-scalar-tile-loads"
    transform = staticmethod(scalar_tile_loads)


__all__ = ["ScalarTileLoads", "rewrite", "scalar_tile_loads"]
