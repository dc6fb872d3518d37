"""Byte-identity of the generated PTX before and after a compile-time change (issue 22).

Usage::

    python tools/ptx_identity.py save  DIR   # PTX of every input -> DIR/<name>.ptx
    python tools/ptx_identity.py check DIR   # compile again, compare with DIR; exit 1 on a difference

The inputs: every ``examples/*.mlir`` (at the module's own target) and the cuTile programs of
``benchmarks/compile_time.py`` (exported to bytecode once, under ``DIR/bytecode``; ``check``
reuses that bytecode, so the comparison does not depend on cuTile's exporter).  Compiles run in
this process with the cache off and without ptxas (the PTX is what is compared).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def inputs(directory: Path) -> dict[str, object]:
    """name -> source (example path, or cuTile bytecode)."""
    out: dict[str, object] = {p.stem: str(p) for p in sorted((ROOT / "examples").glob("*.mlir"))}
    bc = directory / "bytecode"
    if not bc.is_dir():
        bc.mkdir(parents=True)
        sys.path.insert(0, str(ROOT / "benchmarks"))
        import compile_time as ct

        for name, (kernel, spec, _) in ct._cutile_programs().items():
            ct.export_cutile(name, kernel, spec, bc)
    for p in sorted(bc.glob("*.tileirbc")):
        out[p.stem] = p.read_bytes()
    return out


def main(argv: list[str]) -> int:
    mode, directory = argv[0], Path(argv[1])
    import tileorch

    differ = 0
    for name, source in inputs(directory).items():
        try:
            ptx = tileorch.compile(source, None, cache=False, ptxas=False, isolate=True).ptx
        except Exception as exc:  # noqa: BLE001 - a failing input is reported by name
            ptx = f"ERROR {type(exc).__name__}: {exc}\n"
        path = directory / f"{name}.ptx"
        if mode == "save":
            path.write_text(ptx)
            print(f"saved {name} ({ptx.count(chr(10))} lines)")
        else:
            same = path.exists() and path.read_text() == ptx
            differ += not same
            print(f"{'same' if same else 'DIFFERS'} {name}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
