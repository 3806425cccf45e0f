/* SPDX-License-Identifier: MIT */
/*
 * test-flux.c - the `flux` resolver through cr-testhost: recorded task
 * environments of Flux jobs (reference §3e; Flux is not in Debian) with the
 * job's R read from r_file (tests/fixtures/flux/R: example1.json is RFC
 * 20's own example, flux-framework/rfc data/spec_20/example1.json; the
 * others are shaped as RFC 20 says, old-node.json as R was before its
 * nodelist key), and, written by this test under the build tree, an R of
 * 10^6 nodes and a FIFO. The stand-in `flux` command is
 * test-flux-command.sh's.
 * Flux's job ids are F58 ("ƒ", U+0192, is "\xc6\x92" in UTF-8).
 */
#include <stdio.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "thc.h"

#define R "resolver 'flux': Flux: "
#define ROOT "@SRC@/tests/fixtures/flux"
#define ID                                                                                         \
	"\xc6\x92"                                                                                 \
	"D2e73NP"

/* clang-format off */
#define TASK(rank, size, nodes, local) "FLUX_JOB_ID=" ID, "FLUX_TASK_RANK=" rank, "FLUX_JOB_SIZE=" size, "FLUX_JOB_NNODES=" nodes, "FLUX_TASK_LOCAL_ID=" local
#define RF(f) "r_file = \"/R/" f "\";"
#define W8 "[\"node186:8888\", \"node186:8889\", \"node187:8888\", \"node187:8889\", \"node188:8888\", \"node188:8889\", \"node189:8888\", \"node189:8889\"]"
static const thc_case cases[] = {
	{ "rfc20-example-8-tasks-on-4-nodes",
	  RF("example1.json"), { TASK("5", "8", "4", "1"), "PMI_RANK=5", "FLUX_URI=local:///run/flux/local" }, ROOT, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": " W8 "}, \"task\": {\"type\": \"worker\", \"index\": 5}, \"master\": \"node188:8889\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "rfc20-example-torch-place",
	  RF("example1.json") " port_base = 29500;", { TASK("5", "8", "4", "1") }, ROOT, { "resolve", "--format", "torch" },
	  "export MASTER_ADDR='node186'\nexport MASTER_PORT='29500'\nexport WORLD_SIZE='8'\nexport RANK='5'\nexport LOCAL_RANK='1'\nexport LOCAL_WORLD_SIZE='2'\nexport NODE_RANK='2'\nexport GROUP_RANK='2'\n",
	  "", CR_OK },
	{ "uneven-6-tasks-first-nodes-get-the-extra",
	  RF("example1.json") " job = \"w\";", { TASK("5", "6", "4", "0") }, ROOT, { "resolve" },
	  "{\"cluster\": {\"w\": [\"node186:8888\", \"node186:8889\", \"node187:8888\", \"node187:8889\", \"node188:8888\", \"node189:8888\"]}, \"task\": {\"type\": \"w\", \"index\": 5}}\n",
	  "", CR_OK },
	{ "fewer-tasks-than-nodes",
	  RF("example1.json"), { TASK("1", "2", "4", "0") }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"node186:8888\", \"node187:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}\n",
	  "", CR_OK },
	{ "unequal-cores-uneven-declines",
	  RF("unequal-cores.json"), { TASK("0", "3", "2", "0") }, ROOT, { "resolve" },
	  "", "no resolver applies here (declined: flux)", CR_DECLINED },
	{ "unequal-cores-even",
	  RF("unequal-cores.json"), { TASK("3", "4", "2", "1") }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"big:8888\", \"big:8889\", \"small:8888\", \"small:8889\"]}, \"task\": {\"type\": \"worker\", \"index\": 3}}\n",
	  "", CR_OK },
	{ "old-r-node-keys-in-rank-order",
	  RF("old-node.json"), { TASK("2", "3", "3", "0") }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"fluke1:8888\", \"fluke2:8888\", \"fluke3:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 2}}\n",
	  "", CR_OK },
	{ "several-entries-fqdn-bracketed-idset",
	  RF("several-entries.json"), { TASK("0", "3", "3", "0") }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"node01.cluster.example.org:8888\", \"node02.cluster.example.org:8888\", \"gpu7:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}\n",
	  "", CR_OK },
	{ "two-brokers-a-host-ports-count-on",
	  RF("two-brokers-a-host.json"), { TASK("2", "4", "2", "0") }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"localhost:8888\", \"localhost:8889\", \"localhost:8890\", \"localhost:8891\"]}, \"task\": {\"type\": \"worker\", \"index\": 2}}\n",
	  "", CR_OK },
	{ "cyclic-taskmap-refused",
	  RF("example1.json"), { TASK("1", "8", "4", "0") }, ROOT, { "resolve" },
	  "",
	  R "task 1 is local task 0 (FLUX_TASK_LOCAL_ID), which the block layout of 8 tasks over 4 nodes does not give it: a --taskmap other than block? The mpi resolver places such tasks through Flux's PMI", CR_ERR_BACKEND },
	{ "nnodes-not-the-hosts-of-r",
	  RF("example1.json"), { TASK("0", "3", "3", "0") }, ROOT, { "resolve" },
	  "",
	  R "R of /R/example1.json names 4 hosts, but FLUX_JOB_NNODES=3", CR_ERR_BACKEND },
	{ "rank-not-below-size",
	  RF("example1.json"), { TASK("8", "8", "4", "0") }, ROOT, { "resolve" },
	  "",
	  R "FLUX_TASK_RANK=8 is not below FLUX_JOB_SIZE=8", CR_ERR_BACKEND },
	{ "local-above-rank",
	  RF("example1.json"), { TASK("0", "8", "4", "1") }, ROOT, { "resolve" },
	  "",
	  R "FLUX_TASK_LOCAL_ID=1 is above FLUX_TASK_RANK=0", CR_ERR_BACKEND },
	{ "size-undefined",
	  RF("example1.json"), { TASK("0", "undefined", "4", "0") }, ROOT, { "resolve" },
	  "",
	  R "FLUX_JOB_SIZE=\"undefined\" is not a non-negative integer", CR_ERR_BACKEND },
	{ "nnodes-zero",
	  RF("example1.json"), { TASK("0", "1", "0", "0") }, ROOT, { "resolve" },
	  "",
	  R "FLUX_JOB_NNODES=0: a job has at least one node", CR_ERR_BACKEND },
	{ "local-id-unset",
	  RF("example1.json"), { "FLUX_JOB_ID=" ID, "FLUX_TASK_RANK=0", "FLUX_JOB_SIZE=1", "FLUX_JOB_NNODES=1" }, ROOT, { "resolve" },
	  "",
	  R "FLUX_TASK_LOCAL_ID is not set (the job shell sets it in every task)", CR_ERR_BACKEND },
	{ "job-id-not-utf8",
	  RF("example1.json"), { "FLUX_JOB_ID=\xff\x01x", "FLUX_TASK_RANK=0", "FLUX_JOB_SIZE=1", "FLUX_JOB_NNODES=1", "FLUX_TASK_LOCAL_ID=0" }, ROOT, { "resolve" },
	  "",
	  R "FLUX_JOB_ID=\"\\xff\\x01x\" is not a Flux job id", CR_ERR_BACKEND },
	{ "job-id-an-option",
	  RF("example1.json"), { "FLUX_JOB_ID=--help", "FLUX_TASK_RANK=0", "FLUX_JOB_SIZE=1", "FLUX_JOB_NNODES=1", "FLUX_TASK_LOCAL_ID=0" }, ROOT, { "resolve" },
	  "",
	  R "FLUX_JOB_ID=\"--help\" is not a Flux job id", CR_ERR_BACKEND },
	{ "r-not-json",
	  RF("garbage"), { TASK("0", "1", "1", "0") }, ROOT, { "resolve" },
	  "",
	  R "R of /R/garbage: invalid JSON at line 1, column 2 (offset 1): boolean expected", CR_ERR_PARSE },
	{ "r-version-2",
	  RF("version2.json"), { TASK("0", "1", "1", "0") }, ROOT, { "resolve" },
	  "",
	  R "R of /R/version2.json: R version 2, not 1 (the version RFC 20 defines)", CR_ERR_PARSE },
	{ "r-no-execution",
	  RF("no-execution.json"), { TASK("0", "1", "1", "0") }, ROOT, { "resolve" },
	  "",
	  R "R of /R/no-execution.json: no \"execution\" object (RFC 20)", CR_ERR_PARSE },
	{ "r-no-nodelist-no-node",
	  RF("old-no-node.json"), { TASK("0", "2", "2", "0") }, ROOT, { "resolve" },
	  "",
	  R "R of /R/old-no-node.json: no execution.nodelist, and R_lite[0] names no \"node\": the hosts are unknown", CR_ERR_PARSE },
	{ "r-bad-hostlist",
	  RF("bad-hostlist.json"), { TASK("0", "2", "2", "0") }, ROOT, { "resolve" },
	  "",
	  R "R of /R/bad-hostlist.json: execution.nodelist[0]: invalid hostlist \"n[1-\": unterminated '[' at position 2", CR_ERR_PARSE },
	{ "r-targets-not-hosts",
	  RF("targets-mismatch.json"), { TASK("0", "3", "3", "0") }, ROOT, { "resolve" },
	  "",
	  R "R of /R/targets-mismatch.json: execution.nodelist names 3 hosts, but R_lite has 4 execution targets", CR_ERR_PARSE },
	{ "r-reversed-idset",
	  RF("bad-idset.json"), { TASK("0", "3", "3", "0") }, ROOT, { "resolve" },
	  "",
	  R "R of /R/bad-idset.json: R_lite[0].rank is not an RFC 22 idset", CR_ERR_PARSE },
	{ "r-file-missing",
	  RF("gone.json"), { TASK("0", "1", "1", "0") }, ROOT, { "resolve" },
	  "",
	  R "r_file: cannot read /R/gone.json: No such file or directory", CR_ERR_NOT_FOUND },
	{ "port-past-65535",
	  RF("example1.json") " port_base = 65535;", { TASK("0", "8", "4", "0") }, ROOT, { "resolve" },
	  "",
	  R "port_base 65535 + 2 tasks on node186 passes port 65535", CR_ERR_CONFIG },
	{ "declines-outside-a-task",
	  RF("example1.json"), { "FLUX_JOB_ID=" ID, "FLUX_URI=local:///run/flux/local" }, ROOT, { "resolve" },
	  "", "no resolver applies here (declined: flux)", CR_DECLINED },
	{ NULL },
};

#define GEN "@BUILD@/tests/plugins/flux/gen"
static const thc_case generated[] = {
	{ "r-of-a-million-nodes",
	  "r_file = \"/bigR.json\";", { TASK("1999999", "2000000", "1000000", "1") }, GEN, { "master" },
	  "n999999:8889\n", "", CR_OK },
	{ "r-file-fifo",
	  "r_file = \"/fifo\";", { TASK("0", "1", "1", "0") }, GEN, { "resolve" },
	  "",
	  R "r_file: cannot read /fifo: not a regular file", CR_ERR_IO },
	{ NULL },
};
/* clang-format on */

int main(int argc, char **argv)
{
	const char *build = g_getenv("CR_TEST_BUILD_DIR");
	g_autofree char *dir =
		g_build_filename(build ? build : ".", "tests/plugins/flux/gen", NULL);
	g_autofree char *fifo = g_build_filename(dir, "fifo", NULL);
	g_autofree char *big = g_build_filename(dir, "bigR.json", NULL);

	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("flux", "resolvers/flux.so", cases);
	g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
	/* R of 10^6 nodes, written here rather than kept in git. */
	g_assert_true(
		g_file_set_contents(big,
				    "{\"version\": 1, \"execution\": {\"R_lite\": [{\"rank\": "
				    "\"0-999999\", \"children\": {\"core\": \"0-63\"}}], "
				    "\"nodelist\": [\"n[0-999999]\"]}}",
				    -1, NULL));
	(void)g_unlink(fifo);
	g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);
	thc_add_cases("flux", "resolvers/flux.so", generated);
	return g_test_run();
}
