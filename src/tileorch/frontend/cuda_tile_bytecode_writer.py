"""Writer of CUDA Tile IR bytecode: the inverse of :mod:`.cuda_tile_bytecode` (same layout and
op table).  ``write_bytecode(module, version=(13, 3))`` encodes the first ``cuda_tile.module``
of ``module``.  Ops or fields that the chosen version cannot express raise
:class:`BytecodeWriteError` naming the op.

Source positions (``FileLineColLoc`` with a line, as the parser and the reader attach them) are
written as debug info the way cuTile writes it: a ``DIFile``/``DICompileUnit`` per file, a
``DISubprogram`` per function and a ``DILoc`` per position, so that diagnostics on the bytecode
name the source again.  ``debug_info=False`` leaves the debug section out.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (ArrayAttr, BoolAttr, DenseArrayBase, DictionaryAttr, FileLineColLoc, FloatAttr,
                                   FunctionType, IntegerAttr, IntegerType, ModuleOp, StringAttr, SymbolRefAttr,
                                   UnitAttr)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tileorch.frontend.cuda_tile_bytecode import MAGIC, SCALAR_TYPES, _field, _ver


class BytecodeWriteError(Exception):
    pass


def _varint(v: int) -> bytes:
    if v < 0:
        v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _svarint(v: int) -> bytes:
    return _varint(((v << 1) ^ (v >> 63)) & ((1 << 64) - 1))


def _le_array(values, width: int) -> bytes:
    out = bytearray(_varint(len(values)))
    for v in values:
        out += (v & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
    return bytes(out)


class _Writer:
    def __init__(self, version: tuple[int, int]):
        self.version = version
        self.strings: dict[str, int] = {}
        self.types: list[bytes] = []
        self.type_index: dict[Attribute, int] = {}
        self.constants: list[bytes] = []
        self.const_index: dict[Attribute, int] = {}
        self.locs: list[tuple | None] | None = None  # the current function's op positions (_source_position)

    # ---------------------------------------------------------------- tables
    def string(self, s: str) -> int:
        if s not in self.strings:
            self.strings[s] = len(self.strings)
        return self.strings[s]

    def type(self, t: Attribute) -> int:
        if t in self.type_index:
            return self.type_index[t]
        body = self._encode_type(t)  # registers dependencies first
        self.type_index[t] = len(self.types)
        self.types.append(body)
        return self.type_index[t]

    def _encode_type(self, t: Attribute) -> bytes:
        from tileorch.dialects.cuda_tile import types as T

        for tag, make in SCALAR_TYPES.items():
            if make() == t:
                return _varint(tag)
        new = self.version >= (13, 4)
        if isinstance(t, T.PointerType):
            return _varint(12) + (_varint(0) if new else b"") + _varint(self.type(t.pointee))
        if isinstance(t, T.TileType):
            return _varint(13) + _varint(self.type(t.element_type)) + _le_array(t.shape, 8)
        if isinstance(t, T.TensorViewType):
            return _varint(14) + (_varint(0) if new else b"") + _varint(self.type(t.element_type)) + \
                _le_array(t.shape, 8) + _le_array(t.strides, 8)
        if isinstance(t, T.TokenType):
            return _varint(17)
        if isinstance(t, FunctionType):
            ins = [self.type(x) for x in t.inputs.data]
            outs = [self.type(x) for x in t.outputs.data]
            return _varint(16) + _varint(len(ins)) + b"".join(map(_varint, ins)) + _varint(len(outs)) + \
                b"".join(map(_varint, outs))
        if isinstance(t, (T.PartitionViewType, T.StridedViewType, T.GatherScatterViewType)):
            pad = t.padding_value
            code = T.PADDING_VALUES.index(pad) if pad else None
            tv = self.type(t.tensor_view)
            if isinstance(t, T.PartitionViewType):
                tag, mid = 15, _le_array(t.tile_shape, 4) + _varint(tv) + _le_array(t.dim_map, 4)
            elif isinstance(t, T.StridedViewType):
                tag, mid = 21, _le_array(t.tile_shape, 4) + _le_array(t.traversal_strides, 4) + _varint(tv) + \
                    _le_array(t.dim_map, 4)
            else:
                tag, mid = 20, _le_array(t.tile_shape, 4) + _varint(tv) + _varint(t.sparse_dim)
            if new:
                return _varint(tag) + _varint(1 if pad else 0) + mid + (_varint(code) if pad else b"")
            return _varint(tag) + mid + (b"\x01" + _varint(code) if pad else b"\x00")
        raise BytecodeWriteError(f"type {t} has no bytecode encoding")

    def constant(self, attr) -> int:
        from tileorch.dialects.cuda_tile.types import bitwidth

        if attr in self.const_index:
            return self.const_index[attr]
        et = attr.element_type
        width = bitwidth(et)
        raw = [r.data for r in attr.raw.data]
        if width == 4:
            vals = raw + [0] * (len(raw) % 2)
            data = bytes((vals[i] & 0xF) | ((vals[i + 1] & 0xF) << 4) for i in range(0, len(vals), 2))
        else:
            eb = max(1, width // 8)
            data = b"".join((v & ((1 << (8 * eb)) - 1)).to_bytes(eb, "little") for v in raw)
        self.const_index[attr] = len(self.constants)
        self.constants.append(_varint(len(data)) + data)
        return self.const_index[attr]

    # ---------------------------------------------------------------- attributes
    def attr(self, kind: str, a: Attribute, op: Operation) -> bytes:
        if kind.startswith("enum:"):
            return _varint(a.code())
        if kind == "int":
            return _varint(a.value.data)
        if kind == "str":
            return _varint(self.string(a.data))
        if kind == "flatsym":
            return _varint(self.string(a.root_reference.data))
        if kind == "bool":
            return bytes([1 if a.value.data else 0])
        if kind == "i32array":
            return _le_array(list(a.get_values()), 4)
        if kind == "boolarray":
            return _le_array([1 if v else 0 for v in a.get_values()], 1)
        if kind == "dense":
            return _varint(self.constant(a))
        if kind == "array":
            return _varint(len(a.data)) + b"".join(self.self_contained(x, op) for x in a.data)
        if kind == "hints":
            return self.dict(a.value, op)
        if kind == "assume":
            return self.self_contained(a, op)
        raise BytecodeWriteError(f"'{op.name}': cannot encode attribute kind {kind}")

    def dict(self, d: DictionaryAttr, op) -> bytes:
        out = bytearray(_varint(len(d.data)))
        for k, v in d.data.items():
            out += _varint(self.string(k)) + self.self_contained(v, op)
        return bytes(out)

    def self_contained(self, a: Attribute, op) -> bytes:
        from tileorch.dialects.cuda_tile import attrs as A
        from tileorch.dialects.cuda_tile.types import bitwidth

        if (isinstance(a, IntegerAttr) and isinstance(a.type, IntegerType)
                                       and a.type.width.data == 1):
            return _varint(3) + bytes([1 if a.value.data else 0])
        if isinstance(a, IntegerAttr):
            return _varint(1) + _varint(self.type(a.type)) + _varint(a.value.data & ((1 << 64) - 1))
        if isinstance(a, FloatAttr):
            bits = A.float_to_bits(a.value.data, a.type)
            w = bitwidth(a.type)
            return _varint(2) + _varint(self.type(a.type)) + (bytes([bits]) if w <= 8 else _svarint(bits))
        if isinstance(a, StringAttr):
            return _varint(5) + _varint(self.string(a.data))
        if isinstance(a, ArrayAttr):
            return _varint(6) + _varint(len(a.data)) + b"".join(self.self_contained(x, op) for x in a.data)
        if isinstance(a, A.DivByAttr):
            fl = (1 if a.every.data >= 0 else 0) | (2 if a.along.data >= 0 else 0)
            out = _varint(8) + _varint(a.divisor.data) + bytes([fl])
            if fl & 1:
                out += _svarint(a.every.data)
            if fl & 2:
                out += _svarint(a.along.data)
            return out
        if isinstance(a, A.SameElementsAttr):
            return _varint(9) + _le_array([v.data for v in a.values.data], 8)
        if isinstance(a, DictionaryAttr):
            return _varint(10) + self.dict(a, op)
        if isinstance(a, A.OptimizationHintsAttr):
            return _varint(11) + self.dict(a.value, op)
        if isinstance(a, A.BoundedAttr):
            lb, ub = a.bound("lb"), a.bound("ub")
            out = _varint(12) + bytes([(1 if lb is not None else 0) | (2 if ub is not None else 0)])
            if lb is not None:
                out += _svarint(lb)
            if ub is not None:
                out += _svarint(ub)
            return out
        try:
            return _varint(4) + _varint(self.type(a))
        except BytecodeWriteError:
            raise BytecodeWriteError(f"'{op.name}': attribute {a} has no bytecode encoding") from None

    # ---------------------------------------------------------------- ops
    def op(self, op: Operation, values: dict[SSAValue, int]) -> bytes:
        from tileorch.frontend.bytecode_ops import OPS
        from tileorch.frontend.cuda_tile_bytecode import _LATER_RESULTS, _NEWER_FIELDS, _RENAMES, _VERSIONED_RESULTS

        mnemonic = op.name.split(".", 1)[1]
        entry = next(((oc, spec) for oc, spec in OPS.items() if spec[0] == mnemonic), None)
        if entry is None:
            raise BytecodeWriteError(f"'{op.name}' has no bytecode opcode")
        opcode, (_, since, fields_s, results_s, nregions, attr_sized) = entry
        if self.locs is not None:  # one debug-info entry per op, in the order the opcodes are written
            self.locs.append(_source_position(op))
        since_v = _ver(since)
        if since_v > self.version:
            raise BytecodeWriteError(f"'{op.name}' needs bytecode {since}")
        fields = [_field(f, since_v) for f in fields_s.split()]
        for v, spec in _NEWER_FIELDS.get(mnemonic, ()):
            f = _field(spec, since_v)
            if self.version >= v:
                fields.append(f)
            elif _set(op.properties.get(f.name)):
                raise BytecodeWriteError(f"'{op.name}': '{f.name}' needs bytecode {v[0]}.{v[1]}")
        out = bytearray(_varint(opcode))
        variadic = any(n.endswith("*") for n in results_s.split()) or any(not f.is_attr and f.kind == "*"
                                                                          for f in fields)
        results = list(op.results)
        later = _LATER_RESULTS.get(mnemonic)
        if later and self.version < later[0]:  # 13.1's print: no token result
            if any(r.uses for r in results):
                raise BytecodeWriteError(f"'{op.name}': its result is used, but bytecode "
                                         f"{self.version[0]}.{self.version[1]} has no result for it")
            results = []
        if variadic or mnemonic in _VERSIONED_RESULTS:
            out += _varint(len(results))
        for r in results:
            out += _varint(self.type(r.type))
        optional = [f for f in fields if f.is_attr and f.optional] + \
                   ([f for f in fields if not f.is_attr and f.kind == "?"] if attr_sized else [])
        optional.sort(key=lambda f: f.since)
        flags = 0
        groups = {}
        op_def = op.get_irdl_definition()
        for n, _ in op_def.operands:
            ods = next((k for k, v in _RENAMES.items() if v == n), n)
            v = getattr(op, n)
            groups[ods] = [] if v is None else ([v] if isinstance(v, SSAValue) else list(v))
        for bit, f in enumerate(optional):
            present = (f.name in op.properties) if f.is_attr else bool(groups.get(f.name))
            if present:
                if f.since > self.version:
                    raise BytecodeWriteError(f"'{op.name}': '{f.name}' needs bytecode "
                                             f"{f.since[0]}.{f.since[1]}")
                flags |= 1 << bit
        if optional and (optional[0].since == since_v or self.version >= optional[0].since):
            out += _varint(flags)
        for f in fields:
            if not f.is_attr or f.kind == "unit":
                continue
            a = op.properties.get(f.name)
            if f.optional and a is None:
                continue
            if not f.optional and self.version < f.since:
                continue
            if a is None and f.kind == "boolarray":  # 13.4/13.5 inbounds: none known in bounds
                a = DenseArrayBase.from_list(IntegerType(1), [0] * len(op.index))
            if a is None:
                a = _default(op, f.name)
                if a is None:
                    raise BytecodeWriteError(f"'{op.name}' is missing attribute '{f.name}'")
            out += self.attr(f.kind, a, op)
        operand_fields = [f for f in fields if not f.is_attr]
        idx = lambda v: _varint(values[v])  # noqa: E731
        if attr_sized:
            for f in operand_fields:
                vals = groups.get(f.name, [])
                if f.kind == "*":
                    out += _varint(len(vals))
                out += b"".join(idx(v) for v in vals)
        elif operand_fields:
            vals = list(op.operands)
            if any(f.kind for f in operand_fields):
                out += _varint(len(vals))
            out += b"".join(idx(v) for v in vals)
        if nregions:
            out += _varint(len(op.regions))
            for r in op.regions:
                out += self.region(r, values)
        for r in results:
            values[r] = len(values)
        return bytes(out)

    def region(self, region: Region, values: dict) -> bytes:
        out = bytearray(_varint(len(region.blocks)))
        for b in region.blocks:
            scope = dict(values)
            out += _varint(len(b.args)) + b"".join(_varint(self.type(a.type)) for a in b.args)
            for a in b.args:
                scope[a] = len(scope)
            ops = list(b.ops)
            out += _varint(len(ops))
            for o in ops:
                out += self.op(o, scope)
        return bytes(out)


def _set(a: Attribute | None) -> bool:
    """Whether property value ``a`` says something (an ``inbounds`` array with a true entry)."""
    if a is None:
        return False
    return any(a.get_values()) if isinstance(a, DenseArrayBase) else True


def _default(op, name):
    d = op.get_irdl_definition().properties.get(name)
    return getattr(d, "default_value", None)


def _section(sid: int, payload: bytes, at: int, alignment: int = 1) -> bytes:
    head = bytes([sid | (0x80 if alignment > 1 else 0)]) + _varint(len(payload))
    if alignment > 1:
        head += _varint(alignment)
        head += b"\xcb" * ((-(at + len(head))) % alignment)
    return head + payload


def _table(count_entries: list[bytes], width: int, start: int) -> bytes:
    """count, padding to ``width`` (absolute), offsets, data."""
    head = _varint(len(count_entries))
    pad = (-(start + len(head))) % width
    out = bytearray(head + b"\xcb" * pad)
    off = 0
    for e in count_entries:
        out += off.to_bytes(width, "little")
        off += len(e)
    for e in count_entries:
        out += e
    return bytes(out)


def _source_position(op: Operation) -> tuple[tuple[str, int, int], ...] | None:
    """``op``'s source file, line and column, then those of the calls it was inlined through (a call-site
    location: :func:`tileorch.diagnostics.call_sites`, innermost first); None for no position (or a byte
    offset: line 0)."""
    from tileorch.diagnostics import call_sites, source_position

    loc = source_position(op.location)  # also a debug-info location (fused<#scope>[file:line:col])
    if loc is not None and loc.line.data > 0:
        return tuple((p.filename.data, p.line.data, p.column.data) for p in [loc, *call_sites(op.location)])
    return None


def _debug_section(w: _Writer, functions: list[tuple[str, list]]) -> bytes:
    """The debug-info section for ``functions`` (name, [function position, op positions...]),
    in cuTile's layout: attribute indices are 1-based, 0 is the unknown location; an op's calls (the
    frames after its own) as ``CallSite`` attributes (callee, caller), the outermost call the last caller."""
    attrs: list[bytes] = []
    index: dict[bytes, int] = {}

    def attr(data: bytes) -> int:
        if data not in index:
            attrs.append(data)
            index[data] = len(attrs)
        return index[data]

    indices: list[int] = []
    offsets: list[int] = []
    for name, positions in functions:
        offsets.append(len(indices))
        first = next(p for p in positions if p is not None)[0]
        head, _, tail = first[0].rpartition("/")
        file = attr(b"\x02" + _varint(w.string(tail)) + _varint(w.string(head)))
        unit = attr(b"\x01" + _varint(file))
        line = positions[0][0][1] if positions[0] is not None else first[1]
        sub = attr(b"\x05" + _varint(file) + _varint(line) + _varint(w.string(name)) + _varint(w.string(name)) +
                   _varint(unit) + _varint(line) + (_varint(0) if w.version >= (13, 5) else b""))  # 13.5: flags
        for frames in positions:
            loc = 0
            for p in reversed(frames or ()):  # the outermost call first: each frame calls the one inside
                here = attr(b"\x04" + _varint(sub) + _varint(w.string(p[0])) + _varint(p[1]) + _varint(p[2]))
                loc = here if not loc else attr(b"\x06" + _varint(here) + _varint(loc))  # CallSite(callee, caller)
            indices.append(loc)
    out = bytearray(_varint(len(functions)))
    out += b"\xcb" * ((-len(out)) % 4)
    out += b"".join(o.to_bytes(4, "little") for o in offsets)
    out += _varint(len(indices))
    out += b"\xcb" * ((-len(out)) % 8)
    out += b"".join(i.to_bytes(8, "little") for i in indices)
    return bytes(out) + _table(attrs, 4, len(out))


def write_bytecode(module: Operation, version: tuple[int, int] = (13, 3), debug_info: bool = True) -> bytes:
    from tileorch.dialects.cuda_tile import attrs as A
    from tileorch.dialects.cuda_tile import ops as ct

    mod = next((o for o in module.walk() if isinstance(o, ct.ModuleOp)), None)
    if mod is None:
        raise BytecodeWriteError("no cuda_tile.module to write")
    from tileorch.frontend.cuda_tile_bytecode import SUPPORTED_VERSIONS

    if tuple(version) not in SUPPORTED_VERSIONS:
        raise BytecodeWriteError(f"cannot write bytecode version {version[0]}.{version[1]}; supported: "
                                 f"{', '.join(f'{a}.{b}' for a, b in SUPPORTED_VERSIONS)}")
    w = _Writer(version)
    funcs = bytearray()
    fn_ops = [o for o in mod.body.block.ops if isinstance(o, (ct.EntryOp, ct.TestFuncOp))]
    funcs += _varint(len(fn_ops))
    debug: list[tuple[str, list]] = []  # functions with source positions
    for f in fn_ops:
        located = debug_info and any(_source_position(o) is not None for o in f.walk())
        funcs += _varint(w.string(f.sym_name.data)) + _varint(w.type(f.function_type))
        entry = isinstance(f, ct.EntryOp)
        hints = f.optimization_hints if entry else None
        if version >= (13, 5):  # a kernel always carries hints; then every function its argument attributes
            flags = 0x02 if entry else 0
            if entry and hints is None:
                hints = A.OptimizationHintsAttr(DictionaryAttr({}))
        else:
            if f.arg_attrs is not None and any(d.data for d in f.arg_attrs.data):
                raise BytecodeWriteError(f"'@{f.sym_name.data}': argument attributes need bytecode 13.5")
            flags = (0x02 if entry else 0) | (0x04 if hints is not None else 0)
        funcs += bytes([flags]) + _varint(len(debug) + 1 if located else 0)
        if hints is not None:
            funcs += w.self_contained(hints, f)
        if version >= (13, 5):
            funcs += w.self_contained(f.arg_attrs if f.arg_attrs is not None else ArrayAttr([]), f)
        values = {a: i for i, a in enumerate(f.body.block.args)}
        w.locs = [_source_position(f)] if located else None
        body = b"".join(w.op(o, values) for o in f.body.block.ops)
        if located:
            debug.append((f.sym_name.data, w.locs))
        w.locs = None
        funcs += _varint(len(body)) + body
    globals_ = [o for o in mod.body.block.ops if isinstance(o, ct.GlobalOp)]
    gsec = bytearray()
    if globals_:
        gsec += _varint(len(globals_))
        for g in globals_:
            gsec += _varint(w.string(g.sym_name.data)) + _varint(w.type(g.value.type)) + \
                _varint(w.constant(g.value)) + _varint(g.alignment.value.data if g.alignment else 0)
            if version >= (13, 3):
                vis = g.symbol_visibility.code() if g.symbol_visibility is not None else 0
                gsec += _varint(vis) + _varint(1 if g.constant is not None else 0)
    producer = b""
    if mod.producer is not None and version >= (13, 3):
        producer = _varint(w.string(mod.producer.data))
    out = bytearray(MAGIC + bytes([version[0], version[1]]) + b"\x00\x00")
    # NVIDIA's writer's order; each section declares the alignment its reader (and tileiras) checks:
    # functions, constants and debug info 8, types and strings 4 (the reader's SECTION_ALIGNMENT).
    if globals_:
        out += _section(6, bytes(gsec), len(out))
    funcs += b"\xcb" * ((-len(funcs)) % 8)  # the payload, aligned itself, ends on a multiple of 8
    out += _section(2, bytes(funcs), len(out), 8)
    if w.constants:
        out += _aligned_table_section(4, w.constants, 8, len(out))
    if debug:
        out += _section(3, _debug_section(w, debug), len(out), 8)
    out += _aligned_table_section(5, w.types, 4, len(out))
    if producer:
        out += _section(7, producer, len(out))
    out += _aligned_table_section(1, [s.encode() for s in w.strings], 4, len(out))
    return bytes(out) + b"\x00"


def _aligned_table_section(sid: int, entries: list[bytes], width: int, at: int) -> bytes:
    """A table section starting at file offset ``at``, payload aligned to ``width``."""
    for guess in range(1, 10):
        head_len = 1 + guess + len(_varint(width))
        payload_at = at + head_len + ((-(at + head_len)) % width)
        payload = _table(entries, width, payload_at)
        if len(_varint(len(payload))) == guess:
            return _section(sid, payload, at, width)
    raise BytecodeWriteError("table too large")
