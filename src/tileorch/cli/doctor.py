"""``tileorch doctor``: which toolchain tileorch found, one fact per line, for bug reports.

Prints the versions of tileorch, Python, xDSL, llvmlite (and its LLVM, and whether it has the
NVPTX backend), the ``ptxas`` that ``tileorch compile`` runs (path, where it was found, version),
the compile cache's directory and whether it can be written, cuda-python, the CUDA driver and the GPU, the launch path (ctypes into libcuda or cuda-python's
binding, and why), upstream MLIR's ``iree-opt`` (used by the upstream
conformance test), cuTile Python (``cuda-tile``) and cuTile's compiler ``tileiras``.  What is absent reads ``not found`` with the reason; the command never needs a
GPU and exits 0 unless ``--strict`` is given and something needed for compiling to a cubin
(xDSL, llvmlite with NVPTX, ptxas) is missing.  Imports nothing heavy at module load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass


@dataclass
class Fact:
    name: str
    value: str
    ok: bool = True
    required: bool = False  # needed to compile .mlir to a cubin


def _dist_version(name: str) -> str | None:
    import importlib.metadata as md

    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return None


def _xdsl() -> Fact:
    version = _dist_version("xdsl")
    try:
        import xdsl  # noqa: F401
    except Exception as exc:  # ImportError, or a broken install
        return Fact("xDSL", f"not found ({type(exc).__name__}: {exc})", False, True)
    return Fact("xDSL", version or "installed (version unknown)", True, True)


def _llvm() -> Fact:
    try:
        import llvmlite
        from llvmlite import binding as llvm
    except Exception as exc:
        return Fact("LLVM (llvmlite)", f"not found ({type(exc).__name__}: {exc})", False, True)
    llvm_version = ".".join(map(str, llvm.llvm_version_info))
    try:
        llvm.initialize_all_targets()
        llvm.Target.from_triple("nvptx64-nvidia-cuda")
        nvptx = "NVPTX backend present"
        ok = True
    except Exception as exc:  # an llvmlite build without NVPTX
        nvptx = f"no NVPTX backend ({exc})"
        ok = False
    return Fact("LLVM (llvmlite)", f"llvmlite {llvmlite.__version__}, LLVM {llvm_version}, {nvptx}", ok, True)


def _ptxas() -> Fact:
    from tileorch.backend.ptx import BackendError
    from tileorch.backend.ptxas import NOT_FOUND, find_ptxas, ptxas_version

    try:
        loc = find_ptxas()
    except BackendError as exc:
        return Fact("ptxas", f"not found ({exc})", False, True)
    if loc is None:
        return Fact("ptxas", f"not found ({NOT_FOUND})", False, True)
    version = ptxas_version(loc.path)
    if version is None:
        return Fact("ptxas", f"{loc.path} (from {loc.source}) does not run `--version`", False, True)
    return Fact("ptxas", f"{version} at {loc.path} (from {loc.source})", True, True)


def _cache() -> Fact:
    """Where compiled programs are kept (``tileorch.cache``) and whether that directory can be
    written (a file there is created and removed): an unwritable one keeps nothing across
    processes, so each new process compiles again."""
    import tempfile

    from tileorch import cache

    if not cache.enabled():
        return Fact("compile cache", f"off ({cache.CACHE_SWITCH_ENV}=0): every process compiles again")
    root = cache.cache_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=root, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Fact("compile cache", f"{root} cannot be written ({type(exc).__name__}: {exc.strerror or exc}): "
                                     f"compiled programs are not kept; set {cache.CACHE_DIR_ENV} to a writable "
                                     "directory", False)
    return Fact("compile cache", f"{root} (writable; {cache.CACHE_DIR_ENV}, {cache.CACHE_SWITCH_ENV}=0 to turn off)")


def _cuda_python() -> Fact:
    version = _dist_version("cuda-python") or _dist_version("cuda-bindings")
    try:
        from cuda.bindings import driver  # noqa: F401
    except Exception as exc:
        return Fact("cuda-python", f"not found ({type(exc).__name__}); pip install 'tileorch[gpu]'", False)
    return Fact("cuda-python", version or "installed (version unknown)")


LIBCUDA = {"linux": "libcuda.so.1", "win32": "nvcuda.dll"}
CC_MAJOR, CC_MINOR = 75, 76  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR


def _load_libcuda():
    import ctypes

    name = LIBCUDA.get(sys.platform)
    if name is None:
        raise OSError(f"no NVIDIA driver library on {sys.platform}")
    return ctypes.CDLL(name)


def _driver_and_gpu(load=_load_libcuda) -> list[Fact]:
    """CUDA driver version and GPUs, read from the driver library itself (ctypes), so this works
    without cuda-python; no context is created."""
    import ctypes

    try:
        cuda = load()
    except OSError as exc:
        return [Fact("CUDA driver", f"not found ({exc})", False), Fact("GPU", "not found (no driver)", False)]
    version = ctypes.c_int(0)
    err = cuda.cuDriverGetVersion(ctypes.byref(version))
    v = version.value
    driver = Fact("CUDA driver", f"{v // 1000}.{v % 1000 // 10}" if err == 0 else f"unknown (error {err})", err == 0)
    err = cuda.cuInit(0)
    if err != 0:
        return [driver, Fact("GPU", f"not found (cuInit returned {err})", False)]
    count = ctypes.c_int(0)
    if cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        return [driver, Fact("GPU", "not found (the driver reports no CUDA device)", False)]
    gpus = []
    for ordinal in range(count.value):
        dev, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
        name = ctypes.create_string_buffer(256)
        cuda.cuDeviceGet(ctypes.byref(dev), ordinal)
        cuda.cuDeviceGetName(name, 256, dev)
        cuda.cuDeviceGetAttribute(ctypes.byref(major), CC_MAJOR, dev)
        cuda.cuDeviceGetAttribute(ctypes.byref(minor), CC_MINOR, dev)
        gpus.append(f"{ordinal}: {name.value.decode(errors='replace')} (sm_{major.value}{minor.value})")
    return [driver, Fact("GPU", "; ".join(gpus))]


def _launch_path() -> Fact:
    """Which binding bound launches call the driver through (tileorch.runtime.direct_launch), and
    whether repeated ``tileorch.cutile.launch`` calls go through cuTile's launcher
    (tileorch.launchers.cutile_native, opt-in)."""
    from tileorch.launchers.cutile_native import ENV, enabled
    from tileorch.runtime.direct_launch import planned_path

    path, why = planned_path()
    text = f"{path}: {why}"
    if enabled[0]:
        text += f"; tileorch.cutile.launch of plain SIMT programs: cuTile's C++ launcher ({ENV}=1)"
    return Fact("launch path", text)


def _cutile() -> Fact:
    """cuTile Python (the ``cuda-tile`` distribution, package ``cuda.tile``): located, not
    imported (its import may initialise CUDA)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("cuda.tile")
    except (ImportError, ValueError) as exc:  # no ``cuda`` package at all
        spec, why = None, f"{type(exc).__name__}: {exc}"
    else:
        why = "no module named 'cuda.tile'"
    if spec is None:
        return Fact("cuTile (cuda-tile)", f"not found ({why}; optional: pip install cuda-tile)", False)
    where = (list(spec.submodule_search_locations or []) or [spec.origin])[0]
    return Fact("cuTile (cuda-tile)", f"{_dist_version('cuda-tile') or 'version unknown'} at {where}")


def tileiras_candidates() -> list[tuple[str, str]]:
    """(path, where from) of the ``tileiras`` cuTile would run, in cuTile's lookup order: the
    ``nvidia.cu13`` pip wheels' ``bin``, ``PATH``, ``$CUDA_HOME/bin`` (``$CUDA_PATH``),
    ``/usr/local/cuda/bin``."""
    import importlib.util
    import os

    found: list[tuple[str, str]] = []
    try:
        spec = importlib.util.find_spec("nvidia.cu13")
    except (ImportError, ValueError):
        spec = None
    for root in (spec.submodule_search_locations or []) if spec is not None else []:
        if (path := shutil.which("tileiras", path=os.path.join(root, "bin"))) is not None:
            found.append((path, "the nvidia.cu13 pip wheels"))
    if (path := shutil.which("tileiras")) is not None:
        found.append((path, "PATH"))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        if home and (path := shutil.which("tileiras", path=os.path.join(home, "bin"))) is not None:
            found.append((path, f"${var}/bin"))
    if (path := shutil.which("tileiras", path="/usr/local/cuda/bin")) is not None:
        found.append((path, "/usr/local/cuda/bin"))
    return found


def _tileiras() -> Fact:
    found = tileiras_candidates()
    if not found:
        return Fact("tileiras", "not found (optional, cuTile's own compiler: pip install 'cuda-tile[tileiras]' or a "
                                "CUDA 13.1+ toolkit on PATH)", False)
    path, source = found[0]
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return Fact("tileiras", f"{path} (from {source}) does not run ({exc})", False)
    version = next((l.strip() for l in reversed(out.splitlines()) if "release" in l.lower() or "version" in l.lower()),
                   "version unknown")
    return Fact("tileiras", f"{version} at {path} (from {source})")


def _iree_opt() -> Fact:
    path = shutil.which("iree-opt")
    if path is None:
        return Fact("upstream MLIR (iree-opt)", "not found (optional: pip install iree-base-compiler)", False)
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return Fact("upstream MLIR (iree-opt)", f"{path} does not run ({exc})", False)
    version = next((l.strip() for l in out.splitlines() if "LLVM version" in l), "version unknown")
    return Fact("upstream MLIR (iree-opt)", f"{version} at {path}")


def _settings() -> Fact:
    """The ``TILEORCH_*`` variables set here (tileorch.settings), each ``ok``, with the value its
    setting does not take, or not a setting: a bug report shows what changed the compiler."""
    from tileorch import settings

    parts, ok = [], True
    for name, text in sorted((k, v) for k, v in os.environ.items() if k.startswith(settings.PREFIX)):
        setting = settings.SETTINGS.get(name)
        if setting is None:
            parts.append(f"{name}={text} (not a setting: ignored)")
            continue
        try:
            setting.check(text)
            parts.append(f"{name}={text}" + (" (changes the generated code)" if setting.codegen else ""))
        except settings.SettingError:
            parts.append(f"{name}={text} (invalid: {setting.describe_accepted()})")
            ok = False
    return Fact("settings", "; ".join(parts) if parts else "none set (TILEORCH_* variables: tileorch/settings.py)", ok)


def collect() -> list[Fact]:
    import tileorch

    facts = [
        Fact("tileorch", f"{tileorch.__version__} at {tileorch.__path__[0]}"),
        Fact("Python", f"{platform.python_version()} ({sys.executable}) on {platform.platform()}"),
    ]
    for probe in (_xdsl, _llvm, _ptxas, _cache, _settings, _cuda_python):
        try:
            facts.append(probe())
        except Exception as exc:  # a probe must never stop the report
            facts.append(Fact(probe.__name__.strip("_"), f"error ({type(exc).__name__}: {exc})", False))
    try:
        facts += _driver_and_gpu()
    except Exception as exc:
        facts.append(Fact("CUDA driver", f"error ({type(exc).__name__}: {exc})", False))
    try:
        facts.append(_launch_path())
    except Exception as exc:
        facts.append(Fact("launch path", f"error ({type(exc).__name__}: {exc})", False))
    facts.append(_iree_opt())
    for probe in (_cutile, _tileiras):  # the cuTile frontend's neighbours (optional)
        try:
            facts.append(probe())
        except Exception as exc:
            facts.append(Fact(probe.__name__.strip("_"), f"error ({type(exc).__name__}: {exc})", False))
    return facts


def register(subparsers) -> None:
    p = subparsers.add_parser("doctor", help="print the toolchain tileorch found (for bug reports)",
                              description="Print, one fact per line, the toolchain tileorch found: tileorch, "
                                          "Python, xDSL, llvmlite/LLVM, ptxas, the compile cache, cuda-python, the CUDA driver and "
                                          "GPU, upstream MLIR (iree-opt), cuTile (cuda-tile) and tileiras.  "
                                          "Missing things read 'not found' with the reason.")
    p.add_argument("--json", action="store_true", help="print the facts as a JSON object")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when xDSL, llvmlite with NVPTX or ptxas is missing")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    facts = collect()
    if args.json:
        print(json.dumps({f.name: {"value": f.value, "ok": f.ok} for f in facts}, indent=2))
    else:
        width = max(len(f.name) for f in facts)
        for f in facts:
            print(f"{f.name + ':':<{width + 1}} {f.value}")
    missing = [f.name for f in facts if f.required and not f.ok]
    if missing and not args.json:
        print(f"cannot compile to a cubin: missing {', '.join(missing)}", file=sys.stderr)
    return 1 if (missing and args.strict) else 0
