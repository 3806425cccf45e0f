/* SPDX-License-Identifier: MIT */
/*
 * k8s_fetch.c - listing pods through the API server.
 *
 * One GET per page (`limit` = page_size, then `continue`) through the
 * host's libcurl. 429 and 5xx answers are retried with exponential backoff,
 * honouring Retry-After up to max_retry_wait. A 410 Gone on a continue
 * token (the list expired while we paged) restarts the list from the start
 * once. Every failure names the endpoint, the HTTP status and the
 * Status.message the API server returned. Pages are handed to the caller
 * pod by pod (k8s_page.c) and dropped; the next page is fetched while the
 * pods of one are read, so memory holds at most two pages' text at a time.
 */
#include <stdio.h>
#include <string.h>

#include "k8s.h"
#include "httpanswer.h"

#define K8S_STATUS_MAX 200

struct k8s_req {
	const struct k8s *st;
	bool table; /* ask for the Table form */
	bool proto; /* else ask for protobuf before JSON */
	cr_plugin_ctx *ctx;
	const struct k8s_conn *conn;
	const char *endpoint; /* for messages: no continue token */
	int64_t deadline_ms;  /* now_ms() by which the whole list must end */
	k8s_pod_fn fn;        /* a streamed page's pods go here */
	void *ud;
};

void k8s_query_add(GString *q, const char *key, const char *value)
{
	char *esc = g_uri_escape_string(value, NULL, FALSE);

	g_string_append_printf(q, "%c%s=%s", q->len ? '&' : '?', key, esc);
	g_free(esc);
}

char *k8s_pods_path(const struct k8s_conn *conn, const char *ns)
{
	char *esc, *path;

	if (!ns)
		return g_strdup_printf("%s/api/v1/pods", conn->server);
	esc = g_uri_escape_string(ns, NULL, FALSE);
	path = g_strdup_printf("%s/api/v1/namespaces/%s/pods", conn->server, esc);
	g_free(esc);
	return path;
}

static char *k8s_list_url(const struct k8s *st, const char *base, const char *selector,
			  const char *cont, bool table)
{
	GString *q = g_string_new(NULL);
	char *url;

	if (selector && *selector)
		k8s_query_add(q, "labelSelector", selector);
	if (st->field_selector && *st->field_selector)
		k8s_query_add(q, "fieldSelector", st->field_selector);
	if (st->page_size > 0)
		g_string_append_printf(q, "%climit=%lld", q->len ? '&' : '?',
				       (long long)st->page_size);
	if (table)
		k8s_query_add(q, "includeObject", "None");
	if (cont) {
		k8s_query_add(q, "continue", cont); /* the token carries its version */
	} else if (st->from_cache) {
		/* any version the watch cache has: no etcd read. Servers before
		 * 1.31 (?) ignore limit then and send everything in one page. */
		k8s_query_add(q, "resourceVersion", "0");
		k8s_query_add(q, "resourceVersionMatch", "NotOlderThan");
	}
	url = g_strconcat(base, q->str, NULL);
	g_string_free(q, TRUE);
	return url;
}

/* The answer is in Kubernetes' protobuf encoding (by its Content-Type). */
bool k8s_is_protobuf(const cr_http_response *resp)
{
	const char *type = cr_host->http_header(resp, "Content-Type");
	size_t n = strlen(K8S_PROTOBUF);

	return type && g_ascii_strncasecmp(type, K8S_PROTOBUF, n) == 0 &&
	       (type[n] == '\0' || type[n] == ';' || g_ascii_isspace(type[n]));
}

/* "ENDPOINT: HTTP 403 Forbidden: pods is forbidden: ..." from a Status. */
cr_status k8s_answer_error(const char *endpoint, const char *token, const cr_http_response *resp,
			   int attempts, cr_error *err)
{
	long code = cr_host->http_status(resp);
	size_t len = 0;
	const char *body = cr_host->http_body(resp, &len);
	const char *reason = NULL, *msg = NULL;
	cr_json *root = NULL;
	json_object *pb = NULL, *v;
	char tries[48] = "", *said;
	cr_status rc;

	if (body && len && k8s_is_protobuf(resp)) {
		pb = k8s_pb_status(body, len);
		if (pb && json_object_object_get_ex(pb, "reason", &v))
			reason = json_object_get_string(v);
		if (pb && json_object_object_get_ex(pb, "message", &v))
			msg = json_object_get_string(v);
	} else if (body && len && cr_host->json_parse(body, len, endpoint, &root, NULL) == CR_OK) {
		reason = cr_host->json_string(cr_host->json_get(root, "/reason"));
		msg = cr_host->json_string(cr_host->json_get(root, "/message"));
	}
	if (attempts > 1)
		snprintf(tries, sizeof(tries), " (after %d attempts)", attempts);
	/* The Bearer token we sent is cut out: a server may echo it. */
	said = msg != NULL ? redact_secrets(msg, (const char *const[]){ token, NULL }) : NULL;
	msg = said;
	/* long Status messages (410 Expired) would not fit the error record */
	rc = cr_host->error_set(err, http_status_code(code), "%s: HTTP %ld%s%s: %.*s%s%s", endpoint,
				code, reason ? " " : "", reason ? reason : "", K8S_STATUS_MAX,
				msg ? msg : "(no Status in the answer)",
				msg && strlen(msg) > K8S_STATUS_MAX ? "..." : "", tries);
	cr_host->json_free(root);
	json_object_put(pb);
	g_free(said);
	return rc;
}

static cr_status k8s_http_error(const struct k8s_req *r, const cr_http_response *resp, int attempts,
				cr_error *err)
{
	return k8s_answer_error(r->endpoint, r->conn->token, resp, attempts, err);
}

static bool k8s_retryable(long code)
{
	return code == 429 || (code >= 500 && code != 501);
}

/* How long to wait before attempt @attempt+1: Retry-After, else backoff. */
static int64_t k8s_retry_wait(const struct k8s *st, const cr_http_response *resp, int attempt)
{
	const char *ra = cr_host->http_header(resp, "Retry-After");
	int64_t ms = 200LL << (attempt < 6 ? attempt : 6);

	/* Delta-seconds or an HTTP-date, saturating: a huge value must not
	 * overflow into a short wait. */
	if (ra)
		retry_after_ms(ra, g_get_real_time() / 1000, &ms);
	if (ms > st->max_retry_wait_ms)
		ms = st->max_retry_wait_ms;
	return ms;
}

static cr_status k8s_list_timeout(const struct k8s_req *r, cr_error *err)
{
	return cr_host->error_set(err, CR_ERR_TIMEOUT,
				  "%s: the list did not end within list_timeout (%.1f s)",
				  r->endpoint, (double)r->st->list_timeout_ms / 1000.0);
}

/* GET @url; *@resp holds the last answer (any status) on CR_OK. With
 * @page, the body of a 2xx answer goes to it as it arrives (the answers of
 * other statuses are kept whole, for their Status). */
static cr_status k8s_get(const struct k8s_req *r, const char *url, struct k8s_pbs *page,
			 cr_http_response **resp, int *attempts, cr_error *err)
{
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	const struct k8s_conn *c = r->conn;
	char *auth = c->token ? g_strconcat("Authorization: Bearer ", c->token, NULL) : NULL;
	const char *accept = r->table   ? "Accept: application/json;as=Table;v=v1;g=meta.k8s.io, "
					  "application/json"
			     : r->proto ? "Accept: " K8S_PROTOBUF ", application/json"
					: "Accept: application/json";
	const char *headers[] = { accept, "User-Agent: cluster-resolver-k8s/" CR_VERSION_STRING,
				  auth, NULL };
	cr_status rc;

	req.url = url;
	req.headers = headers;
	req.max_body = page ? K8S_PAGE_MAX : 0; /* a stream has no cap of its own */
	req.timeout_ms = r->st->request_timeout_ms;
	req.connect_timeout_ms = r->st->connect_timeout_ms;
	k8s_conn_tls(c, &req);
	for (int attempt = 0;; attempt++) {
		int64_t left = r->deadline_ms - cr_host->now_ms(r->ctx);

		*attempts = attempt + 1;
		if (left <= 0) {
			rc = k8s_list_timeout(r, err);
			break;
		}
		req.timeout_ms =
			left < r->st->request_timeout_ms ? (long)left : r->st->request_timeout_ms;
		rc = page ? cr_host->http_stream(r->ctx, &req, k8s_pbs_feed, page, resp, err)
			  : cr_host->http_request(r->ctx, &req, resp, err);
		if (rc == CR_ERR_TIMEOUT && req.timeout_ms < r->st->request_timeout_ms)
			rc = k8s_list_timeout(r, err); /* cut short by the list's deadline */
		else if (rc == CR_ERR_TIMEOUT)
			rc = cr_host->error_set(
				err, rc,
				"%s: timed out (connect_timeout %.1f s, request_timeout %.1f s)",
				r->endpoint, (double)req.connect_timeout_ms / 1000.0,
				(double)req.timeout_ms / 1000.0);
		if (rc != CR_OK || attempt >= r->st->retries ||
		    !k8s_retryable(cr_host->http_status(*resp)))
			break;
		int64_t ms = k8s_retry_wait(r->st, *resp, attempt);

		cr_host->log(r->ctx, CR_LOG_INFO, "%s: HTTP %ld, retrying in %lld ms", r->endpoint,
			     cr_host->http_status(*resp), (long long)ms);
		cr_host->http_response_free(*resp);
		*resp = NULL;
		if (ms > r->deadline_ms - cr_host->now_ms(r->ctx))
			ms = r->deadline_ms - cr_host->now_ms(r->ctx);
		if (ms > 0)
			cr_host->sleep_ms(r->ctx, ms);
	}
	k8s_wipe_free(auth);
	return rc;
}

static char *k8s_endpoint(const struct k8s_conn *conn, const char *base, const char *selector)
{
	if (selector && *selector)
		return g_strdup_printf("GET %s?labelSelector=%s", base, selector);
	return g_strdup_printf("GET %s", base);
}

/* Start the list again from the beginning: after a 410 on a continue
 * token, or with full pods instead of Table rows. */
static void k8s_list_restart(GHashTable *seen, char **cont, char **version, int64_t *pages,
			     k8s_restart_fn restart, void *user_data)
{
	g_clear_pointer(cont, g_free);
	if (version)
		g_clear_pointer(version, g_free);
	g_hash_table_remove_all(seen);
	*pages = 0;
	restart(user_data);
}

/* Whether pages are read as they arrive (k8s_pbstream.c): protobuf pods,
 * from a host that streams, outside a watch (where a stream would have a
 * connection of its own, page after page). */
static bool k8s_streams(const struct k8s_req *r)
{
	return r->proto && !r->table && CR_HOST_HAS(cr_host, http_stream) &&
	       !(CR_HOST_HAS(cr_host, watch_cancel_fd) && cr_host->watch_cancel_fd(r->ctx) >= 0);
}

/* GET a page of the list: streamed into a new *@page when k8s_streams(). */
static cr_status k8s_get_page(const struct k8s_req *r, const char *url, struct k8s_pbs **page,
			      cr_http_response **resp, int *attempts, cr_error *err)
{
	k8s_pbs_free(*page);
	*page = k8s_streams(r) ? k8s_pbs_new(r->endpoint, r->fn, r->ud) : NULL;
	return k8s_get(r, url, *page, resp, attempts, err);
}

/**
 * k8s_list_pods:
 * List the pods of @namespace (NULL = all) matching @selector, page by
 * page, calling @fn for each. Protobuf pages are read as they arrive
 * (k8s_pbstream.c); other pages are read whole, and the next page is
 * requested as soon as the walk of this one has passed its continue token
 * (k8s_page.c). After a 410 on a continue token @restart is called and
 * the list starts again (once). With @table the Table form is asked for;
 * when the server refuses it (406) or a page cannot stand for the pods
 * (k8s_page.c), @restart is called and the list starts again with full
 * pods.
 * Returns: CR_OK, or the first failure (network, HTTP status, JSON, @fn's).
 */
cr_status k8s_list_pods(const struct k8s *st, cr_plugin_ctx *ctx, const struct k8s_conn *conn,
			const char *namespace, const char *selector, bool table, k8s_pod_fn fn,
			k8s_restart_fn restart, void *user_data, char **version, cr_error *err)
{
	char *base = k8s_pods_path(conn, namespace);
	char *endpoint = k8s_endpoint(conn, base, selector);
	struct k8s_req r = {
		.st = st,
		.table = table && namespace != NULL,
		.proto = st->protobuf,
		.ctx = ctx,
		.conn = conn,
		.endpoint = endpoint,
		.deadline_ms = cr_host->now_ms(ctx) + st->list_timeout_ms,
		.fn = fn,
		.ud = user_data,
	};
	cr_http_response *resp = NULL, *next_resp = NULL;
	struct k8s_pbs *page = NULL;
	GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	char *cont = NULL, *url;
	bool restarted = false, need_full = false;
	int attempts = 0;
	int64_t pages = 0;
	const char *endless = NULL;
	cr_status rc, walk;

	url = k8s_list_url(st, base, selector, NULL, r.table);
	rc = k8s_get_page(&r, url, &page, &resp, &attempts, err);
	g_free(url);
	while (rc == CR_OK) {
		long code = cr_host->http_status(resp);
		size_t len = 0;
		const char *body;
		char *next = NULL, *ver = NULL;
		bool fetched = false; /* the next page is in resp already */

		if (code == 406 && r.table) {
			cr_host->log(ctx, CR_LOG_INFO,
				     "%s: the server refuses the Table form (HTTP 406); listing "
				     "full pods",
				     endpoint);
			r.table = false;
			k8s_list_restart(seen, &cont, version, &pages, restart, user_data);
			goto again;
		} else if (code == 406 && r.proto) {
			cr_host->log(ctx, CR_LOG_INFO,
				     "%s: the server refuses protobuf (HTTP 406); listing JSON",
				     endpoint);
			r.proto = false;
			k8s_list_restart(seen, &cont, version, &pages, restart, user_data);
			goto again;
		} else if (code == 410 && cont && !restarted) {
			cr_host->log(ctx, CR_LOG_INFO, "%s: continue token expired, listing again",
				     endpoint);
			restarted = true;
			k8s_list_restart(seen, &cont, version, &pages, restart, user_data);
			goto again;
		} else if (code != 200) {
			rc = k8s_http_error(&r, resp, attempts, err);
			break;
		}
		if (page) { /* read as it came */
			walk = k8s_pbs_finish(page, k8s_is_protobuf(resp), namespace, &need_full,
					      &next, &ver, err);
		} else {
			struct k8s_pager *pager;

			body = cr_host->http_body(resp, &len);
			pager = k8s_pager_start(endpoint, namespace, body, len,
						k8s_is_protobuf(resp), fn, user_data);
			next = k8s_pager_next(pager);
			ver = k8s_pager_version(pager);
			/* A server that hands back a token it gave before, or pages
			 * without end, would be followed for ever: not fetched. */
			if (next && !g_hash_table_contains(seen, next) &&
			    pages + 1 < st->max_pages) {
				/* fetched while the pods of this page are read */
				url = k8s_list_url(st, base, selector, next, r.table);
				rc = k8s_get(&r, url, NULL, &next_resp, &attempts, err);
				g_free(url);
				fetched = true;
			}
			/* this page's failure comes before the next request's */
			walk = k8s_pager_finish(pager, &need_full, err);
		}
		g_free(cont);
		cont = next;
		if (version && !*version) /* every page of a list has the first's */
			*version = g_steal_pointer(&ver);
		g_free(ver);
		pages++;
		if (cont && !g_hash_table_add(seen, g_strdup(cont)))
			endless = "repeats an earlier continue token";
		else if (cont && pages >= st->max_pages)
			endless = "is still not the last, at max_pages";
		if (endless)
			g_clear_pointer(&cont, g_free);
		cr_host->http_response_free(resp);
		resp = next_resp;
		next_resp = NULL;
		if (need_full && r.table) {
			cr_host->log(ctx, CR_LOG_INFO,
				     "%s: a Table row does not say enough (a pod not "
				     "shown Running); listing full pods",
				     endpoint);
			r.table = false;
			endless = NULL;
			rc = CR_OK;
			k8s_list_restart(seen, &cont, version, &pages, restart, user_data);
			goto again;
		}
		if (need_full) /* rows where full pods were asked for */
			rc = cr_host->error_set(err, CR_ERR_PARSE,
						"%s: answer is a Table that does not say enough, "
						"where a PodList was asked for",
						endpoint);
		else if (walk != CR_OK)
			rc = walk;
		else if (endless)
			rc = cr_host->error_set(err, CR_ERR_BACKEND,
						"%s: page %lld %s; the list would never end",
						endpoint, (long long)pages, endless);
		if (!cont || rc != CR_OK)
			break;
		if (fetched)
			continue;
	again:
		cr_host->http_response_free(resp);
		resp = NULL;
		url = k8s_list_url(st, base, selector, cont, r.table);
		rc = k8s_get_page(&r, url, &page, &resp, &attempts, err);
		g_free(url);
	}
	cr_host->http_response_free(resp);
	k8s_pbs_free(page);
	g_hash_table_unref(seen);
	g_free(cont);
	g_free(endpoint);
	g_free(base);
	return rc;
}

/* A watch request's URL (k8s_watch.c): the list's selectors, from @version,
 * bookmarks on, @timeout_s as timeoutSeconds. */
char *k8s_watch_url(const struct k8s *st, const char *base, const char *selector,
		    const char *version, int64_t timeout_s)
{
	GString *q = g_string_new(NULL);
	char t[32];
	char *url;

	if (selector)
		k8s_query_add(q, "labelSelector", selector);
	if (st->field_selector && *st->field_selector)
		k8s_query_add(q, "fieldSelector", st->field_selector);
	k8s_query_add(q, "watch", "1");
	k8s_query_add(q, "resourceVersion", version);
	k8s_query_add(q, "allowWatchBookmarks", "true");
	snprintf(t, sizeof(t), "%lld", (long long)timeout_s);
	k8s_query_add(q, "timeoutSeconds", t);
	url = g_strconcat(base, q->str, NULL);
	g_string_free(q, TRUE);
	return url;
}
