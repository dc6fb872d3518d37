"""Compare the PTX of two ``tools/ptx_identity.py save`` directories by instruction multiset, kernel by kernel.

Usage::

    python tools/ptx_multiset.py BEFORE_DIR AFTER_DIR [--only PREFIX] [--show N]

AFTER_DIR: a ``save`` directory, or the directory a ``check`` ran on (a copy of BEFORE_DIR): its ``differs/<name>.ptx``
where there is one, else ``<name>.ptx``.

For a change that should keep every instruction and only move or rename it (inline assembly replaced by the
intrinsic NVPTX selects to the same instruction: the ``// begin inline asm`` markers go, registers are named
and allocated anew, the scheduler may order them otherwise), byte identity says nothing; this compares, per
``.entry`` / ``.func``, the multiset of instructions: each opcode with all its modifiers (``fma.rn.sat.f32``,
``ld.global.nc.v4.b32``), a guard ``@%p`` kept as ``@``, operands, labels, comments, directives and register
declarations dropped.  Output: one line per program, ``same`` / ``differs`` (then the instructions it has more
or fewer of, ``+n opcode`` / ``-n opcode``, at most ``--show`` of them) / ``missing``; a summary last.  Exit 0.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

_FUNC = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)", re.M)
_INSTR = re.compile(r"^\s*(@!?%\w+\s+)?([a-z][\w.:]*)")


def kernels(ptx: str) -> dict[str, Counter]:
    """Kernel / function name -> Counter of its instructions (opcode with modifiers; ``@`` for a guarded one)."""
    out: dict[str, Counter] = {}
    starts = [(m.start(), m.group(1)) for m in _FUNC.finditer(ptx)]
    for i, (pos, name) in enumerate(starts):
        body = ptx[pos:starts[i + 1][0] if i + 1 < len(starts) else len(ptx)]
        body = body[body.find("{") + 1:] if "{" in body else ""
        count: Counter = Counter()
        for line in body.splitlines():
            line = line.split("//", 1)[0]
            for stmt in line.split(";"):
                m = _INSTR.match(stmt)
                if m and not stmt.strip().endswith(":"):
                    count[("@" if m.group(1) else "") + m.group(2)] += 1
        out[name] = count
    return out


def compare(before: str, after: str) -> list[str]:
    """``+n op`` / ``-n op`` per instruction whose count differs (all kernels of the two texts)."""
    a, b = kernels(before), kernels(after)
    diff: list[str] = []
    for name in sorted(set(a) | set(b)):
        ca, cb = a.get(name, Counter()), b.get(name, Counter())
        for op in sorted(set(ca) | set(cb)):
            d = cb[op] - ca[op]
            if d:
                diff.append(f"{name}: {d:+d} {op}")
    return diff


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__.split("Usage::")[1].split("For a change")[0].strip(), file=sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    before, after = Path(argv[0]), Path(argv[1])
    only = argv[argv.index("--only") + 1] if "--only" in argv else ""
    show = int(argv[argv.index("--show") + 1]) if "--show" in argv else 12
    same = differs = missing = 0
    for p in sorted(before.glob(f"{only}*.ptx")):
        q = after / "differs" / p.name  # (a ptx_identity.py check directory: a differing program's new PTX)
        if not q.exists():
            q = after / p.name
        if not q.exists():
            missing += 1
            print(f"missing {p.stem}")
            continue
        diff = compare(p.read_text(), q.read_text())
        if diff:
            differs += 1
            print(f"differs {p.stem} ({len(diff)} counts): " + "; ".join(diff[:show]))
        else:
            same += 1
            print(f"same {p.stem}")
    print(f"summary: {same} same instruction multisets, {differs} differ, {missing} missing")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
