"""The chained (attention) kernel's dots at the array's head dim where the program's tile is wider.

cuTile tile extents are powers of two, so attention at head dim 80 / 96 / 48 is written with a 128- / 128- / 64-wide
``D`` tile loaded with zero padding.  The kernel computed the whole tile: both dots' WGMMAs and the Q / K / V TMA
boxes covered ``D`` columns (d80: 60 % more dot work and operand traffic than the head dim).

Where the compiler knows the arrays' head dims (a compile-time extent: ``ct.ArrayAnnotation(static_shape_dims=...)``
on the last dimension, the way any shape fact reaches a compiled cuTile program), :func:`narrow` runs the dots at the
real width, rounded up to the setting's granule ``g`` (``head_dim_rule.granule``: 32 by default, 64-byte swizzled
boxes; ``=1``: 16, a WGMMA's K step, 32-byte boxes):

* the first dot ``S = Q K^T`` reduces over ``d' = ceil_g(max(hq, hk))`` columns: Q's and K's columns past their
  arrays' extents are read by TMA as zeros (the tensor map's out-of-bounds fill; the program's padding is ``zero``
  or unspecified), so the products dropped are ``0 * x`` and S is the full tile's;
* the second dot ``acc = P V + C`` computes ``dv' = ceil_g(ho)`` columns, ``ho`` the stored array's extent: the
  accumulator's columns past ``dv'`` are never stored (the store clips at the array's extent), and nothing else reads
  them (checked: the accumulator reaches the store through elementwise ops only; no row reduction, branch result
  or other carried value reads it);
* the Q / K / V tiles are loaded as boxes of the narrower width (``Operand.box``: with ``g`` = 32 (the default) 32 columns
  and a 64-byte swizzle; with 16, 16 columns and a 32-byte swizzle at 80 / 48 and 32 / 64-byte at 96; the 160-byte rows of a d80 tile cannot be one 128-byte
  swizzle span).

A located remark at the second dot says which widths the dots run (or, for a program with a narrower array whose
extent is a launch-time value, why the tile's width runs).  ``TILEORCH_ATTN_HEAD_DIM_WIDTH=0`` keeps the tile's
width.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tileorch import settings
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.nv_tileaa.attrs import DYNAMIC, ints
from tileorch.head_dim_rule import ENV, padded_width
from tileorch.transforms.tileas.chained_detect import _depends_on
from tileorch.transforms.tileas.operand_prologue import strip_layouts

ZERO_FILLED = (None, "zero", "neg_zero", "undef")
"""The loads' padding values under which the columns past the array read as zeros (TMA's fill) are the program's."""


def enabled() -> bool:
    return settings.value(ENV) != "0"


def _memref(view: SSAValue) -> Operation | None:
    v = view
    for _ in range(64):
        if not isinstance(v.owner, Operation) or isinstance(v.owner, aa.MakeMemrefOp) or not v.owner.operands:
            break
        v = v.owner.operands[0]
    return v.owner if isinstance(v.owner, aa.MakeMemrefOp) else None


def column_extent(view: SSAValue) -> int | None:
    """The compile-time extent of the array dimension a tiled view's last tile dimension (the tile's columns) runs
    along, or None (a launch-time extent, or a view not on an argument's array)."""
    mm = _memref(view)
    if mm is None:
        return None
    order = ints(view.type.order)
    extent = mm.result.type.get_shape()[order[-1]]
    return None if extent == DYNAMIC or extent < 0 else extent


def _padding(ld: Operation) -> str | None:
    pv = getattr(ld, "padding_value", None)
    return None if pv is None else pv.value.data


def _views(ck) -> list[tuple[str, SSAValue]]:
    return [("Q", ck.a0.load.view), ("K", ck.b1.load.view), ("V", ck.b2.load.view), ("O", ck.store.view)]


def refusal(ck) -> str | None:
    """Why the dots of ``ck`` must run the tiles' width whatever the arrays' extents (None: they may run the
    arrays')."""
    a0, b1, b2 = ck.a0, ck.b1, ck.b2
    if not enabled():
        return f"{ENV}=0"
    if len(ck.firsts) > 1 or len(ck.seconds) > 1 or ck.own_a or ck.b2_in_b1 >= 0:
        return "a chain of several first or second dots"
    if ck.q_prologue is not None or ck.b_prologue is not None:
        return "a Q or K tile computed from its load (a prologue)"
    if ck.store_transposed or ck.rows_only or len(ck.tile_stores) != 1:
        return "the accumulator is stored transposed, or not as one tile"
    if a0.swapped or b1.swapped or b2.swapped or not b1.k_major or b2.k_major or b1.parts or b2.parts:
        return "K or V read through a transposing view, stored transposed, or joined from pages"
    if a0.group_dim >= 0:
        return "the query tile's rows run along two dimensions"
    if any(_padding(o.load) not in ZERO_FILLED for o in (a0, b1)):
        return "Q or K is loaded with a padding value other than zero"
    return _accumulator_reads(ck)


def narrow(ck) -> tuple[int, int] | str | None:
    """``(d', dv')``, the widths the two dots run (each at most the tile's), when narrower than the tile's; a
    reason (str) when the program's arrays are narrower than its tiles but the tile's width runs; None when the
    arrays are as wide as the tiles (or their extents are not known at compile time: :func:`launch_arrays`)."""
    if ck.a0.gathered is not None or ck.store.name == "nv_tileaa.store":  # no Q / O view (gathered, scattered)
        return None
    extents = {what: column_extent(v) for what, v in _views(ck)}
    if any(x is None for x in extents.values()):
        return None
    d, dv = ck.d, ck.dv
    d2, dv2 = padded_width(max(extents["Q"], extents["K"])), padded_width(extents["O"])
    if d2 >= d and dv2 >= dv:
        return None
    why = refusal(ck)
    if why is not None:
        return why
    if ck.k_step != 16:  # e4m3 / e5m2 Q and K: the first dot reduces 32 columns per WGMMA
        d2 = -(-d2 // ck.k_step) * ck.k_step
        if d2 >= d and dv2 >= dv:
            return None
    return min(d, max(d2, ck.k_step)), min(dv, max(dv2, 16))


def launch_arrays(ck) -> list[int] | None:
    """The kernel parameters (base pointers) of the Q, K, V and O arrays whose last extents the launcher may
    specialise the program on (``launchers/head_dim_variant.py``) where they are launch-time values, the tiles are
    wider than 16 columns and the dots could run narrower (:func:`refusal` is None); else None."""
    from tileorch.transforms.tileas.convert_to_cutlass import _base_argument

    if (ck.d <= 16 and ck.dv <= 16) or ck.a0.gathered is not None or ck.store.name == "nv_tileaa.store":
        return None
    if all(column_extent(v) is not None for _, v in _views(ck)) or refusal(ck) is not None:
        return None
    args = [_base_argument(ck.kernel, v) for _, v in _views(ck)]
    return None if any(a is None for a in args) else sorted(set(args))


def _accumulator_reads(ck) -> str | None:
    """Why the accumulator's columns past the stored array's extent may be read other than by the store."""
    body = ck.loop.body.blocks.first
    accs = [k for k, y in enumerate(ck.yields) if strip_layouts(y)[0] is ck.dot2.result]
    if len(accs) != 1 or ck.carried[accs[0]][1] != ck.dv:
        return "the loop does not carry the second dot's result as one accumulator"
    acc_arg = body.args[1 + ck.carried[accs[0]][0]]
    others = [y for k, y in enumerate(ck.yields) if k != accs[0]]
    if any(_depends_on(y, acc_arg) for y in others) or any(_depends_on(r, acc_arg) for br in ck.branches
                                                           for r in br.results):
        return "a loop value other than the accumulator is computed from it"
    acc_out = ck.loop.results[ck.carried[accs[0]][0]]
    for op in ck.kernel.walk():
        if op.name in ("nv_tileaa.reduce", "nv_tileaa.scan") or "reduce" in op.name:
            if any(_depends_on(x, acc_out) or _depends_on(x, acc_arg) for x in op.operands):
                return "a reduction reads the accumulator's columns"
    for _, v in ck.row_stores:
        if _depends_on(v, acc_out):
            return "a row vector stored after the loop is computed from the accumulator"
    return None


def apply(ck, widths: tuple[int, int]) -> None:
    """Run ``ck``'s dots at ``widths`` (:func:`narrow`): the operands' columns, the dots' extents, the carried
    accumulator's width."""
    d2, dv2 = widths
    dv = ck.dv
    ck.a0.cols = ck.b1.cols = d2
    ck.b2.cols = dv2
    ck.d, ck.dv = d2, dv2
    ck.head_dim_width = (d2, dv2, dv)
    for k, y in enumerate(ck.yields):
        if strip_layouts(y)[0] is ck.dot2.result and ck.carried[k][1] == dv:
            ck.carried[k] = (ck.carried[k][0], dv2)





def remark(widths: tuple[int, int] | str, tile: tuple[int, int], k_step: int = 16) -> str:
    """The located remark's text: the widths the dots run, or why the tile's."""
    if isinstance(widths, str):
        return (f"chained-dots tier (TMA + WGMMA): the arrays' head dims are narrower than the {tile[0]} / {tile[1]}-"
                f"wide tiles, but the dots run the tiles' width: {widths}")
    (d, dv), (td, tdv) = widths, tile
    return (f"chained-dots tier (TMA + WGMMA): the dots run the arrays' head dims, not the tiles': the first dot "
            f"reduces over {d} of its {td} columns (K steps of {k_step}; Q's and K's columns past their arrays read as "
            f"zeros), the second dot's WGMMAs are N = {dv} of the tile's {tdv} (the accumulator's columns past the "
            f"stored array's extent are never stored); Q / K / V boxes {d} / {d} / {dv} columns wide "
            f"({ENV}=0: the tiles' width)")


__all__ = ["ENV", "apply", "column_extent", "enabled", "launch_arrays", "narrow", "refusal", "remark"]
