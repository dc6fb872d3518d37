"""Issues 18 and 21 (the front door): cuTile 1.7 programs as a new user writes them
(``tileorch.testing.user_programs``), exported through the launcher's own argument description
and cuTile's exporter (no GPU) and compiled for sm_90a by ``compile_program``: each takes the
path it should (the tensor-core tier for the GEMM idioms, the SIMT path for the rest), a program
the tier refuses says why at its source line, and a program the compiler cannot take is a located
error at the user's line, never a traceback or an internal error.

Found by this sweep (each failed before its fix): a float-to-int cast (13.4 ``ftoi`` has a flags
word) was an unknown-opcode traceback; ``if ...: return`` was not supported; a GEMM whose K loop
or store sat under an ``if`` (or after an early return) compiled to the tensor-core kernel without
its condition (every tile written); ``pow``, ``atan2``, ``sin``/``cos``/``tan``, ``sinh``/``cosh``,
``floor``/``ceil`` and ``bitcast`` were not supported.

The second sweep (``tileorch.testing.user_programs2``, session 7) runs here too; it found: ``x ** n``
(13.4 ``fpowi``) not supported; a gather from a 0-d array refused by our verifier (a padding value
without a mask); ``ct.load`` of a 0-d array an unlocated traceback; ``ct.astile`` tables not
supported; ``acc += a @ b`` of bf16 tiles and a scale read with ``ct.gather`` (GEMM epilogue, ALiBi
slopes in attention) sent off the tensor-core tier."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs, user_programs2  # noqa: E402
from tileorch.testing.user_programs import CUTILE_REFUSES  # noqa: E402

SOURCE = str(Path(user_programs.__file__))
# both sweeps: each program's diagnostics name the file that defines it
PROGRAMS = {**user_programs.PROGRAMS, **user_programs2.PROGRAMS}
SOURCES = {**{n: SOURCE for n in user_programs.PROGRAMS},
           **{n: str(Path(user_programs2.__file__)) for n in user_programs2.PROGRAMS}}
# how long each compile takes (the SIMT path's dots are scalar FMAs: seconds, not minutes) is
# measured by benchmarks/user_sweep_compile.py, not asserted here (no timed tests in CI)


def _ptxas() -> bool:
    from tileorch.backend.ptxas import ptxas_available

    return ptxas_available()


def _bytecode(name: str) -> bytes:
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return cutile_bytecode(p.kernel, p.spec)


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path != "error"))
def test_program_compiles_on_its_path(name):
    # compiled once per test run (compile_memo, no cache of earlier runs): the SIMT programs'
    # interpreter tests (test_user_sweep_interp.py, test_user_sweep2_interp.py: SHARED_COMPILES
    # there) take their lowering from this compile, whichever test runs it first
    from tileorch.testing.compile_memo import compile_once

    p = PROGRAMS[name]
    prog = compile_once(_bytecode(name), name, arch="sm_90a", ptxas=_ptxas())
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:  # the tier's refusal, at the user's line, saying why
        assert any(r.startswith(SOURCES[name] + ":") and p.error in r for r in refusals), remarks
    if p.path == "gemm":
        assert not refusals, remarks
    if _ptxas():
        assert prog.cubin and prog.cubin[:4] == b"\x7fELF"


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path == "error"))
def test_program_the_compiler_cannot_take_is_a_located_error(name):
    from tileorch.diagnostics import CompileError, LocatedError
    from tileorch.driver import compile_program

    with pytest.raises((LocatedError, CompileError)) as info:
        compile_program(_bytecode(name), name, arch="sm_90a", ptxas=False)
    message = str(info.value)
    assert message.startswith(SOURCES[name] + ":") and "internal error" not in message
    assert PROGRAMS[name].error in message


@pytest.mark.parametrize("name", sorted(CUTILE_REFUSES))
def test_program_cutile_refuses_stops_at_the_export_with_cutiles_message(name):
    """Shape mismatches, an f16 x f32 mma, a 100-element tile, axis 2 of a 2-D tile and a negative
    loop step never reach the compiler: the launcher's export raises cuTile's own error, naming
    the user's line."""
    from tileorch.testing.export import cutile_bytecode

    kernel, spec, words = CUTILE_REFUSES[name]
    with pytest.raises(Exception) as info:  # noqa: PT011 - cuTile's exception classes
        cutile_bytecode(kernel, spec)
    assert SOURCE in str(info.value) and words in str(info.value)
    assert "tileorch" not in type(info.value).__module__


def test_float_to_int_cast_reads_its_13_4_flags_word():
    """cuTile 1.7 writes ``ftoi`` with a flags word (``saturating``, bytecode 13.4): read back,
    the op is an ``ftoi`` and the ops after it decode; written back it is the same."""
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.frontend.cuda_tile_bytecode_writer import write_bytecode

    module = read_bytecode(_bytecode("float_histogram"), "float_histogram")
    names = [op.name for op in module.walk()]
    assert "cuda_tile.ftoi" in names and "cuda_tile.atomic_rmw_tko" in names
    again = read_bytecode(write_bytecode(module, (13, 4)), "again")
    assert [op.name for op in again.walk()] == names
    ftoi = next(op for op in again.walk() if op.name == "cuda_tile.ftoi")
    assert ftoi.saturating is None


def test_saturating_float_to_int_needs_bytecode_13_4():
    from xdsl.dialects.builtin import UnitAttr

    from tileorch.frontend.cuda_tile_bytecode import read_bytecode
    from tileorch.frontend.cuda_tile_bytecode_writer import write_bytecode

    module = read_bytecode(_bytecode("float_histogram"), "float_histogram")
    ftoi = next(op for op in module.walk() if op.name == "cuda_tile.ftoi")
    ftoi.properties["saturating"] = UnitAttr()
    assert "saturating" in str(ftoi)
    back = read_bytecode(write_bytecode(module, (13, 4)), "back")
    assert next(op for op in back.walk() if op.name == "cuda_tile.ftoi").saturating is not None
    with pytest.raises(Exception, match="'saturating' needs bytecode 13.4"):
        write_bytecode(module, (13, 3))


def test_early_return_moves_the_rest_into_the_fall_through_branch():
    """``if r >= valid: return`` then a store: one scf.if whose else branch holds the store."""
    from xdsl.dialects import scf

    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.transforms.cudatile_to_tileaa import ConvertCudaTileToTileAA

    ctx = make_context()
    module = load(_bytecode("early_exit_rows"), "early_exit_rows", ctx)
    ConvertCudaTileToTileAA(compute_capability="sm_90a").apply(ctx, module)
    ifs = [op for op in module.walk() if isinstance(op, scf.IfOp)]
    assert len(ifs) == 1
    then_ops = [op.name for op in ifs[0].true_region.walk()]
    else_ops = [op.name for op in ifs[0].false_region.walk()]
    assert not any("store" in n for n in then_ops) and any("tiled_store" in n for n in else_ops)
