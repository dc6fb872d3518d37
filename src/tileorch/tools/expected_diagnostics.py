"""``expected-error`` comments, checked as ``mlir-opt --verify-diagnostics`` checks them.

A chunk of ``tileorch-opt`` input may say which diagnostics it must produce::

    // expected-error @+1 {{message text}}
    %x = some.op ...

The designator after the kind says where the diagnostic is located: none for the comment's own
line, ``@+N`` / ``@-N`` for N lines below / above it, ``@below`` / ``@above`` for the next /
previous line, ``@unknown`` for a diagnostic without a source position.  The kinds are
``error``, ``warning``, ``remark`` and ``note``; the text between ``{{`` and ``}}`` must occur in
the diagnostic's message.

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
            found.append(Expectation(m.group("kind"), target, m.group("text"), number, m.start() + 1))
    return found


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
