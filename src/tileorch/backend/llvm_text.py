"""The body of an ``llvm.func`` written as LLVM IR text directly: the very text llvmlite prints for
the instructions :mod:`tileorch.backend.llvm_translate` would build, without building them
(issue 22: building and printing the llvmlite objects took twice the time this module takes
for the same text: 41 -> 20 ms for a lowered softmax, 120 -> 60 ms for a 128x128 transpose).

:func:`function_body` covers the ops of the memory-bound (SIMT) kernels: integer and float
arithmetic without flags, comparisons, casts, ``select``, branches and their block arguments
(``phi``), ``ret``, loads and stores (volatile / atomic as :mod:`llvm_translate` writes them),
``getelementptr``, ``extractvalue`` / ``insertvalue``, ``insertelement`` / ``extractelement``,
intrinsic calls and direct ``llvm.call``, ``llvm.inline_asm``, ``fneg``, ``atomicrmw`` /
``cmpxchg`` / ``fence``, constants, ``poison`` / ``undef`` / ``zero`` and ``llvm.mlir.addressof``
(every op of the SIMT kernels and of the GEMM tier's kernels but ``shufflevector`` and the float -> integer
conversions, which :func:`llvm_translate._saturating_cast` writes as intrinsic calls).  On any other op, any flag it does not write, a block with a name, or
anything unexpected it returns None having changed nothing but the intrinsic declarations it
added (which the llvmlite translation adds in the same order), and the caller translates the
function with llvmlite; ``FALLBACKS`` counts those functions.

What it reproduces of llvmlite (0.50): values and blocks are numbered in the order llvmlite
creates them (the function's arguments, its return value, the blocks, the block arguments'
``phi``, then one number per instruction, void ones included; constants take none); each
instruction's text is its ``descr`` format with the same spacing (``phi  half``, ``select  i1``,
``asm  "..."`` where a flag list is empty, trailing spaces dropped); ``phi`` incomings in the
order the branches to the block are translated; constants, types and asm callees are formatted
by llvmlite itself (one object per type: :func:`llvm_translate.convert_type`).
``tests/unit/test_llvm_text.py`` compares the text with llvmlite's for programs of every kind.
"""

from __future__ import annotations

import llvmlite.ir as ir
from xdsl.backend.llvm import convert_op as xops
from xdsl.dialects import llvm
from xdsl.ir import Block, Operation

from tileorch.dialects import llvm_ext
from tileorch.dominance import DIRECT_FIELDS as _DIRECT_FIELDS

FALLBACKS = [0]
"""Functions :func:`function_body` left to llvmlite (a one-element list: a counter for tests)."""


class _NotCovered(Exception):
    """An op or a form this module does not write: the function goes to llvmlite."""


_BINOPS: dict[type, str] = {}
"""xDSL's binary-op classes -> llvmlite's opname (its builder method's name less a trailing ``_``)."""


class _MethodName:
    def __getattr__(self, name: str) -> str:
        return name


for _cls, _method in xops._BINARY_OP_MAP.items():  # noqa: SLF001
    _BINOPS[_cls] = _method(_MethodName()).rstrip("_")

_CASTS: dict[type, str] = dict(xops._CAST_OP_NAMES)  # noqa: SLF001
EXT_CASTS = {llvm_ext.AddrSpaceCastOp: "addrspacecast", llvm_ext.FPToSIOp: "fptosi",
              llvm_ext.FPToUIOp: "fptoui", llvm_ext.UIToFPOp: "uitofp"}
_I1 = ir.IntType(1)


_FLAG_FREE: set[type] = set()
"""Op classes that carry none of the flags :func:`_binop_flags` and :func:`_cast_flags` read
(a class test per op was a tenth of writing a kernel's text)."""


def _flag_free(cls: type) -> bool:
    if cls in _FLAG_FREE:
        return True
    if not issubclass(cls, (llvm.ArithmeticBinOpOverflow, llvm.AbstractFloatArithOp, llvm.ArithmeticBinOpExact,
                            llvm.ArithmeticBinOpDisjoint, llvm.IntegerConversionOpOverflow,
                            llvm.IntegerConversionOpNNeg)):
        _FLAG_FREE.add(cls)
        return True
    return False


def _binop_flags(op: Operation) -> bool:
    """Whether the flags xDSL's ``_convert_binop`` would pass are non-empty."""
    if _flag_free(type(op)):
        return False
    if isinstance(op, llvm.ArithmeticBinOpOverflow):
        return bool(op.overflowFlags) and bool(llvm.OverflowAttr.from_int(op.overflowFlags.value.data).data)
    if isinstance(op, llvm.AbstractFloatArithOp):
        return bool(op.fastmathFlags) and bool(op.fastmathFlags.data)
    if isinstance(op, llvm.ArithmeticBinOpExact):
        return bool(op.is_exact)
    if isinstance(op, llvm.ArithmeticBinOpDisjoint):
        return bool(op.is_disjoint)
    return False


def _cast_flags(op: Operation) -> bool:
    """Whether xDSL's ``_convert_cast`` would write flags (``trunc nsw``, ``zext nneg``)."""
    if _flag_free(type(op)):
        return False
    if isinstance(op, llvm.IntegerConversionOpOverflow) and op.overflowFlags:
        return bool([f.value for f in op.overflowFlags.data])
    return isinstance(op, llvm.IntegerConversionOpNNeg) and bool(op.non_neg)


def align_of(typ: ir.Type, align: int | None) -> int:
    """``align`` if given, else the natural alignment of ``typ`` (integers: their bytes)."""
    if align is not None:
        return align
    if isinstance(typ, ir.IntType):
        return max(1, typ.width // 8)
    return {ir.HalfType: 2, ir.FloatType: 4, ir.DoubleType: 8}.get(type(typ), 8)


def scope_text(syncscope: str | None) -> str:
    return f' syncscope("{syncscope}")' if syncscope else ""


def load_text(op: Operation, typ: ir.Type, ptr_type: ir.Type, ptr: str) -> str:
    """``load [atomic] [volatile] T, P %ptr[ syncscope("s") ordering][, align N]`` of an
    ``llvm.load`` (xDSL's or :mod:`tileorch.dialects.llvm_ext`'s) that reads ``ptr``."""
    ordering = llvm_ext.ordering_name(op.ordering)
    atomic = ordering != "not_atomic"
    volatile = op.properties.get("volatile_") is not None
    scope = op.properties.get("syncscope")
    align = op.alignment.value.data if op.alignment is not None else (align_of(typ, None) if atomic else None)
    head = "load" + (" atomic" if atomic else "") + (" volatile" if volatile else "")
    tail = f"{scope_text(scope.data if scope else None)} {ordering}" if atomic else ""
    return f"{head} {typ}, {ptr_type} {ptr}{tail}" + (f", align {align}" if align else "")


def store_text(op: Operation, value_type: ir.Type, value: str, ptr_type: ir.Type, ptr: str) -> str:
    """``store [atomic] [volatile] T %value, P %ptr[ ordering][, align N]`` of an ``llvm.store``."""
    ordering = llvm_ext.ordering_name(op.ordering)
    atomic = ordering != "not_atomic"
    volatile = op.volatile_ is not None
    align = op.alignment.value.data if op.alignment is not None else (align_of(value_type, None) if atomic else None)
    head = "store" + (" atomic" if atomic else "") + (" volatile" if volatile else "")
    tail = f" {ordering}" if atomic else ""
    return f"{head} {value_type} {value}, {ptr_type} {ptr}{tail}" + (f", align {align}" if align else "")


def atomicrmw_text(op: Operation, ptr: tuple[ir.Type, str], value: tuple[ir.Type, str]) -> str:
    """``atomicrmw [volatile] OP P %ptr, T %value[ syncscope("s")] ordering, align N``: each
    operand as (its llvmlite type, its reference)."""
    name = llvm_ext.ATOMIC_BIN_OP_NAMES[op.bin_op.value.data].lstrip("_")
    align = align_of(value[0], op.alignment.value.data if op.alignment is not None else None)
    scope = op.syncscope.data if op.syncscope is not None else None
    vol = " volatile" if op.volatile_ is not None else ""
    return (f"atomicrmw{vol} {name} {ptr[0]} {ptr[1]}, {value[0]} {value[1]}"
            f"{scope_text(scope)} {llvm_ext.ordering_name(op.ordering)}, align {align}")


def cmpxchg_text(op: Operation, ptr: tuple[ir.Type, str], cmp: tuple[ir.Type, str], new: tuple[ir.Type, str]) -> str:
    """``cmpxchg [weak] [volatile] P %ptr, T %cmp, T %new[ syncscope("s")] success failure, align N``."""
    align = align_of(new[0], op.alignment.value.data if op.alignment is not None else None)
    scope = op.syncscope.data if op.syncscope is not None else None
    flags = (" weak" if op.weak is not None else "") + (" volatile" if op.volatile_ is not None else "")
    return (f"cmpxchg{flags} {ptr[0]} {ptr[1]}, {cmp[0]} {cmp[1]}, {new[0]} {new[1]}{scope_text(scope)} "
            f"{llvm_ext.ordering_name(op.success_ordering)} {llvm_ext.ordering_name(op.failure_ordering)}, align {align}")


def fence_text(op: Operation) -> str:
    scope = op.syncscope.data if op.syncscope is not None else None
    return f"fence{scope_text(scope)} {llvm_ext.ordering_name(op.ordering)}"


def _same_types(expected, given) -> bool:
    """What ``CallInstr`` checks of a call's arguments (llvmlite's type equality; a metadata
    parameter, which it would wrap, is not written here)."""
    return len(expected) == len(given) and all(
        not isinstance(e, ir.MetaDataType) and not (g != e) for e, g in zip(expected, given))


def _ref(name: int) -> str:
    return f'%".{name}"'


def function_body(op: llvm.FuncOp, fn: ir.Function, module: ir.Module, convert_type, shared_asm) -> str | None:
    """The text llvmlite prints for the blocks of ``fn`` once :func:`llvm_translate._convert_body`
    has translated ``op``'s body into it (``fn`` has no blocks yet); None where this module does
    not cover the function (then nothing was changed but intrinsic declarations).
    ``convert_type`` and ``shared_asm(op, arg_types)`` (the ``ir.InlineAsm`` an ``llvm.inline_asm``
    calls) are the translation's memos."""
    try:
        return _Writer(op, fn, module, convert_type, shared_asm).text()
    except _NotCovered:
        FALLBACKS[0] += 1
        return None
    except Exception:  # noqa: BLE001 - malformed IR (an index type, a missing value ...): the llvmlite
        FALLBACKS[0] += 1  # translation meets the same op and reports it where it is, as before
        return None


class _Writer:
    def __init__(self, op: llvm.FuncOp, fn: ir.Function, module: ir.Module, convert_type, shared_asm) -> None:
        self.op, self.fn, self.module = op, fn, module
        self.type = convert_type
        self.asm = shared_asm
        self.vals: dict[int, tuple[ir.Type, str]] = {}  # id(SSA value) -> (its llvmlite type, its reference)
        self.intrinsics: dict[tuple, tuple[ir.Type, str]] = {}  # (name, result, ids of argument types) -> call head
        self.next = len(fn.args) + 2  # the arguments, then the return value, took the first numbers

    def number(self) -> int:
        n = self.next
        self.next = n + 1
        return n

    def val(self, value) -> tuple[ir.Type, str]:
        return self.vals[id(value)]

    def typed(self, value) -> str:
        t, r = self.vals[id(value)]
        return f"{t} {r}"

    def text(self) -> str:
        blocks = list(self.op.body.blocks)
        if any(b.name_hint for b in blocks):
            raise _NotCovered("a named block")
        labels: dict[Block, str] = {}
        for block in blocks:
            labels[block] = f".{self.number()}"
        self.labels = labels
        phis: dict[int, tuple[int, ir.Type, list[str]]] = {}  # id(block argument) -> (number, type, incomings)
        for i, block in enumerate(blocks):
            if i == 0:
                for arg, llarg in zip(block.args, self.fn.args, strict=True):
                    self.vals[id(arg)] = (llarg.type, llarg.get_reference())
                continue
            for arg in block.args:
                t = self.type(arg.type)
                n = self.number()
                self.vals[id(arg)] = (t, _ref(n))
                phis[id(arg)] = (n, t, [])
        self.phis = phis
        lines: list[list[str]] = []
        for block in blocks:
            self.block = block
            out: list[str] = []
            for inner in block.ops:
                line = self.write(inner)
                if line is not None:
                    out.append(line)
            lines.append(out)
        parts: list[str] = []
        for block, out in zip(blocks, lines):
            parts.append(f"{labels[block]}:\n")
            for arg in block.args if block is not blocks[0] else ():
                n, t, incomings = phis[id(arg)]
                parts.append(f'  %".{n}" = phi  {t} {", ".join(incomings)}\n')
            parts.extend(out)
        return "".join(parts)

    def result(self, op: Operation, typ: ir.Type, text: str) -> str:
        n = self.number()
        for res in op.results:  # the first (each op written here has one); iterating the tuple
            self.vals[id(res)] = (typ, _ref(n))  # is cheaper than xDSL's indexing of it
            break
        return f'  %".{n}" = {text}\n'

    def void(self, text: str) -> str:
        self.number()
        return f"  {text}\n"

    def incoming(self, dest: Block, values) -> None:
        here = f'%"{self.labels[self.block]}"'
        for arg, value in zip(dest.args, values):
            self.phis[id(arg)][2].append(f"[{self.val(value)[1]}, {here}]")

    def write(self, op: Operation) -> str | None:  # noqa: C901 - one arm per op class
        cls = type(op)
        opname = _BINOPS.get(cls)
        if opname is not None:
            if _binop_flags(op):
                raise _NotCovered("flags")
            a, b = op._operands if _DIRECT_FIELDS else op.operands  # (the tuple: no view per op)
            (lt, lhs), (rt, rhs) = self.vals[id(a)], self.vals[id(b)]
            if lt is not rt and lt != rt:
                raise _NotCovered("operand types")
            return self.result(op, lt, f"{opname} {lt} {lhs}, {rhs}")
        if cls is llvm.ConstantOp:
            c = xops.create_constant(op.result.type, op.value)
            self.vals[id(op.result)] = (c.type, c.get_reference())
            return None
        if cls is llvm.ICmpOp:
            pred = llvm.ICmpPredicateFlag.from_int(op.predicate.value.data).value
            return self._compare(op, "icmp", pred)
        if cls is llvm.FCmpOp:
            if op.fastmathFlags and op.fastmathFlags.data:
                raise _NotCovered("fcmp flags")
            pred = llvm.FCmpPredicateFlag.from_int(op.predicate.value.data).value
            return self._compare(op, "fcmp", pred)
        if cls is llvm_ext.FPToSIOp or cls is llvm_ext.FPToUIOp:  # (never LLVM's poison fptosi: llvm_translate's
            raise _NotCovered("a float -> integer conversion")   # _saturating_cast writes it)
        name = _CASTS.get(cls) or EXT_CASTS.get(cls)
        if name is not None:
            if cls in _CASTS and _cast_flags(op):
                raise _NotCovered("cast flags")
            (res,), (arg,) = op.results, (op._operands if _DIRECT_FIELDS else op.operands)
            typ = self.type(res.type)
            return self.result(op, typ, f"{name} {self.typed(arg)} to {typ}")
        if cls is llvm.BrOp:
            self.incoming(op.successor, op.arguments)
            return self.void(f'br label %"{self.labels[op.successor]}"')
        if cls is llvm.CondBrOp:
            self.incoming(op.then_block, op.then_arguments)
            self.incoming(op.else_block, op.else_arguments)
            return self.void(f'br {self.typed(op.cond)}, label %"{self.labels[op.then_block]}", '
                             f'label %"{self.labels[op.else_block]}"')
        if cls is llvm.InlineAsmOp:
            args = [self.val(a) for a in op.operands_]
            asm = self.asm(op, [t for t, _ in args])
            text = f"call {asm.type} {asm.get_reference()}({', '.join(f'{t} {r}' for t, r in args)})"
            return self.result(op, asm.type, text) if op.res else self.void(text)
        if cls is llvm.CallIntrinsicOp:
            return self._intrinsic(op)
        if cls is llvm.SelectOp:
            (lt, lhs), (rt, rhs) = self.val(op.lhs), self.val(op.rhs)
            if lt != rt:
                raise _NotCovered("select types")
            return self.result(op, lt, f"select  {self.typed(op.cond)}, {lt} {lhs}, {rt} {rhs}")
        if cls is llvm.GEPOp:
            ssa = iter(op.ssa_indices)
            indices = [self.typed(next(ssa)) if idx == llvm.GEP_USE_SSA_VAL else f"i32 {idx}"
                       for idx in op.rawConstantIndices.iter_values()]
            pt, ptr = self.val(op.ptr)
            head = "getelementptr inbounds" if op.inbounds is not None else "getelementptr"
            return self.result(op, pt, f"{head} {self.type(op.elem_type)}, {pt} {ptr}, {', '.join(indices)}")
        if cls is llvm.LoadOp or cls is llvm_ext.LoadOp:
            return self._load(op)
        if cls is llvm.StoreOp:
            return self._store(op)
        if cls is llvm_ext.AtomicRMWOp:
            value = self.val(op.val)
            return self.result(op, value[0], atomicrmw_text(op, self.val(op.ptr), value))
        if cls is llvm_ext.CmpXchgOp:
            new = self.val(op.val)
            return self.result(op, ir.LiteralStructType([new[0], _I1]),
                               cmpxchg_text(op, self.val(op.ptr), self.val(op.cmp), new))
        if cls is llvm_ext.FenceOp:
            return self.void(fence_text(op))
        if cls is llvm.ExtractValueOp:
            typ = self.type(op.results[0].type)
            position = ", ".join(str(i) for i in op.position.iter_values())
            return self.result(op, typ, f"extractvalue {self.typed(op.container)}, {position}")
        if cls is llvm.InsertValueOp:
            at, agg = self.val(op.container)
            et, elem = self.val(op.value)
            position = [int(i) for i in op.position.iter_values()]
            member = at
            for i in position:
                member = member.elements[i]
            if str(member) != str(et):
                raise _NotCovered("insertvalue of another type")
            return self.result(op, at, f"insertvalue {at} {agg}, {et} {elem}, {', '.join(map(str, position))}")
        if cls is llvm.CallOp:
            return self._call(op)
        if cls is llvm.InsertElementOp:
            vt, vec = self.val(op.vector)
            return self.result(op, vt, f"insertelement {vt} {vec}, {self.typed(op.value)}, {self.typed(op.index)}")
        if cls is llvm_ext.ExtractElementOp:
            vt, vec = self.val(op.vector)
            if not isinstance(vt, ir.VectorType):
                raise _NotCovered("extractelement of a non-vector")
            return self.result(op, vt.element, f"extractelement {vt} {vec}, {self.typed(op.position)}")
        if cls is llvm.FNegOp:
            if [f.value for f in op.fastmathFlags.data]:
                raise _NotCovered("fneg flags")
            at, arg = self.val(op.arg)
            return self.result(op, at, f"fneg {at} {arg}")
        if cls is llvm.ReturnOp:
            if op.operands:
                return self.void(f"ret {self.typed(op.operands[0])}")
            return self.void("ret void")
        if cls is llvm_ext.PoisonOp:
            typ = self.type(op.res.type)
            c = ir.Constant(typ, ir.Undefined) if isinstance(typ, ir.VectorType) else ir.FormattedConstant(typ, "poison")
            self.vals[id(op.res)] = (typ, c.get_reference())
            return None
        if cls is llvm.UndefOp or cls is llvm.ZeroOp:
            typ = self.type(op.res.type)
            c = ir.Constant(typ, ir.Undefined if cls is llvm.UndefOp else None)
            self.vals[id(op.res)] = (typ, c.get_reference())
            return None
        if cls is llvm.AddressOfOp:
            gv = self.module.get_global(op.global_name.root_reference.data)
            self.vals[id(op.result)] = (gv.type, gv.get_reference())
            return None
        raise _NotCovered(op.name)

    def _compare(self, op: Operation, opname: str, pred: str) -> str:
        (lt, lhs), (rt, rhs) = self.val(op.lhs), self.val(op.rhs)
        typ = ir.VectorType(_I1, lt.count) if isinstance(lt, ir.VectorType) else _I1
        return self.result(op, typ, f"{opname} {pred} {lt} {lhs}, {rhs}")

    def _intrinsic(self, op: llvm.CallIntrinsicOp) -> str:
        if op.op_bundle_operands or op.op_bundle_sizes or any(op.fastmathFlags.data):
            raise _NotCovered("intrinsic call form")
        args = [self.val(a) for a in op.args]
        ress = op.ress
        name = op.intrin.data
        key = (name, None if ress is None else ress.type, *(id(t) for t, _ in args))  # (the types live as long as
        known = self.intrinsics.get(key)                                               # self.vals: ids stay theirs)
        if known is None:  # the callee's declaration and the call's head, once per name and signature
            ret = self.type(ress.type) if ress is not None else ir.VoidType()
            fn_type = ir.FunctionType(ret, [t for t, _ in args])
            try:
                callee = self.module.get_global(name)
            except KeyError:
                callee = ir.Function(self.module, fn_type, name=name)
            ftype = callee.function_type
            if ftype.var_arg or callee.calling_convention or not _same_types(ftype.args, [t for t, _ in args]):
                raise _NotCovered("intrinsic declared otherwise")
            known = self.intrinsics[key] = (ftype.return_type, f"call {ftype.return_type} {callee.get_reference()}(")
        ret_type, head = known
        text = head + ", ".join(f"{t} {r}" for t, r in args) + ")"
        if ress is None:
            return self.void(text)
        return self.result(op, ret_type, text)

    def _call(self, op: llvm.CallOp) -> str:
        """A direct call of a function of the module (xDSL's ``_convert_call``)."""
        if op.op_bundle_operands or op.op_bundle_sizes or op.callee is None:
            raise _NotCovered("call form")
        args = [self.val(a) for a in op.args]
        callee = self.module.get_global(op.callee.string_value())
        if op.returned is not None and [f.value for f in op.fastmathFlags.data]:
            raise _NotCovered("call fastmath flags")
        ftype = callee.function_type
        if ftype.var_arg or not _same_types(ftype.args, [t for t, _ in args]):
            raise _NotCovered("call signature")
        cconv = op.CConv.cconv_name
        tail = "tail " if op.TailCallKind.data != "none" else ""
        head = f"{cconv} {ftype.return_type}" if cconv else f"{ftype.return_type}"
        text = f"{tail}call {head} {callee.get_reference()}({', '.join(f'{t} {r}' for t, r in args)})"
        if isinstance(ftype.return_type, ir.VoidType):
            return self.void(text)
        n = self.number()
        if op.returned is not None:
            self.vals[id(op.returned)] = (ftype.return_type, _ref(n))
        return f'  %".{n}" = {text}\n'

    def _load(self, op: Operation) -> str:
        pt, ptr = self.val(op.ptr)
        typ = self.type(op.results[0].type)
        return self.result(op, typ, load_text(op, typ, pt, ptr))

    def _store(self, op: Operation) -> str:
        vt, value = self.val(op.value)
        pt, ptr = self.val(op.ptr)
        return self.void(store_text(op, vt, value, pt, ptr))
