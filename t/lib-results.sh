# shellcheck shell=bash
# lib-results.sh - sourced by the gridexp tests that read results
# directories (t/802x), after lib-netns.sh.
#
#   make_results DIR NAME SEED SPEC   a hand-made results directory of a
#                                     campaign NAME with algorithms mpich-g2,
#                                     adaptive and mateescu, one run each
#                                     (docs/formats.md, "Campaign results":
#                                     meta.json, and per run in SPEC complete,
#                                     run.json, broadcasts.csv, wan.csv)
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
import json, os, sys
top, name, seed, spec = sys.argv[1], sys.argv[2], int(sys.argv[3]), eval(sys.argv[4])
algos = ["mpich-g2", "adaptive", "mateescu"]
runs = []
for a, label in enumerate(algos):
    rid = "paper-%s-r1" % label
    runs.append({"id": rid, "algo": a, "cond": 0, "rep": 1, "algorithm": label,
                 "condition": "paper", "load_seed": seed})
    if label not in spec:
        continue
    d = top + "/runs/" + rid
    os.makedirs(d)
    open(d + "/complete", "w").close()
    json.dump({"status": "ok"}, open(d + "/run.json", "w"))
    with open(d + "/broadcasts.csv", "w") as f, open(d + "/wan.csv", "w") as w:
        f.write("index,size,start_time,completion_time,load_state\n")
        w.write("index,size,wan_bytes\n")
        for i, (t, loaded, wb) in enumerate(spec[label]):
            f.write("%d,1000,%d,%g,%s\n" % (i, 100 + 10 * i, t,
                                             "loaded" if loaded else "unloaded"))
            w.write("%d,1000,%d\n" % (i, wb))
json.dump({"format": "gridbed-campaign-results", "results_id": "R%d" % seed,
           "scale": 0.3, "dilate": 10,
           "campaign": {"name": name, "seed": seed, "scale": 0.3,
                        "algorithms": [{"label": l} for l in algos],
                        "conditions": [{"name": "paper"}]},
           "runs": runs}, open(top + "/meta.json", "w"))
PY
}
