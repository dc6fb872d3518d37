"""The epilogue of a tier GEMM kernel: the tile program's own ops after the K loop, lowered
element by element in the WGMMA accumulator's register layout.

A consumer thread of warp group ``w`` holds, of the ``m64nN`` accumulator, element ``4g+2h+j`` at
tile row ``64w + 16*(t/32) + (t%32)/4 + 8h`` and column ``8g + 2*(t%4) + j`` (``t = tid % 128``,
PTX ISA "wgmma D fragment").  :class:`EpilogueLowering` evaluates the value the program stores at
each of those positions, walking the program's ops backwards from the ``tiled_store``:

* the K loop's accumulator is the fragment element itself;
* elementwise math (``nv_tileaa`` float/int ops, ``arith``), ``fp_to_fp`` and scalar operands
  (kernel arguments, constants) are scalar ops on that element (the SIMT tier's scalar math,
  :func:`tileorch.transforms.tileaa_to_simt.lower_scalar_op`);
* ``broadcast``/``expand_dims``/``reshape`` (of unit dimensions)/``permute``/``convert_layout``
  move no data: they map the element's coordinates (a broadcast dimension reads coordinate 0);
* a ``tiled_load`` (bias vectors, scales, a residual tile) is a predicated global load of the
  element at those coordinates, the view's padding value outside the array;
* a scalar pointer load (``ct.gather(alpha, 0)``: a scale read from memory) is one load, the same
  for every element.

Coordinates are tracked as :class:`Coord`: a value plus the accumulator dimension it follows.
A load dimension indexed by the same program id as the stored tile's dimension, with the same
tile extent, reads the accumulator element's *global* row/column: such an epilogue does not
depend on the tile shape, so the compiler may retile the kernel (``retile_safe``).

Side outputs that reduce an accumulator-shaped tile along one dimension (:func:`side_reduction`)
are folded here (:meth:`EpilogueLowering.fold`, the combiner, the identity for elements outside
the array) and exchanged by the caller: a row across its lane quad (:meth:`row_reduction`), a
column across lanes and warps (:mod:`tileorch.transforms.tileas.column_reduction`).  Anything
else the register layout cannot evaluate without a data exchange (a permute of the accumulator
itself) is a located "not supported yet" error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import (BFloat16Type, Float16Type, Float32Type, FloatAttr,
                                   IntegerType, TensorType, i1, i16, i32, i64)
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects.nv_tileaa.attrs import MemRefType, TiledViewType, ints
from tileorch.transforms.dense_splat import splat_value
from tileorch.lazy_import import lazy_module
# the SIMT lowering's scalar ops and views, read when a kernel needs them (issue 22: a GEMM without
# an epilogue of its own does not define the SIMT lowering)
_simt = lazy_module("tileorch.transforms.tileaa_to_simt.convert")
from tileorch.transforms.tileaa_to_simt.emit import (GLOBAL_PTR, Emitter, cmpi, float_attr, global_type, integer_attr, is_float,
                                                   memory_type, reg_type)

PASS = "convert-nv-tileas-to-cutlass"
def matrix_dims(shape: list[int]) -> tuple[int, int]:
    """(rows, columns) dimensions of a stored tile of the accumulator's elements: the columns its last dimension, the
    rows the one other dimension above extent 1 before it (a ``(rows, 1, cols)`` tile of an array batched in its
    middle dimension: 0), else the next-to-last (leading extent-1 batch dimensions read at 0)."""
    wide = [i for i, x in enumerate(shape[:-1]) if x != 1]
    return (wide[0] if len(wide) == 1 else len(shape) - 2), len(shape) - 1


LAYOUT_ONLY = ("nv_tileas.convert_layout", "nv_tileaa.assume", "nv_tileaa.pragma")
LOADS = ("nv_tileaa.tiled_load", "nv_tileas.tiled_load")
BROADCASTS = ("nv_tileaa.broadcast", "nv_tileas.broadcast")
EXPANDS = ("nv_tileaa.expand_dims", "nv_tileas.expand_dim")


ATOMIC_SINK = "nv_tileaa.atomic_rmw"

WRITE_WORDS = {
    "nv_tileaa.store": "a store at computed element indices (ct.scatter, e.g. rows un-permuted through an index "
                       "array, or a flag set per tile)",
    "nv_tileaa.atomic_cas": "an atomic compare-and-swap (ct.atomic_cas)",
    "nv_tileaa.atomic_rmw": "an atomic update (ct.atomic_add / max / min / and / or / xor / xchg)",
    "nv_tileaa.print": "a print (ct.printf / ct.print)",
    "nv_tileaa.assert": "a device assertion (ct.assert_)",
}
"""Side-effecting tile ops in the user's terms (the tensor-core lowerings' refusals name the write they cannot
lower this way, not by its IR name)."""


def truncated_from_i32(v: SSAValue) -> bool:
    """Whether the stored tile ``v`` is an ``nv_tileaa.trunci`` of an i32 tile to i8 (layout ops before
    it skipped): an 8-bit integer C whose values the epilogue computes in i32 (requantisation)."""
    while isinstance(v.owner, Operation) and v.owner.name in LAYOUT_ONLY:
        v = v.owner.operands[0]
    o = v.owner
    return (isinstance(o, Operation) and o.name == "nv_tileaa.trunci" and v.type.element_type == IntegerType(8)
            and o.operands[0].type.element_type == IntegerType(32))

def sink_tile(sink: Operation) -> SSAValue:
    """The tile a sink writes: a ``tiled_store``'s tile, or the values an ``atomic_rmw`` adds."""
    return sink.value if sink.name in (ATOMIC_SINK, "nv_tileaa.store") else sink.tile


_DOTS = ("nv_tileaa.dot", "nv_tileas.dot")
"""The dot ops: a loop holding one is a K loop (:meth:`at`'s ``scf.for``)."""


def unsupported(op: Operation, why: str) -> LocatedError:
    return LocatedError(op, f"{PASS}: not supported yet in the accumulator's register layout: the epilogue {why}")


@dataclass(frozen=True)
class Coord:
    """One coordinate of a tile element: ``value`` (i32, tile-local) and ``acc_dim``, the
    accumulator dimension (0 rows, 1 columns) it equals, or None (a constant, a broadcast)."""

    value: SSAValue
    acc_dim: int | None


@dataclass
class KernelEnv:
    """What the lowered kernel provides to the epilogue.

    ``args[i]``: the tile kernel's ``i``-th parameter in the lowered kernel; ``tile_coord[a]``: the
    work tile's coordinate along grid axis ``a`` (the program id the scheduler stands in for);
    ``origin[d]``: the accumulator tile's first global row (d = 0) / column (d = 1); ``grid[a]``:
    the launch grid's extent along axis ``a`` (``num_blocks``), when the kernel's work tiles are
    the program ids of the launch grid (a program-grid kernel), else None (not readable)."""

    args: list[SSAValue]
    tile_coord: list[SSAValue]
    origin: list[SSAValue]
    grid: list[SSAValue] | None = None


def program_axis(v: SSAValue) -> int | None:
    """The grid axis of a ``get_program_id`` (through ``assume``), else None."""
    for _ in range(16):
        owner = v.owner
        if not isinstance(owner, Operation):
            return None
        if owner.name == "nv_tileaa.get_program_id":
            return owner.axis.value.data
        if owner.name in LAYOUT_ONLY and owner.operands:
            v = owner.operands[0]
            continue
        return None
    return None


def _shape(v: SSAValue) -> list[int]:
    """``list(v.type.get_shape())`` for a tile, else ``[]`` (read straight from the type's shape
    array: the per-element lowering asks it for every broadcast on the way to each element)."""
    t = v.type
    return [d.data for d in t.shape.data] if isinstance(t, TensorType) else []


@dataclass
class EpilogueLowering:
    """Build, with ``e``, the value the program stores at one accumulator element.

    ``kernel_block``: the tile kernel's entry block (its arguments map to ``env.args``);
    ``acc``: the K loop's accumulator result; ``store``: the program's ``tiled_store`` of C.
    """

    kernel_block: Block
    acc: SSAValue
    store: Operation
    env: KernelEnv
    e: Emitter
    retile_safe: bool = True
    scalars: dict = field(default_factory=dict)
    memo: dict = field(default_factory=dict)
    acc_element: Callable[[], SSAValue] | None = None
    others: dict = field(default_factory=dict)
    """The other accumulators of the K loop (dots sharing A): value -> its element at the
    coordinate :attr:`acc_element` reads (the same fragment position)."""
    unit_coords_own: bool = False
    """A broadcast's extent-1 dimension that stays extent 1 reads the coordinate it is given (not 0),
    and an ``expand_dims`` of the row dimension passes the row coordinate to its source's unit row
    dimension: the chained kernel's one-row tile padded to the WGMMA's 64 rows evaluates its
    don't-care rows at their own (register) row, and its row 0 at 0."""
    tile_rows: int = 0
    """When set: the program's tile has this many rows and the kernel's more (a 16-row decode tile run as a 64-row
    WGMMA tile); :meth:`tile_store` stores the rows below it only (the program writes no others)."""
    store_swapped: bool = False
    """The store writes the transposed accumulator tile at (program id 1, program id 0): its
    first dimension follows the accumulator's columns (:meth:`transposed_store`)."""
    stored_transposed: bool = False
    """:meth:`element` reads the stored tile at (.., col, row): it is the transpose of the accumulator-shaped
    value (the chained kernel's ``ct.transpose(o)`` store, ``tileas/transposed_store.py``)."""

    # -- the stored value ---------------------------------------------------------------------
    def stored_value(self) -> tuple[SSAValue, object]:
        """(the value the store writes, skipping layout conversions and a final rounding to the
        output type that the fragment store does itself, a 16-bit float's or an i8's truncation of
        i32; that output element type)."""
        v = sink_tile(self.store)
        while isinstance(v.owner, Operation) and v.owner.name in LAYOUT_ONLY:
            v = v.owner.operands[0]
        out = v.type.element_type
        owner = v.owner
        if truncated_from_i32(v):
            return owner.operands[0], out
        if (isinstance(owner, Operation) and owner.name == "nv_tileaa.fp_to_fp"
                and isinstance(owner.operands[0].type.element_type, Float32Type)
                and isinstance(out, Float16Type | BFloat16Type)):
            v = owner.operands[0]
        return v, out

    def element(self, row: Coord, col: Coord) -> SSAValue:
        """The value to store at accumulator element (row, col): f32 (the fragment store rounds it
        to a 16-bit output), or i32 for an i32 output (an integer dot's accumulator or math on it)."""
        v, out = self.stored_value()
        # the stored tile's extent-1 dimensions (batch, a packed tensor's head) read at 0: the rows at
        # the one other dimension before the last (the next-to-last when there is none)
        shape = _shape(v)
        rows_at, cols_at = matrix_dims(shape)
        if self.stored_transposed:
            rows_at, cols_at = cols_at, rows_at
        zero = Coord(self.e.const(0), None)
        x = self.at(v, tuple(row if i == rows_at else col if i == cols_at else zero for i in range(len(shape))))
        if isinstance(out, IntegerType):
            if out in (i32, IntegerType(8)) and x.type == i32:
                return x  # (i8: the fragment store keeps the low byte)
            raise unsupported(self.store, f"stores {out} values (an integer epilogue stores i32, or i8 truncated "
                                          "from i32)")
        if isinstance(x.type, Float32Type):
            return x
        if is_float(x.type):
            return self.e.v(arith.ExtFOp(x, reg_type(Float32Type())))
        raise unsupported(self.store, f"stores {x.type} values (the accumulator epilogue stores floats)")

    def atomic_element(self, row: Coord, col: Coord) -> tuple[SSAValue, SSAValue, SSAValue | None]:
        """For an ``atomic_rmw`` sink: (the element's global pointer, the value added there, the
        mask bit or None) at accumulator element (row, col)."""
        value = self.element(row, col)
        lead = len(_shape(self.store.ptr)) - 2
        zero = Coord(self.e.const(0), None)
        coords = (zero,) * lead + (row, col)
        ptr = self.at(self.store.ptr, coords)
        mask = self.at(self.store.mask, coords) if self.store.mask is not None else None
        return ptr, value, mask

    # -- side outputs: reductions of accumulator-shaped tiles along one tile dimension -------
    def row_reduction(self, red: Operation, row: Coord,
                      elements: list[tuple[Coord, Callable[[], SSAValue], SSAValue | None]]) -> None:
        """Evaluate ``red`` (an ``nv_tileaa.reduce`` along dimension 1 of a tile of the accumulator's
        shape) at ``row``: fold this thread's ``elements`` of the row (column coordinate, accumulator
        element, i1 column-inside-the-array or None: :meth:`fold`) with the reduction's combiner,
        then combine across the 4 lanes that share the row (``shfl.sync.bfly`` 1 and 2: the WGMMA
        fragment spreads a row's columns over a lane quad).  The result is what later reads of
        ``red`` at ``row`` see."""
        out = self.fold(red, [(row, col, fragment, valid) for col, fragment, valid in elements])
        for mask in (1, 2):
            out = self.combine(red, out, self.e.shuffle_xor(out, mask))
        self.reduced(red, row, out)

    def fold(self, red: Operation, elements: list[tuple[Coord, Coord, Callable[[], SSAValue], SSAValue | None]]
             ) -> SSAValue:
        """This thread's part of ``red``: the reduced tile at each of ``elements`` (row, column,
        accumulator element, i1 ``valid`` or None) folded with the combiner; an element whose
        ``valid`` is false contributes the reduction's identity (a row outside the array)."""
        src = red.operands[0]
        out = None
        for row, col, fragment, valid in elements:
            self.acc_element = fragment
            x = self.at(src, (row, col))
            if valid is not None:
                x = self.e.v(arith.SelectOp(valid, x, self.identity(red, x.type)))
            out = x if out is None else self.combine(red, out, x)
        return out

    def identity(self, red: Operation, typ) -> SSAValue:
        """The reduction's identity (its ``identities`` property) as a ``typ`` constant."""
        attr = red.identities.data[0]
        if is_float(typ):
            return self.e.fconst(float(attr.value.data), typ)
        return self.e.const(int(attr.value.data), typ)

    def reduced(self, red: Operation, at: Coord, value: SSAValue) -> None:
        """Record ``value`` as ``red``'s result at ``at`` (the one coordinate of its 1-D result)."""
        self.memo[(red.results[0], ((id(at.value), at.acc_dim),))] = value

    def combine(self, red: Operation, a: SSAValue, b: SSAValue) -> SSAValue:
        """``red``'s combiner applied to two scalars."""
        body = red.regions[0].blocks.first
        vals = {body.args[0]: a, body.args[1]: b}
        for inner in body.ops:
            if inner.name == "nv_tileaa.yield":
                return vals[inner.operands[0]]
            if not ((inner.name.startswith("arith.") or inner.name in _simt.ELEMENTWISE) and not inner.regions):
                raise unsupported(inner, f"reduces with '{inner.name}' in its combiner")
            vals[inner.results[0]] = _simt.lower_scalar_op(self.e, inner, [vals.get(x) or self.scalar(x)
                                                                     for x in inner.operands],
                                                     inner.results[0].type)
        raise unsupported(red, "reduction combiner without nv_tileaa.yield")

    def side_store(self, store: Operation, at: Coord, leader: SSAValue) -> None:
        """Store the value of ``store``'s ``[tile_m, 1]`` (or 1-D ``[tile_m]``) tile at row ``at``
        (``at.acc_dim == 0``) or of its ``[1, tile_n]`` (``[tile_n]``) tile at column ``at`` (its reductions evaluated first:
        :meth:`row_reduction`, :mod:`column_reduction`) from the thread ``leader`` says, predicated
        on the view's bounds."""
        e = self.e
        zero = Coord(e.const(0), None)
        if len(_shape(sink_tile(store))) == 1:  # stored without keepdims: the reduction's own 1-D tile
            coords = (at,)
        else:
            coords = (at, zero) if at.acc_dim == 0 else (zero, at)
        if store.name == ATOMIC_SINK:  # added atomically (a column sum of every M tile into one [N] array)
            self._atomic_at(store, coords, leader)
            return
        self._store_at(store, coords, leader, "a reduction")

    def _atomic_at(self, op: Operation, coords: tuple[Coord, ...], ok: SSAValue | None) -> None:
        """Add the value of ``atomic_rmw`` ``op``'s update tile at ``coords`` to its element (its pointer tile
        there; ``red``: the old value is unused), when the atomic's mask (its bounds) and ``ok`` hold; the
        atomic's ordering as fences around it (relaxed ``red`` between ``fence.release`` / ``fence.acquire``,
        as the SIMT path lowers it)."""
        from tileorch.dialects import llvm_ext
        from tileorch.transforms.tileaa_to_simt.pointers import RMW_BIN_OP, _order

        e = self.e
        value = self.at(op.value, coords)
        ptr = self.at(op.ptr, coords)
        mask = self.at(op.mask, coords) if op.mask is not None else None
        if mask is not None:
            ok = mask if ok is None else e.v(arith.AndIOp(ok, mask))
        sem, scope, _ = _order(op)
        mode = RMW_BIN_OP[op.rmw_mode.value.data]

        def red(b) -> None:
            if sem in ("release", "acq_rel"):
                b.add(llvm_ext.FenceOp("release", scope))
            b.v(llvm_ext.AtomicRMWOp(mode, ptr, value, "monotonic", scope))
            if sem in ("acquire", "acq_rel"):
                b.add(llvm_ext.FenceOp("acquire", scope))

        if ok is None:
            red(e)
        else:
            e.if_(ok, lambda b: (red(b), None)[1])

    def tile_store(self, store: Operation, row: Coord, col: Coord) -> None:
        """Store accumulator element (``row``, ``col``) of ``store``'s tile: another output of the
        epilogue with the accumulator's shape (e.g. the pre-activation beside the activation),
        at the same tile indices as C, written by the thread that holds the element, predicated
        on the view's bounds."""
        zero = Coord(self.e.const(0), None)
        shape = _shape(store.tile)
        rows_at, cols_at = matrix_dims(shape)  # (a (rows, 1, cols) tile batched in its middle dimension: 0 and 2)
        coords = tuple(row if i == rows_at else col if i == cols_at else zero for i in range(len(shape)))
        ok = None
        if self.tile_rows:  # (the kernel's rows past the program's tile: not the program's elements)
            ok = self.e.v(cmpi(row.value, self.e.const(self.tile_rows), "slt"))
        self._store_at(store, coords, ok, "a second output tile")

    def transposed_store(self, row: Coord, col: Coord, swapped: bool) -> None:
        """Store accumulator element (``row``, ``col``) of C when C is stored transposed: the
        program's value of the stored tile there (its epilogue ops, cast included), written by the
        thread that holds the element, predicated on the bounds.  ``swapped``: the stored tile is
        ``[tile_n, tile_m]`` at (program id 1, program id 0) (``ct.transpose(acc)``), read at
        (``col``, ``row``); otherwise the ``[tile_m, tile_n]`` tile goes through a view with its
        dimensions swapped (a column-major C).  A tile dimension indexed by the program id of its
        accumulator dimension, of the accumulator's extent, is addressed from the work tile's
        origin (the epilogue stays independent of the tile shape)."""
        zero = Coord(self.e.const(0), None)
        lead = len(_shape(self.store.tile)) - 2
        coords = (col, row) if swapped else (row, col)
        self._store_at(self.store, (zero,) * lead + coords, None, "the transposed result", aligned=True)

    def _store_at(self, store: Operation, coords: tuple[Coord, ...], ok: SSAValue | None, what: str,
                  aligned: bool = False) -> None:
        """The value of ``store``'s tile at ``coords``, stored to its element of the view when it is
        inside the array (and ``ok``).  ``aligned``: a coordinate along accumulator dimension ``d``
        whose tile index is program id ``d`` with the accumulator's extent is the work tile's
        origin plus the coordinate."""
        e = self.e
        x = self.at(store.tile, coords)
        view = self.scalar(store.view)
        elt = store.tile.type.element_type
        bf16 = isinstance(elt, BFloat16Type)  # held as f32, stored as its rounded bits (i16)
        if not isinstance(view, _simt.View) or (reg_type(elt) != memory_type(elt) and not bf16):
            raise unsupported(store, f"stores {what} as {elt} (f32, f16, bf16 or i32)")
        mem, offset = view.memref, None
        for i, c in enumerate(coords):
            dim = view.order[i]
            acc_shape = _shape(self.acc)
            if (aligned and c.acc_dim is not None and program_axis(store.indices[i]) == c.acc_dim
                    and view.tile[i] == view.step[i] == acc_shape[c.acc_dim]):
                g = e.add_i(self.env.origin[c.acc_dim], c.value)
            else:
                idx = self._i32(self.scalar(store.indices[i]))
                g = e.add_i(e.once(("tile origin", idx, view.step[i]), lambda: e.mul_i(idx, e.const(view.step[i]))),
                            c.value)
            inb = e.v(arith.AndIOp(e.v(cmpi(g, mem.shape[dim], "slt")), e.v(cmpi(g, e.const(0), "sge"))))
            ok = inb if ok is None else e.v(arith.AndIOp(ok, inb))
            stride = mem.strides[dim]
            term = e.v(arith.MuliOp(e.v(arith.ExtSIOp(g, i64)),
                                    e.once(("i64 stride", stride), lambda: e.v(arith.ExtSIOp(stride, i64)))))
            offset = term if offset is None else e.v(arith.AddiOp(offset, term))
        if x.type != reg_type(elt):
            x = _simt.convert_float(e, x, elt)
        if bf16:
            x = e.f32_to_bf16_bits(x)
        ptr = e.gep(mem.ptr, offset, global_type(elt), GLOBAL_PTR)
        e.if_(ok, lambda b: (b.store(x, ptr), None)[1])

    # -- tile values at a coordinate --------------------------------------------------------
    def at(self, v: SSAValue, coords: tuple[Coord, ...]) -> SSAValue:
        key = (v, tuple((id(c.value), c.acc_dim) for c in coords))
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        r = self._at(v, coords)
        self.memo[key] = r
        return r

    def _at(self, v: SSAValue, coords: tuple[Coord, ...]) -> SSAValue:
        if not isinstance(v.type, TensorType):
            return self.scalar(v)
        if v is self.acc or v in self.others:
            if len(coords) != 2 or coords[0].acc_dim != 0 or coords[1].acc_dim != 1:
                raise unsupported(self.store, "reads the accumulator at other coordinates (a transpose or "
                                              "slice of it)")
            x = self.acc_element() if v is self.acc else self.others[v]()
            t = v.type.element_type
            if is_float(t) and x.type != t:  # an f16 accumulator: the WGMMA kernel's f32 registers, rounded to f16
                x = _simt.convert_float(self.e, x, t)
            return x
        op = v.owner
        if not isinstance(op, Operation):
            raise unsupported(self.store, "reads a tile carried into a region")
        name = op.name
        e = self.e
        if name in LAYOUT_ONLY:
            return self.at(op.operands[0], coords)
        if name == "nv_tileaa.fp_to_fp":
            return _simt.convert_float(e, self.at(op.operands[0], coords), op.results[0].type.element_type)
        if name == "arith.constant":
            return self._splat_constant(op)
        if name == "nv_tileaa.splat":
            return self.scalar(op.operands[0])
        if name in BROADCASTS:
            src_shape = _shape(op.operands[0])
            zero = Coord(e.const(0), None)
            keep = self.unit_coords_own  # extent 1 -> 1 keeps the coordinate (a padded one-row tile's own row)
            mapped = tuple(c if s != 1 or (keep and d == 1) else zero
                           for c, s, d in zip(coords, src_shape, _shape(op.results[0])))
            return self.at(op.operands[0], mapped)
        if name in EXPANDS:
            dim = op.dim.value.data
            src = coords[:dim] + coords[dim + 1:]
            if (self.unit_coords_own and coords[dim].acc_dim == 0 and len(src) >= 2
                    and _shape(op.operands[0])[-2] == 1):  # the row coordinate to a one-row tile's row dimension
                src = src[:-2] + (coords[dim],) + src[-1:]
            return self.at(op.operands[0], src)
        if name == "nv_tileaa.reshape":
            return self.at(op.operands[0], self._reshape(op, coords))
        if name == "nv_tileaa.permute":
            perm = list(op.permutation.get_values())
            src = [None] * len(perm)
            for i, p in enumerate(perm):
                src[p] = coords[i]
            return self.at(op.operands[0], tuple(src))
        if name in LOADS:
            return self._load(op, coords)
        if name == "scf.if":
            return self._if_select(op, v, coords)
        if name == "scf.for" and not any(o.name in _DOTS for o in op.walk()):  # a loop after the K loop
            raise unsupported(op, "computes this tile in a loop of its own after the dots (e.g. for i in range(3): "
                                  "acc = acc * 0.5 + 1): the WGMMA kernel's epilogue is straight-line math on the "
                                  "accumulator; unroll the loop (for i in ct.static_iter(range(3))) or run it in its "
                                  "own kernel")
        if name == "scf.for":  # a tile the K loop carries beside the accumulator
            carried = op.body.block.last_op.operands[list(op.results).index(v)]
            at = carried.owner if isinstance(carried.owner, Operation) else op
            raise unsupported(at, "reads a tile that the K loop computes beside the dot (e.g. a row sum of an "
                                  "operand for an int8 zero point): the WGMMA kernel's K loop carries only the "
                                  "dots' accumulators; compute it in its own kernel (or from the output after "
                                  "the loop)")
        if name == "nv_tileaa.load":  # a pointer per element (ct.gather with a tile of indices)
            return self._masked_load(op, lambda x: self.at(x, coords))
        if name == "nv_tileaa.offset":  # pointer + element offset
            ptr, off = self.at(op.operands[0], coords), self.at(op.operands[1], coords)
            if off.type != i64:
                off = e.v(arith.ExtSIOp(off, i64))
            return e.gep(ptr, off, global_type(op.results[0].type.element_type.element), GLOBAL_PTR)
        if name == "nv_tileaa.make_range":
            self.retile_safe = False
            start = op.start.value.data
            x = coords[0].value if start == 0 else e.add_i(coords[0].value, e.const(start))
            return self._as_int(x, op.results[0].type.element_type)
        if name.startswith("arith.") or name in _simt.ELEMENTWISE:
            if op.regions:
                raise unsupported(op, f"op '{name}'")
            args = [self.at(x, coords) if isinstance(x.type, TensorType) else self.scalar(x) for x in op.operands]
            rt = op.results[0].type
            return _simt.lower_scalar_op(e, op, args, rt.element_type if isinstance(rt, TensorType) else rt)
        raise unsupported(op, f"op '{name}'")

    def _as_int(self, x: SSAValue, want) -> SSAValue:
        """The element position ``x`` (i32) in the range's own integer type (``ct.arange(n, dtype=int64)``: i64,
        sign-extended; positions are below 2**31)."""
        if not isinstance(want, IntegerType) or want == x.type:
            return x
        if want.width.data > x.type.width.data:
            return self.e.v(arith.ExtSIOp(x, want))
        return self.e.v(arith.TruncIOp(x, want))

    def _if_select(self, op: Operation, v: SSAValue, coords: tuple[Coord, ...]) -> SSAValue:
        """A tile yielded by an ``scf.if`` whose branches only compute (``if ct.bid(2) == 0: acc = acc +
        bias``): both branches' values at the element, the scalar condition selecting (their loads are
        predicated on the array's bounds, so evaluating the branch not taken reads nothing out of
        bounds); a branch that writes memory is refused."""
        for inner in op.walk():
            if inner is not op and inner.name.endswith(("store", "atomic_rmw", "atomic_cas")):
                raise unsupported(op, "if whose branch writes memory")
        i = list(op.results).index(v)
        if not op.false_region.blocks:
            raise unsupported(op, "if without an else branch")
        then = self.at(op.true_region.block.last_op.operands[i], coords)
        other = self.at(op.false_region.block.last_op.operands[i], coords)
        return self.e.v(arith.SelectOp(self.scalar(op.cond), then, other))

    def _reshape(self, op: Operation, coords: tuple[Coord, ...]) -> tuple[Coord, ...]:
        src, dst = _shape(op.operands[0]), _shape(op.results[0])
        if [d for d in src if d != 1] != [d for d in dst if d != 1]:
            return self._relinearize(op, src, dst, coords)
        moving = iter([c for c, d in zip(coords, dst) if d != 1])
        zero = Coord(self.e.const(0), None)
        return tuple(next(moving) if d != 1 else zero for d in src)

    def _relinearize(self, op: Operation, src: list[int], dst: list[int], coords: tuple[Coord, ...]
                     ) -> tuple[Coord, ...]:
        """The source coordinates of a reshape that moves elements between dimensions (row-major,
        as cuTile's reshape): the element's linear index in ``dst`` split over ``src``.  The tile's
        shape then matters (no retiling); a register tile read at the computed coordinates is
        refused by the fragment lowering (coordinates other than its own)."""
        import math

        e = self.e
        if math.prod(src) != math.prod(dst):
            raise unsupported(op, f"reshape {src} -> {dst}")
        self.retile_safe = False
        lin = None
        for c, d in zip(coords, dst):
            if d == 1:
                continue
            lin = c.value if lin is None else e.add_i(e.mul_i(lin, e.const(d)), c.value)
        out = []
        stride = math.prod(src)
        for d in src:
            stride //= d
            if d == 1 or lin is None:
                out.append(Coord(e.const(0), None))
                continue
            q = lin if stride == 1 else e.v(arith.DivUIOp(lin, e.const(stride)))
            out.append(Coord(q if stride * d == math.prod(src) else e.v(arith.RemUIOp(q, e.const(d))), None))
        return tuple(out)

    def _splat_constant(self, op: Operation) -> SSAValue:
        value = op.value
        t = op.results[0].type
        splat, x = splat_value(value)
        if not splat:
            raise unsupported(op, "constant that is not a splat")
        rt = reg_type(t.element_type)
        attr = float_attr(float(x), rt) if is_float(rt) else integer_attr(int(x), rt)  # built once per value
        return self.e.v(arith.ConstantOp(attr))

    # -- global loads -----------------------------------------------------------------------
    def _load(self, op: Operation, coords: tuple[Coord, ...]) -> SSAValue:
        e = self.e
        view = self.scalar(op.view)
        if not isinstance(view, _simt.View):
            raise unsupported(op, "load from something other than a tiled view")
        indices = list(op.indices)
        store_view = self.store.view.type if self.store.name != ATOMIC_SINK else None
        store_tile = ints(store_view.tile) if isinstance(store_view, TiledViewType) else []
        # accumulator dimension e is the store's e-th dimension of extent > 1
        acc_dims = [i for i, d in enumerate(store_tile) if d != 1][-2:]
        store_idx = [self.store.indices[i] for i in acc_dims] if store_view is not None else []
        store_tile = [store_tile[i] for i in acc_dims]
        if self.store_swapped:  # the stored tile's dimensions are the accumulator's columns, then rows
            store_idx, store_tile = store_idx[::-1], store_tile[::-1]
        mem = view.memref
        ok, at = None, []
        for i, c in enumerate(coords):
            if view.tile[i] != view.step[i]:
                raise unsupported(op, "load of overlapping tiles")
            dim = view.order[i]
            axis = program_axis(indices[i])
            aligned = (c.acc_dim is not None and axis is not None and c.acc_dim < len(store_idx)
                       and program_axis(store_idx[c.acc_dim]) == axis
                       and view.tile[i] == store_tile[c.acc_dim])
            if aligned:
                g = e.add_i(self.env.origin[c.acc_dim], c.value)
            else:
                if c.acc_dim is not None:
                    self.retile_safe = False
                idx = self._i32(self.scalar(indices[i]))
                g = e.add_i(e.once(("tile origin", idx, view.step[i]), lambda: e.mul_i(idx, e.const(view.step[i]))),
                            c.value)
            # 0 <= g < extent in one unsigned compare (extents are non-negative)
            inb = e.v(cmpi(g, mem.shape[dim], "ult"))
            ok = inb if ok is None else e.v(arith.AndIOp(ok, inb))
            at.append((g, dim))
        # out of bounds: read element 0 (any element of a non-empty array) and select the padding; the
        # selected coordinates are in [0, extent): zero-extended, 32-bit selects
        zero = e.const(0)
        offset = None
        for g, dim in at:
            g = e.v(arith.ExtUIOp(e.v(arith.SelectOp(ok, g, zero)), i64))
            term = e.v(arith.MuliOp(g, e.v(arith.ExtSIOp(mem.strides[dim], i64))))
            offset = term if offset is None else e.v(arith.AddiOp(offset, term))
        elt = op.results[0].type.element_type
        stored = i16 if isinstance(elt, BFloat16Type) else memory_type(elt)
        ptr = e.gep(mem.ptr, offset, stored, GLOBAL_PTR)
        raw = e.load(ptr, stored)
        if isinstance(elt, BFloat16Type):
            raw = e.bf16_bits_to_f32(raw)
        elif elt == i1:
            raw = e.v(arith.TruncIOp(raw, i1))
        pad_attr = getattr(op, "padding_value", None)
        pad = _padding(e, str(pad_attr.value.data) if pad_attr is not None else "zero", elt)
        return e.v(arith.SelectOp(ok, raw, pad))

    @staticmethod
    def _cast(e: Emitter, v: SSAValue, typ) -> SSAValue:
        if v.type == typ:
            return v
        if isinstance(typ, IntegerType) and isinstance(v.type, IntegerType):
            return e.v(arith.ExtSIOp(v, typ) if typ.width.data > v.type.width.data else arith.TruncIOp(v, typ))
        return e.v(arith.IndexCastOp(v, typ))

    def _i32(self, v: SSAValue) -> SSAValue:
        return self._cast(self.e, v, i32)

    # -- scalars and views ------------------------------------------------------------------
    def scalar(self, v: SSAValue):
        hit = self.scalars.get(v)
        if hit is not None:
            return hit
        r = self._scalar(v)
        self.scalars[v] = r
        return r

    def _scalar(self, v: SSAValue):
        e = self.e
        if isinstance(v, BlockArgument):
            if v.owner is self.kernel_block:
                return self.env.args[v.index]
            raise unsupported(self.store, "uses a loop variable")
        op = v.owner
        name = op.name
        if name in LAYOUT_ONLY:
            return self.scalar(op.operands[0])
        if name == "nv_tileaa.get_program_id":  # the scheduler's work tile stands in for the program
            axis = op.axis.value.data
            if axis >= len(self.env.tile_coord):
                raise unsupported(op, f"program id along axis {axis}")
            if axis < 2:  # the batch coordinate does not change when the kernel is retiled
                self.retile_safe = False
            return self.env.tile_coord[axis]
        if name == "nv_tileaa.get_num_programs":  # the launch grid's extent (a program-grid kernel)
            if self.env.grid is None:
                raise unsupported(op, "reads the grid size (num_blocks) in a kernel whose work tiles are not the "
                                      "launch grid's programs")
            self.retile_safe = False
            return self.env.grid[op.axis.value.data]
        if name == "arith.constant":
            value = op.value
            t = op.results[0].type
            if isinstance(t, TensorType):
                return self._splat_constant(op)
            if isinstance(t, BFloat16Type):
                value = FloatAttr(value.value.data, reg_type(t))
            return e.v(arith.ConstantOp(value, reg_type(t)))
        if name == "nv_tileaa.make_memref":
            mt: MemRefType = op.results[0].type
            dyn_shape, dyn_strides = iter(op.shape), iter(op.strides)

            def resolve(static: int, dyn) -> SSAValue:
                if static >= 2**31:  # (an i32 constant: the epilogue's index arithmetic is 32-bit, as the SIMT path's)
                    raise unsupported(op, f"reads an array with a static size or stride of {static}, past the "
                                          "32-bit index arithmetic of the epilogue")
                return e.const(static) if static >= 0 else self._i32(self.scalar(next(dyn)))

            return _simt.Memref(self.scalar(op.ptr), mt.element, [resolve(s, dyn_shape) for s in mt.get_shape()],
                          [resolve(s, dyn_strides) for s in mt.get_strides()], list(mt.get_strides()))
        if name == "nv_tileaa.get_dim_size":  # the number of tiles of a view along a dimension
            view = self.scalar(op.operands[0])
            i = op.index.value.data
            if isinstance(view, _simt.Memref):
                return view.shape[i]
            extent = view.memref.shape[view.order[i]]
            step = e.const(view.step[i])
            return e.v(arith.DivUIOp(e.add_i(extent, e.const(view.step[i] - 1)), step))
        if name == "nv_tileaa.block_tile":
            vt: TiledViewType = op.results[0].type
            return _simt.View(self.scalar(op.memref), ints(vt.tile), ints(vt.step), ints(vt.order))
        if (name.startswith("arith.") or name in _simt.ELEMENTWISE) and not op.regions:
            args = [self.scalar(x) for x in op.operands]
            return _simt.lower_scalar_op(e, op, args, op.results[0].type)
        if name == "nv_tileaa.fp_to_fp":
            return _simt.convert_float(e, self.scalar(op.operands[0]), op.results[0].type)
        if name in ("nv_tileaa.offset", "nv_tileaa.load") and not isinstance(op.results[0].type, TensorType):
            return self._scalar_pointer_op(op)
        if name == "nv_tileaa.extract" and isinstance(op.source.type, TensorType):
            # one element of a tile at static indices (``ct.load(Bias, (0,), (1,)).item()``): that tile's
            # value at those coordinates, none of them the accumulator's
            return self.at(op.source, tuple(Coord(e.const(i), None) for i in op.indices.get_values()))
        raise unsupported(op, f"scalar op '{name}'")

    def _scalar_pointer_op(self, op: Operation) -> SSAValue:
        """A scalar pointer's offset, and a weak load of one scalar (``ct.gather(alpha, 0)``: an
        alpha, a slope read from memory), masked: the padding value (or 0) where the mask is off."""
        e = self.e
        elt = op.ptr.type.element
        if op.name == "nv_tileaa.offset":
            off = self.scalar(op.offset)
            if off.type != i64:
                off = e.v(arith.ExtSIOp(off, i64))
            return e.gep(self.scalar(op.ptr), off, global_type(elt), GLOBAL_PTR)
        return self._masked_load(op, self.scalar)

    def _masked_load(self, op: Operation, value: Callable[[SSAValue], SSAValue]) -> SSAValue:
        """A weak load through ``op``'s pointer, masked: the padding value (or 0) where the mask is off;
        ``value`` gives the pointer, the mask and the padding value (:meth:`scalar` for one scalar, the
        element's own for a tile of pointers: ``ct.gather(Bias, cols)``, one address per element)."""
        e = self.e
        elt = op.ptr.type.element if not isinstance(op.ptr.type, TensorType) else op.ptr.type.element_type.element
        if op.mem_semantic is not None and op.mem_semantic.value.data != "weak":
            raise unsupported(op, f"{op.mem_semantic.value.data} load")
        ptr = value(op.ptr)
        rt = reg_type(elt)

        def load(b: Emitter) -> SSAValue:
            stored = i16 if isinstance(elt, BFloat16Type) else memory_type(elt)
            raw = b.load(ptr, stored)
            if isinstance(elt, BFloat16Type):
                return b.bf16_bits_to_f32(raw)
            return b.v(arith.TruncIOp(raw, i1)) if elt == i1 else raw

        if op.mask is None:
            return load(e)
        other = value(op.other) if op.other is not None else _padding(e, "zero", elt)
        return e.if_(value(op.mask), lambda b: [load(b)], lambda b: [other], [rt])[0]


def _padding(e: Emitter, kind: str, typ) -> SSAValue:
    typ = reg_type(typ)
    if is_float(typ):
        value = {"zero": 0.0, "neg_zero": -0.0, "undef": 0.0, "nan": float("nan"), "neg_inf": float("-inf"),
                 "pos_inf": float("inf")}.get(kind, 0.0)
        return e.fconst(value, typ)
    return e.const(0, typ)


def walk_tile_producers(root: SSAValue, visit: Callable[[Operation], bool]) -> None:
    """Calls ``visit`` on the op defining the tile ``root`` and, depth first, on the ops defining
    the tensor operands of every visited op for which ``visit`` returned True; each value is
    visited once, block arguments are not."""
    work, seen = [root], set()
    while work:
        v = work.pop()
        if v in seen or not isinstance(v.owner, Operation):
            continue
        seen.add(v)
        if visit(v.owner):
            work.extend(x for x in v.owner.operands if isinstance(x.type, TensorType))


def side_reduction(store: Operation, acc_shape: list[int]) -> Operation | None:
    """The ``nv_tileaa.reduce`` of an accumulator-shaped tile that a side store writes (through shape
    ops and elementwise math), or None: along dimension 1 for a ``[tile_m, 1]`` store (a row
    reduction), along dimension 0 for a ``[1, tile_n]`` store (a column reduction); a 1-D ``[tile_m]`` /
    ``[tile_n]`` store is the same reduction stored without ``keepdims`` (``ct.store(Lse, index=(bm,),
    tile=ct.max(acc, axis=1))`` into an ``[M]`` array).  A row store
    reading several row reductions that read one another (a logsumexp ``m + log(sum(exp(x - m)))``)
    gives the last of them in program order; the lowering evaluates all of them
    (:func:`feeding_reductions`) before the store."""
    shape = list(sink_tile(store).type.get_shape())
    if len(shape) == 1:  # the reduction stored without keepdims: a [tile_m] row or [tile_n] column tile
        return next((r for r in (_side_reduction(store, acc_shape, d) for d in (1, 0)
                                 if shape[0] == acc_shape[1 - d]) if r is not None), None)
    if shape == [acc_shape[0], 1]:
        return _side_reduction(store, acc_shape, 1)
    if shape == [1, acc_shape[1]]:
        return _side_reduction(store, acc_shape, 0)
    return None


def _side_reduction(store: Operation, acc_shape: list[int], dim: int) -> Operation | None:
    """:func:`side_reduction` along ``dim`` (1: rows, 0: columns)."""
    found, others = [], []

    def visit(op: Operation) -> bool:
        if op.name != "nv_tileaa.reduce":
            return True
        src = op.operands[0].type
        matches = (len(op.operands) == 1 and op.dim.value.data == dim and isinstance(src, TensorType)
                   and list(src.get_shape()) == list(acc_shape))
        (found if matches else others).append(op)
        return False

    walk_tile_producers(sink_tile(store), visit)
    if len(found) == 1 and not others:
        return found[0]
    if dim == 1 and found and not others:  # chained row reductions (a logsumexp: a max, then a sum that reads it)
        chain = feeding_reductions(sink_tile(store), acc_shape)
        if all(r.dim.value.data == 1 for r in chain):
            return chain[-1]
    return None


def feeding_reductions(v: SSAValue, acc_shape: list[int]) -> list[Operation]:
    """The ``nv_tileaa.reduce`` ops along dimension 0 or 1 of accumulator-shaped tiles that the tile
    ``v`` reads (directly or through other such reductions, as a softmax's sum reads its max), in
    program order: what must be evaluated before ``v``'s elements (:meth:`EpilogueLowering.reduced`)."""
    found = []

    def visit(op: Operation) -> bool:
        if op.name == "nv_tileaa.reduce" and len(op.operands) == 1 and isinstance(op.operands[0].type, TensorType):
            if list(op.operands[0].type.get_shape()) == list(acc_shape) and op.dim.value.data in (0, 1):
                found.append(op)
        return True

    walk_tile_producers(v, visit)
    order = {}
    for op in found:  # program order: a reduction's operand is computed before it
        block = op.parent_block()
        if block not in order:
            order[block] = {o: i for i, o in enumerate(block.ops)}
    return sorted(found, key=lambda op: order[op.parent_block()][op])


def reduced_dim(red: Operation) -> int:
    """The accumulator dimension a side reduction's result runs along: 0 (one value per row) for a
    row reduction (``dim = 1``), 1 (one value per column) for a column reduction (``dim = 0``)."""
    return 1 - red.dim.value.data


def is_plain_store(store: Operation, acc: SSAValue) -> bool:
    """The program stores the accumulator itself (through layout conversions and one cast) with a
    ``tiled_store``."""
    if store.name == ATOMIC_SINK:
        return False
    v = store.tile
    while isinstance(v.owner, Operation) and v.owner.name in (*LAYOUT_ONLY, "nv_tileaa.fp_to_fp", "nv_tileaa.reshape"):
        v = v.owner.operands[0]
    return v is acc


__all__ = ["feeding_reductions", "reduced_dim", "side_reduction", "ATOMIC_SINK", "Coord", "EpilogueLowering", "KernelEnv", "is_plain_store", "program_axis", "sink_tile"]
