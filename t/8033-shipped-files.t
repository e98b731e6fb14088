#!/usr/bin/env bash
# 8033-shipped-files: every file the project ships for users to run is
# accepted by the tools that read it, so that a campaign, an expectation
# file or a topology cannot rot unnoticed between the sessions that run it:
#   - every campaign of experiments/ (every *.yaml but *-expect.yaml) passes
#     `gridexp run FILE --dry-run` (parsed, checked, its runs printed);
#   - every expectation file passes `gridexp check CAMPAIGN --expect FILE
#     --dry-run` against the campaign it judges (the table below: its
#     lines' algorithms and conditions are checked against the campaign
#     before anything would run);
#     (stencil-transatlantic-expect.yaml is its script's, and skipped);
#   - every topology of topologies/ passes `gridtree nodes --topo FILE`.
# Nothing runs on a network: no root needed.
source "$(dirname "$0")/lib-netns.sh"
GX=$GRIDBED_BUILD/experiments/gridexp
GT=$GRIDBED_BUILD/collectives/gridtree
[ -x "$GX" ] || bail "gridexp not built at $GX"
[ -x "$GT" ] || bail "gridtree not built at $GT"
E=$GRIDBED_SRC/experiments

# expectation file -> the campaign it judges
declare -A judges=(
	[ci-smoke-expect.yaml]=ci-smoke.yaml
	[fig8-expect.yaml]=teragrid-quick.yaml
	[fig8-paper-expect.yaml]=teragrid-paper.yaml
	[phoenix-fig5-expect.yaml]=phoenix-fig5.yaml
	[two-campus-procs-expect.yaml]=two-campus-procs.yaml
	[two-campus-sizes-expect.yaml]=two-campus-sizes.yaml
	[grid5000-sizes-expect.yaml]=grid5000-sizes.yaml
	[grid5000-large-expect.yaml]=grid5000-large.yaml
	# read by experiments/stencil-transatlantic.sh, not by gridexp: t/9013 runs it
	[stencil-transatlantic-expect.yaml]=-
)

for f in "$E"/*.yaml; do
	b=$(basename "$f")
	case $b in
	*-expect.yaml)
		c=${judges[$b]:-}
		if [ -z "$c" ]; then
			ok 1 "$b: t/8033's table names the campaign it judges"
			continue
		fi
		if [ "$c" = - ]; then
			skip 1 "$b is read by its script, not by gridexp check (t/9013 runs it)"
			continue
		fi
		err=$("$GX" check "$E/$c" --expect "$f" --dry-run 2>&1 >/dev/null); st=$?
		is "$st" 0 "gridexp check $c --expect $b --dry-run: exit 0 ${err:+($err)}"
		;;
	*)
		err=$("$GX" run "$f" --dry-run 2>&1 >/dev/null); st=$?
		is "$st" 0 "gridexp run $b --dry-run: exit 0 ${err:+($err)}"
		;;
	esac
done
for f in "$TOPOS"/*.yaml; do
	err=$("$GT" nodes --topo "$f" 2>&1 >/dev/null); st=$?
	is "$st" 0 "gridtree nodes --topo $(basename "$f"): exit 0 ${err:+($err)}"
done
done_testing
