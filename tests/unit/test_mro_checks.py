"""``tileorch.dialects.mro_checks``: xDSL's and tileorch's IR classes answer ``isinstance`` and
``issubclass`` from their MRO, with the answers ``ABCMeta`` gives, and go back to ``ABCMeta``
where those would differ (a registered virtual subclass, a ``__subclasshook__``)."""

from __future__ import annotations

import abc
import collections.abc
import itertools

import pytest

import tileorch.backend.compile  # noqa: F401  (the compile route's modules: the metaclass installed)
from tileorch.dialects import mro_checks
from tileorch.dialects.mro_checks import MROCheckedABCMeta
from xdsl.dialects import arith, builtin, llvm
from xdsl.dialects.builtin import IntegerAttr, IntegerType, StringAttr, i32
from xdsl.ir import Attribute, Data, Operation, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import IRDLOperation
from xdsl.irdl.constraints import AttrConstraint, BaseAttr

CLASSES = [Attribute, Data, ParametrizedAttribute, TypeAttribute, Operation, IRDLOperation, AttrConstraint, BaseAttr,
           IntegerType, StringAttr, IntegerAttr, arith.AddiOp, llvm.AddOp, llvm.LLVMPointerType, builtin.ModuleOp]


def test_the_compile_routes_ir_classes_have_the_metaclass():
    for cls in (Attribute, ParametrizedAttribute, Data, Operation, IRDLOperation, AttrConstraint, IntegerType,
                llvm.AddOp, arith.AddiOp):
        assert type(cls) is MROCheckedABCMeta, cls
    assert type(collections.abc.Sequence) is abc.ABCMeta  # other libraries' ABCs are left alone
    mro_checks.install()  # the classes of the modules imported since (xDSL's passes, patterns ...)
    assert mro_checks.install() == 0  # then nothing is left to take


@pytest.mark.parametrize("sub,sup", list(itertools.product(CLASSES, CLASSES)))
def test_issubclass_is_abcmetas_answer(sub, sup):
    assert issubclass(sub, sup) == abc.ABCMeta.__subclasscheck__(sup, sub)


def test_isinstance_is_abcmetas_answer():
    values = [i32, StringAttr("s"), IntegerAttr(3, i32), builtin.ModuleOp([]), BaseAttr(IntegerType), 3, "x", None]
    for value, cls in itertools.product(values, CLASSES):
        assert isinstance(value, cls) == abc.ABCMeta.__instancecheck__(cls, value), (value, cls)


def test_abstract_methods_are_still_enforced():
    class Partial(AttrConstraint):  # verify (abstract) not defined
        pass

    assert type(Partial) is MROCheckedABCMeta
    with pytest.raises(TypeError, match="abstract"):
        Partial()


def test_register_goes_back_to_abcmeta_and_counts_the_virtual_subclass():
    class Root(Attribute):
        name = "test.mro_root"

    class Other:
        pass

    assert type(Root) is MROCheckedABCMeta and not isinstance(Other(), Root)
    Root.register(Other)
    assert type(Root) is abc.ABCMeta
    assert isinstance(Other(), Root) and issubclass(Other, Root)


def test_a_subclass_hook_keeps_the_abc_answer():
    class Hooked(Attribute):
        name = "test.mro_hooked"

        @classmethod
        def __subclasshook__(cls, other):
            return True if getattr(other, "quacks", False) else NotImplemented

    class Duck:
        quacks = True

    assert type(Hooked) is abc.ABCMeta
    assert isinstance(Duck(), Hooked) and not isinstance(3, Hooked)


def test_a_class_registered_before_install_is_not_taken():
    class Late(metaclass=abc.ABCMeta):
        pass

    Late.__module__ = "tileorch.test_mro_checks_late"
    Late.register(int)
    assert not mro_checks._eligible(Late)  # noqa: SLF001
    class Plain(metaclass=abc.ABCMeta):
        pass

    Plain.__module__ = "tileorch.test_mro_checks_plain"
    assert mro_checks._eligible(Plain)  # noqa: SLF001
