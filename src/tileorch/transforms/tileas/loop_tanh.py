"""Full-precision ``tanh`` of an accumulator-shaped tile of the chained consumer loop (the soft cap's
``tanh(s / cap)``) with one warp-uniform branch to its polynomial alone.

``Emitter.tanh_full`` (CUDA Tile IR ``tanh``'s default ``rounding<full>``, at most 2 ulp) computes both of
its forms for every element and selects: the polynomial ``a + a u Q(u)`` (eight instructions) for ``|x| <
0.9``, ``1 - 2 / (e^(2a) + 1)`` (``ex2.approx`` and ``rcp.approx``: two MUFU operations) above, then the
sign; about 17 instructions per element, two on the MUFU pipe beside the softmax's one ``exp``.

:func:`uniform_tanh` evaluates every element of the thread's fragment at once: ``max.NaN`` of the ``|x|``
(one instruction per element), ``|x| < 0.9`` for all of the warp's (``vote.sync.all``: the branch is
warp-uniform), then either ``Emitter.tanh_poly(x)`` for every element (bit for bit what ``tanh_full``
selects there: each step of the polynomial is odd in ``x``) or ``tanh_full`` for every element (a NaN, an
infinity or any ``|x| >= 0.9`` in the warp).  A soft cap's scores below ``0.9 cap`` (Gemma 2: 45 of 50; the
usual case) take the polynomial; only a tanh of a dot's result scaled once qualifies (:func:`soft_cap_shaped`).  Results are identical either way; ``tanh`` with ``rounding<approx>`` is
``tanh.approx.f32`` and not concerned.  Only ``tanh`` inside the consumer loop takes it (its sites are
warp-convergent); ``TILEORCH_ATTN_TANH_BRANCH=0`` turns it off (read at each compile, part of the
disk-cache key).
"""

from __future__ import annotations

import struct

from xdsl.dialects.builtin import i32
from xdsl.ir import Operation, SSAValue

from tileorch import settings
from tileorch.transforms.math_mode import takes_approx
from tileorch.transforms.tileaa_to_simt.emit import cmpi, inline_asm
from tileorch.transforms.tileas.loop_division import loop_tile_places

TANH_BRANCH_ENV = "TILEORCH_ATTN_TANH_BRANCH"


def enabled() -> bool:
    """On unless ``TILEORCH_ATTN_TANH_BRANCH=0``."""
    return settings.value(TANH_BRANCH_ENV) != "0"


def _tree(e, values: list[SSAValue]) -> SSAValue:
    while len(values) > 1:
        values = [e.ptx_f32("max.NaN.f32 $0, $1, $2;", [values[i], values[i + 1]]) if i + 1 < len(values)
                  else values[i] for i in range(0, len(values), 2)]
    return values[0]


SCALES = ("nv_tileaa.divf", "nv_tileaa.mulf", "arith.divf", "arith.mulf")
PASS_THROUGH = ("nv_tileaa.fp_to_fp", "nv_tileaa.extf", "arith.extf", "nv_tileaa.convert_layout",
                "nv_tileas.convert_layout")


def _from_a_dot(v: SSAValue, depth: int = 4) -> bool:
    """``v`` is a dot's result through at most ``depth`` conversions and scalings (``s * sm_scale``)."""
    op = v.owner
    if depth < 0 or not isinstance(op, Operation):
        return False
    if op.name in ("nv_tileaa.dot", "nv_tileas.dot"):
        return True
    if op.name in PASS_THROUGH:
        return _from_a_dot(op.operands[0], depth - 1)
    return op.name in SCALES and any(_from_a_dot(x, depth - 1) for x in op.operands)


def soft_cap_shaped(op: Operation) -> bool:
    """``op`` (a ``tanh``) takes a dot's result scaled (``tanh(s / cap)``, ``tanh(s * scale * (1 / cap))``): the
    soft cap, whose scores mostly stay below ``0.9 cap``.  Other tanh arguments (GELU's ``0.8 (z + 0.045
    z^3)`` of a hidden tile) mostly do not: there the vote fails and its ``max`` and branch are pure cost
    (session 31, H100: the chained MLP 171.9 -> 155.8 TFLOP/s with the branch), so they keep ``tanh_full``."""
    arg = op.operands[0].owner
    return (isinstance(arg, Operation) and arg.name in SCALES
            and any(_from_a_dot(x) for x in arg.operands))


def uniform_tanh(low, v: SSAValue, coords: tuple) -> SSAValue | None:
    """The element of ``v`` (a full-precision ``nv_tileaa.tanh`` of the consumer loop) at ``coords`` with the
    thread's whole fragment evaluated under the warp-uniform branch (module docstring), or None where it does
    not qualify (the caller evaluates element by element).  ``low.small_tanh`` collects the ops taken."""
    op = v.owner
    if low.small_tanh is None or not isinstance(op, Operation) or op.name != "nv_tileaa.tanh" or takes_approx(op):
        return None
    if not soft_cap_shaped(op):
        return None
    places = loop_tile_places(low, op, v, coords)
    if places is None:
        return None
    e = low.e
    xs = [e.to_f32(low.at(op.operands[0], c)) for c in places]
    hi = _tree(e, [e.ptx_f32("abs.f32 $0, $1;", [x]) for x in xs])
    bound = struct.unpack("<I", struct.pack("<f", e.TANH_SMALL))[0]  # tanh_full's f32 constant: the same test
    asm = (f"{{ .reg .pred p; setp.lt.f32 p, $1, 0f{bound:08X}; vote.sync.all.pred p, p, -1; "
           "selp.u32 $0, 1, 0, p; }")
    small = e.v(cmpi(e.v(inline_asm(asm, "=r,f", [hi], [i32], has_side_effects=True)), e.const(0), "ne"))
    out = e.if_(small, lambda b: [b.tanh_poly(x) for x in xs], lambda b: [b.tanh_full(x) for x in xs],
                [x.type for x in xs])
    low.provided[v] = (2 * len(places), out)
    low.small_tanh.add(id(op))
    return low.at(v, coords)


__all__ = ["TANH_BRANCH_ENV", "enabled", "soft_cap_shaped", "uniform_tanh"]
