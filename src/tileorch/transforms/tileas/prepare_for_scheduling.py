"""``tileas-prepare-for-scheduling`` (seed 003, D20): six serial stages per function.

1. ``decomposeTiledLoadStoreView``: TMA tiled loads/stores must read a view made by
   ``block_tile`` directly, with weak memory semantics and at most 5 dimensions (tileiras'
   diagnostics: "tiled_load's tiled_view type must be produced by block_tile directly",
   "memory semantic must be weak for TMA operations", "tensor_view rank exceeds 5-dimension
   limit");
2. ``refineVecSizeOfAtoms``: per-thread copy atoms (``ldg``, ``stg``, ``lds``, ``sts``) get
   the widest vector the contiguous extent allows: 16 bytes a thread (``ld.global.v4.b32`` /
   ``v8.b16``), 32 bytes from sm_100 on;
3. ``sliceAndFuse``: loops marked ``sliceCount`` are sliced (``tileas-slicing``);
4. ``runCanonicalizer``: identity ``convert_layout`` ops and dead pure ops go;
5. ``compactMemLayout``: a shared-memory layout whose swizzle span does not fit its rows is
   narrowed to the widest one that does;
6. ``refreshBoxDim``: every TMA load/store gets its box recomputed from its (per-CTA) tile and
   final layout (a box that no longer matches traps on sm_100+).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import is_side_effect_free

from tileorch.diagnostics import LocatedError
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.transforms.tileas.common import functions, retype_values, target_sm
from tileorch.transforms.tileas.layouts import choose_swizzle, tma_box
from tileorch.transforms.tileas.slicing import run_slicing

STAGES = ("decomposeTiledLoadStoreView", "refineVecSizeOfAtoms", "sliceAndFuse", "runCanonicalizer",
          "compactMemLayout", "refreshBoxDim")
VEC_ATOMS = (ts.LdgAtomAttr, ts.StgAtomAttr, ts.LdsAtomAttr, ts.StsAtomAttr)


def _tma(op: Operation) -> bool:
    return isinstance(op, ts.TiledLoadOp | ts.TiledStoreOp) and isinstance(op.atom, ts.TmaLoadAtomAttr | ts.TmaStoreAtomAttr)


def _tile_type(op: Operation) -> TensorType:
    return op.result.type if isinstance(op, ts.TiledLoadOp) else op.tile.type


def decompose_views(func: Operation, warps: int) -> None:
    for op in list(func.walk()):
        if not _tma(op):
            continue
        sem = op.attributes.get("mem_semantic")
        if sem is not None and sem.value.data != "weak":
            raise LocatedError(op, "memory semantic must be weak for TMA operations")
        if op.view.type.memref.rank() > 5:
            raise LocatedError(op, "tensor_view rank exceeds 5-dimension limit")
        if not isinstance(op.view.owner, aa.BlockTileOp):
            raise LocatedError(op, "tiled_load's tiled_view type must be produced by block_tile directly")


def refine_vec_sizes(func: Operation, sm: int) -> None:
    max_bytes = 32 if sm >= 100 else 16
    for op in func.walk():
        atom = op.properties.get("atom")
        if not isinstance(atom, VEC_ATOMS):
            continue
        t = _tile_type(op) if isinstance(op, ts.TiledLoadOp | ts.TiledStoreOp) else op.results[0].type
        if not isinstance(t, TensorType) or not t.get_shape():
            continue
        contiguous = True
        if isinstance(op, ts.TiledLoadOp | ts.TiledStoreOp):
            contiguous = op.view.type.memref.get_strides()[-1] == 1
        elem_bytes = max(1, ts.bit_width(t.element_type) // 8)
        v = 1
        if contiguous:
            v = min(16, max(1, max_bytes // elem_bytes))
            while v > 1 and t.get_shape()[-1] % v:
                v //= 2
        op.properties["atom"] = type(atom)(v)


def canonicalize(func: Operation) -> None:
    for op in list(func.walk()):
        if isinstance(op, ts.ConvertLayoutOp) and op.parent is not None and op.source.type == op.result.type:
            op.result.replace_all_uses_with(op.source)
            Rewriter.erase_op(op)
    changed = True
    while changed:
        changed = False
        for op in reversed(list(func.walk())):
            if op.parent is None or op is func or op.regions:
                continue
            if op.results and all(not r.uses for r in op.results) and is_side_effect_free(op):
                Rewriter.erase_op(op)
                changed = True


def _compact(t):
    lay = ts.layout_of(t)
    if lay is None or lay.kind != "smem" or not t.get_shape():
        return t
    sw = lay.get("swizzle") or 0
    row = t.get_shape()[-1] * ts.bit_width(t.element_type) // 8
    cta = lay.cta()
    if cta:
        row = row // cta[-1]
    if sw and row % sw:
        return TensorType(t.element_type, t.get_shape(), lay.with_(swizzle=choose_swizzle(row)))
    return t


def compact_mem_layouts(func: Operation) -> None:
    retype_values(func, _compact)


def refresh_box_dims(func: Operation) -> None:
    for op in func.walk():
        if not _tma(op):
            continue
        t = _tile_type(op)
        lay = ts.layout_of(t)
        cta = (lay.cta() if lay is not None else None) or [1] * t.get_num_dims()
        local = TensorType(t.element_type, [s // c for s, c in zip(t.get_shape(), cta)])
        box = tma_box(local, lay)
        if box is None:
            raise LocatedError(op, "smem layout is not TMA compatible")
        op.atom = type(op.atom)(box, op.atom.mcast.data)


def prepare_for_scheduling(func: Operation, sm: int) -> None:
    decompose_views(func, 4)
    refine_vec_sizes(func, sm)
    run_slicing(func)
    canonicalize(func)
    compact_mem_layouts(func)
    refresh_box_dims(func)


@dataclass(frozen=True)
class PrepareForScheduling(ModulePass):
    """View checks, vector widths, slicing, cleanup, smem layout compaction, TMA boxes."""

    name = "tileas-prepare-for-scheduling"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in functions(op):
            prepare_for_scheduling(func, target_sm(func))
