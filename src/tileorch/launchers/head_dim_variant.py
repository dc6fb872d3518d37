"""A chained (attention) program launched on arrays narrower than its tiles: the program compiled for the launch's
head dims.

cuTile passes array extents at launch time, so a program whose ``D`` tile is 128 wide (head dim 80 or 96 in a
power-of-two tile, zero-padded) is compiled not knowing its arrays' head dims, and its kernel runs the tile's 128
columns in both dots (correct for any extent up to 128).  Its record names the Q / K / V / O arrays
(``record["head_dim_arrays"]``: ``tileas/head_dim_width.py`` found that the dots could run the arrays' width).  When
this launch's arrays are narrower than the tiles (rounded up as the tier rounds them: ``head_dim_rule.padded_width``), :func:`choice` compiles the
program again with those arrays' last extents as compile-time constants (as ``ct.ArrayAnnotation(static_shape_dims=...)``
on the last dimension would: the signature's ``shape_constant``, its own compile key and cache entries), whose dots
run the head dims, and launches that one; a launch remark says so.  Each head dim is one more compile (on its first
launch); ``TILEORCH_ATTN_HEAD_DIM_WIDTH=0`` keeps the tile's width and the one compile.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from tileorch.head_dim_rule import padded_width


def specialised_arguments(record: dict, arguments: list, flat: list) -> tuple[list, list] | None:
    """``(arguments, arrays)``: ``arguments`` with the head-dim arrays' last extents made compile-time constants,
    and those arrays, when ``record`` names such arrays and this launch's are narrower than the tiles; else None.
    ``flat``: the entry's parameters as ``(argument position, role)`` (``cutile.flat_parameters(arguments)``)."""
    named = record.get("head_dim_arrays") if record else None
    if not named:
        return None
    params = [p for p in named.get("params", ()) if 0 <= p < len(flat) and flat[p][1] == "ptr"]
    positions = {flat[p][0] for p in params}
    arrays = [a for a in arguments if getattr(a, "position", None) in positions]
    if not arrays or len(arrays) != len(positions) or any(a.column_major or not a.ndim for a in arrays):
        return None
    widest = max(padded_width(a.shape[-1]) for a in arrays)
    if widest >= max(named.get("tile", (0,))):
        return None
    out = []
    for a in arguments:
        if getattr(a, "position", None) in positions:
            static = tuple(a.static_shape) if a.static_shape else (None,) * a.ndim
            a = dataclasses.replace(a, static_shape=static[:-1] + (a.shape[-1],))
        out.append(a)
    return out, arrays


def choice(entry: Any, arguments: list, flat: list, compile_for: Callable[[list], Any]) -> tuple[Any, str, list]:
    """The chained entry to launch, its launch remark ("") and the arguments it was compiled for: ``entry``, or the
    program compiled by ``compile_for(arguments)`` for this launch's head dims (:func:`specialised_arguments`; the
    same entry parameters ``flat``, other compile keys)."""
    from tileorch import settings

    if settings.value("TILEORCH_ATTN_HEAD_DIM_WIDTH") == "0":
        return entry, "", arguments
    found = specialised_arguments(getattr(entry.program, "chained", None) or {}, arguments, flat)
    if found is None:
        return entry, "", arguments
    args, arrays = found
    narrow = compile_for(args)
    if getattr(narrow.program, "kind", None) != "chained":  # (refused for these extents: the generic kernel)
        return entry, "", arguments
    widths = (narrow.program.chained or {}).get("head_dim_width")
    dims = ", ".join(f"{a.name} {a.shape[-1]}" for a in arrays)
    remark = (f"remark: compiled for this launch's head dims ({dims}; the program's tiles are "
              f"{'/'.join(str(x) for x in entry.program.chained['head_dim_arrays']['tile'])} wide): "
              + (f"the dots run {widths[0]} / {widths[1]} columns" if widths else "the dots run the tiles' width")
              + " (TILEORCH_ATTN_HEAD_DIM_WIDTH=0: the program as compiled)")
    return narrow, remark, args


__all__ = ["choice", "specialised_arguments"]
