"""``bound-barrier-waits{debug-timeout=N}``: bound every wait loop the lowerings left unbounded.

``convert-pipeline-to-nvvm{debug-timeout=N}`` bounds the waits it emits itself (pipeline, seq_bar,
tail, async and semaphore waits, with their stage and phase).  Other emitters wait too: the
chained-dots (attention) kernel of the TileAS tier emits blocking
``nvvm.mbarrier.try_wait.parity`` ops directly, the Stream-K fix-up spins on its lock, the SIMT
path's ``print`` spins on a global lock.  This pass, run after the cutlass lowering and before
``convert-scf-while-to-cf`` when a debug timeout is asked for (``tileorch compile --debug-timeout``,
``tileorch.compile(debug_timeout=...)``), bounds all of them the same way:

* a blocking ``nvvm.mbarrier.try_wait.parity[.shared]`` becomes a counted ``scf.while`` around the
  non-blocking ``nvvm.mbarrier.try_wait`` (same address, parity and suspend hint);
* an ``scf.while`` without loop-carried values marked with the attribute :data:`SPIN_SITE` (a
  spin loop an emitter left unbounded: the fix-up lock, the print lock) gets a poll counter.

After N unsuccessful polls the thread prints one line through ``vprintf`` and executes ``trap;``
(:func:`tileorch.transforms.pipeline_to_nvvm.timeout.report_and_trap`), e.g.::

    tileorch: timeout after 1000 polls waiting on chained-dots kernel @attn: K/V full barrier k.py:12:5: stage 1, phase 0 (block 3, thread 128)

What the line names: the wait op's :data:`WAIT_SITE` attribute (the emitter's name for the
barrier) else ``mbarrier wait``, the op's source position, the stage where the emitter marked the
barrier as one of a ring (:data:`WAIT_RING`: the address is ``gep(base, off)`` with
``off = stage * 8 + ring_base``), else the barrier's shared address; and the phase parity.

``N = 0`` leaves the module unchanged.  :func:`unbounded_waits` lists what is still unbounded
(the driver checks it is empty after this pass; tests use it on whole kernels).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tileorch.diagnostics import LocatedError, location_str
from tileorch.dialects import nvvm

WAIT_SITE = "tileorch.wait_site"
"""Optional string attribute of a blocking mbarrier wait: what the timeout report calls the barrier."""

WAIT_RING = "tileorch.wait_ring"
"""Optional integer attribute of a blocking mbarrier wait whose address is ``gep(base, off)`` with
``off = stage * 8 + WAIT_RING``: the report then prints the stage."""

SPIN_SITE = "tileorch.spin_site"
"""String attribute of an ``scf.while`` spin loop (no loop-carried values) that an emitter left
unbounded: what the timeout report calls it."""

BLOCKING_WAITS = (nvvm.MBarrierTryWaitParityOp, nvvm.MBarrierTryWaitParitySharedOp)
TRAP = "trap;"

MAX_DEBUG_TIMEOUT = 2**32 - 1


def _has_trap(op: Operation) -> bool:
    return any(isinstance(o, llvm.InlineAsmOp) and o.asm_string.data == TRAP for o in op.walk())


def unbounded_waits(module: Operation) -> list[Operation]:
    """The waits in ``module`` that can spin forever: blocking mbarrier waits, and ``scf.while``
    loops that poll an mbarrier (``nvvm.mbarrier.try_wait``) or are marked :data:`SPIN_SITE`
    with no ``trap;`` in their body (a bounded loop traps there)."""
    found = []
    for op in module.walk():
        if isinstance(op, BLOCKING_WAITS):
            found.append(op)
        elif isinstance(op, scf.WhileOp):
            polls = SPIN_SITE in op.attributes or any(
                isinstance(o, nvvm.MBarrierTryWaitOp) for o in op.before_region.walk())
            if polls and not _has_trap(op):
                found.append(op)
    return found


def _stage_or_address(e, op: Operation, addr: SSAValue) -> tuple[str, SSAValue]:
    """("stage", stage) when ``op`` is marked :data:`WAIT_RING` and its address has the ring's
    form, else ("shared address", the address's low 32 bits)."""
    ring = op.attributes.get(WAIT_RING)
    gep = addr.owner if isinstance(addr, SSAValue) else None
    if isinstance(ring, IntegerAttr) and isinstance(gep, llvm.GEPOp) and len(gep.ssa_indices) == 1:
        off = gep.ssa_indices[0]
        if off.type == i32:
            return "stage", e.udiv(e.sub(off, e.const(ring.value.data)), e.const(8))
    return "shared address", e.emit(llvm.PtrToIntOp(addr, i32))


def _site(op: Operation, what: str, fields) -> object:
    from tileorch.transforms.pipeline_to_nvvm.timeout import WaitSite

    return WaitSite(op, f"{what} {location_str(op)}", fields)


def _splice(op: Operation, e, module: ModuleOp) -> None:
    """Insert ``e``'s ops before ``op``, its entry ops at the function's entry, its globals into
    ``module``."""
    from tileorch.transforms.pipeline_to_nvvm.base import function_entry

    block = op.parent_block()
    assert block is not None
    block.insert_ops_before(e.ops, op)
    if e.entry_ops:
        entry = function_entry(op)
        first = entry.first_op
        if first is None:
            entry.add_ops(e.entry_ops)
        else:
            entry.insert_ops_before(e.entry_ops, first)
    if e.globals:  # module-level declarations first, as convert-pipeline-to-nvvm places them
        top = module.body.block
        if top.first_op is None:
            top.add_ops(e.globals)
        else:
            top.insert_ops_before(e.globals, top.first_op)


def bound_blocking_wait(op: Operation, limit: int, module: ModuleOp) -> None:
    """Replace the blocking wait ``op`` by a loop of non-blocking tries that traps after ``limit``."""
    from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
    from tileorch.transforms.pipeline_to_nvvm.timeout import report_and_trap

    addr, phase, ticks = op.operands
    e = Emitter()
    what = op.attributes[WAIT_SITE].data if isinstance(op.attributes.get(WAIT_SITE), StringAttr) else "mbarrier wait"
    where = _stage_or_address(e, op, addr)
    site = _site(op, what, (where, ("phase", phase)))
    e.spin_until(lambda inner: inner.emit(nvvm.MBarrierTryWaitOp(addr, phase, ticks)),
                 on_timeout=lambda inner: report_and_trap(inner, site, limit), limit=limit)
    _splice(op, e, module)
    op.detach()
    op.erase()


def bound_spin_loop(loop: scf.WhileOp, limit: int, module: ModuleOp) -> None:
    """Give the marked spin loop ``loop`` (no loop-carried values) a poll counter that traps."""
    from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
    from tileorch.transforms.pipeline_to_nvvm.timeout import report_and_trap

    if loop.arguments or loop.results or list(loop.after_region.block.ops)[:-1]:
        raise LocatedError(loop, "bound-barrier-waits: a marked spin loop must carry no values and have an empty body")
    before = loop.before_region.block
    condition = before.last_op
    assert isinstance(condition, scf.ConditionOp)
    text = loop.attributes[SPIN_SITE]
    site = _site(loop, text.data if isinstance(text, StringAttr) else "spin loop", ())

    def probe(inner) -> SSAValue:
        for o in list(before.ops)[:-1]:
            o.detach()
            inner.add_op(o)
        again = condition.condition
        return inner.xor(again, inner.true())

    e = Emitter()
    e.spin_until(probe, on_timeout=lambda inner: report_and_trap(inner, site, limit), limit=limit)
    _splice(loop, e, module)
    loop.detach()
    loop.erase()


@dataclass(frozen=True)
class BoundBarrierWaits(ModulePass):
    """Bound every blocking mbarrier wait and every marked spin loop (module docstring);
    ``debug-timeout=0`` (the default) does nothing."""

    name = "bound-barrier-waits"
    debug_timeout: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.debug_timeout <= MAX_DEBUG_TIMEOUT:
            raise ValueError(f"bound-barrier-waits: debug-timeout must be in [0, {MAX_DEBUG_TIMEOUT}] (0 = off; "
                             f"the polls are counted in 32 bits), got {self.debug_timeout}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.debug_timeout:
            return
        targets = [o for o in op.walk() if isinstance(o, BLOCKING_WAITS)
                   or (isinstance(o, scf.WhileOp) and SPIN_SITE in o.attributes)]
        for target in targets:
            if isinstance(target, scf.WhileOp):
                bound_spin_loop(target, self.debug_timeout, op)
            else:
                bound_blocking_wait(target, self.debug_timeout, op)
