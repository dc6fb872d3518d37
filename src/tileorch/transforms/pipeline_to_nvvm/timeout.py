"""``debug-timeout=N``: what a barrier wait does after N unsuccessful polls.

The wait prints one line through CUDA's ``vprintf`` (declared as an external ``llvm.func``;
ptxas resolves it like nvcc's ``printf``) naming the barrier it waits on (the pipeline or
sequence barrier with its source position, full/empty side, stage and phase) and the
CTA/thread, then executes ``trap;``::

    tileorch: timeout after 1000 polls waiting on pipeline f.mlir:7:10 empty barrier: stage 2 phase 1 (block 0, thread 0)

The ``vprintf`` argument buffer is an ``llvm.alloca`` in the function's entry block (a static
per-thread slot), the format string an ``addr_space 1`` constant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i8, i32
from xdsl.ir import Operation, SSAValue

from tileorch.diagnostics import location_str
from tileorch.dialects.cutlass.pipeline_facts import PipelineInfo, module_of
from tileorch.dialects.llvm_ext import AddrSpaceCastOp
from tileorch.transforms.pipeline_to_nvvm.emit import GLOBAL_PTR, Emitter

VPRINTF = "vprintf"
GENERIC_PTR = llvm.LLVMPointerType()


@dataclass(frozen=True)
class WaitSite:
    """What a timed-out wait reports: ``text`` (static: which barrier, where it was declared)
    and the runtime i32 ``fields`` printed after it, e.g. ``(("stage", %i), ("phase", %p))``."""

    anchor: Operation
    text: str
    fields: Sequence[tuple[str, SSAValue]] = ()


def fresh_symbol(e: Emitter, anchor: Operation, prefix: str) -> str:
    """A module-level symbol name starting with ``prefix`` not used yet (here or in ``e``)."""
    module = module_of(anchor)
    assert isinstance(module, ModuleOp)
    taken = {
        o.properties["sym_name"].data
        for o in [*module.body.block.ops, *e.globals]
        if isinstance(o.properties.get("sym_name"), StringAttr)
    }
    n = 0
    while f"{prefix}{n}" in taken:
        n += 1
    return f"{prefix}{n}"


def declare_vprintf(e: Emitter, anchor: Operation) -> None:
    module = module_of(anchor)
    assert isinstance(module, ModuleOp)
    for o in [*module.body.block.ops, *e.globals]:
        name = o.properties.get("sym_name")
        if isinstance(name, StringAttr) and name.data == VPRINTF:
            return
    fn_type = llvm.LLVMFunctionType([GENERIC_PTR, GENERIC_PTR], i32)
    e.globals.append(llvm.FuncOp(VPRINTF, fn_type, linkage=llvm.LinkageAttr("external")))


def format_string(site: WaitSite, polls: int) -> str:
    fields = ", ".join(f"{name} %d" for name, _ in site.fields)
    text = site.text.replace("%", "%%")
    fields = f": {fields}" if fields else ""
    return f"tileorch: timeout after {polls} polls waiting on {text}{fields} (block %d, thread %d)\n"


def report_and_trap(e: Emitter, site: WaitSite, polls: int) -> None:
    """Emit (into the timeout branch ``e``) the vprintf of ``site`` and the trap."""
    declare_vprintf(e, site.anchor)
    text = format_string(site, polls) + "\0"
    name = fresh_symbol(e, site.anchor, "__tileorch_timeout_msg_")
    e.globals.append(
        llvm.GlobalOp(llvm.LLVMArrayType(len(text.encode()), i8), name, "internal",
                      addr_space=1, constant=True, value=StringAttr(text))
    )
    values = [v for _, v in site.fields] + [e.sreg("ctaid.x"), e.thread_id(site.anchor)]
    record = llvm.LLVMStructType.from_type_list([i32] * len(values))
    size = llvm.ConstantOp(IntegerAttr(1, i32), i32)
    buffer = llvm.AllocaOp(size, record, alignment=8)
    e.entry_ops.extend([size, buffer])
    for i, value in enumerate(values):
        slot = e.emit(llvm.GEPOp.from_mixed_indices(buffer.results[0], [0, i], record, result_type=GENERIC_PTR))
        e.add_op(llvm.StoreOp(value, slot, alignment=4))
    fmt = e.emit(llvm.AddressOfOp(name, GLOBAL_PTR))
    fmt = e.emit(AddrSpaceCastOp(fmt, GENERIC_PTR))
    e.add_op(llvm.CallOp(VPRINTF, fmt, buffer.results[0], return_type=i32))
    emit_trap(e)


def emit_trap(e: Emitter) -> None:
    e.add_op(llvm.InlineAsmOp("trap;", "", [], has_side_effects=True))


def pipeline_site(info: PipelineInfo, side: str, stage: SSAValue, phase: SSAValue) -> WaitSite:
    """A wait on the ``side`` ("full" / "empty") barrier of one stage of a pipeline."""
    return WaitSite(info.init, f"pipeline {location_str(info.init)} {side} barrier", (("stage", stage), ("phase", phase)))
