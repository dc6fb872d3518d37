"""A mutation fuzzer for the CUDA Tile IR bytecode reader and the cuTile compile front end.

Seeds are real cuTile programs (``tests/unit/cutile_bytecode/*.tileirbc``, written by cuTile 1.7
with debug info) and the ``cuda_tile`` test modules of ``tests/filecheck/cuda_tile`` written by
tileorch's own bytecode writer (versions 13.3 and 13.4).  Each seed is decoded once with a
tracing reader that records every field the reader reads: its byte offset, width and value, and
for indices what they index (a type, a string, a constant, an SSA value, a debug attribute) and
how many entries that table has.  Each fuzz input is a seed with one to three mutations:

* ``bit_flip``, ``byte_set`` (0x00, 0x7f, 0x80, 0xff, ...), ``truncate``, ``chunk`` (bytes
  deleted, duplicated or inserted) anywhere in the file;
* ``section_length`` / ``section_alignment``: a section header's length or alignment field set
  to 0, +-1, the bytes left, 2^32, 2^63, ...;
* ``section``: a section dropped, duplicated, swapped with another, or replaced by the same
  section of another seed (tables that do not match the code that indexes them);
* ``index``: an index set to another valid entry (type confusion), the last one, one past the
  end, 2^32, 2^63, ... (types, strings, constants, SSA values, debug attributes);
* ``opcode``: an op's opcode replaced by another op's (the rest is read with its layout);
* ``varint`` / ``fixed``: any other traced field (counts, flags, enum values, attribute tags,
  table offsets, shapes, strides, debug indices) set to boundary values.

Field mutations keep the file consistent around them where they can: a new value is written in
the field's width (LEB128 allows padded encodings); when it does not fit, the enclosing
function body's size and the section's length are rewritten.

Each input runs in a forked child, with a timeout and a memory limit, in one of three modes:
``front`` (read, verify and lower with ``lower_program``, reporting errors like ``tileorch
compile``), ``opt`` (``tileorch-opt FILE``) or ``compile`` (``tileorch compile FILE --no-ptxas``,
to PTX).  The property is:

    exit 0, or exit 1 with every ``error:`` line located: ``file:line:col: error:`` or
    ``FILE: error: invalid CUDA Tile IR bytecode at offset N: ...``;
    never a Python traceback, an ``internal error``, a signal or a hang.

``python -m tileorch.tools.fuzz_bytecode --inputs 20000 --jobs 2 --seed 1`` (or
``tools/fuzz_bytecode.py``) prints the counts and every finding (saved under ``--out`` for
``--replay``).  ``tests/unit/test_fuzz_bytecode.py`` runs a short deterministic budget.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tileorch.frontend.cuda_tile_bytecode_writer import _varint
from tileorch.tools import fuzz
from tileorch.tools.fuzz import REPO, Outcome, add_run_arguments
from tileorch.tools.fuzz import classify as fuzz_classify
from tileorch.tools.fuzz import drive, replay, run_child, run_fresh

FIXTURES = "tests/unit/cutile_bytecode"
WRITER_SEEDS = ("tests/filecheck/cuda_tile/roundtrip.mlir", "tests/filecheck/cuda_tile/lower_to_tileaa.mlir")
BYTECODE_LOCATED = re.compile(r"^\S[^:]*: error: invalid CUDA Tile IR bytecode at offset \d+: ")
MODES = ("front", "opt", "compile")
MAGIC_LEN = 12  # magic (8), version (2), tag (2)

# --------------------------------------------------------------------------- tracing the reader


@dataclass
class Field:
    """A value the reader read: ``width`` bytes at ``offset``.  ``kind``: ``varint``, ``fixed``
    (a little-endian integer), ``opcode``, or what an index refers to (``type``, ``string``,
    ``constant``, ``value``, ``debug``, ``debug_function``); ``limit``: the size of that table."""

    offset: int
    width: int
    value: int
    kind: str
    where: str
    limit: int = -1


@dataclass
class Section:
    header: int  # offset of the id byte
    ident: int  # the id byte (0x80: aligned)
    alignment: int
    length_at: int  # offset and width of the length field
    length_width: int
    payload: int  # offset and length of the payload
    length: int


@dataclass
class Body:
    size_at: int
    size_width: int
    start: int
    length: int


@dataclass
class Seed:
    name: str
    data: bytes
    fields: list[Field] = field(default_factory=list)
    bodies: list[Body] = field(default_factory=list)
    weight: float = 1.0
    compile: bool = True  # fuzzed in compile mode too (see warm_up)


def _varint_bytes(v: int) -> bytes:
    """``v`` (taken modulo 2**64) as a LEB128 varint, as the bytecode writer encodes it."""
    return _varint(v & ((1 << 64) - 1))


def _padded_varint(v: int, width: int) -> bytes | None:
    """``v`` as a LEB128 varint of exactly ``width`` bytes (None if it does not fit)."""
    if v < 0 or v >> (7 * width):
        return None
    return bytes(((v >> (7 * i)) & 0x7F) | (0x80 if i < width - 1 else 0) for i in range(width))


def parse_sections(data: bytes) -> list[Section]:
    """The section headers of ``data``, as far as they parse (never raises)."""
    out: list[Section] = []
    pos = MAGIC_LEN

    def varint(p: int) -> tuple[int, int] | None:
        v, shift, start = 0, 0, p
        while p < len(data) and shift < 70:
            b = data[p]
            v |= (b & 0x7F) << shift
            shift += 7
            p += 1
            if not b & 0x80:
                return v, p - start
        return None

    while pos < len(data):
        ident = data[pos]
        if ident & 0x7F == 0:
            break
        ln = varint(pos + 1)
        if ln is None:
            break
        length, lw = ln
        p = pos + 1 + lw
        alignment = 0
        if ident & 0x80:
            al = varint(p)
            if al is None or al[0] == 0 or al[0] & (al[0] - 1) or al[0] > 1 << 16:
                break
            alignment = al[0]
            p += al[1]
            p += (-p) % alignment
        if p + length > len(data):
            break
        out.append(Section(pos, ident, alignment, pos + 1, lw, p, length))
        pos = p + length
    return out


def trace(data: bytes, name: str = "seed") -> tuple[list[Field], list[Body], str | None]:
    """Decode ``data`` with a reader that records every field it reads; returns (fields, function
    bodies, the error message if the data does not decode)."""
    from tileorch.frontend import cuda_tile_bytecode as B

    fields: list[Field] = []
    fixed_at: dict[int, Field] = {}
    bodies: list[tuple[int, int]] = []
    R, BR = B._Reader, B.BytecodeReader  # noqa: N806
    saved = {(R, "varint"): R.varint, (R, "le"): R.le, (R, "__init__"): R.__init__, (BR, "type"): BR.type,
             (BR, "_string"): BR._string, (BR, "dense"): BR.dense, (BR, "_value"): BR._value,
             (BR, "_debug_attr"): BR._debug_attr, (BR, "debug_location"): BR.debug_location,
             (BR, "_location_cursor"): BR._location_cursor, (BR, "_op"): BR._op}

    def varint(self, limit=None, what="value", bits=64):
        start = self.offset
        v = saved[R, "varint"](self, limit, what, bits)
        fields.append(Field(start, self.offset - start, v, "varint", self.what))
        return v

    def le(self, n):
        start = self.offset
        v = saved[R, "le"](self, n)
        fields.append(Field(start, n, v, "fixed", self.what))
        fixed_at[start] = fields[-1]
        return v

    def init(self, d, base=0, what="bytecode"):
        saved[R, "__init__"](self, d, base, what)
        if what.startswith("body of @"):
            bodies.append((base, len(d)))

    def tag(at_reader, idx: int, kind: str, limit: int) -> None:
        for f in reversed(fields[-4:]):
            if f.value == idx and f.offset + f.width == at_reader.offset and f.kind == "varint":
                f.kind, f.limit = kind, limit
                return

    def type_(self, idx, at, depth=0):
        tag(at, idx, "type", len(self.t.type_offsets))
        return saved[BR, "type"](self, idx, at, depth)

    def string(self, idx, r):
        tag(r, idx, "string", len(self.t.strings))
        return saved[BR, "_string"](self, idx, r)

    def dense(self, idx, tile_type, at):
        tag(at, idx, "constant", len(self.t.constants))
        return saved[BR, "dense"](self, idx, tile_type, at)

    def value(self, r, values):
        n = len(fields)
        v = saved[BR, "_value"](self, r, values)
        if len(fields) > n:
            fields[n].kind, fields[n].limit = "value", len(values)
        return v

    def attr_limit(self) -> int:
        return len(self.debug.attr_offsets) + 1 if self.debug is not None else 1

    def debug_attr(self, index, at, depth):
        for f in reversed(fields[-3:]):
            if f.value == index and f.offset == at and f.kind == "varint":
                f.kind, f.limit = "debug", attr_limit(self)
                break
        return saved[BR, "_debug_attr"](self, index, at, depth)

    def debug_location(self, index, at, what):
        f = fixed_at.get(at)
        if f is not None and f.kind == "fixed":
            f.kind, f.limit = "debug", attr_limit(self)
        return saved[BR, "debug_location"](self, index, at, what)

    def location_cursor(self, loc_index, at, fn):
        for f in reversed(fields[-3:]):
            if f.offset == at and f.kind == "varint":
                f.kind = "debug_function"
                f.limit = len(self.debug.index_offsets) + 1 if self.debug is not None else 1
                break
        return saved[BR, "_location_cursor"](self, loc_index, at, fn)

    def op(self, r, values):
        n = len(fields)
        o = saved[BR, "_op"](self, r, values)
        if len(fields) > n and fields[n].kind == "varint":
            fields[n].kind = "opcode"
        return o

    patches = {(BR, "_op"): op, (R, "varint"): varint, (R, "le"): le, (R, "__init__"): init, (BR, "type"): type_,
               (BR, "_string"): string, (BR, "dense"): dense, (BR, "_value"): value, (BR, "_debug_attr"): debug_attr,
               (BR, "debug_location"): debug_location, (BR, "_location_cursor"): location_cursor}
    error = None
    try:
        for (cls, attr), fn in patches.items():
            setattr(cls, attr, fn)
        try:
            B.read_bytecode(data, name)
        except Exception as exc:  # noqa: BLE001 - a mutant: what was read so far is the trace
            error = f"{type(exc).__name__}: {exc}"
    finally:
        for (cls, attr), fn in saved.items():
            setattr(cls, attr, fn)
    out_bodies = []
    by_end = {f.offset + f.width: f for f in fields if f.kind == "varint" and f.where == "function section"}
    for start, length in bodies:
        f = by_end.get(start)
        if f is not None and f.value == length:
            out_bodies.append(Body(f.offset, f.width, start, length))
    return fields, out_bodies, error


# --------------------------------------------------------------------------- mutations

BOUNDARY = [0, 1, 2, 7, 8, 15, 16, 63, 64, 127, 128, 255, 256, 1023, 4096, 16383, 16384, 65535, 65536,
            2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**53, 2**63 - 1, 2**63, 2**64 - 1]


def rebuild(data: bytes, sections: list[Section], payloads: list[bytes] | None = None,
            order: list[int] | None = None) -> bytes:
    """``data`` with its sections written again (``payloads`` replace theirs, ``order`` picks and
    orders them), lengths and alignment padding recomputed; the end marker closes it."""
    out = bytearray(data[:MAGIC_LEN])
    payloads = payloads or [data[s.payload:s.payload + s.length] for s in sections]
    for i in (order if order is not None else range(len(sections))):
        s, payload = sections[i], payloads[i]
        out.append(s.ident)
        out += _varint_bytes(len(payload))
        if s.ident & 0x80:
            out += _varint_bytes(s.alignment)
            out += b"\xcb" * ((-len(out)) % s.alignment)
        out += payload
    out.append(0)
    return bytes(out)


def splice(data: bytes, sections: list[Section], bodies: list[Body], pos: int, old_width: int, new: bytes) -> bytes:
    """Replace ``old_width`` bytes at ``pos`` by ``new``; the enclosing function body's size and
    section's length follow (a raw splice outside every section)."""
    sec = next((i for i, s in enumerate(sections) if s.payload <= pos < s.payload + s.length), None)
    if sec is None:
        return data[:pos] + new + data[pos + old_width:]
    s = sections[sec]
    payload = bytearray(data[s.payload:s.payload + s.length])
    rel = pos - s.payload
    payload[rel:rel + old_width] = new
    body = next((b for b in bodies if b.start <= pos < b.start + b.length and s.payload <= b.size_at < pos), None)
    if body is not None:
        at = body.size_at - s.payload
        payload[at:at + body.size_width] = _varint_bytes(body.length + len(new) - old_width)
    payloads = [data[t.payload:t.payload + t.length] for t in sections]
    payloads[sec] = bytes(payload)
    return rebuild(data, sections, payloads)


class Mutator:
    def __init__(self, rng: random.Random, seeds: list[Seed]):
        self.rng = rng
        self.seeds = seeds
        self.structured = [(self.index, 10), (self.varint, 3), (self.opcode, 1), (self.fixed, 2),
                           (self.section_length, 1), (self.section_alignment, 0.3), (self.section, 1.5)]
        self.raw = [(self.bit_flip, 2), (self.byte_set, 1.5), (self.truncate, 1), (self.chunk, 1)]

    def mutate(self, seed: Seed, count: int) -> tuple[bytes, list[str]]:
        data = seed.data
        applied: list[str] = []
        for _ in range(count * 4):
            if len(applied) >= count:
                break
            # the seed's trace describes the seed: structured mutations first, raw ones after
            later = self.raw + [(self.section, 1), (self.section_length, 1)]
            ops = self.structured + self.raw if not applied else later
            op = self.rng.choices([o for o, _ in ops], [w for _, w in ops])[0]
            new = op(data, seed if not applied else None)
            if new is not None and new != data:
                data = new
                applied.append(op.__name__)
        return data, applied

    # ---------------------------------------------------------------- structured
    def _boundary(self, value: int, limit: int = -1) -> int:
        r = self.rng
        pool = [0, 1, value + 1, max(0, value - 1), value * 2, r.choice(BOUNDARY), r.choice(BOUNDARY)]
        if limit >= 0:
            if limit and r.random() < 0.5:  # another valid entry: a type, value or string of the wrong kind
                return r.randrange(limit)
            pool += [max(0, limit - 1), limit, limit + 1]
        return r.choice(pool)

    def _field(self, seed: Seed | None, wanted) -> Field | None:
        """A random traced field of ``seed`` for which ``wanted(field)`` holds (None: no seed or none)."""
        if seed is None:
            return None
        fields = [f for f in seed.fields if wanted(f)]
        return self.rng.choice(fields) if fields else None

    def _set_varint(self, data: bytes, seed: Seed, f: Field, value: int) -> bytes:
        enc = _padded_varint(value, f.width)
        if enc is not None and self.rng.random() < 0.85:
            return data[:f.offset] + enc + data[f.offset + f.width:]
        return splice(data, parse_sections(data), seed.bodies, f.offset, f.width, _varint_bytes(value))

    def index(self, data: bytes, seed: Seed | None) -> bytes | None:
        f = self._field(seed, lambda f: f.limit >= 0)
        if f is None:
            return None
        value = self._boundary(f.value, f.limit)
        if f.kind == "debug" and f.width == 8 and f.where == "debug section":
            return data[:f.offset] + (value & (2**64 - 1)).to_bytes(8, "little") + data[f.offset + 8:]
        return self._set_varint(data, seed, f, value)

    def varint(self, data: bytes, seed: Seed | None) -> bytes | None:
        f = self._field(seed, lambda f: f.kind == "varint")
        if f is None:
            return None
        return self._set_varint(data, seed, f, self._boundary(f.value))

    def opcode(self, data: bytes, seed: Seed | None) -> bytes | None:
        """An op's opcode replaced by another's: the fields that follow are read with the other
        op's layout (ops of the same layout decode into ill-typed programs)."""
        from tileorch.frontend.bytecode_ops import OPS

        f = self._field(seed, lambda f: f.kind == "opcode")
        if f is None:
            return None
        value = self.rng.choice(sorted(OPS)) if self.rng.random() < 0.9 else self.rng.choice(BOUNDARY)
        return self._set_varint(data, seed, f, value)

    def fixed(self, data: bytes, seed: Seed | None) -> bytes | None:
        f = self._field(seed, lambda f: f.kind == "fixed" or (f.kind == "debug" and f.width == 8))
        if f is None:
            return None
        bits = 8 * f.width
        value = self.rng.choice([self._boundary(f.value), (1 << bits) - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1,
                                 -f.value, f.value ^ (1 << self.rng.randrange(bits))])
        return data[:f.offset] + (value & ((1 << bits) - 1)).to_bytes(f.width, "little") + data[f.offset + f.width:]

    def section_length(self, data: bytes, seed: Seed | None) -> bytes | None:
        sections = parse_sections(data)
        if not sections:
            return None
        s = self.rng.choice(sections)
        left = len(data) - s.payload
        value = self.rng.choice([0, 1, s.length - 1, s.length + 1, s.length + self.rng.randrange(1, 16),
                                 max(0, s.length - self.rng.randrange(1, 16)), left, left + 1, s.length * 2,
                                 2**32, 2**63, 2**64 - 1])
        return data[:s.length_at] + _varint_bytes(max(0, value)) + data[s.length_at + s.length_width:]

    def section_alignment(self, data: bytes, seed: Seed | None) -> bytes | None:
        sections = [s for s in parse_sections(data) if s.ident & 0x80]
        if not sections:
            return None
        s = self.rng.choice(sections)
        at = s.length_at + s.length_width
        old = len(_varint_bytes(s.alignment))
        value = self.rng.choice([0, 1, 2, 3, 6, 16, 64, 4096, 2**20, 2**32, 2**63])
        return data[:at] + _varint_bytes(value) + data[at + old:]

    def section(self, data: bytes, seed: Seed | None) -> bytes | None:
        sections = parse_sections(data)
        if not sections:
            return None
        r = self.rng
        order = list(range(len(sections)))
        payloads = [data[s.payload:s.payload + s.length] for s in sections]
        what = r.choice(["drop", "duplicate", "swap", "foreign", "foreign", "empty"])
        i = r.randrange(len(sections))
        if what == "drop":
            del order[i]
        elif what == "duplicate":
            order.insert(r.randrange(len(order) + 1), i)
        elif what == "swap":
            j = r.randrange(len(sections))
            order[i], order[j] = order[j], order[i]
        elif what == "empty":
            payloads[i] = b""
        else:  # the same section of another seed: tables that do not match the code
            other = r.choice(self.seeds).data
            same = [s for s in parse_sections(other) if s.ident & 0x7F == sections[i].ident & 0x7F]
            if not same:
                return None
            payloads[i] = other[same[0].payload:same[0].payload + same[0].length]
        return rebuild(data, sections, payloads, order)

    # ---------------------------------------------------------------- raw
    def _pos(self, data: bytes) -> int:
        lo = MAGIC_LEN if self.rng.random() < 0.95 else 0
        return self.rng.randrange(lo, max(lo + 1, len(data)))

    def bit_flip(self, data: bytes, seed: Seed | None) -> bytes | None:
        if not data:
            return None
        p = min(self._pos(data), len(data) - 1)
        return data[:p] + bytes([data[p] ^ (1 << self.rng.randrange(8))]) + data[p + 1:]

    def byte_set(self, data: bytes, seed: Seed | None) -> bytes | None:
        if not data:
            return None
        p = min(self._pos(data), len(data) - 1)
        return data[:p] + bytes([self.rng.choice([0, 1, 0x7F, 0x80, 0xFF, 0xCB, self.rng.randrange(256)])]) + \
            data[p + 1:]

    def truncate(self, data: bytes, seed: Seed | None) -> bytes | None:
        sections = parse_sections(data)
        cuts = [s.payload + s.length + d for s in sections for d in (-1, 0, 1)] + [s.payload for s in sections]
        p = self.rng.choice(cuts) if cuts and self.rng.random() < 0.3 else self._pos(data)
        return data[:max(0, min(p, len(data) - 1))]

    def chunk(self, data: bytes, seed: Seed | None) -> bytes | None:
        p = self._pos(data)
        n = self.rng.choice([1, 1, 2, 3, 4, 8, 16])
        what = self.rng.choice(["delete", "duplicate", "insert"])
        if what == "delete":
            return data[:p] + data[p + n:]
        if what == "duplicate":
            return data[:p + n] + data[p:p + n] + data[p + n:]
        return data[:p] + bytes(self.rng.randrange(256) for _ in range(n)) + data[p:]


# --------------------------------------------------------------------------- seeds


def load_seeds(root: Path = REPO, writer: bool = True) -> list[Seed]:
    """The cuTile fixtures, and (``writer``) the ``cuda_tile`` test modules written as 13.3 and
    13.4 bytecode by tileorch's writer; each traced."""
    seeds = [Seed(str(p.relative_to(root)), p.read_bytes()) for p in sorted((root / FIXTURES).glob("*.tileirbc"))]
    if writer:
        seeds += writer_seeds(root)
    for s in seeds:
        s.fields, s.bodies, error = trace(s.data, s.name)
        if error is not None:
            raise ValueError(f"seed {s.name} does not decode: {error}")
    return seeds


def writer_seeds(root: Path = REPO) -> list[Seed]:
    from xdsl.dialects.builtin import ModuleOp

    from tileorch.diagnostics import parse_module, verify_located
    from tileorch.dialects.cuda_tile import ops as ct
    from tileorch.frontend.cuda_tile_bytecode_writer import write_bytecode
    from tileorch.registry import make_context
    from tileorch.tools.cuda_tile_conformance import split_chunks

    out = []
    for rel in WRITER_SEEDS:
        path = root / rel
        if not path.exists():
            continue
        for i, (_, chunk) in enumerate(split_chunks(path.read_text())):
            try:
                m = parse_module(make_context(), chunk, rel)
            except Exception:  # noqa: BLE001 - a chunk that is meant not to parse
                continue
            if verify_located(m):
                continue
            for mod in [o for o in m.walk() if isinstance(o, ct.ModuleOp)]:
                for version in ((13, 3), (13, 4)):
                    try:
                        data = write_bytecode(ModuleOp([mod.clone()]), version)
                    except Exception:  # noqa: BLE001 - not expressible in this version
                        continue
                    out.append(Seed(f"writer:{rel}#{i}@{version[0]}.{version[1]}", data, weight=0.5))
    return out


# --------------------------------------------------------------------------- running one input


def run_front(path: str, arch: str = "sm_90a") -> int:
    """What ``tileorch compile`` does with a cuTile program up to the backend: read, verify and
    lower (``lower_program``), then verify the lowered module; errors printed as the CLI does."""
    from tileorch.backend.compile import CompileError
    from tileorch.diagnostics import verify_located
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load, print_compile_error
    from tileorch.registry import make_context

    data = Path(path).read_bytes()
    ctx = make_context()
    try:
        module = load(data, path, ctx)
        _, module = lower_program(module, ctx, arch)
        errors = verify_located(module)
        if errors:
            raise CompileError([f"{e} (after lower_program)" for e in errors])
    except Exception as exc:  # noqa: BLE001 - the CLI's error lines; anything else is a finding
        return print_compile_error(exc, path)
    return 0


def _run(mode: str, path: str) -> int:
    if mode == "front":
        return run_front(path)
    if mode == "opt":
        from tileorch.tools.opt import main as opt_main

        return opt_main([path, "--print-op-generic"]) or 0
    from tileorch.cli.main import main as cli_main

    return cli_main(["compile", path, "-o", path + ".ptx", "--no-ptxas", "--no-cache"]) or 0


def _child(mode: str, path: str, out_fd: int, timeout: int, memory_mb: int) -> None:
    run_child(lambda: _run(mode, path), out_fd, timeout, memory_mb)


_FRESH = ("import sys\nfrom tileorch.tools.fuzz_bytecode import _run\n"
          "sys.exit(_run(sys.argv[1], sys.argv[2]))\n")


def _fresh_run(mode: str, path: Path, timeout: int) -> tuple[int, str, bool]:
    """Run one input again in a new interpreter: (exit code, output, timed out)."""
    return run_fresh(_FRESH, mode, path, timeout)


def classify(code: int, sig: int | None, output: str, timed_out: bool) -> str:
    """:func:`tileorch.tools.fuzz.classify`, with an error at a bytecode offset counting as
    located (outcome ``bytecode-error`` when every error is one)."""
    return fuzz_classify("bytecode", code, sig, output, timed_out, BYTECODE_LOCATED, "bytecode-error")


def signature(kind: str, output: str) -> str:
    """A finding's class: its kind, the exception line (numbers elided) and the innermost
    tileorch frame of the traceback."""
    lines = [re.sub(r"^\S+?:\d+:\d+: ", "", l) for l in output.strip().splitlines()]
    frames = re.findall(r'File "([^"]*tileorch/[^"]*)", line \d+, in (\w+)', output)
    where = f" at {frames[-1][0].split('tileorch/', 1)[1]}:{frames[-1][1]}" if frames else ""
    last = next((l for l in reversed(lines) if re.match(r"^\w+(\.\w+)*(Error|Exception|Interrupt)\b", l)),
                lines[-1] if lines else "")
    return f"{kind}: {re.sub(r'[0-9]+', 'N', last)[:160]}{where}"


class Runner(fuzz.Runner):
    """:class:`tileorch.tools.fuzz.Runner` on bytecode inputs, each child under an address-space
    limit of ``memory_mb``."""

    SUFFIX = ".tileirbc"

    def __init__(self, workdir: Path, jobs: int = 1, timeout: int = 60, memory_mb: int = 6144):
        super().__init__(workdir, jobs, timeout)
        self.memory_mb = memory_mb

    def _write(self, path: Path, data: bytes) -> None:
        path.write_bytes(data)

    def _child(self, mode: str, path: str, out_fd: int, limit: int) -> None:
        _child(mode, path, out_fd, limit, self.memory_mb)

    def _fresh(self, mode: str, path: Path, limit: int) -> tuple[int, str, bool]:
        return _fresh_run(mode, path, limit)

    def _outcome(self, mode: str, path: Path, code: int, sig: int | None, output: str, timed_out: bool,
                 seconds: float) -> Outcome:
        return Outcome(classify(code, sig, output, timed_out), code, output, seconds)


# --------------------------------------------------------------------------- campaign


@dataclass
class Report:
    tried: int = 0
    by_mode: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    mutations: Counter = field(default_factory=Counter)
    findings: list[tuple[str, str, bytes, str]] = field(default_factory=list)  # (signature, input, data, output)
    seconds: float = 0.0
    rechecked: int = 0

    def summary(self) -> str:
        lines = [f"fuzz-bytecode: {self.tried} inputs in {self.seconds:.0f} s "
                 f"({', '.join(f'{m} {n}' for m, n in sorted(self.by_mode.items()))})",
                 "fuzz-bytecode: outcomes: " + ", ".join(f"{k} {n}" for k, n in sorted(self.kinds.items()))
                 + (f" ({self.rechecked} timed out in a fork and were re-run in a fresh process)"
                    if self.rechecked else "")]
        classes = Counter(s for s, *_ in self.findings)
        lines.append(f"fuzz-bytecode: {len(self.findings)} finding(s) in {len(classes)} class(es)")
        lines += [f"  {n:5d}  {s}" for s, n in classes.most_common()]
        return "\n".join(lines)


def warm_up(seeds: list[Seed], compile_limit: float = 2.0, compile: bool = True) -> None:
    """Import what the children run and run each seed once through the front end and
    ``tileorch-opt`` (and, with ``compile``, to PTX) in this process before forking: every child
    starts with the modules and caches loaded and imports nothing of its own, so a source tree
    edited during the campaign does not mix module versions.  Seeds whose front end takes longer than
    ``compile_limit`` seconds are not fuzzed in compile mode (a large program compiled by the SIMT
    path takes 15 s and more: a timeout, not a hang)."""
    import contextlib
    import io

    import tileorch.cli.main  # noqa: F401
    import tileorch.tools.opt  # noqa: F401

    times = {}
    with tempfile.TemporaryDirectory(prefix="tileorch-fuzz-bc-warm-") as tmp, \
            contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        p = Path(tmp) / "warm.tileirbc"
        for seed in seeds:
            p.write_bytes(seed.data)
            start = time.monotonic()
            try:
                run_front(str(p))
            except Exception:  # noqa: BLE001 - warming only
                pass
            times[seed.name] = time.monotonic() - start
            seed.compile = times[seed.name] <= compile_limit
        for seed in seeds:
            for mode in ("opt", "compile") if compile and seed.compile else ("opt",):
                p.write_bytes(seed.data)
                try:
                    _run(mode, str(p))
                except BaseException:  # noqa: BLE001 - warming only (SystemExit included)
                    pass


def fuzz(seeds: list[Seed], *, inputs: int, jobs: int, rng_seed: int, timeout: int = 60,
         seconds: float | None = None, modes: dict[str, float] | None = None, out_dir: Path | None = None,
         memory_mb: int = 6144, compile_limit: float = 2.0, log=print) -> Report:
    """Run ``inputs`` mutants (or until ``seconds``); ``modes`` weights front/opt/compile."""
    modes = modes or {"front": 6, "opt": 3, "compile": 1}
    warm_up(seeds, compile_limit, compile="compile" in modes)
    rng = random.Random(rng_seed)
    mutator = Mutator(rng, seeds)
    report = Report()
    start = time.monotonic()
    weights = [s.weight for s in seeds]
    mode_names, mode_weights = list(modes), list(modes.values())

    def make():
        seed = rng.choices(seeds, weights)[0]
        mode = rng.choices(mode_names, mode_weights)[0]
        if mode == "compile" and not seed.compile:
            mode = "front"
        data, applied = mutator.mutate(seed, rng.choice([1, 1, 1, 1, 2, 3]))
        if not applied:
            return None
        report.mutations.update(applied)
        return f"{seed.name} [{', '.join(applied)}]", mode, data

    def handle(name: str, mode: str, data: bytes, outcome: Outcome) -> None:
        if outcome.kind.startswith("finding"):
            sig = signature(outcome.kind, outcome.output)
            report.findings.append((sig, f"{name} ({mode})", data, outcome.output))
            log(f"FINDING {sig}\n    input: {name} ({mode})\n    "
                + "\n    ".join(outcome.output.strip().splitlines()[-6:]))
            if out_dir is not None:
                out_dir.mkdir(parents=True, exist_ok=True)
                idx = len(report.findings)
                (out_dir / f"finding{idx:04d}.{mode}.tileirbc").write_bytes(data)
                (out_dir / f"finding{idx:04d}.{mode}.out").write_text(f"# {sig}\n# {name}\n{outcome.output}")

    with tempfile.TemporaryDirectory(prefix="tileorch-fuzz-bc-") as tmp:
        return drive(Runner(Path(tmp), jobs, timeout, memory_mb), report, inputs=inputs, seconds=seconds,
                     start=start, next_log=start + 60, make=make, handle=handle, log=log)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tileorch-fuzz-bytecode", description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, seconds=None)
    parser.add_argument("--compile-limit", type=float, default=2.0,
                        help="seeds whose front end takes longer are not fuzzed in compile mode (default 2 s)")
    parser.add_argument("--memory-mb", type=int, default=6144, help="address-space limit of each child (0: none)")
    parser.add_argument("--modes", default="front=6,opt=3,compile=1",
                        help="modes and their weights (default front=6,opt=3,compile=1)")
    parser.add_argument("--no-writer-seeds", action="store_true", help="fuzz the cuTile fixtures only")
    parser.add_argument("--out", type=Path, default=None, help="save findings here")
    parser.add_argument("--replay", type=Path, nargs="*", help="run these files once in every mode and report")
    args = parser.parse_args(argv)
    modes = {}
    for item in args.modes.split(","):
        name, _, w = item.partition("=")
        if name in MODES:
            modes[name] = float(w or 1)
    if args.replay:
        warm_up([])
        with tempfile.TemporaryDirectory(prefix="tileorch-fuzz-bc-") as tmp:
            return replay(Runner(Path(tmp), 1, args.timeout, args.memory_mb), args.replay, modes, Path.read_bytes)
    seeds = load_seeds(REPO, writer=not args.no_writer_seeds)
    print(f"fuzz-bytecode: {len(seeds)} seeds ({sum(s.name.startswith('writer:') for s in seeds)} from the writer), "
          f"{sum(len(s.fields) for s in seeds)} traced fields; modes {modes}", flush=True)
    report = fuzz(seeds, inputs=args.inputs, jobs=args.jobs, rng_seed=args.seed, timeout=args.timeout,
                  seconds=args.seconds, modes=modes, out_dir=args.out, memory_mb=args.memory_mb,
                  compile_limit=args.compile_limit, log=lambda s: print(s, flush=True))
    print(report.summary())
    print("fuzz-bytecode: mutations: " + ", ".join(f"{k} {n}" for k, n in sorted(report.mutations.items())))
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
