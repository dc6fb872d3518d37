"""CUDA Tile IR bytecode 13.5 (cuTile 1.7 writes it with its development features on) and
versions newer than the reader knows.

What 13.5 changed, as cuTile 1.7's writer encodes it: a kernel always carries its optimization
hints (flag bit 2 is gone) and every function an array of per-argument attribute dictionaries
after them; ``DISubprogram`` ends with a flags varint; ``atomic_red_view_tko`` gained the
``inbounds`` array; three multimem ops (0x7B-0x7D) were added.
"""

from __future__ import annotations

import re
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from tool_forkserver import forked
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FileLineColLoc, IntegerAttr, IntegerType
from xdsl.printer import Printer

from tileorch.diagnostics import parse_module, verify_located
from tileorch.frontend.cuda_tile_bytecode import BytecodeError, read_bytecode
from tileorch.frontend.cuda_tile_bytecode_writer import BytecodeWriteError, write_bytecode
from tileorch.registry import make_context

HERE = Path(__file__).resolve().parent / "cutile_bytecode"
V13_5 = sorted((HERE / "v13_5").glob("*.tileirbc"))


def _text(m) -> str:
    """``m`` printed with its locations, byte-offset locations (``FILE:0:OFFSET``, which differ
    between versions) left out."""
    s = StringIO()
    Printer(stream=s, print_debuginfo=True).print_op(m)
    return re.sub(r'loc\("[^"]*":0:\d+\)', "loc(offset)", s.getvalue())


def _entry(m):
    return m.body.block.first_op.body.block.first_op


@pytest.mark.parametrize("path", V13_5, ids=lambda p: p.stem)
def test_cutile_13_5_reads_like_13_4(path):
    """The same kernel written as 13.4 and 13.5 reads as the same program at the same Python lines."""
    data = path.read_bytes()
    assert data[8:10] == bytes([13, 5])
    m = read_bytecode(data, path.name)
    assert verify_located(m) == []
    assert _text(m) == _text(read_bytecode((HERE / path.name).read_bytes(), path.name))
    locs = [op.location for op in _entry(m).walk() if isinstance(op.location, FileLineColLoc)]
    assert locs and all(loc.filename.data == "kernels.py" for loc in locs if loc.line.data > 0)


def test_13_5_from_our_writer_round_trips():
    m = read_bytecode((HERE / "gemm.tileirbc").read_bytes(), "gemm.tileirbc")
    again = read_bytecode(write_bytecode(m, version=(13, 5)), "x.tileirbc")
    assert _text(again) == _text(m)


ATOMIC = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>, %n: tile<i32>) {
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
    %i = constant <i32: 0> : tile<i32>
    %v = constant <f32: 1.0> : tile<16xf32>
    %t = atomic_red_view_tko relaxed device %pv[%i], addf, %v attributes {inbounds = array<i1: true>} : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
"""


def test_atomic_red_view_inbounds_is_13_5():
    m = parse_module(make_context(), ATOMIC, "a.mlir")
    assert verify_located(m) == []
    again = read_bytecode(write_bytecode(m, version=(13, 5)), "a.tileirbc")
    op = next(o for o in _entry(again).walk() if o.name == "cuda_tile.atomic_red_view_tko")
    assert op.inbounds is not None and [bool(v) for v in op.inbounds.get_values()] == [True]
    assert "inbounds = array<i1: true>" in str(again)
    with pytest.raises(BytecodeWriteError, match="'inbounds' needs bytecode 13.5"):
        write_bytecode(m, version=(13, 4))


def test_atomic_red_view_inbounds_needs_one_entry_per_index():
    bad = ATOMIC.replace("array<i1: true>", "array<i1: true, false>")
    m = parse_module(make_context(), bad, "a.mlir")
    errors = verify_located(m)
    assert errors and "'inbounds' has 2 entries, expected one per index operand (1)" in errors[0]


def test_13_5_argument_attributes_round_trip():
    m = read_bytecode((HERE / "add.tileirbc").read_bytes(), "add.tileirbc")
    entry = _entry(m)
    n = len(entry.function_type.inputs.data)
    attrs = ArrayAttr([DictionaryAttr({"cuda_tile.align": IntegerAttr(16, IntegerType(32))} if i == 0 else {}) for i in range(n)])
    entry.properties["arg_attrs"] = attrs
    again = _entry(read_bytecode(write_bytecode(m, version=(13, 5)), "x.tileirbc"))
    assert again.arg_attrs == attrs
    with pytest.raises(BytecodeWriteError, match="argument attributes need bytecode 13.5"):
        write_bytecode(m, version=(13, 4))


def _with_version(data: bytes, major: int, minor: int) -> bytes:
    return data[:8] + bytes([major, minor]) + data[10:]


def test_a_newer_version_is_a_located_error_naming_what_is_supported(tmp_path):
    data = _with_version((HERE / "v13_5" / "add.tileirbc").read_bytes(), 13, 6)
    with pytest.raises(BytecodeError) as e:
        read_bytecode(data, "add.tileirbc")
    assert e.value.offset == 8
    assert "unsupported bytecode version 13.6.0 (newer than the newest this reader knows)" in e.value.message
    assert "supported: 13.1, 13.2, 13.3, 13.4, 13.5" in e.value.message
    f = tmp_path / "new.tileirbc"
    f.write_bytes(data)
    r = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "compile", str(f)]), capture_output=True,
                       text=True, timeout=120)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert f"{f}: error: invalid CUDA Tile IR bytecode at offset 8: unsupported bytecode version 13.6.0" in r.stderr


def test_writer_refuses_an_unknown_version():
    m = read_bytecode((HERE / "add.tileirbc").read_bytes(), "add.tileirbc")
    with pytest.raises(BytecodeWriteError, match="cannot write bytecode version 13.6; supported: 13.1"):
        write_bytecode(m, version=(13, 6))


def _varint_at(data: bytes, i: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        b = data[i]
        v |= (b & 0x7F) << shift
        i += 1
        shift += 7
        if not b & 0x80:
            return v, i


@pytest.mark.parametrize("opcode,name", [(0x7B, "multimem_load_reduce_view_tko"), (0x7D, "multimem_store_view_tko"),
                                         (0x7C, "multimem_reduce_view_tko"),
                                         (0x7A, "memory_fence_alias_tko")])
def test_a_newer_op_is_named(opcode, name):
    """The function section comes first and its last op is the ``return`` (its opcode, then zero
    counts): put a newer opcode there."""
    from tileorch.frontend.bytecode_ops import OPS

    ret_opcode = next(oc for oc, spec in OPS.items() if spec[0] == "return")
    m = parse_module(make_context(), "cuda_tile.module @m {\n  entry @k() {\n    return\n  }\n}\n", "r.mlir")
    data = bytearray(write_bytecode(m, version=(13, 5), debug_info=False))
    assert data[12] == 0x82  # the function section, aligned (to 8)
    length, start = _varint_at(data, 13)
    alignment, start = _varint_at(data, start)
    start += (-start) % alignment
    ret = start + length - 1
    while data[ret] != ret_opcode:
        ret -= 1
    data[ret] = opcode
    with pytest.raises(BytecodeError) as e:
        read_bytecode(bytes(data), "r.tileirbc")
    assert e.value.offset == ret
    assert f"op '{name}' (opcode 0x{opcode:X}, bytecode 13." in e.value.message and "not supported" in e.value.message


FPOWI = """cuda_tile.module @kernels {
  entry @k() {
    %a = constant <f32: 1.5> : tile<4xf32>
    %n = constant <i32: 3> : tile<4xi32>
    %b = fpowi %a, %n : tile<4xf32>, tile<4xi32>
    return
  }
}
"""


def test_fpowi_reads_and_writes_from_13_4():
    """13.4's ``fpowi`` (cuTile 1.7's ``x ** n``): text, bytecode 13.4 and back; 13.3 has no such op."""
    m = parse_module(make_context(), FPOWI, "fpowi.mlir")
    back = read_bytecode(write_bytecode(m, version=(13, 4), debug_info=False), "fpowi.tileirbc")
    op = next(o for o in back.walk() if o.name == "cuda_tile.fpowi")
    assert "4xi32" in str(op.exponent.type) and "4xf32" in str(op.result.type)
    assert [o.name for o in back.walk()] == [o.name for o in m.walk()]
    with pytest.raises(BytecodeWriteError, match="'cuda_tile.fpowi' needs bytecode 13.4"):
        write_bytecode(m, version=(13, 3))


PRINT = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>) {
    %a = constant <f32: 1.0> : tile<4xf32>
    %t = print_tko "x=%f", %a : tile<4xf32> -> token
    %b = addf %a, %a : tile<4xf32>
    return
  }
}
"""


def test_13_1_print_has_no_token_result_and_reads_as_print_tko():
    """13.1's ``print`` had no result; read, it is ``print_tko`` with a token that the file's
    value numbering does not count (the ``addf`` after it still reads ``%a``)."""
    m = parse_module(make_context(), PRINT, "p.mlir")
    again = read_bytecode(write_bytecode(m, version=(13, 1), debug_info=False), "p.tileirbc")
    assert verify_located(again) == []
    ops = list(_entry(again).body.block.ops)
    assert [o.name.split(".")[1] for o in ops] == ["constant", "print_tko", "addf", "return"]
    assert ops[2].operands[0] is ops[0].results[0] and ops[2].operands[1] is ops[0].results[0]
    assert len(ops[1].results) == 1


def test_13_1_cannot_carry_a_used_print_token():
    used = PRINT.replace("    return\n", "    %j = join_tokens %t, %t : token\n    return\n")
    m = parse_module(make_context(), used, "p.mlir")
    with pytest.raises(BytecodeWriteError, match="its result is used, but bytecode 13.1 has no result"):
        write_bytecode(m, version=(13, 1))
    assert read_bytecode(write_bytecode(m, version=(13, 2)), "p.tileirbc")
