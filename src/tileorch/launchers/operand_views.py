"""The launcher's side of host-computable operand views
(:mod:`tileorch.transforms.tileas.operand_views`): a GEMM program whose A or B is one matrix of an
argument, picked at leading indices that are the launch's scalar arguments or constants
(``X @ W[e]``), is launched on that matrix as a 2-D array.

:func:`apply_views` turns the argument the configuration names into the matrix the kernel reads:
the argument's pointer offset by ``sum(index_i * stride_i)`` elements, its last two extents and
strides.  Each index is checked against its dimension (an index outside the array is an
:class:`IndexError` naming the argument, the scalar and its value: the program would read
memory outside the array); the rest of the GEMM host side (shape agreement, row- or column-major
layout, alignment of the tensor map's base) sees a plain 2-D operand.

No GPU, no torch: it reads argument descriptions only.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def _where(x: Any) -> str:
    return f"argument {x.position} ({x.name!r})"


def leading_values(lead: list, arguments: list, flat: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``(value, what)`` of each recorded leading index: a constant, or the scalar argument at the
    recorded entry parameter (``flat``: the cuTile entry's flat parameters as
    :func:`tileorch.launchers.cutile.flat_parameters` gives them, ``(argument position, role)``)."""
    by_pos = {a.position: a for a in arguments}
    out = []
    for kind, v in lead:
        if kind == "const":
            out.append((int(v), f"the constant {int(v)}"))
            continue
        if kind != "arg" or not 0 <= v < len(flat):
            raise RuntimeError(f"an operand view names entry parameter {v!r} of {len(flat)} ({flat})")
        x = by_pos[flat[v][0]]
        value = getattr(x, "value", None)
        if not isinstance(value, int) or isinstance(value, bool):
            raise RuntimeError(f"an operand view's index is entry parameter {v}, {_where(x)}, which is not an "
                               "integer scalar argument")
        out.append((value, f"{_where(x)} = {value}"))
    return out


def operand_view(x: Any, role: str, lead: list, arguments: list, flat: list[tuple[int, str]]) -> Any:
    """The matrix of the array argument ``x`` (an ``ArrayArg``, as the kernel reads it) that the
    program reads as operand ``role`` at the leading indices ``lead`` (the record's): same dtype,
    pointer offset by the indices times ``x``'s strides (in bytes: times the item size), the last
    two extents and strides."""
    values = leading_values(lead, arguments, flat)
    if x.ndim != len(values) + 2:
        raise ValueError(f"{_where(x)}: the program reads {role} as one matrix of a {len(values) + 2}-D array at "
                         f"leading indices ({', '.join(w for _, w in values)}); got shape {x.shape}")
    offset = 0
    for dim, ((value, what), extent, stride) in enumerate(zip(values, x.shape, x.strides)):
        if not 0 <= value < extent:
            raise IndexError(f"{_where(x)}: the program reads {role} as its matrix at index {value} of dimension "
                             f"{dim} ({what}), outside the array's {extent} (shape {x.shape})")
        offset += value * stride
    return dataclasses.replace(x, shape=tuple(x.shape[-2:]), strides=tuple(x.strides[-2:]),
                               ptr=x.ptr + offset * x.itemsize)


def apply_views(views: dict | None, operands: dict, arguments: list, flat: list[tuple[int, str]]) -> dict:
    """``operands`` (``{"a": ArrayArg, "b": ArrayArg, ...}``) with each operand the configuration's
    ``views`` name replaced by its matrix (:func:`operand_view`); the others as they are.  Views of
    roles ``operands`` does not hold are an internal error, except the later Bs of dots sharing A
    (``b1``, ``b2``...: :func:`tileorch.launchers.cutile.more_b_operands` applies those)."""
    if not views:
        return operands
    out = dict(operands)
    for role, lead in views.items():
        if role not in out and role[:1] == "b" and role[1:].isdigit():
            continue
        if role not in out:
            raise RuntimeError(f"an operand view for {role!r}, which is not one of the GEMM's {sorted(out)}")
        out[role] = operand_view(out[role], role.upper(), lead, arguments, flat)
    return out


def _entry_value(v: int, arguments: list, flat: list[tuple[int, str]]) -> tuple[int, str]:
    """``(value, what)`` of entry parameter ``v``: a scalar argument, or an array argument's extent or
    stride (``shape<i>`` / ``stride<i>`` of the array as the caller passed it)."""
    if 0 <= v < len(flat) and flat[v][1][:5] in ("shape", "strid"):
        pos, role = flat[v]
        x = next(a for a in arguments if a.position == pos)
        i = int(role[5:] if role.startswith("shape") else role[6:])
        value = (x.shape if role.startswith("shape") else x.strides)[i]
        return int(value), f"{_where(x)}.{'shape' if role.startswith('shape') else 'strides'}[{i}] = {value}"
    (out,) = leading_values([["arg", v]], arguments, flat)
    return out


def linear_value(form: list, arguments: list, flat: list[tuple[int, str]]) -> tuple[int, str]:
    """``(value, what)`` of a host linear form (``[["const", c], ["arg", entry parameter, coefficient],
    ...]``: :func:`tileorch.transforms.tileas.operand_views.host_linear`) at this launch's scalars and
    array extents (``arguments``: as the caller passed them, which the kernel's parameters are)."""
    total, whats = 0, []
    for term in form:
        if term[0] == "const":
            total += int(term[1])
            if term[1] or len(form) == 1:
                whats.append(str(int(term[1])))
            continue
        value, what = _entry_value(term[1], arguments, flat)
        total += int(term[2]) * value
        whats.append(what if term[2] == 1 else f"{term[2]} * ({what})")
    return total, " + ".join(whats)


def column_slice_view(x: Any, record: dict, arguments: list, flat: list[tuple[int, str]],
                      given: list | None = None) -> Any:
    """The column slice ``x[:, start:start + extent]`` of the 2-D array argument ``x`` (C, as the kernel
    stores it) that the program stores into (``record``: the configuration's ``c_view``): same dtype and
    row stride, ``extent`` columns, the pointer offset by ``start`` columns.  A slice outside ``x`` (a
    negative start or width, or past its last column) is an :class:`IndexError` naming the argument and
    the scalars (the program would write memory outside the array); ``given``: the arguments as the
    caller passed them (a column-major array's extents as the kernel's parameters carry them), when
    ``arguments`` are as the kernel reads them."""
    start, start_what = linear_value(record["start"], given or arguments, flat)
    extent, extent_what = linear_value(record["extent"], given or arguments, flat)
    if x.ndim != 2:
        raise ValueError(f"{_where(x)}: the program stores C into a column slice of a 2-D array; got shape {x.shape}")
    if start < 0 or extent < 0 or start + extent > x.shape[1]:
        raise IndexError(f"{_where(x)}: the program stores C into columns {start} .. {start + extent - 1} (start "
                         f"{start_what}, width {extent_what}), outside the array's {x.shape[1]} columns "
                         f"(shape {x.shape})")
    return dataclasses.replace(x, shape=(x.shape[0], extent), ptr=x.ptr + start * x.strides[1] * x.itemsize)
