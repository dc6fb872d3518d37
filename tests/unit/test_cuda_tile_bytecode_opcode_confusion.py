"""Two located errors of the CUDA Tile IR bytecode reader that only a wrong opcode reaches (found
by the bytecode fuzzer's ``opcode`` mutation, session 22; tools/untested_diagnostics.py listed
them untested): an op whose operands do not fit the op the opcode names (xDSL's builder refuses
them), and an op with an attribute of a kind a function body cannot hold.  Both are
``BytecodeError``s at the op's offset, which the CLI prints as ``FILE: error: invalid CUDA Tile
IR bytecode at offset N: ...``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tileorch.frontend.cuda_tile_bytecode import BytecodeError, read_bytecode

FOUND = Path(__file__).resolve().parent / "fuzz_findings" / "bytecode_reader"


@pytest.mark.parametrize("name,offset,message", [
    ("opcode_of_op_with_other_operands", 63,
     "cannot build 'gdc_launch_dependents_tko': Error in cuda_tile.gdc_launch_dependents_tko builder: optional "
     "VarIRConstruct.OPERAND 0 'token' expects a list of size at most 1"),
    ("opcode_of_op_with_type_attribute", 157,
     "cannot decode attribute 'function_type' of 'entry' (of kind type) inside a function body: is the opcode right?"),
])
def test_a_wrong_opcode_is_a_located_bytecode_error(name, offset, message):
    with pytest.raises(BytecodeError) as err:
        read_bytecode((FOUND / f"{name}.tileirbc").read_bytes(), "k.tileirbc")
    assert err.value.offset == offset and message in str(err.value), str(err.value)
