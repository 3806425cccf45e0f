# Shared by the elastic tests: the CLI, a scratch directory, check, waiting
# for a file to hold N lines, and replacing the hosts file atomically.
set -u
cli=${CR_CLI:?CR_CLI is not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# check NAME WANT GOT
check() {
	if [ "$2" != "$3" ]; then
		printf 'FAIL %s:\n  expected [%s]\n  got      [%s]\n' "$1" "$2" "$3"; fail=1
	fi
}
# lines FILE: its number of lines (0 when missing).
lines() { if [ -f "$1" ]; then wc -l <"$1" | tr -d ' '; else echo 0; fi; }
# A command started in the background whose output is waited for starts
# from no file: its shell truncates it only when it gets to run, so the
# lines of an earlier command could pass for its own.
# wait_lines FILE N: until FILE has at least N lines, at most ~60 s (a
# bound for a stuck test, never a measure: a busy machine only waits longer).
wait_lines() {
	n=0
	while [ "$(lines "$1")" -lt "$2" ] && [ "$n" -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
	[ "$n" -lt 1200 ] || { echo "FAIL: no line $2 in $1 after 60 s"; fail=1; }
}
# wait_exit PID: wait for a background command, at most ~60 s (then it is
# killed and the test fails); its exit status.
wait_exit() {
	n=0
	while kill -0 "$1" 2>/dev/null && [ "$n" -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
	if [ "$n" -ge 1200 ]; then
		echo "FAIL: pid $1 still running after 60 s"; fail=1; kill -KILL "$1"
	fi
	wait "$1"
}
# hosts ADDRESS...: the hosts file becomes "worker ADDRESS" lines, replaced
# by rename as an inventory tool would.
hosts() {
	: >"$tmp/hosts.new"
	for a in "$@"; do printf 'worker %s\n' "$a" >>"$tmp/hosts.new"; done
	mv "$tmp/hosts.new" "$tmp/hosts"
}
printf 'accelerators = ( );\nresolvers = ( { plugin = "simple"; hosts_file = "%s"; } );\n' \
	"$tmp/hosts" >"$tmp/elastic.conf"
