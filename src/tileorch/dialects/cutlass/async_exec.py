"""``cutlass.async.exec``: a region run only by the executor units selected by a mask.

Custom form::

    cutlass.async.exec warp mask(1) regs(40) { ... }
    cutlass.async.exec cta mask(1) threads(384) { ... }

Bit i of ``mask`` selects unit i of the CTA, in units of ``executor`` (thread, warp,
warpgroup, cta).  Other code finds this op by name (``"cutlass.async.exec"``) and calls
:meth:`AsyncExecOp.executor_kind`, :meth:`mask_bits`, :meth:`num_threads` and
:meth:`first_thread`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I32, I64, IntegerAttr, ModuleOp, i32, i64
from xdsl.ir import Block, Operation, Region
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_prop_def, prop_def, region_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, NoTerminator
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.cutlass import executors
from tileorch.dialects.cutlass.attrs import THREADS_PER_UNIT, ExecutorType, ExecutorTypeAttr
from tileorch.dialects.cutlass.bar_scope import enclosing_async_exec
from tileorch.dialects.register_budget import WARP_GROUP, entry_regs
from tileorch.dialects.cutlass.syntax import parse_body, print_body

ASYNC_EXEC = "cutlass.async.exec"
MASK64 = (1 << 64) - 1


@irdl_op_definition
class AsyncExecOp(IRDLOperation):
    """Executor region: runs on the units of ``mask`` (side effects: whatever its body does)."""

    name = ASYNC_EXEC

    executor = prop_def(ExecutorTypeAttr)
    mask = prop_def(IntegerAttr[I64])
    max_regs = opt_prop_def(IntegerAttr[I32])
    threads = opt_prop_def(IntegerAttr[I32])
    body = region_def("single_block")

    traits = traits_def(NoTerminator(), MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        executor: ExecutorType | str,
        mask: int,
        body: Region | None = None,
        max_regs: int | None = None,
        threads: int | None = None,
    ):
        props: dict = {"executor": ExecutorTypeAttr(ExecutorType(executor)), "mask": IntegerAttr(mask, i64)}
        if max_regs is not None:
            props["max_regs"] = IntegerAttr(max_regs, i32)
        if threads is not None:
            props["threads"] = IntegerAttr(threads, i32)
        super().__init__(properties=props, regions=[body if body is not None else Region(Block())])

    def executor_kind(self) -> str:
        return self.executor.data.value

    def mask_bits(self) -> int:
        """The mask as an unsigned bit set (0xffffffff00000000 selects units 32..63)."""
        return self.mask.value.data & MASK64

    def unit_threads(self) -> int:
        """Threads per executor unit."""
        kind = self.executor.data
        if kind is ExecutorType.CTA:
            return self.threads.value.data if self.threads is not None else 0
        return THREADS_PER_UNIT[kind]

    def num_threads(self) -> int:
        return self.mask_bits().bit_count() * self.unit_threads()

    def first_thread(self) -> int:
        mask = self.mask_bits()
        return ((mask & -mask).bit_length() - 1) * self.unit_threads() if mask else 0

    def verify_(self) -> None:
        mask = self.mask_bits()
        if mask <= 0:
            raise VerifyException(f"cutlass.async.exec: mask must select at least one unit (a positive bit mask), found {mask}")
        kind = self.executor.data
        if kind is ExecutorType.CTA:
            if self.threads is None:
                raise VerifyException("cutlass.async.exec: executor `cta` needs `threads(N)`, the CTA size")
            if mask != 1:
                raise VerifyException(f"cutlass.async.exec: executor `cta` selects the whole CTA, so mask must be 1, found {mask}")
        elif self.threads is not None:
            raise VerifyException(f"cutlass.async.exec: `threads(N)` is only for executor `cta`, found executor `{kind.value}`")
        if self.max_regs is not None:
            regs = self.max_regs.value.data
            if not (24 <= regs <= 256 and regs % 8 == 0):
                raise VerifyException(f"cutlass.async.exec: regs must be a multiple of 8 in [24, 256] (setmaxnreg), found {regs}")
        self._verify_units_exist(kind, mask)
        outer = enclosing_async_exec(self)
        if isinstance(outer, AsyncExecOp) and outer.executor.data is kind and mask & ~outer.mask_bits():
            raise VerifyException(
                f"cutlass.async.exec: mask {mask:#x} is not a subset of the enclosing {kind.value} mask "
                f"{outer.mask_bits():#x}"
            )
        threads = executors.exec_thread_set(self)
        enclosing = executors.enclosing_set(self)
        if threads is not None and enclosing is not None and threads & ~enclosing[0]:
            raise VerifyException(
                f"cutlass.async.exec: {kind.value} mask {mask:#x} ({executors.thread_range_text(threads)}) "
                f"runs threads outside {enclosing[1]}, which covers {executors.thread_range_text(enclosing[0])}; "
                "a nested executor selects a subset of its enclosing executor's threads"
            )
        if self.max_regs is not None and threads is not None:
            for g in range(executors.MAX_UNITS["warpgroup"]):
                group = ((1 << executors.WARPGROUP) - 1) << (g * executors.WARPGROUP)
                if threads & group:
                    if threads & group != group:
                        raise VerifyException(
                            f"cutlass.async.exec: regs({self.max_regs.value.data}) lowers to setmaxnreg, which every "
                            f"thread of a warp group executes together, but this {kind.value} executor (mask {mask:#x}) "
                            f"covers only part of warp group {g}; put regs(N) on a warpgroup (or cta) executor"
                        )
        if self.max_regs is not None:
            self._verify_register_budget()

    def _verify_register_budget(self) -> None:
        """The warp groups' ``regs(N)`` fit in the registers the CTA starts with
        (:mod:`tileorch.dialects.register_budget`): ``setmaxnreg.inc`` takes registers that
        other warp groups gave back with ``setmaxnreg.dec`` and waits until there are enough, so
        counts that do not fit hang the kernel.  Checked once per kernel, at its first ``regs(N)``
        executor; a warp group under several takes the largest."""
        cta = executors.kernel_threads(self)
        top: Operation = self
        while top.parent_op() is not None and not isinstance(top.parent_op(), ModuleOp):
            top = top.parent_op()
        if cta is None or top is self:
            return
        execs = [op for op in top.walk() if isinstance(op, AsyncExecOp) and op.max_regs is not None]
        if not execs or execs[0] is not self:
            return
        groups = -(-cta[0] // WARP_GROUP)
        regs: dict[int, int] = {}
        for op in execs:
            threads = executors.exec_thread_set(op)
            for g in range(groups):
                if threads is not None and threads >> (g * WARP_GROUP) & ((1 << WARP_GROUP) - 1):
                    regs[g] = max(regs.get(g, 0), op.max_regs.value.data)
        if not regs:
            return
        minctasm = top.attributes.get("nvvm.minctasm")
        ctas = minctasm.value.data if isinstance(minctasm, IntegerAttr) and minctasm.value.data > 1 else 1
        bound = entry_regs(groups, ctas)
        entry = min(bound, max(regs.values()))
        total = sum(regs.values())
        if total > len(regs) * entry:
            split = " + ".join(f"{regs[g]} (warp group {g})" for g in sorted(regs))
            per_sm = f", {ctas} per SM (nvvm.minctasm)" if ctas > 1 else ""
            raise VerifyException(
                f"cutlass.async.exec: the warp groups' regs(N) need {split} = {total} registers per lane slot, "
                f"more than the {len(regs)} x {entry} = {len(regs) * entry} they start with (a CTA of {cta[0]} "
                f"threads, {cta[1]}{per_sm}, starts each thread with at most {bound} of the SM's 64 Ki): "
                "setmaxnreg.inc would wait forever; lower the regs(N)"
            )

    def _verify_units_exist(self, kind: ExecutorType, mask: int) -> None:
        """The mask names units of a CTA of at most 1024 threads (and of the declared CTA size)."""
        if kind is ExecutorType.CTA:
            n = self.threads.value.data
            if not 1 <= n <= executors.MAX_CTA_THREADS:
                raise VerifyException(
                    f"cutlass.async.exec: threads({n}) must be in [1, {executors.MAX_CTA_THREADS}] (threads per CTA)"
                )
            declared = executors.kernel_threads(self)
            if declared is not None and n > declared[0]:
                raise VerifyException(
                    f"cutlass.async.exec: threads({n}) is more than the {declared[0]} threads of the kernel's {declared[1]}"
                )
            return
        top = executors.highest_unit(mask)
        limit = executors.MAX_UNITS[kind.value]
        names = executors.UNIT_NAMES[kind.value]
        if top >= limit:
            raise VerifyException(
                f"cutlass.async.exec: {kind.value} mask {mask:#x} names {kind.value} {top}, but a CTA has at most "
                f"{limit} {names} ({executors.MAX_CTA_THREADS} threads)"
            )
        cta = executors.cta_size(self)
        unit = executors.UNIT_THREADS[kind.value]
        if cta is not None and (top + 1) * unit > cta[0]:
            raise VerifyException(
                f"cutlass.async.exec: {kind.value} mask {mask:#x} names {kind.value} {top} (threads up to "
                f"{(top + 1) * unit - 1}), but the CTA has {cta[0]} threads ({cta[1]})"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.executor_kind()} mask({self.mask_bits():#x})")
        if self.max_regs is not None:
            printer.print_string(f" regs({self.max_regs.value.data})")
        if self.threads is not None:
            printer.print_string(f" threads({self.threads.value.data})")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        print_body(printer, self.body)

    @classmethod
    def parse(cls, parser: Parser) -> AsyncExecOp:
        executor = parser.parse_str_enum(ExecutorType)
        values: dict[str, int] = {}
        for keyword in ("mask", "regs", "threads"):
            if keyword == "mask":
                parser.parse_keyword("mask")
            elif parser.parse_optional_keyword(keyword) is None:
                continue
            with parser.in_parens():
                values[keyword] = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parse_body(parser)
        op = cls(executor, values["mask"], region, values.get("regs"), values.get("threads"))
        if attrs is not None:
            op.attributes |= attrs.data
        return op


OPS: list[type] = [AsyncExecOp]
