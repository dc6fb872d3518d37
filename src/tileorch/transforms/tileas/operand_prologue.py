"""A dot operand computed from its tile load by the program's own elementwise ops (a *prologue*):
the analysis both tensor-core tiers share.

:func:`operand_prologue` reads the map between an operand's tile load and the dot
(:class:`QPrologue`): the chained (attention) tier applies it in place to a Q or K tile in shared
memory (``chained_dots.py``); the GEMM tier evaluates it from the raw tile of each pipeline stage
into the WGMMA operand's staging tile (``convert_to_cutlass.py``, :func:`operand_lowering`).
Refusals are located errors raised through the caller's ``fail`` (its pass and tier prefix).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import TensorType, i32
from xdsl.ir import BlockArgument, Operation, SSAValue

from tileorch.dialects import nv_tileaa as aa
from tileorch.lazy_import import lazy_module
# the SIMT lowering's scalar ops and views, read when a kernel needs them (issue 22: a GEMM without
# an epilogue of its own does not define the SIMT lowering)
_simt = lazy_module("tileorch.transforms.tileaa_to_simt.convert")
from tileorch.transforms.tileas.common import enclosing_for, source_load
from tileorch.transforms.tileaa_to_simt.emit import Emitter
from tileorch.transforms.tileas.epilogue import BROADCASTS, EXPANDS, LAYOUT_ONLY, Coord, EpilogueLowering
from tileorch.transforms.dense_splat import splat_value


def strip_layouts(v: SSAValue, names=(*LAYOUT_ONLY, "nv_tileaa.reshape", "nv_tileaa.permute")
                  ) -> tuple[SSAValue, list[str]]:
    """The value ``v`` is read from through the single-operand ops ``names`` (layout changes,
    reshapes, permutes), and those ops' names from ``v`` down."""
    seen = []
    while isinstance(v.owner, Operation) and v.owner.name in names:
        seen.append(v.owner.name)
        v = v.owner.operands[0]
    return v, seen


@dataclass
class QPrologue:
    """A map between a dot operand's tile load and the dot (the first dot's A0, Q; or the first dot's
    B, K): elementwise ops whose other operands are the same at every element (constants, kernel
    scalar arguments, splats and broadcasts of them); with ``rowwise``, also row reductions along
    the tile's contiguous dimension (an RMS norm's sum of squares) and per-column vectors loaded
    before the loop (its weight), combined per element.  The kernel applies it in place to the tile
    in shared memory after each load (:meth:`_Kernel.q_prologue`, :func:`_rowwise_prologue`):
    element ``(r, c)`` becomes ``f(x)`` rounded to the tile's type.  ``top``: the value the dot
    reads (layout ops stripped); ``roots``: the values of the load the map starts from; ``ops``: its
    elementwise ops in program order; ``seen``: the layout ops between ``top`` and the dot;
    ``kinds``: id(value) -> "q" (per element), "row", "col" or "uniform"."""

    top: SSAValue
    roots: list[SSAValue]
    ops: list[Operation]
    seen: list[str]
    rowwise: bool = False
    kinds: dict = field(default_factory=dict)
    vectors: list = field(default_factory=list)
    """With a ``tile_load`` (the GEMM tier): the other loads the map reads, each a tile of one wide
    dimension at most (a per-row / per-column vector, a scale row ``S[k // g, n]``), in the loop or
    before it; evaluated per element at the element's coordinates."""
    reductions: list = field(default_factory=list)
    vector_values: dict = field(default_factory=dict)
    """id(the value a vector is read as, layout and shape ops stripped: a load's result, or the
    consumer's pipeline read of a load the producer staged) -> that load."""
    positional: list = field(default_factory=list)
    """With a ``tile_load`` (the GEMM tier): the ops of the map that read the K loop's induction variable
    or an element position (``ct.arange``: ``k * tk + ct.arange(tk) < K``, a K-tail mask), evaluated per
    element at the consumer's K tile and the element's coordinates; the program's K tile must then be
    the kernel's (``convert_to_cutlass._check_k_vectors``)."""


PROLOGUE_SHAPE_OPS = (*LAYOUT_ONLY, "nv_tileaa.reshape")
ROWWISE_COMBINERS = ("nv_tileaa.addf", "nv_tileaa.maxf", "nv_tileaa.minf", "nv_tileaa.mulf", "arith.addf",
                      "arith.maximumf", "arith.minimumf", "arith.mulf")


USER_SPELLINGS = {"nv_tileas.tiled_load": "ct.load", "nv_tileaa.tiled_load": "ct.load", "nv_tileaa.load": "ct.gather",
                  "nv_tileaa.dot": "ct.mma", "nv_tileas.dot": "ct.mma"}
"""The cuTile call a user wrote for an op a refusal names (the tier's op names mean nothing at the user's line)."""


def _user_spelling(name: str) -> str:
    """``'a ct.load'`` for the tier's ``nv_tileas.tiled_load``; other ops as ``'NAME'``."""
    return f"a {USER_SPELLINGS[name]}" if name in USER_SPELLINGS else f"'{name}'"


def operand_prologue(kernel: aa.FuncOp, d1: Operation, fail: Callable[[Operation, str], None],
                     operand: SSAValue | None = None, what: str = "the first dot's A (Q)",
                     how: str = "applied to the tile in place", tile_load: Operation | None = None
                     ) -> tuple[SSAValue, QPrologue | None]:
    """(the value to find the dot operand's load at, the prologue or None): when the operand
    (``d1``'s A unless ``operand`` says), stripped of layout ops, is not a tile load but a function
    of one as :class:`QPrologue` says, the load's value and the map; a located error names the first
    op that the kernel cannot apply in place (an iota, a reduction along the rows, a transpose).
    ``tile_load`` (the GEMM tier, which evaluates the map per element at its coordinates): the
    operand's own tile load; any other load of one wide dimension at most, in the loop or before it,
    is a vector the map reads (:attr:`QPrologue.vectors`)."""
    operand = d1.lhs if operand is None else operand
    top, seen = strip_layouts(operand)
    if source_load(top) is not None or not isinstance(top.owner, Operation):
        return operand, None
    entry = kernel.body.blocks.first
    roots: list[SSAValue] = []
    ops: list[Operation] = []
    kinds: dict[int, str] = {}
    loads: list[Operation] = []
    vectors: list[Operation] = []
    vector_values: dict = {}
    reductions: list[Operation] = []
    positional: list[Operation] = []
    # the K loop's bodies as the agents run it (the producer's around the tile load, the consumers' around
    # the dot: convert_to_cutlass's k_loop_blocks): their first argument is the K index
    k_blocks = [] if tile_load is None else [lp.body.blocks.first for lp in (enclosing_for(tile_load),
                                                                          enclosing_for(d1)) if lp is not None]
    top_shape = list(top.type.get_shape()) if isinstance(top.type, TensorType) else []
    cols = top_shape[-1] if top_shape else 0

    def refuse(op: Operation, why: str):
        fail(op, f"{what} is computed from its tile by {_user_spelling(op.name)}, {why}; only elementwise ops "
                  "whose other operands are scalars (constants, kernel arguments), row reductions along the tile's "
                  "contiguous dimension and per-column vectors loaded before the loop are " + how)

    readers: list[Operation] = []  # the ops whose operands kind() is classifying, innermost last

    def scalar(v: SSAValue, reader: Operation | None = None) -> None:
        """Accept a scalar computed from constants and kernel arguments; else refuse at the op that
        computes it (a scalar loaded from memory, ...) or, for a block argument of a region (a loop's
        induction variable or carried value), at the op reading it (``reader``, else the op kind()
        classifies)."""
        if isinstance(v, BlockArgument) and v.owner is entry:
            return
        if isinstance(v, BlockArgument) and v.index == 0 and any(v.owner is b for b in k_blocks):
            # the K loop's index: the consumer's K tile (OperandLowering.kt)
            positional.append(reader or (readers[-1] if readers else d1))
            return
        o = v.owner
        if isinstance(o, Operation) and not o.regions and not isinstance(o.results[0].type, TensorType) \
                and (o.name.startswith("arith.") or o.name in _simt.ELEMENTWISE or o.name == "nv_tileaa.assume"):
            for x in o.operands:
                scalar(x, o)
            return
        if isinstance(o, Operation):
            refuse(o, "a scalar other than constants and kernel arguments")
        refuse(reader or (readers[-1] if readers else d1), "a scalar other than constants and kernel arguments: a "
               "block argument of an enclosing region (a loop's induction variable or a value the loop carries)")

    def wide(v: SSAValue) -> list[int]:
        return [x for x in v.type.get_shape() if x != 1] if isinstance(v.type, TensorType) else []

    def kind(v: SSAValue) -> str:
        """"q": a function of the element at the same position; "row" / "col": the same along a row
        / a column; "uniform": the same everywhere."""
        hit = kinds.get(id(v))
        if hit is not None:
            return hit
        if not isinstance(v.type, TensorType):
            scalar(v)
            return "uniform"
        s, strip_seen = strip_layouts(v)
        ld = source_load(s)
        if ld is not None and tile_load is not None and ld is not tile_load:
            if len(wide(s)) > 1:
                refuse(ld, "a second tile (the map reads its operand's own tile, and vectors of one wide dimension)")
            if ld not in vectors:
                vectors.append(ld)
            vector_values[id(s)] = ld
            kinds[id(v)] = "vec"  # evaluated at the element's coordinates
            return "vec"
        if ld is not None and wide(s) == [cols]:
            if enclosing_for(ld) is not None:
                refuse(ld, "a per-column vector loaded in the loop")
            kinds[id(v)] = "col"  # a weight row: one value per column
            return "col"
        if ld is not None:
            if "nv_tileaa.permute" in strip_seen:
                refuse(s.owner if isinstance(s.owner, Operation) else d1, "a transpose of the tile")
            if loads and ld is not loads[0]:
                refuse(ld, "a second tile")
            loads.append(ld)
            roots.append(v)
            kinds[id(v)] = "q"
            return "q"
        op = v.owner
        if not isinstance(op, Operation):
            fail(d1, f"{what} is computed from a tile carried into a region")
        readers.append(op)
        k = _if_select(op, v) if isinstance(op, scf.IfOp) and tile_load is not None else _classify(op)
        readers.pop()
        kinds[id(v)] = k
        return k

    def _if_select(op: scf.IfOp, v: SSAValue) -> str:
        """kind() of a tile an ``scf.if`` yields whose branches only compute (the GEMM tier: ``if k >= K // TK: a =
        where(kk < K, a, 0)``, or the branch ``tileas-fuse-split-loops`` makes of two loops over consecutive ranges):
        both branches' values at the element, the scalar condition selecting (OperandLowering's ``_if_select``)."""
        if not op.false_region.blocks:
            refuse(op, "an if without an else branch")
        if any(o is not op and (o.regions or not (o.name.startswith(("arith.", "scf.yield")) or o.name in _simt.ELEMENTWISE
                                                  or o.name in PROLOGUE_SHAPE_OPS or o.name in BROADCASTS
                                                  or o.name in EXPANDS or o.name in ("nv_tileaa.make_range",
                                                                                     "nv_tileaa.splat")))
               for o in op.walk()):
            refuse(op, "an if whose branches do more than elementwise math on the tile")
        scalar(op.cond, op)
        i = list(op.results).index(v)
        ks = {kind(r.block.last_op.operands[i]) for r in (op.true_region, op.false_region)}
        k = ("q" if "q" in ks or {"row", "col"} <= ks else "vec" if "vec" in ks else "row" if "row" in ks
             else "col" if "col" in ks else "uniform")
        if k == "q":
            ops.append(op)
        return k

    def _classify(op: Operation) -> str:
        """kind() of ``op``'s result (``op`` computes a tile the operand is a function of)."""
        name = op.name
        if name in PROLOGUE_SHAPE_OPS:
            if name == "nv_tileaa.reshape":
                src, dst = (list(x.type.get_shape()) for x in (op.operands[0], op.results[0]))
                if [x for x in src if x != 1] != [x for x in dst if x != 1]:
                    refuse(op, "which moves the elements")
            k = kind(op.operands[0])
        elif name == "arith.constant":
            if not splat_value(op.value)[0]:
                refuse(op, "a constant that is not the same at every element")
            k = "uniform"
        elif name == "nv_tileaa.splat":
            scalar(op.operands[0])
            k = "uniform"
        elif name in BROADCASTS or name in EXPANDS:
            k = kind(op.operands[0])
            if k == "q":
                refuse(op, "which spreads the tile")
        elif name == "nv_tileaa.make_range" and tile_load is not None:
            positional.append(op)  # the element's position along the range's dimension
            k = "vec"
        elif name == "nv_tileaa.reduce":
            body = op.regions[0].blocks.first
            comb = [o for o in body.ops if o is not body.last_op]
            shp = list(op.operands[0].type.get_shape())
            if len(op.operands) != 1 or kind(op.operands[0]) != "q" or len(shp) != 2 or \
                    op.dim.value.data != 1 or len(comb) != 1 or comb[0].name not in ROWWISE_COMBINERS:
                refuse(op, "a reduction other than one along the tile's contiguous dimension with one add, max, "
                           "min or mul")
            reductions.append(op)
            k = "row"
        elif not op.regions and (name == "nv_tileaa.fp_to_fp" or name.startswith("arith.") or name in _simt.ELEMENTWISE):
            ks = {kind(x) for x in op.operands}
            k = ("q" if "q" in ks or {"row", "col"} <= ks else "vec" if "vec" in ks else "row" if "row" in ks
                 else "col" if "col" in ks else "uniform")
            if k == "q":
                ops.append(op)
        elif op.regions:  # (a loop's or branch's result: per-row statistics from an earlier loop, say)
            refuse(op, "a tile the program computes in a loop or branch of its own (the consumers evaluate the map "
                       "from the operand's tile alone, per K step)")
        else:
            refuse(op, "which depends on the element's position")
        return k

    if kind(top) != "q":
        return operand, None  # not computed from a load: refused as before
    order = {id(o): i for i, o in enumerate(entry.walk())}
    ops.sort(key=lambda o: order.get(id(o), 0))
    rowwise = any(x in ("row", "col") for x in kinds.values())
    return roots[0], QPrologue(top, roots, ops, seen, rowwise, kinds, vectors, reductions, vector_values,
                               positional)


@dataclass
class OperandLowering(EpilogueLowering):
    """A prologue's value at one element: the load's values (``roots``, by id) are ``element``; the
    other values at the element's coordinates in the prologue's tile (the GEMM tier's staging of a
    computed operand, :func:`tileorch.transforms.tileas.convert_to_cutlass.stage_computed_b`): a
    vector the map reads is loaded at them, and the K loop's induction variable (``k_ivs``, by id:
    the program's K loop as the producer and the consumers run it) is ``kt``, the K tile the
    consumer computes."""

    roots: set = field(default_factory=set)
    element: SSAValue | None = None
    k_ivs: set = field(default_factory=set)
    kt: SSAValue | None = None
    vectors: dict = field(default_factory=dict)
    """id(a value the consumer reads) -> the vector load it is (through layout ops): a load the
    producer staged for the program is read from global memory here (the kernel's producer loads
    only the operand tiles)."""
    pre: Emitter | None = None
    """Where loads of vectors that do not change along the K loop (:attr:`hoistable`, by id) go: the
    work tile's code before the K loop, once per element position (the positions a consumer thread
    computes are the same every K step)."""
    hoistable: set = field(default_factory=set)
    hoisted: dict = field(default_factory=dict)
    pre_scalars: dict = field(default_factory=dict)
    head: Emitter | None = None
    """Where loads of the other vectors (indexed by the K tile) go: the top of the K step, before the
    consumer waits for the stage (their latency hidden behind the wait)."""
    head_scalars: dict = field(default_factory=dict)
    kvec_slots: dict = field(default_factory=dict)
    """id(a K-indexed vector's load the producer TMA-loads into each stage) -> (its slot's byte offset in the K
    step, the dynamic shared memory, its ``k_vector_tma.KVector``): read from the stage (after the consumer's
    wait), at the element's position in the vector's tile."""
    kvec_memo: dict = field(default_factory=dict)

    @property
    def vector_loads(self) -> set:
        return {id(ld) for ld in self.vectors.values()}

    def _at(self, v: SSAValue, coords) -> SSAValue:
        if id(v) in self.roots:
            return self.element
        ld = self.vectors.get(id(v))
        if ld is not None and isinstance(v, BlockArgument):  # the consumer's read of a staged vector
            return self._load(ld, coords)
        return super()._at(v, coords)

    def _load(self, op: Operation, coords) -> SSAValue:
        slot = self.kvec_slots.get(id(op))
        if slot is not None:
            return self._kvec_read(op, coords, *slot)
        target, scalars = ((self.pre, self.pre_scalars) if id(op) in self.hoistable else
                           (self.head, self.head_scalars) if id(op) in self.vector_loads else (None, None))
        if target is None:
            return super()._load(op, coords)
        moved = []
        for c in coords:  # the coordinates, as values of the code before the loop
            o = c.value.owner
            if isinstance(o, Operation) and o.parent_block() is self.e.block:
                if o.name != "arith.constant":
                    return super()._load(op, coords)  # a coordinate computed in the loop: loaded there
                c = Coord(target.const(o.value.value.data, o.results[0].type), c.acc_dim)
            moved.append(c)
        key = (id(op), tuple(id(c.value) for c in moved))
        hit = self.hoisted.get(key)
        if hit is None:
            e, kept = self.e, self.scalars
            self.e, self.scalars = target, scalars
            try:
                hit = super()._load(op, tuple(moved))
            finally:
                self.e, self.scalars = e, kept
            self.hoisted[key] = hit
        return hit

    def _kvec_read(self, op: Operation, coords, offset: SSAValue, smem: SSAValue, vec) -> SSAValue:
        """The value of TMA-loaded K vector ``op`` at ``coords`` (its tile's): one shared load at its slot
        ``offset`` plus the element's position along the vector's wide (last) dimension."""
        from xdsl.dialects import llvm
        from xdsl.dialects.builtin import BFloat16Type, i8, i16

        from tileorch.transforms.tileaa_to_simt.emit import memory_type

        c = coords[-1].value
        key = (id(op), id(c))
        hit = self.kvec_memo.get(key)
        if hit is not None:
            return hit
        e = self.e
        es = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i32": 4}[vec.dtype]
        at = e.add_i(offset, e.mul_i(c, e.const(es)) if es != 1 else c)
        ptr = e.v(llvm.GEPOp(smem, [llvm.GEP_USE_SSA_VAL], i8, ssa_indices=[at], result_type=smem.type))
        elt = op.results[0].type.element_type
        stored = i16 if isinstance(elt, BFloat16Type) else memory_type(elt)
        # the address's known alignment (the slot is 128-byte aligned): the load of a thread's first of 8
        # consecutive values says 16, and LLVM's load-store vectorizer merges them into one vector load
        align = min(16, es * known_multiple(c))
        raw = e.v(llvm.LoadOp(ptr, stored, alignment=align & -align))
        if isinstance(elt, BFloat16Type):
            raw = e.bf16_bits_to_f32(raw)
        self.kvec_memo[key] = raw
        return raw

    def _scalar(self, v: SSAValue):
        if isinstance(v, BlockArgument) and id(v) in self.k_ivs and self.kt is not None:
            return self.kt if v.type == self.kt.type else self._cast(self.e, self.kt, v.type)
        return super()._scalar(v)


def known_multiple(v: SSAValue, depth: int = 8) -> int:
    """A power of two (at most 1024) ``v`` (an i32 index) is known to be a multiple of, from its defining
    constants, additions, multiplications and left shifts."""
    from math import gcd

    top = 1024
    o = v.owner
    if depth == 0 or not isinstance(o, Operation):
        return 1
    if isinstance(o, arith.ConstantOp):
        if not hasattr(o.value, "value"):  # not an integer constant: nothing known
            return 1
        x = o.value.value.data
        return top if x == 0 else min(top, x & -x)
    if isinstance(o, arith.AddiOp | arith.SubiOp):
        return gcd(known_multiple(o.lhs, depth - 1), known_multiple(o.rhs, depth - 1))
    if isinstance(o, arith.MuliOp):
        return min(top, known_multiple(o.lhs, depth - 1) * known_multiple(o.rhs, depth - 1))
    if isinstance(o, arith.ShLIOp) and isinstance(o.rhs.owner, arith.ConstantOp):
        return min(top, known_multiple(o.lhs, depth - 1) << o.rhs.owner.value.value.data)
    return 1


def raw_element(e: Emitter, word: SSAValue, x: int, res: int, elt) -> SSAValue:
    """Element ``x`` of a raw tile's 32-bit ``word`` (``res`` bytes an element, 1, 2 or 4; element ``x`` at
    bits ``8 res (x mod 4 / res)``) as the value the program's ops start from: f16/f32 bitcast, bf16 and fp8
    as their exact f32, integers as their bits (the program's own cast converts them)."""
    from xdsl.dialects.builtin import BFloat16Type, IntegerType, i8, i16

    from tileorch.transforms.tileaa_to_simt.emit import is_fp8

    if res == 4:
        bits = word
    else:
        sh = 8 * res * (x % (4 // res))
        shifted = e.v(arith.ShRUIOp(word, e.const(sh))) if sh else word
        bits = e.v(arith.TruncIOp(shifted, i8 if res == 1 else i16))
    if isinstance(elt, BFloat16Type):
        return e.bf16_bits_to_f32(bits)
    if is_fp8(elt):  # the value as f32 (exact); the program's cast rounds it to the operand type
        return e.f8_bits_to_f32(e.v(arith.BitcastOp(bits, i8)) if bits.type != i8 else bits, elt)
    if isinstance(elt, IntegerType):
        return bits
    return e.v(arith.BitcastOp(bits, elt))


class CachingEmitter(Emitter):
    """An emitter of one straight-line block whose integer constants are made once (a coordinate
    constant is then one value, and the lowering's memo finds a vector's value at it again)."""

    def const(self, value: int, typ=i32) -> SSAValue:
        key = (value, str(typ))
        hit = self.consts.get(key)
        if hit is None:
            hit = self.consts[key] = super().const(value, typ)
        return hit


def reads_loop_value(v: SSAValue, entry, memo: dict | None = None) -> bool:
    """Whether ``v`` depends on a value defined inside a region of the kernel (a loop's induction
    variable or carried value), through its defining ops' operands (a load's indices included)."""
    memo = {} if memo is None else memo
    hit = memo.get(id(v))
    if hit is not None:
        return hit
    if isinstance(v, BlockArgument):
        out = v.owner is not entry
    else:
        memo[id(v)] = False  # (no cycles in SSA; guards a revisit)
        out = any(reads_loop_value(x, entry, memo) for x in v.owner.operands)
    memo[id(v)] = out
    return out
