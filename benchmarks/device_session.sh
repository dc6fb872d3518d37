#!/usr/bin/env bash
# One script for a device session (run on the GPU machine from the repository root).
#   benchmarks/device_session.sh tests  every GPU test of the tile tiers (dot zoo, attention, memory-bound
#       SIMT programs, the SIMT regression set, tileorch.gemm), spread over worker processes.
#       Carries .whl/ (xdsl, immutabledict, ordered_set, cuda_tile, pytest-xdist, execnet wheels; llvmlite as
#       llvmlite_rest.tgz + libllvmlite.so.xz).  QUICK=1: the short case list of the dot zoo.
#   benchmarks/device_session.sh fill   the benchmarks (tile programs, memory-bound, attention) without
#       tileiras: tileorch and torch numbers, and the compiled-program cache ($OUT/cache.tgz) bench reads.
#   benchmarks/device_session.sh shell  CMD='...' with the compiler installed (ad-hoc experiments).
#   benchmarks/device_session.sh bench  the same benchmarks with tileiras (carries .tc/: tc.tar.xz with
#       nvidia/cu13/{bin/tileiras,bin/ptxas,lib/libnvvm.so.4} of the 13.4 wheels, the cuda_tile wheel and
#       cache.tgz from fill; no xDSL there: tileorch's kernels come from the cache, so src/ must not change
#       between fill and bench).
#   Variants (fill, bench, bench_all): TILE_VARIANTS="default TILEORCH_EPILOGUE_ROUNDS=0 TILEORCH_MATH=approx" runs
#       benchmarks/tile_programs.py once per variant (its NAME=value settings, comma-joined) into
#       tile_programs_<label>.{json,log,png}; TILE_PROGRAMS=linear_gelu_bf16,gemm_f16 restricts the programs.
# Results land in $OUT (logs, JSON, plots); benchmarks/results/README.md says which were kept.
set -u -o pipefail
MODE=${1:-tests}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 TILEORCH_CACHE_DIR=/tmp/tileorch-cache
SIZES=${SIZES:-4096x4096x4096}

install_compiler() {
  [ -d /tmp/site/xdsl ] || python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
  tar xzf .whl/llvmlite_rest.tgz -C /tmp/site
  xz -dc .whl/libllvmlite.so.xz > /tmp/site/llvmlite/binding/libllvmlite.so
  export PYTHONPATH="/tmp/site:$PWD/src"
}

benchmarks() {  # $1: fill or bench; everything lands in $OUT/results_$1.tgz (the device returns 8 files at most)
  # BENCHES picks the benchmarks (default: tile memory attention; also gemm = the tileorch.gemm shape suite,
  # compile = compile time against tileiras, launch = host time per launch against torch and cuTile), so one warm machine can run them over several calls
  local R="$OUT/$1" B=" ${BENCHES:-tile memory attention} "
  mkdir -p "$R"
  # TILE_VARIANTS: run the tile programs once per variant, each a label "default" (the environment as it
  # is) or comma-joined NAME=value settings for that run (e.g. TILE_VARIANTS="default TILEORCH_EPILOGUE_ROUNDS=0
  # TILEORCH_MATH=approx"), into tile_programs_<label>.{json,log,png}; TILE_PROGRAMS=a,b: those programs only
  if [[ $B == *" tile "* ]]; then
    for variant in ${TILE_VARIANTS:-}; do
      label=$(echo "$variant" | tr '=,' '_-')
      mkdir -p "$R/tile_$label"
      env $(echo "$variant" | sed 's/^default$//' | tr ',' ' ') timeout ${TILE_TIMEOUT:-300} python3 \
        benchmarks/tile_programs.py --out "$R/tile_$label" --iters 20 --sizes "$SIZES" \
        ${TILE_PROGRAMS:+--programs "$TILE_PROGRAMS"} 2>&1 | tee "$R/tile_programs_$label.log" | tail -n 34
      for f in "$R/tile_$label"/tile_programs.*; do [ -e "$f" ] && mv "$f" "$R/tile_programs_$label.${f##*.}"; done
      rmdir "$R/tile_$label" 2>/dev/null
    done
    [ -z "${TILE_VARIANTS:-}" ] && timeout ${TILE_TIMEOUT:-300} python3 benchmarks/tile_programs.py --out "$R" --iters 20 \
      --sizes "$SIZES" ${TILE_PROGRAMS:+--programs "$TILE_PROGRAMS"} 2>&1 | tee "$R/tile_programs.log" | tail -n 34
  fi
  # MEM_ARGS: more arguments, e.g. MEM_ARGS="--sizes small,default,large" (issue 21's 64 MB .. 1 GB sweep)
  [[ $B == *" memory "* ]] && timeout ${MEM_TIMEOUT:-150} python3 benchmarks/memory_bound.py --out "$R" --iters 20 \
    ${MEM_ARGS:-} 2>&1 | tee "$R/memory_bound.log" | tail -n 26
  [[ $B == *" attention "* ]] && timeout ${ATT_TIMEOUT:-260} python3 benchmarks/attention.py --out "$R" ${ATT_ARGS:---dims 64,128,256 \
    --seqs 1024,4096,16384} --iters 10 2>&1 | tee "$R/attention.log" | tail -n 20
  [[ $B == *" gemm "* ]] && timeout ${GEMM_TIMEOUT:-300} python3 benchmarks/gemm.py run ${GEMM_ARGS:---variants persistent,streamk} \
    --out "$R" 2>&1 | tee "$R/gemm_bench.log" | grep -v "^ \|^{\|^}" | tail -n 24
  [[ $B == *" launch "* ]] && timeout ${LAUNCH_TIMEOUT:-120} python3 benchmarks/launch_overhead.py --mode gpu --calls 2000 \
    --out "$R" 2>&1 | tee "$R/launch_overhead.log" | tail -n 48
  [[ $B == *" compile "* ]] && timeout ${COMPILE_TIMEOUT:-200} python3 benchmarks/compile_time.py --out "$R" --repeat 2 \
    2>&1 | tee "$R/compile_time.log" | tail -n 30
  tar czf "$OUT/results_$1.tgz" -C "$OUT" "$1" && rm -rf "$R"
}

case "$MODE" in
  tests)
    install_compiler
    { date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv; python3 --version
      python3 -c "import xdsl, llvmlite, torch; print('xdsl', xdsl.__version__, 'llvmlite', llvmlite.__version__, 'torch', torch.__version__)"
    } 2>&1 | tee "$OUT/device.txt"
    [ "${QUICK:-0}" = 1 ] && export TILEORCH_QUICK_GPU=1
    FILES="tests/gpu/test_tier_programs.py tests/gpu/test_memory_bound_gpu.py tests/gpu/test_cutile_gpu.py
      tests/gpu/test_gemm.py tests/gpu/test_attention_programs.py"
    FILES="$FILES tests/gpu/test_pointer_tiles_gpu.py tests/gpu/test_tier_column_reductions.py tests/gpu/test_op_audit_gpu.py"
    timeout ${TEST_TIMEOUT:-560} python3 -m pytest -q -p no:cacheprovider -rfEs -n ${WORKERS:-8} \
      ${TEST_FILES:-$FILES} ${TEST_ARGS:-} 2>&1 \
      | tee "$OUT/gpu_tests.log" | tail -n 40
    ;;
  fill)
    install_compiler
    benchmarks fill
    tar czf "$OUT/cache.tgz" -C /tmp tileorch-cache
    ;;
  bench)
    python3 -m pip install -q --no-index --no-deps --target /tmp/site .tc/*.whl || exit 1
    mkdir -p /tmp/tc && xz -dc .tc/tc.tar.xz | tar xf - -C /tmp/tc
    if [ -f .tc/cache.txz ]; then tar xJf .tc/cache.txz -C /tmp; else tar xzf .tc/cache.tgz -C /tmp; fi
    export PATH="/tmp/tc/nvidia/cu13/bin:$PATH" LD_LIBRARY_PATH="/tmp/tc/nvidia/cu13/lib:${LD_LIBRARY_PATH:-}"
    export CUDA_HOME=/tmp/tc/nvidia/cu13 PYTHONPATH="/tmp/site:$PWD/src"
    tileiras --version 2>&1 | head -3 | tee "$OUT/tileiras.txt"
    benchmarks bench
    ;;
  stage_tc)  # bench with the compiler, step 1 (carries .tc/): unpack tileiras where a warm machine keeps it
    # (the cuda_tile wheel may stay behind: bench_all installs it from .whl/).  When the tree and
    # .tc/tc.tar.xz together pass the 64 MiB a call carries, carry the archive in pieces, one call each:
    # .tc1/tc.part1, then .tc2/tc.part2 (split -b); the pieces gather in /tmp/tc.xz until it is whole.
    if compgen -G ".tc/*.whl" >/dev/null; then python3 -m pip install -q --no-index --no-deps --target /tmp/site .tc/*.whl || exit 1; fi
    if compgen -G ".tc[0-9]/tc.part*" >/dev/null; then
      cat .tc[0-9]/tc.part* >> /tmp/tc.xz
      xz -t /tmp/tc.xz 2>/dev/null || { echo "piece staged ($(stat -c %s /tmp/tc.xz) bytes so far)"; exit 0; }
      mkdir -p /tmp/tc && xz -dc /tmp/tc.xz | tar xf - -C /tmp/tc && ls /tmp/tc/nvidia/cu13/bin
    else
      mkdir -p /tmp/tc && xz -dc .tc/tc.tar.xz | tar xf - -C /tmp/tc && ls /tmp/tc/nvidia/cu13/bin
    fi
    ;;
  bench_all)  # step 2, within the machine's warm window (carries .whl/): tileiras and tileorch's compiler together
    [ -x /tmp/tc/nvidia/cu13/bin/tileiras ] || { echo "no /tmp/tc: run stage_tc first on this machine" >&2; exit 3; }
    install_compiler
    export PATH="/tmp/tc/nvidia/cu13/bin:$PATH" LD_LIBRARY_PATH="/tmp/tc/nvidia/cu13/lib:${LD_LIBRARY_PATH:-}"
    export CUDA_HOME=/tmp/tc/nvidia/cu13
    tileiras --version 2>&1 | head -3 | tee "$OUT/tileiras.txt"
    benchmarks bench
    ;;
  shell)  # an ad-hoc command with the compiler installed (carries .whl/): CMD='...' benchmarks/device_session.sh shell
    install_compiler
    [ -x /tmp/tc/nvidia/cu13/bin/tileiras ] && export PATH="/tmp/tc/nvidia/cu13/bin:$PATH" \
      LD_LIBRARY_PATH="/tmp/tc/nvidia/cu13/lib:${LD_LIBRARY_PATH:-}" CUDA_HOME=/tmp/tc/nvidia/cu13
    bash -c "${CMD:?set CMD}" 2>&1 | tee "$OUT/shell.log" | tail -n ${TAIL:-60}
    ;;
  *)
    echo "usage: $0 tests|fill|bench|stage_tc|bench_all|shell" >&2
    exit 2
    ;;
esac
