#!/usr/bin/env bash
# Device session for the chained-dots (attention) kernels, run on the GPU machine from the repository root
# (carries .whl/: xdsl, immutabledict, ordered_set, cuda_tile wheels; llvmlite as llvmlite_rest.tgz +
# libllvmlite.so.xz): the GPU tests of tests/gpu/test_attention_programs.py, then benchmarks/attention.py.
set -u -o pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 TILEORCH_CACHE_DIR=/tmp/tileorch-cache
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl >/dev/null 2>&1 || exit 1
tar xzf .whl/llvmlite_rest.tgz -C /tmp/site
xz -dc .whl/libllvmlite.so.xz > /tmp/site/llvmlite/binding/libllvmlite.so
export PYTHONPATH="/tmp/site:$PWD/src"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# TESTS=-k "256 or sample_style" narrows the tests (TEST_TIMEOUT / BENCH_TIMEOUT: seconds, 540 / 400); BENCH="--dims 256 --program both" picks the benchmark cases
timeout ${TEST_TIMEOUT:-540} python3 -m pytest -q -p no:cacheprovider -rfEs tests/gpu/test_attention_programs.py ${TESTS:-} 2>&1 \
  | tee "$OUT/attention_tests.log" | tail -n 8
timeout ${BENCH_TIMEOUT:-400} python3 benchmarks/attention.py ${BENCH:-} --out "$OUT" 2>&1 | tee "$OUT/attention_bench.log" | tail -n 16
