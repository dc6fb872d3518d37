"""An in-process, token-level fuzzer of tileorch's user-facing commands (hypothesis-friendly).

Contract: :func:`run_in_process` runs one input through one command *in this process*
(``tileorch-opt``, ``tileorch compile --emit=mlir`` / ``--no-ptxas``, ``tileorch check``, or the
cuTile front end of :mod:`tileorch.tools.fuzz_bytecode`), with its output captured and an alarm
as the hang limit, and classifies the outcome with the forked fuzzers' rule
(:func:`tileorch.tools.fuzz.classify`):

    exit 0, or exit 1 with every ``error:`` line located (``file:line:col: error:``, or a
    bytecode error naming its offset); never a Python traceback (an uncaught exception, an
    assertion, a KeyError/IndexError), an ``internal error``, an exit status other than 0/1, or a
    hang.

The mutations are pure functions of the input and two integers (``(text, a, b) -> text | None``;
``a`` picks where, ``b`` picks what), so a hypothesis strategy drawing ``(operator, a, b)``
triples both generates and shrinks them, and a plain ``random.Random`` drives the long campaign
(``tools/fuzz_inprocess.py``) with the same operators.  Text operators work on MLIR tokens
(drop, duplicate, swap, copy a token of the same kind from elsewhere in the file, an undefined
SSA value or block, a broken region, a shape or element type changed); bytecode operators
truncate, flip or set bytes, change the version, and corrupt section headers (id, length,
alignment) found by walking the file's section list.

In-process runs are ~10-50x cheaper than a forked child per input, which is what lets CI run
a hypothesis budget (``tests/unit/test_fuzz_inprocess.py``); the forked fuzzers
(``tools/fuzz.py``, ``tools/fuzz_bytecode.py``) remain the ones that survive an abort or a
segfault of LLVM.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tileorch.tools import fuzz as text_fuzz

# --------------------------------------------------------------------------- tokens

TOKEN_RE = re.compile(
    r'(?P<string>"(?:[^"\\\n]|\\.)*")'
    r"|(?P<ssa>%[\w.$-]+(?:#\d+)?|%\d+)"
    r"|(?P<block>\^[\w.$-]+)"
    r"|(?P<symbol>@[\w.$-]+)"
    r"|(?P<alias>[!#][\w.$-]+)"
    r"|(?P<shape>\d+(?:x\d+)*x(?=[a-z]))"
    r"|(?P<number>-?0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
    r"|(?P<type>\b(?:i\d+|index|f16|bf16|f32|f64|tf32|f8E4M3FN|f8E5M2)\b)"
    r"|(?P<word>[A-Za-z_][\w.$]*)"
    r"|(?P<punct>->|::|[(){}\[\]<>,:=*?+|])"
)
KINDS = ("string", "ssa", "block", "symbol", "alias", "shape", "number", "type", "word", "punct")


@dataclass(frozen=True)
class Token:
    start: int
    end: int
    kind: str
    text: str


def tokens(text: str) -> list[Token]:
    """The MLIR tokens of ``text`` outside ``//`` comments, with their offsets."""
    out: list[Token] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        code = text_fuzz._code_part(line)
        for m in TOKEN_RE.finditer(code):
            out.append(Token(pos + m.start(), pos + m.end(), m.lastgroup or "punct", m.group()))
        pos += len(line)
    return out


def _put(text: str, tok: Token, new: str) -> str:
    return text[: tok.start] + new + text[tok.end:]


def _pick(items: list, a: int):
    return items[a % len(items)] if items else None


# Each text operator: (text, a, b) -> new text, or None where it does not apply.

def token_drop(text: str, a: int, b: int) -> str | None:
    tok = _pick(tokens(text), a)
    return None if tok is None else _put(text, tok, "")


def token_duplicate(text: str, a: int, b: int) -> str | None:
    tok = _pick(tokens(text), a)
    return None if tok is None else _put(text, tok, tok.text + " " + tok.text)


def token_swap(text: str, a: int, b: int) -> str | None:
    """Two tokens exchanged: neighbours when ``b`` is even, any two otherwise."""
    toks = tokens(text)
    if len(toks) < 2:
        return None
    i = a % (len(toks) - 1)
    j = i + 1 if b % 2 == 0 else (b // 2) % len(toks)
    if i == j or toks[i].text == toks[j].text:
        return None
    x, y = sorted((toks[i], toks[j]), key=lambda t: t.start)
    return text[: x.start] + y.text + text[x.end: y.start] + x.text + text[y.end:]


def token_copy(text: str, a: int, b: int) -> str | None:
    """A token replaced by another token of the same kind from the file: a value used before its
    definition or of another type, a type or shape from another op, another attribute value."""
    toks = tokens(text)
    tok = _pick(toks, a)
    if tok is None:
        return None
    same = [t for t in toks if t.kind == tok.kind and t.text != tok.text]
    other = _pick(same, b)
    return None if other is None else _put(text, tok, other.text)


def undefined_value(text: str, a: int, b: int) -> str | None:
    """A use of an SSA value or a block replaced by a name defined nowhere."""
    toks = [t for t in tokens(text) if t.kind in ("ssa", "block")]
    tok = _pick(toks, a)
    if tok is None:
        return None
    return _put(text, tok, ("%" if tok.kind == "ssa" else "^") + f"fuzz_undefined{b % 3}")


REGION_EDITS = ("drop", "extra_close", "extra_open", "empty")


def region_break(text: str, a: int, b: int) -> str | None:
    """A region brace dropped or doubled, or a region emptied (``{ }``: no terminator)."""
    braces = [t for t in tokens(text) if t.text in ("{", "}")]
    tok = _pick(braces, a)
    if tok is None:
        return None
    edit = REGION_EDITS[b % len(REGION_EDITS)]
    if edit == "drop":
        return _put(text, tok, "")
    if edit == "extra_close":
        return _put(text, tok, tok.text + "\n}")
    if edit == "extra_open":
        return _put(text, tok, tok.text + " {")
    if tok.text != "{":
        return None
    depth, i = 0, text.find("{", tok.start)  # the matching close brace, counted in the raw text
    for k in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        if depth == 0:
            return text[: tok.start] + "{\n}" + text[k + 1:]
    return None


SHAPE_EXTENTS = (0, 1, 3, 7, 16, 48, 64, 128, 1000, 2**16, 2**31, 2**40)


def shape_change(text: str, a: int, b: int) -> str | None:
    """One extent of a static shape (``4x8x``) set to another value, or one extent dropped or
    repeated (another rank)."""
    toks = [t for t in tokens(text) if t.kind == "shape"]
    tok = _pick(toks, a)
    if tok is None:
        return None
    dims = tok.text[:-1].split("x")
    k = (b // 4) % len(dims)
    how = b % 4
    if how == 0 and len(dims) > 1:
        del dims[k]
    elif how == 1:
        dims.insert(k, dims[k])
    else:
        dims[k] = str(SHAPE_EXTENTS[(b // 16) % len(SHAPE_EXTENTS)])
    return _put(text, tok, "x".join(dims) + "x")


TYPES = ("i1", "i8", "i16", "i32", "i64", "index", "f16", "bf16", "f32", "f64", "!llvm.ptr", "!llvm.ptr<3>",
         "memref<4xf32>", "tensor<4xf32>", "vector<4xf32>", "none", "()", "!cuda_tile.tile<4xf32>",
         "!cuda_tile.ptr<f32>")


def type_change(text: str, a: int, b: int) -> str | None:
    """A builtin type token replaced by a type of another kind or width."""
    toks = [t for t in tokens(text) if t.kind == "type"]
    tok = _pick(toks, a)
    new = TYPES[b % len(TYPES)]
    return None if tok is None or new == tok.text else _put(text, tok, new)


def number_change(text: str, a: int, b: int) -> str | None:
    """A number set to a value at a type boundary (or a float that overflows)."""
    toks = [t for t in tokens(text) if t.kind == "number"]
    tok = _pick(toks, a)
    if tok is None:
        return None
    pool = text_fuzz.BOUNDARY_FLOATS if "." in tok.text else [str(v) for v in text_fuzz.BOUNDARY_INTS]
    return _put(text, tok, pool[b % len(pool)])


def truncate_text(text: str, a: int, b: int) -> str | None:
    toks = tokens(text)
    tok = _pick(toks, a)
    return None if tok is None else text[: tok.start]


TEXT_OPS = {f.__name__: f for f in (token_drop, token_duplicate, token_swap, token_copy, undefined_value,
                                    region_break, shape_change, type_change, number_change, truncate_text)}


def mutate_text(text: str, ops: list[tuple[str, int, int]]) -> str:
    """``text`` after each ``(operator, a, b)`` in turn (an operator that does not apply is skipped)."""
    for name, a, b in ops:
        new = TEXT_OPS[name](text, a, b)
        if new is not None:
            text = new
    return text


# --------------------------------------------------------------------------- bytecode

def bytecode_sections(data: bytes) -> list[tuple[int, int, int]]:
    """``(header offset, length field offset, body end)`` of each section, as far as the file's
    section list can be walked (a corrupted file gives the sections before the damage)."""
    from tileorch.frontend.cuda_tile_bytecode import MAGIC

    out: list[tuple[int, int, int]] = []
    if data[:8] != MAGIC:
        return out
    def varint(pos: int) -> tuple[int, int]:
        value, shift = 0, 0
        while pos < len(data):
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        return value, pos

    pos = 12
    while pos < len(data):
        at, sid, aligned = pos, data[pos] & 0x7F, bool(data[pos] & 0x80)
        if sid == 0:
            break
        length_at = pos + 1
        length, pos = varint(length_at)
        if aligned:  # an alignment, then padding to a multiple of it (of the file offset)
            alignment, pos = varint(pos)
            if alignment <= 0 or alignment & (alignment - 1):
                break
            pos += -pos % alignment
        end = pos + length
        if end > len(data):
            break
        out.append((at, length_at, end))
        pos = end
    return out


def _leb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def bc_truncate(data: bytes, a: int, b: int) -> bytes | None:
    return data[: a % len(data)] if data else None


def bc_flip(data: bytes, a: int, b: int) -> bytes | None:
    if not data:
        return None
    i = a % len(data)
    return data[:i] + bytes([data[i] ^ (1 << (b % 8))]) + data[i + 1:]


def bc_set(data: bytes, a: int, b: int) -> bytes | None:
    if not data:
        return None
    i = a % len(data)
    value = (0x00, 0x01, 0x7F, 0x80, 0xFF, 0xFE, 0x40)[b % 7]
    return data[:i] + bytes([value]) + data[i + 1:]


VERSIONS = ((13, 1), (13, 2), (13, 3), (13, 4), (13, 5), (13, 6), (12, 9), (14, 0), (0, 0), (255, 255))


def bc_version(data: bytes, a: int, b: int) -> bytes | None:
    """Another bytecode version in the header (a supported one read with the wrong layout, or
    one the reader does not know)."""
    if len(data) < 12:
        return None
    major, minor = VERSIONS[a % len(VERSIONS)]
    return data[:8] + bytes([major, minor]) + data[10:]


def bc_section_length(data: bytes, a: int, b: int) -> bytes | None:
    """A section's length field rewritten: 0, +-1, past the end, 2^32, 2^63 (in a LEB128 of its
    own width where it fits, else wider: the file grows)."""
    secs = bytecode_sections(data)
    sec = _pick(secs, a)
    if sec is None:
        return None
    at, length_at, end = sec
    width, length = 1, data[length_at] & 0x7F
    while data[length_at + width - 1] & 0x80:
        length |= (data[length_at + width] & 0x7F) << (7 * width)
        width += 1
    new = (0, 1, length - 1, length + 1, length + 7, len(data), 2**32, 2**63, length // 2)[b % 9]
    return data[:length_at] + _leb(max(new, 0)) + data[length_at + width:]


def bc_section_id(data: bytes, a: int, b: int) -> bytes | None:
    """A section's id byte set to another section's id, the end marker, an unknown id, or with
    the alignment flag toggled."""
    sec = _pick(bytecode_sections(data), a)
    if sec is None:
        return None
    at = sec[0]
    new = (0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x7F, data[at] ^ 0x80)[b % 11]
    return data[:at] + bytes([new]) + data[at + 1:]


def bc_section_swap(data: bytes, a: int, b: int) -> bytes | None:
    """Two sections exchanged, one dropped or one duplicated."""
    secs = bytecode_sections(data)
    if len(secs) < 2:
        return None
    i, j = a % len(secs), b % len(secs)
    parts = [data[s[0]: s[2]] for s in secs]
    head, tail = data[: secs[0][0]], data[secs[-1][2]:]
    how = (a // len(secs)) % 3
    if how == 0 and i != j:
        parts[i], parts[j] = parts[j], parts[i]
    elif how == 1:
        del parts[i]
    else:
        parts.insert(i, parts[i])
    return head + b"".join(parts) + tail


def bc_chunk(data: bytes, a: int, b: int) -> bytes | None:
    """A few bytes deleted or inserted inside the file (every later offset shifts)."""
    if len(data) < 16:
        return None
    i = 12 + a % (len(data) - 12)
    n = 1 + (b // 2) % 8
    return data[:i] + data[i + n:] if b % 2 == 0 else data[:i] + bytes(n * [b % 251]) + data[i:]


BYTECODE_OPS = {f.__name__: f for f in (bc_truncate, bc_flip, bc_set, bc_version, bc_section_length,
                                        bc_section_id, bc_section_swap, bc_chunk)}


def mutate_bytecode(data: bytes, ops: list[tuple[str, int, int]]) -> bytes:
    for name, a, b in ops:
        new = BYTECODE_OPS[name](data, a, b)
        if new is not None:
            data = new
    return data


# --------------------------------------------------------------------------- running in process

TEXT_MODES = ("opt", "lower", "check", "compile")
BYTECODE_MODES = ("front", "bc-opt", "bc-lower")


class _Hang(BaseException):
    """Raised by the alarm: the input ran past its limit (a BaseException, so that no
    ``except Exception`` of the code under test turns it into a diagnostic)."""


@dataclass
class Outcome:
    kind: str  # ok | diagnostic | bytecode-error | finding:<what>
    code: int
    output: str
    seconds: float


def _argv(mode: str, path: str) -> tuple[str, list[str]]:
    if mode in ("opt", "bc-opt"):
        return "opt", [path, "--print-op-generic"]
    if mode in ("lower", "bc-lower"):
        return "cli", ["compile", path, "--emit=mlir", "--no-cache", "-o", os.devnull]
    if mode == "compile":
        return "cli", ["compile", path, "--no-ptxas", "--no-cache", "-o", os.devnull]
    if mode == "check":
        return "cli", ["check", path, "--iterations", "2", "--max-states", "20000", "--jobs", "1"]
    raise ValueError(f"unknown mode {mode!r}")


def _call(mode: str, path: str) -> int:
    if mode == "front":
        from tileorch.tools.fuzz_bytecode import run_front

        return run_front(path) or 0
    tool, argv = _argv(mode, path)
    if tool == "opt":
        from tileorch.tools.opt import main as opt_main

        return opt_main(argv) or 0
    from tileorch.cli.main import main as cli_main

    return cli_main(argv) or 0


def run_in_process(mode: str, data: str | bytes, timeout: int = 30, workdir: Path | None = None,
                   name: str = "input") -> Outcome:
    """Run ``data`` (MLIR text, or bytecode for the bytecode modes) through ``mode`` in this
    process and classify the outcome.  ``timeout`` seconds of wall time is a hang."""
    from tileorch.tools.fuzz_bytecode import classify as bc_classify

    binary = isinstance(data, bytes)
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tileorch-fuzz-ip-")))
        path = workdir / (name + (".tileirbc" if binary else ".mlir"))
        path.write_bytes(data) if binary else path.write_text(data)
        out = io.StringIO()

        def on_alarm(signum, frame):
            raise _Hang()

        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(timeout)
        start = time.monotonic()
        hung = False
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                try:
                    code = _call(mode, str(path))
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                except _Hang:
                    raise
                except BaseException:  # noqa: BLE001 - what the user would see as a traceback
                    import traceback

                    traceback.print_exc()
                    code = 99
        except _Hang:
            hung, code = True, -1
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        seconds = time.monotonic() - start
        text = out.getvalue()
    if binary:
        kind = bc_classify(code, None, text, hung)
    else:
        kind = text_fuzz.classify("check" if mode == "check" else "opt", code, None, text, hung)
    return Outcome(kind, code, text, seconds)


# --------------------------------------------------------------------------- seeds

TEXT_SEED_DIRS = ("examples", "tests/filecheck/cutlass", "tests/filecheck/cuda_tile", "tests/filecheck/tileaa")


def text_seeds(root: Path, dirs=TEXT_SEED_DIRS, max_chars: int = 6000) -> list[text_fuzz.Seed]:
    """The ``.mlir`` examples and test inputs (split at ``// -----``), up to ``max_chars`` each
    (small inputs keep an in-process run cheap), each with the modes that fit it: ``lower``
    (the lowering pipeline to MLIR) for cuda_tile and tile programs, ``check`` for pipelines."""
    seeds = [s for s in text_fuzz.load_seeds([root / d for d in dirs if (root / d).exists()])
             if len(s.text) <= max_chars]
    for s in seeds:
        modes = ["opt"]
        if "cuda_tile." in s.text or "nv_tileaa." in s.text:
            modes.append("lower")
        if "pipeline.create" in s.text or "pipeline.init" in s.text:
            modes.append("check")
        s.modes = tuple(modes)
    return seeds


def bytecode_seeds(root: Path) -> list[tuple[str, bytes]]:
    """The real cuTile programs of ``tests/unit/cutile_bytecode`` (with debug info)."""
    return [(str(p.relative_to(root)), p.read_bytes())
            for p in sorted((root / "tests/unit/cutile_bytecode").glob("*.tileirbc"))]


# --------------------------------------------------------------------------- the long campaign

def campaign(root: Path, *, inputs: int, seconds: float | None, rng_seed: int, timeout: int,
             out_dir: Path | None, modes: tuple[str, ...] = TEXT_MODES + BYTECODE_MODES,
             max_chars: int = 6000, log=print) -> dict:
    """``inputs`` mutants (or until ``seconds``) of the text and bytecode seeds, 1-3 operators
    each, in the given modes; every finding is written to ``out_dir`` with its replay line.
    Returns counts per outcome kind, per mode and the findings."""
    import random
    from collections import Counter

    rng = random.Random(rng_seed)
    texts = text_seeds(root, max_chars=max_chars)
    blobs = bytecode_seeds(root)
    kinds, per_mode, findings = Counter(), Counter(), []
    seen_signatures: set[str] = set()
    start = time.monotonic()
    text_modes = [m for m in modes if m in TEXT_MODES]
    bc_modes = [m for m in modes if m in BYTECODE_MODES]
    with tempfile.TemporaryDirectory(prefix="tileorch-fuzz-ip-") as tmp:
        for i in range(inputs):
            if seconds is not None and time.monotonic() - start > seconds:
                break
            ops = [(None, rng.randrange(2**32), rng.randrange(2**32)) for _ in range(rng.choice((1, 1, 2, 3)))]
            if bc_modes and (not text_modes or rng.random() < 0.35):
                name, seed = rng.choice(blobs)
                mode = rng.choice(bc_modes)
                ops = [(rng.choice(list(BYTECODE_OPS)), a, b) for _, a, b in ops]
                data = mutate_bytecode(seed, ops)
            else:
                s = rng.choice(texts)
                mode = rng.choice([m for m in s.modes if m in text_modes] or ["opt"])
                if mode == "lower" and "compile" in text_modes and rng.random() < 0.1:
                    mode = "compile"
                name = s.name
                ops = [(rng.choice(list(TEXT_OPS)), a, b) for _, a, b in ops]
                data = mutate_text(s.text, ops)
            outcome = run_in_process(mode, data, timeout, Path(tmp), f"in{i}")
            kinds[outcome.kind] += 1
            per_mode[mode] += 1
            if outcome.kind.startswith("finding"):
                last = [l for l in outcome.output.strip().splitlines() if l.strip()][-1:] or [""]
                signature = f"{outcome.kind}: {re.sub(r'[0-9]+', 'N', last[0])[:160]}"
                findings.append({"seed": name, "mode": mode, "ops": ops, "kind": outcome.kind,
                                 "signature": signature})
                if out_dir is not None:
                    out_dir.mkdir(parents=True, exist_ok=True)
                    suffix = ".tileirbc" if isinstance(data, bytes) else ".mlir"
                    path = out_dir / f"finding{len(findings):04d}.{mode}{suffix}"
                    path.write_bytes(data) if isinstance(data, bytes) else path.write_text(data)
                    path.with_suffix(path.suffix + ".out").write_text(outcome.output)
                if signature not in seen_signatures:
                    seen_signatures.add(signature)
                    log(f"finding {len(findings)} [{mode}] {name} {ops}: {signature}")
            if (i + 1) % 200 == 0:
                log(f"{i + 1} inputs, {time.monotonic() - start:.0f} s: {dict(kinds)}")
    return {"inputs": sum(kinds.values()), "seconds": round(time.monotonic() - start, 1), "kinds": dict(kinds),
            "modes": dict(per_mode), "findings": findings, "signatures": sorted(seen_signatures)}


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument("--modes", default=",".join(TEXT_MODES + BYTECODE_MODES))
    parser.add_argument("--out", type=Path, default=None, help="folder for the findings")
    parser.add_argument("--max-chars", type=int, default=6000, help="largest text seed (characters)")
    parser.add_argument("--replay", type=Path, nargs="*", help="run these saved inputs (mode from the name)")
    parser.add_argument("--json", type=Path, default=None, help="write the report here")
    args = parser.parse_args(argv)
    if args.replay:
        bad = 0
        for path in args.replay:
            mode = path.name.split(".")[1]
            data = path.read_bytes() if path.suffix == ".tileirbc" else path.read_text()
            outcome = run_in_process(mode, data, args.timeout)
            print(f"{path}: [{mode}] {outcome.kind} ({outcome.seconds:.2f} s)\n{outcome.output}")
            bad += outcome.kind.startswith("finding")
        return 1 if bad else 0
    report = campaign(text_fuzz.REPO, inputs=args.inputs, seconds=args.seconds, rng_seed=args.seed,
                      timeout=args.timeout, out_dir=args.out, modes=tuple(args.modes.split(",")),
                      max_chars=args.max_chars)
    print(f"{report['inputs']} inputs in {report['seconds']} s: {report['kinds']}; modes {report['modes']}")
    print(f"{len(report['findings'])} findings, {len(report['signatures'])} signatures")
    for s in report["signatures"]:
        print("  " + s)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    return 1 if report["findings"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
