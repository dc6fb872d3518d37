"""Located diagnostics: every user-facing error reads ``file:line:col: error: message``.

xDSL keeps source positions only for parse errors.  This module adds them for
everything else:

* :class:`LocatingParser` stamps a ``FileLineColLoc`` on every parsed operation
  that carries no explicit ``loc(...)``;
* :func:`verify_located` verifies a module op by op (nested ops first) and
  returns one formatted line per failing op;
* :class:`LocatedError` is what passes raise to report a problem at an op;
* :func:`copy_location` lets rewrites keep the source position of the op they replace;
* :func:`read_source` / :func:`decode_source` turn unreadable or non-UTF-8 input into a
  :class:`SourceError` instead of an ``OSError`` / ``UnicodeDecodeError``.
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from collections.abc import Callable, Iterable

from xdsl.context import Context
from xdsl.dialects.builtin import (CallSiteLoc, FileLineColLoc, FusedLoc, IntAttr, ModuleOp, NameLoc, NoneAttr,
                                   StringAttr, UnknownLoc)
from xdsl.ir import Attribute, Block, ErasedSSAValue, Operation, SSAValue
from xdsl.irdl import IRDLOperation, VerificationContext
from xdsl.parser import Parser
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, SameOperandsAndResultType
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tileorch.dominance import DIRECT_FIELDS, dominance_errors
from tileorch.verify_prechecks import precheck

_OUT_OF_RANGE = re.compile(r"Integer value (-?\d+) is out of range")
_COMMENT_OR_SPACE = re.compile(r"//[^\n]*|\s+")
_INT_LITERAL = re.compile(r"(?<![\w.%#^@])-?(?:0x[0-9a-fA-F]+|\d+)(?![\w.])")


def _linear_string_literal_regex() -> None:
    """xDSL 0.74 lexes string literals with ``"(?:[^"\\...]+|\\(...))*"``: on a literal with an
    invalid escape (``"\\0x1..."``) the nested ``+`` inside ``*`` backtracks exponentially and
    the parse hangs (a fuzz finding).  The same language with one character per repetition
    matches in linear time; installed once, before any parser runs."""
    from xdsl.utils.mlir_lexer import MLIRLexer

    old = getattr(MLIRLexer, "_unescaped_characters_regex", None)
    if old is not None and old.pattern == r'"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"':
        MLIRLexer._unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')


_linear_string_literal_regex()


class LocatingParser(Parser):
    """An xDSL parser that records where each operation starts in the source."""

    def __init__(self, ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        self._text = text
        self._name = StringAttr(name)
        self._line_offset = line_offset
        self._scan_pos = 0  # newlines are counted incrementally: parsing only moves forward
        self._scan_line = 1
        self._last_span: Span | None = None  # the token consumed last (where a value check fails)
        self._op_starts: list[int] = []
        self._deferred_ops: list[tuple[Operation, FileLineColLoc]] = []
        self._deferred_spans: dict[str, Span] = {}
        self._forward_uses: dict[str, Span] = {}  # each value used before its definition: its first use

    def resolve_operand(self, operand, type):
        if operand.operand_name not in self.ssa_values:
            self._forward_uses.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_module(self, *args, **kwargs):
        """xDSL's, with a value used but never defined reported at its first use (xDSL places the
        error at the end of the input)."""
        try:
            return super().parse_module(*args, **kwargs)
        except ParseError as exc:
            undefined = [name for name in self.forward_ssa_references if name in self._forward_uses]
            if undefined and "values used but not defined" in str(exc):
                name = min(undefined, key=lambda n: self._forward_uses[n].start)
                raise ParseError(self._forward_uses[name], f"use of undeclared SSA value name '%{name}'") from None
            raise

    def _line_col(self, pos: int) -> tuple[int, int]:
        if pos < self._scan_pos:
            self._scan_pos, self._scan_line = 0, 1
        self._scan_line += self._text.count("\n", self._scan_pos, pos)
        self._scan_pos = pos
        return self._scan_line, pos - (self._text.rfind("\n", 0, pos) + 1) + 1

    def _consume_token(self, expected_kind=None):
        token = super()._consume_token(expected_kind)
        self._last_span = token.span
        # a decimal literal past f64's range reads as infinity, as upstream MLIR's parser reads it
        # (strtod; NVIDIA's cuda-tile test dense_attr.mlir round-trips such a literal)
        return token

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        line, col = self._line_col(start)
        self._op_starts.append(start)
        try:
            op = super().parse_operation()
        except ParseError:
            raise
        except Exception as exc:  # noqa: BLE001 - a value check inside the parser (see as_parse_error)
            raise self.as_parse_error(exc) from None
        finally:
            self._op_starts.pop()
        here = FileLineColLoc(self._name, IntAttr(line + self._line_offset), IntAttr(col))
        if _has_deferred(op.location):  # loc(#alias) defined further down: resolved after the module
            self._deferred_ops.append((op, here))
        elif source_position(op.location) is None:  # no explicit loc(...) naming a source position
            op.location = here
        return op

    def resolve_deferred_locations(self) -> None:
        """Replace the placeholders of location aliases used before their definition (MLIR
        prints ``loc(#loc5)`` in ops and ``#loc5 = ...`` after the module)."""

        def resolve(loc: Attribute) -> Attribute:
            if isinstance(loc, NameLoc) and loc.desc.data.startswith(_DEFERRED):
                name = loc.desc.data[len(_DEFERRED):]
                if name not in self.attribute_aliases:
                    raise ParseError(self._deferred_spans[name], f"undefined location alias '{name}'")
                value = self.attribute_aliases[name]
                as_location = getattr(value, "as_location", None)
                value = as_location() if callable(as_location) else value
                if not isinstance(value, (FileLineColLoc, NameLoc, CallSiteLoc, FusedLoc, UnknownLoc)):
                    raise ParseError(self._deferred_spans[name], f"'{name}' is not a location")
                return value
            if isinstance(loc, NameLoc):
                return NameLoc(loc.desc, resolve(loc.location))
            if isinstance(loc, CallSiteLoc):
                return CallSiteLoc(resolve(loc.callee), resolve(loc.caller))
            if isinstance(loc, FusedLoc):
                return FusedLoc([resolve(m) for m in loc.locations.data], loc.metadata)
            return loc

        for op, here in self._deferred_ops:
            loc = resolve(op.location)
            op.location = loc if source_position(loc) is not None else here
        self._deferred_ops.clear()

    def _parse_location(self):
        """xDSL's location grammar, plus: an attribute with an ``as_location()`` method used as a
        location (``loc(#cuda_tile.di_loc<...>)``), and fused locations with metadata
        (``fused<#scope>[...]``, as MLIR prints them)."""

        if self._current_token.kind == MLIRTokenKind.HASH_IDENT:
            token = self._current_token
            if "." not in token.text and token.text not in self.attribute_aliases:
                self._consume_token()  # an alias defined later: a placeholder until the module is read
                self._deferred_spans.setdefault(token.text, token.span)
                return NameLoc(StringAttr(_DEFERRED + token.text), NoneAttr())
            start = self._current_token.span.start
            attr = self.parse_attribute()
            as_location = getattr(attr, "as_location", None)
            if callable(as_location):
                return as_location()
            if isinstance(attr, (FileLineColLoc, NameLoc, CallSiteLoc, FusedLoc, UnknownLoc)):
                return attr
            self.raise_error("expected a location (loc alias or debug-info location)", start,
                             self._current_token.span.start)
        if self._current_token.text == "fused":
            start = self._current_token.span.start
            self._consume_token()
            if self.parse_optional_punctuation("<") is not None:
                meta = self.parse_attribute()
                self.parse_punctuation(">")
                locs = self.parse_comma_separated_list(self.Delimiter.SQUARE, self._parse_location)
                return FusedLoc(locs, meta)
            self._resume_from(start)
        return super()._parse_location()

    def as_parse_error(self, exc: Exception) -> ParseError:
        """A :class:`ParseError` for an exception raised while parsing that is not one: xDSL checks
        attribute and type parameters when it builds them (``IntegerAttr`` range, ``Expected
        attribute i32 but got i64``, ...) and raises ``VerifyException``/``ValueError`` with no
        position.  The error is placed at the offending integer literal for a range error, else at
        the token consumed last (the end of the construct that failed)."""
        message = first_line(exc)
        span = self._last_span or self._current_token.span
        match = _OUT_OF_RANGE.search(message)
        if match and self._last_span is not None:
            literal = self._find_literal(int(match.group(1)), self._last_span.end)
            if literal is not None:
                span = literal
        if isinstance(exc, RecursionError):  # an op nested in hundreds of regions, a deep attribute
            message = "input nested too deeply to parse"
        elif isinstance(exc, OverflowError) and "float too large to pack" in message:  # 1.0e39 : f32
            message = "floating point value too large for its type (f16 holds at most 65504, bf16 and f32 3.4e38)"
        elif isinstance(exc, NotImplementedError):  # e.g. "Format not implemented for i128"
            message = f"unsupported by the parser: {message}"
        elif not isinstance(exc, (VerifyException, ValueError, DiagnosticException)):
            if _raised_in_tileorch(exc):
                message = f"internal error while parsing ({type(exc).__name__}: {message})"
            else:  # xDSL's parsers index with the value read (llvm.extractvalue [2^70])
                message = f"invalid value ({type(exc).__name__}: {message})"
        return ParseError(span, message)

    def _find_literal(self, value: int, end: int) -> Span | None:
        """The last integer literal with ``value`` in the current op's text before ``end``."""
        begin = self._op_starts[-1] if self._op_starts else 0
        found = None
        for m in _INT_LITERAL.finditer(self._text, begin, end):
            try:
                literal = int(m.group(0), 0)
            except ValueError:
                continue
            if literal == value or (m.group(0).lstrip("-").startswith("0x") and abs(literal) == abs(value)):
                found = m
        if found is None:
            return None
        return Span(found.start(), found.end(), self.lexer.input)


def _raised_in_tileorch(exc: BaseException) -> bool:
    """Whether the innermost frame of ``exc`` is tileorch's code (a bug) rather than xDSL's."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return last is not None and "/tileorch/" in last.replace("\\", "/")


def parse_module(ctx: Context, text: str, name: str = "<stdin>", line_offset: int = 0) -> ModuleOp:
    """Parse ``text`` into a module whose ops carry their source positions.

    Raises :class:`ParseError` (always with a position) for any input that does not parse."""
    if not _COMMENT_OR_SPACE.sub("", text):  # nothing but comments: an empty module, as in MLIR
        module = ModuleOp([])
        module.location = FileLineColLoc(StringAttr(name), IntAttr(1 + line_offset), IntAttr(1))
        return module
    parser = LocatingParser(ctx, text, name, line_offset)
    try:
        module = parser.parse_module()
        parser.resolve_deferred_locations()
        if not isinstance(module.location, FileLineColLoc):  # the implicit module around top-level ops
            module.location = FileLineColLoc(StringAttr(name), IntAttr(1 + line_offset), IntAttr(1))
        _reject_undefined_values(parser, module, text)
        return module
    except ParseError:
        raise
    except RecursionError:
        raise ParseError(parser._current_token.span, "input nested too deeply to parse") from None
    except Exception as exc:  # noqa: BLE001 - e.g. a bad alias definition at module scope
        raise parser.as_parse_error(exc) from None


def _reject_undefined_values(parser: LocatingParser, module: ModuleOp, text: str) -> None:
    """xDSL can leave a forward reference unresolved when the name is only defined in a region
    that does not dominate the use; report the first such use at its op.  The same walk rejects
    an ``!llvm.ptr<N>`` of an address space LLVM cannot hold (N >= 2**24: xDSL took any integer and
    LLVM's IR parser failed on it, reported at line 1 without a reason)."""
    from xdsl.dialects.llvm import LLVMPointerType
    from xdsl.parser.core import ForwardDeclaredValue

    def at(op: Operation, message: str) -> ParseError:
        loc = op.location
        pos = 0
        if isinstance(loc, FileLineColLoc) and loc.filename == parser._name:
            line = loc.line.data - parser._line_offset
            pos = sum(len(l) for l in text.splitlines(keepends=True)[: line - 1]) + loc.column.data - 1
        return ParseError(Span(pos, pos + len(op.name), parser.lexer.input), message)

    for op in module.walk():
        for operand in op.operands:
            if isinstance(operand, ForwardDeclaredValue):
                name = f"%{operand.name_hint}" if operand.name_hint else "a value"
                raise at(op, f"{name} is used by {op.name} but not defined in a scope that reaches this use")
        values = list(op.results)
        for region in op.regions:
            for block in region.blocks:
                values += block.args
        for value in values:
            t = value.type
            if isinstance(t, LLVMPointerType) and getattr(t.addr_space, "data", 0) > MAX_ADDRESS_SPACE:
                raise at(op, f"{t} names address space {t.addr_space.data}, more than LLVM's largest "
                             f"({MAX_ADDRESS_SPACE}); NVPTX uses 0 generic, 1 global, 3 shared, 4 constant, "
                             "5 local, 6 tensor memory, 7 shared::cluster")


MAX_ADDRESS_SPACE = (1 << 24) - 1
"""LLVM's largest address space (a 24-bit number)."""


_DEFERRED = "\0deferred-location-alias:"


def _has_deferred(loc: Attribute | None) -> bool:
    if isinstance(loc, NameLoc):
        return loc.desc.data.startswith(_DEFERRED) or _has_deferred(loc.location)
    if isinstance(loc, CallSiteLoc):
        return _has_deferred(loc.callee) or _has_deferred(loc.caller)
    if isinstance(loc, FusedLoc):
        return any(_has_deferred(m) for m in loc.locations.data)
    return False


def source_position(loc: Attribute | None) -> FileLineColLoc | None:
    """The file:line:col a location points at: itself (also ``#cuda_tile.di_loc``, a
    ``FileLineColLoc`` with a scope), a name's child, a call site's callee (where the code is),
    the first located member of a fused location; None when there is none."""
    for _ in range(256):  # locations are trees; stay bounded on deep nesting
        if isinstance(loc, FileLineColLoc):
            return loc
        if isinstance(loc, NameLoc):
            loc = loc.location
        elif isinstance(loc, CallSiteLoc):
            return source_position(loc.callee) or source_position(loc.caller)
        elif isinstance(loc, FusedLoc):
            return next((p for p in map(source_position, loc.locations.data) if p is not None), None)
        else:
            return None
    return None


def call_sites(loc: Attribute | None) -> list[FileLineColLoc]:
    """The calls the code at ``loc`` was inlined through, innermost first: the positions of the callers of the
    call-site locations on the path :func:`source_position` takes (a ``ct.function`` helper's op: the kernel's call
    of the helper; MLIR prints them as ``note: called from``); [] for a location that is no call site."""
    if isinstance(loc, NameLoc):
        return call_sites(loc.location)
    if isinstance(loc, CallSiteLoc):
        if source_position(loc.callee) is None:  # (source_position takes the caller: it is the position)
            return call_sites(loc.caller)
        caller = source_position(loc.caller)
        return call_sites(loc.callee) + ([caller] if caller is not None else []) + call_sites(loc.caller)
    if isinstance(loc, FusedLoc):
        return next((call_sites(m) for m in loc.locations.data if source_position(m) is not None), [])
    return []


def called_from_notes(loc: Attribute | None) -> str:
    """``\nFILE:L:C: note: called from`` for each of :func:`call_sites` of ``loc`` (the lines a diagnostic at an
    inlined op ends with); "" when it is no call site."""
    return "".join(f"\n{p.filename.data}:{p.line.data}:{p.column.data}: note: called from" for p in call_sites(loc))


def _located(op: Operation | None) -> Attribute | None:
    """The location of ``op`` or of its closest ancestor with a source position; None when none has one."""
    while op is not None:
        if source_position(op.location) is not None:
            return op.location
        op = op.parent_op()
    return None


def location_str(op: Operation | None) -> str:
    """``file:line:col`` of ``op`` (or of its closest located ancestor)."""
    loc = source_position(_located(op))
    return "<unknown>" if loc is None else f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"


def format_error(op: Operation | None, message: str, severity: str = "error") -> str:
    """One diagnostic in the ``file:line:col: error: message`` convention; an op inlined from a called function
    (a call-site location) adds a ``file:line:col: note: called from`` line per call (:func:`called_from_notes`)
    right under the first line: a message of several lines (the SIMT path's error with the tier's refusal as a
    located note, which has its own calls) keeps its later lines below the notes of its first, so each "called
    from" follows the line it belongs to."""
    first, nl, rest = message.partition("\n")
    return f"{location_str(op)}: {severity}: {first}{called_from_notes(_located(op))}{nl}{rest}"


def suffixed(diagnostic: str, suffix: str) -> str:
    """``diagnostic`` (``FILE:L:C: error: MSG`` maybe followed by ``note:`` lines) with ``suffix`` ending its first
    line, the notes kept under it (a suffix appended to the whole text would end the last note instead)."""
    first, nl, notes = diagnostic.partition("\n")
    return f"{first}{suffix}{nl}{notes}"


def first_line(exc: BaseException) -> str:
    """The message of an xDSL exception without the IR dump xDSL appends to it.

    xDSL chains constraint failures as ``result 'x' at position 0 does not verify:\nExpected
    attribute i1 but got i32``: the lines of such a chain are joined, so the message names the
    expected type."""
    text = str(exc).strip()
    if not text:
        return type(exc).__name__
    lines = text.splitlines()
    message = lines[0].strip()
    for line in lines[1:]:
        if not message.endswith(":") or not line.strip():
            break
        message = f"{message} {line.strip()}"
    return message


class CompileError(ValueError):
    """A compile failure; ``lines`` are located ``file:line:col: error: ...`` diagnostics (raised by
    the readers, the driver and the backend; ``tileorch.backend.compile.CompileError`` is this class)."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


class LocatedError(DiagnosticException):
    """A diagnostic tied to an operation; passes raise it to stop with a located error."""

    def __init__(self, op: Operation | None, message: str):
        super().__init__(message)
        self.op = op
        self.message = message

    def __str__(self) -> str:
        return format_error(self.op, self.message)


def post_order(op: Operation) -> list[Operation]:
    """``op`` and every op nested in it, children before their parent, as a list made before
    the caller sees the first (callers change nothing while they go through it; a list costs
    one call per op with regions, where nested generators passed every op up through one
    ``yield from`` per nesting level: 7% of verifying a lowered kernel)."""
    out: list[Operation] = []
    _post_order_into(op, out)
    return out


def _post_order_into(op: Operation, out: list[Operation]) -> None:
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                if child.regions:
                    _post_order_into(child, out)
                else:
                    out.append(child)
    out.append(op)


ATTRIBUTE_VERIFIERS: list[Callable[[Operation], None]] = []
"""Checks of discardable attributes (``nvvm.maxntid`` on a kernel, ``cutlass.cluster_shape`` on a
module, ...) run on every op after its own verifier, like MLIR's ``verifyOperationAttribute``;
each raises ``VerifyException`` or :class:`LocatedError`.  Filled on first use from
:data:`tileorch.registry.OP_CHECKS` (the dialects own the checks; this module imports none)."""


def _name_failing_property(op: Operation, message: str) -> str:
    """xDSL's property constraint errors do not say which property failed: find and name it."""
    if not isinstance(op, IRDLOperation):
        return message
    try:
        definition = op.get_irdl_definition()
    except Exception:  # noqa: BLE001
        return message
    for prop_name, attr_def in definition.properties.items():
        value = op.properties.get(prop_name)
        if value is None:
            continue
        try:
            attr_def.constr.verify(value, VerificationContext())
        except VerifyException as exc:
            if first_line(exc) == message:
                return f"property '{prop_name}' of {op.name} does not verify: {message}"
            return message
        except Exception:  # noqa: BLE001
            continue
    return message


def _verify_blocks(op: Operation) -> None:
    """The block-level check ``Region.verify`` makes and ``verify(verify_nested_ops=False)`` skips."""
    if not op.regions or op.has_trait(NoTerminator):  # (no regions: nothing to check, no trait look-up)
        return
    for region in op.regions:
        first = region.first_block  # one block: first is last (len(region.blocks) counts them all)
        if first is not None and first is region.last_block and first.first_op is None:
            raise VerifyException(
                f"Operation {op.name} contains empty block in single-block region that expects at least a terminator"
            )


_OPERATION_VERIFY = Operation.verify
_XDSL_ISOLATED_VERIFY = IsolatedFromAbove.verify


def _verify_isolated(self: IsolatedFromAbove, op: Operation) -> None:
    """``IsolatedFromAbove.verify``: the same walk of the op's regions (nested isolated ops
    not entered), the same test of every operand (its owner must be strictly inside ``op``) and
    the same error, with the blocks already walked remembered: an operand defined in one of them
    is inside ``op`` without xDSL's ``op.is_ancestor(owner)`` climb from the owner to the top
    (a sixth of verifying a lowered kernel: every operand of every op, once per enclosing
    isolated op).  Any other operand is tested as xDSL tests it."""
    regions = list(op.regions)
    inside: set[int] = set()  # ids of the blocks walked: all strictly inside op
    while regions:
        region = regions.pop()
        for block in region.blocks:
            inside.add(id(block))
            for child_op in block.ops:
                for operand in (child_op._operands if _DIRECT_FIELDS else child_op.operands):
                    owner = operand.owner
                    owner_block = owner if isinstance(owner, Block) else getattr(owner, "parent", None)
                    if owner is op or (id(owner_block) not in inside and not op.is_ancestor(owner)):
                        raise VerifyException(
                            f"Operation using value defined out of its IsolatedFromAbove parent: {child_op}")
                if child_op.regions and not child_op.has_trait(IsolatedFromAbove):
                    regions += child_op.regions


if "is_ancestor" in getattr(_XDSL_ISOLATED_VERIFY, "__code__").co_names:  # the xDSL version this mirrors
    IsolatedFromAbove.verify = _verify_isolated


def _verify_alone(op: Operation) -> None:
    """``op.verify(verify_nested_ops=False)``: the same checks in the same order with the same
    messages, made cheaper two ways.

    * A block's last op in a region of several blocks is checked in constant time: xDSL's
      ``Operation.verify`` counts the region's blocks (``len(region.blocks)`` walks them) for
      each block's terminator, which made verifying a function of B blocks O(B^2) (a lowered
      softmax: 560 blocks, a third of its verification).  Here the region's first and last
      blocks answer whether it has one block or several.
    * The op definition's constraint checks (operand, result and successor counts, the types'
      and properties' and attributes' constraints: ``OpDef.verify`` less the traits) are a pure
      function of the op's class, operand and result types, successor count, properties and
      attributes.  An op without regions whose such :func:`_signature` passed them once is not
      checked again (:data:`_IRDL_VERIFIED`: a lowered kernel has thousands of ``llvm.fadd f32``
      and the like); the traits (which read the op's neighbours) and the class's own
      ``verify_`` run for every op, except the traits that read nothing but the signature
      (:data:`_SIGNATURE_TRAITS`), which passed with it.

    An op whose class overrides ``Operation.verify``, or is not an IRDL op of the usual form
    (:func:`_irdl_verifier`), goes through ``op.verify``; except for an override that only adds
    a check before ``Operation.verify`` (xDSL's llvm integer casts: :mod:`tileorch.verify_prechecks`),
    which is made first, then the rest as here."""
    cls = type(op)
    if cls.verify is not _OPERATION_VERIFY:
        check = precheck(cls)
        if check is None or not check(op):
            op.verify(verify_nested_ops=False)
            return
    for operand in (op._operands if _DIRECT_FIELDS else op.operands):
        if isinstance(operand, ErasedSSAValue):
            raise ValueError("Erased SSA value is used by the operation")
    block = op.parent
    region = None if block is None else block.parent
    if (op._successors if _DIRECT_FIELDS else op.successors):
        if block is None or region is None:
            raise VerifyException(
                f"Operation {op.name} with block successors does not belong to a block or a region")
        if block.last_op is not op:
            raise VerifyException(f"Operation {op.name} with block successors must terminate its parent block")
        for succ in op.successors:
            if succ.parent != region:
                raise VerifyException(f"Operation {op.name} is branching to a block of a different region")
    if region is not None and block.last_op is op:
        if region.first_block is region.last_block:  # one block (the op's)
            if (parent_op := region.parent) is not None and not parent_op.has_trait(NoTerminator):
                if not op.has_trait(IsTerminator):
                    raise VerifyException(
                        f"Operation {op.name} terminates block in single-block region but is not a terminator")
        elif not op.has_trait(IsTerminator):
            raise VerifyException(f"Operation {op.name} terminates block in multi-block region but is not a terminator")
    try:
        verifier = _irdl_verifier(cls)
        if verifier is None or op.regions:
            op.verify_()
            return
        op_def, custom = verifier
        key = _signature(op)
        traits_only = key is not None and key in _IRDL_VERIFIED
        if not traits_only:
            op_def.verify(op)  # the constraints, then the traits
            if key is not None:
                if len(_IRDL_VERIFIED) >= _IRDL_VERIFIED_MAX or len(_CANON_IDS) >= _IRDL_VERIFIED_MAX:
                    _forget_verified()
                    key = _signature(op)  # renumbered
                if key is not None:
                    _IRDL_VERIFIED.add(key)
        if traits_only:
            for trait in _memo_traits(op_def):
                trait.verify(op)
        if custom is not None:
            custom(op)
    except VerifyException as err:
        op.emit_error(f"Operation does not verify: {err}", err)


_IRDL_VERIFIED: set[tuple] = set()
"""The :func:`_signature` of every op that passed its definition's constraint checks (in this
process: the checks depend on nothing else, and the op definitions do not change)."""
_CANON: dict[object, int] = {}
"""Attribute (by equality) -> its number in :func:`_signature`s: equal attributes, one number."""
_CANON_IDS: dict[int, tuple[int, object]] = {}
"""``id(attribute)`` -> (its number in :data:`_CANON`, the attribute): an attribute object met
before is numbered without hashing it.  xDSL's attributes hash all their parameters on every
``hash()`` (no cache): a lowered GEMM's ``!llvm.struct`` of 128 members was hashed member by
member for every op that reads it, three times (the key's test, the set's test, the set's
add), 0.6 million ``__hash__`` calls and two thirds of the kernel's first verification.  Each
entry holds its attribute, so the id stays that attribute's while the entry exists."""
_IRDL_VERIFIED_MAX = 200_000
"""The memos are emptied when one reaches this many entries (a bound on their memory)."""
_IRDL_VERIFIERS: dict[type, tuple | None] = {}
_SIGNATURE_READS = {"VerifyException", "get_element_type_or_self", "get_encoding", "have_compatible_shape", "len", "name",
                    "operand_types", "operands", "result_types", "results", "xdsl.utils.type"}
_SIGNATURE_TRAITS: tuple[type, ...] = tuple(
    t for t in (SameOperandsAndResultType,)
    if set(getattr(getattr(t.verify, "__code__", None), "co_names", ("?",))) <= _SIGNATURE_READS)
"""Traits whose ``verify`` reads only the op's name and its operand and result types (all in its
:func:`_signature`): an op whose signature passed its definition's checks, these traits
included, passes them again.  (xDSL's ``SameOperandsAndResultType`` built two ``NoneAttr`` per
operand and result to compare encodings: a fifth of verifying a lowered GEMM with a GELU
epilogue.)  Matched by exact class: a subclass may read more; and only while the trait's
``verify`` names nothing but what :data:`_SIGNATURE_READS` lists (the xDSL version it was read in)."""
_MEMO_TRAITS: dict[int, tuple] = {}
"""id(op definition) -> (the definition, its traits less :data:`_SIGNATURE_TRAITS`)."""


def _memo_traits(op_def) -> tuple:
    """The traits of ``op_def`` an op with a verified signature still runs."""
    entry = _MEMO_TRAITS.get(id(op_def))
    if entry is None:
        entry = _MEMO_TRAITS[id(op_def)] = (op_def, tuple(t for t in op_def.traits
                                                           if type(t) not in _SIGNATURE_TRAITS))
    return entry[1]


def _irdl_verifier(cls: type) -> tuple | None:
    """``(op_def, custom_verify)`` of an IRDL op class whose ``verify_`` is the one
    ``irdl_op_definition`` made (``op_def.verify(op)``, then the class's own ``verify_`` if it
    has one: ``custom_verify``, else None); None for any other class."""
    if cls in _IRDL_VERIFIERS:
        return _IRDL_VERIFIERS[cls]
    found = None
    fn = getattr(cls, "verify_", None)
    code = getattr(fn, "__code__", None)
    if (issubclass(cls, IRDLOperation) and code is not None and fn.__closure__ is not None
            and fn.__qualname__ == "get_accessors_from_op_def.<locals>.verify_"):
        cells = dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__)))
        if set(cells) <= {"op_def", "custom_verify"} and cells.get("op_def") is cls.get_irdl_definition():
            found = (cells["op_def"], cells.get("custom_verify"))
    _IRDL_VERIFIERS[cls] = found
    return found


def _forget_verified() -> None:
    """Empty the memos (the numbers of :data:`_CANON` start again, so the keys go too)."""
    _IRDL_VERIFIED.clear()
    _CANON.clear()
    _CANON_IDS.clear()


def _canonical(attr: object) -> int:
    """The number of ``attr`` in :data:`_CANON` (equal attributes: the same number); TypeError
    if it cannot be hashed."""
    entry = _CANON_IDS.get(id(attr))
    if entry is None:
        entry = _CANON_IDS[id(attr)] = (_CANON.setdefault(attr, len(_CANON)), attr)
    return entry[0]


def _signature(op: Operation) -> tuple | None:
    """What ``OpDef.verify`` (less the traits) reads of an op without regions, its attributes
    as their :func:`_canonical` numbers: (class, operand types, result types, successor count,
    properties, attributes).  None when an attribute cannot be hashed (then the op is checked
    in full).

    Built once per op the verification visits (the memo's key), so it reads the op's operand
    and successor tuples and its values' types directly where the xDSL version has them
    (:data:`_DIRECT_FIELDS`; ``op.operands`` builds a view whose items are fetched one call
    each) and numbers an attribute met before with one dictionary look-up in line."""
    ids = _CANON_IDS
    try:
        if _DIRECT_FIELDS:
            operands = [(e[0] if (e := ids.get(id(t := o._type))) is not None else _canonical(t))
                        for o in op._operands]
            results = [(e[0] if (e := ids.get(id(t := r._type))) is not None else _canonical(t))
                       for r in op.results]
            successors = len(op._successors)
        else:
            operands = [_canonical(o.type) for o in op.operands]
            results = [_canonical(r.type) for r in op.results]
            successors = len(op.successors)
        props, attrs = op.properties, op.attributes
        return (type(op), tuple(operands), tuple(results), successors,
                tuple([(k, e[0] if (e := ids.get(id(v))) is not None else _canonical(v)) for k, v in props.items()])
                if props else (),
                tuple([(k, e[0] if (e := ids.get(id(v))) is not None else _canonical(v)) for k, v in attrs.items()])
                if attrs else ())
    except TypeError:
        return None


_DIRECT_FIELDS = DIRECT_FIELDS  # (dominance.py: the xDSL whose fields :func:`_signature` reads directly)


def verify_op_located(op: Operation) -> str | None:
    """Verify ``op`` alone (not its nested ops); the located diagnostic line, or None."""
    try:
        _verify_alone(op)
        _verify_blocks(op)
        if not ATTRIBUTE_VERIFIERS:
            from tileorch.registry import op_checks

            ATTRIBUTE_VERIFIERS.extend(op_checks())
        for check in ATTRIBUTE_VERIFIERS:
            check(op)
    except LocatedError as exc:
        return str(exc)
    except VerifyException as exc:
        again = _redefinition(op, first_line(exc))
        if again is not None:  # at the second definition, not the symbol table (sweep 34: at the module's 1:1)
            first, second = again
            return format_error(second, f"{first_line(exc)}, first defined at {location_str(first)}")
        return format_error(op, _name_failing_property(op, first_line(exc)))
    except Exception as exc:  # noqa: BLE001 - a verifier that crashed on odd input: still located
        if _raised_by_xdsl_verifier(exc):
            return format_error(op, first_line(exc))
        if _raised_in_xdsl_dialect(exc):  # xDSL's own verifier tripped over the malformed op
            return format_error(op, f"{op.name}{_MALFORMED}{type(exc).__name__}: {first_line(exc)})")
        return format_error(op, f"internal error while verifying {op.name} ({type(exc).__name__}: {first_line(exc)})")
    return None


_REDEFINED = re.compile(r'Redefinition of symbol "([^"]+)"')
"""xDSL's symbol-table message for two ops of one symbol table with the same ``sym_name``."""


def _redefinition(table: Operation, message: str) -> tuple[Operation, Operation] | None:
    """(first, second) definitions of the symbol ``message`` (xDSL's :data:`_REDEFINED`) names, among the ops
    directly in ``table``'s regions; None when the message is another or they are not found."""
    m = _REDEFINED.match(message)
    if m is None:
        return None
    found = [o for region in table.regions for block in region.blocks for o in block.ops
             if getattr(o.attributes.get("sym_name") or o.properties.get("sym_name"), "data", None) == m.group(1)]
    return (found[0], found[1]) if len(found) > 1 else None


_MALFORMED = " is malformed (its verifier failed: "
"""An xDSL verifier that tripped over the op (see :func:`verify_op_located`): like a crash, it is
reported only when no op has a real error (e.g. ``func.return``'s verifier reading a
``func.func`` whose ``function_type`` is ``i32``: the function's own error is the diagnostic)."""


def _raised_in_xdsl_dialect(exc: Exception) -> bool:
    """Raised inside one of xDSL's own dialect definitions (e.g. ``scf.while``'s verifier indexing
    block arguments that a malformed op lacks)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and f"{os.sep}xdsl{os.sep}dialects{os.sep}" in tb.tb_frame.f_code.co_filename


def _raised_by_xdsl_verifier(exc: Exception) -> bool:
    """A plain ``Exception`` raised by one of xDSL's own verifiers (some, e.g. ``scf.while``'s
    block-argument check, raise ``Exception`` instead of ``VerifyException``): a diagnostic."""
    if type(exc) is not Exception or exc.__traceback__ is None:
        return False
    tb = exc.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return f"{os.sep}xdsl{os.sep}" in tb.tb_frame.f_code.co_filename


_VERIFY_MEMO: dict | None = None


def verification_memo() -> dict | None:
    """While :func:`verify_located` verifies a module (which no verifier changes), a dict where
    verifiers that read the whole module (e.g. a named barrier's CTA id pool) keep what they
    computed, keyed as they choose; None outside one."""
    return _VERIFY_MEMO


def verify_located(module: Operation) -> list[str]:
    """Verify every op (children before parents); return one located line per failure.

    A verifier that crashes while another op of the module has a real verification error is
    not reported: such verifiers read their neighbours (an enclosing executor, the init of the
    barrier they use), and the neighbour's error is the diagnostic (MLIR stops at the first
    failing op).  A crash with no other error is reported as the internal error it is."""
    global _VERIFY_MEMO
    errors: list[str] = []
    crashes: list[str] = []
    outer, _VERIFY_MEMO = _VERIFY_MEMO, {}
    try:
        for op in post_order(module):
            error = verify_op_located(op)
            if error is not None:
                crashed = ": error: internal error while verifying " in error or _MALFORMED in error
                (crashes if crashed else errors).append(error)
        if not errors:  # a use its definition does not dominate (after the ops' own errors, as MLIR)
            errors += [format_error(op, message) for op, message in dominance_errors(module, location_str)]
    finally:
        _VERIFY_MEMO = outer
    return errors or crashes


_UNFORMATTED_SUFFIX = "Expected suffix identifier after {first_char}"
"""xDSL 0.74's lexer message for ``%``/``^``/``#``/``!`` not followed by a name: an f-string
without its ``f`` (the user saw the braces)."""


_BLOCK_LABEL = " in block definition"
"""xDSL 0.74's whole message when a region's ops are followed by neither an op, a block label nor
``}`` (a missing ``}``, a stray word): the suffix of a message it never wrote."""


_UNEXPECTED_CHARACTER = "Unexpected character: "
"""xDSL's lexer message for a character no token starts with (the character follows)."""


def _parse_message(exc: ParseError) -> str:
    """``exc``'s message, with xDSL's unformatted :data:`_UNFORMATTED_SUFFIX` and bare
    :data:`_BLOCK_LABEL` written out."""
    if exc.msg == _BLOCK_LABEL:
        found = exc.span.text
        found = f"'{found}'" if found else "the end of the input (a '}' is missing)"
        return f"expected an operation, a block label (^name:) or '}}' in this region, found {found}"
    if exc.msg.startswith(_UNEXPECTED_CHARACTER) and len(exc.msg) == len(_UNEXPECTED_CHARACTER) + 1:
        char = exc.msg[-1]
        if char == "\ufeff":
            return ("unexpected byte-order mark (U+FEFF): MLIR text is UTF-8 without one; save the file "
                    "without a BOM")
        if not char.isprintable():  # a NUL or another control character, printed as it is, is invisible
            return f"unexpected character U+{ord(char):04X} ({unicodedata.name(char, 'a control character')})"
    if exc.msg != _UNFORMATTED_SUFFIX:
        return exc.msg
    text = exc.span.input.content
    prefix = text[exc.span.start:exc.span.start + 1] or "%"
    after = text[exc.span.end:exc.span.end + 1]
    found = f"found {after!r}" if after else "found the end of the input"
    return (f"expected a name after '{prefix}' (letters, digits and the characters _ $ . - ; a %name may "
            f"also be a number), {found}")


def format_exception(exc: BaseException, module: Operation | None = None) -> list[str]:
    """Turn any diagnostic exception into located lines (re-verifying ``module`` if needed)."""
    if isinstance(exc, ParseError):
        loc = exc.span.get_location()
        return [f"{loc.file}:{loc.line}:{loc.col}: error: {_parse_message(exc)}"]
    if isinstance(exc, (LocatedError, PassCrash)):
        return [str(exc)]
    if isinstance(exc, CompileError) and exc.lines:  # already located (the bytecode reader's source lines)
        return list(exc.lines)
    if module is not None and isinstance(exc, VerifyException):
        located = verify_located(module)
        if located:
            return located
    return [f"{location_str(module)}: error: {first_line(exc)}"]


class PassCrash(DiagnosticException):
    """A pass raised an exception that is not a diagnostic (a bug, in tileorch or in xDSL, shown by
    this input): :func:`pass_crash` makes it one located line naming the pass and the op it was
    working on.  Not a :class:`LocatedError` (a refusal): callers that fall back on a refusal
    still see it as the internal error it is."""

    def __init__(self, line: str):
        super().__init__(line)
        self.line = line

    def __str__(self) -> str:
        return self.line


def _crash_op(exc: BaseException) -> Operation | None:
    """The op the innermost frame of ``exc``'s traceback was working on: a local ``op`` (the
    rewrite patterns' argument), else any local Operation; the innermost such op with a
    source position wins."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    fallback = None
    for frame in reversed(frames):
        local = frame.f_locals
        candidates = [local["op"]] if isinstance(local.get("op"), Operation) else []
        candidates += [v for k, v in local.items() if k != "op" and isinstance(v, Operation)]
        for op in candidates:
            if location_str(op) != "<unknown>":
                return op
            fallback = fallback or op
    return fallback


def pass_crash(exc: BaseException, pass_name: str, module: Operation | None) -> PassCrash:
    """The located report of ``exc`` raised inside pass ``pass_name``: at the op it was working on
    (its source position, else the module's), naming the pass, the op and the exception."""
    op = _crash_op(exc)
    where = location_str(op) if op is not None and location_str(op) != "<unknown>" else location_str(module)
    on = f" on '{op.name}'" if op is not None else ""
    return PassCrash(f"{where}: error: internal error in pass '{pass_name}'{on} ({type(exc).__name__}: "
                     f"{first_line(exc)}); this is a bug shown by this input, please report it (rerun with "
                     "TILEORCH_TRACEBACK=1 for the traceback)")


def copy_location(src: Operation, new_ops: Iterable[Operation]) -> None:
    """Give rewrite results the source position of the op they replace."""
    for op in new_ops:
        if not isinstance(op.location, FileLineColLoc):
            op.location = src.location


class SourceError(Exception):
    """Input that cannot be read as text.  ``location`` is ``file:line:col`` when the problem
    has a position in the file (a non-UTF-8 byte), else ``None`` (the file cannot be opened)."""

    def __init__(self, message: str, location: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def format(self, tool: str) -> str:
        """``file:line:col: error: message``, or ``TOOL: error: message`` without a position."""
        return f"{self.location or tool}: error: {self.message}"


TILE_IR_BYTECODE_MAGIC = b"\x7fTileIR\x00"
"""The first bytes of CUDA Tile IR bytecode (``tileorch.frontend.cuda_tile_bytecode.MAGIC``)."""


ELF_MAGIC = b"\x7fELF"
"""The first bytes of an ELF file (a cubin)."""

OTHER_BINARIES = (
    (b"ML\xefR", "MLIR bytecode (an --emit-bytecode dump), not MLIR text: print the module as text (mlir-opt or "
                 "cuda-tile-opt without --emit-bytecode) to read it"),
    (b"\x1f\x8b", "gzip-compressed data, not MLIR text: decompress it first"),
    (b"BC\xc0\xde", "LLVM bitcode, not MLIR text: tileorch reads MLIR text and CUDA Tile IR bytecode"),
    (b"PK\x03\x04", "a zip archive, not MLIR text: extract the module first"),
    (b"\xff\xfe", "UTF-16 text (its byte-order mark FF FE), not UTF-8: save the file as UTF-8"),
    (b"\xfe\xff", "UTF-16 text (its byte-order mark FE FF), not UTF-8: save the file as UTF-8"),
    (b"\x93NUMPY", "a NumPy array file (.npy), not MLIR text: tileorch reads MLIR text and CUDA Tile IR bytecode"),
    *((bytes([0x80, proto]), f"a Python pickle (protocol {proto}: torch.save / pickle.dump output), not MLIR text: "
       "tileorch reads MLIR text and CUDA Tile IR bytecode") for proto in (2, 3, 4, 5)),
)
"""The first bytes of other binaries a user may hand a command that reads MLIR text, and what they are."""

PTX_START = re.compile(r"\A(?:\s|//[^\n]*\n)*\.(?:version|target)\b")
"""PTX text: comments, then a ``.version`` or ``.target`` directive (MLIR text never starts with a '.')."""
CUDA_CPP_START = re.compile(r"\A(?:\s|//[^\n]*\n|/\*.*?\*/|#[^\n]*\n)*(?:(?:extern\s+\"C\"|template\s*<[^>]*>|static|"
                            r"inline)\s+)*__(?:global|device)__\b", re.S)
"""CUDA C++ source: comments and preprocessor lines, then a ``__global__`` / ``__device__`` function."""


def _safetensors_header(data: bytes) -> bool:
    """``data`` starts as a safetensors file does: a little-endian 8-byte header length, then that many bytes of a
    JSON object (``{...}``) within the file."""
    if len(data) < 10 or data[8:9] != b"{":
        return False
    n = int.from_bytes(data[:8], "little")
    return 2 <= n <= len(data) - 8 and data[8 + n - 1:8 + n].rstrip(b" ") in (b"}", b"")


def decode_source(data: bytes, name: str, line_offset: int = 0) -> str:
    """``data`` decoded as UTF-8; a bad byte raises :class:`SourceError` located at that byte, and
    CUDA Tile IR bytecode, an ELF file (a cubin), PTX or another binary of :data:`OTHER_BINARIES` (MLIR
    bytecode, gzip, LLVM bitcode, zip: given to a command that reads MLIR text) one saying what it is."""
    if data[:8] == TILE_IR_BYTECODE_MAGIC and not line_offset:
        raise SourceError("this is CUDA Tile IR bytecode (a cuTile export), not MLIR text: `tileorch compile` "
                          "compiles it, `tileorch-opt` reads it, and tileorch.cutile.launch runs cuTile kernels",
                          f"{name}:1:1")
    if data[:4] == ELF_MAGIC and not line_offset:
        raise SourceError("this is an ELF file (a cubin or another compiled binary), not MLIR text: a cubin is "
                          "what tileorch compile --cubin writes and what tileorch run loads", f"{name}:1:1")
    what = next((what for magic, what in OTHER_BINARIES if data.startswith(magic)), None)
    if what is None and _safetensors_header(data):  # (was "@ identifier expected ...": a header length of 64)
        what = ("a safetensors file (a JSON header of tensors, then their bytes: model weights), not MLIR text: "
                "tileorch reads MLIR text and CUDA Tile IR bytecode")
    if what is not None and not line_offset:  # (was "invalid UTF-8 byte 0xef" at the magic number's third byte)
        raise SourceError(f"this is {what}", f"{name}:1:1")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1 + line_offset
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SourceError(f"invalid UTF-8 byte 0x{data[exc.start]:02x} (the input must be UTF-8 text)",
                          f"{name}:{line}:{col}") from None
    if not line_offset and CUDA_CPP_START.match(text):  # (was "Operation __global__ is not registered")
        raise SourceError("this is CUDA C++ source (a __global__ / __device__ function), not MLIR text: tileorch "
                          "compiles cuda_tile / TileAS MLIR text and cuTile exports; write the kernel in cuTile "
                          "Python and run it with tileorch.cutile.launch", f"{name}:1:1")
    if not line_offset and PTX_START.match(text):
        raise SourceError("this is PTX (it starts with a .version or .target directive), not MLIR text: PTX is "
                          "what tileorch compile writes and what tileorch run loads", f"{name}:1:1")
    return text


def read_source(path: str) -> str:
    """The UTF-8 text of the file at ``path`` (``-`` reads stdin); raises :class:`SourceError`."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror or exc}") from None
    return decode_source(data, "<stdin>" if path == "-" else path)


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
"""This package's directory: frames of its code are tileorch's, the first frame outside it the user's."""


def user_stacklevel() -> int:
    """The ``stacklevel`` of ``warnings.warn`` (called by the function that calls this) that attributes the warning
    to the first frame outside the tileorch package: the user's line that called ``tileorch.cutile.launch``,
    ``tileorch.gemm``... however deep inside tileorch the warning is decided (a fixed ``stacklevel`` named a line of
    the launcher for the warnings decided a few calls down).  The outermost frame where every frame is tileorch's."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


class PerformanceWarning(UserWarning):
    """A correct but slower path was taken for the user's input (the message says which and why);
    ``warnings.simplefilter("error", PerformanceWarning)`` turns these into errors."""
