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
# wait_lines FILE N: until FILE has at least N lines, at most ~120 s (a
# bound for a stuck test, never a measure: a busy machine only waits longer).
wait_lines() {
	n=0
	while [ "$(lines "$1")" -lt "$2" ] && [ "$n" -lt 2400 ]; do sleep 0.05; n=$((n + 1)); done
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
