"""The bytecode fuzzer (``tools/fuzz_bytecode.py``): its tracing reader and mutations, a short
deterministic campaign (corrupted cuTile programs never give a traceback, an internal error or a
hang), and one regression test per class of finding of the long campaigns."""

from __future__ import annotations

import contextlib
import io
import random
from pathlib import Path

import pytest

from tileorch.frontend.cuda_tile_bytecode import read_bytecode
from tileorch.tools import fuzz_bytecode as fz

ROOT = Path(__file__).resolve().parents[2]
FINDINGS = Path(__file__).resolve().parent / "fuzz_findings" / "bytecode"


@pytest.fixture(scope="module")
def seeds():
    return fz.load_seeds(ROOT)


def test_seeds_are_traced(seeds):
    """Every fixture decodes under the tracing reader; its indices know their table sizes."""
    assert len([s for s in seeds if not s.name.startswith("writer:")]) >= 13
    assert any(s.name.startswith("writer:") for s in seeds)
    add = next(s for s in seeds if s.name.endswith("/add.tileirbc"))
    kinds = {f.kind for f in add.fields}
    assert {"type", "string", "constant", "value", "opcode", "debug", "debug_function", "fixed", "varint"} <= kinds
    assert all(f.limit > f.value for f in add.fields if f.kind in ("type", "string", "constant", "value"))
    assert len(add.bodies) == 1 and add.bodies[0].length > 0
    for s in seeds:  # the section layout is understood: writing the sections again gives the file back
        if not s.name.startswith("writer:"):
            assert fz.rebuild(s.data, fz.parse_sections(s.data)) == s.data, s.name


def test_a_widened_field_keeps_the_file_consistent(seeds):
    """An operand index written one byte wider: the body size and the section length follow, and
    the program is unchanged."""
    add = next(s for s in seeds if s.name.endswith("/add.tileirbc"))
    f = next(f for f in add.fields if f.kind == "value")
    wider = fz.splice(add.data, fz.parse_sections(add.data), add.bodies, f.offset, f.width,
                      fz._padded_varint(f.value, f.width + 1))
    before, after = fz.parse_sections(add.data), fz.parse_sections(wider)
    assert after[0].length == before[0].length + 1  # the function section (then alignment padding)
    a, b = read_bytecode(add.data), read_bytecode(wider)
    assert [op.name for op in a.walk()] == [op.name for op in b.walk()]


def test_mutations_change_the_input_and_are_reproducible(seeds):
    def run(seed: int) -> list[tuple[bytes, list[str]]]:
        rng = random.Random(seed)
        m = fz.Mutator(rng, seeds)
        return [m.mutate(rng.choice(seeds), rng.choice([1, 2, 3])) for _ in range(300)]

    first = run(7)
    assert first == run(7)
    applied = {a for _, ops in first for a in ops}
    assert {"index", "varint", "fixed", "opcode", "section", "section_length", "bit_flip", "byte_set", "truncate",
            "chunk"} <= applied


@pytest.mark.parametrize("code,output,kind", [
    (0, "", "ok"),
    (1, "k.tileirbc: error: invalid CUDA Tile IR bytecode at offset 12: unknown section id 127\n", "bytecode-error"),
    (1, "kernels.py:18:33: error: result #0 must be tile of f16\n", "diagnostic"),
    (1, "k.tileirbc:0:247: error: bad\n", "diagnostic"),
    (1, "<unknown>: error: bad\n", "finding:unlocated"),
    (1, "k.tileirbc: error: bad\n", "finding:unlocated"),
    (1, "Traceback (most recent call last):\nKeyError: x\n", "finding:traceback"),
    (1, "kernels.py:3:4: error: internal error in convert-nv-tileaa-to-simt (KeyError)\n", "finding:internal-error"),
    (1, "", "finding:exit-1-without-diagnostic"),
    (99, "", "finding:exit-99"),
])
def test_classify(code, output, kind):
    assert fz.classify(code, None, output, False) == kind


def test_classify_hangs_and_signals():
    import signal

    assert fz.classify(-1, None, "", True) == "finding:hang"
    assert fz.classify(-1, signal.SIGSEGV, "", False) == "finding:signal-SIGSEGV"
    sig = fz.signature("finding:traceback", 'Traceback (most recent call last):\n  File "/x/src/tileorch/a.py", '
                                            'line 3, in f\nKeyError: 12\n')
    assert sig == "finding:traceback: KeyError: N at a.py:f"


def test_short_deterministic_campaign(seeds, tmp_path):
    """300 mutants (seed 1) through the reader, the verifier and the front end (``lower_program``)
    and through ``tileorch-opt``: located diagnostics or success only."""
    lines: list[str] = []
    report = fz.fuzz(seeds, inputs=300, jobs=2, rng_seed=1, timeout=120, modes={"front": 2, "opt": 1},
                     out_dir=tmp_path, log=lines.append)
    assert report.tried == 300
    assert not report.findings, "\n".join(lines)
    assert report.kinds["ok"] > 0 and report.kinds["diagnostic"] > 0 and report.kinds["bytecode-error"] > 0


@pytest.mark.parametrize("path", sorted(FINDINGS.glob("*.tileirbc")), ids=lambda p: p.stem)
@pytest.mark.parametrize("mode", ["front", "opt"])
def test_finding_gives_located_diagnostics(path, mode, tmp_path):
    """Each input once gave a traceback or an internal error (see docs/fuzzing.md):
    ``float_attr_with_integer_type`` (KeyError: IntegerType), ``int_attr_with_tensor_view_type``
    (AttributeError: 'TensorViewType' object has no attribute 'normalized_value'),
    ``view_index_of_pointers`` (internal error in convert-cudatile-to-tileaa),
    ``kernel_name_not_a_ptx_identifier`` (LLVM abort), ``static_stride_over_32_bits`` (internal
    error in convert-nv-tileaa-to-simt), ``hint_out_of_range`` (``<unknown>: error: kernel_spec
    num_ctas ...``, unlocated), ``reduce_dim_over_32_bits`` (``<unknown>: error: Integer value
    9007194959773696 is out of range for type i32``, unlocated), ``invalid_result_type_in_opt``
    (``<unknown>: error: FILE:7:5: error: 'constant' has an invalid result type ...`` in opt mode)."""
    local = tmp_path / path.name
    local.write_bytes(path.read_bytes())
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = fz._run(mode, str(local))
        except SystemExit as exc:
            code = exc.code
    kind = fz.classify(code, None, out.getvalue(), False)
    assert not kind.startswith("finding"), out.getvalue()
