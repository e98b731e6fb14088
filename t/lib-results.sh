# shellcheck shell=bash
# lib-results.sh - sourced by the gridexp tests that read results
# directories (t/802x), after lib-netns.sh.
#
#   make_results DIR NAME SEED SPEC   a hand-made results directory of a
#                                     campaign NAME with algorithms mpich-g2,
#                                     adaptive and mateescu, one run each
#                                     (docs/formats.md, "Campaign results":
#                                     meta.json, and per run in SPEC complete,
#                                     run.json, broadcasts.csv, wan.csv;
#                                     t/results_writer.py writes it)
#
#   results_setup NAME                what each of these tests begins with:
#                                     python3 required (else skip), GX the
#                                     built gridexp (else bail), tmp a new
#                                     folder /tmp/gbNAME.XXXXXX, removed on
#                                     exit
#
# SPEC is a python dict {algo: [(completion s, loaded 0|1, wan_bytes)]}, one
# tuple per broadcast of 1000 bytes; an algorithm missing from SPEC has a
# run in meta.json but no directory (not run).
results_setup() {
	require_cmd python3
	GX=$GRIDBED_BUILD/experiments/gridexp
	[ -x "$GX" ] || bail "gridexp not built at $GX"
	gb_tmpdir "$1"
}
make_results() {
	python3 - "$@" <<'PY'
import os, sys
sys.path.insert(0, os.environ["GRIDBED_SRC"] + "/t")
import results_writer
top, name, seed, spec = sys.argv[1], sys.argv[2], int(sys.argv[3]), eval(sys.argv[4])
rows = {("paper", a): [(1000, t, "loaded" if l else "unloaded") for t, l, _ in b]
        for a, b in spec.items()}
wan = {("paper", a): [wb for _, _, wb in b] for a, b in spec.items()}
results_writer.write(top, name, ["mpich-g2", "adaptive", "mateescu"], ["paper"], rows,
                     seed=seed, scale=0.3, dilate=10, wan=wan)
PY
}
