/* SPDX-License-Identifier: MIT */
/*
 * test-testhost.c - cr-testhost itself: the scripted HTTP responder checks
 * method, URL, headers and body and never prints a credential; unconsumed
 * exchanges are reported; the environment and the file system are the
 * test's; log lines are captured; load errors are the host's.
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define URL "http://127.0.0.1:8080/v1/hosts"
#define OTHER "http://127.0.0.1:8080/v1/other"
#define TOKEN "s3cr3t-t0ken"
#define CONF "url = \"" URL "\"; token = \"" TOKEN "\";"
#define AUTH "Authorization: Bearer " TOKEN
#define HOSTS "{\"hosts\": [\"h0:2222\", \"h1:2222\"]}"
#define OUT_WORKER                                                                                 \
	"{\"cluster\": {\"worker\": [\"h0:2222\", \"h1:2222\"]}, \"master\": \"\", "               \
	"\"num_accelerators\": {}}\n"

/* One scripted exchange; @error != CR_OK answers with a transport failure. */
typedef struct exchange {
	const char *method, *url;
	const char *want[3];
	const char *want_body;
	long status;
	const char *headers[3];
	const char *body;
	cr_status error;
} exchange;

typedef struct http_case {
	const char *name;
	const char *config; /* the httpget group */
	exchange script[3];
	cr_status status; /* of resolve */
	const char *out;  /* resolve's output, NULL on failure */
	const char *err;  /* resolve's message */
	cr_status verify;
	const char *verify_err;
} http_case;

#define OK_EXCHANGE                                                                                \
	{                                                                                          \
		"GET", URL, { AUTH, "accept: application/json" }, NULL, 200, { NULL }, HOSTS,      \
			CR_OK                                                                      \
	}

/* clang-format off */
static const http_case http_cases[] = {
	{ "answered", CONF, { OK_EXCHANGE }, CR_OK, OUT_WORKER, "", CR_OK, "" },
	{ "response-header", CONF,
	  { { "GET", URL, { AUTH }, NULL, 200, { "X-Cluster-Job: ps", "Content-Type: application/json" },
	      HOSTS, CR_OK } },
	  CR_OK,
	  "{\"cluster\": {\"ps\": [\"h0:2222\", \"h1:2222\"]}, \"master\": \"\", \"num_accelerators\": {}}\n",
	  "", CR_OK, "" },
	{ "post-body", CONF " method = \"POST\"; body = \"{\\\"q\\\": 1}\";",
	  { { "POST", URL, { AUTH }, "{\"q\": 1}", 200, { NULL }, HOSTS, CR_OK } }, CR_OK, OUT_WORKER,
	  "", CR_OK, "" },
	{ "http-error-status", CONF, { { "GET", URL, { AUTH }, NULL, 503, { NULL }, "busy", CR_OK } },
	  CR_ERR_BACKEND, NULL, "resolver 'httpget': GET " URL ": HTTP 503", CR_OK, "" },
	{ "transport-error", CONF,
	  { { "GET", URL, { NULL }, NULL, 0, { NULL }, "connection refused", CR_ERR_NETWORK } },
	  CR_ERR_NETWORK, NULL, "resolver 'httpget': GET " URL ": connection refused", CR_OK, "" },
	{ "wrong-method", CONF, { { "POST", URL, { NULL }, NULL, 200, { NULL }, HOSTS, CR_OK } },
	  CR_ERR_NETWORK, NULL, "cr-testhost: request 1: expected POST " URL ", got GET " URL,
	  CR_ERR_NETWORK, "cr-testhost: request 1: expected POST " URL ", got GET " URL },
	{ "wrong-url", CONF, { { "GET", OTHER, { NULL }, NULL, 200, { NULL }, HOSTS, CR_OK } },
	  CR_ERR_NETWORK, NULL, "cr-testhost: request 1: expected GET " OTHER ", got GET " URL,
	  CR_ERR_NETWORK, "cr-testhost: request 1: expected GET " OTHER ", got GET " URL },
	{ "missing-header", CONF,
	  { { "GET", URL, { AUTH, "X-Trace: 1" }, NULL, 200, { NULL }, HOSTS, CR_OK } }, CR_ERR_NETWORK,
	  NULL, "cr-testhost: request 1: GET " URL ": expected header 'X-Trace: 1', got none",
	  CR_ERR_NETWORK, "cr-testhost: request 1: GET " URL ": expected header 'X-Trace: 1', got none" },
	{ "wrong-token-redacted", CONF,
	  { { "GET", URL, { "Authorization: Bearer other-secret-value" }, NULL, 200, { NULL }, HOSTS,
	      CR_OK } },
	  CR_ERR_NETWORK, NULL,
	  "cr-testhost: request 1: GET " URL ": expected header 'Authorization: Bearer (secret, 18 bytes)', "
	  "got 'Authorization: Bearer (secret, 12 bytes)'",
	  CR_ERR_NETWORK,
	  "cr-testhost: request 1: GET " URL ": expected header 'Authorization: Bearer (secret, 18 bytes)', "
	  "got 'Authorization: Bearer (secret, 12 bytes)'" },
	{ "no-token-sent", "url = \"" URL "\";",
	  { { "GET", URL, { "X-Api-Key: k-123" }, NULL, 200, { NULL }, HOSTS, CR_OK } }, CR_ERR_NETWORK,
	  NULL, "cr-testhost: request 1: GET " URL ": expected header 'X-Api-Key: (secret, 5 bytes)', got none",
	  CR_ERR_NETWORK,
	  "cr-testhost: request 1: GET " URL ": expected header 'X-Api-Key: (secret, 5 bytes)', got none" },
	{ "wrong-body", CONF " method = \"POST\"; body = \"{}\";",
	  { { "POST", URL, { NULL }, "{\"q\": 1}", 200, { NULL }, HOSTS, CR_OK } }, CR_ERR_NETWORK, NULL,
	  "cr-testhost: request 1: POST " URL ": expected body '{\"q\": 1}', got '{}'", CR_ERR_NETWORK,
	  "cr-testhost: request 1: POST " URL ": expected body '{\"q\": 1}', got '{}'" },
	/* A form's credential fields are shown by length only; a page token is
	 * not a credential. */
	{ "wrong-form-body-redacted",
	  CONF " method = \"POST\"; body = \"grant_type=jwt&assertion=eyJ.sent.sig&NextToken=p2\";",
	  { { "POST", URL, { NULL }, "grant_type=jwt&assertion=eyJ.want&client_secret=s3", 200,
	      { NULL }, HOSTS, CR_OK } },
	  CR_ERR_NETWORK, NULL,
	  "cr-testhost: request 1: POST " URL ": expected body 'grant_type=jwt&assertion=(secret, 8 bytes)"
	  "&client_secret=(secret, 2 bytes)', got 'grant_type=jwt&assertion=(secret, 12 bytes)&NextToken=p2'",
	  CR_ERR_NETWORK,
	  "cr-testhost: request 1: POST " URL ": expected body 'grant_type=jwt&assertion=(secret, 8 bytes)"
	  "&client_secret=(secret, 2 bytes)', got 'grant_type=jwt&assertion=(secret, 12 bytes)&NextToken=p2'" },
	{ "unexpected-request", CONF, { { NULL } }, CR_ERR_NETWORK, NULL,
	  "cr-testhost: request 1: unexpected GET " URL " (the script has 0 requests)", CR_ERR_NETWORK,
	  "cr-testhost: request 1: unexpected GET " URL " (the script has 0 requests)" },
	{ "unconsumed", CONF, { OK_EXCHANGE, { "GET", OTHER, { NULL }, NULL, 200, { NULL }, "", CR_OK } },
	  CR_OK, OUT_WORKER, "", CR_ERR_NOT_FOUND,
	  "cr-testhost: 1 of 2 expected requests were not made; the first: GET " OTHER },
	{ NULL },
};
/* clang-format on */

static char *plugin_path(const char *dir_var, const char *file)
{
	const char *dir = g_getenv(dir_var);

	g_assert_nonnull(dir);
	return g_build_filename(dir, file, NULL);
}

static cr_testhost *load(const char *dir_var, const char *file, const char *config)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	char *path = plugin_path(dir_var, file);

	g_assert_nonnull(th);
	g_assert_cmpstr(err.message, ==, "");
	g_assert_cmpint(cr_testhost_load(th, path, config, &err), ==, CR_OK);
	g_assert_cmpstr(err.message, ==, "");
	g_free(path);
	return th;
}

static void check_http(gconstpointer data)
{
	const http_case *c = data;
	cr_testhost *th = load("CR_TEST_PLUGIN_DIR", "httpget.so", c->config);
	cr_error err = CR_ERROR_INIT;
	const char *out = NULL;

	for (const exchange *x = c->script; x->method != NULL; x++) {
		g_assert_cmpint(cr_testhost_expect(th, x->method, x->url, x->want, &err), ==,
				CR_OK);
		if (x->want_body != NULL)
			g_assert_cmpint(cr_testhost_expect_body(th, x->want_body, &err), ==, CR_OK);
		if (x->error != CR_OK)
			g_assert_cmpint(cr_testhost_respond_error(th, x->error, x->body, &err), ==,
					CR_OK);
		else
			g_assert_cmpint(
				cr_testhost_respond(th, x->status, x->headers, x->body, &err), ==,
				CR_OK);
	}
	g_assert_cmpint(cr_testhost_resolve(th, "json", &out, &err), ==, c->status);
	g_assert_cmpstr(out, ==, c->out);
	g_assert_cmpstr(err.message, ==, c->err);
	err.message[0] = '\0';
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, c->verify);
	g_assert_cmpstr(err.message, ==, c->verify_err);
	/* Neither messages nor logs ever carry a credential. */
	g_assert_null(strstr(cr_testhost_logs(th), TOKEN));
	g_assert_null(strstr(cr_testhost_logs(th), "other-secret-value"));
	cr_testhost_free(th);
}

/* The request is logged at debug level (no headers), the plugin's line at info. */
static void test_logs(void)
{
	cr_testhost *th = load("CR_TEST_PLUGIN_DIR", "httpget.so", CONF);
	cr_error err = CR_ERROR_INIT;
	const char *out = NULL;
	cr_log_level level = CR_LOG_ERROR;

	g_assert_cmpint(cr_testhost_expect(th, "GET", URL, NULL, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_respond(th, 200, NULL, HOSTS, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_resolve(th, NULL, &out, &err), ==, CR_OK);
	g_assert_cmpstr(cr_testhost_logs(th), ==,
			"debug: resolver 'httpget': GET " URL "\n"
			"info: resolver 'httpget': 2 hosts\n"
			"info: resolver 'httpget': resolved (required)\n");
	g_assert_cmpuint(cr_testhost_log_count(th), ==, 3);
	g_assert_cmpstr(cr_testhost_log_line(th, 1, &level), ==, "resolver 'httpget': 2 hosts");
	g_assert_cmpint(level, ==, CR_LOG_INFO);
	g_assert_null(cr_testhost_log_line(th, 3, NULL));
	cr_testhost_clear_logs(th);
	cr_testhost_set_log_level(th, CR_LOG_WARNING);
	g_assert_cmpint(cr_testhost_expect(th, "GET", URL, NULL, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_respond(th, 200, NULL, HOSTS, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_resolve(th, "tf_config", &out, &err), ==, CR_OK);
	g_assert_cmpstr(out, ==, "{\"cluster\": {\"worker\": [\"h0:2222\", \"h1:2222\"]}}\n");
	g_assert_cmpstr(cr_testhost_logs(th), ==, "");
	g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	cr_testhost_free(th);
}

/* The script's own misuse is refused at once. */
static void test_script_misuse(void)
{
	cr_testhost *th = load("CR_TEST_PLUGIN_DIR", "httpget.so", CONF);
	cr_error err = CR_ERROR_INIT;
	const char *bad[] = { "no colon here", NULL };

	g_assert_cmpint(cr_testhost_respond(th, 200, NULL, "", &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr-testhost: no request is expected yet");
	g_assert_cmpint(cr_testhost_expect(th, "GET", URL, bad, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==,
			"cr-testhost: header 'no colon here' is not \"Name: value\"");
	g_assert_cmpint(cr_testhost_expect(th, "GET", URL, NULL, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_respond(th, 200, NULL, "", &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_respond(th, 200, NULL, "", &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr-testhost: GET " URL " is answered already");
	g_assert_cmpint(cr_testhost_expect(th, "GET", OTHER, NULL, &err), ==, CR_OK);
	/* An expectation without an answer fails the request that reaches it. */
	g_assert_cmpint(cr_testhost_expect(th, "GET", URL, NULL, &err), ==, CR_OK);
	cr_testhost_free(th);
}

/* The real environment is hidden unless inherited; NULL hides a variable. */
static void test_environment(void)
{
	cr_testhost *th = load("CR_PLUGIN_BUILD_DIR", "resolvers/tfconfig.so", NULL);
	cr_error err = CR_ERROR_INIT;
	const char *out = NULL;

	g_setenv("TF_CONFIG", "{\"cluster\": {\"real\": [\"r:1\"]}}", TRUE);
	g_assert_cmpint(cr_testhost_resolve(th, "tf_config", &out, &err), ==, CR_DECLINED);
	g_assert_cmpstr(err.message, ==, "no resolver applies here (declined: tfconfig)");
	g_assert_cmpint(cr_testhost_probe(th, &err), ==, CR_DECLINED);
	g_assert_cmpstr(err.message, ==, "TF_CONFIG is not set");
	cr_testhost_inherit_env(th, true);
	g_assert_cmpint(cr_testhost_resolve(th, "tf_config", &out, &err), ==, CR_OK);
	g_assert_cmpstr(out, ==, "{\"cluster\": {\"real\": [\"r:1\"]}}\n");
	g_assert_cmpint(
		cr_testhost_setenv(th, "TF_CONFIG", "{\"cluster\": {\"set\": [\"s:1\"]}}", &err),
		==, CR_OK);
	g_assert_cmpint(cr_testhost_resolve(th, "tf_config", &out, &err), ==, CR_OK);
	g_assert_cmpstr(out, ==, "{\"cluster\": {\"set\": [\"s:1\"]}}\n");
	g_assert_cmpint(cr_testhost_setenv(th, "TF_CONFIG", NULL, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_probe(th, &err), ==, CR_DECLINED);
	g_assert_cmpint(cr_testhost_setenv(th, "A=B", "x", &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr-testhost: invalid variable name 'A=B'");
	g_unsetenv("TF_CONFIG");
	cr_testhost_free(th);
}

/* A TPU host built file by file in the private root, then a fixture root. */
static void test_files(void)
{
	cr_testhost *th = load("CR_PLUGIN_BUILD_DIR", "accelerators/tpu.so", NULL);
	cr_error err = CR_ERROR_INIT;
	const char *out = NULL;
	char *fixture;
	static const char *const dev = "/sys/bus/pci/devices/0000:00:04.0/";

	g_assert_cmpint(cr_testhost_enumerate(th, &out, &err), ==, CR_DECLINED);
	g_assert_cmpstr(err.message, ==, "accelerator 'tpu' declined");
	g_assert_null(out);
	for (const char *const *f =
		     (const char *const[]){ "vendor=0x1ae0\n", "device=0x005e\n", NULL };
	     *f != NULL; f++) {
		char **kv = g_strsplit(*f, "=", 2);
		char *path = g_strconcat(dev, kv[0], NULL);

		g_assert_cmpint(cr_testhost_add_file(th, path, kv[1], (size_t)-1, &err), ==, CR_OK);
		g_free(path);
		g_strfreev(kv);
	}
	g_assert_cmpint(cr_testhost_add_file(th, "/dev/accel0", "", 0, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_add_dir(th, "/dev/vfio", &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_enumerate(th, &out, &err), ==, CR_OK);
	g_assert_cmpstr(
		out, ==,
		"{\"num_accelerators\": {\"TPU\": 1}, \"devices\": [{\"plugin\": \"tpu\", "
		"\"kind\": \"TPU\", "
		"\"vendor\": \"google\", \"model\": \"v4\", \"index\": 0, \"physical_index\": 0, "
		"\"pci_bus_id\": \"0000:00:04.0\"}]}\n");
	g_assert_cmpint(cr_testhost_add_file(th, "relative", "", 0, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr-testhost: 'relative': a path must be absolute");
	g_assert_cmpint(cr_testhost_add_file(th, "/dev/../../x", "", 0, &err), ==,
			CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr-testhost: /dev/../../x: '..' is not allowed");
	fixture = g_build_filename(g_getenv("CR_TEST_SOURCE_DIR"), "tests", "fixtures", "accel",
				   "roots", "tpu-unreadable", NULL);
	g_assert_cmpint(cr_testhost_set_root(th, fixture, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_enumerate(th, &out, &err), ==, CR_ERR_IO);
	g_assert_cmpstr(err.message, ==,
			"accelerator 'tpu': cannot read /sys/bus/pci/devices/0000:00:04.0/vendor: "
			"Is a directory");
	g_assert_cmpint(cr_testhost_add_dir(th, "/x", &err), ==, CR_ERR_INVALID_ARG);
	g_assert_true(g_str_has_prefix(
		err.message, "cr-testhost: /x: files go into the private root, but the root is "));
	g_assert_cmpint(cr_testhost_set_root(th, "not/absolute", &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==,
			"cr-testhost: root 'not/absolute' is not an absolute directory");
	g_assert_cmpint(cr_testhost_set_root(th, NULL, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_enumerate(th, &out, &err), ==, CR_OK);
	g_free(fixture);
	cr_testhost_free(th);
}

/* Loading: the loader's and the schema's own messages. */
static void test_load_errors(void)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	char *simple = plugin_path("CR_PLUGIN_BUILD_DIR", "resolvers/simple.so");
	char *tpu = plugin_path("CR_PLUGIN_BUILD_DIR", "accelerators/tpu.so");
	char *msg;
	const char *out = NULL;

	g_assert_cmpint(cr_testhost_load(th, "/nonexistent/x.so", NULL, &err), ==,
			CR_ERR_NOT_FOUND);
	g_assert_cmpstr(err.message, ==, "plugin /nonexistent/x.so: No such file or directory");
	g_assert_cmpint(cr_testhost_load(th, simple, "cluster = { w = [ \"a\" ] ;\n", &err), ==,
			CR_ERR_CONFIG);
	g_assert_cmpstr(err.message, ==, "(string):3: syntax error");
	g_assert_cmpint(cr_testhost_load(th, simple, "cluster = { };\n clutser = 1;", &err), ==,
			CR_ERR_CONFIG);
	g_assert_cmpstr(
		err.message, ==,
		"(string):2: resolver 'simple': unknown key 'clutser' (did you mean 'cluster'?)");
	g_assert_cmpint(cr_testhost_load(th, simple, "cluster = 1;", &err), ==, CR_ERR_CONFIG);
	g_assert_cmpstr(
		err.message, ==,
		"(string):1: resolver 'simple': key 'cluster' must be a group, not an integer");
	g_assert_cmpint(cr_testhost_resolve(th, NULL, &out, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr-testhost: resolve: no plugin is loaded");
	g_assert_cmpint(cr_testhost_load(th, tpu, "root = \"relative\";", &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_resolve(th, NULL, &out, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr-testhost: resolve: 'tpu' is an accelerator plugin");
	g_assert_cmpint(cr_testhost_probe(th, &err), ==, CR_ERR_CONFIG);
	msg = g_strdup_printf("accelerator 'tpu' (%s): create failed: option 'root' must be an "
			      "absolute path, got 'relative'",
			      tpu);
	g_assert_cmpstr(err.message, ==, msg);
	g_assert_cmpint(cr_testhost_load(th, simple, NULL, &err), ==, CR_ERR_INVALID_ARG);
	g_free(msg);
	msg = g_strdup_printf("cr-testhost: a plugin is loaded already (%s)", tpu);
	g_assert_cmpstr(err.message, ==, msg);
	g_free(msg);
	g_free(simple);
	g_free(tpu);
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (const http_case *c = http_cases; c->name != NULL; c++) {
		char *path = g_strdup_printf("/testhost/http/%s", c->name);

		g_test_add_data_func(path, c, check_http);
		g_free(path);
	}
	g_test_add_func("/testhost/logs", test_logs);
	g_test_add_func("/testhost/script-misuse", test_script_misuse);
	g_test_add_func("/testhost/environment", test_environment);
	g_test_add_func("/testhost/files", test_files);
	g_test_add_func("/testhost/load-errors", test_load_errors);
	return g_test_run();
}
