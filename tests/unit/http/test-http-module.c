/* SPDX-License-Identifier: MIT */
/*
 * test-http-module.c - http.c loads libcr-http.so on the first request.
 * Each case runs in a subprocess (the module is loaded once per process):
 * a missing file, a file that is not a library and a library without the
 * module's entry fail the request with CR_ERR_PLUGIN naming the file; the
 * real module loads and reports a refused connection as the transport does.
 * Requests that would change meaning on the wire (userinfo in the URL, a
 * control byte in a header) are refused before anything is loaded or sent,
 * without echoing the secret.
 */
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "host/host-private.h"

/* One GET to a closed loopback port with the module at @path. */
static cr_status get(const char *path, cr_error *err)
{
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	cr_http_response *resp = NULL;
	cr_status st;

	http_module_set_path(path);
	req.method = "GET";
	req.url = "http://127.0.0.1:9/";
	req.connect_timeout_ms = 2000;
	st = http_perform(NULL, &req, &resp, err);
	g_assert_null(resp);
	return st;
}

typedef struct refused_case {
	const char *url;
	const char *header;
	const char *message;
} refused_case;

/* clang-format off */
static const refused_case refused[] = {
	{ "https://admin:hunter2@127.0.0.1:9/x", NULL,
	  "https://127.0.0.1:9/x: a user name or password in the URL is refused" },
	{ "http://token@127.0.0.1:9/", NULL,
	  "http://127.0.0.1:9/: a user name or password in the URL is refused" },
	{ "https://u:hunter2@127.0.0.1:9/x?sig=hunter3#f", NULL,
	  "https://127.0.0.1:9/x: a user name or password in the URL is refused" },
	{ "http://127.0.0.1:9/a b", NULL, "GET request: the URL holds a blank or control character" },
	{ "http://127.0.0.1:9/a\r\nX: 1", NULL,
	  "GET request: the URL holds a blank or control character" },
	{ "http://127.0.0.1:9/", "Authorization: Bearer hunter2\r\nX-Injected: 1",
	  "GET request: the value of header 'Authorization' holds a control character (CR, LF, ...); not sent" },
	{ "http://127.0.0.1:9/", "Authorization: Bearer hunter2\x01",
	  "GET request: the value of header 'Authorization' holds a control character (CR, LF, ...); not sent" },
	{ "http://127.0.0.1:9/", "no colon here", "GET request: header 1 is not \"Name: value\"" },
	{ "http://127.0.0.1:9/", "Bad\nName: x", "GET request: header 1 is not \"Name: value\"" },
};
/* clang-format on */

static void test_refused(const void *data)
{
	const refused_case *c = data;
	const char *headers[] = { c->header, NULL };
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	cr_http_response *resp = NULL;
	cr_error err = CR_ERROR_INIT;

	/* No module path: the request must be refused before one is needed. */
	http_module_set_path("/nonexistent/libcr-http.so");
	req.url = c->url;
	req.headers = c->header != NULL ? headers : NULL;
	g_assert_cmpint(http_perform(NULL, &req, &resp, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_null(resp);
	g_assert_cmpstr(err.message, ==, c->message);
	g_assert_null(strstr(err.message, "hunter2"));
}

static void test_missing(void)
{
	cr_error err = CR_ERROR_INIT;

	if (g_test_subprocess()) {
		g_assert_cmpint(get("/nonexistent/libcr-http.so", &err), ==, CR_ERR_PLUGIN);
		g_assert_cmpstr(err.message, ==,
				"cannot load the HTTP module /nonexistent/libcr-http.so: "
				"/nonexistent/libcr-http.so: cannot open shared object file: No "
				"such file or directory");
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_passed();
}

static void test_not_a_library(void)
{
	cr_error err = CR_ERROR_INIT;

	if (g_test_subprocess()) {
		char *dir = g_dir_make_tmp("cr-http-XXXXXX", NULL);
		char *path = g_build_filename(dir, "libcr-http.so", NULL);
		char *want = g_strdup_printf("cannot load the HTTP module %s: %s: file too short",
					     path, path);

		g_assert_true(g_file_set_contents(path, "", 0, NULL));
		g_assert_cmpint(get(path, &err), ==, CR_ERR_PLUGIN);
		g_assert_cmpstr(err.message, ==, want);
		/* The failure is remembered: no second attempt, the same answer. */
		g_assert_cmpint(get(path, &err), ==, CR_ERR_PLUGIN);
		g_assert_cmpstr(err.message, ==, want);
		g_unlink(path);
		g_rmdir(dir);
		g_free(want);
		g_free(path);
		g_free(dir);
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_passed();
}

static void test_foreign_library(void)
{
	cr_error err = CR_ERROR_INIT;

	if (g_test_subprocess()) {
		const char *path = g_getenv("CR_FOREIGN_SO");
		char *want =
			g_strdup_printf("HTTP module %s: no usable cr_http_module_entry_v1", path);

		g_assert_cmpint(get(path, &err), ==, CR_ERR_PLUGIN);
		g_assert_cmpstr(err.message, ==, want);
		g_free(want);
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_passed();
}

static void test_real_module(void)
{
	cr_error err = CR_ERROR_INIT;

	if (g_test_subprocess()) {
		g_assert_cmpint(get(g_getenv("CR_HTTP_MODULE"), &err), ==, CR_ERR_NETWORK);
		g_assert_true(g_str_has_prefix(err.message, "GET http://127.0.0.1:9/: "));
		return;
	}
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_passed();
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
		char *p = g_strdup_printf("/http-module/refused/%zu", i);

		g_test_add_data_func(p, &refused[i], test_refused);
		g_free(p);
	}
	g_test_add_func("/http-module/missing", test_missing);
	g_test_add_func("/http-module/not-a-library", test_not_a_library);
	g_test_add_func("/http-module/foreign-library", test_foreign_library);
	g_test_add_func("/http-module/real", test_real_module);
	return g_test_run();
}
