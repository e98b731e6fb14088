# shellcheck shell=bash
# lib-stencil.sh - sourced by gridstencil's MPI tests (t/9011, t/9014) after
# lib-netns.sh and lib-bcast.sh (which own $BCAST_TMP and the cleanup).
#
#   GS                  the built gridstencil (bails if missing; python3
#                       required, else skip: the tests read its metadata)
#   stencil_grid        two sites of one 2-host cluster each, 5 ms apart
#                       (quick), brought up for 4 ranks by bcast_setup
#   meta FILE EXPR      a python expression over the metadata j of FILE

command -v python3 >/dev/null || skip_all "python3 is not installed (reads the metadata)"
GS=$GRIDBED_BUILD/experiments/gridstencil
[ -x "$GS" ] || bail "gridstencil not built at $GS"

stencil_grid() {
	cat > "$BCAST_TMP/t22.yaml" <<'YAML'
name: t22
defaults:
  host_link: {rate: 1gbit, delay: 0.02ms}
  uplink: {rate: 1gbit, delay: 0.05ms}
sites:
  - name: sA
    clusters:
      - {name: a, hosts: 2}
  - name: sB
    clusters:
      - {name: b, hosts: 2}
links:
  - {a: sA, b: sB, delay: 5ms, rate: 100mbit}
YAML
	bcast_setup "$BCAST_TMP/t22.yaml" 4
}

meta() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
