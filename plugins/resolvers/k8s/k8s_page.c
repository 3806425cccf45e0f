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
 *
 * A page may also be a Table (kind Table, what `kubectl get` asks for): then
 * `columnDefinitions` says where the Name, Status and IP cells are, and each
 * of `rows` becomes a pod view (k8s_view.c) of its name, the list's
 * namespace, phase Running and its IP, for the same callback. Only a row
 * whose Status cell is "Running" can say so: printPod (kube's table
 * printer) shows "Running" only for a pod in phase Running, but shows a
 * Running pod as CrashLoopBackOff, NotReady, Terminating... and a Pending
 * one as ContainerCreating. A row
 * that is not "Running", a row without those cells, or a table without those
 * columns ends the walk with need_full: the list is done again with full
 * pods, which say everything.
 */
#include <string.h>

#include "k8s.h"

struct k8s_pager {
	const char *endpoint;  /* for messages */
	const char *namespace; /* of the list: Table rows carry none */
	const char *text;      /* the page, borrowed from its response */
	size_t len, pos;
	bool proto; /* protobuf (k8s_proto.c), else JSON */
	json_tokener *tok;
	struct k8s_view_store store; /* what pod views point into */
	k8s_pod_fn fn;
	void *ud;
	bool items;
	bool need_full;                   /* a Table that does not say enough */
	int col_name, col_status, col_ip; /* Table cells, -1: not seen */
	GThread *thread;
	GMutex lock;
	GCond cond;
	bool next_known; /* `next` is final: metadata seen, or the walk ended */
	char *next;
	char *version; /* the list's resourceVersion */
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
static void k8s_pager_set_next(void *pager, const char *next, const char *version)
{
	struct k8s_pager *w = pager;

	g_mutex_lock(&w->lock);
	if (!w->next_known) {
		w->next = next && *next ? g_strdup(next) : NULL;
		w->version = version && *version ? g_strdup(version) : NULL;
		w->next_known = true;
		g_cond_signal(&w->cond);
	}
	g_mutex_unlock(&w->lock);
}

/* `columnDefinitions` of a Table: where Name, Status and IP are. */
static void k8s_table_columns(struct k8s_pager *w, json_object *defs)
{
	size_t n = json_object_is_type(defs, json_type_array) ? json_object_array_length(defs) : 0;

	for (size_t i = 0; i < n && i < 1000; i++) {
		json_object *name = NULL;
		const char *s;

		if (!json_object_object_get_ex(json_object_array_get_idx(defs, i), "name", &name) ||
		    !json_object_is_type(name, json_type_string))
			continue;
		s = json_object_get_string(name);
		if (strcmp(s, "Name") == 0 && w->col_name < 0)
			w->col_name = (int)i;
		else if (strcmp(s, "Status") == 0 && w->col_status < 0)
			w->col_status = (int)i;
		else if (strcmp(s, "IP") == 0 && w->col_ip < 0)
			w->col_ip = (int)i;
	}
}

/* A string cell; NULL for anything else, and for a string that is not
 * UTF-8 without NUL (then the full pods say what is wrong). */
static const char *k8s_cell(json_object *cells, int col)
{
	json_object *v = col >= 0 ? json_object_array_get_idx(cells, (size_t)col) : NULL;
	const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
	size_t n = s ? (size_t)json_object_get_string_len(v) : 0;

	return s && k8s_text_ok(s, n) ? s : NULL;
}

/* A Table row as the pod the callback reads; false (and need_full) when
 * the row cannot stand for the pod. */
static bool k8s_row_view(struct k8s_pager *w, json_object *row, struct k8s_pod_view *v)
{
	json_object *cells = NULL;
	const char *name, *phase, *ip;

	if (!json_object_object_get_ex(row, "cells", &cells) ||
	    !json_object_is_type(cells, json_type_array))
		cells = NULL;
	name = cells ? k8s_cell(cells, w->col_name) : NULL;
	phase = cells ? k8s_cell(cells, w->col_status) : NULL;
	ip = cells ? k8s_cell(cells, w->col_ip) : NULL;
	if (!name || !*name || !phase || strcmp(phase, "Running") != 0 || !ip || !w->namespace) {
		w->need_full = true;
		return false;
	}
	k8s_view_begin(&w->store, v, 0);
	v->name = name;
	v->ns = w->namespace;
	v->uid = name; /* names are unique in a namespace: the key of "listed twice" */
	v->phase = "Running";
	if (strcmp(ip, "<none>") != 0 && *ip)
		v->pod_ip = ip;
	k8s_view_end(&w->store, v);
	return true;
}

/* `items`: an array of pods, or null; or @rows: the rows of a Table. Each
 * is handed to fn as a view (k8s_view.c), then freed. */
static cr_status k8s_walk_items(struct k8s_pager *w, bool rows)
{
	json_object *item = NULL;
	struct k8s_pod_view v;
	const char *bad;
	cr_status rc;

	if (!k8s_walk_char(w, '[')) {
		rc = k8s_walk_value(w, &item);
		if (rc == CR_OK && item != NULL) /* JSON null is NULL */
			rc = cr_host->error_set(
				&w->err, CR_ERR_PARSE,
				"%s: answer is not a PodList (items is not an array)", w->endpoint);
		json_object_put(item);
		return rc;
	}
	if (k8s_walk_char(w, ']'))
		return CR_OK;
	for (size_t i = 0;; i++) {
		rc = k8s_walk_value(w, &item);
		if (rc == CR_OK && !json_object_is_type(item, json_type_object))
			rc = cr_host->error_set(&w->err, CR_ERR_PARSE,
						"%s: answer is not a %s (%s[%zu] is not an object)",
						w->endpoint, rows ? "Table" : "PodList",
						rows ? "rows" : "items", i);
		if (rc == CR_OK && rows && !k8s_row_view(w, item, &v))
			rc = CR_ERR_BACKEND; /* not enough: the caller lists full pods */
		if (rc == CR_OK && !rows && (bad = k8s_view_from_json(&w->store, item, &v)))
			rc = cr_host->error_set(&w->err, CR_ERR_PARSE,
						"%s: items[%zu]: %s is not UTF-8 without NUL",
						w->endpoint, i, bad);
		if (rc == CR_OK)
			rc = w->fn(&v, w->ud, &w->err);
		json_object_put(item);
		item = NULL;
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
	json_object *key = NULL, *val = NULL, *cont = NULL, *rv = NULL;
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
	} else if (strcmp(name, "items") == 0 && !w->items) {
		w->items = true;
		rc = k8s_walk_items(w, false);
	} else if (strcmp(name, "rows") == 0 && !w->items) {
		w->items = true;
		if (w->col_name < 0 || w->col_status < 0 || w->col_ip < 0) {
			w->need_full = true; /* no columns (yet): a Table we cannot read */
			rc = CR_ERR_BACKEND;
		} else {
			rc = k8s_walk_items(w, true);
		}
	} else {
		rc = k8s_walk_value(w, &val);
		if (rc == CR_OK && strcmp(name, "columnDefinitions") == 0)
			k8s_table_columns(w, val);
		if (rc == CR_OK && strcmp(name, "metadata") == 0) {
			if (json_pointer_get(val, "/continue", &cont) != 0 ||
			    !json_object_is_type(cont, json_type_string))
				cont = NULL;
			if (json_pointer_get(val, "/resourceVersion", &rv) != 0 ||
			    !json_object_is_type(rv, json_type_string))
				rv = NULL;
			k8s_pager_set_next(w, cont ? json_object_get_string(cont) : NULL,
					   rv ? json_object_get_string(rv) : NULL);
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
	if (w->need_full)
		rc = CR_ERR_BACKEND; /* not an error: the caller lists full pods */
	return rc;
}

static gpointer k8s_pager_run(gpointer data)
{
	struct k8s_pager *w = data;
	cr_status rc =
		w->proto ? k8s_pb_page(w->endpoint, (const uint8_t *)w->text, w->len,
				       k8s_pager_set_next, w, &w->store, w->fn, w->ud, &w->err)
			 : k8s_walk_page(w);

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

static struct k8s_pager *k8s_pager_new(const char *endpoint, const char *namespace,
				       const char *text, size_t len, bool proto, k8s_pod_fn fn,
				       void *ud)
{
	struct k8s_pager *w = g_new0(struct k8s_pager, 1);
	cr_error init = CR_ERROR_INIT;

	w->endpoint = endpoint;
	w->namespace = namespace;
	w->col_name = w->col_status = w->col_ip = -1;
	w->text = text;
	w->len = len;
	w->proto = proto;
	w->tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	k8s_view_store_init(&w->store);
	w->fn = fn;
	w->ud = ud;
	w->err = init;
	g_mutex_init(&w->lock);
	g_cond_init(&w->cond);
	return w;
}

/**
 * k8s_pager_start:
 * Start walking @len bytes of @text (borrowed until k8s_pager_finish),
 * calling @fn for each pod; @endpoint names the list in messages, and
 * @namespace (NULL: all) is that of the pods of a Table; @proto: the page
 * is protobuf (k8s_proto.c), else JSON.
 * Returns: (transfer full) the walk; finish it with k8s_pager_finish().
 */
struct k8s_pager *k8s_pager_start(const char *endpoint, const char *namespace, const char *text,
				  size_t len, bool proto, k8s_pod_fn fn, void *ud)
{
	struct k8s_pager *w = k8s_pager_new(endpoint, namespace, text, len, proto, fn, ud);

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

char *k8s_pager_version(struct k8s_pager *w)
{
	char *version;

	g_mutex_lock(&w->lock);
	version = g_strdup(w->version);
	g_mutex_unlock(&w->lock);
	return version;
}

/**
 * k8s_pager_finish:
 * Wait for the walk to end and free it. *@need_full is set when the page
 * was a Table that cannot stand for the pods (then CR_ERR_BACKEND is
 * returned and @err is left alone: the caller lists full pods instead).
 * Returns: CR_OK, or the walk's failure (JSON, not a PodList, the
 * callback's error), also recorded in @err.
 */
cr_status k8s_pager_finish(struct k8s_pager *w, bool *need_full, cr_error *err)
{
	cr_status rc;

	if (w->thread)
		g_thread_join(w->thread);
	rc = w->rc;
	*need_full = w->need_full;
	if (rc != CR_OK && !w->need_full)
		cr_host->error_set(err, rc, "%s", w->err.message);
	json_tokener_free(w->tok);
	k8s_view_store_clear(&w->store);
	g_free(w->next);
	g_free(w->version);
	g_mutex_clear(&w->lock);
	g_cond_clear(&w->cond);
	g_free(w);
	return rc;
}

/**
 * k8s_page_read:
 * Walk a whole page on the caller's thread: @fn for each pod, *@next the
 * continue token (NULL on the last page), *@version the list's
 * resourceVersion (@version NULL: not wanted), *@need_full as
 * k8s_pager_finish.
 * Returns: as k8s_pager_finish.
 */
cr_status k8s_page_read(const char *endpoint, const char *namespace, const char *text, size_t len,
			bool proto, k8s_pod_fn fn, void *ud, bool *need_full, char **next,
			char **version, cr_error *err)
{
	struct k8s_pager *w = k8s_pager_new(endpoint, namespace, text, len, proto, fn, ud);

	k8s_pager_run(w);
	*next = k8s_pager_next(w);
	if (version)
		*version = k8s_pager_version(w);
	return k8s_pager_finish(w, need_full, err);
}
