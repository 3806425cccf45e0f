/* SPDX-License-Identifier: MIT */
/*
 * test-k8s-watch.c - k8s.so's watch op through cr-testhost: after a list
 * of two running pods (resourceVersion 100), each case scripts the watch
 * requests the plugin must make (URL with the version it resumes from)
 * and their streamed answers, handed over in small pieces, and checks
 * what the watch answers: changed, unchanged at the deadline, or the
 * exact error. The token never appears in the logs, nor in an error: a
 * server that echoes it in an ERROR event's Status (JSON or protobuf) or
 * in a refusal has it cut out.
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/testhost.h>

#define SERVER "https://api.test:6443"
#define PODS SERVER "/api/v1/namespaces/train/pods"
#define LIST PODS "?labelSelector=job-name%3Dworker"
#define WATCH_T(rv, t)                                                                             \
	LIST "&watch=1&resourceVersion=" rv "&allowWatchBookmarks=true&timeoutSeconds=" t
#define WATCH(rv) WATCH_T(rv, "300")
#define ENDPOINT "GET " PODS "?labelSelector=job-name=worker (watch)"
#define TOKEN "w4tch-t0ken"

static const char kubeconfig[] =
	"apiVersion: v1\nkind: Config\ncurrent-context: c\n"
	"clusters:\n- name: k\n  cluster:\n    server: " SERVER "\n"
	"contexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n    namespace: train\n"
	"users:\n- name: u\n  user:\n    token: " TOKEN "\n";

#define POD(name, ip, phase, rv)                                                                   \
	"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" name                   \
	"\",\"namespace\":\"train\",\"uid\":\"u-" name "\",\"resourceVersion\":\"" rv              \
	"\",\"labels\":{\"job-name\":\"worker\"}},\"spec\":{},\"status\":{\"phase\":\"" phase      \
	"\",\"podIP\":\"" ip "\"}}"
#define EV(type, obj) "{\"type\":\"" type "\",\"object\":" obj "}\n"
#define BOOKMARK(rv)                                                                               \
	EV("BOOKMARK", "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{"                    \
		       "\"resourceVersion\":\"" rv "\"}}")
#define STATUS(code, reason, msg)                                                                  \
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"" msg     \
	"\",\"reason\":\"" reason "\",\"code\":" #code "}"

static const char list_body[] =
	"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{"
	"\"resourceVersion\":\"100\"},\"items\":[" POD("w-0", "10.0.0.1", "Running", "90") "," POD(
		"w-1", "10.0.0.2", "Running", "91") "]}";

/* One scripted watch request: the version it must resume from, and its
 * answer (status 0: a dropped connection). */
typedef struct exchange {
	const char *url;
	long status;
	const char *body;
	const char *type; /* Content-Type; NULL: application/json */
} exchange;

typedef struct watch_case {
	const char *name;
	const char *config; /* extra options */
	exchange x[5];
	int64_t timeout_ms;
	cr_status status;
	bool changed;
	const char *message;
} watch_case;

/* ---- protobuf events (the bytes kube-apiserver streams) --------------------- */

static void pb_len(GString *out, guint num, const void *data, gsize n)
{
	guint64 key = (guint64)num << 3 | 2;

	for (guint64 v = key;; v >>= 7) {
		g_string_append_c(out, (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		if (v <= 0x7f)
			break;
	}
	for (guint64 v = n;; v >>= 7) {
		g_string_append_c(out, (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
		if (v <= 0x7f)
			break;
	}
	g_string_append_len(out, data, (gssize)n);
}

static void pb_str(GString *out, guint num, const char *s)
{
	pb_len(out, num, s, strlen(s));
}

/* "k8s\0" + Unknown { typeMeta 1 { apiVersion 1, kind 2 }, raw 2 } */
static GString *envelope(const char *kind, const GString *raw)
{
	GString *u = g_string_new(NULL), *tm = g_string_new(NULL);

	g_string_append_len(u, "k8s\0", 4);
	pb_str(tm, 1, "v1");
	pb_str(tm, 2, kind);
	pb_len(u, 1, tm->str, tm->len);
	pb_len(u, 2, raw->str, raw->len);
	g_string_free(tm, TRUE);
	return u;
}

/* A frame: length, WatchEvent { type 1, object 2 { raw 1 } } */
static void pb_event(GString *out, const char *type, const char *kind, const GString *raw)
{
	GString *ev = g_string_new(NULL), *ext = g_string_new(NULL);
	GString *obj = envelope(kind, raw);
	guint32 n;

	pb_len(ext, 1, obj->str, obj->len);
	pb_str(ev, 1, type);
	pb_len(ev, 2, ext->str, ext->len);
	n = GUINT32_TO_BE((guint32)ev->len);
	g_string_append_len(out, (const char *)&n, 4);
	g_string_append_len(out, ev->str, (gssize)ev->len);
	g_string_free(ev, TRUE);
	g_string_free(ext, TRUE);
	g_string_free(obj, TRUE);
}

/* Pod { metadata 1 { name 1, namespace 3, resourceVersion 6 }, status 3
 * { phase 1, podIP 6 } }; @name NULL: a bookmark's metadata only. */
static void pb_pod(GString *out, const char *type, const char *name, const char *ip,
		   const char *phase, const char *rv)
{
	GString *pod = g_string_new(NULL), *meta = g_string_new(NULL), *st = g_string_new(NULL);

	if (name) {
		pb_str(meta, 1, name);
		pb_str(meta, 3, "train");
	}
	pb_str(meta, 6, rv);
	pb_len(pod, 1, meta->str, meta->len);
	if (name) {
		pb_str(st, 1, phase);
		pb_str(st, 6, ip);
		pb_len(pod, 3, st->str, st->len);
	}
	pb_event(out, type, "Pod", pod);
	g_string_free(pod, TRUE);
	g_string_free(meta, TRUE);
	g_string_free(st, TRUE);
}

static GString *proto_stream(int which)
{
	GString *out = g_string_new(NULL);

	switch (which) {
	case 0: /* a heartbeat, a bookmark: no change */
		pb_pod(out, "MODIFIED", "w-1", "10.0.0.2", "Running", "101");
		pb_pod(out, "BOOKMARK", NULL, NULL, NULL, "150");
		break;
	case 1: /* from 150: w-0 gets another IP */
		pb_pod(out, "MODIFIED", "w-0", "10.0.0.7", "Running", "151");
		break;
	case 3: /* blank bytes before the first frame, in its first piece */
		g_string_append(out, "\r\n");
		pb_pod(out, "MODIFIED", "w-0", "10.0.0.7", "Running", "101");
		break;
	case 4: { /* an ERROR event that echoes the token, in its reason too */
		GString *st = g_string_new(NULL);

		pb_str(st, 3, "you sent Bearer " TOKEN "; again: " TOKEN);
		pb_str(st, 4, "Forbidden " TOKEN);
		pb_event(out, "ERROR", "Status", st);
		g_string_free(st, TRUE);
		break;
	}
	default: { /* an ERROR event: 410 Expired */
		GString *st = g_string_new(NULL);

		pb_str(st, 3, "too old resource version: 150 (160)");
		pb_str(st, 4, "Expired");
		pb_event(out, "ERROR", "Status", st);
		g_string_free(st, TRUE);
	}
	}
	return out;
}

/* clang-format off */
static const watch_case cases[] = {
	{ "heartbeat-bookmark-then-added", "", {
	    { WATCH("100"), 200, EV("MODIFIED", POD("w-1", "10.0.0.2", "Running", "101"))
				 BOOKMARK("140") },
	    { WATCH("140"), 200, EV("ADDED", POD("w-2", "10.0.0.3", "Running", "141")) } },
	  600000, CR_OK, true, NULL },
	{ "phase-changed", "", {
	    { WATCH("100"), 200, EV("MODIFIED", POD("w-1", "10.0.0.2", "Failed", "101")) } },
	  600000, CR_OK, true, NULL },
	{ "ip-changed", "", {
	    { WATCH("100"), 200, EV("MODIFIED", POD("w-0", "10.0.0.9", "Running", "101")) } },
	  600000, CR_OK, true, NULL },
	{ "deleted", "", {
	    { WATCH("100"), 200, EV("DELETED", POD("w-0", "10.0.0.1", "Running", "101")) } },
	  600000, CR_OK, true, NULL },
	{ "pending-added-skipped-is-no-change", "not_running = \"skip\";", {
	    { WATCH("100"), 200, EV("ADDED", POD("w-5", "", "Pending", "101")) },
	    { WATCH("101"), 200, EV("MODIFIED", POD("w-5", "10.0.0.5", "Running", "102")) } },
	  600000, CR_OK, true, NULL },
	{ "unchanged-at-deadline", "", {
	    { WATCH_T("100", "2"), 200, EV("MODIFIED", POD("w-0", "10.0.0.1", "Running", "101")) },
	    { WATCH_T("101", "1"), 200, "" } },
	  1100, CR_OK, false, NULL }, /* the second after the 1 s reconnect floor */
	{ "http-410", "", {
	    { WATCH("100"), 410, STATUS(410, "Expired", "too old resource version: 100 (120)") } },
	  600000, CR_OK, true, NULL },
	{ "error-event-410", "", {
	    { WATCH("100"), 200, EV("ERROR", STATUS(410, "Expired", "too old resource version: 100 (120)")) } },
	  600000, CR_OK, true, NULL },
	{ "error-event-500", "", {
	    { WATCH("100"), 200, EV("ERROR", STATUS(500, "InternalError", "etcdserver: request timed out")) } },
	  600000, CR_ERR_BACKEND, false,
	  ENDPOINT ": ERROR event: InternalError: etcdserver: request timed out" },
	{ "error-event-echoes-token", "", {
	    { WATCH("100"), 200, EV("ERROR", STATUS(403, "Forbidden", "you sent Bearer " TOKEN "; again: " TOKEN)) } },
	  600000, CR_ERR_BACKEND, false,
	  ENDPOINT ": ERROR event: Forbidden: you sent Bearer [redacted]; again: [redacted]" },
	{ "garbage", "", {
	    { WATCH("100"), 200, BOOKMARK("110") "{\"type\":\"MODIFIED\",\"object\":{\"kind\":tru\n" } },
	  600000, CR_ERR_PARSE, false, ENDPOINT ": event 2 is not a JSON watch event" },
	{ "cut-mid-event-resumes", "", {
	    { WATCH("100"), 200, BOOKMARK("110") "{\"type\":\"MODIFIED\",\"obj" },
	    { WATCH("110"), 200, EV("DELETED", POD("w-1", "10.0.0.2", "Running", "111")) } },
	  600000, CR_OK, true, NULL },
	{ "dropped-connection-resumes", "", {
	    { WATCH("100"), 0, NULL },
	    { WATCH("100"), 503, STATUS(503, "ServiceUnavailable", "the server is currently unable to handle the request") },
	    { WATCH("100"), 200, EV("DELETED", POD("w-1", "10.0.0.2", "Running", "111")) } },
	  600000, CR_OK, true, NULL },
	{ "dropped-past-retries", "retries = 1;", {
	    { WATCH("100"), 0, NULL },
	    { WATCH("100"), 0, NULL } },
	  600000, CR_ERR_NETWORK, false,
	  "GET " WATCH("100") ": connection refused (still failing after 2 reconnections)" },
	{ "forbidden", "", {
	    { WATCH("100"), 403, STATUS(403, "Forbidden", "pods is forbidden: User \\\"u\\\" cannot watch resource \\\"pods\\\"") } },
	  600000, CR_ERR_AUTH, false,
	  ENDPOINT ": HTTP 403 Forbidden: pods is forbidden: User \"u\" cannot watch resource \"pods\"" },
	{ "forbidden-echoes-token", "", {
	    { WATCH("100"), 403, STATUS(403, "Forbidden", "you sent Bearer " TOKEN) } },
	  600000, CR_ERR_AUTH, false,
	  ENDPOINT ": HTTP 403 Forbidden: you sent Bearer [redacted]" },
	{ "protobuf-bookmark-then-ip", "list_format = \"protobuf\";", {
	    { WATCH("100"), 200, "proto:0", "application/vnd.kubernetes.protobuf;stream=watch" },
	    { WATCH("150"), 200, "proto:1", "application/vnd.kubernetes.protobuf;stream=watch" } },
	  600000, CR_OK, true, NULL },
	{ "protobuf-expired", "list_format = \"protobuf\";", {
	    { WATCH("100"), 200, "proto:2", "application/vnd.kubernetes.protobuf;stream=watch" } },
	  600000, CR_OK, true, NULL },
	/* found by fuzz-k8s-watch: the blanks before a first frame were read
	 * as its length unless they came in a piece of their own */
	{ "protobuf-after-blank-line", "list_format = \"protobuf\";", {
	    { WATCH("100"), 200, "proto:3", "application/vnd.kubernetes.protobuf;stream=watch" } },
	  600000, CR_OK, true, NULL },
	{ "protobuf-error-event-echoes-token", "list_format = \"protobuf\";", {
	    { WATCH("100"), 200, "proto:4", "application/vnd.kubernetes.protobuf;stream=watch" } },
	  600000, CR_ERR_BACKEND, false,
	  ENDPOINT ": ERROR event: Forbidden [redacted]: you sent Bearer [redacted]; again: [redacted]" },
	/* Several selectors are watched with a stream each, in threads of
	 * their own whose requests come in no set order: tested against the
	 * fixture API server (tests/integration/k8s, several_selectors), not
	 * with this scripted host. */
};
/* clang-format on */

static void script(cr_testhost *th, const watch_case *c)
{
	const char *want_json[] = { "Accept: application/json", NULL };
	const char *want_pb[] = { "Accept: application/vnd.kubernetes.protobuf, application/json",
				  NULL };
	bool pb = strstr(c->config, "protobuf") != NULL;
	const char *json_type[] = { "Content-Type: application/json", NULL };
	cr_error err = CR_ERROR_INIT;

	g_assert_cmpint(cr_testhost_expect(th, "GET", LIST, pb ? want_pb : want_json, &err), ==,
			CR_OK);
	g_assert_cmpint(cr_testhost_respond(th, 200, json_type, list_body, &err), ==, CR_OK);
	for (int i = 0; i < 5 && c->x[i].url; i++) {
		const exchange *x = &c->x[i];
		char *type =
			g_strconcat("Content-Type: ", x->type ? x->type : "application/json", NULL);
		const char *headers[] = { type, NULL };

		g_assert_cmpint(
			cr_testhost_expect(th, "GET", x->url, pb ? want_pb : want_json, &err), ==,
			CR_OK);
		if (x->status == 0) {
			g_assert_cmpint(cr_testhost_respond_error(th, CR_ERR_NETWORK,
								  "connection refused", &err),
					==, CR_OK);
		} else if (g_str_has_prefix(x->body, "proto:")) {
			GString *b = proto_stream(x->body[6] - '0');

			g_assert_cmpint(cr_testhost_respond_bytes(th, x->status, headers, b->str,
								  b->len, &err),
					==, CR_OK);
			g_string_free(b, TRUE);
		} else {
			g_assert_cmpint(cr_testhost_respond(th, x->status, headers, x->body, &err),
					==, CR_OK);
		}
		g_free(type);
	}
}

static void check_watch(gconstpointer data)
{
	const watch_case *c = data;
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	char *config =
		g_strdup_printf("kubeconfig = \"/kube/config\"; page_size = 0; %s %s %s",
				strstr(c->config, "list_format") ? "" : "list_format = \"json\";",
				strstr(c->config, "jobs") ? ""
							  : "jobs = { worker = [ "
							    "\"job-name=worker\" ]; };",
				c->config);
	const char *out = NULL;
	bool changed = !c->changed;
	cr_status st;

	g_assert_nonnull(th);
	g_assert_cmpint(cr_testhost_load(th, g_getenv("CR_K8S_PLUGIN"), config, &err), ==, CR_OK);
	g_assert_cmpint(cr_testhost_add_file(th, "/kube/config", kubeconfig, (size_t)-1, &err), ==,
			CR_OK);
	cr_testhost_set_stream_piece(th, 3);
	script(th, c);
	g_assert_cmpint(cr_testhost_resolve(th, "json", &out, &err), ==, CR_OK);
	st = cr_testhost_watch(th, c->timeout_ms, &changed, &err);
	if (st != c->status || (c->message && strcmp(err.message, c->message) != 0))
		g_test_message("%s: got %d: %s\nlogs:\n%s", c->name, (int)st, err.message,
			       cr_testhost_logs(th));
	g_assert_cmpint(st, ==, c->status);
	if (c->message)
		g_assert_cmpstr(err.message, ==, c->message);
	g_assert_cmpint(changed, ==, c->changed);
	if (st == CR_OK)
		g_assert_cmpint(cr_testhost_verify(th, &err), ==, CR_OK);
	g_assert_null(strstr(cr_testhost_logs(th), TOKEN));
	g_assert_null(strstr(err.message, TOKEN));
	g_free(config);
	cr_testhost_free(th);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *path = g_strdup_printf("/k8s/watch/%s", cases[i].name);

		g_test_add_data_func(path, &cases[i], check_watch);
		g_free(path);
	}
	return g_test_run();
}
