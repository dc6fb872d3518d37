"""Helpers shared by the TileAS passes (functions, kernel spec, target, warnings, types)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from tileorch.diagnostics import format_error
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.nv_tileaa import (COMPUTE_CAPABILITY, KERNEL_SPEC, TARGET_SPEC, ComputeCapabilityAttr,
                                         KernelSpecAttr)

FUNC_OPS = ("nv_tileaa.func", "func.func", "nv_tileas.kernel", "llvm.func")


def functions(module: Operation) -> Iterator[Operation]:
    """Every function-like op with a body (nested gpu.module / builtin.module included)."""
    for op in module.walk():
        if op.name in FUNC_OPS and op.regions and op.regions[0].blocks:
            yield op


def first_refusal(module: Operation, plan: Callable[[Operation], object], refusal: type[Exception]) -> str | None:
    """Why ``plan`` leaves the first ``nv_tileaa.func`` of ``module`` it refuses as written (the text of the
    ``refusal`` it raised), or None where it refuses none: the refusal reason of a tier rewrite that plans a
    function or raises (``tileas-split-chains``, ``tileas-stack-query-heads``), for a note beside another refusal.
    Any other exception of ``plan`` propagates."""
    for fn in [o for o in module.walk() if o.name == "nv_tileaa.func"]:
        try:
            plan(fn)
        except refusal as why:
            return str(why)
    return None


def kernel_spec(func: Operation) -> KernelSpecAttr | None:
    spec = func.attributes.get(KERNEL_SPEC)
    return spec if isinstance(spec, KernelSpecAttr) else None


def num_ctas(func: Operation) -> int:
    spec = kernel_spec(func)
    return spec.num_ctas.data if spec is not None else 1


def targeted_functions(module: Operation) -> Iterator[tuple[Operation, int, int]]:
    """(function, its SM number, its worker warps) for every function of :func:`functions`: what
    the layout passes choose atoms by."""
    for func in functions(module):
        yield func, target_sm(func), num_worker_warps(func)


def num_worker_warps(func: Operation) -> int:
    spec = kernel_spec(func)
    return spec.num_worker_warps.data if spec is not None else 4


def target_sm(op: Operation, default: int = 90) -> int:
    """The SM number: ``nv_tileaa.target_spec`` (an integer) or ``nv_tileaa.compute_capability``
    on the closest enclosing module, else ``cutlass.target = "sm_XXa"``, else ``default``."""
    cur: Operation | None = op
    while cur is not None:
        spec = cur.attributes.get(TARGET_SPEC)
        if isinstance(spec, IntegerAttr):
            return spec.value.data
        cc = cur.attributes.get(COMPUTE_CAPABILITY)
        if isinstance(cc, ComputeCapabilityAttr):
            return cc.sm.data
        tgt = cur.attributes.get("cutlass.target")
        if tgt is not None and hasattr(tgt, "data") and str(tgt.data).startswith("sm_"):
            digits = "".join(ch for ch in str(tgt.data)[3:] if ch.isdigit())
            if digits:
                return int(digits)
        cur = cur.parent_op()
    return default


def warn(op: Operation, message: str) -> None:
    """A located warning on stderr (the pass goes on)."""
    print(format_error(op, message, "warning"), file=sys.stderr)


def note(op: Operation, message: str) -> None:
    """A located remark on stderr (a choice the user may want to know about; the pass goes on)."""
    print(format_error(op, message, "remark"), file=sys.stderr)


def set_type(value: SSAValue, typ: Attribute) -> None:
    """Retype a value in place (the IR is re-verified after the pass)."""
    value._type = typ  # noqa: SLF001 - xDSL has no public setter


def retype_values(root: Operation, fix) -> None:
    """Apply the type map ``fix`` to every result, block argument and dense-constant value
    type under ``root`` (``fix`` returns its argument unchanged when there is nothing to do)."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    for op in root.walk():
        for r in op.results:
            set_type(r, fix(r.type))
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    set_type(a, fix(a.type))
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr):
            new_t = fix(op.value.type)
            if new_t != op.value.type:
                op.properties["value"] = DenseIntOrFPElementsAttr(new_t, op.value.data)


def convert_users(value: SSAValue, to_type: Attribute, at, loc: Operation,
                  exclude: Operation | None = None) -> Operation:
    """Serve ``value``'s users (all but ``exclude``) in ``to_type`` through a new
    ``nv_tileas.convert_layout`` inserted at ``at`` (an ``InsertPoint``) with ``loc``'s location;
    returns the convert."""
    from xdsl.rewriter import Rewriter

    from tileorch.diagnostics import copy_location
    from tileorch.dialects.nv_tileas_tile import ConvertLayoutOp

    cvt = ConvertLayoutOp(value, to_type)
    copy_location(loc, [cvt])
    Rewriter.insert_op(cvt, at)
    for use in list(value.uses):
        if use.operation is not cvt and use.operation is not exclude:
            use.operation.operands[use.index] = cvt.result
    return cvt


def entry_block(func: Operation) -> Block:
    return func.regions[0].blocks[0]


def strip_encoding(t: Attribute) -> Attribute:
    if isinstance(t, TensorType):
        return TensorType(t.element_type, t.get_shape())
    return t


def users(value: SSAValue) -> list[Operation]:
    return [u.operation for u in list(value.uses)]


def tensor_bytes(t: TensorType) -> int:
    from tileorch.dialects.nv_tileas_tile import bit_width

    n = 1
    for s in t.get_shape():
        n *= s
    return n * bit_width(t.element_type) // 8


def enclosing_for(op: Operation) -> scf.ForOp | None:
    """The innermost ``scf.for`` around ``op``; None when it is in none."""
    p = op.parent_op()
    while p is not None and not isinstance(p, scf.ForOp):
        p = p.parent_op()
    return p


def producer_load(arg: SSAValue) -> Operation | None:
    """The producer agent's ``tiled_load`` whose pipeline stage the ``consumer_read`` block
    argument ``arg`` reads (the load the producer's ``producer_write`` yields at the same tuple
    position); None when ``arg`` is not such an argument or no load is found."""
    from xdsl.ir import BlockArgument

    if not isinstance(arg, BlockArgument):
        return None
    read = arg.owner.parent_op()
    if read is None or not read.name.endswith("consumer_read"):
        return None
    for use in read.operands[0].uses:
        w = use.operation
        if w.name.endswith("producer_write"):
            yielded = w.regions[0].blocks.first.last_op.operands
            if arg.index < len(yielded) and yielded[arg.index].owner.name.endswith("tiled_load"):
                return yielded[arg.index].owner
    return None


def source_load(v: SSAValue) -> Operation | None:
    """The ``tiled_load`` a dot operand ``v`` (already stripped of layout ops) comes from: the
    producer's load whose stage a ``consumer_read`` argument reads, or the load itself."""
    load = producer_load(v)
    if load is None and isinstance(v.owner, Operation) and v.owner.name.endswith("tiled_load"):
        load = v.owner
    return load


def grid_axis(v: SSAValue, name: str) -> int | None:
    """The axis of ``v`` when an op ``name`` (``nv_tileaa.get_program_id`` or
    ``nv_tileaa.get_num_programs``) defines it, else None."""
    op = v.owner
    if isinstance(op, Operation) and op.name == name:
        return op.axis.value.data
    return None


def constant_int(v: SSAValue) -> int | None:
    """The integer ``v`` holds when an ``arith.constant`` defines it, else None."""
    o = v.owner
    if isinstance(o, arith.ConstantOp) and isinstance(o.value, IntegerAttr):
        return o.value.value.data
    return None


def defined_inside(v: SSAValue, op: Operation) -> bool:
    """Whether ``v`` is defined in ``op``'s regions (a block argument of them or an op nested in them)."""
    owner = v.owner.parent_op() if isinstance(v, BlockArgument) else v.owner
    while owner is not None:
        if owner is op:
            return True
        owner = owner.parent_op()
    return False


def move_before(tmp: Block, anchor: Operation) -> None:
    """Move every op of ``tmp`` before ``anchor``, in order (``tmp`` is left empty)."""
    block = anchor.parent_block()
    for op in list(tmp.ops):
        op.detach()
        block.insert_op_before(op, anchor)


def k_loop_blocks(dk) -> list[Block]:
    """The bodies of the program's K loop as the agents run it (the producer's around B's load, the
    consumer's around the dot) of ``dk`` (convert_to_cutlass's ``DotKernel``): their first argument is
    the K index."""
    out = []
    for op in (dk.b_load, dk.acc.owner if isinstance(dk.acc.owner, Operation) else None):
        while op is not None and not isinstance(op, scf.ForOp):
            op = op.parent_op()
        if op is not None and op.body.block not in out:
            out.append(op.body.block)
    return out


OPERAND_PATH = ("nv_tileaa.permute", "nv_tileaa.reshape", "nv_tileaa.assume", "nv_tileaa.pragma",
                "nv_tileas.convert_layout")
"""Ops a dot operand may pass through from its tile load (one tensor operand each)."""


def operand_chain(v: SSAValue) -> list[SSAValue] | None:
    """The values from a dot operand back to the result of its ``tiled_load`` (operand first),
    through :data:`OPERAND_PATH` ops of one tensor operand; None when it does not end at a load."""
    chain = [v]
    while isinstance(v.owner, Operation) and not isinstance(v.owner, aa.TiledLoadOp):
        op = v.owner
        tensors = [x for x in op.operands if isinstance(x.type, TensorType)]
        if op.name not in OPERAND_PATH or len(tensors) != 1 or len(op.results) != 1:
            return None
        v = tensors[0]
        chain.append(v)
    return chain if isinstance(v.owner, aa.TiledLoadOp) else None


def dot_operand_load(v: SSAValue) -> Operation | None:
    """The ``tiled_load`` a dot operand comes from (through permutes, reshapes and the like)."""
    chain = operand_chain(v)
    return chain[-1].owner if chain is not None else None
