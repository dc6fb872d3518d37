"""One seeded fuzzer over every front door: ``python tools/fuzz_inputs.py --seed N --cases K``.

Doors, each input run in a forked child (:class:`tileorch.tools.fuzz.Runner`):

- ``compile``: ``tileorch compile FILE --no-cache`` on mutated ``examples/*.mlir`` (cutlass IR)
  and the ``nv_tileaa`` / ``cuda_tile`` test inputs;
- ``opt:PIPELINE``: ``tileorch-opt FILE -p PIPELINE`` on the same inputs, PIPELINE the one the
  seed's own ``RUN`` line (or an example's header comment) names;
- ``bc-front`` / ``bc-opt``: corrupted cuTile bytecode (``.tileirbc`` fixtures; truncations,
  flipped bytes, counts and indices: :class:`tileorch.tools.fuzz_bytecode.Mutator`) through the
  compile front end and ``tileorch-opt``;
- ``gemm``: ``tileorch gemm M N K [options]`` with one bad argument (no GPU: no ``--run``);
- ``api``: ``tileorch.compile`` with a bad argument or a mutated source, and
  ``tileorch.gemm`` / ``tileorch.cutile.launch`` with bad arguments (no GPU needed: they must
  refuse before touching one).

Text mutations are mostly the ones that keep the input parseable (:class:`SemanticMutator`:
pipeline stages / producers / consumers, cluster shapes, barrier arrival counts, tile shapes that
are zero or not a power of two, a dot whose K does not match, a dropped terminator, a duplicated
result name, swapped operands), else :class:`tileorch.tools.fuzz.Mutator`'s generic ones.

Every outcome gets one class (:data:`CLASSES`): ``located`` (non-zero exit, every error line
``file:line:col: error:``, a bytecode error at an offset, an argparse usage error naming the
argument, or for the Python API a ``ValueError``/``TypeError``/tileorch error), ``unlocated``,
``traceback`` (also "internal error" and, for the API, an exception such as ``KeyError``),
``timeout``, ``crash`` (a signal or an unexpected exit status) or ``accepted`` (exit 0: not a bug
in itself for a mutant, which may stay valid; a finding for the argument doors, whose every case is
bad).  ``unlocated``, ``traceback``, ``timeout`` and ``crash`` are findings; exit status 1 when there is one.  Deterministic for one ``--seed`` and ``--cases``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tileorch.tools import fuzz, fuzz_bytecode
from tileorch.tools.fuzz import LOCATED, REPO, Outcome, drive, run_child, run_fresh

CLASSES = ("located", "unlocated", "traceback", "timeout", "crash", "accepted")
FINDINGS = ("unlocated", "traceback", "timeout", "crash")
TEXT_SEED_DIRS = ("tests/filecheck/cuda_tile", "tests/filecheck/tileaa", "tests/filecheck/tileas",
                  "tests/filecheck/tileaa_to_simt")
CUTLASS_PIPELINE = "cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm"
USAGE_ERROR = re.compile(r"^usage: |^tileorch[\w -]*: error: argument ")

# --------------------------------------------------------------------------- seeds


def _pipeline(text: str) -> str | None:
    """The ``-p`` pipeline of the first ``tileorch-opt`` line of ``text`` (RUN line or comment)."""
    m = re.search(r"tileorch-opt\b[^\n|]*?\s-p[= ]?['\"]?([\w,{}=\-]+)", text)
    return m.group(1) if m else None


def load_text_seeds(root: Path = REPO) -> list[fuzz.Seed]:
    """``examples/*.mlir`` (modes compile and opt with the example's pipeline, else
    :data:`CUTLASS_PIPELINE`) and every chunk of the positive tile-IR tests under
    :data:`TEXT_SEED_DIRS` (files without ``--verify-diagnostics``; modes compile and opt with the
    file's RUN pipeline)."""
    seeds: list[fuzz.Seed] = []
    for path in sorted((root / "examples").glob("*.mlir")):
        text = path.read_text()
        seeds.append(fuzz.Seed(f"examples/{path.name}", fuzz._strip_test_lines(text),
                               ("compile", "opt:" + (_pipeline(text) or CUTLASS_PIPELINE)), 3.0))
    for d in TEXT_SEED_DIRS:
        for path in sorted((root / d).glob("*.mlir")):
            text = path.read_text()
            pipe = _pipeline(text)
            if pipe is None or "verify-diagnostics" in text or "expected-error" in text:
                continue
            for i, chunk in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
                chunk = fuzz._strip_test_lines(chunk)
                if chunk.strip():
                    seeds.append(fuzz.Seed(f"{d}/{path.name}#{i}", chunk, ("compile", "opt:" + pipe)))
    return seeds


# --------------------------------------------------------------------------- text mutations

BAD_COUNTS = [0, 1, 3, 5, 7, 17, 33, 255, 65536, 2**31 - 1, -1]
BAD_DIMS = [0, 1, 3, 5, 48, 96, 100, 1000, 65536]
_PIPE_PARAM = re.compile(r"\b(?:stages|producers|consumers) = (?P<v>-?\d+)")
_CLUSTER = re.compile(r"cluster_shape = array<i32: (?P<v>[-\d, ]+)>")
_BARRIER = re.compile(r"\b(?:num_threads|barrier_id|count|arrive_count|expected|num_warps|warps|"
                      r"max_regs|regs|arrivals|threads) = (?P<v>-?\d+)")
_DIMS = re.compile(r"(?<=<)(\d+x)+(?=[a-z!])")
_TERMINATOR = re.compile(r"^\s*(?:func\.return|scf\.yield|cuda_tile\.return|cuda_tile\.yield|"
                         r"nv_tileaa\.yield|nv_tileaa\.return|return|yield|cutlass\.\w*yield)\b.*$", re.M)
_RESULT = re.compile(r"^\s*(%[\w.$-]+)(?::\d+)? = ", re.M)
_TWO_OPERANDS = re.compile(r"(%[\w.$-]+), (%[\w.$-]+)")


def _in_comment(text: str, pos: int) -> bool:
    """Whether ``pos`` lies in a ``//`` comment (mutating a comment changes nothing)."""
    return "//" in text[text.rfind("\n", 0, pos) + 1:pos]


class SemanticMutator:
    """Mutations that mostly keep the text parseable and make the program wrong; each returns
    the new text or None where it does not apply."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.generic = fuzz.Mutator(rng)
        self.ops = [(self.pipeline_param, 3), (self.cluster_shape, 2), (self.barrier_count, 3),
                    (self.tile_dim, 4), (self.dot_k, 3), (self.terminator_drop, 2), (self.result_dup, 2),
                    (self.operand_swap, 2)]

    def mutate(self, text: str) -> tuple[str, list[str]]:
        """One semantic mutation (a second one for a third of the inputs; three tries each), else
        one or two generic ones."""
        applied: list[str] = []
        for _ in range(1 if self.rng.random() < 2 / 3 else 2):
            for _ in range(3):
                op = self.rng.choices([o for o, _ in self.ops], [w for _, w in self.ops])[0]
                new = op(text)
                if new is not None and new != text:
                    text = new
                    applied.append(op.__name__)
                    break
        return (text, applied) if applied else self.generic.mutate(text, self.rng.choice([1, 1, 2]))

    def _replace_one(self, text: str, pattern: re.Pattern, make) -> str | None:
        matches = [m for m in pattern.finditer(text) if not _in_comment(text, m.start())]
        if not matches:
            return None
        m = self.rng.choice(matches)
        span = m.span("v") if "v" in pattern.groupindex else m.span()
        return text[:span[0]] + make(m) + text[span[1]:]

    def pipeline_param(self, text: str) -> str | None:
        return self._replace_one(text, _PIPE_PARAM, lambda m: str(self.rng.choice(BAD_COUNTS)))

    def cluster_shape(self, text: str) -> str | None:
        def shape(_m):
            n = self.rng.choice([3, 3, 3, 2, 4])
            return ", ".join(str(self.rng.choice([0, 1, 2, 3, 4, 8, 16, 65535, -1])) for _ in range(n))
        return self._replace_one(text, _CLUSTER, shape)

    def barrier_count(self, text: str) -> str | None:
        return self._replace_one(text, _BARRIER, lambda m: str(self.rng.choice(BAD_COUNTS)))

    def tile_dim(self, text: str) -> str | None:
        def dims(m):
            parts = m.group(0).split("x")[:-1]
            parts[self.rng.randrange(len(parts))] = str(self.rng.choice(BAD_DIMS))
            return "x".join(parts) + "x"
        return self._replace_one(text, _DIMS, dims)

    def dot_k(self, text: str) -> str | None:
        """One shape dimension in the types of a dot/mma line changed (a K that does not match)."""
        lines = text.splitlines(keepends=True)
        idx = [i for i, l in enumerate(lines) if re.search(r"\b(dot|mma|wgmma)\b", l) and _DIMS.search(l)]
        if not idx:
            return None
        i = self.rng.choice(idx)
        new = self.tile_dim(lines[i])
        if new is None:
            return None
        lines[i] = new
        return "".join(lines)

    def terminator_drop(self, text: str) -> str | None:
        return self._replace_one(text, _TERMINATOR, lambda m: "")

    def result_dup(self, text: str) -> str | None:
        names = [m.group(1) for m in _RESULT.finditer(text)]
        if len(set(names)) < 2:
            return None
        old = self.rng.choice(names)
        new = self.rng.choice([n for n in names if n != old])
        return self._replace_one(text, re.compile(r"(?m)^(\s*)" + re.escape(old) + r"(?=(?::\d+)? = )"),
                                 lambda m: m.group(1) + new)

    def operand_swap(self, text: str) -> str | None:
        return self._replace_one(text, _TWO_OPERANDS, lambda m: f"{m.group(2)}, {m.group(1)}")


# --------------------------------------------------------------------------- the argument doors

GEMM_OK = ["256", "256", "256"]
GEMM_BAD = [  # one bad argument each; M N K positional
    ["0", "256", "256"], ["-1", "256", "256"], ["256", "0", "256"], ["256", "256", "0"],
    ["256", "256", "-64"], ["2147483648", "256", "256"], ["99999999999999999999", "1", "1"],
    ["1.5", "256", "256"], ["abc", "256", "256"], ["256", "256"], ["256", "256", "256", "256"],
    [*GEMM_OK, "--stages", "0"], [*GEMM_OK, "--stages", "1"], [*GEMM_OK, "--stages", "17"],
    [*GEMM_OK, "--stages", "-3"], [*GEMM_OK, "--stages", "x"], [*GEMM_OK, "--tile-n", "100"],
    [*GEMM_OK, "--tile-n", "0"], [*GEMM_OK, "--tile-n", "512"], [*GEMM_OK, "--tile-n", "-128"],
    [*GEMM_OK, "--cluster-m", "0"], [*GEMM_OK, "--cluster-m", "3"], [*GEMM_OK, "--cluster-m", "-1"],
    [*GEMM_OK, "--cluster-m", "65536"], [*GEMM_OK, "--sms", "0"], [*GEMM_OK, "--sms", "-1"],
    [*GEMM_OK, "--schedule", "bogus"], [*GEMM_OK, "--dtype", "f32"], [*GEMM_OK, "--b-major", "m"],
    [*GEMM_OK, "--emit", "ptx"], ["1", "1", "1", "--stages", "16", "--tile-n", "256", "--cluster-m", "2"],
]

_VALID_EXAMPLE = "examples/ws_stream_copy.mlir"
API_BAD = [  # (function, positional args, keyword args) as JSON; "@EXAMPLE" is the example's text
    ("compile", [None], {}), ("compile", [42], {}), ("compile", [b""], {}), ("compile", [b"\x7fTi"], {}),
    ("compile", [b"\xff\xfe garbage"], {}), ("compile", ["func.func @k() {"], {}), ("compile", [b"\x7fTileIR\x00"], {}), ("compile", ["/nonexistent/x.mlir"], {}),
    ("compile", ["@EXAMPLE"], {"arch": "sm_80"}), ("compile", ["@EXAMPLE"], {"arch": ""}),
    ("compile", ["@EXAMPLE"], {"arch": 90}), ("compile", ["@EXAMPLE"], {"ptx_version": -1}),
    ("compile", ["@EXAMPLE"], {"ptx_version": "8.0"}), ("compile", ["@EXAMPLE"], {"schedule": "bogus"}),
    ("compile", ["@EXAMPLE"], {"extra_pipeline": "no-such-pass"}),
    ("compile", ["@EXAMPLE"], {"extra_pipeline": "dce{bogus=1}"}), ("compile", ["@EXAMPLE"], {"debug_timeout": -5}),
    ("compile", ["@EXAMPLE"], {"debug_timeout": "x"}), ("compile", ["@EXAMPLE"], {"name": 3}),
    ("compile", ["@EXAMPLE"], {"cache": "yes"}), ("compile", ["@EXAMPLE"], {"timings": "no"}),
    ("gemm", [None, None], {}), ("gemm", [1, 2], {}), ("gemm", [None, None], {"schedule": "bogus"}),
    ("launch", [0, (1, 1, 1), None, ()], {}), ("launch", [0, "x", None, ()], {}),
    ("launch", [0, (1,), len, ()], {"schedule": "bogus"}), ("launch", [0, (1,), len, ()], {"tiles": "bogus"}),
    ("launch", [0, (0, 1, 1), len, ()], {}), ("launch", [0, (-1,), len, ()], {}),
]
"""Python-API calls with one bad argument each; ``len`` stands for a callable that is no cuTile kernel."""

API_REFUSALS = (ValueError, TypeError, OSError, ImportError, RuntimeError)
"""Exception types a bad argument may raise (besides tileorch's own); a subclass of these that is a
programming error (``KeyError`` is a ``LookupError``, not listed; ``NotImplementedError`` and
``RecursionError`` are ``RuntimeError``\\s and are excluded below) is a traceback."""


def run_api(spec: str) -> int:
    """Run one API call of ``spec`` (JSON ``[function, args, kwargs]``); print its outcome as the
    user would see it: a refusal as ``api: refused: TYPE: message`` (exit 1), success as ``api:
    accepted`` (exit 0), any other exception as a traceback (by :func:`run_child`)."""
    func, args, kwargs = json.loads(spec)
    args = [(REPO / _VALID_EXAMPLE).read_text() if a == "@EXAMPLE" else
            (bytes(a[4:], "latin-1") if isinstance(a, str) and a.startswith("@BC:") else a) for a in args]
    args = [len if a == "@LEN" else (tuple(a) if isinstance(a, list) else a) for a in args]
    import tileorch

    call = {"compile": lambda: tileorch.compile(*args, **kwargs),
            "compile-text": lambda: tileorch.compile(*args, ptxas=False, cache=False, **kwargs),
            "gemm": lambda: tileorch.gemm(*args, **kwargs),
            "launch": lambda: tileorch.cutile.launch(*args, **kwargs)}[func]
    try:
        call()
    except API_REFUSALS as exc:
        if isinstance(exc, (NotImplementedError, RecursionError)) or not str(exc).strip():
            raise
        print(f"api: refused: {type(exc).__name__}: {exc}")
        return 1
    except Exception as exc:
        if not type(exc).__module__.startswith("tileorch") or not str(exc).strip():
            raise
        print(f"api: refused: {type(exc).__name__}: {exc}")
        return 1
    print("api: accepted")
    return 0


def _api_spec(func: str, args: list, kwargs: dict) -> str:
    return json.dumps([func, ["@LEN" if a is len else (list(a) if isinstance(a, tuple) else
                                                        (("@BC:" + a.decode("latin-1")) if isinstance(a, bytes) else a))
                              for a in args], kwargs])


# --------------------------------------------------------------------------- running one input


def _run(mode: str, path: str) -> int:
    """One input of ``mode`` at ``path``, as the user's command would run it."""
    if mode.startswith("opt:"):
        from tileorch.tools.opt import main as opt_main

        return opt_main([path, "-p", mode[4:]]) or 0
    if mode == "compile":
        from tileorch.cli.main import main as cli_main

        return cli_main(["compile", path, "-o", path + ".ptx", "--no-cache", "--no-ptxas"]) or 0
    if mode == "bc-front":
        return fuzz_bytecode.run_front(path)
    if mode == "bc-opt":
        from tileorch.tools.opt import main as opt_main

        return opt_main([path, "--print-op-generic"]) or 0
    if mode == "gemm":
        from tileorch.cli.main import main as cli_main

        return cli_main(["gemm", *json.loads(Path(path).read_text())]) or 0
    if mode == "api":
        return run_api(Path(path).read_text())
    raise ValueError(f"unknown mode {mode!r}")


_FRESH = "import sys\nfrom tileorch.tools.fuzz_inputs import _run\nsys.exit(_run(sys.argv[1], sys.argv[2]))\n"


def classify(mode: str, code: int, sig: int | None, output: str, timed_out: bool) -> str:
    """The class (:data:`CLASSES`) of one outcome."""
    if timed_out:
        return "timeout"
    if sig is not None:
        return "crash"
    if "Traceback (most recent call last)" in output or "internal error" in output:
        return "traceback"
    if code == 0:
        return "accepted"
    if mode == "api":
        return "located" if code == 1 and "api: refused: " in output else "crash"
    errors = [l for l in output.splitlines() if " error: " in l or l.startswith("error:")]
    if code == 2 and mode == "gemm" and any(USAGE_ERROR.match(l) for l in output.splitlines()):
        return "located"  # argparse: "tileorch gemm: error: argument --stages: ..."
    if code != 1:
        return "crash"
    if not errors:
        return "unlocated"
    located = (LOCATED, fuzz_bytecode.BYTECODE_LOCATED) if mode.startswith("bc-") else (LOCATED,)
    if mode == "gemm":  # no input file: an error line that names the argument
        located += (re.compile(r"^(tileorch[\w -]*: )?error: "),)
    if any(not any(p.match(l) for p in located) or "<unknown>" in l for l in errors):
        return "unlocated"
    return "located"


class Runner(fuzz.Runner):
    """:class:`tileorch.tools.fuzz.Runner` over every door (text, bytes or a JSON argument list)."""

    SUFFIX = ".input"

    def submit(self, key, mode: str, data, timeout: int | None = None) -> None:
        self.SUFFIX = suffix_of(mode)
        super().submit(key, mode, data, timeout)

    def _write(self, path: Path, data) -> None:
        path.write_bytes(data) if isinstance(data, bytes) else path.write_text(data)

    def _child(self, mode: str, path: str, out_fd: int, limit: int) -> None:
        run_child(lambda: _run(mode, path), out_fd, limit, 6144)

    def _fresh(self, mode: str, path: Path, limit: int) -> tuple[int, str, bool]:
        return run_fresh(_FRESH, mode, path, limit)

    def _outcome(self, mode: str, path: Path, code: int, sig: int | None, output: str, timed_out: bool,
                 seconds: float) -> Outcome:
        return Outcome(classify(mode, code, sig, output, timed_out), code, output, seconds)


# --------------------------------------------------------------------------- campaign


def door_of(mode: str) -> str:
    return "opt" if mode.startswith("opt:") else mode


def suffix_of(mode: str) -> str:
    """The file suffix of an input of ``mode``."""
    return ".tileirbc" if mode.startswith("bc-") else (".json" if mode in ("gemm", "api") else ".mlir")


def _warm_up() -> None:
    """Import what the children run, so that each forked child starts warm."""
    import tileorch.cli.main  # noqa: F401
    import tileorch.driver  # noqa: F401
    import tileorch.tools.opt  # noqa: F401

    fuzz._warm_up()


def fuzz_inputs(*, seed: int, cases: int, jobs: int = 1, timeout: int = 60, doors: tuple[str, ...] | None = None,
                out_dir: Path | None = None, log=print, accepted_log=None) -> tuple[Counter, list[tuple[str, str, str, str]]]:
    """Run ``cases`` inputs (fixed for ``seed``; ``accepted_log(name, mode, data)`` sees each
    accepted one); returns the outcome table ``Counter[(door,
    class)]`` and the findings ``(class, input name, mode, output)``."""
    rng = random.Random(seed)
    text_seeds = load_text_seeds()
    bc_seeds = fuzz_bytecode.load_seeds(writer=False)
    text_mut = SemanticMutator(rng)
    bc_mut = fuzz_bytecode.Mutator(rng, bc_seeds)
    table: Counter = Counter()
    findings: list[tuple[str, str, str, str]] = []
    # the argument doors are fixed lists: each case is walked in turn, the mutated ones drawn
    fixed = [("gemm", f"gemm {' '.join(a)}", json.dumps(a)) for a in GEMM_BAD]
    fixed += [("api", f"api {f}{tuple(a)!r:.60} {k}", _api_spec(f, a, k)) for f, a, k in API_BAD]
    wanted = doors or ("compile", "opt", "bc-front", "bc-opt", "gemm", "api")
    kinds = [(k, w) for k, w, ds in (("text", 6, ("compile", "opt")), ("bytecode", 3, ("bc-front", "bc-opt")),
                                     ("args", 1, ("gemm", "api"))) if set(ds) & set(wanted)]
    fixed = [f for f in fixed if f[0] in wanted]
    _warm_up()

    def make():
        kind = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        if kind == "text":
            s = rng.choices(text_seeds, [x.weight for x in text_seeds])[0]
            mode = rng.choice([m for m in s.modes if door_of(m) in wanted] or s.modes)
            text, applied = text_mut.mutate(s.text)
            item = (f"{s.name} [{', '.join(applied)}]", mode, text) if applied else None
        elif kind == "bytecode":
            s = rng.choice(bc_seeds)
            mode = rng.choice([m for m in ("bc-front", "bc-front", "bc-opt") if m in wanted])
            data, applied = bc_mut.mutate(s, rng.choice([1, 1, 2]))
            item = (f"{s.name} [{', '.join(applied)}]", mode, data) if applied else None
        else:
            door, name, spec = fixed[make.fixed % len(fixed)]
            make.fixed += 1
            item = (name, door, spec)
        if item is None or door_of(item[1]) not in wanted:
            return None
        return item

    make.fixed = 0

    def handle(name: str, mode: str, data, outcome: Outcome) -> None:
        table[(door_of(mode), outcome.kind)] += 1
        if outcome.seconds > timeout / 3:  # a stall in the fork (re-run in a fresh process) or a slow compile
            log(f"slow: {name} ({mode}): {outcome.seconds:.0f} s, {outcome.kind}")
        if outcome.kind == "accepted" and accepted_log is not None:
            accepted_log(name, mode, data)
        if outcome.kind in FINDINGS or (outcome.kind == "accepted" and mode in ("gemm", "api")):
            findings.append((outcome.kind, name, mode, outcome.output))
            log(f"FINDING {outcome.kind}: {name} ({mode})\n    "
                + "\n    ".join(outcome.output.strip().splitlines()[-6:]))
            if out_dir is not None:
                out_dir.mkdir(parents=True, exist_ok=True)
                idx = len(findings)
                p = out_dir / f"finding{idx:04d}.{door_of(mode)}{suffix_of(mode)}"
                p.write_bytes(data) if isinstance(data, bytes) else p.write_text(data)
                (out_dir / f"finding{idx:04d}.out").write_text(f"# {outcome.kind}: {name} ({mode})\n{outcome.output}")

    report = fuzz.Report()
    with tempfile.TemporaryDirectory(prefix="tileorch-fuzz-inputs-") as tmp:
        drive(Runner(Path(tmp), jobs, timeout), report, inputs=cases, seconds=None, start=time.monotonic(),
              next_log=time.monotonic() + 60, make=make, handle=handle, log=lambda *_: None)
    return table, findings


def format_table(table: Counter) -> str:
    """The outcome classes per door, as a Markdown table."""
    doors = sorted({d for d, _ in table})
    rows = ["| door | " + " | ".join(CLASSES) + " |", "|---" * (len(CLASSES) + 1) + "|"]
    for d in doors + ["all"]:
        counts = [sum(n for (dd, c), n in table.items() if c == cls and d in (dd, "all")) for cls in CLASSES]
        rows.append(f"| {d} | " + " | ".join(str(n) for n in counts) + " |")
    return "\n".join(rows)


def _accepted_logger(out_dir: Path | None):
    """Prints each accepted input's name (and saves it under ``out_dir`` as ``acceptedNNNN.*``)."""
    count = [0]

    def log(name: str, mode: str, data) -> None:
        count[0] += 1
        print(f"accepted {count[0]:04d}: {name} ({mode})")
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            p = out_dir / f"accepted{count[0]:04d}.{door_of(mode)}{suffix_of(mode)}"
            p.write_bytes(data) if isinstance(data, bytes) else p.write_text(data)
    return log


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fuzz_inputs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=60, help="seconds per input")
    parser.add_argument("--doors", default="", help="comma-separated subset of compile,opt,bc-front,bc-opt,gemm,api")
    parser.add_argument("--out", type=Path, default=None, help="save each finding's input and output here")
    parser.add_argument("--show-accepted", action="store_true", help="print the name of each accepted input")
    parser.add_argument("--replay", metavar="MODE:PATH", help="run one saved input (MODE as in the findings)")
    args = parser.parse_args(argv)
    if args.replay:
        mode, _, path = args.replay.rpartition(":")
        return _run(mode, path)
    start = time.monotonic()
    table, findings = fuzz_inputs(seed=args.seed, cases=args.cases, jobs=args.jobs, timeout=args.timeout,
                                  doors=tuple(args.doors.split(",")) if args.doors else None, out_dir=args.out,
                                  accepted_log=_accepted_logger(args.out) if args.show_accepted else None)
    print(f"fuzz_inputs: seed {args.seed}, {sum(table.values())} cases in {time.monotonic() - start:.0f} s")
    print(format_table(table))
    print(f"fuzz_inputs: {len(findings)} finding(s)")
    for kind, name, mode, output in findings:
        last = output.strip().splitlines()[-1] if output.strip() else ""
        print(f"  {kind}: {name} ({mode}): {last[:160]}")
    return 1 if findings else 0
