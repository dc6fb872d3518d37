"""tileorch.tools.expected_diagnostics: where each ``expected-*`` designator points, and the
one-to-one pairing of expectations with printed diagnostics (hand-written cases)."""

import pytest

from tileorch.tools.expected_diagnostics import diagnostics, expectations, unmatched

TEXT = """module {
  // expected-error @+2 {{two below}}
  // expected-error @below {{next}}
  %a = op  // expected-error {{same line}}
  // expected-note @above {{prev}}
  // expected-warning @-2 {{minus two}}
  // expected-remark @unknown {{anywhere}}
  "not a comment expected-error {{x}}"
}"""


def test_designators_point_at_lines_in_the_file():
    got = [(e.kind, e.line, e.text, e.comment_line) for e in expectations(TEXT, line_offset=10)]
    assert got == [("error", 14, "two below", 12), ("error", 14, "next", 13), ("error", 14, "same line", 14),
                   ("note", 14, "prev", 15), ("warning", 14, "minus two", 16), ("remark", None, "anywhere", 17)]


def test_only_comments_count():
    assert expectations('%x = "expected-error {{not here}}"') == []


def test_diagnostic_lines_are_parsed_and_other_lines_skipped():
    lines = ["f.mlir:3:5: error: bad thing", "builtin.module {", "tileorch-opt: error: no file",
             "f.mlir:4:1: note: see here\nf.mlir:9:2: warning: slow"]
    got = [(d.kind, d.line, d.text) for d in diagnostics(lines)]
    assert got == [("error", 3, "bad thing"), ("error", None, "no file"), ("note", 4, "see here"),
                   ("warning", 9, "slow")]


def test_each_diagnostic_meets_one_expectation():
    exp = expectations("// expected-error @+1 {{dup}}\n\n// expected-error @-1 {{dup}}", 0)
    one = diagnostics(["f:2:1: error: a dup message"])
    problems = unmatched(exp, one, "f")
    assert problems == ['f:3:4: error: expected error on line 2 "dup" was not produced']
    two = diagnostics(["f:2:1: error: a dup message", "f:2:7: error: dup again"])
    assert unmatched(exp, two, "f") == []


def test_wrong_line_kind_or_text_is_a_miss_and_the_error_unexpected():
    exp = expectations("x // expected-error {{boom}}", 0)
    for line in ["f:2:1: error: boom", "f:1:1: warning: boom", "f:1:1: error: bang"]:
        problems = unmatched(exp, diagnostics([line]), "f")
        assert problems[0].startswith('f:1:6: error: expected error on line 1 "boom" was not produced'), line
    assert unmatched(exp, diagnostics(["f:1:1: error: bang"]), "f")[1] == "f:1:1: error: unexpected error: bang"


def test_unexpected_notes_and_warnings_are_not_failures():
    assert unmatched([], diagnostics(["f:1:1: warning: w", "f:1:1: note: n"]), "f") == []
    assert unmatched([], diagnostics(["f:1:1: error: e"]), "f") == ["f:1:1: error: unexpected error: e"]


_VERIFY_FAILS = """cuda_tile.module @m {
  entry @e() {
    %x = constant <f32: 1.0> : tile<4xf32>
    // expected-error @+1 {{TEXT}}
    %r = pack %x : tile<4xf32> -> tile<8xi8>
    return
  }
}
"""


@pytest.mark.parametrize("text,status", [("expects source and result to have the same size in bytes", 0),
                                         ("a message the verifier does not print", 1)])
def test_a_chunk_that_fails_to_verify_is_checked_against_its_expectations(tmp_path, text, status):
    """``tileorch-opt --verify-diagnostics`` on a chunk whose op verifier fails: the expectation is
    met by the verifier's message, and a wrong expectation fails the run (it once went unchecked:
    a chunk that failed to verify skipped the check)."""
    import subprocess
    import sys

    path = tmp_path / "chunk.mlir"
    path.write_text(_VERIFY_FAILS.replace("TEXT", text))
    proc = subprocess.run([sys.executable, "-m", "tileorch.tools.opt", str(path), "--split-input-file",
                           "--verify-diagnostics"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == status, proc.stdout + proc.stderr
    if status:
        assert "was not produced" in proc.stderr and "unexpected error" in proc.stderr, proc.stderr


@pytest.mark.parametrize("comment,reason", [
    ("// expected-error @bogus {{x}}", "'expected-error @bogus': the location must be @+N, @-N, @above, @below or @unknown"),
    ("// expected-error @+1 2 {{x}}", "'expected-error @+1 2': the location must be"),
    ("// expected-error {{never closed", "'expected-error': the expected text is not closed with }}"),
    ("// expected-note", "'expected-note': the expected text must follow in {{...}}"),
    ("// expected-error-re {{a.*b}}", "'expected-error-re': the -re form is not supported"),
    # session 17: skipped silently (exit 0), and "expected error on line -4" / "on line 0"
    ("// expected-error-5 {{x}}", "'expected-error-5': a line offset is written @+N or @-N"),
    ("// expected-error @-5 {{x}}", "'expected-error @-5' points at line -4, before the first line of its input"),
    ("// expected-warning @above {{x}}", "'expected-warning @above' points at line 0, before the first line"),
])
def test_a_malformed_expectation_is_an_error_not_skipped(comment, reason):
    """A directive that does not parse was skipped silently: a check that could not fail."""
    exp = expectations(f"{comment}\nmodule {{}}", 0)
    assert [e.kind for e in exp] == ["malformed"]
    assert unmatched(exp, [], "f.mlir") == [f"f.mlir:1:4: error: malformed expectation {exp[0].text}"]
    assert exp[0].text.startswith(reason)


def test_prose_that_mentions_a_directive_is_not_one():
    assert expectations("// the expected-error comments below are checked\n// expected-errors: none", 0) == []
