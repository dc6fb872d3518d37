"""``expected-error`` comments, checked as ``mlir-opt --verify-diagnostics`` checks them.

A chunk of ``tileorch-opt`` input may say which diagnostics it must produce::

    // expected-error @+1 {{message text}}
    %x = some.op ...

The designator after the kind says where the diagnostic is located: none for the comment's own
line, ``@+N`` / ``@-N`` for N lines below / above it, ``@below`` / ``@above`` for the next /
previous line, ``@unknown`` for a diagnostic without a source position.  The kinds are
``error``, ``warning``, ``remark`` and ``note``; the text between ``{{`` and ``}}`` must occur in
the diagnostic's message.  A comment that names ``expected-KIND`` in any other form (an unknown
designator such as ``@bogus``, a missing or unterminated ``{{...}}``, mlir-opt's ``-re`` variant,
which is not supported) is a malformed expectation (prose that only mentions ``expected-error``,
followed by another word, is not): an error, never skipped silently (a check
that is skipped cannot fail).

:func:`expectations` reads the comments of one chunk (its lines numbered from the chunk's line
offset in the file), :func:`unmatched` pairs them with the located diagnostic lines a run
printed (``FILE:LINE:COL: KIND: MESSAGE``) and returns one located ``error:`` line per
expectation no diagnostic met and per error no expectation named.  Matching is one to one: each
diagnostic meets at most one expectation and each expectation at most one diagnostic.

Nothing here runs passes or prints; :mod:`tileorch.tools.opt` decides when the check applies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EXPECT = re.compile(
    r"expected-(?P<kind>error|warning|remark|note)\s*(?:@(?P<where>[+-]\d+|above|below|unknown))?\s*"
    r"\{\{(?P<text>.*?)\}\}")
_NAMED = re.compile(r"expected-(?:error|warning|remark|note)(?:-re\b|[-+]\d|\s*@|\s*\{\{|\s*$)")
"""``expected-KIND`` written as a directive (followed by ``-re``, a designator, a line offset without
its ``@`` such as ``-5``, ``{{`` or the end of the line), not prose such as "expected-error
comments are checked"."""
MALFORMED = "malformed"
"""The ``kind`` of an :class:`Expectation` that stands for a malformed ``expected-*`` comment
(its ``text`` says what is wrong)."""
_DIAGNOSTIC = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<kind>error|warning|remark|note): "
                         r"(?P<text>.*)$")
_UNLOCATED = re.compile(r"^(?P<file>[^:]*): (?P<kind>error|warning|remark|note): (?P<text>.*)$")


@dataclass(frozen=True)
class Expectation:
    """One ``expected-KIND`` comment: the diagnostic it asks for and where it was written."""

    kind: str
    line: int | None  # the line the diagnostic must be located on (1-based, in the file); None: @unknown
    text: str
    comment_line: int
    comment_col: int


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic line a run printed (``line`` None: printed without a source position)."""

    kind: str
    line: int | None
    text: str
    raw: str


def expectations(text: str, line_offset: int = 0) -> list[Expectation]:
    """The ``expected-*`` comments of ``text`` (a chunk that starts on line ``line_offset + 1``
    of its file), in the order written.  Only comments (after ``//``) count."""
    found: list[Expectation] = []
    for number, line in enumerate(text.split("\n"), start=line_offset + 1):
        comment = line.find("//")
        if comment < 0:
            continue
        good = {m.start() for m in _EXPECT.finditer(line, comment)}
        for m in _NAMED.finditer(line, comment):
            if m.start() not in good:
                found.append(Expectation(MALFORMED, number, _malformed_reason(line[m.start():]), number,
                                         m.start() + 1))
        for m in _EXPECT.finditer(line, comment):
            where = m.group("where")
            target: int | None
            if where is None:
                target = number
            elif where == "unknown":
                target = None
            elif where == "above":
                target = number - 1
            elif where == "below":
                target = number + 1
            else:
                target = number + int(where)
            if target is not None and target <= line_offset:  # was "expected error on line -4" (or 0)
                found.append(Expectation(MALFORMED, number, f"'expected-{m.group('kind')} @{where}' points at line "
                                         f"{target}, before the first line of its input (line {line_offset + 1})",
                                         number, m.start() + 1))
                continue
            found.append(Expectation(m.group("kind"), target, m.group("text"), number, m.start() + 1))
    return found


def _malformed_reason(directive: str) -> str:
    """What is wrong with ``directive`` (the comment from ``expected-KIND`` on)."""
    head = directive.split("{{", 1)[0].strip()
    if re.match(r"expected-\w+[-+]\d", directive):
        return f"'{head}': a line offset is written @+N or @-N"
    if re.match(r"expected-\w+-re\b", directive):
        return f"'{head}': the -re form is not supported; write a plain substring of the message"
    if "{{" not in directive:
        return f"'{head}': the expected text must follow in {{{{...}}}}"
    if "}}" not in directive.split("{{", 1)[1]:
        return f"'{head}': the expected text is not closed with }}}}"
    return (f"'{head}': the location must be @+N, @-N, @above, @below or @unknown, written before "
            "{{...}}")


def diagnostics(lines: list[str]) -> list[Diagnostic]:
    """The diagnostics among printed ``lines`` (other lines, e.g. IR, are skipped)."""
    out: list[Diagnostic] = []
    for raw in lines:
        for part in raw.split("\n"):
            m = _DIAGNOSTIC.match(part)
            if m:
                out.append(Diagnostic(m.group("kind"), int(m.group("line")), m.group("text"), part))
                continue
            m = _UNLOCATED.match(part)
            if m:
                out.append(Diagnostic(m.group("kind"), None, m.group("text"), part))
    return out


def unmatched(expected: list[Expectation], produced: list[Diagnostic], file_name: str) -> list[str]:
    """Located ``error:`` lines for each expectation no produced diagnostic met, then for each
    produced error (not warning, remark or note: those only meet expectations) no expectation
    named; empty when the run produced exactly what the comments ask for."""
    used = [False] * len(produced)
    problems: list[str] = []
    for exp in expected:
        if exp.kind == MALFORMED:
            problems.append(f"{file_name}:{exp.comment_line}:{exp.comment_col}: error: malformed expectation "
                            f"{exp.text}")
            continue
        for i, diag in enumerate(produced):
            if not used[i] and diag.kind == exp.kind and diag.line == exp.line and exp.text in diag.text:
                used[i] = True
                break
        else:
            where = "without a location" if exp.line is None else f"on line {exp.line}"
            problems.append(f"{file_name}:{exp.comment_line}:{exp.comment_col}: error: expected {exp.kind} "
                            f"{where} \"{exp.text}\" was not produced")
    for i, diag in enumerate(produced):
        if not used[i] and diag.kind == "error":
            problems.append(f"{diag.raw.split(': error: ', 1)[0]}: error: unexpected error: {diag.text}")
    return problems
