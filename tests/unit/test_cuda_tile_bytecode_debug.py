"""Source locations from the debug-info section of CUDA Tile IR bytecode.

The fixtures in ``tests/unit/cutile_bytecode`` were written by cuTile 1.7 from
``tests/unit/cutile_bytecode/kernels.py`` (recorded as ``kernels.py``): every op carries the
Python line and column cuTile recorded, so diagnostics read ``kernels.py:LINE:COL: error: ...``;
an op without debug info is located at its byte offset (``FILE:0:OFFSET``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import FileLineColLoc

from tileorch.diagnostics import verify_located
from tileorch.frontend.cuda_tile_bytecode import BytecodeError, read_bytecode
from tileorch.tools import fuzz_bytecode as fz

HERE = Path(__file__).resolve().parent / "cutile_bytecode"
SOURCE = (HERE / "kernels.py").read_text()


def _fixture(name: str) -> bytes:
    return (HERE / f"{name}.tileirbc").read_bytes()


def _function(name: str) -> ast.FunctionDef:
    return next(n for n in ast.walk(ast.parse(SOURCE)) if isinstance(n, ast.FunctionDef) and n.name == name)


def _located(module, mnemonic: str) -> list[tuple[str, int, int]]:
    """(file, line, col) of each ``mnemonic`` op: where its code is (the callee of a call-site location)."""
    from tileorch.diagnostics import source_position

    return [(p.filename.data, p.line.data, p.column.data) for op in module.walk()
            if op.name == f"cuda_tile.{mnemonic}" for p in [source_position(op.location)]]


def _called_from(module, mnemonic: str) -> list[list[tuple[str, int, int]]]:
    """The calls each ``mnemonic`` op was inlined through, innermost first (diagnostics.call_sites)."""
    from tileorch.diagnostics import call_sites

    return [[(p.filename.data, p.line.data, p.column.data) for p in call_sites(op.location)]
            for op in module.walk() if op.name == f"cuda_tile.{mnemonic}"]


def test_ops_carry_the_python_line_and_column_cuTile_recorded():
    m = read_bytecode(_fixture("add"), "add.tileirbc")
    assert verify_located(m) == []
    # `ct.load(a, ...) + ct.load(b, ...)`: the addf is where Python's AST puts the `+` expression
    plus = next(n for n in ast.walk(_function("add")) if isinstance(n, ast.BinOp))
    assert _located(m, "addf") == [("kernels.py", plus.lineno, plus.col_offset)]
    entry = next(op for op in m.walk() if op.name == "cuda_tile.entry")
    assert entry.location.line.data == _function("add").lineno
    # every op cuTile wrote is located in kernels.py; the implicit return has no debug entry
    for op in m.walk():
        loc = op.location
        assert isinstance(loc, FileLineColLoc)
        if op.name in ("builtin.module", "cuda_tile.module", "cuda_tile.return"):
            assert loc.filename.data == "add.tileirbc" and loc.line.data == 0
        else:
            assert loc.filename.data == "kernels.py" and loc.line.data > 0, op.name


def test_inlined_calls_are_located_at_the_users_line():
    """A call to a plain Python helper is inlined (a CallSite): the op is located in the helper, and the
    kernel's call of the helper is kept as its caller (a diagnostic's ``note: called from``);
    ``x.astype`` is inlined from cuTile's own library, so its ftof is located at the call, with no caller."""
    m = read_bytecode(_fixture("helper_call"), "helper_call.tileirbc")
    helper = _function("scaled")
    assert _located(m, "fma") == [("kernels.py", helper.body[0].lineno, helper.body[0].value.col_offset)]
    call = next(n for n in ast.walk(_function("helper_call")) if isinstance(n, ast.Call)
                and getattr(n.func, "id", "") == "scaled")
    assert _called_from(m, "fma") == [[("kernels.py", call.lineno, call.col_offset)]]
    for name in ("gemm", "softmax", "layernorm"):
        m = read_bytecode(_fixture(name), name)
        ftofs = _located(m, "ftof")
        assert ftofs and all(f == "kernels.py" for f, _, _ in ftofs), ftofs
        assert all(not c for c in _called_from(m, "ftof")), _called_from(m, "ftof")
        lines = SOURCE.splitlines()
        assert all(".astype(" in lines[line - 1] for _, line, _ in ftofs), ftofs


def _ill_typed_add() -> tuple[bytes, int, int]:
    """add.tileirbc with the addf's result type index pointing at the kernel's i32 block-id type:
    the program decodes but does not verify.  Returns (bytecode, line, col) of the addf."""
    from tileorch.frontend.bytecode_ops import OPS

    opcode = {spec[0]: code for code, spec in OPS.items()}
    data = _fixture("add")
    fields, _, error = fz.trace(data)
    assert error is None
    fields = [f for f in fields if f.where.startswith("body of @")]  # the op stream (debug info is read lazily)
    addf = next(i for i, f in enumerate(fields) if f.kind == "opcode" and f.value == opcode["addf"])
    result_type = fields[addf + 1]
    assert result_type.kind == "type"
    bid = next(i for i, f in enumerate(fields) if f.kind == "opcode" and f.value == opcode["get_tile_block_id"])
    i32_type = fields[bid + 1].value  # its first result's type: tile<i32>
    assert fields[bid + 1].kind == "type" and i32_type != result_type.value
    bad = data[:result_type.offset] + fz._padded_varint(i32_type, result_type.width) + \
        data[result_type.offset + result_type.width:]
    plus = next(n for n in ast.walk(_function("add")) if isinstance(n, ast.BinOp))
    return bad, plus.lineno, plus.col_offset


def test_a_rejected_program_is_reported_at_the_python_source():
    bad, line, col = _ill_typed_add()
    errors = verify_located(read_bytecode(bad, "add.tileirbc"))
    assert errors and errors[0].startswith(f"kernels.py:{line}:{col}: error: "), errors
    assert "same type" in errors[0] or "must be" in errors[0], errors


@pytest.mark.parametrize("command", [["-m", "tileorch.tools.opt"], ["-m", "tileorch.cli.main", "compile"]])
def test_the_command_line_reports_the_python_source(tmp_path, command):
    bad, line, col = _ill_typed_add()
    path = tmp_path / "add.tileirbc"
    path.write_bytes(bad)
    extra = ["-o", str(tmp_path / "add.ptx"), "--no-ptxas"] if "compile" in command else []
    proc = subprocess.run([sys.executable, *command, str(path), *extra], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    errors = [l for l in (proc.stdout + proc.stderr).splitlines() if " error: " in l]
    assert errors and errors[0].startswith(f"kernels.py:{line}:{col}: error: "), proc.stderr
    assert "Traceback" not in proc.stderr


def test_without_debug_info_ops_are_located_at_their_byte_offset():
    from tileorch.frontend.cuda_tile_bytecode_writer import write_bytecode

    bad, _, _ = _ill_typed_add()
    module = read_bytecode(bad, "add.tileirbc")
    plain = write_bytecode(module, (13, 4), debug_info=False)  # the same (ill-typed) program, no debug section
    assert 3 not in {s.ident & 0x7F for s in fz.parse_sections(plain)}
    errors = verify_located(read_bytecode(plain, "plain.tileirbc"))
    assert errors and errors[0].startswith("plain.tileirbc:0:"), errors


def test_the_writer_keeps_source_positions():
    """write + read gives back every op's location (text inputs: the .mlir file's lines)."""
    from tileorch.diagnostics import parse_module
    from tileorch.frontend.cuda_tile_bytecode_writer import write_bytecode
    from tileorch.registry import make_context

    for name in ("add", "helper_call", "gemm", "whileloop"):
        m = read_bytecode(_fixture(name), name)
        back = read_bytecode(write_bytecode(m, (13, 4)), name)
        skip = ("builtin.module", "cuda_tile.module", "cuda_tile.return")
        assert [str(op.location) for op in m.walk() if op.name not in skip] == \
               [str(op.location) for op in back.walk() if op.name not in skip]
    text = ("cuda_tile.module @m {\n"
            "  entry @k(%a: tile<f32>) {\n"
            "    %0 = addi %a, %a : tile<f32>\n"
            "    return\n"
            "  }\n"
            "}\n")
    m = parse_module(make_context(), text, "k.mlir")
    errors = verify_located(read_bytecode(write_bytecode(m, (13, 4)), "k.tileirbc"))
    assert errors and errors[0].startswith("k.mlir:3:5: error: "), errors


def _edit(data: bytes, field: fz.Field, value: int) -> bytes:
    if field.kind == "debug" and field.width == 8:
        return data[:field.offset] + value.to_bytes(8, "little") + data[field.offset + 8:]
    return data[:field.offset] + fz._padded_varint(value, field.width) + data[field.offset + field.width:]


@pytest.mark.parametrize("what,words", [
    ("function index", "debug-info index"),
    ("op index", "debug attribute index"),
    ("op attribute kind", "not a location"),
    ("attribute reference", "needs a"),
])
def test_malformed_debug_info_is_a_located_bytecode_error(what, words):
    data = _fixture("add")
    fields, _, _ = fz.trace(data)
    if what == "function index":
        f = next(f for f in fields if f.kind == "debug_function")
        bad = _edit(data, f, 5)
    elif what == "op index":
        f = next(f for f in fields if f.kind == "debug" and f.width == 8)
        bad = _edit(data, f, 200)
    elif what == "op attribute kind":  # attribute 1 is the DIFile
        f = next(f for f in fields if f.kind == "debug" and f.width == 8 and f.value > 1)
        bad = _edit(data, f, 1)
    else:  # a DILoc whose scope is the DIFile
        f = next(f for f in fields if f.kind == "debug" and f.width != 8 and f.value != 1)
        bad = _edit(data, f, 1)
    with pytest.raises(BytecodeError) as err:
        read_bytecode(bad)
    assert words in str(err.value) and err.value.offset > 0, str(err.value)


def test_unknown_debug_tags_and_index_zero_fall_back_to_the_byte_offset():
    data = _fixture("add")
    fields, _, _ = fz.trace(data)
    f = next(f for f in fields if f.kind == "debug" and f.width == 8 and f.value > 1)
    m = read_bytecode(_edit(data, f, 0), "add.tileirbc")  # this op: the unknown location
    assert verify_located(m) == []
    assert sum(op.location.line.data == 0 for op in m.walk()) == 4  # modules, return, that op


def test_a_cyclic_debug_attribute_is_rejected():
    data = _fixture("add")
    fields, _, _ = fz.trace(data)
    # the DILoc of an op, its scope reference replaced by its own index
    op_attr = next(f for f in fields if f.kind == "debug" and f.width == 8 and f.value > 3)
    scope_ref = next(f for f in fields
                     if f.kind == "debug" and f.width != 8 and f.where == f"debug attribute {op_attr.value}")
    with pytest.raises(BytecodeError) as err:
        read_bytecode(_edit(data, scope_ref, op_attr.value))
    assert "refers to itself" in str(err.value)


def test_a_location_without_a_file_name_takes_its_scopes_file():
    """cuTile writes the directory of a relative file as '': a DILoc whose file name is that empty
    string is located in the file of its DISubprogram (never ``:LINE:COL: error:``)."""
    data = _fixture("add")
    fields, _, _ = fz.trace(data)
    from tileorch.frontend.cuda_tile_bytecode import BytecodeReader

    reader = BytecodeReader(data, "add.tileirbc")
    reader.read()
    empty = reader.t.strings.index("")
    name = next(f for f in fields if f.kind == "string" and f.where.startswith("debug attribute")
                and reader._debug_attr(int(f.where.rsplit(" ", 1)[1]), 0, 0)[0] == "DILoc")
    m = read_bytecode(_edit(data, name, empty), "add.tileirbc")
    assert all(op.location.filename.data in ("kernels.py", "add.tileirbc") for op in m.walk())
