/* SPDX-License-Identifier: MIT */
/*
 * fuzz-k8s-watch.c - libFuzzer target for k8s.so's watch stream reader
 * (plugins/resolvers/k8s/k8s_watch.c): JSON Lines watch events or
 * length-prefixed protobuf WatchEvent frames, as host->http_stream hands
 * them to k8s_stream_data in pieces of any size. Input: byte 0 picks the
 * pods the last list held (bit 0: none, and no pod counts, so that no event
 * is a change and every event is read), byte 1 the number of piece sizes
 * (1..8) and the bytes after it those sizes (1..256, used in turn); the
 * rest is the stream. It is read twice: whole, in one call, and cut into
 * those pieces, each call until the reader says stop. Properties:
 *   - the same events come out whatever the split: the pods each event
 *     names (in order), the log, the number of events, the resourceVersion
 *     the watch would resume from, whether the membership changed, the
 *     failure and its message, and the bytes of a partial event kept;
 *   - a failure is CR_ERR_PARSE (garbage) or CR_ERR_BACKEND (an ERROR
 *     event) with a message naming the request; a resourceVersion kept is
 *     never empty;
 *   - no crash, leak or undefined behaviour.
 * The file is included, as fuzz-k8s-pages includes the page reader, so
 * that its static reader is driven as the watch drives it; the pods' key,
 * membership, digest and record (k8s_pods.c) are small fakes here that write down
 * each pod an event names, and the connection functions the watch op
 * would call (k8s_fetch.c and client/) are never called.
 */
#include <stdlib.h>
#include <string.h>

#include "../../../plugins/resolvers/k8s/k8s_watch.c"
#include "../../../plugins/resolvers/k8s/k8s_watched.c"
#include "../../../plugins/resolvers/k8s/k8s_pb.c"
#include "../../../plugins/resolvers/k8s/k8s_proto.c"
#include "../../../plugins/resolvers/k8s/k8s_view.c"
#include "values/values-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_ENDPOINT "GET /api/v1/namespaces/train/pods (watch)"

static GString *fz_trace; /* of the run in progress */

static void fz_log(cr_plugin_ctx *ctx, cr_log_level level, const char *fmt, ...)
{
	va_list ap;

	(void)ctx;
	g_string_append_printf(fz_trace, "log %d: ", (int)level);
	va_start(ap, fmt);
	g_string_append_vprintf(fz_trace, fmt, ap);
	va_end(ap);
	g_string_append_c(fz_trace, '\n');
}

static const cr_host_api fz_host = {
	.struct_size = sizeof(cr_host_api),
	.error_set = error_set,
	.log = fz_log,
};

CR_HIDDEN const cr_host_api *cr_host = &fz_host;

/* ---- k8s_pods.c, small: each pod an event names is written down -------- */

char *k8s_pod_key(const struct k8s_pod_view *pod, const char *ns)
{
	return g_strdup_printf("%s/%s", ns, pod->name);
}

guint64 k8s_pod_key_hash(const struct k8s_pod_view *pod, const char *ns)
{
	char *key = k8s_pod_key(pod, ns);
	guint64 h = g_str_hash(key);

	g_string_append_printf(fz_trace, "pod %s/%s version %s phase %s ip %s\n", ns, pod->name,
			       pod->version ? pod->version : "-", pod->phase ? pod->phase : "-",
			       pod->pod_ip ? pod->pod_ip : "-");
	g_free(key);
	return h;
}

/* Quiet mode (no pod listed) never counts a pod: no event is a change. */
static bool fz_quiet;

bool k8s_pod_counts(const struct k8s *st, const struct k8s_pod_view *pod)
{
	(void)st;
	return !fz_quiet && pod->phase != NULL && strcmp(pod->phase, "Running") == 0;
}

guint64 k8s_pod_digest(const struct k8s *st, const struct k8s_pod_view *pod, const char *ns,
		       GString *scratch)
{
	(void)st;
	g_string_printf(scratch, "%s/%s %s", ns, pod->name, pod->pod_ip ? pod->pod_ip : "");
	return g_str_hash(scratch->str);
}

/* A list here is never full (no record kept): never called. */
char *k8s_pod_record(const struct k8s *st, const struct k8s_pod_view *pod, const char *ns,
		     const struct k8s_self *self, GString *scratch)
{
	(void)st, (void)pod, (void)ns, (void)self, (void)scratch;
	abort();
}

/* ---- what k8s_watch (the op) calls, never called here ------------------- */

cr_status k8s_conn_load(const struct k8s *st, cr_plugin_ctx *ctx, struct k8s_conn *conn,
			cr_error *err)
{
	(void)st, (void)ctx, (void)conn, (void)err;
	abort();
}

cr_status k8s_auth_prepare(const struct k8s *st, cr_plugin_ctx *ctx, struct k8s_conn *conn,
			   cr_error *err)
{
	(void)st, (void)ctx, (void)conn, (void)err;
	abort();
}

void k8s_conn_clear(struct k8s_conn *conn)
{
	(void)conn;
	abort();
}

void k8s_wipe_free(char *secret)
{
	(void)secret;
	abort();
}

char *k8s_pods_path(const struct k8s_conn *conn, const char *ns)
{
	(void)conn, (void)ns;
	abort();
}

void k8s_query_add(GString *q, const char *key, const char *value)
{
	(void)q, (void)key, (void)value;
	abort();
}

cr_status k8s_answer_error(const char *endpoint, const char *token, const cr_http_response *resp,
			   int attempts, cr_error *err)
{
	(void)endpoint, (void)token, (void)resp, (void)attempts, (void)err;
	abort();
}

void k8s_conn_tls(const struct k8s_conn *c, cr_http_request *req)
{
	(void)c, (void)req;
	abort();
}

/* ---- one read of the stream --------------------------------------------- */

struct fz_run {
	GString *trace;
	int64_t events;
	char *version;
	bool changed, stopped;
	cr_status rc;
	cr_error err;
	GString *left; /* a partial event kept */
};

/* Read @stream (@len bytes) in pieces of @sizes[0], @sizes[1], ... in turn
 * (@n sizes; none: whole) into @r, as the watch reads one request. */
static void fz_read(const uint8_t *stream, size_t len, const size_t *sizes, size_t n,
		    struct fz_run *r)
{
	const struct k8s st = { 0 };
	struct k8s_watch_list list = { NULL, NULL, NULL };
	struct k8s_stream s = { 0 };
	size_t pos = 0;

	list.pods = g_array_new(FALSE, FALSE, sizeof(struct k8s_pod_seen));
	list.sorted = true; /* empty */
	if (!fz_quiet) {
		/* the last list: two Running pods */
		GString *scratch = g_string_new(NULL);
		struct k8s_pod_view w0 = { .name = "w-0", .pod_ip = "10.0.0.1" };
		struct k8s_pod_view w1 = { .name = "w-1", .pod_ip = "10.0.0.2" };

		k8s_watch_list_put(&list, g_str_hash("train/w-0"),
				   k8s_pod_digest(&st, &w0, "train", scratch), NULL);
		k8s_watch_list_put(&list, g_str_hash("train/w-1"),
				   k8s_pod_digest(&st, &w1, "train", scratch), NULL);
		k8s_watch_list_seal(&list);
		g_string_free(scratch, TRUE);
	}
	fz_trace = r->trace = g_string_new(NULL);
	r->err = (cr_error)CR_ERROR_INIT;
	s.st = &st;
	s.list = &list;
	s.endpoint = FZ_ENDPOINT;
	s.buf = g_string_new(NULL);
	s.scratch = g_string_new(NULL);
	s.tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	s.version = g_strdup("100");
	s.err = &r->err;
	k8s_view_store_init(&s.store);
	if (n == 0) {
		r->stopped = !k8s_stream_data((const char *)stream, len, &s);
	} else {
		for (size_t i = 0; pos < len && !r->stopped; i++) {
			size_t piece = MIN(sizes[i % n], len - pos);

			r->stopped = !k8s_stream_data((const char *)stream + pos, piece, &s);
			pos += piece;
		}
	}
	r->events = s.events;
	r->version = s.version;
	r->changed = s.changed;
	r->rc = s.rc;
	r->left = s.buf;
	g_string_free(s.scratch, TRUE);
	json_tokener_free(s.tok);
	k8s_view_store_clear(&s.store);
	g_array_unref(list.pods);
	fz_trace = NULL;
}

static void fz_run_clear(struct fz_run *r)
{
	g_string_free(r->trace, TRUE);
	g_string_free(r->left, TRUE);
	g_free(r->version);
}

static bool fz_same(const struct fz_run *a, const struct fz_run *b)
{
	return g_string_equal(a->trace, b->trace) && a->events == b->events &&
	       g_strcmp0(a->version, b->version) == 0 && a->changed == b->changed &&
	       a->stopped == b->stopped && a->rc == b->rc &&
	       strcmp(a->err.message, b->err.message) == 0 &&
	       /* a stop leaves the rest unread: its bytes differ by the split */
	       (a->stopped || g_string_equal(a->left, b->left));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_run whole = { 0 }, split = { 0 };
	size_t sizes[8], n, head;

	if (size < 2)
		return 0;
	fz_quiet = data[0] & 1;
	n = 1 + data[1] % 8;
	head = 2 + n;
	if (size < head)
		return 0;
	for (size_t i = 0; i < n; i++)
		sizes[i] = 1 + (size_t)data[2 + i];
	fz_read(data + head, size - head, NULL, 0, &whole);
	fz_read(data + head, size - head, sizes, n, &split);
	if (getenv("FZ_DEBUG") != NULL)
		fprintf(stderr, "whole: rc %d changed %d events %lld version %s: %s\n%s", whole.rc,
			whole.changed, (long long)whole.events, whole.version, whole.err.message,
			whole.trace->str);
	if (!fz_same(&whole, &split))
		abort();
	if (whole.rc != CR_OK &&
	    ((whole.rc != CR_ERR_PARSE && whole.rc != CR_ERR_BACKEND) ||
	     whole.err.code != whole.rc ||
	     strncmp(whole.err.message, FZ_ENDPOINT ": ", strlen(FZ_ENDPOINT ": ")) != 0))
		abort();
	if (whole.version == NULL || *whole.version == '\0' ||
	    whole.stopped != (whole.rc != CR_OK || whole.changed))
		abort();
	fz_run_clear(&whole);
	fz_run_clear(&split);
	return 0;
}
