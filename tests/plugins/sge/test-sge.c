/* SPDX-License-Identifier: MIT */
/*
 * test-sge.c - the `sge` resolver through cr-testhost: the master task of a
 * parallel job of 3 hosts, 9 slots and 4 queue instances
 * (tests/fixtures/sge/spool/node1/active_jobs/17.1/pe_hostfile: FQDNs, a
 * host on two lines, UNDEFINED, <NULL> and a binding string in the fourth
 * field), its options, NSLOTS/NHOSTS/NQUEUES that disagree with the file, a
 * task of qrsh -inherit, a serial job, torchrun and mpirun inside the job
 * (a Slurm allocation's counts that qsub -V carried in are no launcher),
 * an array task, each bad file; and, written by this test under the build
 * tree, a PE_HOSTFILE of 10^6 lines (4 hosts, round robin) and a FIFO.
 */
#include <stdio.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "thc.h"

#define R "resolver 'sge': Grid Engine: "
#define ROOT "@SRC@/tests/fixtures/sge"
#define NONE "no resolver applies here (declined: sge)"

/* clang-format off */
#define PEF "/spool/node1/active_jobs/17.1/pe_hostfile"
#define JOB "JOB_ID=17", "PE=mpi", "PE_HOSTFILE=" PEF, "JOB_SCRIPT=/spool/node1/job_scripts/17"
#define N "NSLOTS=9", "NHOSTS=3", "NQUEUES=4"
#define W3 "[\"node1.cluster.example:8888\", \"node2.cluster.example:8888\", \"node3.cluster.example:8888\"]"
#define T0 ", \"task\": {\"type\": \"worker\", \"index\": 0}"
#define QRSH "JOB_ID=17", "PE=mpi", "NSLOTS=9", "NHOSTS=3", "NQUEUES=4", "JOB_NAME=petask", "JOB_SCRIPT=QRSH", "QRSH_PORT=node1.cluster.example:40211"
static const thc_case cases[] = {
	{ "job-script-three-hosts",
	  "", { JOB, N, "SGE_TASK_ID=undefined", "SGE_TASK_FIRST=undefined" }, ROOT, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": " W3 "}" T0 ", \"master\": \"node1.cluster.example:8888\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "hostname-second-host-declines",
	  "", { JOB, N, "HOSTNAME=node2" }, ROOT, { "resolve" },
	  "", NONE, CR_DECLINED },
	{ "hostname-first-host-short",
	  "", { JOB, N, "HOSTNAME=node1" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": " W3 "}" T0 "}\n",
	  "", CR_OK },
	{ "array-task-same-answer",
	  "", { JOB, N, "SGE_TASK_ID=7", "SGE_TASK_FIRST=1", "SGE_TASK_LAST=8" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": " W3 "}" T0 "}\n",
	  "", CR_OK },
	{ "job-script-probe",
	  "", { JOB, N }, ROOT, { "probe" },
	  "", "", CR_OK },
	{ "per-slot-first-host-one-slot",
	  "per_slot = true; job = \"w\"; port_base = 2222;", { "JOB_ID=18", "PE=mpi", "PE_HOSTFILE=/spool/node3/active_jobs/18.1/pe_hostfile", "NSLOTS=3", "NHOSTS=2", "NQUEUES=2" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"w\": [\"node3:2222\", \"node1:2222\", \"node1:2223\"]}, \"task\": {\"type\": \"w\", \"index\": 0}}\n",
	  "", CR_OK },
	{ "per-slot-four-on-first-host-declines",
	  "per_slot = true;", { JOB, N }, ROOT, { "resolve" },
	  "", NONE, CR_DECLINED },
	{ "tasks-per-host-2-declines",
	  "tasks_per_host = 2;", { JOB, N }, ROOT, { "resolve" },
	  "", NONE, CR_DECLINED },
	{ "unchecked-without-counts",
	  "", { JOB }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": " W3 "}" T0 "}\n",
	  "", CR_OK },
	{ "nslots-mismatch",
	  "", { JOB, "NSLOTS=8", "NHOSTS=3" }, ROOT, { "resolve" },
	  "", R "NSLOTS=8, but PE_HOSTFILE " PEF " lists 9 slots", CR_ERR_BACKEND },
	{ "nhosts-mismatch-counts-distinct-hosts",
	  "", { JOB, "NSLOTS=9", "NHOSTS=4" }, ROOT, { "resolve" },
	  "", R "NHOSTS=4, but PE_HOSTFILE " PEF " lists 3 hosts", CR_ERR_BACKEND },
	{ "nqueues-mismatch",
	  "", { JOB, "NSLOTS=9", "NHOSTS=3", "NQUEUES=3" }, ROOT, { "resolve" },
	  "", R "NQUEUES=3, but PE_HOSTFILE " PEF " lists 4 queue instances (lines)", CR_ERR_BACKEND },
	{ "nslots-undefined",
	  "", { JOB, "NSLOTS=undefined" }, ROOT, { "resolve" },
	  "", R "NSLOTS=\"undefined\" is not a non-negative integer", CR_ERR_BACKEND },
	{ "qrsh-inherit-task-declines",
	  "", { QRSH }, ROOT, { "probe" },
	  "", "a task of Grid Engine job 17 started by qrsh -inherit (JOB_SCRIPT=QRSH): Grid Engine gives it neither PE_HOSTFILE (the master task's only) nor a rank; start the tasks with mpirun (the mpi resolver places each rank)",
	  CR_DECLINED },
	{ "serial-job-declines",
	  "", { "JOB_ID=5", "NSLOTS=1", "NHOSTS=1", "SGE_TASK_ID=undefined" }, ROOT, { "probe" },
	  "", "in Grid Engine job 5 but not in a parallel environment (PE_HOSTFILE is not set: a serial job, one slot)",
	  CR_DECLINED },
	{ "torchrun-inside-the-job-declines",
	  "", { JOB, N, "TORCHELASTIC_RUN_ID=none", "RANK=3", "WORLD_SIZE=4", "LOCAL_RANK=1", "LOCAL_WORLD_SIZE=2", "MASTER_ADDR=node1.cluster.example", "MASTER_PORT=29500" }, ROOT, { "probe" },
	  "", "in Grid Engine job 17, but WORLD_SIZE=4 says torchrun or another torch env:// launcher started this process (one of 4 processes), not the job script: the torch-env resolver places it",
	  CR_DECLINED },
	{ "mpirun-inside-the-job-declines",
	  "", { JOB, N, "OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=9", "OMPI_COMM_WORLD_LOCAL_RANK=0" }, ROOT, { "probe" },
	  "", "in Grid Engine job 17, but OMPI_COMM_WORLD_SIZE=9 says Open MPI's mpirun started this process (one of 9 processes), not the job script: the mpi resolver places it",
	  CR_DECLINED },
	{ "slurm-allocation-carried-by-qsub-V-is-not-a-launcher",
	  "", { JOB, N, "SLURM_JOB_ID=5", "SLURM_NTASKS=8", "SLURM_JOB_NUM_NODES=2" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": " W3 "}" T0 "}\n",
	  "", CR_OK },
	{ "outside-grid-engine",
	  "", { "PE_HOSTFILE=" PEF, "NSLOTS=9" }, ROOT, { "resolve" },
	  "", NONE, CR_DECLINED },
	{ NULL },
};

#define BAD(file) "JOB_ID=3", "PE=mpi", "PE_HOSTFILE=/bad/" file
static const thc_case bad_files[] = {
	{ "blank-comment-repeated-lines",
	  "", { BAD("commented"), "NSLOTS=3", "NHOSTS=2", "NQUEUES=3" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"n1:8888\", \"n2:8888\"]}" T0 "}\n",
	  "", CR_OK },
	{ "slots-not-a-number",
	  "", { BAD("slots-word") }, ROOT, { "resolve" },
	  "", R "/bad/slots-word:1: want \"host slots ...\", with slots a number above 0", CR_ERR_PARSE },
	{ "slots-zero",
	  "", { BAD("slots-zero") }, ROOT, { "resolve" },
	  "", R "/bad/slots-zero:1: want \"host slots ...\", with slots a number above 0", CR_ERR_PARSE },
	{ "no-host",
	  "", { BAD("empty") }, ROOT, { "resolve" },
	  "", R "/bad/empty lists no host", CR_ERR_PARSE },
	{ "pe-hostfile-empty-value",
	  "", { "JOB_ID=3", "PE=mpi", "PE_HOSTFILE=" }, ROOT, { "resolve" },
	  "", R "PE_HOSTFILE is empty (Grid Engine sets it to the master task's host file)", CR_ERR_BACKEND },
	{ NULL },
};

#define GEN "@BUILD@/tests/plugins/sge/gen"
#define BIG "JOB_ID=9", "PE=mpi", "PE_HOSTFILE=/active_jobs/9.1/pe_hostfile"
static const thc_case generated[] = {
	{ "million-lines-four-hosts",
	  "", { BIG, "NSLOTS=2000000", "NHOSTS=4", "NQUEUES=1000000" }, GEN, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"n0.grid.example:8888\", \"n1.grid.example:8888\", \"n2.grid.example:8888\", \"n3.grid.example:8888\"]}" T0 "}\n",
	  "", CR_OK },
	{ "million-lines-per-slot-declines",
	  "per_slot = true;", { BIG }, GEN, { "resolve" },
	  "", NONE, CR_DECLINED },
	{ "pe-hostfile-fifo",
	  "", { "JOB_ID=9", "PE=mpi", "PE_HOSTFILE=/active_jobs/fifo" }, GEN, { "resolve" },
	  "", R "cannot read /active_jobs/fifo: not a regular file", CR_ERR_IO },
	{ "pe-hostfile-missing",
	  "", { "JOB_ID=9", "PE=mpi", "PE_HOSTFILE=/active_jobs/gone" }, GEN, { "resolve" },
	  "", R "cannot read /active_jobs/gone: No such file or directory", CR_ERR_NOT_FOUND },
	{ NULL },
};
/* clang-format on */

/* The generated tree: active_jobs/9.1/pe_hostfile, 10^6 lines of two slots
 * on n0..n3.grid.example round robin (each host on 250,000 lines, as 250,000
 * queues), and active_jobs/fifo. */
static void write_generated(void)
{
	const char *build = g_getenv("CR_TEST_BUILD_DIR");
	g_autofree char *dir =
		g_build_filename(build ? build : ".", "tests/plugins/sge/gen/active_jobs", NULL);
	g_autofree char *job = g_build_filename(dir, "9.1", NULL);
	g_autofree char *big = g_build_filename(job, "pe_hostfile", NULL);
	g_autofree char *fifo = g_build_filename(dir, "fifo", NULL);
	FILE *f;

	g_assert_cmpint(g_mkdir_with_parents(job, 0755), ==, 0);
	f = fopen(big, "w");
	g_assert_nonnull(f);
	for (unsigned i = 0; i < 1000000; i++)
		fprintf(f, "n%u.grid.example 2 q%u.q@n%u.grid.example UNDEFINED\n", i % 4, i / 4,
			i % 4);
	g_assert_cmpint(fclose(f), ==, 0);
	(void)g_unlink(fifo);
	g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("sge", "resolvers/sge.so", cases);
	thc_add_cases("sge", "resolvers/sge.so", bad_files);
	write_generated();
	thc_add_cases("sge", "resolvers/sge.so", generated);
	return g_test_run();
}
