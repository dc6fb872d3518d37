"""``convert-nvvm-to-llvm``: every ``nvvm`` op becomes ``llvm.call_intrinsic`` (LLVM 22 names).

``llvm.inline_asm`` is used only where LLVM has no intrinsic: the predicated forms
(``predicate = %p``) of ``mbarrier.init`` and ``mbarrier.arrive.expect_tx``.  The blocking
``nvvm.mbarrier.try_wait.parity`` becomes a loop around the time-limited try-wait
intrinsic, so it must run after ``convert-scf-while-to-cf`` (it splits blocks).  Generic
(``!llvm.ptr``) mbarrier addresses are cast to ``!llvm.ptr<3>`` where LLVM only has the
shared::cta form (the address must point into shared memory either way).
Every name emitted is in :data:`tileorch.backend.intrinsics.KNOWN_INTRINSICS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerType, ModuleOp, i1, i32, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from tileorch.diagnostics import copy_location
from tileorch.dialects import nvvm
from tileorch.dialects.llvm_ext import AddrSpaceCastOp
from tileorch.transforms import block_split
from tileorch.transforms.attr_cache import integer, position
from tileorch.transforms.dead_ops import GreedyApplier, is_trivially_dead
from tileorch.transforms.op_table import op_table
from tileorch.transforms.rewrite_once import rewrite_once

block_split.install()  # the try-wait loop splits blocks: in O(1) per block, not O(blocks)

PTR3 = nvvm.PTR_SHARED


class _Emitter:
    """Collects the replacement ops of one nvvm op."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> Operation:
        self.ops.append(op)
        return op

    def const(self, value: int, typ: IntegerType = i32) -> SSAValue:
        return self.add(llvm.ConstantOp(integer(value, typ), typ)).results[0]

    def call(self, name: str, args: list[SSAValue], result: Attribute | None = None) -> SSAValue | None:
        op = self.add(llvm.CallIntrinsicOp(name, args, [result] if result is not None else []))
        return op.results[0] if result is not None else None

    def shared(self, addr: SSAValue) -> SSAValue:
        """``addr`` as ``!llvm.ptr<3>`` (an addrspacecast from a generic pointer)."""
        if nvvm.address_space(addr) == nvvm.SHARED:
            return addr
        return self.add(AddrSpaceCastOp(addr, PTR3)).results[0]

    def asm(self, text: str, constraints: str, args: list[SSAValue]) -> None:
        self.add(llvm.InlineAsmOp(text, constraints, args, [], has_side_effects=True))


Lowering = Callable[[Operation, _Emitter], "SSAValue | None"]
LOWERINGS: dict[type[Operation], Lowering]
LOWERINGS, lowering = op_table()
"""The lowering of each nvvm op, by class: this module's core ops, then each family's table."""


def _space_suffix(addr: SSAValue) -> str:
    return "cluster" if nvvm.address_space(addr) == nvvm.SHARED_CLUSTER else "cta"


def _mbarrier_name(op: Operation, base: str, addr: SSAValue) -> str:
    relaxed = ".relaxed" if nvvm.is_relaxed(op) else ""
    return f"llvm.nvvm.mbarrier.{base}{relaxed}.scope.{nvvm.scope_of(op).value}.space.{_space_suffix(addr)}"


# --------------------------------------------------------------------------- ops without operands

BARE_INTRINSICS: dict[type[Operation], str] = {
    nvvm.FenceMbarrierInitOp: "llvm.nvvm.fence.mbarrier_init.release.cluster",
    nvvm.CpAsyncBulkCommitGroupOp: "llvm.nvvm.cp.async.bulk.commit.group",
    nvvm.WgmmaFenceAlignedOp: "llvm.nvvm.wgmma.fence.sync.aligned",
    nvvm.WgmmaGroupSyncAlignedOp: "llvm.nvvm.wgmma.commit_group.sync.aligned",
    nvvm.BreakpointOp: "llvm.debugtrap",
    nvvm.ExitOp: "llvm.nvvm.exit",
}
"""The nvvm ops without operands, results or properties and the intrinsic each is a call of."""


@lowering(*BARE_INTRINSICS)
def _bare(op, e):
    e.call(BARE_INTRINSICS[type(op)], [])


# --------------------------------------------------------------------------- special registers


def _lower_sreg(op: Operation, e: _Emitter) -> SSAValue | None:
    reg = op.name.removeprefix("nvvm.read.ptx.sreg.")
    return e.call(f"llvm.nvvm.read.ptx.sreg.{reg}", [], op.results[0].type)


# (no entry per register: the classes are defined on first use, nvvm.SPECIAL_REGISTERS; LowerNVVMOp
# lowers every subclass of nvvm.SpecialRegisterOp with _lower_sreg)


# --------------------------------------------------------------------------- mbarrier


_PTX_SPACE = {nvvm.GENERIC: "", nvvm.SHARED: ".shared", nvvm.SHARED_CLUSTER: ".shared::cluster"}


@lowering(nvvm.MBarrierInitOp, nvvm.MBarrierInitSharedOp)
def _init(op, e):
    space = nvvm.address_space(op.addr)
    if op.predicate is not None:
        e.asm(f"@$2 mbarrier.init{_PTX_SPACE[space]}.b64 [$0], $1;", "l,r,b", [op.addr, op.count, op.predicate])
        return None
    name = "llvm.nvvm.mbarrier.init.shared" if space == nvvm.SHARED else "llvm.nvvm.mbarrier.init"
    e.call(name, [op.addr, op.count])
    return None


@lowering(nvvm.MBarrierInvalOp)
def _inval(op, e):
    shared = nvvm.address_space(op.addr) == nvvm.SHARED
    e.call("llvm.nvvm.mbarrier.inval.shared" if shared else "llvm.nvvm.mbarrier.inval", [op.addr])


@lowering(nvvm.MBarrierArriveOp)
def _arrive(op, e):
    if nvvm.address_space(op.addr) == nvvm.GENERIC:
        return e.call("llvm.nvvm.mbarrier.arrive", [op.addr], i64)
    count = op.count if op.count is not None else e.const(1)
    local = nvvm.address_space(op.addr) == nvvm.SHARED
    return e.call(_mbarrier_name(op, "arrive", op.addr), [op.addr, count], i64 if local else None)


@lowering(nvvm.MBarrierArriveSharedOp)
def _arrive_shared(op, e):
    return e.call(_mbarrier_name(op, "arrive", op.addr), [op.addr, e.const(1)], i64)


@lowering(nvvm.MBarrierArriveExpectTxOp, nvvm.MBarrierArriveExpectTxSharedOp)
def _arrive_expect_tx(op, e):
    space = nvvm.address_space(op.addr)
    if op.predicate is not None:
        e.asm(
            f"@$2 mbarrier.arrive.expect_tx{_PTX_SPACE[space]}.b64 _, [$0], $1;",
            "l,r,b",
            [op.addr, op.txcount, op.predicate],
        )
        return None
    addr = op.addr if space == nvvm.SHARED_CLUSTER else e.shared(op.addr)
    local = space != nvvm.SHARED_CLUSTER
    return e.call(_mbarrier_name(op, "arrive.expect.tx", addr), [addr, op.txcount], i64 if local else None)


@lowering(nvvm.MBarrierExpectTxOp)
def _expect_tx(op, e):
    name = f"llvm.nvvm.mbarrier.expect.tx.scope.{nvvm.scope_of(op).value}.space.{_space_suffix(op.addr)}"
    e.call(name, [op.addr, op.txcount])


@lowering(nvvm.MBarrierTryWaitOp)
def _try_wait(op, e):
    parity = ".parity" if op.is_parity() else ""
    tl = ".tl" if op.ticks is not None else ""
    relaxed = ".relaxed" if nvvm.is_relaxed(op) else ""
    name = f"llvm.nvvm.mbarrier.try.wait{parity}{tl}{relaxed}.scope.{nvvm.scope_of(op).value}.space.cta"
    args = [e.shared(op.addr), op.stateOrPhase] + ([op.ticks] if op.ticks is not None else [])
    return e.call(name, args, i1)


@lowering(nvvm.MBarrierTestWaitOp, nvvm.MBarrierTestWaitSharedOp)
def _test_wait(op, e):
    state_or_phase = op.operands[1]  # upstream ``stateOrPhase``; the legacy .shared op calls it ``state``
    parity = ".parity" if state_or_phase.type == i32 else ""
    relaxed = ".relaxed" if nvvm.is_relaxed(op) else ""
    name = f"llvm.nvvm.mbarrier.test.wait{parity}{relaxed}.scope.{nvvm.scope_of(op).value}.space.cta"
    return e.call(name, [e.shared(op.addr), state_or_phase], i1)


@lowering(nvvm.FenceProxyOp)
def _fence_proxy(op, e):
    kind = op.kind.data.value
    if op.space is not None:
        kind = f"{kind}_{op.space.data.value}"
    e.call(f"llvm.nvvm.fence.proxy.{kind}", [])


# --------------------------------------------------------------------------- barriers and misc


def _aligned(op) -> str:
    return ".aligned" if op.aligned is not None else ""


_CLUSTER_BARRIERS = {nvvm.ClusterArriveOp: "arrive", nvvm.ClusterArriveRelaxedOp: "arrive.relaxed",
                     nvvm.ClusterWaitOp: "wait"}
"""Each cluster barrier op and its ``llvm.nvvm.barrier.cluster.<...>[.aligned]`` intrinsic."""


@lowering(*_CLUSTER_BARRIERS)
def _cluster_barrier(op, e):
    e.call(f"llvm.nvvm.barrier.cluster.{_CLUSTER_BARRIERS[type(op)]}{_aligned(op)}", [])


@lowering(nvvm.BarrierOp)
def _barrier(op, e):
    barrier_id = op.barrierId if op.barrierId is not None else e.const(0)
    aligned = ".aligned" if nvvm.is_aligned(op) else ""
    if op.numberOfThreads is not None:
        e.call(f"llvm.nvvm.barrier.cta.sync{aligned}.count", [barrier_id, op.numberOfThreads])
    else:
        e.call(f"llvm.nvvm.barrier.cta.sync{aligned}.all", [barrier_id])


@lowering(nvvm.BarrierArriveOp)
def _barrier_arrive(op, e):
    barrier_id = op.barrierId if op.barrierId is not None else e.const(0)
    aligned = ".aligned" if nvvm.is_aligned(op) else ""
    e.call(f"llvm.nvvm.barrier.cta.arrive{aligned}.count", [barrier_id, op.numberOfThreads])


@lowering(nvvm.BarWarpSyncOp)
def _bar_warp_sync(op, e):
    e.call("llvm.nvvm.bar.warp.sync", [op.mask])


@lowering(nvvm.ElectSyncOp)
def _elect_sync(op, e):
    mask = op.membermask if op.membermask is not None else e.const(-1)
    pair = e.call("llvm.nvvm.elect.sync", [mask], llvm.LLVMStructType.from_type_list([i32, i1]))
    return e.add(llvm.ExtractValueOp(position(1), pair, i1)).results[0]


@lowering(nvvm.MapaOp)
def _mapa(op, e):
    shared = nvvm.address_space(op.a) == nvvm.SHARED
    return e.call("llvm.nvvm.mapa.shared.cluster" if shared else "llvm.nvvm.mapa", [op.a, op.b], op.res.type)


@lowering(nvvm.CpAsyncBulkWaitGroupOp)
def _wait_group(op, e):
    name = "llvm.nvvm.cp.async.bulk.wait.group" + (".read" if op.read is not None else "")
    e.call(name, [e.const(op.group.value.data)])


@lowering(nvvm.CpAsyncBulkGlobalToSharedClusterOp)
def _bulk_copy(op, e):
    mask = op.multicastMask if op.multicastMask is not None else e.const(0, IntegerType(16))
    hint = op.l2CacheHint if op.l2CacheHint is not None else e.const(0, i64)
    flags = [e.const(int(op.multicastMask is not None), i1), e.const(int(op.l2CacheHint is not None), i1)]
    e.call(
        "llvm.nvvm.cp.async.bulk.global.to.shared.cluster",
        [op.dstMem, op.mbar, op.srcMem, op.size, mask, hint, *flags],
    )


@lowering(nvvm.WgmmaWaitGroupSyncOp)
def _wgmma_wait(op, e):
    e.call("llvm.nvvm.wgmma.wait_group.sync.aligned", [e.const(op.group.value.data, i64)])


@lowering(nvvm.SetMaxRegisterOp)
def _setmaxregister(op, e):
    direction = "inc" if op.action.data == nvvm.SetMaxRegisterAction.INCREASE else "dec"
    e.call(f"llvm.nvvm.setmaxnreg.{direction}.sync.aligned.u32", [e.const(op.regCount.value.data)])


@lowering(nvvm.NanosleepOp)
def _nanosleep(op, e):
    e.call("llvm.nvvm.nanosleep", [op.duration])




# --------------------------------------------------------------------------- patterns


class LowerNVVMOp(RewritePattern):
    """Replace one nvvm op by the ops its entry in :data:`LOWERINGS` emits."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        fn = LOWERINGS.get(type(op))
        if fn is None:
            if not isinstance(op, nvvm.SpecialRegisterOp):
                return
            fn = _lower_sreg
        e = _Emitter()
        result = fn(op, e)
        copy_location(op, e.ops)
        rewriter.replace(op, e.ops, [result] if op.results else [])


class LowerBlockingTryWait(RewritePattern):
    """``nvvm.mbarrier.try_wait.parity[.shared]`` -> a loop around the try-wait intrinsic.

    ``^pre: br ^wait``; ``^wait: %done = try.wait.parity.tl(...); cond_br %done, ^rest, ^wait``.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, (nvvm.MBarrierTryWaitParityOp, nvvm.MBarrierTryWaitParitySharedOp)):
            return
        block = op.parent_block()
        region = block.parent_region() if block is not None else None
        if block is None or region is None:
            return
        pre = _Emitter()
        addr = pre.shared(op.addr)
        rest = block.split_before(op)
        wait = Block()
        region.insert_block_before(wait, rest)
        loop = _Emitter()
        done = loop.call("llvm.nvvm.mbarrier.try.wait.parity.tl.scope.cta.space.cta", [addr, op.phase, op.ticks], i1)
        loop.add(llvm.CondBrOp(done, rest, (), wait, ()))
        pre.add(llvm.BrOp(wait))
        copy_location(op, pre.ops + loop.ops)
        rewriter.insert(pre.ops, InsertPoint.at_end(block))
        rewriter.insert(loop.ops, InsertPoint.at_end(wait))
        rewriter.erase(op)


FAMILIES: dict[str, str] = {
    "tileorch.dialects.nvvm_payload": "tileorch.transforms.nvvm_payload_to_llvm",  # TMA, WGMMA, stmatrix, PDL
    "tileorch.dialects.nvvm_tcgen05": "tileorch.transforms.nvvm_tcgen05_to_llvm",  # Blackwell TMEM / UMMA
}
"""Op family dialect module -> the module whose ``lowerings()`` lowers its ops."""

_MERGED: set[str] = set()


def add_family_lowerings() -> None:
    """Merge into :data:`LOWERINGS` the table of every op family whose dialect module is loaded.
    An op of a family exists only once its module is imported, so a module whose family is not
    loaded has no op of it: the SIMT path imports neither family (nor its lowering)."""
    import sys
    from importlib import import_module

    for dialect, lowering_module in FAMILIES.items():
        if dialect in sys.modules and dialect not in _MERGED:
            LOWERINGS.update(import_module(lowering_module).lowerings())
            _MERGED.add(dialect)


class _Applier(GreedyApplier):
    """The pass's greedy applier (dead ops erased, then :class:`LowerBlockingTryWait`, then
    :class:`LowerNVVMOp`), which :func:`rewrite_once` asks first whether it ``wants`` an op: only
    a dead op or one of the patterns' ops is changed, the rest (nine ops in ten) are passed over
    without the rewriter's per-op setup."""

    def wants(self, op: Operation) -> bool:
        return (type(op) in LOWERINGS or isinstance(op, _TRY_WAITS_AND_REGISTERS)
                or (self.dce_enabled and is_trivially_dead(op)))


_TRY_WAITS = (nvvm.MBarrierTryWaitParityOp, nvvm.MBarrierTryWaitParitySharedOp)
"""The ops :class:`LowerBlockingTryWait` acts on."""
_TRY_WAITS_AND_REGISTERS = (*_TRY_WAITS, nvvm.SpecialRegisterOp)
"""Those and the special registers' reads (classes defined on first use: not keys of :data:`LOWERINGS`)."""


@dataclass(frozen=True)
class ConvertNVVMToLLVM(ModulePass):
    """Lower every nvvm op to ``llvm.call_intrinsic`` (or ``llvm.inline_asm`` where LLVM has none)."""

    name = "convert-nvvm-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        add_family_lowerings()
        # what PatternRewriteWalker(..., apply_recursively=False).rewrite_module(op) does (one
        # walk, the ops a rewrite creates not visited), visiting only the ops the applier wants
        rewrite_once(_Applier([LowerBlockingTryWait(), LowerNVVMOp()]), op.body)
