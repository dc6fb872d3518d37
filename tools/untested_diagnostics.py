"""Count the verifier and front-end diagnostics that no test expects.

Contract: walks ``src/tileorch`` with :mod:`ast` and collects every diagnostic a user can be shown
by an exception raised with a message: ``raise VerifyException(...)`` (verifier rules),
``raise LocatedError(...)`` (the front ends' and lowerings' located errors) and
``raise BytecodeError(...)`` (the Tile IR bytecode reader), and calls of a module's helpers whose
one statement raises one of them with their last parameter in the message (the chained tier's
``_fail(op, why)``).  A message's *key* is the longest
literal piece of its text (a plain string, the constant parts of an f-string, a ``%`` or ``+``
concatenation); messages whose longest piece is shorter than ``MIN_KEY`` characters cannot be
matched and are counted apart ("unkeyed").

A message is *tested* when its key (or another literal piece of ``MIN_PIECE``+ characters)
appears in a test's expectation or a test's message
(both whitespace-normalised), or in the ``error=`` of a program table in ``src/tileorch/testing``
(the sweeps' expected refusals): the text of ``expected-error``/``-warning``/``-note``/``-remark``
comments and ``CHECK`` lines (and the lines of the prefixes a RUN line names with ``--check-prefix``) of
``tests/**/*.mlir`` (and the other lit inputs), or any string
literal of ``tests/**/*.py``; or when such an expectation of at least ``MIN_EXPECTATION``
characters appears inside one of those pieces (a test that checks part of the message), or the first
``MIN_HEAD`` characters of a piece appear in the test text (a CHECK line that names the op the
message starts with and checks the message's beginning).  This is a
heuristic: a key found in a test means some test names the message, not that the rule's every
branch is exercised.

``python tools/untested_diagnostics.py [--root CHECKOUT]`` prints the counts per kind; ``--list`` prints every
untested message as ``path:line: kind: key`` (most user-reachable first: dialect verifiers and
front ends before lowerings); ``--json`` the same as JSON.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("VerifyException", "LocatedError", "BytecodeError")
MIN_KEY = 8
MIN_PIECE = 12
MIN_EXPECTATION = 15
MIN_HEAD = 60
EXPECT = re.compile(r"(?:expected-(?:error|warning|note|remark)[^{]*\{\{(.*?)\}\})|(?:CHECK[-A-Z]*:\s*(.*))")
PREFIX_OPTION = re.compile(r"--check-prefix(?:es)?[= ]([\w,-]+)")


def _expect_pattern(text: str) -> re.Pattern:
    """:data:`EXPECT`, with the FileCheck prefixes the file's RUN lines name (``--check-prefix=POOL``:
    ``POOL:`` and ``POOL-NEXT:`` lines are expectations too)."""
    prefixes = {p for m in PREFIX_OPTION.finditer(text) for p in m.group(1).split(",") if p and p != "CHECK"}
    if not prefixes:
        return EXPECT
    alternatives = "|".join(["CHECK"] + sorted(map(re.escape, prefixes), key=len, reverse=True))
    return re.compile(EXPECT.pattern.replace("(?:CHECK[-A-Z]*:", f"(?:(?:{alternatives})[-A-Z]*:"))


# Order of the --list output: the places a user's input reaches first.
REACH = ("dialects/", "frontend/", "tools/", "cli/", "driver", "transforms/cudatile_to_tileaa",
         "transforms/", "backend/", "")


@dataclass
class Message:
    path: str
    line: int
    kind: str
    key: str
    pieces: tuple[str, ...] = ()
    tested: bool = False


def _norm(text: str) -> str:
    return " ".join(text.split())


def _pieces(node: ast.AST) -> list[str]:
    """The literal text pieces of a message expression."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        out: list[str] = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                out.append(part.value)
            else:
                out.append("\0")  # a formatted value splits the literal text
        return "".join(out).split("\0")
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _pieces(node.left) + (_pieces(node.right) if isinstance(node.op, ast.Add) else [])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        return [p for piece in _pieces(node.func.value) for p in re.split(r"\{[^}]*\}", piece)]
    return []


def _raising_helpers(tree: ast.Module) -> dict[str, tuple[str, int]]:
    """A module's helpers that only raise a diagnostic built from one of their parameters (the
    chained tier's ``def _fail(op, why): raise LocatedError(op, f"{PASS}: chained dots: {why}")``):
    name -> (the kind raised, the position of the message parameter).  A call of such a helper
    with a message is that diagnostic."""
    helpers: dict[str, tuple[str, int]] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or len(node.body) != 1 or not isinstance(node.body[0], ast.Raise):
            continue
        exc = node.body[0].exc
        if not isinstance(exc, ast.Call):
            continue
        name = exc.func.id if isinstance(exc.func, ast.Name) else getattr(exc.func, "attr", None)
        if name not in KINDS:
            continue
        used = {n.id for arg in exc.args for n in ast.walk(arg) if isinstance(n, ast.Name)}
        params = [a.arg for a in node.args.args]
        message = [i for i, a in enumerate(params) if a in used and i == len(params) - 1]
        if message:
            helpers[node.name] = (name, message[0])
    return helpers


def collect_messages(src: Path, root: Path = ROOT) -> list[Message]:
    found: list[Message] = []
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        helpers = _raising_helpers(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
                name, index = helpers[node.func.id]  # a call of a raising helper: its message argument
                args = node.args[index:index + 1]
            elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                func = node.exc.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                args = node.exc.args
            else:
                continue
            if name not in KINDS or not args:
                continue
            pieces = [_norm(p) for arg in args for p in _pieces(arg)]
            key = max(pieces, key=len, default="")
            found.append(Message(str(path.relative_to(root)), node.lineno, name, key,
                                 tuple(p for p in pieces if len(p) >= MIN_PIECE)))
    return found


def collect_expectations(tests: Path) -> tuple[str, list[str]]:
    """All test text a message may be named in (one string), and the expectations alone."""
    corpus: list[str] = []
    expectations: list[str] = []
    for path in sorted(tests.rglob("*")):
        if not path.is_file() or path.suffix in {".pyc", ".tileirbc", ".bc", ".cubin", ".bin"}:
            continue
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        if path.suffix == ".py":
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    corpus.append(_norm(node.value))
                    expectations.append(_norm(node.value))
                elif isinstance(node, ast.JoinedStr):
                    for part in _pieces(node):
                        corpus.append(_norm(part))
        else:
            for match in _expect_pattern(text).finditer(text):
                expect = _norm(match.group(1) or match.group(2) or "")
                # A FileCheck regex {{...}} in an expectation is not literal text: split at it.
                for part in re.split(r"\{\{.*?\}\}", expect):
                    corpus.append(part)
                    expectations.append(part)
    return "\n".join(corpus), [e for e in expectations if len(e) >= MIN_EXPECTATION]


def collect_table_expectations(testing: Path) -> list[str]:
    """The ``error=`` strings of the program tables in ``src/tileorch/testing`` (a sweep's entry
    ``_add(name, kernel, args, ..., error="...")``: the message its tests expect the program to
    get, checked by the tests that run the table)."""
    found: list[str] = []
    for path in sorted(testing.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.keyword) and node.arg == "error":
                found.extend(_norm(p) for p in _pieces(node.value) if p.strip())
    return found


def measure(root: Path = ROOT) -> list[Message]:
    messages = collect_messages(root / "src" / "tileorch", root)
    corpus, expectations = collect_expectations(root / "tests")
    tables = collect_table_expectations(root / "src" / "tileorch" / "testing")
    corpus += "\n" + "\n".join(tables)
    expectations += [e for e in tables if len(e) >= MIN_EXPECTATION]
    for message in messages:
        if len(message.key) < MIN_KEY:
            continue
        keys = set(message.pieces) | {message.key}
        heads = {k[:MIN_HEAD] for k in keys if len(k) >= MIN_HEAD}
        message.tested = (any(k in corpus for k in keys | heads)
                          or any(e in k for e in expectations for k in keys))
    return messages


def _reach(message: Message) -> int:
    rel = message.path.removeprefix("src/tileorch/")
    return next(i for i, prefix in enumerate(REACH) if rel.startswith(prefix))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print every untested message")
    parser.add_argument("--json", action="store_true", help="counts and untested messages as JSON")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the checkout to measure (its src/tileorch and tests; default: this one)")
    args = parser.parse_args(argv)
    messages = measure(args.root.resolve())
    untested = sorted((m for m in messages if not m.tested and len(m.key) >= MIN_KEY),
                      key=lambda m: (_reach(m), m.path, m.line))
    counts = {}
    for kind in KINDS:
        of_kind = [m for m in messages if m.kind == kind]
        counts[kind] = {
            "total": len(of_kind),
            "unkeyed": sum(len(m.key) < MIN_KEY for m in of_kind),
            "untested": sum(not m.tested and len(m.key) >= MIN_KEY for m in of_kind),
        }
    if args.json:
        json.dump({"counts": counts, "untested": [m.__dict__ for m in untested]}, sys.stdout, indent=1)
        print()
        return 0
    for kind, c in counts.items():
        print(f"{kind}: {c['total']} raised, {c['untested']} without a test naming the message, "
              f"{c['unkeyed']} without a literal piece of {MIN_KEY}+ characters (not counted)")
    if args.list:
        for m in untested:
            print(f"{m.path}:{m.line}: {m.kind}: {m.key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
