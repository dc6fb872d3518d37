"""``isinstance`` / ``issubclass`` against xDSL's and tileorch's IR classes answered from the
class's MRO, as for any plain class (issue 22: a cold compile's CPU).

xDSL's attributes, operations, constraints and traits are abstract base classes (``ABCMeta``).
``isinstance(x, C)`` with such a ``C`` (other than ``type(x) is C``) runs ``ABCMeta``'s Python
``__instancecheck__`` and its caches: ~0.35 us more than for a plain class, and a cold SIMT
compile makes some 66 000 of them.  ``issubclass(D, C)`` that is false walks every subclass of
``C`` (``ABCMeta`` looks for a virtual subclass among them): each ``Data`` attribute defined tests
``issubclass(cls, ParametrizedAttribute)`` against the hundred-odd parametrized attributes.

An ABC answers differently from its MRO only through virtual subclasses (``C.register(D)``) and
``__subclasshook__``.  No xDSL or tileorch class registers one or defines a hook, so for them the
MRO gives the same answers.  :func:`install` gives each such class (an ``ABCMeta`` class of a
module under ``xdsl.`` or ``tileorch.`` that has no registered virtual subclass and no
``__subclasshook__`` of its own or inherited below ``object``) the metaclass
:class:`MROCheckedABCMeta`: an ``ABCMeta`` (abstract methods, ``register`` and the rest as
before) whose ``__instancecheck__`` and ``__subclasscheck__`` are ``type``'s.  A class defined
later from such a base gets it too (a metaclass is inherited).  Where the MRO would stop being
the answer the class goes back to ``ABCMeta`` first: ``register`` on it, and a class defined
with a ``__subclasshook__``.

Importing this module runs :func:`install` (as :mod:`tileorch.dialects.lazy_formats` installs its
patch: the modules that define or load dialects on the compile route import both first).
:func:`install` again takes the classes defined since (idempotent).
"""

from __future__ import annotations

import abc
import sys

import xdsl.ir  # noqa: F401  (xDSL's Attribute and Operation: the roots most classes inherit the metaclass from)

PACKAGES = ("xdsl.", "tileorch.")
"""Modules whose ``ABCMeta`` classes :func:`install` takes (other libraries' ABCs are left alone)."""

_OBJECT_HOOK = object.__subclasshook__


class MROCheckedABCMeta(abc.ABCMeta):
    """``ABCMeta`` whose ``isinstance`` / ``issubclass`` read the MRO only (see the module's doc)."""

    __instancecheck__ = type.__instancecheck__
    __subclasscheck__ = type.__subclasscheck__

    def __new__(mcls, name, bases, namespace, /, **kwargs):
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        if "__subclasshook__" in namespace:  # it (and what derives from it) answers as an ABC
            cls.__class__ = abc.ABCMeta
        return cls

    def register(cls, subclass):
        """``ABCMeta.register``, the class answering as an ABC from now on (its virtual
        subclasses count again)."""
        cls.__class__ = abc.ABCMeta
        return abc.ABCMeta.register(cls, subclass)


def _eligible(cls: type) -> bool:
    """An ``ABCMeta`` class of :data:`PACKAGES` that the MRO answers for (no virtual subclass
    registered, no ``__subclasshook__`` other than ``object``'s)."""
    if type(cls) is not abc.ABCMeta or not (getattr(cls, "__module__", None) or "").startswith(PACKAGES):
        return False
    if any("__subclasshook__" in vars(c) for c in cls.__mro__ if c is not object):
        return False
    registry = abc._get_dump(cls)[0]  # noqa: SLF001 - ABCMeta's own record of its virtual subclasses
    return not registry


def _classes() -> list[type]:
    """The classes defined at the top level of the loaded modules of :data:`PACKAGES`, and all
    their subclasses (wherever defined)."""
    found: dict[int, type] = {}
    stack: list[type] = []
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(PACKAGES):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ == name and id(value) not in found:
                found[id(value)] = value
                stack.append(value)
    while stack:
        for sub in type.__subclasses__(stack.pop()):
            if id(sub) not in found:
                found[id(sub)] = sub
                stack.append(sub)
    return list(found.values())


def install() -> int:
    """Give every eligible class (:func:`_eligible`) :class:`MROCheckedABCMeta`; the number of
    classes changed."""
    changed = 0
    for cls in _classes():
        if _eligible(cls):
            cls.__class__ = MROCheckedABCMeta
            changed += 1
    return changed


install()
