"""CUDA Tile IR bytecode that no test fed the reader before (tools/untested_diagnostics.py,
session 21), each a located ``BytecodeError``: a debug-info section with fewer entries than the
function has ops, a debug-info location that names a file instead of a position, and regions
nested deeper than Python's recursion allows.  The bad bytecode is tileorch's own writer's output
for a cuTile export with one thing broken (the writer's debug section patched), never an
expected value copied from the reader."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tileorch.frontend import cuda_tile_bytecode_writer as writer
from tileorch.frontend.cuda_tile_bytecode import BytecodeError, read_bytecode

ADD = Path(__file__).resolve().parent / "cutile_bytecode" / "add.tileirbc"
"""cuTile's export of a vector add (with debug info: every op has a source position)."""


def _module():
    return read_bytecode(ADD.read_bytes(), "add.tileirbc")


def _written(monkeypatch, patch) -> bytes:
    """The writer's bytecode of the add program with its debug section passed through ``patch``
    (``patch(original_section_function, w, functions) -> bytes``)."""
    original = writer._debug_section
    monkeypatch.setattr(writer, "_debug_section", lambda w, functions: patch(original, w, functions))
    return writer.write_bytecode(_module())


def test_the_unpatched_writer_round_trips():
    """The control: the same program written without a patch reads back."""
    read_bytecode(writer.write_bytecode(_module()), "ok.tileirbc")


def test_a_debug_section_short_of_one_entry_names_the_op(monkeypatch):
    data = _written(monkeypatch, lambda f, w, functions: f(w, [(n, ps[:-1]) for n, ps in functions]))
    with pytest.raises(BytecodeError, match=r"'return' at offset \d+ has no debug-info entry \(entry (\d+) of \1; "
                                            r"debug info of @add_\w+\)"):
        read_bytecode(data, "short.tileirbc")


def test_a_debug_location_that_is_a_file_is_refused(monkeypatch):
    def file_for_the_function(f, w, functions):
        out = bytearray(f(w, functions))
        # one function: varint(1), padding to 4, its 4-byte offset, varint(count), padding to 8, indices
        pos = 1 + 3 + 4
        pos += 1
        pos += (-pos) % 8
        out[pos:pos + 8] = (1).to_bytes(8, "little")  # the function's entry -> attribute 1, the DIFile
        return bytes(out)

    data = _written(monkeypatch, file_for_the_function)
    with pytest.raises(BytecodeError, match=r"the debug-info location of function @add_\w+ is a DIFile, "
                                            r"not a location"):
        read_bytecode(data, "file.tileirbc")


def test_nesting_beyond_the_recursion_limit_is_located():
    """40 nested ifs read under a recursion limit that leaves too little room for them: the
    reader's RecursionError is 'bytecode nesting too deep' at offset 0, not a crash."""
    from tileorch.diagnostics import parse_module
    from tileorch.registry import make_context

    depth = 40
    body = "  " * depth + "yield %x : tile<f32>\n"
    for i in reversed(range(depth)):
        pad = "  " * (i + 2)
        body = (f"{pad}%x{i} = if %c -> (tile<f32>) {{\n{body}{pad}}} else {{\n{pad}  yield %x : tile<f32>\n{pad}}}\n"
                + (f"{pad}yield %x{i} : tile<f32>\n" if i else ""))
    text = ("cuda_tile.module @m {\n  entry @k() {\n    %x = constant <f32: 1.0> : tile<f32>\n"
            "    %c = constant <i1: true> : tile<i1>\n" + body + "    return\n  }\n}\n")
    data = writer.write_bytecode(parse_module(make_context(), text, "nested.mlir"))
    read_bytecode(data, "nested.tileirbc")  # reads under the usual limit
    frame, depth_now = sys._getframe(), 0
    while frame is not None:
        depth_now, frame = depth_now + 1, frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth_now + 60)
    try:
        with pytest.raises(BytecodeError, match="bytecode nesting too deep"):
            read_bytecode(data, "nested.tileirbc")
    finally:
        sys.setrecursionlimit(old)
