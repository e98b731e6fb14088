#!/usr/bin/env bash
# stencil-transatlantic-check.sh - judge seed 004's verdict: the lines that
# experiments/stencil-transatlantic-expect.yaml pre-registered (its header,
# "The verdict"), on each results directory of
# experiments/stencil-transatlantic.sh and on the median over them.
#
#   experiments/stencil-transatlantic-check.sh DIR [DIR...]
#       [--expect FILE]    default experiments/stencil-transatlantic-expect.yaml
#
# One line per claim and repetition, then the median's, each PASS or FAIL
# with the figure and the bound; a repetition whose summary.json lacks a
# figure FAILs that line and says so.  The median of the three
# repetitions: of the speed-ups, of the final depths, of the counts of
# groups compressed, and of each group's deflate ratio.  Reads only.
# Exit status: 0 every line passed, 1 a line failed, 2 bad usage or a
# directory without summary.json.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
expect=$src/experiments/stencil-transatlantic-expect.yaml
dirs=()
while [ $# -gt 0 ]; do
	case $1 in
	--expect) [ $# -ge 2 ] || { echo "stencil-transatlantic-check.sh: --expect needs a file" >&2; exit 2; }
		expect=$2; shift 2 ;;
	-h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "stencil-transatlantic-check.sh: unknown option '$1'" >&2; exit 2 ;;
	*) dirs+=("$1"); shift ;;
	esac
done
[ ${#dirs[@]} -gt 0 ] || { echo "stencil-transatlantic-check.sh: no results directory (see --help)" >&2; exit 2; }
[ -r "$expect" ] || { echo "stencil-transatlantic-check.sh: $expect: cannot read" >&2; exit 2; }
for d in "${dirs[@]}"; do
	[ -r "$d/summary.json" ] || { echo "stencil-transatlantic-check.sh: $d: no summary.json" >&2; exit 2; }
done

exec python3 - "$expect" "${dirs[@]}" <<'PY'
import json, statistics, sys
expect, dirs = sys.argv[1], sys.argv[2:]
me = "stencil-transatlantic-check.sh"
e = {}
for no, ln in enumerate(open(expect), 1):
    ln = ln.split("#", 1)[0].strip()
    if ":" in ln:
        k, v = ln.split(":", 1)
        try:
            e[k.strip()] = float(v)
        except ValueError:
            print("%s: %s:%d: %s: '%s' is not a number" % (me, expect, no, k.strip(), v.strip()),
                  file=sys.stderr)
            sys.exit(2)
need = ("speedup_low", "speedup_high", "groups_compressed", "groups", "ghost_depth_low",
        "ghost_depth_high", "deflate_ratio_low")
miss = [k for k in need if k not in e]
if miss:
    print("%s: %s: no %s" % (me, expect, ", ".join(miss)), file=sys.stderr)
    sys.exit(2)
ABOUT = (0.6, 0.8)   # "about 70%", read so before the runs (the expect file's line 4)

def figures(d):
    try:
        s = json.load(open(d + "/summary.json"))
    except ValueError as x:
        print("%s: %s/summary.json: %s" % (me, d, x), file=sys.stderr)
        sys.exit(2)
    g = s.get("runs", {}).get("grid", {})
    defl = {k: v["ratio"] for k, v in (g.get("deflate") or {}).items() if v and "ratio" in v}
    return {"speedup": s.get("speedup_mean"), "compressed": g.get("groups_compressed"),
            "ngroups": g.get("groups"), "depth": g.get("final_depth"), "deflate": defl}

def judge(name, f):
    out = []
    def line(claim, ok, text):
        out.append(ok)
        print("%-4s %-12s %-22s %s" % ("PASS" if ok else "FAIL", name, claim, text))
    sp = f["speedup"]
    if sp is None:
        line("speed-up", False, "no speedup_mean in summary.json")
    else:
        lo, hi = e["speedup_low"], e["speedup_high"]
        line("speed-up", lo <= sp <= hi, "%.2fx (paper %g-%gx%s)" % (sp, lo, hi,
             "" if lo <= sp <= hi else ": less than the paper's" if sp < lo else ": more"))
    c = f["compressed"]
    if c is None:
        line("groups compressed", False, "no runs.grid.groups_compressed")
    else:
        line("groups compressed", c == e["groups_compressed"],
             "%g of %s (paper %g of %g)" % (c, f["ngroups"], e["groups_compressed"], e["groups"]))
    dp = f["depth"]
    if dp is None:
        line("ghost depth", False, "no runs.grid.final_depth")
    else:
        lo, hi = e["ghost_depth_low"], e["ghost_depth_high"]
        line("ghost depth", lo <= dp <= hi, "%g (paper %g-%g)" % (dp, lo, hi))
    r = f["deflate"]
    if not r:
        line("deflate spectrum", False, "no runs.grid.deflate (gridstencil --probe)")
        line("periodic < noisy", False, "no runs.grid.deflate")
        return out
    lo, hi = min(r.values()), max(r.values())
    ok = lo <= e["deflate_ratio_low"] and ABOUT[0] <= hi <= ABOUT[1]
    line("deflate spectrum", ok, "%.1f-%.1f %% (paper: under %g %% to about 70 %%, read %g-%g %%)" %
         (100 * lo, 100 * hi, 100 * e["deflate_ratio_low"], 100 * ABOUT[0], 100 * ABOUT[1]))
    per = {k: v for k, v in r.items() if k.startswith("periodic")}
    noi = {k: v for k, v in r.items() if k.startswith("noisy")}
    if not per or not noi:
        line("periodic < noisy", False, "no periodic or no noisy group (--fields spectrum?)")
    else:
        line("periodic < noisy", max(per.values()) < min(noi.values()),
             "periodic at most %.1f %%, noisy at least %.1f %%" %
             (100 * max(per.values()), 100 * min(noi.values())))
    return out

figs, oks = [], []
for d in dirs:
    f = figures(d)
    figs.append(f)
    oks += judge(d.rstrip("/").split("/")[-1], f)
if len(figs) > 1:
    def med(key):
        v = [f[key] for f in figs if f[key] is not None]
        return statistics.median(v) if len(v) == len(figs) else None
    groups = set.intersection(*(set(f["deflate"]) for f in figs))
    m = {"speedup": med("speedup"), "compressed": med("compressed"), "depth": med("depth"),
         "ngroups": figs[0]["ngroups"],
         "deflate": {g: statistics.median(f["deflate"][g] for f in figs) for g in groups}}
    oks += judge("median of %d" % len(figs), m)
print("%d of %d lines passed" % (sum(oks), len(oks)))
sys.exit(0 if all(oks) else 1)
PY
