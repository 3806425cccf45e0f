/* SPDX-License-Identifier: MIT */
/*
 * test-volcano.c - the `volcano` resolver through cr-testhost: the pods of
 * Volcano Job `myjob` (tasks master, param-server and worker of 1, 1 and 3
 * pods) as Volcano's svc and env plugins set them up (reference §4h): the
 * variables VC_<TASK>_HOSTS, VC_<TASK>_NUM, VC_TASK_INDEX, VK_TASK_INDEX,
 * and the ConfigMap mounted at /etc/volcano (tests/fixtures/volcano/etc,
 * laid out as the kubelet mounts one: ..data and symbolic links); with and
 * without the variables' injection, with and without the env plugin; each
 * shape that is wrong (an index not below the hosts, NUM not the hosts
 * listed, a repeated host, a missing file); and, written by this test
 * under the build tree, a FIFO, a hosts file of 10^6 lines and one of
 * 100,000.
 */
#include <stdio.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "thc.h"

#define R "resolver 'volcano': Volcano: "
#define ROOT "@SRC@/tests/fixtures/volcano"

/* clang-format off */
#define M "\"myjob-master-0.myjob:2222\""
#define PS "\"myjob-param-server-0.myjob:2222\""
#define W "\"myjob-worker-0.myjob:2222\", \"myjob-worker-1.myjob:2222\", \"myjob-worker-2.myjob:2222\""
#define ALL "{\"master\": [" M "], \"param-server\": [" PS "], \"worker\": [" W "]}"
#define HOSTS_ENV "VC_MASTER_HOSTS=myjob-master-0.myjob", "VC_MASTER_NUM=1", \
	"VC_PARAM_SERVER_HOSTS=myjob-param-server-0.myjob", "VC_PARAM_SERVER_NUM=1", \
	"VC_WORKER_HOSTS=myjob-worker-0.myjob,myjob-worker-1.myjob,myjob-worker-2.myjob", "VC_WORKER_NUM=3"
#define ENV_ONLY "tasks = [\"master\", \"worker\"]; hosts_dir = \"/nonexistent\";"
#define W_ENV "VC_WORKER_HOSTS=myjob-worker-0.myjob,myjob-worker-1.myjob,myjob-worker-2.myjob"
static const thc_case cases[] = {
	{ "worker-1-injected-variables",
	  "", { HOSTS_ENV, "VC_TASK_INDEX=1", "VK_TASK_INDEX=1", "HOSTNAME=myjob-worker-1" }, ROOT, { "resolve" },
	  "{\"cluster\": " ALL ", \"task\": {\"type\": \"worker\", \"index\": 1}}\n",
	  "", CR_OK },
	{ "master-0-files-only-json",
	  "", { "VC_TASK_INDEX=0", "VK_TASK_INDEX=0", "HOSTNAME=myjob-master-0" }, ROOT, { "resolve", "--format", "json" },
	  "{\"cluster\": " ALL ", \"task\": {\"type\": \"master\", \"index\": 0}, \"master\": \"myjob-master-0.myjob:2222\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "no-env-plugin-host-name-places-it",
	  "port = 23456;", { "HOSTNAME=myjob-param-server-0" }, ROOT, { "master" },
	  "myjob-param-server-0.myjob:23456\n",
	  "", CR_OK },
	{ "fqdn-host-name",
	  "", { HOSTS_ENV, "VC_TASK_INDEX=2", "HOSTNAME=myjob-worker-2.myjob.default.svc.cluster.local" }, ROOT, { "resolve" },
	  "{\"cluster\": " ALL ", \"task\": {\"type\": \"worker\", \"index\": 2}}\n",
	  "", CR_OK },
	{ "tasks-option-variables-only",
	  "tasks = [\"worker\", \"master\"]; hosts_dir = \"/nonexistent\";",
	  { HOSTS_ENV, "VK_TASK_INDEX=0", "HOSTNAME=myjob-worker-0" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"worker\": [" W "], \"master\": [" M "]}, \"task\": {\"type\": \"worker\", \"index\": 0}}\n",
	  "", CR_OK },
	{ "one-task-template-hostname-index-places-it",
	  "tasks = [\"worker\"];", { W_ENV, "VC_TASK_INDEX=2", "HOSTNAME=trainer" }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [" W "]}, \"task\": {\"type\": \"worker\", \"index\": 2}}\n",
	  "", CR_OK },
	{ "blank-lines-and-blanks-skipped",
	  "tasks = [\"blank\"]; hosts_dir = \"/bad\";", { "VC_TASK_INDEX=1", "HOSTNAME=myjob-worker-1" }, ROOT, { "resolve" },
	  "{\"cluster\": {\"blank\": [\"myjob-worker-0.myjob:2222\", \"myjob-worker-1.myjob:2222\"]}, \"task\": {\"type\": \"blank\", \"index\": 1}}\n",
	  "", CR_OK },
	{ "index-not-below-hosts",
	  ENV_ONLY, { HOSTS_ENV, "VC_TASK_INDEX=5", "HOSTNAME=myjob-worker-1" }, NULL, { "resolve" },
	  "",
	  R "VC_TASK_INDEX=5 is not below the 3 hosts of VC_WORKER_HOSTS", CR_ERR_PARSE },
	{ "one-task-index-not-below-hosts",
	  "tasks = [\"worker\"];", { W_ENV, "VC_TASK_INDEX=3", "HOSTNAME=trainer" }, NULL, { "resolve" },
	  "",
	  R "VC_TASK_INDEX=3 is not below the 3 hosts of VC_WORKER_HOSTS", CR_ERR_PARSE },
	{ "index-disagrees-with-host-name",
	  ENV_ONLY, { HOSTS_ENV, "VC_TASK_INDEX=2", "HOSTNAME=myjob-worker-1" }, NULL, { "resolve" },
	  "",
	  R "VC_TASK_INDEX=2, but this pod (HOSTNAME myjob-worker-1) is worker 1 of VC_WORKER_HOSTS", CR_ERR_PARSE },
	{ "num-not-the-hosts-count",
	  ENV_ONLY, { HOSTS_ENV, "VC_WORKER_NUM=4", "VC_TASK_INDEX=0", "HOSTNAME=myjob-worker-0" }, NULL, { "resolve" },
	  "",
	  R "VC_WORKER_NUM=4, but VC_WORKER_HOSTS lists 3 hosts", CR_ERR_PARSE },
	{ "num-not-a-number",
	  ENV_ONLY, { HOSTS_ENV, "VC_MASTER_NUM=one", "VC_TASK_INDEX=0", "HOSTNAME=myjob-worker-0" }, NULL, { "resolve" },
	  "",
	  R "VC_MASTER_NUM=\"one\" is not a non-negative integer", CR_ERR_PARSE },
	{ "index-undefined",
	  ENV_ONLY, { HOSTS_ENV, "VC_TASK_INDEX=undefined", "HOSTNAME=myjob-worker-0" }, NULL, { "resolve" },
	  "",
	  R "VC_TASK_INDEX=\"undefined\" is not a non-negative integer", CR_ERR_PARSE },
	{ "vc-and-vk-index-differ",
	  ENV_ONLY, { HOSTS_ENV, "VC_TASK_INDEX=0", "VK_TASK_INDEX=1", "HOSTNAME=myjob-worker-0" }, NULL, { "resolve" },
	  "",
	  R "VC_TASK_INDEX=0 and VK_TASK_INDEX=1 differ", CR_ERR_PARSE },
	{ "host-list-entry-not-a-host",
	  "tasks = [\"worker\"];", { "VC_WORKER_HOSTS=myjob-worker-0.myjob,,myjob worker 1", "VC_TASK_INDEX=0" }, NULL, { "resolve" },
	  "",
	  R "VC_WORKER_HOSTS: entry 3: \"myjob worker 1\" is not a host name", CR_ERR_PARSE },
	{ "host-list-repeated-host",
	  "tasks = [\"worker\"];", { "VC_WORKER_HOSTS=myjob-worker-0.myjob,myjob-worker-1.myjob,myjob-worker-0.myjob", "VC_TASK_INDEX=0" }, NULL, { "resolve" },
	  "",
	  R "VC_WORKER_HOSTS: entry 3: \"myjob-worker-0.myjob\" again", CR_ERR_PARSE },
	{ "host-file-line-not-a-host",
	  "tasks = [\"worker\"]; hosts_dir = \"/bad\";", { "VC_TASK_INDEX=0" }, ROOT, { "resolve" },
	  "",
	  R "/bad/worker.host:2: \"myjob worker 1\" is not a host name", CR_ERR_PARSE },
	{ "host-file-missing",
	  "tasks = [\"master\", \"ps\"]; hosts_dir = \"/etc/volcano\";", { "VC_TASK_INDEX=0", "HOSTNAME=myjob-master-0" }, ROOT, { "resolve" },
	  "",
	  R "VC_PS_HOSTS is not set, and cannot read /etc/volcano/ps.host: No such file or directory", CR_ERR_NOT_FOUND },
	{ "several-tasks-host-name-unknown-declines",
	  "", { HOSTS_ENV, "VC_TASK_INDEX=0", "HOSTNAME=trainer" }, ROOT, { "resolve" },
	  "",
	  "no resolver applies here (declined: volcano)", CR_DECLINED },
	{ "tasks-unknown-declines",
	  "", { "VC_TASK_INDEX=0", "HOSTNAME=myjob-worker-0" }, NULL, { "resolve" },
	  "",
	  "no resolver applies here (declined: volcano)", CR_DECLINED },
	{ "declines-outside-volcano",
	  "", { "HOSTNAME=myjob-worker-0", "KUBERNETES_SERVICE_HOST=10.0.0.1" }, NULL, { "probe" },
	  "",
	  "not in a Volcano job: VC_TASK_INDEX and VK_TASK_INDEX are not set and /etc/volcano has no <task>.host file", CR_DECLINED },
	{ "tasks-option-not-a-name",
	  "tasks = [\"worker\", \"two words\"];", { "VC_TASK_INDEX=0" }, NULL, { "resolve" },
	  "",
	  "resolver 'volcano' (@PLUGIN@): create failed: (string):1: tasks: \"two words\" is not a Volcano task name", CR_ERR_CONFIG },
	{ NULL },
};

#define GEN "@BUILD@/tests/plugins/volcano/gen"
static const thc_case generated[] = {
	{ "host-file-fifo",
	  "tasks = [\"worker\"]; hosts_dir = \"/fifo\";", { "VC_TASK_INDEX=0", "HOSTNAME=myjob-worker-0" }, GEN, { "resolve" },
	  "",
	  R "VC_WORKER_HOSTS is not set, and cannot read /fifo/worker.host: not a regular file", CR_ERR_IO },
	{ "million-hosts-refused",
	  "hosts_dir = \"/huge\";", { "VC_TASK_INDEX=0", "HOSTNAME=myjob-worker-0" }, GEN, { "resolve" },
	  "",
	  R "/huge/worker.host lists more than 262144 hosts", CR_ERR_PARSE },
	{ "hundred-thousand-hosts-last-pod",
	  "hosts_dir = \"/big\";", { "VC_TASK_INDEX=99999", "HOSTNAME=myjob-worker-99999" }, GEN, { "master" },
	  "myjob-worker-99999.myjob:2222\n",
	  "", CR_OK },
	{ NULL },
};
/* clang-format on */

static void write_hosts(const char *dir, unsigned n)
{
	g_autofree char *path = g_build_filename(dir, "worker.host", NULL);
	FILE *f;

	g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
	f = fopen(path, "w");
	g_assert_nonnull(f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%smyjob-worker-%u.myjob", i > 0 ? "\n" : "", i);
	g_assert_cmpint(fclose(f), ==, 0);
}

/* The generated tree: fifo/worker.host (a FIFO), huge/worker.host (10^6
 * hosts), big/worker.host (100,000). */
static void write_generated(void)
{
	const char *build = g_getenv("CR_TEST_BUILD_DIR");
	g_autofree char *gen =
		g_build_filename(build ? build : ".", "tests/plugins/volcano/gen", NULL);
	g_autofree char *fdir = g_build_filename(gen, "fifo", NULL);
	g_autofree char *fifo = g_build_filename(fdir, "worker.host", NULL);
	g_autofree char *huge = g_build_filename(gen, "huge", NULL);
	g_autofree char *big = g_build_filename(gen, "big", NULL);

	g_assert_cmpint(g_mkdir_with_parents(fdir, 0755), ==, 0);
	(void)g_unlink(fifo);
	g_assert_cmpint(mkfifo(fifo, 0644), ==, 0);
	write_hosts(huge, 1000000);
	write_hosts(big, 100000);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("volcano", "resolvers/volcano.so", cases);
	write_generated();
	thc_add_cases("volcano", "resolvers/volcano.so", generated);
	return g_test_run();
}
