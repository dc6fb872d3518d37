"""Verifiers of the discardable attributes that configure a kernel launch.

Like MLIR's ``Dialect::verifyOperationAttribute``, these run on every op that carries one of
the attributes (``tileorch.diagnostics.verify_located`` calls :func:`verify_kernel_attributes`),
so a value LLVM's NVPTX backend would assert on, or ptxas would reject, is a located verifier
error instead of an abort.  Every bound below comes from the hardware / PTX ISA, not from the
CUTLASS seeds:

* ``nvvm.maxntid`` / ``nvvm.reqntid``: 1 to 3 extents, each >= 1, product <= 1024 (threads per
  CTA on sm_90/sm_100);
* ``nvvm.cluster_dim`` and the module's ``cutlass.cluster_shape``: 1 to 3 (cluster_shape: exactly
  3) extents, each >= 1, product <= 16 (the largest, non-portable, cluster; a zero extent makes
  LLVM 22 assert in ``NVPTXAsmPrinter::emitKernelFunctionDirectives``); a kernel that uses
  ``cutlass`` ops must not declare a cluster_dim other than the module's cluster_shape (the
  cluster-aware lowerings read the module's shape);
* ``nvvm.minctasm``: in [1, 32] (resident CTAs per SM); ``nvvm.maxnreg``: in [1, 255]
  (registers per thread);
* ``cutlass.target``: a string ``sm_<N>a`` naming an arch-specific target.

:func:`verify_kernel_calls` (also run on every op): ``nvvm.kernel`` is a unit attribute, no ``func.call`` /
``llvm.call`` calls a kernel (a ``.entry`` is launched from the host; ptxas rejected the call as
"Illegal call target, device function expected", reported at line 1), and the name of a function
or global that becomes a PTX symbol is a PTX identifier (LLVM aborted on ``@"a b"`` with "Symbol
name with unsupported characters"; ptxas rejected ``@"1k"``).  LLVM intrinsic declarations
(``llvm.*``) keep their dotted names.
"""

from __future__ import annotations

import math
import re

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, StringAttr, SymbolRefAttr, UnitAttr
from xdsl.ir import Operation
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

MAX_CTA_THREADS = 1024
MAX_CLUSTER_CTAS = 16
MAX_CTAS_PER_SM = 32
MAX_REGISTERS = 255

BLOCK_ATTRS = ("nvvm.maxntid", "nvvm.reqntid")
CLUSTER_DIM = "nvvm.cluster_dim"
CLUSTER_SHAPE = "cutlass.cluster_shape"
TARGET = "cutlass.target"
SCALAR_ATTRS = {"nvvm.minctasm": (1, MAX_CTAS_PER_SM, "resident CTAs per SM"),
                "nvvm.maxnreg": (1, MAX_REGISTERS, "registers per thread")}
_NAMES = (*BLOCK_ATTRS, CLUSTER_DIM, CLUSTER_SHAPE, TARGET, *SCALAR_ATTRS)


def int_array(attr, name: str, min_len: int = 1, max_len: int = 3) -> list[int]:
    """The integers of an ``array<iN: ...>`` attribute (or of one integer), or a diagnostic naming ``name``."""
    if isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType) and min_len == 1:
        return [attr.value.data]
    if not isinstance(attr, DenseArrayBase) or not isinstance(attr.elt_type, IntegerType):
        raise VerifyException(f"{name} must be an integer array (e.g. array<i32: 128, 1, 1>), found {attr}")
    values = [int(v) for v in attr.get_values()]
    if not min_len <= len(values) <= max_len:
        count = f"{min_len}" if min_len == max_len else f"{min_len} to {max_len}"
        raise VerifyException(f"{name} must have {count} extents, found {len(values)}")
    return values


def _extents(attr, name: str, limit: int, what: str, min_len: int = 1) -> list[int]:
    values = int_array(attr, name, min_len)
    if any(v < 1 for v in values):
        raise VerifyException(f"{name} extents must be >= 1, found {values}")
    if math.prod(values) > limit:
        raise VerifyException(f"{name} = {values} has {math.prod(values)} {what}, more than the hardware's {limit}")
    return values


def verify_kernel_attributes(op: Operation) -> None:
    """Check the launch-configuration attributes ``op`` carries (a no-op for most ops)."""
    attrs = op.attributes
    if not attrs or attrs.keys().isdisjoint(_NAMES):  # most ops: no attribute, or none of these
        return
    for name in BLOCK_ATTRS:
        if name in attrs:
            _extents(attrs[name], name, MAX_CTA_THREADS, "threads per CTA")
    cluster = None
    if CLUSTER_DIM in attrs:
        cluster = _extents(attrs[CLUSTER_DIM], CLUSTER_DIM, MAX_CLUSTER_CTAS, "CTAs per cluster")
    if CLUSTER_SHAPE in attrs:
        value = attrs[CLUSTER_SHAPE]
        if not (isinstance(value, DenseArrayBase) and isinstance(value.elt_type, IntegerType)
                and len(value.get_values()) == 3):
            raise VerifyException(f"{CLUSTER_SHAPE} must be array<i32: X, Y, Z>, found {value}")
        shape = _extents(value, CLUSTER_SHAPE, MAX_CLUSTER_CTAS, "CTAs per cluster", 3)
        if cluster is not None and (cluster + [1, 1])[:3] != shape:
            raise VerifyException(f"{CLUSTER_DIM} = {cluster} differs from {CLUSTER_SHAPE} = {shape}")
    elif cluster is not None:
        module_shape = enclosing_attr(op, CLUSTER_SHAPE)
        if isinstance(module_shape, DenseArrayBase):
            try:
                shape = int_array(module_shape, CLUSTER_SHAPE, 3, 3)
            except VerifyException:
                shape = None  # reported at the module
            uses_cluster = any(inner.name.startswith("cutlass.") for inner in op.walk())
            if shape is not None and (cluster + [1, 1])[:3] != shape and uses_cluster:
                raise VerifyException(
                    f"{CLUSTER_DIM} = {cluster} differs from the module's {CLUSTER_SHAPE} = {shape}; the "
                    "cluster-aware lowerings (arrive counts, multicast masks) use the module's shape")
    for name, (low, high, what) in SCALAR_ATTRS.items():
        if name in attrs:
            attr = attrs[name]
            if not isinstance(attr, IntegerAttr) or not isinstance(attr.type, IntegerType):
                raise VerifyException(f"{name} must be an integer ({what}), found {attr}")
            if not low <= attr.value.data <= high:
                raise VerifyException(f"{name} ({what}) must be in [{low}, {high}], found {attr.value.data}")
    if TARGET in attrs:
        target = attrs[TARGET]
        if not isinstance(target, StringAttr) or not re.fullmatch(r"sm_\d+a", target.data):
            raise VerifyException(f'{TARGET} must be a string such as "sm_90a" or "sm_100a", found {target}')


KERNEL = "nvvm.kernel"
CALLS = ("func.call", "llvm.call")
SYMBOLS = ("func.func", "llvm.func", "llvm.mlir.global", "nv_tileaa.func")
PTX_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+")
"""A PTX identifier (PTX ISA, "Identifiers")."""


def verify_kernel_calls(op: Operation) -> None:
    """The rules of :func:`verify_kernel_calls` in the module doc, for one op."""
    if KERNEL in op.attributes:
        if not isinstance(op.attributes[KERNEL], UnitAttr):
            raise VerifyException(f"{KERNEL} is a unit attribute (write `attributes {{{KERNEL}}}`), found "
                                  f"{op.attributes[KERNEL]}")
    if op.name in SYMBOLS:
        name = _symbol_name(op)
        if name is not None and not name.startswith("llvm.") and not PTX_IDENTIFIER.fullmatch(name):
            raise VerifyException(f"symbol name {name!r} is not a valid PTX identifier (a letter, then letters, "
                                  "digits, '_' or '$'; or '_', '$' or '%' and at least one more of those): "
                                  "rename it")
        return
    if op.name not in CALLS:
        return
    callee = op.properties.get("callee", op.attributes.get("callee"))
    if not isinstance(callee, SymbolRefAttr):
        return  # an indirect llvm.call
    target = SymbolTable.lookup_symbol(op, callee)
    if target is not None and KERNEL in target.attributes:
        raise VerifyException(
            f"{op.name} calls @{callee.string_value()}, a kernel ({KERNEL}): a kernel is launched from the host "
            "and cannot be called from device code; move the shared code into a device function (without "
            f"{KERNEL}) and call that")


def _symbol_name(op: Operation) -> str | None:
    name = op.properties.get("sym_name", op.attributes.get("sym_name"))
    return name.data if isinstance(name, StringAttr) else None


def enclosing_attr(op: Operation, name: str):
    """The attribute ``name`` of the closest op strictly enclosing ``op`` that carries it, or None."""
    parent = op.parent_op()
    while parent is not None:
        if name in parent.attributes:
            return parent.attributes[name]
        parent = parent.parent_op()
    return None
