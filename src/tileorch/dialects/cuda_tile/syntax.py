"""Shared parse/print helpers for the ``cuda_tile`` dialect.

Inside ``cuda_tile`` ops the dialect's own types and attributes are written without their
``!cuda_tile.``/``#cuda_tile.`` prefix (``tile<4xf32>``, ``ptr<f16>``, ``token``).  The
helpers here accept both spellings and print the short one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.ir import Attribute, TypeAttribute
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

PREFIX_TYPE = "!cuda_tile."

# mnemonic -> type class; filled by types.py
TYPE_MNEMONICS: dict[str, type] = {}


def is_ct_type(t: Attribute) -> bool:
    return type(t).__name__ in _CT_TYPE_CLASSNAMES


_CT_TYPE_CLASSNAMES: set[str] = set()


def register_type(cls: type) -> type:
    TYPE_MNEMONICS[cls.name.split(".", 1)[1]] = cls
    _CT_TYPE_CLASSNAMES.add(cls.__name__)
    return cls


def pos(parser: AttrParser) -> int:
    return parser._current_token.span.start  # noqa: SLF001 (xDSL exposes no public accessor)


def error_at(parser: AttrParser, start: int, message: str):
    """Raise a located parse error spanning from ``start`` to the current token."""
    end = max(start + 1, parser._current_token.span.start)  # noqa: SLF001
    parser.raise_error(message, start, end)


def checked(parser: AttrParser, start: int, build: Callable[[], Any]) -> Any:
    """Build an attribute; turn a verifier failure into a parse error at ``start``."""
    try:
        return build()
    except VerifyException as exc:
        error_at(parser, start, str(exc))


def parse_optional_ct_type(parser: AttrParser) -> Attribute | None:
    """A type in cuda_tile syntax: a short cuda_tile type (``tile<..>``) or any other type."""
    tok = parser._current_token  # noqa: SLF001
    if tok.kind.name == "BARE_IDENT" and tok.text in TYPE_MNEMONICS:
        start = tok.span.start
        parser._consume_token()  # noqa: SLF001
        cls = TYPE_MNEMONICS[tok.text]
        params = cls.parse_parameters(parser)
        return checked(parser, start, lambda: cls.new(params))
    return parser.parse_optional_type()


def parse_ct_type(parser: AttrParser, what: str = "type") -> Attribute:
    start = pos(parser)
    t = parse_optional_ct_type(parser)
    if t is None:
        error_at(parser, start, f"expected {what}")
    return t


def parse_ct_type_list(parser: AttrParser) -> list[Attribute]:
    types = [parse_ct_type(parser)]
    while parser.parse_optional_punctuation(",") is not None:
        types.append(parse_ct_type(parser))
    return types


def ct_type_str(t: Attribute) -> str:
    """The short spelling of a type (``tile<4xf32>``); other types print as usual."""
    if is_ct_type(t):
        return t.short_str()
    from io import StringIO

    s = StringIO()
    Printer(stream=s).print_attribute(t)
    return s.getvalue()


def print_ct_type(printer: Printer, t: Attribute) -> None:
    if is_ct_type(t):
        printer.print_string(t.short_str())
    else:
        printer.print_attribute(t)


def print_ct_types(printer: Printer, types: Sequence[Attribute]) -> None:
    printer.print_list(types, lambda t: print_ct_type(printer, t))


def dims_str(shape: Sequence[int], dynamic: bool = False) -> str:
    return "x".join("?" if (d < 0 and dynamic) else str(d) for d in shape)


def parse_int(parser: AttrParser, what: str = "integer") -> int:
    v = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
    if v is None:
        parser.raise_error(f"expected {what}")
    return v


def as_type(t: Any) -> TypeAttribute:
    return t
