"""tileorch.cache: one content-addressed on-disk cache for tileorch.compile, the GEMM host side and
the cuTile launcher (issues 19 and 22)."""

import json
from types import SimpleNamespace

import pytest

from tileorch import cache, settings


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILEORCH_CACHE", raising=False)
    return tmp_path / "cache"


def test_key_names_the_program_options_and_namespace():
    key = cache.make_key("kernel", "module {}", "sm_90a", 86, ptxas=False)
    assert len(key) == 64 and key == cache.make_key("kernel", b"module {}", "sm_90a", 86, ptxas=False)
    others = {cache.make_key("gemm", "module {}", "sm_90a", 86, ptxas=False),
              cache.make_key("kernel", "module { }", "sm_90a", 86, ptxas=False),
              cache.make_key("kernel", "module {}", "sm_100a", 86, ptxas=False),
              cache.make_key("kernel", "module {}", "sm_90a", 87, ptxas=False)}
    assert key not in others and len(others) == 4


def test_key_names_the_compile_environment(monkeypatch):
    """A testing switch that changes the emitted code (TILEORCH_ATTN_OVERLAP) is part of the key:
    a run with it on never reads a program cached with it off."""
    monkeypatch.delenv("TILEORCH_ATTN_OVERLAP", raising=False)
    off = cache.make_key("cutile", b"bytecode", "sm_90a", ptxas=False)
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    on = cache.make_key("cutile", b"bytecode", "sm_90a", ptxas=False)
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "0")
    assert len({off, on, cache.make_key("cutile", b"bytecode", "sm_90a", ptxas=False)}) == 3


def _two_values(setting) -> tuple[str, str]:
    """Two different values ``setting`` accepts."""
    if isinstance(setting.accepts, range):
        return str(setting.accepts.start), str(setting.accepts.start + 1)
    if isinstance(setting.accepts, frozenset):
        return tuple(sorted(setting.accepts)[:2])
    return setting.accepts[0], setting.accepts[1]


@pytest.mark.parametrize("switch", settings.CODEGEN)
def test_every_code_switch_is_in_the_key(monkeypatch, switch):
    """Each environment switch that changes the emitted code (tileorch.settings, ``codegen``) keys the
    cache: two of its values give two keys."""
    first, second = _two_values(settings.SETTINGS[switch])
    monkeypatch.setenv(switch, first)
    off = cache.make_key("cutile", b"bytecode", "sm_90a", ptxas=False)
    monkeypatch.setenv(switch, second)
    assert cache.make_key("cutile", b"bytecode", "sm_90a", ptxas=False) != off


def test_store_load_round_trip_and_misses(cache_dir):
    key = cache.make_key("kernel", "x", ptxas=False)
    assert cache.load(key) is None
    cache.store(key, {"kind": "kernel", "entries": ["k"]}, {"kernel.ptx": "ptx text", "kernel.cubin": b"\x7fELF"})
    entry = cache.load(key)
    assert entry.meta["entries"] == ["k"] and entry.text("kernel.ptx") == "ptx text"
    assert entry.files["kernel.cubin"] == b"\x7fELF" and entry.text("kernel.ll", "none") == "none"
    assert cache.entry_dir(key).parent.parent == cache_dir / "kernels"
    other = ("1" if key.startswith("0") else "0") * 64  # (another key: the real one's hash may start with 00)
    (cache_dir / "kernels" / other[:2]).mkdir(exist_ok=True)
    import shutil

    shutil.copytree(cache.entry_dir(key), cache.entry_dir(other))  # an entry filed under another key
    assert cache.load(other) is None


def test_a_corrupt_entry_is_a_miss_and_is_replaced(cache_dir):
    key = cache.make_key("kernel", "y", ptxas=False)
    cache.store(key, {"kind": "kernel"}, {"kernel.ptx": "a"})
    (cache.entry_dir(key) / "meta.json").write_text("{not json")
    assert cache.load(key) is None
    cache.store(key, {"kind": "kernel"}, {"kernel.ptx": "b"})
    assert cache.load(key).text("kernel.ptx") == "b"
    (cache.entry_dir(key) / "kernel.ptx").unlink()  # a file the record lists is missing
    assert cache.load(key) is None


def test_fingerprint_is_memoised_by_the_sources_stat(cache_dir, monkeypatch):
    monkeypatch.setattr(cache, "_FINGERPRINT", None)
    first = cache.compiler_fingerprint()
    memos = list((cache_dir / "fingerprints").iterdir())
    assert len(first) == 64 and any(p.read_text() == first for p in memos)
    monkeypatch.setattr(cache, "_FINGERPRINT", None)
    monkeypatch.setattr(cache, "_versions", lambda: pytest.fail("the memo was not used"))
    assert cache.compiler_fingerprint() == first


def test_a_store_leaves_the_memos_in_a_new_cache_base(cache_dir, tmp_path, monkeypatch):
    """The fingerprint and ptxas's version were computed under one TILEORCH_CACHE_DIR; an entry
    stored under another one leaves their memos there too, so that a new process reading that
    entry neither hashes the sources nor runs ptxas (compile_time.py's relaunch: 83 -> 7 ms)."""
    monkeypatch.setattr(cache, "_FINGERPRINT", None)
    monkeypatch.setattr(cache, "_memo_bases", set())
    stamp = ("/opt/ptxas", 1, 2)
    monkeypatch.setattr(cache, "_PTXAS", {stamp: "/opt/ptxas 13.4"})
    first = cache.compiler_fingerprint()  # memo written under cache_dir
    other = tmp_path / "other"
    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(other))
    assert not (other / "fingerprints").exists()
    cache.store("ab" * 32, {"kind": "kernel"}, {"kernel.ptx": "x"})
    memos = {p.name: p.read_text() for p in (other / "fingerprints").iterdir()}
    assert first in memos.values() and memos[cache._ptxas_memo_name(stamp)] == "/opt/ptxas 13.4"
    # a new process (no in-process fingerprint) finds it without hashing
    monkeypatch.setattr(cache, "_FINGERPRINT", None)
    monkeypatch.setattr(cache, "_versions", lambda: pytest.fail("the memo was not used"))
    assert cache.compiler_fingerprint() == first


def test_memos_are_not_rewritten_once_a_base_has_them(cache_dir, monkeypatch):
    monkeypatch.setattr(cache, "_memo_bases", set())
    cache.compiler_fingerprint()
    cache.remember_memos()
    writes = []
    monkeypatch.setattr(cache, "_write_atomic", lambda path, data: writes.append(path))
    cache.remember_memos()
    cache.store("cd" * 32, {"kind": "kernel"}, {"kernel.ptx": "x"})
    assert writes == []


def test_gemm_host_and_api_share_the_cache(cache_dir, monkeypatch):
    """compile_gemm stores its cubin in the one cache and reads it back without compiling."""
    import tileorch.driver as driver
    from tileorch.kernels.gemm.config import GemmConfig
    from tileorch.launchers.gemm_host import cache_key, compile_gemm, cubin_path

    import tileorch.launchers.gemm_program as program

    compiled = []

    def compile_module(module, **kwargs):
        # LLVM in a forked child, overlapped with the verification; the tier's kernel verified once
        assert kwargs == {"isolate": True, "kind": "gemm"}
        compiled.append(module)
        return SimpleNamespace(ptxas=SimpleNamespace(cubin=b"\x7fELF gemm"), timings={})

    monkeypatch.setattr(program, "lower_gemm", lambda cfg: f"<module of {cfg.name}>")
    monkeypatch.setattr(driver, "compile_module", compile_module)
    cfg = GemmConfig().check()
    assert compile_gemm(cfg).cubin == b"\x7fELF gemm" and len(compiled) == 1
    again = compile_gemm(cfg)
    assert again.cubin == b"\x7fELF gemm" and len(compiled) == 1 and "cache" in again.seconds
    assert cubin_path(cfg).read_bytes() == b"\x7fELF gemm"
    assert json.loads((cubin_path(cfg).parent / "meta.json").read_text())["kind"] == "gemm"
    assert cache_key(cfg) != cache_key(GemmConfig(stages=3).check())
    compile_gemm(cfg, use_cache=False)  # compiles anew, stores all the same
    assert len(compiled) == 2
    monkeypatch.setenv("TILEORCH_CACHE", "0")
    compile_gemm(cfg)
    assert len(compiled) == 3


def test_the_ptxas_switch_name_is_the_backends():
    from tileorch.backend import ptxas

    assert cache.PTXAS_ENV == ptxas.PTXAS_ENV


def test_a_key_with_the_memos_in_place_imports_no_backend(cache_dir):
    """A relaunch with the memos written computes a key from them alone: tileorch.backend.ptxas
    (its imports, its ``ptxas --version`` run) is not loaded."""
    import subprocess
    import sys

    if not cache.ptxas_path():
        pytest.skip("no ptxas here: nothing to memoise")
    cache.make_key("kernel", "x")  # the memos of this process, in this cache base
    cache.remember_memos()
    code = ("import sys, tileorch.cache as c; c.make_key('kernel', 'x'); "
            "assert 'tileorch.backend.ptxas' not in sys.modules, 'imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_truncated_file_is_a_miss_with_a_warning_and_is_replaced(cache_dir):
    """A cubin cut short on disk (a full disk, a copy interrupted) is not handed to the driver:
    the entry is a miss (the caller compiles again) with a CacheWarning naming the file, and the
    next store replaces it without a second warning."""
    key = cache.make_key("kernel", "truncated", ptxas=False)
    cubin = b"\x7fELF" + bytes(range(256)) * 8
    cache.store(key, {"kind": "kernel"}, {"kernel.ptx": "ptx", "kernel.cubin": cubin})
    path = cache.entry_dir(key) / "kernel.cubin"
    path.write_bytes(cubin[:100])
    with pytest.warns(cache.CacheWarning, match=r"is corrupt \(kernel.cubin: 100 bytes"):
        assert cache.load(key) is None
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cache.store(key, {"kind": "kernel"}, {"kernel.ptx": "ptx", "kernel.cubin": cubin})
        assert cache.load(key).files["kernel.cubin"] == cubin
    path.write_bytes(cubin[:-1] + b"\0")  # same size, other bytes
    with pytest.warns(cache.CacheWarning, match="kernel.cubin"):
        assert cache.load(key) is None


def test_an_entry_without_digests_is_a_miss(cache_dir):
    key = cache.make_key("kernel", "no digests", ptxas=False)
    cache.store(key, {"kind": "kernel"}, {"kernel.ptx": "a"})
    meta_path = cache.entry_dir(key) / "meta.json"
    meta = json.loads(meta_path.read_text())
    del meta["digests"]
    meta_path.write_text(json.dumps(meta))
    with pytest.warns(cache.CacheWarning):
        assert cache.load(key) is None


@pytest.mark.parametrize("where", ["a file", "under /proc"])
def test_an_unwritable_cache_directory_warns_once_and_never_blocks(cache_dir, tmp_path, monkeypatch, where):
    """TILEORCH_CACHE_DIR naming a file, or a directory nobody can write: store does nothing,
    load misses, and one CacheWarning per directory says programs are not kept."""
    if where == "a file":
        base = tmp_path / "afile"
        base.write_text("x")
    else:
        base = f"/proc/tileorch-cache-test-{id(tmp_path)}"
    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(base))
    key = cache.make_key("kernel", "unwritable", ptxas=False)
    with pytest.warns(cache.CacheWarning, match="cannot write .*TILEORCH_CACHE_DIR to a writable directory"):
        cache.store(key, {"kind": "kernel"}, {"kernel.ptx": "a"})
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cache.store(key, {"kind": "kernel"}, {"kernel.ptx": "a"})  # reported once
        assert cache.load(key) is None


def test_concurrent_stores_of_one_key_leave_one_whole_entry(cache_dir):
    """Processes compiling the same program at once store the same key: each store renames a
    complete temporary directory into place (one wins), no temporary is left, the entry reads."""
    import multiprocessing

    key = cache.make_key("kernel", "concurrent", ptxas=False)
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=cache.store, args=(key, {"kind": "kernel", "n": i}, {"kernel.cubin": b"x" * 4096}))
             for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    assert all(p.exitcode == 0 for p in procs)
    entry = cache.load(key)
    assert entry is not None and entry.files["kernel.cubin"] == b"x" * 4096
    assert [p.name for p in cache.entry_dir(key).parent.iterdir()] == [key]


@pytest.mark.parametrize("reader,kind,words", [
    ("tileorch.launchers.cutile_programs:_read_cached", "cutile", "its program record: KeyError: 'program'"),
    ("tileorch.api:_load_cached", "kernel", "its kernel record: KeyError: 'arch'"),
])
def test_an_entry_its_reader_cannot_use_is_reported_and_dropped(cache_dir, reader, kind, words):
    """An entry whose files are whole but whose record lacks what the reader needs is a miss with a
    CacheWarning, and is removed: a store keeps a readable entry in place, so it would otherwise be
    compiled again in every process without a word."""
    import importlib

    module, name = reader.split(":")
    read = getattr(importlib.import_module(module), name)
    key = cache.make_key(kind, "record without fields", ptxas=False)
    cache.store(key, {"kind": kind}, {"kernel.ptx": "ptx"})
    with pytest.warns(cache.CacheWarning, match=r"cannot be used \(" + words.replace("'", ".") + r"\); compiling again"):
        assert read(key) is None
    assert not cache.entry_dir(key).exists()
    cache.store(key, {"kind": kind, "arch": "sm_90a"}, {"kernel.ptx": "ptx"})  # the next store writes it anew
    assert cache.load(key).meta["arch"] == "sm_90a"


def test_a_deferred_file_is_read_and_checked_only_when_asked(cache_dir):
    """``load(key, defer=...)`` leaves the named files unread (a truncated one is not noticed at
    load time); ``deferred_text`` reads one then and checks it against the record's sha256."""
    key = cache.make_key("kernel", "deferred", ptxas=False)
    cache.store(key, {"kind": "kernel"}, {"kernel.ptx": "ptx", "kernel.ll": "define void @k() { ret void }"})
    entry = cache.load(key, defer=("kernel.ll",))
    assert sorted(entry.files) == ["kernel.ptx"]
    assert entry.deferred_text("kernel.ll") == "define void @k() { ret void }"
    assert entry.deferred_text("kernel.none") == ""  # not in the record: as Entry.text's default
    (cache.entry_dir(key) / "kernel.ll").write_text("define void @k(")  # truncated after the store
    entry = cache.load(key, defer=("kernel.ll",))
    assert entry is not None and entry.text("kernel.ptx") == "ptx"
    with pytest.warns(cache.CacheWarning, match=r"kernel\.ll is not the file stored in the entry \(corrupt\)"):
        assert entry.deferred_text("kernel.ll") == ""
    (cache.entry_dir(key) / "kernel.ll").unlink()
    with pytest.warns(cache.CacheWarning, match=r"\(missing\)"):
        assert entry.deferred_text("kernel.ll") == ""
    assert cache.load(key) is None  # read whole, the entry is a miss (a listed file is gone)


def test_a_compile_cache_hit_reads_the_llvm_ir_when_it_is_read(cache_dir):
    """tileorch.compile answered by the cache: PTX and cubin read and checked at once, the LLVM IR
    (a GEMM's is a megabyte) when ``Kernel.llvm_ir`` is read; an entry whose IR file went bad after
    the hit gives ``""`` with a warning, the kernel itself intact."""
    from tileorch import api
    from tileorch.backend.target_versions import DEFAULT_PTX_VERSION

    text = "module {}"
    key = api.cache_key(text, "sm_90a", DEFAULT_PTX_VERSION, False, "", None)
    ir = "define void @k() {\n  ret void\n}\n"
    stored = api.Kernel(".visible .entry k()\n{ ret; }\n", b"", "sm_90a", ["k"], ir, key=key)
    api._store(stored)
    hit = api.compile(text, ptxas=False)
    assert hit.from_cache and hit.llvm_ir == ir
    hit = api.compile(text, ptxas=False)
    assert hit.entries == ["k"] and hit.ptx == stored.ptx
    import pickle

    again = pickle.loads(pickle.dumps(api.compile(text, ptxas=False)))  # the deferred read pickles as its text
    assert again.llvm_ir == ir and again.key == key and again.from_cache
    (cache.entry_dir(key) / "kernel.ll").write_text(ir.replace("ret void", "unreachable"))
    with pytest.warns(cache.CacheWarning, match="corrupt"):
        assert hit.llvm_ir == ""  # read now, after the hit: not the stored IR
    assert hit.llvm_ir == "" and hit.ptx == stored.ptx  # read once


NOT_DECIDING_OUTPUT = ("__init__.py", "cache.py", "dataclass_code.py", "gc_deferral.py", "lazy_import.py", "timing.py")
"""The modules of a compile's process whose edits cannot change a compiled program (the package's imports, the cache
itself (its record layout is versioned by ``FORMAT``), the dataclass code table, the collector's thresholds, the
lazy imports, the phase timer): left out of the compiler fingerprint."""


def test_every_module_a_compile_runs_is_in_the_compiler_fingerprint():
    """An edit of any module a compile imports (but those of :data:`NOT_DECIDING_OUTPUT`) must miss the cache: each is
    under :data:`tileorch.cache.COMPILER_PARTS` (driver.py, which routes every input kind, dominance.py and
    verify_prechecks.py (the verifier's), api.py (the Kernel record) were not: an edit of the route or the verifier
    was answered by the entries compiled before it)."""
    import os
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import os, sys
        import tileorch
        tileorch.compile("examples/ws_stream_copy.mlir", ptxas=False, cache=False)
        root = os.path.dirname(tileorch.__file__)
        print(" ".join(sorted(os.path.relpath(m.__file__, root) for name, m in list(sys.modules.items())
                              if name.startswith("tileorch") and getattr(m, "__file__", None))))
    """)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, TILEORCH_CACHE="0")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=root, env=env)
    assert proc.returncode == 0, proc.stderr
    files = proc.stdout.split()
    assert "driver.py" in files and len(files) > 50
    parts = set(cache.COMPILER_PARTS)
    missing = [f for f in files if f.split(os.sep)[0] not in parts and f not in NOT_DECIDING_OUTPUT]
    assert missing == [], f"modules a compile runs that the fingerprint leaves out: {missing}"
    fingerprinted = {os.path.relpath(f, os.path.dirname(cache.__file__)) for f in
                     cache._source_files(os.path.dirname(cache.__file__))}
    assert {"driver.py", "api.py", "dominance.py", "verify_prechecks.py"} <= fingerprinted


def test_the_dependencies_files_are_those_importlib_finds(monkeypatch):
    """``cache._dependency_files`` (the path finder, no ``importlib.util`` on a relaunch) names the ``__init__.py``
    that ``importlib.util.find_spec`` names, with or without CPython's path finder."""
    import importlib.util
    import sys

    expected = [s.origin for s in map(importlib.util.find_spec, cache.DEPENDENCIES) if s is not None and s.origin]
    assert expected and cache._dependency_files() == expected
    monkeypatch.setitem(sys.modules, "_frozen_importlib_external", None)  # the import raises ImportError
    assert cache._dependency_files() == expected
