"""The size rule of the SM100 Stream-K cluster fix-up's shared-memory buffer, one code for ``tileorch compile`` and
``tileorch check``.

``cutlass.tile_scheduler.fixup %sched, %w, %acc smem(%buf : !llvm.ptr<3>)`` on a cluster-coordinated SM100 Stream-K
scheduler reduces each piece inside the cluster: ranks 1.. store their partial accumulator into their own ``%buf``
(thread ``t = tid % 128`` of warp group ``barrier_idx`` of ``num_barriers``, the fix-up's striped layout) and rank 0
reads them through DSMEM.  The buffer must hold the CTA's whole partial tile, ``num_barriers * 128 threads *
accumulator bytes``; a smaller one is overrun (the partials of the last threads land past its end, on whatever
shared memory follows).  Where ``%buf`` is ``llvm.mlir.addressof`` of a global whose bytes are known, a smaller
buffer is a located error at the fix-up.

``convert-pipeline-to-nvvm`` (the fix-up's lowering) and the model checker's extraction (:func:`check_module`,
called by ``tileorch check`` before any protocol is built: the model has no buffer sizes) both call
:func:`check_fixup_buffer`.  Before session 42 only the lowering refused it, and ``tileorch check`` proved the
kernel.  This module reads IR only."""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import Float16Type, VectorType
from xdsl.ir import Attribute, Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects.cutlass.pipeline_facts import int_prop

FIXUP = "cutlass.tile_scheduler.fixup"
WARP_GROUP = 128
"""Threads of one fix-up warp group (each has one slot, ``tid % 128``)."""


def llvm_bytes(t: Attribute) -> int | None:
    """Bytes of an LLVM global's type: integers / floats and (nested) arrays of them; None for anything else."""
    if isinstance(t, llvm.LLVMArrayType):
        inner = llvm_bytes(t.type)
        return None if inner is None else t.size.data * inner
    bits = getattr(getattr(t, "width", None), "data", None) or getattr(t, "bitwidth", None)
    return bits // 8 if isinstance(bits, int) and bits % 8 == 0 else None


def global_bytes(op: Operation, ptr: SSAValue) -> int | None:
    """Bytes of the global ``ptr`` addresses directly (``llvm.mlir.addressof @g``), None when not known statically."""
    from xdsl.traits import SymbolTable

    owner = ptr.owner
    if not isinstance(owner, llvm.AddressOfOp):
        return None
    module = op
    while module.parent_op() is not None:
        module = module.parent_op()
    found = SymbolTable.lookup_symbol(module, owner.global_name)
    return llvm_bytes(found.global_type) if isinstance(found, llvm.GlobalOp) else None


def partial_tile_bytes(typ: Attribute, groups: int) -> int | None:
    """Bytes of one CTA's partial tile for accumulator type ``typ`` (a number, a 1-D vector of them or a struct of
    equal number fields) and ``groups`` warp groups; None for a type the fix-up refuses (its lowering says why)."""
    if isinstance(typ, VectorType):
        if typ.get_num_dims() != 1:
            return None
        values, elem = typ.get_shape()[0], typ.element_type
    elif isinstance(typ, llvm.LLVMStructType):
        fields = typ.types.data
        if not fields or any(f != fields[0] for f in fields):
            return None
        values, elem = len(fields), fields[0]
    else:
        values, elem = 1, typ
    bits = getattr(getattr(elem, "width", None), "data", None) or getattr(elem, "bitwidth", None)
    if not isinstance(bits, int) or bits % 8 or (isinstance(elem, Float16Type) and values % 2):
        return None
    return groups * WARP_GROUP * values * (bits // 8)


def check_fixup_buffer(op: Operation) -> None:
    """A located error at the fix-up ``op`` whose ``smem(...)`` buffer is statically smaller than its partial tile."""
    if op.name != FIXUP or len(op.operands) < 4:
        return
    acc, smem = op.operands[2], op.operands[3]
    groups = int_prop(op, "num_barriers", 1)
    need = partial_tile_bytes(acc.type, groups)
    held = global_bytes(op, smem)
    if need is not None and held is not None and held < need:
        raise LocatedError(op, f"the smem(...) buffer holds {held} bytes, but this CTA's partial tile is "
                               f"{need} bytes ({groups} x {WARP_GROUP} threads x {acc.type}): the peers' "
                               "partials would be written past its end; size the buffer num_barriers * 128 threads "
                               "* accumulator bytes")


def check_module(module: Operation) -> None:
    """:func:`check_fixup_buffer` on every fix-up of ``module`` (``tileorch check``'s entry)."""
    for op in module.walk():
        if op.name == FIXUP:
            check_fixup_buffer(op)
