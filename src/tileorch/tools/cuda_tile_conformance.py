"""Run the open CUDA Tile IR repository's dialect tests against tileorch's ``cuda_tile`` dialect.

``python -m tileorch.tools.cuda_tile_conformance [REPO]`` where REPO is a checkout or a bare
git mirror of NVIDIA/cuda-tile (default: ``$CUDA_TILE_REPO``).  For each file under
``test/Dialect/CudaTile``:

* round-trip files (RUN lines without ``-verify-diagnostics`` and without passes): the file is
  parsed, printed, re-parsed and printed again, in the custom and in the generic form, and
  the output must satisfy the file's CHECK lines (``filecheck``);
* invalid files (``-verify-diagnostics``): each ``// -----`` case with an
  ``expected-error`` must be rejected by tileorch with an error on the expected line.

Files whose RUN lines run transformation passes (canonicalize, ...) are reported as skipped.
Then every file under ``test/`` whose RUN lines write bytecode and read it back
(``%round_trip_test``, ``-mlir-to-cudatilebc`` then ``-cudatilebc-to-mlir``) goes through
tileorch's bytecode writer and reader (:func:`bytecode_roundtrip`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path

TEST_DIR = "test/Dialect/CudaTile"


@dataclass
class Report:
    roundtrip_pass: list[str] = field(default_factory=list)
    roundtrip_fail: dict[str, str] = field(default_factory=dict)
    invalid_cases: int = 0
    invalid_rejected: int = 0
    invalid_misses: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def summary(self) -> str:
        n_rt = len(self.roundtrip_pass) + len(self.roundtrip_fail)
        pct = 100.0 * self.invalid_rejected / max(1, self.invalid_cases)
        return (f"round-trip files: {len(self.roundtrip_pass)}/{n_rt} pass; invalid cases rejected at the expected "
                f"line: {self.invalid_rejected}/{self.invalid_cases} ({pct:.1f}%); skipped files: "
                f"{len(self.skipped)}")


def read_tests(repo: str) -> dict[str, str]:
    """``{relative path: text}`` of the dialect tests in a checkout or a bare git mirror."""
    p = Path(repo)
    if (p / TEST_DIR).is_dir():
        return {str(f.relative_to(p)): f.read_text() for f in sorted((p / TEST_DIR).glob("*.mlir"))}
    names = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD", TEST_DIR],
                           capture_output=True, text=True, check=True).stdout.split()
    return {n: subprocess.run(["git", "-C", repo, "show", f"HEAD:{n}"], capture_output=True, text=True,
                              check=True).stdout for n in names if n.endswith(".mlir")}


def _ctx(allow_unregistered: bool = False):
    from tileorch.registry import make_context

    return make_context(allow_unregistered=allow_unregistered)


def _print(module, generic: bool = False) -> str:
    from xdsl.printer import Printer

    s = StringIO()
    Printer(stream=s, print_generic_format=generic).print_op(module)
    return s.getvalue() + "\n"


def _parse(text: str, name: str):
    from tileorch.diagnostics import parse_module, verify_located

    m = parse_module(_ctx(), text, name)
    errs = verify_located(m)
    if errs:
        raise ValueError(errs[0])
    return m


def _filecheck(output: str, check_file: str, prefix: str | None) -> str | None:
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(check_file)
        path = f.name
    try:
        cmd = [sys.executable, "-m", "filecheck", path]
        if prefix:
            cmd += ["--check-prefix", prefix]
        r = subprocess.run(cmd, input=output, capture_output=True, text=True)
        return None if r.returncode == 0 else (r.stdout + r.stderr)[-1500:]
    finally:
        os.unlink(path)


def split_chunks(text: str) -> list[tuple[int, str]]:
    """``(line offset, text)`` of each ``// -----`` chunk."""
    out, start, lines = [], 0, text.split("\n")
    for i, line in enumerate(lines + ["// -----"]):
        if line.strip() == "// -----":
            out.append((start, "\n".join(lines[start:i])))
            start = i + 1
    return out


_EXPECT = re.compile(r"expected-error\s*(@(?P<rel>[+-]\d+|above|below))?\s*\{\{")


def expected_error_lines(chunk: str) -> list[int]:
    lines = []
    for i, line in enumerate(chunk.splitlines(), start=1):
        m = _EXPECT.search(line)
        if not m:
            continue
        rel = m.group("rel")
        if rel is None:
            lines.append(i)
        elif rel in ("above", "below"):
            lines.append(i - 1 if rel == "above" else i + 1)
        else:
            lines.append(i + int(rel))
    return lines


def check_invalid_chunk(chunk: str, name: str) -> tuple[bool, str]:
    """Is the chunk rejected, with an error on one of its expected lines?"""
    from tileorch.diagnostics import format_exception, parse_module, verify_located

    expected = expected_error_lines(chunk)
    try:
        m = parse_module(_ctx(True), chunk, name)
        errors = verify_located(m)
    except Exception as exc:  # noqa: BLE001 - any diagnostic counts; a crash is reported below
        from xdsl.utils.exceptions import DiagnosticException

        if not isinstance(exc, DiagnosticException) and type(exc).__name__ != "ParseError":
            return False, f"crash: {type(exc).__name__}: {exc}"
        errors = format_exception(exc)
    if not errors:
        return False, "accepted"
    got = set()
    for e in errors:
        mm = re.match(r".*?:(\d+):(\d+): error", e)
        if mm:
            got.add(int(mm.group(1)))
    if got & set(expected):
        return True, ""
    return False, f"error on line(s) {sorted(got)}, expected {expected}: {errors[0][:200]}"


def run(repo: str) -> Report:
    rep = Report()
    for path, text in read_tests(repo).items():
        runs = [l.split("RUN:", 1)[1].strip() for l in text.splitlines()
                if "RUN:" in l and "%round_trip_test" not in l]
        if not runs:
            continue
        name = path.rsplit("/", 1)[-1]
        joined = " ".join(runs)
        if "-verify-diagnostics" in joined:
            if re.search(r"--?(canonicalize|cse|pass|cuda-tile-|synthesize|fuse|loop-split|test-)", joined):
                rep.skipped.append(name)
                continue
            from tileorch.dialects.cuda_tile import ops as ct_ops

            ct_ops.STRICT_HINTS = "-Werr-hints" in joined
            for offset, chunk in split_chunks(text):
                if not expected_error_lines(chunk):
                    continue
                rep.invalid_cases += 1
                ok, why = check_invalid_chunk("\n" * offset + chunk, name)
                if ok:
                    rep.invalid_rejected += 1
                else:
                    rep.invalid_misses.append(f"{name}:{offset + 1}: {why}")
            ct_ops.STRICT_HINTS = False
            continue
        if re.search(r"--?(canonicalize|cse|pass-pipeline|cuda-tile-[a-z-]+|synthesize|fuse|loop-split|test-|"
                     r"mlir-print-debuginfo|allow-unregistered)", joined):
            rep.skipped.append(name)
            continue
        prefixes = set(re.findall(r"--?check-prefix(?:es)?[= ]([\w,-]+)", joined)) or {None}
        chunks = [c for _, c in split_chunks(text)] if "split-input-file" in joined else [text]
        try:
            outs, backs, failure = [], [], None
            for chunk in chunks:
                m = _parse(chunk, name)
                out = _print(m)
                again = _print(_parse(out, name + ".printed"))
                generic = _print(_parse(_print(m, generic=True), name + ".generic"))
                back = _print(_parse(generic, name + ".generic"))
                if again != out:
                    failure = failure or "custom form is not stable under a second round trip"
                outs.append(again)
                backs.append(back)
            for pre in prefixes:
                for o in ("// -----\n".join(outs), "// -----\n".join(backs)):
                    failure = failure or _filecheck(o, text, pre)
        except Exception as exc:  # noqa: BLE001
            failure = f"{type(exc).__name__}: {str(exc)[:400]}"
        if failure:
            rep.roundtrip_fail[name] = failure
        else:
            rep.roundtrip_pass.append(name)
    return rep


def _is_bytecode_roundtrip(text: str) -> bool:
    """RUN lines that write bytecode and read it back (``%round_trip_test``, or a successful
    ``-mlir-to-cudatilebc`` followed by ``-cudatilebc-to-mlir``)."""
    runs = [l.split("RUN:", 1)[1].strip() for l in text.splitlines() if "RUN:" in l]
    if any("%round_trip_test" in r for r in runs):
        return True
    writes = [r for r in runs if "-mlir-to-cudatilebc" in r and not r.startswith("not ")
              and "-verify-diagnostics" not in r]
    return bool(writes) and any("-cudatilebc-to-mlir" in r for r in runs)


def _normalized(module) -> str:
    """The printed module without SSA names and with one module name (the bytecode keeps neither)."""
    for op in module.walk():
        for r in op.results:
            r.name_hint = None
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    a.name_hint = None
    return re.sub(r"cuda_tile\.module @[\w$.]+", "cuda_tile.module @M", _print(module))


def bytecode_roundtrip(repo: str) -> tuple[list[str], dict[str, str]]:
    """The bytecode round-trip files of ``test/`` (see :func:`_is_bytecode_roundtrip`): each
    ``cuda_tile.module`` is written as bytecode (13.3, or the newer version the RUN line names)
    and read back, and must verify and print as before.  Returns (passed, {failed: why})."""
    from xdsl.dialects.builtin import ModuleOp

    from tileorch.dialects.cuda_tile import ops as ct
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.frontend.cuda_tile_bytecode_writer import write_bytecode

    p = Path(repo)
    if (p / "test").is_dir():
        files = {str(f.relative_to(p)): f.read_text() for f in sorted((p / "test").rglob("*.mlir"))}
    else:
        names = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD", "test"],
                               capture_output=True, text=True, check=True).stdout.split()
        files = {n: subprocess.run(["git", "-C", repo, "show", f"HEAD:{n}"], capture_output=True, text=True,
                                   check=True).stdout for n in names if n.endswith(".mlir")}
    passed, failed = [], {}
    for path, text in files.items():
        if not _is_bytecode_roundtrip(text):
            continue
        m = re.search(r"-bytecode-version=(\d+)\.(\d+)", text)
        version = max((13, 3), (int(m.group(1)), int(m.group(2)))) if m else (13, 3)
        try:
            for mod in [o for o in _parse(text, path).walk() if isinstance(o, ct.ModuleOp)]:
                single = ModuleOp([mod.clone()])
                back = read_bytecode(write_bytecode(single, version), path + ".tileirbc")
                from tileorch.diagnostics import verify_located

                errors = verify_located(back)
                if errors:
                    raise ValueError(errors[0])
                if _normalized(back) != _normalized(single):
                    raise ValueError("the module read back differs from the one written")
            passed.append(path)
        except Exception as exc:  # noqa: BLE001 - reported per file
            from tileorch.diagnostics import format_exception

            failed[path] = format_exception(exc)[0][:300]
    return passed, failed


def main(argv: list[str] | None = None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    repo = args[0] if args else os.environ.get("CUDA_TILE_REPO", "")
    if not repo:
        print("usage: python -m tileorch.tools.cuda_tile_conformance REPO", file=sys.stderr)
        return 2
    rep = run(repo)
    for name, why in rep.roundtrip_fail.items():
        print(f"FAIL round-trip {name}: {why.splitlines()[0] if why else ''}")
    for miss in rep.invalid_misses:
        print(f"MISS {miss}")
    print(rep.summary())
    passed, failed = bytecode_roundtrip(repo)
    for name, why in failed.items():
        print(f"FAIL bytecode round-trip {name}: {why}")
    print(f"bytecode round-trip files (write + read back): {len(passed)}/{len(passed) + len(failed)} pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
