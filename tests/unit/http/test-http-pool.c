/* SPDX-License-Identifier: MIT */
/*
 * test-http-pool.c - a context's spare answer bodies (http.c), through a
 * scripted I/O seam that answers every GET with SIZE bytes: a large body
 * freed while another answer is held is written into by the next answer (no
 * new memory); a small one, or one freed when no other answer is held, is
 * not kept; at most two are kept; an answer freed after its context frees
 * its own body (ASan and valgrind see any leak or use after free).
 */
#include <string.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"

static cr_status scripted_http(void *data, cr_plugin_ctx *pctx, const cr_http_request *req,
			       cr_http_response *reply, cr_error *err)
{
	size_t size = strtoul(strrchr(req->url, '/') + 1, NULL, 10);

	(void)data, (void)pctx, (void)err;
	reply->status = 200;
	g_string_set_size(reply->body, size);
	memset(reply->body->str, 'x', size);
	return CR_OK;
}

static const io_ops scripted = { .http = scripted_http };

typedef struct fixture {
	cr_context *ctx;
	cr_plugin_ctx pctx;
} fixture;

static void setup(fixture *f, gconstpointer data)
{
	(void)data;
	f->ctx = cr_context_new(NULL);
	ctx_set_io(f->ctx, &scripted, NULL);
	f->pctx.ctx = f->ctx;
}

static void teardown(fixture *f, gconstpointer data)
{
	(void)data;
	cr_context_free(f->ctx);
}

static cr_http_response *get(fixture *f, size_t size)
{
	char *url = g_strdup_printf("http://127.0.0.1:9/%zu", size);
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	cr_http_response *resp = NULL;
	cr_error err = CR_ERROR_INIT;

	req.method = "GET";
	req.url = url;
	g_assert_cmpint(http_perform(&f->pctx, &req, &resp, &err), ==, CR_OK);
	g_assert_nonnull(resp);
	g_assert_cmpuint(resp->body->len, ==, size);
	g_free(url);
	return resp;
}

#define BIG ((size_t)1 << 20)

/* Pages one after another, the next fetched while one is read. */
static void test_reused(fixture *f, gconstpointer data)
{
	cr_http_response *a = get(f, BIG), *b = get(f, BIG), *c;
	const char *a_text = a->body->str;

	(void)data;
	http_response_free(a); /* b is held: a's body is kept */
	c = get(f, BIG - 1);
	g_assert_true(c->body->str == a_text);
	g_assert_cmpuint(c->body->allocated_len, >, BIG); /* a new one would be BIG */
	g_assert_cmpuint(c->body->len, ==, BIG - 1);
	http_response_free(b);
	http_response_free(c);
}

/* The last answer freed takes the spares with it; a small body is never
 * kept. */
static void test_released(fixture *f, gconstpointer data)
{
	cr_http_response *a = get(f, BIG), *b = get(f, 100000), *c, *d;

	(void)data;
	http_response_free(b); /* a is held, but b is under 256 KiB */
	c = get(f, 10);
	g_assert_cmpuint(c->body->allocated_len, <, 1000); /* a new body, not b's */
	http_response_free(c);
	http_response_free(a); /* the last one: not kept */
	d = get(f, 10);
	g_assert_cmpuint(d->body->allocated_len, <, 1000);
	http_response_free(d);
}

/* At most two spares, however many answers are freed while one is held. */
static void test_two_spares(fixture *f, gconstpointer data)
{
	cr_http_response *held = get(f, 10), *r[4], *again[3];

	(void)data;
	for (int i = 0; i < 4; i++)
		r[i] = get(f, BIG);
	for (int i = 0; i < 4; i++)
		http_response_free(r[i]);
	for (int i = 0; i < 3; i++)
		again[i] = get(f, 10);
	g_assert_cmpuint(again[0]->body->allocated_len, >, BIG);
	g_assert_cmpuint(again[1]->body->allocated_len, >, BIG);
	g_assert_cmpuint(again[2]->body->allocated_len, <, 1000);
	for (int i = 0; i < 3; i++)
		http_response_free(again[i]);
	http_response_free(held);
}

/* An answer freed after its context: the body is its own to free. */
static void test_outlives_context(fixture *f, gconstpointer data)
{
	cr_http_response *a = get(f, BIG), *b = get(f, BIG);

	(void)data;
	http_response_free(a); /* kept as a spare */
	cr_context_free(f->ctx);
	f->ctx = cr_context_new(NULL); /* for teardown */
	http_response_free(b);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add("/http-pool/reused", fixture, NULL, setup, test_reused, teardown);
	g_test_add("/http-pool/released", fixture, NULL, setup, test_released, teardown);
	g_test_add("/http-pool/two-spares", fixture, NULL, setup, test_two_spares, teardown);
	g_test_add("/http-pool/outlives-context", fixture, NULL, setup, test_outlives_context,
		   teardown);
	return g_test_run();
}
