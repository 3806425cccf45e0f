# expect.sh - sourced by the shell tests that compare a command's exit
# status, stdout and stderr exactly. The sourcing script sets $tmp (a
# scratch directory) and $fail (0), and exits with $fail at the end.
#
# expect NAME RC STDOUT STDERR -- COMMAND...
expect() {
	name=$1 rc=$2 out=$3 err=$4
	shift 5
	"$@" >"$tmp/out" 2>"$tmp/err"
	got_rc=$?
	got_out=$(cat "$tmp/out") got_err=$(cat "$tmp/err")
	if [ "$got_rc" != "$rc" ] || [ "$got_out" != "$out" ] || [ "$got_err" != "$err" ]; then
		echo "FAIL $name: exit $got_rc (want $rc)"
		echo "  stdout: [$got_out]"; echo "    want: [$out]"
		echo "  stderr: [$got_err]"; echo "    want: [$err]"
		fail=1
	else
		echo "ok $name"
	fi
}
