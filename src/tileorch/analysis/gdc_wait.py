"""Where a kernel touches global memory, and whether a ``griddepcontrol.wait`` comes first on every path.

Programmatic dependent launch (PDL, ``TILEORCH_PDL``: :mod:`tileorch.transforms.gdc_insertion`) lets a kernel
start while the kernel before it in the stream is still running.  PTX ISA (``griddepcontrol``): ``.wait`` makes
the executing thread wait until the prerequisite grids have completed and their memory operations are performed
and visible to this grid; a thread that reads or writes global memory before it may read data the previous
kernel has not written yet, or write data it still reads.  The property this module checks, on the kernel IR
after the cutlass pipelines are lowered (``scf`` / ``arith`` / ``llvm`` / ``nvvm`` ops: every global access is an
explicit op there), is:

    on every path from the kernel's entry to a global-memory access, and to the kernel's return, the thread
    has executed ``nvvm.griddepcontrol wait``.

A must-analysis over the structured control flow: after an ``scf.if`` a thread has waited when it waited in
both branches (an absent ``else`` waits nothing); a loop's body starts in the state before the loop (its first
iteration) and the loop leaves that state unchanged (it may run no iteration); an op with other regions is
treated as a loop.  The return counts as an access: a CTA whose threads all skip the wait could finish before
the previous kernel (its dependents would then wait on this grid's completion only).

What counts as a global access (:func:`global_access`), conservatively:

* ``llvm.load`` / ``llvm.store`` / ``llvm.atomicrmw`` / ``llvm.cmpxchg`` and any other op with an operand
  pointer in the generic, global or constant address space (0, 1, 4), except pure address arithmetic and a
  tensor-map prefetch of a kernel parameter (a ``byval`` map lives in parameter space, written at launch);
* the TMA ops (``nvvm.cp.async.bulk.tensor.*``: their descriptor is a generic pointer) and any op whose name
  holds ``global``;
* ``llvm.inline_asm`` whose instructions include a load, store, atomic, reduction, prefetch or copy outside
  the shared, local and parameter spaces (``ld.global``, generic ``ld``, ``atom``, ``red``, ``cp.async``,
  ``multimem``...);
* calls (``func.call``, ``llvm.call``): what the callee does is not looked at.

``tileorch-opt -p verify-gdc-wait`` reports the first violation (:class:`tileorch.transforms.gdc_insertion.VerifyGdcWait`).
This module reads IR only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from xdsl.ir import Block, Operation

from tileorch.analysis.kernel_params import is_byval_kernel_param
from tileorch.dialects.nvvm_common import address_space

WAIT_OP = "nvvm.griddepcontrol"

GLOBAL_SPACES = frozenset({0, 1, 4})
"""Address spaces whose accesses may reach global memory: generic (0), global (1), constant (4)."""

ADDRESS_ONLY = frozenset({
    "llvm.getelementptr", "llvm.addrspacecast", "llvm.ptrtoint", "llvm.inttoptr", "llvm.bitcast", "llvm.select",
    "arith.select", "llvm.insertvalue", "llvm.extractvalue", "llvm.icmp", "llvm.mlir.undef", "llvm.mlir.poison",
    "llvm.mlir.zero", "llvm.mlir.addressof", "builtin.unrealized_conversion_cast",
    "scf.yield", "scf.condition", "func.return", "llvm.return", "cf.br", "cf.cond_br",
})
"""Ops that compute or pass on an address without touching memory."""

CALLS = frozenset({"func.call", "llvm.call"})

_MEMORY_MNEMONICS = re.compile(r"^(ld|ldu|st|atom|red|prefetch|prefetchu|cp|multimem|cvta|tensormap|discard|"
                               r"applypriority|suld|sust|sured|tld4|tex)\b")
"""PTX instructions that may access memory (``cvta`` computes an address only, but it is how inline asm turns a
generic pointer into a global one: counted, conservatively)."""

_NOT_GLOBAL = re.compile(r"\.(shared|local|param)\b")


def _asm_access(text: str) -> str | None:
    """The first instruction of inline-asm ``text`` that may access global memory, or None."""
    for raw in re.split(r"[;\n]", text.replace("\\0A", "\n")):
        ins = raw.strip().lstrip("{}").strip()
        if not ins or ins.startswith((".reg", "//")):
            continue
        if ins.startswith("@"):  # a guard predicate
            ins = ins.split(None, 1)[1] if " " in ins else ""
        mnemonic = ins.split(None, 1)[0] if ins else ""
        if not _MEMORY_MNEMONICS.match(mnemonic):
            continue
        if mnemonic.startswith(("ld.", "st.", "atom.", "red.", "prefetch.", "cvta.")) and _NOT_GLOBAL.search(mnemonic):
            continue
        if mnemonic.startswith("cp.async.bulk.shared::cluster.shared::cta"):  # shared to shared (DSMEM)
            continue
        return mnemonic
    return None


def global_access(op: Operation) -> str | None:
    """What makes ``op`` itself (not the ops nested in it) a global-memory access, or None."""
    name = op.name
    if name == WAIT_OP or name in ADDRESS_ONLY or op.regions:
        return None
    if name in CALLS:
        return "a call (its callee may access global memory)"
    if name == "llvm.inline_asm":
        found = _asm_access(op.properties["asm_string"].data)
        return f"inline asm '{found}'" if found is not None else None
    if name.startswith("nvvm.cp.async.bulk.tensor") or "global" in name:
        return f"'{name}'"
    if name == "nvvm.prefetch" and all(is_byval_kernel_param(v) for v in op.operands):
        return None  # a tensor map in parameter space
    for v in op.operands:
        space = address_space(v)
        if space is not None and space in GLOBAL_SPACES:
            return f"'{name}' through a pointer in address space {space}"
    return None


def contains_access(op: Operation) -> bool:
    """Whether ``op`` or an op nested in it accesses global memory."""
    return any(global_access(o) is not None for o in op.walk())


def is_wait(op: Operation) -> bool:
    return op.name == WAIT_OP and op.properties["kind"].data.value == "wait"


def is_launch_dependents(op: Operation) -> bool:
    return op.name == WAIT_OP and op.properties["kind"].data.value == "launch_dependents"


def kernels(module: Operation) -> Iterator[Operation]:
    """The kernels of ``module`` (``func.func`` / ``llvm.func`` with ``nvvm.kernel``)."""
    for op in module.walk():
        if op.name in ("func.func", "llvm.func") and "nvvm.kernel" in op.attributes:
            yield op


def unwaited(kernel: Operation) -> list[tuple[Operation, str]]:
    """The accesses of ``kernel`` (and its returns, ``(op, "the kernel's return")``) that some path reaches
    without a ``griddepcontrol.wait`` (the module docstring's must-analysis), in program order."""
    out: list[tuple[Operation, str]] = []
    if kernel.regions and kernel.regions[0].blocks:
        if len(kernel.regions[0].blocks) > 1:
            out.append((kernel, "a kernel of several blocks (unstructured control flow is not analysed)"))
            return out
        _block(kernel.regions[0].blocks.first, False, out, top=True)
    return out


def _block(block: Block, waited: bool, out: list, top: bool = False) -> bool:
    """Walk ``block`` from the state ``waited``; the state at its end."""
    for op in block.ops:
        if waited:
            return True
        if is_wait(op):
            waited = True
            continue
        if op.name in ("func.return", "llvm.return") and top:
            out.append((op, "the kernel's return"))
            continue
        why = global_access(op)
        if why is not None:
            out.append((op, why))
            continue
        if not op.regions:
            continue
        if op.name == "scf.if":
            ends = [_region(r, waited, out) for r in op.regions]
            if len(ends) == 1 or not op.regions[1].blocks:
                ends.append(waited)
            waited = all(ends)
        else:  # a loop (or another region op): the body from this state; may run no iteration
            for r in op.regions:
                _region(r, waited, out)
    return waited


def _region(region, waited: bool, out: list) -> bool:
    if not region.blocks:
        return waited
    if len(region.blocks) > 1:
        out.append((region.parent_op(), "a region of several blocks (unstructured control flow is not analysed)"))
        return waited
    return _block(region.blocks.first, waited, out)
