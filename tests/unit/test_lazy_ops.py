"""``tileorch.dialects.lazy_ops``: an op class's IRDL definition is made on its first use, not when the class is
defined; the class it makes is the one xDSL's decorator makes (the same definition, the same accessors), every
definition of every dialect is still made and checked here, a bad one raises xDSL's error at first use, and the
cutlass dialect's common rules reach ops defined late."""

from __future__ import annotations

from importlib import import_module

import pytest
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, i32
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl import (AttrSizedOperandSegments, IRDLOperation, ParsePropInAttrDict, attr_def, operand_def,
                       opt_prop_def, prop_def, region_def, result_def, successor_def, traits_def, var_operand_def)
from xdsl.traits import NoTerminator, Pure
from xdsl.utils.exceptions import PyRDLOpDefinitionError, VerifyException

from tileorch.dialects import lazy_ops

irdl_op_definition = lazy_ops.lazy_irdl_op_definition  # (as a dialect module imported after lazy_ops binds it)


def _all_dialects():
    from tileorch import registry

    out = []
    for ref in registry.DIALECTS.values():
        module, attr = ref.split(":")
        out.append(getattr(import_module(module), attr))
    for name, attr in (("arith", "Arith"), ("llvm", "LLVM"), ("math", "Math"), ("scf", "Scf"), ("cf", "Cf"),
                       ("func", "Func")):
        out.append(getattr(import_module(f"xdsl.dialects.{name}"), attr))
    return out


def test_every_op_definition_is_made():
    """The definition xDSL makes when an op class is defined, made here for every op still pending (a definition
    that fails fails this test); each then names its class's op."""
    ops = [op for d in _all_dialects() for op in d.operations]
    assert len(ops) > 300
    assert lazy_ops.installed()
    assert lazy_ops.define_all() == []
    assert lazy_ops.pending() == []
    assert all(op.get_irdl_definition().name == op.name for op in ops)


def _body(tag: str) -> dict:
    """One class body with a field of every kind, an option, traits, a format and a verifier of its own."""

    def verify_(self) -> None:
        if self.label.data == "bad":
            raise VerifyException("bad label")

    return {
        "name": f"test_lazy_ops.{tag}",
        "x": operand_def(Attribute),
        "ys": var_operand_def(Attribute),
        "r": result_def(Attribute),
        "body": region_def(),
        "next": successor_def(),
        "label": attr_def(StringAttr),
        "count": prop_def(IntegerAttr),
        "maybe": opt_prop_def(IntegerAttr),
        "irdl_options": (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict()),
        "traits": traits_def(Pure(), NoTerminator()),
        "assembly_format": "$x `,` $ys attr-dict `:` type($x) `,` type($ys) `->` type($r) $body $next",
        "verify_": verify_,
    }


def test_a_lazy_definition_is_the_eager_one():
    eager = _irdl_eager(type("EagerOp", (IRDLOperation,), _body("eager")))
    lazy = irdl_op_definition(type("LazyOp", (IRDLOperation,), _body("lazy")))
    assert lazy_ops.pending(lazy) and not lazy_ops.pending(eager)
    assert isinstance(lazy.__dict__["x"], lazy_ops._Pending)
    d_lazy, d_eager = lazy.get_irdl_definition(), eager.get_irdl_definition()  # the first read defines it
    assert not lazy_ops.pending(lazy)
    assert d_lazy.name == "test_lazy_ops.lazy"
    assert _shape(d_lazy) == _shape(d_eager)
    assert sorted(lazy.__dict__) == sorted(eager.__dict__)
    for key in eager.__dict__:
        if key not in ("__qualname__", "__module__", "__doc__", "name", "__dict__", "__weakref__"):
            assert type(lazy.__dict__[key]) is type(eager.__dict__[key]), key
    assert not any(isinstance(v, lazy_ops._Pending) for v in lazy.__dict__.values())


def _shape(d) -> tuple:
    """An ``OpDef`` less its name, its parts as (name, kind, constraint) (``SuccessorDef``, ``RegionDef`` have no
    equality of their own)."""
    def part(n, x):
        return n, type(x).__name__, getattr(x, "constr", None), getattr(x, "default_value", None)

    return (tuple(part(n, x) for n, x in d.operands), tuple(part(n, x) for n, x in d.results),
            tuple(part(n, x) for n, x in d.regions), tuple(part(n, x) for n, x in d.successors),
            tuple(part(n, x) for n, x in d.attributes.items()), tuple(part(n, x) for n, x in d.properties.items()),
            tuple(type(t) for t in d.traits), tuple(map(type, d.options)), d.assembly_format, d.accessor_names)


def _irdl_eager(cls):
    return lazy_ops._XDSL_OP_DEFINITION(cls)


def test_an_op_made_by_create_defines_its_class():
    """``Op.create`` (the generic parser's, ``clone``'s way) does not call ``__init__``: the op's construction
    still defines the class (``IRDLOperation.__post_init__`` reads the definition), and its fields, format and
    verifier are then the eager class's."""
    lazy = irdl_op_definition(type("CreatedOp", (IRDLOperation,), _body("created")))
    assert lazy_ops.pending(lazy)
    block = Block(arg_types=[i32, i32])
    succ = Block()
    op = lazy.create(operands=list(block.args), result_types=[i32], regions=[Region()], successors=[succ],
                     attributes={"label": StringAttr("bad")},
                     properties={"count": IntegerAttr(3, 32),
                                 "operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1])})
    assert not lazy_ops.pending(lazy)
    assert op.x is block.args[0] and tuple(op.ys) == (block.args[1],) and op.label == StringAttr("bad")
    assert op.maybe is None and op.next is succ and op.count == IntegerAttr(3, 32)
    with pytest.raises(VerifyException, match="bad label"):
        op.verify_()


def test_a_pending_class_read_as_a_class_is_defined_first():
    """The traits (``Op.has_trait``), the format (the parser's ``Op.parse``) or the definition read from the class
    itself (no op made yet) define it, and read what the eager class has."""
    for attr, expect in (("traits", "OpTraits"), ("parse", "method"), ("get_irdl_definition", "method")):
        lazy = irdl_op_definition(type(f"ReadOp_{attr}", (IRDLOperation,), _body(f"read_{attr}")))
        assert lazy_ops.pending(lazy)
        assert type(getattr(lazy, attr)).__name__ == expect, attr
        assert not lazy_ops.pending(lazy)
        assert type(lazy.__dict__["x"]).__name__.endswith("Accessor")  # (the field too)
    lazy = irdl_op_definition(type("TraitOp", (IRDLOperation,), _body("trait")))
    assert lazy.has_trait(Pure) and not lazy_ops.pending(lazy)


def test_a_bad_definition_raises_at_first_use_and_stays_pending():
    bad = irdl_op_definition(type("BadOp", (IRDLOperation,), {"name": "test_lazy_ops.bad", "x": 42}))
    try:
        assert lazy_ops.pending(bad)
        for _ in range(2):  # every use raises it, as the eager decorator raised it at the class
            with pytest.raises(PyRDLOpDefinitionError):
                bad.get_irdl_definition()
            assert lazy_ops.pending(bad)
        with pytest.raises(PyRDLOpDefinitionError):
            _irdl_eager(type("BadEagerOp", (IRDLOperation,), {"name": "test_lazy_ops.bad_eager", "x": 42}))
        errors = lazy_ops.define_all()
        assert len(errors) == 1 and errors[0].startswith("BadOp: "), errors
    finally:
        lazy_ops._PENDING.pop(bad, None)


def test_cutlass_common_rules_reach_ops_defined_late():
    """``tileorch.dialects.cutlass.common.install`` wraps ``verify_`` when the op class is defined, also when
    that happens after the dialect's import."""
    from tileorch.dialects.cutlass import FAMILIES, common

    lazy = irdl_op_definition(type("LateCutlassOp", (IRDLOperation,), {"name": "cutlass.test_late"}))
    common.install(lazy)
    assert lazy_ops.pending(lazy)
    assert lazy.verify_._cutlass_common is lazy  # (the read defined it, then the hook wrapped it)
    assert not lazy_ops.pending(lazy)
    lazy_ops.define_all()
    assert all(op.verify_._cutlass_common is op for ops in FAMILIES.values() for op in ops)


def test_ops_made_in_two_threads_at_once_wait_for_their_class_definition():
    """Two threads making the first ops of a class together (thread switches forced every microsecond): the one
    that comes while the other defines the class waits for the definition (``get_irdl_definition`` stays pending
    until the definition replaces it), and both build complete ops."""
    import sys
    import threading

    def make(cls, out):
        try:
            block = Block(arg_types=[i32])
            out.append(cls.create(operands=[block.args[0]], result_types=[i32]).x is block.args[0])
        except Exception as exc:  # noqa: BLE001 - collected for the assertion
            out.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for i in range(40):
            cls = irdl_op_definition(type(f"ThreadOp{i}", (IRDLOperation,), {
                "name": f"test_lazy_ops.thread{i}", "x": operand_def(Attribute), "r": result_def(Attribute)}))
            out: list = []
            threads = [threading.Thread(target=make, args=(cls, out)) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert out == [True, True], (i, out)
    finally:
        sys.setswitchinterval(old)
