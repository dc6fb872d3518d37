"""Every located error of the CUDA Tile IR bytecode reader that no other test names (found by
``tools/untested_diagnostics.py``, session 20): each malformed table, type, attribute or op is a
:class:`BytecodeError` with its message and the byte offset of the bad field.  The cases feed the
reader's table decoders directly (the bytes each one reads), so the offsets are known by hand."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from xdsl.dialects.builtin import Float32Type, FunctionType, IntegerType

from tileorch.dialects.cuda_tile import types as T
from tileorch.frontend.cuda_tile_bytecode import (MAGIC, BytecodeError, BytecodeReader, _build, _Field, _op_class, _Reader,
                                                _Tables, read_bytecode)
from tileorch.frontend.cuda_tile_bytecode_writer import _varint

ADD = Path(__file__).resolve().parent / "cutile_bytecode" / "add.tileirbc"


def _reader(version=(13, 3), types=None) -> BytecodeReader:
    rd = BytecodeReader(b"", "t.tileirbc")
    rd.t = _Tables(version)
    types = {0: Float32Type(), 1: IntegerType(32)} if types is None else types
    rd.t.types = dict(types)
    rd.t.type_offsets = [0] * len(types)
    return rd


def _le64(*values: int) -> bytes:
    return _varint(len(values)) + b"".join(struct.pack("<q", v) for v in values)


def _le32(*values: int) -> bytes:
    return _varint(len(values)) + b"".join(struct.pack("<i", v) for v in values)


def _raises(fn, offset: int, message: str) -> None:
    with pytest.raises(BytecodeError) as err:
        fn()
    assert err.value.message == message, err.value.message
    assert err.value.offset == offset


# ---------------------------------------------------------------------------- the file's frame
def test_a_file_cut_inside_the_magic_number():
    _raises(lambda: read_bytecode(MAGIC[:5], "t.tileirbc"), 5, "file too short for the CUDA Tile IR magic number")


def test_an_end_section_with_the_alignment_flag():
    header = ADD.read_bytes()[:12]  # magic, version, tag of a real program
    _raises(lambda: read_bytecode(header + b"\x80", "t.tileirbc"), 12,
            "end section must not have the alignment flag set")


# ---------------------------------------------------------------------------- string table
def test_a_string_past_the_table():
    # 2 strings at offset 100: count (1 byte), 3 bytes of padding to 4, offsets 0 and 9, blob "ab"
    payload = b"\x02\0\0\0" + struct.pack("<II", 0, 9) + b"ab"
    _raises(lambda: _reader()._strings(100, payload), 112, "string 0 has invalid bounds [0, 9)")


def test_a_string_that_is_not_utf8():
    payload = b"\x01\0\0\0" + struct.pack("<I", 0) + b"\xff\xfe"
    _raises(lambda: _reader()._strings(100, payload), 108, "string 0 is not valid UTF-8")


# ---------------------------------------------------------------------------- constant table
def test_a_constant_past_the_table():
    payload = b"\x02" + b"\0" * 7 + struct.pack("<QQ", 0, 5) + b"\x01\x00"
    _raises(lambda: _reader()._constants(200, payload), 224, "constant 0 has invalid bounds [0, 5)")


def _constant(data: bytes) -> BytecodeReader:
    rd = _reader()
    rd.t.constants = [(300, _varint(len(data)) + data)]
    return rd


def test_constant_bytes_that_are_not_whole_elements():
    rd = _constant(b"\x01\x02\x03\x04\x05\x06")
    _raises(lambda: rd.dense(0, T.TileType([2], Float32Type()), _Reader(b"", 0)), 300,
            "constant data of 6 bytes is not a whole number of 4-byte elements")


def test_a_constant_with_the_wrong_element_count():
    rd = _constant(b"\0" * 12)
    _raises(lambda: rd.dense(0, T.TileType([4], Float32Type()), _Reader(b"", 0)), 300,
            "constant has 3 elements, its type tile<4xf32> 4")


# ---------------------------------------------------------------------------- type table
def _type(data: bytes, version=(13, 3)):
    return _reader(version)._decode_type(_Reader(data, 400), 0)


def test_a_tensor_view_with_a_zero_stride():
    # tag 14: element type 0 (f32), shape [64], strides [0]; the type's own verifier, at the tag
    _raises(lambda: _type(b"\x0e\x00" + _le64(64) + _le64(0)), 400,
            "invalid type: dimensions must have strictly positive constant strides but got [0]")


def test_a_partition_view_with_a_zero_tile():
    rd = _reader(types={0: Float32Type(), 1: T.TensorViewType(Float32Type(), [64], [1])})
    data = b"\x0f" + _le32(0) + b"\x01" + _le32(0) + b"\x00"  # tile (0), view 1, dim_map [0], no padding
    _raises(lambda: rd._decode_type(_Reader(data, 400), 0), 400,
            "invalid type: tile shape dimensions must have positive length but got [0]")


def test_a_gather_scatter_view_with_its_sparse_dim_out_of_range():
    rd = _reader((13, 4), types={0: Float32Type(), 1: T.TensorViewType(Float32Type(), [64, 64], [64, 1])})
    data = b"\x14\x00" + _le32(8, 8) + b"\x01\x02"  # flags 0, tile (8x8), view 1, sparse_dim 2
    _raises(lambda: rd._decode_type(_Reader(data, 400), 0), 400,
            "invalid type: sparse_dim 2 is out of range for a rank-2 view")


def test_a_strided_view_with_a_zero_traversal_stride():
    rd = _reader((13, 4), types={0: Float32Type(), 1: T.TensorViewType(Float32Type(), [64], [1])})
    data = b"\x15\x00" + _le32(8) + _le32(0) + b"\x01" + _le32(0)
    _raises(lambda: rd._decode_type(_Reader(data, 400), 0), 400,
            "invalid type: traversal strides must be strictly positive but got [0]")


def test_an_unknown_type_tag():
    _raises(lambda: _type(b"\x63"), 400, "unknown type tag 99")


def test_optional_parameters_on_a_pointer_type():
    _raises(lambda: _type(b"\x0c\x01\x00", (13, 4)), 401,
            "unsupported optional parameters (flags 0x1) in type tag 12")


def test_a_type_whose_table_entry_is_out_of_bounds():
    rd = _reader(types={})
    rd.t.type_offsets, rd.t.type_data, rd.t.type_base = [4, 2], b"\x05\x05\x05", 500
    _raises(lambda: rd.type(0, _Reader(b"", 0)), 500, "type 0 has invalid bounds")


# ---------------------------------------------------------------------------- attributes
def _tagged(data: bytes, rd: BytecodeReader | None = None):
    return (rd or _reader())._self_contained_attr(_Reader(data, 600))


@pytest.mark.parametrize("data,offset,message", [
    (b"\x01\x00\x01", 601, "an integer attribute needs an integer type, got f32"),
    (b"\x02\x01\x01", 601, "a float attribute needs a float type, got i32"),
    (b"\x0d", 600, "unknown attribute tag 13"),
])
def test_malformed_tagged_attributes(data, offset, message):
    _raises(lambda: _tagged(data), offset, message)


def test_argument_attributes_that_are_not_dictionaries():
    rd = _reader()
    _raises(lambda: rd._arg_attrs(_Reader(b"\x06\x01\x01\x01\x05", 700), 1, "k"), 700,
            "argument attributes of @k must be an array of dictionaries")


# ---------------------------------------------------------------------------- op attributes and ops
def _attr(kind: str, data: bytes, mnemonic: str = "cmpi", result_types=()):
    _op_class(mnemonic)  # the op table and its enums
    return _reader()._attr(_Reader(data, 800), _Field(True, "x", kind, False, (13, 1)), mnemonic, list(result_types))


@pytest.mark.parametrize("kind,data,message", [
    ("enum:Signedness", b"\x63", "invalid value 99 for enum attribute 'x' of 'cmpi'"),
    ("boolarray", b"\x02\x01\x02", "attribute 'x' of 'cmpi': a boolean array holds 0 or 1, got 2"),
    ("dense", b"\x00", "a constant needs a result type"),
])
def test_malformed_op_attributes(kind, data, message):
    _raises(lambda: _attr(kind, data), 800, message)


@pytest.mark.parametrize("mnemonic,result_types,message", [
    ("addi", [], "'addi' operand 'lhs' is missing"),
    ("make_token", [], "'make_token' is missing result 'result'"),
    ("make_token", [T.TokenType(), T.TokenType()], "'make_token' has 2 results, expected 1"),
])
def test_ops_with_missing_operands_or_results(mnemonic, result_types, message):
    _raises(lambda: _build(_op_class(mnemonic), {}, result_types, {}, [], 900, mnemonic, _reader()), 900, message)


def test_a_function_whose_signature_is_not_a_function_type():
    rd = _reader(types={0: Float32Type(), 1: FunctionType.from_lists([], [])})
    rd.t.strings = ["k"]
    # one function: name string 0, signature type 0 (f32) at offset 1002
    _raises(lambda: list(rd._functions(1000, b"\x01\x00\x00")), 1002, "function signature is not a function type")
