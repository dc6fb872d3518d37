"""A small interpreter of MLIR-style assembly formats for ``cuda_tile`` ops.

xDSL's declarative formats cannot spell the dialect's prefix-less types (``tile<4xf32>``),
its keyword enums or its optional keyword groups, so each op class states its custom
syntax as a format string in MLIR's notation, which this module parses and prints:

* ```kw```/```,``` literals (```` ```` = no space), ``$name`` operands and properties,
  ``type($x)`` (prefix-less types), ``attr-dict``, ``attr-dict-with-keyword``;
* optional groups ``( ... $anchor^ ... )?``;
* ``custom<Name>($args)`` directives implemented in :data:`CUSTOM`.

How a property is written comes from the op class's ``PROP_SYNTAX`` table
(``"kw"``: bare enum keyword, ``"angle"``: ``<keyword>``, ``"int"``, ``"str"``, ``"unit"``,
``"sym"``, ``"flatsym"``, ``"bool"``, ``"i32array"``, ``"attr"``, ``"hints"``).
Types missing from the text are inferred from the op's ``SAME_TYPE`` groups.
Spacing follows MLIR's printer, so FileCheck lines written for MLIR output match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import (ArrayAttr, BoolAttr, DenseArrayBase, FlatSymbolRefAttr, IntegerAttr, IntegerType,
                                   StringAttr, SymbolRefAttr, UnitAttr, i32, i64)
from xdsl.ir import Attribute
from xdsl.irdl import OptionalDef, VarOperandDef, VarResultDef
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

from tileorch.dialects.cuda_tile.syntax import ct_type_str, error_at, parse_ct_type, parse_optional_ct_type, pos

_TOKEN = re.compile(r"\s*(`[^`]*`|\$\w+\^?|type\(\$\w+\)\^?|custom<\w+>\([^)]*\)\)?\^?|attr-dict-with-keyword|"
                    r"attr-dict|\(|\)\?|\)|:)")


# --------------------------------------------------------------------------- format elements
@dataclass
class Lit:
    text: str


@dataclass
class Var:
    name: str
    anchor: bool = False


@dataclass
class TypeOf:
    name: str
    anchor: bool = False


@dataclass
class AttrDict:
    keyword: bool


@dataclass
class Custom:
    name: str
    args: list[str]
    anchor: bool = False


@dataclass
class Group:
    elems: list[Any]
    anchor: Any = None


def compile_format(fmt: str) -> list[Any]:
    toks: list[str] = []
    i = 0
    fmt = fmt.strip()
    while i < len(fmt):
        m = _TOKEN.match(fmt, i)
        if not m:
            if fmt[i:].strip() == "":
                break
            raise ValueError(f"bad format near {fmt[i:i + 30]!r}")
        toks.append(m.group(1))
        i = m.end()

    def parse_seq(it: list[str], k: int, closing: bool) -> tuple[list[Any], int]:
        out: list[Any] = []
        while k < len(it):
            t = it[k]
            if t == ")?" and closing:
                return out, k + 1
            if t == "(":
                elems, k = parse_seq(it, k + 1, True)
                g = Group(elems)
                for e in _walk(elems):
                    if getattr(e, "anchor", False):
                        g.anchor = e
                out.append(g)
                continue
            anchor = t.endswith("^")
            t = t.rstrip("^")
            if t.startswith("`"):
                out.append(Lit(t[1:-1]))
            elif t.startswith("$"):
                out.append(Var(t[1:], anchor))
            elif t.startswith("type("):
                out.append(TypeOf(t[6:-1], anchor))
            elif t.startswith("custom<"):
                name = t[7:t.index(">")]
                inner = t[t.index("(") + 1:].rstrip(")")
                args = [a.strip() for a in inner.split(",") if a.strip()]
                out.append(Custom(name, args, anchor))
            elif t.startswith("attr-dict"):
                out.append(AttrDict(t == "attr-dict-with-keyword"))
            elif t == ":":
                out.append(Lit(":"))
            else:
                raise ValueError(f"bad format token {t!r}")
            k += 1
        if closing:
            raise ValueError("unclosed group in format")
        return out, k

    elems, _ = parse_seq(toks, 0, False)
    return elems


def _walk(elems):
    for e in elems:
        yield e
        if isinstance(e, Group):
            yield from _walk(e.elems)


# --------------------------------------------------------------------------- parse state
@dataclass
class ParseState:
    operands: dict[str, list[UnresolvedOperand]] = field(default_factory=dict)
    types: dict[str, list[Attribute]] = field(default_factory=dict)
    props: dict[str, Attribute] = field(default_factory=dict)
    attrs: dict[str, Attribute] = field(default_factory=dict)
    regions: dict[str, Any] = field(default_factory=dict)


def _op_def(cls):
    return cls.get_irdl_definition()


def _ir(cls, name: str) -> str:
    """The IR name of a property declared as Python field ``name`` (``str_`` -> ``str``)."""
    return _op_def(cls).accessor_names.get(name, (name, ""))[0]


def _operand_kind(cls, name: str) -> str | None:
    for n, d in _op_def(cls).operands:
        if n == name:
            if isinstance(d, OptionalDef):
                return "opt"
            return "var" if isinstance(d, VarOperandDef) else "single"
    return None


def _result_kind(cls, name: str) -> str | None:
    for n, d in _op_def(cls).results:
        if n == name:
            return "var" if isinstance(d, VarResultDef) else "single"
    return None


def _peek(parser: Parser):
    return parser._current_token  # noqa: SLF001


def _is_operand_next(parser: Parser) -> bool:
    return _peek(parser).kind.name == "PERCENT_IDENT"


def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """``%a, %b, ...`` (possibly empty); a trailing ``,`` not followed by ``%`` is left unread."""
    out: list[UnresolvedOperand] = []
    if not _is_operand_next(parser):
        return out
    out.append(parser.parse_unresolved_operand())
    while True:
        save = pos(parser)
        if parser.parse_optional_punctuation(",") is None:
            break
        if not _is_operand_next(parser):
            parser._resume_from(save)  # noqa: SLF001
            break
        out.append(parser.parse_unresolved_operand())
    return out


_TYPE_START = {"BARE_IDENT", "EXCLAMATION_IDENT", "L_PAREN"}


def parse_type_list(parser: Parser) -> list[Attribute]:
    out = [parse_ct_type(parser)]
    while True:
        save = pos(parser)
        if parser.parse_optional_punctuation(",") is None:
            break
        if _peek(parser).kind.name not in _TYPE_START or _peek(parser).text in ("token",) and False:
            parser._resume_from(save)  # noqa: SLF001
            break
        out.append(parse_ct_type(parser))
    return out


# --------------------------------------------------------------------------- property syntax
def _enum_cls(cls, name: str):
    spec = cls.PROP_SYNTAX[name]
    return spec[1]


_SCALAR_PROPS = {
    # kind: (parse the optional token, what the error expects, the property made of it)
    "int": (lambda p: p.parse_optional_integer(allow_boolean=False), "integer value",
            lambda v: IntegerAttr(v, IntegerType(64))),
    "i64": (lambda p: p.parse_optional_integer(allow_boolean=False), "integer value",
            lambda v: IntegerAttr(v, IntegerType(64))),
    "i32": (lambda p: p.parse_optional_integer(allow_boolean=False), "integer value",
            lambda v: IntegerAttr(v, IntegerType(32))),
    "str": (lambda p: p.parse_optional_str_literal(), "string literal", StringAttr),
    "sym": (lambda p: p.parse_optional_symbol_name(), "symbol name", lambda s: s),
    "flatsym": (lambda p: p.parse_optional_symbol_name(), "symbol reference", SymbolRefAttr),
}


def parse_prop(parser: Parser, cls, name: str, optional: bool) -> Attribute | None:
    spec = cls.PROP_SYNTAX.get(name, "attr")
    kind = spec[0] if isinstance(spec, tuple) else spec
    tok = _peek(parser)
    if kind == "kw":
        ecls = spec[1]
        values = [v.value for v in ecls.enum_type]
        if tok.kind.name == "BARE_IDENT" and tok.text in values:
            parser._consume_token()  # noqa: SLF001
            return ecls(ecls.enum_type(tok.text))
        if optional:
            return None
        error_at(parser, tok.span.start, f"expected '{name}' to be one of: " + ", ".join(f"'{v}'" for v in values))
    if kind == "angle":
        ecls = spec[1]
        if optional and tok.text != "<":
            return None
        parser.parse_punctuation("<")
        start = pos(parser)
        word = parser.parse_optional_identifier()
        values = [v.value for v in ecls.enum_type]
        if word not in values:
            error_at(parser, start, f"expected {name} to be one of: " + ", ".join(f"'{v}'" for v in values))
        parser.parse_punctuation(">")
        return ecls(ecls.enum_type(word))
    if kind in _SCALAR_PROPS:
        parse, what, wrap = _SCALAR_PROPS[kind]
        v = parse(parser)
        if v is None:
            if optional:
                return None
            parser.raise_error(f"expected {what} for '{name}'")
        return wrap(v)
    if kind == "unit":
        return UnitAttr()
    if kind == "bool":
        if tok.text in ("true", "false"):
            parser._consume_token()  # noqa: SLF001
            return BoolAttr(tok.text == "true", IntegerType(1))
        if optional:
            return None
        parser.raise_error(f"expected 'true' or 'false' for '{name}'")
    if kind == "i32array":
        if optional and tok.text not in ("[", "array"):
            return None
        if tok.text == "array":
            a = parser.parse_attribute()
            return a
        parser.parse_punctuation("[")
        vals: list[int] = []
        if parser.parse_optional_punctuation("]") is None:
            vals.append(parser.parse_integer(allow_boolean=False))
            while parser.parse_optional_punctuation(",") is not None:
                vals.append(parser.parse_integer(allow_boolean=False))
            parser.parse_punctuation("]")
        return DenseArrayBase.from_list(i32, vals)
    if kind == "hints":
        from tileorch.dialects.cuda_tile.attrs import OptimizationHintsAttr

        if optional and tok.text != "<":
            return None
        params = OptimizationHintsAttr.parse_parameters(parser)
        return OptimizationHintsAttr(*params)
    # generic attribute
    if optional:
        return parser.parse_optional_attribute()
    return parser.parse_attribute()


def prop_str(cls, name: str, value: Attribute) -> str:
    spec = cls.PROP_SYNTAX.get(name, "attr")
    kind = spec[0] if isinstance(spec, tuple) else spec
    if kind == "kw":
        return value.data.value
    if kind == "angle":
        return f"<{value.data.value}>"
    if kind in ("int", "i32", "i64"):
        return str(value.value.data)
    if kind == "str":
        return '"' + value.data.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if kind == "unit":
        return ""
    if kind == "sym":
        return "@" + value.data if re.fullmatch(r"[A-Za-z_$.][\w$.-]*", value.data) else '@"' + value.data + '"'
    if kind == "flatsym":
        d = value.root_reference.data
        return "@" + d if re.fullmatch(r"[A-Za-z_$.][\w$.-]*", d) else '@"' + d + '"'
    if kind == "bool":
        return "true" if value.value.data else "false"
    if kind == "i32array":
        return "[" + ", ".join(str(v) for v in value.get_values()) + "]"
    if kind == "hints":
        return value.short_str()
    from io import StringIO

    s = StringIO()
    Printer(stream=s).print_attribute(value)
    return s.getvalue()


def prop_present(op, name: str) -> bool:
    """An optional property counts as present when set and not equal to its default."""
    name = _ir(type(op), name)
    v = op.properties.get(name)
    if v is None:
        return False
    d = _op_def(type(op)).properties.get(name)
    default = getattr(d, "default_value", None)
    return default is None or v != default


# --------------------------------------------------------------------------- the engine
class Program:
    def __init__(self, cls, fmt: str):
        self.cls = cls
        self.elems = compile_format(fmt)

    # ---- parsing
    def parse(self, parser: Parser):
        cls = self.cls
        st = ParseState()
        start = pos(parser)
        self._parse_seq(parser, st, self.elems)
        return build_op(parser, cls, st, start)

    def _group_present(self, parser: Parser, st: ParseState, g: Group) -> bool:
        first = g.elems[0]
        tok = _peek(parser)
        if isinstance(first, Lit):
            t = first.text
            if t == "":
                first = g.elems[1]
                t = first.text if isinstance(first, Lit) else None
            if t is not None:
                if t[0].isalpha() or t[0] == "_":
                    return tok.kind.name == "BARE_IDENT" and tok.text == t
                return tok.text == t
        if isinstance(first, Var):
            if _operand_kind(self.cls, first.name):
                return _is_operand_next(parser)
            spec = self.cls.PROP_SYNTAX.get(first.name, "attr")
            kind = spec[0] if isinstance(spec, tuple) else spec
            if kind == "kw":
                return tok.kind.name == "BARE_IDENT" and tok.text in [v.value for v in spec[1].enum_type]
            if kind == "angle" or kind == "hints":
                return tok.text == "<"
            return True
        if isinstance(first, TypeOf):
            return tok.kind.name in _TYPE_START
        if isinstance(first, Custom):
            return CUSTOM[first.name].present(parser)
        return False

    def _parse_seq(self, parser: Parser, st: ParseState, elems: list[Any]) -> None:
        for e in elems:
            if isinstance(e, Lit):
                t = e.text
                if t in ("", " "):
                    continue
                if t[0].isalpha() or t[0] == "_":
                    parser.parse_keyword(t)
                else:
                    parser.parse_punctuation(t)
            elif isinstance(e, Var):
                k = _operand_kind(self.cls, e.name)
                if k == "var":
                    st.operands[e.name] = parse_operand_list(parser)
                elif k is not None:
                    st.operands[e.name] = [parser.parse_unresolved_operand()]
                elif e.name in _region_names(self.cls):
                    st.regions[e.name] = parser.parse_region()
                else:
                    v = parse_prop(parser, self.cls, e.name, optional=False)
                    if v is not None:
                        st.props[_ir(self.cls, e.name)] = v
            elif isinstance(e, TypeOf):
                if _operand_kind(self.cls, e.name) == "var" or _result_kind(self.cls, e.name) == "var":
                    st.types[e.name] = parse_type_list(parser)
                else:
                    st.types[e.name] = [parse_ct_type(parser)]
            elif isinstance(e, AttrDict):
                attrs = (parser.parse_optional_attr_dict_with_keyword() if e.keyword
                         else parser.parse_optional_attr_dict())
                if attrs is not None:
                    d = attrs.data if hasattr(attrs, "data") else attrs
                    self._split_attrs(d, st)
            elif isinstance(e, Custom):
                CUSTOM[e.name].parse(parser, st, self.cls, e.args)
            elif isinstance(e, Group):
                if self._group_present(parser, st, e):
                    self._parse_seq(parser, st, e.elems)
                else:
                    for v in _walk(e.elems):
                        if isinstance(v, Var) and _operand_kind(self.cls, v.name):
                            st.operands.setdefault(v.name, [])
                        if isinstance(v, TypeOf):
                            st.types.setdefault(v.name, [])

    def _split_attrs(self, d: dict[str, Attribute], st: ParseState) -> None:
        props = _op_def(self.cls).properties
        for k, v in d.items():
            if k in props:
                st.props[k] = v
            else:
                st.attrs[k] = v

    # ---- printing
    def print(self, printer: Printer, op) -> None:
        ps = _PrintState()
        self._print_seq(printer, op, ps, self.elems)

    def _present(self, op, e) -> bool:
        if isinstance(e, Var):
            k = _operand_kind(self.cls, e.name)
            if k:
                return len(getattr(op, e.name) if k != "opt" else ([getattr(op, e.name)]
                           if getattr(op, e.name) is not None else [])) > 0
            return prop_present(op, e.name)
        if isinstance(e, TypeOf):
            k = _operand_kind(self.cls, e.name)
            if k == "opt":
                return getattr(op, e.name) is not None
            if k == "var":
                return len(getattr(op, e.name)) > 0
            if _result_kind(self.cls, e.name) == "var":
                return len(getattr(op, e.name)) > 0
            return True
        if isinstance(e, Custom):
            return CUSTOM[e.name].is_present(op, e.args)
        return True

    def _print_seq(self, printer: Printer, op, ps: _PrintState, elems: list[Any]) -> None:
        for e in elems:
            if isinstance(e, Lit):
                ps.lit(printer, e.text)
            elif isinstance(e, Var):
                k = _operand_kind(self.cls, e.name)
                if k:
                    v = getattr(op, e.name)
                    vals = list(v) if k == "var" else ([v] if v is not None else [])
                    if not vals:
                        continue
                    ps.var(printer)
                    printer.print_list(vals, printer.print_operand)
                elif e.name in _region_names(self.cls):
                    ps.var(printer)
                    printer.print_region(getattr(op, e.name))
                else:
                    v = op.properties.get(_ir(self.cls, e.name))
                    if v is None:
                        continue
                    ps.var(printer)
                    printer.print_string(prop_str(self.cls, e.name, v))
            elif isinstance(e, TypeOf):
                ts = _types_of(op, e.name)
                if not ts:
                    continue
                ps.var(printer)
                printer.print_string(", ".join(ct_type_str(t) for t in ts))
            elif isinstance(e, AttrDict):
                elided = set(self.cls.ELIDED_ATTRS) | set(_op_def(self.cls).properties)
                attrs = {k: v for k, v in op.attributes.items() if k not in elided}
                if attrs:
                    if e.keyword:
                        printer.print_string(" attributes")
                    printer.print_string(" ")
                    printer.print_attr_dict(attrs)
            elif isinstance(e, Custom):
                ps.var(printer)
                CUSTOM[e.name].print(printer, op, e.args)
            elif isinstance(e, Group):
                if e.anchor is not None and self._present(op, e.anchor):
                    self._print_seq(printer, op, ps, e.elems)


class _PrintState:
    """MLIR's spacing rules for generated printers."""

    def __init__(self):
        self.should_space = True
        self.last_punct = False

    def lit(self, printer: Printer, t: str) -> None:
        if t == "":
            self.should_space = False
            self.last_punct = True
            return
        if t == " ":
            printer.print_string(" ")
            self.should_space = False
            self.last_punct = True
            return
        if self.should_space and _space_before(t, self.last_punct):
            printer.print_string(" ")
        printer.print_string(t)
        self.should_space = len(t) != 1 or t[0] not in "<({["
        self.last_punct = t[0] != "_" and not t[0].isalpha()

    def var(self, printer: Printer) -> None:
        if self.should_space or not self.last_punct:
            printer.print_string(" ")
        self.should_space = True
        self.last_punct = False


def _space_before(t: str, last_punct: bool) -> bool:
    if len(t) != 1 and t != "->":
        return True
    if last_punct:
        return t[0] not in ">)}],"
    return t[0] not in "<>(){}[],"


def _region_names(cls) -> set[str]:
    return {n for n, _ in _op_def(cls).regions}


def _types_of(op, name: str) -> list[Attribute]:
    v = getattr(op, name)
    if v is None:
        return []
    if hasattr(v, "type"):
        return [v.type]
    return [x.type for x in v]


# --------------------------------------------------------------------------- building
def build_op(parser: Parser, cls, st: ParseState, start: int | None = None):
    """Resolve operands, infer missing types from ``SAME_TYPE`` groups, build the op."""
    op_def = _op_def(cls)
    types = dict(st.types)
    for group in getattr(cls, "SAME_TYPE", ()):
        known = next((types[n][0] for n in group if types.get(n)), None)
        if known is None:
            continue
        for n in group:
            if not types.get(n):
                k = _operand_kind(cls, n)
                count = len(st.operands.get(n, [])) if k else 1
                if k in ("var", "opt"):
                    count = len(st.operands.get(n, []))
                types[n] = [known] * count
    infer = getattr(cls, "infer_types", None)
    if infer is not None:
        infer(types, st)
    operands = []
    for n, d in op_def.operands:
        uos = st.operands.get(n, [])
        ts = types.get(n, [])
        if len(ts) == 1 and len(uos) > 1:
            ts = ts * len(uos)
        if len(ts) != len(uos):
            parser.raise_error(f"number of operands and types do not match: got {len(uos)} operands and {len(ts)} "
                               "types", start)
        vals = [parser.resolve_operand(u, t) for u, t in zip(uos, ts)]
        if isinstance(d, (VarOperandDef, OptionalDef)):
            operands.append(vals)
        else:
            operands.append(vals[0])
    result_types = []
    for n, d in op_def.results:
        ts = types.get(n)
        if ts is None:
            parser.raise_error(f"cannot infer the type of result '{n}'")
        result_types.append(ts if isinstance(d, VarResultDef) else ts[0])
    props = dict(st.props)
    regions = [st.regions.get(n) for n, _ in op_def.regions]
    try:
        op = cls.build(operands=operands, result_types=result_types, properties=props, attributes=st.attrs,
                       regions=[r if r is not None else _empty_region() for r in regions])
    except Exception as exc:  # a malformed operand list etc.
        parser.raise_error(str(exc).splitlines()[0])
    return op


def _empty_region():
    from xdsl.ir import Region

    return Region()


# --------------------------------------------------------------------------- custom directives
class CustomDirective:
    def parse(self, parser: Parser, st: ParseState, cls, args: list[str]) -> None:
        raise NotImplementedError

    def print(self, printer: Printer, op, args: list[str]) -> None:
        raise NotImplementedError

    def present(self, parser: Parser) -> bool:
        return True

    def is_present(self, op, args: list[str]) -> bool:
        return True


CUSTOM: dict[str, CustomDirective] = {}
