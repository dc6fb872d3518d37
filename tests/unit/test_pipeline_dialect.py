"""Pipeline dialect: types, op construction, state semantics, effects and verifier messages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import i1, i32
from xdsl.ir import Block
from xdsl.traits import is_side_effect_free
from xdsl.utils.exceptions import VerifyException

from tileorch.diagnostics import parse_module, verify_located
from tileorch.dialects.cutlass import Cutlass
from tileorch.dialects.cutlass import pipeline as pl
from tileorch.dialects.cutlass.async_exec import AsyncExecOp
from tileorch.dialects.cutlass.attrs import PipelineBarrierElideType, PipelineBarrierType
from tileorch.dialects.cutlass.types import PipelineStateType, PipelineType
from tileorch.registry import make_context

SEED_PIPELINE_OPS = {
    "cutlass.pipeline.create", "cutlass.pipeline.init", "cutlass.pipeline.make_participants",
    "cutlass.pipeline.producer_acquire", "cutlass.pipeline.producer_try_acquire",
    "cutlass.pipeline.producer_commit", "cutlass.pipeline.producer_tail",
    "cutlass.pipeline.consumer_wait", "cutlass.pipeline.consumer_try_wait",
    "cutlass.pipeline.consumer_release", "cutlass.pipeline.produce", "cutlass.pipeline.consume",
    "cutlass.pipeline.get_producer_barrier", "cutlass.pipeline.get_producer_mask",
    "cutlass.pipeline.state.create", "cutlass.pipeline.state.increment",
    "cutlass.pipeline.state.get_count", "cutlass.pipeline.state.get_index",
    "cutlass.pipeline.state.get_phase", "cutlass.pipeline.switch_by_executor",
}  # the 20 names of seed 002's roster


def test_all_seed_pipeline_ops_registered_with_exact_names():
    names = {op.name for op in pl.OPS}
    assert SEED_PIPELINE_OPS <= names
    assert names - SEED_PIPELINE_OPS == {"cutlass.pipeline.get_full_barrier", "cutlass.pipeline.get_empty_barrier"}
    assert SEED_PIPELINE_OPS <= {op.name for op in Cutlass.operations}


def test_pipeline_type_accessors_and_state_inference():
    t = PipelineType(4, 1, 2, PipelineBarrierType.NAMED_BARRIER, PipelineBarrierElideType.EMPTY)
    assert (t.stages, t.producers, t.consumers) == (4, 1, 2)
    assert t.state_type() == PipelineStateType(4)
    with pytest.raises(VerifyException, match="pipeline stage count must be in \\[1, 32\\], found 0"):
        PipelineType(0, 1, 1)


def _pipe(stages=4, producers=1, consumers=1, **kw):
    create = pl.PipelineCreateOp(PipelineType(stages, producers, consumers, **kw))
    return create, create.pipeline


# CUTLASS PipelineState (cutlass-semantics.md §1): ++ = index+1, count+1, wrap -> index 0, phase ^= 1.
def _step(state, stages):
    index, phase, count = state
    index, count = index + 1, count + 1
    if index == stages:
        index, phase = 0, phase ^ 1
    return (index, phase, count)


@settings(max_examples=60, deadline=None)
@given(stages=st.integers(1, 8), index=st.integers(0, 7), phase=st.integers(0, 1), n=st.integers(0, 40))
def test_advance_state_equals_n_increments(stages, index, phase, n):
    start = (index % stages, phase, 3)
    expected = start
    for _ in range(n):
        expected = _step(expected, stages)
    assert pl.advance_state(start, n, stages) == expected


def test_start_states_follow_cutlass():
    _, pipe = _pipe()
    assert pl.StateCreateOp(pipe, "producer").start() == (0, 1, 0)
    assert pl.StateCreateOp(pipe, "consumer").start() == (0, 0, 0)
    assert pl.StateCreateOp(pipe, "producer").state.type == PipelineStateType(4)


def test_effects_pure_state_ops_and_effectful_barrier_ops():
    create, pipe = _pipe()
    state = pl.StateCreateOp(pipe, "producer")
    s = state.state
    pure = [state, pl.StateIncrementOp(s), pl.StateGetIndexOp(s), pl.StateGetPhaseOp(s), pl.StateGetCountOp(s),
            pl.GetFullBarrierOp(pipe, s), pl.GetEmptyBarrierOp(pipe, s), pl.GetProducerBarrierOp(pipe, s),
            pl.GetProducerMaskOp(pipe)]
    effectful = [create, pl.ProducerAcquireOp(pipe, s), pl.ProducerCommitOp(pipe, s, 16), pl.ProducerTailOp(pipe, s),
                 pl.ConsumerWaitOp(pipe, s), pl.ConsumerReleaseOp(pipe, s), pl.ProduceOp(pipe, s), pl.ConsumeOp(pipe, s),
                 pl.ProducerTryAcquireOp(pipe, s), pl.ConsumerTryWaitOp(pipe, s),
                 pl.PipelineInitOp(pipe, [1], [2])]
    assert all(is_side_effect_free(op) for op in pure)
    assert not any(is_side_effect_free(op) for op in effectful)


def test_try_ops_return_i1_and_take_i1_skip():
    _, pipe = _pipe()
    s = pl.StateCreateOp(pipe, "consumer").state
    flag = Block(arg_types=[i1]).args[0]
    op = pl.ConsumerTryWaitOp(pipe, s, flag)
    assert op.ready.type == i1 and op.skip_wait is flag
    op.verify()


@pytest.mark.parametrize("getter", [pl.StateGetIndexOp, pl.StateGetPhaseOp, pl.StateGetCountOp, pl.StateIncrementOp])
def test_state_ops_name_the_found_type(getter):
    bad = Block(arg_types=[i32]).args[0]
    with pytest.raises(VerifyException, match=f"{getter.name}: expected a !cutlass.pipeline_state operand, found i32"):
        getter(bad).verify()


def test_init_accessors_and_named_barrier_count():
    _, pipe = _pipe(stages=3, consumers=2, barrier=PipelineBarrierType.NAMED_BARRIER)
    init = pl.PipelineInitOp(pipe, [0x1], [0xF0, 0xF00], producer_arv_count=[1], transaction_size=[512], barrier_id_base=8)
    init.verify()
    assert init.producer_masks() == [1] and init.consumer_masks() == [0xF0, 0xF00]
    assert init.transaction_sizes() == [512] and init.arrive_counts() is None
    assert init.num_named_barriers() == 6  # 3 stages x (full + empty)
    _, mb = _pipe()
    assert pl.PipelineInitOp(mb, [1], [2]).num_named_barriers() == 0


def test_seed_diagnostics_are_exact():
    _, pipe = _pipe()
    with pytest.raises(VerifyException, match="^cutlass.pipeline.init: invalid numStages"):
        pl.PipelineInitOp(pipe, [1], [2], num_stages=0).verify()
    with pytest.raises(VerifyException, match="^cutlass.pipeline.init: participants length mismatch"):
        pl.PipelineInitOp(pipe, [1, 2], [4]).verify()


@pytest.mark.parametrize(
    "mask, contiguous", [(0b1, True), (0b0110, True), (0xFF0, True), (0b101, False), (0, False), (0xF0F, False)]
)
def test_mask_contiguity(mask, contiguous):
    assert pl.is_contiguous(mask) is contiguous


def test_located_verifier_error_from_text():
    text = (
        "func.func @f() {\n"
        "  %p = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, elide = full>\n"
        "  %s = cutlass.pipeline.state.create %p consumer\n"
        "  cutlass.pipeline.consumer_wait %p, %s\n"
        "  func.return\n"
        "}\n"
    )
    module = parse_module(make_context(), text, "k.mlir")
    errors = verify_located(module)
    assert errors == [
        "k.mlir:4:3: error: cutlass.pipeline.consumer_wait: the pipeline elides its full barrier (elide = full), "
        "so this op has no barrier to use; remove the op or keep the full barrier"
    ]


@pytest.mark.parametrize(
    "kind, mask, threads, num, first",
    [("warp", 0xF0, None, 128, 128), ("warpgroup", 0x6, None, 256, 128), ("thread", 0b1100, None, 2, 2),
     ("cta", 0x1, 384, 384, 0)],
)
def test_async_exec_interface(kind, mask, threads, num, first):
    op = AsyncExecOp(kind, mask, threads=threads)
    op.verify()
    assert (op.executor_kind(), op.mask_bits(), op.num_threads(), op.first_thread()) == (kind, mask, num, first)
