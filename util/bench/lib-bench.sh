# shellcheck shell=bash
# lib-bench.sh - what the benchmark scripts of several products share (their
# option parsing, prerequisites and grid prefix).  It lives in util/, which
# is under every folder (docs/architecture.md), so that any product's bench/
# may source it:  . "$src/util/bench/lib-bench.sh"  after setting $me (the
# script's name, for its messages).  Each function exits the script itself
# where the script would have.
#
#   bench_parse HELP SPEC ARGS...  options that each take a value: SPEC is
#                        "NAME NAME=VAR ...", and --NAME VALUE sets $NAME (or
#                        $VAR).  -h/--help prints the header, lines 2-HELP of
#                        $0 ("HELP strip": without their '# '), and exits 0;
#                        any other argument: "unknown argument", exit 2
#   bench_usage HELP OPT the last case of an option loop that parses its own:
#                        -h/--help prints lines 2-HELP of $0 without their
#                        '# ' and exits 0; any other OPT: "unknown option",
#                        exit 2
#   bench_built PATH...  each PATH is an executable, or "'PATH' is not built",
#                        exit 2
#   bench_need ST WHAT...  each WHAT, in order: "root" (the script runs as
#                        root) or a command on PATH; else one line ("needs
#                        root", "CMD is not installed") and exit ST
#   bench_prefix TAG     prints TAG and 4 random hex digits: a grid prefix
#                        (GRIDBED_PREFIX) of the script's own
#   bench_grid TAG       a grid of the script's own: exports GRIDBED_PREFIX
#                        (bench_prefix TAG) and GRIDBED_RUNDIR
#                        (/run/gridbed-bench), each unless set, and sets
#                        $tmp to a new temporary folder
#   bench_grid_down      the end of a script's exit trap: $GRIDEMU down, and
#                        $tmp and the grid's run folder removed
#   bench_stop PID       kill a background job (a load, a monitor) and reap
#                        it; nothing for an empty PID

bench_parse() {
	local _bp_help=$1 _bp_spec=$2 _bp_w _bp_var
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		-h|--help)
			if [ "${_bp_help% strip}" != "$_bp_help" ]; then
				sed -n "2,${_bp_help% strip}p" "$0" | sed 's/^# \{0,1\}//'
			else
				sed -n "2,${_bp_help}p" "$0"
			fi
			exit 0 ;;
		esac
		_bp_var=
		for _bp_w in $_bp_spec; do
			[ "--${_bp_w%%=*}" = "$1" ] && { _bp_var=${_bp_w#*=}; break; }
		done
		[ -n "$_bp_var" ] || { echo "$me: unknown argument '$1'" >&2; exit 2; }
		printf -v "$_bp_var" '%s' "$2"
		shift 2
	done
}

bench_usage() {
	case $2 in
	-h|--help) sed -n "2,${1}p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "$me: unknown option '$2'" >&2; exit 2 ;;
	esac
}

bench_built() {
	local x
	for x in "$@"; do
		[ -x "$x" ] || { echo "$me: '$x' is not built" >&2; exit 2; }
	done
}

bench_need() {
	local st=$1 w
	shift
	for w in "$@"; do
		if [ "$w" = root ]; then
			[ "$(id -u)" = 0 ] || { echo "$me: needs root" >&2; exit "$st"; }
		else
			command -v "$w" >/dev/null || { echo "$me: $w is not installed" >&2; exit "$st"; }
		fi
	done
}

bench_prefix() { printf '%s%04x\n' "$1" $(( ($$ ^ RANDOM) & 0xffff )); }

bench_grid() {
	export GRIDBED_PREFIX=${GRIDBED_PREFIX:-$(bench_prefix "$1")}
	export GRIDBED_RUNDIR=${GRIDBED_RUNDIR:-/run/gridbed-bench}
	tmp=$(mktemp -d)
}

bench_grid_down() {
	"$GRIDEMU" down >/dev/null 2>&1
	rm -rf "$tmp" "${GRIDBED_RUNDIR:?}/$GRIDBED_PREFIX"
}

bench_stop() {
	[ -n "$1" ] && kill "$1" 2>/dev/null && wait "$1" 2>/dev/null
	return 0
}
