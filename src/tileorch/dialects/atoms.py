"""The ``atom`` dialect: the few data-movement atoms kernels need beside the orchestration ops.

Loads, stores and address arithmetic are plain ``llvm`` ops; these atoms cover what needs more
than one upstream op or a module-level symbol:

* ``%p = atom.dynamic_smem : !llvm.ptr<3>`` -- the start of the kernel's dynamic shared memory
  (the size is chosen at launch), aligned to 1024 bytes;
* ``atom.bulk_copy_g2s %dst, %src, %mbar, %bytes (multicast %mask)?`` -- ``cp.async.bulk`` of
  ``bytes`` (a positive multiple of 16) from global ``%src`` to shared ``%dst``, completing
  ``bytes`` transaction bytes on the mbarrier ``%mbar``; with an i16 ``multicast`` CTA mask the
  same bytes land at the same offsets (data and mbarrier) in every CTA of the cluster named by
  the mask.

``convert-atoms-to-nvvm`` (:mod:`tileorch.transforms.atoms_to_nvvm`) lowers them to upstream
``llvm``/``nvvm`` ops.
"""

from __future__ import annotations

from enum import StrEnum

from xdsl.dialects.builtin import I32, Float32Type, IntAttr, IntegerAttr, IntegerType, StringAttr, i32
from xdsl.dialects.llvm import LLVMPointerType, LLVMStructType
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (AttrSizedOperandSegments, IRDLOperation, ParsePropInAttrDict, irdl_op_definition, operand_def,
                       opt_operand_def, opt_prop_def, prop_def, result_def, traits_def)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

PTR_GLOBAL = LLVMPointerType(IntAttr(1))
PTR_SHARED = LLVMPointerType(IntAttr(3))
DYNAMIC_SMEM_ALIGN = 1024


@irdl_op_definition
class DynamicSmemOp(IRDLOperation):
    """``%p = atom.dynamic_smem : !llvm.ptr<3>``: base of the dynamic shared memory."""

    name = "atom.dynamic_smem"
    result = result_def(PTR_SHARED)
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self) -> None:
        super().__init__(result_types=[PTR_SHARED])


@irdl_op_definition
class BulkCopyG2SOp(IRDLOperation):
    """``atom.bulk_copy_g2s %dst, %src, %mbar, %bytes (multicast %mask)? : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>``"""

    name = "atom.bulk_copy_g2s"
    dst = operand_def(PTR_SHARED)
    src = operand_def(PTR_GLOBAL)
    mbar = operand_def(PTR_SHARED)
    bytes = operand_def(I32)
    multicast = opt_operand_def(IntegerType(16))
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$dst `,` $src `,` $mbar `,` $bytes (`multicast` $multicast^)? attr-dict `:` type($dst) `,` "
        "type($src) `,` type($mbar)"
    )

    def __init__(
        self, dst: SSAValue, src: SSAValue, mbar: SSAValue, nbytes: SSAValue, multicast: SSAValue | None = None
    ):
        super().__init__(operands=[dst, src, mbar, nbytes, [multicast] if multicast is not None else []])

    def verify_(self) -> None:
        owner = self.bytes.owner
        value = getattr(owner, "value", None)
        n = getattr(getattr(value, "value", None), "data", None)
        if isinstance(n, int) and (n <= 0 or n % 16):
            raise VerifyException(f"bulk copy size must be a positive multiple of 16 bytes, got {n}")


class FragmentDtype(StrEnum):
    BF16 = "bf16"
    F16 = "f16"
    F32 = "f32"
    S32 = "s32"
    S8 = "s8"


class _FragmentOp(IRDLOperation):
    """A warp group's ``m64nN`` WGMMA accumulator fragment ``acc`` written to memory as ``dtype``
    (each op declares its operands, ``acc`` first)."""

    dtype = prop_def(StringAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)

    def _fields(self, max_fields: int | None = None, note: str = "") -> list:
        """The accumulator's fields: 4*k f32 or i32 (at most ``max_fields``)."""
        fields = list(self.acc.type.types)
        if not fields or len(fields) % 4 or (max_fields is not None and len(fields) > max_fields) \
                or not _fragment_fields(fields):
            raise VerifyException(f"accumulator must be a struct of 4*k f32 or i32 (an m64nN fragment{note}), "
                                  f"got {self.acc.type}")
        return fields


@irdl_op_definition
class StoreFragmentOp(_FragmentOp):
    """``atom.store_fragment %acc, %base, %row, %col, %rows, %cols, %ld {dtype = "bf16"} : !llvm.struct<(f32 x N/2)>``

    Every thread of a warp group stores its part of an ``m64nN`` WGMMA f32 accumulator (the PTX
    ISA's fragment layout: thread ``t`` holds rows ``16*(t/32) + (t%32)/4 (+8)``, columns
    ``8*g + 2*(t%4) (+1)``) to the row-major matrix at ``base`` (leading dimension ``ld``
    elements), converted to ``dtype``, at rows ``row..row+63`` and columns ``col..col+N-1``;
    elements at or beyond ``rows``/``cols`` are not written (ragged edges).  ``cols`` must be even.
    An i32 accumulator (s8/u8 WGMMA) is stored as ``s32`` as it is, or converted (signed) to a float
    ``dtype``.

    With ``first_column``/``columns`` (whole 8-column groups of the fragment) only those fragment
    columns are stored (still at ``col`` + their column): one round of a round-by-round epilogue,
    whose other fields of ``acc`` are not read.
    """

    name = "atom.store_fragment"
    acc = operand_def(LLVMStructType)
    base = operand_def(PTR_GLOBAL)
    row = operand_def(I32)
    col = operand_def(I32)
    rows = operand_def(I32)
    cols = operand_def(I32)
    ld = operand_def(I32)
    first_column = opt_prop_def(IntegerAttr)
    columns = opt_prop_def(IntegerAttr)
    assembly_format = "$acc `,` $base `,` $row `,` $col `,` $rows `,` $cols `,` $ld attr-dict `:` type($acc)"

    def column_range(self) -> tuple[int, int]:
        """(first fragment column, number of columns) this op stores: all of them by default."""
        n = 2 * len(self.acc.type.types)
        first = self.first_column.value.data if self.first_column is not None else 0
        return first, self.columns.value.data if self.columns is not None else n - first

    def verify_(self) -> None:
        fields = self._fields(128, ", N <= 256")
        first, cols = self.column_range()
        if (self.columns is None) != (self.first_column is None) or cols <= 0 or cols % 8 or first < 0 \
                or first % 8 or first + cols > 2 * len(fields):
            raise VerifyException(f"first_column and columns must both be given, whole 8-column groups inside the "
                                  f"fragment's {2 * len(fields)} columns, got [{first}, {first + cols})")
        if self.dtype.data not in {d.value for d in FragmentDtype}:
            raise VerifyException(f"dtype must be one of bf16, f16, f32, s32, s8, got {self.dtype.data!r}")
        if self.dtype.data == FragmentDtype.S32.value and fields[0] != i32:
            raise VerifyException("dtype s32 stores an i32 accumulator (an s8/u8 WGMMA fragment), got f32 fields")
        if self.dtype.data == FragmentDtype.S8.value and fields[0] != i32:
            raise VerifyException("dtype s8 stores the low bytes of i32 values, got f32 fields")


@irdl_op_definition
class StageFragmentOp(_FragmentOp):
    """``atom.stage_fragment %acc, %buf {first_column = 0 : i64, columns = 128 : i64, dtype = "bf16"} : !llvm.struct<...>``

    Every thread of a warp group writes columns ``first_column .. first_column+columns-1`` of its
    ``m64nN`` WGMMA f32 (or i32, converted as signed) accumulator fragment (same layout as
    ``atom.store_fragment``), converted to 16-bit ``dtype``, into shared memory at ``buf`` as ``columns/64`` boxes of 64 rows x 64
    columns (8 KiB each, box ``j`` at ``buf + 8192*j``), each in the 128-byte swizzled layout a
    TMA store with ``CU_TENSOR_MAP_SWIZZLE_128B`` reads (16-byte chunk ``c`` of row ``r`` at
    chunk ``c ^ (r % 8)``).  ``buf`` must be 1024-byte aligned.  A TMA store of the boxes needs a
    ``fence.proxy.async.shared::cta`` by every writing thread and a group sync first.
    """

    name = "atom.stage_fragment"
    acc = operand_def(LLVMStructType)
    buf = operand_def(PTR_SHARED)
    first_column = prop_def(IntegerAttr)
    columns = prop_def(IntegerAttr)
    assembly_format = "$acc `,` $buf attr-dict `:` type($acc)"

    def verify_(self) -> None:
        n = 2 * len(self._fields())
        first, cols = self.first_column.value.data, self.columns.value.data
        if cols <= 0 or cols % 64 or first < 0 or first % 64 or first + cols > n:
            raise VerifyException(f"columns [{first}, {first + cols}) must be whole 64-column boxes inside the fragment's {n} columns")
        if self.dtype.data not in (FragmentDtype.BF16.value, FragmentDtype.F16.value):
            raise VerifyException(f"dtype must be bf16 or f16 (128-byte rows of 64 elements), got {self.dtype.data!r}")


def _fragment_fields(fields: list) -> bool:
    """All f32 (a float WGMMA accumulator) or all i32 (an integer one)."""
    return all(isinstance(f, Float32Type) for f in fields) or all(f == i32 for f in fields)


def _atom_ops() -> list:
    """This module's ops and the payload's register-A WGMMA (defined beside the other WGMMA op, named in
    this dialect: upstream's ``nvvm.wgmma.mma_async`` reads A only through a descriptor)."""
    from tileorch.dialects.nvvm_payload import WgmmaMmaAsyncRegisterAOp

    return [DynamicSmemOp, BulkCopyG2SOp, StoreFragmentOp, StageFragmentOp, WgmmaMmaAsyncRegisterAOp]


Atom = Dialect("atom", _atom_ops())
