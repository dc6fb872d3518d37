"""``cutlass.seq_bar.*``: ordered sequence barriers (CUTLASS ``OrderedSequenceBarrier<D, L>``).

A ``!cutlass.seq_bar<depth = D, length = L>`` orders L thread groups cyclically over D stages:
group g's arrival at stage s precedes group g+1's wait success at stage s (mod L).  It holds
D x L barriers ``bar[d][g]`` (flat index ``d*L + g``), each expecting ``group_size`` arrivals.
Custom forms (operand types are read from the SSA values)::

    %sb    = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
    %sb    = cutlass.seq_bar.create storage(%smem : !llvm.ptr<3>) : !cutlass.seq_bar<...>
    %ready = cutlass.seq_bar.init %sb group_size(128) initializing_warp(0) barrier_id_base(8)
    %st    = cutlass.seq_bar.state.create %ready group(%g)    // !cutlass.seq_bar_state<D>
    cutlass.seq_bar.wait %ready, %st group(%g)                // wait bar[st.index][g], parity st.phase
    %st1   = cutlass.seq_bar.arrive %ready, %st group(%g)     // arrive bar[st.index][(g+1) % L]; ++st

``state.create`` gives CUTLASS's start state ``{index 0, phase (g == 0 ? 1 : 0), count 0}``, so
group 0 passes its first wait.  ``arrive`` returns the incremented state (``newState``).

Barrier kind (``barrier`` of ``init``): ``mbarrier`` (default, as CUTLASS: D*L mbarriers with
arrival count ``group_size``, initialised by warp ``initializing_warp``) or ``named_barrier``
(D*L named barriers ``barrier_id_base + d*L + g``: wait is ``bar.sync id, 2*group_size``,
arrive is ``bar.arrive id, 2*group_size``; group 0 skips its waits during the first lap,
``count < D``).  ``init.num_named_barriers()`` is 0 for mbarrier and D*L for named barriers.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I32, IntegerAttr, i32
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (IRDLOperation, VarConstraint, base, irdl_op_definition, operand_def, opt_operand_def,
                       opt_prop_def, prop_def, result_def, traits_def)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.constants import constant_int
from tileorch.dialects.cutlass.attrs import (NAMED_BARRIER_POOL, RESERVED_BARRIER_IDS, PipelineBarrierType,
                                             PipelineBarrierTypeAttr)
from tileorch.dialects.cutlass.bar_scope import HW_NAMED_BARRIERS, MAX_CTA_THREADS, WARP_SIZE, enclosing_async_exec
from tileorch.dialects.cutlass.syntax import parse_defined_operand, print_keyword_operand
from tileorch.dialects.cutlass.types import SeqBarStateType, SeqBarType
from tileorch.dialects.nvvm_common import address_space

SHARED_ADDRESS_SPACE = 3
_MBARRIER = PipelineBarrierTypeAttr(PipelineBarrierType.MBARRIER)
_ZERO = IntegerAttr(0, 32)


def _print_keyword_int(printer: Printer, keyword: str, attr: IntegerAttr | None) -> None:
    if attr is not None:
        printer.print_string(f" {keyword}({attr.value.data})")


def _parse_keyword_int(parser: Parser, keyword: str) -> IntegerAttr | None:
    if parser.parse_optional_keyword(keyword) is None:
        return None
    with parser.in_parens():
        return IntegerAttr(parser.parse_integer(allow_boolean=False), i32)


def _parse_group(parser: Parser) -> SSAValue:
    parser.parse_keyword("group")
    with parser.in_parens():
        return parser.parse_operand(i32)


def _verify_group(op: Operation, group: SSAValue, seq_bar: SeqBarType) -> None:
    """A constant group id must name one of the L groups."""
    g = constant_int(group)
    if g is not None and not 0 <= g < seq_bar.length:
        raise VerifyException(
            f"'{op.name}' op group id out of range: expected 0 <= group < {seq_bar.length} "
            f"(length of {seq_bar}), found {g}"
        )


def _verify_state(op: Operation, state_type, seq_bar: SeqBarType, what: str = "state") -> None:
    expected = seq_bar.state_type()
    if state_type != expected:
        raise VerifyException(
            f"'{op.name}' op expected {what} type {expected} (the depth of {seq_bar}), "
            f"found {state_type}"
        )


def _verify_executor_groups(op: Operation, seq_bar: SSAValue) -> None:
    """The enclosing executor's threads form whole groups of the init's ``group_size``."""
    init = seq_bar.owner
    executor = enclosing_async_exec(op)
    if executor is None or not isinstance(init, SeqBarInitOp):
        return
    threads, size = executor.num_threads(), init.group_size.value.data
    if threads % size:
        raise VerifyException(
            f"'{op.name}' op executor of {threads} threads is not a whole number of "
            f"groups: expected a multiple of group_size {size}, found {threads}"
        )
    length = seq_bar.type.length if isinstance(seq_bar.type, SeqBarType) else threads // size
    if threads // size > length and _unconditional_in(op, executor):
        raise VerifyException(
            f"'{op.name}' op executor of {threads} threads is {threads // size} groups of group_size {size}, but "
            f"the sequence barrier orders {length}: every thread of the executor takes part, so a barrier would "
            f"get more than its {size} arrivals a phase (group_size is the threads of one group, e.g. a warp "
            f"group's 128)"
        )


def _unconditional_in(op: Operation, executor: Operation) -> bool:
    """``op`` runs for every thread of ``executor``: no ``scf.if`` (or other branch) between them, only loops."""
    parent = op.parent_op()
    while parent is not None and parent is not executor:
        if parent.name not in ("scf.for", "scf.while"):
            return False
        parent = parent.parent_op()
    return parent is executor


@irdl_op_definition
class SeqBarCreateOp(IRDLOperation):
    """Allocate the D x L barriers of a sequence barrier (optionally at given shared storage)."""

    name = "cutlass.seq_bar.create"
    storage = opt_operand_def(LLVMPointerType)
    seq_bar = result_def(SeqBarType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "(`storage` `(` $storage^ `:` type($storage) `)`)? attr-dict `:` type($seq_bar)"

    def __init__(self, seq_bar_type: SeqBarType, storage: SSAValue | None = None):
        super().__init__(operands=[[] if storage is None else [storage]], result_types=[seq_bar_type])

    def verify_(self) -> None:
        if self.storage is None:
            return
        space = address_space(self.storage)
        if space != SHARED_ADDRESS_SPACE:
            raise VerifyException(
                f"'{self.name}' op expected storage in shared memory (!llvm.ptr<3>), "
                f"found !llvm.ptr<{space}>"
            )


@irdl_op_definition
class SeqBarInitOp(IRDLOperation):
    """Initialise every barrier for ``group_size`` arrivals; returns the ready sequence barrier."""

    name = "cutlass.seq_bar.init"
    T: ClassVar = VarConstraint("T", base(SeqBarType))
    seq_bar = operand_def(T)
    group_size = prop_def(IntegerAttr[I32])
    initializing_warp = prop_def(IntegerAttr[I32], default_value=_ZERO)
    barrier = prop_def(PipelineBarrierTypeAttr, default_value=_MBARRIER)
    barrier_id_base = opt_prop_def(IntegerAttr[I32])
    result = result_def(T)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        seq_bar: SSAValue,
        group_size: int,
        initializing_warp: int = 0,
        barrier: PipelineBarrierType = PipelineBarrierType.MBARRIER,
        barrier_id_base: int | None = None,
    ):
        props = {
            "group_size": IntegerAttr(group_size, i32),
            "initializing_warp": IntegerAttr(initializing_warp, i32),
            "barrier": PipelineBarrierTypeAttr(barrier),
        }
        if barrier_id_base is not None:
            props["barrier_id_base"] = IntegerAttr(barrier_id_base, i32)
        super().__init__(operands=[seq_bar], properties=props, result_types=[seq_bar.type])

    def seq_bar_type(self) -> SeqBarType:
        assert isinstance(self.seq_bar.type, SeqBarType)
        return self.seq_bar.type

    def uses_named_barriers(self) -> bool:
        return self.barrier.data == PipelineBarrierType.NAMED_BARRIER

    def num_named_barriers(self) -> int:
        """Named-barrier ids claimed from ``barrier_id_base``: D*L, or 0 for mbarriers."""
        sb = self.seq_bar_type()
        return sb.depth * sb.length if self.uses_named_barriers() else 0

    def verify_(self) -> None:
        size = self.group_size.value.data
        if not 0 < size <= MAX_CTA_THREADS:
            raise VerifyException(
                f"'{self.name}' op group_size must be in [1, {MAX_CTA_THREADS}] threads, "
                f"found {size}"
            )
        warp = self.initializing_warp.value.data
        if not 0 <= warp < MAX_CTA_THREADS // WARP_SIZE:
            raise VerifyException(
                f"'{self.name}' op initializing_warp must be a warp of the CTA in "
                f"[0, {MAX_CTA_THREADS // WARP_SIZE - 1}], found {warp}"
            )
        if self.barrier_id_base is not None:
            base_id = self.barrier_id_base.value.data
            if not 0 <= base_id < NAMED_BARRIER_POOL:
                raise VerifyException(
                    f"'{self.name}' op barrier_id_base must be in the named-barrier pool "
                    f"[0, {NAMED_BARRIER_POOL}), found {base_id}"
                )
        self._verify_groups_in_cta(size, warp)
        if self.uses_named_barriers():
            self._verify_named_barriers(size)
        if self.barrier_id_base is not None:
            from tileorch.dialects.cutlass.barrier_pool import check_claimant

            check_claimant(self)

    def _verify_groups_in_cta(self, size: int, warp: int) -> None:
        """The L groups of ``group_size`` threads are distinct threads of one CTA (CUTLASS gives each
        thread one ``group_id``), and the initializing warp is a warp of it: both within the CTA
        size in effect (an enclosing ``cta`` executor's ``threads(N)``, else the kernel's
        ``nvvm.reqntid`` / ``nvvm.maxntid``)."""
        from tileorch.dialects.cutlass.executors import cta_size

        cta = cta_size(self)
        if cta is None:
            return
        threads, where = cta
        length = self.seq_bar_type().length
        if length * size > threads:
            raise VerifyException(
                f"'{self.name}' op {length} groups of group_size {size} need {length * size} threads, but the "
                f"CTA has {threads} ({where}): each group is a distinct set of the CTA's threads"
            )
        if (warp + 1) * WARP_SIZE > threads:
            raise VerifyException(
                f"'{self.name}' op initializing_warp {warp} (threads {warp * WARP_SIZE}..{(warp + 1) * WARP_SIZE - 1}) "
                f"is not a warp of the CTA, which has {threads} threads ({where}); no thread would initialise "
                "the barriers"
            )

    def _verify_named_barriers(self, size: int) -> None:
        if size % WARP_SIZE:
            raise VerifyException(
                f"'{self.name}' op with barrier = named_barrier needs warp-granular groups: "
                f"group_size must be a multiple of {WARP_SIZE}, found {size}"
            )
        needed = self.num_named_barriers()
        if needed > HW_NAMED_BARRIERS:
            raise VerifyException(
                f"'{self.name}' op with barrier = named_barrier needs depth x length = "
                f"{needed} named barriers, more than the {HW_NAMED_BARRIERS} of the hardware"
            )
        if self.barrier_id_base is not None:
            base_id = self.barrier_id_base.value.data
            last = base_id + needed - 1
            if base_id < RESERVED_BARRIER_IDS:
                raise VerifyException(
                    f"'{self.name}' op barrier_id_base {base_id} overlaps the reserved named barriers "
                    f"[0, {RESERVED_BARRIER_IDS}) (id 0 is __syncthreads and the barrier-init sync, 1..7 "
                    f"CUTLASS's reserved barriers); use a base >= {RESERVED_BARRIER_IDS} or let "
                    "cutlass-allocate-barrier-ids choose one"
                )
            if last >= HW_NAMED_BARRIERS:
                raise VerifyException(
                    f"'{self.name}' op named barriers [{base_id}, "
                    f"{last}] exceed the hardware ids [0, {HW_NAMED_BARRIERS - 1}]"
                )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.seq_bar)
        _print_keyword_int(printer, "group_size", self.group_size)
        if self.initializing_warp != _ZERO:
            _print_keyword_int(printer, "initializing_warp", self.initializing_warp)
        if self.uses_named_barriers():
            printer.print_string(f" barrier({self.barrier.data.value})")
        _print_keyword_int(printer, "barrier_id_base", self.barrier_id_base)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> SeqBarInitOp:
        seq_bar = parse_defined_operand(parser)
        size = _parse_keyword_int(parser, "group_size")
        if size is None:
            parser.raise_error("expected `group_size(N)`")
        warp = _parse_keyword_int(parser, "initializing_warp")
        barrier = PipelineBarrierType.MBARRIER
        if parser.parse_optional_keyword("barrier") is not None:
            with parser.in_parens():
                barrier = parser.parse_str_enum(PipelineBarrierType)
        base_id = _parse_keyword_int(parser, "barrier_id_base")
        attrs = parser.parse_optional_attr_dict()
        op = cls(
            seq_bar,
            size.value.data,
            0 if warp is None else warp.value.data,
            barrier,
            None if base_id is None else base_id.value.data,
        )
        op.attributes |= attrs
        return op


@irdl_op_definition
class SeqBarStateCreateOp(IRDLOperation):
    """Start state of group ``group``: ``{index 0, phase (group == 0 ? 1 : 0), count 0}``."""

    name = "cutlass.seq_bar.state.create"
    seq_bar = operand_def(SeqBarType)
    group = operand_def(I32)
    state = result_def(SeqBarStateType)
    traits = traits_def(Pure())

    def __init__(self, seq_bar: SSAValue, group: SSAValue):
        assert isinstance(seq_bar.type, SeqBarType)
        super().__init__(operands=[seq_bar, group], result_types=[seq_bar.type.state_type()])

    def verify_(self) -> None:
        assert isinstance(self.seq_bar.type, SeqBarType)
        _verify_state(self, self.state.type, self.seq_bar.type, "result")
        _verify_group(self, self.group, self.seq_bar.type)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.seq_bar)
        print_keyword_operand(printer, "group", self.group)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> SeqBarStateCreateOp:
        seq_bar = parse_defined_operand(parser)
        if not isinstance(seq_bar.type, SeqBarType):
            parser.raise_error(f"expected a !cutlass.seq_bar operand, found {seq_bar.type}")
        op = cls(seq_bar, _parse_group(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op


class SeqBarHandshakeOp(IRDLOperation):
    """Operands ``seq_bar``, ``state``, ``group`` (in that order), effects, operand checks and
    custom form shared by ``wait`` and ``arrive``."""

    seq_bar = operand_def(SeqBarType)
    state = operand_def(SeqBarStateType)
    group = operand_def(I32)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def verify_(self) -> None:
        seq_bar = self.seq_bar.type
        assert isinstance(seq_bar, SeqBarType)
        _verify_state(self, self.state.type, seq_bar)
        _verify_group(self, self.group, seq_bar)
        _verify_executor_groups(self, self.seq_bar)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.seq_bar)
        printer.print_string(", ")
        printer.print_operand(self.state)
        print_keyword_operand(printer, "group", self.group)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        seq_bar = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        state = parse_defined_operand(parser)
        op = cls(seq_bar, state, _parse_group(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class SeqBarWaitOp(SeqBarHandshakeOp):
    """Wait until ``bar[state.index][group]`` completes phase ``state.phase``."""

    name = "cutlass.seq_bar.wait"

    def __init__(self, seq_bar: SSAValue, state: SSAValue, group: SSAValue):
        super().__init__(operands=[seq_bar, state, group])


@irdl_op_definition
class SeqBarArriveOp(SeqBarHandshakeOp):
    """Arrive on ``bar[state.index][(group + 1) % L]``; the result is the incremented state."""

    name = "cutlass.seq_bar.arrive"
    new_state = result_def(SeqBarStateType)

    def __init__(self, seq_bar: SSAValue, state: SSAValue, group: SSAValue):
        super().__init__(operands=[seq_bar, state, group], result_types=[state.type])

    def verify_(self) -> None:
        if self.new_state.type != self.state.type:
            raise VerifyException(
                f"'{self.name}' op expected the new state to have the state's type "
                f"{self.state.type}, found {self.new_state.type}"
            )
        super().verify_()


OPS: list[type] = [SeqBarCreateOp, SeqBarInitOp, SeqBarStateCreateOp, SeqBarWaitOp, SeqBarArriveOp]
