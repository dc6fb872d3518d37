"""cuTile's ``ct.printf`` / ``ct.print`` through the front door, without a GPU.

* the format rules (``nv_tileaa/print_format.py``): what is taken, what is refused and why;
* the calls a print is split into (``tileaa_to_simt/print_plan.py``), for tiles of any rank and
  size, print the text the Python reference computes (``tileorch.testing.print_expected``);
* each print program compiles to a whole-program cubin (ptxas resolves ``vprintf``), and runs
  in the CPU interpreter of the SIMT kernel (``simt_interp.py``: ``vprintf`` as CUDA's host reads
  its record) printing, block by block, the reference's text;
* a dot program with a print takes the SIMT path with a located warning."""

from __future__ import annotations

import numpy as np
import pytest

from tileorch.dialects.nv_tileaa.print_format import FormatError, check, parse
from tileorch.testing.print_expected import printf_text
from tileorch.transforms.tileaa_to_simt.print_plan import MAX_ARGS, Call, Loop, calls, plan

ct = pytest.importorskip("cuda.tile")

from tileorch.testing.print_programs import PROGRAMS, print_in_gemm  # noqa: E402


# ---------------------------------------------------------------------- the format
def test_format_pieces_keep_literal_text_and_conversions():
    pieces = parse("a=%-08.3f b=%#x 100%% c=%lld\n")
    assert [p if isinstance(p, str) else p.text for p in pieces] == ["a=", "%-08.3f", " b=", "%#x", " 100%% c=",
                                                                      "%lld", "\n"]
    convs = [p for p in pieces if not isinstance(p, str)]
    assert [c.is_float for c in convs] == [True, False, False]
    assert [c.wide for c in convs] == [False, False, True]


@pytest.mark.parametrize("fmt, message", [
    ("%s", "'%s' in the print format is not supported: tile elements print as numbers"),
    ("%c", "'%c' in the print format is not supported"),
    ("%p", "'%p' in the print format is not supported"),
    ("%n", "'%n' in the print format is not supported"),
    ("%*d", "'%*d' in the print format: a '*' width or precision is not supported"),
    ("%.*f", "'%.*f' in the print format: a '*' width or precision is not supported"),
    ("%Lf", "the length 'L' is not supported"),
    ("%zd", "the length 'z' is not supported"),
    ("%jd", "the length 'j' is not supported"),
    ("%k", "'%k' in the print format is not a printf conversion"),
    ("x %", "unterminated conversion '%' at the end of the print format"),
])
def test_unsupported_conversions_are_refused(fmt, message):
    with pytest.raises(FormatError, match=message.replace("*", r"\*").replace(".", r"\.")):
        parse(fmt)


def test_conversions_match_the_arguments():
    from xdsl.dialects.builtin import f16, i1, i32, i64

    check("%d %u %hhx %f %lld", [i32, i1, i32, f16, i64])
    with pytest.raises(FormatError, match="has 2 conversions but 1 tile argument was given"):
        check("%d %d", [i32])
    with pytest.raises(FormatError, match="has 1 conversion but 2 tile arguments were given"):
        check("%d", [i32, i32])
    with pytest.raises(FormatError, match=r"'%f' \(argument 1\) is a float conversion, but the tile's elements "
                                          r"are i32"):
        check("%d %f", [i32, i32])
    with pytest.raises(FormatError, match=r"'%x' \(argument 0\) is an integer conversion, but the tile's elements "
                                          r"are f16"):
        check("%x", [f16])


def test_the_op_verifier_applies_the_rules():
    """nv_tileaa.print's verifier (the negative FileCheck tests cover the located messages)."""
    from xdsl.dialects.builtin import TensorType, f32
    from xdsl.ir import Block
    from xdsl.utils.exceptions import VerifyException

    from tileorch.dialects.nv_tileaa.tile_ops import PrintOp

    block = Block(arg_types=[TensorType(f32, [4])])
    op = PrintOp("x %d\n", [block.args[0]])
    block.add_op(op)
    with pytest.raises(VerifyException, match="integer conversion, but the tile's elements are f32"):
        op.verify()


# ---------------------------------------------------------------------- the calls
def _render(fmt: str, tiles: list[np.ndarray]) -> tuple[str, list]:
    """The text of ``plan``'s calls, each formatted as printf would (its elements looked up)."""
    steps = plan(parse(fmt), [t.shape for t in tiles])
    text = ""
    for f, elems in calls(steps):
        assert len(elems) <= MAX_ARGS
        text += printf_text(f, *[tiles[a].reshape(-1)[i] for a, i in elems])
    return text, steps


@pytest.mark.parametrize("shape", [(), (1,), (4,), (32,), (33,), (64,), (1024,), (4, 8), (8, 8), (2, 4, 64),
                                   (4, 4, 4), (2, 2, 2, 2, 4), (3, 40), (16, 2, 1), (1, 64, 1), (64, 1), (5, 7, 3)])
def test_calls_print_the_nested_list(shape):
    t = (np.arange(int(np.prod(shape))) * 7 % 23 - 11).astype(np.int32).reshape(shape)
    fmt = "x=%3d s=%u 100%% y=%.1f\n"
    s = np.uint8(200)
    f = np.linspace(-1, 1, 6).reshape(2, 3)
    got, steps = _render(fmt, [t, s, f])
    want = printf_text(fmt, t, s, f)
    assert got == want
    n = int(np.prod(shape))
    if n + 1 + 6 <= MAX_ARGS:
        assert len(steps) == 1 and isinstance(steps[0], Call), "a small print is one call"
    if n > MAX_ARGS:
        (loop,) = [s for s in steps if isinstance(s, Loop)]  # a large tile is printed by a loop, not unrolled
        assert loop.unit <= MAX_ARGS and loop.unit * loop.units == n
        if n & (n - 1) == 0:
            assert loop.unit == MAX_ARGS, "a power-of-two tile prints 32 elements per call"


def test_reference_follows_c_argument_rules():
    """The reference itself, against hand-written C results."""
    assert printf_text("%hhd %hx %d %lld %x %u %hhu\n", np.int32(300), np.int32(-1), np.int64(2 ** 32 + 5),
                       np.int32(-7), np.int8(-1), np.uint8(255), np.uint8(255)) == \
        "44 ffff 5 -7 ffffffff 4294967295 255\n"
    assert printf_text("[%5.2f|%+.1e|%g]", np.float16(1.5), np.float32(-0.25), 1e-5) == "[ 1.50|-2.5e-01|1e-05]"
    assert printf_text("%d", np.array([[True, False]])) == "[[1, 0]]"
    assert printf_text("%#o|%#5o|%#-5o|%#o|%#x", np.int32(8), np.int32(8), np.int32(8), np.int32(0), np.int32(255)) == \
        "010|  010|010  |0|0xff"


def test_a_print_of_text_only_is_one_call_without_arguments():
    steps = plan(parse("hello 100%%\n"), [])
    assert len(steps) == 1 and steps[0].fmt == "hello 100%%\n" and steps[0].elems == []


# ---------------------------------------------------------------------- whole programs
def _inputs(spec: list) -> list[np.ndarray]:
    """``print_programs.arguments``'s recipe in numpy (bf16 through ml_dtypes)."""
    out = []
    for s in spec:
        if isinstance(s, tuple):
            shape, dtype = s
            x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * 0.37 - 3.1
            if dtype == "bfloat16":
                import ml_dtypes

                out.append(x.astype(np.float32).astype(ml_dtypes.bfloat16))
            else:
                out.append(x.astype(dtype))
    return out


def _expected(name: str, arrays: list[np.ndarray]) -> list[str]:
    kernel, spec, grid = PROGRAMS[name]
    n = spec[-1] if not isinstance(spec[-1], tuple) else None
    x = arrays[0].astype(np.float64)
    t = np.arange(4, dtype=np.int32) - 2
    texts = {
        "block_id": lambda b: printf_text("block %d of %d\n", np.int32(b), np.int32(grid[0])),
        "int_tile": lambda b: printf_text("ints %d end\n", np.arange(n, dtype=np.int32) + b * 100),
        "float_f32": lambda b: printf_text("floats %8.3f|%+.2e|\n", x[b * n:(b + 1) * n], x[b * n:(b + 1) * n]),
        "nd": lambda b: printf_text("2d %3d 3d %x\n", np.arange(n * 4, dtype=np.int32).reshape(4, n),
                                    np.arange(16, dtype=np.int32).reshape(2, 2, 4)),
        "long_row": lambda b: printf_text("row %.1f\n", x[2 * b:2 * b + 2, :n]),
        "types": lambda b: printf_text("%d;%d;%d;%lld;%lf\n", t > 0, t.astype(np.int8), t.astype(np.int16),
                                       t.astype(np.int64), t.astype(np.float64)),
        "unsigned": lambda b: printf_text("%u %u %u %llu\n", t.astype(np.uint8), t.astype(np.uint16),
                                          t.astype(np.uint32), t.astype(np.uint64)),
        "text_only": lambda b: "hello 100%\n" + printf_text("octal %#o %#x\n", np.int32(b + 8), np.int32(b + 255)),
        "if_block": lambda b: printf_text("only block 1: %.2f\n", x[8:16]) if b == 1 else "",
        "copy_rows": lambda b: printf_text("copied row %d\n", np.int32(b)),
        "big_nd": lambda b: printf_text("nd %d\n", np.arange(512, dtype=np.int32).reshape(2, 4, 8, 8) - b),
        "in_loop": lambda b: "".join(printf_text("k=%d t=%.3g\n", np.int32(k), x[(b * 3 + k) * n:(b * 3 + k + 1) * n])
                                     for k in range(3)),
        "fstring": lambda b: printf_text("block=%d t=%.2f 100%%!\n", np.int32(b), x[b * n:(b + 1) * n]),
    }
    texts["float_f16"] = texts["float_bf16"] = texts["float_f32"]
    return [texts[name](b) for b in range(grid[0])]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_the_reference_text_in_the_interpreter(name):
    """(``copy_rows`` runs as warp programs, several per warp: each program prints once.)"""
    from simt_interp import run_cutile

    kernel, spec, grid = PROGRAMS[name]
    arrays = _inputs(spec)
    printed: list[str] = []
    outs = run_cutile(kernel, spec, arrays, (*grid, 1, 1)[:3], printed=printed)
    if name == "copy_rows":
        np.testing.assert_array_equal(outs[1], arrays[0])
    # CTAs run one after the other here, but warp programs (copy_rows) print in the order of their
    # copies: compare the lines in any order (as on the GPU), each line whole
    text = "".join(printed)
    assert text.endswith("\n") and sorted(text.splitlines()) == sorted("".join(_expected(name, arrays)).splitlines())


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_compiles_to_a_whole_program_calling_vprintf(name):
    from tileorch.backend.ptxas import ptxas_available
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    kernel, spec, grid = PROGRAMS[name]
    p = compile_program(cutile_bytecode(kernel, spec), name, ptxas=ptxas_available())
    assert p.kind == "simt"
    assert "call.uni (retval0), vprintf" in p.ptx
    locked = name in ("long_row", "big_nd")
    assert ("__tileorch_print_lock" in p.ptx) == locked, "the lock only for a print of several calls"
    if ptxas_available():
        assert p.cubin[16] == 2, "a whole program (ELF executable), not code assembled with -c"
    assert not any("warning" in r for r in p.remarks), p.remarks


def test_print_in_a_dot_program_takes_the_simt_path_with_a_located_warning():
    import inspect

    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    spec = [((512, 512), "float16"), ((512, 512), "float16"), ((512, 512), "float16"), 64, 64, 32]
    p = compile_program(cutile_bytecode(print_in_gemm, spec), "gemm", ptxas=False)
    assert p.kind == "simt", p.remarks
    lines, first = inspect.getsourcelines(print_in_gemm._pyfunc if hasattr(print_in_gemm, "_pyfunc")
                                          else print_in_gemm.__wrapped__)
    line = first + next(i for i, text in enumerate(lines) if "ct.printf(" in text)
    warn = [r for r in p.remarks if "print on the SIMT path only" in r]
    assert warn and f"print_programs.py:{line}:" in warn[0] and ": warning: " in warn[0], p.remarks
    assert "call.uni (retval0), vprintf" in p.ptx
