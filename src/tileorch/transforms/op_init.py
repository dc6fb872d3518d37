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
lists are what ``irdl_op_init`` passes on (without options it uses the segment sizes for
nothing).  Any other form goes through ``irdl_op_init``.

:func:`install` puts it in place of ``irdl_op_init`` in :mod:`xdsl.irdl.operations` (whose
``IRDLOperation.__init__`` calls it); the lowering passes install it when imported.
"""

from __future__ import annotations

from collections.abc import Sequence

import xdsl.irdl.operations as irdl_ops
from xdsl.ir import Attribute, Block, Operation, SSAValue

_XDSL_OP_INIT = irdl_ops.irdl_op_init
_PLAIN: dict[int, tuple[object, int, int] | None] = {}
"""id(op definition) -> (the definition, operand count, result count) when its ops can be built
directly, else None (the definition is kept: its id is not reused while it is in the dict)."""
_SEQUENCE_TYPES: dict[type, bool] = {}


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


def _simple(op_def) -> bool:
    """No options and no regions: ``irdl_op_init`` then only flattens the arguments."""
    key = id(op_def)
    found = _SIMPLE.get(key)
    if found is None:
        found = _SIMPLE[key] = (op_def, not op_def.options and not op_def.regions)
    return found[1]


_SIMPLE: dict[int, tuple[object, bool]] = {}
"""id(op definition) -> (the definition, :func:`_simple`'s answer)."""


def _flatten(args, defs, single: type | None, none_ok: type) -> list | None:
    """``irdl_build_arg_list``'s flat list for ``args`` against ``defs`` when every argument is
    in the simple form (``single``: the class of one entry, None for a result type: an attribute
    that is not a sequence; a list or tuple of such for a variadic definition; ``None`` for a
    definition of class ``none_ok``), else None (``irdl_op_init`` then builds it, or raises)."""
    if len(args) != len(defs):
        return None
    out: list = []
    for arg, (_, d) in zip(args, defs):
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
    return out


def _is_type(t: object) -> bool:
    """An attribute ``irdl_op_init`` takes as one result type (not a sequence of them)."""
    cls = type(t)
    seq = _SEQUENCE_TYPES.get(cls)
    if seq is None:
        seq = _SEQUENCE_TYPES[cls] = not isinstance(t, Attribute) or isinstance(t, Sequence)
    return not seq


def fast_irdl_op_init(self, op_def, *, operands, result_types, properties, attributes, successors, regions) -> None:
    """``irdl_op_init`` (same arguments, same op built, same errors)."""
    plain = _plain(op_def)
    if (plain is None or successors or regions or len(operands) != plain[1] or len(result_types) != plain[2]
            or not all(isinstance(o, SSAValue) for o in operands) or not all(_is_type(t) for t in result_types)):
        if regions or not _simple(op_def):
            _XDSL_OP_INIT(self, op_def, operands=operands, result_types=result_types, properties=properties,
                          attributes=attributes, successors=successors, regions=regions)
            return
        # variadic / optional operands, results or successors (see the module's doc)
        built_operands = _flatten(operands, op_def.operands, SSAValue, irdl_ops.VariadicDef)
        built_types = _flatten(result_types, op_def.results, None, irdl_ops.OptionalDef)
        built_successors = _flatten(successors, op_def.successors, Block, irdl_ops.OptionalDef)
        if built_operands is None or built_types is None or built_successors is None:
            _XDSL_OP_INIT(self, op_def, operands=operands, result_types=result_types, properties=properties,
                          attributes=attributes, successors=successors, regions=regions)
            return
        Operation.__init__(
            self,
            operands=built_operands,
            result_types=built_types,
            properties={k: v for k, v in properties.items() if v is not None},
            attributes={k: v for k, v in attributes.items() if v is not None},
            successors=built_successors,
            regions=[],
        )
        return
    Operation.__init__(
        self,
        operands=list(operands),
        result_types=list(result_types),
        properties={k: v for k, v in properties.items() if v is not None},
        attributes={k: v for k, v in attributes.items() if v is not None},
        successors=[],
        regions=[],
    )


def install() -> None:
    """Use :func:`fast_irdl_op_init` for every IRDL op built from now on (once; only over the
    xDSL function it was written against)."""
    code = getattr(_XDSL_OP_INIT, "__code__", None)
    names = set(getattr(code, "co_names", ()))
    for const in getattr(code, "co_consts", ()):  # the names its comprehensions use
        names.update(getattr(const, "co_names", ()))
    if (irdl_ops.irdl_op_init is _XDSL_OP_INIT and _XDSL_OP_INIT.__name__ == "irdl_op_init"
            and {"irdl_build_arg_list", "irdl_build_operations_arg", "irdl_build_regions_arg"} <= names):
        irdl_ops.irdl_op_init = fast_irdl_op_init


__all__ = ["fast_irdl_op_init", "install"]
