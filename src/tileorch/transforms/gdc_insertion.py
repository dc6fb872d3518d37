"""Programmatic dependent launch (PDL) for the generated kernels: ``nvvm-auto-gdc-insertion`` and ``verify-gdc-wait``.

With PDL (``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION``) a kernel may be launched, its CTAs started
and its prologue run while the kernel before it in the stream is still running; it must then execute
``griddepcontrol.wait`` before it touches global memory (PTX ISA, ``griddepcontrol``: the executing thread waits
until the prerequisite grids have completed and their memory operations are visible).  NVIDIA's tileiras inserts
these ops in ``tileaa-auto-gdc-insertion`` (option ``insert-launch-dependents``); this is the same job done where
every global access is an explicit op: after the cutlass pipelines are lowered, before the std lowering (the
pipeline runs it when ``TILEORCH_PDL=1``, :func:`tileorch.backend.pipeline.lowering_pipeline`).

``nvvm-auto-gdc-insertion{insert-launch-dependents=true}`` on every kernel (``nvvm.kernel``) of the module:

* ``nvvm.griddepcontrol launch_dependents`` first in the kernel (``insert-launch-dependents``): the next
  kernel may be scheduled once every CTA of this grid has issued it or exited (PTX ISA: repeated invocations by
  the CTA's threads have no further effect), i.e. once all of this grid's CTAs are resident; its own wait still
  waits for this grid's completion and memory flush, so this is safe at the entry (CUDA programming guide,
  "Programmatic Dependent Launch and Synchronization": the trigger only lets the secondary kernel launch early);
* ``nvvm.griddepcontrol wait`` as late as the structure allows: before the first op of a block that (itself or
  nested) accesses global memory (:func:`tileorch.analysis.gdc_wait.global_access`); where that op is an
  ``scf.if``, in each of its branches instead (so a warp-specialized kernel's producer waits right before its
  first TMA load, after ``setmaxnreg`` and its coordinate math, and its consumers before their loop); a branch
  with no access (an absent ``else``: one is made) waits before its end, and a kernel with none before its return (every path executes one wait:
  :mod:`tileorch.analysis.gdc_wait` explains why the return counts).  Loops are not entered (a wait per
  iteration would cost each iteration).

Then the kernel is checked (``verify-gdc-wait``'s analysis): a global access that some path reaches without the
wait is a compiler bug, reported at the access.  The kernels' names go to the module attribute
:data:`PDL_KERNELS` (the compile result's ``pdl``: the launchers add the launch attribute for those kernels only;
a kernel without the wait must never be launched with it), each with a located remark (:data:`PDL_REMARKS`).

``verify-gdc-wait`` checks the property alone: on every kernel holding an ``nvvm.griddepcontrol wait`` (one that
claims PDL), the first access some path reaches without the wait is a located error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator

from tileorch.analysis.gdc_wait import contains_access, is_wait, kernels, unwaited
from tileorch.diagnostics import LocatedError, format_error
from tileorch.dialects.nvvm_payload import GridDepAction, GriddepcontrolOp

PDL_KERNELS = "tileorch.pdl_kernels"
"""Module attribute: the names of the kernels compiled for programmatic dependent launch."""

PDL_REMARKS = "tileorch.pdl_remarks"
"""Module attribute: one located remark per kernel compiled for PDL."""

PDL_ENV = "TILEORCH_PDL"


def _name(kernel: Operation) -> str:
    return kernel.properties["sym_name"].data if "sym_name" in kernel.properties else kernel.attributes["sym_name"].data


def _wait() -> Operation:
    return GriddepcontrolOp(GridDepAction.WAIT)


def _place(block: Block, placed: list[Operation]) -> None:
    """Insert the wait in ``block`` before its first op that accesses global memory (in the branches of an
    ``scf.if``), else before its terminator."""
    for op in block.ops:
        if is_wait(op):
            return
        if not contains_access(op):
            continue
        if isinstance(op, scf.IfOp):  # a branch: wait in each, as late as there
            if not op.regions[1].blocks:  # no else: the threads that skip the branch wait in one made for them
                op.regions[1].add_block(Block([scf.YieldOp()]))
            for region in op.regions:
                _place(region.blocks.first, placed)
            return
        w = _wait()
        block.insert_op_before(w, op)
        placed.append(w)
        return
    last = block.last_op
    w = _wait()
    if last is not None and last.has_trait(IsTerminator):
        block.insert_op_before(w, last)
    else:
        block.add_op(w)
    placed.append(w)


def _check(kernel: Operation) -> None:
    bad = unwaited(kernel)
    if bad:
        op, why = bad[0]
        raise LocatedError(op, f"{why} reached before griddepcontrol.wait on some path of kernel '{_name(kernel)}' "
                               "(programmatic dependent launch: the previous kernel's writes may not be visible yet)")


@dataclass(frozen=True)
class NvvmAutoGdcInsertion(ModulePass):
    """``griddepcontrol.wait`` before every kernel's first global access on each path, ``launch_dependents``
    at its entry (the module docstring)."""

    name = "nvvm-auto-gdc-insertion"

    insert_launch_dependents: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        names, remarks = [], []
        for kernel in list(kernels(op)):
            body = kernel.regions[0].blocks.first if kernel.regions and kernel.regions[0].blocks else None
            if body is None:
                continue
            if len(kernel.regions[0].blocks) > 1 or any(len(r.blocks) > 1 for o in kernel.walk() for r in o.regions
                                                          if o is not kernel):
                remarks.append(format_error(kernel, f"kernel '{_name(kernel)}' not compiled for programmatic dependent "
                                                    f"launch ({PDL_ENV}=1): its control flow is in blocks (this pass "
                                                    "places the wait in structured control flow); launched without "
                                                    "it", severity="remark"))
                continue
            placed: list[Operation] = []
            if not any(is_wait(o) for o in kernel.walk()):
                _place(body, placed)
            if self.insert_launch_dependents and not any(o.name == "nvvm.griddepcontrol" and not is_wait(o)
                                                         for o in body.ops):
                first = body.first_op
                trigger = GriddepcontrolOp(GridDepAction.LAUNCH_DEPENDENTS)
                if first is None:
                    body.add_op(trigger)
                else:
                    body.insert_op_before(trigger, first)
            _check(kernel)
            names.append(_name(kernel))
            where = len(placed)
            remarks.append(format_error(kernel, f"kernel '{_name(kernel)}' compiled for programmatic dependent launch "
                                                f"({PDL_ENV}=1): griddepcontrol.wait at {where} place(s), before every "
                                                "global-memory access on each path"
                                                + (", griddepcontrol.launch_dependents at its entry"
                                                   if self.insert_launch_dependents else "")
                                                + "; tileorch.cutile.launch launches it with programmatic stream serialization",
                                        severity="remark"))
        if remarks:
            op.attributes[PDL_KERNELS] = ArrayAttr([StringAttr(n) for n in names])
            op.attributes[PDL_REMARKS] = ArrayAttr([StringAttr(r) for r in remarks])


@dataclass(frozen=True)
class VerifyGdcWait(ModulePass):
    """A located error at the first global access that a kernel holding ``griddepcontrol.wait`` reaches
    without it on some path (:func:`tileorch.analysis.gdc_wait.unwaited`)."""

    name = "verify-gdc-wait"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            if any(is_wait(o) for o in kernel.walk()):
                _check(kernel)
