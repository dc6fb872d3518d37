# Session 34's first GPU call, from main's tree after merging s34-sweep26, s34-zoo, s34-attn1k (carry .whl):
#   CMD="bash benchmarks/session34_mid.sh" TAIL=160 bash benchmarks/device_session.sh shell
# [attn1k] benchmarks/session34_attn1k.sh: the row-groups candidates (TILEORCH_ATTN_ROW_GROUPS=3/4, 128x64 tiles)
#          vs the default at d64/d128, 1k/4k, same process, + their GPU tests;
# [zoo]    benchmarks/session34_zoo.sh: GQA/MQA heads stacked into one chain vs unstacked vs SDPA, + zoo GPU tests.
set -u
echo "######## attn1k $(date -u +%T)"
bash benchmarks/session34_attn1k.sh 2>&1 | tail -n 60
echo "######## zoo $(date -u +%T)"
TEST_TIMEOUT=${ZOO_TESTS:-100} BENCH_TIMEOUT=${ZOO_BENCH:-120} bash benchmarks/session34_zoo.sh 2>&1 | tail -n 50
echo "######## end $(date -u +%T)"
cd "$OUT" && { [ -f s34zoo.tgz ] || tar czf s34zoo.tgz s34zoo; } ; rm -rf s34attn1k s34zoo; ls
