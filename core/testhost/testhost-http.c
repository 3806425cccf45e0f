/* SPDX-License-Identifier: MIT */
/*
 * testhost-http.c - the scripted HTTP responder of cr-testhost. It answers
 * through the testhost's I/O seam (testhost-io.c), so nothing leaves the
 * process:
 * each request must be the next one of the script (method, URL, required
 * headers, body), and gets the scripted answer. Credential header values
 * are compared but never written into a message.
 */
#include <poll.h>
#include <string.h>

#include "testhost-private.h"

typedef struct th_exchange {
	char *method, *url;
	GPtrArray *want_headers; /* "name", "value", ... */
	char *want_body;         /* NULL: any body */
	bool answered;
	long status;
	GPtrArray *headers; /* "name", "value", ... */
	char *body;
	size_t body_len;
	cr_status fail; /* CR_OK, or a transport failure to report */
	char *fail_message;
} th_exchange;

static void exchange_free(gpointer p)
{
	th_exchange *x = p;

	g_free(x->method);
	g_free(x->url);
	g_ptr_array_unref(x->want_headers);
	g_free(x->want_body);
	g_ptr_array_unref(x->headers);
	g_free(x->body);
	g_free(x->fail_message);
	g_free(x);
}

/* Split "Name: value" into @pairs as "name" (as given), "value" (trimmed);
 * false for a line without ':' or with a blank name. */
static bool add_header_line(GPtrArray *pairs, const char *line)
{
	const char *colon = line != NULL ? strchr(line, ':') : NULL;
	char *name;

	if (colon == NULL)
		return false;
	name = g_strstrip(g_strndup(line, (gsize)(colon - line)));
	if (name[0] == '\0') {
		g_free(name);
		return false;
	}
	g_ptr_array_add(pairs, name);
	g_ptr_array_add(pairs, g_strstrip(g_strdup(colon + 1)));
	return true;
}

static cr_status add_header_lines(GPtrArray *pairs, const char *const *lines, cr_error *err)
{
	for (size_t i = 0; lines != NULL && lines[i] != NULL; i++)
		if (!add_header_line(pairs, lines[i]))
			return error_set(err, CR_ERR_INVALID_ARG,
					 "cr-testhost: header '%s' is not \"Name: value\"",
					 lines[i]);
	return CR_OK;
}

/* ---- never print a credential ------------------------------------------- */

/* Whether @name (@len bytes, or -1: up to its NUL), in any case, is one of
 * @exact or contains one of @parts (both NULL-terminated, lower case). */
static bool name_is_secret(const char *name, gssize len, const char *const *exact,
			   const char *const *parts)
{
	char *lower = g_ascii_strdown(name, len);
	bool secret = false;

	for (size_t i = 0; !secret && exact[i] != NULL; i++)
		secret = strcmp(lower, exact[i]) == 0;
	for (size_t i = 0; !secret && parts[i] != NULL; i++)
		secret = strstr(lower, parts[i]) != NULL;
	g_free(lower);
	return secret;
}

static bool secret_header(const char *name)
{
	static const char *const exact[] = { "authorization", "proxy-authorization", "cookie",
					     "set-cookie", NULL };
	static const char *const parts[] = { "token", "secret", "key", "password", "auth", NULL };

	return name_is_secret(name, -1, exact, parts);
}

/* A form field that carries a credential: OAuth's assertion, refresh token
 * and client secret, STS's web identity token. Pagination tokens
 * (NextToken) are not secret and stay readable. */
static bool secret_field(const char *name, size_t len)
{
	static const char *const exact[] = { "token",    "access_token",     "refresh_token",
					     "id_token", "subject_token",    "actor_token",
					     "code",     "webidentitytoken", NULL };
	static const char *const parts[] = { "secret", "password", "assertion", "credential",
					     NULL };

	return name_is_secret(name, (gssize)len, exact, parts);
}

/* A request body as a mismatch shows it: its first 200 bytes, where a form
 * (NAME=VALUE&...) shows each credential field as NAME=(secret, N bytes). */
static char *show_body(const char *body, size_t len)
{
	GString *out = g_string_new(NULL);
	const char *p = body, *end = body + len;

	if (body == NULL)
		return g_string_free(out, FALSE);
	while (p < end) {
		const char *amp = memchr(p, '&', (size_t)(end - p));
		const char *field_end = amp != NULL ? amp : end;
		const char *eq = memchr(p, '=', (size_t)(field_end - p));

		if (eq != NULL && secret_field(p, (size_t)(eq - p)))
			g_string_append_printf(out, "%.*s=(secret, %zu bytes)", (int)(eq - p), p,
					       (size_t)(field_end - eq - 1));
		else
			g_string_append_len(out, p, field_end - p);
		if (amp != NULL)
			g_string_append_c(out, '&');
		p = amp != NULL ? amp + 1 : end;
	}
	if (out->len > 200)
		g_string_truncate(out, 200);
	return g_string_free(out, FALSE);
}

/* "Name: value", or "Name: Scheme (secret, N bytes)" for credentials: an
 * auth scheme word ("Bearer", "Basic") is kept, nothing of the secret. */
static char *show_header(const char *name, const char *value)
{
	const char *space;
	size_t scheme = 0;

	if (!secret_header(name))
		return g_strdup_printf("%s: %s", name, value);
	space = strchr(value, ' ');
	if (space != NULL && space - value <= 16) {
		scheme = (size_t)(space - value);
		for (size_t i = 0; i < scheme; i++)
			if (!g_ascii_isalpha(value[i]) && value[i] != '-')
				scheme = 0;
	}
	if (scheme > 0)
		return g_strdup_printf("%s: %.*s (secret, %zu bytes)", name, (int)scheme, value,
				       strlen(value + scheme + 1));
	return g_strdup_printf("%s: (secret, %zu bytes)", name, strlen(value));
}

/* ---- the script --------------------------------------------------------- */

void th_script_free(cr_testhost *th)
{
	g_ptr_array_unref(th->script);
}

static th_exchange *last_exchange(cr_testhost *th, cr_error *err)
{
	if (th == NULL || th->script->len == 0) {
		error_set(err, CR_ERR_INVALID_ARG, "cr-testhost: no request is expected yet");
		return NULL;
	}
	return g_ptr_array_index(th->script, th->script->len - 1);
}

cr_status cr_testhost_expect(cr_testhost *th, const char *method, const char *url,
			     const char *const *headers, cr_error *err)
{
	th_exchange *x;
	cr_status st;

	if (th == NULL || method == NULL || url == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_testhost_expect: NULL argument");
	x = g_new0(th_exchange, 1);
	x->method = g_strdup(method);
	x->url = g_strdup(url);
	x->want_headers = g_ptr_array_new_with_free_func(g_free);
	x->headers = g_ptr_array_new_with_free_func(g_free);
	st = add_header_lines(x->want_headers, headers, err);
	if (st != CR_OK) {
		exchange_free(x);
		return st;
	}
	g_ptr_array_add(th->script, x);
	return CR_OK;
}

cr_status cr_testhost_expect_body(cr_testhost *th, const char *body, cr_error *err)
{
	th_exchange *x = last_exchange(th, err);

	if (x == NULL)
		return CR_ERR_INVALID_ARG;
	g_free(x->want_body);
	x->want_body = g_strdup(body);
	return CR_OK;
}

static th_exchange *unanswered(cr_testhost *th, cr_error *err)
{
	th_exchange *x = last_exchange(th, err);

	if (x != NULL && x->answered) {
		error_set(err, CR_ERR_INVALID_ARG, "cr-testhost: %s %s is answered already",
			  x->method, x->url);
		return NULL;
	}
	return x;
}

cr_status cr_testhost_respond(cr_testhost *th, long status, const char *const *headers,
			      const char *body, cr_error *err)
{
	return cr_testhost_respond_bytes(th, status, headers, body != NULL ? body : "",
					 body != NULL ? strlen(body) : 0, err);
}

cr_status cr_testhost_respond_bytes(cr_testhost *th, long status, const char *const *headers,
				    const void *body, size_t len, cr_error *err)
{
	th_exchange *x = unanswered(th, err);
	cr_status st;

	if (x == NULL)
		return CR_ERR_INVALID_ARG;
	st = add_header_lines(x->headers, headers, err);
	if (st != CR_OK) {
		g_ptr_array_set_size(x->headers, 0);
		return st;
	}
	x->answered = true;
	x->status = status;
	x->body = g_malloc(len + 1);
	if (len > 0)
		memcpy(x->body, body, len);
	x->body[len] = '\0';
	x->body_len = len;
	return CR_OK;
}

cr_status cr_testhost_respond_error(cr_testhost *th, cr_status code, const char *message,
				    cr_error *err)
{
	th_exchange *x = unanswered(th, err);

	if (x == NULL)
		return CR_ERR_INVALID_ARG;
	if (code == CR_OK)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr-testhost: a transport failure needs a failing status");
	x->answered = true;
	x->fail = code;
	x->fail_message = g_strdup(message != NULL ? message : cr_strerror(code));
	return CR_OK;
}

cr_status th_http_verify(cr_testhost *th, cr_error *err)
{
	th_exchange *x;

	if (th->next >= th->script->len)
		return CR_OK;
	x = g_ptr_array_index(th->script, th->next);
	return error_set(err, CR_ERR_NOT_FOUND,
			 "cr-testhost: %u of %u expected requests were not made; the first: %s %s",
			 th->script->len - th->next, th->script->len, x->method, x->url);
}

/* ---- answering ---------------------------------------------------------- */

/* Value of header @name in the request's lines (last wins), or NULL. */
static char *request_header(const cr_http_request *req, const char *name)
{
	GPtrArray *pairs = g_ptr_array_new_with_free_func(g_free);
	char *found = NULL;

	for (const char *const *h = req->headers; h != NULL && *h != NULL; h++)
		add_header_line(pairs, *h);
	for (guint i = 0; i + 1 < pairs->len; i += 2)
		if (g_ascii_strcasecmp(g_ptr_array_index(pairs, i), name) == 0) {
			g_free(found);
			found = g_strdup(g_ptr_array_index(pairs, i + 1));
		}
	g_ptr_array_unref(pairs);
	return found;
}

/* What is wrong with @req as the answer to @x, or NULL. (transfer full) */
static char *compare(const th_exchange *x, const cr_http_request *req)
{
	char *why = NULL;

	if (strcmp(x->method, req->method) != 0 || strcmp(x->url, req->url) != 0)
		return g_strdup_printf("expected %s %s, got %s %s", x->method, x->url, req->method,
				       req->url);
	for (guint i = 0; why == NULL && i + 1 < x->want_headers->len; i += 2) {
		const char *name = g_ptr_array_index(x->want_headers, i);
		const char *want = g_ptr_array_index(x->want_headers, i + 1);
		char *got = request_header(req, name);
		char *w = show_header(name, want);

		if (got == NULL) {
			why = g_strdup_printf("%s %s: expected header '%s', got none", req->method,
					      req->url, w);
		} else if (strcmp(got, want) != 0) {
			char *g = show_header(name, got);

			why = g_strdup_printf("%s %s: expected header '%s', got '%s'", req->method,
					      req->url, w, g);
			g_free(g);
		}
		g_free(w);
		g_free(got);
	}
	if (why == NULL && x->want_body != NULL &&
	    (req->body == NULL || req->body_len != strlen(x->want_body) ||
	     memcmp(req->body, x->want_body, req->body_len) != 0)) {
		char *w = show_body(x->want_body, strlen(x->want_body));
		char *g = show_body(req->body, req->body_len);

		why = g_strdup_printf("%s %s: expected body '%s', got '%s'", req->method, req->url,
				      w, g);
		g_free(w);
		g_free(g);
	}
	return why;
}

cr_status th_http_answer(cr_testhost *th, const cr_http_request *req, cr_http_response *reply,
			 cr_error *err)
{
	th_exchange *x;
	char *why;

	th->requests++;
	if (th->next >= th->script->len)
		return th_mismatch(th, "request", th->requests,
				   g_strdup_printf("unexpected %s %s (the script has %u request%s)",
						   req->method, req->url, th->script->len,
						   th->script->len == 1 ? "" : "s"),
				   err);
	x = g_ptr_array_index(th->script, th->next);
	why = compare(x, req);
	if (why != NULL)
		return th_mismatch(th, "request", th->requests, why, err);
	if (!x->answered)
		return th_mismatch(th, "request", th->requests,
				   g_strdup_printf("%s %s: the script has no answer for it",
						   req->method, req->url),
				   err);
	th->next++;
	if (x->fail != CR_OK)
		return error_set(err, x->fail, "%s %s: %s", req->method, req->url, x->fail_message);
	reply->status = x->status;
	for (guint i = 0; i < x->headers->len; i++)
		g_ptr_array_add(reply->headers, g_strdup(g_ptr_array_index(x->headers, i)));
	g_string_truncate(reply->body, 0);
	g_string_append_len(reply->body, x->body, (gssize)x->body_len);
	return CR_OK;
}

static bool cancel_pending(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return fd >= 0 && poll(&p, 1, 0) > 0 && (p.revents & POLLIN) != 0;
}

cr_status th_http_stream_answer(cr_testhost *th, const cr_http_request *req, int cancel_fd,
				cr_http_data_fn on_data, void *user_data, cr_http_response *reply,
				cr_error *err)
{
	cr_status st = th_http_answer(th, req, reply, err);
	GString *body;
	size_t piece;

	if (st != CR_OK || reply->status < 200 || reply->status >= 300)
		return st;
	/* A 2xx answer's body goes to the reader in pieces, not kept. */
	body = g_string_new_len(reply->body->str, (gssize)reply->body->len);
	g_string_truncate(reply->body, 0);
	piece = th->stream_piece > 0 ? th->stream_piece : body->len;
	for (size_t off = 0; off < body->len && !cancel_pending(cancel_fd); off += piece)
		if (!on_data(body->str + off, MIN(piece, body->len - off), user_data))
			break;
	g_string_free(body, TRUE);
	return CR_OK;
}

void th_script_init(cr_testhost *th)
{
	th->script = g_ptr_array_new_with_free_func(exchange_free);
}
