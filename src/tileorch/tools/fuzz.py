"""A grammar-aware mutation fuzzer for tileorch's user-facing commands.

Seeds are the ``.mlir`` examples and test inputs (split at ``// -----``), in their custom form
and in the generic form.  Each fuzz input is a seed with one to three mutations that know the
shape of MLIR text: integer literals replaced by values at type boundaries (0, -1, 2^31, 2^32,
2^63, 2^64, unsigned-looking masks such as 0xffffffff00000000 ...), floats by values that
overflow f16/f32, integer/float/pointer types swapped, attribute-dictionary entries deleted,
keywords of one enum swapped for another, array element types changed, SSA uses swapped,
lines deleted or duplicated, the text cut short; in cuda_tile types, one extent of a shape set to
a boundary (0, negative, huge), one extent dropped or repeated (another rank), an element type
swapped.

Each input runs one command (``tileorch-opt``, ``tileorch compile`` or ``tileorch check``)
in a forked child with its output going to a file.  The property is:

    exit 0, or exit 1 with every ``error:`` line located (``file:line:col: error:``);
    never a Python traceback, an ``internal error``, a signal (abort, segfault) or a hang.

``python -m tileorch.tools.fuzz --inputs 20000`` (or ``tools/fuzz.py``) prints how many inputs
it tried, how many reached PTX, and every finding (saved under ``--out`` for replay with
``--replay``).  ``tests/unit/test_fuzz.py`` runs a short budget in CI.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

_SOURCE_TREE = Path(__file__).resolve().parents[3]
REPO = _SOURCE_TREE if (_SOURCE_TREE / "examples").is_dir() else Path.cwd()
"""The checkout whose examples and tests seed the fuzzer (the current directory when tileorch is
installed as a package rather than run from its source tree)."""
DEFAULT_SEED_DIRS = ("examples", "tests/filecheck")
LOCATED = re.compile(r"^[^\s:][^:]*:\d+:\d+: error: ")
MODES = ("opt", "compile", "check")

# --------------------------------------------------------------------------- mutations

BOUNDARY_INTS = [
    0, 1, -1, 2, 3, 7, 8, 15, 16, 17, 24, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
    1023, 1024, 1025, 2047, 4096, 65535, 65536, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1,
    2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**65, 2**128, -(2**15), -(2**31), -(2**31) - 1,
    -(2**63), -(2**63) - 1, -(2**64),
]
BOUNDARY_HEX = ["0x0", "0x1", "0xff", "0xffff", "0xffffffff", "0xffffffff00000000", "0x8000000000000000",
                "0xffffffffffffffff", "0x10000000000000000", "0x100000000", "0x80000000", "0x1f", "0x3"]
BOUNDARY_FLOATS = ["0.0", "-0.0", "1.0e+00", "65504.0", "65520.0", "1.0e+39", "-3.5e+38", "1.0e-50",
                   "3.4028235e+38", "1.0e+308", "1.0e+309", "0x7FC00000", "0xFFFF", "2.0"]
INT_TYPES = ["i1", "i8", "i16", "i32", "i64", "i128", "index"]
FLOAT_TYPES = ["f16", "bf16", "f32", "f64"]
KEYWORD_GROUPS = [
    ["thread", "warp", "warpgroup", "cta"],
    ["producer", "consumer", "producer_consumer", "non_participant"],
    ["mbarrier", "named_barrier"],
    ["none", "full", "empty"],
    ["sm90", "sm100"],
    ["sm_90a", "sm_100a", "sm_90", "sm_80", "sm_120a"],
    ["streamk", "persistent", "data_parallel", "sm100_streamk"],
    ["heuristic", "along_m", "along_n"],
    ["deterministic", "nondeterministic", "separate_reduction"],
    ["arrive", "arrive_and_wait", "sync", "wait"],
    ["producer_acquire", "producer_commit", "consumer_wait", "consumer_release", "producer_tail"],
    ["producer_try_acquire", "consumer_try_wait"],
    ["get_full_barrier", "get_empty_barrier", "get_producer_barrier"],
    ["addi", "subi", "muli", "divui", "remui", "shli", "shrui", "shrsi", "andi", "ori", "xori"],
    ["eq", "ne", "slt", "sgt", "ult", "ugt", "sle", "uge"],
    ["true", "false"],
    ["ptr<1>", "ptr<3>", "ptr", "ptr<7>", "ptr<4>"],
    ["x", "y", "z"],
]
_KEYWORD_INDEX = {w: g for g in KEYWORD_GROUPS for w in g}

_CONST_RE = re.compile(r"(arith\.constant\s+)(\d+)(\s*:\s*(?:i\d+|index))")
_INT_RE = re.compile(r"(?<![\w.%#^@!\"])-?(?:0x[0-9a-fA-F]+|\d+)(?![\w.])")
_FLOAT_RE = re.compile(r"(?<![\w%#^@])-?\d+\.\d+(?:e[+-]?\d+)?")
_TYPE_RE = re.compile(r"(?<![\w%#^@.])(?:i\d+|index|f16|bf16|f32|f64)(?![\w])")
_WORD_RE = re.compile(r"(?<![\w%#^@.\"])[a-z_][a-z0-9_]*(?:<\d+>)?(?![\w\"])")
_DICT_ENTRY_RE = re.compile(r"(?<=[{,<])\s*\"?[A-Za-z_][\w.]*\"?\s*=\s*(?:array<[^>]*>|#[\w.]+<[^>]*>|\"[^\"]*\"|[^,}>\n]+)(?:\s*,)?")
_ARRAY_RE = re.compile(r"array<(i1|i8|i16|i32|i64|f16|f32|f64)(:?)")
_SSA_RE = re.compile(r"%[\w.$-]+(?:#\d+)?")
# cuda_tile shapes (``tile<128x64xf32>``, ``tensor_view<?x64xf32, ...>``, a view's ``tile=(16x16)``):
# _INT_RE and _TYPE_RE never match inside them (a digit or type next to an ``x``)
_SHAPE_RE = re.compile(r"(?<=tile<)\d+(?:x\d+)*(?=x)|(?<=tensor_view<)[\d?]+(?:x[\d?]+)*(?=x)"
                       r"|(?<=tile=\()\d+(?:x\d+)*(?=\))")
_ELEMENT_TYPES = ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "tf32", "f8E4M3FN", "f8E5M2",
                  "f8E8M0FNU", "f4E2M1FN"]
_ELEMENT_RE = re.compile(r"(?:(?<=x)|(?<=tile<)|(?<=ptr<))(?:" + "|".join(sorted(_ELEMENT_TYPES, key=len, reverse=True))
                         + r")(?=[>,])")
SHAPE_DIMS = [0, -1, -64, 1, 2, 3, 5, 7, 48, 100, 256, 512, 1024, 4096, 65536, 2**24, 2**31 - 1, 2**31, 2**32,
              2**40, 2**63, 2**64]
"""Tile and view extents: zero, negative, not a power of two, past i32/i64, huge element counts."""


def _code_part(line: str) -> str:
    """The part of a line before a ``//`` comment (RUN/CHECK lines are left alone)."""
    i = line.find("//")
    return line if i < 0 else line[:i]


def _spans(text: str, pattern: re.Pattern) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        code = _code_part(line)
        spans += [(pos + m.start(), pos + m.end()) for m in pattern.finditer(code)]
        pos += len(line)
    return spans


def _replace(text: str, span: tuple[int, int], new: str) -> str:
    return text[: span[0]] + new + text[span[1]:]


class Mutator:
    """Mutation operators over MLIR text; each returns the new text or None if not applicable."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.ops = [
            (self.int_boundary, 6), (self.hex_mask, 2), (self.int_nearby, 3), (self.float_boundary, 1),
            (self.type_swap, 3), (self.dict_entry_delete, 3), (self.keyword_swap, 3),
            (self.array_type, 1), (self.array_length, 1), (self.ssa_swap, 2), (self.line_delete, 2),
            (self.line_duplicate, 1), (self.shape_dim, 3), (self.shape_rank, 2), (self.element_swap, 2),
            (self.truncate, 1),
        ]
        self.weights = [w for _, w in self.ops]
        # mutations that usually keep a valid program valid (so more compile-mode inputs reach
        # LLVM and ptxas with new constants and names): see ``mutate(mild=True)``
        self.mild_ops = [(self.const_nearby, 4), (self.ssa_rename, 1), (self.comment_insert, 1)]
        self.mild_weights = [w for _, w in self.mild_ops]

    def mutate(self, text: str, count: int, mild: bool = False) -> tuple[str, list[str]]:
        applied: list[str] = []
        ops, weights = (self.mild_ops, self.mild_weights) if mild else (self.ops, self.weights)
        for _ in range(count * 4):
            if len(applied) >= count:
                break
            op = self.rng.choices(ops, weights)[0][0]
            new = op(text)
            if new is not None and new != text:
                text = new
                applied.append(op.__name__)
        return text, applied

    def _pick(self, text: str, pattern: re.Pattern) -> tuple[int, int] | None:
        spans = _spans(text, pattern)
        return self.rng.choice(spans) if spans else None

    def _swap(self, text: str, pattern: re.Pattern, values) -> str | None:
        """One match of ``pattern`` replaced by one of ``values`` (None when nothing matches)."""
        span = self._pick(text, pattern)
        return None if span is None else _replace(text, span, str(self.rng.choice(values)))

    def int_boundary(self, text: str) -> str | None:
        return self._swap(text, _INT_RE, BOUNDARY_INTS)

    def hex_mask(self, text: str) -> str | None:
        return self._swap(text, _INT_RE, BOUNDARY_HEX)

    def int_nearby(self, text: str) -> str | None:
        span = self._pick(text, _INT_RE)
        if span is None:
            return None
        literal = text[span[0]:span[1]]
        try:
            value = int(literal, 0)
        except ValueError:  # a decimal with leading zeros ("01")
            value = int(literal.lstrip("-").lstrip("0") or "0") * (-1 if literal.startswith("-") else 1)
        new = self.rng.choice([value + 1, value - 1, value * 2, -value, value // 2, value * 8, value + 32])
        return _replace(text, span, str(new))

    def const_nearby(self, text: str) -> str | None:
        """An ``arith.constant N : iK|index`` with N > 0 moved to a nearby positive value."""
        spans = _spans(text, _CONST_RE)
        if not spans:
            return None
        span = self.rng.choice(spans)
        m = _CONST_RE.match(text, span[0])
        value = int(m.group(2))
        new = max(1, self.rng.choice([value + 1, value - 1, value * 2, value // 2, value + 8]))
        return text[:m.start(2)] + str(new) + text[m.end(2):]

    def ssa_rename(self, text: str) -> str | None:
        """Every occurrence of one SSA name renamed (result numbers ``%x#1`` follow)."""
        names = sorted({text[a:b].split("#")[0] for a, b in _spans(text, _SSA_RE)})
        if not names:
            return None
        old = self.rng.choice(names)
        return re.sub(re.escape(old) + r"(?![\w$.-])", lambda _: "%fz_" + old[1:], text)

    def comment_insert(self, text: str) -> str | None:
        lines = text.splitlines(keepends=True)
        idx = self._code_lines(lines)
        if not idx:
            return None
        lines.insert(self.rng.choice(idx), "  // fuzz: a comment line\n")
        return "".join(lines)

    def float_boundary(self, text: str) -> str | None:
        return self._swap(text, _FLOAT_RE, BOUNDARY_FLOATS)

    def type_swap(self, text: str) -> str | None:
        span = self._pick(text, _TYPE_RE)
        if span is None:
            return None
        pool = INT_TYPES + FLOAT_TYPES if self.rng.random() < 0.3 else (
            FLOAT_TYPES if text[span[0]] in "fb" else INT_TYPES)
        return _replace(text, span, self.rng.choice(pool))

    def shape_dim(self, text: str) -> str | None:
        """One extent of a cuda_tile shape replaced (zero, negative, odd, huge)."""
        span = self._pick(text, _SHAPE_RE)
        if span is None:
            return None
        dims = text[span[0]:span[1]].split("x")
        dims[self.rng.randrange(len(dims))] = str(self.rng.choice(SHAPE_DIMS))
        return _replace(text, span, "x".join(dims))

    def shape_rank(self, text: str) -> str | None:
        """One extent of a cuda_tile shape dropped or repeated: the rank changes at one use."""
        span = self._pick(text, _SHAPE_RE)
        if span is None:
            return None
        dims = text[span[0]:span[1]].split("x")
        i = self.rng.randrange(len(dims))
        if len(dims) > 1 and self.rng.random() < 0.5:
            del dims[i]
        else:
            dims.insert(i, dims[i])
        return _replace(text, span, "x".join(dims))

    def element_swap(self, text: str) -> str | None:
        """The element type of one cuda_tile tile, view or pointer swapped for another."""
        return self._swap(text, _ELEMENT_RE, _ELEMENT_TYPES)

    def truncate(self, text: str) -> str | None:
        """The code cut at a random point of a token (an unfinished file); the comment lines after
        the cut stay (comments are never mutated)."""
        spans = _spans(text, re.compile(r"\S+"))
        if not spans:
            return None
        a, b = self.rng.choice(spans)
        cut = self.rng.randrange(a, b)
        comments = [line for line in text[cut:].splitlines(keepends=True) if line.lstrip().startswith("//")]
        return text[:cut] + ("\n" + "".join(comments) if comments else "")

    def dict_entry_delete(self, text: str) -> str | None:
        span = self._pick(text, _DICT_ENTRY_RE)
        return None if span is None else _replace(text, span, "")

    def keyword_swap(self, text: str) -> str | None:
        spans = [s for s in _spans(text, _WORD_RE) if text[s[0]:s[1]] in _KEYWORD_INDEX]
        if not spans:
            return None
        span = self.rng.choice(spans)
        word = text[span[0]:span[1]]
        return _replace(text, span, self.rng.choice([w for w in _KEYWORD_INDEX[word] if w != word]))

    def array_type(self, text: str) -> str | None:
        span = self._pick(text, _ARRAY_RE)
        if span is None:
            return None
        old = text[span[0]:span[1]]
        colon = ":" if old.endswith(":") else ""
        return _replace(text, span, f"array<{self.rng.choice(['i1', 'i8', 'i16', 'i32', 'i64', 'f32', 'f16'])}{colon}")

    def array_length(self, text: str) -> str | None:
        spans = _spans(text, re.compile(r"array<\w+: [^>]*>"))
        if not spans:
            return None
        span = self.rng.choice(spans)
        head, _, body = text[span[0]:span[1] - 1].partition(": ")
        items = [s.strip() for s in body.split(",")]
        if self.rng.random() < 0.5 and len(items) > 1:
            items.pop(self.rng.randrange(len(items)))
        else:
            items.insert(self.rng.randrange(len(items) + 1), str(self.rng.choice(BOUNDARY_INTS[:30])))
        return _replace(text, span, f"{head}: {', '.join(items)}>")

    def ssa_swap(self, text: str) -> str | None:
        spans = _spans(text, _SSA_RE)
        if len(spans) < 2:
            return None
        span = self.rng.choice(spans)
        other = self.rng.choice(spans)
        return _replace(text, span, text[other[0]:other[1]])

    def _code_lines(self, lines: list[str]) -> list[int]:
        return [i for i, l in enumerate(lines) if l.strip() and not l.lstrip().startswith("//")
                and l.strip() not in ("}", "{") and "module" not in l]

    def line_delete(self, text: str) -> str | None:
        lines = text.splitlines(keepends=True)
        idx = self._code_lines(lines)
        if not idx:
            return None
        del lines[self.rng.choice(idx)]
        return "".join(lines)

    def line_duplicate(self, text: str) -> str | None:
        lines = text.splitlines(keepends=True)
        idx = self._code_lines(lines)
        if not idx:
            return None
        i = self.rng.choice(idx)
        lines.insert(i, lines[i])
        return "".join(lines)


# --------------------------------------------------------------------------- seeds


@dataclass
class Seed:
    name: str
    text: str
    modes: tuple[str, ...] = ("opt",)
    weight: float = 1.0


def _strip_test_lines(text: str) -> str:
    return "".join(l for l in text.splitlines(keepends=True)
                   if not re.match(r"\s*//\s*(RUN|CHECK|REQUIRES|XFAIL|expected-)", l))


def load_seeds(roots: list[Path]) -> list[Seed]:
    """Every ``.mlir`` file under ``roots``, split at ``// -----``."""
    seeds: list[Seed] = []
    for root in roots:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*.mlir") if "Output" not in p.parts)
        for path in files:
            try:
                text = path.read_text()
            except (OSError, UnicodeDecodeError):
                continue
            for i, chunk in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
                chunk = _strip_test_lines(chunk)
                if chunk.strip():
                    rel = path.relative_to(REPO) if path.is_relative_to(REPO) else path
                    seeds.append(Seed(f"{rel}#{i}", chunk))
    return seeds


def generic_form(text: str) -> str | None:
    """``text`` printed in the generic form (None if it does not parse and verify)."""
    from tileorch.backend.compile import print_module
    from tileorch.diagnostics import parse_module, verify_located
    from tileorch.registry import make_context

    try:
        module = parse_module(make_context(), text, "seed")
        if verify_located(module):
            return None
        return print_module(module, generic=True)
    except Exception:  # a seed that does not parse is still a useful seed in custom form
        return None


# --------------------------------------------------------------------------- running one input


@dataclass
class Outcome:
    kind: str  # ok | diagnostic | finding:<what>
    code: int
    output: str
    seconds: float
    reached_ptx: bool = False


def _command(mode: str, path: str) -> list[str]:
    if mode == "opt":
        return ["opt", path, "--print-op-generic"]
    if mode == "compile":
        return ["compile", path, "-o", path + ".ptx", "--no-cache"]  # every input really compiled
    return ["check", path, "--iterations", "2"]


def run_child(run, out_fd: int, timeout: int, memory_mb: int = 0) -> None:
    """The body of a forked fuzz child: ``run()`` with stdout/stderr on ``out_fd``, an alarm after
    ``timeout`` seconds and at most ``memory_mb`` of address space (0: unlimited); then
    ``os._exit`` with its status (a ``SystemExit``'s code; 99 after printing an uncaught
    exception's traceback, as the user would see it)."""
    signal.alarm(timeout)
    if memory_mb:
        import resource

        limit = memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    sys.stdout = os.fdopen(1, "w", closefd=False)
    sys.stderr = os.fdopen(2, "w", closefd=False)
    code = 0
    try:
        code = run() or 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - report it as the traceback the user would see
        import traceback

        traceback.print_exc()
        code = 99
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _run_command(mode: str, path: str) -> int:
    argv = _command(mode, path)
    if argv[0] == "opt":
        from tileorch.tools.opt import main as opt_main

        opt_main(argv[1:])
    else:
        from tileorch.cli.main import main as cli_main

        cli_main(argv)
    return 0


def _child(mode: str, path: str, out_fd: int, timeout: int) -> None:
    """Runs in the forked child: the command, then ``os._exit`` with its status."""
    run_child(lambda: _run_command(mode, path), out_fd, timeout)


_FRESH = ("import sys\n"
          "mode, path = sys.argv[1], sys.argv[2]\n"
          "from tileorch.tools.fuzz import _command\n"
          "argv = _command(mode, path)\n"
          "if argv[0] == 'opt':\n"
          "    from tileorch.tools.opt import main\n"
          "    sys.exit(main(argv[1:]))\n"
          "from tileorch.cli.main import main\n"
          "sys.exit(main(argv))\n")


def run_fresh(script: str, mode: str, path: Path, timeout: int) -> tuple[int, str, bool]:
    """Run ``python -c script mode path`` in a new interpreter (no fork), tileorch's sources first
    on the path: (exit code, output, timed out)."""
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH")) if p)}
    try:
        proc = subprocess.run([sys.executable, "-c", script, mode, str(path)], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or ""
        return -1, out if isinstance(out, str) else out.decode(errors="replace"), True
    return proc.returncode, proc.stdout + proc.stderr, False


def _fresh_run(mode: str, path: Path, timeout: int) -> tuple[int, str, bool]:
    """Run one input again in a new interpreter (no fork): (exit code, output, timed out)."""
    return run_fresh(_FRESH, mode, path, timeout)


WARM_UP = """builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @warm(%smem: !llvm.ptr<3>) attributes {nvvm.kernel} {
    %pipe = cutlass.pipeline.create storage(%smem) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    func.return
  }
}
"""


def _warm_up() -> None:
    """Compile one small kernel in this process before forking, so that every compile-mode
    child starts with the compiler's lazily imported modules and caches loaded (about 2.5x
    faster children); its outcome does not matter."""
    import contextlib
    import io

    from tileorch.cli.main import main as cli_main

    with tempfile.TemporaryDirectory(prefix="tileorch-fuzz-warm-") as tmp:
        src = Path(tmp) / "warm.mlir"
        src.write_text(WARM_UP)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                cli_main(_command("compile", str(src)))
            except BaseException:  # noqa: BLE001 - warming only
                pass


def classify(mode: str, code: int, sig: int | None, output: str, timed_out: bool,
             also_located: re.Pattern | None = None, also_kind: str = "diagnostic") -> str:
    """The outcome of one input: ``ok``, ``diagnostic`` (every error located), or a ``finding:``.
    ``also_located``: another form an error line may take and still count as located; when every
    error line has that form the outcome is ``also_kind``."""
    if timed_out:
        return "finding:hang"
    if sig is not None:
        return f"finding:signal-{signal.Signals(sig).name}"
    if "Traceback (most recent call last)" in output:
        return "finding:traceback"
    if "internal error" in output:
        return "finding:internal-error"
    if code == 0:
        return "ok"
    if code != 1:
        return f"finding:exit-{code}"
    if mode == "check" and re.search(r": FAILED;", output):
        return "ok"  # a counterexample, not a diagnostic
    errors = [l for l in output.splitlines() if " error: " in l or l.startswith("error:")]
    if not errors:
        return "finding:exit-1-without-diagnostic"
    located = (LOCATED,) + ((also_located,) if also_located is not None else ())
    if any(not any(p.match(l) for p in located) or "<unknown>" in l for l in errors):
        return "finding:unlocated"
    if also_located is not None and all(also_located.match(l) for l in errors):
        return also_kind
    return "diagnostic"


class Runner:
    """Runs inputs in forked children, ``jobs`` at a time.  Subclasses (the bytecode fuzzer) change
    the input file (``SUFFIX``, :meth:`_write`), the child (:meth:`_child`, :meth:`_fresh`) and the
    classification (:meth:`_outcome`)."""

    SUFFIX = ".mlir"

    def __init__(self, workdir: Path, jobs: int = 1, timeout: int = 60):
        self.workdir = workdir
        self.jobs = max(1, jobs)
        self.timeout = timeout
        self.running: dict[int, tuple] = {}
        self.rechecked = 0
        """Inputs that timed out in a forked child and were re-run in a fresh interpreter."""

    def _write(self, path: Path, data) -> None:
        path.write_text(data)

    def _child(self, mode: str, path: str, out_fd: int, limit: int) -> None:
        _child(mode, path, out_fd, limit)

    def _fresh(self, mode: str, path: Path, limit: int) -> tuple[int, str, bool]:
        return _fresh_run(mode, path, limit)

    def _outcome(self, mode: str, path: Path, code: int, sig: int | None, output: str, timed_out: bool,
                 seconds: float) -> Outcome:
        kind = classify(mode, code, sig, output, timed_out)
        reached = mode == "compile" and code == 0 and Path(str(path) + ".ptx").exists()
        return Outcome(kind, code, output, seconds, reached)

    def submit(self, key, mode: str, data, timeout: int | None = None) -> None:
        path = self.workdir / f"in{os.getpid()}_{key}{self.SUFFIX}"
        self._write(path, data)
        out_path = path.with_suffix(".out")
        out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        limit = timeout or self.timeout
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            self._child(mode, str(path), out_fd, limit)
        os.close(out_fd)
        self.running[pid] = (key, mode, path, out_path, time.monotonic(), limit)

    def full(self) -> bool:
        return len(self.running) >= self.jobs

    def reap(self) -> tuple[object, Outcome]:
        """Wait for one child; returns (key, outcome)."""
        pid, status = os.waitpid(-1, 0)
        while pid not in self.running:
            pid, status = os.waitpid(-1, 0)
        key, mode, path, out_path, start, limit = self.running.pop(pid)
        seconds = time.monotonic() - start
        output = out_path.read_text(errors="replace")
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
        timed_out = sig == signal.SIGALRM
        if timed_out:  # a forked child can also stall on the loaded machine: confirm in a fresh process
            self.rechecked += 1
            code, output, timed_out = self._fresh(mode, path, limit)
            sig = None
        outcome = self._outcome(mode, path, code, None if timed_out else sig, output, timed_out, seconds)
        for p in (path, out_path, Path(str(path) + ".ptx")):
            try:
                p.unlink()
            except OSError:
                pass
        return key, outcome


# --------------------------------------------------------------------------- campaign


@dataclass
class Report:
    tried: int = 0
    reached_ptx: int = 0
    by_mode: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    findings: list[tuple[str, str, str, str]] = field(default_factory=list)  # (kind, seed, text, output)
    seconds: float = 0.0
    rechecked: int = 0  # timed out in a forked child, re-run in a fresh interpreter

    def summary(self) -> str:
        lines = [f"fuzz: {self.tried} inputs tried in {self.seconds:.0f} s "
                 f"({', '.join(f'{m} {n}' for m, n in sorted(self.by_mode.items()))}); "
                 f"{self.reached_ptx} compiled to PTX",
                 "fuzz: outcomes: " + ", ".join(f"{k} {n}" for k, n in sorted(self.kinds.items()))
                 + (f" ({self.rechecked} timed out in a forked child and were re-run in a fresh process)"
                    if self.rechecked else "")]
        findings = Counter(k for k, *_ in self.findings)
        lines.append(f"fuzz: {len(self.findings)} finding(s)" +
                     (": " + ", ".join(f"{k} {n}" for k, n in sorted(findings.items())) if findings else ""))
        return "\n".join(lines)


def calibrate(seeds: list[Seed], runner: Runner, compile_limit: float, compile_weight: float = 4.0,
              max_seeds: int = 40) -> None:
    """Run every seed once unmutated with ``tileorch compile``: seeds that reach PTX within
    ``compile_limit`` seconds are also fuzzed in compile mode (and weighted up).  The candidates are
    the examples, LLVM/NVVM kernels and cuTile programs (``cuda_tile.module``, the front door); at
    most ``max_seeds`` are tried: the examples first, then the shortest kernels."""
    pending = [(i, s) for i, s in enumerate(seeds)
               if not s.name.endswith(":generic")
               and ("nvvm.kernel" in s.text or "cuda_tile.module" in s.text or s.name.startswith("examples/"))]
    pending = sorted(pending, key=lambda p: (not p[1].name.startswith("examples/"), len(p[1].text)))[:max_seeds]
    while pending or runner.running:
        while pending and not runner.full():
            i, seed = pending.pop()
            runner.submit(("cal", i), "compile", seed.text, timeout=int(compile_limit * 4) + 5)
        (_, i), outcome = runner.reap()
        seed = seeds[i]
        if outcome.reached_ptx and outcome.seconds <= compile_limit:
            seed.modes = ("opt", "compile", "compile", "compile", "check")
            seed.weight = compile_weight
        elif "pipeline" in seed.text or "named_barrier" in seed.text:
            seed.modes = ("opt", "check")
    by_name = {s.name: s for s in seeds}
    for seed in seeds:  # a generic twin is fuzzed like its custom form
        twin = by_name.get(seed.name.removesuffix(":generic"))
        if seed.name.endswith(":generic") and twin is not None:
            seed.modes, seed.weight = twin.modes, twin.weight


def log_progress(report, start: float, next_log: float, log) -> float:
    """Log the first line of ``report.summary()`` once the clock passes ``next_log``; returns the
    time of the next progress line (a minute on)."""
    if time.monotonic() <= next_log:
        return next_log
    report.seconds = time.monotonic() - start
    log(report.summary().splitlines()[0])
    return time.monotonic() + 60


def finish(report, runner, start: float):
    """Stamp the run's duration and the runner's recheck count on ``report`` and return it."""
    report.seconds = time.monotonic() - start
    report.rechecked = runner.rechecked
    return report


def add_run_arguments(parser: argparse.ArgumentParser, seconds: float | None) -> None:
    """The options every fuzzer takes: inputs, seconds (default ``seconds``), jobs, seed, timeout."""
    parser.add_argument("--inputs", type=int, default=2000, help="number of fuzz inputs (default 2000)")
    parser.add_argument("--seconds", type=float, default=seconds, help="stop after this many seconds")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per input before it counts as a hang")


def replay(runner, paths: list[Path], modes, read) -> int:
    """Run each of ``paths`` (its input read by ``read``) once in every mode and print the
    outcomes; 1 if any is a finding, else 0."""
    bad = 0
    for path in paths:
        for mode in modes:
            runner.submit(0, mode, read(path))
            _, outcome = runner.reap()
            bad += outcome.kind.startswith("finding")
            tail = outcome.output.strip().splitlines()[-8:]
            print(f"{path} ({mode}): {outcome.kind}\n    " + "\n    ".join(tail))
    return 1 if bad else 0


def drive(runner: Runner, report, *, inputs: int, seconds: float | None, start: float, next_log: float,
          make, handle, log):
    """The campaign loop of both fuzzers: keep ``runner`` busy with ``make()`` inputs (``(name,
    mode, data)``, or None for a mutant that could not be made) until ``inputs`` were started or
    ``seconds`` passed; count every outcome in ``report``, hand it to ``handle(name, mode, data,
    outcome)`` and log progress.  Returns the report once every child is reaped."""
    meta: dict[int, tuple] = {}
    n = 0
    while True:
        while not (n >= inputs or (seconds is not None and time.monotonic() - start > seconds)) \
                and not runner.full():
            item = make()
            if item is None:
                continue
            meta[n] = item
            runner.submit(n, item[1], item[2])
            n += 1
        if not runner.running:
            break
        key, outcome = runner.reap()
        name, mode, data = meta.pop(key)
        report.tried += 1
        report.by_mode[mode] += 1
        report.kinds[outcome.kind] += 1
        handle(name, mode, data, outcome)
        next_log = log_progress(report, start, next_log, log)
    return finish(report, runner, start)


def fuzz(seeds: list[Seed], *, inputs: int, seconds: float, jobs: int, rng_seed: int, timeout: int,
         out_dir: Path | None, log=print, mode_filter: tuple[str, ...] = MODES, mild_share: float = 0.0) -> Report:
    """Run ``inputs`` mutants (or until ``seconds``); ``mild_share`` of the compile-mode inputs
    get one mild mutation (``Mutator.mild_ops``) instead of an adversarial one."""
    rng = random.Random(rng_seed)
    mutator = Mutator(rng)
    report = Report()
    start = time.monotonic()
    weights = [s.weight for s in seeds]

    def make():
        seed = rng.choices(seeds, weights)[0]
        modes = [m for m in seed.modes if m in mode_filter] or ["opt"]
        mode = rng.choice(modes)
        # compile-mode mutants get one mutation: more of them stay valid and reach LLVM
        count = 1 if mode == "compile" else rng.choice([1, 1, 1, 2, 3])
        mild = mode == "compile" and rng.random() < mild_share
        text, applied = mutator.mutate(seed.text, count, mild=mild)
        if not applied:
            return None
        return seed.name + " [" + ", ".join(applied) + "]", mode, text

    def handle(name: str, mode: str, text: str, outcome: Outcome) -> None:
        report.reached_ptx += outcome.reached_ptx
        if outcome.kind.startswith("finding"):
            report.findings.append((outcome.kind, f"{name} ({mode})", text, outcome.output))
            log(f"FINDING {outcome.kind}: {name} ({mode})\n    " + "\n    ".join(outcome.output.strip().splitlines()[-6:]))
            if out_dir is not None:
                out_dir.mkdir(parents=True, exist_ok=True)
                idx = len(report.findings)
                (out_dir / f"finding{idx:04d}.{mode}.mlir").write_text(f"// {outcome.kind}: {name}\n{text}")
                (out_dir / f"finding{idx:04d}.{mode}.out").write_text(outcome.output)

    with tempfile.TemporaryDirectory(prefix="tileorch-fuzz-") as tmp:
        return drive(Runner(Path(tmp), jobs, timeout), report, inputs=inputs, seconds=seconds, start=start,
                     next_log=start + 30, make=make, handle=handle, log=log)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tileorch-fuzz", description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, seconds=3600)
    parser.add_argument("--compile-limit", type=float, default=4.0,
                        help="seeds that compile within this many seconds are fuzzed in compile mode too")
    parser.add_argument("--compile-weight", type=float, default=4.0,
                        help="how much more often a seed that compiles is picked (default 4)")
    parser.add_argument("--mild-share", type=float, default=0.5,
                        help="share of compile-mode inputs given a mild mutation (nearby constant, renamed "
                             "value, comment) so that more of them reach PTX (default 0.5)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of opt,compile,check")
    parser.add_argument("--out", type=Path, default=None, help="save findings here")
    parser.add_argument("--replay", type=Path, nargs="*", help="run these files once in every mode and report")
    parser.add_argument("seeds", type=Path, nargs="*", help=f"seed files/folders (default: {', '.join(DEFAULT_SEED_DIRS)})")
    args = parser.parse_args(argv)
    modes = tuple(m for m in args.modes.split(",") if m in MODES)
    import tileorch.backend.compile  # noqa: F401  (import once before forking)
    import tileorch.cli.main  # noqa: F401
    import tileorch.driver  # noqa: F401
    import tileorch.tools.opt  # noqa: F401

    if "compile" in modes:
        _warm_up()
    if args.replay:
        with tempfile.TemporaryDirectory(prefix="tileorch-fuzz-") as tmp:
            return replay(Runner(Path(tmp), 1, args.timeout), args.replay, modes, Path.read_text)
    roots = args.seeds or [REPO / d for d in DEFAULT_SEED_DIRS]
    seeds = load_seeds(roots)
    generic = []
    for seed in seeds:
        text = generic_form(seed.text)
        if text is not None:
            generic.append(Seed(seed.name + ":generic", text))
    seeds += generic
    with tempfile.TemporaryDirectory(prefix="tileorch-fuzz-cal-") as tmp:
        if "compile" in modes:
            calibrate(seeds, Runner(Path(tmp), args.jobs, args.timeout), args.compile_limit, args.compile_weight)
    n_compile = sum("compile" in s.modes for s in seeds)
    print(f"fuzz: {len(seeds)} seeds ({len(generic)} generic), {n_compile} fuzzed in compile mode", flush=True)
    report = fuzz(seeds, inputs=args.inputs, seconds=args.seconds, jobs=args.jobs, rng_seed=args.seed,
                  timeout=args.timeout, out_dir=args.out, mode_filter=modes, mild_share=args.mild_share,
                  log=lambda s: print(s, flush=True))
    print(report.summary())
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
