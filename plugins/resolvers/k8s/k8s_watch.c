/* SPDX-License-Identifier: MIT */
/*
 * k8s_watch.c - the watch op: wait until the pods the last resolve listed
 * may have changed.
 *
 * After the list, `GET .../pods?watch=1&resourceVersion=RV&
 * allowWatchBookmarks=true&timeoutSeconds=T` with the list's selectors,
 * through host->http_stream. Events come as JSON (one object a line) or
 * protobuf (length-prefixed WatchEvent frames, k8s_proto.c); which one is
 * told by the first byte ('{' or a frame length's high byte, 0), as the
 * Content-Type is only known once the answer ends. Each pod of an event
 * is read into the same view as a listed pod (k8s_view.c, k8s_proto.c) and
 * compared with what the list said of it (k8s_pod_digest: phase, address,
 * index, accelerators): an event that changes none of it (a status
 * heartbeat, a new condition) is not a change and the watch goes on.
 *
 *   - every event and BOOKMARK moves the resourceVersion the watch resumes
 *     from; a stream the server ends (timeoutSeconds), one cut mid-event
 *     and a dropped connection are resumed from it, with capped, jittered
 *     backoff when nothing came;
 *   - 410 Gone / an ERROR event with reason Expired or Gone: the version is
 *     too old; answered as a change, so the host lists again;
 *   - any other ERROR event fails the watch naming its Status (the Bearer
 *     token sent cut out of its reason and message, as from a list's
 *     Status: a server may echo it); garbage in an event fails it naming
 *     the offset (the host lists again after its backoff).
 *
 * One stream watches one list (k8s_watch_one); the op that runs one
 * per list, or polls, is k8s_watch_many.c.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "k8s.h"
#include "httpanswer.h"

#define K8S_EVENT_MAX ((size_t)16 << 20) /* one event's bytes, at most */
#define K8S_BACKOFF_MIN_MS 200
#define K8S_BACKOFF_MAX_MS 30000
#define K8S_SLACK_MS 5000 /* past timeoutSeconds before a silent stream is dropped */
/* The longest resourceVersion kept and sent back. Kubernetes' are etcd
 * revisions (a decimal int64: at most 20 digits); 256 bytes leaves room
 * for an aggregated API server's opaque form and keeps every watch URL
 * short. A longer one fails the watch naming it (the host lists again
 * after its backoff), never goes into a URL. */
#define K8S_VERSION_MAX 256
/* The least time between two watch requests of one op (N4): a server or
 * proxy that ends every stream after one event or BOOKMARK gets at most
 * one request a second from each process, not one per round trip. A
 * stream that lived this long resumes at once, as before. */
#define K8S_RECONNECT_FLOOR_MS 1000

/* ---- one stream ----------------------------------------------------------- */

enum k8s_framing {
	K8S_FRAMING_UNKNOWN,
	K8S_FRAMING_JSON,
	K8S_FRAMING_PROTO,
};

struct k8s_stream {
	const struct k8s *st;
	cr_plugin_ctx *ctx;
	struct k8s_watch_list *list; /* its pods follow the events when it is full */
	const char *endpoint;
	const char *token; /* the connection's Bearer token (nullable): cut out of a Status */
	enum k8s_framing framing;
	GString *buf; /* bytes of the event being received */
	GString *scratch;
	struct k8s_view_store store;
	struct k8s_self self; /* this process's pod, for the records kept */
	json_tokener *tok;
	char *version;  /* where the watch resumes */
	int64_t events; /* of this stream */
	bool changed;   /* a membership change, or 410 */
	bool expired;   /* 410: the kept pods are stale, the host lists again */
	cr_status rc;   /* a failure that ends the watch */
	cr_error *err;
};

static bool k8s_is(const char *s, const char *what)
{
	return s && strcmp(s, what) == 0;
}

/* @text from the server as a message may quote it: the Bearer token sent
 * cut out (a server may echo it), control characters escaped by the
 * host's one rule (host->log and error_set), at most 200 bytes (g_free). */
static char *k8s_said(const struct k8s_stream *s, const char *text)
{
	const char *const secrets[] = { s->token, NULL };
	char *r = redact_secrets(text ? text : "", secrets);

	if (strlen(r) > 200)
		memcpy(r + 197, "...", 4); /* with its NUL: the text ends at 200 */
	return r;
}

static void k8s_stream_version(struct k8s_stream *s, const char *version)
{
	size_t n = version ? strlen(version) : 0;

	if (n > K8S_VERSION_MAX) {
		s->rc = cr_host->error_set(
			s->err, CR_ERR_PARSE,
			"%s: event %lld: resourceVersion of %zu bytes (more than "
			"%d): refused",
			s->endpoint, (long long)s->events, n, K8S_VERSION_MAX);
		return;
	}
	if (version && *version && !k8s_is(s->version, version)) {
		g_free(s->version);
		s->version = g_strdup(version);
	}
}

/* An ERROR event: 410 (Expired, Gone) is a change; anything else fails.
 * The token we sent is cut out of the Status's text before any of it is
 * logged or cut short (a server may echo it, as k8s_answer_error knows). */
static void k8s_event_error(struct k8s_stream *s, int64_t code, const char *reason,
			    const char *message)
{
	const char *const secrets[] = { s->token, NULL };
	char *said_reason = reason ? redact_secrets(reason, secrets) : NULL;
	char *said = message ? redact_secrets(message, secrets) : NULL;

	if (code == 410 || k8s_is(reason, "Expired") || k8s_is(reason, "Gone")) {
		char *v = k8s_said(s, s->version ? s->version : "(none)");

		cr_host->log(s->ctx, CR_LOG_INFO,
			     "%s: resourceVersion %s is too old (%.200s); listing again",
			     s->endpoint, v, said_reason ? said_reason : "410");
		g_free(v);
		s->changed = s->expired = true;
	} else {
		s->rc = cr_host->error_set(s->err, CR_ERR_BACKEND, "%s: ERROR event: %s%s%.200s",
					   s->endpoint, said_reason ? said_reason : "(no reason)",
					   said ? ": " : "", said ? said : "");
	}
	g_free(said_reason);
	g_free(said);
}

/* ADDED, MODIFIED, DELETED or BOOKMARK of @pod. */
static void k8s_event_pod(struct k8s_stream *s, const char *type, const struct k8s_pod_view *pod)
{
	const char *ns = pod->ns ? pod->ns : "";
	guint64 old = 0, now = 0, hash;
	bool known, counts, differs;
	char *key;

	k8s_stream_version(s, pod->version);
	if (s->rc != CR_OK || k8s_is(type, "BOOKMARK"))
		return;
	if (!k8s_is(type, "ADDED") && !k8s_is(type, "MODIFIED") && !k8s_is(type, "DELETED")) {
		char *said = k8s_said(s, type);

		s->rc = cr_host->error_set(s->err, CR_ERR_PARSE,
					   "%s: event %lld: unknown type '%.32s'", s->endpoint,
					   (long long)s->events, said);
		g_free(said);
		return;
	}
	if (!pod->name) {
		s->rc = cr_host->error_set(s->err, CR_ERR_PARSE,
					   "%s: event %lld (%s): the object is not a pod",
					   s->endpoint, (long long)s->events, type);
		return;
	}
	hash = k8s_pod_key_hash(pod, ns);
	known = k8s_watch_list_get(s->list, hash, &old);
	/* A pod the list did not have and outside its selector (a server or
	 * proxy that does not filter): not one of ours, no change. (One the
	 * list had is the server's word: its DELETED says when it leaves.) */
	if (!known && !k8s_view_selected(pod, s->list->selector)) {
		key = k8s_said(s, pod->name);
		cr_host->log(s->ctx, CR_LOG_DEBUG, "%s: %s pod %s outside the selector: ignored",
			     s->endpoint, type, key);
		g_free(key);
		return;
	}
	counts = !k8s_is(type, "DELETED") && k8s_pod_counts(s->st, pod);
	if (counts)
		now = k8s_pod_digest(s->st, pod, ns, s->scratch);
	differs = known != counts || (counts && old != now);
	/* A full list follows the pod: its record kept as it is now (also when
	 * nothing the membership reads changed: whether it is this process's
	 * pod may have). */
	if (s->list->full && (known || counts))
		k8s_watch_list_update(s->list, hash, now,
				      counts ? k8s_pod_record(s->st, pod, ns, &s->self, s->scratch)
					     : NULL,
				      !counts);
	if (differs) {
		char *raw = k8s_pod_key(pod, ns);

		s->changed = true;
		key = k8s_said(s, raw);
		g_free(raw);
		cr_host->log(s->ctx, CR_LOG_DEBUG, "%s: %s pod %s: membership changed", s->endpoint,
			     type, key);
		g_free(key);
	}
}

/* One JSON event, @n bytes (a line). */
static void k8s_json_event(struct k8s_stream *s, const char *text, size_t n)
{
	json_object *ev, *type = NULL, *obj = NULL, *v = NULL;
	struct k8s_pod_view pod;
	const char *t, *bad;

	json_tokener_reset(s->tok);
	ev = json_tokener_parse_ex(s->tok, text, (int)n);
	if (!ev || json_tokener_get_error(s->tok) != json_tokener_success ||
	    !json_object_is_type(ev, json_type_object) ||
	    !json_object_object_get_ex(ev, "type", &type) ||
	    !json_object_is_type(type, json_type_string) ||
	    !json_object_object_get_ex(ev, "object", &obj) ||
	    !json_object_is_type(obj, json_type_object)) {
		s->rc = cr_host->error_set(s->err, CR_ERR_PARSE,
					   "%s: event %lld is not a JSON watch event", s->endpoint,
					   (long long)s->events);
		json_object_put(ev);
		return;
	}
	t = json_object_get_string(type);
	if (k8s_is(t, "ERROR")) {
		const char *reason = NULL, *msg = NULL;
		int64_t code = 0;

		if (json_object_object_get_ex(obj, "code", &v))
			code = json_object_get_int64(v);
		if (json_object_object_get_ex(obj, "reason", &v) &&
		    json_object_is_type(v, json_type_string))
			reason = json_object_get_string(v);
		if (json_object_object_get_ex(obj, "message", &v) &&
		    json_object_is_type(v, json_type_string))
			msg = json_object_get_string(v);
		k8s_event_error(s, code, reason, msg);
	} else {
		bad = k8s_view_from_json(&s->store, obj, &pod);
		if (bad)
			s->rc = cr_host->error_set(s->err, CR_ERR_PARSE,
						   "%s: event %lld: %s is not UTF-8 without NUL",
						   s->endpoint, (long long)s->events, bad);
		else
			k8s_event_pod(s, t, &pod);
	}
	json_object_put(ev);
}

/* One protobuf event (a frame without its length). */
static void k8s_proto_event(struct k8s_stream *s, const uint8_t *buf, size_t n)
{
	struct k8s_pod_view pod;
	json_object *status = NULL, *v;
	char *type = NULL;

	s->rc = k8s_pb_event(s->endpoint, buf, n, &s->store, &type, &pod, &status, s->err);
	if (s->rc != CR_OK)
		return;
	if (k8s_is(type, "ERROR")) {
		const char *reason = NULL, *msg = NULL;

		if (status && json_object_object_get_ex(status, "reason", &v))
			reason = json_object_get_string(v);
		if (status && json_object_object_get_ex(status, "message", &v))
			msg = json_object_get_string(v);
		k8s_event_error(s, 0, reason, msg);
	} else {
		k8s_event_pod(s, type, &pod);
	}
	json_object_put(status);
	g_free(type);
}

/* Read the complete events in s->buf; keep a partial one. */
static void k8s_stream_events(struct k8s_stream *s)
{
	size_t pos = 0;

	/* A full list takes every event already here; otherwise the first
	 * change ends the stream (the host lists again). */
	while (s->rc == CR_OK && (!s->changed || (s->list->full && !s->expired)) &&
	       pos < s->buf->len) {
		const char *p = s->buf->str + pos;
		size_t left = s->buf->len - pos;

		if (s->framing == K8S_FRAMING_JSON) {
			const char *nl = memchr(p, '\n', left);

			if (!nl)
				break;
			size_t skip = 0;

			while (p + skip < nl && g_ascii_isspace(p[skip]))
				skip++;
			if (p + skip < nl) {
				s->events++;
				k8s_json_event(s, p, (size_t)(nl - p));
			}
			pos += (size_t)(nl - p) + 1;
		} else {
			const uint8_t *u = (const uint8_t *)p;
			size_t n;

			if (left < 4)
				break;
			n = (size_t)u[0] << 24 | (size_t)u[1] << 16 | (size_t)u[2] << 8 | u[3];
			if (n > K8S_EVENT_MAX) {
				s->rc = cr_host->error_set(
					s->err, CR_ERR_PARSE,
					"%s: event %lld announces %zu bytes (more "
					"than %zu)",
					s->endpoint, (long long)s->events + 1, n, K8S_EVENT_MAX);
				break;
			}
			if (left - 4 < n)
				break;
			s->events++;
			k8s_proto_event(s, u + 4, n);
			pos += 4 + n;
		}
	}
	g_string_erase(s->buf, 0, (gssize)pos);
	if (s->rc == CR_OK && s->buf->len > K8S_EVENT_MAX)
		s->rc = cr_host->error_set(s->err, CR_ERR_PARSE,
					   "%s: event %lld is larger than %zu bytes", s->endpoint,
					   (long long)s->events + 1, K8S_EVENT_MAX);
}

/* host->http_stream's reader: false ends the stream. */
static bool k8s_stream_data(const char *data, size_t len, void *user)
{
	struct k8s_stream *s = user;

	if (s->framing == K8S_FRAMING_UNKNOWN) {
		size_t i = 0;

		while (i < len && g_ascii_isspace(data[i]))
			i++;
		if (i == len)
			return true;
		s->framing = data[i] == '{' ? K8S_FRAMING_JSON : K8S_FRAMING_PROTO;
		/* the blanks before the first event go, however they were cut */
		data += i;
		len -= i;
	}
	g_string_append_len(s->buf, data, (gssize)len);
	k8s_stream_events(s);
	return s->rc == CR_OK && !s->changed;
}

/* ---- the watch op --------------------------------------------------------- */

/* Wait @ms, or less when the watch is cancelled. */
void k8s_watch_sleep(cr_plugin_ctx *ctx, int64_t ms)
{
	int fd = cr_host->watch_cancel_fd(ctx);
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (ms <= 0)
		return;
	if (fd < 0) {
		cr_host->sleep_ms(ctx, ms);
		return;
	}
	while (poll(&p, 1, (int)MIN(ms, (int64_t)G_MAXINT)) < 0)
		;
}

/* Capped exponential backoff, jittered to 50..100 %. */
static int64_t k8s_backoff_ms(int failures)
{
	int64_t ms = (int64_t)K8S_BACKOFF_MIN_MS << MIN(failures, 10);

	if (ms > K8S_BACKOFF_MAX_MS)
		ms = K8S_BACKOFF_MAX_MS;
	return ms / 2 + g_random_int_range(0, (gint32)(ms / 2) + 1);
}

struct k8s_watch_run {
	const struct k8s *st;
	cr_plugin_ctx *ctx;
	const struct k8s_conn *conn;
	struct k8s_watch_list *list;
	char *base, *endpoint;
};

/* One request; what it ended with is in @s (changed, rc) and the return:
 * CR_OK (the stream ended: resume; *@again: after a backoff), or a
 * failure. */
static cr_status k8s_watch_once(struct k8s_watch_run *w, struct k8s_stream *s, int64_t left_ms,
				bool *got_events, bool *again, cr_error *err)
{
	cr_http_request req = CR_HTTP_REQUEST_INIT;
	const struct k8s_conn *c = w->conn;
	char *auth = c->token ? g_strconcat("Authorization: Bearer ", c->token, NULL) : NULL;
	const char *accept = w->st->protobuf ? "Accept: " K8S_PROTOBUF ", application/json"
					     : "Accept: application/json";
	const char *headers[] = { accept, "User-Agent: cluster-resolver-k8s/" CR_VERSION_STRING,
				  auth, NULL };
	int64_t timeout_s = MIN(w->st->watch_timeout_s, (left_ms + 999) / 1000);
	char *url = k8s_watch_url(w->st, w->base, w->list->selector, s->version, MAX(timeout_s, 1));
	cr_http_response *resp = NULL;
	cr_status rc;
	long code;

	req.url = url;
	req.headers = headers;
	req.timeout_ms = (long)MAX(timeout_s, 1) * 1000 + K8S_SLACK_MS;
	req.connect_timeout_ms = w->st->connect_timeout_ms;
	k8s_conn_tls(c, &req);
	s->framing = K8S_FRAMING_UNKNOWN;
	s->events = 0;
	g_string_truncate(s->buf, 0);
	rc = cr_host->http_stream(w->ctx, &req, k8s_stream_data, s, &resp, err);
	k8s_wipe_free(auth);
	g_free(url);
	*got_events = s->events > 0;
	if (s->rc != CR_OK || s->changed) {
		cr_host->http_response_free(resp);
		return s->rc;
	}
	if (rc == CR_ERR_TIMEOUT) { /* a stream silent past timeoutSeconds */
		cr_host->log(w->ctx, CR_LOG_INFO, "%s: silent past timeoutSeconds; reconnecting",
			     w->endpoint);
		return CR_OK;
	}
	if (rc != CR_OK) {
		cr_host->log(w->ctx, CR_LOG_INFO, "%s: %s; reconnecting", w->endpoint,
			     err ? err->message : "connection failed");
		*again = true;
		return CR_OK;
	}
	code = cr_host->http_status(resp);
	if (code == 410) {
		cr_host->log(w->ctx, CR_LOG_INFO,
			     "%s: HTTP 410: resourceVersion %s is too old; "
			     "listing again",
			     w->endpoint, s->version);
		s->changed = s->expired = true;
	} else if (code == 429 || (code >= 500 && code != 501)) {
		k8s_answer_error(w->endpoint, w->conn->token, resp, 1,
				 err); /* the last failure, named */
		cr_host->log(w->ctx, CR_LOG_INFO, "%s: HTTP %ld; reconnecting", w->endpoint, code);
		*again = true;
	} else if (code != 200) {
		rc = k8s_answer_error(w->endpoint, w->conn->token, resp, 1, err);
	} else if (s->buf->len > 0) {
		cr_host->log(w->ctx, CR_LOG_INFO,
			     "%s: stream cut mid-event (%zu bytes); resuming "
			     "from resourceVersion %s",
			     w->endpoint, s->buf->len, s->version);
	}
	cr_host->http_response_free(resp);
	return rc;
}

/* One list's watch (k8s_watch_many.c runs one per selector): streams
 * until a change, a failure, @o->deadline_ms or the end of the watch. What
 * it ended with goes to @o; the list and its state are left to the caller. */
void k8s_watch_one(struct k8s_watch_one *o)
{
	struct k8s_watch_run w = { o->st, o->ctx, o->conn, o->list, NULL, NULL };
	struct k8s_stream s = { 0 };
	cr_plugin_ctx *ctx = o->ctx;
	cr_error *err = &o->err;
	int64_t deadline_ms = o->deadline_ms;
	int failures = 0;
	cr_status rc = CR_OK;

	w.base = k8s_pods_path(o->conn, o->st->watched->namespace);
	w.endpoint = w.list->selector ? g_strdup_printf("GET %s?labelSelector=%s (watch)", w.base,
							w.list->selector)
				      : g_strdup_printf("GET %s (watch)", w.base);
	if (strlen(w.list->version) > K8S_VERSION_MAX) {
		o->rc = cr_host->error_set(err, CR_ERR_PARSE,
					   "%s: the list's resourceVersion of %zu bytes (more than "
					   "%d): refused",
					   w.endpoint, strlen(w.list->version), K8S_VERSION_MAX);
		goto out;
	}
	s.st = o->st;
	s.ctx = ctx;
	s.list = w.list;
	s.endpoint = w.endpoint;
	s.token = o->conn->token;
	s.buf = g_string_new(NULL);
	s.scratch = g_string_new(NULL);
	s.tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	s.version = g_strdup(w.list->version);
	s.err = err;
	k8s_view_store_init(&s.store);
	s.store.want_labels = true; /* an event's pod is matched with the selector */
	k8s_self_kept(o->st->watched, &s.self);
	for (;;) {
		int64_t started = cr_host->now_ms(ctx);
		int64_t left = deadline_ms - started;
		bool got = false, again = false;

		if (left <= 0 || cr_host->watch_cancelled(ctx))
			break;
		rc = k8s_watch_once(&w, &s, left, &got, &again, err);
		if (s.changed || rc != CR_OK)
			break;
		if (cr_host->watch_cancelled(ctx))
			break;
		/* A stream that lasted resumes at once; one that brought events
		 * but ended within the floor resumes when the floor has passed
		 * since it began (a server that closes each stream after one
		 * event is asked at most once a second). */
		if (!again && cr_host->now_ms(ctx) - started >= K8S_RECONNECT_FLOOR_MS) {
			failures = 0;
			continue;
		}
		if (!again && got) {
			failures = 0;
			k8s_watch_sleep(ctx, MIN(started + K8S_RECONNECT_FLOOR_MS, deadline_ms) -
						     cr_host->now_ms(ctx));
			continue;
		}
		if (again && failures >= o->st->retries) {
			char *last = g_strdup(err->message);

			rc = cr_host->error_set(err, CR_ERR_NETWORK,
						"%s (still failing after %d reconnections)", last,
						failures + 1);
			g_free(last);
			break;
		}
		/* nothing came: wait before asking again */
		k8s_watch_sleep(ctx,
				MIN(k8s_backoff_ms(failures), deadline_ms - cr_host->now_ms(ctx)));
		failures++;
		rc = CR_OK;
	}
	o->rc = rc;
	o->changed = rc == CR_OK && s.changed;
	o->expired = s.expired;
	o->version = g_steal_pointer(&s.version);
	g_string_free(s.buf, TRUE);
	g_string_free(s.scratch, TRUE);
	json_tokener_free(s.tok);
	k8s_view_store_clear(&s.store);
out:
	g_free(w.base);
	g_free(w.endpoint);
}
