/* SPDX-License-Identifier: MIT */
/*
 * http.c - host->http_request: checks the request, sends it through the
 * context's I/O seam (io.h) and holds the answer to the body limit, its
 * body in the context's pool of spares. The real transport behind the
 * seam is http-transport.c.
 */
#include <string.h>

#include <glib.h>

#include "host/host-private.h"

#define DEFAULT_MAX_BODY ((size_t)256 << 20)

/* ---- spare bodies ---------------------------------------------------------- */

/*
 * A large list arrives as pages of several MB, one after another (two at a
 * time where the next page is fetched while one is read). A body of
 * HTTP_POOL_MIN or more goes back to its context's pool when its answer is
 * freed while another answer is still held, at most HTTP_POOL_SLOTS of
 * them, and the next answer is written into it: later pages cost no new
 * memory, no page faults and no churn of large blocks in the heap. When the
 * last answer held is freed (the list is read), so are the spares, before
 * the plugin builds its tasks. Answers may be freed on any thread; the pool
 * outlives its context until its last answer is freed.
 */
#define HTTP_POOL_SLOTS 2
#define HTTP_POOL_MIN ((gsize)256 * 1024)
#define HTTP_POOL_MAX ((gsize)64 * 1024 * 1024)

struct http_pool {
	gint ref;
	GMutex lock;
	bool closed;
	int live; /* answers made and not yet freed */
	GString *spare[HTTP_POOL_SLOTS];
};

http_pool *http_pool_new(void)
{
	http_pool *pool = g_new0(http_pool, 1);

	pool->ref = 1;
	g_mutex_init(&pool->lock);
	return pool;
}

static void pool_unref(http_pool *pool)
{
	if (!g_atomic_int_dec_and_test(&pool->ref))
		return;
	for (int i = 0; i < HTTP_POOL_SLOTS; i++)
		if (pool->spare[i] != NULL)
			g_string_free(pool->spare[i], TRUE);
	g_mutex_clear(&pool->lock);
	g_free(pool);
}

void http_pool_close(http_pool *pool)
{
	if (pool == NULL)
		return;
	g_mutex_lock(&pool->lock);
	pool->closed = true;
	for (int i = 0; i < HTTP_POOL_SLOTS; i++)
		if (pool->spare[i] != NULL)
			g_string_free(g_steal_pointer(&pool->spare[i]), TRUE);
	g_mutex_unlock(&pool->lock);
	pool_unref(pool);
}

/* A spare body, emptied, or a new one. */
static GString *pool_take(http_pool *pool)
{
	GString *body = NULL;

	g_mutex_lock(&pool->lock);
	pool->live++;
	for (int i = 0; i < HTTP_POOL_SLOTS && body == NULL; i++)
		body = g_steal_pointer(&pool->spare[i]);
	g_mutex_unlock(&pool->lock);
	return body != NULL ? g_string_truncate(body, 0) : g_string_new(NULL);
}

/* Keep @body while other answers are held, if it is worth it and there is
 * room; else free it, and with the last answer every spare. */
static void pool_give(http_pool *pool, GString *body)
{
	GString *drop[HTTP_POOL_SLOTS + 1] = { body };
	bool worth = body->allocated_len >= HTTP_POOL_MIN && body->allocated_len <= HTTP_POOL_MAX;

	g_mutex_lock(&pool->lock);
	pool->live--;
	for (int i = 0; i < HTTP_POOL_SLOTS; i++) {
		if (pool->live == 0 || pool->closed)
			drop[i + 1] = g_steal_pointer(&pool->spare[i]);
		else if (worth && drop[0] != NULL && pool->spare[i] == NULL)
			pool->spare[i] = g_steal_pointer(&drop[0]);
	}
	g_mutex_unlock(&pool->lock);
	for (int i = 0; i <= HTTP_POOL_SLOTS; i++)
		if (drop[i] != NULL)
			g_string_free(drop[i], TRUE);
}

/* ---- requests ------------------------------------------------------------ */

static cr_http_response *response_new(const cr_http_request *req, http_pool *pool)
{
	cr_http_response *r = g_new0(cr_http_response, 1);

	if (pool != NULL) {
		g_atomic_int_inc(&pool->ref);
		r->pool = pool;
	}
	r->body = pool != NULL ? pool_take(pool) : g_string_new(NULL);
	r->headers = g_ptr_array_new_with_free_func(g_free);
	r->max_body = req->max_body != 0 ? req->max_body : DEFAULT_MAX_BODY;
	return r;
}

static bool has_control(const char *s, const char *end, bool tab_ok)
{
	for (; s < end && *s != '\0'; s++)
		if (((unsigned char)*s < 0x20 && !(tab_ok && *s == '\t')) || *s == 0x7f)
			return true;
	return false;
}

/*
 * Nothing a request carries may change its meaning on the wire: a CR or LF
 * in a header value (a token read from a file, say) would add headers, and
 * a URL's user:password@ would be sent as Basic authentication, which the
 * backends refuse by design. Neither the URL's userinfo, its query nor a
 * header value is ever echoed: they may be secrets.
 */
static cr_status request_check(const cr_http_request *req, cr_http_response **resp, cr_error *err)
{
	const char *auth, *auth_end, *at;

	if (req == NULL || resp == NULL || req->url == NULL || req->method == NULL ||
	    req->struct_size < offsetof(cr_http_request, flags) + sizeof(uint32_t))
		return error_set(err, CR_ERR_INVALID_ARG, "http_request: invalid request");
	if (!g_str_has_prefix(req->url, "http://") && !g_str_has_prefix(req->url, "https://"))
		return error_set(err, CR_ERR_INVALID_ARG,
				 "%s: only http:// and https:// URLs are supported", req->url);
	auth = strstr(req->url, "://") + 3;
	auth_end = auth + strcspn(auth, "/?#");
	at = memchr(auth, '@', (size_t)(auth_end - auth));
	if (at != NULL)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "%.*s%.*s: a user name or password in the URL is refused",
				 (int)(auth - req->url), req->url, (int)strcspn(at + 1, "?#"),
				 at + 1);
	if (has_control(req->url, req->url + strlen(req->url), false) ||
	    strchr(req->url, ' ') != NULL)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "%s request: the URL holds a blank or control character",
				 req->method);
	for (size_t i = 0; req->headers != NULL && req->headers[i] != NULL; i++) {
		const char *h = req->headers[i];
		const char *colon = strchr(h, ':');
		size_t nlen = colon != NULL ? (size_t)(colon - h) : strlen(h);

		if (colon == NULL || nlen == 0 || has_control(h, h + nlen, false))
			return error_set(err, CR_ERR_INVALID_ARG,
					 "%s request: header %zu is not \"Name: value\"",
					 req->method, i + 1);
		if (has_control(colon, colon + strlen(colon), true))
			return error_set(err, CR_ERR_INVALID_ARG,
					 "%s request: the value of header '%.*s' holds a control "
					 "character (CR, LF, ...); not sent",
					 req->method, (int)nlen, h);
	}
	return CR_OK;
}

cr_status http_perform(cr_plugin_ctx *pctx, const cr_http_request *req, cr_http_response **resp,
		       cr_error *err)
{
	cr_context *ctx = pctx != NULL ? pctx->ctx : NULL;
	const io_ops *io;
	void *io_data;
	cr_http_response *r;
	cr_status st;

	if (resp != NULL)
		*resp = NULL;
	st = request_check(req, resp, err);
	if (st != CR_OK)
		return st;
	if (ctx_interrupted(ctx))
		return error_set(err, CR_ERR_TIMEOUT, "%s %.*s: interrupted", req->method,
				 (int)strcspn(req->url, "?#"), req->url);
	r = response_new(req, ctx != NULL ? ctx->http_pool : NULL);
	if (pctx != NULL && pctx->inst != NULL)
		ctx_log(ctx, CR_LOG_DEBUG, pctx->inst->label, "%s %s", req->method, req->url);
	io = ctx_io(ctx, &io_data);
	st = io->http(io_data, pctx, req, r, err);
	if (st == CR_OK && r->body->len > r->max_body)
		st = error_set(err, CR_ERR_IO, "%s %s: response larger than %zu bytes", req->method,
			       req->url, r->max_body);
	if (st != CR_OK) {
		http_response_free(r);
		return st;
	}
	*resp = r;
	return CR_OK;
}

cr_status http_stream_perform(cr_plugin_ctx *pctx, const cr_http_request *req,
			      cr_http_data_fn on_data, void *user_data, cr_http_response **resp,
			      cr_error *err)
{
	cr_context *ctx = pctx != NULL ? pctx->ctx : NULL;
	const io_ops *io;
	void *io_data;
	cr_http_response *r;
	cr_status st;
	int cancel_fd = -1;

	if (resp != NULL)
		*resp = NULL;
	st = request_check(req, resp, err);
	if (st != CR_OK)
		return st;
	if (ctx_interrupted(ctx))
		return error_set(err, CR_ERR_TIMEOUT, "%s %.*s: interrupted", req->method,
				 (int)strcspn(req->url, "?#"), req->url);
	if (on_data == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "http_stream: no data callback");
	io = ctx_io(ctx, &io_data);
	if (io->http_stream == NULL)
		return error_set(err, CR_ERR_UNSUPPORTED,
				 "%s %.*s: streaming is not supported here", req->method,
				 (int)strcspn(req->url, "?#"), req->url);
	/* The end of its watch op, while the instance is in one. */
	if (ctx != NULL && pctx->inst != NULL && pctx->inst->watching)
		cancel_fd = pctx->inst->stop_fd;
	r = response_new(req, NULL);
	if (pctx != NULL && pctx->inst != NULL)
		ctx_log(ctx, CR_LOG_DEBUG, pctx->inst->label, "%s %s", req->method, req->url);
	st = io->http_stream(io_data, pctx, req, cancel_fd, on_data, user_data, r, err);
	if (st == CR_OK && r->body->len > r->max_body)
		st = error_set(err, CR_ERR_IO, "%s %.*s: response larger than %zu bytes",
			       req->method, (int)strcspn(req->url, "?#"), req->url, r->max_body);
	if (st != CR_OK) {
		http_response_free(r);
		return st;
	}
	*resp = r;
	return CR_OK;
}

long http_status(const cr_http_response *resp)
{
	return resp != NULL ? resp->status : 0;
}

const char *http_body(const cr_http_response *resp, size_t *len)
{
	if (resp == NULL) {
		if (len != NULL)
			*len = 0;
		return NULL;
	}
	if (len != NULL)
		*len = resp->body->len;
	return resp->body->str;
}

const char *http_header(const cr_http_response *resp, const char *name)
{
	const char *found = NULL;

	if (resp == NULL || name == NULL)
		return NULL;
	for (guint i = 0; i + 1 < resp->headers->len; i += 2)
		if (g_ascii_strcasecmp(g_ptr_array_index(resp->headers, i), name) == 0)
			found = g_ptr_array_index(resp->headers, i + 1);
	return found;
}

void http_response_free(cr_http_response *resp)
{
	if (resp == NULL)
		return;
	if (resp->pool != NULL) {
		pool_give(resp->pool, resp->body);
		pool_unref(resp->pool);
	} else {
		g_string_free(resp->body, TRUE);
	}
	g_ptr_array_unref(resp->headers);
	g_free(resp);
}
