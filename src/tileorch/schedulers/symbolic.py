"""Run the host scheduler functions on symbolic integers, so the device lowering emits code from
the *same* Python formulas the host computes with (no second copy of the math).

* :class:`Sym` is an integer (or boolean) value held by a :class:`Builder`; Python's arithmetic,
  bitwise and comparison operators on it ask the builder for one operation each.  Results are
  hash-consed, so a subexpression is built once however often the traced code computes it.
* ``bool(sym)`` (an ``if``, ``and``, ``or``, ternary or ``min`` on a symbolic value) is a
  *branch*: :func:`trace` re-runs the function once per feasible combination of branch outcomes
  (depth first) and joins the paths' results with selects on their path conditions.  The traced
  code must be pure; paths that raise are preconditions the caller guarantees and are dropped.
* :func:`retarget` gives a host function whose module globals ``np`` and ``int`` are swapped for
  symbolic stand-ins (``np.where`` -> select, ``np.minimum`` -> compare + select, ``int`` ->
  identity), re-targeting the functions of the same module it calls as well.

Semantics: the builder works on fixed-width two's-complement integers with C division
(:meth:`Builder.div` truncates).  Python's floor division agrees with it whenever the operands
are non-negative, which holds for every division the schedulers perform on a feasible path.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any, Protocol


class Builder(Protocol):
    """What :class:`Sym` needs from a code generator (or an evaluator)."""

    def const(self, value: int, boolean: bool = False) -> Any: ...
    def binary(self, op: str, a: Any, b: Any) -> Any: ...  # add sub mul div rem and or xor shl shr
    def compare(self, pred: str, a: Any, b: Any) -> Any: ...  # eq ne lt le gt ge (signed)
    def select(self, cond: Any, a: Any, b: Any) -> Any: ...
    def logic(self, op: str, a: Any, b: Any) -> Any: ...  # and or on booleans
    def negate(self, a: Any) -> Any: ...  # boolean not


class Tracer:
    """Owns the builder, the hash-cons table and the branch decisions of the current path."""

    def __init__(self, builder: Builder):
        self.builder = builder
        self._cache: dict[tuple, Sym] = {}
        self.forced: dict[int, bool] = {}
        self.taken: list[tuple[Sym, bool]] = []
        self.pending: list[dict[int, bool]] = []

    # -- values ---------------------------------------------------------------------------------
    def make(self, key: tuple, build: Callable[[], Any], boolean: bool) -> Sym:
        found = self._cache.get(key)
        if found is None:
            found = Sym(self, build(), boolean)
            self._cache[key] = found
        return found

    def lift(self, value: Any) -> Sym:
        if isinstance(value, Sym):
            return value
        if isinstance(value, bool):
            return self.make(("const", bool, value), lambda: self.builder.const(int(value), True), True)
        return self.make(("const", int, int(value)), lambda: self.builder.const(int(value)), False)

    def leaf(self, value: Any, boolean: bool = False) -> Sym:
        """Wrap a builder value (a function argument) as a symbolic value."""
        return self.make(("leaf", id(value)), lambda: value, boolean)

    def input(self, key: Any, build: Callable[[], Any], boolean: bool = False) -> Sym:
        """The input named ``key`` (a load, a register read), built on first use only: every
        path of a trace sees the same value."""
        return self.make(("input", key), build, boolean)

    def as_int(self, a: Sym) -> Sym:
        """A boolean used in integer arithmetic counts as 0 or 1 (as Python's ``True + 1``)."""
        if not a.boolean:
            return a
        return self.make(("int", a.key), lambda: self.builder.select(a.value, self.lift(1).value, self.lift(0).value),
                         False)

    def binary(self, op: str, a: Any, b: Any) -> Sym:
        a, b = self.as_int(self.lift(a)), self.as_int(self.lift(b))
        return self.make((op, a.key, b.key), lambda: self.builder.binary(op, a.value, b.value), False)

    def compare(self, pred: str, a: Any, b: Any) -> Sym:
        a, b = self.as_int(self.lift(a)), self.as_int(self.lift(b))
        return self.make((pred, a.key, b.key), lambda: self.builder.compare(pred, a.value, b.value), True)

    def select(self, cond: Any, a: Any, b: Any) -> Sym:
        cond, a, b = self.lift(cond), self.lift(a), self.lift(b)
        if a is b:
            return a
        return self.make(("select", cond.key, a.key, b.key),
                         lambda: self.builder.select(cond.value, a.value, b.value), a.boolean)

    def logic(self, op: str, a: Sym, b: Sym) -> Sym:
        return self.make((op, a.key, b.key), lambda: self.builder.logic(op, a.value, b.value), True)

    def negate(self, a: Sym) -> Sym:
        return self.make(("not", a.key), lambda: self.builder.negate(a.value), True)

    # -- branches -------------------------------------------------------------------------------
    def decide(self, cond: Sym) -> bool:
        if cond.key in self.forced:
            outcome = self.forced[cond.key]
        else:
            self.pending.append({**{c.key: v for c, v in self.taken}, cond.key: True})
            outcome = False
            self.forced[cond.key] = outcome
        self.taken.append((cond, outcome))
        return outcome


class Sym:
    """A symbolic integer or boolean (``boolean``) held by a :class:`Tracer`."""

    __slots__ = ("tracer", "value", "boolean", "key")
    __array_priority__ = 1000  # numpy defers binary operators to Sym

    def __init__(self, tracer: Tracer, value: Any, boolean: bool):
        self.tracer, self.value, self.boolean = tracer, value, boolean
        self.key = id(self)

    def _bin(op: str, swap: bool = False):  # noqa: N805 (method factory)
        def method(self, other):
            return self.tracer.binary(op, other, self) if swap else self.tracer.binary(op, self, other)
        return method

    def _cmp(pred: str):  # noqa: N805
        def method(self, other):
            return self.tracer.compare(pred, self, other)
        return method

    __add__, __radd__ = _bin("add"), _bin("add", True)
    __sub__, __rsub__ = _bin("sub"), _bin("sub", True)
    __mul__, __rmul__ = _bin("mul"), _bin("mul", True)
    __floordiv__, __rfloordiv__ = _bin("div"), _bin("div", True)
    __mod__, __rmod__ = _bin("rem"), _bin("rem", True)
    __lshift__, __rlshift__ = _bin("shl"), _bin("shl", True)
    __rshift__, __rrshift__ = _bin("shr"), _bin("shr", True)
    __xor__, __rxor__ = _bin("xor"), _bin("xor", True)
    __lt__, __le__, __gt__, __ge__ = _cmp("lt"), _cmp("le"), _cmp("gt"), _cmp("ge")
    __eq__, __ne__ = _cmp("eq"), _cmp("ne")  # type: ignore[assignment]
    __hash__ = object.__hash__

    def __and__(self, other):
        if self.boolean:
            return self.tracer.logic("and", self, self.tracer.lift(other))
        return self.tracer.binary("and", self, other)

    def __or__(self, other):
        if self.boolean:
            return self.tracer.logic("or", self, self.tracer.lift(other))
        return self.tracer.binary("or", self, other)

    __rand__, __ror__ = __and__, __or__

    def __neg__(self):
        return self.tracer.binary("sub", 0, self)

    def __invert__(self):
        return self.tracer.negate(self) if self.boolean else self.tracer.binary("xor", self, -1)

    def __bool__(self) -> bool:
        return self.tracer.decide(self if self.boolean else self.tracer.compare("ne", self, 0))

    def __index__(self) -> int:
        raise TypeError("a symbolic integer has no static value")


def _join(tracer: Tracer, cond: Sym, a: Any, b: Any) -> Any:
    """``cond ? a : b`` over matching result trees (tuples, dicts, dataclasses, ints, bools, Syms)."""
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(_join(tracer, cond, x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        return {k: _join(tracer, cond, a[k], b[k]) for k in a}
    if dataclasses.is_dataclass(a) and type(a) is type(b):
        return dataclasses.replace(a, **{f.name: _join(tracer, cond, getattr(a, f.name), getattr(b, f.name))
                                         for f in dataclasses.fields(a)})
    if not isinstance(a, Sym) and not isinstance(b, Sym) and a == b:
        return a
    if isinstance(a, (Sym, int)) and isinstance(b, (Sym, int)):
        return tracer.select(cond, a, b)
    raise TypeError(f"paths return different shapes: {a!r} vs {b!r}")


def trace(tracer: Tracer, fn: Callable[[], Any], max_paths: int = 4096) -> Any:
    """Run ``fn`` on every feasible branch path and join the results by path condition."""
    results: list[tuple[list[tuple[Sym, bool]], Any]] = []
    tracer.pending = [{}]
    while tracer.pending:
        if len(results) > max_paths:
            raise RuntimeError(f"symbolic trace of {fn} exceeds {max_paths} paths")
        tracer.forced, tracer.taken = tracer.pending.pop(), []
        try:
            value = fn()
        except (ValueError, ZeroDivisionError):
            continue  # a precondition the caller guarantees
        results.append((tracer.taken, value))
    if not results:
        raise ValueError(f"every path of {fn} raises")
    joined = results[-1][1]
    for taken, value in reversed(results[:-1]):
        cond = tracer.lift(True)
        for key, (c, outcome) in {c.key: (c, v) for c, v in taken}.items():
            cond = tracer.logic("and", cond, c if outcome else tracer.negate(c))
        joined = _join(tracer, cond, value, joined)
    return joined


# ------------------------------------------------------------------ numpy / int stand-ins


def _tracer_of(*values: Any) -> Tracer | None:
    for v in values:
        if isinstance(v, Sym):
            return v.tracer
    return None


def _where(cond, a, b):
    tracer = _tracer_of(cond, a, b)
    if tracer is None:
        return a if cond else b
    if not isinstance(cond, Sym):
        return a if cond else b
    return tracer.select(cond, a, b)


def _minimum(a, b):
    return _where(a < b, a, b)


def _maximum(a, b):
    return _where(a > b, a, b)


SYMBOLIC_NUMPY = types.SimpleNamespace(
    where=_where,
    minimum=_minimum,
    maximum=_maximum,
    zeros_like=lambda value, dtype=int: dtype(0),
    asarray=lambda value, dtype=None: value,
    int64=int,
)


def _identity(value: Any) -> Any:
    return value


def retarget(fn: Callable, **overrides: Any) -> Callable:
    """``fn`` with module globals ``np`` -> :data:`SYMBOLIC_NUMPY`, ``int`` -> identity, plus
    ``overrides``; functions of the same module that ``fn`` calls are re-targeted too."""
    module_globals = fn.__globals__
    namespace = dict(module_globals)
    namespace.update(np=SYMBOLIC_NUMPY, int=_identity)
    for name, value in module_globals.items():
        if isinstance(value, types.FunctionType) and value.__module__ == fn.__module__:
            namespace[name] = types.FunctionType(value.__code__, namespace, value.__name__,
                                                 value.__defaults__, value.__closure__)
    namespace.update(overrides)
    return types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__, fn.__closure__)
