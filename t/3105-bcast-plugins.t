#!/bin/bash
# 3105-bcast-plugins - planners from outside gridbed in real broadcasts
# (docs/plugins.md): gridbcast --algo plugin:PATH and external:PATH, and
# GRIDBED_BCAST=... for libgridbcast.so preloaded into a plain MPI program,
# every rank's buffer checked; then a plugin that crashes at the root: the
# broadcast does not go down with it, but along the labelled fallback tree
# (FALLBACK mpich-g2 in every result row, with the fault); and a plugin
# that cannot be loaded fails the job with one line that names the file.
# On two-clusters with a fast WAN (lib-bcast.sh): bytes and trees, not time.
source "$(dirname "$0")/lib-netns.sh"
BCAST_TMP=$(mktemp -d /tmp/gb3105.XXXXXX)
trap 'rm -rf "$BCAST_TMP"; gb_cleanup' EXIT
source "$(dirname "$0")/lib-bcast.sh"
command -v cc >/dev/null || skip_all "no C compiler (cc) to build the plugins"
command -v python3 >/dev/null || skip_all "python3 is not installed"

bcast_fast_two_clusters
bcast_setup "$BCAST_FAST_TOPO" 4
GB=$BCAST_BUILD/gridbcast
SO=$BCAST_BUILD/libgridbcast.so
T=$BCAST_TMP

cp -r "$GRIDBED_SRC/examples/planner-plugin" "$T/ex"
rm -f "$T/ex/"*.so
make -s -C "$T/ex" GRIDBED="$GRIDBED_SRC" >/dev/null 2>&1 || bail "cannot build the example plugin"
PL=$T/ex/earliest-first.so
cp "$GRIDBED_SRC/examples/external-planner/coordinators.py" "$T/coord.py"
EXT=$T/coord.py
cc -shared -fPIC -I"$GRIDBED_SRC/include" -o "$T/crash.so" "$GRIDBED_SRC/t/plugins/crash.c" ||
	bail "cannot build the crashing plugin"

# col CSV ALGO COLUMN: the column's values of ALGO's rows, one per line
col() {
	python3 - "$1" "$2" "$3" <<'EOF'
import csv, sys
with open(sys.argv[1]) as f:
    for r in csv.DictReader(f):
        if r["algorithm"] == sys.argv[2]:
            print(r[sys.argv[3]])
EOF
}

# --- gridbcast: the plugin and the external planner ------------------------
out=$(run_mpi -- "$GB" --algo "plugin:$PL,external:$EXT" --sizes 1K,1M --reps 2 \
	--out "$T/ok.csv"); st=$?
is "$st" 0 "gridbcast --algo plugin:PATH,external:PATH" || printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
for a in "plugin:$PL" "external:$EXT"; do
	is "$(col "$T/ok.csv" "$a" mismatches | sort -u)" 0 "$(basename "$a"): every rank's buffer right"
	is "$(col "$T/ok.csv" "$a" mismatches | wc -l)" 4 "$(basename "$a"): 2 sizes x 2 reps"
	is "$(col "$T/ok.csv" "$a" tree_via | sort -u)" piggyback \
		"$(basename "$a"): planned at the root, the tree rides in the header"
	like "$(col "$T/ok.csv" "$a" model | sort -u)" "^topology " \
		"$(basename "$a"): planned on the topology (no matrix), no fallback"
done

# --- the preloaded library: GRIDBED_BCAST ----------------------------------
for a in "plugin:$PL" "external:$EXT"; do
	out=$(GRIDBED_BCAST=$a run_mpi -p "$SO" -- "$BCAST_MPITEST/bcast_plain" --quick); st=$?
	is "$st" 0 "GRIDBED_BCAST=$(basename "$a"): the job runs"
	like "$out" " 0 bad" "GRIDBED_BCAST=$(basename "$a"): buffers right"
done

# --- a plugin that crashes at the root --------------------------------------
out=$(run_mpi -- "$GB" --algo "plugin:$T/crash.so" --sizes 1K,1M --reps 2 \
	--out "$T/crash.csv"); st=$?
is "$st" 0 "a crashing plugin does not take the broadcast down" ||
	printf '%s\n' "$out" | tail -5 | sed 's/^/#   /'
is "$(col "$T/crash.csv" "plugin:$T/crash.so" mismatches | sort -u)" 0 \
	"the fallback tree delivers every rank's buffer"
like "$(col "$T/crash.csv" "plugin:$T/crash.so" model | sort -u | head -1)" \
	"^FALLBACK mpich-g2: plugin:$T/crash.so: crashed \\(signal 11" \
	"every row says FALLBACK mpich-g2, and why"
is "$(col "$T/crash.csv" "plugin:$T/crash.so" tree_via | sort -u)" fallback:mpich-g2 \
	"and its tree_via is fallback:mpich-g2, as an adaptive broadcast's fallback"

# --- a plugin that cannot be loaded fails the job, in one line --------------
out=$(GRIDBED_BCAST=plugin:$T/none.so run_mpi -p "$SO" -- \
	"$BCAST_MPITEST/bcast_plain" --quick); st=$?
ok $(( st == 0 )) "GRIDBED_BCAST=plugin:missing: the job fails (status $st)"
like "$out" "plugin:$T/none.so: No such file or directory" "the failure names the file"
err=$("$GB" --algo "plugin:$T/none.so" --sizes 1K --reps 1 --out "$T/x.csv" 2>&1); st=$?
is "$st" 2 "gridbcast --algo plugin:missing refuses before MPI starts"
like "$err" "^gridbcast: --algo: plugin:$T/none.so: No such file or directory" "in one line: '$err'"

done_testing
