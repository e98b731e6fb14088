# results_writer.py - the tests' hand-made campaign results directories
# (docs/formats.md, "Campaign results"), written one way: meta.json, and per
# run that has rows its complete, run.json, broadcasts.csv and, when given,
# wan.csv.  Imported by t/lib-results.sh (make_results), t/8031 and t/8034:
#
#   sys.path.insert(0, os.environ["GRIDBED_SRC"] + "/t")
#   import results_writer
#   results_writer.write(top, "sweep", ["a", "b"], ["unloaded"], rows)
#
# Not a test itself (prove runs t/*.t only).
import json
import os


def write(top, name, algos, conds, rows, seed=1, scale=1, dilate=1, wan=None,
          results_id=None):
    """Write the results directory @top of campaign @name.

    @algos and @conds are the labels, in the campaign's order; a run's id is
    "<condition>-<algorithm>-r1".  @rows maps (condition, algorithm) to the
    run's broadcasts, (size, completion s, load_state) each; a pair missing
    from @rows is a run listed in meta.json but not run.  @wan, if given,
    maps the same pairs to each broadcast's wide-area bytes.
    """
    runs = []
    for c, cn in enumerate(conds):
        for a, label in enumerate(algos):
            rid = "%s-%s-r1" % (cn, label)
            runs.append({"id": rid, "algo": a, "cond": c, "rep": 1, "algorithm": label,
                         "condition": cn, "load_seed": seed})
            if (cn, label) not in rows:
                continue
            d = os.path.join(top, "runs", rid)
            os.makedirs(d)
            open(os.path.join(d, "complete"), "w").close()
            with open(os.path.join(d, "run.json"), "w") as f:
                json.dump({"status": "ok"}, f)
            with open(os.path.join(d, "broadcasts.csv"), "w") as f:
                f.write("index,size,start_time,completion_time,load_state\n")
                for i, (size, t, state) in enumerate(rows[(cn, label)]):
                    f.write("%d,%d,%d,%.9g,%s\n" % (i, size, 100 + 10 * i, t, state))
            if wan is not None and (cn, label) in wan:
                with open(os.path.join(d, "wan.csv"), "w") as f:
                    f.write("index,size,wan_bytes\n")
                    for i, ((size, _, _), wb) in enumerate(zip(rows[(cn, label)],
                                                                wan[(cn, label)])):
                        f.write("%d,%d,%d\n" % (i, size, wb))
    with open(os.path.join(top, "meta.json"), "w") as f:
        json.dump({"format": "gridbed-campaign-results",
                   "results_id": results_id or "R%d" % seed, "scale": scale, "dilate": dilate,
                   "campaign": {"name": name, "seed": seed, "scale": scale,
                                "algorithms": [{"label": l} for l in algos],
                                "conditions": [{"name": c} for c in conds]},
                   "runs": runs}, f)
