/* SPDX-License-Identifier: MIT */
/*
 * fuzz-k8s-pages.c - libFuzzer target for k8s.so's page readers: the
 * whole-page reader (plugins/resolvers/k8s/k8s_page.c): a PodList page read
 * pod by pod, or a Table page (columnDefinitions, rows) read row by row into
 * the small pods the plugin builds from them, or a protobuf PodList page
 * (k8s_proto.c); and, for a protobuf page, the stream reader beside it
 * (k8s_pbstream.c: the page fed in pieces, as host->http_stream hands it).
 * Input: byte 0 picks whether the list has a namespace (bit 0: Table rows
 * need one) and whether the page is protobuf (bit 1); for a protobuf page,
 * bits 2-4 the number k (0..7) of piece-size bytes after it (b < 192: 1 + b
 * bytes, else (b - 191) * 256) and bit 5 a callback that refuses the second
 * pod. The rest is the page. Properties, of every read:
 * a failure is CR_ERR_PARSE with a message naming the request, or a Table
 * that cannot stand for the pods (need_full: CR_ERR_BACKEND, no message), or
 * the callback's own error; every string of a pod's view (k8s_view.c) is
 * UTF-8 without NUL, its accelerators are a count with a kind or none, and
 * a pod made from a Table row has a non-empty name, the list's namespace
 * and phase Running; a continue token is never empty.
 * A protobuf page is read four times: whole by k8s_page_read, and by the
 * stream reader in one piece, in pieces of 1 byte, and in pieces of the k
 * sizes in turn (none: 4096). Each read writes down every field of every
 * view it hands over, in order, and its continue token, resourceVersion,
 * status and message. Properties:
 *   - P3: the three stream reads give the same record, whatever the cut;
 *   - P1: when the stream reader accepts the page, the whole reader accepts
 *     it with the same pods, token and resourceVersion;
 *   - P2: when the whole reader refuses it, the stream reader refuses it
 *     too; the stream reader refuses what the whole one accepts only for an
 *     envelope that repeats typeMeta or raw after raw (the whole reader
 *     reads the last raw, the stream reader the first, as it comes);
 *   - when both refuse an envelope without such repeats, the pods one
 *     handed over begin the other's.
 */
#include <stdlib.h>
#include <string.h>

#include "../../../plugins/resolvers/k8s/k8s_page.c"
#include "../../../plugins/resolvers/k8s/k8s_pb.c"
#include "../../../plugins/resolvers/k8s/k8s_pbstream.c"
#include "../../../plugins/resolvers/k8s/k8s_proto.c"
#include "../../../plugins/resolvers/k8s/k8s_view.c"
#include "values/values-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_ENDPOINT "GET fz"

static const cr_host_api fz_host = {
	.struct_size = sizeof(cr_host_api),
	.error_set = error_set,
};

CR_HIDDEN const cr_host_api *cr_host = &fz_host;

struct fz_count {
	const char *ns;
	size_t pods;
	bool proto;
	bool refuse_second; /* the callback refuses the second pod */
	GString *trace;     /* every field of every view handed over */
};

/* A string of a view: absent, or UTF-8 without NUL. */
static void fz_check(const char *s)
{
	if (s != NULL && !g_utf8_validate(s, -1, NULL))
		abort();
}

static void fz_put(GString *t, const char *key, const char *s)
{
	if (s)
		g_string_append_printf(t, " %s=%zu:%s", key, strlen(s), s);
	else
		g_string_append_printf(t, " %s=-", key);
}

static cr_status fz_pod(const struct k8s_pod_view *pod, void *ud, cr_error *err)
{
	struct fz_count *c = ud;
	const char *const strings[] = {
		pod->name,      pod->ns,       pod->uid,      pod->phase,
		pod->version,   pod->pod_ip,   pod->host_ip,  pod->hostname,
		pod->subdomain, pod->index[0], pod->index[1], pod->index[2]
	};
	static const char *const keys[] = { "name", "ns",       "uid", "phase", "version", "ip",
					    "host", "hostname", "sub", "i0",    "i1",      "i2" };

	c->pods++;
	for (size_t i = 0; i < G_N_ELEMENTS(strings); i++)
		fz_check(strings[i]);
	for (guint i = 0; i < pod->n_sts_owners; i++)
		if (pod->sts_owners[i] == NULL || !g_utf8_validate(pod->sts_owners[i], -1, NULL))
			abort();
	for (guint i = 0; i < pod->n_pod_ips; i++)
		if (pod->pod_ips[i] == NULL || !g_utf8_validate(pod->pod_ips[i], -1, NULL))
			abort();
	if (pod->accel < 0 || (pod->accel > 0) != (pod->accel_kind != K8S_ACC_NONE))
		abort();
	/* a pod made from a Table row (its namespace is the list's own string):
	 * exactly what the row said */
	if (c->ns && pod->ns == c->ns && !c->proto &&
	    (pod->name == NULL || *pod->name == '\0' || pod->phase == NULL ||
	     strcmp(pod->phase, "Running") != 0))
		abort();
	if (c->trace) {
		g_string_append_printf(c->trace, "pod %zu:", c->pods);
		for (size_t i = 0; i < G_N_ELEMENTS(strings); i++)
			fz_put(c->trace, keys[i], strings[i]);
		for (guint i = 0; i < pod->n_sts_owners; i++)
			fz_put(c->trace, "sts", pod->sts_owners[i]);
		for (guint i = 0; i < pod->n_pod_ips; i++)
			fz_put(c->trace, "ips", pod->pod_ips[i]);
		g_string_append_printf(c->trace, " accel=%d/%u\n", (int)pod->accel,
				       (unsigned)pod->accel_kind);
	}
	if (c->refuse_second && c->pods == 2)
		return cr_host->error_set(err, CR_ERR_BACKEND, "fz: the second pod refused");
	return CR_OK;
}

/* One read of a page: what it handed over and how it ended. */
struct fz_read {
	GString *trace;
	char *next, *version;
	bool need_full;
	cr_status rc;
	cr_error err;
};

static void fz_read_clear(struct fz_read *r)
{
	g_string_free(r->trace, TRUE);
	g_free(r->next);
	g_free(r->version);
}

/* The properties every read has. */
static void fz_check_read(const struct fz_read *r)
{
	if (r->need_full) {
		if (r->rc != CR_ERR_BACKEND || r->err.message[0] != '\0')
			abort();
	} else if (r->rc == CR_ERR_BACKEND) { /* the callback's */
		if (r->err.code != r->rc ||
		    strcmp(r->err.message, "fz: the second pod refused") != 0)
			abort();
	} else if (r->rc != CR_OK) {
		if (r->rc != CR_ERR_PARSE || r->err.code != r->rc ||
		    strncmp(r->err.message, FZ_ENDPOINT ": ", 8) != 0)
			abort();
	}
	if ((r->next != NULL && *r->next == '\0') || (r->version != NULL && *r->version == '\0'))
		abort();
}

static void fz_whole(const char *text, size_t len, struct fz_count *c, bool version,
		     struct fz_read *r)
{
	r->err = (cr_error)CR_ERROR_INIT;
	c->pods = 0;
	c->trace = r->trace = g_string_new(NULL);
	r->rc = k8s_page_read(FZ_ENDPOINT, c->ns, text, len, c->proto, fz_pod, c, &r->need_full,
			      &r->next, version ? &r->version : NULL, &r->err);
	c->trace = NULL;
	fz_check_read(r);
}

/* The stream reader, fed @len bytes in pieces of @sizes[0], @sizes[1], ...
 * in turn (@n sizes; none: one piece) until it says stop. */
static void fz_stream(const char *text, size_t len, const size_t *sizes, size_t n,
		      struct fz_count *c, struct fz_read *r)
{
	struct k8s_pbs *s;
	size_t pos = 0;

	r->err = (cr_error)CR_ERROR_INIT;
	c->pods = 0;
	c->trace = r->trace = g_string_new(NULL);
	s = k8s_pbs_new(FZ_ENDPOINT, fz_pod, c);
	for (size_t i = 0; pos < len; i++) {
		size_t piece = n ? MIN(sizes[i % n], len - pos) : len;

		if (!k8s_pbs_feed(text + pos, piece, s))
			break;
		pos += piece;
	}
	r->rc = k8s_pbs_finish(s, true, c->ns, &r->need_full, &r->next, &r->version, &r->err);
	k8s_pbs_free(s);
	c->trace = NULL;
	fz_check_read(r);
}

static bool fz_same(const struct fz_read *a, const struct fz_read *b)
{
	return g_string_equal(a->trace, b->trace) && g_strcmp0(a->next, b->next) == 0 &&
	       g_strcmp0(a->version, b->version) == 0 && a->need_full == b->need_full &&
	       a->rc == b->rc && strcmp(a->err.message, b->err.message) == 0;
}

static bool fz_begins(const GString *s, const GString *prefix)
{
	return s->len >= prefix->len && memcmp(s->str, prefix->str, prefix->len) == 0;
}

static void fz_debug(const char *what, const struct fz_read *r)
{
	if (getenv("FZ_DEBUG") != NULL)
		fprintf(stderr, "%s: rc %d next %s version %s: %s\n%s", what, (int)r->rc,
			r->next ? r->next : "-", r->version ? r->version : "-", r->err.message,
			r->trace->str);
}

/* Whether the envelope of @page has typeMeta (1) or raw (2) after a raw:
 * then the whole reader reads the last of each, the stream reader the
 * first raw as it comes. */
static bool fz_repeat_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	int *raws = user;

	(void)pg;
	if (*raws > 0 && (f->num == 1 || f->num == 2))
		*raws = -1;
	else if (*raws == 0 && f->num == 2 && f->wire == WIRE_LEN)
		*raws = 1;
	return *raws >= 0;
}

static bool fz_repeats(const char *page, size_t len)
{
	const uint8_t *p = (const uint8_t *)page;
	struct pb_page pg = { .base = p };
	int raws = 0;

	if (len < 4 || memcmp(page, "k8s\0", 4) != 0)
		return false;
	pb_walk(&pg, (struct pb){ p + 4, p + len, p }, fz_repeat_field, &raws);
	return raws < 0;
}

/* A protobuf page: the whole reader and the stream reader agree. */
static void fz_proto(const char *page, size_t len, const size_t *sizes, size_t n,
		     struct fz_count *c)
{
	static const size_t one = 1, dflt = 4096;
	struct fz_read whole = { 0 }, piece = { 0 }, bytes = { 0 }, cut = { 0 };
	bool repeats;

	fz_whole(page, len, c, true, &whole);
	fz_stream(page, len, NULL, 0, c, &piece);
	fz_stream(page, len, &one, 1, c, &bytes);
	fz_stream(page, len, n ? sizes : &dflt, n ? n : 1, c, &cut);
	fz_debug("whole", &whole);
	fz_debug("stream", &piece);
	/* P3 */
	if (!fz_same(&piece, &bytes) || !fz_same(&piece, &cut))
		abort();
	if (whole.need_full || piece.need_full)
		abort();
	/* P1 */
	if (piece.rc == CR_OK && (whole.rc != CR_OK || !g_string_equal(whole.trace, piece.trace) ||
				  g_strcmp0(whole.next, piece.next) != 0 ||
				  g_strcmp0(whole.version, piece.version) != 0))
		abort();
	/* P2, and the one refusal of the stream reader's own */
	if (whole.rc != CR_OK && piece.rc == CR_OK)
		abort();
	repeats = fz_repeats(page, len);
	if (whole.rc == CR_OK && piece.rc != CR_OK && !repeats)
		abort();
	if (whole.rc != CR_OK && piece.rc != CR_OK && !repeats &&
	    !fz_begins(whole.trace, piece.trace) && !fz_begins(piece.trace, whole.trace))
		abort();
	fz_read_clear(&whole);
	fz_read_clear(&piece);
	fz_read_clear(&bytes);
	fz_read_clear(&cut);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_count c = { NULL, 0, false, false, NULL };
	size_t sizes[7], n = 0, head = 1;
	char *text;

	if (size < 1)
		return 0;
	c.ns = data[0] & 1 ? "train" : NULL;
	c.proto = (data[0] & 2) != 0;
	if (c.proto) {
		n = (data[0] >> 2) & 7;
		c.refuse_second = (data[0] & 0x20) != 0;
		head += n;
		if (size < head)
			return 0;
		for (size_t i = 0; i < n; i++) {
			uint8_t b = data[1 + i];

			sizes[i] = b < 192 ? 1 + (size_t)b : (size_t)(b - 191) * 256;
		}
	}
	/* a protobuf page is binary; a JSON one is text up to its first NUL */
	text = g_malloc(size - head + 1);
	memcpy(text, data + head, size - head);
	text[size - head] = '\0';
	if (c.proto) {
		fz_proto(text, size - head, sizes, n, &c);
	} else {
		struct fz_read r = { 0 };

		fz_whole(text, strnlen(text, size - head), &c, false, &r);
		fz_read_clear(&r);
	}
	g_free(text);
	return 0;
}
