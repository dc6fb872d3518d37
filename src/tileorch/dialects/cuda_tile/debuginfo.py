"""CUDA Tile IR debug-info attributes in MLIR text, and the rules that tie them to functions.

The attributes mirror the bytecode's debug-info section (``frontend/cuda_tile_bytecode.py``):

* ``#cuda_tile.di_file<"foo.py" in "/tmp/">``
* ``#cuda_tile.di_compile_unit<file = #file>``
* ``#cuda_tile.di_subprogram<file = #file, line = 1, name = "f", linkageName = "f",
  compileUnit = #cu, scopeLine = 2>``
* ``#cuda_tile.di_lexical_block<scope = #sp_or_block, file = #file, line = 3, column = 4>``
* ``#cuda_tile.di_loc<loc("foo.py":7:8) in #scope>``: a *location*.  ``loc(#di_loc)`` on an op
  is kept as the builtin ``fused<#scope>["foo.py":7:8]``, so everything that reads an op's source
  position (diagnostics, ``copy_location``) keeps working and errors point at the recorded source
  line, as cuda-tile-opt and tileiras report them.

Struct-like attributes take their parameters in any order, each once; a missing one is an error
that names it.  :func:`verify_function_scopes` and :func:`verify_module_scopes` check the scope
rules of the open repository's dialect (a function's scope is a subprogram whose linkage name is
the function's name; an op's scope leads to its function's subprogram; an op outside functions
has no scope).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from xdsl.dialects.builtin import CallSiteLoc, FileLineColLoc, FusedLoc, IntAttr, NameLoc, StringAttr
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileorch.diagnostics import source_position
from tileorch.dialects.cuda_tile.syntax import error_at, pos


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _parse_struct(parser: AttrParser, what: str, fields: dict[str, Callable[[], Attribute]],
                  optional: tuple[str, ...] = ()) -> dict[str, Attribute]:
    """``<key = value, ...>``: every key of ``fields`` exactly once (those in ``optional`` at most
    once), in any order."""
    parser.parse_punctuation("<")
    out: dict[str, Attribute] = {}
    while True:
        start = pos(parser)
        key = parser.parse_optional_identifier()
        if key is None:
            error_at(parser, start, f"expected a parameter name in struct {what}")
        if key not in fields:
            error_at(parser, start, f"unknown parameter '{key}' of {what} (expected one of {', '.join(fields)})")
        if key in out:
            error_at(parser, start, f"duplicate parameter '{key}' of {what}")
        parser.parse_punctuation("=")
        out[key] = fields[key]()
        if parser.parse_optional_punctuation(",") is None:
            break
    end = pos(parser)
    parser.parse_punctuation(">")
    for key in fields:
        if key not in out and key not in optional:
            error_at(parser, end, f"struct is missing required parameter: {key} ({what})")
    return out


def _int_field(parser: AttrParser) -> Callable[[], Attribute]:
    def parse() -> Attribute:
        start = pos(parser)
        v = parser.parse_optional_integer(allow_boolean=False, allow_negative=False)
        if v is None or v >= 1 << 32:
            error_at(parser, start, "expected a line or column number (0 to 2^32-1)")
        return IntAttr(v)
    return parse


def _attr_field(parser: AttrParser, *kinds: type) -> Callable[[], Attribute]:
    def parse() -> Attribute:
        start = pos(parser)
        a = parser.parse_attribute()
        if not isinstance(a, kinds):
            error_at(parser, start, f"expected {' or '.join('#' + k.name for k in kinds)}, got {a}")
        return a
    return parse


def _str_field(parser: AttrParser) -> Callable[[], Attribute]:
    return lambda: StringAttr(parser.parse_str_literal())


@irdl_attr_definition
class DIFileAttr(ParametrizedAttribute):
    """``#cuda_tile.di_file<"name" in "directory">``."""

    name = "cuda_tile.di_file"
    file_name: StringAttr
    directory: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        n = parser.parse_str_literal()
        parser.parse_keyword("in")
        d = parser.parse_str_literal()
        parser.parse_punctuation(">")
        return (StringAttr(n), StringAttr(d))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{_q(self.file_name.data)} in {_q(self.directory.data)}>")

    @property
    def path(self) -> str:
        d, n = self.directory.data, self.file_name.data
        return f"{d.rstrip('/')}/{n}" if d and n and not n.startswith("/") else n


class _StructAttr(ParametrizedAttribute):
    """A struct-like attribute, ``<key = value, ...>``: ``FIELDS`` lists (key, kind) in parameter
    order; a kind is ``"int"`` (a line or column number), ``"str"`` (a string literal) or a
    function giving the attribute classes the value may be (called when parsing, so a class may
    name itself).  Parsed in any order, each key once; printed in ``FIELDS`` order, where a key
    in ``OPTIONAL`` is left out when 0 (its parameter is 0 when absent)."""

    FIELDS: ClassVar[tuple[tuple[str, str | Callable[[], tuple[type, ...]]], ...]] = ()
    OPTIONAL: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        def field(kind) -> Callable[[], Attribute]:
            if kind == "int":
                return _int_field(parser)
            if kind == "str":
                return _str_field(parser)
            return _attr_field(parser, *kind())

        what = cls.name.split(".", 1)[1]
        f = _parse_struct(parser, what, {key: field(kind) for key, kind in cls.FIELDS}, optional=cls.OPTIONAL)
        return tuple(f.get(key, IntAttr(0)) for key, _ in cls.FIELDS)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        first = True
        for (key, kind), value in zip(self.FIELDS, self.parameters):
            if key in self.OPTIONAL and not value.data:
                continue
            printer.print_string(f"{'' if first else ', '}{key} = ")
            first = False
            if kind == "int":
                printer.print_string(str(value.data))
            elif kind == "str":
                printer.print_string(_q(value.data))
            else:
                printer.print_attribute(value)
        printer.print_string(">")


@irdl_attr_definition
class DICompileUnitAttr(_StructAttr):
    """``#cuda_tile.di_compile_unit<file = #file>``."""

    name = "cuda_tile.di_compile_unit"
    file: DIFileAttr
    FIELDS: ClassVar = (("file", lambda: (DIFileAttr,)),)


@irdl_attr_definition
class DISubprogramAttr(_StructAttr):
    """``#cuda_tile.di_subprogram<file, line, name, linkageName, compileUnit[, scopeLine]>``: a
    function (``scopeLine`` 0 when absent; not printed then)."""

    name = "cuda_tile.di_subprogram"
    file: DIFileAttr
    line: IntAttr
    sp_name: StringAttr
    linkage_name: StringAttr
    compile_unit: DICompileUnitAttr
    scope_line: IntAttr
    FIELDS: ClassVar = (("file", lambda: (DIFileAttr,)), ("line", "int"), ("name", "str"), ("linkageName", "str"),
                        ("compileUnit", lambda: (DICompileUnitAttr,)), ("scopeLine", "int"))
    OPTIONAL: ClassVar = ("scopeLine",)


@irdl_attr_definition
class DILexicalBlockAttr(_StructAttr):
    """``#cuda_tile.di_lexical_block<scope, file, line, column>``: a block inside a subprogram."""

    name = "cuda_tile.di_lexical_block"
    scope: Attribute  # DISubprogramAttr or DILexicalBlockAttr
    file: DIFileAttr
    line: IntAttr
    column: IntAttr
    FIELDS: ClassVar = (("scope", lambda: (DISubprogramAttr, DILexicalBlockAttr)), ("file", lambda: (DIFileAttr,)),
                        ("line", "int"), ("column", "int"))

    def verify(self) -> None:
        if not isinstance(self.scope, (DISubprogramAttr, DILexicalBlockAttr)):
            raise VerifyException("di_lexical_block scope must be a di_subprogram or a di_lexical_block")


SCOPES = (DISubprogramAttr, DILexicalBlockAttr)


@irdl_attr_definition
class DILocAttr(ParametrizedAttribute):
    """``#cuda_tile.di_loc<loc("file":line:col) in #scope>``: a source position with its scope.
    Used as a location (``loc(#di_loc)``) it becomes :meth:`as_location`, the builtin
    ``fused<#scope>["file":line:col]`` (MLIR's LLVM dialect carries scopes the same way), so
    everything that reads an op's source position keeps working."""

    name = "cuda_tile.di_loc"
    filename: StringAttr
    line: IntAttr
    column: IntAttr
    scope: Attribute  # DISubprogramAttr or DILexicalBlockAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        start = pos(parser)
        loc = parser.parse_optional_location()
        if loc is None:
            loc = parser.parse_attribute()  # an alias of a location
        inner = source_position(loc)
        if inner is None:
            error_at(parser, start, "di_loc needs a file:line:col location")
        parser.parse_keyword("in")
        sstart = pos(parser)
        scope = parser.parse_attribute()
        if not isinstance(scope, SCOPES):
            error_at(parser, sstart, "di_loc scope must be a di_subprogram or a di_lexical_block")
        parser.parse_punctuation(">")
        return (inner.filename, inner.line, inner.column, scope)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<loc({_q(self.filename.data)}:{self.line.data}:{self.column.data}) in ")
        printer.print_attribute(self.scope)
        printer.print_string(">")

    def verify(self) -> None:
        if not isinstance(self.scope, SCOPES):
            raise VerifyException("di_loc scope must be a di_subprogram or a di_lexical_block")

    def as_location(self) -> FusedLoc:
        return FusedLoc([FileLineColLoc(self.filename, self.line, self.column)], self.scope)


ATTRS = [DIFileAttr, DICompileUnitAttr, DISubprogramAttr, DILexicalBlockAttr, DILocAttr]


def scope_of(loc: Attribute | None) -> Attribute | None:
    """The debug-info scope a location carries: a ``di_loc``'s, through names, the caller of a
    call site (the frame the op belongs to), the callee's otherwise, and members of fused ones."""
    if isinstance(loc, DILocAttr):
        return loc.scope
    if isinstance(loc, FusedLoc) and isinstance(loc.metadata, SCOPES):
        return loc.metadata
    if isinstance(loc, NameLoc):
        return scope_of(loc.location)
    if isinstance(loc, CallSiteLoc):
        return scope_of(loc.caller) or scope_of(loc.callee)
    if isinstance(loc, FusedLoc):
        for member in loc.locations.data:
            found = scope_of(member)
            if found is not None:
                return found
    return None


def subprogram_of(scope: Attribute | None) -> DISubprogramAttr | None:
    for _ in range(1024):  # attributes are immutable trees: no cycles, but stay bounded
        if isinstance(scope, DILexicalBlockAttr):
            scope = scope.scope
        else:
            break
    return scope if isinstance(scope, DISubprogramAttr) else None


def verify_function_scopes(fn: Operation, name: str) -> None:
    """A function with a scope has a subprogram scope whose linkage name is ``name``; every op
    inside with a scope belongs to that subprogram."""
    fscope = scope_of(fn.location)
    if fscope is not None:
        if not isinstance(fscope, DISubprogramAttr):
            raise VerifyException("invalid function debug info scope: Function location must have "
                                  "cuda_tile.di_subprogram debug info scope")
        if fscope.linkage_name.data != name:
            raise VerifyException(f"invalid function debug info scope: Function name \"{name}\" does not match "
                                  f"subprogram scope linkage name \"{fscope.linkage_name.data}\"")
    for op in fn.walk():
        if op is fn:
            continue
        oscope = scope_of(op.location)
        if oscope is None:
            continue
        if fscope is None:
            raise VerifyException(f"invalid operation debug info scope: Operation has debug info scope, but "
                                  f"function debug info scope is undefined ('{op.name}')")
        if subprogram_of(oscope) != fscope:
            raise VerifyException(f"invalid operation debug info scope: Operation debug info scope does not match "
                                  f"function debug info scope ('{op.name}')")


def verify_module_scopes(module: Operation, functions: tuple[type, ...]) -> None:
    """Ops of a module outside its functions (globals) have no debug-info scope."""
    for op in module.regions[0].block.ops if module.regions and module.regions[0].blocks else ():
        if not isinstance(op, functions) and scope_of(op.location) is not None:
            raise VerifyException(f"invalid operation debug info scope: Global variables must not have scope "
                                  f"('{op.name}')")
