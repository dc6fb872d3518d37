"""tileorch.cache: one content-addressed on-disk cache for tileorch.compile, the GEMM host side and
the cuTile launcher (issues 19 and 22)."""

import json
from types import SimpleNamespace

import pytest

from tileorch import cache


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


@pytest.mark.parametrize("switch", ["TILEORCH_ATTN_OVERLAP", "TILEORCH_ATTN_PINGPONG", "TILEORCH_ATTN_PERSISTENT",
                                    "TILEORCH_WARP_PROGRAMS", "TILEORCH_CLUSTER_SPLIT", "TILEORCH_PREFETCH_UNROLL",
                                    "TILEORCH_PROGRAMS_PER_WARP", "TILEORCH_CLUSTER_SPLIT_MAX", "TILEORCH_SIMT_MMA",
                                    "TILEORCH_REMATERIALIZE", "TILEORCH_RAGGED_ROWS", "TILEORCH_GATHER_RUNS",
                                    "TILEORCH_UNIFORM_DIV"])
def test_every_code_switch_is_in_the_key(monkeypatch, switch):
    """Each environment switch that changes the emitted code keys the cache (off vs on)."""
    monkeypatch.setenv(switch, "0")
    off = cache.make_key("cutile", b"bytecode", "sm_90a", ptxas=False)
    monkeypatch.setenv(switch, "1")
    assert cache.make_key("cutile", b"bytecode", "sm_90a", ptxas=False) != off


def test_store_load_round_trip_and_misses(cache_dir):
    key = cache.make_key("kernel", "x", ptxas=False)
    assert cache.load(key) is None
    cache.store(key, {"kind": "kernel", "entries": ["k"]}, {"kernel.ptx": "ptx text", "kernel.cubin": b"\x7fELF"})
    entry = cache.load(key)
    assert entry.meta["entries"] == ["k"] and entry.text("kernel.ptx") == "ptx text"
    assert entry.files["kernel.cubin"] == b"\x7fELF" and entry.text("kernel.ll", "none") == "none"
    assert cache.entry_dir(key).parent.parent == cache_dir / "kernels"
    other = "0" * 64
    (cache_dir / "kernels" / "00").mkdir()
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


def test_gemm_host_and_api_share_the_cache(cache_dir, monkeypatch):
    """compile_gemm stores its cubin in the one cache and reads it back without compiling."""
    import tileorch.driver as driver
    from tileorch.kernels.gemm.config import GemmConfig
    from tileorch.launchers.gemm_host import cache_key, compile_gemm, cubin_path

    import tileorch.launchers.gemm_program as program

    compiled = []

    def compile_module(module, **kwargs):
        assert kwargs == {"isolate": True}  # LLVM in a forked child, overlapped with the verification
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
