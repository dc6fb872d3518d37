# Session 34 attention probe (issue 20's 1k rows: d64 401 -> >= 450 TFLOP/s, d128 542 -> >= 550), < 240 s; run from the
# repository root with the compiler installed (carry .whl), from any tree that has TILEORCH_ATTN_ROW_GROUPS:
#   CMD="bash benchmarks/session34_attn1k.sh" bash benchmarks/device_session.sh shell   -> $OUT/s34attn1k.tgz
# Candidate (a), built behind TILEORCH_ATTN_ROW_GROUPS=3 (transforms/tileas/row_groups.py, default off): the
# textbook program as written (128-row tiles) run as FlashAttention-3's d64 shape, three consumer warp groups of 160
# registers over 192 rows, each a 64-row slice of an instance, the CTA's three slices consecutive rows of one head
# sharing every K/V tile (a third fewer K/V loads per row, three consumer warps per SM sub-partition instead of two;
# per row the same ops: bit-identical output).  Units of a head: cdiv(2X, 3) (1k: 5 of three slices + 1 of one).
# One process per head dim (benchmarks/attention_variants.py, fp16, tokens 262144, non-causal: row groups refuse a
# heavy-first causal trip count), output checked against SDPA flash (err column), cuDNN and flash timed beside:
#   d64:  default (128x128), g3 (ROW_GROUPS=3: an idle slice of a partial unit computes its chain, stores nothing),
#         g3pass (+ TILEORCH_ATTN_IDLE_SLICES=pass: idle slices pass their tiles by, a warp-uniform branch), g3n64 (the program written with TILE_N=64 + ROW_GROUPS=3: 192x64),
#         t128x64 (the program written 128x64, default kernel), g4n64 (128x64 + ROW_GROUPS=4: four groups of 112 over
#         256 rows, the compiler's twin of r256), r256 (the program written 256x64: four groups of 112, session 33's
#         1.033x / 1.082x), default2 (noise);
#   d128: default, t128x64 (TILE_N=64, two groups), g3n64 (TILE_N=64 + ROW_GROUPS=3: S 32 + P 16 + O 64 fits 160
#         registers; the row division is refused there, a remark), default2;
# (TILEORCH_ATTN_ROW_GROUPS=auto, the cost rule after the first run: g4 at d64 128x64, nothing else.)
# First run (H100, main 9a36570d, 16:13 UTC): d64 1k default 400.0, g3 359.5 (0.899), g3n64 360.7, t128x64 339.2,
# g4n64 400.2, r256 411.4; 4k 462.6 / 441.9 (0.955) / 442.8 / 368.1 / 475.2 / 497.4; d128 1k default 538.2, t128x64
# 487.6, g3n64 437.7; 4k 641.9 / 555.6 / 579.2; 30 GPU tests passed (benchmarks/results/attention_s34_rowgroups_*).
# then the launch remarks, and the row-groups GPU tests (bit-identical to the default kernel, fp32 reference).
# What it should show: err <= 1e-3 everywhere; g3 / g3pass vs default at d64 1k / 4k (> 1.0: the shape pays; the
# launch remarks give the busiest CTA's 64-row slices: 1k g3 36 (idle computed), g3pass 32, default 32; 4k 33 vs 32);
# g4n64 near r256 and above t128x64 (the regrouping reaches the hand-written 256-row kernel); g3n64 vs t128x64 at
# d128 (the third group with 64-wide key tiles); tests all passed.
S="$OUT/s34attn1k"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s34}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
ab() {  # name timeout dims variants
  timeout "$2" python3 benchmarks/attention_variants.py --dims "$3" --seqs 1024,4096 --causal no --tiles 128x128 \
    --iters 20 --flash --variants "$4" --out "$S/$1" > "$S/$1.log" 2>&1
  echo "[$1] rc=$?"; grep -A8 "^   d " "$S/$1.log" || tail -n 5 "$S/$1.log"
}
ab d64 110 64 "default:;g3:TILEORCH_ATTN_ROW_GROUPS=3;g3pass:TILEORCH_ATTN_ROW_GROUPS=3,TILEORCH_ATTN_IDLE_SLICES=pass;\
g3n64:TILES=128x64,TILEORCH_ATTN_ROW_GROUPS=3;t128x64:TILES=128x64;g4n64:TILES=128x64,TILEORCH_ATTN_ROW_GROUPS=4;\
r256:TILES=256x64;default2:"
ab d128 65 128 "default:;t128x64:TILES=128x64;g3n64:TILES=128x64,TILEORCH_ATTN_ROW_GROUPS=3;default2:"
timeout 10 python3 - "$S/d64/attention_variants.json" "$S/d128/attention_variants.json" <<'PY' 2>&1 | tee "$S/launch.txt"
import json, sys
for path in sys.argv[1:]:
    try:
        rows = json.load(open(path))["rows"]
    except (OSError, ValueError) as exc:
        print(f"{path}: {exc}")
        continue
    for r in rows:
        for key in sorted(k for k in r if k.endswith(("_launch", "_error")) and r["seq"] == 1024):
            print(f"d{r['d']} 1k {key}: {str(r[key])[:160]}")
PY
timeout ${TEST_TIMEOUT:-50} python3 -m pytest -q -p no:cacheprovider -rfE -n 8 tests/gpu/test_attention_programs.py \
  -k row_groups > "$S/tests.log" 2>&1
echo "[row-groups GPU tests] rc=$?"; tail -n 3 "$S/tests.log"
tar czf "$OUT/s34attn1k.tgz" -C "$OUT" s34attn1k
