#!/bin/sh
# start-sge.sh DIR - start a one-host Grid Engine cell (Debian's SoGE 8.1.9:
# sge_qmaster + sge_execd) whose every file is under DIR: SGE_ROOT
# (DIR/root: bootstrap, act_qmaster, bin/<arch> links to the clients, which
# Open MPI's tight integration runs as $SGE_ROOT/bin/$ARC/qrsh, utilbin/<arch>
# to Debian's helpers, where the shepherd finds qrsh_starter for a qrsh
# task), the classic spool (DIR/spool/qmaster), the execd spool
# (DIR/spool/execd) and the daemons' pid files there. A PE `mpi` (tight
# integration: control_slaves, $fill_up) and a queue all.q of
# $SGE_TEST_SLOTS slots (4) on this host. Writes DIR/env.sh for clients
# (SGE_ROOT, SGE_CELL, ports, PATH).
#
# Must run inside test-sge-real.sh's namespaces (CR_SGE_NS=1): a host name
# of its own (UTS), a private /etc/hosts (mount) and loopback only (net), so
# the default ports 6444/6445 cannot collide with anything and the host name
# resolves without DNS. On failure it stops what it started and prints the
# daemons' messages.
set -eu

dir=${1:?usage: start-sge.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
slots=${SGE_TEST_SLOTS:-4}
lib=/usr/lib/gridengine

if [ "${CR_SGE_NS:-}" != 1 ]; then
	echo "start-sge.sh: run me inside test-sge-real.sh's namespaces" >&2
	exit 2
fi
for tool in /usr/sbin/sge_qmaster /usr/sbin/sge_execd $lib/spoolinit $lib/spooldefaults qconf qsub; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "start-sge.sh: $tool not installed (Debian: gridengine-master gridengine-exec gridengine-client)" >&2
		exit 77
	}
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
host=$(hostname)
arch=$(/usr/share/gridengine/util/arch)

fail() {
	echo "start-sge.sh: $*" >&2
	"$here/show-logs.sh" "$dir" >&2
	"$here/stop-sge.sh" "$dir" --keep >/dev/null 2>&1 || :
	exit 1
}

root=$dir/root
common=$root/default/common
mkdir -p "$common" "$root/bin/$arch" "$root/utilbin" "$dir/spool/qmaster/job_scripts" \
	"$dir/spool/execd" "$dir/tmp"
ln -sf /usr/share/gridengine/util "$root/util"
# The shepherd runs $SGE_ROOT/utilbin/$ARC/qrsh_starter for a qrsh task.
ln -sf /usr/lib/gridengine "$root/utilbin/$arch"
for c in /usr/bin/q*; do
	ln -sf "$c" "$root/bin/$arch/"
done
# admin_user none: the daemons stay root, as this test is (jobs run as the
# submitting user: root, hence min_uid 0 below).
cat >"$common/bootstrap" <<BOOT
admin_user              none
default_domain          none
ignore_fqdn             false
spooling_method         classic
spooling_lib            libspoolc
spooling_params         $common;$dir/spool/qmaster
binary_path             /usr/sbin
qmaster_spool_dir       $dir/spool/qmaster
security_mode           none
listener_threads        2
worker_threads          2
scheduler_threads       1
BOOT
echo "$host" >"$common/act_qmaster"
# Debian's default configuration with this cell's execd spool, root's jobs
# allowed (min_uid/min_gid 1000 put the queue in error for uid 0) and a load
# report every 2 s, so a new execd is scheduled to at once.
sed -e "s@^execd_spool_dir .*@execd_spool_dir $dir/spool/execd@" \
	-e 's/^min_uid .*/min_uid 0/' -e 's/^min_gid .*/min_gid 0/' \
	-e 's/^load_report_time .*/load_report_time 00:00:02/' \
	-e 's@^mailer .*@mailer /bin/true@' \
	/usr/share/gridengine/default-configuration >"$dir/global"

cat >"$dir/env.sh" <<ENV
export SGE_ROOT=$root SGE_CELL=default SGE_QMASTER_PORT=6444 SGE_EXECD_PORT=6445
export PATH=$root/bin/$arch:\$PATH
unset SGE_DEBUG_LEVEL
ENV
. "$dir/env.sh"

# The cell's first state, as Debian's init_cluster makes it.
{
	$lib/spoolinit classic libspoolc "$common;$dir/spool/qmaster" init &&
		$lib/spooldefaults configuration "$dir/global" &&
		$lib/spooldefaults complexes /usr/share/gridengine/util/resources/centry &&
		$lib/spooldefaults usersets /usr/share/gridengine/util/resources/usersets &&
		$lib/spooldefaults managers root
} >"$dir/init.log" 2>&1 || fail "the cell's spool: $(cat "$dir/init.log")"

/usr/sbin/sge_qmaster || fail "sge_qmaster did not start"
# qmaster answers (up to 60 s: it reads its spool first).
n=0
until qconf -sh >/dev/null 2>&1; do
	n=$((n + 1))
	[ "$n" -gt 600 ] && fail "qmaster does not answer after 60 s: $(qconf -sh 2>&1)"
	sleep 0.1
done
qconf -as "$host" >/dev/null 2>&1 || fail "qconf -as $host: $(qconf -as "$host" 2>&1)"

cat >"$dir/sched" <<SCHED
algorithm                        default
schedule_interval                0:0:1
maxujobs                         0
queue_sort_method                seqno
job_load_adjustments             NONE
load_adjustment_decay_time       0:0:0
load_formula                     slots
schedd_job_info                  true
flush_submit_sec                 1
flush_finish_sec                 1
params                           none
reprioritize_interval            0:0:0
halftime                         168
usage_weight_list                cpu=1,mem=0,io=0
compensation_factor              5
weight_user                      0.25
weight_project                   0.25
weight_department                0.25
weight_job                       0.25
weight_tickets_functional        0
weight_tickets_share             0
share_override_tickets           true
share_functional_shares          true
max_functional_jobs_to_schedule  200
report_pjob_tickets              true
max_pending_tasks_per_job        50
halflife_decay_list              none
policy_hierarchy                 OFS
weight_ticket                    0.01
weight_waiting_time              0.00000
weight_deadline                  3600000
weight_urgency                   0.1
weight_priority                  1.0
max_reservation                  0
default_duration                 INFINITY
SCHED
out=$(qconf -Msconf "$dir/sched" 2>&1) || fail "qconf -Msconf: $out"

# The PE of a tightly integrated MPI: mpirun starts its remote tasks with
# qrsh -inherit (control_slaves); 8.1.9 wants qsort_args.
cat >"$dir/pe" <<PE
pe_name            mpi
slots              $slots
user_lists         NONE
xuser_lists        NONE
start_proc_args    NONE
stop_proc_args     NONE
allocation_rule    \$fill_up
control_slaves     TRUE
job_is_first_task  FALSE
urgency_slots      min
accounting_summary FALSE
qsort_args         NONE
PE
out=$(qconf -Ap "$dir/pe" 2>&1) || fail "qconf -Ap: $out"

/usr/sbin/sge_execd || fail "sge_execd did not start"
# The exec host registers itself and reports load (up to 60 s).
n=0
until qconf -sel 2>/dev/null | grep -qxF "$host" &&
	qhost -h "$host" 2>/dev/null | awk -v h="$host" '$1 == h && $4 != "-" { f = 1 } END { exit !f }'; do
	n=$((n + 1))
	[ "$n" -gt 600 ] && fail "execd on $host did not report after 60 s: $(qhost 2>&1)"
	sleep 0.1
done

# The queue: all attributes (qconf -Aq wants them all), load thresholds off
# (a busy CI machine must not put it in alarm).
cat >"$dir/queue" <<QUEUE
qname                 all.q
hostlist              $host
seq_no                0
load_thresholds       NONE
suspend_thresholds    NONE
nsuspend              1
suspend_interval      00:05:00
priority              0
min_cpu_interval      00:05:00
processors            UNDEFINED
qtype                 BATCH INTERACTIVE
ckpt_list             NONE
pe_list               mpi
rerun                 FALSE
slots                 $slots
tmpdir                $dir/tmp
shell                 /bin/sh
prolog                NONE
epilog                NONE
shell_start_mode      posix_compliant
starter_method        NONE
suspend_method        NONE
resume_method         NONE
terminate_method      NONE
notify                00:00:60
owner_list            NONE
user_lists            NONE
xuser_lists           NONE
subordinate_list      NONE
complex_values        NONE
projects              NONE
xprojects             NONE
calendar              NONE
initial_state         default
s_rt                  INFINITY
h_rt                  INFINITY
s_cpu                 INFINITY
h_cpu                 INFINITY
s_fsize               INFINITY
h_fsize               INFINITY
s_data                INFINITY
h_data                INFINITY
s_stack               INFINITY
h_stack               INFINITY
s_core                INFINITY
h_core                INFINITY
s_rss                 INFINITY
h_rss                 INFINITY
s_vmem                INFINITY
h_vmem                INFINITY
QUEUE
out=$(qconf -Aq "$dir/queue" 2>&1) || fail "qconf -Aq: $out"
qmod -c "all.q@$host" >/dev/null 2>&1 || :

# A smoke job: one slot, the queue takes it and it ends (up to 60 s).
printf '#!/bin/sh\necho smoke-ok\n' >"$dir/smoke.sh"
id=$(qsub -terse -o "$dir/smoke.out" -j y "$dir/smoke.sh" 2>&1) || fail "qsub smoke: $id"
n=0
until [ "$(cat "$dir/smoke.out" 2>/dev/null)" = smoke-ok ] && ! qstat -j "$id" >/dev/null 2>&1; do
	n=$((n + 1))
	[ "$n" -gt 600 ] && fail "smoke job $id did not run in 60 s: $(qstat -f 2>&1; qstat -j "$id" 2>&1 | tail -5)"
	sleep 0.1
done
exit 0
