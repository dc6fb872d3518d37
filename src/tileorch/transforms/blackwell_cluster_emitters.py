"""``convert-blackwell-cluster-emitters``: seed 003's Blackwell cluster emitters (BG06, S01, S02).

Rewrites the ``cute_nvgpu`` atoms (:mod:`tileorch.dialects.cute_nvgpu`) into ``nvvm`` /
``arith`` / ``scf`` / ``llvm`` ops (the standard pipeline takes them to PTX):

**S2T copy, 4 CTAs (BG06)** -- ``atom.s2t_copy {cta_group = 4}``: multicast width ``mcw = 4``;
``%rank = nvvm.read.ptx.sreg.cluster.ctarank``; the rank-parity predicate
``arith.andi (arith.remsi %rank, %mcw), 1`` compared with 0 and made warp-uniform
(``cute_nvgpu.arch.make_warp_uniform`` -> ``shfl.sync.idx`` from lane 0); the destination TMEM
tile is sliced into four quarter-slices keyed off ``%rank`` (column offset
``(%rank % 4) * cols / 4``); inside ``scf.if`` only the odd-low-bit CTAs issue (one lane elected
with ``nvvm.elect.sync``: the atom is executed by one whole, converged warp per CTA, since the
shuffle of ``make_warp_uniform`` needs every lane)
``nvvm.tcgen05.cp`` -- with ``cta_group::2``, because the hardware has no ``cta_group::4``: each
issuing CTA fills its own and its even peer's TMEM, so the four CTAs are served by two copies.
With an mbarrier, ``nvvm.tcgen05.commit`` (cta_group::2, multicast to the CTA pair) follows the copy.

**S2T copy, 2 CTAs (S02)** -- ``atom.s2t_copy {cta_group = 2}``: multicast width 2 and the
direct-build predicate instead of the ``remsi``/``andi`` parity chain: the pair's leader (even
rank, ``(%rank & 1) == 0``, see :func:`_leader_predicate`) issues ``nvvm.tcgen05.cp`` with
``cta_group::2``, whose encoding covers the peer CTA's half of the TMEM tile.  With an mbarrier
the copy is committed to it (``tcgen05.commit`` cta_group::2, multicast to both CTAs of the pair).
An mbarrier that is not a ``!llvm.ptr<3>`` is reported as ``Failed to init mbarrier``.

**1 CTA** -- ``atom.s2t_copy {cta_group = 1}``: the plain ``tcgen05.cp`` (+ commit).

**mbarrier init (S02 helper)** -- ``arch.mbarrier_init {cta_group, count}``: thread 0 runs
``nvvm.mbarrier.init``; cta_group 2: ``nvvm.fence.mbarrier.init`` + cluster arrive.relaxed/wait
(the peer CTA signals this barrier); cta_group 1: ``nvvm.barrier``.  Fails with
``Failed to init mbarrier`` when the address is not shared::cta or the count is out of range.

**DSMEM handshake (S01)** -- ``cluster_handshake``: with more than one CTA in the cluster,
``nvvm.mapa`` (the peer's copy of ``flag``) -> ``llvm.addrspacecast`` to generic -> optional
``llvm.inline_asm "fence.release.cluster;"`` (``relaxed``) -> ``nvvm.mbarrier.expect_tx`` (thread 0)
-> ``arith.cmpi`` (not the peer itself, thread 0) -> ``scf.if { llvm.load; arith.xori; llvm.store }``
(toggle the peer's phase word) -> ``nvvm.cluster.arrive``
(``.relaxed`` when the release fence was emitted) -> ``nvvm.cluster.wait``.  Single-CTA bypass:
a bare ``nvvm.cluster.arrive{.relaxed}`` + ``nvvm.cluster.wait``.

Afterwards every function is checked not to mix ``cta_group::1`` and ``cta_group::2`` tcgen05
ops, which ptxas rejects (:func:`check_single_cta_group`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, i1, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.dialects import nvvm
from tileorch.dialects.kernel_attrs import CLUSTER_DIM, CLUSTER_SHAPE, int_array
from tileorch.dialects.llvm_ext import AddrSpaceCastOp
from tileorch.lazy_import import lazy_module
from tileorch.transforms.op_collector import OpCollector

C = lazy_module("tileorch.dialects.cute_nvgpu")
T = lazy_module("tileorch.dialects.nvvm_tcgen05")
"""The Blackwell dialects (cute_nvgpu, nvvm.tcgen05: 19 op classes), imported by the first module
that holds one of their ops (:data:`BLACKWELL_OPS`): the pass runs on every cutlass-level
compile, and on a module without them (every sm_90a kernel) it neither imports nor walks more."""

BLACKWELL_OPS = ("cute_nvgpu.", "nvvm.tcgen05.")
"""Name prefixes of the ops this pass lowers (``cute_nvgpu``) or checks (``nvvm.tcgen05``)."""

I16 = IntegerType(16)
FENCE_RELEASE_CLUSTER = "fence.release.cluster;"
FAILED_INIT = "Failed to init mbarrier"


def _ptr(space: int) -> llvm.LLVMPointerType:
    from xdsl.dialects.builtin import IntAttr

    return llvm.LLVMPointerType(IntAttr(space)) if space else llvm.LLVMPointerType()


class _B(OpCollector):
    """Collects the ops that replace one atom."""

    def rank(self) -> SSAValue:
        return self.add(nvvm.SPECIAL_REGISTERS["cluster.ctarank"]())

    def if_(self, cond: SSAValue, body: list[Operation]) -> None:
        self.add(scf.IfOp(cond, [], [*body, scf.YieldOp()]))


def _leader_predicate(b: _B, rank: SSAValue) -> SSAValue:
    """S02's direct-build predicate: the even (leader) CTA of the pair, ``(%rank & 1) == 0``,
    without the ``remsi`` of the 4-CTA chain."""
    low = b.add(arith.AndIOp(rank, b.c(1)))
    return b.add(arith.CmpiOp(low, b.c(0), "eq"))


def _warp_uniform(b: _B, pred: SSAValue) -> SSAValue:
    return b.add(C.MakeWarpUniformOp(pred))


def _tmem_offset(b: _B, base: SSAValue, cols: SSAValue) -> SSAValue:
    addr = b.add(llvm.PtrToIntOp(base, i32))
    moved = b.add(arith.AddiOp(addr, cols))
    return b.add(llvm.IntToPtrOp.create(operands=[moved], result_types=[_ptr(6)]))


def _check_mbar(op: Operation, mbar: SSAValue) -> None:
    if nvvm.address_space(mbar) != nvvm.SHARED:
        raise LocatedError(op, f"{FAILED_INIT} (the mbarrier must be a shared::cta !llvm.ptr<3>, got {mbar.type})")


def _pair_mask(b: _B, rank: SSAValue) -> SSAValue:
    """``0b11 << (%rank & ~1)``: both CTAs of this CTA's pair."""
    even = b.add(arith.AndIOp(rank, b.c(-2)))
    mask = b.add(arith.ShLIOp(b.c(3), even))
    return b.add(arith.TruncIOp(mask, I16))


def lower_s2t_copy(op: C.S2tCopyOp) -> list[Operation]:
    b = _B()
    n = op.group()
    shape = op.shape.data.value
    multicast = op.multicast.data.value if op.multicast is not None else "none"
    if op.mbar is not None:
        _check_mbar(op, op.mbar)
    if n == 1:
        body = [T.Tcgen05CpOp(op.tmem, op.smem_desc, shape, 1, multicast)]
        if op.mbar is not None:
            body.append(T.Tcgen05CommitOp(op.mbar, None, 1))
        _elected(b, body)
        return b.ops
    rank = b.rank()
    if n == 4:  # BG06
        mcw = b.c(4)
        rem = b.add(arith.RemSIOp(rank, mcw))
        odd = b.add(arith.AndIOp(rem, b.c(1)))
        pred = b.add(arith.CmpiOp(odd, b.c(0), "ne"))
        quarter = b.add(arith.MuliOp(rem, b.c(op.cols.value.data // 4)))
        dst = _tmem_offset(b, op.tmem, quarter)
    else:  # S02
        pred = _leader_predicate(b, rank)
        dst = op.tmem
    pred = _warp_uniform(b, pred)
    issue = _B()
    issue.add(T.Tcgen05CpOp(dst, op.smem_desc, shape, 2, multicast))
    if op.mbar is not None:
        mask = _pair_mask(issue, rank)
        issue.add(T.Tcgen05CommitOp(op.mbar, mask, 2))
    inner = _B()
    _elected(inner, issue.ops)
    b.if_(pred, inner.ops)
    return b.ops


def _elected(b: _B, body: list[Operation]) -> None:
    """``scf.if (nvvm.elect.sync) { body }``: one lane of the (converged) warp issues the copy."""
    leader = b.add(nvvm.ElectSyncOp())
    b.if_(leader, body)


def lower_mbarrier_init(op: C.MbarrierInitOp) -> list[Operation]:
    _check_mbar(op, op.mbar)
    count = op.count.value.data
    if not 1 <= count <= C.MBARRIER_MAX_COUNT:
        raise LocatedError(op, f"{FAILED_INIT} (arrival count must be in [1, {C.MBARRIER_MAX_COUNT}], got {count})")
    b = _B()
    tid = b.add(nvvm.SPECIAL_REGISTERS["tid.x"]())
    first = b.add(arith.CmpiOp(tid, b.c(0), "eq"))
    inner = _B()
    inner.add(nvvm.MBarrierInitOp(op.mbar, inner.c(count)))
    b.if_(first, inner.ops)
    if op.cta_group.value.data == 2:
        b.add(nvvm.FenceMbarrierInitOp())
        b.add(nvvm.ClusterArriveRelaxedOp(aligned=True))
        b.add(nvvm.ClusterWaitOp(aligned=True))
    else:
        b.add(nvvm.BarrierOp())
    return b.ops


def cluster_size(op: Operation) -> int:
    """CTAs per cluster of the kernel containing ``op``: ``num_ctas`` on the op, else the function's
    ``nvvm.cluster_dim``, else the module's ``cutlass.cluster_shape``, else 1."""
    explicit = op.properties.get("num_ctas")
    if isinstance(explicit, IntegerAttr):
        return explicit.value.data
    parent = op.parent_op()
    while parent is not None:
        for key in (CLUSTER_DIM, CLUSTER_SHAPE):
            attr = parent.attributes.get(key)
            if attr is not None:
                size = 1
                for v in int_array(attr, key):
                    size *= v
                return size
        parent = parent.parent_op()
    return 1


def lower_handshake(op: C.ClusterHandshakeOp) -> list[Operation]:
    b = _B()
    relaxed = op.relaxed is not None
    arrive = nvvm.ClusterArriveRelaxedOp if relaxed else nvvm.ClusterArriveOp
    if cluster_size(op) == 1:  # single-CTA bypass
        b.add(arrive(aligned=True))
        b.add(nvvm.ClusterWaitOp(aligned=True))
        return b.ops
    remote = b.add(nvvm.MapaOp(op.flag, op.peer, _ptr(7)))
    generic = b.add(AddrSpaceCastOp(remote, _ptr(0)))
    if relaxed:
        b.add(llvm.InlineAsmOp(FENCE_RELEASE_CLUSTER, "", [], [], has_side_effects=True))
    tid = b.add(nvvm.SPECIAL_REGISTERS["tid.x"]())
    first = b.add(arith.CmpiOp(tid, b.c(0), "eq"))
    b.if_(first, [nvvm.MBarrierExpectTxOp(op.mbar, op.tx)])  # one thread posts the transaction bytes
    rank = b.rank()
    other = b.add(arith.CmpiOp(rank, op.peer, "ne"))
    go = b.add(arith.AndIOp(other, first))
    inner = _B()
    phase = inner.add(llvm.LoadOp(generic, i32))
    flipped = inner.add(arith.XOrIOp(phase, inner.c(1)))
    inner.add(llvm.StoreOp(flipped, generic))
    b.if_(go, inner.ops)
    b.add(arrive(aligned=True))
    b.add(nvvm.ClusterWaitOp(aligned=True))
    return b.ops


def lower_make_warp_uniform(op: C.MakeWarpUniformOp) -> list[Operation]:
    b = _B()
    value = op.value
    if value.type == i1:
        value = b.add(arith.ExtUIOp(value, i32))
    shuffled = b.add(llvm.CallIntrinsicOp("llvm.nvvm.shfl.sync.idx.i32", [b.c(-1), value, b.c(0), b.c(31)], [i32]))
    if op.value.type == i1:
        b.add(arith.CmpiOp(shuffled, b.c(0), "ne"))
    return b.ops


def _lowerings() -> dict:
    """cute_nvgpu atom class -> the function that lowers it."""
    return {C.S2tCopyOp: lower_s2t_copy, C.MbarrierInitOp: lower_mbarrier_init, C.ClusterHandshakeOp: lower_handshake}


def _replace(op: Operation, new_ops: list[Operation]) -> None:
    copy_location(op, [o for new in new_ops for o in new.walk()])
    block = op.parent_block()
    block.insert_ops_before(new_ops, op)
    if op.results:
        op.results[0].replace_all_uses_with(new_ops[-1].results[0])
    block.erase_op(op)


def _grouped() -> dict:
    """tcgen05 op class -> the name of its CTA-group property."""
    return {T.Tcgen05AllocOp: "group", T.Tcgen05DeallocOp: "group", T.Tcgen05RelinquishAllocPermitOp: "group",
            T.Tcgen05CommitOp: "group", T.Tcgen05ShiftOp: "group", T.Tcgen05CpOp: "group", T.Tcgen05MMAOp: "ctaGroup"}


def check_single_cta_group(module: ModuleOp) -> None:
    """ptxas rejects a function whose tcgen05 ops mix ``cta_group::1`` and ``cta_group::2``
    ("uses single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2)"): report it at the
    first op that disagrees with the function's first one."""
    grouped = _grouped()
    for fn in module.walk():
        if fn.name not in ("func.func", "llvm.func"):
            continue
        first: tuple[Operation, int] | None = None
        for inner in fn.walk():
            key = grouped.get(type(inner))
            if key is None:
                continue
            group = T.cta_group(inner, key)
            if first is None:
                first = (inner, group)
            elif group != first[1]:
                raise LocatedError(
                    inner,
                    f"{inner.name} uses cta_group::{group} but this function's earlier {first[0].name} uses "
                    f"cta_group::{first[1]}; ptxas rejects a function that mixes single-CTA and CTA-pair tcgen05 ops")


# ------------------------------------------------------------------ the mbarriers a tcgen05.commit arrives on


def _barrier_key(value: SSAValue):
    """One mbarrier: the global ``llvm.mlir.addressof`` names, else the SSA value itself."""
    owner = value.owner
    if isinstance(owner, llvm.AddressOfOp):
        return ("global", owner.global_name.root_reference.data)
    return ("value", value)


def _constant_mask(commit: Operation) -> int | None:
    mask = commit.multicastMask
    owner = mask.owner if mask is not None else None
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data & 0xFFFF
    return None


def _unconditional(op: Operation) -> bool:
    """``op`` runs in every thread of its kernel that reaches the end: no ``scf.if`` encloses it."""
    parent = op.parent_op()
    while parent is not None and parent.name not in ("func.func", "llvm.func"):
        if isinstance(parent, scf.IfOp):
            return False
        parent = parent.parent_op()
    return True


def check_commit_barriers(module: ModuleOp) -> None:
    """Located errors for the mbarriers a 2-CTA ``tcgen05.commit`` arrives on (sweep 34: these compiled).

    * An mbarrier that a ``tcgen05.commit`` with ``cta_group::2`` or a 2/4-CTA ``atom.s2t_copy`` signals must be
      initialised with ``arch.mbarrier_init {cta_group = 2}``: the pair leader's arrival lands on the peer CTA's
      barrier, so its init must be fenced to the cluster (``fence.mbarrier_init.release.cluster``) and the cluster
      synchronised before the leader commits; ``cta_group = 1`` only synchronises the CTA.  The error is at the init.
    * A multicast ``tcgen05.commit`` with a constant mask arrives on the barrier of the CTAs its bits name (PTX ISA,
      tcgen05.commit ``.multicast::cluster``).  A bit at or above the cluster's CTA count names no CTA; and where
      every CTA of the cluster waits on the barrier (an ``nvvm.mbarrier.try_wait.parity`` under no ``scf.if``) and
      the only arrivals are such commits, a CTA none of the masks names waits forever.  The error is at the commit.
      A mask computed at run time (``0b11 << (rank & ~1)``), or a barrier any other op uses (an arrive, an address
      computed from it, inline asm), is not decided here."""
    inits: dict = {}
    signals: dict = {}  # barrier -> [(op, cta_group, mask or None, multicast)]
    waits: dict = {}
    other: set = set()
    for op in module.walk():
        if isinstance(op, C.MbarrierInitOp):
            inits.setdefault(_barrier_key(op.mbar), op)
        elif isinstance(op, T.Tcgen05CommitOp):
            signals.setdefault(_barrier_key(op.addr), []).append(
                (op, T.cta_group(op), _constant_mask(op), op.multicastMask is not None))
        elif isinstance(op, C.S2tCopyOp) and op.mbar is not None:
            signals.setdefault(_barrier_key(op.mbar), []).append((op, min(op.group(), 2), None, True))
        elif op.name in ("nvvm.mbarrier.try_wait.parity", "nvvm.mbarrier.try_wait.parity.shared"):
            waits.setdefault(_barrier_key(op.operands[0]), []).append(op)
        else:  # any other use (an arrive, a GEP into a barrier array, inline asm...): its arrivals are not known
            for v in op.operands:
                other.add(_barrier_key(v))
    from tileorch.diagnostics import location_str

    for key, ops in signals.items():
        init = inits.get(key)
        pair = next((o for o, group, _, _ in ops if group == 2), None)
        if init is not None and pair is not None and init.cta_group.value.data == 1:
            raise LocatedError(init, f"this mbarrier is initialised for one CTA (cta_group = 1: the init is "
                                     f"synchronised inside the CTA only), but the {pair.name} at "
                                     f"{location_str(pair)} is a CTA-pair (cta_group::2) operation that arrives on "
                                     "it from the pair leader: the peer CTA's arrival may land before the barrier is "
                                     "initialised and visible to the cluster; initialise it with cta_group = 2")
    for key, ops in signals.items():
        commits = [(o, mask) for o, _, mask, multicast in ops if isinstance(o, T.Tcgen05CommitOp) and multicast]
        for o, mask in commits:
            ctas = cluster_size(o)
            if mask is not None and mask >> ctas:
                raise LocatedError(o, f"tcgen05.commit multicast mask {mask:#06b} names CTA "
                                      f"{mask.bit_length() - 1}, but the cluster has {ctas} CTAs")
        if key in other or len(commits) != len(ops) or any(mask is None for _, mask in commits):
            continue
        everyone = [w for w in waits.get(key, []) if _unconditional(w)]
        if not everyone or not commits:
            continue
        ctas = cluster_size(commits[0][0])
        covered = 0
        for _, mask in commits:
            covered |= mask
        missing = [r for r in range(ctas) if not covered >> r & 1]
        if missing:
            o, mask = commits[0]
            raise LocatedError(o, f"tcgen05.commit multicast mask {mask:#06b} arrives on this mbarrier in CTA(s) "
                                  f"{', '.join(str(r) for r, b in enumerate(reversed(bin(covered)[2:])) if b == '1')} "
                                  f"only, but every CTA of the {ctas}-CTA cluster waits on it "
                                  f"({everyone[0].name} at {location_str(everyone[0])}): CTA "
                                  f"{', '.join(map(str, missing))} would wait forever; a 2-CTA commit's mask covers "
                                  "both CTAs of the pair (0b11 << (rank & ~1))")


# ------------------------------------------------------------------ tensor memory freed on every path


def _is_dealloc(o) -> bool:
    """A ``tcgen05.dealloc``: the op, or inline asm / an intrinsic call performing it."""
    from tileorch.transforms.nvvm_tcgen05_to_llvm import performs

    return isinstance(o, T.Tcgen05DeallocOp) or performs(o, "tcgen05.dealloc")


def _same_value(a, b, depth: int = 4) -> bool:
    """``a`` and ``b`` are one value, or the results of two equal side-effect-free ops (same name, properties,
    attributes and operands: two ``arith.cmpi eq, %warp, %c0``)."""
    if a is b:
        return True
    x, y = getattr(a, "owner", None), getattr(b, "owner", None)
    if depth == 0 or not (x is not None and y is not None and hasattr(x, "regions") and hasattr(y, "regions")):
        return False
    if x.name != y.name or x.regions or not (x.name.startswith("arith.") or x.name.startswith("nvvm.read.ptx.sreg")):
        return False
    if x.properties != y.properties or x.attributes != y.attributes or len(x.operands) != len(y.operands):
        return False
    if a.index != b.index:
        return False
    return all(_same_value(p, q, depth - 1) for p, q in zip(x.operands, y.operands))


def _guards(op, fn) -> list:
    """(condition, branch index) of every ``scf.if`` enclosing ``op`` inside ``fn``."""
    out = []
    child, parent = op, op.parent_op()
    while parent is not None and parent is not fn:
        if parent.name == "scf.if":
            region = child.parent_region()
            out.append((parent.operands[0], list(parent.regions).index(region)))
        child, parent = parent, parent.parent_op()
    return out


def _frees(block, guards) -> bool:
    """Every run of ``block`` that the ``guards`` (conditions known to hold) allow reaches a dealloc: one in the
    block, an ``scf.if`` whose taken branch frees (both, or the one a guard decides), or a dealloc inside another op
    with regions (a loop: not judged, counted as freeing)."""
    for o in block.ops:
        if _is_dealloc(o):
            return True
        if o.name == "scf.if":
            branches = [r for r in o.regions]
            decided = next((i for c, i in guards if _same_value(c, o.operands[0])), None)
            if decided is not None:
                region = branches[decided]
                if region.blocks and _frees(region.blocks[0], guards):
                    return True
                continue
            if len(branches) == 2 and all(r.blocks and _frees(r.blocks[0], guards) for r in branches):
                return True
            continue
        if o.regions and any(_is_dealloc(inner) for inner in o.walk()):
            return True
    return False


def check_frees_on_every_path(module: ModuleOp) -> None:
    """A located error at a ``tcgen05.alloc`` of a kernel whose deallocs are not reached on every path on which the
    alloc ran (sweep 34: a dealloc on one branch of an ``scf.if`` compiled).  Judged where the kernel is structured
    (one block, ``scf`` control flow, no call): a dealloc under an ``scf.if`` counts where the alloc sits under the same
    condition (the same value, or an equal ``arith`` / special-register computation) taken the same way, or where both
    branches free; a dealloc inside a loop counts.  A kernel without any dealloc is ``convert-nvvm-to-llvm``'s error
    (``nvvm_tcgen05_to_llvm``)."""
    from tileorch.diagnostics import location_str

    for fn in module.walk():
        if fn.name not in ("func.func", "llvm.func") or "nvvm.kernel" not in fn.attributes:
            continue
        allocs, deallocs = [], []
        for o in fn.walk():
            if isinstance(o, T.Tcgen05AllocOp):
                allocs.append(o)
            elif _is_dealloc(o):
                deallocs.append(o)
            elif o.name in ("func.call", "llvm.call") or o.name.startswith("cf."):
                allocs = []
                break
        body = fn.regions[0] if fn.regions else None
        if not allocs or not deallocs or body is None or len(body.blocks) != 1:
            continue
        for alloc in allocs:
            if not _frees(body.blocks[0], _guards(alloc, fn)):
                raise LocatedError(alloc, "tensor memory allocated here is not freed on every path on which it "
                                          f"is allocated: the tcgen05.dealloc at {location_str(deallocs[0])} (and "
                                          "any other) sits on a branch such a path may not take, so a CTA that "
                                          "allocates and takes the other branch exits with its columns allocated "
                                          "(PTX ISA, tcgen05.alloc); free them on every path (both branches, or "
                                          "under the allocation's own condition)")


@dataclass(frozen=True)
class ConvertBlackwellClusterEmitters(ModulePass):
    """Lower the ``cute_nvgpu`` copy / handshake atoms (seed 003 BG06, S01, S02)."""

    name = "convert-blackwell-cluster-emitters"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not any(o.name.startswith(BLACKWELL_OPS) for o in op.walk()):
            return  # nothing to lower or check (the walks below would find no atom, no tcgen05 op)
        check_commit_barriers(op)  # before the inits are lowered
        check_frees_on_every_path(op)
        lower = _lowerings()
        atoms = [o for o in op.walk() if type(o) in lower]
        for atom in atoms:
            _replace(atom, lower[type(atom)](atom))
        # the warp-uniform ops, including those the copies just created
        for uniform in [o for o in op.walk() if isinstance(o, C.MakeWarpUniformOp)]:
            _replace(uniform, lower_make_warp_uniform(uniform))
        check_single_cta_group(op)
