/* SPDX-License-Identifier: MIT */
/*
 * test-pbs.c - the `pbs` resolver through cr-testhost: a job of 3 hosts and
 * 5 slots (tests/fixtures/pbs/aux/123.server, one line a slot, FQDNs as
 * PBS writes them when a vnode has an explicit host name), the job script
 * (PBS_NODENUM=0), a task on node 2, Torque's pbsdsh task on slot 3, its
 * GPUs (PBS_GPUFILE: a short name finds its FQDN in the node file), and
 * each node file and variable that is wrong; and, written by this test under
 * the build tree, a node file of 10^6 lines (4 hosts of 250,000 slots) and
 * a FIFO.
 */
#include <stdio.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "thc.h"

#define R "resolver 'pbs': PBS: "
#define ROOT "@SRC@/tests/fixtures/pbs"

/* clang-format off */
#define JOB "PBS_JOBID=123.server", "PBS_ENVIRONMENT=PBS_BATCH", "PBS_NODEFILE=/aux/123.server"
#define W3 "[\"node1.cluster:8888\", \"node2.cluster:8888\", \"node3.cluster:8888\"]"
static const thc_case cases[] = {
	{ "job-script-node0",
	  "", { JOB, "PBS_NODENUM=0", "PBS_TASKNUM=1" }, ROOT, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": " W3 "}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"master\": \"node1.cluster:8888\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "node2",
	  "", { JOB, "PBS_NODENUM=2" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": " W3 "}, \"task\": {\"type\": \"worker\", \"index\": 2}}\n",
	  "", CR_OK },
	{ "torque-pbsdsh-slot3-per-slot",
	  "per_slot = true; job = \"w\"; port_base = 2222;", { JOB, "PBS_NODENUM=1", "PBS_VNODENUM=3", "PBS_NP=5", "PBS_NUM_NODES=3" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"w\": [\"node1.cluster:2222\", \"node1.cluster:2223\", \"node2.cluster:2222\", \"node2.cluster:2223\", \"node3.cluster:2222\"]}, \"task\": {\"type\": \"w\", \"index\": 3}}\n",
	  "", CR_OK },
	{ "openpbs-per-slot-declines",
	  "per_slot = true;", { JOB, "PBS_NODENUM=0" }, ROOT, { "resolve" },
	  "",
	  "no resolver applies here (declined: pbs)", CR_DECLINED },
	{ "repeated-blank-comment-lines",
	  "", { "PBS_JOBID=124[2].server", "PBS_ENVIRONMENT=PBS_BATCH", "PBS_NODEFILE=/aux/repeated", "PBS_NODENUM=2" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"n1:8888\", \"n2:8888\", \"n3:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 2}}\n",
	  "", CR_OK },
	{ "nodenum-not-below-hosts",
	  "", { JOB, "PBS_NODENUM=3" }, ROOT, { "resolve" },
	  "",
	  R "PBS_NODENUM=3 is not below the 3 hosts of PBS_NODEFILE", CR_ERR_BACKEND },
	{ "vnodenum-not-below-lines",
	  "per_slot = true;", { JOB, "PBS_NODENUM=0", "PBS_VNODENUM=5" }, ROOT, { "resolve" },
	  "",
	  R "PBS_VNODENUM=5 is not below the 5 lines of PBS_NODEFILE", CR_ERR_BACKEND },
	{ "nodenum-not-a-number",
	  "", { JOB, "PBS_NODENUM=undefined" }, ROOT, { "resolve" },
	  "",
	  R "PBS_NODENUM=\"undefined\" is not a non-negative integer", CR_ERR_BACKEND },
	{ "bad-line",
	  "", { "PBS_JOBID=1.s", "PBS_ENVIRONMENT=PBS_BATCH", "PBS_NODEFILE=/aux/bad", "PBS_NODENUM=0" }, ROOT, { "resolve" },
	  "",
	  R "/aux/bad:1: not a host name (one host a line)", CR_ERR_PARSE },
	{ "empty-nodefile",
	  "", { "PBS_JOBID=1.s", "PBS_ENVIRONMENT=PBS_BATCH", "PBS_NODEFILE=/aux/empty", "PBS_NODENUM=0" }, ROOT, { "resolve" },
	  "",
	  R "/aux/empty lists no host", CR_ERR_PARSE },
	{ "nodefile-unset",
	  "", { "PBS_JOBID=1.s", "PBS_ENVIRONMENT=PBS_BATCH", "PBS_NODENUM=0" }, ROOT, { "resolve" },
	  "",
	  R "PBS_NODEFILE is not set (PBS sets it in every job)", CR_ERR_BACKEND },
	{ "gpufile-a-task-a-host",
	  "", { JOB, "PBS_NODENUM=1", "PBS_GPUFILE=/aux/123.server.gpu" }, ROOT, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": " W3 "}, \"task\": {\"type\": \"worker\", \"index\": 1}, \"master\": \"node2.cluster:8888\", \"num_accelerators\": {\"GPU\": 2}}\n",
	  "", CR_OK },
	{ "gpufile-per-slot-shares",
	  "per_slot = true;", { JOB, "PBS_NODENUM=0", "PBS_VNODENUM=1", "PBS_GPUFILE=/aux/123.server.gpu" }, ROOT, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"node1.cluster:8888\", \"node1.cluster:8889\", \"node2.cluster:8888\", \"node2.cluster:8889\", \"node3.cluster:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}, \"master\": \"node1.cluster:8889\", \"num_accelerators\": {\"GPU\": 1}}\n",
	  "", CR_OK },
	{ "gpufile-host-not-in-nodefile",
	  "", { JOB, "PBS_NODENUM=0", "PBS_GPUFILE=/aux/stranger.gpu" }, ROOT, { "resolve" },
	  "",
	  R "/aux/stranger.gpu: host \"node9.cluster\" is not in PBS_NODEFILE", CR_ERR_PARSE },
	{ "gpufile-bad-line",
	  "", { JOB, "PBS_NODENUM=0", "PBS_GPUFILE=/aux/bad.gpu" }, ROOT, { "resolve" },
	  "",
	  R "/aux/bad.gpu: \"node1.cluster-gpuX\" is not \"host-gpuN\"", CR_ERR_PARSE },
	{ "declines-outside-pbs",
	  "", { "PBS_JOBID=1.s" }, ROOT, { "resolve" },
	  "",
	  "no resolver applies here (declined: pbs)", CR_DECLINED },
	{ NULL },
};

#define GEN "@BUILD@/tests/plugins/pbs/gen"
#define BIG "PBS_JOBID=9.s", "PBS_ENVIRONMENT=PBS_BATCH", "PBS_NODEFILE=/aux/million"
static const thc_case generated[] = {
	{ "million-lines-four-hosts",
	  "", { BIG, "PBS_NODENUM=3" }, GEN, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"n0:8888\", \"n1:8888\", \"n2:8888\", \"n3:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 3}}\n",
	  "", CR_OK },
	{ "million-lines-per-slot-passes-65535",
	  "per_slot = true;", { BIG, "PBS_NODENUM=0", "PBS_VNODENUM=999999" }, GEN, { "resolve" },
	  "",
	  R "port_base 8888 + 250000 tasks on n0 passes port 65535", CR_ERR_CONFIG },
	{ "nodefile-fifo",
	  "", { "PBS_JOBID=9.s", "PBS_ENVIRONMENT=PBS_BATCH", "PBS_NODEFILE=/aux/fifo", "PBS_NODENUM=0" }, GEN, { "resolve" },
	  "",
	  R "cannot read /aux/fifo: not a regular file", CR_ERR_IO },
	{ "nodefile-missing",
	  "", { "PBS_JOBID=9.s", "PBS_ENVIRONMENT=PBS_BATCH", "PBS_NODEFILE=/aux/gone", "PBS_NODENUM=0" }, GEN, { "resolve" },
	  "",
	  R "cannot read /aux/gone: No such file or directory", CR_ERR_NOT_FOUND },
	{ NULL },
};
/* clang-format on */

/* The generated tree: aux/million, one of n0..n3 a line, round robin (a
 * host's lines are not adjacent), and aux/fifo. */
static void write_generated(void)
{
	const char *build = g_getenv("CR_TEST_BUILD_DIR");
	g_autofree char *aux =
		g_build_filename(build ? build : ".", "tests/plugins/pbs/gen/aux", NULL);
	g_autofree char *big = g_build_filename(aux, "million", NULL);
	g_autofree char *fifo = g_build_filename(aux, "fifo", NULL);
	FILE *f;

	g_assert_cmpint(g_mkdir_with_parents(aux, 0755), ==, 0);
	f = fopen(big, "w");
	g_assert_nonnull(f);
	for (unsigned i = 0; i < 1000000; i++)
		fprintf(f, "n%u\n", i % 4);
	g_assert_cmpint(fclose(f), ==, 0);
	(void)g_unlink(fifo);
	g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("pbs", "resolvers/pbs.so", cases);
	write_generated();
	thc_add_cases("pbs", "resolvers/pbs.so", generated);
	return g_test_run();
}
