"""Host-computable views of a GEMM operand: a matrix of an argument picked at leading indices the
host knows at launch.

A dot operand loaded as ``(1, rows, cols)`` tiles of a 3-D (or higher) array at leading indices
that are scalar kernel arguments or constants (``ct.load(W, index=(e, k, bn), shape=(1, tk, tn))``
with ``e`` an ``int`` argument: an MoE expert's weight ``W[e]``) is, for the whole launch, one
2-D matrix of that argument: its memory at element offset ``sum(index_i * stride_i)`` with the
argument's own last two extents and strides.  The WGMMA kernel then reads a plain 2-D operand
through a tensor map the launcher builds on that offset base pointer
(:func:`tileorch.launchers.operand_views.apply_view`, bounds checked at each launch).

The configuration records, per operand role, how to derive the view from the arguments:
``{"a" | "b": [["arg", entry parameter index] | ["const", value], ...]}`` (the leading indices in
order).  Indices computed in the kernel or read from device memory (a group read from an offsets
table) are not host-computable: those operands keep the batched lowering's rules and refusals.

Only a GEMM whose C is 2-D takes these views (a C batched at program id 2 evaluates its operands'
batch indices per work tile instead: ``_batch_expressions``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import BlockArgument, Operation, SSAValue

from tileorch.dialects.constants import constant_int

VIEWS_KEY = "views"
"""The configuration record's key of the operands' views (``{"a" | "b": leading indices}``)."""

_CASTS = ("nv_tileaa.assume", "arith.index_cast", "arith.extsi", "arith.extui", "arith.trunci")


def host_index(kernel: Operation, v: SSAValue) -> list | None:
    """``["arg", i]`` when the index ``v`` is the tile kernel's integer parameter ``i`` (through
    assumptions and integer casts), ``["const", c]`` when it is a constant; None for any other value
    (computed in the kernel, or read from memory)."""
    while isinstance(v.owner, Operation) and v.owner.name in _CASTS:
        v = v.owner.operands[0]
    c = constant_int(v)
    if c is not None:
        return ["const", int(c)]
    entry = kernel.body.blocks.first
    if isinstance(v, BlockArgument) and v.owner is entry and isinstance(v.type, IntegerType):
        return ["arg", v.index]
    return None


def host_view(kernel: Operation, load: Operation) -> list | None:
    """The leading indices of the operand tile load ``load`` (a tile of extent 1 in each leading
    dimension) as :func:`host_index` gives them, or None when one is not host-computable or the
    load has no leading dimension."""
    indices = list(load.indices)
    shape = list(load.result.type.get_shape())
    if len(indices) < 3 or any(d != 1 for d in shape[:-2]):
        return None
    lead = [host_index(kernel, x) for x in indices[:-2]]
    return None if any(x is None for x in lead) else lead


def _picked_by(lead: list) -> str:
    scalars = sum(1 for x in lead if x[0] == "arg")
    consts = len(lead) - scalars
    parts = ([f"{scalars} scalar argument{'s' if scalars > 1 else ''}"] if scalars else []) + \
        ([f"{consts} constant{'s' if consts > 1 else ''}"] if consts else [])
    return " and ".join(parts)


def describe_view(kernel: Operation, role: str, lead: list) -> str:
    """The remark naming the view the kernel reads for ``role`` (``"A"`` or ``"B"``)."""
    def name(x: list) -> str:
        if x[0] == "const":
            return str(x[1])
        hint = kernel.body.blocks.first.args[x[1]].name_hint
        return f"{hint} (entry parameter {x[1]})" if hint else f"the scalar at entry parameter {x[1]}"

    index = ", ".join(name(x) for x in lead)
    return (f"{role}'s view: one matrix [{index}, :, :] of a {len(lead) + 2}-D argument picked by "
            f"{_picked_by(lead)}: the kernel reads a 2-D "
            f"{role} through a tensor map the launcher builds at each launch on the argument's pointer offset by "
            "that matrix (the argument's own strides; the indices checked in range)")
