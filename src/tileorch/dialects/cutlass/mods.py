"""The MODS sidecar: ``cutlass.tile_scheduler.mods_*`` (seed 004).

Custom forms::

    %t = cutlass.tile_scheduler.mods_report_mainloop_start %sched, %participants
           {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64 -> i64     (or `-> ()`)
    cutlass.tile_scheduler.mods_report_mainloop_end %sched, %participants, %t
           {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64, i64 -> ()  (or `-> i64`)
    %smid = cutlass.tile_scheduler.mods_report_smid : i32
    cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}

The start probe arrives on the MODS cluster barrier (and optionally reads the global
timer); the end probe drains and waits on it (and optionally returns the elapsed time
since the start's timestamp).  Both read and write the cluster barrier, so DCE/CSE keep
them.  ``mods_report_smid`` reads the ``%smid`` special register, a non-constant register
that LLVM models as reading inaccessible memory: unused reads may be dropped and two reads
are merged only with no side-effecting op between them.  ``mods_throttle`` profiles:
0 = no-op (no effect, droppable), 1 = fixed ``nanosleep`` (per-thread; allowed anywhere in
an async region), 2 = cooperative per-cluster throttle (depends on cluster-wide state:
only inside a matched start/end window).

Verifier rules (004 rules 1-3 and the placement invariant): every MODS op is inside an
async executor region, ``nv_tileas.async.exec`` (the seed's invariant) or ``cutlass.async.exec``
(the seed's placement paragraph), never directly at module or kernel scope; each start is followed, in its own block and with no other start/end
probe in between (nested regions included), by exactly one end; the pair agrees on
``is_2cta_mma`` and on the participant mask (same value, or equal constants); a constant
participant mask has no bit at or above the participant count (CTAs of the module's
``cutlass.cluster_shape``, halved under ``is_2cta_mma``).
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from typing import ClassVar

from xdsl.dialects.builtin import I32, I64, BoolAttr, IntegerAttr, IntegerType, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (IRDLOperation, ParsePropInAttrDict, irdl_op_definition, operand_def, opt_operand_def,
                       opt_prop_def, opt_result_def, prop_def, result_def, traits_def)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind, MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.constants import constant_int
from tileorch.dialects.cutlass.scheduler_context import cluster_shape, value_name
from tileorch.dialects.cutlass.scheduler_types import TileSchedulerType

START = "cutlass.tile_scheduler.mods_report_mainloop_start"
END = "cutlass.tile_scheduler.mods_report_mainloop_end"
PROBES = (START, END)
THROTTLE_PROFILES = {0: "no-op", 1: "fixed nanosleep", 2: "cooperative cluster throttle"}
CLUSTER_AWARE_PROFILES = (2,)


ASYNC_REGIONS = ("nv_tileas.async.exec", "cutlass.async.exec")
"""The executor regions a MODS op may sit in (seed 004: ``nv_tileas.async.exec`` in its invariants,
``cutlass.async.exec`` in its placement paragraph; ``convert-pipeline-to-nvvm`` lowers both)."""


def enclosing_async_region(op: Operation) -> Operation | None:
    """The closest ``nv_tileas.async.exec`` / ``cutlass.async.exec`` ancestor of ``op``."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name in ASYNC_REGIONS:
            return parent
        parent = parent.parent_op()
    return None


def _region_name(op: Operation) -> str:
    region = enclosing_async_region(op)
    return region.name if region is not None else "cutlass.async.exec"


def _scope_of(op: Operation) -> str:
    """Where an op outside every executor region sits: ``module scope``, or ``function scope (the
    body of func.func @f)`` for the nearest enclosing function-like op."""
    parent = op.parent_op()
    while parent is not None:
        sym = parent.properties.get("sym_name") or parent.attributes.get("sym_name")
        if parent.name in ("builtin.module", "gpu.module"):
            return "module scope"
        if isinstance(sym, StringAttr):
            kind = "kernel" if "nvvm.kernel" in parent.attributes or parent.name.endswith("kernel") else "function"
            return f"{kind} scope (directly in the body of {parent.name} @{sym.data}, outside any executor region)"
        parent = parent.parent_op()
    return "module scope"


def _require_async_exec(op: Operation) -> None:
    if enclosing_async_region(op) is None:
        raise VerifyException(
            f"{op.name} must be nested in an nv_tileas.async.exec or cutlass.async.exec region "
            "(MODS ops never appear at module or kernel scope): MODS ops run inside a kernel's agent "
            f"(executor) region of the persistent mainloop, but this one is at {_scope_of(op)}"
        )


def _probes_in(op: Operation) -> Iterator[Operation]:
    """``op`` and every op nested in it that is a mainloop probe, in program order."""
    for inner in op.walk():
        if inner.name in PROBES:
            yield inner


def _short(name: str) -> str:
    return name.removeprefix("cutlass.tile_scheduler.")


# --------------------------------------------------------------------- probes


class _ProbeOp(IRDLOperation):
    """Shared custom syntax: ``%sched, %participants[, %t] {attrs} : types -> (type | ())``."""

    is_2cta_mma = opt_prop_def(BoolAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    PROPERTY_NAMES: ClassVar[tuple[str, ...]] = ("is_2cta_mma",)

    def two_cta(self) -> bool:
        return self.is_2cta_mma is not None and bool(self.is_2cta_mma.value.data)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        entries: dict[str, Attribute] = {**self.properties, **self.attributes}
        if entries:
            printer.print_string(" ")
            printer.print_attr_dict(entries)
        printer.print_string(" : ")
        printer.print_list([o.type for o in self.operands], printer.print_attribute)
        printer.print_string(" -> ")
        if self.results:
            printer.print_attribute(self.results[0].type)
        else:
            printer.print_string("()")

    @classmethod
    def parse(cls, parser: Parser):
        unresolved = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        entries = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(unresolved):
            parser.raise_error(f"expected {len(unresolved)} operand types, found {len(types)}")
        operands = [parser.resolve_operand(u, t) for u, t in zip(unresolved, types)]
        parser.parse_punctuation("->")
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("(") is not None:
            parser.parse_punctuation(")")
        else:
            result_types.append(parser.parse_type())
        properties = {k: v for k, v in entries.items() if k in cls.PROPERTY_NAMES}
        attributes = {k: v for k, v in entries.items() if k not in cls.PROPERTY_NAMES}
        return cls.build(
            operands=cls.split_operands(parser, operands),
            result_types=[result_types],
            properties=properties,
            attributes=attributes,
        )


@irdl_op_definition
class ModsReportMainloopStartOp(_ProbeOp):
    """Enter the MODS window: arrive on the cluster barrier (count from the participant
    mask); optionally return the global-timer timestamp (ns)."""

    name = START
    sched = operand_def(TileSchedulerType)
    participants = operand_def(IntegerType)
    timestamp = opt_result_def(I64)

    @staticmethod
    def split_operands(parser: Parser, operands: list) -> list:
        if len(operands) != 2:
            parser.raise_error(f"{START} takes 2 operands (sched, participants), found {len(operands)}")
        return operands

    def verify_(self) -> None:
        _require_async_exec(self)
        self._verify_participant_width()
        end = self.matching_end()
        if end is None:
            raise VerifyException(
                f"{_short(START)} has no matching {_short(END)} after it in the same block of "
                f"its {_region_name(self)} region (each start needs exactly one end)"
            )

    def matching_end(self) -> Operation | None:
        """The end probe paired with this start; raises when another probe intervenes."""
        op = self.next_op
        while op is not None:
            for probe in _probes_in(op):
                if probe is op and probe.name == END:
                    return probe
                if probe.name == START:
                    raise VerifyException(
                        f"another {_short(START)} appears before this start's {_short(END)}: "
                        "no other probe may lie between a matched start/end pair"
                    )
                raise VerifyException(
                    f"the {_short(END)} after this start is in a nested region: the pair must "
                    f"share one block of the {_region_name(self)} region"
                )
            op = op.next_op
        return None

    def _verify_participant_width(self) -> None:
        mask = constant_int(self.participants)
        if mask is None:
            return
        shape = cluster_shape(self)
        ctas = shape[0] * shape[1] * shape[2]
        shape_str = "x".join(str(v) for v in shape)
        if any(v < 1 for v in shape):
            return  # reported by the module's cutlass.cluster_shape check
        if mask == 0:
            raise VerifyException(
                "participant mask is 0: the MODS window needs at least one participating CTA "
                "(bit i = CTA i of the cluster)"
            )
        if self.two_cta() and ctas % 2:
            raise VerifyException(
                f"is_2cta_mma = true needs an even number of CTAs per cluster, module "
                f"cutlass.cluster_shape is {shape_str}"
            )
        count = ctas // 2 if self.two_cta() else ctas
        width = self.participants.type.width.data  # type: ignore[attr-defined]
        unsigned = mask & ((1 << width) - 1)
        if unsigned >> count:
            unit = "cluster half" if self.two_cta() else "CTA"
            raise VerifyException(
                f"participant mask {bin(unsigned)} is wider than the {count} participants of "
                f"cluster {shape_str} (one bit per {unit}; is_2cta_mma = "
                f"{str(self.two_cta()).lower()}): expected a mask below {bin(1 << count)}"
            )


@irdl_op_definition
class ModsReportMainloopEndOp(_ProbeOp):
    """Leave the MODS window: drain, then wait on the cluster barrier; with the start's
    timestamp it may return the elapsed time (ns)."""

    name = END
    sched = operand_def(TileSchedulerType)
    participants = operand_def(IntegerType)
    t_start = opt_operand_def(I64)
    elapsed = opt_result_def(I64)

    @staticmethod
    def split_operands(parser: Parser, operands: list) -> list:
        if len(operands) not in (2, 3):
            parser.raise_error(
                f"{END} takes 2 or 3 operands (sched, participants[, t_start]), found {len(operands)}"
            )
        return [operands[0], operands[1], operands[2:]]

    def verify_(self) -> None:
        _require_async_exec(self)
        start = self.matching_start()
        if start.two_cta() != self.two_cta():
            raise VerifyException(
                f"is_2cta_mma mismatch: {_short(START)} has {str(start.two_cta()).lower()}, "
                f"{_short(END)} has {str(self.two_cta()).lower()}"
            )
        if not _same_mask(start.participants, self.participants):
            raise VerifyException(
                f"participant mask mismatch: {_short(START)} uses {value_name(start.participants)}, "
                f"{_short(END)} uses {value_name(self.participants)}"
            )
        if self.t_start is not None and self.t_start.owner is not start:
            raise VerifyException(
                f"t_start must be the timestamp result of the paired {_short(START)}"
            )
        if self.elapsed is not None and self.t_start is None:
            raise VerifyException("the elapsed-time result needs the t_start operand")

    def matching_start(self) -> ModsReportMainloopStartOp:
        op = self.prev_op
        while op is not None:
            for probe in reversed(list(_probes_in(op))):
                if probe is op and isinstance(probe, ModsReportMainloopStartOp):
                    return probe
                if probe.name == END:
                    raise VerifyException(
                        f"{_short(END)} follows another {_short(END)}: each "
                        f"{_short(START)} has exactly one end"
                    )
                raise VerifyException(
                    f"the {_short(START)} before this end is in a nested region: the pair must "
                    f"share one block of the {_region_name(self)} region"
                )
            op = op.prev_op
        raise VerifyException(
            f"{_short(END)} has no matching {_short(START)} before it in the same block of its "
            f"{_region_name(self)} region"
        )


def _same_mask(a, b) -> bool:
    if a is b:
        return True
    ca, cb = constant_int(a), constant_int(b)
    return ca is not None and ca == cb


def inside_window(op: Operation) -> bool:
    """Whether ``op`` lies between a matched start/end pair of its async region."""
    current: Operation | None = op
    while current is not None and current.name not in ASYNC_REGIONS:
        before = current.prev_op
        while before is not None and before.name not in PROBES:
            before = before.prev_op
        if before is not None:
            after = current.next_op
            while after is not None and after.name not in PROBES:
                after = after.next_op
            return before.name == START and after is not None and after.name == END
        current = current.parent_op()
    return False


# ------------------------------------------------------------------ smid, throttle


@irdl_op_definition
class ModsReportSmidOp(IRDLOperation):
    """The SM id of the current CTA (``%smid``)."""

    name = "cutlass.tile_scheduler.mods_report_smid"
    smid = result_def(I32)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "attr-dict `:` type($smid)"

    def verify_(self) -> None:
        _require_async_exec(self)


class ThrottleEffect(MemoryEffect):
    """Profile 0 is a no-op (no effect); the others sleep or synchronise (read + write)."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        profile = op.properties.get("profile")
        if isinstance(profile, IntegerAttr) and profile.value.data == 0:
            return set()
        return {EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)}


@irdl_op_definition
class ModsThrottleOp(IRDLOperation):
    """A backoff point; ``profile`` 0 (no-op), 1 (fixed nanosleep) or 2 (cooperative
    per-cluster throttle, cluster-aware: only inside a matched start/end window)."""

    name = "cutlass.tile_scheduler.mods_throttle"
    profile = prop_def(IntegerAttr[I32])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(ThrottleEffect())
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        _require_async_exec(self)
        profile = self.profile.value.data
        if profile not in THROTTLE_PROFILES:
            raise VerifyException(
                f"unknown throttle profile {profile}: expected 0 (no-op), 1 (fixed nanosleep) or "
                "2 (cooperative cluster throttle)"
            )
        if profile in CLUSTER_AWARE_PROFILES and not inside_window(self):
            raise VerifyException(
                f"mods_throttle profile {profile} ({THROTTLE_PROFILES[profile]}) depends on "
                "cluster-wide state: place it between a matched mods_report_mainloop_start/end pair"
            )


OPS: list[type[IRDLOperation]] = [
    ModsReportMainloopStartOp,
    ModsReportMainloopEndOp,
    ModsReportSmidOp,
    ModsThrottleOp,
]
