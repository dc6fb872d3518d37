"""Block-striped fragment movement (``cutlass.block_striped.*``, CUTLASS ``BlockStriped`` /
``BlockStripedReduce``).

Layout contract (:mod:`tileorch.dialects.cutlass.block_striped`): with ``T`` threads, fragment
``vector<N x E>`` and access width ``A``, access ``s`` in ``[0, N/A)`` of thread ``t`` covers tile
elements ``[(s*T + t)*A, (s*T + t)*A + A)`` and holds fragment elements ``[s*A, s*A + A)``.

* ``load``: one ``vector<A x E>`` load per access, spliced into the fragment with
  ``llvm.shufflevector``;
* ``store``: the access slice (``shufflevector``) stored as one ``vector<A x E>``;
* ``load_add`` (``A = 1``): the element loads as for ``load``, then one vector ``add``/``fadd``;
* ``reduce`` (``A = 1``): per element one relaxed device-scope ``atomicrmw`` (``add``/``fadd``,
  or signed ``max``/``fmax``), as CUTLASS's atomic ``reduce``.

The tile must be an ``!llvm.ptr`` here (convert a ``memref`` tile first).
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import AnyFloat, DenseArrayBase, VectorType, i32
from xdsl.ir import Attribute, Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects import llvm_ext
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter

GPU_SCOPE = "device"


def element_bytes(element: Attribute) -> int:
    width = element.width.data if hasattr(element, "width") else element.bitwidth
    return width // 8


def shuffle(e: Emitter, a: SSAValue, b: SSAValue, mask: list[int]) -> SSAValue:
    op = llvm.ShuffleVectorOp.build(
        operands=[a, b],
        properties={"mask": DenseArrayBase.from_list(i32, mask)},
        result_types=[VectorType(a.type.get_element_type(), [len(mask)])],
    )
    return e.emit(op)


class _BlockStriped(OpLowering):
    """Shared address arithmetic: ``ptr + (s*T + t)*A`` elements."""

    def tile(self, op: Operation) -> SSAValue:
        if not isinstance(op.ptr.type, llvm.LLVMPointerType):
            raise LocatedError(op, f"'{op.name}': a memref tile must be converted to !llvm.ptr before convert-pipeline-to-nvvm")
        return op.ptr

    def access_addr(self, op: Operation, e: Emitter, thread_base: SSAValue, access: int) -> SSAValue:
        """Address of access ``access`` of this thread (``thread_base`` = t*A)."""
        element = op.fragment_type().get_element_type()
        offset = e.add(thread_base, e.const(access * op.num_threads() * op.access_width()))
        tile = self.tile(op)
        return e.emit(llvm.GEPOp.from_mixed_indices(tile, [offset], element, result_type=tile.type))

    def thread_base(self, op: Operation, e: Emitter) -> SSAValue:
        return e.mul(op.thread_idx, e.const(op.access_width()))

    def load_fragment(self, op: Operation, e: Emitter) -> SSAValue:
        """The thread's fragment read from the tile, one vector load per access."""
        fragment = op.fragment_type()
        element, length, width = fragment.get_element_type(), fragment.get_shape()[0], op.access_width()
        piece_type = VectorType(element, [width])
        base = self.thread_base(op, e)
        result = None
        for s in range(op.num_stripes()):
            addr = self.access_addr(op, e, base, s)
            piece = e.emit(llvm.LoadOp(addr, piece_type, alignment=width * element_bytes(element)))
            if op.num_stripes() == 1:
                return piece
            wide = shuffle(e, piece, piece, [k % width for k in range(length)])
            if result is None:
                result = wide
                continue
            lanes = range(s * width, (s + 1) * width)
            result = shuffle(e, result, wide, [length + k if k in lanes else k for k in range(length)])
        return result


class BlockStripedLoadOpLowering(_BlockStriped):
    OP = "cutlass.block_striped.load"

    def lower(self, op: Operation, e: Emitter):
        return [self.load_fragment(op, e)]


class BlockStripedLoadAddOpLowering(_BlockStriped):
    OP = "cutlass.block_striped.load_add"

    def lower(self, op: Operation, e: Emitter):
        tile = self.load_fragment(op, e)
        if isinstance(op.fragment_type().get_element_type(), AnyFloat):
            return [e.emit(llvm.FAddOp(op.fragment, tile))]
        return [e.add(op.fragment, tile)]


class BlockStripedStoreOpLowering(_BlockStriped):
    OP = "cutlass.block_striped.store"

    def lower(self, op: Operation, e: Emitter):
        element, width = op.fragment_type().get_element_type(), op.access_width()
        base = self.thread_base(op, e)
        for s in range(op.num_stripes()):
            piece = shuffle(e, op.fragment, op.fragment, list(range(s * width, (s + 1) * width)))
            e.add_op(llvm.StoreOp(piece, self.access_addr(op, e, base, s), alignment=width * element_bytes(element)))
        return None


class BlockStripedReduceOpLowering(_BlockStriped):
    OP = "cutlass.block_striped.reduce"

    def lower(self, op: Operation, e: Emitter):
        element = op.fragment_type().get_element_type()
        is_float = isinstance(element, AnyFloat)
        kind = str(op.block_striped_kind.data.value)
        bin_op = {("add", False): "add", ("add", True): "fadd", ("max", False): "max", ("max", True): "fmax"}[(kind, is_float)]
        base = self.thread_base(op, e)
        for i in range(op.num_stripes()):
            lane = shuffle(e, op.fragment, op.fragment, [i])
            value = e.emit(llvm.BitcastOp(lane, element))
            e.add_op(llvm_ext.AtomicRMWOp(bin_op, self.access_addr(op, e, base, i), value, "monotonic", GPU_SCOPE))
        return None


PATTERNS = [
    BlockStripedLoadOpLowering(),
    BlockStripedLoadAddOpLowering(),
    BlockStripedStoreOpLowering(),
    BlockStripedReduceOpLowering(),
]
