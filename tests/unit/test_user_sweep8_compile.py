"""Eighth user sweep (``tileorch.testing.user_programs8``: the thin corners of the cuTile API, dots
written unusually): each program exported through the launcher's argument description and cuTile's
exporter (no GPU) and compiled for sm_90a takes the path its entry names; a program a tensor-core
tier refuses says why at the user's line (a remark: no silent slow path), in the program's terms;
no internal error.

Found by this sweep (each test below failed before its fix):
- a K loop written as ``while k < nk`` was refused as "this dot is not in a loop": then "this dot is
  in a while loop ... (write it as 'for k in range(...)')"; since session 21 the counted ``while``
  runs as its for loop on the tensor-core tier (``tileas-while-to-for``);
- a B loaded with ``allow_tma=False`` was refused as "expected a producer agent with 2 TMA tile
  loads (A and 1 B); found 1 staged loads" at the kernel: now "this dot operand is loaded with
  allow_tma=False" at that load;
- ``flush_to_zero=True`` on ``ct.sub`` (and ``ct.add`` / ``ct.mul`` / ``ct.maximum`` / ``ct.minimum`` /
  an IEEE ``ct.truediv``) was dropped silently: now a located warning says it is not applied;
- an int8 GEMM requantised to an int8 C was refused as "element type i8 is not supported yet ...
  (... i8 as s8 or u8 in ...)" at the A load: then "output element type i8" at the store (since
  session 25 the tier stores the int8 C);
- ``astype(f32 -> f16 / bf16, rounding_mode=RZ)`` stopped at the ftof verifier ("Only 'nearest_even' is
  supported"): it compiles (``cvt.rz`` on the SIMT path; a dot program with one takes the SIMT path
  with a located warning);
- a dot operand loaded with a padding other than zeros was refused as "expected a producer agent
  with 2 TMA tile loads" (two such operands: an unlocated "the TileAS tier left a kernel
  unlowered"): now "this dot operand is loaded with padding_mode=..." at the load."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import cuda.tile as ct  # noqa: E402  (the kernels defined in tests resolve their annotations here)

from tileorch.testing import user_programs8  # noqa: E402
from tileorch.testing.user_programs8 import PROGRAMS  # noqa: E402

SOURCE = str(Path(user_programs8.__file__))


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 50
    assert {p.path for p in PROGRAMS.values()} >= {"gemm", "chained", "simt"}
    for name, p in PROGRAMS.items():
        assert p.outputs, name
        assert (p.kernel.__doc__ or p.kernel._annotated_function.pyfunc.__doc__), name


def _compile(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)


def _has_dot(name) -> bool:
    src = inspect.getsource(PROGRAMS[name].kernel._annotated_function.pyfunc)
    return "ct.mma(" in src or "ct.matmul(" in src or " @ " in src


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path != "error"))
def test_program_compiles_on_its_path(name):
    p = PROGRAMS[name]
    prog = _compile(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    assert not [r for r in remarks if "memory token" in r or "outside the agents" in r or "TMA tile loads" in r
                or "#nv_tileas." in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:  # the tier's refusal, at the user's line, saying why
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
        assert "mma.sync" in prog.ptx  # the SIMT path's dots on tensor cores
    else:
        assert not refusals, remarks
    if p.path == "gemm":
        assert "wgmma.mma_async" in prog.ptx
    if p.path == "simt" and _has_dot(name):  # never silently: the tier's refusal says why
        assert p.error and refusals, remarks


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path == "error"))
def test_program_the_compiler_cannot_take_is_a_located_error(name):
    from tileorch.diagnostics import CompileError, LocatedError
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    with pytest.raises((LocatedError, CompileError)) as info:
        compile_program(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)
    message = str(info.value)
    assert message.startswith(SOURCE + ":") and "internal error" not in message, message
    assert p.error in message


def _line_of(kernel, text: str) -> int:
    """The source line of ``kernel`` holding ``text`` (first match)."""
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


@pytest.mark.parametrize("name, text, why", [
    ("mm_b_without_tma", "allow_tma=False)", "this dot operand is loaded with allow_tma=False"),
    ("mm_neg_zero_padded_a", "padding_mode=NEG_ZERO)", "this dot operand is loaded with padding_mode=NEG_ZERO"),
])
def test_a_refusal_names_the_users_line_in_the_users_terms(name, text, why):
    p = PROGRAMS[name]
    (refusal,) = [r for r in _compile(name).remarks if "refused" in r]
    assert refusal.startswith(f"{SOURCE}:{_line_of(p.kernel, text)}:"), refusal
    assert why in refusal, refusal
    for old in ("not in a loop", "TMA tile loads"):
        assert old not in refusal


def test_an_unapplied_flush_to_zero_is_a_located_warning():
    p = PROGRAMS["negative_sub_bitwise_or"]
    warnings = [r for r in _compile("negative_sub_bitwise_or").remarks if "flush_to_zero" in r]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"{SOURCE}:{_line_of(p.kernel, 'ct.sub(x, y, flush_to_zero=True)')}:"), warnings
    assert "warning: flush_to_zero on 'cuda_tile.subf' is not applied" in warnings[0]


def test_flush_to_zero_warnings_name_only_the_ops_that_keep_subnormals():
    """A division rounded ``approx`` applies it (``div.approx.ftz``): no warning; the IEEE division
    and ``ct.maximum`` do not apply it: one warning each, at their lines."""
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    @ct.kernel
    def ftz_ops(X, Y, A, B, C):
        x = ct.load(X, index=(0,), shape=(64,))
        y = ct.load(Y, index=(0,), shape=(64,))
        ct.store(A, index=(0,), tile=ct.truediv(x, y, flush_to_zero=True, rounding_mode=ct.RoundingMode.APPROX))
        ct.store(B, index=(0,), tile=ct.truediv(x, y, flush_to_zero=True))
        ct.store(C, index=(0,), tile=ct.maximum(x, y, flush_to_zero=True))

    prog = compile_program(cutile_bytecode(ftz_ops, [((64,), "float32")] * 5), "ftz_ops", arch="sm_90a", ptxas=False)
    warnings = [r for r in prog.remarks if "flush_to_zero" in r]
    assert [w.split("'")[1] for w in warnings] == ["cuda_tile.divf", "cuda_tile.maxf"], warnings
    assert "div.approx.ftz.f32" in prog.ptx


def test_two_operands_padded_with_nan_are_named_not_left_unlowered():
    """Both operands padded with NaN made the tier leave the kernel unlowered with an unlocated remark;
    now the first padded operand's load is named."""
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    @ct.kernel
    def nan_padded(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
        bm, bn = ct.bid(0), ct.bid(1)
        acc = ct.zeros((tm, tn), dtype=ct.float32)
        for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
            a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ct.PaddingMode.NAN)
            b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ct.PaddingMode.NAN)
            acc = ct.mma(a, b, acc)
        ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))

    spec = [((256, 256), "float16"), ((256, 128), "float16"), ((256, 128), "float16"), 128, 64, 64]
    prog = compile_program(cutile_bytecode(nan_padded, spec), "nan_padded", arch="sm_90a", ptxas=False)
    assert prog.kind == "simt"
    (refusal,) = [r for r in prog.remarks if "refused" in r]
    assert "this dot operand is loaded with padding_mode=NAN" in refusal, refusal
    assert f":{_line_of(nan_padded, 'a = ct.load(A,')}:" in refusal.split(" warning:")[0], refusal
    assert not [r for r in prog.remarks if "left a kernel unlowered" in r]
