"""``tileas-assign-load-store-layouts``: copy atoms for tiled loads and stores, and register
layouts for every tile still unassigned.

* A ``tiled_load`` on the placeholder atom becomes a TMA load (``#nv_tileas.sm_tma_load<box>``,
  the tile lands in swizzled shared memory) when the target has TMA (sm_90+), ``allow_tma`` is
  not false, the padding is zero, the memory semantic is weak, the view's innermost stride is 1
  and a box exists (inner box a multiple of 16 bytes, rank <= 5).  If every user converts the
  tile to one shared-memory layout, the load takes that layout directly (the converts vanish),
  otherwise it gets the swizzle that fits its rows and a ``convert_layout`` serves the users.
  Else it is an ``ldg<v>`` (16 bytes per thread) into a blocked register layout.
* A ``tiled_store`` likewise becomes a TMA store from shared memory (a ``convert_layout`` stages
  the register tile there) or an ``stg<v>`` from registers.
* Every tile still in ``#nv_tileas.layout<reg>`` gets ``blocked`` over the kernel's worker warps.

On the SIMT route (an ``nv_tileaa.func`` not converted to ``nv_tileas``: kernels without a dot,
lowered by ``convert-nv-tileaa-to-simt``) the pass decides the register layouts instead
(``simt_layouts.py``): threads per CTA, 16-byte runs coalesced along the view's contiguous
dimension, one ``#nv_tileaa.blocked`` per tile shape, attached to the function, its loads,
stores, reductions and scans, and (with the source's layout where it differs) its reshapes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import copy_location
from tileorch.lazy_import import lazy_module
from tileorch.transforms.tileas.common import retype_values, set_type, targeted_functions
from tileorch.transforms.tileas.layouts import blocked_layout, smem_layout, tma_box, with_layout
from tileorch.transforms.tileas.simt_layouts import assign_simt_layouts, is_simt_function

ts = lazy_module("tileorch.dialects.nv_tileas_tile")  # the tier's dialect: not imported on the SIMT route


def _tma_ok(op: Operation, sm: int) -> bool:
    if sm < 90:
        return False
    allow = op.properties.get("allow_tma")
    if allow is not None and not allow.value.data:
        return False
    pad = op.properties.get("padding_value")
    if pad is not None and pad.value.data != "zero":
        return False
    sem = op.attributes.get("mem_semantic")
    if sem is not None and sem.value.data != "weak":
        return False
    strides = op.view.type.memref.get_strides()
    return strides[-1] == 1


def _vec(t: TensorType, contiguous: bool) -> int:
    if not contiguous:
        return 1
    bits = ts.bit_width(t.element_type)
    v = max(1, 128 // bits)
    inner = t.get_shape()[-1]
    while v > 1 and inner % v:
        v //= 2
    return min(v, 16)


def assign_load(op: ts.TiledLoadOp, sm: int, warps: int) -> None:
    t = op.result.type
    assert isinstance(t, TensorType)
    plain = TensorType(t.element_type, t.get_shape())
    if _tma_ok(op, sm):
        users = [u.operation for u in op.result.uses]
        targets = {u.result.type.encoding for u in users if isinstance(u, ts.ConvertLayoutOp)}
        wanted = next(iter(targets)) if len(targets) == 1 and len(users) == len(
            [u for u in users if isinstance(u, ts.ConvertLayoutOp)]) else None
        lay = wanted if isinstance(wanted, ts.LayoutAttr) and wanted.kind == "smem" else smem_layout(plain)
        box = tma_box(plain, lay)
        if box is not None:
            op.atom = ts.TmaLoadAtomAttr(box)
            _retype_result(op, with_layout(plain, lay))
            return
    contiguous = op.view.type.memref.get_strides()[-1] == 1
    op.atom = ts.LdgAtomAttr(_vec(plain, contiguous))
    _retype_result(op, with_layout(plain, blocked_layout(plain.get_num_dims(), warps)))


def _retype_result(op: Operation, new_t: TensorType) -> None:
    """Give ``op`` result type ``new_t``; users see the old type through a convert_layout
    (or directly when they are converts to ``new_t``)."""
    res = op.results[0]
    old_t = res.type
    if old_t == new_t:
        return
    set_type(res, new_t)
    back = None
    for use in list(res.uses):
        user = use.operation
        if isinstance(user, ts.ConvertLayoutOp) and user.result.type == new_t:
            user.result.replace_all_uses_with(res)
            Rewriter.erase_op(user)
            continue
        if isinstance(user, ts.ConvertLayoutOp):
            continue  # a convert to another layout: it now converts from new_t
        if back is None:
            back = ts.ConvertLayoutOp(res, old_t)
            copy_location(op, [back])
            Rewriter.insert_op(back, InsertPoint.after(op))
        user.operands[use.index] = back.result


def assign_store(op: ts.TiledStoreOp, sm: int, warps: int) -> None:
    t = op.tile.type
    plain = TensorType(t.element_type, t.get_shape())
    if _tma_ok(op, sm):
        lay = smem_layout(plain)
        box = tma_box(plain, lay)
        if box is not None:
            cvt = ts.ConvertLayoutOp(op.tile, with_layout(plain, lay))
            copy_location(op, [cvt])
            Rewriter.insert_op(cvt, InsertPoint.before(op))
            op.operands = [op.view, cvt.result, *op.indices]
            op.atom = ts.TmaStoreAtomAttr(box)
            return
    contiguous = op.view.type.memref.get_strides()[-1] == 1
    op.atom = ts.StgAtomAttr(_vec(plain, contiguous))


def default_register_layouts(func: Operation, warps: int) -> None:
    """Every tile still on the ``reg`` placeholder gets a blocked layout over ``warps``."""
    def fix(t):
        lay = ts.layout_of(t)
        if lay is not None and lay.is_unassigned():
            d = lay.as_dict()
            return with_layout(t, blocked_layout(t.get_num_dims(), warps, d.get("cta")))
        return t
    retype_values(func, fix)
    from xdsl.dialects.builtin import FunctionType
    ft = func.properties.get("function_type")
    if isinstance(ft, FunctionType):
        func.properties["function_type"] = FunctionType.from_lists(
            [fix(t) for t in ft.inputs.data], [fix(t) for t in ft.outputs.data])


@dataclass(frozen=True)
class AssignLoadStoreLayouts(ModulePass):
    """Copy atoms (TMA where possible) for tiled loads/stores; blocked layouts elsewhere (on the
    SIMT route: ``#nv_tileaa.blocked`` attributes, :func:`assign_simt_layouts`)."""

    name = "tileas-assign-load-store-layouts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func, sm, warps in targeted_functions(op):
            if is_simt_function(func):
                assign_simt_layouts(func)
                continue
            for o in list(func.walk()):
                if isinstance(o, ts.TiledLoadOp) and isinstance(o.atom, ts.UnknownCopyAtomAttr):
                    assign_load(o, sm, warps)
                elif isinstance(o, ts.TiledStoreOp) and isinstance(o.atom, ts.UnknownCopyAtomAttr):
                    assign_store(o, sm, warps)
            default_register_layouts(func, warps)
