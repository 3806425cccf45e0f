/* SPDX-License-Identifier: MIT */
/*
 * test-lsf.c - the `lsf` resolver through cr-testhost: recorded environments
 * of IBM Spectrum LSF jobs (reference §3c; LSF is not in Debian). A job
 * script (no jsrun) with LSB_MCPU_HOSTS and LSB_HOSTS, jsrun tasks on a CSM
 * system (the launch node first in every host list, Lightning's reading of
 * LSB_DJOB_RANKFILE), the host file with FQDNs, repeated hosts, blank and
 * comment lines (tests/fixtures/lsf), LSB_HOSTS alone, and each wrong
 * variable and file; and, written by this test under the build tree, a
 * large job whose LSB_HOSTS LSF dropped (LSB_MCPU_HOSTS over 4096 bytes), a
 * host file of 10^6 lines and a FIFO.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "thc.h"

#define R "resolver 'lsf': LSF: "
#define ROOT "@SRC@/tests/fixtures/lsf"
#define DECLINED "no resolver applies here (declined: lsf)"

/* clang-format off */
#define MCPU "LSB_MCPU_HOSTS=hostA 4 hostB 4 hostC 2"
#define W3 "[\"hostA:8888\", \"hostB:8888\", \"hostC:8888\"]"
#define CSM "LSB_JOBID=4711", "LSB_MCPU_HOSTS=batch3 1 a01n01 42 a01n02 42"
static const thc_case cases[] = {
	{ "job-script-task0",
	  "", { "LSB_JOBID=4711", MCPU, "LSB_HOSTS=hostA hostA hostA hostA hostB hostB hostB hostB hostC hostC" }, ROOT, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": " W3 "}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"master\": \"hostA:8888\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "mcpu-wins-over-lsb-hosts",
	  "job = \"w\"; port_base = 2222;", { "LSB_JOBID=4711", MCPU, "LSB_HOSTS=other other" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"w\": [\"hostA:2222\", \"hostB:2222\", \"hostC:2222\"]}, \"task\": {\"type\": \"w\", \"index\": 0}}\n",
	  "", CR_OK },
	{ "job-script-per-slot-declines",
	  "per_slot = true;", { "LSB_JOBID=4711", MCPU }, ROOT, { "resolve" },
	  "", DECLINED, CR_DECLINED },
	{ "job-script-two-a-host-declines",
	  "tasks_per_host = 2;", { "LSB_JOBID=4711", MCPU }, ROOT, { "resolve" },
	  "", DECLINED, CR_DECLINED },
	{ "csm-job-script-on-launch-node-declines",
	  "", { CSM, "CSM_ALLOCATION_ID=99" }, ROOT, { "resolve" },
	  "", DECLINED, CR_DECLINED },
	{ "jsrun-two-a-host",
	  "tasks_per_host = 2;", { CSM, "JSM_NAMESPACE_RANK=3", "JSM_NAMESPACE_SIZE=4", "JSM_NAMESPACE_LOCAL_RANK=1" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"a01n01:8888\", \"a01n01:8889\", \"a01n02:8888\", \"a01n02:8889\"]}, \"task\": {\"type\": \"worker\", \"index\": 3}}\n",
	  "", CR_OK },
	{ "jsrun-per-slot",
	  "per_slot = true;", { "LSB_JOBID=4711", "LSB_MCPU_HOSTS=batch3 1 n1 2 n2 2", "JSM_NAMESPACE_RANK=2", "JSM_NAMESPACE_SIZE=4", "JSM_NAMESPACE_LOCAL_RANK=0" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"n1:8888\", \"n1:8889\", \"n2:8888\", \"n2:8889\"]}, \"task\": {\"type\": \"worker\", \"index\": 2}}\n",
	  "", CR_OK },
	{ "jsrun-six-a-host-only-task0-known",
	  "", { CSM, "JSM_NAMESPACE_RANK=7", "JSM_NAMESPACE_SIZE=12", "JSM_NAMESPACE_LOCAL_RANK=1" }, ROOT, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"a01n01:8888\", null, null, null, null, null, null, null, null, null, null, null]}, \"task\": {\"type\": \"worker\", \"index\": 7}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "jsrun-cyclic-refused",
	  "tasks_per_host = 2;", { CSM, "JSM_NAMESPACE_RANK=1", "JSM_NAMESPACE_SIZE=4", "JSM_NAMESPACE_LOCAL_RANK=0" }, ROOT, { "resolve" },
	  "",
	  R "jsrun task 1 is local task 0 (JSM_NAMESPACE_LOCAL_RANK), but 4 tasks laid out host by host put it at local task 1 of a01n01: jsrun placed them otherwise (set tasks_per_host to its tasks a host)", CR_ERR_BACKEND },
	{ "jsrun-rankfile-fqdn-blank-comment",
	  "", { "LSB_JOBID=4711", "LSB_DJOB_RANKFILE=/rankfile", "JSM_NAMESPACE_RANK=1", "JSM_NAMESPACE_SIZE=2", "JSM_NAMESPACE_LOCAL_RANK=0" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"a01n01.summit.olcf.ornl.gov:8888\", \"a01n02.summit.olcf.ornl.gov:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}\n",
	  "", CR_OK },
	{ "jsrun-launch-node-kept",
	  "launch_node = \"keep\";", { "LSB_JOBID=4711", "LSB_MCPU_HOSTS=n0 1 n1 1 n2 1", "JSM_NAMESPACE_RANK=0", "JSM_NAMESPACE_SIZE=3" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"n0:8888\", \"n1:8888\", \"n2:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}\n",
	  "", CR_OK },
	{ "jsrun-first-host-of-many-slots-is-no-launch-node",
	  "", { "LSB_JOBID=4711", "LSB_MCPU_HOSTS=n1 42 n2 42", "JSM_NAMESPACE_RANK=1", "JSM_NAMESPACE_SIZE=2", "JSM_NAMESPACE_LOCAL_RANK=0" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"n1:8888\", \"n2:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}\n",
	  "", CR_OK },
	{ "hostfile-repeated-fqdn-blank-comment",
	  "", { "LSB_JOBID=4712", "LSB_DJOB_HOSTFILE=/hostfile", "LSB_HOSTS=x y" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"hostB.example.org:8888\", \"hostA.example.org:8888\", \"hostC:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}\n",
	  "", CR_OK },
	{ "lsb-hosts-alone",
	  "", { "LSB_JOBID=4713", "LSB_HOSTS=hA hA hB hB" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"hA:8888\", \"hB:8888\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}\n",
	  "", CR_OK },
	{ "launch-node-skip-option",
	  "launch_node = \"skip\";", { "LSB_JOBID=4713", "LSB_HOSTS=login1 hA hA hB" }, ROOT, { "resolve" },
	  "", DECLINED, CR_DECLINED },
	{ "only-the-launch-node",
	  "", { CSM, "LSB_MCPU_HOSTS=batch3 1", "JSM_NAMESPACE_RANK=0", "JSM_NAMESPACE_SIZE=1" }, ROOT, { "resolve" },
	  "",
	  R "LSB_MCPU_HOSTS lists no host but the launch node batch3", CR_ERR_PARSE },
	{ "rankfile-only-the-launch-node",
	  "", { "LSB_JOBID=1", "LSB_DJOB_RANKFILE=/launch-only", "JSM_NAMESPACE_RANK=0", "JSM_NAMESPACE_SIZE=1" }, ROOT, { "resolve" },
	  "",
	  R "/launch-only lists no host but the launch node batch3", CR_ERR_PARSE },
	{ "rank-not-below-size",
	  "", { CSM, "JSM_NAMESPACE_RANK=4", "JSM_NAMESPACE_SIZE=4" }, ROOT, { "resolve" },
	  "",
	  R "JSM_NAMESPACE_RANK=4 is not below JSM_NAMESPACE_SIZE=4", CR_ERR_BACKEND },
	{ "rank-undefined",
	  "", { CSM, "JSM_NAMESPACE_RANK=undefined", "JSM_NAMESPACE_SIZE=4" }, ROOT, { "resolve" },
	  "",
	  R "JSM_NAMESPACE_RANK=\"undefined\" is not a non-negative integer", CR_ERR_BACKEND },
	{ "size-signed",
	  "", { CSM, "JSM_NAMESPACE_RANK=0", "JSM_NAMESPACE_SIZE=+4" }, ROOT, { "resolve" },
	  "",
	  R "JSM_NAMESPACE_SIZE=\"+4\" is not a non-negative integer", CR_ERR_BACKEND },
	{ "rank-without-size",
	  "", { CSM, "JSM_NAMESPACE_RANK=0" }, ROOT, { "resolve" },
	  "",
	  R "JSM_NAMESPACE_RANK is set but JSM_NAMESPACE_SIZE is not (jsrun sets both)", CR_ERR_BACKEND },
	{ "mcpu-host-without-count",
	  "", { "LSB_JOBID=1", "LSB_MCPU_HOSTS=hostA 4 hostB" }, ROOT, { "resolve" },
	  "",
	  R "LSB_MCPU_HOSTS: host \"hostB\" (pair 2) has no slot count above 0", CR_ERR_PARSE },
	{ "mcpu-zero-slots",
	  "", { "LSB_JOBID=1", "LSB_MCPU_HOSTS=hostA 0" }, ROOT, { "resolve" },
	  "",
	  R "LSB_MCPU_HOSTS: host \"hostA\" (pair 1) has no slot count above 0", CR_ERR_PARSE },
	{ "hostfile-two-words",
	  "", { "LSB_JOBID=1", "LSB_DJOB_HOSTFILE=/bad" }, ROOT, { "resolve" },
	  "",
	  R "/bad:1: not a host name (one host a line)", CR_ERR_PARSE },
	{ "hostfile-empty",
	  "", { "LSB_JOBID=1", "LSB_DJOB_HOSTFILE=/empty" }, ROOT, { "resolve" },
	  "",
	  R "/empty lists no host", CR_ERR_PARSE },
	{ "hostfile-missing",
	  "", { "LSB_JOBID=1", "LSB_DJOB_HOSTFILE=/gone" }, ROOT, { "resolve" },
	  "",
	  R "cannot read /gone: No such file or directory", CR_ERR_NOT_FOUND },
	{ "no-host-variable",
	  "", { "LSB_JOBID=1", "LSB_MCPU_HOSTS=" }, ROOT, { "resolve" },
	  "",
	  R "none of LSB_MCPU_HOSTS, LSB_DJOB_HOSTFILE, LSB_DJOB_RANKFILE and LSB_HOSTS is set (LSF sets LSB_MCPU_HOSTS in every job)", CR_ERR_BACKEND },
	{ "launch-node-option-wrong",
	  "launch_node = \"first\";", { "LSB_JOBID=1", MCPU }, ROOT, { "resolve" },
	  "",
	  "resolver 'lsf' (@PLUGIN@): create failed: (string):1: launch_node must be \"auto\", \"skip\" or \"keep\"", CR_ERR_CONFIG },
	{ "declines-outside-lsf",
	  "", { "LSB_MCPU_HOSTS=hostA 1", "JSM_NAMESPACE_RANK=0", "JSM_NAMESPACE_SIZE=1" }, ROOT, { "resolve" },
	  "", DECLINED, CR_DECLINED },
	{ NULL },
};
/* clang-format on */

#define GEN "@BUILD@/tests/plugins/lsf/gen"
#define NBIG 300

/* A job of NBIG hosts of 42 slots (LSB_MCPU_HOSTS of 9,000 bytes: LSF
 * dropped LSB_HOSTS), its expected cluster, and the generated files. */
static char *big_mcpu, *big_jsrun_want;
static thc_case generated[5];

static void write_generated(void)
{
	const char *build = g_getenv("CR_TEST_BUILD_DIR");
	g_autofree char *dir = g_build_filename(build ? build : ".", "tests/plugins/lsf/gen", NULL);
	g_autofree char *million = g_build_filename(dir, "million", NULL);
	g_autofree char *fifo = g_build_filename(dir, "fifo", NULL);
	GString *mcpu = g_string_new("LSB_MCPU_HOSTS=batch3 1");
	GString *want = g_string_new("{\"cluster\": {\"worker\": [");
	FILE *f;

	for (unsigned i = 0; i < NBIG; i++) {
		g_string_append_printf(mcpu, " c%04u.cluster.example.org 42", i);
		g_string_append_printf(want, "%s\"c%04u.cluster.example.org:8888\"", i ? ", " : "",
				       i);
	}
	g_assert_cmpuint(mcpu->len, >, 4096);
	big_mcpu = g_string_free(mcpu, FALSE);
	g_string_append(want, "]}, \"task\": {\"type\": \"worker\", \"index\": 299}}\n");
	big_jsrun_want = g_string_free(want, FALSE);
	g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
	f = fopen(million, "w");
	g_assert_nonnull(f);
	for (unsigned i = 0; i < 1000000; i++)
		fprintf(f, "%s\n", i == 0 ? "batch3" : i % 2 ? "h1" : "h2");
	g_assert_cmpint(fclose(f), ==, 0);
	(void)g_unlink(fifo);
	g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);

	generated[0] = (thc_case){ "large-job-mcpu-only-jsrun",
				   "",
				   { "LSB_JOBID=9", big_mcpu, "JSM_NAMESPACE_RANK=299",
				     "JSM_NAMESPACE_SIZE=300", "JSM_NAMESPACE_LOCAL_RANK=0" },
				   GEN,
				   { "resolve" },
				   big_jsrun_want,
				   "",
				   CR_OK };
	generated[1] = (thc_case){ "rankfile-million-lines",
				   "per_slot = true;",
				   { "LSB_JOBID=9", "LSB_DJOB_RANKFILE=/million",
				     "JSM_NAMESPACE_RANK=1", "JSM_NAMESPACE_SIZE=999999" },
				   GEN,
				   { "resolve" },
				   "",
				   R "port_base 8888 + 500000 tasks on h1 passes port 65535",
				   CR_ERR_CONFIG };
	generated[2] =
		(thc_case){ "rankfile-million-lines-a-task-a-host",
			    "",
			    { "LSB_JOBID=9", "LSB_DJOB_RANKFILE=/million", "JSM_NAMESPACE_RANK=1",
			      "JSM_NAMESPACE_SIZE=2", "JSM_NAMESPACE_LOCAL_RANK=0" },
			    GEN,
			    { "resolve" },
			    "{\"cluster\": {\"worker\": [\"h1:8888\", \"h2:8888\"]}, \"task\": "
			    "{\"type\": \"worker\", \"index\": 1}}\n",
			    "",
			    CR_OK };
	generated[3] = (thc_case){
		"hostfile-fifo", "", { "LSB_JOBID=9", "LSB_DJOB_HOSTFILE=/fifo" }, GEN,
		{ "resolve" },   "", R "cannot read /fifo: not a regular file",    CR_ERR_IO
	};
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("lsf", "resolvers/lsf.so", cases);
	write_generated();
	thc_add_cases("lsf", "resolvers/lsf.so", generated);
	return g_test_run();
}
