/* SPDX-License-Identifier: MIT */
/*
 * k8s_page.c - one page of a pod list, pod by pod, next to the next fetch.
 *
 * A page is walked member by member instead of being parsed into one tree:
 * json-c's tokener parses each value of the PodList object and each pod of
 * `items` on its own (it stops at the end of a value and says where); the
 * pod goes to the caller's callback and is freed at once. A page of 500
 * pods is never a tree of 500 pods in memory, and parsing runs 2-3x faster
 * because the small allocations of one pod are reused by the next.
 *
 * The walk runs on a worker thread. The API server writes `metadata` (with
 * the continue token) before `items`, so the thread that fetches pages gets
 * the token as soon as the walk has passed it and requests the next page
 * while the pods of this one are still being read. The worker calls nothing
 * of the host but error_set (which only formats into the worker's own
 * cr_error); every other host call stays on the caller's thread, and the
 * callback's state is only touched again after k8s_pager_finish(). Where no
 * thread can be started, the walk runs on the caller's thread first.
 */
#include <string.h>

#include "k8s.h"

struct k8s_pager {
	const char *endpoint; /* for messages */
	const char *text;     /* the page, borrowed from its response */
	size_t len, pos;
	json_tokener *tok;
	k8s_pod_fn fn;
	void *ud;
	bool items;
	GThread *thread;
	GMutex lock;
	GCond cond;
	bool next_known; /* `next` is final: metadata seen, or the walk ended */
	char *next;
	cr_status rc;
	cr_error err;
};

static void k8s_walk_ws(struct k8s_pager *w)
{
	while (w->pos < w->len && g_ascii_isspace(w->text[w->pos]))
		w->pos++;
}

/* "ENDPOINT: invalid JSON at line L, column C (offset N): WHAT" */
static cr_status k8s_walk_error(struct k8s_pager *w, const char *what)
{
	size_t line = 1, col = 1;

	for (size_t i = 0; i < w->pos && i < w->len; i++) {
		if (w->text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	return cr_host->error_set(&w->err, CR_ERR_PARSE,
				  "%s: invalid JSON at line %zu, column %zu (offset %zu): %s",
				  w->endpoint, line, col, w->pos, what);
}

/* The value at the current position; on success the position is after it
 * (and after the white space that follows). */
static cr_status k8s_walk_value(struct k8s_pager *w, json_object **out)
{
	enum json_tokener_error jerr;

	json_tokener_reset(w->tok);
	*out = json_tokener_parse_ex(w->tok, w->text + w->pos, (int)(w->len - w->pos));
	jerr = json_tokener_get_error(w->tok);
	w->pos += json_tokener_get_parse_end(w->tok);
	if (jerr == json_tokener_success) {
		k8s_walk_ws(w);
		return CR_OK;
	}
	json_object_put(*out);
	*out = NULL;
	return k8s_walk_error(w, jerr == json_tokener_continue ? "unexpected end of data"
							       : json_tokener_error_desc(jerr));
}

/* Expect @c (after white space) and step over it. */
static bool k8s_walk_char(struct k8s_pager *w, char c)
{
	k8s_walk_ws(w);
	if (w->pos >= w->len || w->text[w->pos] != c)
		return false;
	w->pos++;
	k8s_walk_ws(w);
	return true;
}

/* The continue token is known (NULL: this is the last page). */
static void k8s_pager_set_next(struct k8s_pager *w, const char *next)
{
	g_mutex_lock(&w->lock);
	if (!w->next_known) {
		w->next = next && *next ? g_strdup(next) : NULL;
		w->next_known = true;
		g_cond_signal(&w->cond);
	}
	g_mutex_unlock(&w->lock);
}

/* `items`: an array of pods (each handed to fn, then freed), or null. */
static cr_status k8s_walk_items(struct k8s_pager *w)
{
	json_object *pod = NULL;
	cr_status rc;

	if (!k8s_walk_char(w, '[')) {
		rc = k8s_walk_value(w, &pod);
		if (rc == CR_OK && pod != NULL) /* JSON null is NULL */
			rc = cr_host->error_set(
				&w->err, CR_ERR_PARSE,
				"%s: answer is not a PodList (items is not an array)", w->endpoint);
		json_object_put(pod);
		return rc;
	}
	if (k8s_walk_char(w, ']'))
		return CR_OK;
	for (size_t i = 0;; i++) {
		rc = k8s_walk_value(w, &pod);
		if (rc == CR_OK && !json_object_is_type(pod, json_type_object))
			rc = cr_host->error_set(
				&w->err, CR_ERR_PARSE,
				"%s: answer is not a PodList (items[%zu] is not an object)",
				w->endpoint, i);
		if (rc == CR_OK)
			rc = w->fn(pod, w->ud, &w->err);
		json_object_put(pod);
		if (rc != CR_OK || k8s_walk_char(w, ']'))
			return rc;
		if (!k8s_walk_char(w, ','))
			return k8s_walk_error(w, "expected ',' or ']' after a pod");
	}
}

/* One member of the PodList object: `items` pod by pod, the continue token
 * from `metadata`, anything else parsed and dropped. */
static cr_status k8s_walk_member(struct k8s_pager *w)
{
	json_object *key = NULL, *val = NULL, *cont = NULL;
	const char *name;
	cr_status rc;

	rc = k8s_walk_value(w, &key);
	if (rc != CR_OK)
		return rc;
	name = json_object_get_string(key);
	if (!json_object_is_type(key, json_type_string)) {
		rc = k8s_walk_error(w, "expected a member name");
	} else if (!k8s_walk_char(w, ':')) {
		rc = k8s_walk_error(w, "expected ':' after a member name");
	} else if (strcmp(name, "items") == 0) {
		w->items = true;
		rc = k8s_walk_items(w);
	} else {
		rc = k8s_walk_value(w, &val);
		if (rc == CR_OK && strcmp(name, "metadata") == 0) {
			if (json_pointer_get(val, "/continue", &cont) != 0 ||
			    !json_object_is_type(cont, json_type_string))
				cont = NULL;
			k8s_pager_set_next(w, cont ? json_object_get_string(cont) : NULL);
		}
	}
	json_object_put(val);
	json_object_put(key);
	return rc;
}

static cr_status k8s_walk_page(struct k8s_pager *w)
{
	cr_status rc = CR_OK;

	if (!k8s_walk_char(w, '{'))
		return k8s_walk_error(w, "the answer is not a JSON object");
	if (k8s_walk_char(w, '}'))
		goto end;
	for (;;) {
		rc = k8s_walk_member(w);
		if (rc != CR_OK || k8s_walk_char(w, '}'))
			break;
		if (!k8s_walk_char(w, ','))
			return k8s_walk_error(w, "expected ',' or '}' after a member");
	}
end:
	if (rc == CR_OK && w->pos < w->len)
		rc = k8s_walk_error(w, "data after the answer");
	if (rc == CR_OK && !w->items)
		rc = cr_host->error_set(&w->err, CR_ERR_PARSE,
					"%s: answer is not a PodList (no items)", w->endpoint);
	return rc;
}

static gpointer k8s_pager_run(gpointer data)
{
	struct k8s_pager *w = data;
	cr_status rc = k8s_walk_page(w);

	g_mutex_lock(&w->lock);
	w->rc = rc;
	if (!w->next_known) { /* no metadata before the end, or a failure before it */
		w->next = NULL;
		w->next_known = true;
	}
	g_cond_signal(&w->cond);
	g_mutex_unlock(&w->lock);
	return NULL;
}

/**
 * k8s_pager_start:
 * Start walking @len bytes of @text (borrowed until k8s_pager_finish),
 * calling @fn for each pod; @endpoint names the list in messages.
 * Returns: (transfer full) the walk; finish it with k8s_pager_finish().
 */
struct k8s_pager *k8s_pager_start(const char *endpoint, const char *text, size_t len, k8s_pod_fn fn,
				  void *ud)
{
	struct k8s_pager *w = g_new0(struct k8s_pager, 1);
	cr_error init = CR_ERROR_INIT;

	w->endpoint = endpoint;
	w->text = text;
	w->len = len;
	w->tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	w->fn = fn;
	w->ud = ud;
	w->err = init;
	g_mutex_init(&w->lock);
	g_cond_init(&w->cond);
	w->thread = g_thread_try_new("k8s-page", k8s_pager_run, w, NULL);
	if (!w->thread)
		k8s_pager_run(w);
	return w;
}

/**
 * k8s_pager_next:
 * Wait until the page's continue token is known (the walk has passed
 * `metadata`, or ended). A page that fails before its metadata has none;
 * one that fails later has one (the next page is fetched, then dropped).
 * Returns: (transfer full) the token, or NULL on the last page.
 */
char *k8s_pager_next(struct k8s_pager *w)
{
	char *next;

	g_mutex_lock(&w->lock);
	while (!w->next_known)
		g_cond_wait(&w->cond, &w->lock);
	next = g_strdup(w->next);
	g_mutex_unlock(&w->lock);
	return next;
}

/**
 * k8s_pager_finish:
 * Wait for the walk to end and free it.
 * Returns: CR_OK, or the walk's failure (JSON, not a PodList, the
 * callback's error), also recorded in @err.
 */
cr_status k8s_pager_finish(struct k8s_pager *w, cr_error *err)
{
	cr_status rc;

	if (w->thread)
		g_thread_join(w->thread);
	rc = w->rc;
	if (rc != CR_OK)
		cr_host->error_set(err, rc, "%s", w->err.message);
	json_tokener_free(w->tok);
	g_free(w->next);
	g_mutex_clear(&w->lock);
	g_cond_clear(&w->cond);
	g_free(w);
	return rc;
}
