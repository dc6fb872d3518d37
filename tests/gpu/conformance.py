"""The GPU conformance suite's kernels: what to compile, where the compiled kernels live, and
how each configuration is run and checked bit-exactly against NumPy.

    python tests/gpu/conformance.py build            # compile every kernel (needs xDSL + ptxas)
    python tests/gpu/conformance.py run --subset S   # run cases without pytest (sanitizer runs)

``build`` writes ``build/gpu/conformance/<kernel>.cubin`` and ``manifest.json`` (the hash of each
kernel's MLIR and of the compiler's sources), so a GPU machine without xDSL runs what was compiled
elsewhere; a kernel whose MLIR or compiler changed since is recompiled in-process when xDSL is
importable.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "gpu" / "conformance"
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).parent))

POISON = 0xDEADBEEF
COMPILER_SOURCES = ("dialects", "transforms", "backend", "schedulers", "registry.py", "diagnostics.py")


def compiler_digest() -> str:
    """Hash of the sources that turn MLIR into PTX (so a stale cubin is never reused)."""
    h = hashlib.sha256()
    base = ROOT / "src" / "tileorch"
    for name in COMPILER_SOURCES:
        for f in sorted((base / name).rglob("*.py")) if (base / name).is_dir() else [base / name]:
            h.update(str(f.relative_to(base)).encode() + f.read_bytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class KernelSource:
    """One kernel to compile: entry name, module text, and the lowering's debug-timeout polls."""

    name: str
    mlir: str
    debug_timeout: int = 0

    @property
    def digest(self) -> str:
        return hashlib.sha256(f"{self.debug_timeout}:{self.mlir}".encode()).hexdigest()[:16]


@dataclass
class Case:
    """One configuration: ``run(kernel)`` launches it and raises AssertionError on a mismatch."""

    id: str
    kernel: str
    run: Callable[..., None]
    tags: set[str] = field(default_factory=set)


_COMPILER = compiler_digest()


def families() -> list:
    import cases_atoms
    import cases_barriers
    import cases_cluster
    import cases_fixup
    import cases_mods
    import cases_pipeline
    import cases_pull
    import cases_sched

    return [cases_atoms, cases_pipeline, cases_cluster, cases_barriers, cases_sched, cases_pull, cases_fixup, cases_mods]


def all_sources() -> dict[str, KernelSource]:
    return {k.name: k for fam in families() for k in fam.sources()}


def all_cases() -> list[Case]:
    return [c for fam in families() for c in fam.cases()]


# ---- compiling -------------------------------------------------------------------------------


def _compile_one(src: KernelSource, out: Path) -> tuple[str, str | None]:
    from tileorch.cli.run import compile_mlir

    try:
        ptx = compile_mlir(src.mlir, f"{src.name}.mlir", src.debug_timeout)
    except Exception as exc:  # report every failing kernel, keep building the rest
        (out / f"{src.name}.mlir").write_text(src.mlir)
        return src.name, f"{type(exc).__name__}: {exc}"
    (out / f"{src.name}.ptx").write_text(ptx)
    proc = subprocess.run(["ptxas", "-arch=sm_90a", str(out / f"{src.name}.ptx"), "-o",
                           str(out / f"{src.name}.cubin")], capture_output=True, text=True)
    if proc.returncode:
        (out / f"{src.name}.mlir").write_text(src.mlir)
        return src.name, "ptxas: " + proc.stderr.strip()
    (out / f"{src.name}.ptx").unlink()
    return src.name, None


def build(out: Path = BUILD, jobs: int = 2, only: str | None = None) -> int:
    out.mkdir(parents=True, exist_ok=True)
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    todo = [s for s in all_sources().values()
            if (only is None or only in s.name)
            and (manifest.get(s.name) != [s.digest, _COMPILER] or not (out / f"{s.name}.cubin").exists())]
    failures = {}
    from tileorch.progress import Progress

    progress = Progress("conformance build", total=len(todo), unit="kernels")
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for name, err in pool.map(_compile_one, todo, [out] * len(todo)):
            progress.step(ok=err is None)
            if err is None:
                manifest[name] = [all_sources()[name].digest, _COMPILER]
            else:
                failures[name] = err
                manifest.pop(name, None)
    manifest_path.write_text(json.dumps(manifest, indent=0, sort_keys=True))
    for name, err in sorted(failures.items()):
        print(f"FAILED {name}: {err}")
    progress.finish()
    print(f"compiled {len(todo) - len(failures)}/{len(todo)} kernels into {out}")
    return 1 if failures else 0


# ---- loading ---------------------------------------------------------------------------------

_modules: dict[str, object] = {}


def kernel(name: str):
    """The loaded kernel ``name``: the prebuilt cubin when its MLIR is unchanged (compiled by the
    compiler of the build, which may be older than this tree), else compiled now."""
    from tileorch import runtime

    if name not in _modules:
        manifest_path = BUILD / "manifest.json"
        manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
        src = all_sources()[name]
        cubin = BUILD / f"{name}.cubin"
        if manifest.get(name, [None])[0] == src.digest and cubin.exists():
            _modules[name] = runtime.Module(cubin.read_bytes(), label=str(cubin))
        else:
            from tileorch.cli.run import compile_mlir

            _modules[name] = runtime.Module(compile_mlir(src.mlir, f"{name}.mlir", src.debug_timeout), label=name)
    return _modules[name].kernel(name)


def run_case(case: Case) -> None:
    case.run(kernel(case.kernel))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--jobs", type=int, default=2)
    b.add_argument("--only", default=None, help="kernels whose name contains this")
    r = sub.add_parser("run")
    r.add_argument("--subset", default=None, help="cases carrying this tag (e.g. sanitize)")
    args = ap.parse_args()
    if args.cmd == "build":
        return build(jobs=args.jobs, only=args.only)
    cases = [c for c in all_cases() if args.subset is None or args.subset in c.tags]
    from tileorch.progress import Progress

    bad = 0
    progress = Progress("conformance", total=len(cases), unit="cases")
    for c in cases:
        try:
            run_case(c)
            print(f"ok   {c.id}")
            progress.step()
        except AssertionError as exc:
            bad += 1
            print(f"FAIL {c.id}: {exc}")
            progress.step(ok=False)
    progress.finish(f"{len(cases) - bad} exact, {bad} failed")
    print(f"{len(cases) - bad}/{len(cases)} cases exact")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
