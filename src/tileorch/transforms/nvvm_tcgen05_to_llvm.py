"""Lowering of the ``nvvm.tcgen05.*`` ops to LLVM 22's ``llvm.nvvm.tcgen05.*`` intrinsics.

Every op has an intrinsic in LLVM 22 (no inline asm): ``alloc[.shared].cg{1,2}``, ``dealloc``,
``relinq.alloc.permit``, ``fence.{before,after}.thread.sync``, ``wait.{ld,st}``,
``commit[.mc][.shared]``, ``shift.down``, ``cp.<shape>[_warpxN][.<src fmt>]``,
``ld/st.<shape>.x<num>``, ``mma.{shared,tensor}[.scale_d]`` and ``.disable_output_lane.cg{1,2}``.
The names are in :data:`tileorch.backend.intrinsics.SM100A_ONLY`; LLVM selects them only for
sm_100a-class targets (``tileorch compile --arch sm_100a``).  Registered into
:data:`tileorch.transforms.nvvm_to_llvm.LOWERINGS` (imported there).
"""

from __future__ import annotations

from xdsl.dialects.builtin import i1, i32, i64

from tileorch.diagnostics import LocatedError
from tileorch.dialects import nvvm_tcgen05 as T
from tileorch.dialects.constants import constant_int
from tileorch.dialects.nvvm_common import SHARED, address_space
from tileorch.transforms.op_table import op_table

MMA_KIND = {"f16": 0, "tf32": 1, "f8f6f4": 2, "i8": 3}
MMA_COLLECTOR = {"discard": 0, "lastuse": 1, "fill": 2, "use": 3}
CP_SHAPE = {"shape_128x256b": "128x256b", "shape_4x256b": "4x256b", "shape_128x128b": "128x128b",
            "shape_64x128b": "64x128b", "shape_32x128b": "32x128b"}


def cp_intrinsic(op: T.Tcgen05CpOp) -> str:
    shape = CP_SHAPE[op.shape.data.value]
    mc = op.multicast.data.value
    if mc != "none":
        shape += "_" + mc
    fmt = f".{op.srcFormat.data.value}" if op.srcFormat is not None else ""
    return f"llvm.nvvm.tcgen05.cp.{shape}{fmt}.cg{T.cta_group(op)}"


def ldst_intrinsic(kind: str, op) -> str:
    return f"llvm.nvvm.tcgen05.{kind}.{op.shape.data.value.removeprefix('shape_')}.x{op.num()}"


def mma_intrinsic(op: T.Tcgen05MMAOp) -> str:
    a = "tensor" if op.a_in_tmem() else "shared"
    if op.aShift is not None:
        raise LocatedError(op, "tcgen05.mma with aShift is not supported by the LLVM lowering")
    if op.scaleInputD is not None and op.disableOutputLane is not None:
        raise LocatedError(op, "tcgen05.mma with both scaleInputD and disableOutputLane is not supported by the LLVM lowering")
    if op.disableOutputLane is not None:
        return f"llvm.nvvm.tcgen05.mma.{a}.disable_output_lane.cg{T.cta_group(op, 'ctaGroup')}"
    return f"llvm.nvvm.tcgen05.mma.{a}" + (".scale_d" if op.scaleInputD is not None else "")


def _imm(op, value, what: str, e):
    c = constant_int(value)
    if c is None:
        raise LocatedError(op, f"{what} must be a constant (an immediate of the instruction)")
    return e.const(c, i64)


def _kernel_frees_tensor_memory(alloc) -> None:
    """A located error when ``alloc``'s kernel (the enclosing function marked ``nvvm.kernel``) holds no
    ``tcgen05.dealloc``, lowered or not: a CTA must free every tensor-memory column it allocates before it exits
    (PTX ISA, tcgen05.alloc).  Sweep 34: a kernel without its dealloc compiled, and ``tileorch check`` had nothing to
    check.  Only kernels: a helper function may leave the dealloc to its caller.  The path-aware rule (a dealloc on
    one branch only) is :func:`.blackwell_cluster_emitters.check_frees_on_every_path`, run while ``scf`` is
    structured."""
    fn = alloc.parent_op()
    while fn is not None and "nvvm.kernel" not in fn.attributes:
        fn = fn.parent_op()
    if fn is None:
        return
    for o in fn.walk():
        if isinstance(o, T.Tcgen05DeallocOp) or performs(o, "tcgen05.dealloc"):
            return
        if o.name == "func.call" or (o.name == "llvm.call" and not _callee(o).startswith(('"llvm.', "llvm."))):
            return  # a callee may free it (a user's function, by func.call or llvm.call): not decided here
    raise LocatedError(alloc, "tensor memory allocated here is never freed: the kernel has no tcgen05.dealloc, and "
                              "a CTA must deallocate every column it allocates before it exits (PTX ISA, "
                              "tcgen05.alloc); add nvvm.tcgen05.dealloc of the same columns before the kernel returns")


def _callee(o) -> str:
    """The callee name of an ``llvm.call`` (``""`` for another op or an indirect call)."""
    return str(getattr(o.properties.get("callee"), "root_reference", "")) if o.name == "llvm.call" else ""


def performs(o, instruction: str) -> bool:
    """Whether ``o`` performs ``instruction`` (e.g. ``tcgen05.dealloc``): an ``llvm.call`` / ``llvm.call_intrinsic``
    of its intrinsic (``llvm.nvvm.tcgen05.dealloc...``, an op lowered already) or an ``llvm.inline_asm`` whose text
    holds it (``tcgen05.dealloc.cta_group::1``, ``tcgen05.wait::ld``: ``::`` and ``.`` spell the same qualifier).
    Also the free-on-every-path rule's (``blackwell_cluster_emitters``)."""
    if o.name == "llvm.call":
        return instruction.replace("::", ".") in _callee(o)
    if o.name == "llvm.call_intrinsic":
        return instruction.replace("::", ".") in str(getattr(o.properties.get("intrin"), "data", ""))
    if o.name == "llvm.inline_asm":
        text = str(getattr(o.properties.get("asm_string"), "data", ""))
        return instruction in text or instruction.replace("::", ".") in text
    return False


def _is_load_wait(o) -> bool:
    if isinstance(o, T.Tcgen05WaitOp):
        return o.kind.data.value == "load"
    return performs(o, "tcgen05.wait::ld")


_PASSES_ON = frozenset({"func.call", "func.return", "llvm.return", "scf.yield", "cf.br", "cf.cond_br", "llvm.br",
                        "llvm.cond_br"})
"""Ops that hand the registers on (a caller or the next block may wait before reading them): not judged."""


def _waited_before_use(ld) -> None:
    """A located error at the first use of ``ld``'s registers that comes, in ``ld``'s block, before any
    ``tcgen05.wait <load>``: the registers of a tcgen05.ld are defined only after the wait (PTX ISA, tcgen05.wait).
    Sweep 34: the wait left out compiled.  Not judged (no error): a use in another block, a return / branch / yield
    handing them on, or an op with regions or a call between them (it may wait)."""
    uses = [u.operation for u in ld.res.uses]
    o = ld.next_op
    while o is not None:
        if _is_load_wait(o) or o.regions or o.name in _PASSES_ON or (
                o.name == "llvm.call" and not _callee(o).startswith('"llvm.')):
            return
        if any(u is o for u in uses):
            raise LocatedError(o, "this reads the registers of a tcgen05.ld before a tcgen05.wait <load>: they are "
                                  "defined only after the wait (PTX ISA, tcgen05.wait::ld); add nvvm.tcgen05.wait "
                                  "<load> between the load and this use")
        o = o.next_op


def lowerings() -> dict:
    """The lowering of each tcgen05 op, by op class (merged into
    :data:`tileorch.transforms.nvvm_to_llvm.LOWERINGS`)."""
    table, lowering = op_table()

    @lowering(T.Tcgen05AllocOp)
    def _alloc(op, e):
        _kernel_frees_tensor_memory(op)
        shared = ".shared" if address_space(op.addr) == SHARED else ""
        e.call(f"llvm.nvvm.tcgen05.alloc{shared}.cg{T.cta_group(op)}", [op.addr, op.nCols])

    @lowering(T.Tcgen05DeallocOp)
    def _dealloc(op, e):
        e.call(f"llvm.nvvm.tcgen05.dealloc.cg{T.cta_group(op)}", [op.taddr, op.nCols])

    @lowering(T.Tcgen05RelinquishAllocPermitOp)
    def _relinquish(op, e):
        e.call(f"llvm.nvvm.tcgen05.relinq.alloc.permit.cg{T.cta_group(op)}", [])

    @lowering(T.Tcgen05FenceOp)
    def _fence(op, e):
        e.call(f"llvm.nvvm.tcgen05.fence.{op.kind.data.value}.thread.sync", [])

    @lowering(T.Tcgen05WaitOp)
    def _wait(op, e):
        e.call("llvm.nvvm.tcgen05.wait." + ("ld" if op.kind.data.value == "load" else "st"), [])

    @lowering(T.Tcgen05CommitOp)
    def _commit(op, e):
        mc = ".mc" if op.multicastMask is not None else ""
        shared = ".shared" if address_space(op.addr) == SHARED else ""
        args = [op.addr] + ([op.multicastMask] if op.multicastMask is not None else [])
        e.call(f"llvm.nvvm.tcgen05.commit{mc}{shared}.cg{T.cta_group(op)}", args)

    @lowering(T.Tcgen05ShiftOp)
    def _shift(op, e):
        e.call(f"llvm.nvvm.tcgen05.shift.down.cg{T.cta_group(op)}", [op.taddr])

    @lowering(T.Tcgen05CpOp)
    def _cp(op, e):
        e.call(cp_intrinsic(op), [op.taddr, op.smem_desc])

    @lowering(T.Tcgen05LdOp)
    def _ld(op, e):
        _waited_before_use(op)
        offset = [_imm(op, op.offset, "the 16x32bx2 offset", e)] if op.offset is not None else []
        return e.call(ldst_intrinsic("ld", op), [op.tmemAddr, *offset, e.const(int(op.pack is not None), i1)],
                      op.res.type)

    @lowering(T.Tcgen05StOp)
    def _st(op, e):
        offset = [_imm(op, op.offset, "the 16x32bx2 offset", e)] if op.offset is not None else []
        e.call(ldst_intrinsic("st", op), [op.tmemAddr, *offset, op.val, e.const(int(op.unpack is not None), i1)])

    @lowering(T.Tcgen05MMAOp)
    def _mma(op, e):
        name = mma_intrinsic(op)
        args = [op.matrixD, op.matrixA, op.matrixB, op.idesc, op.enableInputD]
        kind = e.const(MMA_KIND[op.kind.data.value], i32)
        collector = e.const(MMA_COLLECTOR[op.collectorOp.data.value], i32)
        if op.disableOutputLane is not None:  # cta_group is in the name
            e.call(name, [*args, op.disableOutputLane, kind, collector])
            return None
        if op.scaleInputD is not None:
            args.append(_imm(op, op.scaleInputD, "scaleInputD", e))
        e.call(name, [*args, kind, e.const(T.cta_group(op, "ctaGroup"), i32), collector])
        return None

    return table
