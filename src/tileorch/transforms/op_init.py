"""IRDL op construction without the general builder's bookkeeping, for the common shape of op.

Every op a lowering builds goes through xDSL's ``irdl_op_init``: it formats an error prefix,
classifies each operand, result, region and successor argument against its definition
(optional, variadic, sequence or single), collects their sizes and checks the definition's
options.  For an op whose definition has only single operands and results, no regions, no
successors and no options (``llvm.add``, ``arith.constant``, ``llvm.load`` ...), given one
SSA value per operand and one type per result, all of that reduces to passing them on:
:func:`fast_irdl_op_init` then calls ``Operation.__init__`` directly with what
``irdl_op_init`` would have passed it (the properties and attributes without their ``None``
entries).  Any other op, or arguments of any other form (an ``Operation`` for an operand, a
list, ``None``, a wrong count: where ``irdl_op_init`` converts or raises), goes through
``irdl_op_init`` itself.  Op construction was about half of the lowering passes that build
thousands of ops (``convert-nv-tileas-to-cutlass``, ``convert-nv-tileaa-to-simt``).

An op whose definition has no regions and no options but variadic or optional operands,
results or successors (``llvm.inline_asm``, ``llvm.br``, ``cf.br``, ``scf.yield``,
``llvm.getelementptr``: a third of the ops a compile builds) is built directly too when each
argument is in the simple form (:func:`_flatten`: an SSA value, type or block for one entry, a
list or tuple of them for a variadic one, ``None`` for an absent optional one): the flattened
lists are what ``irdl_op_init`` passes on.  Its only use of the lists' segment sizes is the
array an ``AttrSizedOperandSegments`` / ``...ResultSegments`` / ``...SuccessorSegments`` option
adds (``llvm.call_intrinsic``, ``llvm.call``, ``cf.cond_br``: built by ``irdl_op_init`` they
cost 4-6 times a plain op, mostly packing and verifying that array anew): such an op is built
directly too, the array added after the given properties (or attributes) as ``irdl_op_init``
adds it, one shared array per list of sizes.  Any other form, or any other option, goes
through ``irdl_op_init``.

Both direct paths then initialise the op with :func:`init_operation`, which sets the fields
``Operation.__init__`` sets, to the same values, in one function (no property setters replacing
empty use lists, no generator per op, the unknown location read once): about half of the
construction's time.  It is used only over the ``Operation.__init__`` it was written against
(:data:`LEAN_INIT`: the names that function's code reads are checked once); over any other the
ops are built by ``Operation.__init__`` itself.

:func:`install` puts it in place of ``irdl_op_init`` in :mod:`xdsl.irdl.operations` (whose
``IRDLOperation.__init__`` calls it); the lowering passes install it when imported.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import xdsl.irdl.operations as irdl_ops
from xdsl.dialects.builtin import UNKNOWN_LOC, DenseArrayBase, i32
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue, SSAValues, Use

from tileorch.transforms.xdsl_code import code_names

_XDSL_OP_INIT = irdl_ops.irdl_op_init
_PLAIN: dict[int, tuple[object, int, int] | None] = {}
"""id(op definition) -> (the definition, operand count, result count) when its ops can be built
directly, else None (the definition is kept: its id is not reused while it is in the dict)."""
_SEQUENCE_TYPES: dict[type, bool] = {}
_VALUE_CLASSES = frozenset({OpResult, BlockArgument})
"""The SSA value classes an operand usually is (tested by class before ``isinstance``: ``SSAValue`` is an
abstract class, whose ``isinstance`` costs several times a set look-up)."""


def _plain(op_def) -> tuple[object, int, int] | None:
    key = id(op_def)
    found = _PLAIN.get(key, False)
    if found is False:
        single = (irdl_ops.OperandDef, irdl_ops.ResultDef)
        ok = (not op_def.options and not op_def.regions and not op_def.successors
              and all(type(d) in single and not isinstance(d, (irdl_ops.VariadicDef, irdl_ops.OptionalDef))
                      for _, d in (*op_def.operands, *op_def.results)))
        found = _PLAIN[key] = (op_def, len(op_def.operands), len(op_def.results)) if ok else None
    return found


_SEGMENT_OPTIONS = {irdl_ops.AttrSizedOperandSegments: 0, irdl_ops.AttrSizedResultSegments: 1,
                    irdl_ops.AttrSizedSuccessorSegments: 2}
"""The options ``irdl_op_init`` answers with the sizes of the flattened arguments alone -> which
sizes (operands, results, successors)."""


def _simple(op_def) -> tuple | None:
    """No regions and, of the options ``irdl_op_init`` reads, only operand, result or successor
    segment sizes: it then only flattens the arguments and adds each such option's sizes array.  Those options as
    (which sizes, whether a property, the name), in the definition's order; None otherwise."""
    key = id(op_def)
    found = _SIMPLE.get(key)
    if found is None:
        segments = tuple((_SEGMENT_OPTIONS[type(o)], o.as_property, o.attribute_name) for o in op_def.options
                         if type(o) in _SEGMENT_OPTIONS)
        # (irdl_op_init reads no other option but region segments and same variadic sizes)
        ok = not op_def.regions and not any(
            type(o) not in _SEGMENT_OPTIONS and isinstance(o, (irdl_ops.AttrSizedSegments, irdl_ops.SameVariadicSize))
            for o in op_def.options)
        found = _SIMPLE[key] = (op_def, segments if ok else None)
    return found[1]


_SIMPLE: dict[int, tuple[object, tuple | None]] = {}
"""id(op definition) -> (the definition, :func:`_simple`'s answer)."""


@cache
def _segment_sizes(sizes: tuple[int, ...]):
    """``DenseArrayBase.from_list(i32, sizes)`` (the same object for the same sizes)."""
    return DenseArrayBase.from_list(i32, sizes)


def _flatten(args, defs, single: type | None, none_ok: type, sizes: list | None = None) -> list | None:
    """``irdl_build_arg_list``'s flat list for ``args`` against ``defs`` when every argument is
    in the simple form (``single``: the class of one entry, None for a result type: an attribute
    that is not a sequence; a list or tuple of such for a variadic definition; ``None`` for a
    definition of class ``none_ok``), else None (``irdl_op_init`` then builds it, or raises).
    ``sizes``: its sizes list (entries per definition) is appended there."""
    if len(args) != len(defs):
        return None
    out: list = []
    for arg, (_, d) in zip(args, defs):
        before = len(out)
        if arg is None:
            if not isinstance(d, none_ok):
                return None
        elif (isinstance(arg, single) if single is not None else _is_type(arg)):
            out.append(arg)
        elif type(arg) in (list, tuple):
            if not isinstance(d, irdl_ops.VariadicDef):
                if len(arg) != 1:
                    return None
            elif isinstance(d, irdl_ops.OptionalDef) and len(arg) > 1:
                return None
            if single is not None:
                if not all(isinstance(a, single) for a in arg):
                    return None
            elif not all(_is_type(a) for a in arg):
                return None
            out.extend(arg)
        else:
            return None
        if sizes is not None:
            sizes.append(len(out) - before)
    return out


def _is_type(t: object) -> bool:
    """An attribute ``irdl_op_init`` takes as one result type (not a sequence of them)."""
    cls = type(t)
    seq = _SEQUENCE_TYPES.get(cls)
    if seq is None:
        seq = _SEQUENCE_TYPES[cls] = not isinstance(t, Attribute) or isinstance(t, Sequence)
    return not seq


_OPERATION_INIT_NAMES = frozenset({"super", "__init__", "operands", "SSAValues", "OpResult", "enumerate", "results",
                                   "dict", "properties", "attributes", "_unknown_loc", "location", "list",
                                   "successors", "regions", "add_region", "__post_init__"})
"""The global and attribute names xDSL 0.74's ``Operation.__init__`` reads (its code's ``co_names``)."""
_SETTER_NAMES = frozenset({"SSAValues", "tuple", "Use", "range", "len", "zip", "_operands", "_operand_uses",
                           "remove_use", "add_use", "_successors", "_successor_uses"})
"""The names its ``operands`` and ``successors`` setters read, together."""


def _lean_init_applies() -> bool:
    """Whether ``Operation.__init__`` and the two setters it calls are the ones
    :func:`init_operation` mirrors (checked by the names their code reads)."""
    try:
        setters = (code_names(Operation.operands.fset, nested=True)
                   | code_names(Operation.successors.fset, nested=True))
    except AttributeError:
        return False
    return code_names(Operation.__init__, nested=True) == _OPERATION_INIT_NAMES and setters == _SETTER_NAMES


LEAN_INIT = _lean_init_applies()
"""Whether :func:`init_operation` initialises ops (else ``Operation.__init__`` does)."""


def init_operation(op: Operation, operands: list, result_types: list, properties: dict, attributes: dict,
                   successors: list) -> None:
    """``Operation.__init__(op, operands=..., result_types=..., properties=..., attributes=...,
    successors=..., regions=())`` for a new op (its fields still the class defaults: no uses to
    drop), taking ``properties`` and ``attributes`` as they are (fresh dicts of the caller's):
    the same fields set to the same values, uses registered in the same order, then what the
    op's ``__post_init__`` does (the IRDL defaults, :func:`_post_init`) as there."""
    values = SSAValues(operands)
    op._operands = values
    op._operand_uses = _uses(op, values)
    op.results = SSAValues([OpResult(t, op, i) for i, t in enumerate(result_types)])
    op.properties = properties
    op.attributes = attributes
    op.location = UNKNOWN_LOC
    blocks = tuple(successors)
    op._successors = blocks
    op._successor_uses = _uses(op, blocks) if blocks else ()
    op.regions = ()
    _post_init(op)


_POST_INIT_NAMES = frozenset({"get_irdl_definition", "properties", "items", "isinstance", "OptionalDef",
                              "default_value", "attributes", "super", "__post_init__"})
"""The names xDSL 0.74's ``IRDLOperation.__post_init__`` reads (fill in the definition's
default properties and attributes, then ``Operation.__post_init__``: the op name's checks)."""
_DEFAULTS: dict[type, tuple | None] = {}
"""Op class -> (its default properties, its default attributes) as (name, value) pairs in
definition order, or None where the op's own ``__post_init__`` runs (:func:`_defaults`)."""


def _defaults(cls: type) -> tuple | None:
    """What ``IRDLOperation.__post_init__`` adds to a new op of ``cls``: the definition's
    non-optional properties and attributes that have a default value (they never change after
    the class's definition); None where the class's ``__post_init__`` is not that one (or
    ``Operation.__post_init__``'s check of the name would fail: it then raises as before)."""
    post = getattr(cls, "__post_init__", None)
    name = getattr(cls, "name", None)
    if (post is not irdl_ops.IRDLOperation.__post_init__ or not isinstance(name, str) or not name
            or code_names(post) != _POST_INIT_NAMES):
        return None
    op_def = cls.get_irdl_definition()
    return (tuple((n, d.default_value) for n, d in op_def.properties.items()
                  if not isinstance(d, irdl_ops.OptionalDef) and d.default_value is not None),
            tuple((n, d.default_value) for n, d in op_def.attributes.items()
                  if not isinstance(d, irdl_ops.OptionalDef) and d.default_value is not None))


def _post_init(op: Operation) -> None:
    """``op.__post_init__()``: for an IRDL op, its definition's defaults added to the properties
    and attributes it lacks (in definition order), from a table made once per class, then
    ``Operation.__post_init__`` as ``IRDLOperation.__post_init__`` calls it (whatever it is at
    the time: inside an ``ImplicitBuilder`` it also inserts the op)."""
    cls = type(op)
    found = _DEFAULTS.get(cls, False)
    if found is False:
        found = _DEFAULTS[cls] = _defaults(cls)
    if found is None:
        op.__post_init__()
        return
    properties, attributes = found
    for name, value in properties:
        if name not in op.properties:
            op.properties[name] = value
    for name, value in attributes:
        if name not in op.attributes:
            op.attributes[name] = value
    Operation.__post_init__(op)  # (read now: xDSL's ImplicitBuilder replaces it to insert the op it is building)


def _uses(op: Operation, used: tuple) -> tuple:
    """One ``Use`` of ``op`` per item of ``used`` (values or blocks), each added to its item's
    uses (in order, as the ``operands`` / ``successors`` setters add them)."""
    uses = tuple([Use(op, i) for i in range(len(used))])
    for item, use in zip(used, uses):
        item.add_use(use)
    return uses


def create_op(cls: type, operands: list, result_types: list, properties: dict) -> Operation:
    """``cls.create(operands=..., result_types=..., properties=...)``: a new op of ``cls`` built
    without its builder (operands, types and properties taken as given, as ``create`` takes
    them), initialised by :func:`init_operation` where :data:`LEAN_INIT` holds."""
    if not LEAN_INIT:
        return cls.create(operands=operands, result_types=result_types, properties=properties)
    op = cls.__new__(cls)
    init_operation(op, list(operands), list(result_types), dict(properties), {}, [])
    return op


def _init(op: Operation, operands: list, result_types: list, properties: dict, attributes: dict,
          successors: list) -> None:
    if LEAN_INIT:
        init_operation(op, operands, result_types, properties, attributes, successors)
    else:
        Operation.__init__(op, operands=operands, result_types=result_types, properties=properties,
                           attributes=attributes, successors=successors, regions=[])


def fast_irdl_op_init(self, op_def, *, operands, result_types, properties, attributes, successors, regions) -> None:
    """``irdl_op_init`` (same arguments, same op built, same errors)."""
    plain = _plain(op_def)
    simple = not (plain is None or successors or regions or len(operands) != plain[1]
                  or len(result_types) != plain[2])
    if simple:  # (loops, not all() over generators; an ABC's isinstance only for a value of another class)
        for o in operands:
            if type(o) not in _VALUE_CLASSES and not isinstance(o, SSAValue):
                simple = False
                break
        else:
            for t in result_types:
                seq = _SEQUENCE_TYPES.get(type(t))
                if seq is None:
                    seq = not _is_type(t)
                if seq:
                    simple = False
                    break
    if not simple:
        segments = None if regions else _simple(op_def)
        if segments is None:
            _XDSL_OP_INIT(self, op_def, operands=operands, result_types=result_types, properties=properties,
                          attributes=attributes, successors=successors, regions=regions)
            return
        # variadic / optional operands, results or successors (see the module's doc)
        sizes: tuple[list, list, list] | None = ([], [], []) if segments else None
        built_operands = _flatten(operands, op_def.operands, SSAValue, irdl_ops.VariadicDef, sizes and sizes[0])
        built_types = _flatten(result_types, op_def.results, None, irdl_ops.OptionalDef, sizes and sizes[1])
        built_successors = _flatten(successors, op_def.successors, Block, irdl_ops.OptionalDef, sizes and sizes[2])
        if built_operands is None or built_types is None or built_successors is None:
            _XDSL_OP_INIT(self, op_def, operands=operands, result_types=result_types, properties=properties,
                          attributes=attributes, successors=successors, regions=regions)
            return
        built_properties = {k: v for k, v in properties.items() if v is not None}
        built_attributes = {k: v for k, v in attributes.items() if v is not None}
        for which, as_property, name in segments:  # after the given ones, as irdl_op_init adds them
            (built_properties if as_property else built_attributes)[name] = _segment_sizes(tuple(sizes[which]))
        _init(self, built_operands, built_types, built_properties, built_attributes, built_successors)
        return
    _init(self, list(operands), list(result_types), {k: v for k, v in properties.items() if v is not None},
          {k: v for k, v in attributes.items() if v is not None}, [])


def install() -> None:
    """Use :func:`fast_irdl_op_init` for every IRDL op built from now on (once; only over the
    xDSL function it was written against)."""
    names = code_names(_XDSL_OP_INIT, nested=True)
    if (irdl_ops.irdl_op_init is _XDSL_OP_INIT and _XDSL_OP_INIT.__name__ == "irdl_op_init"
            and {"irdl_build_arg_list", "irdl_build_operations_arg", "irdl_build_regions_arg"} <= names):
        irdl_ops.irdl_op_init = fast_irdl_op_init


__all__ = ["LEAN_INIT", "create_op", "fast_irdl_op_init", "init_operation", "install"]
