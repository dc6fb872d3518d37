"""The environment settings tileorch reads (``TILEORCH_*``), in one table.

Each :class:`Setting` names the variable, its default, the values it accepts and whether it changes
the generated code (then its value is part of every compile-cache key, :data:`CODEGEN`).  Readers
call :func:`value` (the validated text, or the default) or :func:`integer`; a value outside the
accepted set raises :class:`SettingError` naming the variable and what it accepts, instead of being
read silently as the default (``TILEORCH_ATTN_STAGES=8`` or ``TILEORCH_ONLINE_SOFTMAX=on`` used to
mean "unset").  :func:`check_environment` validates every ``TILEORCH_*`` variable set at once (the
CLI and the compile driver call it) and returns a warning for each name that is not a setting, with
the closest setting's name (``TILEORCH_ATTN_STAGE``: did you mean ``TILEORCH_ATTN_STAGES``?).

This module imports nothing of tileorch: every layer may read settings.
"""

from __future__ import annotations

import os
from _thread import _local as _ThreadLocal  # threading.local itself, without threading's imports

PREFIX = "TILEORCH_"

ANY = None
"""``accepts`` of a setting whose text the reader checks itself (a path, seconds, a word list)."""

SWITCH = ("0", "1")
WORDY_SWITCH = ("0", "1", "false", "true", "no", "yes", "off", "on")


class Setting:
    """One environment variable: ``accepts`` is a tuple of the accepted texts (and, last, possibly a ``range``
    of integers it also takes), a ``range`` of accepted integers, a frozenset of words (a comma-separated list of
    them), or :data:`ANY`; ``codegen``: the value changes the emitted code (part of the
    compile-cache key); ``testing``: read only by the test suite and its tools.  (A plain class, not
    a dataclass: this module is on a relaunch's import path.)"""
    __slots__ = ("name", "default", "accepts", "doc", "codegen", "testing")

    def __init__(self, name: str, default: str | None, accepts: tuple[str, ...] | range | frozenset | None, doc: str,
                 codegen: bool = False, testing: bool = False):
        self.name, self.default, self.accepts, self.doc = name, default, accepts, doc
        self.codegen, self.testing = codegen, testing

    def describe_accepted(self) -> str:
        if isinstance(self.accepts, range):
            top = self.accepts.stop - 1
            return f"an integer {self.accepts.start}..{top}" if top < 1 << 30 else f"an integer >= {self.accepts.start}"
        if self.accepts is ANY:
            return "any text"
        if isinstance(self.accepts, frozenset):
            return "comma-separated words of " + ", ".join(repr(v) for v in sorted(self.accepts))
        words = ", ".join(repr(v) for v in self.accepts if isinstance(v, str))
        counts = [v for v in self.accepts if isinstance(v, range)]
        return f"one of {words}" + (f" or an integer >= {counts[0].start}" if counts else "")

    def check(self, text: str) -> str:
        """``text`` (stripped) when this setting accepts it; else :class:`SettingError`."""
        t = text.strip()
        if self.accepts is ANY:
            return t
        # no accepted value has non-ASCII characters (str.isdigit() takes '²', int() does not)
        accepted = self._accepted(t) if t.isascii() else None
        if accepted is None:
            raise SettingError(f"{self.name}={text!r}: expected {self.describe_accepted()} ({self.doc})")
        return accepted

    def _accepted(self, t: str) -> str | None:
        """The normalised form of ASCII ``t`` when it is accepted, else None."""
        if isinstance(self.accepts, frozenset):
            words = [w.strip().lower() for w in t.split(",") if w.strip()]
            return ",".join(words) if all(w in self.accepts for w in words) else None
        options = (self.accepts,) if isinstance(self.accepts, range) else self.accepts
        if t.lower() in [o for o in options if isinstance(o, str)]:
            return t.lower()
        if t.isdigit() and any(isinstance(o, range) and int(t) in o for o in options):
            return t
        return None


class SettingError(ValueError):
    """A ``TILEORCH_*`` variable holds a value its setting does not accept; ``str()`` is the
    user-facing message (no location: the environment is the input)."""


class SettingWarning(UserWarning):
    """A ``TILEORCH_*`` variable that is not a setting (a typo, or one a newer or older tileorch reads)."""


_MANY = 1 << 31


def _s(name: str, default: str | None, accepts, doc: str, codegen: bool = False, testing: bool = False) -> Setting:
    return Setting(PREFIX + name, default, accepts, doc, codegen, testing)


SETTINGS: dict[str, Setting] = {s.name: s for s in (
    # the chained-dots (attention) tier: transforms/tileas/chained_dots.py
    _s("ATTN_OVERLAP", "1", SWITCH, "intra-warp-group overlap of the two dots", True),
    _s("ATTN_PINGPONG", "0", ("0", "1", "kernel"), "two consumer groups ping-ponging", True),
    _s("ATTN_PERSISTENT", "uniform", ("0", "1", "uniform"), "persistent attention kernels", True),
    _s("ATTN_EPILOGUE", "packed", ("packed", "scalar"), "the attention epilogue's stores", True),
    _s("ATTN_PEELED_MASKS", "0", SWITCH, "a peeled first key tile for masks", True),
    _s("ATTN_PLAIN_MASKS", "1", SWITCH,
       "the plain (not overlapped) loop's key tiles versioned: a copy without the whole-tile masks", True),
    _s("ATTN_TREE_REDUCE", "0", SWITCH, "pairwise row reductions", True),
    _s("ATTN_NEXT_S", "0", ("0", "1", "2"), "the next key tile's S issued early", True),
    _s("ATTN_EXP2_FMA", None, range(0, 1 << 16), "one of every K exp2 on the FMA pipe; 0: off", True),
    _s("ATTN_SOFTMAX_EXP", "ex2", ("full", "ex2"),
       "the consumer loop's online-softmax exp: the program's (full) or ex2.approx of x*log2(e)", True),
    _s("ATTN_SOFTMAX_EXP_SCALED", "1", SWITCH,
       "the online-softmax exp((s - m) * scale) (a uniform scale) as ex2.approx of (s - m) * (scale*log2(e))", True),
    _s("ATTN_ROW_PREFETCH", "0", SWITCH,
       "the loop's per-key-tile row loads (a bias row) issued before the wait for S", True),
    _s("ATTN_K_AHEAD", "1", SWITCH, "a K prologue (q-k norm) applied to tile j+1 while tile j's first dot runs",
       True),
    _s("ATTN_HEAD_DIM_WIDTH", "32", ("0", "1", "32"),
       "the dots at the arrays' compile-time head dims where the program's tiles are wider (head_dim_width.py): "
       "32 (default) rounds the widths up to 32 columns (64-byte swizzled boxes), 1 to 16 (32-byte boxes; slower "
       "at 64x256 tiles: session 39, H100), 0 runs the tiles' width", True),
    _s("ATTN_ROW_DIV", "1", SWITCH, "the epilogue's division by the row sum as one reciprocal", True),
    _s("ATTN_SPLIT_CHAINS", "1", SWITCH,
       "G independent dot chains of one program run as G one-chain programs (tileas-split-chains)", True),
    _s("ATTN_STACK_HEADS", "auto", ("0", "1", "auto"),
       "a loop over the query heads sharing K / V (GQA) runs F heads at a time as one chain of F times the rows "
       "(tileas-stack-query-heads; auto: not 64-row heads with a causal key loop, measured slower)", True),
    _s("ATTN_UNREAD_SECOND_DOT", "1", SWITCH,
       "a loop whose one dot is only reduced (an LSE alone) runs on the chained kernel with an unread second dot "
       "(tileas-row-statistics-chain)", True),
    _s("ATTN_EARLY_Q", None, SWITCH, "the next instance's Q loaded early", True),
    _s("ATTN_KV_AHEAD", "1", SWITCH, "a persistent kernel's next K/V tiles loaded before its Q", True),
    _s("ATTN_EARLY_TMA", "0", SWITCH, "the first instance's Q and first K/V tiles issued by thread 0 right after "
       "the mbarriers' initialisation, before the CTA barrier and setmaxnreg", True),
    _s("ATTN_STAGES", None, range(1, 5), "the most K/V ring stages", True),
    _s("ATTN_SKIP_RESCALE", "0", SWITCH, "skip the rescale when no row max grew", True),
    _s("ATTN_TANH_BRANCH", "1", SWITCH, "the loop's full tanh as its polynomial alone where a warp's |x| < 0.9",
       True),
    _s("ATTN_LATE_RESCALE", "1", SWITCH, "the accumulator rescaled after the second dot is issued", True),
    _s("ATTN_LATE_PACK", "0", SWITCH, "P packed after the row sums", True),
    _s("ATTN_S_AHEAD", "0", ("auto", "0", "1", "2"), "the next key tile's first dot issued before this tile's "
       "softmax (2: the loop unrolled by two; auto: 2 without a heavy-first axis, else off)", True),
    _s("ATTN_STAGGER", "0", range(0, 1 << 20), "cycles between the consumer warp groups' starts; 0: off", True),
    _s("ATTN_Q_REGS", "0", SWITCH, "the first dot's A (Q) read once per instance into WGMMA's register A "
       "operand", True),
    _s("ATTN_SCHEDULE", None, ("snake", "snake_lpt", "off"), "the persistent kernels' tile order", True),
    _s("ATTN_CTAS", "auto", ("auto", "sms", "total"), "CTAs of a persistent attention launch"),
    _s("ATTN_CTAS_PER_SM", "2", ("1", "2"), "resident CTAs per SM of a persistent chained kernel of one consumer "
       "warp group (64-row tiles)", True),
    _s("ATTN_ROW_GROUPS", "auto", ("0", "3", "4", "auto"), "a persistent chained kernel of 128-row tiles run as 3 "
       "or 4 consumer warp groups over 192 / 256 rows (64-row slices of one head's instances sharing each K/V tile); "
       "auto (the default): four groups where they fit (d64 with 64-wide key tiles, measured) unless a launch's grid "
       "is too small for them (that launch decline only while the variable is unset: auto set explicitly keeps "
       "them, with remarks for every decline of the rule); 0: off", True),
    _s("ATTN_IDLE_SLICES", "compute", ("compute", "pass"), "a row-groups slice past its head's last instance: computes "
       "its chain without storing it, or passes the unit's tiles by (a warp-uniform branch around the chain)", True),
    # the GEMM tier: transforms/tileas/
    _s("EPILOGUE_ROUNDS", "1", SWITCH, "the GEMM epilogue round by round", True),
    _s("COMPUTED_OPERAND", "", frozenset({"prefetch", "pairs", "rows", "staged", "registers", "global_k_vectors"}),
       "how the GEMM tier lowers a dot operand computed in the K loop", True),
    _s("MATH", "full", ("full", "approx"), "approximate exp and tanh everywhere", True),
    _s("EPILOGUE_DOT_COARSEN", "auto", ("auto", "off", range(1, _MANY)),
       "N tiles per CTA of a dot on the K loop's result (auto, off or a count)", True),
    _s("EPILOGUE_DOT_STAGES", "fit", ("plan", "fit"),
       "a dot on the K loop's result: the schedule's ring stages, or as many as the kernel's shared memory fits", True),
    _s("EPILOGUE_DOT_OVERLAP", "0", SWITCH,
       "a dot on the K loop's result looping over N tiles issues the next tile's WGMMAs before the store", True),
    _s("EPILOGUE_DOT_TMA_STORE", "1", SWITCH,
       "a dot on the K loop's result looping over N tiles stores C by TMA from shared memory", True),
    _s("PAIR_STAGES", "1", SWITCH, "a GEMM ring stage per operand pair of dots with an A and a B each", True),
    _s("GEMM_SHARED_CONSUMER", "1", SWITCH,
       "one consumer body for a GEMM kernel's consumer warp groups (the warp group read at run time)", True),
    _s("DIRECT_EPILOGUE_STAGES", "0", SWITCH,
       "a GEMM whose epilogue stores C from registers: as many ring stages as fit without C's TMA store staging",
       True),
    _s("GATHERED_A", "tier", ("tier", "simt"), "a gathered dot operand A on the GEMM tier or the SIMT path", True),
    _s("FP8_PROMOTE_INTERVAL", "1", range(0, 65),
       "an e4m3/e5m2 dot's WGMMAs accumulate this many K tiles into a scratch accumulator that f32 additions then "
       "add into the f32 accumulator (two-level accumulation; 0: off, the WGMMAs' narrower fp8 adder sums the whole "
       "K loop)", True),
    # the SIMT path: transforms/tileaa_to_simt/, transforms/tileas/simt_layouts.py
    _s("WARP_PROGRAMS", "1", SWITCH, "several one-warp programs per warp", True),
    _s("PROGRAMS_PER_WARP", None, range(1, 33), "programs per warp, forced", True),
    _s("CLUSTER_SPLIT", "1", SWITCH, "a program's loop split over a cluster", True),
    _s("CLUSTER_SPLIT_MAX", None, range(1, 17), "the largest cluster a split loop may use", True),
    _s("PREFETCH_UNROLL", "1", SWITCH, "two-iteration prefetching loops", True),
    _s("EARLY_PREFETCH", "0", SWITCH, "a prefetching loop's first loads issued as early as its block allows", True),
    _s("SIMT_CTAS_PER_SM", None, range(1, 33), "at most this many CTAs of a SIMT kernel per SM (shared memory asked)",
       True),
    _s("PREFETCH_DEPTH", None, range(1, 9), "iterations a prefetching loop keeps in flight (default 1)", True),
    _s("ROW_SMEM_CACHE", "auto", ("0", "1", "auto"),
       "a two-pass row keeps the tiles its first loop loaded in shared memory for its second loop (auto: "
       "compiled so; tileorch.cutile.launch runs a launch whose row needs more than ROW_SMEM_CACHE_AUTO_BYTES "
       "with the kernel compiled without it, unless the kernel bulk-copies 16-byte aligned rows)", True),
    _s("ROW_SMEM_CACHE_AUTO_BYTES", "32768", range(0, 232449),
       "ROW_SMEM_CACHE=auto: the most shared-memory bytes a launch's row may take to be kept there"),
    _s("ROW_BULK_FILL", "1", SWITCH,
       "the row cache's whole tiles are bulk-copied (cp.async.bulk + mbarrier) into shared memory before the fill loop",
       True),
    _s("HOIST_RESHAPED_REDUCTIONS", "1", SWITCH,
       "a loop's per-tile reduction folded through expand_dims / reshape (keepdims=True) hoisted after the loop",
       True),
    _s("SUM_AFTER_MAX", "1", SWITCH,
       "a sum of exp(x - m) after a loop taking the row's max m over the same tiles: its exps as sum terms (ex2)",
       True),
    _s("ROW_CACHE_THREADS", None, ("128", "256", "512"),
       "threads of a kernel keeping a bulk-filled row in shared memory (narrower accesses, more warps per row); "
       "unset: sized as any kernel", True),
    _s("ROW_SMEM_CACHE_BYTES", "232448", range(0, 232449),
       "bytes of shared memory a launch gives a cached row (the rest of the row reloads from global memory)"),
    _s("PREFETCH_PAST_STORES", "0", SWITCH,
       "a loop that stores prefetches the weak loads cuTile left unordered with its stores (token not tied)", True),
    _s("SIMT_MMA", "1", SWITCH, "mma.sync for dots on the SIMT path", True),
    _s("F32_DOT", "f32", ("f32", "tf32"), "f32 x f32 dots as tf32", True),
    _s("REMATERIALIZE", "1", SWITCH, "broadcasts recomputed instead of kept", True),
    _s("REMATERIALIZE_FLOAT_LOADS", "1", SWITCH,
       "a broadcast float tile load loaded again by each thread, not exchanged through shared memory", True),
    _s("RAGGED_ROWS", "1", SWITCH, "the ragged-row vector path", True),
    _s("GATHER_RUNS", None, range(1, _MANY), "runs per thread of a gather", True),
    _s("ROW_RUNS", None, range(1, _MANY), "runs per thread of a single-pass row reduction", True),
    _s("UNIFORM_DIV", "1", SWITCH, "divisions by a shared divisor as one reciprocal", True),
    _s("GATHER_WARPS", None, range(0, 65), "resident warps asked for a gather kernel; 0: no hint", True),
    _s("SIMT_STORE_CHUNK", "0", range(0, _MANY), "loads per store chunk; 0: off", True),
    _s("SIMT_PREDICATED_TAILS", "1", SWITCH, "per-element global accesses of the SIMT path predicated, not branched",
       True),
    _s("PREDICATED_INDEX_LOADS", "1", SWITCH, "predicated index loads", True),
    _s("SIMT_ONE_ELEMENT_LOADS", "1", SWITCH, "each thread loads a one-element tile itself", True),
    _s("SIMT_VECTOR_BYTES", None, ("4", "8", "16"), "the SIMT path's access width", True),
    _s("SIMT_REDUCE_EXCHANGE", "0", SWITCH, "every SIMT reduction through shared memory", True),
    _s("ONLINE_SOFTMAX", "1", range(0, _MANY), "the online softmax rewrite from N iterations; 0: off", True),
    _s("ONLINE_SOFTMAX_FORM", "thread", ("thread", "element"),
       "the online softmax's running max and sum per thread or per element position", True),
    _s("ONLINE_SOFTMAX_RUNS", None, range(1, 17), "vector runs per thread of an online softmax kernel", True),
    _s("ATOMIC_FENCE_TRIM", "0", SWITCH,
       "the kernel's final ordered atomics fenced less: no acquire after the last access, one acq_rel fence "
       "between two", True),
    _s("COMBINE_ATOMICS", "auto", ("0", "exact", "auto"),
       "a program ending in atomics on addresses every instance shares runs several instances per CTA, their "
       "atomics folded in registers and made once (auto, the default: float adds too, reassociated; exact: integer "
       "folds only; 0: off)", True),
    _s("STORE_BARRIERS", "tokens", ("tokens", "always"),
       "the CTA barrier after a weak tile store a load may follow: only where a read is ordered after it by its "
       "memory token (tokens), or always", True),
    _s("COMBINED_WARPS", None, range(0, 65),
       "resident warps a kernel with combined atomics asks ptxas for (default 64; 0: no hint)", True),
    _s("CTA_PROGRAMS", None, range(1, _MANY),
       "instances per CTA of a kernel with combined atomics, forced (unset: one wave of resident CTAs, at most "
       "CTA_PROGRAMS_MAX instances a CTA)"),
    _s("CTA_PROGRAMS_MAX", None, range(0, _MANY),
       "at most this many instances per CTA of a kernel with combined atomics (default 4; 0: one wave, no cap)"),
    _s("ATOMIC_FENCES", "holders", ("each", "holders"),
       "an ordered atomic of a tile: every thread fences (each), or a CTA barrier and the fences only in "
       "threads holding a live element (holders)", True),
    _s("EXP_BELOW_LSE", "1", SWITCH,
       "exp(x - lse) after a row's online max / sum loop as ex2.approx of (x - lse) * log2 e (its argument "
       "is at most 0; with ONLINE_SOFTMAX_EXP=ex2)", True),
    _s("ONLINE_SOFTMAX_EXP", "ex2", ("full", "ex2"),
       "the per-thread online softmax's exponentials: the program's exp or ex2.approx of (x - m)*log2(e)", True),
    # compile driver, backend, cache, runtime
    _s("VERIFY_EACH_PASS", "0", SWITCH, "verify the IR after every pass: tileorch compile and the "
       "Python API follow this default (0: the pipeline's result only); tileorch-opt, as mlir-opt, verifies after "
       "every pass of -p unless the variable is set to 0 in its environment (the test suite sets it)"),
    _s("PDL", "0", SWITCH, "programmatic dependent launch: kernels wait (griddepcontrol.wait) before their first "
       "global access and are launched with programmatic stream serialization (transforms/gdc_insertion.py)", True),
    _s("TRACEBACK", None, ANY, "show internal errors' Python tracebacks"),
    _s("INTERNAL_ERRORS", "warn", ("warn", "raise"), "a crash inside the TileAS tier or one of its optional "
       "rewrites: warn (the program compiles on as written or on the SIMT path, the warning asks for a report) or "
       "raise it (the test suite sets raise, so such a crash fails the test that hits it)"),
    _s("PTXAS", None, ANY, "the ptxas executable"),
    _s("PTXAS_TIMEOUT", None, ANY, "seconds one ptxas run may take"),
    _s("CODEGEN_TIMEOUT", None, ANY, "seconds one LLVM code generation may take"),
    _s("BACKEND_MEMO", None, ANY, "a directory memoising LLVM code generation"),
    _s("CACHE", "1", WORDY_SWITCH, "the compile cache"),
    _s("CACHE_DIR", None, ANY, "the compile cache's directory"),
    _s("SYNC_TIMEOUT", None, ANY, "seconds a synchronize waits before reporting a hang"),
    _s("LAUNCH_CTYPES", None, SWITCH, "launch through ctypes (1) or cuda-python (0); unset: TILEORCH_LAUNCH_C decides"),
    _s("LAUNCH_C", "1", SWITCH, "launch through the compiled C launcher and check repeats in C where it builds "
       "(0: cuda-python's binding; 1 set explicitly: a PerformanceWarning where it cannot be built)"),
    _s("LAUNCH_C_WAIT_MS", "500", range(0, 600_001),
       "milliseconds a bound launch waits for the C launcher's first build on the machine (then cuda-python's "
       "binding until it is built)"),
    _s("CUTILE_NATIVE", "0", SWITCH, "tileorch.cutile.launch hands programs to cuTile"),
    _s("PROGRESS", "1", WORDY_SWITCH, "progress lines of long runs"),
    _s("PROGRESS_INTERVAL", None, ANY, "seconds between progress lines"),
    # the test suite and its tools
    _s("TEST_COMPILE_MEMO", None, ANY, "the tests' shared compile memo directory", testing=True),
    _s("TEST_FORKSERVER", None, ANY, "tool commands as forks of one server", testing=True),
    _s("TOOL_FORKSERVER_BIN", None, ANY, "the fork server's directory", testing=True),
    _s("XDIST", None, ANY, "worker processes of the test suite", testing=True),
    _s("QUICK_GPU", None, ANY, "the short GPU case lists", testing=True),
    _s("GPU_FAILURE_LOG", None, ANY, "where GPU tests log failures", testing=True),
    _s("EMULATE_ALL", None, ANY, "emulate every case of a sweep", testing=True),
    _s("TEST_ALL_ATTN4", None, ANY, "every case of attention set 4", testing=True),
    _s("UPSTREAM_EXTRA", None, ANY, "extra upstream-MLIR inputs", testing=True),
    _s("ROUNDTRIP", None, ANY, "round-trip checks of the fuzzer", testing=True),
    _s("CUSTOM_ROUNDTRIP", None, ANY, "custom-syntax round trips of the fuzzer", testing=True),
)}

CODEGEN: tuple[str, ...] = tuple(name for name, s in SETTINGS.items() if s.codegen)
"""The settings that change the emitted code: their values are part of every compile-cache key
(:func:`tileorch.cache.compile_environment`), so a run with one set never reads a program compiled
without it."""


BOUND_AT_LAUNCH: tuple[str, ...] = tuple(PREFIX + n for n in (
    "ATTN_CTAS", "CTA_PROGRAMS", "CTA_PROGRAMS_MAX", "ROW_SMEM_CACHE_AUTO_BYTES", "ROW_SMEM_CACHE_BYTES",
    "LAUNCH_C", "LAUNCH_CTYPES"))
"""The settings (not :data:`CODEGEN`) that a launch reads when it binds a kernel -- its CTA count, programs per CTA,
the row cache's shared-memory room, the launch mechanism -- and a repeated launch does not read again: their values
are part of the fingerprint the launchers' bound state is kept under (``launchers/stale_settings.py``), so one set
between two launches takes effect at the next."""


_local = _ThreadLocal()  # (`threading` imports collections and functools, which a cached relaunch does not)
"""This thread's overrides (:class:`overridden`): ``_local.texts``, setting name -> checked text."""


def _overrides() -> dict[str, str]:
    texts = getattr(_local, "texts", None)
    if texts is None:
        texts = _local.texts = {}
    return texts


def raw(name: str) -> str:
    """The text setting ``name`` has for this thread, unchecked: this thread's :class:`overridden` value,
    else the environment's, else "" (unset)."""
    texts = getattr(_local, "texts", None)
    if texts and name in texts:
        return texts[name]
    return os.environ.get(name, "")


def value(name: str) -> str | None:
    """The text of setting ``name`` (validated, stripped; lower-cased for a set of words), or its
    default when unset or empty; :class:`SettingError` when the text is not accepted.  This thread's
    :class:`overridden` value wins over the environment's."""
    setting = SETTINGS[name]
    text = raw(name)
    return setting.check(text) if text.strip() else setting.default


def raise_internal_errors() -> bool:
    """Whether a caught tileorch bug (a crash inside the tier or an optional rewrite, normally a warning and a
    fallback) should propagate instead: ``TILEORCH_INTERNAL_ERRORS=raise``."""
    return value(PREFIX + "INTERNAL_ERRORS") == "raise"


def asked(name: str) -> str | None:
    """Setting ``name``'s validated text when the environment (or this thread's :class:`overridden`) sets it,
    None when it is unset or empty (for a remark that explains a choice only where the user asked for it)."""
    text = raw(name)
    return SETTINGS[name].check(text) if text.strip() else None


class overridden:  # noqa: N801 - used as a context manager, like contextlib's
    """``with overridden(name, text):`` setting ``name`` reads ``text`` (checked) in this thread inside the block
    (:func:`value`, :func:`asked`, :func:`raw`, so the compile key too), and what it read before after it: a
    launcher compiling one program under another value of a compile switch (the value is part of the compile
    key, :data:`CODEGEN`).  A layer per thread over the environment, which is left alone: another thread
    launching at the same time reads its own value (was: ``os.environ`` set and restored, which every
    thread saw).  Blocks nest (the inner one's value inside it)."""

    def __init__(self, name: str, text: str):
        self.name, self.text = name, SETTINGS[name].check(text)
        self.saved: list[str] = []

    def __enter__(self) -> None:
        texts = _overrides()
        self.saved.append(texts.get(self.name, _UNSET))
        texts[self.name] = self.text
        changed()

    def __exit__(self, *exc) -> None:
        texts = _overrides()
        before = self.saved.pop()
        if before is _UNSET:
            texts.pop(self.name, None)
        else:
            texts[self.name] = before
        changed()


_UNSET = "\0unset"
"""(:class:`overridden`: no override of the name before the block)"""


_watchers: list = []
"""The callbacks :func:`changed` calls (:func:`on_change`)."""


def on_change(callback) -> None:
    """Call ``callback()`` (no arguments, cheap, never raising) after every change of a ``TILEORCH_*`` variable
    made through ``os.environ`` (assignment, ``del``, ``pop``, ``update``, ``monkeypatch.setenv`` ...: the
    mapping's class is swapped for :class:`_WatchedEnviron` on the first call) and on entering or leaving an
    :class:`overridden` block: what keeps state derived from the settings -- the launchers' bound launches,
    keyed by the arguments alone -- learns that it may be stale without reading the environment on each call.
    ``os.putenv`` changes nothing this module reads, and is not watched."""
    _watch_environment()
    if callback not in _watchers:
        _watchers.append(callback)


def changed() -> None:
    """Tell the :func:`on_change` callbacks that a setting may have changed."""
    for callback in tuple(_watchers):
        callback()


def _watch_environment() -> None:
    env = os.environ
    if isinstance(env, _WatchedEnviron) or not isinstance(env, os._Environ):
        return
    env.__class__ = _WatchedEnviron  # (same layout: a subclass with no fields of its own)


class _WatchedEnviron(os._Environ):
    """``os.environ``'s own class, with :func:`changed` called after a ``TILEORCH_*`` variable is set or removed
    (every mutating method of the mapping goes through these two)."""
    __slots__ = ()

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        if type(key) is str and key.startswith(PREFIX):
            changed()

    def __delitem__(self, key):
        super().__delitem__(key)
        if type(key) is str and key.startswith(PREFIX):
            changed()


def integer(name: str) -> int | None:
    """Setting ``name`` as an integer (None when unset without a default)."""
    text = value(name)
    return None if text is None else int(text)


_checked: set[tuple] = set()
_warned: set[str] = set()


def check_environment(environ=None) -> list[str]:
    """Validate every ``TILEORCH_*`` variable of ``environ`` (default ``os.environ``): raises
    :class:`SettingError` for the first value a setting does not accept; returns a warning for each
    name that is not a setting (with the closest setting's name), each name once per process."""
    env = os.environ if environ is None else environ
    items = tuple(sorted((k, v) for k, v in env.items() if k.startswith(PREFIX)))
    if items in _checked:
        return []
    messages = []
    for name, text in items:
        setting = SETTINGS.get(name)
        if setting is None:
            if name not in _warned:
                _warned.add(name)
                import difflib  # (only for a name that is not a setting)

                close = difflib.get_close_matches(name, SETTINGS, n=1, cutoff=0.8)
                hint = f" (did you mean {close[0]}?)" if close else ""
                messages.append(f"{name} is not a setting tileorch reads: ignored{hint}")
        elif text.strip():
            setting.check(text)
    _checked.add(items)
    return messages
