"""Every integer the bytecode reader puts into a typed attribute is range-checked where it is
read: a value wider than its type is a :class:`BytecodeError` at the value's byte offset, never an
xDSL range error without a location (issue 23: ``<unknown>: error: Integer value 9007194959773696
is out of range for type i32``)."""

from pathlib import Path

import pytest
from xdsl.dialects.builtin import BoolAttr, Float4E2M1FNType, Float16Type, FloatAttr, IntegerAttr, IntegerType

from tileorch.frontend.cuda_tile_bytecode import BytecodeError, BytecodeReader, _Reader, _Tables, read_bytecode
from tileorch.frontend.cuda_tile_bytecode_writer import _varint  # the writer's LEB128 encoder

FINDING = Path(__file__).resolve().parent / "fuzz_findings" / "bytecode" / "reduce_dim_over_32_bits.tileirbc"


def _zigzag(v: int) -> bytes:
    return _varint((v << 1) ^ (v >> 63) if v < 0 else v << 1)


def _tagged(data: bytes):
    """Decode one tagged attribute; types: 0 = i8, 1 = i1, 2 = f16, 3 = f4E2M1FN, 4 = i64."""
    rd = BytecodeReader(b"", "t.tileirbc")
    rd.t = _Tables((13, 3))
    rd.t.type_offsets = [0] * 5
    rd.t.types = {0: IntegerType(8), 1: IntegerType(1), 2: Float16Type(), 3: Float4E2M1FNType(), 4: IntegerType(64)}
    return rd._self_contained_attr(_Reader(data, 100))


def test_reduce_dim_wider_than_i32_is_located():
    """The fuzzer's input: a `reduce` whose i32 `dim` is 2^53, rejected at the varint (offset 28; the
    file's function section re-framed with the 8-byte alignment NVIDIA's reader requires)."""
    with pytest.raises(BytecodeError) as err:
        read_bytecode(FINDING.read_bytes(), FINDING.name)
    assert err.value.offset == 28
    assert "attribute 'dim' of 'reduce': value 9007199254740992 does not fit in 32 bits" in err.value.message


@pytest.mark.parametrize("data,value", [
    (b"\x01\x00" + _varint(255), -1),  # i8 bit pattern 0xff
    (b"\x01\x00" + _varint(127), 127),
    (b"\x01\x04" + _varint(2**64 - 1), -1),
])
def test_integer_attributes_in_range(data, value):
    a = _tagged(data)
    assert isinstance(a, IntegerAttr) and a.value.data == value


@pytest.mark.parametrize("data,offset,words", [
    (b"\x01\x00" + _varint(256), 102, "integer attribute: value 256 does not fit in 8 bits"),
    (b"\x01\x01" + _varint(2), 102, "value 2 does not fit in 1 bits"),
    (b"\x01\x04" + _varint(2**64), 102, "does not fit in 64 bits"),
    (b"\x03\x02", 101, "boolean attribute must be 0 or 1, got 2"),
    (b"\x02\x02" + _zigzag(1 << 16), 102, "bit pattern 65536 does not fit in 16 bits"),
    (b"\x02\x02" + _zigzag(-(1 << 15) - 1), 102, "does not fit in 16 bits"),
    (b"\x02\x03\x10", 102, "bit pattern 16 does not fit in 4 bits"),
    (b"\x08" + _varint(16) + b"\x04", 102, "div_by attribute: unknown flag bits 0x4"),
    (b"\x0c\x08", 101, "bounded attribute: unknown flag bits 0x8"),
])
def test_out_of_range_values_are_located(data, offset, words):
    with pytest.raises(BytecodeError) as err:
        _tagged(data)
    assert err.value.offset == offset
    assert words in err.value.message


def test_float_and_bool_patterns_in_range():
    assert _tagged(b"\x03\x01") == BoolAttr(True, IntegerType(1))
    assert _tagged(b"\x01\x01\x01") == BoolAttr(True, IntegerType(1))
    h = _tagged(b"\x02\x02" + _zigzag(-1))  # 0xffff sign-extended, as MLIR writes an APInt
    assert isinstance(h, FloatAttr)
    assert _tagged(b"\x02\x03\xff").value.data == -6.0  # f4 0xf sign-extended to a byte
    assert _tagged(b"\x02\x03\x0f").value.data == -6.0
