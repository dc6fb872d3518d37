"""``cuda_tile_conformance.bytecode_roundtrip`` on a repository written here (the NVIDIA corpus is
not in this repository): round-trip files are found by their RUN lines, written as bytecode, read
back and compared; a module that does not come back is reported with the reason."""

from tileorch.tools.cuda_tile_conformance import _is_bytecode_roundtrip, bytecode_roundtrip

MODULE = """cuda_tile.module @k {
  entry @f() {
    %c = constant <i32: 7> : tile<i32>
    return
  }
}
"""


def test_round_trip_files_are_found_by_their_run_lines():
    assert _is_bytecode_roundtrip("// RUN: %round_trip_test %s %t\n")
    assert _is_bytecode_roundtrip("// RUN: cuda-tile-translate -mlir-to-cudatilebc %s -o %t.bc\n"
                                  "// RUN: cuda-tile-translate -cudatilebc-to-mlir %t.bc | FileCheck %s\n")
    assert not _is_bytecode_roundtrip("// RUN: not cuda-tile-translate -mlir-to-cudatilebc %s\n")
    assert not _is_bytecode_roundtrip("// RUN: cuda-tile-opt %s | FileCheck %s\n")


def test_bytecode_roundtrip(tmp_path):
    (tmp_path / "test" / "Bytecode").mkdir(parents=True)
    (tmp_path / "test" / "Bytecode" / "ok.mlir").write_text("// RUN: %round_trip_test %s %t\n" + MODULE)
    (tmp_path / "test" / "Bytecode" / "bad.mlir").write_text("// RUN: %round_trip_test %s %t\n"
                                                             "cuda_tile.module @k {\n  frob.nicate\n}\n")
    (tmp_path / "test" / "Bytecode" / "other.mlir").write_text("// RUN: cuda-tile-opt %s\n" + MODULE)
    passed, failed = bytecode_roundtrip(str(tmp_path))
    assert passed == ["test/Bytecode/ok.mlir"]
    assert list(failed) == ["test/Bytecode/bad.mlir"] and "frob.nicate" in failed["test/Bytecode/bad.mlir"]
