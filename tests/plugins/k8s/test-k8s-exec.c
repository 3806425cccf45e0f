/* SPDX-License-Identifier: MIT */
/*
 * test-k8s-exec.c - k8s.so's kubeconfig `exec` credential plugin through
 * cr-testhost's scripted spawn: the command, its args and environment
 * (the kubeconfig's env and KUBERNETES_EXEC_INFO) as kubectl passes them,
 * the token it prints used as the bearer token, and every way it can fail
 * with the message naming the command and never a secret.
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define SERVER "https://api.test:6443"
#define PODS SERVER "/api/v1/namespaces/train/pods?labelSelector=job-name%3Dworker&limit=500"
#define TOKEN "exec-t0ken-v1"
#define CRED(v, status)                                                                            \
	"{\"apiVersion\":\"client.authentication.k8s.io/" v "\",\"kind\":\"ExecCredential\","      \
	"\"status\":" status "}"
#define INFO_V1                                                                                    \
	"KUBERNETES_EXEC_INFO={\"apiVersion\":\"client.authentication.k8s.io/v1\","                \
	"\"kind\":\"ExecCredential\",\"spec\":{\"interactive\":false}}"
#define WHAT "resolver 'k8s': exec credential plugin './bin/get-token' (user 'u'): "

static const char kubeconfig_fmt[] =
	"apiVersion: v1\nkind: Config\ncurrent-context: c\n"
	"clusters:\n- name: k\n  cluster:\n    server: " SERVER "\n"
	"    certificate-authority-data: Q0E=\n"
	"contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n    namespace: train\n"
	"users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/%s\n"
	"      command: %s\n      args:\n      - %s\n"
	"      env:\n      - name: FOO\n        value: bar\n"
	"      installHint: install get-token\n      interactiveMode: Never\n";

typedef struct exec_case {
	const char *name;
	const char *api_version, *command, *arg; /* of the kubeconfig's exec */
	const char *config;                      /* extra k8s options */
	enum {
		EXITS,
		TIMES_OUT,
		CANNOT_START,
		NOT_RUN
	} answer;
	int exit_status;
	const char *out, *err; /* CANNOT_START: err is the reason */
	cr_status status;
	const char *message;  /* resolve's, or its output on CR_OK */
	const char *warnings; /* warning lines logged */
} exec_case;

/* clang-format off */
static const exec_case cases[] = {
	{ "v1-token", "v1", "./bin/get-token", "v1", "", EXITS, 0, CRED("v1", "{\"token\":\"" TOKEN "\"}"),
	  "", CR_OK,
	  "{\"cluster\": {\"worker\": []}, \"rpc_layer\": \"grpc\", \"master\": \"\", "
	  "\"num_accelerators\": {}}\n",
	  "" },
	{ "fails-stderr-logged", "v1", "./bin/get-token", "fail", "", EXITS, 3, "",
	  "login required\n\n", CR_ERR_AUTH, WHAT "exited with status 3",
	  "resolver 'k8s': exec credential plugin './bin/get-token' (user 'u'): login required\n" },
	{ "bad-json", "v1", "./bin/get-token", "v1", "", EXITS, 0, "{\"apiVersion\": ", "",
	  CR_ERR_PARSE,
	  WHAT "invalid JSON at line 1, column 16 (offset 15): unexpected end of data", "" },
	{ "wrong-kind", "v1", "./bin/get-token", "v1", "", EXITS, 0,
	  "{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\"}", "",
	  CR_ERR_AUTH,
	  WHAT "expected kind ExecCredential, apiVersion \"client.authentication.k8s.io/v1\"; got "
	       "\"ExecCredential\", \"client.authentication.k8s.io/v1beta1\"",
	  "" },
	{ "timeout", "v1", "./bin/get-token", "v1", "exec_timeout = 0.5;", TIMES_OUT, 0, NULL, NULL,
	  CR_ERR_TIMEOUT, WHAT "no answer after 0.5 s (exec_timeout); killed", "" },
	{ "output-over-1MiB", "v1", "./bin/get-token", "v1", "", EXITS, 0, NULL, "", CR_ERR_AUTH,
	  WHAT "more than 1048576 bytes of output", "" },
	{ "missing-command", "v1", "./bin/get-token", "v1", "", CANNOT_START, 0, NULL,
	  "Failed to execute child process \"get-token\" (No such file or directory)", CR_ERR_AUTH,
	  WHAT "Failed to execute child process \"get-token\" (No such file or directory): install "
	       "get-token",
	  "" },
	{ "v1alpha1-refused", "v1alpha1", "./bin/get-token", "v1", "", NOT_RUN, 0, NULL, NULL,
	  CR_ERR_UNSUPPORTED,
	  WHAT "apiVersion \"client.authentication.k8s.io/v1alpha1\" is not supported (use "
	       "client.authentication.k8s.io/v1 or v1beta1)",
	  "" },
	{ NULL },
};
/* clang-format on */

static char *warning_lines(cr_testhost *th)
{
	GString *s = g_string_new(NULL);
	cr_log_level level;
	const char *line;

	for (size_t i = 0; (line = cr_testhost_log_line(th, i, &level)) != NULL; i++)
		if (level <= CR_LOG_WARNING)
			g_string_append_printf(s, "%s\n", line);
	return g_string_free(s, FALSE);
}

static void script(cr_testhost *th, const exec_case *c)
{
	const char *argv[] = { "/kube/./bin/get-token", c->arg, NULL };
	const char *env[] = { "FOO=bar", INFO_V1, NULL };
	char *big = NULL;
	cr_error err = CR_ERROR_INIT;

	if (c->answer == NOT_RUN)
		return;
	g_assert_cmpint(cr_testhost_expect_spawn(th, argv, env, &err), ==, CR_OK);
	if (c->answer == TIMES_OUT) {
		g_assert_cmpint(cr_testhost_spawn_timeout(th, &err), ==, CR_OK);
	} else if (c->answer == CANNOT_START) {
		g_assert_cmpint(cr_testhost_spawn_fail(th, c->err, &err), ==, CR_OK);
	} else {
		if (c->out == NULL) {
			big = g_malloc((1u << 20) + 2);
			memset(big, 'x', (1u << 20) + 1);
			big[(1u << 20) + 1] = '\0';
		}
		g_assert_cmpint(cr_testhost_spawn_exit(th, c->exit_status,
						       big != NULL ? big : c->out, c->err, &err),
				==, CR_OK);
	}
	if (c->status == CR_OK) {
		const char *want[] = { "Authorization: Bearer " TOKEN, NULL };

		g_assert_cmpint(cr_testhost_expect(th, "GET", PODS, want, &err), ==, CR_OK);
		g_assert_cmpint(cr_testhost_respond(th, 200, NULL,
						    "{\"kind\": \"PodList\", \"metadata\": "
						    "{\"resourceVersion\": \"1\"}, \"items\": []}",
						    &err),
				==, CR_OK);
	}
	g_assert_cmpstr(err.message, ==, "");
	g_free(big);
}

static void check_exec(gconstpointer data)
{
	const exec_case *c = data;
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	char *kc = g_strdup_printf(kubeconfig_fmt, c->api_version, c->command, c->arg);
	char *config = g_strdup_printf("kubeconfig = \"/kube/config\"; jobs = { worker = "
				       "[ \"job-name=worker\" ]; }; %s",
				       c->config);
	const char *out = NULL;
	char *warnings;
	cr_status st;

	g_assert_cmpint(cr_testhost_load(th, g_getenv("CR_K8S_PLUGIN"), config, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_add_file(th, "/kube/config", kc, (size_t)-1, &err), ==, CR_OK);
	script(th, c);
	st = cr_testhost_resolve(th, "json", &out, &err);
	g_assert_cmpint(st, ==, c->status);
	if (c->status == CR_OK)
		g_assert_cmpstr(out, ==, c->message);
	else if (c->message != NULL)
		g_assert_cmpstr(err.message, ==, c->message);
	warnings = warning_lines(th);
	g_assert_cmpstr(warnings, ==, c->warnings);
	err.message[0] = '\0';
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	g_assert_cmpstr(err.message, ==, "");
	g_assert_null(strstr(cr_testhost_logs(th), TOKEN));
	g_free(warnings);
	g_free(config);
	g_free(kc);
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (const exec_case *c = cases; c->name != NULL; c++) {
		char *path = g_strdup_printf("/k8s/exec/%s", c->name);

		g_test_add_data_func(path, c, check_exec);
		g_free(path);
	}
	return g_test_run();
}
