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


# ----------------------------------------------------------------------------------------------- C as a column slice

C_VIEW_KEY = "c_view"
"""The configuration record's key of C's column slice (``{"start": linear, "extent": linear}``)."""

_ARITH = {"nv_tileaa.addi": 1, "arith.addi": 1, "nv_tileaa.subi": -1, "arith.subi": -1}
_MULS = ("nv_tileaa.muli", "arith.muli")


def host_linear(kernel: Operation, v: SSAValue) -> list | None:
    """``v`` as a sum of the tile kernel's integer parameters and constants the host knows at launch
    (through assumptions, integer casts, additions, subtractions and products by constants):
    ``[["const", c], ["arg", i, coefficient], ...]`` (terms of one parameter merged, zero ones dropped),
    or None when ``v`` reads anything else (a program id, a value loaded from memory)."""
    terms: dict = {}

    def walk(x: SSAValue, coef: int) -> bool:
        while isinstance(x.owner, Operation) and x.owner.name in _CASTS:
            x = x.owner.operands[0]
        leaf = host_index(kernel, x)
        if leaf is not None:
            key = "const" if leaf[0] == "const" else leaf[1]
            terms[key] = terms.get(key, 0) + coef * (leaf[1] if leaf[0] == "const" else 1)
            return True
        op = x.owner
        if not isinstance(op, Operation):
            return False
        if op.name in _ARITH and len(op.operands) == 2:
            return walk(op.operands[0], coef) and walk(op.operands[1], coef * _ARITH[op.name])
        if op.name in _MULS and len(op.operands) == 2:
            for s, other in ((0, 1), (1, 0)):
                c = host_index(kernel, op.operands[s])
                if c is not None and c[0] == "const":
                    return walk(op.operands[other], coef * c[1])
        return False

    if not walk(v, 1):
        return None
    out = [["const", int(terms.pop("const", 0))]]
    out += [["arg", i, int(c)] for i, c in sorted(terms.items()) if c]
    return out


def describe_linear(kernel: Operation, form: list) -> str:
    """A host linear form (:func:`host_linear`) in the program's names (``col0 + 72``)."""
    entry = kernel.body.blocks.first
    parts = []
    for term in form[1:]:
        hint = entry.args[term[1]].name_hint or f"entry parameter {term[1]}"
        parts.append(hint if term[2] == 1 else f"{term[2]} * {hint}")
    if form[0][1] or not parts:
        parts.append(str(form[0][1]))
    return " + ".join(parts).replace("+ -", "- ")


def column_slice(kernel: Operation, view: SSAValue) -> tuple[dict | None, str | None]:
    """``(record, None)`` when the tiled view ``view`` (the program's C) is a column slice
    ``Out.slice(axis=1, start, stop)`` of a 2-D array argument ``Out`` with a unit last stride: a
    ``make_memref`` whose base pointer is ``Out``'s own offset by ``start`` elements and whose rows are
    ``Out``'s (its extent 0 and row stride), ``start`` and the column extent sums of scalar
    arguments and constants (:func:`host_linear`); the record is ``{"start": linear, "extent":
    linear}``, which the launcher evaluates (``launchers/operand_views.py``: the argument's pointer
    offset by ``start`` columns, ``extent`` columns, ``Out``'s row stride).  ``(None, why)`` for a view
    built otherwise (a slice along rows, a start computed from program ids): ``why`` in the program's
    terms; ``(None, None)`` when the view is not a slice at all."""
    from tileorch.dialects.nv_tileaa import MakeMemrefOp

    v = view
    for _ in range(64):
        if not isinstance(v.owner, Operation) or isinstance(v.owner, MakeMemrefOp) or not v.owner.operands:
            break
        v = v.owner.operands[0]
    mm = v.owner
    if not isinstance(mm, MakeMemrefOp):
        return None, None
    ptr = mm.ptr
    while isinstance(ptr.owner, Operation) and ptr.owner.name == "nv_tileaa.assume":
        ptr = ptr.owner.operands[0]
    if not (isinstance(ptr.owner, Operation) and ptr.owner.name == "nv_tileaa.offset"):
        return None, None
    base, amount = ptr.owner.operands[0], ptr.owner.operands[1]
    while isinstance(base.owner, Operation) and base.owner.name == "nv_tileaa.assume":
        base = base.owner.operands[0]
    entry = kernel.body.blocks.first
    if not (isinstance(base, BlockArgument) and base.owner is entry):
        return None, "its base pointer is an offset of a computed pointer, not of an array argument's own"
    p = base.index
    shape, strides = list(mm.shape), list(mm.strides)
    static = list(mm.result.type.get_strides())

    def entry_arg(x: SSAValue) -> int | None:
        while isinstance(x.owner, Operation) and x.owner.name in _CASTS:
            x = x.owner.operands[0]
        return x.index if isinstance(x, BlockArgument) and x.owner is entry else None

    if len(shape) != 2 or len(strides) != 1 or len(static) != 2 or static[-1] != 1:
        return None, "it is a slice of an array that is not 2-D with a unit last stride"
    if entry_arg(shape[0]) != p + 1 or entry_arg(strides[0]) != p + 3:
        return None, ("it is a slice along rows (axis 0) or a view of another shape: the WGMMA kernel stores C "
                      "through the argument's own rows (a column slice, axis 1, is taken)")
    start, extent = host_linear(kernel, amount), host_linear(kernel, shape[1])
    if start is None or extent is None:
        return None, ("it is a column slice whose start or width is computed from values the launcher does not "
                      "know (program ids, loaded values): the launcher addresses C's slice from scalar "
                      "arguments and constants")
    return {"start": start, "extent": extent, "arg": p}, None


def describe_column_slice(kernel: Operation, record: dict) -> str:
    """The remark naming C's column slice."""
    hint = kernel.body.blocks.first.args[record["arg"]].name_hint or "C's array"
    return (f"C's view: columns [{describe_linear(kernel, record['start'])}, + "
            f"{describe_linear(kernel, record['extent'])}) of {hint}, a column slice of a wider array: the kernel "
            "stores C's rows that array's row stride apart (c_ld), at the pointer the launcher offsets by the "
            "slice's first column at each launch (the slice checked inside the array; the other columns are not "
            "written)")
