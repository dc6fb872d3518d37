"""``nv_tileaa.assert`` on the SIMT path: the PTX system call ``__assertfail``.

A thread ANDs the condition over its slots of the tile; where one is false it calls
``__assertfail(message, file, line, function, 1)`` (ptxas resolves the call itself, as it does
for ``vprintf``: the kernel stays a whole program, no linking), which prints

    file:line: function: block: [x,y,z], thread: [x,y,z] Assertion `message` failed.

and stops the kernel; the launch then fails with ``CUDA_ERROR_ASSERT`` (the context cannot be used
again, as in CUDA C++).  ``file`` and ``line`` are the assert's own source position (cuTile's
``ct.assert_`` call), ``function`` the kernel's name.  The strings are module constants: the
lowering records them on the kernel (:data:`STRINGS_ATTR`) and :func:`add_globals` makes them
``llvm.mlir.global`` constants beside the system call's declaration."""

from __future__ import annotations

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import DictionaryAttr, IntegerType, ModuleOp, StringAttr, i32, i64
from xdsl.ir import Operation

from tileorch.diagnostics import source_position

ASSERTFAIL = "__assertfail"
STRINGS_ATTR = "tileorch.assert_strings"
i8 = IntegerType(8)


def _cstring(text: str) -> str:
    return text.replace("\0", " ") + "\0"


def lower_assert(lowering, e, op: Operation) -> None:
    """Emit ``op``'s check in the kernel ``lowering`` builds (at ``e``), recording its strings on
    ``lowering.assert_strings`` (symbol -> text)."""
    from tileorch.transforms.tileaa_to_simt.emit import Tile

    cond = lowering.get(op.condition)
    slots = cond.slots if isinstance(cond, Tile) else [cond]
    ok = slots[0]
    for s in slots[1:]:
        if s is not ok:
            ok = e.v(arith.AndIOp(ok, s))
    failed = e.v(arith.XOrIOp(ok, e.v(arith.ConstantOp.from_int_and_width(1, 1))))
    pos = source_position(op.location)
    kernel = lowering.fn.sym_name.data
    texts = [op.message.data, pos.filename.data if pos is not None else "<unknown>", kernel]
    names = []
    for text in texts:
        key = _cstring(text)
        name = lowering.assert_strings.get(key)
        if name is None:
            name = lowering.assert_strings[key] = f"__tileorch_str_{kernel}_{len(lowering.assert_strings)}"
        names.append(name)
    line = pos.line.data if pos is not None else 0

    def fail(b) -> None:
        ptrs = [b.v(llvm.AddressOfOp(n, llvm.LLVMPointerType())) for n in names]
        b.add(llvm.CallOp(ASSERTFAIL, ptrs[0], ptrs[1], b.const(line), ptrs[2], b.const(1, i64)))
        # inline assembly: llvm.trap emits "trap; exit;" in LLVM 22, and bound_waits.py finds this text
        b.add(llvm.InlineAsmOp("trap;", "", [], [], has_side_effects=True))

    e.if_(failed, lambda b: (fail(b), None)[1])


def record_strings(fn: Operation, strings: dict[str, str]) -> None:
    """Keep ``strings`` (text -> symbol) on the lowered kernel for :func:`add_globals`."""
    if strings:
        fn.attributes[STRINGS_ATTR] = DictionaryAttr({name: StringAttr(text) for text, name in strings.items()})


def add_globals(module: ModuleOp) -> None:
    """For every kernel of ``module`` with :data:`STRINGS_ATTR`: its strings as constant globals
    and, once, the declaration of ``__assertfail``; the attribute is removed."""
    block = module.body.block
    declared = any(isinstance(op, llvm.FuncOp) and op.sym_name.data == ASSERTFAIL for op in block.ops)
    for fn in list(block.ops):
        attr = fn.attributes.get(STRINGS_ATTR)
        if attr is None:
            continue
        del fn.attributes[STRINGS_ATTR]
        for name, text in attr.data.items():
            raw = text.data.encode("utf-8")
            glob = llvm.GlobalOp(llvm.LLVMArrayType(len(raw), i8), name, "internal", constant=True,
                                 value=StringAttr(text.data), alignment=1)
            block.insert_op_before(glob, fn)
        if not declared:
            ptr = llvm.LLVMPointerType()
            decl = llvm.FuncOp(ASSERTFAIL, llvm.LLVMFunctionType([ptr, ptr, i32, ptr, i64]),
                               linkage=llvm.LinkageAttr("external"))
            block.insert_op_before(decl, fn)
            declared = True


__all__ = ["ASSERTFAIL", "STRINGS_ATTR", "add_globals", "lower_assert", "record_strings"]
