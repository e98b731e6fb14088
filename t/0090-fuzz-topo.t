#!/usr/bin/env bash
# 0090-fuzz-topo: build the topology parser's libFuzzer target with clang
# (ASan + UBSan + LeakSanitizer) and fuzz it for 20 seconds from the seed
# corpus.  The target aborts on any broken contract (see fuzz_topo.c), so a
# clean exit means: no crash, no leak, no undefined behaviour, and every
# diagnostic well-formed, for every input tried.  Skips without clang or
# libFuzzer.
source "$(dirname "$0")/lib-netns.sh"

[ -n "${GRIDBED_SANITIZED:-}" ] &&
	skip_all "the sanitizer pass: this test builds its own ASan+UBSan fuzzer and already ran in the plain pass"
command -v clang >/dev/null || skip_all "clang is not installed"
pkg-config --exists yaml-0.1 2>/dev/null || skip_all "libyaml (yaml-0.1) is not installed"

tmp=$(mktemp -d /tmp/gb-fuzz-topo.XXXXXX)
trap 'st=$?; rm -rf "$tmp"; (exit $st); gb_cleanup' EXIT

printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n; }\n' \
	>"$tmp/probe.c"
clang -fsanitize=fuzzer "$tmp/probe.c" -o "$tmp/probe" >/dev/null 2>&1 ||
	skip_all "clang cannot link libFuzzer (install libclang-rt-dev)"

plan 4

t "fuzz target builds with clang -fsanitize=fuzzer,address,undefined" \
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -DGB_TOPO_MAX_NODES=512 -I"$TOPOS" \
	"$TOPOS/fuzz_topo.c" "$TOPOS/topo_parse.c" "$TOPOS/topo_build.c" "$TOPOS/topo_model.c" "$TOPOS/topo_tcp.c" "$TOPOS/units.c" \
	"$TOPOS/yaml_diag.c" \
	$(pkg-config --cflags --libs yaml-0.1) -o "$tmp/fuzz_topo" || exit 1

mkdir "$tmp/corpus"
cp "$TOPOS"/fuzz-corpus/* "$tmp/corpus/"
n0=$(ls "$tmp/corpus" | wc -l)

# -max_total_time bounds the run; nothing is asserted about speed.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
"$tmp/fuzz_topo" -max_total_time=20 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-dict="$TOPOS/fuzz-topo.dict" -artifact_prefix="$tmp/" "$tmp/corpus" >"$tmp/log" 2>&1
st=$?
ok $st "20 s of fuzzing: no crash, leak, UB or broken contract"
if [ $st != 0 ]; then
	grep -E 'ERROR|SUMMARY|abort|==[0-9]+==' "$tmp/log" | head -20 | sed 's/^/#   /'
	for f in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
		[ -f "$f" ] || continue
		diag "reproducer $(basename "$f") (base64):"
		base64 "$f" | sed 's/^/#   /'
	done
fi

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log")
# at least every seed was executed (a count, not a speed)
ok "$([ "${runs:-0}" -ge "$n0" ] && echo 0 || echo 1)" "the fuzzer ran inputs (${runs:-0})"
# every seed file is still there, byte for byte (libFuzzer adds to the
# corpus directory; it must never rewrite or drop what it was given)
kept=0
for f in "$TOPOS"/fuzz-corpus/*; do cmp -s "$f" "$tmp/corpus/$(basename "$f")" && kept=$((kept + 1)); done
is "$kept" "$n0" "the corpus still holds all $n0 seeds unchanged ($(ls "$tmp/corpus" | wc -l) files now)"
done_testing
