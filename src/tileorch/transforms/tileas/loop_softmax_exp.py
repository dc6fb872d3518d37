"""The online softmax's natural ``exp`` in the chained consumer loop as ``ex2.approx.ftz(d * log2 e)``
(``TILEORCH_ATTN_SOFTMAX_EXP=ex2``; the default ``full`` keeps the spec's full-precision form).

A program that writes its softmax with ``ct.exp`` (natural units: Hugging Face's additive-mask attention,
anything scaled by ``1/sqrt(d)`` instead of ``log2(e)/sqrt(d)``) gets CUDA Tile IR ``exp``'s default
``rounding<full>``: ``Emitter.exp_full``, about eight instructions per element (an exact clamped range
reduction, one ``ex2.approx``, a power-of-two scale) where a program in ``exp2`` units takes two.  In the
consumer loop that is the difference between the textbook kernel and such a program (session 32, H100:
175 against 400+ TFLOP/s).

Taken for an ``nv_tileaa.exp`` of the loop whose argument is provably at most 0 or NaN
(:func:`nonpositive_difference`): ``a - b`` with ``b`` (through broadcasts, reshapes, layout ops) a
``maxf`` tree one of whose leaves is ``a`` itself or a ``max`` reduction of ``a`` (the online softmax's
``exp(s - m_new)`` and ``exp(m_old - m_new)``, ``m_new = max(m_old, rowmax(s))``).  Exactly the argument
that ``math_mode.SUM_TERM`` marks on the SIMT path (``TILEORCH_ONLINE_SOFTMAX_EXP=ex2``, that path's
default): each value lies in ``[0, 1]``, is a weight of a running sum / the P tile cast to 16 bits, and
``ex2.approx.ftz`` of the rounded product is within ``2^-22 + 2^-24 |d| log2(e) ln 2`` relative of
``e^d`` (the MUFU's error and the product's rounding); results below ``2^-126`` (``d < -87.3``) are
flushed to 0, each beside a term ``e^0 = 1`` of the same row's sum.  NaN stays NaN, ``-inf`` gives 0.
The ``exp`` of any other argument keeps its full form.  Read at each compile (part of the disk-cache key).

The scale folded into the argument (``TILEORCH_ATTN_SOFTMAX_EXP_SCALED``, default on; ``0``: off):
``exp((a - b) * c)`` with ``a - b`` such a difference and ``c`` uniform over the tile (a splatted scalar, a
runtime ``sm_scale``, or a splat constant; :func:`scaled_difference`) is ``ex2.approx.ftz((a - b) * (c log2 e))``:
one multiply by the scalar ``c log2 e`` (loop-invariant, hoisted) instead of the program's product and the
full form's eight instructions.  Its argument's relative error is two roundings (``c log2 e``, the product:
``2^-23``) where the plain rewrite's is the program's product and the multiply by ``log2 e`` (also two), so the
bound above holds with ``d = (a - b) c``.  ``c >= 0`` (every attention scale): ``d <= 0`` or NaN, the weights of
the module docstring.  ``c < 0`` (a program that weights by the reversed order; no attention program does):
``d >= 0`` and the same relative bound holds up to the overflow threshold, where ``e^d`` for ``d`` within
``2^-22`` relative below ``88.72`` is a finite value near ``FLT_MAX`` and the rewrite's is ``inf`` (documented,
not exact).  ``c`` NaN or infinite: NaN / 0 / ``inf`` as ``exp`` gives them.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue

from tileorch import settings

SOFTMAX_EXP_ENV = "TILEORCH_ATTN_SOFTMAX_EXP"
SCALED_ENV = "TILEORCH_ATTN_SOFTMAX_EXP_SCALED"
THROUGH = ("nv_tileaa.broadcast", "nv_tileas.broadcast", "nv_tileaa.reshape", "nv_tileas.reshape",
           "nv_tileaa.expand_dims", "nv_tileas.expand_dim", "nv_tileas.convert_layout", "nv_tileaa.assume",
           "nv_tileaa.pragma")
"""Ops that move or repeat elements without changing any value."""
MAXF = ("nv_tileaa.maxf", "arith.maximumf", "arith.maxnumf")
SUBF = ("nv_tileaa.subf", "arith.subf")
MULF = ("nv_tileaa.mulf", "arith.mulf")
LOG2E = 1.4426950408889634
REDUCES = ("nv_tileaa.reduce", "nv_tileas.reduce")


def enabled() -> bool:
    """``TILEORCH_ATTN_SOFTMAX_EXP=ex2`` (default ``full``)."""
    return settings.value(SOFTMAX_EXP_ENV) == "ex2"


def _strip(v: SSAValue) -> SSAValue:
    while isinstance(v.owner, Operation) and v.owner.name in THROUGH and v.owner.operands:
        v = v.owner.operands[0]
    return v


def _max_leaves(v: SSAValue, depth: int = 8) -> list[SSAValue]:
    """The operands of the ``maxf`` tree rooted at ``v`` (stripped of :data:`THROUGH` ops), ``v`` itself if
    it is no ``maxf``."""
    v = _strip(v)
    op = v.owner
    if depth and isinstance(op, Operation) and op.name in MAXF:
        return [x for o in op.operands for x in _max_leaves(o, depth - 1)]
    return [v]


def _is_max_reduce_of(v: SSAValue, a: SSAValue) -> bool:
    """``v`` is a reduction of ``a`` (stripped) whose combiner is one ``maxf``."""
    op = v.owner
    if not isinstance(op, Operation) or op.name not in REDUCES or len(op.operands) != 1 or not op.regions:
        return False
    body = [o for o in op.regions[0].blocks.first.ops if not o.name.endswith("yield")]
    return len(body) == 1 and body[0].name in MAXF and _strip(op.operands[0]) is a


def nonpositive_difference(op: Operation) -> bool:
    """``op``'s operand is ``a - b`` with ``b >= a`` elementwise whenever neither is NaN (module docstring):
    ``b`` a ``maxf`` tree with ``a`` or a ``max`` reduction of ``a`` among its leaves."""
    return _nonpositive(op.operands[0])


def _uniform(v: SSAValue) -> bool:
    """``v`` (stripped) holds one value in every element: a splat of a scalar, or a splat constant."""
    v = _strip(v)
    op = v.owner
    if not isinstance(op, Operation):
        return False
    if op.name == "nv_tileaa.splat":
        return True
    if op.name == "arith.constant":
        from tileorch.transforms.dense_splat import splat_value

        return splat_value(op.properties.get("value") or op.attributes.get("value"))[0]
    return False


def scaled_difference(op: Operation) -> tuple[SSAValue, SSAValue] | None:
    """``(a - b, c)`` where ``op``'s operand is ``(a - b) * c`` (either order) with ``a - b`` a difference of
    :func:`nonpositive_difference` and ``c`` uniform (module docstring), else None."""
    m = _strip(op.operands[0]).owner
    if not isinstance(m, Operation) or m.name not in MULF or len(m.operands) != 2:
        return None
    for x, c in ((m.operands[0], m.operands[1]), (m.operands[1], m.operands[0])):
        if _nonpositive(x) and _uniform(c):
            return x, c
    return None


def scaled_enabled() -> bool:
    """``TILEORCH_ATTN_SOFTMAX_EXP_SCALED`` (default on; ``0``: the scaled form keeps the full ``exp``)."""
    return settings.value(SCALED_ENV) != "0"


def _nonpositive(v: SSAValue) -> bool:
    d = _strip(v)
    sub = d.owner
    if not isinstance(sub, Operation) or sub.name not in SUBF:
        return False
    a = _strip(sub.operands[0])
    leaves = _max_leaves(sub.operands[1])
    if len(leaves) < 2:  # b must be a max over something including a
        return False
    return any(x is a or _is_max_reduce_of(x, a) for x in leaves)


def softmax_exp(low, v: SSAValue, coords: tuple) -> SSAValue | None:
    """The element of ``v`` at ``coords`` as ``ex2.approx.ftz(d log2 e)`` where ``v`` is a qualifying ``exp``
    (module docstring) and ``low.softmax_exps`` is a set (the switch is on; the op's id is added to it), else
    None (the caller evaluates the op as the program asks)."""
    op = v.owner
    if low.softmax_exps is None or not isinstance(op, Operation) or op.name != "nv_tileaa.exp":
        return None
    if low.loop_iv is None or not low.loop_iv.block.is_ancestor(op):  # the consumer loop's ops only
        return None
    typ = getattr(v.type, "element_type", v.type)
    if getattr(typ, "name", "") == "f64":
        return None
    e = low.e
    if nonpositive_difference(op):
        low.softmax_exps.add(id(op))
        x = e.to_f32(low.at(op.operands[0], coords))
        return e.from_f32(e.unary_math("exp", x), typ)
    scaled = scaled_difference(op) if scaled_enabled() else None
    if scaled is None:
        return None
    low.softmax_exps.add(id(op))
    d, c = (e.to_f32(low.at(x, coords)) for x in scaled)
    c2 = e.v(arith.MulfOp(c, e.fconst(LOG2E)))
    return e.from_f32(e.ptx_f32("ex2.approx.ftz.f32 $0, $1;", [e.v(arith.MulfOp(d, c2))]), typ)


__all__ = ["SCALED_ENV", "SOFTMAX_EXP_ENV", "enabled", "nonpositive_difference", "scaled_difference", "scaled_enabled",
           "softmax_exp"]
