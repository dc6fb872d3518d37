"""The ``nvvm`` dialect: the subset of upstream MLIR's NVVM dialect tileorch lowers to.

Op names, operand order, property names and custom syntax follow upstream
``mlir/include/mlir/Dialect/LLVMIR/NVVMOps.td``; an nvvm module printed in generic form
here is meant to parse with upstream ``mlir-opt``.  Where upstream has both a generic
op accepting ``!llvm.ptr``/``!llvm.ptr<3>`` and an older ``.shared`` spelling, both
exist here.  ``nvvm.mbarrier.try_wait`` (non-blocking, ``i1`` result),
``nvvm.mbarrier.expect_tx`` and the ``scope``/``relaxed`` properties on the mbarrier
arrive ops follow upstream's late-2025 revision of the mbarrier family.

Every op verifies operand types and address spaces (``ptr<3>`` shared::cta,
``ptr<7>`` shared::cluster, ``ptr<1>`` global) and, where an operand or property is an
immediate, its range.  Lowering to LLVM intrinsics: ``tileorch.transforms.nvvm_to_llvm``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import ClassVar

import tileorch.dialects.lazy_formats  # noqa: F401,I001  (first: the op formats of dialects defined from here parse on first use)
import tileorch.dialects.mro_checks  # noqa: F401,I001  (then: IR classes answer isinstance from their MRO)
from xdsl.dialects.builtin import I32, I64, BoolAttr, IntAttr, IntegerAttr, IntegerType, UnitAttr, i1, i32, i64
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (AttrSizedOperandSegments, IRDLOperation, ParsePropInAttrDict, irdl_attr_definition,
                       irdl_op_definition, operand_def, opt_operand_def, opt_prop_def, opt_result_def, prop_def,
                       result_def, traits_def)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.attr_factory import enum_attr
from tileorch.dialects.nvvm_common import (GENERIC, GLOBAL, PTR, PTR_GLOBAL,  # noqa: F401  (nvvm.X names, as before)
                                           PTR_SHARED, PTR_SHARED_CLUSTER, SHARED, SHARED_CLUSTER, SIDE_EFFECTS,
                                           SPACE_NAMES, AngleBracketEnum, address_space, check_int_range,
                                           check_positive_multiple, check_range, check_space)

MBARRIER_MAX_COUNT = (1 << 20) - 1


# --------------------------------------------------------------------------- attributes


class ProxyKind(StrEnum):
    ALIAS = "alias"
    ASYNC = "async"
    ASYNC_GLOBAL = "async.global"
    ASYNC_SHARED = "async.shared"
    TENSORMAP = "tensormap"
    GENERIC = "generic"


ProxyKindAttr = enum_attr("nvvm.proxy_kind", ProxyKind, AngleBracketEnum, doc="``#nvvm.proxy_kind<async.shared>``")


class SharedSpace(StrEnum):
    CTA = "cta"
    CLUSTER = "cluster"


SharedSpaceAttr = enum_attr("nvvm.shared_space", SharedSpace, AngleBracketEnum, doc="``#nvvm.shared_space<cta>``")


class MemScopeKind(StrEnum):
    CTA = "cta"
    CLUSTER = "cluster"
    GPU = "gpu"
    SYS = "sys"


MemScopeKindAttr = enum_attr("nvvm.mem_scope", MemScopeKind, AngleBracketEnum, doc="``#nvvm.mem_scope<cluster>``")


class SetMaxRegisterAction(StrEnum):
    INCREASE = "increase"
    DECREASE = "decrease"


@irdl_attr_definition
class SetMaxRegisterActionAttr(AngleBracketEnum, EnumAttribute[SetMaxRegisterAction]):
    """``#nvvm.action<increase>`` (upstream's spelling; the older ``#nvvm<action increase>``
    still parses)."""

    name = "nvvm.action"

    @classmethod
    def parse_parameter(cls, parser: AttrParser):
        if parser.parse_optional_punctuation("<") is None:  # #nvvm<action increase>
            return parser.parse_str_enum(cls.enum_type)
        value = parser.parse_str_enum(cls.enum_type)
        parser.parse_punctuation(">")
        return value


CTA_SCOPE = MemScopeKindAttr(MemScopeKind.CTA)


def scope_of(op: IRDLOperation) -> MemScopeKind:
    scope = op.properties.get("scope")
    return scope.data if isinstance(scope, MemScopeKindAttr) else MemScopeKind.CTA


def is_relaxed(op: IRDLOperation) -> bool:
    """True when the op's ``relaxed`` property (upstream: a BoolAttr defaulting to false) is set."""
    relaxed = op.properties.get("relaxed")
    return isinstance(relaxed, IntegerAttr) and bool(relaxed.value.data)


def _scope_prop(scope: MemScopeKind | None) -> dict[str, Attribute]:
    """The ``scope`` property of a builder's optional ``scope`` argument."""
    return {"scope": MemScopeKindAttr(scope)} if scope is not None else {}


def check_mbarrier_scope(op: IRDLOperation) -> None:
    if scope_of(op) not in (MemScopeKind.CTA, MemScopeKind.CLUSTER):
        raise VerifyException("mbarrier scope must be cta or cluster")


# --------------------------------------------------------------------------- shared op shapes


class _BareOp(IRDLOperation):
    """``nvvm.<name>``: an op with no operands, results or properties, only side effects."""

    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = "attr-dict"


# --------------------------------------------------------------------------- special registers


class _SpecialRegisterOp(IRDLOperation):
    """``%r = nvvm.read.ptx.sreg.<name> : i32`` (i64 for 64-bit registers)."""

    WIDTH: ClassVar[int] = 32
    res = result_def(IntegerType)
    assembly_format = "attr-dict `:` type($res)"

    def __init__(self):
        super().__init__(result_types=[IntegerType(self.WIDTH)])

    def verify_(self) -> None:
        if self.res.type != IntegerType(self.WIDTH):
            raise VerifyException(f"{self.name} returns i{self.WIDTH}, got {self.res.type}")


def _sreg(reg: str, width: int = 32, pure: bool = True) -> type[IRDLOperation]:
    cls_name = "".join(p.capitalize() for p in reg.replace("_", ".").split(".")) + "Op"
    body: dict[str, object] = {
        "name": f"nvvm.read.ptx.sreg.{reg}",
        "WIDTH": width,
        "__annotations__": {"WIDTH": ClassVar[int]},
    }
    if pure:
        body["traits"] = traits_def(Pure())
    else:
        body["traits"] = traits_def(*SIDE_EFFECTS)
    return irdl_op_definition(type(cls_name, (_SpecialRegisterOp,), body))


SpecialRegisterOp = _SpecialRegisterOp
"""The base class of every ``nvvm.read.ptx.sreg.*`` op (:data:`SPECIAL_REGISTERS`)."""

_XYZ = ("x", "y", "z")
_SREG_SPECS: dict[str, tuple[int, bool]] = {
    reg: (width, pure)
    for reg, width, pure in [
        *((f"{r}.{d}", 32, True) for r in ("tid", "ntid", "ctaid", "nctaid") for d in _XYZ),
        *((f"{r}.{d}", 32, True) for r in ("clusterid", "nclusterid", "cluster.ctaid", "cluster.nctaid") for d in _XYZ),
        ("laneid", 32, True),
        ("warpsize", 32, True),
        ("warpid", 32, True),
        ("nwarpid", 32, True),
        ("smid", 32, True),
        ("nsmid", 32, True),
        ("cluster.ctarank", 32, True),
        ("cluster.nctarank", 32, True),
        *((f"lanemask.{m}", 32, True) for m in ("eq", "le", "lt", "ge", "gt")),
        ("clock", 32, False),
        ("clock64", 64, False),
        ("globaltimer", 64, False),
    ]
}
"""register -> (result width, pure) of each special-register op."""


class _SpecialRegisters(Mapping):
    """register name (``tid.x``) -> its op class, each class defined on first read (issue 22: a
    SIMT kernel reads four or five of the 40 registers; defining the others was a fifth of this
    module's import).  Iterating reads the names; ``values()``/``items()`` define them all."""

    def __init__(self, specs: dict[str, tuple[int, bool]]):
        self._specs = specs
        self._classes: dict[str, type[IRDLOperation]] = {}

    def __getitem__(self, reg: str) -> type[IRDLOperation]:
        cls = self._classes.get(reg)
        if cls is None:
            width, pure = self._specs[reg]
            cls = self._classes[reg] = _sreg(reg, width, pure)
        return cls

    def __iter__(self):
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def defined(self) -> list[type[IRDLOperation]]:
        """The classes defined so far (no new one)."""
        return list(self._classes.values())


SPECIAL_REGISTERS: Mapping[str, type[IRDLOperation]] = _SpecialRegisters(_SREG_SPECS)


# --------------------------------------------------------------------------- mbarrier

# Upstream's custom syntax of the mbarrier family writes ``scope`` and ``relaxed`` as keywords
# after the operands (``%a, %n scope = cluster relaxed = true``; either order, defaults
# omitted); tileorch's earlier spellings (``count = %n``, ``{scope = #nvvm.mem_scope<..>}`` in the
# attribute dictionary) still parse.


def _print_scope_relaxed(printer: Printer, op: IRDLOperation) -> None:
    scope = op.properties.get("scope")
    if isinstance(scope, MemScopeKindAttr):
        printer.print_string(f" scope = {scope.data.value}")
    relaxed = op.properties.get("relaxed")
    if isinstance(relaxed, IntegerAttr):
        printer.print_string(f" relaxed = {'true' if relaxed.value.data else 'false'}")
    printer.print_op_attributes(op.attributes)


def _parse_scope_relaxed(parser: Parser) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """(properties, discardable attributes) after the operands."""
    props: dict[str, Attribute] = {}
    while True:
        if "scope" not in props and parser.parse_optional_keyword("scope"):
            parser.parse_punctuation("=")
            props["scope"] = MemScopeKindAttr(parser.parse_str_enum(MemScopeKind))
        elif "relaxed" not in props and parser.parse_optional_keyword("relaxed"):
            parser.parse_punctuation("=")
            props["relaxed"] = BoolAttr.from_bool(parser.parse_boolean())
        else:
            break
    attrs = parser.parse_optional_attr_dict()
    for name in ("scope", "relaxed"):
        if name in attrs:
            props[name] = attrs.pop(name)
    return props, attrs


def _print_operands(printer: Printer, values) -> None:
    printer.print_string(" ")
    printer.print_list(values, printer.print_ssa_value)


def _print_types(printer: Printer, types, results=()) -> None:
    printer.print_string(" : ")
    printer.print_list(types, printer.print_attribute)
    for t in results:
        printer.print_string(" -> ")
        printer.print_attribute(t)


def _parse_types(parser: Parser) -> list[Attribute]:
    parser.parse_punctuation(":")
    return parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)


def _parse_result_type(parser: Parser) -> list[Attribute]:
    return [parser.parse_type()] if parser.parse_optional_punctuation("->") else []


def _resolve(parser: Parser, operands, types) -> list[SSAValue]:
    """Resolve the unresolved ``operands`` against ``types`` (one type each)."""
    if len(operands) != len(types):
        parser.raise_error(f"expected {len(operands)} operand types, got {len(types)}")
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types)]


def _build(cls, operands, result_types, props, attrs):
    return cls.build(operands=operands, result_types=result_types, properties=props, attributes=attrs)


def _parse_unit_keyword(parser: Parser, name: str) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """An optional unit-property keyword (``aligned``, ``read``), then the attribute dictionary,
    from which the older ``{aligned}`` spelling is moved to the properties."""
    props: dict[str, Attribute] = {name: UnitAttr()} if parser.parse_optional_keyword(name) else {}
    attrs = parser.parse_optional_attr_dict()
    if name in attrs:
        props[name] = attrs.pop(name)
    return props, attrs


def _check_count(op: IRDLOperation) -> None:
    check_range(op.count, 1, MBARRIER_MAX_COUNT, "mbarrier arrival count")


class _MBarrierInitBase(IRDLOperation):
    """``nvvm.mbarrier.init[.shared] %addr, %count (, predicate = %p)? : !llvm.ptr<3>, i32``:
    the address must be in one of ``SPACES``."""

    SPACES: ClassVar[tuple[int, ...]]
    addr = operand_def(LLVMPointerType)
    count = operand_def(I32)
    predicate = opt_operand_def(i1)
    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = "$addr `,` $count (`,` `predicate` `=` $predicate^)? attr-dict `:` type(operands)"

    def __init__(self, addr: SSAValue | Operation, count: SSAValue | Operation, predicate=None):
        super().__init__(operands=[addr, count, [predicate] if predicate is not None else []])

    def verify_(self) -> None:
        check_space(self.addr, self.SPACES, "mbarrier address")
        _check_count(self)


@irdl_op_definition
class MBarrierInitOp(_MBarrierInitBase):
    """``nvvm.mbarrier.init %addr, %count (, predicate = %p)? : !llvm.ptr<3>, i32``"""

    name = "nvvm.mbarrier.init"
    SPACES: ClassVar[tuple[int, ...]] = (GENERIC, SHARED)


@irdl_op_definition
class MBarrierInitSharedOp(_MBarrierInitBase):
    """``nvvm.mbarrier.init.shared %addr, %count : !llvm.ptr<3>, i32`` (older upstream spelling)."""

    name = "nvvm.mbarrier.init.shared"
    SPACES: ClassVar[tuple[int, ...]] = (SHARED,)


@irdl_op_definition
class MBarrierInvalOp(IRDLOperation):
    """``nvvm.mbarrier.inval %addr : !llvm.ptr<3>``"""

    name = "nvvm.mbarrier.inval"
    addr = operand_def(LLVMPointerType)
    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = "$addr attr-dict `:` type(operands)"

    def __init__(self, addr: SSAValue | Operation):
        super().__init__(operands=[addr])

    def verify_(self) -> None:
        check_space(self.addr, (GENERIC, SHARED), "mbarrier address")


@irdl_op_definition
class MBarrierArriveOp(IRDLOperation):
    """``%state = nvvm.mbarrier.arrive %addr (count = %n)? {scope = #nvvm.mem_scope<cluster>, relaxed = true} : !llvm.ptr<3> -> i64``

    A ``!llvm.ptr<7>`` (shared::cluster) address arrives on a remote CTA's barrier and
    returns no state.  ``count`` defaults to 1.
    """

    name = "nvvm.mbarrier.arrive"
    addr = operand_def(LLVMPointerType)
    count = opt_operand_def(I32)
    res = opt_result_def(I64)
    scope = opt_prop_def(MemScopeKindAttr)
    relaxed = opt_prop_def(BoolAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def print(self, printer: Printer) -> None:  # %a (, %count)? scope = .. relaxed = .. : type(a) (-> i64)?
        _print_operands(printer, [self.addr] + ([self.count] if self.count is not None else []))
        _print_scope_relaxed(printer, self)
        _print_types(printer, [self.addr.type], [self.res.type] if self.res is not None else [])

    @classmethod
    def parse(cls, parser: Parser) -> MBarrierArriveOp:
        addr = parser.parse_unresolved_operand()
        count = None
        if parser.parse_optional_punctuation(",") or parser.parse_optional_keyword("count"):
            parser.parse_optional_punctuation("=")  # the older `count = %n`
            count = parser.parse_unresolved_operand()
        props, attrs = _parse_scope_relaxed(parser)
        (addr,) = _resolve(parser, [addr], _parse_types(parser))
        count = parser.resolve_operand(count, i32) if count is not None else None
        res = _parse_result_type(parser)
        return _build(cls, [addr, [count] if count is not None else []], [res], props, attrs)

    def __init__(
        self,
        addr: SSAValue | Operation,
        count: SSAValue | Operation | None = None,
        scope: MemScopeKind | None = None,
        relaxed: bool = False,
        with_state: bool = True,
    ):
        props = _scope_prop(scope)
        if relaxed:
            props["relaxed"] = BoolAttr.from_bool(True)
        super().__init__(
            operands=[addr, [count] if count is not None else []],
            result_types=[[i64] if with_state else []],
            properties=props,
        )

    def verify_(self) -> None:
        space = check_space(self.addr, (GENERIC, SHARED, SHARED_CLUSTER), "mbarrier address")
        check_mbarrier_scope(self)
        check_range(self.count, 1, MBARRIER_MAX_COUNT, "mbarrier arrive count")
        if space == SHARED_CLUSTER and self.res is not None:
            raise VerifyException("an arrive on a shared::cluster barrier returns no state")
        if space == GENERIC and (self.count is not None or scope_of(self) != MemScopeKind.CTA or is_relaxed(self)):
            raise VerifyException("count, scope and relaxed need a !llvm.ptr<3> or !llvm.ptr<7> address")


@irdl_op_definition
class MBarrierArriveSharedOp(IRDLOperation):
    """``%state = nvvm.mbarrier.arrive.shared %addr : !llvm.ptr<3> -> i64`` (older upstream spelling)."""

    name = "nvvm.mbarrier.arrive.shared"
    addr = operand_def(LLVMPointerType)
    res = result_def(I64)
    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = "$addr attr-dict `:` type($addr) `->` type($res)"

    def __init__(self, addr: SSAValue | Operation):
        super().__init__(operands=[addr], result_types=[i64])

    def verify_(self) -> None:
        check_space(self.addr, (SHARED,), "mbarrier address")


def _verify_expect_tx(op: IRDLOperation, spaces: tuple[int, ...]) -> int:
    space = check_space(op.addr, spaces, "mbarrier address")
    check_mbarrier_scope(op)
    check_range(op.txcount, 0, MBARRIER_MAX_COUNT, "transaction count")
    return space


@irdl_op_definition
class MBarrierArriveExpectTxOp(IRDLOperation):
    """``nvvm.mbarrier.arrive.expect_tx %addr, %tx (, predicate = %p)? : !llvm.ptr<3>, i32``

    expect-tx of ``txcount`` bytes, then arrive (count 1).  ``scope``/``relaxed`` select
    the memory semantics; a ``!llvm.ptr<7>`` address arrives on a remote CTA's barrier.
    """

    name = "nvvm.mbarrier.arrive.expect_tx"
    addr = operand_def(LLVMPointerType)
    txcount = operand_def(I32)
    predicate = opt_operand_def(i1)
    res = opt_result_def(I64)
    scope = opt_prop_def(MemScopeKindAttr)
    relaxed = opt_prop_def(BoolAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def print(self, printer: Printer) -> None:
        _print_operands(printer, [self.addr, self.txcount])
        if self.predicate is not None:
            printer.print_string(", predicate = ")
            printer.print_ssa_value(self.predicate)
        _print_scope_relaxed(printer, self)
        _print_types(printer, [o.type for o in self.operands], [self.res.type] if self.res is not None else [])

    @classmethod
    def parse(cls, parser: Parser) -> MBarrierArriveExpectTxOp:
        addr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tx = parser.parse_unresolved_operand()
        pred = None
        if parser.parse_optional_punctuation(","):
            parser.parse_keyword("predicate")
            parser.parse_punctuation("=")
            pred = parser.parse_unresolved_operand()
        props, attrs = _parse_scope_relaxed(parser)
        ops = _resolve(parser, [addr, tx] + ([pred] if pred is not None else []), _parse_types(parser))
        res = _parse_result_type(parser)
        return _build(cls, [ops[0], ops[1], ops[2:]], [res], props, attrs)

    def __init__(
        self,
        addr: SSAValue | Operation,
        txcount: SSAValue | Operation,
        predicate: SSAValue | Operation | None = None,
        scope: MemScopeKind | None = None,
    ):
        super().__init__(
            operands=[addr, txcount, [predicate] if predicate is not None else []],
            result_types=[[]],
            properties=_scope_prop(scope),
        )

    def verify_(self) -> None:
        space = _verify_expect_tx(self, (GENERIC, SHARED, SHARED_CLUSTER))
        if self.res is not None and space != SHARED:
            raise VerifyException("only a shared::cta arrive.expect_tx returns a state")
        if self.predicate is not None and (self.res is not None or is_relaxed(self)):
            raise VerifyException("a predicated arrive.expect_tx has no result and no relaxed form")


@irdl_op_definition
class MBarrierArriveExpectTxSharedOp(IRDLOperation):
    """``nvvm.mbarrier.arrive.expect_tx.shared %addr, %tx : !llvm.ptr<3>, i32`` (older spelling)."""

    name = "nvvm.mbarrier.arrive.expect_tx.shared"
    addr = operand_def(LLVMPointerType)
    txcount = operand_def(I32)
    predicate = opt_operand_def(i1)
    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = "$addr `,` $txcount (`,` `predicate` `=` $predicate^)? attr-dict `:` type(operands)"

    def __init__(self, addr: SSAValue | Operation, txcount: SSAValue | Operation, predicate=None):
        super().__init__(operands=[addr, txcount, [predicate] if predicate is not None else []])

    def verify_(self) -> None:
        _verify_expect_tx(self, (SHARED,))


@irdl_op_definition
class MBarrierExpectTxOp(IRDLOperation):
    """``nvvm.mbarrier.expect_tx %addr, %tx {scope = ...} : !llvm.ptr<3>, i32`` (no arrive)."""

    name = "nvvm.mbarrier.expect_tx"
    addr = operand_def(LLVMPointerType)
    txcount = operand_def(I32)
    scope = opt_prop_def(MemScopeKindAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, addr: SSAValue | Operation, txcount: SSAValue | Operation):
        super().__init__(operands=[addr, txcount])

    def print(self, printer: Printer) -> None:
        _print_operands(printer, [self.addr, self.txcount])
        _print_scope_relaxed(printer, self)
        _print_types(printer, [o.type for o in self.operands])

    @classmethod
    def parse(cls, parser: Parser) -> MBarrierExpectTxOp:
        addr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tx = parser.parse_unresolved_operand()
        props, attrs = _parse_scope_relaxed(parser)
        return _build(cls, _resolve(parser, [addr, tx], _parse_types(parser)), [], props, attrs)

    def verify_(self) -> None:
        _verify_expect_tx(self, (SHARED, SHARED_CLUSTER))


class _MBarrierTryWaitParityBase(IRDLOperation):
    """``nvvm.mbarrier.try_wait.parity[.shared] %addr, %phase, %ticks : !llvm.ptr<3>, i32, i32``:
    the address must be in one of ``SPACES``, the phase parity 0 or 1."""

    SPACES: ClassVar[tuple[int, ...]]
    addr = operand_def(LLVMPointerType)
    phase = operand_def(I32)
    ticks = operand_def(I32)
    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = "$addr `,` $phase `,` $ticks attr-dict `:` type(operands)"

    def __init__(self, addr, phase, ticks):
        super().__init__(operands=[addr, phase, ticks])

    def verify_(self) -> None:
        check_space(self.addr, self.SPACES, "mbarrier address")
        check_range(self.phase, 0, 1, "phase parity")


@irdl_op_definition
class MBarrierTryWaitParityOp(_MBarrierTryWaitParityBase):
    """``nvvm.mbarrier.try_wait.parity %addr, %phase, %ticks : !llvm.ptr<3>, i32, i32``

    Blocking (as upstream): repeats ``mbarrier.try_wait.parity`` with suspend-time hint
    ``ticks`` until the phase with parity ``phase`` has completed.
    """

    name = "nvvm.mbarrier.try_wait.parity"
    SPACES: ClassVar[tuple[int, ...]] = (GENERIC, SHARED)


@irdl_op_definition
class MBarrierTryWaitParitySharedOp(_MBarrierTryWaitParityBase):
    """``nvvm.mbarrier.try_wait.parity.shared %addr, %phase, %ticks : !llvm.ptr<3>, i32, i32``"""

    name = "nvvm.mbarrier.try_wait.parity.shared"
    SPACES: ClassVar[tuple[int, ...]] = (SHARED,)


class _MBarrierWaitBase(IRDLOperation):
    """What ``nvvm.mbarrier.try_wait`` and ``nvvm.mbarrier.test.wait`` share: the syntax
    ``%addr, %stateOrPhase (, %ticks)? scope = .. relaxed = .. : types -> i1`` (``ticks`` where
    ``HAS_TICKS``) and the checks.  Each subclass declares its operands (xDSL orders subclass
    operands before inherited ones)."""

    HAS_TICKS: ClassVar[bool]
    res = result_def(i1)
    scope = opt_prop_def(MemScopeKindAttr)
    relaxed = opt_prop_def(BoolAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def print(self, printer: Printer) -> None:
        _print_operands(printer, [o for o in self.operands])
        _print_scope_relaxed(printer, self)
        _print_types(printer, [o.type for o in self.operands], [self.res.type])

    @classmethod
    def parse(cls, parser: Parser) -> _MBarrierWaitBase:
        addr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        state = parser.parse_unresolved_operand()
        ticks = parser.parse_unresolved_operand() if cls.HAS_TICKS and parser.parse_optional_punctuation(",") else None
        props, attrs = _parse_scope_relaxed(parser)
        ops = _resolve(parser, [addr, state] + ([ticks] if ticks is not None else []), _parse_types(parser))
        parser.parse_punctuation("->")
        res = parser.parse_type()
        return _build(cls, [ops[0], ops[1], ops[2:]] if cls.HAS_TICKS else ops, [res], props, attrs)

    def is_parity(self) -> bool:
        return self.stateOrPhase.type == i32

    def verify_(self) -> None:
        check_space(self.addr, (GENERIC, SHARED), "mbarrier address")
        check_mbarrier_scope(self)
        if self.stateOrPhase.type not in (i32, i64):
            raise VerifyException("the wait operand is an i32 phase parity or an i64 state")
        if self.is_parity():
            check_range(self.stateOrPhase, 0, 1, "phase parity")


@irdl_op_definition
class MBarrierTryWaitOp(_MBarrierWaitBase):
    """``%done = nvvm.mbarrier.try_wait %addr, %phase (, %ticks)? {scope, relaxed = true} : !llvm.ptr<3>, i32 -> i1``

    One non-blocking attempt (the hardware may suspend up to ``ticks`` ns).  An ``i32``
    operand is a phase parity, an ``i64`` one a state from ``mbarrier.arrive``.
    """

    name = "nvvm.mbarrier.try_wait"
    HAS_TICKS: ClassVar[bool] = True
    addr = operand_def(LLVMPointerType)
    stateOrPhase = operand_def(IntegerType)
    ticks = opt_operand_def(I32)

    def __init__(self, addr, state_or_phase, ticks=None, scope: MemScopeKind | None = None):
        super().__init__(
            operands=[addr, state_or_phase, [ticks] if ticks is not None else []],
            result_types=[i1],
            properties=_scope_prop(scope),
        )


@irdl_op_definition
class MBarrierTestWaitOp(_MBarrierWaitBase):
    """``%done = nvvm.mbarrier.test.wait %addr, %stateOrPhase : !llvm.ptr<3>, i64 -> i1`` (never blocks).

    An ``i32`` operand is a phase parity (``mbarrier.test_wait.parity``).
    """

    name = "nvvm.mbarrier.test.wait"
    HAS_TICKS: ClassVar[bool] = False
    addr = operand_def(LLVMPointerType)
    stateOrPhase = operand_def(IntegerType)

    def __init__(self, addr, state_or_phase):
        super().__init__(operands=[addr, state_or_phase], result_types=[i1])


@irdl_op_definition
class MBarrierTestWaitSharedOp(IRDLOperation):
    """``%done = nvvm.mbarrier.test.wait.shared %addr, %state : !llvm.ptr<3>, i64 -> i1`` (older spelling)."""

    name = "nvvm.mbarrier.test.wait.shared"
    addr = operand_def(LLVMPointerType)
    state = operand_def(I64)
    res = result_def(i1)
    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = "$addr `,` $state attr-dict `:` type(operands) `->` type($res)"

    def __init__(self, addr, state):
        super().__init__(operands=[addr, state], result_types=[i1])

    def verify_(self) -> None:
        check_space(self.addr, (SHARED,), "mbarrier address")


@irdl_op_definition
class FenceMbarrierInitOp(_BareOp):
    """``nvvm.fence.mbarrier.init`` = ``fence.mbarrier_init.release.cluster``."""

    name = "nvvm.fence.mbarrier.init"


@irdl_op_definition
class FenceProxyOp(IRDLOperation):
    """``nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}``"""

    name = "nvvm.fence.proxy"
    kind = prop_def(ProxyKindAttr)
    space = opt_prop_def(SharedSpaceAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def print(self, printer: Printer) -> None:  # upstream: `nvvm.fence.proxy <async.shared>, space = <cta>`
        printer.print_string(f" <{self.kind.data.value}>")
        if self.space is not None:
            printer.print_string(f", space = <{self.space.data.value}>")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> FenceProxyOp:
        props: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation("<"):
            props["kind"] = ProxyKindAttr(parser.parse_str_enum(ProxyKind))
            parser.parse_punctuation(">")
            if parser.parse_optional_punctuation(","):
                parser.parse_keyword("space")
                parser.parse_punctuation("=")
                props["space"] = SharedSpaceAttr(SharedSpaceAttr.parse_parameter(parser))
        attrs = parser.parse_optional_attr_dict()
        for name in ("kind", "space"):  # the older `{kind = .., space = ..}`
            if name in attrs:
                props[name] = attrs.pop(name)
        return _build(cls, [], [], props, attrs)

    def __init__(self, kind: ProxyKind, space: SharedSpace | None = None):
        props: dict[str, Attribute] = {"kind": ProxyKindAttr(kind)}
        if space is not None:
            props["space"] = SharedSpaceAttr(space)
        super().__init__(properties=props)

    def verify_(self) -> None:
        kind = self.kind.data
        if kind in (ProxyKind.TENSORMAP, ProxyKind.GENERIC):
            raise VerifyException(f"{kind} proxy is not supported by nvvm.fence.proxy (use fence.proxy.acquire/release)")
        if kind == ProxyKind.ASYNC_SHARED and self.space is None:
            raise VerifyException("async.shared fence requires a space attribute")
        if kind != ProxyKind.ASYNC_SHARED and self.space is not None:
            raise VerifyException("only the async.shared fence can have a space attribute")


# --------------------------------------------------------------------------- barriers


class _AlignedOp(IRDLOperation):
    aligned = opt_prop_def(UnitAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, aligned: bool = False):
        super().__init__(properties={"aligned": UnitAttr()} if aligned else {})

    def print(self, printer: Printer) -> None:  # upstream: `nvvm.cluster.arrive aligned`
        if self.aligned is not None:
            printer.print_string(" aligned")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        return _build(cls, [], [], *_parse_unit_keyword(parser, "aligned"))


@irdl_op_definition
class ClusterArriveOp(_AlignedOp):
    """``nvvm.cluster.arrive {aligned}`` = ``barrier.cluster.arrive[.aligned]``."""

    name = "nvvm.cluster.arrive"


@irdl_op_definition
class ClusterArriveRelaxedOp(_AlignedOp):
    """``nvvm.cluster.arrive.relaxed {aligned}`` = ``barrier.cluster.arrive.relaxed[.aligned]``."""

    name = "nvvm.cluster.arrive.relaxed"


@irdl_op_definition
class ClusterWaitOp(_AlignedOp):
    """``nvvm.cluster.wait {aligned}`` = ``barrier.cluster.wait[.aligned]``."""

    name = "nvvm.cluster.wait"


def is_aligned(op: IRDLOperation) -> bool:
    """``aligned`` of ``nvvm.barrier``/``nvvm.barrier.arrive`` (upstream: a bool, default true)."""
    aligned = op.properties.get("aligned")
    return not isinstance(aligned, IntegerAttr) or bool(aligned.value.data)


def _verify_named_barrier(barrier_id: SSAValue | None, threads: SSAValue | None) -> None:
    check_range(barrier_id, 0, 15, "barrier id")
    check_positive_multiple(threads, 32, "number of threads", " (warp size)")


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """``nvvm.barrier (id = %id)? (number_of_threads = %n)?`` = ``bar.sync id, n`` (aligned)."""

    name = "nvvm.barrier"
    barrierId = opt_operand_def(I32)
    numberOfThreads = opt_operand_def(I32)
    aligned = opt_prop_def(BoolAttr)  # upstream: default true (bar.sync = barrier.sync.aligned)
    traits = traits_def(*SIDE_EFFECTS)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "(`id` `=` $barrierId^)? (`number_of_threads` `=` $numberOfThreads^)? (`aligned` `=` $aligned^)? attr-dict"
    )

    def __init__(self, barrier_id=None, number_of_threads=None):
        super().__init__(
            operands=[
                [barrier_id] if barrier_id is not None else [],
                [number_of_threads] if number_of_threads is not None else [],
            ]
        )

    def verify_(self) -> None:
        if self.numberOfThreads is not None and self.barrierId is None:
            raise VerifyException("barrier id is missing, it should be set between 0 to 15")
        _verify_named_barrier(self.barrierId, self.numberOfThreads)


@irdl_op_definition
class BarrierArriveOp(IRDLOperation):
    """``nvvm.barrier.arrive (id = %id)? number_of_threads = %n`` = ``bar.arrive id, n``."""

    name = "nvvm.barrier.arrive"
    barrierId = opt_operand_def(I32)
    numberOfThreads = operand_def(I32)
    aligned = opt_prop_def(BoolAttr)  # upstream: default true
    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = (
        "(`id` `=` $barrierId^)? `number_of_threads` `=` $numberOfThreads (`aligned` `=` $aligned^)? attr-dict"
    )

    def __init__(self, barrier_id, number_of_threads):
        super().__init__(operands=[[barrier_id] if barrier_id is not None else [], number_of_threads])

    def verify_(self) -> None:
        _verify_named_barrier(self.barrierId, self.numberOfThreads)


@irdl_op_definition
class BarWarpSyncOp(IRDLOperation):
    """``nvvm.bar.warp.sync %mask : i32`` = ``bar.warp.sync mask``."""

    name = "nvvm.bar.warp.sync"
    mask = operand_def(I32)
    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = "$mask attr-dict `:` type($mask)"

    def __init__(self, mask):
        super().__init__(operands=[mask])


@irdl_op_definition
class ElectSyncOp(IRDLOperation):
    """``%leader = nvvm.elect.sync (%mask)? -> i1`` (default mask 0xFFFFFFFF)."""

    name = "nvvm.elect.sync"
    membermask = opt_operand_def(I32)
    pred = result_def(i1)
    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = "($membermask^)? attr-dict `->` type(results)"

    def __init__(self, membermask=None):
        super().__init__(operands=[[membermask] if membermask is not None else []], result_types=[i1])


@irdl_op_definition
class MapaOp(IRDLOperation):
    """``%r = nvvm.mapa %a, %rank : !llvm.ptr<3> -> !llvm.ptr<7>`` (or generic -> generic)."""

    name = "nvvm.mapa"
    a = operand_def(LLVMPointerType)
    b = operand_def(I32)
    res = result_def(LLVMPointerType)
    traits = traits_def(Pure())
    assembly_format = "$a `,` $b attr-dict `:` type($a) `->` type($res)"

    def __init__(self, a, b, result_type: Attribute):
        super().__init__(operands=[a, b], result_types=[result_type])

    def verify_(self) -> None:
        src = check_space(self.a, (GENERIC, SHARED), "mapa source address")
        dst = address_space(self.res)
        expected = SHARED_CLUSTER if src == SHARED else GENERIC
        if dst != expected:
            raise VerifyException(
                f"mapa maps !llvm.ptr<3> to !llvm.ptr<7> and !llvm.ptr to !llvm.ptr, got {self.a.type} -> {self.res.type}"
            )
        check_range(self.b, 0, 15, "target CTA rank")


# --------------------------------------------------------------------------- bulk async copies, wgmma


@irdl_op_definition
class CpAsyncBulkCommitGroupOp(_BareOp):
    """``nvvm.cp.async.bulk.commit.group`` = ``cp.async.bulk.commit_group``."""

    name = "nvvm.cp.async.bulk.commit.group"


@irdl_op_definition
class CpAsyncBulkWaitGroupOp(IRDLOperation):
    """``nvvm.cp.async.bulk.wait_group 0 {read}`` = ``cp.async.bulk.wait_group[.read] 0``."""

    name = "nvvm.cp.async.bulk.wait_group"
    group = prop_def(IntegerAttr[I32])
    read = opt_prop_def(UnitAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, group: int, read: bool = False):
        props: dict[str, Attribute] = {"group": IntegerAttr(group, i32)}
        if read:
            props["read"] = UnitAttr()
        super().__init__(properties=props)

    def print(self, printer: Printer) -> None:  # upstream: `nvvm.cp.async.bulk.wait_group 0 read`
        printer.print_string(f" {self.group.value.data}")
        if self.read is not None:
            printer.print_string(" read")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> CpAsyncBulkWaitGroupOp:
        group = IntegerAttr(parser.parse_integer(allow_boolean=False), i32)
        props, attrs = _parse_unit_keyword(parser, "read")
        return _build(cls, [], [], {"group": group, **props}, attrs)

    def verify_(self) -> None:
        check_int_range(self.group.value.data, 0, 63, "bulk async-group count")


@irdl_op_definition
class CpAsyncBulkGlobalToSharedClusterOp(IRDLOperation):
    """``nvvm.cp.async.bulk.shared.cluster.global %dst, %src, %mbar, %size (multicast_mask = %m)? (l2_cache_hint = %h)? : !llvm.ptr<7>, !llvm.ptr<1>``

    Bulk copy of ``size`` bytes (a multiple of 16) from global memory to shared::cluster
    memory, completing ``size`` transaction bytes on the shared::cta mbarrier ``mbar``.
    """

    name = "nvvm.cp.async.bulk.shared.cluster.global"
    dstMem = operand_def(PTR_SHARED_CLUSTER)
    srcMem = operand_def(PTR_GLOBAL)
    mbar = operand_def(PTR_SHARED)
    size = operand_def(I32)
    multicastMask = opt_operand_def(IntegerType(16))
    l2CacheHint = opt_operand_def(I64)
    traits = traits_def(*SIDE_EFFECTS)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def print(self, printer: Printer) -> None:
        _print_operands(printer, [self.dstMem, self.srcMem, self.mbar, self.size])
        for keyword, value in (("multicast_mask", self.multicastMask), ("l2_cache_hint", self.l2CacheHint)):
            if value is not None:
                printer.print_string(f" {keyword} = ")
                printer.print_ssa_value(value)
        printer.print_op_attributes(self.attributes, reserved_attr_names=("operandSegmentSizes",))
        _print_types(printer, [self.dstMem.type, self.srcMem.type])

    @classmethod
    def parse(cls, parser: Parser) -> CpAsyncBulkGlobalToSharedClusterOp:
        """Also reads upstream's printing, which abbreviates the source type to ``<1>``."""
        names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        if len(names) != 4:
            parser.raise_error("expected %dst, %src, %mbar, %size")
        optional = {}
        for keyword in ("multicast_mask", "l2_cache_hint"):
            if parser.parse_optional_keyword(keyword):
                parser.parse_punctuation("=")
                optional[keyword] = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_type()
        parser.parse_punctuation(",")
        if parser.parse_optional_punctuation("<"):  # `<1>`
            parser.parse_integer()
            parser.parse_punctuation(">")
        else:
            parser.parse_type()
        dst, src, mbar, size = _resolve(parser, names, [PTR_SHARED_CLUSTER, PTR_GLOBAL, PTR_SHARED, i32])
        mask = optional.get("multicast_mask")
        hint = optional.get("l2_cache_hint")
        return cls.build(
            operands=[dst, src, mbar, size,
                      [parser.resolve_operand(mask, IntegerType(16))] if mask is not None else [],
                      [parser.resolve_operand(hint, i64)] if hint is not None else []],
            attributes=attrs,
        )

    def __init__(self, dst, src, mbar, size, multicast_mask=None, l2_cache_hint=None):
        super().__init__(
            operands=[
                dst,
                src,
                mbar,
                size,
                [multicast_mask] if multicast_mask is not None else [],
                [l2_cache_hint] if l2_cache_hint is not None else [],
            ]
        )

    def verify_(self) -> None:
        check_positive_multiple(self.size, 16, "bulk copy size", " bytes")


@irdl_op_definition
class WgmmaFenceAlignedOp(_BareOp):
    """``nvvm.wgmma.fence.aligned`` = ``wgmma.fence.sync.aligned``."""

    name = "nvvm.wgmma.fence.aligned"


@irdl_op_definition
class WgmmaGroupSyncAlignedOp(_BareOp):
    """``nvvm.wgmma.commit.group.sync.aligned`` = ``wgmma.commit_group.sync.aligned``."""

    name = "nvvm.wgmma.commit.group.sync.aligned"


@irdl_op_definition
class WgmmaWaitGroupSyncOp(IRDLOperation):
    """``nvvm.wgmma.wait.group.sync.aligned 0`` = ``wgmma.wait_group.sync.aligned 0``."""

    name = "nvvm.wgmma.wait.group.sync.aligned"
    group = prop_def(IntegerAttr[I64])
    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = "attr-dict $group"

    def __init__(self, group: int):
        super().__init__(properties={"group": IntegerAttr(group, i64)})

    def verify_(self) -> None:
        check_int_range(self.group.value.data, 0, 7, "wgmma group count")


# --------------------------------------------------------------------------- misc


@irdl_op_definition
class SetMaxRegisterOp(IRDLOperation):
    """``nvvm.setmaxregister increase 232`` = ``setmaxnreg.inc.sync.aligned.u32 232``."""

    name = "nvvm.setmaxregister"
    regCount = prop_def(IntegerAttr[I32])
    action = prop_def(SetMaxRegisterActionAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, action: SetMaxRegisterAction, reg_count: int):
        super().__init__(
            properties={"regCount": IntegerAttr(reg_count, i32), "action": SetMaxRegisterActionAttr(action)}
        )

    # upstream's custom form writes the action as a bare keyword: `nvvm.setmaxregister increase 232`
    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.action.data.value} {self.regCount.value.data}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> SetMaxRegisterOp:
        action = parser.parse_str_enum(SetMaxRegisterAction)
        count = parser.parse_integer(allow_boolean=False, allow_negative=False)
        props = {"action": SetMaxRegisterActionAttr(action), "regCount": IntegerAttr(count, i32)}
        return _build(cls, [], [], props, parser.parse_optional_attr_dict())

    def verify_(self) -> None:
        n = self.regCount.value.data
        if not (24 <= n <= 256 and n % 8 == 0):
            raise VerifyException(f"setmaxregister count must be a multiple of 8 in [24, 256], got {n}")


@irdl_op_definition
class NanosleepOp(IRDLOperation):
    """``nvvm.nanosleep %ns`` = ``nanosleep.u32 %ns`` (``%ns : i32`` in ns; a constant must be
    in [0, 1000000], the PTX maximum of 1 ms)."""

    name = "nvvm.nanosleep"
    duration = operand_def(I32)
    traits = traits_def(*SIDE_EFFECTS)
    assembly_format = "$duration attr-dict"

    def __init__(self, duration: SSAValue | Operation):
        super().__init__(operands=[duration])

    def verify_(self) -> None:
        check_range(self.duration, 0, 1_000_000, "nanosleep duration (ns)")


@irdl_op_definition
class BreakpointOp(_BareOp):
    """``nvvm.breakpoint`` = ``brkpt``."""

    name = "nvvm.breakpoint"


@irdl_op_definition
class ExitOp(_BareOp):
    """``nvvm.exit`` = ``exit`` (ends the thread)."""

    name = "nvvm.exit"


_CORE_OPS: list[type[Operation]] = [
    MBarrierInitOp,
    MBarrierInitSharedOp,
    MBarrierInvalOp,
    MBarrierArriveOp,
    MBarrierArriveSharedOp,
    MBarrierArriveExpectTxOp,
    MBarrierArriveExpectTxSharedOp,
    MBarrierExpectTxOp,
    MBarrierTryWaitParityOp,
    MBarrierTryWaitParitySharedOp,
    MBarrierTryWaitOp,
    MBarrierTestWaitOp,
    MBarrierTestWaitSharedOp,
    FenceMbarrierInitOp,
    FenceProxyOp,
    ClusterArriveOp,
    ClusterArriveRelaxedOp,
    ClusterWaitOp,
    BarrierOp,
    BarrierArriveOp,
    BarWarpSyncOp,
    ElectSyncOp,
    MapaOp,
    CpAsyncBulkCommitGroupOp,
    CpAsyncBulkWaitGroupOp,
    CpAsyncBulkGlobalToSharedClusterOp,
    WgmmaFenceAlignedOp,
    WgmmaGroupSyncAlignedOp,
    WgmmaWaitGroupSyncOp,
    SetMaxRegisterOp,
    NanosleepOp,
    BreakpointOp,
    ExitOp,
]

CORE_ATTRS = [ProxyKindAttr, SharedSpaceAttr, MemScopeKindAttr, SetMaxRegisterActionAttr]


def _whole_dialect() -> tuple[list[type[Operation]], Dialect]:
    """``OPS`` (these ops, then the TMA/WGMMA/stmatrix/PDL payload ops of
    :mod:`tileorch.dialects.nvvm_payload`, then the Blackwell ops of
    :mod:`tileorch.dialects.nvvm_tcgen05`) and the ``NVVM`` dialect of all of them."""
    from tileorch.dialects.nvvm_payload import PAYLOAD_ATTRS, PAYLOAD_OPS  # TMA, WGMMA, stmatrix, PDL
    from tileorch.dialects.nvvm_tcgen05 import TCGEN05_ATTRS, TCGEN05_OPS  # Blackwell TMEM / UMMA

    ops = [*_core_ops(), *PAYLOAD_OPS, *TCGEN05_OPS]
    return ops, Dialect("nvvm", ops, [*CORE_ATTRS, *PAYLOAD_ATTRS, *TCGEN05_ATTRS])


def _core_ops() -> list[type[Operation]]:
    """``CORE_OPS``: every special register's op (defining those not defined yet), then the ops
    defined in this module."""
    return [*SPECIAL_REGISTERS.values(), *_CORE_OPS]


def __getattr__(name: str):
    """``OPS`` and ``NVVM`` (the whole dialect), built on first use: a module that only creates
    the ops defined here (the SIMT lowering, the std lowering) does not import the payload and
    Blackwell ops (a tenth of a second of a cold compile)."""
    if name in ("OPS", "NVVM"):
        globals()["OPS"], globals()["NVVM"] = _whole_dialect()
        return globals()[name]
    if name == "CORE_OPS":  # (defines every special register's op)
        globals()["CORE_OPS"] = _core_ops()
        return globals()["CORE_OPS"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# discardable function attributes (upstream names) the backend turns into PTX directives; defined
# in nvvm_common, so that the back end reads them without importing this dialect's op classes
from tileorch.dialects.nvvm_common import (  # noqa: E402,F401
    CLUSTER_DIM_ATTR,
    KERNEL_ATTR,
    MAXNREG_ATTR,
    MAXNTID_ATTR,
    MINCTASM_ATTR,
    REQNTID_ATTR,
)
