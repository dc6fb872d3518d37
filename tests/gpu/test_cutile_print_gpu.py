"""``ct.printf`` / ``ct.print`` on the GPU: each program of ``tileorch.testing.print_programs`` runs
in a child process (launched by ``tileorch.cutile.launch``); its standard output (the device's
printf, flushed at the synchronize) must be the text computed in Python from the same inputs
(``tileorch.testing.print_expected``: C printf rules, nested lists), one print per tile block, in
any order of blocks.  Where cuTile can launch the program itself (tileiras installed), tileiras's
output of the same program must be the same text."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

from tileorch.testing.print_expected import printf_text  # noqa: E402
from tileorch.testing.print_programs import PROGRAMS, arguments  # noqa: E402

CHILD = textwrap.dedent("""
    import ctypes, sys, torch
    from tileorch.testing.print_programs import PROGRAMS, arguments
    name, launcher = sys.argv[1:]
    kernel, spec, grid = PROGRAMS[name]
    args = arguments(spec, "cuda")
    if launcher == "tileorch":
        import tileorch.cutile
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    else:
        import cuda.tile as ct
        try:
            ct.launch(torch.cuda.current_stream(), grid, kernel, tuple(args))  # (cuTile takes a tuple only)
        except Exception as exc:  # no tileiras here: nothing to compare with
            print("NO-CUTILE:", type(exc).__name__, exc, file=sys.stderr, flush=True)
            raise SystemExit(5)
    torch.cuda.synchronize()
    ctypes.CDLL(None).fflush(None)
""")


def _np(t) -> np.ndarray:
    return t.float().numpy().astype(np.float64) if t.dtype in (torch.float16, torch.bfloat16) else t.numpy()


def expected(name: str) -> list[str]:
    """Every line the program prints (sorted: blocks print in any order)."""
    kernel, spec, grid = PROGRAMS[name]
    args = arguments(spec, "cpu")
    out = []
    for b in range(grid[0]):
        if name == "block_id":
            out.append(printf_text("block %d of %d\n", np.int32(b), np.int32(grid[0])))
        elif name == "int_tile":
            out.append(printf_text("ints %d end\n", np.arange(spec[1], dtype=np.int32) + b * 100))
        elif name.startswith("float_"):
            n = spec[1]
            t = _np(args[0])[b * n:(b + 1) * n]
            out.append(printf_text("floats %8.3f|%+.2e|\n", t, t))
        elif name == "nd":
            n = spec[1]
            out.append(printf_text("2d %3d 3d %x\n", np.arange(n * 4, dtype=np.int32).reshape(4, n),
                                   np.arange(16, dtype=np.int32).reshape(2, 2, 4)))
        elif name == "long_row":
            n = spec[1]
            out.append(printf_text("row %.1f\n", _np(args[0])[2 * b:2 * b + 2, :n]))
        elif name == "types":
            t = np.arange(spec[1], dtype=np.int32) - 2
            out.append(printf_text("%d;%d;%d;%lld;%lf\n", t > 0, t.astype(np.int8), t.astype(np.int16),
                                   t.astype(np.int64), t.astype(np.float64)))
        elif name == "unsigned":
            t = np.arange(spec[1], dtype=np.int32) - 2
            out.append(printf_text("%u %u %u %llu\n", t.astype(np.uint8), t.astype(np.uint16), t.astype(np.uint32),
                                   t.astype(np.uint64)))
        elif name == "text_only":
            out.append("hello 100%\n" + printf_text("octal %#o %#x\n", np.int32(b + 8), np.int32(b + 255)))
        elif name == "if_block":
            if b == 1:
                out.append(printf_text("only block 1: %.2f\n", _np(args[0])[8:16]))
        elif name == "copy_rows":
            out.append(printf_text("copied row %d\n", np.int32(b)))
        elif name == "big_nd":
            out.append(printf_text("nd %d\n", np.arange(512, dtype=np.int32).reshape(2, 4, 8, 8) - b))
        elif name == "in_loop":
            n = spec[1]
            x = _np(args[0])
            out.append("".join(printf_text("k=%d t=%.3g\n", np.int32(k), x[(b * 3 + k) * n:(b * 3 + k + 1) * n])
                               for k in range(3)))
        elif name == "fstring":
            n = spec[1]
            out.append(printf_text("block=%d t=%.2f 100%%!\n", np.int32(b), _np(args[0])[b * n:(b + 1) * n]))
        else:
            raise KeyError(name)
    return sorted(line for text in out for line in text.splitlines())


def _run(name: str, launcher: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CHILD, name, launcher], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def outputs() -> dict:
    """Every program's child process, through tileorch and through cuTile (tileiras), eight at a
    time: (name, launcher) -> the finished process."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = [(name, launcher) for name in sorted(PROGRAMS) for launcher in ("tileorch", "cutile")]
    with ThreadPoolExecutor(max_workers=8) as pool:
        return dict(zip(jobs, pool.map(lambda job: _run(*job), jobs)))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_print_output_matches_python(name, outputs):
    want = expected(name)
    ours = outputs[(name, "tileorch")]
    assert ours.returncode == 0, ours.stdout + ours.stderr
    got = sorted(ours.stdout.splitlines())
    assert got == want, f"tileorch printed:\n{ours.stdout}\nexpected:\n" + "\n".join(want)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_tileiras_prints_the_same(name, outputs):
    """tileiras's output of the same program (cuTile's own ``ct.launch``) is the same text."""
    theirs = outputs[(name, "cutile")]
    if theirs.returncode == 5 and "NO-CUTILE" in theirs.stderr:
        pytest.skip(f"cuTile cannot launch here (tileiras): {theirs.stderr.strip()[-300:]}")
    assert theirs.returncode == 0, theirs.stdout + theirs.stderr
    assert sorted(theirs.stdout.splitlines()) == expected(name), f"tileiras printed:\n{theirs.stdout}"


def test_print_of_many_blocks_does_not_interleave():
    """64 blocks each print a 2x64 tile (six vprintf calls each, under the lock): every line
    whole."""
    child = CHILD.replace("kernel, spec, grid = PROGRAMS[name]",
                          "kernel, spec, grid = PROGRAMS[name]; spec = [((128, 64), 'float32'), 64]; grid = (64,)")
    proc = subprocess.run([sys.executable, "-c", child, "long_row", "tileorch"], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    x = _np(arguments([((128, 64), "float32")], "cpu")[0])
    want = sorted(printf_text("row %.1f\n", x[2 * b:2 * b + 2]).rstrip("\n") for b in range(64))
    assert sorted(proc.stdout.splitlines()) == want
