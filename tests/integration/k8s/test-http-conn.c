/* SPDX-License-Identifier: MIT */
/*
 * test-http-conn.c - the host's http_request keeps connections per plugin
 * instance, resets every per-request option, and never lets a connection
 * made with one set of TLS credentials serve a request with another.
 *
 *   test-http-conn DIR    (DIR: a running k8s fixture's directory)
 *
 * Makes the requests of the table below in order, each as
 * `GET /version?case=NAME`, and prints one line per request:
 * "NAME: STATUS BODY-BYTES" or "NAME: error: MESSAGE", then the debug log.
 * test_http_conn.py runs it against the fixture and checks the lines and,
 * from the fixture's request log, which requests shared a connection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/pipeline-private.h"

#define TOKEN "Authorization: Bearer fixture-token-0123456789"

enum ca {
	CA_NONE,
	CA_FILE,
	CA_PEM,
	CA_COPY
};
enum cert {
	CERT_NONE,
	CERT_FILE,
	CERT_PEM
};

typedef struct http_case {
	const char *name;
	char inst; /* 'a', 'b': instance; '-': no instance (NULL ctx) */
	enum ca ca;
	enum cert cert;
	bool token;
	bool insecure;
	const char *method;
	bool rewrite_copy; /* rewrite DIR/ca-copy.crt before the request */
} http_case;

/* clang-format off */
static const http_case cases[] = {
	{ "token-1", 'a', CA_FILE, CERT_NONE, true, false, "GET", false },
	{ "token-2", 'a', CA_FILE, CERT_NONE, true, false, "GET", false },
	{ "head", 'a', CA_FILE, CERT_NONE, true, false, "HEAD", false },
	{ "after-head", 'a', CA_FILE, CERT_NONE, true, false, "GET", false },
	{ "header-dropped", 'a', CA_FILE, CERT_NONE, false, false, "GET", false },
	{ "cert-file-1", 'a', CA_FILE, CERT_FILE, false, false, "GET", false },
	{ "cert-file-2", 'a', CA_FILE, CERT_FILE, false, false, "GET", false },
	{ "cert-gone", 'a', CA_FILE, CERT_NONE, false, false, "GET", false },
	{ "cert-pem", 'a', CA_PEM, CERT_PEM, false, false, "GET", false },
	{ "cert-pem-gone", 'a', CA_PEM, CERT_NONE, false, false, "GET", false },
	{ "other-instance", 'b', CA_FILE, CERT_NONE, true, false, "GET", false },
	{ "ca-copy-1", 'a', CA_COPY, CERT_NONE, true, false, "GET", false },
	{ "ca-copy-2", 'a', CA_COPY, CERT_NONE, true, false, "GET", false },
	{ "ca-copy-rewritten", 'a', CA_COPY, CERT_NONE, true, false, "GET", true },
	{ "insecure", 'a', CA_NONE, CERT_NONE, true, true, "GET", false },
	{ "verify-again", 'a', CA_NONE, CERT_NONE, true, false, "GET", false },
	{ "no-instance", '-', CA_FILE, CERT_NONE, true, false, "GET", false },
	{ "head-large", 'b', CA_FILE, CERT_NONE, true, false, "HEAD", false },
	{ NULL, 0, CA_NONE, CERT_NONE, false, false, NULL, false },
};
/* clang-format on */

static void on_log(cr_log_level level, const char *source, const char *message, void *data)
{
	g_string_append_printf(data, "log %d %s: %s\n", (int)level, source ? source : "-", message);
}

static char *slurp(const char *path)
{
	char *text = NULL;

	if (!g_file_get_contents(path, &text, NULL, NULL)) {
		fprintf(stderr, "cannot read %s\n", path);
		return g_strdup("");
	}
	return text;
}

static void run_case(const http_case *tc, const char *dir, int port, cr_instance *a, cr_instance *b)
{
	char *ca_file = g_build_filename(dir, "ca.crt", NULL);
	char *ca_copy = g_build_filename(dir, "ca-copy.crt", NULL);
	char *cert_file = g_build_filename(dir, "client.crt", NULL);
	char *key_file = g_build_filename(dir, "client.key", NULL);
	char *ca_pem = slurp(ca_file), *cert_pem = slurp(cert_file), *key_pem = slurp(key_file);
	char *url = g_strdup_printf("https://127.0.0.1:%d/version?case=%s", port, tc->name);
	const char *headers[] = { TOKEN, NULL };
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	cr_http_response *resp = NULL;
	cr_error err = { 0 };
	cr_plugin_ctx *pctx = tc->inst == 'a' ? &a->pctx : tc->inst == 'b' ? &b->pctx : NULL;
	size_t len = 0;

	if (tc->rewrite_copy) {
		/* same bytes, but a new file (another inode, a later mtime) */
		char *tmp = g_strconcat(ca_copy, ".new", NULL);

		g_usleep(20000);
		g_file_set_contents(tmp, ca_pem, -1, NULL);
		rename(tmp, ca_copy);
		g_free(tmp);
	}
	req.method = tc->method;
	req.url = url;
	req.headers = tc->token ? headers : NULL;
	req.ca_file = tc->ca == CA_FILE ? ca_file : tc->ca == CA_COPY ? ca_copy : NULL;
	req.ca_pem = tc->ca == CA_PEM ? ca_pem : NULL;
	req.cert_file = tc->cert == CERT_FILE ? cert_file : NULL;
	req.key_file = tc->cert == CERT_FILE ? key_file : NULL;
	req.cert_pem = tc->cert == CERT_PEM ? cert_pem : NULL;
	req.key_pem = tc->cert == CERT_PEM ? key_pem : NULL;
	req.insecure = tc->insecure;
	/* 10 s, scaled by test_http_conn.py with the tool it runs under. */
	req.timeout_ms = getenv("CR_TEST_TIMEOUT_MS") ? atol(getenv("CR_TEST_TIMEOUT_MS")) : 10000;
	req.connect_timeout_ms = req.timeout_ms;
	if (http_perform(pctx, &req, &resp, &err) == CR_OK) {
		http_body(resp, &len);
		printf("%s: %ld %s\n", tc->name, http_status(resp), len > 0 ? "body" : "no-body");
	} else {
		printf("%s: error %s: %s\n", tc->name, cr_strerror(err.code), err.message);
	}
	http_response_free(resp);
	g_free(url);
	g_free(ca_pem);
	g_free(cert_pem);
	g_free(key_pem);
	g_free(ca_file);
	g_free(ca_copy);
	g_free(cert_file);
	g_free(key_file);
}

int main(int argc, char **argv)
{
	GString *log = g_string_new(NULL);
	cr_context *ctx;
	cr_instance *a, *b;
	char *port_text, *path, *ca, *copy;
	int port;

	if (argc != 2) {
		fprintf(stderr, "usage: test-http-conn FIXTURE-DIR\n");
		return 2;
	}
	path = g_build_filename(argv[1], "port", NULL);
	port_text = slurp(path);
	port = atoi(port_text);
	g_free(path);
	g_free(port_text);
	ca = g_build_filename(argv[1], "ca.crt", NULL);
	copy = g_build_filename(argv[1], "ca-copy.crt", NULL);
	port_text = slurp(ca);
	g_file_set_contents(copy, port_text, -1, NULL);
	g_free(port_text);
	g_free(ca);
	g_free(copy);

	/* Linked statically: no library next to which the module lies. */
	http_module_set_path(CR_HTTP_MODULE_BUILD_PATH);
	ctx = cr_context_new(NULL);
	cr_context_set_log_handler(ctx, on_log, log);
	cr_context_set_log_level(ctx, CR_LOG_DEBUG);
	a = instance_new(ctx, CR_PLUGIN_RESOLVER, NULL, "a", NULL);
	b = instance_new(ctx, CR_PLUGIN_RESOLVER, NULL, "b", NULL);
	for (const http_case *tc = cases; tc->name != NULL; tc++)
		run_case(tc, argv[1], port, a, b);
	fputs(log->str, stdout);
	instance_free(a);
	instance_free(b);
	cr_context_free(ctx);
	g_string_free(log, TRUE);
	return 0;
}
