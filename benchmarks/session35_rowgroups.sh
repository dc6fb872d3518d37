# Session 35 (issue 20): TILEORCH_ATTN_ROW_GROUPS=auto is the default (transforms/tileas/row_groups.py): four consumer
# warp groups of 112 registers over 256 rows for programs written with 128-row tiles where S, P and O fit (d64 or less
# with 64-wide key tiles), never three; a launch whose four-group dealing would give the busiest CTA more than 1.15x
# the default kernel's 64-row slices runs the two-group kernel (launch remark).  Run from the repository root of any
# tree with this commit, the compiler installed (carry .whl), < 240 s:
#   CMD="bash benchmarks/session35_rowgroups.sh" bash benchmarks/device_session.sh shell   -> $OUT/s35rowgroups.tgz
# Each step is one process (benchmarks/attention_variants.py, fp16, tokens 262144 unless said, output checked against
# SDPA flash: err column) with a same-run baseline, ROW_GROUPS=0 (the session-34 default kernel):
#   [d64]    128x64 non-causal 1k/4k: default (auto: 4 groups) vs rg0, r256 (the hand-written 256x64 program),
#            t128 (the program written 128x128: auto declines on registers, the kernel of before), SDPA flash beside;
#   [d64c]   128x64 causal 1k/4k: default vs rg0 (auto declines a causal trip count: the same kernel, noise);
#   [d128]   128x64 non-causal 1k/4k and causal 1k: default vs rg0 (registers: the same kernel), t128;
#   [d32]    128x64 non-causal 1k/4k: default (auto: 4 groups, never measured before) vs rg0;
#   [grid]   d64 128x64 1k at bh 300 (2400 instances: 40 slices against 38, taken) and bh 40 (320: 8 against 6,
#            declined at the launch) and bh 160 (1280: 20 against 20, taken): default vs rg0 vs rg4 (forced);
#   [tests]  tests/gpu/test_attention_programs.py -k row_groups_default (bit-identical to ROW_GROUPS=0, fp32
#            reference, NaN-prefilled; d64/d32 128x64 four groups, d64 128x128 and d128 two; the launch's decline).
# What it should show: d64 1k/4k default/rg0 ~1.18 / ~1.29 (s34: 339.2 -> 400.2, 368.1 -> 475.2), default a few %
# under r256; d64c, d128, t128 default/rg0 1.00 +- noise (same kernel); d32 default/rg0 >= 1.0 (if < 1.0: exclude d32
# from the rule); grid bh 300 and 160 default/rg0 > 1.0, bh 40 default == rg0 (declined) and rg4/rg0 < 1.0 (the
# decline is right); tests all passed.  Step budgets: D64 D64C D128 D128C D32 GRID TESTS (seconds, env).
set -u
S="$OUT/s35rowgroups"; mkdir -p "$S"
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/cuda_tile*.whl .whl/ml_dtypes*.whl \
  >/dev/null 2>&1
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s35rg}
unset TILEORCH_ATTN_ROW_GROUPS
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$S/device.txt"
git rev-parse --short HEAD 2>/dev/null | tee "$S/commit.txt"
summary() {  # one line per case: each variant's TFLOP/s and ratio to the first, its launch's row groups
  timeout 10 python3 - "$S/$1/attention_variants.json" "$1" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as exc:
    print(f"[{sys.argv[2]}] no results: {exc}"); raise SystemExit
names = [p.split(":", 1)[0].strip() for p in doc["variants"].split(";") if p.strip()]
for r in doc["rows"]:
    base = r.get(f"{names[0]}_tflops")
    cells = []
    for n in names:
        t, launch = r.get(f"{n}_tflops"), r.get(f"{n}_launch", "")
        how = ("g4-declined" if "not used for this launch" in launch else "g4" if "64-row slices" in launch else "")
        cells.append(f"{n} {t}" + (f" ({t / base:.3f}x)" if t and base else "") + (f" [{how}]" if how else "")
                     if t else f"{n} ERR {str(r.get(n + '_error', ''))[:80]}")
    errs = [r.get(f"{n}_err") for n in names]
    print(f"[{sys.argv[2]}] d{r['d']} seq {r['seq']} bh {r['bh']} {'causal' if r['causal'] else 'non-causal'} "
          f"{r['tiles']}: " + " | ".join(cells) + f" | flash {r.get('sdpa_flash_tflops')} cudnn "
          f"{r.get('sdpa_cudnn_tflops')} | max err {max((e for e in errs if e is not None), default=float('nan')):.1e}")
PY
}
ab() {  # name timeout dims seqs causal tiles tokens variants
  timeout "$2" python3 benchmarks/attention_variants.py --dims "$3" --seqs "$4" --causal "$5" --tiles "$6" \
    --tokens "$7" --iters 20 --flash --variants "$8" --out "$S/$1" > "$S/$1.log" 2>&1
  echo "[$1] rc=$?"; summary "$1"
}
RG0=TILEORCH_ATTN_ROW_GROUPS=0
ab d64 ${D64:-60} 64 1024,4096 no 128x64 262144 "default:;rg0:$RG0;r256:TILES=256x64;t128:TILES=128x128"
ab d64c ${D64C:-25} 64 1024,4096 yes 128x64 262144 "default:;rg0:$RG0"
ab d128 ${D128:-40} 128 1024,4096 no 128x64 262144 "default:;rg0:$RG0;t128:TILES=128x128"
ab d128c ${D128C:-15} 128 1024 yes 128x64 262144 "default:;rg0:$RG0"
ab d32 ${D32:-20} 32 1024,4096 no 128x64 262144 "default:;rg0:$RG0"
for bh in 300 40 160; do
  ab grid$bh ${GRID:-12} 64 1024 no 128x64 $((bh * 1024)) "default:;rg0:$RG0;rg4:TILEORCH_ATTN_ROW_GROUPS=4"
done
timeout ${TESTS:-40} python3 -m pytest -q -p no:cacheprovider -rfE -n 8 tests/gpu/test_attention_programs.py \
  -k row_groups_default > "$S/tests.log" 2>&1
echo "[row-groups default GPU tests] rc=$?"; grep -E "(FAILED|ERROR) tests" "$S/tests.log" | sort -u | head -10
tail -n 1 "$S/tests.log"
tar czf "$OUT/s35rowgroups.tgz" -C "$OUT" s35rowgroups
