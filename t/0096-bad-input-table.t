#!/usr/bin/env bash
# 0096-bad-input-table - the README's promise, over every command line:
# "Bad input ... gets a one-line message naming the place, exit status 2,
# and changes nothing" (issue 49).  One table of bad values per CLI
# (gridemu, gridexp, gridtree, gridbcast, gridload, gridmon, gridadvisor,
# phoenixd, gridstencil-topo, gridstencil, synthapp, gridbed-plugin);
# each row runs the command in a scratch directory and asserts, in one
# check:
#   - exit status 2;
#   - exactly one line on stderr, matching the row's pattern, which names
#     the place (FILE:LINE:COL, the file, the option or the value);
#   - nothing left: no namespace with the test's prefix, no entry for it
#     under $GRIDBED_RUNDIR, no file made, removed or rewritten in the
#     scratch directory (names and checksums compared), so no results
#     directory and no output file.
# No MPI job runs: gridbcast, gridstencil and synthapp are started alone
# (MPI singletons) and refuse before planning or computing; gridexp refuses
# before any grid exists.
# Rows: PATTERN <TAB> COMMAND, the command split as bash words (eval), with
# $W the scratch directory and the tools' variables below.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_built GX experiments/gridexp
require_built GT collectives/gridtree
require_built GL loadgen/gridload
require_built GM collectives/gridmon
require_built GA collectives/gridadvisor
require_built PD collectives/phoenixd
require_built STT stencil/gridstencil-topo
GB=$GRIDBED_BUILD/collectives/gridbcast
# gridbcast, gridstencil and synthapp alone, MPI singletons: under the
# sanitizer pass, Open MPI's own leaks at MPI_Finalize are not ours (as
# t/lib-bcast.sh says)
mpi_alone() { # mpi_alone VAR PROGRAM: VAR=(the command that runs PROGRAM alone)
	local -n cmd=$1
	cmd=("$2")
	[ -n "${ASAN_OPTIONS:-}" ] && cmd=(env "ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0" "$2")
	[ -x "$2" ] || bail "${2##*/} not built at $2"
}
mpi_alone GBRUN "$GB"
mpi_alone GSRUN "$GRIDBED_BUILD/experiments/gridstencil"
mpi_alone SYRUN "$GRIDBED_BUILD/experiments/synthapp"
require_cmd python3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash

W=$(mktemp -d /tmp/gb0096.XXXXXX) || bail "mktemp"
ERR=$(mktemp /tmp/gb0096-err.XXXXXX) || bail "mktemp"
trap 'st=$?; rm -rf "$W" "$ERR"; (exit $st); gb_cleanup' EXIT
TC=$TOPOS/two-clusters.yaml

# --- the inputs ------------------------------------------------------------
printf 'name: bad\nsites:\n  - nme: A\n' > "$W/bad.yaml"
: > "$W/empty.yaml"
mkdir "$W/adir"
ln -s "$W/loop" "$W/loop"
# a congestion control this kernel does not have (none of them: skip those rows)
avail=$(cat /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null)
CC=
for c in vegas westwood htcp illinois hybla veno yeah lp scalable; do
	case " $avail " in *" $c "*) ;; *) CC=$c; break ;; esac
done
sed "s/^root: a-1\$/root: a-1\ntcp: {congestion: ${CC:-cubic}}/" "$TC" > "$W/cc.yaml"
awk '{print} /^root:/ {print "tcp: {initcwnd: 1001}"}' "$TC" > "$W/cwnd.yaml"
awk '{print} /^root:/ {print "tcp: {buffers: 3GiB}"}' "$TC" > "$W/buf.yaml"
awk '{print} /^root:/ {print "tcp: {congestion: \x27\x27}"}' "$TC" > "$W/cc-empty.yaml"
sed "s/^name: two-clusters/name: $(printf 'n%.0s' $(seq 300))/" "$TC" > "$W/long.yaml"
printf 'name: x\0\nsites: []\n' > "$W/nul.yaml"
# a campaign of good parts, and the same with one bad part each
camp() { # camp FILE TOPOLOGY [APP-EXTRA]
	cat > "$1" <<EOF
name: t0096
topology: $2
scale: 0.02
algorithms: [mpich-g2, native]
app:
  root: a-1
  broadcasts: 2
  size: {first: 32K, last: 32K}
  gap: {first: 50s, factor: 0.9}$3
EOF
}
# a data block over a route of the host's (none: skip those rows)
ROUTE=$(ip -4 route show | awk '$1 ~ /\// {print $1; exit}')
cat > "$W/overlap.yaml" <<EOF
name: overlap
addressing: {data: ${ROUTE:-10.250.0.0/16}, mgmt: 10.251.0.0/16}
sites:
  - name: s
    clusters:
      - {name: c, hosts: 2}
EOF
camp "$W/good.yaml" "$TC"
camp "$W/overlap-camp.yaml" "$W/overlap.yaml"
sed -i 's/root: a-1/root: c-1/' "$W/overlap-camp.yaml"
camp "$W/cc-camp.yaml" "$W/cc.yaml"
camp "$W/seg0.yaml" "$TC" "
  segment: 0
  stripes: 4"
camp "$W/stripes.yaml" "$TC" "
  stripes: '2M:4,1M:2'"
# planners the campaign brings (docs/plugins.md): a missing plugin, a file
# that is not a shared object, and a plugin's spec used as an algorithm
camp "$W/pl-none.yaml" "$TC"
printf 'planners: {mine: plugin:none.so}\n' >> "$W/pl-none.yaml"
camp "$W/pl-text.yaml" "$TC"
printf 'planners: {mine: plugin:pl-text.yaml}\n' >> "$W/pl-text.yaml"
camp "$W/pl-algo.yaml" "$TC"
sed -i 's/algorithms: \[mpich-g2, native\]/algorithms: [mpich-g2, "plugin:x.so"]/' "$W/pl-algo.yaml"
printf -- '- {metric: loaded_mean, algo: nosuch, le: 1}\n' > "$W/ex-algo.yaml"
printf -- '- {metric: loaded_mean, algo: mpich-g2, le: {times: 1, of: "*"}}\n' > "$W/ex-of.yaml"
printf -- '- {metric: model_error_nosuch, algo: "*", le: 1}\n' > "$W/ex-model.yaml"
printf -- '- {metric: loaded_mean, algo: mpich-g2, le: 1}\n' > "$W/ex-good.yaml"
python3 - "$W" <<'PY'
import json, sys
w = sys.argv[1]
n = 4
def model(**edit):
    d = {"nodes": [{"name": "h%d" % i, "cluster": "c%d" % (i // 2)} for i in range(n)],
         "lat": [[0 if i == j else 1e-3 for j in range(n)] for i in range(n)],
         "bw": [[0 if i == j else 1.25e6 for j in range(n)] for i in range(n)]}
    for k, f in edit.items():
        f(d)
    return d
json.dump(model(), open(w + "/m.json", "w"))
def put(name, d):
    open(w + "/" + name, "w").write(json.dumps(d).replace('"NaN"', "NaN").replace('"BIG"', "1e400"))
put("m-nan.json", model(a=lambda d: d["lat"][0].__setitem__(1, "NaN")))
put("m-neg.json", model(a=lambda d: d["bw"][1].__setitem__(2, -1)))
put("m-big.json", model(a=lambda d: d["lat"][2].__setitem__(3, "BIG")))
put("m-rows.json", model(a=lambda d: d["bw"].pop()))
put("m-dup.json", model(a=lambda d: d["nodes"][1].__setitem__("name", "h0")))
tree = {"root": "h0", "nodes": ["h0", "h1", "h2", "h3"], "parent": [None, "h0", "h3", "h2"]}
json.dump(tree, open(w + "/t-cycle.json", "w"))
tree["parent"] = [None, "h1", "h0", "h0"]
json.dump(tree, open(w + "/t-self.json", "w"))
PY
printf 'loads:\n  - {start: 1min, duration: 2min, fraction: 120%%, link: siteA-siteB}\n' > "$W/sched.yaml"
# a results directory to check against (t/lib-results.sh)
source "$(dirname "$0")/lib-results.sh"
make_results "$W/res1" t0096 1 "{'mpich-g2': [(2.0, 1, 10000)]}"

# --- the check -------------------------------------------------------------
# What a refusal must leave as it was: the scratch directory's names, and
# each entry's type, size and status-change time (ctime, to the nanosecond:
# any write moves it, even one of the same bytes, so this sees every file
# made, removed or rewritten that checksums saw, in 2 processes instead of
# 5: 0.1 s a row of the test's 0.4 s under load, session 42), the test's
# namespaces (/run/netns, what `ip netns list` reads), its entries in the
# run directory (bash globs: no process).
state() {
	(cd "$W" && find . -printf '%p %y %s %C@\n' | sort)
	local e
	for e in /run/netns/"$GB_PREFIX"-* "$GRIDBED_RUNDIR"/*"$GB_PREFIX"* "$GRIDBED_RUNDIR"/.*"$GB_PREFIX"*; do
		[ -e "$e" ] || [ -L "$e" ] && echo "$e"
	done
}

refused() { # refused PATTERN COMMAND...
	local re=$1; shift
	local before after st lines err
	before=$(state)
	(cd "$W" && timeout 60 "$@" >/dev/null 2>"$ERR" </dev/null); st=$?
	after=$(state)
	err=$(<"$ERR")
	lines=$(printf '%s\n' "$err" | grep -c '')
	local why=""
	[ "$st" = 2 ] || why="$why exit $st;"
	[ "$lines" = 1 ] || why="$why $lines lines on stderr;"
	printf '%s' "$err" | grep -qE -- "$re" || why="$why the line does not match /$re/;"
	[ "$before" = "$after" ] || why="$why something changed: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -3 | tr '\n' ' ');"
	ok "$([ -z "$why" ]; echo $?)" "${*##*/}" || { diag "  ${why# }"; diag "  stderr: $(head -c 400 "$ERR")"; }
}

while IFS=$'\t' read -r re cmd; do
	[ -z "$re" ] || [ "${re:0:1}" = "#" ] && continue
	case $re in *'$CC'*)
		if [ -z "$CC" ]; then skip 1 "this kernel has every congestion control tried"; continue; fi
		re=${re//\$CC/$CC} ;;
	*overlaps*)
		if [ -z "$ROUTE" ]; then skip 1 "the host has no subnet route to collide with"; continue; fi ;;
	esac
	case $cmd in '"${GBRUN[@]}"'*)
		if [ ! -x "$GB" ]; then skip 1 "gridbcast not built (no MPI found at build time)"; continue; fi ;;
	esac
	eval "words=($cmd)"
	refused "$re" "${words[@]}"
done <<'TABLE'
# gridemu up: malformed, empty, unreadable topologies; options (issue 49, 1 and 2)
^gridemu: [^ ]*/bad.yaml:3:[0-9]+: 	"$GRIDEMU" up "$W/bad.yaml"
^gridemu: [^ ]*/empty.yaml:1:1: empty topology	"$GRIDEMU" up "$W/empty.yaml"
^gridemu: [^ ]*/bad.yaml:3:[0-9]+: 	"$GRIDEMU" up "$W/bad.yaml" --part siteA --peer 10.9.9.9
^gridemu: [^ ]*/cwnd.yaml:[0-9]+:[0-9]+: .*initcwnd	"$GRIDEMU" up "$W/cwnd.yaml"
^gridemu: [^ ]*/buf.yaml:[0-9]+:[0-9]+: 	"$GRIDEMU" up "$W/buf.yaml"
^gridemu: [^ ]*/cc-empty.yaml:[0-9]+:[0-9]+: 	"$GRIDEMU" up "$W/cc-empty.yaml"
^gridemu: [^ ]*/long.yaml:[0-9]+:[0-9]+: 	"$GRIDEMU" up "$W/long.yaml"
^gridemu: [^ ]*/nul.yaml:[0-9]+:[0-9]+: 	"$GRIDEMU" up "$W/nul.yaml"
^gridemu: [^ ]*/buf.yaml:[0-9]+:[0-9]+: 	"$GRIDEMU" up "$W/buf.yaml" --part siteA --peer 10.9.9.9
^gridemu: [^ ]*/cc.yaml:[0-9]+:[0-9]+: host 'a-1': congestion control '$CC' is not in this kernel	"$GRIDEMU" up "$W/cc.yaml"
^gridemu: cannot read topology '[^']*/none.yaml': No such file	"$GRIDEMU" up "$W/none.yaml"
^gridemu: cannot read topology '[^']*/adir': Is a directory	"$GRIDEMU" up "$W/adir"
^gridemu: cannot read topology '[^']*/loop': Too many levels	"$GRIDEMU" up "$W/loop"
^gridemu: unknown backend 'nope'	"$GRIDEMU" up "$TC" --backend nope
^gridemu: up: --dilate '0.5' is not	"$GRIDEMU" up "$TC" --dilate 0.5
^gridemu: up: --kernel-cubic is for a dilated grid	"$GRIDEMU" up "$TC" --kernel-cubic
^gridemu: up: unknown option '--frob'	"$GRIDEMU" up "$TC" --frob
^gridemu: up: option needs a value: '--backend'	"$GRIDEMU" up "$TC" --backend
^gridemu: up: which topology file	"$GRIDEMU" up
^gridemu: up: --recalibrate and --no-calibrate exclude each other	"$GRIDEMU" up "$TC" --recalibrate --no-calibrate
^gridemu: --part and --peer go together	"$GRIDEMU" up "$TC" --part siteA
^gridemu: --peer 'x' is not an IPv4 address	"$GRIDEMU" up "$TC" --part siteA --peer x
^gridemu: prefix 'BAD' is not valid	"$GRIDEMU" --prefix BAD up "$TC"
^gridemu: prefix 'abcdefghi' is not valid	"$GRIDEMU" --prefix abcdefghi status
# gridemu, no grid up: bad input; link set's values first
^gridemu: no grid with prefix '[a-z0-9]+' is up$	"$GRIDEMU" status
^gridemu: no grid with prefix '[a-z0-9]+' is up$	"$GRIDEMU" link show
^gridemu: no grid with prefix '[a-z0-9]+' is up$	"$GRIDEMU" tcpstat
^gridemu: no grid with prefix '[a-z0-9]+' is up$	"$GRIDEMU" probe a-1 a-2
^gridemu: no grid with prefix '[a-z0-9]+' is up$	"$GRIDEMU" capture siteA-siteB
^gridemu mpirun: no grid with prefix '[a-z0-9]+' is up$	"$GRIDEMU" mpirun -- true
^gridemu: no node 'a-1' in grid '[a-z0-9]+'	"$GRIDEMU" exec a-1 -- true
^gridemu: probe: need SRC and DST$	"$GRIDEMU" probe
^gridemu: probe: need SRC and DST$	"$GRIDEMU" probe a-1
^gridemu: link set: loss '101%' is not valid	"$GRIDEMU" link set siteA-siteB loss 101%
^gridemu: link set: delay '1e400ms' is not valid	"$GRIDEMU" link set siteA-siteB delay 1e400ms
^gridemu: link set: unknown parameter 'colour'	"$GRIDEMU" link set siteA-siteB colour blue
^gridemu: link set: 'delay' needs a value	"$GRIDEMU" link set siteA-siteB delay
^gridemu: link: show or set\?	"$GRIDEMU" link
^gridemu: link: unknown subcommand	"$GRIDEMU" link --frob
^gridemu: unknown command 'frobnicate'	"$GRIDEMU" frobnicate
^gridemu: which command	"$GRIDEMU"
^gridemu: cannot read topology '[^']*/none.yaml'	"$GRIDEMU" script "$W/none.yaml"
^gridemu: [^ ]*/bad.yaml:3:[0-9]+: 	"$GRIDEMU" script "$W/bad.yaml"
# gridexp run: refused before a results directory or a grid (issue 49, 5, 10, 11)
^gridexp: [^ ]*/cc.yaml:[0-9]+:[0-9]+: host 'a-1': congestion control '$CC' is not in this kernel	"$GX" run "$W/cc-camp.yaml" --dry-run
^gridexp: [^ ]*/cc.yaml:[0-9]+:[0-9]+: host 'a-1': congestion control '$CC' is not in this kernel	"$GX" run "$W/cc-camp.yaml" --prefix "$GB_PREFIX"
^gridexp: [^ ]*/overlap.yaml: data block [0-9./]+ overlaps the host's route	"$GX" run "$W/overlap-camp.yaml" --dry-run
^[^ ]*/pl-none.yaml:10:[0-9]+: planner 'mine': plugin:[^ ]*/none.so: No such file	"$GX" run "$W/pl-none.yaml" --dry-run
^[^ ]*/pl-text.yaml:10:[0-9]+: planner 'mine': plugin:[^ ]*/pl-text.yaml: cannot load	"$GX" run "$W/pl-text.yaml" --prefix "$GB_PREFIX"
^[^ ]*/pl-algo.yaml:4:[0-9]+: algorithm 'plugin:x.so': name a plugin or external planner under planners:	"$GX" run "$W/pl-algo.yaml" --dry-run
^gridbed-plugin: usage: gridbed-plugin PLUGIN.so	"$GRIDBED_BUILD/collectives/gridbed-plugin"
^gridbed-plugin: usage: gridbed-plugin PLUGIN.so	"$GRIDBED_BUILD/collectives/gridbed-plugin" --frob x.so
^gridemu: [^ ]*/overlap.yaml: data block [0-9./]+ overlaps the host's route	"$GRIDEMU" up "$W/overlap.yaml"
^[^ ]*/seg0.yaml:11:[0-9]+: stripes carry segments	"$GX" run "$W/seg0.yaml" --dry-run
^[^ ]*/seg0.yaml:11:[0-9]+: stripes carry segments	"$GX" run "$W/seg0.yaml" --prefix "$GB_PREFIX"
^[^ ]*/stripes.yaml:10:[0-9]+: .*sizes must increase: '1M' after 2097152 bytes	"$GX" run "$W/stripes.yaml" --dry-run
^gridexp: --out-root '/etc/passwd': .*'/etc/passwd' is not a directory	"$GX" run "$W/good.yaml" --out-root /etc/passwd
^gridexp: --out-root '/etc/passwd': .*'/etc/passwd' is not a directory	"$GX" run "$W/good.yaml" --out-root /etc/passwd --dry-run
^gridexp: --out-root '[^']*/m.json/x'	"$GX" run "$W/good.yaml" --out-root "$W/m.json/x" --dry-run
^gridexp: --resume: '/nonexistent' is not a campaign's results directory	"$GX" run "$W/good.yaml" --resume /nonexistent --dry-run
^gridexp: --resume: '/nonexistent' is not a campaign's results directory	"$GX" run "$W/good.yaml" --resume /nonexistent --prefix "$GB_PREFIX"
^gridexp: --resume: '[^']*/res1' was made by another campaign file	"$GX" run "$W/good.yaml" --resume "$W/res1" --dry-run
^gridexp: --only: 'nosuch' is not an algorithm	"$GX" run "$W/good.yaml" --only nosuch --dry-run
^gridexp: --prefix: 'abcdefghi' must be 1 to 8	"$GX" run "$W/good.yaml" --prefix abcdefghi
^gridexp: --scale: '-1' is not	"$GX" run "$W/good.yaml" --scale -1 --dry-run
^gridexp: run: unknown option '--frob'	"$GX" run "$W/good.yaml" --frob
^gridexp: run: option '--scale' needs a value	"$GX" run "$W/good.yaml" --scale
^gridexp: run: which campaign file	"$GX" run
^gridexp: [^ ]*/none.yaml: cannot read	"$GX" calibrate "$W/none.yaml"
^gridexp: calibrate: takes FILE.yaml, --max-k and --prefix only	"$GX" calibrate "$W/good.yaml" --seed 3
^gridexp: --max-k: '4' is not one of the calibration's k \(1, 1.5, 2, 3, 5, 10, 20\)	"$GX" calibrate "$W/good.yaml" --max-k 4 --prefix "$GB_PREFIX"
^gridexp: --dilate: 'auto:0': K is not one of the calibration's k	"$GX" run "$W/good.yaml" --dilate auto:0 --prefix "$GB_PREFIX"
^gridexp: check: --dilate auto is an option of 'gridexp run'	"$GX" check "$W/good.yaml" --expect "$W/ex-good.yaml" --dilate auto:3 --prefix "$GB_PREFIX"
^gridexp: run: --max-k is an option of 'gridexp calibrate' \(run: --dilate auto:K\)	"$GX" run "$W/good.yaml" --max-k 3 --prefix "$GB_PREFIX"
^gridexp: run: --dilate auto measures before a new run	"$GX" run "$W/good.yaml" --dilate auto --dry-run
^gridexp: --dilate: 'often' is not a number in \[1, 1000\] or auto	"$GX" run "$W/good.yaml" --dilate often
^gridexp: run: --expect is an option of 'gridexp check'	"$GX" run "$W/good.yaml" --expect "$W/ex-good.yaml"
^gridexp: [^ ]*/none.yaml: cannot read: No such file	"$GX" run "$W/none.yaml" --dry-run
^gridexp: which command	"$GX"
^gridexp: unknown command 'frob'	"$GX" frob
# gridexp check: the expectations' names before anything runs or is rewritten (6, 7)
^gridexp: check: [^ ]*/ex-algo.yaml:1:3: expectation 1: algo 'nosuch'	"$GX" check "$W/good.yaml" --expect "$W/ex-algo.yaml" --dry-run
^gridexp: check: [^ ]*/ex-of.yaml:1:3: expectation 1: of '\*'	"$GX" check "$W/good.yaml" --expect "$W/ex-of.yaml" --prefix "$GB_PREFIX"
^gridexp: check: [^ ]*/ex-model.yaml:1:3: expectation 1: metric 'model_error_nosuch'	"$GX" check "$W/res1" --expect "$W/ex-model.yaml"
^gridexp: check: [^ ]*/ex-algo.yaml:1:3: expectation 1: algo 'nosuch'	"$GX" check "$W/res1" --expect "$W/ex-algo.yaml"
are the same results directory	"$GX" check "$W/res1" "$W/res1/" --expect "$W/ex-good.yaml"
are the same results directory	"$GX" report "$W/res1" "$W/res1"
^gridexp: check: --expect EXPECT.yaml is required	"$GX" check "$W/res1"
^gridexp: report: which results directory	"$GX" report
^gridexp: report: unknown option '--frob'	"$GX" report "$W/res1" --frob
^gridexp: '[^']*/adir' is not a campaign's results directory	"$GX" report "$W/adir"
# gridexp keep (12)
^gridexp: keep: DEST '' is empty	"$GX" keep "$W/res1" ""
^gridexp: keep: DEST '[^']*/m.json/x': '[^']*/m.json' is not a directory	"$GX" keep "$W/res1" "$W/m.json/x"
^gridexp: keep: [^ ]*/res1: exists	"$GX" keep "$W/res1" "$W/res1"
^gridexp: keep: [^ ]*/adir: not a results directory	"$GX" keep "$W/adir" "$W/kept"
# gridtree: every file is input (9); sizes; options
^gridtree: [^ ]*/m-nan.json	"$GT" plan --algo flat --matrix "$W/m-nan.json" --root h0 --size 1K
^gridtree: [^ ]*/m-neg.json: 'bw'\[1\]\[2\] is negative	"$GT" plan --algo flat --matrix "$W/m-neg.json" --root h0 --size 1K
^gridtree: [^ ]*/m-big.json	"$GT" plan --algo binomial --matrix "$W/m-big.json" --root h0 --size 1K
^gridtree: [^ ]*/m-rows.json: 'bw' must be an array of 4 rows	"$GT" eval --tree "$W/t-cycle.json" --matrix "$W/m-rows.json" --size 1K
^gridtree pools: [^ ]*/m-dup.json	"$GT" pools --matrix "$W/m-dup.json" --percent 50
^gridtree nodes: [^ ]*/bad.yaml:3:[0-9]+: 	"$GT" nodes --topo "$W/bad.yaml"
^gridtree: [^ ]*/bad.yaml:3:[0-9]+: 	"$GT" plan --algo flat --topo "$W/bad.yaml" --root a-1 --size 1K
^gridtree: [^ ]*/t-cycle.json: 'h[23]' does not reach the root 'h0'	"$GT" eval --tree "$W/t-cycle.json" --matrix "$W/m.json" --size 1K
^gridtree: [^ ]*/t-self.json: 'h1' is its own parent	"$GT" eval --tree "$W/t-self.json" --matrix "$W/m.json" --size 1K
^gridtree: cannot open '[^']*/none.json': No such file	"$GT" eval --tree "$W/none.json" --matrix "$W/m.json" --size 1K
^gridtree: size '18446744073709551616' is above 2147483647 bytes	"$GT" plan --algo flat --matrix "$W/m.json" --root h0 --size 18446744073709551616
^gridtree: size '1Q' is not a size	"$GT" plan --algo flat --matrix "$W/m.json" --root h0 --size 1Q
^gridtree: unknown planner 'nope'	"$GT" plan --algo nope --matrix "$W/m.json" --root h0 --size 1K
^gridtree: --algo: plugin:[^ ]*/none.so: No such file	"$GT" plan --algo "plugin:$W/none.so" --matrix "$W/m.json" --root h0 --size 1K
^gridtree: --algo: plugin:[^ ]*/m.json: cannot load: 	"$GT" plan --algo "plugin:$W/m.json" --matrix "$W/m.json" --root h0 --size 1K
^gridtree: --algo: external:[^ ]*/m.json: not executable	"$GT" plan --algo "external:$W/m.json" --matrix "$W/m.json" --root h0 --size 1K
^gridtree: unknown root node 'zz'	"$GT" plan --algo flat --matrix "$W/m.json" --root zz --size 1K
^gridtree: plan: unknown option '--frob'	"$GT" plan --algo flat --matrix "$W/m.json" --root h0 --size 1K --frob
^gridtree: which command	"$GT"
^gridtree: which study	"$GT" sim
^gridtree: stripes '0' is not a number of trees	"$GT" plan --algo flat --matrix "$W/m.json" --root h0 --size 1K --stripes 0
# gridbcast, alone (no MPI job): refused before planning or writing (8)
^gridbcast: --algo '' names no algorithm	"${GBRUN[@]}" --algo '' --sizes 1M --reps 1 --out "$W/x.csv"
^gridbcast: --algo ',' names no algorithm	"${GBRUN[@]}" --algo , --sizes 1M --reps 1 --out "$W/x.csv"
^gridbcast: unknown algorithm 'nosuch'	"${GBRUN[@]}" --algo flat,nosuch --sizes 1M --reps 1 --out "$W/x.csv"
^gridbcast: --algo: plugin:[^ ]*/none.so: No such file	"${GBRUN[@]}" --algo "flat,plugin:$W/none.so" --sizes 1M --reps 1 --out "$W/x.csv"
^gridbcast: --sizes ',,' names no size	"${GBRUN[@]}" --sizes ,, --reps 1 --out "$W/x.csv"
^gridbcast: --reps '0' is not a number	"${GBRUN[@]}" --sizes 1K --reps 0 --out "$W/x.csv"
^gridbcast: --out FILE.csv is required	"${GBRUN[@]}" --sizes 1K --reps 1
^gridbcast: unknown option '--frob'	"${GBRUN[@]}" --sizes 1K --reps 1 --out "$W/x.csv" --frob
^gridbcast: size '18446744073709551616' is not a size	"${GBRUN[@]}" --sizes 18446744073709551616 --reps 1 --out "$W/x.csv"
^gridbcast: --stripes: '2M:4,1M:2' .*sizes must increase	"${GBRUN[@]}" --sizes 1K --reps 1 --stripes 2M:4,1M:2 --out "$W/x.csv"
# gridload, gridmon, gridadvisor
^[^ ]*/sched.yaml:2:45: load 1: fraction '120%'	"$GL" plan --schedule "$W/sched.yaml" --topology "$TC"
^gridload: unknown option '--frob'	"$GL" --frob
^gridload: unknown option '--frob'	"$GL" plan --frob
^gridload: option '--schedule' needs a value	"$GL" plan --schedule
^gridload: which command	"$GL"
^gridload: no grid with prefix '[a-z0-9]+' is up	"$GL" plan --random
^gridload: --on 'x' is not pair or uplink	"$GL" plan --random --on x --topology "$TC"
^gridmon: no grid with prefix '[a-z0-9]+' is up	"$GM" --once
^gridmon: unknown option '--frob'	"$GM" --frob
^gridmon: period '0' is not a time	"$GM" --period 0
^gridadvisor: unknown option '--frob'	"$GA" --frob
^gridadvisor: --matrix FILE is required	"$GA" --out "$W/adv"
^gridadvisor: --planner: unknown planner 'nope'	"$GA" --matrix "$W/m.json" --out "$W/adv" --planner nope
^gridadvisor: --planner: plugin:[^ ]*/none.so: No such file	"$GA" --matrix "$W/m.json" --out "$W/adv" --planner "plugin:$W/none.so"
^gridadvisor: [^ ]*/bad.yaml:3:[0-9]+: 	"$GA" --matrix "$W/m.json" --out "$W/adv" --topology "$W/bad.yaml"
# phoenixd, gridstencil-topo, gridstencil, synthapp (gridexp's application);
# gridemu exec and capture
^phoenixd: which command	"$PD"
^phoenixd: unknown command 'frob'	"$PD" frob
^phoenixd: run: unknown option '--frob'	"$PD" run --grid --frob
^phoenixd: run: option '--port' needs a value	"$PD" run --grid --port
^phoenixd: run: --port: 'x' is not a number	"$PD" run --grid --port x
^phoenixd: run: --window: 1 to 16	"$PD" run --grid --window 17
^phoenixd: run: --grid is required	"$PD" run --out "$W/phx"
^phoenixd: run: unexpected argument 'x'	"$PD" run --grid x
^gridstencil-topo: --grid is required	"$STT"
^gridstencil-topo: unknown option '--frob'	"$STT" --grid 8x8 --machines 2 --frob
^gridstencil-topo: option '--grid' needs a value	"$STT" --grid
^gridstencil-topo: --machines: '0,4'	"$STT" --grid 8x8 --machines 0,4
^gridstencil-topo: unexpected argument 'x'	"$STT" --grid 8x8 --machines 2 x
^gridstencil: unknown option '--frob'	"${GSRUN[@]}" --frob
^gridstencil: option '--iters' needs a value	"${GSRUN[@]}" --iters
^gridstencil: --iters: '0' is not a number in	"${GSRUN[@]}" --iters 0 --out "$W/st.csv"
^gridstencil: --grid: '0x4' is not a grid	"${GSRUN[@]}" --grid 0x4
^gridstencil: unexpected argument 'x'	"${GSRUN[@]}" x
^gridstencil: --fields: 'physics' is not classic or spectrum	"${GSRUN[@]}" --fields physics --out "$W/st.csv"
^gridstencil: --probe: '-1' is not a number in	"${GSRUN[@]}" --probe -1 --out "$W/st.csv"
^synthapp: unknown option '--frob'	"${SYRUN[@]}" --frob
^synthapp: option '--dir' needs a value	"${SYRUN[@]}" --dir
^synthapp: --dir DIR is required	"${SYRUN[@]}" --root a-1
^synthapp: --broadcasts: 'x' is not valid	"${SYRUN[@]}" --dir "$W/s" --root a-1 --broadcasts x
^synthapp: --sizes: '1Q' is not a size	"${SYRUN[@]}" --dir "$W/s" --root a-1 --sizes 1K,1Q
^synthapp: --reps: 0 is not at least 1	"${SYRUN[@]}" --dir "$W/s" --root a-1 --sizes 1K --reps 0
^synthapp: a size above 2147483647 bytes	"${SYRUN[@]}" --dir "$W/s" --root a-1 --sizes 3G
^gridemu: exec: which node	"$GRIDEMU" exec
^gridemu: exec: '--' must follow NODE	"$GRIDEMU" exec a-1 true
^gridemu: exec: no command after '--'	"$GRIDEMU" exec a-1 --
^gridemu: capture: which LINK	"$GRIDEMU" capture
^gridemu: capture: unknown option '--frob'	"$GRIDEMU" capture siteA-siteB --frob
^gridemu: capture: option '--out' needs a value	"$GRIDEMU" capture siteA-siteB --out
^gridemu: capture: one LINK	"$GRIDEMU" capture siteA-siteB siteB-siteA
TABLE
done_testing
