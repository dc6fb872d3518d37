"""tools/untested_diagnostics.py on a checkout written here: which raised messages a test names."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "untested_diagnostics.py"


def _tool():
    spec = importlib.util.spec_from_file_location("untested_diagnostics", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


SOURCE = '''
def verify(x, op):
    if x:
        raise VerifyException(f"stage count must be in [1, 32], found {x}")
    if not x:
        raise VerifyException("a rule whose message no test names")
    raise LocatedError(op, "the tile " + str(x) + " is too large for the registers of one thread")
    raise BytecodeError(f"short {x}")
'''

MLIR_TEST = '''// RUN: tileorch-opt %s --verify-diagnostics
// expected-error @+1 {{stage count must be in [1, 32], found 0}}
x
'''

PY_TEST = '''
def test_it():
    assert "is too large for the registers" in run()
'''


def test_counts_each_kind_and_finds_the_message_a_test_names(tmp_path):
    (tmp_path / "src" / "tileorch").mkdir(parents=True)
    (tmp_path / "src" / "tileorch" / "rules.py").write_text(SOURCE)
    (tmp_path / "tests" / "filecheck").mkdir(parents=True)
    (tmp_path / "tests" / "filecheck" / "t.mlir").write_text(MLIR_TEST)
    (tmp_path / "tests" / "test_x.py").write_text(PY_TEST)
    messages = {m.key: m for m in _tool().measure(tmp_path)}
    assert messages["stage count must be in [1, 32], found"].tested  # the expectation holds the key
    assert not messages["a rule whose message no test names"].tested
    assert messages["is too large for the registers of one thread"].tested  # a test checks part of it
    assert not messages["short"].tested  # too short to match: counted apart
    assert {m.kind for m in messages.values()} == {"VerifyException", "LocatedError", "BytecodeError"}


def test_lines_of_a_check_prefix_the_run_lines_name_are_expectations(tmp_path):
    """``--check-prefix=POOL`` makes ``POOL:`` lines expectations (they were not counted, so a
    message checked only under a custom prefix was listed untested); other ``WORD:`` lines are not."""
    (tmp_path / "src" / "tileorch").mkdir(parents=True)
    (tmp_path / "src" / "tileorch" / "rules.py").write_text(
        'raise LocatedError(op, "pool_size must be in a range the hardware has")\n'
        'raise LocatedError(op, "a message only a note names here")\n')
    (tmp_path / "tests" / "filecheck").mkdir(parents=True)
    (tmp_path / "tests" / "filecheck" / "t.mlir").write_text(
        "// RUN: not tileorch-opt %s 2>&1 | filecheck %s --check-prefix=POOL\n"
        "// POOL-NEXT: error: pool_size must be in a range the hardware has\n"
        "// NOTE: a message only a note names here\n")
    messages = {m.key: m for m in _tool().measure(tmp_path)}
    assert messages["pool_size must be in a range the hardware has"].tested
    assert not messages["a message only a note names here"].tested


def test_a_test_checking_the_start_of_a_long_message_names_it(tmp_path):
    """A CHECK line with the op's name and the first ``MIN_HEAD`` characters of a long message
    piece counts; one sharing only a shorter start with another message does not."""
    (tmp_path / "src" / "tileorch").mkdir(parents=True)
    (tmp_path / "src" / "tileorch" / "rules.py").write_text(
        "raise LocatedError(op, f\"'{op.name}' reads the scheduler state, which only a pull-model handle keeps; "
        "a closed-form scheduler's tile carries its own position\")\n"
        "raise LocatedError(op, \"Pass: not supported operation type (two versions of one buffer from two blocks)\")\n")
    (tmp_path / "tests" / "filecheck").mkdir(parents=True)
    (tmp_path / "tests" / "filecheck" / "t.mlir").write_text(
        "// CHECK: t.mlir:[[# @LINE - 4]]:5: error: 'x.get' reads the scheduler state, which only a pull-model "
        "handle keeps\n"
        "// CHECK: error: Pass: not supported operation type (a select between two buffers)\n")
    messages = _tool().measure(tmp_path)
    assert [m.tested for m in messages] == [True, False]


def test_calls_of_a_raising_helper_are_its_messages(tmp_path):
    """``def _fail(op, why): raise LocatedError(op, f"pass: {why}")``: each ``_fail(op, "...")`` is a
    LocatedError message of its own (the chained tier's refusals were not counted)."""
    (tmp_path / "src" / "tileorch" / "testing").mkdir(parents=True)
    (tmp_path / "src" / "tileorch" / "tier.py").write_text(
        'def _fail(op, why):\n'
        '    raise LocatedError(op, f"tier: chained dots: {why}")\n'
        'def _other(op, n):\n'
        '    return n\n'
        'def check(op):\n'
        '    _fail(op, "the second dot reads a tile no pipeline carries")\n'
        '    _fail(op, f"a branch in the loop must yield tiles of {op} rows")\n'
        '    _other(op, "not a diagnostic at all, only a string")\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text('X = "the second dot reads a tile no pipeline carries"\n')
    messages = {m.key: m for m in _tool().measure(tmp_path)}
    assert set(messages) == {"tier: chained dots:", "the second dot reads a tile no pipeline carries",
                             "a branch in the loop must yield tiles of"}
    assert messages["the second dot reads a tile no pipeline carries"].tested
    assert not messages["a branch in the loop must yield tiles of"].tested
    assert messages["a branch in the loop must yield tiles of"].kind == "LocatedError"


def test_a_program_table_error_names_the_message(tmp_path):
    """A sweep table's ``error=`` (src/tileorch/testing) is what its tests expect the program to get."""
    (tmp_path / "src" / "tileorch" / "testing").mkdir(parents=True)
    (tmp_path / "src" / "tileorch" / "rules.py").write_text(
        'raise LocatedError(op, "a dot on the loop result is not supported by this tier")\n'
        'raise LocatedError(op, "a message no table and no test names")\n')
    (tmp_path / "src" / "tileorch" / "testing" / "programs.py").write_text(
        '_add("p", kernel, [], (2,), "simt", error="a dot on the loop result is not supported")\n')
    (tmp_path / "tests").mkdir()
    messages = {m.key: m for m in _tool().measure(tmp_path)}
    assert messages["a dot on the loop result is not supported by this tier"].tested
    assert not messages["a message no table and no test names"].tested
