"""``cutlass.block_striped.*``: block-striped movement of register fragments (CUTLASS ``BlockStriped``).

Contract (checked by one operand-layout checker per variant: load, store, reduce-add,
reduce-max).  A CTA of ``T = n_threads_in_block`` threads moves one register fragment per
thread, ``vector<N x E>``, to or from the CTA's tile of ``T * N`` elements.  The tile is cut
into ``S = N / A`` stripes of ``T * A`` elements, ``A`` being the access width in elements;
access ``s`` of thread ``t`` covers tile elements ``[(s*T + t)*A, (s*T + t)*A + A)``, i.e.
fragment element ``s*A + j`` of thread ``t`` lives at tile element ``(s*T + t)*A + j``.

* ``load`` / ``store`` take ``access_width = A`` (default 1); ``load_add`` and ``reduce`` work
  element by element (``A = 1``), as CUTLASS's ``BlockStripedReduce``: ``load_add`` returns
  ``fragment + tile``, ``reduce`` atomically combines the fragment into the tile with
  ``block_striped_kind`` ``add`` or ``max``.
* ``E`` is an integer or float type of at least 16 bits; the fragment is a static rank-1
  vector with ``N`` a positive multiple of ``A``; one access (``A`` elements) is a power of two
  of at most 16 bytes.
* ``ptr`` is either a ``memref`` with element type ``E`` and a static stripe shape, rank 1
  ``[T*N]`` or rank 2 ``[S, T*A]`` (one row per stripe), or an ``!llvm.ptr`` in the generic,
  global or shared address space pointing at the tile (shape not checkable).
* ``thread_idx`` is the thread's index ``t`` in ``[0, T)``, one per thread (CUTLASS's
  ``BlockStripedReduce`` is called with ``threadIdx.x % T`` by T threads).  Where the verifier can
  evaluate it for every thread that runs the op (a function of ``gpu.thread_id x`` /
  ``%tid.x`` through integer arithmetic, the op run unconditionally by its executor set or CTA),
  an index outside ``[0, T)`` is an error (thread ``t >= T`` would move the elements of thread
  ``t - T``'s next stripe, and past the tile's end on the last stripe), and so, for ``store`` on a
  tile address the same for every thread (``_same_for_all``: not one tile per warp group), is one
  index taken by two threads (their stores race; a ``reduce`` combines atomically: two threads
  adding into one stripe, e.g. two warp groups' partial sums of one tile, is taken).  A declared ``T`` below the threads that run the op is
  therefore taken only where the index keeps to this contract (e.g. ``tid % T`` under an ``if``).
* ``0 < T <= 1024``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I32, AnyFloat, IntegerAttr, IntegerType, MemRefType, VectorType
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, base, irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.block_sources import block_argument_sources
from tileorch.dialects.cutlass.bar_scope import MAX_CTA_THREADS
from tileorch.dialects.cutlass.barrier_attrs import BlockStripedKindAttr
from tileorch.dialects.cutlass.pointer_operands import check_pointer_space

MIN_ELEMENT_BITS = 16
MAX_ACCESS_BYTES = 16
POINTER_ADDRESS_SPACES = (0, 1, 3)

_ONE = IntegerAttr(1, 32)
_TILE = base(MemRefType) | base(LLVMPointerType)


def _element_bits(element: Attribute) -> int | None:
    if isinstance(element, IntegerType):
        return element.width.data
    if isinstance(element, AnyFloat):
        return element.bitwidth
    return None


class BlockStripedOp(IRDLOperation):
    """Tile pointer, thread index, stripe parameters and the operand-layout checker.

    Each variant declares its operands (``ptr``, ``thread_idx``, its fragment; in that order,
    directly or through :class:`BlockStripedFragmentOp`: xDSL lists a subclass's fields before its
    bases') and, through :class:`_AccessWidth`, the ``access_width`` property where it has one;
    ``fragment_type()`` is the type of its register fragment (the ``fragment`` operand, or the
    result of a load).
    """

    n_threads_in_block = prop_def(IntegerAttr[I32])

    def access_width(self) -> int:
        """Elements per access (``A``); 1 for the element-wise variants."""
        attr = getattr(self, "access_width_attr", None)
        return 1 if attr is None else attr.value.data

    def fragment_type(self) -> Attribute:
        return self.fragment.type

    def num_threads(self) -> int:
        return self.n_threads_in_block.value.data

    def num_stripes(self) -> int:
        """``S = N / A``: accesses per thread."""
        fragment = self.fragment_type()
        assert isinstance(fragment, VectorType)
        return fragment.get_shape()[0] // self.access_width()

    def tile_index(self, thread: int, element: int) -> int:
        """Tile element holding fragment element ``element`` of thread ``thread``."""
        width = self.access_width()
        stripe, lane = divmod(element, width)
        return (stripe * self.num_threads() + thread) * width + lane

    def verify_(self) -> None:
        threads = self.num_threads()
        if not 0 < threads <= MAX_CTA_THREADS:
            raise VerifyException(
                f"'{self.name}' op n_threads_in_block must be in [1, {MAX_CTA_THREADS}], "
                f"found {threads}"
            )
        self._verify_threads_exist(threads)
        self._verify_thread_indices(threads)
        element, length = self._verify_fragment()
        self._verify_access(element, length)
        self._verify_tile(element, threads, length)
        self._verify_tile_alignment(element)

    def _verify_threads_exist(self, threads: int) -> None:
        """Threads ``0 .. T-1`` of the block run the op (thread ``t`` moves access ``t`` of each
        stripe): T is at most the threads that run it, the enclosing executor set's when known (a
        ``cutlass.async.exec`` or switch arm), else the CTA's (kernel ``nvvm.reqntid`` / ``maxntid``);
        otherwise the stripes of the missing threads are never moved."""
        from tileorch.dialects.cutlass import executors

        enclosing = executors.enclosing_set(self)
        if enclosing is not None:
            available, where = enclosing[0].bit_count(), enclosing[1]
        else:
            cta = executors.cta_size(self)
            if cta is None:
                return
            available, where = cta[0], f"the CTA ({cta[1]})"
        if threads > available:
            raise VerifyException(
                f"'{self.name}' op n_threads_in_block = {threads} but {where} runs {available} threads: "
                f"the stripes of threads {available}..{threads - 1} would never be moved"
            )

    def _verify_thread_indices(self, threads: int) -> None:
        """``thread_idx`` in ``[0, T)`` and (for ``store``) one per thread, where it can be
        evaluated for every thread that runs the op (see the module's doc); nothing is claimed otherwise."""
        running = _running_threads(self)
        if running is None:
            return
        ids, where = running
        values = _per_thread(self.thread_idx, ids)
        if values is None:
            return
        outside = [(t, v) for t, v in zip(ids, values) if not 0 <= v < threads]
        if outside:
            lo, hi = min(values), max(values)
            t, v = outside[0]
            raise VerifyException(
                f"'{self.name}' op thread_idx takes {lo}..{hi} over the {len(ids)} threads that run it ({where}), "
                f"outside 0..{threads - 1} (n_threads_in_block = {threads}; thread {t} gets {v}): a thread index "
                f"t >= {threads} moves the elements of thread t - {threads}'s next stripe and past the tile's end; "
                f"give each running thread its own index below {threads} or declare n_threads_in_block = {len(ids)}"
            )
        if self.name == "cutlass.block_striped.store" and _same_for_all(self.ptr):
            first: dict[int, int] = {}
            for t, v in zip(ids, values):
                if v in first:
                    raise VerifyException(
                        f"'{self.name}' op threads {first[v]} and {t} both take thread_idx {v} ({where}): their "
                        f"stores to the same elements race; give each running thread its own index below {threads}"
                    )
                first[v] = t

    def _verify_tile_alignment(self, element: Attribute) -> None:
        """Each access is one ``A x E`` vector load/store (CUTLASS ``AlignedArray<E, A>``), which the
        lowering emits with alignment ``A * sizeof(E)``: a tile address known to be less aligned
        (``llvm.inttoptr`` of a constant) would fault or silently split the access."""
        from tileorch.dialects.cutlass.scheduler_context import known_alignment

        if not isinstance(self.ptr.type, LLVMPointerType):
            return
        access_bytes = self.access_width() * _element_bits(element) // 8
        known = known_alignment(self.ptr)
        if known is not None and known < access_bytes:
            raise VerifyException(
                f"'{self.name}' op each access stores {self.access_width()} x {element} = {access_bytes} bytes "
                f"with {access_bytes}-byte alignment, but the tile address is only {known}-byte aligned"
            )

    def _verify_fragment(self) -> tuple[Attribute, int]:
        fragment = self.fragment_type()
        if not isinstance(fragment, VectorType) or fragment.get_num_dims() != 1:
            raise VerifyException(
                f"'{self.name}' op expected the register fragment to be a rank-1 vector, "
                f"found {fragment}"
            )
        if fragment.get_num_scalable_dims():
            raise VerifyException(
                f"'{self.name}' op expected a static register fragment, found {fragment}"
            )
        element = fragment.get_element_type()
        bits = _element_bits(element)
        if bits is None or bits < MIN_ELEMENT_BITS:
            raise VerifyException(
                f"'{self.name}' op expected an integer or float element type of at least "
                f"{MIN_ELEMENT_BITS} bits, found {element}"
            )
        return element, fragment.get_shape()[0]

    def _verify_access(self, element: Attribute, length: int) -> None:
        width = self.access_width()
        if width <= 0 or length % width:
            raise VerifyException(
                f"'{self.name}' op fragment length {length} must be a positive multiple of "
                f"access_width, found access_width {width}"
            )
        access_bytes = width * _element_bits(element) // 8
        if access_bytes > MAX_ACCESS_BYTES or access_bytes & (access_bytes - 1):
            raise VerifyException(
                f"'{self.name}' op one access must be a power of two of at most "
                f"{MAX_ACCESS_BYTES} bytes, found {width} x {element} = {access_bytes} bytes"
            )

    def _verify_tile(self, element: Attribute, threads: int, length: int) -> None:
        expected = "a generic (0), global (1) or shared (3) pointer"
        if check_pointer_space(self, self.ptr, POINTER_ADDRESS_SPACES, expected):
            return
        ptr_type = self.ptr.type
        assert isinstance(ptr_type, MemRefType)
        if ptr_type.get_element_type() != element:
            raise VerifyException(
                f"'{self.name}' op expected the tile element type to match the fragment: "
                f"expected {element}, found {ptr_type.get_element_type()}"
            )
        shape = tuple(ptr_type.get_shape())
        if any(d < 0 for d in shape):
            raise VerifyException(
                f"'{self.name}' op expected a static stripe shape, found {ptr_type}"
            )
        width = self.access_width()
        stripes = length // width
        expected = {1: (threads * length,), 2: (stripes, threads * width)}.get(len(shape))
        if shape != expected:
            wanted = (
                f"[{threads * length}] or [{stripes}, {threads * width}]"
                if expected is None
                else "[" + ", ".join(map(str, expected)) + "]"
            )
            raise VerifyException(
                f"'{self.name}' op tile shape does not match {threads} threads x "
                f"fragment of {length} (access_width {width}): expected {wanted}, "
                f"found [{', '.join(map(str, shape))}]"
            )


_SAME_VALUE = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui")
_FOLDS = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b, "arith.muli": lambda a, b: a * b,
    "arith.andi": lambda a, b: a & b, "arith.ori": lambda a, b: a | b, "arith.xori": lambda a, b: a ^ b,
    "arith.shli": lambda a, b: a << b if 0 <= b < 64 else None,
    "arith.shrui": lambda a, b: a >> b if a >= 0 and 0 <= b < 64 else None,
    "arith.shrsi": lambda a, b: a >> b if 0 <= b < 64 else None,
    "arith.divui": lambda a, b: a // b if a >= 0 and b > 0 else None,
    "arith.divsi": lambda a, b: (abs(a) // abs(b)) * (1 if (a >= 0) == (b > 0) else -1) if b else None,
    "arith.remui": lambda a, b: a % b if a >= 0 and b > 0 else None,
    "arith.remsi": lambda a, b: (abs(a) % abs(b)) * (1 if a >= 0 else -1) if b else None,
    "arith.minsi": min, "arith.maxsi": max,
}
_UNSIGNED_FOLDS = ("arith.shrui", "arith.divui", "arith.remui")
_SHIFTS = ("arith.shli", "arith.shrui", "arith.shrsi")
_MAX_EXPRESSION_OPS = 64


def _running_threads(op: Operation) -> tuple[list[int], str] | None:
    """(the thread ids that run ``op``, in words) where every thread of its executor set (else of the
    CTA) runs it unconditionally; None when unknown."""
    from tileorch.dialects.cutlass import executors

    enclosing = executors.enclosing_set(op)
    if enclosing is not None:
        bits, where, holder = enclosing
    else:
        cta = executors.cta_size(op)
        if cta is None:
            return None
        bits, where = (1 << cta[0]) - 1, f"the CTA's {cta[0]}, {cta[1]}"
        holder = op.parent_op()
        while holder is not None and holder.parent_op() is not None and holder.name not in ("func.func",
                                                                                          "llvm.func"):
            holder = holder.parent_op()
    if holder is None or not executors.path_is_unconditional(op, holder):
        return None
    return [t for t in range(bits.bit_length()) if bits >> t & 1], where


_UNIFORM_OPS = ("llvm.getelementptr", "llvm.inttoptr", "llvm.ptrtoint", "llvm.addrspacecast", "llvm.mlir.constant",
                "llvm.mlir.addressof", "llvm.mlir.zero", "builtin.unrealized_conversion_cast", "gpu.block_id",
                "nvvm.read.ptx.sreg.ctaid.x", "nvvm.read.ptx.sreg.ctaid.y", "nvvm.read.ptx.sreg.ctaid.z")


def _same_for_all(value: SSAValue) -> bool:
    """Whether ``value`` is provably the same for every thread: computed from block arguments, constants and
    block ids by ``arith`` ops and address arithmetic only (a tile base offset per warp group is not)."""
    seen: set[int] = set()
    work = [value]
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        owner = v.owner
        if not isinstance(owner, Operation):
            sources = block_argument_sources(v)
            if sources is None:
                return False
            work += sources
            continue
        if not (owner.name.startswith("arith.") or owner.name in _UNIFORM_OPS) or owner.regions or len(seen) > 256:
            return False
        work += list(owner.operands)
    return True


def _bits(kind: Attribute) -> int:
    """The width of an integer type (``index``: 64 bits)."""
    return kind.width.data if isinstance(kind, IntegerType) else 64


def _wrapped(values: list[int], kind: Attribute) -> list[int]:
    """``values`` as the type ``kind`` holds them: two's complement of its width."""
    half = 1 << (_bits(kind) - 1)
    return [((v + half) % (1 << _bits(kind))) - half for v in values]


def _as_unsigned(values: list[int], kind: Attribute) -> list[int]:
    """``values`` (held signed in ``kind``) read as unsigned numbers of its width."""
    return [v % (1 << _bits(kind)) for v in values]


def _per_thread(value: SSAValue, ids: list[int]) -> list[int] | None:
    """``value`` for each thread id (a function of ``gpu.thread_id x`` / ``%tid.x`` and constants through
    integer arithmetic); None when it is anything else."""
    ops: list[Operation] = []
    order: dict[SSAValue, int] = {}

    def visit(v: SSAValue) -> bool:
        if v in order:
            return True
        owner = v.owner
        if not isinstance(owner, Operation) or len(ops) >= _MAX_EXPRESSION_OPS:
            return False
        name = owner.name
        if name in _SAME_VALUE or name in _FOLDS:
            if not all(visit(x) for x in owner.operands):
                return False
        elif name == "gpu.thread_id":
            dim = owner.properties.get("dimension")
            if dim is None or getattr(dim.data, "value", None) != "x":
                return False
        elif name == "arith.constant":
            if not isinstance(owner.properties.get("value", owner.attributes.get("value")), IntegerAttr):
                return False
        elif name != "nvvm.read.ptx.sreg.tid.x":
            return False
        order[v] = len(ops)
        ops.append(owner)
        return True

    if not visit(value):
        return None
    got: dict[SSAValue, list[int]] = {}  # each value over every thread id, op by op
    for op in ops:
        name = op.name
        if name in ("gpu.thread_id", "nvvm.read.ptx.sreg.tid.x"):
            v = ids
        elif name == "arith.constant":
            v = [op.properties.get("value", op.attributes.get("value")).value.data] * len(ids)
        elif name in _SAME_VALUE:
            v = got[op.operands[0]]
            if name in ("arith.extui", "arith.index_castui"):
                v = _as_unsigned(v, op.operands[0].type)
        else:
            fold = _FOLDS[name]
            a_values, b_values = got[op.operands[0]], got[op.operands[1]]
            if name in _UNSIGNED_FOLDS:
                a_values = _as_unsigned(a_values, op.operands[0].type)
                b_values = _as_unsigned(b_values, op.operands[1].type)
            v = [fold(a, b) for a, b in zip(a_values, b_values)]
            if name in _SHIFTS and any(b >= _bits(op.results[0].type) for b in b_values):
                return None  # (a shift by the width or more is poison, not a number)
            if None in v:
                return None
        got[op.results[0]] = _wrapped(v, op.results[0].type)
    return got[value]


class BlockStripedFragmentOp(BlockStripedOp):
    """The variants that take a register fragment: operands ``ptr``, ``thread_idx``, ``fragment``."""

    ptr = operand_def(_TILE)
    thread_idx = operand_def(I32)
    fragment = operand_def(VectorType)


class _AccessWidth(IRDLOperation):
    """The ``access_width`` property of ``load`` and ``store`` (a base after the variant's
    :class:`BlockStripedOp` base, so it is listed after ``n_threads_in_block``)."""

    access_width_attr = prop_def(IntegerAttr[I32], default_value=_ONE, prop_name="access_width")


@irdl_op_definition
class BlockStripedLoadOp(BlockStripedOp, _AccessWidth):
    """Each thread loads its fragment from the tile."""

    name = "cutlass.block_striped.load"
    ptr = operand_def(_TILE)
    thread_idx = operand_def(I32)
    result = result_def(VectorType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "$ptr `,` $thread_idx `n_threads_in_block` `=` $n_threads_in_block "
        "(`access_width` `=` $access_width^)? attr-dict `:` type($ptr) `->` type($result)"
    )

    def fragment_type(self) -> Attribute:
        return self.result.type


@irdl_op_definition
class BlockStripedLoadAddOp(BlockStripedFragmentOp):
    """Each thread returns its fragment plus the tile's elements (plain loads, element-wise)."""

    name = "cutlass.block_striped.load_add"
    result = result_def(VectorType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "$ptr `,` $thread_idx `,` $fragment `n_threads_in_block` `=` $n_threads_in_block "
        "attr-dict `:` type($ptr) `,` type($fragment) `->` type($result)"
    )

    def verify_(self) -> None:
        if self.result.type != self.fragment.type:
            raise VerifyException(
                f"'{self.name}' op expected the result type to equal the fragment type "
                f"{self.fragment.type}, found {self.result.type}"
            )
        super().verify_()


@irdl_op_definition
class BlockStripedStoreOp(BlockStripedFragmentOp, _AccessWidth):
    """Each thread stores its fragment into the tile."""

    name = "cutlass.block_striped.store"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = (
        "$fragment `,` $ptr `,` $thread_idx `n_threads_in_block` `=` $n_threads_in_block "
        "(`access_width` `=` $access_width^)? attr-dict `:` type($fragment) `,` type($ptr)"
    )


@irdl_op_definition
class BlockStripedReduceOp(BlockStripedFragmentOp):
    """Each thread atomically combines its fragment into the tile (add or max, element-wise)."""

    name = "cutlass.block_striped.reduce"
    block_striped_kind = prop_def(BlockStripedKindAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = (
        "$block_striped_kind $fragment `,` $ptr `,` $thread_idx "
        "`n_threads_in_block` `=` $n_threads_in_block attr-dict `:` type($fragment) `,` type($ptr)"
    )


OPS: list[type] = [BlockStripedLoadOp, BlockStripedLoadAddOp, BlockStripedStoreOp, BlockStripedReduceOp]
