"""Pipeline-state arithmetic: ``state.create``, ``state.increment`` (phase flips on wrap),
the bump form of increment (index wraps, phase never flips), and the three getters.

A state is ``!llvm.struct<(i32 index, i32 phase, i32 count)>`` (CUTLASS ``PipelineState``).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tileorch.dialects.cutlass.pipeline_facts import enum_prop
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering
from tileorch.transforms.pipeline_to_nvvm.emit import STATE_COUNT, STATE_INDEX, STATE_PHASE, Emitter

BUMP_ATTR = "bump"  # unit attribute on cutlass.pipeline.state.increment selecting the bump form


def state_stages(state: SSAValue) -> int:
    """Stage count of a ``!cutlass.pipeline_state<S>`` / ``seq_bar_state<S>`` value."""
    return state.type.stages


class PipelineStateOpLowering(OpLowering):
    """``state.create``: producers start at {0, 1, 0} (CUTLASS make_producer_start_state, so the
    first wait on every fresh empty barrier passes), everyone else at {0, 0, 0}."""

    OP = "cutlass.pipeline.state.create"

    def lower(self, op: Operation, e: Emitter):
        phase = 1 if enum_prop(op, "role", "consumer") == "producer" else 0
        return [e.state(e.const(0), e.const(phase), e.const(0))]


def emit_increment(e: Emitter, state: SSAValue, stages: int, step: SSAValue | None, flip: bool) -> SSAValue:
    """``++state`` (or ``state += step``); the phase bit flips once per wrap when ``flip``."""
    index, phase, count = e.unpack_state(state)
    n_stages = e.const(stages)
    if step is None:
        bumped = e.add(index, e.const(1))
        wrapped = e.icmp("eq", bumped, n_stages)
        new_index = e.select(wrapped, e.const(0), bumped)
        new_count = e.add(count, e.const(1))
        if flip:
            phase = e.xor(phase, e.zext(wrapped, phase.type))
    else:
        total = e.add(index, step)
        new_index = e.urem(total, n_stages)
        new_count = e.add(count, step)
        if flip:
            wraps = e.udiv(total, n_stages)
            phase = e.xor(phase, e.and_(wraps, e.const(1)))
    return e.state(new_index, phase, new_count)


class PipelineStateIncrementOpLowering(OpLowering):
    """``state.increment [by %n]``: index += n mod S, count += n, phase ^= (index + n) / S & 1."""

    OP = "cutlass.pipeline.state.increment"

    def applies_to(self, op: Operation) -> bool:
        return BUMP_ATTR not in op.attributes

    def lower(self, op: Operation, e: Emitter):
        step = op.operands[1] if len(op.operands) > 1 else None
        return [emit_increment(e, self.operand(e, op.operands[0]), state_stages(op.operands[0]), step, flip=True)]


class PipelineStateBumpOpLowering(OpLowering):
    """``state.increment {bump}``: the side-channel counter form; index and count advance in
    lockstep with the ring but the phase never flips."""

    OP = "cutlass.pipeline.state.increment"

    def applies_to(self, op: Operation) -> bool:
        return BUMP_ATTR in op.attributes

    def lower(self, op: Operation, e: Emitter):
        step = op.operands[1] if len(op.operands) > 1 else None
        return [emit_increment(e, self.operand(e, op.operands[0]), state_stages(op.operands[0]), step, flip=False)]


class _StateGetter(OpLowering):
    FIELD = STATE_INDEX

    def lower(self, op: Operation, e: Emitter):
        return [e.extract(self.operand(e, op.operands[0]), self.FIELD)]


class StateGetIndexLowering(_StateGetter):
    OP = "cutlass.pipeline.state.get_index"
    FIELD = STATE_INDEX


class StateGetPhaseLowering(_StateGetter):
    OP = "cutlass.pipeline.state.get_phase"
    FIELD = STATE_PHASE


class StateGetCountLowering(_StateGetter):
    OP = "cutlass.pipeline.state.get_count"
    FIELD = STATE_COUNT


PATTERNS = [
    PipelineStateOpLowering(),
    PipelineStateIncrementOpLowering(),
    PipelineStateBumpOpLowering(),
    StateGetIndexLowering(),
    StateGetPhaseLowering(),
    StateGetCountLowering(),
]
