"""tools/run_cuda_tile_corpus.py on inputs written here (the NVIDIA corpus itself is not in the
repository): chunks keep their file's line numbers; each class is assigned as documented."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "run_cuda_tile_corpus.py"


@pytest.fixture(scope="module")
def corpus():
    spec = importlib.util.spec_from_file_location("run_cuda_tile_corpus", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


VALID = "cuda_tile.module @m {\n  entry @k() {\n    return\n  }\n}\n"
SPLIT = ("// RUN: cuda-tile-opt %s -split-input-file -verify-diagnostics\n" + VALID + "// -----\n"
         "cuda_tile.module @m {\n  entry @k() {\n    // expected-error @below {{x}}\n    frob.nicate\n  }\n}\n")


def test_chunks_keep_line_numbers(corpus):
    inputs = corpus.split_inputs("test/a.mlir", SPLIT.encode())
    assert [(i.line, i.expect_error) for i in inputs] == [(1, False), (8, True)]
    assert inputs[1].data.decode().splitlines()[10].strip() == "frob.nicate"  # line 11 of the file


def test_classes(corpus, tmp_path):
    inputs = corpus.split_inputs("test/a.mlir", SPLIT.encode())
    first, second = (corpus.evaluate(i, tmp_path, 120) for i in inputs)
    assert first.kind in ("ptx", "verifies")
    assert second.kind == "located-error"  # xDSL locates an unknown op name at the token after it
    assert re.match(r"test/a\.mlir:1[12]:\d+: error: .*frob\.nicate", second.first_error)
    bad = corpus.Input("test/invalid/x.tileirbc", 0, b"\x7fTileIR\x00\x0d\x09\x00\x00", True, True)
    r = corpus.evaluate(bad, tmp_path, 60)
    assert r.kind == "located-error" and "unsupported bytecode version 13.9.0" in r.first_error
    assert r.first_error.startswith("test/invalid/x.tileirbc: error:")


@pytest.mark.parametrize("runs,invalid", [
    (["cuda-tile-opt %s"], False),
    (["not cuda-tile-opt --split-input-file %s 2>&1 | FileCheck %s"], True),
    (["not cuda-tile-opt %s", "not cuda-tile-translate --test-cudatile-roundtrip %s"], True),
    (["not cuda-tile-translate -mlir-to-cudatilebc -bytecode-version=13.1 %s"], False),  # a writer error
    (["not cuda-tile-opt %s", "cuda-tile-opt %s"], False),
])
def test_files_whose_runs_all_fail_are_expected_invalid(corpus, runs, invalid):
    text = "".join(f"// RUN: {r}\n" for r in runs) + VALID
    assert [i.expect_error for i in corpus.split_inputs("test/x.mlir", text.encode())] == [invalid]
