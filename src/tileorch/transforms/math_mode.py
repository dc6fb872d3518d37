"""How the elementwise transcendental ops of a tile program are computed (one place for every
lowering: the SIMT path's slots, the GEMM epilogue's accumulator elements, the chained-dots kernel).

CUDA Tile IR (``cuda_tile.exp``, ``cuda_tile.tanh``) gives these ops a ``rounding_mode`` whose
default is ``full`` and whose ``approx`` asks for the fast hardware approximation:

* ``exp``, ``full``: the CUDA Math API's ``expf`` (at most 2 ulp): :meth:`Emitter.exp_full`, IEEE
  a clamped exact-product range reduction, one ``ex2.approx.ftz`` of the reduced argument and an
  exact power-of-two scale (subnormal results rounded once); ``approx``: ``ex2.approx.ftz.f32`` of ``x * log2 e`` (the
  spec's "exp2 with log2(e) scaling"; about 2^-21 relative, subnormal results flushed);
* ``tanh``, ``full``: :meth:`Emitter.tanh_full` (a polynomial below 0.9, ``1 - 2/(e^2a + 1)`` above; at most 2 ulp);
  ``approx``: ``tanh.approx.f32`` (about 2^-11 relative).

``TILEORCH_MATH=approx`` (read at each compile, part of the disk-cache key) takes the ``approx``
forms for every such op, as ``--use_fast_math`` does for CUDA C++: a program-wide speed switch.  An
op that carries ``rounding = "approx"`` (the program's ``rounding_mode=APPROX``) takes it always.
:func:`math_remarks` names the choice for each kind of op the compiled kernel holds (counted after the passes
that mark softmax terms: the remark describes the final kernel).

An ``exp`` that carries :data:`SUM_TERM` takes the ``approx`` form too: a term of a running sum of
exponentials whose argument is at most 0 (or NaN), marked by ``tileaa-hoist-online-softmax`` under
``TILEORCH_ONLINE_SOFTMAX_EXP=ex2`` (that pass's docstring bounds the sum's error; its remark names it).
"""

from __future__ import annotations


from xdsl.ir import Operation
from tileorch import settings

MATH_ENV = "TILEORCH_MATH"
APPROX_KINDS = {"nv_tileaa.exp": "exp", "nv_tileaa.tanh": "tanh"}
"""The ops whose ``full`` and ``approx`` forms differ, and their names in remarks."""


def approx_math() -> bool:
    """``TILEORCH_MATH=approx``: the approximate forms for every op of :data:`APPROX_KINDS`."""
    return settings.value(MATH_ENV) == "approx"


SUM_TERM = "tileorch.sum_term_exp"
"""A discardable attribute on an ``nv_tileaa.exp`` (module docstring); no other pass sets or reads it."""


def takes_approx(op: Operation) -> bool:
    """Whether ``op`` (an op of :data:`APPROX_KINDS`) is computed by its approximate form: the
    program asked for it (``rounding = "approx"``), :func:`approx_math`, or the op is a sum's term
    (:data:`SUM_TERM`)."""
    rounding = getattr(op, "rounding", None)
    asked = rounding is not None and rounding.data.startswith("approx")
    return approx_math() or asked or SUM_TERM in op.attributes


FORMS = {
    ("exp", False): "full precision (the spec's default rounding<full>: exact range reduction, ex2.approx of the "
                    "reduced argument, exact power-of-two scale; at most 2 ulp, subnormals kept)",
    ("exp", True): "ex2.approx.ftz of x*log2(e) (rounding<approx>: about 2^-21 relative, subnormals flushed)",
    ("tanh", False): "full precision (the spec's default rounding<full>: polynomial / 1 - 2/(e^2a + 1))",
    ("tanh", True): "tanh.approx.f32 (rounding<approx>: about 2^-11 relative)",
    ("exp", "f64"): "f64 arithmetic (tileaa_to_simt/f64_math.py: Cody-Waite reduction, a degree-13 polynomial, "
                    "an exact power-of-two scale; within 2 ulp, subnormals kept)",
    ("tanh", "f64"): "f64 arithmetic (tileaa_to_simt/f64_math.py: expm1(2|x|) / (expm1(2|x|) + 2); within 4 ulp)",
}


def _is_f64(op: Operation) -> bool:
    """Whether ``op``'s result holds f64 elements (computed by f64_math.py whatever the rounding mode)."""
    typ = op.results[0].type if op.results else None
    return getattr(getattr(typ, "element_type", typ), "name", "") == "f64"


SUM_TERM_WHY = ("a softmax term whose argument is at most 0: tileaa-sum-after-max / tileaa-hoist-online-softmax, "
                "TILEORCH_ONLINE_SOFTMAX_EXP=ex2")
CHAINED_EXP_WHY = "the chained loop's online-softmax exp, TILEORCH_ATTN_SOFTMAX_EXP=ex2"


def math_counts(module: Operation) -> dict[tuple[str, object, str], int]:
    """The :data:`APPROX_KINDS` ops of ``module`` counted by ``(kind, form, why)``: ``form`` False (full
    precision), True (the fast form) or ``"f64"``; ``why`` the reason the form was taken (the default,
    ``TILEORCH_MATH=approx``, the program's ``rounding_mode=APPROX``, a softmax sum's term)."""
    seen: dict[tuple[str, object, str], int] = {}
    env = approx_math()
    for op in module.walk():
        kind = APPROX_KINDS.get(op.name)
        if kind is None:
            continue
        rounding = getattr(op, "rounding", None)
        if _is_f64(op) and (kind, "f64") in FORMS:
            key = (kind, "f64", "float64: no fast form")
        elif env:
            key = (kind, True, f"{MATH_ENV}=approx")
        elif rounding is not None and rounding.data.startswith("approx"):
            key = (kind, True, "the program's rounding_mode=APPROX")
        elif SUM_TERM in op.attributes:
            key = (kind, True, SUM_TERM_WHY)
        else:
            key = (kind, False, f"{MATH_ENV}=approx or rounding_mode=APPROX takes the fast form")
        seen[key] = seen.get(key, 0) + 1
    return seen


def math_remarks(module: Operation | None = None, counts: dict | None = None, ex2_terms: int = 0) -> list[str]:
    """``remark:`` lines naming the form each kind of :data:`APPROX_KINDS` op takes in the kernel the
    compile produces, and why: ``counts`` (:func:`math_counts`, taken before a lowering that consumes the
    ops) or :func:`math_counts` of ``module``.  The caller counts the kernel as it is finally lowered (the
    SIMT path after the passes that mark softmax terms); ``ex2_terms`` full-precision f32 exps that the
    chained kernel's loop takes as ``ex2.approx`` (its record's ``loop_softmax_exp``) are moved to the fast
    form."""
    seen = dict(math_counts(module) if counts is None else counts)
    full = next((k for k in seen if k[0] == "exp" and k[1] is False), None)
    if ex2_terms and full is not None:
        moved = min(ex2_terms, seen[full])
        seen[full] -= moved
        if not seen[full]:
            del seen[full]
        seen[("exp", True, CHAINED_EXP_WHY)] = seen.get(("exp", True, CHAINED_EXP_WHY), 0) + moved
    return [f"remark: {kind}: {count} op(s) computed by {FORMS[(kind, form)]} ({why})"
            for (kind, form, why), count in sorted(seen.items(), key=str)]
