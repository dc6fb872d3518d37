"""Op-building helpers for the SIMT lowering: an insertion block plus arithmetic, index math,
global/shared memory access, warp shuffles and the PTX math the tile ops need.

Tile values are *blocked* (see ``layout.py``): with ``T`` threads and a run length ``v``,
element ``f`` (row-major flat index) of a tile lives in thread ``(f // v) % T``, slot
``(f // (v * T)) * v + f % v``; ``v = 1`` is the cyclic distribution.  See :class:`Tile`.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import (AnyFloat, BFloat16Type, DenseArrayBase, Float8E4M3FNType, Float8E5M2Type,
                                   Float16Type, Float32Type, Float64Type, FloatAttr, FloatTF32Type, IntegerAttr,
                                   IntegerType, StringAttr, UnitAttr, VectorType, f16, f32, f64, i1, i8, i16, i32, i64)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tileorch.backend.intrinsics import PTX_MATH, PTX_MATH_SWAPPED, ptx_math_signature
from tileorch.dialects import llvm_ext, nvvm
from tileorch.dialects.nv_tileaa.attrs import PointerType
from tileorch.lazy_import import lazy_module
from tileorch.transforms.op_init import create_op
from tileorch.transforms.tileaa_to_simt import f64_math as _f64

_f64_trig = lazy_module("tileorch.transforms.tileaa_to_simt.f64_trig")
"""The f64 sin/cos/tan/atan2 (imported on the first f64 trig op: its constant tables import ``fractions`` and
``decimal``, ~2 ms of a cold SIMT compile that has none)."""

GLOBAL_PTR = nvvm.PTR_GLOBAL
SHARED_PTR = nvvm.PTR_SHARED

FLOAT_BITS: dict[type, int] = {Float16Type: 16, BFloat16Type: 16, Float32Type: 32, Float64Type: 64}
"""Bits of the float types printed ``f16``, ``bf16``, ``f32``, ``f64``, by class (``str(t)`` prints the type through
xDSL's printer: ~20 us, which a softmax's lowering paid 138 times)."""


def f64_math(kind: str) -> str:
    """The refusal of a transcendental function on f64 (computed in f32 only, through the MUFU
    approximations), with the way around it."""
    return (f"{kind} on f64 (transcendental functions are computed in f32 only on this path; "
            f"compute it on float32 operands: x.astype(ct.float32))")


@dataclass
class Tile:
    """A tile value held by this thread: ``slots[s]`` is element ``Emitter.flat(s, v)`` with
    ``v`` the run length of the tile's shape (``SimtLayout.vec_of``).  ``replicated``: a
    one-element tile whose value every thread holds in every slot (a reduction's result), so
    that a broadcast or extract of it needs no exchange."""

    shape: tuple[int, ...]
    element: Attribute
    slots: list[SSAValue]
    replicated: bool = False

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


FP8_KINDS = {Float8E4M3FNType: "e4m3", Float8E5M2Type: "e5m2"}
"""The 8-bit float element types the SIMT lowering takes (PTX ``e4m3``/``e5m2``, sm_89+), held in
registers as f32 like bf16: loads widen exactly (``cvt.rn.f16x2.e4m3x2``), stores and ``fp_to_fp``
round to nearest even, saturating to the largest finite value (``cvt.rn.satfinite.e4m3x2.f32``;
NaN stays NaN but not its sign: a NaN that went through registers is stored as 0x7F).  Checked
on an H200 against torch's float8 conversions (all 256 codes of each type)."""

FLOAT_BYTES = {Float16Type: 2, BFloat16Type: 2, Float32Type: 4, Float64Type: 8, Float8E4M3FNType: 1,
               Float8E5M2Type: 1, FloatTF32Type: 4}
"""The float element types the SIMT lowering takes, and their bytes in memory (tf32 in a 32-bit
container, held as f32 rounded to tf32's 10-bit mantissa)."""
INT_WIDTHS = (1, 8, 16, 32, 64)


@lru_cache(maxsize=4096, typed=True)
def integer_attr(value: int, typ: Attribute) -> IntegerAttr:
    """``IntegerAttr(value, typ)``, built (and verified) once per distinct pair: attributes are
    immutable values, shared by every constant of that value (a SIMT kernel makes a few thousand
    constants of a few dozen values)."""
    return IntegerAttr(value, typ)


_FLOAT_ATTRS: dict[tuple, FloatAttr] = {}


def float_attr(value: float, typ: Attribute) -> FloatAttr:
    """``FloatAttr(value, typ)``, built (and verified) once per distinct value and type, as
    :func:`integer_attr`: keyed by the value's bits (``0.0`` and ``-0.0``, NaN payloads stay
    apart, which a key by ``==`` would merge).  A GELU or exp epilogue makes a few constants per
    element, the same dozen for every element."""
    if type(value) is float:
        key = (float, struct.pack("<d", value), typ)
    elif type(value) is int:
        key = (int, value, typ)
    else:
        return FloatAttr(value, typ)
    attr = _FLOAT_ATTRS.get(key)
    if attr is None:
        if len(_FLOAT_ATTRS) >= 4096:
            _FLOAT_ATTRS.clear()
        attr = _FLOAT_ATTRS[key] = FloatAttr(value, typ)
    return attr


def int_constant(v: SSAValue) -> int | None:
    """The signed value of ``v`` when an ``arith.constant`` of an integer type wider than i1
    defines it, else None (an i1's ``1`` is -1 signed: booleans are left alone)."""
    op = v.owner
    if type(op) is not arith.ConstantOp:
        return None
    attr = op.value
    if type(attr) is not IntegerAttr or type(attr.type) is not IntegerType or attr.type.width.data < 2:
        return None
    width = attr.type.width.data
    k = attr.value.data & ((1 << width) - 1)
    return k - (1 << width) if k >> (width - 1) else k


CMPI_PREDICATES = {"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4, "sge": 5, "ult": 6, "ule": 7, "ugt": 8, "uge": 9}
"""``arith.cmpi``'s predicate names and their values (``arith.CmpiOp``'s table)."""


def cmpi(a: SSAValue | Operation, b: SSAValue | Operation, predicate: str | int) -> arith.CmpiOp:
    """``arith.CmpiOp(a, b, predicate)``: the same op (operand types checked alike), its
    predicate attribute shared per value (:func:`integer_attr`) instead of built and verified
    for each comparison (a SIMT kernel's bounds tests make a few hundred)."""
    a, b = SSAValue.get(a), SSAValue.get(b)
    arith.CmpiOp._validate_operand_types(a, b)
    value = CMPI_PREDICATES[predicate] if isinstance(predicate, str) else predicate
    return create_op(arith.CmpiOp, [a, b], [i1], {"predicate": integer_attr(value, i64)})


_BINARY_PROPERTIES: dict[type, tuple] = {}
"""Op class -> the properties (name, value) its constructor ``cls(lhs, rhs)`` gives an op (read
from one op built by it, once per class: ``overflowFlags`` none for ``arith.addi``/``muli``/...)."""


def binary(cls: type, lhs: SSAValue, rhs: SSAValue) -> Operation:
    """``cls(lhs, rhs)`` for an ``arith`` integer binary op class (result of ``lhs``'s type): the
    same op (operands, result type, properties), built by :func:`create_op` with the properties that
    constructor gives, read once per class instead of built for each op (a SIMT kernel's address
    arithmetic and bounds tests make thousands)."""
    props = _BINARY_PROPERTIES.get(cls)
    if props is None:
        probe = Block(arg_types=[i32, i32])
        props = _BINARY_PROPERTIES[cls] = tuple(cls(*probe.args).properties.items())
    lhs, rhs = SSAValue.get(lhs), SSAValue.get(rhs)
    return create_op(cls, [lhs, rhs], [lhs.type], dict(props))


_CAST_PROPERTIES: dict[type, tuple] = {}
"""Op class -> the properties (name, value) its constructor ``cls(value, type)`` gives an op (read
from one op built by it, once per class: none for the casts of ``arith`` and ``llvm.ptrtoint``)."""


def cast(cls: type, value: SSAValue, typ: Attribute) -> Operation:
    """``cls(value, typ)`` for a one-operand conversion op class (``arith.extui``, ``extsi``,
    ``trunci``, ``bitcast``, ``llvm.ptrtoint``): the same op (operand, result type, properties),
    built by :func:`create_op` as :func:`binary` builds its ops."""
    props = _CAST_PROPERTIES.get(cls)
    if props is None:
        probe = Block(arg_types=[i32])
        props = _CAST_PROPERTIES[cls] = tuple(cls(probe.args[0], i64).properties.items())
    return create_op(cls, [SSAValue.get(value)], [typ], dict(props))


@lru_cache(maxsize=64)
def int_type(width: int) -> IntegerType:
    """``IntegerType(width)``, made once per width (an immutable type: every use shares it)."""
    return IntegerType(width)


@lru_cache(maxsize=64)
def _memory_properties(alignment: int | None) -> tuple[tuple[str, Attribute], ...]:
    ordering = (("ordering", integer_attr(0, i64)),)
    return ordering if alignment is None else (*ordering, ("alignment", integer_attr(alignment, i64)))


def load_op(ptr: SSAValue, typ: Attribute, alignment: int | None = None) -> llvm.LoadOp:
    """``llvm.LoadOp(ptr, typ, alignment=alignment)``: the same op, its ``ordering`` (0) and
    ``alignment`` attributes shared per value (:func:`integer_attr`) instead of built and verified
    for each load."""
    return create_op(llvm.LoadOp, [SSAValue.get(ptr)], [typ], dict(_memory_properties(alignment)))


def store_op(value: SSAValue, ptr: SSAValue, alignment: int | None = None) -> llvm.StoreOp:
    """``llvm.StoreOp(value, ptr, alignment=alignment)`` (not volatile, not nontemporal): the same op,
    its attributes shared as :func:`load_op`'s."""
    return create_op(llvm.StoreOp, [SSAValue.get(value), SSAValue.get(ptr)], [], dict(_memory_properties(alignment)))


def constant_op(attr: IntegerAttr | FloatAttr) -> arith.ConstantOp:
    """``arith.ConstantOp(attr)`` for an integer or float attribute: the same op (result type the
    attribute's, the attribute its ``value``), built by :func:`create_op` (the constants of a
    chained kernel's per-element epilogue: 2% of its lowering in xDSL's builder)."""
    return create_op(arith.ConstantOp, [], [attr.get_type()], {"value": attr})


@lru_cache(maxsize=256)
def _gep_properties(elem: Attribute) -> tuple[tuple[str, Attribute], ...]:
    return (("rawConstantIndices", DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL])), ("elem_type", elem),
            ("noWrapFlags", integer_attr(0, i32)))


def gep(base: SSAValue, index: SSAValue, elem: Attribute, ptr_type: Attribute) -> llvm.GEPOp:
    """``llvm.GEPOp(base, [GEP_USE_SSA_VAL], elem, ssa_indices=[index], result_type=ptr_type)``:
    the same op, its properties built once per element type."""
    return create_op(llvm.GEPOp, [base, index], [ptr_type], dict(_gep_properties(elem)))


@lru_cache(maxsize=64)
def position(i: int) -> DenseArrayBase:
    """``llvm.extractvalue``'s position ``[i]``, built once per index (attributes are immutable)."""
    return DenseArrayBase.from_list(i64, [i])


_PTX_TYPES = {"float": f32, "double": f64, "i32": i32, "i64": i64}
"""LLVM IR type name -> type, of the results of :data:`PTX_MATH`'s intrinsics."""


@lru_cache(maxsize=None)
def _ptx_op(opcode: str) -> tuple[tuple[tuple[str, Attribute], ...], Attribute]:
    """(the properties, in ``llvm.CallIntrinsicOp``'s order, and the result type) of the intrinsic call of the PTX
    instruction ``opcode`` (:meth:`Emitter.ptx`): the same op as its builder makes, built once per instruction (a
    softmax lowers some hundreds of them)."""
    ret, operands = ptx_math_signature(opcode)
    props = (("intrin", StringAttr(PTX_MATH[opcode])), ("op_bundle_sizes", DenseArrayBase.from_list(i32, ())),
             ("operandSegmentSizes", DenseArrayBase.from_list(i32, [len(operands), 0])),
             ("fastmathFlags", llvm.FastMathAttr(None)))
    return props, _PTX_TYPES[ret]


@lru_cache(maxsize=16)
def _words_struct(nwords: int) -> Attribute:
    """``!llvm.struct<(i32, ...)>`` of ``nwords`` words, built once per count."""
    return llvm.LLVMStructType.from_type_list([i32] * nwords)


@lru_cache(maxsize=1024)
def _asm_properties(asm: str, constraints: str, has_side_effects: bool) -> tuple[tuple[str, Attribute], ...]:
    props: list[tuple[str, Attribute]] = [("asm_string", StringAttr(asm)), ("constraints", StringAttr(constraints))]
    if has_side_effects:
        props.append(("has_side_effects", UnitAttr()))
    return tuple(props)


def inline_asm(asm: str, constraints: str, operands: Sequence[SSAValue], result_types: Sequence[Attribute],
               has_side_effects: bool = False) -> llvm.InlineAsmOp:
    """``llvm.InlineAsmOp(asm, constraints, operands, result_types, has_side_effects=...)``: the
    same op (the same properties, in the same order; ``tail_call_kind`` left to its default), its
    string attributes built once per text (an epilogue repeats a handful of asm texts per element)."""
    return create_op(llvm.InlineAsmOp, list(operands), list(result_types),
                     dict(_asm_properties(asm, constraints, has_side_effects)))


def is_fp8(t: Attribute) -> bool:
    return type(t) in FP8_KINDS


def supported_element(t: Attribute) -> bool:
    """An element type the SIMT lowering holds in registers and moves through memory."""
    if isinstance(t, IntegerType):
        return t.width.data in INT_WIDTHS
    return type(t) in FLOAT_BYTES


def byte_size(t: Attribute) -> int:
    """Bytes of one element in memory (i1 is stored as one byte)."""
    if isinstance(t, IntegerType):
        return max(1, (t.width.data + 7) // 8)
    if type(t) not in FLOAT_BYTES:
        raise NotImplementedError(f"element type {t}")
    return FLOAT_BYTES[type(t)]


def strides_of(shape: Sequence[int]) -> list[int]:
    """Row-major strides (in elements) of a static shape."""
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return out[::-1]


@dataclass
class Emitter:
    """Appends ops to ``block``; ``tid`` and ``threads`` describe the CTA."""

    block: Block
    threads: int
    tid: SSAValue | None = None
    consts: dict = field(default_factory=dict)
    """id(attribute) -> (the attribute, the constant of it this emitter defined in ``block``): see :meth:`_constant`."""
    share_constants: bool = True
    """:meth:`const`/:meth:`fconst` reuse this emitter's earlier constant of the value (one per
    value and emitter instead of one per use).  Also the TileAS tier's builders (session 39,
    issue 22): they made one constant per use because they move ops between blocks, and
    ``cse-constants`` erased a quarter of the ops they built (19 of 77 thousand over the
    compile-time set); sharing them when they are built gave the same PTX for every input of
    ``tools/ptx_identity.py`` (the final verification checks that every use is dominated)."""
    appends_only: bool = False
    """This emitter only appends to ``block`` (the SIMT lowering's): values derived from an operand
    (``f64_trig.reduce``'s argument reduction) are shared too, :attr:`f64_reduced`."""
    fold_constants: bool = False
    """:meth:`sext` of a constant is the constant of the wider type instead of an ``arith.extsi``
    (the SIMT lowering: a static stride's or coordinate's extension to i64 in a tile's address
    math).  LLVM folds it too, but its result can depend on the form it is given, so each call
    site that folds was checked to keep the PTX byte-identical (``tools/ptx_identity.py``, every
    ``simt_`` program): the stride of a run's address keeps its ``arith.extsi`` (folded, it added a
    ``cvt.u64.u32`` per gathered run), and products and sums are not folded (``x * 1``, ``x + 0``
    and ``0 * x`` folded here made LLVM choose other base registers, immediate offsets, operand
    orders and instruction orders for some kernels: same instructions, other PTX, not measured
    on a GPU)."""
    fp8_bits: dict = field(default_factory=dict)
    """f32 values that are fp8 or bf16 elements -> (their bits (i8 / i16), the element type or
    ``"bf16"``), defined just before them: a store of such a value as that type writes the bits
    instead of converting it again."""
    scaled_tid: dict = field(default_factory=dict)
    """run length ``v`` -> ``tid * v``, defined in the kernel's entry block (see ``flat``)."""
    word_elems: dict = field(default_factory=dict)
    """Element value -> (the 32-bit words it was unpacked from, its index, its type), as
    :meth:`words_to_elements` gave it: :meth:`store_vector` stores such elements as those words."""
    f64_reduced: dict = field(default_factory=dict)
    """f64 value -> its argument reduction by pi/2 (``f64_trig.reduce``) defined in ``block``: ``sin`` / ``cos`` /
    ``tan`` of one value share it (kept where :attr:`appends_only`)."""

    def add(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def v(self, op: Operation) -> SSAValue:
        return self.add(op).results[0]

    def nested(self, block: Block) -> Emitter:
        return Emitter(block, self.threads, self.tid, fp8_bits=self.fp8_bits, scaled_tid=self.scaled_tid,
                       word_elems=self.word_elems, share_constants=self.share_constants,
                       appends_only=self.appends_only, fold_constants=self.fold_constants)

    # -- constants and integer math (i32 unless said) ----------------------------------------
    def const(self, value: int, typ: Attribute = i32) -> SSAValue:
        return self._constant(integer_attr(value, typ))

    def fconst(self, value: float, typ: Attribute = f32) -> SSAValue:
        return self._constant(float_attr(value, typ))

    def _constant(self, attr: Attribute) -> SSAValue:
        """An ``arith.constant`` of ``attr`` in this emitter's block; with :attr:`share_constants`
        the one this emitter defined there before (:attr:`consts`), else a new one appended.  Every op is appended
        at the block's end, so an earlier constant of the block dominates what comes after it;
        a kernel then has one constant per value and block instead of one per use (a softmax
        762 -> 278 constant ops; LLVM IR has no constant instructions, so neither the LLVM IR
        nor the PTX changes).  Keyed by the attribute's identity (:func:`integer_attr` and
        :func:`float_attr` share one object per value, and the entry keeps it alive): equal
        floats that differ in bits (``0.0``/``-0.0``, NaN payloads) are never merged."""
        if not self.share_constants:
            return self.v(constant_op(attr))
        entry = self.consts.get(id(attr))
        if entry is not None:
            return entry[1]
        value = self.v(constant_op(attr))
        self.consts[id(attr)] = (attr, value)
        return value

    def once(self, key: tuple, make: Callable[[], object]) -> object:
        """``make()``, once per ``key`` and emitter where the emitter shares its constants (else each
        call makes it): what every element of a tile repeats (a store's tile origin ``index * step``, its
        strides as i64: built for each element before session 39, LLVM merged them; the PTX of every input
        of ``tools/ptx_identity.py`` is the same).  Kept in :attr:`consts` under ``key``'s SSA values'
        identities, the entry holding ``key`` (the ids stay theirs); ``key[0]`` a string naming the kind."""
        if not self.share_constants:
            return make()
        memo_key = (key[0], *(id(k) if isinstance(k, SSAValue) else k for k in key[1:]))
        hit = self.consts.get(memo_key)
        if hit is None:
            hit = self.consts[memo_key] = (key, make())
        return hit[1]

    def add_i(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(binary(arith.AddiOp, a, b))

    def mul_i(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.v(binary(arith.MuliOp, a, b))

    def sext(self, v: SSAValue, typ: Attribute) -> SSAValue:
        """``v`` sign-extended to the wider integer type ``typ`` (``arith.extsi``); with
        :attr:`fold_constants` the constant of ``typ`` for a constant ``v`` (a static stride)."""
        if self.fold_constants:
            k = int_constant(v)
            if k is not None:
                return self.const(k, typ)
        return self.v(cast(arith.ExtSIOp, v, typ))

    def flat(self, slot: int, vec: int = 1) -> SSAValue:
        """Flat element index of ``slot`` in this thread for runs of ``vec`` elements:
        ``(slot // vec) * vec * threads + tid * vec + slot % vec`` (``tid + slot * threads``
        for ``vec == 1``)."""
        if vec == 1:
            base = self.tid
        elif vec in self.scaled_tid:
            base = self.scaled_tid[vec]
        else:
            base = self.mul_i(self.tid, self.const(vec))
        offset = (slot // vec) * vec * self.threads + slot % vec
        return base if offset == 0 else self.add_i(base, self.const(offset))

    def unravel(self, f: SSAValue, shape: Sequence[int]) -> list[SSAValue]:
        """Coordinates of flat row-major index ``f`` in a static ``shape``."""
        coords = []
        for i, (d, stride) in enumerate(zip(shape, strides_of(shape))):
            if d == 1:
                coords.append(self.const(0))
                continue
            q = f if stride == 1 else self.v(binary(arith.DivUIOp, f, self.const(stride)))
            # f < numel (callers predicate or clamp): the outermost non-unit quotient needs no wrap
            outer = all(x == 1 for x in shape[:i])
            coords.append(q if outer else self.v(binary(arith.RemUIOp, q, self.const(d))))
        return coords

    def unravel_slot(self, slot: int, vec: int, shape: Sequence[int]) -> list[SSAValue] | None:
        """Coordinates of this thread's ``slot`` (runs of ``vec``) in a tile of ``shape`` as
        ``unravel(tid * vec)`` plus constants, or None where that does not hold.  It holds when
        every extent, ``vec`` and the thread count are powers of two and the threads' slots cover
        the tile exactly: the slot's flat index ``tid * vec + off`` (``off`` the constant of
        :meth:`flat`) then has ``tid * vec`` and ``off`` in disjoint bits, and each coordinate is a
        bit field of it, the sum of the two fields.  Every slot's coordinates share the thread's
        ``unravel(tid * vec)`` (one computation after common-subexpression elimination) instead of
        a division and remainder each."""
        numel = 1
        for d in shape:
            numel *= d
        pow2 = all(d > 0 and d & (d - 1) == 0 for d in (*shape, vec, self.threads))
        if not shape or not pow2 or numel % (vec * self.threads):
            return None
        mine = self.unravel(self.flat(0, vec), shape)
        off = (slot // vec) * vec * self.threads + slot % vec
        out = []
        for c, d, stride in zip(mine, shape, strides_of(shape)):
            k = (off // stride) % d
            out.append(c if k == 0 else self.add_i(c, self.const(k)))
        return out

    def ravel(self, coords: Sequence[SSAValue], shape: Sequence[int]) -> SSAValue:
        """Flat row-major index of ``coords`` in a static ``shape``."""
        total = None
        for c, stride, d in zip(coords, strides_of(shape), shape):
            if d == 1:
                continue
            term = c if stride == 1 else self.mul_i(c, self.const(stride))
            total = term if total is None else self.add_i(total, term)
        return total if total is not None else self.const(0)

    def in_range(self, f: SSAValue, n: int) -> SSAValue:
        return self.v(cmpi(f, self.const(n), "ult"))

    # -- memory -----------------------------------------------------------------------------
    def gep(self, base: SSAValue, index: SSAValue, elem: Attribute, ptr_type) -> SSAValue:
        return self.v(gep(base, index, elem, ptr_type))

    def load(self, ptr: SSAValue, typ: Attribute, alignment: int | None = None) -> SSAValue:
        """A load of ``typ``; ``alignment`` (bytes) where known, else LLVM's default for the type
        (4 for a 64-bit integer: two 32-bit loads)."""
        return self.v(load_op(ptr, typ, alignment))

    def store(self, value: SSAValue, ptr: SSAValue, alignment: int | None = None) -> None:
        self.add(store_op(value, ptr, alignment))

    def load_global(self, ptr: SSAValue, typ: Attribute) -> SSAValue:
        """A global array element of ``typ`` (its address a multiple of its size, as every array
        element's is): one access of its width, also for 64-bit elements."""
        return self.load(ptr, typ, byte_size(typ))

    def store_global(self, value: SSAValue, ptr: SSAValue) -> None:
        """``value`` into a global array element (naturally aligned, see :meth:`load_global`)."""
        self.store(value, ptr, byte_size(value.type))

    def barrier(self) -> None:
        self.add(nvvm.BarrierOp())

    def shuffle_xor(self, x: SSAValue, mask: int) -> SSAValue:
        """``x`` of the lane ``laneid ^ mask`` of this warp (``shfl.sync.bfly.b32``, all 32 lanes
        taking part); values other than 32 bits travel as one or two 32-bit words."""
        return self.shuffle(x, "bfly", self.const(mask))

    def shuffle_up(self, x: SSAValue, delta: int) -> SSAValue:
        """``x`` of the lane ``laneid - delta`` (``shfl.sync.up.b32``; lanes below ``delta`` get
        their own value), all 32 lanes taking part."""
        return self.shuffle(x, "up", self.const(delta))

    def shuffle_idx(self, x: SSAValue, lane: SSAValue) -> SSAValue:
        """``x`` of lane ``lane`` (an i32 per thread; ``shfl.sync.idx.b32``), all 32 lanes taking part."""
        return self.shuffle(x, "idx", lane)

    def shuffle(self, x: SSAValue, kind: str, arg: SSAValue) -> SSAValue:
        """``shfl.sync.<kind>.b32`` of ``x`` (``bfly``: lane ^ arg, ``up``: lane - arg, ``down``: lane +
        arg, ``idx``: lane arg; out of the warp: the lane's own value); values other than 32 bits travel as one or two 32-bit words."""
        typ = x.type
        width = typ.width.data if isinstance(typ, IntegerType) else FLOAT_BITS[type(typ)]
        clamp = 0 if kind == "up" else 31  # up: lanes below the delta keep their value; down: above 31 - delta

        def shfl(word: SSAValue) -> SSAValue:
            return self.v(llvm.CallIntrinsicOp(f"llvm.nvvm.shfl.sync.{kind}.i32",
                                               [self.const(-1), word, arg, self.const(clamp)], [i32]))

        if width == 64:
            bits = x if isinstance(typ, IntegerType) else self.v(arith.BitcastOp(x, i64))
            lo = shfl(self.v(arith.TruncIOp(bits, i32)))
            hi = shfl(self.v(arith.TruncIOp(self.v(arith.ShRUIOp(bits, self.const(32, i64))), i32)))
            bits = self.v(arith.OrIOp(self.v(arith.ExtUIOp(lo, i64)),
                                      self.v(arith.ShLIOp(self.v(arith.ExtUIOp(hi, i64)), self.const(32, i64)))))
            return bits if isinstance(typ, IntegerType) else self.v(arith.BitcastOp(bits, typ))
        if isinstance(typ, IntegerType):
            if width == 32:
                return shfl(x)
            return self.v(arith.TruncIOp(shfl(self.v(arith.ExtUIOp(x, i32))), typ))
        if width == 32:
            return self.v(arith.BitcastOp(shfl(self.v(arith.BitcastOp(x, i32))), typ))
        half = self.v(arith.BitcastOp(x, i16))
        back = self.v(arith.TruncIOp(shfl(self.v(arith.ExtUIOp(half, i32))), i16))
        return self.v(arith.BitcastOp(back, typ))

    def if_(self, cond: SSAValue, then: Callable[[Emitter], Sequence[SSAValue] | None],
            otherwise: Callable[[Emitter], Sequence[SSAValue] | None] | None = None,
            types: Sequence[Attribute] = ()) -> list[SSAValue]:
        regions = []
        for body in (then, otherwise):
            if body is None:
                regions.append(Region(Block([scf.YieldOp()])) if types == () else None)
                continue
            blk = Block()
            out = body(self.nested(blk)) or []
            blk.add_op(scf.YieldOp(*out))
            regions.append(Region(blk))
        op = self.add(scf.IfOp(cond, list(types), regions[0], regions[1]))
        return list(op.results)

    def for_(self, lb: SSAValue, ub: SSAValue, step: SSAValue, inits: Sequence[SSAValue],
             body: Callable[[Emitter, SSAValue, list[SSAValue]], Sequence[SSAValue]]) -> list[SSAValue]:
        blk = Block(arg_types=[lb.type, *[v.type for v in inits]])
        out = body(self.nested(blk), blk.args[0], list(blk.args[1:]))
        blk.add_op(scf.YieldOp(*out))
        return list(self.add(scf.ForOp(lb, ub, step, list(inits), Region(blk))).results)

    # -- float math (PTX; f32, other floats through f32) --------------------------------------
    def load_words_if(self, pred: SSAValue, ptr: SSAValue, nwords: int,
                      fill: Sequence[int] | None = None) -> list[SSAValue]:
        """``nwords`` (1, 2 or 4) 32-bit words at the global ``ptr`` (aligned to ``4 * nwords``
        bytes) where ``pred`` (i1) holds, else zeros (``fill``: these words, immediates of the
        ``mov`` that precedes the load, so a padded run needs no select): one predicated
        ``ld.global.v{n}.b32`` (inline PTX), no branch, so the vector loads of several runs are
        all issued before the first is used (a load inside an ``if`` whose value is unpacked in
        the branch waits there).
        """
        if nwords not in (1, 2, 4):
            raise ValueError(f"load_words_if: {nwords} words")
        fill = list(fill) if fill is not None else [0] * nwords
        if len(fill) != nwords:
            raise ValueError(f"load_words_if: {len(fill)} fill words for {nwords}")
        p32 = self.v(cast(arith.ExtUIOp, pred, i32))
        addr = self.v(cast(llvm.PtrToIntOp, ptr, i64))
        regs = ", ".join(f"${i}" for i in range(nwords))
        dst = f"{{{regs}}}" if nwords > 1 else "$0"
        vec = f".v{nwords}" if nwords > 1 else ""
        zero = " ".join(f"mov.b32 ${i}, {w & 0xFFFFFFFF:#x};" if w else f"mov.b32 ${i}, 0;"
                        for i, w in enumerate(fill))
        asm = (f"{{ .reg .pred p; setp.ne.b32 p, ${nwords}, 0; {zero} "
               f"@p ld.global{vec}.b32 {dst}, [${nwords + 1}]; }}")
        constraints = ",".join(["=r"] * nwords + ["r", "l"])
        # inline assembly: no LLVM intrinsic issues a global access under a predicate (a branch would instead)
        if nwords == 1:
            return [self.v(inline_asm(asm, constraints, [p32, addr], [i32], has_side_effects=True))]
        st = self.v(inline_asm(asm, constraints, [p32, addr], [_words_struct(nwords)], has_side_effects=True))
        return [self.v(llvm.ExtractValueOp(position(i), st, i32)) for i in range(nwords)]

    def load_element_if(self, pred: SSAValue, ptr: SSAValue, typ: Attribute, fill: SSAValue) -> SSAValue | None:
        """The ``typ`` element at the global ``ptr`` where ``pred`` (i1) holds, else ``fill``: one
        predicated ``ld.global.b{16,32,64}`` (inline PTX), no branch; None for a type it does not
        take (8-bit elements: the caller branches)."""
        form = predicated_form(typ)
        if form is None or fill.type != typ:
            return None
        bits, letter = form
        p32 = self.v(cast(arith.ExtUIOp, pred, i32))
        addr = self.v(cast(llvm.PtrToIntOp, ptr, i64))
        # inline assembly: no LLVM intrinsic issues a global access under a predicate (a branch would instead)
        asm = f"{{ .reg .pred p; setp.ne.b32 p, $1, 0; mov.b{bits} $0, $3; @p ld.global.b{bits} $0, [$2]; }}"
        return self.v(inline_asm(asm, f"={letter},r,l,{letter}", [p32, addr, fill], [typ], has_side_effects=True))

    def store_element_if(self, pred: SSAValue, value: SSAValue, ptr: SSAValue) -> bool:
        """``value`` into the global ``ptr`` where ``pred`` (i1) holds: one predicated
        ``st.global.b{16,32,64}`` (inline PTX), no branch; False (nothing emitted) for a type it
        does not take (8-bit elements: the caller branches)."""
        form = predicated_form(value.type)
        if form is None:
            return False
        bits, letter = form
        p32 = self.v(cast(arith.ExtUIOp, pred, i32))
        addr = self.v(cast(llvm.PtrToIntOp, ptr, i64))
        # inline assembly: no LLVM intrinsic issues a global access under a predicate (a branch would instead)
        asm = f"{{ .reg .pred p; setp.ne.b32 p, $0, 0; @p st.global.b{bits} [$1], $2; }}"
        self.add(inline_asm(asm, f"r,l,{letter}", [p32, addr, value], [], has_side_effects=True))
        return True

    def words_to_elements(self, words: Sequence[SSAValue], elem: Attribute, count: int) -> list[SSAValue]:
        """The ``count`` elements of type ``elem`` (1, 2, 4 or 8 bytes) packed little-endian in the
        32-bit ``words`` (as a vector load of them would give)."""
        size = byte_size(elem)
        out = []
        for j in range(count):
            at = j * size
            if size == 8:
                lo = self.v(cast(arith.ExtUIOp, words[at // 4], i64))
                hi = self.v(cast(arith.ExtUIOp, words[at // 4 + 1], i64))
                bits = self.v(binary(arith.OrIOp, lo, self.v(binary(arith.ShLIOp, hi, self.const(32, i64)))))
            else:
                w = words[at // 4]
                sh = (at % 4) * 8
                if sh:
                    w = self.v(binary(arith.ShRUIOp, w, self.const(sh)))
                bits = w if size == 4 else self.v(cast(arith.TruncIOp, w, int_type(size * 8)))
            out.append(self.v(cast(arith.BitcastOp, bits, elem)) if is_float(elem) else bits)
        key = tuple(words)
        for j, x in enumerate(out):
            self.word_elems[x] = (key, j, elem)
        return out

    def store_vector(self, values: Sequence[SSAValue], elem: Attribute, ptr: SSAValue) -> None:
        """Store ``values`` (memory form, type ``elem``) as one vector at ``ptr`` (aligned to its
        size).  Values that are, in order, all the elements :meth:`words_to_elements` unpacked
        from some words (a tile of 8- or 16-bit elements stored as it was loaded) are stored as
        those words: no repacking of the elements into 32-bit registers."""
        align = len(values) * byte_size(elem)
        info = [self.word_elems.get(v) for v in values]
        if byte_size(elem) < 4 and all(i is not None for i in info):
            words = info[0][0]
            if (all(i[0] == words and i[1] == j and i[2] == elem for j, i in enumerate(info))
                    and 4 * len(words) == align):
                vec = self.v(llvm_ext.PoisonOp(VectorType(i32, [len(words)])))
                for j, w in enumerate(words):
                    vec = self.v(llvm.InsertElementOp(vec, w, self.const(j)))
                self.add(store_op(vec, ptr, align))
                return
        vec = self.v(llvm_ext.PoisonOp(VectorType(elem, [len(values)])))
        for j, x in enumerate(values):
            vec = self.v(llvm.InsertElementOp(vec, x, self.const(j)))
        self.add(store_op(vec, ptr, align))

    def elements_to_words(self, values: Sequence[SSAValue], elem: Attribute) -> list[SSAValue]:
        """The 32-bit words that hold ``values`` (of type ``elem``: 1, 2, 4 or 8 bytes, as many
        as fill whole words) packed little-endian: the inverse of :meth:`words_to_elements`."""
        size = byte_size(elem)
        bits = []
        for x in values:
            if is_float(elem):
                x = self.v(cast(arith.BitcastOp, x, int_type(size * 8)))
            bits.append(x)
        if size == 8:
            out = []
            for x in bits:
                out.append(self.v(cast(arith.TruncIOp, x, i32)))
                out.append(self.v(cast(arith.TruncIOp, self.v(binary(arith.ShRUIOp, x, self.const(32, i64))), i32)))
            return out
        per = 4 // size
        out = []
        for k in range(0, len(bits), per):
            word = None
            for j, x in enumerate(bits[k:k + per]):
                x = x if size == 4 else self.v(cast(arith.ExtUIOp, x, i32))
                if j:
                    x = self.v(binary(arith.ShLIOp, x, self.const(j * size * 8)))
                word = x if word is None else self.v(binary(arith.OrIOp, word, x))
            out.append(word)
        return out

    def to_f32(self, x: SSAValue) -> SSAValue:
        if isinstance(x.type, Float32Type):
            return x
        if isinstance(x.type, Float64Type):
            return self.v(arith.TruncFOp(x, f32))
        return self.v(arith.ExtFOp(x, f32))

    def from_f32(self, x: SSAValue, typ: Attribute) -> SSAValue:
        """``x`` (f32) back in ``typ`` (f16 or f32; never f64: an f64 result computed in f32 would
        lose its precision silently, so an f64 path that reaches here is refused)."""
        if isinstance(typ, Float64Type):
            raise NotImplementedError("an f64 result computed in f32")
        return x if isinstance(typ, Float32Type) else self.v(arith.TruncFOp(x, typ))

    def ptx(self, opcode: str, args: Sequence[SSAValue]) -> SSAValue:
        """The PTX instruction ``opcode`` (with its modifiers: ``fma.rn.f32``, ``max.NaN.f32``, ``sqrt.rz.f64``...)
        of ``args`` (in PTX's operand order), as the LLVM 22 intrinsic NVPTX selects to exactly that instruction
        (:data:`tileorch.backend.intrinsics.PTX_MATH`); a KeyError for an instruction without one."""
        props, result = _ptx_op(opcode)
        args = list(reversed(args)) if opcode in PTX_MATH_SWAPPED else list(args)
        return self.v(create_op(llvm.CallIntrinsicOp, args, [result], dict(props)))

    def ptx_f32(self, asm: str, args: Sequence[SSAValue]) -> SSAValue:
        """Inline assembly of one f32 result (the tensor-core tier's epilogues; the SIMT path: :meth:`ptx`)."""
        constraints = ",".join(["=f"] + ["f"] * len(args))
        return self.v(inline_asm(asm, constraints, args, [f32]))

    def ptx_f64(self, asm: str, args: Sequence[SSAValue]) -> SSAValue:
        constraints = ",".join(["=d"] + ["d"] * len(args))
        return self.v(llvm.InlineAsmOp(asm, constraints, list(args), [f64]))

    def sqrt_directed(self, x: SSAValue, mode: str) -> SSAValue:
        """``sqrt(x)`` of an f32 or f64 ``x`` rounded ``mode`` (``rz`` / ``rm`` / ``rp``: PTX
        ``sqrt.<mode>``, IEEE: correctly rounded in that direction, subnormals kept)."""
        if isinstance(x.type, Float64Type):
            return self.ptx(f"sqrt.{mode}.f64", [x])
        return self.ptx(f"sqrt.{mode}.f32", [x])

    def arith_directed(self, kind: str, args: Sequence[SSAValue], mode: str) -> SSAValue:
        """``kind`` (``addf`` / ``subf`` / ``mulf`` / ``fma``) of f32 or f64 ``args`` rounded ``mode`` (``rz`` /
        ``rm`` / ``rp``): PTX ``add.<mode>`` / ``sub`` / ``mul`` / ``fma`` (IEEE, rounded once in that direction,
        subnormals kept; ``llvm.nvvm.add.rz.f`` ..., which LLVM neither contracts nor folds)."""
        op = {"addf": "add", "subf": "sub", "mulf": "mul", "fma": "fma"}[kind]
        width = 64 if isinstance(args[0].type, Float64Type) else 32
        if op == "sub":  # inline assembly: LLVM 22 has add/mul/fma/div.{rz,rm,rp} intrinsics but no sub
            return (self.ptx_f64 if width == 64 else self.ptx_f32)(f"sub.{mode}.f{width} $0, $1, $2;", list(args))
        return self.ptx(f"{op}.{mode}.f{width}", list(args))

    def unary_math(self, kind: str, x: SSAValue) -> SSAValue:
        typ = x.type
        if isinstance(typ, Float64Type):  # exact in f64 (rsqrt: two roundings), exp / log in f64_math; others refused
            if kind == "neg":
                return self.v(arith.NegfOp(x))
            if kind == "abs":
                return self.ptx("abs.f64", [x])
            if kind == "sqrt":
                return self.ptx("sqrt.rn.f64", [x])
            if kind == "rsqrt":
                return self.ptx("rcp.rn.f64", [self.ptx("sqrt.rn.f64", [x])])
            if kind in _f64.KINDS:  # exp, exp2, log, log2 at double precision (f64_math.py)
                return _f64.KINDS[kind](self, x)
            raise NotImplementedError(f64_math(kind))
        y = self.to_f32(x)
        if kind == "exp":  # e^x = 2^(x log2 e)
            y = self.v(arith.MulfOp(y, self.fconst(1.4426950408889634)))
            r = self.ptx("ex2.approx.ftz.f32", [y])
        elif kind == "exp2":
            r = self.ptx("ex2.approx.ftz.f32", [y])
        elif kind == "sqrt":
            r = self.ptx("sqrt.rn.f32", [y])
        elif kind == "rsqrt":
            r = self.ptx("rsqrt.approx.f32", [y])
        elif kind == "tanh":
            r = self.ptx("tanh.approx.f32", [y])
        elif kind == "log2":  # (not .ftz: a subnormal x has its logarithm, not -inf)
            r = self.ptx("lg2.approx.f32", [y])
        elif kind == "log":  # ln x = log2(x) ln 2
            r = self.v(arith.MulfOp(self.ptx("lg2.approx.f32", [y]), self.fconst(0.6931471805599453)))
        elif kind == "abs":
            r = self.ptx("abs.f32", [y])
        elif kind == "neg":
            r = self.v(arith.NegfOp(y))
        else:
            raise NotImplementedError(kind)
        return self.from_f32(r, typ)

    EXP_LOG2E_HI = 1.4426950216293335
    """log2 e rounded to f32; :data:`EXP_LOG2E_LO` (f32) is the rest: ``x log2 e - k`` in two ``fma``."""
    EXP_LOG2E_LO = 1.925963033500011e-08
    EXP_KMIN, EXP_KMAX = -126, 127
    """The power of two ``2^k`` the result is scaled by stays normal, whatever ``x``."""
    EXP_ROUND = 12582912.0
    """1.5 * 2^23: a sum with it (|other| < 2^22) holds an integer in its low mantissa bits."""

    def exp_full(self, x: SSAValue) -> SSAValue:
        """``e^x`` at full precision (CUDA Tile IR ``exp``'s default rounding mode ``full``: the CUDA
        Math API's ``expf``, at most 2 ulp), one MUFU operation per element:

        * ``k = rint(x log2 e)`` clamped to ``[-126, 127]`` in two instructions: ``t = sat((x log2 e +
          126) / 253)`` (``fma.rn.sat``: [0, 1], NaN -> 0) maps that range onto [0, 1], then
          ``fma.rn(t, 253, 1.5 * 2^23 + 1)`` holds ``n = k + 127`` in its low mantissa bits;
        * ``r = x log2 e - k`` with log2 e in two f32 parts (two ``fma``; exact product, one rounding
          each), ``e^x = 2^r * 2^k``: ``2^r`` by ``ex2.approx.ftz.f32`` (``|r| <= 1/2`` over the normal
          range, ``r`` in [-24, 0) where the result is subnormal, (1/2, 1] next to the overflow edge:
          its output is always normal), ``2^k`` by shifting ``n`` into the exponent field;
        * the product is exact where the result is normal and rounds once where it is subnormal, so
          subnormal results keep their precision (``ex2.approx`` never produces them), ``x >=
          88.73`` overflows to ``+inf``, ``x < -104`` underflows to 0, NaN -> NaN.

        The error is ``ex2.approx``'s (about 2^-22 relative) plus the reduction's (below 2^-25
        absolute in ``r``): measured on the H200 (tests/gpu/test_epilogue_math_gpu.py) over normal,
        subnormal and overflowing results.  Half-precision inputs run in f32."""
        typ = x.type
        if isinstance(typ, Float64Type):
            return _f64.exp(self, x)
        y = self.to_f32(x)
        span = float(self.EXP_KMAX - self.EXP_KMIN)  # 253
        t = self.ptx("fma.rn.sat.f32",
                         [y, self.fconst(1.4426950408889634 / span), self.fconst(-self.EXP_KMIN / span)])
        j = self.ptx("fma.rn.f32", [t, self.fconst(span), self.fconst(self.EXP_ROUND + 1.0)])
        k = self.v(arith.SubfOp(j, self.fconst(self.EXP_ROUND + 1.0 - self.EXP_KMIN)))  # n - 127, exact
        r = self.fma(y, self.fconst(self.EXP_LOG2E_HI), self.v(arith.NegfOp(k)))
        r = self.fma(y, self.fconst(self.EXP_LOG2E_LO), r)
        e = self.ptx("ex2.approx.ftz.f32", [r])
        scale = self.v(arith.BitcastOp(self.v(arith.ShLIOp(self.v(arith.BitcastOp(j, i32)), self.const(23))), f32))
        return self.from_f32(self._mul(e, scale), typ)

    TANH_SMALL = 0.9
    """Below it ``tanh`` is a polynomial; above, ``1 - 2 / (e^(2a) + 1)`` (whose MUFU errors weigh
    ``2 e / (e^2 - 1) <= 0.34`` and ``2 r / tanh <= 0.4`` times there)."""
    TANH_POLY = (-0.33333131670951843, 0.1332910656929016, -0.05365484207868576, 0.02074596658349037,
                 -0.006687434855848551, 0.001233282615430653)
    """``Q(u)`` with ``tanh(a) = a + a u Q(u)``, ``u = a^2``, on ``[0, 0.9]`` (least squares on
    Chebyshev nodes, reweighted toward minimax of the relative error; f32 coefficients: 0.96 ulp
    evaluated in f32 against float64)."""

    def tanh_full(self, x: SSAValue) -> SSAValue:
        """``tanh`` at full precision (cuTile's default rounding mode; ``tanh.approx.f32`` is only
        for ``rounding_mode=APPROX``): with ``a = |x|``, ``a + a u Q(u)`` (:data:`TANH_POLY`, five
        ``fma``, a ``mul``, an ``fma``) for ``a <`` :data:`TANH_SMALL`, else ``1 - 2 / (e^(2a) + 1)``
        (``ex2.approx``, ``rcp.approx``: two MUFU operations; ``rcp.rn`` made a GELU epilogue 1.7x
        slower), with the sign of ``x``.  Measured against float64 on
        the PTX emulator (exact ``ex2``/``rcp``: tests/unit/test_math_ulp_emulated.py) and on the H200
        (tests/gpu/test_epilogue_math_gpu.py); NaN stays NaN, ``tanh(+-inf) = +-1``, signed zeros kept."""
        typ = x.type
        if isinstance(typ, Float64Type):
            return _f64.tanh(self, x)
        y = self.to_f32(x)
        a = self.ptx("abs.f32", [y])
        small = self.tanh_poly(a)
        e2a = self.ptx("ex2.approx.ftz.f32", [self.v(arith.MulfOp(a, self.fconst(2.8853900817779268)))])
        r = self.ptx("rcp.approx.ftz.f32", [self.v(arith.AddfOp(e2a, self.fconst(1.0)))])
        large = self.fma(r, self.fconst(-2.0), self.fconst(1.0))
        lt = self.v(arith.CmpfOp(a, self.fconst(self.TANH_SMALL), "olt"))
        mag = self.v(arith.SelectOp(lt, small, large))
        r = self.ptx("copysign.f32", [y, mag])
        return self.from_f32(r, typ)

    def tanh_poly(self, a: SSAValue) -> SSAValue:
        """``a + a u Q(u)``, ``u = a^2`` (:data:`TANH_POLY`: a ``mul``, five ``fma``, a ``mul``, an ``fma``), f32:
        :meth:`tanh_full` below :data:`TANH_SMALL`.  Every step is odd in ``a`` and rounds to nearest even, so
        for a signed ``x`` with ``|x| <`` :data:`TANH_SMALL` ``tanh_poly(x)`` is bit for bit ``tanh_full(x)``
        (the copysign of ``tanh_poly(|x|)``; ``-0`` included)."""
        u = self.v(arith.MulfOp(a, a))
        q = self.fconst(self.TANH_POLY[-1])
        for c in reversed(self.TANH_POLY[:-1]):
            q = self.fma(q, u, self.fconst(c))
        return self.fma(a, self.v(arith.MulfOp(u, q)), a)

    def rounded(self, kind: str, x: SSAValue) -> SSAValue:
        """``floor`` / ``ceil`` of ``x``: ``cvt.rmi`` / ``cvt.rpi`` to an integral float (exact)."""
        mode = {"floor": "rmi", "ceil": "rpi"}[kind]
        if isinstance(x.type, Float64Type):
            return self.ptx(f"cvt.{mode}.f64.f64", [x])
        return self.from_f32(self.ptx(f"cvt.{mode}.f32.f32", [self.to_f32(x)]), x.type)

    def _f32_math(self, kind: str, x: SSAValue) -> SSAValue:
        if isinstance(x.type, Float64Type):
            raise NotImplementedError(f64_math(kind))
        return self.to_f32(x)

    def _mul(self, a: SSAValue, b: SSAValue | float) -> SSAValue:
        return self.v(arith.MulfOp(a, self.fconst(b) if isinstance(b, float) else b))

    def _add(self, a: SSAValue, b: SSAValue | float) -> SSAValue:
        return self.v(arith.AddfOp(a, self.fconst(b) if isinstance(b, float) else b))

    def _select_f(self, pred: str, a: SSAValue, b: SSAValue | float, x: SSAValue, y: SSAValue) -> SSAValue:
        """``cmpf(pred, a, b) ? x : y``."""
        c = self.v(arith.CmpfOp(a, self.fconst(b) if isinstance(b, float) else b, pred))
        return self.v(arith.SelectOp(c, x, y))

    def trig(self, kind: str, x: SSAValue) -> SSAValue:
        """``sin`` / ``cos`` / ``tan`` in f32: the argument reduced to [-pi, pi] (x - 2 pi k, k the
        nearest integer to x / 2 pi, 2 pi in two f32 parts with ``fma``), then ``sin.approx`` /
        ``cos.approx`` (absolute error about 2^-21 there); ``tan = sin / cos``; ``sin`` / ``tan`` of ``-0``
        are ``-0`` (the reduction's ``fma`` gives ``+0``).  f64: ``f64_trig.trig`` (double precision)."""
        if isinstance(x.type, Float64Type):
            return _f64_trig.trig(self, kind, x)
        typ, y = x.type, self._f32_math(kind, x)
        k = self.ptx("cvt.rni.f32.f32", [self._mul(y, 0.15915494309189535)])
        nk = self.v(arith.NegfOp(k))
        r = self.ptx("fma.rn.f32", [nk, self.fconst(6.2831854820251465), y])
        r = self.ptx("fma.rn.f32", [nk, self.fconst(-1.7484556000744883e-07), r])
        if kind == "tan":
            out = self.v(arith.DivfOp(self.ptx("sin.approx.f32", [r]),
                                      self.ptx("cos.approx.f32", [r])))
        else:
            out = self.ptx(f"{kind}.approx.f32", [r])
        if kind != "cos":
            out = self._select_f("oeq", y, 0.0, y, out)
        return self.from_f32(out, typ)

    def hyperbolic(self, kind: str, x: SSAValue) -> SSAValue:
        """``sinh`` / ``cosh`` in f32 from ``e^x / 2`` and ``e^-x / 2`` (``ex2.approx`` of ``+-x log2 e - 1``:
        finite up to |x| = 89.4, where f32's ``sinh`` / ``cosh`` are, though ``e^x`` alone overflows past 88.7);
        ``sinh`` of |x| < 0.5 by its Taylor series to x^9 (no cancellation).  f64: ``f64_math.hyperbolic``."""
        if isinstance(x.type, Float64Type):
            return _f64.hyperbolic(self, kind, x)
        typ, y = x.type, self._f32_math(kind, x)
        t = self._mul(y, 1.4426950408889634)
        ep = self.ptx("ex2.approx.ftz.f32", [self._add(t, -1.0)])
        em = self.ptx("ex2.approx.ftz.f32", [self._add(self.v(arith.NegfOp(t)), -1.0)])
        if kind == "cosh":
            return self.from_f32(self._add(ep, em), typ)
        big = self.v(arith.SubfOp(ep, em))
        s = self._mul(y, y)
        p = self.fconst(1.0 / 362880)
        for c in (1.0 / 5040, 1.0 / 120, 1.0 / 6, 1.0):
            p = self._add(self._mul(p, s), c)
        small = self._mul(p, y)
        ay = self.ptx("abs.f32", [y])
        return self.from_f32(self._select_f("olt", ay, 0.5, small, big), typ)

    def pow(self, x: SSAValue, e: SSAValue) -> SSAValue:
        """``x ** e`` in f32 as ``2^(e log2 |x|)`` (``lg2.approx``, ``ex2.approx``), with C ``powf``'s
        special cases: a negative ``x`` gives the odd-power sign for an integral ``e`` and NaN otherwise, a
        ``-0`` the odd-power sign too (``(-0) ** 3 = -0``, ``(-0) ** -1 = -inf``); ``x ** 0`` and ``1 ** e`` are
        1 (a NaN ``e`` included), ``(-1) ** inf`` is 1."""
        if isinstance(x.type, Float64Type) and isinstance(e.type, Float64Type):  # f64_math.py: a few ulp
            return _f64.power(self, x, e)
        typ, b, y = x.type, self._f32_math("pow", x), self._f32_math("pow", e)
        ab = self.ptx("abs.f32", [b])
        r = self.ptx("ex2.approx.ftz.f32", [self._mul(y, self.ptx("lg2.approx.f32", [ab]))])
        yi = self.ptx("cvt.rzi.f32.f32", [y])
        half = self._mul(yi, 0.5)
        odd = self.v(arith.CmpfOp(self.ptx("cvt.rzi.f32.f32", [half]), half, "one"))
        integral = self.v(arith.CmpfOp(yi, y, "oeq"))
        neg = self.v(arith.CmpfOp(b, self.fconst(0.0), "olt"))
        flip = self.v(arith.AndIOp(self.sign_bit(b), self.v(arith.AndIOp(integral, odd))))
        r = self.v(arith.SelectOp(flip, self.v(arith.NegfOp(r)), r))
        finite_negative = self.v(arith.AndIOp(self.v(arith.CmpfOp(b, self.fconst(0.0), "olt")),
                                              self.v(arith.CmpfOp(ab, self.fconst(float("inf")), "one"))))
        nan = self.v(arith.AndIOp(finite_negative,
                                  self.v(arith.XOrIOp(integral, self.v(arith.ConstantOp(IntegerAttr(1, 1)))))))
        r = self.v(arith.SelectOp(nan, self.fconst(float("nan")), r))
        unit = self.v(arith.CmpfOp(ab, self.fconst(1.0), "oeq"))
        inf = self.v(arith.CmpfOp(self.ptx("abs.f32", [y]), self.fconst(float("inf")), "oeq"))
        one = self.v(arith.OrIOp(self.v(arith.CmpfOp(b, self.fconst(1.0), "oeq")), self.v(arith.AndIOp(unit, inf))))
        one = self.v(arith.OrIOp(one, self.v(arith.CmpfOp(y, self.fconst(0.0), "oeq"))))
        return self.from_f32(self.v(arith.SelectOp(one, self.fconst(1.0), r)), typ)

    def sign_bit(self, x: SSAValue) -> SSAValue:
        """The sign bit of the f32 ``x`` as an ``i1`` (set for ``-0`` and negative NaNs too)."""
        bits = self.v(arith.BitcastOp(x, IntegerType(32)))
        return self.v(arith.CmpiOp(bits, self.v(arith.ConstantOp(IntegerAttr(0, 32))), "slt"))

    # atan(a) / a as a polynomial in a^2 on [0, 1] (a least-squares fit with Lawson weights,
    # made for this lowering; |error| of atan(a) below 1.3e-7 in f32)
    _ATAN = (1.0, -0.3333309292793274, 0.1999305933713913, -0.14207163453102112, 0.10654778778553009,
             -0.0753386914730072, 0.043041449040174484, -0.016284199431538582, 0.0029038325883448124)

    def atan2(self, y: SSAValue, x: SSAValue) -> SSAValue:
        """``atan2(y, x)`` in f32: ``atan`` of min/max of the magnitudes (:attr:`_ATAN`), mirrored
        into the octant and quadrant of (x, y) by the operands' sign bits, as C ``atan2f``: ``atan2(+-0, -0)
        = +-pi``, ``atan2(+-0, +0) = +-0``, ``atan2(+-inf, +-inf)`` an odd multiple of ``pi / 4``; NaN when
        either is NaN.  f64: ``f64_trig.atan2`` (double precision)."""
        if isinstance(y.type, Float64Type) and isinstance(x.type, Float64Type):
            return _f64_trig.atan2(self, y, x)
        typ, a, b = y.type, self._f32_math("atan2", y), self._f32_math("atan2", x)
        ay = self.ptx("abs.f32", [a])
        ax = self.ptx("abs.f32", [b])
        hi = self.ptx("max.f32", [ax, ay])
        lo = self.ptx("min.f32", [ax, ay])
        q = self.v(arith.DivfOp(lo, hi))
        q = self._select_f("oeq", lo, hi, self.fconst(1.0), q)  # equal magnitudes, the infinities included
        q = self._select_f("oeq", hi, 0.0, self.fconst(0.0), q)
        q = self._select_f("oeq", lo, float("inf"), self.fconst(1.0), q)  # (inf / inf)
        s = self._mul(q, q)
        p = self.fconst(self._ATAN[-1])
        for c in reversed(self._ATAN[:-1]):
            p = self._add(self._mul(p, s), c)
        t = self._mul(p, q)
        t = self._select_f("ogt", ay, ax, self.v(arith.SubfOp(self.fconst(1.5707963267948966), t)), t)
        t = self.v(arith.SelectOp(self.sign_bit(b), self.v(arith.SubfOp(self.fconst(3.141592653589793), t)), t))
        t = self.v(arith.SelectOp(self.sign_bit(a), self.v(arith.NegfOp(t)), t))
        t = self._select_f("uno", a, b, self._add(a, b), t)
        return self.from_f32(t, typ)

    def bitcast(self, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
        """The bits of ``x`` (an element of type ``src``, held as :func:`reg_type`) read as ``dst``:
        bf16 through its 16-bit pattern (a NaN's as held: the f32's high half, its sign and payload kept,
        where ``cvt.rn.bf16.f32`` gives the canonical 0x7FFF); other register types as they are."""
        if is_fp8(src) or is_fp8(dst) or isinstance(src, FloatTF32Type) or isinstance(dst, FloatTF32Type):
            raise NotImplementedError(f"bitcast from {src} to {dst}")
        if isinstance(src, BFloat16Type):
            bits = self.f32_to_bf16_bits(x)
            if self.fp8_bits.get(x) is None:  # (not an element as loaded: a NaN keeps its bits)
                high = self.v(arith.TruncIOp(self.v(arith.ShRUIOp(self.v(arith.BitcastOp(x, i32)), self.const(16))),
                                             IntegerType(16)))
                bits = self.v(arith.SelectOp(self.v(arith.CmpfOp(x, x, "uno")), high, bits))
            return bits if isinstance(dst, IntegerType) else self.v(arith.BitcastOp(bits, dst))
        if isinstance(dst, BFloat16Type):
            bits = x if isinstance(src, IntegerType) else self.v(arith.BitcastOp(x, IntegerType(16)))
            return self.bf16_bits_to_f32(bits)
        return self.v(arith.BitcastOp(x, dst))

    def fmod(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """C ``fmod`` (the spec's ``remf``: ``a - b * trunc(a / b)`` exactly, the sign of ``a``, ``a`` itself for a
        finite ``a`` and an infinite ``b``), in f64: ``fma(-q, b, a)`` with ``q = trunc(a / b)``, one step back
        where ``a / b`` rounded up to the next integer (the remainder's sign then differs from ``a``'s), exact
        while ``|a / b| < 2^53``; a larger quotient's ``|a|`` is first reduced exactly (:meth:`_fmod_reduce`, in
        a branch).  f32 / f16 operands are widened to f64 (exactly) and the remainder (representable in their
        type) narrows back exactly; their ``a - b * trunc(a / b)`` in f32 was off past quotients of 2^24
        (``50331652 % 3`` gave -1) and NaN for an infinite ``b``."""
        typ = a.type
        if isinstance(typ, Float64Type):
            return self._fmod_f64(a, b)
        wide = [self.v(arith.ExtFOp(self.to_f32(x), f64)) for x in (a, b)]
        return self.from_f32(self.v(arith.TruncFOp(self._fmod_f64(*wide), f32)), typ)

    FMOD_GAP = 50
    """Exponent bits one reduction step of :meth:`_fmod_reduce` removes (its quotients stay below 2^51)."""
    FMOD_STEPS = 44
    """Steps of :meth:`_fmod_reduce`: the widest f64 exponent gap (2^1024 over 2^-1074) in steps of
    :data:`FMOD_GAP`."""

    def _fmod_f64(self, a: SSAValue, b: SSAValue) -> SSAValue:
        abs_a, abs_b = (self.ptx("abs.f64", [x]) for x in (a, b))
        inf = self.v(arith.ConstantOp(FloatAttr(float("inf"), f64)))
        zero = self.v(arith.ConstantOp(FloatAttr(0.0, f64)))
        # a quotient of 2^53 or more (finite a, nonzero b): reduce |a| first, exactly, to below |b| 2^51
        big = self.v(arith.AndIOp(
            self.v(arith.CmpfOp(self.v(arith.DivfOp(abs_a, abs_b)), self.fconst(2.0 ** 53, f64), "oge")),
            self.v(arith.AndIOp(self.v(arith.CmpfOp(abs_a, inf, "olt")), self.v(arith.CmpfOp(abs_b, zero, "ogt"))))))
        a = self.if_(big, lambda e: [e.ptx("copysign.f64", [a, e._fmod_reduce(abs_a, abs_b)])],
                     lambda e: [a], [f64])[0]
        q = self.ptx("cvt.rzi.f64.f64", [self.v(arith.DivfOp(a, b))])
        r = self.ptx("fma.rn.f64", [self.v(arith.NegfOp(q)), b, a])
        over = self.v(arith.AndIOp(self.v(arith.CmpfOp(r, zero, "one")), self.v(arith.XOrIOp(
            self.v(arith.CmpfOp(r, zero, "olt")), self.v(arith.CmpfOp(a, zero, "olt"))))))
        step = self.ptx("copysign.f64", [a, abs_b])
        r = self.v(arith.SelectOp(over, self.v(arith.AddfOp(r, step)), r))
        keep_a = self.v(arith.AndIOp(self.v(arith.CmpfOp(abs_b, inf, "oeq")),
                                     self.v(arith.CmpfOp(self.ptx("abs.f64", [a]), inf, "olt"))))
        return self.v(arith.SelectOp(keep_a, a, r))

    def _exponent(self, x: SSAValue) -> SSAValue:
        """The biased exponent field of the f64 ``x`` (i64)."""
        bits = self.v(arith.BitcastOp(x, i64))
        return self.v(arith.AndIOp(self.v(arith.ShRUIOp(bits, self.const(52, i64))), self.const(0x7FF, i64)))

    def _fmod_reduce(self, r: SSAValue, b: SSAValue) -> SSAValue:
        """``fmod(r, b)`` up to a multiple of ``b`` below ``b 2^51`` (``r``, ``b`` positive and finite): each of
        :data:`FMOD_STEPS` steps takes the exact remainder of ``r`` by ``b 2^k`` (``k`` the exponent gap less
        :data:`FMOD_GAP`, at least 0; the quotient then below 2^51, so ``fma(-trunc(r / d), d, r)`` is exact,
        one ``d`` added back where the quotient rounded up); a subnormal ``b``'s exponent is read scaled by 2^64."""
        scaled = self.v(arith.SubiOp(self._exponent(self.v(arith.MulfOp(b, self.fconst(2.0 ** 64, f64)))),
                                     self.const(64, i64)))
        tiny = self.v(arith.CmpfOp(b, self.fconst(2.0 ** -1022, f64), "olt"))
        eb = self.v(arith.SelectOp(tiny, scaled, self._exponent(b)))

        def power(e: Emitter, k: SSAValue) -> SSAValue:  # 2^k, 0 <= k <= 1023
            return e.v(arith.BitcastOp(e.v(arith.ShLIOp(e.v(arith.AddiOp(k, e.const(1023, i64))), e.const(52, i64))),
                                       f64))

        def step(e: Emitter, _i: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
            x = carried[0]
            gap = e.v(arith.SubiOp(e.v(arith.SubiOp(e._exponent(x), eb)), e.const(self.FMOD_GAP, i64)))
            k = e.v(arith.MaxSIOp(gap, e.const(0, i64)))
            third = e.v(arith.DivUIOp(k, e.const(3, i64)))
            rest = e.v(arith.SubiOp(k, e.v(arith.MuliOp(third, e.const(2, i64)))))
            d = e.v(arith.MulfOp(e.v(arith.MulfOp(e.v(arith.MulfOp(b, power(e, third))), power(e, third))),
                                 power(e, rest)))
            q = e.ptx("cvt.rzi.f64.f64", [e.v(arith.DivfOp(x, d))])
            y = e.ptx("fma.rn.f64", [e.v(arith.NegfOp(q)), d, x])
            under = e.v(arith.CmpfOp(y, e.v(arith.ConstantOp(FloatAttr(0.0, f64))), "olt"))
            return [e.v(arith.SelectOp(under, e.v(arith.AddfOp(y, d)), y))]

        return self.for_(self.const(0), self.const(self.FMOD_STEPS), self.const(1), [r], step)[0]

    def bf16_bits_to_f32(self, bits: SSAValue) -> SSAValue:
        """The f32 value of bf16 ``bits`` (i16): exact; remembered, so that storing the value
        back as bf16 (:meth:`f32_to_bf16_bits`) reuses the bits (a gathered or copied tile is
        stored as loaded, no rounding instruction)."""
        wide = self.v(arith.ExtUIOp(bits, i32))
        value = self.v(arith.BitcastOp(self.v(arith.ShLIOp(wide, self.const(16))), f32))
        self.fp8_bits[value] = (bits, "bf16")
        return value

    def f32_to_bf16_bits(self, x: SSAValue) -> SSAValue:
        known = self.fp8_bits.get(x)
        if known is not None and known[1] == "bf16":  # a bf16 element as loaded: its bits
            return known[0]
        # inline assembly: llvm.nvvm.f2bf16.rn returns a bfloat, a type tileorch's LLVM IR does not carry (and
        # tileas/pack16.py pairs these conversions by their text)
        return self.v(inline_asm("cvt.rn.bf16.f32 $0, $1;", "=h,f", [x], [i16]))

    def f8_bits_to_f32(self, bits: SSAValue, typ: Attribute) -> SSAValue:
        """The f32 value of the fp8 ``typ`` element with bits ``bits`` (i8): exact, through f16
        (``llvm.nvvm.e4m3x2.to.f16x2.rn``, PTX ``cvt.rn.f16x2.e4m3x2``; the low byte is lane 0)."""
        kind = FP8_KINDS[type(typ)]
        pair = self.v(llvm.CallIntrinsicOp(f"llvm.nvvm.{kind}x2.to.f16x2.rn", [self.v(arith.ExtUIOp(bits, i16))],
                                           [VectorType(f16, [2])]))
        half = self.v(llvm_ext.ExtractElementOp(pair, self.const(0)))
        value = self.v(arith.ExtFOp(half, f32))
        self.fp8_bits[value] = (bits, typ)
        return value

    def f32_to_f8_bits(self, x: SSAValue, typ: Attribute) -> SSAValue:
        """The bits (i8) of f32 ``x`` rounded to the fp8 ``typ`` (nearest even, saturating to the
        largest finite value; ``llvm.nvvm.ff.to.e4m3x2.rn``, PTX ``cvt.rn.satfinite.e4m3x2.f32``,
        whose second operand is the low byte)."""
        known = self.fp8_bits.get(x)
        if known is not None and known[1] == typ:  # already an element of this type: its bits
            return known[0]
        kind = FP8_KINDS[type(typ)]
        pair = self.v(llvm.CallIntrinsicOp(f"llvm.nvvm.ff.to.{kind}x2.rn", [self.fconst(0.0), x], [i16]))
        return self.v(arith.TruncIOp(pair, i8))

    def round_to_fp8(self, x: SSAValue, typ: Attribute) -> SSAValue:
        """``x`` (f32) rounded to the fp8 ``typ``, held as f32."""
        return self.f8_bits_to_f32(self.f32_to_f8_bits(x, typ), typ)

    def round_to_tf32(self, x: SSAValue) -> SSAValue:
        """``x`` (f32) rounded to the nearest tf32 (ties to even; ``llvm.nvvm.f2tf32.rn``, PTX
        ``cvt.rn.tf32.f32``), held as f32 with the 13 low mantissa bits cleared."""
        bits = self.v(llvm.CallIntrinsicOp("llvm.nvvm.f2tf32.rn", [x], [i32]))
        bits = self.v(arith.AndIOp(bits, self.const(-(1 << 13))))
        return self.v(arith.BitcastOp(bits, f32))

    def convert_toward_zero(self, x: SSAValue, dst: Attribute) -> SSAValue:
        """``x`` converted to ``dst`` rounding toward zero (``cvt.rz``): f32 to f16 or bf16 (bf16
        held as f32); other conversions were refused at the program's op."""
        if isinstance(dst, BFloat16Type):  # inline assembly: llvm.nvvm.f2bf16.rz returns a bfloat (see above)
            bits = self.v(inline_asm("cvt.rz.bf16.f32 $0, $1;", "=h,f", [self.to_f32(x)], [i16]))
            return self.bf16_bits_to_f32(bits)
        if isinstance(dst, Float16Type):  # inline assembly: LLVM 22 has no f32 -> f16 toward-zero intrinsic
            bits = self.v(inline_asm("cvt.rz.f16.f32 $0, $1;", "=h,f", [self.to_f32(x)], [i16]))
            return self.v(arith.BitcastOp(bits, Float16Type()))
        raise NotImplementedError(f"a conversion toward zero to {dst}")

    def to_f32_odd(self, x: SSAValue, signed: bool = True) -> SSAValue:
        """``x`` (f64, or an integer read ``signed`` or not) in f32 rounded to odd: toward zero, the last mantissa
        bit set where that dropped anything.  A value rounded to odd in f32 then rounded to bf16 / tf32 / fp8 (7 or
        fewer mantissa bits, at least 2 below f32's) rounds as ``x`` itself would, once; through f32 rounded to
        nearest it rounded twice (``1 + 2^-8 + 2^-40`` to bf16 gave 1, not ``1 + 2^-7``).  A finite ``x`` past f32's
        range gives the rounded-to-nearest infinity, not the largest finite value toward zero."""
        if isinstance(x.type, Float64Type):
            f = self.ptx("cvt.rz.f32.f64", [x])
            inexact = self.v(arith.CmpfOp(self.v(arith.ExtFOp(f, f64)), x, "one"))
            near = self.v(arith.TruncFOp(x, f32))
        else:
            width = x.type.width.data
            kind = ("s" if signed else "u") + str(width)
            f = self.ptx(f"cvt.rz.f32.{kind}", [x])
            back = self.v((arith.FPToSIOp if signed else arith.FPToUIOp)(f, x.type))  # |f| <= |x|: in range
            inexact = self.v(arith.CmpiOp(back, x, "ne"))
            near = f  # (an integer is always inside f32's range)
        bits = self.v(arith.BitcastOp(f, i32))
        odd = self.v(arith.BitcastOp(self.v(arith.OrIOp(bits, self.v(arith.ConstantOp(IntegerAttr(1, 32))))), f32))
        r = self.v(arith.SelectOp(inexact, odd, f))
        inf = self.v(arith.CmpfOp(self.ptx("abs.f32", [near]), self.fconst(float("inf")), "oeq"))
        return self.v(arith.SelectOp(inf, near, r))

    def round_to_bf16(self, x: SSAValue) -> SSAValue:
        """``x`` (f32) rounded to the nearest bf16, held as f32."""
        return self.bf16_bits_to_f32(self.f32_to_bf16_bits(x))

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        typ = a.type
        if isinstance(typ, Float64Type):
            return self.ptx("fma.rn.f64", [a, b, c])
        r = self.ptx("fma.rn.f32", [self.to_f32(a), self.to_f32(b), self.to_f32(c)])
        return self.from_f32(r, typ)

    def max_min(self, kind: str, a: SSAValue, b: SSAValue, propagate_nan: bool = False) -> SSAValue:
        """IEEE maxNum/minNum-like: ``max.f32``/``min.f32`` (a NaN operand yields the other);
        ``propagate_nan``: ``max.NaN.f32``/``min.NaN.f32`` (a NaN operand gives NaN)."""
        typ = a.type
        if isinstance(typ, Float64Type):  # max.f64 / min.f64 (no .NaN form): a NaN operand made the result
            r = self.ptx(f"{kind}.f64", [a, b])
            if propagate_nan:
                r = self.v(arith.SelectOp(self.v(arith.CmpfOp(a, b, "uno")), self.v(arith.AddfOp(a, b)), r))
            return r
        r = self.ptx(f"{kind}{'.NaN' if propagate_nan else ''}.f32", [self.to_f32(a), self.to_f32(b)])
        return self.from_f32(r, typ)


def reg_type(t: Attribute) -> Attribute:
    """The type an element is held in registers: bf16 and fp8 as f32 (LLVM IR through llvmlite
    has no ``bfloat`` and no 8-bit floats; loads widen, stores round to nearest even with
    ``cvt.rn.bf16.f32`` / ``cvt.rn.satfinite.e4m3x2.f32``); tf32 as f32 too."""
    if isinstance(t, PointerType):  # an element of a pointer tile: a global address
        return GLOBAL_PTR
    return f32 if isinstance(t, BFloat16Type | FloatTF32Type) or is_fp8(t) else t


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def memory_type(t: Attribute) -> Attribute:
    """The type an element is stored as (i1 as i8)."""
    return i8 if t == i1 else t


def predicated_form(t: Attribute) -> tuple[int, str] | None:
    """(PTX bit width, inline-asm register letter) of an element of type ``t`` in a predicated
    scalar access (:meth:`Emitter.load_element_if` / :meth:`Emitter.store_element_if`): 16-bit
    integers and f16 ``h``, i32 ``r``, i64 ``l``, f32 ``f``, f64 ``d``; None for any other type
    (8-bit elements, which PTX registers do not hold as such)."""
    if isinstance(t, IntegerType):
        return {16: (16, "h"), 32: (32, "r"), 64: (64, "l")}.get(t.width.data)
    return {Float16Type: (16, "h"), Float32Type: (32, "f"), Float64Type: (64, "d")}.get(type(t))


def global_type(t: Attribute) -> Attribute:
    """The type an element is loaded from / stored to global memory as: its bits for the
    floats held as f32 (bf16 as i16, fp8 as i8), i1 as i8."""
    if isinstance(t, BFloat16Type):
        return i16
    if is_fp8(t):
        return i8
    if isinstance(t, FloatTF32Type):
        return f32
    return memory_type(t)


__all__ = ["Emitter", "FP8_KINDS", "GLOBAL_PTR", "SHARED_PTR", "Tile", "byte_size", "global_type", "is_float",
           "is_fp8", "memory_type", "predicated_form", "reg_type", "strides_of", "supported_element"]
