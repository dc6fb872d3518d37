"""Reader of CUDA Tile IR bytecode (``.tileirbc``), the format cuTile emits and ``tileiras`` reads.

Layout (all integers are LEB128 varints unless noted):

* header: magic ``7F 'TileIR' 00``, major (u8), minor (u8), tag (u16 LE);
* sections until an end marker ``00``: a byte ``id | 0x80 if aligned``, the payload length, an
  alignment (if flagged) and padding, then the payload.  Ids: 1 strings, 2 functions, 3 debug
  info, 4 constants, 5 types, 6 globals, 7 producer;
* strings / types / constants: a count, padding, a table of u32 (constants: u64) offsets,
  then the data;
* functions: name, signature type, flags (bit 1 = kernel, bit 2 = has hints), location
  index, optional hints, then the body: ops whose operands are indices into the values
  defined so far (the arguments first).  From 13.5 a kernel always carries its hints (bit 2
  is unused) and every function an array of per-argument attribute dictionaries after them;
* debug info: per function (location index - 1) an offset into an array of u64 attribute
  indices, one for the function and one per op in the order the opcodes appear (0 = unknown),
  then a table (u32 offsets) of attributes: ``DIFile``, ``DICompileUnit``, ``DILexicalBlock``,
  ``DILoc`` (scope, file name, line, column), ``DISubprogram`` (from 13.5 with a trailing flags
  varint) and ``CallSite``;
* an op: opcode, result types, a flags word for optional fields, its attributes and operand
  groups in the specification's order (:mod:`.bytecode_ops`), its regions (blocks with typed
  arguments and op lists).

:func:`read_bytecode` returns a ``builtin.module`` holding one ``cuda_tile.module``.  Malformed
input raises :class:`BytecodeError`, whose message names the byte offset.

Ops are located where the debug info puts them (cuTile records the Python file, line and column
of every op, so diagnostics read ``kernels.py:37:9: error: ...``); an op without a debug-info
location is located at its byte offset: ``FILE:0:OFFSET``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects.builtin import (ArrayAttr, BFloat16Type, BoolAttr, CallSiteLoc, DenseArrayBase, DictionaryAttr,
                                   FileLineColLoc, Float4E2M1FNType, Float8E4M3FNType, Float8E5M2Type, Float8E8M0FNUType, Float16Type,
                                   Float32Type, Float64Type, FloatAttr, FloatTF32Type, FunctionType, IntAttr,
                                   IntegerAttr, IntegerType, ModuleOp, StringAttr, SymbolRefAttr, UnitAttr, i32)
from xdsl.ir import Attribute, Block, Region

MAGIC = b"\x7fTileIR\x00"
SUPPORTED_VERSIONS = ((13, 1), (13, 2), (13, 3), (13, 4), (13, 5))
SECTION_NAMES = {1: "string", 2: "function", 3: "debug", 4: "constant", 5: "type", 6: "global", 7: "producer"}
#: The alignment a section must declare (a multiple of it), as NVIDIA's reader (and tileiras) require:
#: the tables of 32-bit offsets 4, the function, constant and debug sections 8.
SECTION_ALIGNMENT = {1: 4, 5: 4, 2: 8, 3: 8, 4: 8}


_INVALID_TYPE_HINTS = {
    "0-dimension tile shape is not supported": ": a tiled view of a 0-d array is not valid CUDA Tile IR; read a "
                                               "0-d array with ct.gather(array, ()) and write it with "
                                               "ct.scatter(array, (), value)",
    "expected tensor_view rank and tile rank to match": ": the tile a ct.load reads or a ct.store writes has the "
                                                        "array's rank; ct.reshape the tile to it (a tile of size-1 "
                                                        "dimensions added or dropped)",
}
"""Hints for the verifier messages of types cuTile 1.7 writes for a program's mistake, by the
message's beginning."""


def _raise_at_source(loc, message: str, otherwise: Exception):
    """A :class:`~tileorch.diagnostics.CompileError` ``message`` at the program line ``loc``
    points at; ``otherwise`` when the bytecode has no debug location there."""
    from tileorch.diagnostics import CompileError, called_from_notes, source_position

    pos = source_position(loc)
    if pos is None:
        raise otherwise
    raise CompileError([f"{pos.filename.data}:{pos.line.data}:{pos.column.data}: error: {message}"
                        f"{called_from_notes(loc)}"]) from None


class BytecodeError(Exception):
    """Malformed or unsupported bytecode; ``offset`` is the byte position of the problem."""

    def __init__(self, offset: int, message: str):
        super().__init__(f"offset {offset}: {message}")
        self.offset = offset
        self.message = message


def is_bytecode(data: bytes) -> bool:
    return data[:8] == MAGIC


class _Reader:
    """Bounds-checked cursor over ``data``; ``base`` is the absolute offset of ``data[0]``."""

    def __init__(self, data: bytes, base: int = 0, what: str = "bytecode"):
        self.data, self.pos, self.base, self.what = data, 0, base, what

    @property
    def offset(self) -> int:
        return self.base + self.pos

    def error(self, message: str, at: int | None = None) -> BytecodeError:
        return BytecodeError(self.offset if at is None else at, message)

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def u8(self) -> int:
        if self.pos >= len(self.data):
            raise self.error(f"unexpected end of {self.what}")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def le(self, n: int) -> int:
        if self.pos + n > len(self.data):
            raise self.error(f"unexpected end of {self.what} (need {n} bytes)")
        v = int.from_bytes(self.data[self.pos:self.pos + n], "little")
        self.pos += n
        return v

    def bytes(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise self.error(f"length {n} exceeds the {self.remaining()} bytes left in the {self.what}")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def varint(self, limit: int | None = None, what: str = "value", bits: int = 64) -> int:
        start = self.offset
        result, shift = 0, 0
        while True:
            if shift > 63:
                raise self.error("varint longer than 64 bits", start)
            b = self.u8()
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        if result >> bits:
            raise self.error(f"varint value {result} does not fit in {bits} bits", start)
        if limit is not None and result > limit:
            raise self.error(f"{what} {result} exceeds the maximum of {limit}", start)
        return result

    def flag(self, what: str) -> bool:
        """A one-byte boolean: 0 or 1 (any other byte is a corruption, not "true")."""
        at = self.offset
        b = self.u8()
        if b > 1:
            raise self.error(f"{what} must be 0 or 1, got {b}", at)
        return bool(b)

    def svarint(self) -> int:
        v = self.varint()
        v = (v >> 1) ^ -(v & 1)
        return v - (1 << 64) if v >= 1 << 63 else v

    def ap_int(self) -> int:
        """The signed varint of an APInt of 9 to 64 bits: cuTile 1.7 zigzags the unsigned bit
        pattern (``encode_ap_int``), which takes 65 bits when the top bit is set (a negative f64
        such as a ``-inf`` padding value); a sign-extended pattern is a 64-bit zigzag.  Returns the
        pattern (unsigned) or the sign-extended value (negative)."""
        v = self.varint(bits=65)
        return (v >> 1) ^ -(v & 1)

    def align(self, alignment: int) -> None:
        pad = (-self.offset) % alignment
        self.bytes(pad)

    def offset_table(self, width: int, what: str) -> list[int]:
        """A section's table: the entry count, padding to ``width``, then that many ``width``-byte
        little-endian offsets (the count checked against what the section can hold)."""
        n = self.varint()
        if n > self.remaining() // width + 1:
            raise self.error(f"number of {what} ({n}) exceeds what the section can hold")
        self.align(width)
        return [self.le(width) for _ in range(n)]

    def le_array(self, width: int, signed: bool = True) -> list[int]:
        n = self.varint(limit=self.remaining() // max(width, 1), what="array length")
        out = []
        for _ in range(n):
            v = self.le(width)
            if signed and v >> (8 * width - 1):
                v -= 1 << (8 * width)
            out.append(v)
        return out


def _int(width: int) -> IntegerType:
    return IntegerType(width)


def _typed_int(v: int, t: IntegerType, at: int, what: str) -> IntegerAttr:
    """The raw integer ``v`` read at byte ``at`` as an ``IntegerAttr`` of ``t``: ``v`` is the
    value's two's-complement bit pattern (an i1 is 0 or 1), so it must fit in ``t``'s width; a
    wider value is a located :class:`BytecodeError` here, never an xDSL range error later."""
    w = t.width.data
    if v < 0 or v >> w:
        raise BytecodeError(at, f"{what}: value {v} does not fit in {w} bits (type i{w})")
    if w == 1:
        return BoolAttr(bool(v), IntegerType(1))
    return IntegerAttr(v - (1 << w) if v >> (w - 1) else v, t)


SCALAR_TYPES: dict[int, Callable[[], Attribute]] = {
    0: lambda: _int(1), 1: lambda: _int(8), 2: lambda: _int(16), 3: lambda: _int(32), 4: lambda: _int(64),
    5: Float16Type, 6: BFloat16Type, 7: Float32Type, 8: FloatTF32Type, 9: Float64Type, 10: Float8E4M3FNType,
    11: Float8E5M2Type, 18: Float8E8M0FNUType, 19: Float4E2M1FNType, 22: lambda: _int(4),
}


UNSUPPORTED_SCALAR_TYPES = {130: ("f8E5M3FNU", "float8_e5m3fnu")}
"""Element types of the bytecode (tag: MLIR and cuTile names) that tileorch has no type for: a value of one is
refused at the line of the op that makes it (:data:`UNSUPPORTED_TYPE`), not as an unknown tag at a byte offset."""
UNSUPPORTED_TYPE = "unsupported element type: "


FLOAT_TYPES = (Float16Type, BFloat16Type, Float32Type, FloatTF32Type, Float64Type, Float8E4M3FNType, Float8E5M2Type,
               Float8E8M0FNUType, Float4E2M1FNType)


def _type_str(t: Attribute) -> str:
    short = getattr(t, "short_str", None)
    try:
        return short() if callable(short) else str(t)
    except Exception:  # noqa: BLE001 - only for the message
        return type(t).__name__


@dataclass
class _Tables:
    """The bytecode's string, type and constant tables as read so far."""

    version: tuple[int, int]
    strings: list[str] = field(default_factory=list)
    type_offsets: list[int] = field(default_factory=list)
    type_data: bytes = b""
    type_base: int = 0
    types: dict[int, Attribute] = field(default_factory=dict)
    constants: list[tuple[int, bytes]] = field(default_factory=list)


DEBUG_TAGS = {1: "DICompileUnit", 2: "DIFile", 3: "DILexicalBlock", 4: "DILoc", 5: "DISubprogram", 6: "CallSite"}
_DEBUG_DEPTH = 64  # longest chain of debug attributes followed (scopes, call sites)


@dataclass
class _DebugInfo:
    """The debug-info section, decoded lazily like the type table (an attribute is decoded when
    an op refers to it).  ``indices[index_offsets[f] + k]`` is the attribute of the k-th entry of
    function ``f`` (the function itself, then its ops); attribute ``i`` (1-based; 0 is the unknown
    location) is ``data[attr_offsets[i - 1]:attr_offsets[i]]``."""

    index_offsets: list[int]
    index_offsets_at: int
    indices: list[int]
    indices_at: int
    attr_offsets: list[int]
    data: bytes
    data_at: int
    cache: dict[int, tuple] = field(default_factory=dict)
    parsing: set[int] = field(default_factory=set)
    locations: dict[int, FileLineColLoc | None] = field(default_factory=dict)


def _scope_file(scope: tuple) -> str:
    """The file of a decoded ``DISubprogram`` or ``DILexicalBlock`` (``dir/name``; '' if none)."""
    _, name, directory = scope[1] if scope[0] == "DISubprogram" else scope[2]
    return f"{directory.rstrip('/')}/{name}" if directory and name else name


def _in_cutile_library(filename: str) -> bool:
    return "/cuda/tile/" in filename.replace("\\", "/")


class _LocationCursor:
    """The locations of one function's entries, handed out in order (cuTile's writer and
    tileiras's reader take one per op, in the order the opcodes appear)."""

    def __init__(self, reader: "BytecodeReader", start: int | None, what: str):
        self.reader, self.next, self.what = reader, start, what

    def take(self, at: int, what: str) -> FileLineColLoc | None:
        """The location of the next entry (``what`` names it), or None when it is unknown."""
        if self.next is None:
            return None
        di = self.reader.debug
        i = self.next
        self.next += 1
        if i >= len(di.indices):
            raise BytecodeError(at, f"{what} has no debug-info entry (entry {i} of {len(di.indices)}; "
                                    f"debug info of {self.what})")
        return self.reader.debug_location(di.indices[i], di.indices_at + 8 * i, what)


class BytecodeReader:
    def __init__(self, data: bytes, name: str = "<bytecode>"):
        self.data, self.name = data, name
        self.r = _Reader(data)
        self.debug: _DebugInfo | None = None
        self._locs = _LocationCursor(self, None, "")

    # ------------------------------------------------------------------ header and sections
    def read(self) -> ModuleOp:
        from tileorch.dialects.cuda_tile import ops as ct

        r = self.r
        if len(self.data) < 8 or self.data[:8] != MAGIC:
            for i in range(min(8, len(self.data))):
                if self.data[i] != MAGIC[i]:
                    raise BytecodeError(i, f"invalid magic number (byte {i} is 0x{self.data[i]:02x}, expected "
                                           f"0x{MAGIC[i]:02x}): not CUDA Tile IR bytecode")
            raise BytecodeError(len(self.data), "file too short for the CUDA Tile IR magic number")
        r.pos = 8
        major, minor, tag = r.u8(), r.u8(), r.le(2)
        if (major, minor) not in SUPPORTED_VERSIONS:
            why = "newer than the newest" if (major, minor) > SUPPORTED_VERSIONS[-1] else "not one"
            raise BytecodeError(8, f"unsupported bytecode version {major}.{minor}.{tag} ({why} this reader knows); "
                                   f"supported: {', '.join(f'{a}.{b}' for a, b in SUPPORTED_VERSIONS)}")
        self.t = _Tables((major, minor))
        sections: dict[int, tuple[int, bytes]] = {}
        while True:
            at = r.offset
            b = r.u8()
            sid, aligned = b & 0x7F, bool(b & 0x80)
            if sid == 0:
                if aligned:
                    raise BytecodeError(at, "end section must not have the alignment flag set")
                break
            if sid not in SECTION_NAMES:
                raise BytecodeError(at, f"unknown section id {sid}")
            if sid in sections:
                raise BytecodeError(at, f"duplicate {SECTION_NAMES[sid]} section")
            length = r.varint()
            if length > r.remaining():
                raise BytecodeError(at, f"{SECTION_NAMES[sid]} section length {length} exceeds the remaining "
                                        f"{r.remaining()} bytes")
            if aligned:
                astart = r.offset
                alignment = r.varint()
                if alignment == 0 or alignment & (alignment - 1):
                    raise BytecodeError(astart, f"invalid section alignment {alignment}")
                r.align(alignment)
                if length > r.remaining():
                    raise BytecodeError(at, f"{SECTION_NAMES[sid]} section length {length} exceeds the remaining "
                                            f"{r.remaining()} bytes")
            need = SECTION_ALIGNMENT.get(sid, 1)
            if need > 1 and (not aligned or alignment % need):
                raise BytecodeError(at, f"{SECTION_NAMES[sid]} section must be aligned to a multiple of {need} "
                                        f"bytes, but " + (f"has alignment {alignment}" if aligned else
                                                          "has no alignment flag set"))
            sections[sid] = (r.offset, r.bytes(length))
        if r.remaining():
            raise BytecodeError(r.offset, f"end section is not the last section ({r.remaining()} bytes follow it)")
        for sid, parse in ((1, self._strings), (5, self._types), (4, self._constants), (3, self._debug_section)):
            if sid in sections:
                parse(*sections[sid])
        module_name = "kernels"
        body = Block()
        if 6 in sections:
            for g in self._globals(*sections[6]):
                body.add_op(g)
        if 2 in sections:
            for f in self._functions(*sections[2]):
                body.add_op(f)
        props: dict[str, Attribute] = {"sym_name": StringAttr(module_name)}
        if 7 in sections:
            pr = _Reader(sections[7][1], sections[7][0], "producer section")
            props["producer"] = StringAttr(self._string(pr.varint(), pr))
        mod = ct.ModuleOp.build(properties=props, regions=[Region(body)])
        top = ModuleOp([mod])
        for op in (top, mod):  # module-level diagnostics name the file (byte offset 0)
            op.location = FileLineColLoc(StringAttr(self.name), IntAttr(0), IntAttr(0))
        return top

    def _strings(self, base: int, payload: bytes) -> None:
        r = _Reader(payload, base, "string section")
        n = r.varint()
        if n == 0:
            return
        if n > r.remaining() // 4:
            raise r.error(f"number of strings ({n}) exceeds what the {r.remaining()}-byte section can hold")
        r.align(4)
        offs = [r.le(4) for _ in range(n)]
        blob = r.data[r.pos:]
        out = []
        for i, o in enumerate(offs):
            end = offs[i + 1] if i + 1 < n else len(blob)
            if not o <= end <= len(blob):
                raise BytecodeError(base + r.pos, f"string {i} has invalid bounds [{o}, {end})")
            try:
                out.append(blob[o:end].decode("utf-8"))
            except UnicodeDecodeError:
                raise BytecodeError(base + r.pos + o, f"string {i} is not valid UTF-8") from None
        self.t.strings = out

    def _string(self, idx: int, r: _Reader) -> str:
        if idx >= len(self.t.strings):
            raise r.error(f"string index {idx} out of range ({len(self.t.strings)} strings)")
        return self.t.strings[idx]

    # ------------------------------------------------------------------ types
    def _types(self, base: int, payload: bytes) -> None:
        r = _Reader(payload, base, "type section")
        self.t.type_offsets = r.offset_table(4, "types")
        self.t.type_base = base + r.pos
        self.t.type_data = r.data[r.pos:]

    def type(self, idx: int, at: _Reader, depth: int = 0) -> Attribute:
        if idx in self.t.types:
            return self.t.types[idx]
        offs = self.t.type_offsets
        if idx >= len(offs):
            raise at.error(f"type index {idx} out of range ({len(offs)} types)")
        if depth > 64:
            raise at.error("type nesting too deep (cyclic type table?)")
        start = offs[idx]
        end = offs[idx + 1] if idx + 1 < len(offs) else len(self.t.type_data)
        if not start <= end <= len(self.t.type_data):
            raise BytecodeError(self.t.type_base, f"type {idx} has invalid bounds")
        r = _Reader(self.t.type_data[start:end], self.t.type_base + start, f"type {idx}")
        t = self._decode_type(r, depth)
        self.t.types[idx] = t
        return t

    def _decode_type(self, r: _Reader, depth: int) -> Attribute:
        from tileorch.dialects.cuda_tile import types as T

        at = r.offset
        tag = r.varint()
        sub = lambda: self.type(r.varint(), r, depth + 1)  # noqa: E731
        new_format = self.t.version >= (13, 4)
        opt_flags = 0
        if new_format and tag in (12, 14, 15, 20, 21):  # 13.4: a flags word for optional parameters
            fat = r.offset
            opt_flags = r.varint()
            if tag in (12, 14) and opt_flags:
                raise BytecodeError(fat, f"unsupported optional parameters (flags 0x{opt_flags:x}) in type tag {tag}")
        self._opt_flags = opt_flags
        try:
            if tag in SCALAR_TYPES:
                return SCALAR_TYPES[tag]()
            if tag == 12:
                return T.PointerType(sub())
            if tag == 13:
                elem = sub()
                shape = r.le_array(8)
                return T.TileType(shape, elem)
            if tag == 14:
                elem = sub()
                shape = [T.DYNAMIC if d == T.DYNAMIC else d for d in r.le_array(8)]
                strides = r.le_array(8)
                return T.TensorViewType(elem, shape, strides)
            if tag == 15:
                tile = r.le_array(4)
                tv = sub()
                dim_map = r.le_array(4)
                pad = self._padding(r)
                return T.PartitionViewType(tile, tv, dim_map, pad)
            if tag == 16:
                ins = [sub() for _ in range(r.varint(limit=r.remaining(), what="input count"))]
                outs = [sub() for _ in range(r.varint(limit=r.remaining(), what="result count"))]
                return FunctionType.from_lists(ins, outs)
            if tag == 17:
                return T.TokenType()
            if tag == 20:
                tile = r.le_array(4)
                tv = sub()
                sparse = r.varint(limit=2**32 - 1, what="sparse_dim")
                pad = self._padding(r)
                return T.GatherScatterViewType(ArrayAttr([IntAttr(v) for v in tile]), tv, IntAttr(sparse),
                                               StringAttr(pad or ""))
            if tag == 21:
                tile = r.le_array(4)
                trav = r.le_array(4)
                tv = sub()
                dim_map = r.le_array(4)
                pad = self._padding(r)
                return T.StridedViewType(ArrayAttr([IntAttr(v) for v in tile]), ArrayAttr([IntAttr(v) for v in trav]),
                                         tv, ArrayAttr([IntAttr(v) for v in dim_map]), StringAttr(pad or ""))
        except BytecodeError:
            raise
        except Exception as exc:  # a type verifier rejected the decoded parameters
            raise BytecodeError(at, f"invalid type: {str(exc).splitlines()[0]}") from None
        if tag in UNSUPPORTED_SCALAR_TYPES:
            mlir, cutile = UNSUPPORTED_SCALAR_TYPES[tag]
            raise BytecodeError(at, f"{UNSUPPORTED_TYPE}{mlir} (cuTile's ct.{cutile}), which is not supported yet by "
                                    "tileorch (compute in ct.float8_e4m3fn, ct.float8_e5m2 or ct.bfloat16)")
        raise BytecodeError(at, f"unknown type tag {tag}")

    def _padding(self, r: _Reader) -> str | None:
        from tileorch.dialects.cuda_tile.types import PADDING_VALUES

        if self.t.version >= (13, 4):
            present = self._opt_flags & 1
            if not present:
                return None
        else:
            if r.remaining() == 0:
                return None
            present = r.u8()
        if present == 0:
            return None
        at = r.offset
        v = r.varint()
        if v >= len(PADDING_VALUES):
            raise r.error(f"invalid padding value {v}", at)
        return PADDING_VALUES[v]

    # ------------------------------------------------------------------ debug info
    def _debug_section(self, base: int, payload: bytes) -> None:
        r = _Reader(payload, base, "debug section")
        n = r.varint(limit=r.remaining() // 4, what="number of functions with debug info")
        r.align(4)
        offsets_at = r.offset
        index_offsets = [r.le(4) for _ in range(n)]
        m = r.varint(limit=r.remaining() // 8, what="number of debug-info indices")
        r.align(8)
        indices_at = r.offset
        indices = [r.le(8) for _ in range(m)]
        k = r.varint(limit=r.remaining() // 4, what="number of debug-info attributes")
        r.align(4)
        attr_offsets = [r.le(4) for _ in range(k)]
        self.debug = _DebugInfo(index_offsets, offsets_at, indices, indices_at, attr_offsets, r.data[r.pos:],
                                r.offset)

    def _location_cursor(self, loc_index: int, at: int, fn: str) -> _LocationCursor:
        """The cursor over function ``fn``'s locations; ``loc_index`` 0: no debug info."""
        if loc_index == 0:
            return _LocationCursor(self, None, fn)
        n = len(self.debug.index_offsets) if self.debug is not None else 0
        if loc_index > n:
            raise BytecodeError(at, f"debug-info index {loc_index} of {fn} is out of range "
                                    f"({n} functions have debug info)")
        return _LocationCursor(self, self.debug.index_offsets[loc_index - 1], fn)

    def debug_location(self, index: int, at: int, what: str) -> FileLineColLoc | CallSiteLoc | None:
        """Debug attribute ``index`` (read at ``at``) as the location of ``what``: a ``DILoc``'s
        file, line and column, None for the unknown location.  A ``CallSite`` (code inlined from a
        called function) is located at its innermost frame outside cuTile's own library: ``x.astype``
        is inlined from cuTile's ``_stub.py``, and the user's line is the call.  Frames outside the
        library around that one (a ``ct.function`` helper inlined into the kernel) stay as a
        ``CallSiteLoc`` (callee: that frame; caller: the next, itself a call site when there are more),
        so a diagnostic there also names the calls (``note: called from``)."""
        if index == 0:
            return None
        if self.debug is not None and index in self.debug.locations:
            return self.debug.locations[index]
        attr = self._debug_attr(index, at, 0)
        if attr[0] not in ("DILoc", "CallSite", "unknown"):
            raise BytecodeError(at, f"the debug-info location of {what} is a {attr[0]}, not a location")
        frames = []  # (file, line, column), innermost first
        pending = [attr]
        while pending:
            a = pending.pop()
            if a[0] == "CallSite":
                pending += [a[2], a[1]]  # the callee is visited first
            elif a[0] == "DILoc":
                _, scope, filename, line, col = a
                filename = filename or _scope_file(scope)  # a DILoc without a file name: its scope's file
                if filename:
                    frames.append((filename, line, col))
        loc = None
        if frames:
            user = [f for f in frames if not _in_cutile_library(f[0])] or frames[:1]
            for filename, line, col in reversed(user):  # the outermost call first: each frame calls the one inside
                here = FileLineColLoc(StringAttr(filename), IntAttr(line), IntAttr(col))
                loc = here if loc is None else CallSiteLoc(here, loc)
        self.debug.locations[index] = loc
        return loc

    def _debug_attr(self, index: int, at: int, depth: int) -> tuple:
        """Decode debug attribute ``index`` (1-based; ``at`` is where the reference was read):
        ``(tag name, fields...)``, ``("unknown",)`` for index 0 or an unknown tag."""
        di = self.debug
        if index == 0:
            return ("unknown",)
        if di is None:
            raise BytecodeError(at, f"debug attribute {index} referenced, but the bytecode has no debug section")
        i = index - 1
        if i >= len(di.attr_offsets):
            raise BytecodeError(at, f"debug attribute index {index} out of range ({len(di.attr_offsets)} attributes)")
        if i in di.cache:
            return di.cache[i]
        if i in di.parsing or depth > _DEBUG_DEPTH:
            raise BytecodeError(at, f"debug attribute {index} refers to itself (cyclic or too deep)")
        start = di.attr_offsets[i]
        end = di.attr_offsets[i + 1] if i + 1 < len(di.attr_offsets) else len(di.data)
        if not start <= end <= len(di.data):
            raise BytecodeError(di.data_at, f"debug attribute {index} has invalid bounds [{start}, {end})")
        r = _Reader(di.data[start:end], di.data_at + start, f"debug attribute {index}")
        di.parsing.add(i)
        try:
            tag = r.varint()
            kind = DEBUG_TAGS.get(tag, "unknown")

            def ref(*want: str) -> tuple:
                ref_at = r.offset
                sub = self._debug_attr(r.varint(), ref_at, depth + 1)
                if sub[0] not in want:
                    raise BytecodeError(ref_at, f"{kind} (debug attribute {index}) needs a "
                                                f"{' or '.join(want)} here, got {sub[0]}")
                return sub

            def string() -> str:
                return self._string(r.varint(), r)

            scopes = ("DISubprogram", "DILexicalBlock")
            if kind == "DICompileUnit":
                out = (kind, ref("DIFile"))
            elif kind == "DIFile":
                out = (kind, string(), string())
            elif kind == "DILexicalBlock":
                out = (kind, ref(*scopes), ref("DIFile"), r.varint(), r.varint())
            elif kind == "DILoc":
                out = (kind, ref(*scopes), string(), r.varint(), r.varint())
            elif kind == "DISubprogram":
                out = (kind, ref("DIFile"), r.varint(), string(), string(), ref("DICompileUnit"), r.varint())
                if self.t.version >= (13, 5):
                    r.varint()  # subprogram flags (13.5; no flag is defined yet)
            elif kind == "CallSite":
                locations = ("DILoc", "CallSite", "unknown")
                out = (kind, ref(*locations), ref(*locations))  # callee, caller
            else:  # tileiras reads an unknown tag as the unknown location
                out = ("unknown",)
        finally:
            di.parsing.discard(i)
        di.cache[i] = out
        return out

    # ------------------------------------------------------------------ constants and globals
    def _constants(self, base: int, payload: bytes) -> None:
        r = _Reader(payload, base, "constant section")
        offs = r.offset_table(8, "constants")
        n = len(offs)
        dbase = base + r.pos
        blob = r.data[r.pos:]
        for i, o in enumerate(offs):
            end = offs[i + 1] if i + 1 < n else len(blob)
            if not o <= end <= len(blob):
                raise BytecodeError(dbase, f"constant {i} has invalid bounds [{o}, {end})")
            self.t.constants.append((dbase + o, blob[o:end]))

    def dense(self, idx: int, tile_type: Attribute, at: _Reader):
        """Constant ``idx`` (raw little-endian element data) as a DenseConstantAttr of ``tile_type``."""
        from tileorch.dialects.cuda_tile import attrs as A
        from tileorch.dialects.cuda_tile.types import TileType, bitwidth

        if idx >= len(self.t.constants):
            raise at.error(f"constant index {idx} out of range ({len(self.t.constants)} constants)")
        if not isinstance(tile_type, TileType):
            raise at.error("a dense constant needs a tile type")
        if not isinstance(tile_type.element_type, (IntegerType, *FLOAT_TYPES)):
            raise at.error(f"a dense constant needs integer or float elements, got {_type_str(tile_type)}")
        off, raw = self.t.constants[idx]
        r = _Reader(raw, off, f"constant {idx}")
        size = r.varint(limit=r.remaining(), what="constant size")
        data = r.bytes(size)
        et = tile_type.element_type
        width = bitwidth(et)
        n = tile_type.num_elements()
        if width == 4:  # two elements per byte, low nibble first
            vals = [(b >> s) & 0xF for b in data for s in (0, 4)]
            vals = vals[:1] if len(data) == 1 and n > 2 else vals
        else:
            ebytes = max(1, width // 8)
            if len(data) % ebytes:
                raise BytecodeError(off, f"constant data of {len(data)} bytes is not a whole number of "
                                         f"{ebytes}-byte elements")
            vals = [int.from_bytes(data[i:i + ebytes], "little") for i in range(0, len(data), ebytes)]
        if len(vals) not in (1, n):
            raise BytecodeError(off, f"constant has {len(vals)} elements, its type {tile_type.short_str()} {n}")
        if isinstance(et, IntegerType):
            vals = [A._wrap(v, width) for v in vals]  # noqa: SLF001 (signed view, as MLIR prints)
        return A.DenseConstantAttr.from_raw(tile_type, vals)

    def _globals(self, base: int, payload: bytes):
        from tileorch.dialects.cuda_tile import attrs as A
        from tileorch.dialects.cuda_tile import ops as ct

        r = _Reader(payload, base, "global section")
        for _ in range(r.varint(limit=r.remaining(), what="number of globals")):
            gat = r.offset
            name = self._string(r.varint(), r)
            t = self.type(r.varint(), r)
            value = self.dense(r.varint(), t, r)
            aat = r.offset
            alignment = _typed_int(r.varint(), IntegerType(64), aat, f"alignment of global @{name}")
            props: dict[str, Attribute] = {"sym_name": StringAttr(name), "value": value, "alignment": alignment}
            if self.t.version >= (13, 3):
                vis = r.varint()
                if vis > 1:
                    raise r.error(f"invalid symbol visibility {vis}")
                props["symbol_visibility"] = A.SymbolVisibilityAttr.from_code(vis)
                if r.varint():
                    props["constant"] = UnitAttr()
            g = ct.GlobalOp.build(properties=props)
            g.location = FileLineColLoc(StringAttr(self.name), IntAttr(0), IntAttr(gat))  # no debug info for globals
            yield g

    # ------------------------------------------------------------------ functions and ops
    def _functions(self, base: int, payload: bytes):
        from tileorch.dialects.cuda_tile import ops as ct

        r = _Reader(payload, base, "function section")
        for _ in range(r.varint(limit=r.remaining(), what="number of functions")):
            fat = r.offset
            name = self._string(r.varint(), r)
            sat = r.offset
            sig = self.type(r.varint(), r)
            if not isinstance(sig, FunctionType):
                raise BytecodeError(sat, "function signature is not a function type")
            flags = r.u8()
            lat = r.offset
            self._locs = self._location_cursor(r.varint(), lat, f"@{name}")
            fn_loc = self._locs.take(fat, f"function @{name}")
            props: dict[str, Attribute] = {"sym_name": StringAttr(name), "function_type": sig}
            new_layout = self.t.version >= (13, 5)  # a kernel always has hints, then the argument attributes
            if flags & (0x02 if new_layout else 0x04):
                hat = r.offset
                hints = self._self_contained_attr(r)
                from tileorch.dialects.cuda_tile import attrs as A

                if not isinstance(hints, A.OptimizationHintsAttr):
                    raise BytecodeError(hat, "entry optimization hints must be an optimization_hints attribute")
                if hints.value.data:
                    props["optimization_hints"] = hints
            if new_layout:
                arg_attrs = self._arg_attrs(r, len(sig.inputs.data), name)
                if arg_attrs is not None:
                    props["arg_attrs"] = arg_attrs
            size = r.varint()
            body_off = r.offset
            body = _Reader(r.bytes(size), body_off, f"body of @{name}")
            block = Block(arg_types=list(sig.inputs.data))
            values = list(block.args)
            while body.remaining():
                block.add_op(self._op(body, values))
            cls = ct.EntryOp if flags & 0x02 else ct.TestFuncOp
            from tileorch.dialects.cuda_tile.directives import ensure_terminator

            region = Region(block)
            ensure_terminator(region, ct.ReturnOp)
            fn = cls.build(properties=props, regions=[region])
            fn.location = fn_loc or FileLineColLoc(StringAttr(self.name), IntAttr(0), IntAttr(fat))
            yield fn

    def _arg_attrs(self, r: _Reader, nargs: int, fn: str) -> ArrayAttr | None:
        """13.5's per-argument attributes of function ``fn``: an array, empty or one dictionary per
        argument; ``None`` when there is nothing to keep (empty, or only empty dictionaries)."""
        at = r.offset
        a = self._self_contained_attr(r)
        if not isinstance(a, ArrayAttr) or not all(isinstance(d, DictionaryAttr) for d in a.data):
            raise BytecodeError(at, f"argument attributes of @{fn} must be an array of dictionaries")
        if not any(d.data for d in a.data):
            return None
        if len(a.data) != nargs:
            raise BytecodeError(at, f"@{fn} has {nargs} arguments but {len(a.data)} argument attribute dictionaries")
        return a

    def _value(self, r: _Reader, values: list):
        at = r.offset
        i = r.varint()
        if i >= len(values):
            raise BytecodeError(at, f"operand refers to value {i}, but only {len(values)} values are defined")
        return values[i]

    def _op(self, r: _Reader, values: list):
        from tileorch.dialects.cuda_tile.ops import CtOp
        from tileorch.frontend.bytecode_ops import OPS

        at = r.offset
        opcode = r.varint()
        if opcode not in OPS:
            if opcode in UNSUPPORTED_OPS:
                op_name, since = UNSUPPORTED_OPS[opcode]
                message = f"op '{op_name}' (opcode 0x{opcode:X}, bytecode {since}) is not supported by tileorch"
                # valid input tileorch cannot take: at the program's line where the debug info has it
                _raise_at_source(self._locs.take(at, f"'{op_name}' at offset {at}"), f"{message} yet",
                                 BytecodeError(at, message))
            raise BytecodeError(at, f"unknown opcode 0x{opcode:X}")
        mnemonic, since, fields_s, results_s, nregions, attr_sized = OPS[opcode]
        loc = self._locs.take(at, f"'{mnemonic}' at offset {at}")
        cls = _op_class(mnemonic)
        ver = self.t.version
        since_v = _ver(since)
        fields = [_field(f, since_v) for f in fields_s.split()]
        fields += [_field(spec, since_v) for v, spec in _NEWER_FIELDS.get(mnemonic, ()) if ver >= v]
        results = [(n.rstrip("*"), n.endswith("*")) for n in results_s.split()]
        # results
        # the result list is counted when the op has a variadic operand or result group (MLIR's
        # Operator::isVariadic; optional groups do not count) or a result newer than the op
        variadic = any(v for _, v in results) or any(not f.is_attr and f.kind == "*" for f in fields)
        if variadic or mnemonic in _VERSIONED_RESULTS:
            nres = r.varint(limit=r.remaining(), what="result count")
        else:
            nres = len(results)
        try:
            result_types = [self.type(r.varint(), r) for _ in range(nres)]
        except BytecodeError as exc:
            if exc.message.startswith(UNSUPPORTED_TYPE):  # (cuTile 1.7's float8_e5m3fnu): at the op's line
                _raise_at_source(loc, f"'{mnemonic}' makes a value of element type "
                                      f"{exc.message.removeprefix(UNSUPPORTED_TYPE)}", exc)
            if not exc.message.startswith("invalid type: "):
                raise
            # a type CUDA Tile IR rejects, written for the program's own construct (cuTile 1.7
            # writes a 0-d partition view for ct.load / ct.store of a 0-d array): at its line
            text = exc.message.removeprefix("invalid type: ")
            hint = next((h for start, h in _INVALID_TYPE_HINTS.items() if text.startswith(start)), "")
            _raise_at_source(loc, f"'{mnemonic}' has an invalid result type ({exc.message[14:]}){hint}", exc)
        # a result the op gained after the file's version (13.1's print had none): built, but
        # not numbered, since the file's value numbering does not count it
        unnumbered = _LATER_RESULTS.get(mnemonic)
        unnumbered = unnumbered if unnumbered and ver < unnumbered[0] and not result_types else None
        if unnumbered:
            result_types = [unnumbered[1]()]
        # flags word: one bit per optional attribute (and optional operand with attr_sized),
        # ordered by version, attributes before operands
        optional = [f for f in fields if f.is_attr and f.optional] + \
                   ([f for f in fields if not f.is_attr and f.kind == "?"] if attr_sized else [])
        optional.sort(key=lambda f: f.since)
        bits: dict[str, int] = {f.name: i for i, f in enumerate(optional)}
        flags = 0
        if optional and (optional[0].since == since_v or ver >= optional[0].since):
            flags = r.varint()
        present = {n for n, b in bits.items() if flags >> b & 1}
        props: dict[str, Attribute] = {}
        for f in fields:
            if not f.is_attr:
                continue
            if f.kind == "unit":
                if f.name in present:
                    props[_prop(f.name)] = UnitAttr()
                continue
            if f.optional and f.name not in present:
                continue
            if not f.optional and ver < f.since:
                continue  # written only from its version on; the op's default applies
            a = self._attr(r, f, mnemonic, result_types)
            if f.kind == "boolarray" and not any(a.get_values()):
                continue  # 13.4 inbounds with nothing known in bounds: the default
            props[_prop(f.name)] = a
        # operands
        groups: dict[str, list] = {}
        operand_fields = [f for f in fields if not f.is_attr]
        if attr_sized:
            for f in operand_fields:
                if f.kind == "":
                    groups[f.name] = [self._value(r, values)]
                elif f.kind == "?":
                    groups[f.name] = [self._value(r, values)] if f.name in present else []
                else:
                    n = r.varint(limit=r.remaining(), what="operand count")
                    groups[f.name] = [self._value(r, values) for _ in range(n)]
        elif operand_fields:
            if any(f.kind for f in operand_fields):
                n = r.varint(limit=r.remaining(), what="operand count")
            else:
                n = len(operand_fields)
            vals = [self._value(r, values) for _ in range(n)]
            singles = [f for f in operand_fields if f.kind == ""]
            if len(vals) < len(singles):
                raise BytecodeError(at, f"'{mnemonic}' needs at least {len(singles)} operands, got {len(vals)}")
            i = 0
            for f in operand_fields:
                if f.kind == "":
                    groups[f.name] = [vals[i]]
                    i += 1
                else:
                    rest = len(vals) - i - sum(1 for g in operand_fields[operand_fields.index(f) + 1:] if g.kind == "")
                    groups[f.name] = vals[i:i + rest]
                    i += rest
        # regions
        regions = []
        if nregions:
            for _ in range(r.varint(limit=r.remaining(), what="region count")):
                regions.append(self._region(r, values))
        op = _build(cls, groups, result_types, props, regions, at, mnemonic, self)
        # the debug info's source position, else the bytecode file and the op's byte offset
        op.location = loc or FileLineColLoc(StringAttr(self.name), IntAttr(0), IntAttr(at))
        values.extend(op.results if unnumbered is None else ())
        return op

    def _region(self, r: _Reader, values: list) -> Region:
        region = Region()
        for _ in range(r.varint(limit=r.remaining(), what="block count")):
            nargs = r.varint(limit=r.remaining(), what="block argument count")
            block = Block(arg_types=[self.type(r.varint(), r) for _ in range(nargs)])
            scope = len(values)
            values.extend(block.args)
            for _ in range(r.varint(limit=r.remaining(), what="op count")):
                block.add_op(self._op(r, values))
            del values[scope:]
            region.add_block(block)
        return region

    # ------------------------------------------------------------------ attributes
    def _attr(self, r: _Reader, f: _Field, mnemonic: str, result_types: list) -> Attribute:
        """Attribute field ``f`` of an op ``mnemonic``.  Every value is range-checked where it is
        read; an attribute constructor that still rejects the decoded parameters (an xDSL verifier)
        becomes a :class:`BytecodeError` at the attribute's offset, never an unlocated error."""
        at = r.offset
        try:
            return self._attr_fields(r, f, mnemonic, result_types)
        except (BytecodeError, RecursionError):
            raise
        except Exception as exc:  # noqa: BLE001 - an attribute verifier rejected decoded parameters
            raise BytecodeError(at, f"invalid attribute '{f.name}' of '{mnemonic}': {str(exc).splitlines()[0]}") \
                from None

    def _attr_fields(self, r: _Reader, f: _Field, mnemonic: str, result_types: list) -> Attribute:
        from tileorch.dialects.cuda_tile import attrs as A

        at = r.offset
        k = f.kind
        if k.startswith("enum:"):
            cls = _ENUMS[k[5:]]
            v = r.varint()
            try:
                return cls.from_code(v)
            except ValueError:
                raise BytecodeError(at, f"invalid value {v} for enum attribute '{f.name}' of '{mnemonic}'") from None
        if k == "int":
            width = 32 if (mnemonic, f.name) in (("reduce", "dim"), ("scan", "dim")) else 64
            return _typed_int(r.varint(), IntegerType(width), at, f"attribute '{f.name}' of '{mnemonic}'")
        if k == "str":
            return StringAttr(self._string(r.varint(), r))
        if k == "flatsym":
            return SymbolRefAttr(self._string(r.varint(), r))
        if k == "bool":
            return BoolAttr(r.flag(f"attribute '{f.name}' of '{mnemonic}'"), IntegerType(1))
        if k == "i32array":
            return DenseArrayBase.from_list(i32, r.le_array(4))
        if k == "boolarray":
            bools = r.le_array(1, signed=False)
            if any(b > 1 for b in bools):
                raise BytecodeError(at, f"attribute '{f.name}' of '{mnemonic}': a boolean array holds 0 or 1, "
                                        f"got {max(bools)}")
            return DenseArrayBase.from_list(IntegerType(1), bools)
        if k == "dense":
            if not result_types:
                raise BytecodeError(at, "a constant needs a result type")
            return self.dense(r.varint(), result_types[0], r)
        if k == "array":
            n = r.varint(limit=r.remaining(), what="array length")
            return ArrayAttr([self._self_contained_attr(r) for _ in range(n)])
        if k == "hints":
            return A.OptimizationHintsAttr(self._dict(r))
        if k == "assume":
            return self._self_contained_attr(r)
        raise BytecodeError(at, f"cannot decode attribute '{f.name}' of '{mnemonic}' (of kind {k}) inside a "
                                "function body: is the opcode right?")

    @staticmethod
    def _flag_bits(r: _Reader, known: int, what: str) -> int:
        """A flags byte whose only defined bits are ``known``."""
        at = r.offset
        fl = r.u8()
        if fl & ~known:
            raise BytecodeError(at, f"{what}: unknown flag bits 0x{fl & ~known:x} (flags 0x{fl:x})")
        return fl

    def _dict(self, r: _Reader) -> DictionaryAttr:
        n = r.varint(limit=r.remaining(), what="dictionary size")
        out = {}
        for _ in range(n):
            key = self._string(r.varint(), r)
            out[key] = self._self_contained_attr(r)
        return DictionaryAttr(out)

    def _self_contained_attr(self, r: _Reader) -> Attribute:
        """A tagged ("self-contained") attribute; errors as in :meth:`_attr`."""
        at = r.offset
        try:
            return self._tagged_attr(r)
        except (BytecodeError, RecursionError):
            raise
        except Exception as exc:  # noqa: BLE001 - an attribute verifier rejected decoded parameters
            raise BytecodeError(at, f"invalid attribute: {str(exc).splitlines()[0]}") from None

    def _tagged_attr(self, r: _Reader) -> Attribute:
        from tileorch.dialects.cuda_tile import attrs as A

        at = r.offset
        tag = r.varint()
        if tag == 1:
            tat = r.offset
            t = self.type(r.varint(), r)
            if not isinstance(t, IntegerType):
                raise BytecodeError(tat, f"an integer attribute needs an integer type, got {_type_str(t)}")
            vat = r.offset
            return _typed_int(r.varint(), t, vat, "integer attribute")
        if tag == 2:
            tat = r.offset
            t = self.type(r.varint(), r)
            if not isinstance(t, FLOAT_TYPES):
                raise BytecodeError(tat, f"a float attribute needs a float type, got {_type_str(t)}")
            from tileorch.dialects.cuda_tile.types import bitwidth

            w = bitwidth(t)
            vat = r.offset
            bits = r.u8() if w <= 8 else r.ap_int()
            # the bit pattern, unsigned or sign-extended (to a byte up to 8 bits, else to 64 bits)
            low = -(1 << (w - 1)) if w > 8 else (256 - (1 << (w - 1)) if w < 8 else 0)
            if not (0 <= bits < 1 << w or (low < 0 and low <= bits < 0) or (low > 0 and bits >= low)):
                raise BytecodeError(vat, f"float attribute: bit pattern {bits} does not fit in {w} bits "
                                         f"(type {_type_str(t)})")
            return FloatAttr(A.bits_to_float(bits & ((1 << w) - 1), t), t)
        if tag == 3:
            return BoolAttr(r.flag("boolean attribute"), IntegerType(1))
        if tag == 4:
            return self.type(r.varint(), r)
        if tag == 5:
            return StringAttr(self._string(r.varint(), r))
        if tag == 6:
            n = r.varint(limit=r.remaining(), what="array length")
            return ArrayAttr([self._self_contained_attr(r) for _ in range(n)])
        if tag == 7:
            t = self.type(r.varint(), r)
            return self.dense(r.varint(), t, r)
        if tag == 8:
            d = r.varint()
            fl = self._flag_bits(r, 3, "div_by attribute")
            every = r.svarint() if fl & 1 else -1
            along = r.svarint() if fl & 2 else -1
            return A.DivByAttr(IntAttr(d), IntAttr(every), IntAttr(along))
        if tag == 9:
            return A.SameElementsAttr(ArrayAttr([IntAttr(v) for v in r.le_array(8)]))
        if tag == 10:
            return self._dict(r)
        if tag == 11:
            return A.OptimizationHintsAttr(self._dict(r))
        if tag == 12:
            fl = self._flag_bits(r, 3, "bounded attribute")
            lb = IntAttr(r.svarint()) if fl & 1 else StringAttr("?")
            ub = IntAttr(r.svarint()) if fl & 2 else StringAttr("?")
            return A.BoundedAttr(lb, ub)
        raise BytecodeError(at, f"unknown attribute tag {tag}")


# ops with a result newer than the op (their result list is counted)
_VERSIONED_RESULTS = {"print_tko"}
# results an op gained in a later version: (that version, the result's type)
_LATER_RESULTS: dict[str, tuple[tuple[int, int], Callable[[], Attribute]]] = {
    "print_tko": ((13, 2), lambda: _token_type())}


def _token_type() -> Attribute:
    from tileorch.dialects.cuda_tile.types import TokenType

    return TokenType()
# fields added by 13.4 (read from real cuTile 1.7 bytecode): (op, field spec) appended to the op
_NEWER_FIELDS = {"load_view_tko": [((13, 4), "@inbounds:boolarray@13.4")],
                 "store_view_tko": [((13, 4), "@inbounds:boolarray@13.4")],
                 # 13.5 (cuTile 1.7's writer, bytecode 13.5): after the op's other attributes
                 "atomic_red_view_tko": [((13, 5), "@inbounds:boolarray@13.5")]}
# opcodes of newer ops that the cuda_tile dialect here does not have: (name, bytecode version)
UNSUPPORTED_OPS = {0x7A: ("memory_fence_alias_tko", "13.4"),
                   0x7B: ("multimem_load_reduce_view_tko", "13.5"), 0x7C: ("multimem_reduce_view_tko", "13.5"),
                   0x7D: ("multimem_store_view_tko", "13.5"),
                   0x4002: ("preview_call", "preview")}  # cuTile's preview foreign calls (cuda.tile_preview)


@dataclass
class _Field:
    """One field of an op's bytecode encoding: attribute or operand, name, kind, optional, first version."""

    is_attr: bool
    name: str
    kind: str
    optional: bool
    since: tuple[int, int]


def _ver(s: str) -> tuple[int, int]:
    a, b = s.split(".")
    return int(a), int(b)


def _field(spec: str, op_since: tuple[int, int]) -> _Field:
    is_attr = spec[0] == "@"
    body = spec[1:]
    since = op_since
    if "@" in body:
        body, v = body.rsplit("@", 1)
        since = _ver(v)
    name, _, kind = body.partition(":")
    optional = kind.endswith("?") and is_attr
    if is_attr:
        kind = kind.rstrip("?")
        if kind == "unit":
            optional = True
    return _Field(is_attr, name, kind, optional, since)


def _prop(name: str) -> str:
    return name


_RENAMES = {"from": "from_", "operands": "operands_", "results": "results_"}
_ENUMS: dict = {}


def _init_enums() -> None:
    from tileorch.dialects.cuda_tile import attrs as A

    _ENUMS.update({"Signedness": A.SignednessAttr, "IntegerOverflow": A.IntegerOverflowAttr,
                   "RoundingMode": A.RoundingModeAttr, "ComparisonOrdering": A.ComparisonOrderingAttr,
                   "ComparisonPredicate": A.ComparisonPredicateAttr, "AtomicRMWMode": A.AtomicRMWModeAttr,
                   "MemoryScope": A.MemoryScopeAttr, "MemoryOrdering": A.MemoryOrderingAttr,
                   "SymbolVisibility": A.SymbolVisibilityAttr})


_CLASSES: dict = {}


def _op_class(mnemonic: str):
    """The class of ``cuda_tile.<mnemonic>``, defined on first use (only the ops a program has)."""
    cls = _CLASSES.get(mnemonic)
    if cls is None:
        from tileorch.dialects.cuda_tile import ops as ct

        if not _ENUMS:
            _init_enums()
        cls = _CLASSES[mnemonic] = ct.op_class("cuda_tile." + mnemonic)
    return cls


def _build(cls, groups, result_types, props, regions, at, mnemonic, reader):
    from xdsl.irdl import OptionalDef, VarOperandDef, VarResultDef

    op_def = cls.get_irdl_definition()
    operands = []
    for n, d in op_def.operands:
        ods = next((k for k, v in _RENAMES.items() if v == n), n)
        vals = groups.get(ods, groups.get(n, []))
        if isinstance(d, (VarOperandDef, OptionalDef)):
            operands.append(vals)
        else:
            if len(vals) != 1:
                raise BytecodeError(at, f"'{mnemonic}' operand '{ods}' is missing")
            operands.append(vals[0])
    res = []
    i = 0
    ndefs = len(op_def.results)
    for j, (n, d) in enumerate(op_def.results):
        if isinstance(d, VarResultDef):
            rest = len(result_types) - i - (ndefs - j - 1)
            res.append(result_types[i:i + rest])
            i += rest
        else:
            if i >= len(result_types):
                raise BytecodeError(at, f"'{mnemonic}' is missing result '{n}'")
            res.append(result_types[i])
            i += 1
    if i != len(result_types):
        raise BytecodeError(at, f"'{mnemonic}' has {len(result_types)} results, expected {i}")
    if mnemonic == "make_tensor_view" or op_def.regions and len(regions) != len(op_def.regions):
        while len(regions) < len(op_def.regions):
            regions.append(Region())
    try:
        return cls.build(operands=operands, result_types=res, properties=props, regions=regions)
    except Exception as exc:  # noqa: BLE001
        raise BytecodeError(at, f"cannot build '{mnemonic}': {str(exc).splitlines()[0]}") from None


def read_bytecode(data: bytes, name: str = "<bytecode>") -> ModuleOp:
    """Decode CUDA Tile IR bytecode into a ``builtin.module`` holding a ``cuda_tile.module``."""
    try:
        return BytecodeReader(data, name).read()
    except RecursionError:
        raise BytecodeError(0, "bytecode nesting too deep") from None


def read_file(path: str) -> ModuleOp:
    with open(path, "rb") as f:
        return read_bytecode(f.read(), path)
