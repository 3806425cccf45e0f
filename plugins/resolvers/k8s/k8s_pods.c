/* SPDX-License-Identifier: MIT */
/*
 * k8s_pods.c - from listed pods to tasks.
 *
 * Each pod of a selector's list is boiled down to a compact record (name,
 * namespace, phase, address, index, accelerators) while the pages stream
 * by; the records of one selector are then ordered and appended to the
 * job. Order within a selector:
 *   1. pods that carry an index come first, by that index:
 *      label/annotation batch.kubernetes.io/job-completion-index (Indexed
 *      Job), label apps.kubernetes.io/pod-index, else the ordinal of a pod
 *      owned by a StatefulSet (NAME-<ordinal>);
 *   2. then the others by name, digit runs compared as numbers
 *      (worker-2 before worker-10);
 *   ties fall back to the plain name, then the namespace.
 */
#include <stdio.h>
#include <string.h>

#include "k8s.h"
#include "httpanswer.h"
#include "natural.h"

static const char *const k8s_acc_kind[] = { NULL, "GPU", "TPU" };

/* Per address mode: its name and the pod fields it needs. */
static const char *const k8s_addr_needs[][2] = {
	[K8S_ADDR_POD_IP] = { "pod_ip", "status.podIP" },
	[K8S_ADDR_HOST_IP] = { "host_ip", "status.hostIP" },
	[K8S_ADDR_POD_NAME] = { "pod_name", "metadata.name" },
	[K8S_ADDR_DNS] = { "dns", "spec.hostname and spec.subdomain" },
};

/** One pod, as much as ordering and building need, in 32 bytes. Its name
 *  and address lie together in the collection's chunk, "NAME\0HOST:PORT\0"
 *  (the address empty when the pod lacks one); namespace and phase are
 *  numbers in the collection's table of distinct values. */
struct k8s_pod {
	const char *name;
	int64_t index; /* -1: none */
	int32_t accel;
	uint32_t ns, phase;
	uint8_t accel_kind;
	uint8_t running : 1;
	uint8_t self : 1;
	uint8_t twice : 1; /* its uid came earlier in the list */
};

G_STATIC_ASSERT(sizeof(struct k8s_pod) <= 32);

struct k8s_collect {
	const struct k8s *st;
	const struct k8s_self *self;
	GArray *pods; /* struct k8s_pod */
	GStringChunk *chunk;
	GPtrArray *values;            /* distinct namespaces and phases (in the chunk) */
	GHashTable *value_ids;        /* value -> its index in values + 1 */
	GString *text;                /* scratch: a pod's "NAME\0HOST:PORT" */
	GArray *uids;                 /* every uid and its pod (k8s_uid.c) */
	cr_plugin_ctx *ctx;           /* for warnings */
	struct k8s_watch_list *watch; /* (nullable) where the pods' digests go */
	int64_t last_ns, last_phase;  /* the ids of the pod before (-1: none) */
};

static const char *k8s_pod_addr(const struct k8s_pod *p)
{
	return p->name + strlen(p->name) + 1;
}

static const char *k8s_value(const struct k8s_collect *c, uint32_t id)
{
	return g_ptr_array_index(c->values, id);
}

/* @last: the id this kind of value had on the pod before (-1: none), for
 * pods after pods of the same namespace and phase: no lookup then. */
static uint32_t k8s_value_id(struct k8s_collect *c, const char *v, int64_t *last)
{
	gpointer id;
	char *copy;

	if (*last >= 0 && strcmp(k8s_value(c, (uint32_t)*last), v) == 0)
		return (uint32_t)*last;
	id = g_hash_table_lookup(c->value_ids, v);
	if (id) {
		*last = GPOINTER_TO_UINT(id) - 1;
		return (uint32_t)*last;
	}
	copy = g_string_chunk_insert(c->chunk, v);
	g_ptr_array_add(c->values, copy);
	g_hash_table_insert(c->value_ids, copy, GUINT_TO_POINTER(c->values->len));
	*last = c->values->len - 1;
	return (uint32_t)*last;
}

/* ---- ordering ----------------------------------------------------------- */

static gint k8s_pod_cmp(gconstpointer pa, gconstpointer pb, gpointer collect)
{
	const struct k8s_pod *a = pa, *b = pb;
	int c;

	if ((a->index >= 0) != (b->index >= 0))
		return a->index >= 0 ? -1 : 1;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	c = natural_cmp(a->name, b->name);
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c && a->ns != b->ns)
		c = strcmp(k8s_value(collect, a->ns), k8s_value(collect, b->ns));
	return c;
}

/* Whether the pods carry the indices 0..N-1, each once (an Indexed Job's
 * pods): then no pod can have come twice (a pod listed twice carries its
 * index twice), and each can be swapped to its place, with no sort
 * (k8s_pod_cmp orders them the same: by index first). */
static bool k8s_pods_indexed(const GArray *pods)
{
	const struct k8s_pod *p = (const struct k8s_pod *)(const void *)pods->data;
	guint n = pods->len;
	guint8 *seen = g_malloc0(n / 8 + 1);
	bool ok = true;

	for (guint i = 0; ok && i < n; i++) {
		guint x = (guint)p[i].index;

		ok = p[i].index >= 0 && p[i].index < (int64_t)n && !(seen[x / 8] & (1u << (x % 8)));
		if (ok)
			seen[x / 8] |= (guint8)(1u << (x % 8));
	}
	g_free(seen);
	return ok;
}

static void k8s_pods_place(GArray *pods)
{
	struct k8s_pod *p = (struct k8s_pod *)(void *)pods->data;

	for (guint i = 0; i < pods->len; i++) {
		while (p[i].index != (int64_t)i) {
			struct k8s_pod t = p[p[i].index];

			p[p[i].index] = p[i];
			p[i] = t;
		}
	}
}

/* ---- reading one pod ---------------------------------------------------- */

/* A pod whose uid came earlier in the list: marked, with a warning. */
static void k8s_pod_repeated(uint32_t pod, void *ud)
{
	struct k8s_collect *c = ud;
	struct k8s_pod *p = &g_array_index(c->pods, struct k8s_pod, pod);

	p->twice = 1;
	cr_host->log(c->ctx, CR_LOG_WARNING, "pod %s/%s listed twice (one uid); counted once",
		     k8s_value(c, p->ns), p->name);
}

/* One uid, one task: the repeats go, and the uids are freed before the
 * tasks are built. */
static void k8s_uid_dedup(struct k8s_collect *c)
{
	guint kept = 0;

	k8s_uid_repeats(c->uids, k8s_pod_repeated, c);
	g_clear_pointer(&c->uids, g_array_unref);
	for (guint i = 0; i < c->pods->len; i++)
		if (!g_array_index(c->pods, struct k8s_pod, i).twice)
			g_array_index(c->pods, struct k8s_pod, kept++) =
				g_array_index(c->pods, struct k8s_pod, i);
	g_array_set_size(c->pods, kept);
}

static int64_t k8s_index_of(const char *s)
{
	return s ? k8s_count(s, strlen(s)) : -1;
}

/* NAME-<ordinal> of a pod whose controller is a StatefulSet. */
static int64_t k8s_sts_ordinal(const struct k8s_pod_view *pod)
{
	for (guint i = 0; i < pod->n_sts_owners; i++) {
		const char *set = pod->sts_owners[i];
		size_t n = strlen(set);

		if (n && strncmp(pod->name, set, n) == 0 && pod->name[n] == '-')
			return k8s_index_of(pod->name + n + 1);
	}
	return -1;
}

static int64_t k8s_pod_index(const struct k8s_pod_view *pod)
{
	for (size_t i = 0; i < K8S_INDEX_KEYS; i++) {
		int64_t v = k8s_index_of(pod->index[i]);

		if (v >= 0)
			return v;
	}
	return k8s_sts_ordinal(pod);
}

/* Append @v in decimal: called for every pod, where a printf costs an
 * allocation (g_string_append_printf) and its parsing. */
static void k8s_append_int(GString *out, int64_t v)
{
	char digits[24];
	size_t n = sizeof(digits);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		digits[--n] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (v < 0)
		digits[--n] = '-';
	g_string_append_len(out, digits + n, (gssize)(sizeof(digits) - n));
}

/* Append the pod's "host:port" to @out (nothing when it lacks the field);
 * no fixed buffer, so a long name is kept whole for the spec to judge. */
static void k8s_pod_address(const struct k8s *st, const struct k8s_pod_view *pod, const char *ns,
			    GString *out)
{
	const char *host = NULL, *hn, *sd;

	switch (st->address) {
	case K8S_ADDR_POD_IP:
		host = pod->pod_ip;
		break;
	case K8S_ADDR_HOST_IP:
		host = pod->host_ip;
		break;
	case K8S_ADDR_POD_NAME:
		host = pod->name;
		break;
	case K8S_ADDR_DNS:
		hn = pod->hostname;
		sd = pod->subdomain;
		if (hn && sd && *hn && *sd) {
			g_string_append_printf(out, "%s.%s.%s.svc%s%s:%lld", hn, sd, ns,
					       *st->cluster_domain ? "." : "", st->cluster_domain,
					       (long long)st->port);
			return;
		}
		break;
	}
	if (!host || !*host)
		return;
	if (strchr(host, ':')) {
		g_string_append_c(out, '[');
		g_string_append(out, host);
		g_string_append_c(out, ']');
	} else {
		g_string_append(out, host);
	}
	g_string_append_c(out, ':');
	k8s_append_int(out, st->port);
}

bool k8s_pod_counts(const struct k8s *st, const struct k8s_pod_view *pod)
{
	return (st->not_running != K8S_NR_SKIP && !st->in_watch) ||
	       (pod->phase && strcmp(pod->phase, "Running") == 0);
}

guint64 k8s_pod_digest(const struct k8s *st, const struct k8s_pod_view *pod, const char *ns,
		       GString *scratch)
{
	guint64 h = 14695981039346656037ULL; /* FNV-1a */

	g_string_assign(scratch, pod->phase ? pod->phase : "");
	g_string_append_c(scratch, '\n');
	k8s_pod_address(st, pod, ns, scratch);
	if (st->order_by_index) {
		g_string_append_c(scratch, '\n');
		k8s_append_int(scratch, k8s_pod_index(pod));
	}
	if (st->accelerators) {
		g_string_append_c(scratch, '\n');
		k8s_append_int(scratch, pod->accel);
		g_string_append_c(scratch, ':');
		k8s_append_int(scratch, pod->accel_kind);
	}
	for (gsize i = 0; i < scratch->len; i++)
		h = (h ^ (guchar)scratch->str[i]) * 1099511628211ULL;
	return h;
}

char *k8s_pod_key(const struct k8s_pod_view *pod, const char *ns)
{
	return g_strconcat(ns ? ns : "", "/", pod->name ? pod->name : "", NULL);
}

static guint64 k8s_fnv(guint64 h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (guchar)*s) * 1099511628211ULL;
	return h;
}

guint64 k8s_pod_key_hash(const struct k8s_pod_view *pod, const char *ns)
{
	guint64 h = k8s_fnv(14695981039346656037ULL, ns);

	h = (h ^ (guchar)'/') * 1099511628211ULL;
	return k8s_fnv(h, pod->name);
}

static bool k8s_pod_is_self(const struct k8s_self *self, const struct k8s_pod_view *pod,
			    const char *ns)
{
	if (self->namespace && strcmp(self->namespace, ns) != 0)
		return false;
	if (self->pod_name)
		return strcmp(self->pod_name, pod->name) == 0;
	if (self->hostname)
		return strcmp(self->hostname, pod->name) == 0 ||
		       (pod->hostname && strcmp(self->hostname, pod->hostname) == 0);
	if (self->pod_ip) {
		if (pod->pod_ip && strcmp(pod->pod_ip, self->pod_ip) == 0)
			return true;
		for (guint i = 0; i < pod->n_pod_ips; i++)
			if (strcmp(pod->pod_ips[i], self->pod_ip) == 0)
				return true;
	}
	return false;
}

/* A pod kept for the watch: its record's head, then "NAME\0HOST:PORT\0NS\0PHASE\0". */
struct k8s_rec {
	int64_t index; /* -1: none (or order = "name") */
	int32_t accel;
	uint8_t accel_kind, running, self;
};

char *k8s_pod_record(const struct k8s *st, const struct k8s_pod_view *pod, const char *ns,
		     const struct k8s_self *self, GString *scratch)
{
	struct k8s_rec h = { st->order_by_index ? k8s_pod_index(pod) : -1,
			     st->accelerators ? pod->accel : 0,
			     st->accelerators ? pod->accel_kind : 0,
			     pod->phase && strcmp(pod->phase, "Running") == 0,
			     self != NULL && k8s_pod_is_self(self, pod, ns) };

	g_string_truncate(scratch, 0);
	g_string_append_len(scratch, (const char *)&h, sizeof(h));
	g_string_append_len(scratch, pod->name, (gssize)strlen(pod->name) + 1);
	k8s_pod_address(st, pod, ns, scratch);
	g_string_append_len(scratch, "", 1);
	g_string_append_len(scratch, ns, (gssize)strlen(ns) + 1);
	g_string_append(scratch, pod->phase ? pod->phase : "");
	return g_memdup2(scratch->str, scratch->len + 1);
}

static cr_status k8s_collect_pod(const struct k8s_pod_view *pod, void *ud, cr_error *err)
{
	struct k8s_collect *c = ud;
	struct k8s_pod p = { 0 };
	const char *ns = pod->ns ? pod->ns : "";

	if (!pod->name)
		return cr_host->error_set(err, CR_ERR_PARSE, "a listed pod has no metadata.name");
	if (pod->uid && *pod->uid)
		k8s_uid_add(c->uids, pod->uid, c->pods->len);
	g_string_assign(c->text, pod->name);
	g_string_append_c(c->text, '\0');
	k8s_pod_address(c->st, pod, ns, c->text);
	p.name = g_string_chunk_insert_len(c->chunk, c->text->str, (gssize)c->text->len);
	p.ns = k8s_value_id(c, ns, &c->last_ns);
	p.phase = k8s_value_id(c, pod->phase ? pod->phase : "", &c->last_phase);
	p.running = pod->phase && strcmp(pod->phase, "Running") == 0;
	p.index = c->st->order_by_index ? k8s_pod_index(pod) : -1;
	if (c->st->accelerators) {
		p.accel = pod->accel;
		p.accel_kind = pod->accel_kind;
	}
	if (c->self)
		p.self = k8s_pod_is_self(c->self, pod, ns);
	g_array_append_val(c->pods, p);
	if (c->watch && k8s_pod_counts(c->st, pod))
		k8s_watch_list_put(c->watch, k8s_pod_key_hash(pod, ns),
				   k8s_pod_digest(c->st, pod, ns, c->text),
				   c->watch->full ? k8s_pod_record(c->st, pod, ns, c->self, c->text)
						  : NULL);
	return CR_OK;
}

static void k8s_collect_restart(void *ud)
{
	struct k8s_collect *c = ud;

	g_array_set_size(c->pods, 0);
	g_ptr_array_set_size(c->values, 0);
	g_hash_table_remove_all(c->value_ids);
	c->last_ns = c->last_phase = -1;
	g_array_set_size(c->uids, 0);
	g_string_chunk_clear(c->chunk);
	if (c->watch)
		k8s_watch_list_clear(c->watch);
}

/* ---- building ----------------------------------------------------------- */

struct k8s_emit {
	const struct k8s *st;
	const struct k8s_collect *c;
	cr_result_builder *b;
	const char *job;
	int64_t next; /* next task index of the job */
	struct k8s_self *self;
	const char *token; /* the Bearer token sent (nullable): cut out of a message */
};

static cr_status k8s_emit_pod(struct k8s_emit *e, const struct k8s_pod *p, cr_error *err)
{
	cr_status rc;

	if (!p->running) {
		/* in a watch, a Pending pod is a member to come, not an error */
		if (e->st->not_running == K8S_NR_SKIP || e->st->in_watch)
			return CR_OK;
		/* TensorFlow's message, verbatim (the server's text without
		 * the token, should it echo it) */
		const char *const secrets[] = { e->token, NULL };
		char *name = redact_secrets(p->name, secrets);
		char *phase = redact_secrets(k8s_value(e->c, p->phase), secrets);

		rc = cr_host->error_set(err, CR_ERR_BACKEND,
					"Pod \"%s\" is not running; phase: \"%s\"", name, phase);
		g_free(name);
		g_free(phase);
		return rc;
	}
	if (!*k8s_pod_addr(p))
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"pod \"%s\" (namespace \"%s\") has no %s for address mode \"%s\"", p->name,
			k8s_value(e->c, p->ns), k8s_addr_needs[e->st->address][1],
			k8s_addr_needs[e->st->address][0]);
	rc = cr_host->result_append_task(e->b, e->job, k8s_pod_addr(p), err);
	if (rc == CR_OK && p->accel > 0)
		rc = cr_host->result_set_task_accelerators(
			e->b, e->job, e->next, k8s_acc_kind[p->accel_kind], p->accel, err);
	if (rc == CR_OK && p->self && !e->self->found) {
		e->self->found = true;
		rc = cr_host->result_set_task(e->b, e->job, e->next, err);
	}
	e->next++;
	return rc;
}

/* Whether a Table row (name, Status cell, IP) says all this configuration
 * reads of a pod: no accelerators, no index, a namespace (rows carry none),
 * an address from the IP or the name, and no identity by HOSTNAME (which
 * may be spec.hostname) or POD_IP (which may be one of status.podIPs).
 * The phase is read from the Status cell, or the list falls back to full
 * pods (k8s_page.c). */
bool k8s_table_enough(const struct k8s *st, const char *ns, const struct k8s_self *self)
{
	return st->table && !st->accelerators && !st->order_by_index && ns != NULL &&
	       (st->address == K8S_ADDR_POD_IP || st->address == K8S_ADDR_POD_NAME) &&
	       (!self || (!self->hostname && !self->pod_ip));
}

/* The pods a watch kept for one selector, in place of its list, as
 * k8s_collect_pod makes them of views (the names stay the records', which
 * nothing changes while a resolve runs; no uid: a kept pod is one pod). */
static void k8s_replay(const struct k8s_watch_list *from, struct k8s_collect *c)
{
	const struct k8s_pod_seen *seen =
		(const struct k8s_pod_seen *)(const void *)from->pods->data;

	g_array_set_size(g_array_set_size(c->pods, from->pods->len), 0); /* room */
	for (guint i = 0; i < from->pods->len; i++) {
		struct k8s_rec h;
		struct k8s_pod p;
		const char *ns;

		memcpy(&h, seen[i].rec, sizeof(h));
		p = (struct k8s_pod){ .name = seen[i].rec + sizeof(h),
				      .index = h.index,
				      .accel = h.accel,
				      .accel_kind = h.accel_kind,
				      .running = h.running,
				      .self = c->self != NULL && h.self };
		ns = k8s_pod_addr(&p) + strlen(k8s_pod_addr(&p)) + 1;
		p.ns = k8s_value_id(c, ns, &c->last_ns);
		p.phase = k8s_value_id(c, ns + strlen(ns) + 1, &c->last_phase);
		g_array_append_val(c->pods, p);
	}
}

/* @listed: plus the pods the server gave for @selector (duplicates and pods
 * not running included), for explain's "pods_listed". @from: (nullable)
 * the watch's pods of this selector, answered instead of a list. */
static cr_status k8s_build_selector(struct k8s_emit *e, cr_plugin_ctx *ctx,
				    const struct k8s_conn *conn, const char *ns,
				    struct k8s_selector *selector, int64_t *listed,
				    struct k8s_watch_list *watch, const struct k8s_watch_list *from,
				    cr_error *err)
{
	struct k8s_collect c = { e->st,
				 e->self,
				 g_array_new(FALSE, FALSE, sizeof(struct k8s_pod)),
				 g_string_chunk_new(4096),
				 g_ptr_array_new(),
				 g_hash_table_new(g_str_hash, g_str_equal),
				 g_string_sized_new(256),
				 k8s_uids_new(),
				 ctx,
				 watch,
				 -1,
				 -1 };
	cr_status rc;

	rc = CR_OK;
	if (from != NULL)
		k8s_replay(from, &c);
	else
		rc = k8s_list_selector(e->st, ctx, conn, ns, selector,
				       k8s_table_enough(e->st, ns, e->self), k8s_collect_pod,
				       k8s_collect_restart, &c, watch ? &watch->version : NULL,
				       err);
	*listed += c.pods->len;
	if (watch != NULL) { /* the watch follows the form that was listed */
		const char *sent = k8s_selector_sent(selector);

		g_free(watch->selector);
		watch->selector = g_strdup(sent && *sent ? sent : NULL);
		watch->relist =
			selector->legacy != NULL && !selector->use_legacy && c.pods->len == 0;
	}
	if (rc == CR_OK && k8s_pods_indexed(c.pods)) {
		g_clear_pointer(&c.uids, g_array_unref);
		k8s_pods_place(c.pods);
	} else if (rc == CR_OK) {
		k8s_uid_dedup(&c);
		g_array_sort_with_data(c.pods, k8s_pod_cmp, &c);
	}
	e->c = &c;
	for (guint i = 0; rc == CR_OK && i < c.pods->len; i++)
		rc = k8s_emit_pod(e, &g_array_index(c.pods, struct k8s_pod, i), err);
	e->c = NULL;
	g_array_free(c.pods, TRUE);
	g_hash_table_unref(c.value_ids);
	g_ptr_array_unref(c.values);
	g_string_chunk_free(c.chunk);
	g_string_free(c.text, TRUE);
	if (c.uids != NULL)
		g_array_free(c.uids, TRUE);
	return rc;
}

/**
 * k8s_build:
 * Add every job, in order, with the pods of its selectors; set the task of
 * the pod that is this process when one matches @self.
 * Returns: CR_OK or the first failure.
 */
cr_status k8s_build(const struct k8s *st, cr_plugin_ctx *ctx, const struct k8s_conn *conn,
		    const char *namespace, struct k8s_self *self, cr_result_builder *b,
		    struct k8s_watched *watched, const struct k8s_watched *from, cr_error *err)
{
	cr_status rc = CR_OK;
	guint l = 0;
	int64_t listed = 0;
	char count[32];
	cr_json *fact = NULL;

	for (guint j = 0; rc == CR_OK && j < st->jobs->len; j++) {
		const struct k8s_job *job = &g_array_index(st->jobs, struct k8s_job, j);
		struct k8s_emit e = { st, NULL, b, job->name, 0, self, conn ? conn->token : NULL };

		rc = cr_host->result_add_job(b, job->name, err);
		for (guint s = 0; rc == CR_OK && s < job->selectors->len; s++) {
			struct k8s_selector *sel = g_ptr_array_index(job->selectors, s);

			rc = k8s_build_selector(&e, ctx, conn, namespace, sel, &listed,
						watched ? k8s_watched_add(watched) : NULL,
						from ? g_ptr_array_index(from->lists, l++) : NULL,
						err);
		}
	}
	k8s_legacy_fact(st, b);
	/* kept when the listing failed: what came before the failure */
	snprintf(count, sizeof(count), "%lld", (long long)listed);
	if (cr_host->json_parse(count, strlen(count), "pods_listed", &fact, NULL) == CR_OK)
		cr_host->result_set_fact(b, "pods_listed", fact, NULL);
	cr_host->json_free(fact);
	if (rc == CR_OK && !self->found)
		cr_host->log(ctx, CR_LOG_DEBUG, "own pod not among the listed pods; task unknown");
	return rc;
}
