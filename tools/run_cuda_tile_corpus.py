#!/usr/bin/env python3
"""Run tileorch over NVIDIA/cuda-tile's test corpus (read-only; nothing of it is copied here).

    python tools/run_cuda_tile_corpus.py REPO [--jobs J] [--timeout S] [--json OUT.json] [--md OUT.md]

REPO is a checkout or a bare git mirror of NVIDIA/cuda-tile.  Every ``test/**/*.mlir`` file
(split at ``// -----`` when its RUN lines use ``-split-input-file``) and every bytecode file
(``*.tileirbc``, ``*.bc``) is written to a temporary directory and run in a forked child:
``tileorch-opt`` (parse and verify), then, for inputs that verify, ``tileorch compile``.  Each
input gets one class:

* ``ptx``: compiles to PTX;
* ``verifies``: parses and verifies; the compile stops at a located error;
* ``located-error``: rejected at ``FILE:LINE:COL: error:`` (or a located bytecode error); an
  unknown op must be named in the message (else the class is ``bug:unnamed-op``);
* ``bug:<what>``: a traceback, an internal error, a signal, a hang, an unlocated error.

Inputs the corpus expects to be rejected (``expected-error`` in the chunk, under ``invalid/``,
or in a file whose every RUN line is ``not TOOL ...``, one of them ``not cuda-tile-opt``) are counted apart from valid ones, so that "valid but rejected" and "invalid but
accepted" show up too.  The summary lists the counts and every bug (path, chunk line, first
error line).  Exit status 1 when a bug was found.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tileorch.tools.fuzz import LOCATED, _warm_up, classify, run_child  # noqa: E402

BYTECODE_SUFFIXES = (".tileirbc", ".bc")
BYTECODE_LOCATED = re.compile(r"^[^\s:][^:]*: error: invalid CUDA Tile IR bytecode at offset \d+: ")
UNKNOWN_OP = re.compile(r"(not registered|unregistered|unknown op|unknown opcode|custom op)", re.I)
NAMED_OP = re.compile(r"'[A-Za-z_][\w.$]*'|Operation [A-Za-z_][\w.$]* is not registered")


@dataclass
class Input:
    """One corpus input: ``source`` path in the repository, ``line`` where its chunk starts."""

    source: str
    line: int
    data: bytes
    bytecode: bool
    expect_error: bool


@dataclass
class Result:
    source: str
    line: int
    expect_error: bool
    kind: str
    first_error: str = ""
    seconds: float = 0.0


def read_corpus(repo: str) -> dict[str, bytes]:
    """``{path: bytes}`` of every test input under ``test/`` in a checkout or a bare mirror."""
    want = lambda n: n.startswith("test/") and (n.endswith(".mlir") or n.endswith(BYTECODE_SUFFIXES))  # noqa: E731
    p = Path(repo)
    if (p / "test").is_dir():
        return {str(f.relative_to(p)): f.read_bytes() for f in sorted((p / "test").rglob("*"))
                if f.is_file() and want(str(f.relative_to(p)))}
    names = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD", "test"],
                           capture_output=True, text=True, check=True).stdout.split()
    return {n: subprocess.run(["git", "-C", repo, "show", f"HEAD:{n}"], capture_output=True, check=True).stdout
            for n in names if want(n)}


def split_inputs(path: str, data: bytes) -> list[Input]:
    if path.endswith(BYTECODE_SUFFIXES):
        return [Input(path, 0, data, True, "/invalid/" in path)]
    text = data.decode(errors="replace")
    run_lines = " ".join(l for l in text.splitlines() if "RUN:" in l)
    chunks: list[tuple[int, str]] = []
    if "split-input-file" in run_lines:
        start, buf = 1, []
        for n, line in enumerate(text.splitlines(keepends=True), 1):
            if line.strip() == "// -----":
                chunks.append((start, "".join(buf)))
                start, buf = n + 1, ["\n"] * n  # keep line numbers: pad with the lines before
                continue
            buf.append(line)
        chunks.append((start, "".join(buf)))
    else:
        chunks = [(1, text)]
    # every RUN line expects its tool to fail and one is the parser/verifier (`RUN: not cuda-tile-opt
    # ...`): each chunk is invalid (a failing `cuda-tile-translate -mlir-to-cudatilebc` alone expects
    # a bytecode-writer error for an old version, which tileorch-opt does not run)
    runs = [l.split("RUN:", 1)[1].strip() for l in text.splitlines() if "RUN:" in l]
    expects_failure = bool(runs) and all(r.startswith("not ") for r in runs) and \
        any(r.startswith("not cuda-tile-opt") for r in runs)
    return [Input(path, line, chunk.encode(), False,
                  "expected-error" in chunk or "/invalid/" in path or expects_failure)
            for line, chunk in chunks if chunk.strip()]


def _command(mode: str, path: str) -> int:
    if mode == "opt":
        from tileorch.tools.opt import main as opt_main

        return opt_main([path])
    from tileorch.cli.main import main as cli_main

    return cli_main(["compile", path, "-o", path + ".ptx", "--no-cache"])


def run_one(mode: str, path: Path, timeout: int) -> tuple[str, str, float]:
    """(class from :func:`tileorch.tools.fuzz.classify`, output, seconds) of one forked run."""
    out_path = path.with_suffix(path.suffix + f".{mode}.out")
    fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        run_child(lambda: _command(mode, str(path)), fd, timeout, memory_mb=8192)
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    seconds = time.monotonic() - start
    output = out_path.read_text(errors="replace")
    out_path.unlink()
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    kind = classify("opt" if mode == "opt" else "compile", code, None if sig == signal.SIGALRM else sig, output,
                    sig == signal.SIGALRM, also_located=BYTECODE_LOCATED, also_kind="diagnostic")
    return kind, output, seconds


def _first_error(output: str) -> str:
    for line in output.splitlines():
        if " error: " in line or line.startswith("Traceback") or "Error" in line:
            return line.strip()[:300]
    return output.strip().splitlines()[-1][:300] if output.strip() else ""


def evaluate(inp: Input, workdir: Path, timeout: int) -> Result:
    """Run one input; error lines name the corpus path (chunks keep their file's line numbers)."""
    name = re.sub(r"[^\w.]", "_", inp.source) + f"_L{inp.line}" + (
        ".tileirbc" if inp.bytecode else ".mlir")
    path = workdir / name
    path.write_bytes(inp.data)
    try:
        result = _evaluate(inp, path, timeout)
        result.first_error = result.first_error.replace(str(path), inp.source)
        return result
    finally:
        for p in (path, Path(str(path) + ".ptx")):
            try:
                p.unlink()
            except OSError:
                pass


def _evaluate(inp: Input, path: Path, timeout: int) -> Result:
    kind, output, secs = run_one("opt", path, timeout)
    if kind.startswith("finding:"):
        return Result(inp.source, inp.line, inp.expect_error, "bug:" + kind.split(":", 1)[1],
                      _first_error(output), secs)
    if kind == "diagnostic":
        err = _first_error(output)
        errors = [l for l in output.splitlines() if " error: " in l]
        if any(UNKNOWN_OP.search(l) and not NAMED_OP.search(l) for l in errors):
            return Result(inp.source, inp.line, inp.expect_error, "bug:unnamed-op", err, secs)
        return Result(inp.source, inp.line, inp.expect_error, "located-error", err, secs)
    kind2, output2, secs2 = run_one("compile", path, timeout)
    if kind2.startswith("finding:"):
        return Result(inp.source, inp.line, inp.expect_error, "bug:compile-" + kind2.split(":", 1)[1],
                      _first_error(output2), secs + secs2)
    return Result(inp.source, inp.line, inp.expect_error, "ptx" if kind2 == "ok" else "verifies",
                  "" if kind2 == "ok" else _first_error(output2), secs + secs2)


def summarize(results: list[Result], repo_rev: str) -> tuple[dict, str]:
    counts: dict[str, dict[str, int]] = {}
    for r in results:
        side = "expected-invalid" if r.expect_error else "valid"
        cls = r.kind.split(":")[0] if r.kind.startswith("bug:") else r.kind
        counts.setdefault(side, {}).setdefault(cls, 0)
        counts[side][cls] += 1
    bugs = [r for r in results if r.kind.startswith("bug")]
    summary = {"corpus": "NVIDIA/cuda-tile test/ " + repo_rev, "inputs": len(results), "counts": counts,
               "bugs": [asdict(b) for b in bugs],
               "valid_rejected": [asdict(r) for r in results if not r.expect_error and r.kind == "located-error"],
               "invalid_accepted": [asdict(r) for r in results if r.expect_error and r.kind in ("ptx", "verifies")]}
    md = [f"# tileorch over NVIDIA/cuda-tile's test corpus ({repo_rev})", "",
          "Produced by `python tools/run_cuda_tile_corpus.py REPO`; the corpus is read, never copied.", "",
          f"{len(results)} inputs (files, split at `// -----` where the RUN line splits them).", "",
          "| inputs | ptx | verifies | located-error | bug |", "|---|---|---|---|---|"]
    for side in ("valid", "expected-invalid"):
        c = counts.get(side, {})
        md.append(f"| {side} | {c.get('ptx', 0)} | {c.get('verifies', 0)} | {c.get('located-error', 0)} | "
                  f"{c.get('bug', 0)} |")
    md += ["", f"## Bugs ({len(bugs)})", ""]
    md += [f"- `{b.source}:{b.line}` {b.kind}: {b.first_error}" for b in bugs] or ["none"]
    md += ["", f"## Valid inputs rejected ({len(summary['valid_rejected'])})", ""]
    md += [f"- `{r['source']}:{r['line']}`: {r['first_error']}" for r in summary["valid_rejected"]] or ["none"]
    md += ["", f"## Expected-invalid inputs accepted ({len(summary['invalid_accepted'])})", ""]
    md += [f"- `{r['source']}:{r['line']}` ({r['kind']})" for r in summary["invalid_accepted"]] or ["none"]
    return summary, "\n".join(md) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", help="checkout or bare git mirror of NVIDIA/cuda-tile")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per run")
    ap.add_argument("--only", help="run only sources containing this substring")
    ap.add_argument("--json", help="write the summary as JSON here")
    ap.add_argument("--md", help="write the summary as Markdown here")
    ns = ap.parse_args(argv)
    corpus = read_corpus(ns.repo)
    rev = subprocess.run(["git", "-C", ns.repo, "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip() or "checkout"
    inputs = [i for path, data in corpus.items() for i in split_inputs(path, data)
              if not ns.only or ns.only in i.source]
    _warm_up()
    results = []
    with tempfile.TemporaryDirectory(prefix="cuda-tile-corpus-") as tmp:
        for n, inp in enumerate(inputs, 1):
            r = evaluate(inp, Path(tmp), ns.timeout)
            results.append(r)
            if r.kind.startswith("bug"):
                print(f"[{n}/{len(inputs)}] {r.source}:{r.line}: {r.kind}: {r.first_error}", flush=True)
    summary, md = summarize(results, rev)
    if ns.json:
        Path(ns.json).write_text(json.dumps(summary, indent=1) + "\n")
    if ns.md:
        Path(ns.md).write_text(md)
    print(md)
    return 1 if summary["bugs"] else 0


if __name__ == "__main__":
    sys.exit(main())
