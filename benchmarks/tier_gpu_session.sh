#!/usr/bin/env bash
# One batched device session for the TileAS tier and the fuzz campaign (run on the device machine
# from the repository root).  The device has no xDSL: wheels carried in .whl/ (xdsl, immutabledict,
# ordered_set, cuda_tile, llvmlite split as llvmlite_rest.tgz + libllvmlite.so.xz) are unpacked
# into /tmp/site.  Logs and results go to $OUT.
#   benchmarks/tier_gpu_session.sh gpu           tile_gemm.mlir through the tier vs the hand-built
#                                                GEMM (same run), MODS conformance cases
#   benchmarks/tier_gpu_session.sh fuzz SECONDS  tools/fuzz.py on every core for SECONDS
#   benchmarks/tier_gpu_session.sh gemm          GEMM + cuTile GPU tests (regression check)
set -u -o pipefail
MODE=${1:-gpu}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
if ! python3 -c "import xdsl" 2>/dev/null && [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
  tar xzf .whl/llvmlite_rest.tgz -C /tmp/site
  xz -dc .whl/libllvmlite.so.xz > /tmp/site/llvmlite/binding/libllvmlite.so
fi
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="/tmp/site:$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>/dev/null
  nproc
  python3 -c "import xdsl, llvmlite; print('xdsl', xdsl.__version__, 'llvmlite', llvmlite.__version__)"
  command -v ptxas compute-sanitizer
} 2>&1 | tee "$OUT/device.txt"

case "$MODE" in
  gpu)
    timeout 360 python3 benchmarks/tile_gemm_gpu.py --out "$OUT" 2>&1 | tee "$OUT/tile_gemm_gpu.log" | tail -n 40
    timeout 200 python3 -m pytest -q -p no:cacheprovider -rfEs tests/gpu/test_conformance.py -k mods 2>&1 \
      | tee "$OUT/mods.log" | tail -n 15
    ;;
  fuzz)  # fuzz SECONDS [SEED] [COMPILE_WEIGHT]; SNAP=tarball fuzzes that snapshot instead of this tree
    dir=$PWD
    if [ -n "${SNAP:-}" ]; then mkdir -p /tmp/snap && tar xzf "$SNAP" -C /tmp/snap && dir=/tmp/snap; fi
    (cd "$dir" && PYTHONPATH="/tmp/site:$dir/src" timeout $(( ${2:-500} + 80 )) python3 tools/fuzz.py --inputs 1000000 \
      --jobs "$(nproc)" --seconds "${2:-500}" --seed "${3:-1}" --compile-weight "${4:-20}" --out /tmp/fuzz-findings) \
      2>&1 | tee "$OUT/fuzz.log" | grep -v '^    ' | tail -n 30
    [ -d /tmp/fuzz-findings ] && tar czf "$OUT/fuzz-findings.tgz" -C /tmp fuzz-findings
    ;;
  gemm)
    timeout 420 python3 -m pytest -q -p no:cacheprovider -rfEs tests/gpu/test_gemm.py tests/gpu/test_cutile_gpu.py \
      -x 2>&1 | tee "$OUT/gemm_tests.log" | tail -n 20
    ;;
esac
