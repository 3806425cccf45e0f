/* SPDX-License-Identifier: MIT */
/*
 * test-k8s-wait.c - k8s.so's not_running = "wait" through cr-testhost, whose
 * clock advances when the plugin sleeps: a round every wait_interval logged
 * at info, every 10 s of waiting a warning naming the pods still not
 * running, then the timeout naming one. Nothing is contacted.
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define SERVER "https://api.test:6443"
#define PODS SERVER "/api/v1/namespaces/train/pods?labelSelector=job-name%3Dworker&limit=500"
#define PENDING                                                                                    \
	"{\"kind\": \"PodList\", \"metadata\": {\"resourceVersion\": \"1\"}, \"items\": ["         \
	"{\"metadata\": {\"name\": \"worker-0\", \"namespace\": \"train\"}, "                      \
	"\"status\": {\"phase\": \"Pending\"}}]}"

static const char kubeconfig[] =
	"apiVersion: v1\nkind: Config\ncurrent-context: c\n"
	"clusters:\n- name: k\n  cluster:\n    server: " SERVER "\n"
	"    certificate-authority-data: Q0E=\n"
	"contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n    namespace: train\n"
	"users:\n- name: u\n  user:\n    token: t0ken\n";

/* The captured lines down to info ("LEVEL: TEXT\n"), debug left out. */
static char *logs_to_info(cr_testhost *th)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	GString *s = g_string_new(NULL);
	cr_log_level level;
	const char *line;

	for (size_t i = 0; (line = cr_testhost_log_line(th, i, &level)) != NULL; i++)
		if (level <= CR_LOG_INFO)
			g_string_append_printf(s, "%s: %s\n", names[level], line);
	return g_string_free(s, FALSE);
}

static void check_wait_says_what_is_missing(void)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	const char *auth[] = { "Authorization: Bearer t0ken", NULL };
	const char *out = NULL;
	char *logs;

	g_assert_cmpint(cr_testhost_load(th, g_getenv("CR_K8S_PLUGIN"),
					 "kubeconfig = \"/kube/config\"; not_running = \"wait\"; "
					 "wait_interval = 5; wait_timeout = 20; "
					 "jobs = { worker = [ \"job-name=worker\" ]; };",
					 &err),
			==, CR_OK);
	g_assert_cmpint(cr_testhost_add_file(th, "/kube/config", kubeconfig, (size_t)-1, &err), ==,
			CR_OK);
	for (int i = 0; i < 5; i++) {
		g_assert_cmpint(cr_testhost_expect(th, "GET", PODS, auth, &err), ==, CR_OK);
		g_assert_cmpint(cr_testhost_respond(th, 200, NULL, PENDING, &err), ==, CR_OK);
	}
	g_assert_cmpint(cr_testhost_resolve(th, "json", &out, &err), ==, CR_ERR_TIMEOUT);
	g_assert_cmpstr(err.message, ==,
			"resolver 'k8s': Pod \"worker-0\" is not running; phase: \"Pending\" (1 "
			"pods not running after waiting 20.0 s)");
	logs = logs_to_info(th);
	g_assert_cmpstr(logs, ==,
			"info: resolver 'k8s': waiting for 1 pods to run (pod \"worker-0\" is "
			"Pending)\n"
			"info: resolver 'k8s': waiting for 1 pods to run (pod \"worker-0\" is "
			"Pending)\n"
			"warning: resolver 'k8s': waiting 10 s for 1 pods to run (pod \"worker-0\" "
			"is Pending; wait_timeout 20 s)\n"
			"info: resolver 'k8s': waiting for 1 pods to run (pod \"worker-0\" is "
			"Pending)\n");
	err.message[0] = '\0';
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	g_assert_cmpstr(err.message, ==, "");
	g_free(logs);
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	g_test_add_func("/k8s/wait/says-what-is-missing", check_wait_says_what_is_missing);
	return g_test_run();
}
