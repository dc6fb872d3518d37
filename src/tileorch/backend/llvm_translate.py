"""``llvm`` dialect module -> LLVM IR text for NVPTX, built on ``xdsl.backend.llvm``.

xDSL's translator is reused op by op; this module fixes what it gets wrong or lacks
for GPU code:

* ``llvm.getelementptr`` on ``ptr<1>``/``ptr<3>``: no address-space-dropping bitcast;
* globals get opaque pointer types (xDSL gives typed ones, which break a store of
  another type through ``llvm.mlir.addressof``) and their ``alignment``;
* loads/stores keep ``volatile``, atomic ordering and ``syncscope``; our
  ``llvm.atomicrmw``/``cmpxchg``/``fence``/``addrspacecast``/``fptosi``/``fptoui`` (as PTX's ``cvt.rzi``:
  never LLVM's poison)/
  ``uitofp``/``mlir.poison``/``extractelement`` and xDSL's ``insertelement`` are translated;
* a function marked ``nvvm.kernel`` gets the ``ptx_kernel`` calling convention (a PTX
  ``.entry``), and its ``nvvm.maxntid``/``reqntid``/``minctasm``/``maxnreg``/
  ``cluster_dim`` attributes become LLVM 22's string function attributes (so ptxas sees
  ``.maxntid``/``.minnctapersm``/``.reqnctapercluster``); a kernel without
  ``nvvm.cluster_dim`` in a module with ``cutlass.cluster_shape`` other than 1x1x1 gets
  that shape;
* every ``llvm.call_intrinsic`` name is checked against the known-intrinsic table;
* a literal struct type of 8 or more members (a WGMMA accumulator: 64 or 128 floats, spelled at
  some 1300 places of a GEMM's text) is written as one named type, defined once
  (:mod:`tileorch.backend.llvm_struct_names`; every type :func:`convert_type` gives goes through it).

The module's globals, declarations and function signatures are built with llvmlite; a function
body is written as text by :mod:`tileorch.backend.llvm_text` (the same text, without building an
llvmlite object per instruction) unless it holds an op that module does not write, in which case
:func:`_convert_body` builds it with llvmlite as described here.

Failures are :class:`~tileorch.diagnostics.LocatedError` at the offending op.
"""

from __future__ import annotations

import re
import threading

import llvmlite.ir as ir
from llvmlite.ir import instructions
from xdsl.backend.llvm import convert as xconvert
from xdsl.backend.llvm import convert_op as xops
from xdsl.backend.llvm.convert_op import convert_op as xdsl_convert_op
from xdsl.backend.llvm.convert_type import convert_type as xdsl_convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import LLVMTranslationException

from tileorch.backend import llvm_text
from tileorch.backend.intrinsics import check_known_intrinsics
from tileorch.backend.llvm_struct_names import StructNames
from tileorch.backend.llvm_text import (EXT_CASTS, atomicrmw_text, cmpxchg_text, fence_text, load_text,
                                        store_text)
from tileorch.diagnostics import LocatedError
from tileorch.dialects import llvm_ext
from tileorch.dialects import nvvm_common as nvvm  # the kernel attributes' names (not the op classes)

TRIPLE = "nvptx64-nvidia-cuda"

# MLIR attribute name -> LLVM 22 string function attribute
KERNEL_FN_ATTRS = {
    nvvm.MAXNTID_ATTR: "nvvm.maxntid",
    nvvm.REQNTID_ATTR: "nvvm.reqntid",
    nvvm.MINCTASM_ATTR: "nvvm.minctasm",
    nvvm.MAXNREG_ATTR: "nvvm.maxnreg",
    nvvm.CLUSTER_DIM_ATTR: "nvvm.cluster_dim",
}

ValMap = dict[SSAValue, ir.Value]

_MEMO_MAX = 20_000
"""The memos below are emptied when one reaches this many entries (a bound on their memory)."""
_TYPES: dict[int, tuple[Attribute, ir.Type]] = {}
"""``id(type attribute)`` -> (the attribute, its llvmlite type): each entry holds its attribute,
so the id stays that attribute's while the entry exists."""
_VOID = ir.VoidType()


def convert_type(attr: Attribute) -> ir.Type:
    """xDSL's ``convert_type``, one llvmlite type object per type attribute (attributes are
    immutable): an llvmlite type formats its text once per object, so the thousands of operands
    of the same few types in a kernel's IR are formatted once each (xDSL makes a new type object
    per op), and no attribute is converted twice."""
    entry = _TYPES.get(id(attr))
    if entry is None:
        if len(_TYPES) >= _MEMO_MAX:
            _TYPES.clear()
            _ASMS.clear()  # (keyed by the types' ids)
        entry = _TYPES[id(attr)] = (attr, xdsl_convert_type(attr))
    names = _NAMES.current
    return entry[1] if names is None else names.named(entry[1])


class _Translating(threading.local):
    current: StructNames | None = None


_NAMES = _Translating()
"""``current``: the struct names of the module :func:`translate_module` is translating in this
thread (None outside it): every type :func:`convert_type` gives is named by it, so a large struct
is spelled with one name."""

for _xdsl_module in (xops, xconvert):  # xDSL's op arms, signatures and globals use the memo too
    if getattr(_xdsl_module, "convert_type", None) is xdsl_convert_type:
        _xdsl_module.convert_type = convert_type


# --------------------------------------------------------------------------- instructions llvmlite lacks


class _MemoryInstr(instructions.Instruction):
    """An instruction whose text is given by a format function (volatile/atomic/syncscope)."""

    def __init__(self, parent, typ, opname, operands, text, name=""):
        super().__init__(parent, typ, opname, operands, name=name)
        self._text = text

    def descr(self, buf):
        buf.append(self._text(self.operands) + self._stringify_metadata(leading_comma=True) + "\n")


def _emit(builder: ir.IRBuilder, typ, opname, operands, text) -> ir.Value:
    instr = _MemoryInstr(builder.block, typ, opname, operands, text)
    builder._insert(instr)  # noqa: SLF001 - llvmlite's documented way to add a custom instruction
    return instr


def _ordering(attr: IntegerAttr | None) -> str:
    return llvm_ext.ordering_name(attr)


def _load(op, builder, vals: ValMap) -> None:
    typ = convert_type(op.results[0].type)
    vals[op.results[0]] = _emit(builder, typ, "load", [vals[op.ptr]],
                                lambda ops: load_text(op, typ, ops[0].type, ops[0].get_reference()))


def _store(op, builder, vals: ValMap) -> None:
    _emit(builder, ir.VoidType(), "store", [vals[op.value], vals[op.ptr]],
          lambda ops: store_text(op, ops[0].type, ops[0].get_reference(), ops[1].type, ops[1].get_reference()))


def _atomicrmw(op: llvm_ext.AtomicRMWOp, builder, vals: ValMap) -> None:
    value = vals[op.val]
    vals[op.res] = _emit(builder, value.type, "atomicrmw", [vals[op.ptr], value],
                         lambda ops: atomicrmw_text(op, *((o.type, o.get_reference()) for o in ops)))


def _cmpxchg(op: llvm_ext.CmpXchgOp, builder, vals: ValMap) -> None:
    value = vals[op.val]
    vals[op.res] = _emit(builder, ir.LiteralStructType([value.type, ir.IntType(1)]), "cmpxchg",
                         [vals[op.ptr], vals[op.cmp], value],
                         lambda ops: cmpxchg_text(op, *((o.type, o.get_reference()) for o in ops)))


def _fence(op: llvm_ext.FenceOp, builder, vals: ValMap) -> None:
    _emit(builder, ir.VoidType(), "fence", [], lambda ops: fence_text(op))


def _gep(op: llvm.GEPOp, builder, vals: ValMap) -> None:
    ssa = iter(op.ssa_indices)
    indices = [
        vals[next(ssa)] if idx == llvm.GEP_USE_SSA_VAL else ir.Constant(ir.IntType(32), idx)
        for idx in op.rawConstantIndices.iter_values()
    ]
    vals[op.results[0]] = builder.gep(
        vals[op.ptr], indices, inbounds=op.inbounds is not None, source_etype=convert_type(op.elem_type)
    )


_SATURATING = {llvm_ext.FPToSIOp: "fptosi", llvm_ext.FPToUIOp: "fptoui"}
"""Float -> integer conversions, emitted as intrinsics with defined out-of-range results (:func:`_saturating_cast`;
:mod:`llvm_text` leaves a function holding one to this module)."""

_CASTS = {cls: name for cls, name in EXT_CASTS.items() if cls not in _SATURATING}
"""Our other cast ops -> the llvmlite builder method (and opname) that writes them."""


def convert_op(op: Operation, builder: ir.IRBuilder, vals: ValMap, blocks: dict[Block, ir.Block]) -> None:
    """Translate one op, with tileorch's fixes; anything else goes to xDSL's translator.  Which
    of them translates an op depends on its class only: looked up once per class
    (:func:`_translator`), not by a chain of ``isinstance`` tests per op."""
    handler = _TRANSLATORS.get(type(op))
    if handler is None:
        handler = _TRANSLATORS[type(op)] = _translator(type(op))
    handler(op, builder, vals, blocks)


def _cast(op: Operation, builder: ir.IRBuilder, vals: ValMap, blocks: dict[Block, ir.Block]) -> None:
    vals[op.result] = getattr(builder, _CASTS[type(op)])(vals[op.arg], convert_type(op.result.type))


def _mangled(t: ir.Type) -> str:
    """``t``'s suffix in an overloaded intrinsic's name (``i32``, ``f32``, ``v2f32``)."""
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{_mangled(t.element)}"
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    return {ir.HalfType: "f16", ir.FloatType: "f32", ir.DoubleType: "f64"}.get(type(t), str(t))


_NVVM_FTOI = {("f32", 32, True): "f2i", ("f32", 32, False): "f2ui", ("f32", 64, True): "f2ll",
              ("f32", 64, False): "f2ull", ("f64", 32, True): "d2i", ("f64", 32, False): "d2ui",
              ("f64", 64, True): "d2ll", ("f64", 64, False): "d2ull"}
"""NVVM's round-toward-zero conversion intrinsics (``llvm.nvvm.<name>.rz``: PTX ``cvt.rzi``) by (source float, integer
width, signed)."""


_CONSTRAINT = {"i16": "h", "i32": "r", "i64": "l", "f16": "h", "f32": "f", "f64": "d"}
"""Inline-asm register constraints of the conversions' operand types."""


def _saturating_cast(op: Operation, builder: ir.IRBuilder, vals: ValMap, blocks: dict[Block, ir.Block]) -> None:
    """``llvm.fptosi`` / ``llvm.fptoui`` with the meaning PTX's ``cvt.rzi`` gives them (toward zero, saturating at the
    integer type's bounds, NaN 0 at 16 and 32 bits), never LLVM's poison: a plain ``fptosi`` of a value outside the
    integer range is poison, so LLVM folded a constant out-of-range conversion to poison and dropped the store of
    it (``ct.full((1,), inf, f32).astype(int64)`` stored nothing, review 26), and may use the poison to fold what
    reads it.  The same PTX as ``fptosi`` gave: a scalar f32 / f64 to a 32- or 64-bit integer is NVVM's ``cvt.rzi``
    intrinsic (folded by LLVM as the hardware computes it), a 16-bit result or an f16 source the ``cvt.rzi``
    instruction itself (inline asm); anything else (vectors, 8-bit results: ``_ftoi`` converts those through i32)
    LLVM's saturating ``llvm.fpto{s,u}i.sat``."""
    arg = vals[op.arg]
    to = convert_type(op.result.type)
    signed = type(op) is llvm_ext.FPToSIOp
    src, dst = _mangled(arg.type), _mangled(to)
    nvvm = _NVVM_FTOI.get((src, getattr(to, "width", 0), signed))
    if nvvm is not None:
        fn = _declared(builder, f"llvm.nvvm.{nvvm}.rz", to, arg.type)
    elif src in ("f16", "f32", "f64") and dst in ("i16", "i32", "i64"):
        asm = f"cvt.rzi.{'s' if signed else 'u'}{dst[1:]}.{src} $0, $1;"
        fn = ir.InlineAsm(ir.FunctionType(to, [arg.type]), asm, f"={_CONSTRAINT[dst]},{_CONSTRAINT[src]}")
    else:
        fn = _declared(builder, f"llvm.{_SATURATING[type(op)]}.sat.{dst}.{src}", to, arg.type)
    vals[op.result] = builder.call(fn, [arg])


def _declared(builder: ir.IRBuilder, name: str, ret: ir.Type, arg: ir.Type) -> ir.Function:
    """The module's declaration of the intrinsic ``name`` (``ret (arg)``), added on first use."""
    fn = builder.module.globals.get(name)
    return fn if fn is not None else ir.Function(builder.module, ir.FunctionType(ret, [arg]), name)


def _extract_element(op: Operation, builder: ir.IRBuilder, vals: ValMap, blocks: dict[Block, ir.Block]) -> None:
    vals[op.res] = builder.extract_element(vals[op.vector], vals[op.position])


def _insert_element(op: Operation, builder: ir.IRBuilder, vals: ValMap, blocks: dict[Block, ir.Block]) -> None:
    vals[op.res] = builder.insert_element(vals[op.vector], vals[op.value], vals[op.index])


def _poison(op: Operation, builder: ir.IRBuilder, vals: ValMap, blocks: dict[Block, ir.Block]) -> None:
    typ = convert_type(op.res.type)
    # llvmlite cannot print a formatted vector constant: a vector's lanes are undef instead
    vals[op.res] = ir.Constant(typ, ir.Undefined) if isinstance(typ, ir.VectorType) else \
        ir.FormattedConstant(typ, "poison")


def _without_blocks(fn):
    return lambda op, builder, vals, blocks: fn(op, builder, vals)


_TRANSLATORS: dict[type, object] = {}


def _translator(cls: type):
    """The function that translates ops of class ``cls`` (the first of tileorch's translations
    whose class test ``cls`` passes, in order; else xDSL's)."""
    if issubclass(cls, llvm.LoadOp | llvm_ext.LoadOp):
        return _without_blocks(_load)
    if issubclass(cls, llvm.StoreOp):
        return _without_blocks(_store)
    if issubclass(cls, llvm.GEPOp):
        return _without_blocks(_gep)
    if cls in _CASTS:
        return _cast
    if cls in _SATURATING:
        return _saturating_cast
    if issubclass(cls, llvm_ext.ExtractElementOp):
        return _extract_element
    if issubclass(cls, llvm.InsertElementOp):
        return _insert_element
    if issubclass(cls, llvm_ext.PoisonOp):
        return _poison
    if issubclass(cls, llvm_ext.AtomicRMWOp):
        return _without_blocks(_atomicrmw)
    if issubclass(cls, llvm_ext.CmpXchgOp):
        return _without_blocks(_cmpxchg)
    if issubclass(cls, llvm_ext.FenceOp):
        return _without_blocks(_fence)
    if issubclass(cls, llvm.InlineAsmOp):
        return _without_blocks(_inline_asm)
    return _XDSL_ARMS.get(cls, xdsl_convert_op)


def _constant(op: Operation, builder: ir.IRBuilder, vals: ValMap, blocks: dict[Block, ir.Block]) -> None:
    vals[op.result] = xops.create_constant(op.result.type, op.value)


def _select(op: Operation, builder: ir.IRBuilder, vals: ValMap, blocks: dict[Block, ir.Block]) -> None:
    xops._convert_select(op, builder, vals)  # noqa: SLF001


def _return(op: Operation, builder: ir.IRBuilder, vals: ValMap, blocks: dict[Block, ir.Block]) -> None:
    xops._convert_return(op, builder, vals)  # noqa: SLF001


_XDSL_ARMS: dict[type, object] = {
    llvm.ConstantOp: _constant,
    llvm.BrOp: xops._convert_br,  # noqa: SLF001
    llvm.CondBrOp: xops._convert_condbr,  # noqa: SLF001
    llvm.SelectOp: _select,
    llvm.ReturnOp: _return,
}
"""Ops xDSL's ``convert_op`` translates in an arm its ``match`` reaches only after testing the op
against some twenty classes (``case llvm.ConstantOp()`` is its last: 28 ``isinstance`` tests of
ABC classes per constant), called at that arm directly: the same call (a block map is always
given here, the condition of the branch arms).  Exact classes only; none of them is in the
type tables xDSL's first arms test.  Any other class goes through ``convert_op`` itself."""


def _escape_ir_string(text: str) -> str:
    """LLVM IR string-literal escaping: a quote or backslash inside ``asm "..."`` must be
    written as ``\22`` / ``\5C`` (llvmlite writes the text raw, which ends the literal early)."""
    return text.replace("\\", "\\5C").replace('"', "\\22")


class _SharedAsm(ir.InlineAsm):
    """An ``ir.InlineAsm`` called from several places: its text (``asm sideeffect "...", "..."``,
    what every call to it prints) is formatted once, not once per call."""

    _reference: str | None = None

    def get_reference(self) -> str:
        if self._reference is None:
            self._reference = super().get_reference()
        return self._reference


_ASMS: dict[tuple, _SharedAsm] = {}
"""(asm text, constraints, side effect, result type, operand types) -> the one callee of every
``llvm.inline_asm`` with them (a lowered SIMT kernel repeats a few hundred calls of some ten
distinct asm strings); the types by identity: :func:`convert_type` gives one object per type."""


def shared_asm(op: llvm.InlineAsmOp, args: list[ir.Type]) -> _SharedAsm:
    """The callee of ``op`` (its operands' types ``args``): one object per distinct asm."""
    ret = convert_type(op.res.type) if op.res else _VOID
    side_effect = op.has_side_effects is not None
    key = (op.asm_string.data, op.constraints.data, side_effect, id(ret), *map(id, args))
    asm = _ASMS.get(key)
    if asm is None:
        if len(_ASMS) >= _MEMO_MAX:
            _ASMS.clear()
        asm = _ASMS[key] = _SharedAsm(ir.FunctionType(ret, args), _escape_ir_string(key[0]),
                                      _escape_ir_string(key[1]), side_effect=side_effect)
    return asm


def _inline_asm(op: llvm.InlineAsmOp, builder: ir.IRBuilder, vals: ValMap) -> None:
    """``llvm.inline_asm`` with its asm and constraint strings escaped for the IR text."""
    args = [vals[a] for a in op.operands_]
    res = builder.call(shared_asm(op, [a.type for a in args]), args)
    if op.res:
        vals[op.results[0]] = res


# --------------------------------------------------------------------------- module


def _convert_global(op: llvm.GlobalOp, module: ir.Module) -> None:
    xconvert._convert_global(op, module)  # noqa: SLF001 - reuse xDSL's initializer handling
    gv = module.get_global(op.sym_name.data)
    gv.type = ir.PointerType(addrspace=op.addr_space.value.data)  # opaque, like MLIR's
    if op.alignment is not None:
        gv.align = op.alignment.value.data


class _TextBlocks(ir.Block):
    """The blocks of a function as :func:`llvm_text.function_body` wrote them, printed as they are."""

    def __init__(self, parent: ir.Function, text: str) -> None:
        super().__init__(parent)
        self.text = text

    def descr(self, buf: list[str]) -> None:
        buf.append(self.text)


def _convert_body(op: llvm.FuncOp, module: ir.Module) -> None:
    fn = module.get_global(op.sym_name.data)
    text = llvm_text.function_body(op, fn, module, convert_type, shared_asm)
    if text is not None:
        fn.blocks.append(_TextBlocks(fn, text))
        return
    blocks: dict[Block, ir.Block] = {}
    vals: ValMap = {}
    for i, block in enumerate(op.body.blocks):
        blocks[block] = fn.append_basic_block(name=block.name_hint or "")
        if i == 0:
            vals.update(zip(block.args, fn.args))
    for block in list(op.body.blocks)[1:]:
        builder = ir.IRBuilder(blocks[block])
        for arg in block.args:
            try:
                vals[arg] = builder.phi(convert_type(arg.type))
            except LLVMTranslationException as exc:
                raise LocatedError(op, f"cannot translate a block argument of @{op.sym_name.data} to LLVM IR: {exc}") from None
    for block in op.body.blocks:
        builder = ir.IRBuilder(blocks[block])
        if blocks[block].instructions:
            builder.position_after(blocks[block].instructions[-1])
        for inner in block.ops:
            try:
                convert_op(inner, builder, vals, blocks)
            except NotImplementedError as exc:
                raise LocatedError(inner, f"cannot translate to LLVM IR: {exc}") from None
            except (KeyError, IndexError, TypeError, ValueError, AssertionError) as exc:
                raise LocatedError(inner, f"cannot translate {inner.name} to LLVM IR ({type(exc).__name__}: {exc})") from None
            except LLVMTranslationException as exc:
                raise LocatedError(inner, f"cannot translate {inner.name} to LLVM IR: {exc}") from None


def _is_kernel(fn: llvm.FuncOp) -> bool:
    return nvvm.KERNEL_ATTR in fn.attributes


def _dims(value: Attribute) -> str:
    if isinstance(value, DenseArrayBase):
        return ",".join(str(v) for v in value.get_values())
    if isinstance(value, IntegerAttr):
        return str(value.value.data)
    raise ValueError(f"expected an integer or array<i32: ...>, got {value}")


def kernel_fn_attrs(fn: llvm.FuncOp, module: ModuleOp) -> dict[str, str]:
    """The LLVM string function attributes for kernel ``fn`` (maxntid, minctasm, cluster_dim ...)."""
    attrs: dict[str, str] = {}
    for mlir_name, llvm_name in KERNEL_FN_ATTRS.items():
        if (value := fn.attributes.get(mlir_name)) is not None:
            try:
                attrs[llvm_name] = _dims(value)
            except ValueError as exc:
                raise LocatedError(fn, f"{mlir_name}: {exc}") from None
    shape = module.attributes.get("cutlass.cluster_shape")
    if "nvvm.cluster_dim" not in attrs and isinstance(shape, DenseArrayBase):
        dims = [int(v) for v in shape.get_values()]
        if dims != [1] * len(dims):
            attrs["nvvm.cluster_dim"] = ",".join(map(str, dims))
    return attrs


def _add_fn_attrs(text: str, kernels: dict[str, dict[str, str]]) -> str:
    """Attach attribute groups to the kernels' ``define`` lines (llvmlite cannot add string attrs)."""
    groups: list[str] = []
    for i, (name, attrs) in enumerate(kernels.items()):
        if not attrs:
            continue
        group = f"#{1000 + i}"
        pattern = re.compile(rf'^(define [^\n]*@"?{re.escape(name)}"?\([^\n]*\))', re.M)
        text, n = pattern.subn(rf"\1 {group}", text, count=1)
        if n:
            body = " ".join(f'"{k}"="{v}"' for k, v in attrs.items())
            groups.append(f"attributes {group} = {{ {body} }}")
    return text + ("\n" + "\n".join(groups) + "\n" if groups else "")


GRID_CONSTANT_ATTR = "nvvm.grid_constant"


def grid_constant_args(fn: llvm.FuncOp) -> list[int]:
    """Indices of ``fn``'s arguments marked ``nvvm.grid_constant`` (each must be a ``byval`` pointer)."""
    if fn.arg_attrs is None:
        return []
    found = []
    for i, attrs in enumerate(fn.arg_attrs.data):
        if GRID_CONSTANT_ATTR in attrs.data:
            if "llvm.byval" not in attrs.data:
                raise LocatedError(fn, f"argument {i}: nvvm.grid_constant needs llvm.byval (a kernel parameter passed by value)")
            found.append(i)
    return found


def _annotate_grid_constants(lm: ir.Module, fn: ir.Function, indices: list[int]) -> None:
    """``!nvvm.annotations = !{!{ptr @k, !"grid_constant", !{i32 i+1, ...}}}``: without it a byval
    tensor map is copied to local memory and TMA faults (hopper-gemm.md §2)."""
    if not indices:
        return
    one_based = lm.add_metadata([ir.Constant(ir.IntType(32), i + 1) for i in indices])
    lm.add_named_metadata("nvvm.annotations", [fn, ir.MetaDataString(lm, "grid_constant"), one_based])


def translate_module(module: ModuleOp) -> str:
    """LLVM IR text (NVPTX triple) for a module of ``llvm`` dialect ops, its large struct types named
    (in a context of its own: the text defines this module's named types only)."""
    intrinsic_results = check_known_intrinsics(module)
    lm = ir.Module(context=ir.Context())  # its own context: the module's named struct types only
    lm.triple = TRIPLE
    _NAMES.current = StructNames(lm.context, {str(xdsl_convert_type(t)) for t in intrinsic_results})
    try:
        return _translate(module, lm)
    finally:
        _NAMES.current = None


def _translate(module: ModuleOp, lm: ir.Module) -> str:
    globals_, funcs = [], []
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp):
            globals_.append(op)
        elif isinstance(op, llvm.FuncOp):
            funcs.append(op)
        else:
            raise LocatedError(op, f"{op.name} is still present; only llvm.func and llvm.mlir.global translate to LLVM IR")
    for op in globals_:
        try:
            _convert_global(op, lm)
        except LLVMTranslationException as exc:
            raise LocatedError(op, f"cannot translate the global @{op.sym_name.data} to LLVM IR: {exc}") from None
    kernels: dict[str, dict[str, str]] = {}
    for op in funcs:
        try:
            xconvert._declare_func(op, lm)  # noqa: SLF001 - reuse xDSL's argument-attribute handling
        except LLVMTranslationException as exc:
            raise LocatedError(op, f"cannot translate the signature of @{op.sym_name.data} to LLVM IR: {exc}") from None
        if _is_kernel(op):
            result = op.function_type.output
            if not isinstance(result, llvm.LLVMVoidType):  # ptxas rejected the PTX, at line 1
                raise LocatedError(op, f"a kernel (nvvm.kernel) returns nothing (a PTX .entry has no return value), "
                                       f"but @{op.sym_name.data} returns {result}; write results through a pointer "
                                       "parameter")
            lm.get_global(op.sym_name.data).calling_convention = "ptx_kernel"
            kernels[op.sym_name.data] = kernel_fn_attrs(op, module)
            _annotate_grid_constants(lm, lm.get_global(op.sym_name.data), grid_constant_args(op))
    for op in funcs:
        if op.body.blocks:
            _convert_body(op, lm)
    return _add_fn_attrs(str(lm), kernels)

