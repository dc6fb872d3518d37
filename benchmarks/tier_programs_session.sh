#!/usr/bin/env bash
# Device session for the tier's dot programs (run on the GPU machine from the repository root).
#   benchmarks/tier_programs_session.sh tests   GPU tests of the tier programs (dot zoo, attention) and
#       of tileorch.gemm's staged/transposed operands.  Carries .whl/ (xdsl, immutabledict,
#       ordered_set, cuda_tile wheels; llvmlite as llvmlite_rest.tgz + libllvmlite.so.xz).
#   benchmarks/tier_programs_session.sh fill    benchmarks/tile_programs.py without tileiras, which fills
#       the compiled-program cache ($OUT/cache.tgz) that the bench mode reads.  Carries .whl/.
#   benchmarks/tier_programs_session.sh bench   the same benchmark with tileiras: carries .tc/ (tc.tar.xz:
#       nvidia/cu13/{bin/tileiras,bin/ptxas,lib/libnvvm.so.4} of the 13.4 wheels; the cuda_tile wheel;
#       cache.tgz from the tests mode).  tileorch's kernels come from the cache: no xDSL needed there.
set -u -o pipefail
MODE=${1:-tests}
if [ "$MODE" = all ]; then  # tests, then fill, in one device call
  bash "$0" tests && bash "$0" fill
  exit $?
fi
if [ "$MODE" = quick ]; then  # one short call: the quick GPU tests, then the 4096^3 benchmark without tileiras
  TILEORCH_QUICK_GPU=1 TIER_TIMEOUT=170 bash "$0" tests
  FILL_TIMEOUT=100 BENCH_ARGS="--sizes 4096x4096x4096" bash "$0" fill
  exit $?
fi
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
export TILEORCH_CACHE_DIR=/tmp/tileorch-cache
case "$MODE" in
  tests)
    [ -d /tmp/site/xdsl ] || python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
    tar xzf .whl/llvmlite_rest.tgz -C /tmp/site
    xz -dc .whl/libllvmlite.so.xz > /tmp/site/llvmlite/binding/libllvmlite.so
    export PYTHONPATH="/tmp/site:$PWD/src"
    { date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version --format=csv; python3 --version
      python3 -c "import xdsl, llvmlite, torch; print('xdsl', xdsl.__version__, 'llvmlite', llvmlite.__version__, 'torch', torch.__version__)"
    } 2>&1 | tee "$OUT/device.txt"
    timeout ${TIER_TIMEOUT:-400} python3 -m pytest -q -p no:cacheprovider -rfEs tests/gpu/test_tier_programs.py \
      ${TIER_ARGS:-} 2>&1 | tee "$OUT/tier_tests.log" | tail -n 30
    timeout 100 python3 -m pytest -q -p no:cacheprovider -rfEs tests/gpu/test_gemm.py \
      -k "staged or transposed_a or bad_inputs" 2>&1 | tee "$OUT/gemm_tests.log" | tail -n 8
    if [ -f tests/gpu/test_attention_programs.py ]; then
      timeout 120 python3 -m pytest -q -p no:cacheprovider -rfEs tests/gpu/test_attention_programs.py 2>&1 \
        | tee "$OUT/attention_tests.log" | tail -n 15
    fi
    ;;
  fill)
    # tileorch's kernels for the benchmark sizes (the bench mode has no xDSL: it reads this cache)
    [ -d /tmp/site/xdsl ] || python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
    tar xzf .whl/llvmlite_rest.tgz -C /tmp/site
    xz -dc .whl/libllvmlite.so.xz > /tmp/site/llvmlite/binding/libllvmlite.so
    export PYTHONPATH="/tmp/site:$PWD/src"
    timeout ${FILL_TIMEOUT:-400} python3 benchmarks/tile_programs.py --out "$OUT" --iters 10 ${BENCH_ARGS:-} 2>&1 \
      | tee "$OUT/bench_notileiras.log" | tail -n 16
    tar czf "$OUT/cache.tgz" -C /tmp tileorch-cache
    ;;
  regress)
    [ -d /tmp/site/xdsl ] || python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl || exit 1
    tar xzf .whl/llvmlite_rest.tgz -C /tmp/site
    xz -dc .whl/libllvmlite.so.xz > /tmp/site/llvmlite/binding/libllvmlite.so
    export PYTHONPATH="/tmp/site:$PWD/src"
    timeout 500 python3 -m pytest -q -p no:cacheprovider -rfEs tests/gpu/test_cutile_gpu.py tests/gpu/test_gemm.py 2>&1 \
      | tee "$OUT/regress.log" | tail -n 25
    ;;
  bench)
    python3 -m pip install -q --no-index --no-deps --target /tmp/site .tc/*.whl || exit 1
    mkdir -p /tmp/tc && xz -dc .tc/tc.tar.xz | tar xf - -C /tmp/tc
    tar xzf .tc/cache.tgz -C /tmp
    export PATH="/tmp/tc/nvidia/cu13/bin:$PATH" LD_LIBRARY_PATH="/tmp/tc/nvidia/cu13/lib:${LD_LIBRARY_PATH:-}"
    export CUDA_HOME=/tmp/tc/nvidia/cu13 PYTHONPATH="/tmp/site:$PWD/src"
    tileiras --version 2>&1 | head -3 | tee "$OUT/tileiras.txt"
    timeout 500 python3 benchmarks/tile_programs.py --out "$OUT" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.log" | tail -n 16
    ;;
esac
