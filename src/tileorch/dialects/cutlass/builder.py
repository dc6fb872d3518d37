"""A Python API to build pipeline programs without writing IR text.

Example (a warp-specialized mainloop; see tests/unit/test_builder.py)::

    b = PipelineProgramBuilder(cluster_shape=(1, 1, 1))
    with b.kernel("ws", [i32]) as (k_tiles,):
        ready = b.pipeline(stages=4, participants=[0x1], consumers=[0xF0, 0xF00], transaction_size=[4096])
        c0, c1 = b.constant(0), b.constant(1)
        with b.async_exec("warp", 0xFF1):
            with b.switch_by_executor() as switch:
                with switch.case([0x1], [ready]) as (p,):
                    with b.loop(c0, k_tiles, c1, [b.state(p, "producer")]) as loop:
                        (s,) = loop.args
                        b.producer_acquire(p, s)
                        b.producer_commit(p, s, transaction_bytes=4096)
                        loop.yield_(b.increment(s))
                    b.producer_tail(p, loop.results[0])
                ...
    module = b.module

Every method appends to the innermost open block (kernel, exec region, switch arm, loop body,
produce/consume body) and returns the new op's result where it has one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tileorch.dialects.cutlass import async_exec as ax
from tileorch.dialects.cutlass import pipeline as pl
from tileorch.dialects.cutlass.attrs import ExecutorType, PipelineBarrierElideType, PipelineBarrierType, PipelineScope
from tileorch.dialects.cutlass.types import PipelineType


class LoopBuilder:
    """An open ``scf.for`` body: ``iv``, ``args`` (iter_args); call ``yield_`` once; ``results`` after."""

    def __init__(self, block: Block):
        self.block = block
        self.iv: SSAValue = block.args[0]
        self.args: tuple[SSAValue, ...] = tuple(block.args[1:])
        self.yielded: list[SSAValue] | None = None
        self.results: tuple[SSAValue, ...] = ()

    def yield_(self, *values: SSAValue) -> None:
        self.yielded = list(values)


class SwitchBuilder:
    """Collects the arms of a ``cutlass.pipeline.switch_by_executor``."""

    def __init__(self, builder: PipelineProgramBuilder):
        self._builder = builder
        self.masks: list[int] = []
        self.pipelines: list[SSAValue] = []
        self.arms: list[Region] = []

    @contextmanager
    def case(self, masks: Sequence[int], pipelines: Sequence[SSAValue] = ()) -> Iterator[tuple[SSAValue, ...]]:
        """One arm running on ``masks``; yields the arm's block arguments (one per pipeline)."""
        block = Block(arg_types=[p.type for p in pipelines])
        with self._builder.inside(block):
            yield tuple(block.args)
        self.masks += list(masks)
        self.pipelines += list(pipelines)
        self.arms.append(Region(block))


class PipelineProgramBuilder:
    """Builds a ``builtin.module`` holding kernels that use the pipeline ops."""

    def __init__(self, *, target: str = "sm_90a", cluster_shape: Sequence[int] = (1, 1, 1)):
        self.module = ModuleOp([])
        self.module.attributes["cutlass.target"] = StringAttr(target)
        self.module.attributes["cutlass.cluster_shape"] = DenseArrayBase.from_list(i32, list(cluster_shape))
        self._blocks: list[Block] = [self.module.body.block]

    # -- insertion
    def add(self, op: Operation) -> Operation:
        """Append ``op`` to the innermost open block."""
        self._blocks[-1].add_op(op)
        return op

    def _value(self, op: Operation) -> SSAValue:
        self.add(op)
        return op.results[0]

    @contextmanager
    def inside(self, block: Block) -> Iterator[Block]:
        self._blocks.append(block)
        try:
            yield block
        finally:
            self._blocks.pop()

    # -- structure
    @contextmanager
    def kernel(self, name: str, arg_types: Sequence[Attribute] = ()) -> Iterator[tuple[SSAValue, ...]]:
        """A ``func.func`` (ended by ``func.return``); yields its arguments."""
        block = Block(arg_types=list(arg_types))
        with self.inside(block):
            yield tuple(block.args)
            self.add(func.ReturnOp())
        self.add(func.FuncOp(name, (list(arg_types), []), Region(block)))

    @contextmanager
    def async_exec(self, executor: ExecutorType | str, mask: int, *, max_regs: int | None = None) -> Iterator[None]:
        block = Block()
        with self.inside(block):
            yield
        self.add(ax.AsyncExecOp(executor, mask, Region(block), max_regs))

    @contextmanager
    def switch_by_executor(self) -> Iterator[SwitchBuilder]:
        switch = SwitchBuilder(self)
        yield switch
        self.add(pl.SwitchByExecutorOp(switch.masks, switch.pipelines, switch.arms))

    @contextmanager
    def loop(self, lb: SSAValue, ub: SSAValue, step: SSAValue, iter_args: Sequence[SSAValue] = ()) -> Iterator[LoopBuilder]:
        """An ``scf.for`` over ``lb``'s integer type; the body must call ``yield_`` when it has iter_args."""
        block = Block(arg_types=[lb.type, *(a.type for a in iter_args)])
        loop = LoopBuilder(block)
        with self.inside(block):
            yield loop
            self.add(scf.YieldOp(*(loop.yielded or [])))
        op = scf.ForOp(lb, ub, step, list(iter_args), Region(block))
        self.add(op)
        loop.results = tuple(op.results)

    @contextmanager
    def produce(self, pipe: SSAValue, state: SSAValue, transaction_bytes: int | None = None) -> Iterator[None]:
        block = Block()
        with self.inside(block):
            yield
        self.add(pl.ProduceOp(pipe, state, transaction_bytes, Region(block)))

    @contextmanager
    def consume(self, pipe: SSAValue, state: SSAValue) -> Iterator[None]:
        block = Block()
        with self.inside(block):
            yield
        self.add(pl.ConsumeOp(pipe, state, Region(block)))

    # -- values
    def constant(self, value: int, type: Attribute = i32) -> SSAValue:
        return self._value(arith.ConstantOp(IntegerAttr(value, type)))

    def pipeline(
        self,
        *,
        stages: int,
        participants: Sequence[int],
        consumers: Sequence[int],
        executor: ExecutorType | str = ExecutorType.WARP,
        barrier: PipelineBarrierType = PipelineBarrierType.MBARRIER,
        elide: PipelineBarrierElideType = PipelineBarrierElideType.NONE,
        producer_arv_count: Sequence[int] | None = None,
        consumer_arv_count: Sequence[int] | None = None,
        transaction_size: Sequence[int] | None = None,
        barrier_id_base: int | None = None,
        scope: str = "cluster",
    ) -> SSAValue:
        """``create`` + ``init`` of a pipeline with one group per mask; returns the initialized value.
        ``scope = "cta"`` makes it CTA-local (``!cutlass.pipeline<..., scope = cta>``)."""
        pipe_type = PipelineType(stages, len(participants), len(consumers), barrier, elide, PipelineScope(scope))
        created = self._value(pl.PipelineCreateOp(pipe_type))
        return self._value(
            pl.PipelineInitOp(
                created,
                participants,
                consumers,
                executor=executor,
                producer_arv_count=producer_arv_count,
                consumer_arv_count=consumer_arv_count,
                transaction_size=transaction_size,
                barrier_id_base=barrier_id_base,
            )
        )

    def state(self, pipe: SSAValue, role: str) -> SSAValue:
        return self._value(pl.StateCreateOp(pipe, role))

    def increment(self, state: SSAValue, step: SSAValue | None = None) -> SSAValue:
        return self._value(pl.StateIncrementOp(state, step))

    def get_index(self, state: SSAValue) -> SSAValue:
        return self._value(pl.StateGetIndexOp(state))

    def get_phase(self, state: SSAValue) -> SSAValue:
        return self._value(pl.StateGetPhaseOp(state))

    def get_count(self, state: SSAValue) -> SSAValue:
        return self._value(pl.StateGetCountOp(state))

    # -- handshake
    def producer_acquire(self, pipe: SSAValue, state: SSAValue, token: SSAValue | None = None) -> None:
        self.add(pl.ProducerAcquireOp(pipe, state, token))

    def producer_try_acquire(self, pipe: SSAValue, state: SSAValue) -> SSAValue:
        return self._value(pl.ProducerTryAcquireOp(pipe, state))

    def producer_commit(self, pipe: SSAValue, state: SSAValue, transaction_bytes: int | None = None) -> None:
        self.add(pl.ProducerCommitOp(pipe, state, transaction_bytes))

    def producer_tail(self, pipe: SSAValue, state: SSAValue) -> None:
        self.add(pl.ProducerTailOp(pipe, state))

    def consumer_wait(self, pipe: SSAValue, state: SSAValue, token: SSAValue | None = None) -> None:
        self.add(pl.ConsumerWaitOp(pipe, state, token))

    def consumer_try_wait(self, pipe: SSAValue, state: SSAValue) -> SSAValue:
        return self._value(pl.ConsumerTryWaitOp(pipe, state))

    def consumer_release(self, pipe: SSAValue, state: SSAValue) -> None:
        self.add(pl.ConsumerReleaseOp(pipe, state))

    def producer_barrier(self, pipe: SSAValue, state: SSAValue) -> SSAValue:
        return self._value(pl.GetProducerBarrierOp(pipe, state))
