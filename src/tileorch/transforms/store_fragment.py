"""Lowering of ``atom.store_fragment``: one WGMMA accumulator fragment to a row-major matrix.

Thread ``t = tid.x % 128`` of the warp group holds, for each 8-column group ``g`` of the
``m64nN`` tile, the values ``4g, 4g+1`` at row ``16*(t/32) + (t%32)/4`` and ``4g+2, 4g+3`` eight
rows below, both at columns ``8g + 2*(t%4) + {0, 1}`` (PTX ISA, "wgmma D matrix fragment").
Each pair becomes one 4-byte store (``cvt.rn.bf16x2.f32`` / ``cvt.rn.f16x2.f32``; one 8-byte
store for f32 and s32; one 2-byte store for fp8, ``cvt.rn.satfinite.{e4m3,e5m2}x2.f32``, and for
``s8``, the two i32 values' low bytes, an f32 fragment's values converted as cuTile's ``astype(int8)``
first), predicated on ``row < rows && col < cols`` (no branch); with
``first_column``/``columns`` only the groups of those columns.  An i32 fragment (s8/u8 WGMMA)
is stored as it is for ``s32`` (its low byte for ``s8``), else converted (signed) to f32 first.
"""

from __future__ import annotations

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import f32, i1, i8, i16, i32, i64
from xdsl.ir import Operation, SSAValue

from tileorch.dialects import nvvm
from tileorch.dialects.atoms import PTR_GLOBAL, PTR_SHARED, StageFragmentOp, StoreFragmentOp
from tileorch.transforms.attr_cache import position
from tileorch.transforms.llvm_ops import gep, store
from tileorch.transforms.op_collector import OpCollector

_CVT = {"bf16": "cvt.rn.bf16x2.f32 $0, $2, $1;", "f16": "cvt.rn.f16x2.f32 $0, $2, $1;",
        "e4m3": "cvt.rn.satfinite.e4m3x2.f32 $0, $2, $1;", "e5m2": "cvt.rn.satfinite.e5m2x2.f32 $0, $2, $1;"}
ELEM_BYTES = {"f32": 4, "s32": 4, "bf16": 2, "f16": 2, "e4m3": 1, "e5m2": 1, "s8": 1}


class _Ops(OpCollector):
    """Collects the ops that replace one fragment op."""

    def bin(self, cls, a, b) -> SSAValue:
        return self.add(cls(a, b))


def lower_store_fragment(op: StoreFragmentOp) -> list[Operation]:
    """The replacement ops of one ``atom.store_fragment``."""
    e = _Ops()
    dtype = op.dtype.data
    elem_bytes = ELEM_BYTES[dtype]
    tid = e.add(nvvm.SPECIAL_REGISTERS["tid.x"]())
    t = e.bin(arith.AndIOp, tid, e.c(127))
    warp = e.bin(arith.ShRUIOp, t, e.c(5))
    lane = e.bin(arith.AndIOp, t, e.c(31))
    row_in = e.bin(arith.AddiOp, e.bin(arith.MuliOp, warp, e.c(16)), e.bin(arith.ShRUIOp, lane, e.c(2)))
    col_in = e.bin(arith.MuliOp, e.bin(arith.AndIOp, lane, e.c(3)), e.c(2))
    rows = [e.bin(arith.AddiOp, op.row, row_in)]
    rows.append(e.bin(arith.AddiOp, rows[0], e.c(8)))
    col0 = e.bin(arith.AddiOp, op.col, col_in)
    row_ok = [e.add(arith.CmpiOp(r, op.rows, "slt")) for r in rows]
    row_ptr = []
    for r in rows:
        off = e.add(arith.MuliOp(e.add(arith.ExtUIOp(r, i64)), e.add(arith.ExtUIOp(op.ld, i64))))
        row_ptr.append(e.add(gep(op.base, [llvm.GEP_USE_SSA_VAL], i8_type(elem_bytes), ssa_indices=[off],
                                        result_type=PTR_GLOBAL)))
    first, columns = op.column_range()
    for g in range(first // 8, (first + columns) // 8):
        col = e.bin(arith.AddiOp, col0, e.c(8 * g))
        col_ok = e.add(arith.CmpiOp(col, op.cols, "slt"))
        for half in range(2):
            vals = [_field(e, op.acc, 4 * g + 2 * half + j, keep_int=dtype in ("s32", "s8")) for j in range(2)]
            if dtype == "s8" and vals[0].type == f32:  # a float fragment: cuTile's astype(int8) of each value
                vals = [_f32_to_s8(e, v) for v in vals]
            ok = e.add(arith.AndIOp(row_ok[half], col_ok))
            ptr = e.add(gep(row_ptr[half], [llvm.GEP_USE_SSA_VAL], i8_type(elem_bytes), ssa_indices=[col],
                                   result_type=PTR_GLOBAL))
            if elem_bytes == 4:
                _store_if(e, ok, ptr, vals, "f" if dtype == "f32" else "r")
            elif elem_bytes == 2:
                _store_if(e, ok, ptr, [e.add(llvm.InlineAsmOp(_CVT[dtype], "=r,f,f", vals, [i32]))], "r")
            elif dtype == "s8":  # the two i32 values' low bytes, the first (lower address) in the low byte
                lo = e.bin(arith.AndIOp, vals[0], e.c(255))
                word = e.bin(arith.OrIOp, lo, e.bin(arith.ShLIOp, vals[1], e.c(8)))
                _store_if(e, ok, ptr, [e.add(arith.TruncIOp(word, i16))], "h", 16)
            else:  # fp8: the pair's two bytes, the first (lower address) in the low byte
                _store_if(e, ok, ptr, [e.add(llvm.InlineAsmOp(_CVT[dtype], "=h,f,f", vals, [i16]))], "h", 16)
    return e.ops


def _f32_to_s8(e: _Ops, v: SSAValue) -> SSAValue:
    """An f32 value as cuTile's ``astype(int8)`` converts it, in an i32: rounded toward zero
    (``cvt.rzi.s32.f32``: NaN 0, saturating), clamped to [-128, 127]."""
    wide = e.add(arith.FPToSIOp(v, i32))
    return e.bin(arith.MinSIOp, e.bin(arith.MaxSIOp, wide, e.c(-128)), e.c(127))


def _store_if(e: _Ops, ok: SSAValue, ptr: SSAValue, words: list[SSAValue], reg: str, bits: int = 32) -> None:
    """``words`` (one or two ``bits``-bit values, register class ``reg``) stored at the global ``ptr``
    (aligned to their size) where ``ok`` (i1) holds: one predicated ``st.global[.v2].b32`` (inline
    PTX; ``.b16`` for 16-bit words), no branch around it (a branch per pair was a third of a
    sigmoid epilogue's branches)."""
    p32 = e.add(arith.ExtUIOp(ok, i32))
    addr = e.add(llvm.PtrToIntOp(ptr, i64))
    src = "$2" if len(words) == 1 else "{" + ", ".join(f"${2 + i}" for i in range(len(words))) + "}"
    vec = "" if len(words) == 1 else f".v{len(words)}"
    asm = f"{{ .reg .pred p; setp.ne.b32 p, $0, 0; @p st.global{vec}.b{bits} [$1], {src}; }}"
    e.add(llvm.InlineAsmOp(asm, ",".join(["r", "l"] + [reg] * len(words)), [p32, addr, *words], [],
                           has_side_effects=True))


def _field(e: _Ops, acc: SSAValue, index: int, keep_int: bool = False) -> SSAValue:
    """Field ``index`` of a fragment: as f32 (an i32 field converted as signed), or the i32 itself
    with ``keep_int``."""
    typ = acc.type.types.data[index]
    v = e.add(llvm.ExtractValueOp(position(index), acc, typ))
    if typ == i32 and not keep_int:
        v = e.add(arith.SIToFPOp(v, f32))
    return v


def i8_type(elem_bytes: int):
    from xdsl.dialects.builtin import IntegerType

    return IntegerType(8 * elem_bytes) if elem_bytes != 4 else f32


def lower_stage_fragment(op: StageFragmentOp) -> list[Operation]:
    """Swizzled shared-memory staging of fragment columns (see ``atom.stage_fragment``).

    For column group ``g`` the thread's pair sits in 16-byte chunk ``g % 8`` of its row, at byte
    ``4*(t%4)`` of the chunk; rows ``r`` and ``r+8`` share ``r % 8 = (t%32)/4``, so the swizzled
    chunk is ``(g % 8) ^ ((t%32)/4)``: one xor per group, no division."""
    e = _Ops()
    first, cols = op.first_column.value.data, op.columns.value.data
    tid = e.add(nvvm.SPECIAL_REGISTERS["tid.x"]())
    t = e.bin(arith.AndIOp, tid, e.c(127))
    warp = e.bin(arith.ShRUIOp, t, e.c(5))
    lane = e.bin(arith.AndIOp, t, e.c(31))
    quad = e.bin(arith.ShRUIOp, lane, e.c(2))
    row = e.bin(arith.AddiOp, e.bin(arith.MuliOp, warp, e.c(16)), quad)
    row_bytes = [e.bin(arith.MuliOp, row, e.c(128)), e.bin(arith.MuliOp, e.bin(arith.AddiOp, row, e.c(8)), e.c(128))]
    within = e.bin(arith.MuliOp, e.bin(arith.AndIOp, lane, e.c(3)), e.c(4))
    for g in range(first // 8, (first + cols) // 8):
        box = (8 * g - first) // 64
        chunk = e.bin(arith.XOrIOp, quad, e.c(g % 8))
        col_bytes = e.bin(arith.AddiOp, e.bin(arith.MuliOp, chunk, e.c(16)), within)
        for half in range(2):
            vals = [_field(e, op.acc, 4 * g + 2 * half + j) for j in range(2)]
            off = e.bin(arith.AddiOp, e.bin(arith.AddiOp, row_bytes[half], col_bytes), e.c(8192 * box))
            ptr = e.add(gep(op.buf, [llvm.GEP_USE_SSA_VAL], i8, ssa_indices=[off], result_type=PTR_SHARED))
            packed = e.add(llvm.InlineAsmOp(_CVT[op.dtype.data], "=r,f,f", vals, [i32]))
            e.add(store(packed, ptr, alignment=4))
    return e.ops
