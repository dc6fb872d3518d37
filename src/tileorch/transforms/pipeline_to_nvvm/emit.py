"""Straight-line IR builders shared by the ``convert-pipeline-to-nvvm`` patterns.

An :class:`Emitter` collects the ops one pattern creates, in order; structured control flow
(``scf.if`` / ``scf.while`` / ``scf.for``) takes nested emitters through callbacks.  Integer
math is emitted in the ``llvm`` dialect (i32 unless stated), barrier storage is an array of
i64 mbarrier words in shared memory (``!llvm.ptr<3>``), and synchronisation is
``tileorch.dialects.nvvm`` ops (upstream names and operand order).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import llvm, scf
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, StringAttr, i1, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tileorch.dialects import nvvm
from tileorch.transforms.attr_cache import integer
from tileorch.transforms.bound_waits import SPIN_SITE
from tileorch.transforms.pipeline_to_nvvm.context import is_1d_block

SMEM_PTR = nvvm.PTR_SHARED
CLUSTER_PTR = nvvm.PTR_SHARED_CLUSTER
GLOBAL_PTR = nvvm.PTR_GLOBAL
STATE_TYPE = llvm.LLVMStructType.from_type_list([i32, i32, i32])  # (index, phase, count)
STATE_INDEX, STATE_PHASE, STATE_COUNT = 0, 1, 2
WAIT_SUSPEND_HINT_NS = 0x989680  # CUTLASS ClusterBarrier::wait suspend-time hint (10,000,000)


def _binary(op_cls: type) -> Callable[..., SSAValue]:
    """An :class:`Emitter` method that emits ``op_cls(a, b)`` and returns its result."""

    def method(self: Emitter, a: SSAValue, b) -> SSAValue:
        return self.emit(op_cls(a, b))

    method.__doc__ = f"Emit ``{op_cls.name}``; its result."
    return method


class Emitter:
    """Collects newly built ops in program order."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []
        self.globals: list[Operation] = []  # module-level ops (shared storage, strings) to add
        self.entry_ops: list[Operation] = []  # ops for the enclosing function's entry (allocas)

    def add_op(self, op: Operation) -> Operation:
        self.ops.append(op)
        return op

    def emit(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    # -- constants and integer math -------------------------------------------------------------
    def const(self, value: int, typ: IntegerType = i32) -> SSAValue:
        if typ.width.data < 64 and value >= 1 << (typ.width.data - 1):
            value -= 1 << typ.width.data  # two's complement for unsigned-looking constants
        return self.emit(llvm.ConstantOp(integer(value, typ), typ))

    def true(self) -> SSAValue:
        return self.emit(llvm.ConstantOp(integer(1, i1), i1))

    # the two-operand integer ops: one method each, ``e.add(a, b)`` ...
    add = _binary(llvm.AddOp)
    sub = _binary(llvm.SubOp)
    mul = _binary(llvm.MulOp)
    udiv = _binary(llvm.UDivOp)
    urem = _binary(llvm.URemOp)
    and_ = _binary(llvm.AndOp)
    or_ = _binary(llvm.OrOp)
    xor = _binary(llvm.XOrOp)
    shl = _binary(llvm.ShlOp)
    lshr = _binary(llvm.LShrOp)

    def icmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        flag = llvm.ICmpPredicateFlag(pred)
        return self.emit(llvm.ICmpOp(a, b, integer(flag.to_int(), 64)))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.emit(llvm.SelectOp(cond, a, b))

    zext = _binary(llvm.ZExtOp)
    trunc = _binary(llvm.TruncOp)

    # -- aggregates -----------------------------------------------------------------------------
    def undef(self, typ: Attribute) -> SSAValue:
        return self.emit(llvm.UndefOp(typ))

    def extract(self, agg: SSAValue, pos: int, typ: Attribute = i32) -> SSAValue:
        return self.emit(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [pos]), agg, typ))

    def insert(self, agg: SSAValue, value: SSAValue, pos: int) -> SSAValue:
        return self.emit(llvm.InsertValueOp(DenseArrayBase.from_list(i64, [pos]), agg, value))

    def pack(self, typ: Attribute, values: Sequence[SSAValue]) -> SSAValue:
        agg = self.undef(typ)
        for i, v in enumerate(values):
            agg = self.insert(agg, v, i)
        return agg

    def state(self, index: SSAValue, phase: SSAValue, count: SSAValue) -> SSAValue:
        return self.pack(STATE_TYPE, [index, phase, count])

    def unpack_state(self, state: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
        return tuple(self.extract(state, i) for i in (STATE_INDEX, STATE_PHASE, STATE_COUNT))  # type: ignore[return-value]

    # -- shared-memory barrier words --------------------------------------------------------------
    def barrier_addr(self, base: SSAValue, slot: SSAValue | int) -> SSAValue:
        """Address of mbarrier word ``slot`` (i64 elements) of the array at ``base``."""
        return self.emit(llvm.GEPOp.from_mixed_indices(base, [slot], i64, result_type=SMEM_PTR))

    # -- NVVM -----------------------------------------------------------------------------------
    def sreg(self, reg: str) -> SSAValue:
        """Read special register ``reg`` (``tid.x``, ``cluster.ctarank``, ``globaltimer``...)."""
        return self.emit(nvvm.SPECIAL_REGISTERS[reg]())

    def thread_id(self, anchor: Operation) -> SSAValue:
        """CTA-linear thread index of the threads running ``anchor``: ``tid.x`` when the kernel
        declares a 1-D ``nvvm.reqntid``, else ``tid.x + ntid.x * (tid.y + ntid.y * tid.z)`` (so the
        threads of a 2-D / 3-D block do not alias)."""
        tid_x = self.sreg("tid.x")
        if is_1d_block(anchor):
            return tid_x
        yz = self.add(self.sreg("tid.y"), self.mul(self.sreg("ntid.y"), self.sreg("tid.z")))
        return self.add(tid_x, self.mul(self.sreg("ntid.x"), yz))

    # -- structured control flow ------------------------------------------------------------------
    def if_(
        self,
        cond: SSAValue,
        then: Callable[[Emitter], Sequence[SSAValue] | None],
        otherwise: Callable[[Emitter], Sequence[SSAValue] | None] | None = None,
        result_types: Sequence[Attribute] = (),
    ) -> Sequence[SSAValue]:
        def region(body: Callable[[Emitter], Sequence[SSAValue] | None] | None) -> Region:
            inner = Emitter()
            yielded = body(inner) if body else None
            inner.add_op(scf.YieldOp(*(yielded if result_types else [])))
            self._adopt(inner)
            return Region(Block(inner.ops))

        op = scf.IfOp(cond, list(result_types), region(then),
                      region(otherwise) if (otherwise or result_types) else None)
        self.add_op(op)
        return op.results

    def for_(
        self,
        lb: SSAValue,
        ub: SSAValue,
        step: SSAValue,
        iter_args: Sequence[SSAValue],
        body: Callable[[Emitter, SSAValue, Sequence[SSAValue]], Sequence[SSAValue]],
    ) -> Sequence[SSAValue]:
        block = Block(arg_types=[lb.type, *(a.type for a in iter_args)])
        inner = Emitter()
        yielded = body(inner, block.args[0], block.args[1:])
        inner.add_op(scf.YieldOp(*yielded))
        block.add_ops(inner.ops)
        self._adopt(inner)
        op = scf.ForOp(lb, ub, step, list(iter_args), Region(block))
        self.add_op(op)
        return op.results

    def spin_until(
        self,
        probe: Callable[[Emitter], SSAValue],
        on_timeout: Callable[[Emitter], None] | None = None,
        limit: int = 0,
        site: str = "",
    ) -> None:
        """``while (!probe()) {}``; with ``on_timeout`` the loop counts polls and runs it (a report
        and a trap) once ``limit`` polls have failed.  An unbounded loop with a ``site`` is marked
        with it (:data:`tileorch.transforms.bound_waits.SPIN_SITE`): ``bound-barrier-waits`` bounds
        it in debug-timeout builds."""
        if on_timeout is None:
            before = Block()
            inner = Emitter()
            done = probe(inner)
            not_done = inner.xor(done, inner.true())
            inner.add_op(scf.ConditionOp(not_done))
            before.add_ops(inner.ops)
            loop = self.add_op(scf.WhileOp([], [], Region(before), Region(Block([scf.YieldOp()]))))
            if site:
                loop.attributes[SPIN_SITE] = StringAttr(site)
            self._adopt(inner)
            return
        zero = self.const(0)
        before = Block(arg_types=[i32])
        inner = Emitter()
        done = probe(inner)
        not_done = inner.xor(done, inner.true())
        inner.add_op(scf.ConditionOp(not_done, before.args[0]))
        before.add_ops(inner.ops)
        after = Block(arg_types=[i32])
        body = Emitter()
        polls = body.add(after.args[0], body.const(1))
        expired = body.icmp("uge", polls, body.const(limit))
        body.if_(expired, lambda e: on_timeout(e))
        body.add_op(scf.YieldOp(polls))
        after.add_ops(body.ops)
        self.add_op(scf.WhileOp([zero], [i32], Region(before), Region(after)))
        self._adopt(inner)
        self._adopt(body)

    def _adopt(self, inner: Emitter) -> None:
        """Keep the module-level and function-entry ops a nested emitter collected."""
        self.globals.extend(inner.globals)
        self.entry_ops.extend(inner.entry_ops)
