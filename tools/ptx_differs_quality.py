"""What changed in the programs ``tools/ptx_identity.py check DIR`` found different (issue 22).

Usage::

    python tools/ptx_differs_quality.py DIR [--out FILE.json]

For each ``DIR/differs/<name>.ptx`` (the new PTX ``check`` kept) against ``DIR/<name>.ptx`` (the
saved one): the PTX instruction count (lines that are not directives, labels, braces or
comments), the virtual register declarations, and what ``ptxas -v`` (the installed one, at the
PTX's own ``.target``) reports for both: registers, spill bytes, stack frame, cubin size.  One
line per program on stdout; ``--out`` writes them as JSON.  A PTX change is explained when its
instructions, registers and spills are no worse.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def instructions(ptx: str) -> int:
    n = 0
    for line in ptx.splitlines():
        s = line.strip()
        if s and not s.startswith(("//", ".", "{", "}")) and not s.endswith(":"):
            n += 1
    return n


def virtual_registers(ptx: str) -> dict[str, int]:
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"\.reg \.(\w+)\s+%\w+<(\d+)>", ptx)}


def ptxas_report(ptx: str, ptxas: str) -> dict:
    arch = re.search(r"^\.target (\w+)", ptx, re.M).group(1)
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        Path(src).write_text(ptx)
        extra = ["-c"] if ".extern .func" in ptx else []  # system calls (vprintf, __assertfail)
        proc = subprocess.run([ptxas, f"-arch={arch}", "-v", *extra, src, "-o", out], capture_output=True, text=True)
        err = proc.stderr
        return {"rc": proc.returncode,
                "registers": [int(x) for x in re.findall(r"Used (\d+) registers", err)],
                "spill_bytes": [int(a) + int(b) for a, b in re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", err)],
                "stack_frame": [int(x) for x in re.findall(r"(\d+) bytes stack frame", err)],
                "cubin_bytes": os.path.getsize(out) if proc.returncode == 0 else None}


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    directory = Path(argv[0])
    from tileorch.backend.ptxas import find_ptxas

    ptxas = find_ptxas().path
    rows = {}
    for new_path in sorted((directory / "differs").glob("*.ptx")):
        name = new_path.stem
        old, new = (directory / f"{name}.ptx").read_text(), new_path.read_text()
        row = rows[name] = {"ptx_instructions": [instructions(old), instructions(new)],
                            "virtual_registers": [virtual_registers(old), virtual_registers(new)],
                            "ptxas": [ptxas_report(old, ptxas), ptxas_report(new, ptxas)]}
        a, b = row["ptxas"]
        print(f"{name}: PTX instructions {row['ptx_instructions'][0]} -> {row['ptx_instructions'][1]}; ptxas registers "
              f"{a['registers']} -> {b['registers']}, spill bytes {a['spill_bytes']} -> {b['spill_bytes']}, "
              f"cubin {a['cubin_bytes']} -> {b['cubin_bytes']} B")
    if "--out" in argv:
        Path(argv[argv.index("--out") + 1]).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
