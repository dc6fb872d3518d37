"""Op classes whose IRDL definition is made on first use instead of when the class is defined (issue 22).

xDSL's ``irdl_op_definition`` builds each op's ``OpDef`` when the class is defined (``OpDef.from_pyrdl``: the
fields, their constraints, the traits) and sets the accessors it derives from it on the class.  A cold
``tileorch gemm 4096 4096 4096 --compile`` imports 388 op classes and makes ops of ~170 of them: the
definitions of the other ~216 (xDSL's llvm and arith ops the GEMM does not use, the tile IR's, the cutlass
families it does not use) were 3.5% of the process's instructions (callgrind, parent: 2112M -> 2039M).

Importing this module runs :func:`install`, which puts :func:`lazy_irdl_op_definition` in
``irdl_op_definition``'s place (``xdsl.irdl`` and ``xdsl.irdl.operations``; a dialect module imported after it
binds that name).  The decorated class is returned as it is (the same class object: ``isinstance``, imports by
name, dialect lists are unchanged), with a :class:`_Pending` descriptor in place of every name xDSL's decorator
would set on it: ``get_irdl_definition``, ``traits``, ``verify_``, ``parse`` and ``print`` (the latter two for an
op with an ``assembly_format``) and each field (operand, result, region, successor, attribute, property: every
class-dictionary entry ``OpDef.from_pyrdl`` reads as one).  The first read of any of them, on the class or on an
op (an op made in any way, ``Op(...)``, ``Op.create``, the parser, reads ``get_irdl_definition`` in
``IRDLOperation.__post_init__``; the parser reads ``Op.parse``, ``has_trait`` ``Op.traits``), runs :func:`define`:
the class's dictionary is put back as it was written (its bases defined first, as they were when it was
written), then xDSL's own ``irdl_op_definition`` runs on it: the class
is then exactly what the eager decorator makes, and what the definition rejects (``PyRDLOpDefinitionError``) is
raised at that first use.  :func:`define_all` defines every pending class (tests/unit/test_lazy_ops.py does, for
every dialect the registry lists, so each definition is still checked).

Code that changes an op class after its definition (``tileorch.dialects.cutlass.common.install`` wraps
``verify_``) registers the change with :func:`when_defined`, which runs it at the definition (at once for a class
defined already).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import FunctionType

import xdsl.irdl as _irdl
import xdsl.irdl.operations as _ops

_XDSL_OP_DEFINITION = _ops.irdl_op_definition
_MISSING = object()
_SPECIAL = ("get_irdl_definition", "traits", "verify_")
_FORMAT = ("parse", "print")
_NOT_FIELDS = frozenset(("name", "assembly_format", "custom_directives", "irdl_options", "traits"))
_OPERATION_MRO = frozenset(_ops.Operation.__mro__) | {_ops.IRDLOperation}
_PENDING: dict[type, tuple[dict[str, object], frozenset[str]]] = {}
"""Each class not defined yet -> (the entries of its dictionary that :class:`_Pending` descriptors replaced
(``_MISSING``: none was there), the names its dictionary had then)."""
_HOOKS: dict[type, list[Callable[[type], None]]] = {}
_LOCK = threading.RLock()


class _Pending(property):
    """Stands for the attribute ``name`` of the op class ``owner`` until that class is defined (a ``property``:
    ``OpDef.from_pyrdl`` passes over it, so ``get_irdl_definition``'s stays in place while the class is defined
    and an op made meanwhile in another thread waits for the definition in :func:`define`)."""

    __slots__ = ("owner", "name")

    def __init__(self, owner: type, name: str) -> None:
        super().__init__()
        self.owner, self.name = owner, name

    def __get__(self, obj, objtype=None):
        define(self.owner)
        if self.owner.__dict__.get(self.name) is self:  # (read by its own definition: not an op class's)
            raise RuntimeError(f"{self.owner.__name__}.{self.name} read while the class is defined")
        return getattr(obj, self.name) if obj is not None else getattr(objtype or self.owner, self.name)

    def __repr__(self) -> str:
        return f"<{self.name} of {self.owner.__name__}: defined on first use>"


def _field_names(cls: type) -> list[str]:
    """The entries of the dictionaries of ``cls`` and its bases below ``Operation`` that ``OpDef.from_pyrdl``
    reads as fields (what it skips: the op's name and format, its options and traits, ``Operation``'s own
    names, dunders, functions, properties, class and static methods, annotated class constants)."""
    names: dict[str, None] = {}
    for parent in cls.__mro__:
        if parent in _OPERATION_MRO:
            continue
        annotations = parent.__dict__.get("__annotations__", {})
        for name, value in parent.__dict__.items():
            if (name in names or name in _NOT_FIELDS or name in _ops._OPERATION_DICT_KEYS
                    or (name[:2] == "__" and name[-2:] == "__")
                    or isinstance(value, FunctionType | property | classmethod | staticmethod | _Pending)):
                continue
            if name in annotations and _ops.is_const_classvar(name, annotations[name], _ops.PyRDLOpDefinitionError):
                continue
            names[name] = None
    return list(names)


def lazy_irdl_op_definition(cls: type) -> type:
    """``irdl_op_definition`` on first use of ``cls`` (see the module's text); ``cls`` itself is returned."""
    assert issubclass(cls, _ops.IRDLOperation), f"class {cls.__name__} should be a subclass of IRDLOperation"
    names = [*_SPECIAL, *(_FORMAT if getattr(cls, "assembly_format", None) is not None else ()), *_field_names(cls)]
    saved = {name: cls.__dict__.get(name, _MISSING) for name in names}
    for name in names:
        setattr(cls, name, _Pending(cls, name))
    _PENDING[cls] = (saved, frozenset(cls.__dict__))
    return cls


def define(cls: type) -> type:
    """Make ``cls``'s definition now (its bases' first) if it is still pending; ``cls``.  What was set on the
    class since it was decorated (a format program a class method caches on it) is set again after the
    definition, as it was set after the eager one."""
    with _LOCK:  # (one definition at a time; a thread that reads a pending name meanwhile waits here)
        return _define(cls)


def _define(cls: type) -> type:
    entry = _PENDING.pop(cls, None)
    if entry is None:
        return cls
    saved, names = entry
    for base in cls.__mro__[1:]:
        if base in _PENDING:
            define(base)
    later = {name: value for name, value in cls.__dict__.items()
             if name not in names or (name in saved and not isinstance(value, _Pending))}
    for name in later:
        delattr(cls, name)
    for name, value in saved.items():
        if name == "get_irdl_definition" and value is _MISSING:
            continue  # (replaced by the definition's, last)
        if value is _MISSING:
            delattr(cls, name)
        else:
            setattr(cls, name, value)
    try:
        _XDSL_OP_DEFINITION(cls)
    except BaseException:  # still pending: the next use raises the definition's error again
        for name in saved:
            setattr(cls, name, _Pending(cls, name))
        _PENDING[cls] = entry
        for name, value in later.items():
            setattr(cls, name, value)
        raise
    if isinstance(cls.__dict__.get("get_irdl_definition"), _Pending):  # (xDSL's decorator sets it: not reached)
        delattr(cls, "get_irdl_definition")
    for name, value in later.items():
        setattr(cls, name, value)
    for hook in _HOOKS.pop(cls, ()):
        hook(cls)
    return cls


def pending(cls: type | None = None) -> bool | list[type]:
    """Whether ``cls``'s definition is still to be made; without ``cls``, every such class."""
    return cls in _PENDING if cls is not None else list(_PENDING)


def define_all() -> list[str]:
    """Define every pending class: the errors (``Name: message``) of those whose definition fails."""
    errors = []
    for cls in list(_PENDING):
        try:
            define(cls)
        except _ops.PyRDLOpDefinitionError as exc:
            errors.append(f"{cls.__name__}: {exc}")
    return errors


def when_defined(cls: type, hook: Callable[[type], None]) -> None:
    """Run ``hook(cls)`` once ``cls`` is defined (now if it is)."""
    if cls in _PENDING:
        _HOOKS.setdefault(cls, []).append(hook)
    else:
        hook(cls)


def install() -> bool:
    """Make op classes decorated from now on lazy (idempotent)."""
    if _irdl.irdl_op_definition is lazy_irdl_op_definition:
        return True
    _ops.irdl_op_definition = lazy_irdl_op_definition
    _irdl.irdl_op_definition = lazy_irdl_op_definition
    return True


def installed() -> bool:
    return _irdl.irdl_op_definition is lazy_irdl_op_definition


install()
