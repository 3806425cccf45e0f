/* SPDX-License-Identifier: MIT */
/*
 * k8s_view.c - a listed pod as the plugin reads it (struct k8s_pod_view):
 * its name, namespace, uid and phase, the fields an address is made of, the
 * labels and owners that give it an index, and its containers' accelerator
 * limits. The JSON reader fills one from each json-c pod (below), the
 * protobuf reader straight from the bytes (k8s_proto.c) and a Table row
 * from its cells (k8s_page.c), so the rest of the plugin (k8s_pods.c)
 * neither knows nor pays for the encoding the server chose.
 *
 * Every string a view keeps is UTF-8 without NUL: a pod name "a\u0000b"
 * would otherwise be read as "a", and its task would silently be another.
 */
#include <string.h>

#include "k8s.h"

/* batch.kubernetes.io/job-completion-index: an Indexed Job's pods carry it
 * as a label (1.28+) and as an annotation (older); StatefulSet pods carry
 * apps.kubernetes.io/pod-index (1.28+). */
static const struct {
	const char *key;
	bool annotation;
	const char *field; /* for messages */
} k8s_index_keys[K8S_INDEX_KEYS] = {
	{ "batch.kubernetes.io/job-completion-index", false,
	  "metadata.labels[\"batch.kubernetes.io/job-completion-index\"]" },
	{ "batch.kubernetes.io/job-completion-index", true,
	  "metadata.annotations[\"batch.kubernetes.io/job-completion-index\"]" },
	{ "apps.kubernetes.io/pod-index", false,
	  "metadata.labels[\"apps.kubernetes.io/pod-index\"]" },
};

const char *const k8s_acc_keys[K8S_ACC_KEYS] = { "nvidia.com/gpu", "amd.com/gpu",
						 "google.com/tpu" };
static const uint8_t k8s_acc_kinds[K8S_ACC_KEYS] = { K8S_ACC_GPU, K8S_ACC_GPU, K8S_ACC_TPU };

static bool k8s_key_is(const char *k, const char *key, size_t n)
{
	return strlen(k) == n && memcmp(k, key, n) == 0;
}

/** The index slot of a label (or, with @annotation, an annotation) named
 *  by the @n bytes of @key; -1 when it is none of k8s_index_keys. */
int k8s_index_slot(bool annotation, const char *key, size_t n)
{
	for (int i = 0; i < K8S_INDEX_KEYS; i++)
		if (k8s_index_keys[i].annotation == annotation &&
		    k8s_key_is(k8s_index_keys[i].key, key, n))
			return i;
	return -1;
}

/** The accelerator slot of a container limit; -1 when it counts none. */
int k8s_acc_slot(const char *key, size_t n)
{
	for (int i = 0; i < K8S_ACC_KEYS; i++)
		if (k8s_key_is(k8s_acc_keys[i], key, n))
			return i;
	return -1;
}

/** Whether the @n bytes at @s are UTF-8 without NUL: the one rule for
 *  every string a view keeps, whichever encoding it came in. */
bool k8s_text_ok(const char *s, size_t n)
{
	return memchr(s, '\0', n) == NULL && g_utf8_validate(s, (gssize)n, NULL);
}

/** A decimal count of at most 12 digits (an index, a quantity "2") from
 *  the @n bytes of @s; -1 for anything else. */
int64_t k8s_count(const char *s, size_t n)
{
	int64_t v = 0;

	if (!s || n == 0 || n > 12)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/**
 * k8s_view_add_limits:
 * Add one container's accelerator limits (@limits[slot], 0 where absent)
 * to the pod's, in k8s_acc_keys order: the first kind found is the pod's,
 * and limits of another kind, or that would overflow, are not counted.
 */
void k8s_view_add_limits(struct k8s_pod_view *v, const int64_t limits[K8S_ACC_KEYS])
{
	for (size_t k = 0; k < K8S_ACC_KEYS; k++) {
		int64_t n = limits[k];

		if (n > 0 && n < INT32_MAX - v->accel &&
		    (v->accel_kind == K8S_ACC_NONE || v->accel_kind == k8s_acc_kinds[k])) {
			v->accel_kind = k8s_acc_kinds[k];
			v->accel += (int32_t)n;
		}
	}
}

void k8s_view_store_init(struct k8s_view_store *s)
{
	*s = (struct k8s_view_store){
		g_ptr_array_new(), g_ptr_array_new(), NULL, 0, 0, g_ptr_array_new(), false
	};
}

void k8s_view_store_clear(struct k8s_view_store *s)
{
	g_ptr_array_unref(s->owners);
	g_ptr_array_unref(s->ips);
	g_ptr_array_unref(s->labels);
	g_free(s->text);
	*s = (struct k8s_view_store){ 0 };
}

/**
 * k8s_view_begin:
 * Empty @v and make room for @text bytes of copied strings (k8s_view_copy),
 * so that none of them moves while the view is filled.
 */
void k8s_view_begin(struct k8s_view_store *s, struct k8s_pod_view *v, size_t text)
{
	*v = (struct k8s_pod_view){ 0 };
	g_ptr_array_set_size(s->owners, 0);
	g_ptr_array_set_size(s->ips, 0);
	g_ptr_array_set_size(s->labels, 0);
	s->len = 0;
	if (text > s->cap) {
		g_free(s->text);
		s->cap = MAX(text, 2 * s->cap);
		s->text = g_malloc(s->cap);
	}
}

/** A NUL-terminated copy of the @n bytes at @p, within the room that
 *  k8s_view_begin made (the caller counts: a protobuf string of n bytes
 *  takes at least n + 2 of its message); NULL when it does not fit. */
const char *k8s_view_copy(struct k8s_view_store *s, const char *p, size_t n)
{
	char *t;

	if (n >= s->cap - s->len)
		return NULL;
	t = s->text + s->len;
	memcpy(t, p, n);
	t[n] = '\0';
	s->len += n + 1;
	return t;
}

/** Point the view's lists at what the store gathered. */
void k8s_view_end(struct k8s_view_store *s, struct k8s_pod_view *v)
{
	v->sts_owners = (const char *const *)s->owners->pdata;
	v->n_sts_owners = s->owners->len;
	v->pod_ips = (const char *const *)s->ips->pdata;
	v->n_pod_ips = s->ips->len;
	v->labels = (const char *const *)s->labels->pdata;
	v->n_labels = s->labels->len / 2;
}

/* ---- a JSON pod --------------------------------------------------------- */

struct k8s_json_read {
	const char *bad; /* the first field whose string is refused */
};

static json_object *k8s_member(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v)
		       ? v
		       : NULL;
}

static size_t k8s_elements(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* A string member, checked: NULL when absent or not a string. */
static const char *k8s_json_str(struct k8s_json_read *r, json_object *o, const char *key,
				const char *field)
{
	json_object *v = k8s_member(o, key);
	const char *s;
	size_t n;

	if (!json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (!k8s_text_ok(s, n)) {
		if (!r->bad)
			r->bad = field;
		return NULL;
	}
	return s;
}

/* A limit: "2" or 2; 0 when not a count. */
static int64_t k8s_json_quantity(json_object *q)
{
	int64_t v;

	if (json_object_is_type(q, json_type_int))
		return json_object_get_int64(q);
	if (!json_object_is_type(q, json_type_string))
		return 0;
	v = k8s_count(json_object_get_string(q), (size_t)json_object_get_string_len(q));
	return v > 0 ? v : 0;
}

static void k8s_json_meta(struct k8s_json_read *r, struct k8s_view_store *s, json_object *meta,
			  struct k8s_pod_view *v)
{
	json_object *owners = k8s_member(meta, "ownerReferences");
	json_object *labels = k8s_member(meta, "labels");

	v->name = k8s_json_str(r, meta, "name", "metadata.name");
	v->ns = k8s_json_str(r, meta, "namespace", "metadata.namespace");
	v->uid = k8s_json_str(r, meta, "uid", "metadata.uid");
	v->version = k8s_json_str(r, meta, "resourceVersion", "metadata.resourceVersion");
	for (int i = 0; i < K8S_INDEX_KEYS; i++)
		v->index[i] = k8s_json_str(
			r,
			k8s_member(meta, k8s_index_keys[i].annotation ? "annotations" : "labels"),
			k8s_index_keys[i].key, k8s_index_keys[i].field);
	for (size_t i = 0; i < k8s_elements(owners); i++) {
		json_object *o = json_object_array_get_idx(owners, i);
		const char *kind = k8s_json_str(r, o, "kind", "metadata.ownerReferences.kind");
		const char *name = k8s_json_str(r, o, "name", "metadata.ownerReferences.name");

		if (kind && name && strcmp(kind, "StatefulSet") == 0)
			g_ptr_array_add(s->owners, (gpointer)name);
	}
	if (s->want_labels && labels && json_object_is_type(labels, json_type_object)) {
		json_object_object_foreach(labels, key, val)
		{
			if (!json_object_is_type(val, json_type_string))
				continue;
			g_ptr_array_add(s->labels, key);
			g_ptr_array_add(s->labels, (gpointer)json_object_get_string(val));
		}
	}
}

static void k8s_json_spec(struct k8s_json_read *r, json_object *spec, struct k8s_pod_view *v)
{
	json_object *cs = k8s_member(spec, "containers");

	v->hostname = k8s_json_str(r, spec, "hostname", "spec.hostname");
	v->subdomain = k8s_json_str(r, spec, "subdomain", "spec.subdomain");
	for (size_t i = 0; i < k8s_elements(cs); i++) {
		json_object *limits = k8s_member(
			k8s_member(json_object_array_get_idx(cs, i), "resources"), "limits");
		int64_t q[K8S_ACC_KEYS];

		for (int k = 0; k < K8S_ACC_KEYS; k++)
			q[k] = k8s_json_quantity(k8s_member(limits, k8s_acc_keys[k]));
		k8s_view_add_limits(v, q);
	}
}

static void k8s_json_status(struct k8s_json_read *r, struct k8s_view_store *s, json_object *status,
			    struct k8s_pod_view *v)
{
	json_object *ips = k8s_member(status, "podIPs");

	v->phase = k8s_json_str(r, status, "phase", "status.phase");
	v->host_ip = k8s_json_str(r, status, "hostIP", "status.hostIP");
	v->pod_ip = k8s_json_str(r, status, "podIP", "status.podIP");
	for (size_t i = 0; i < k8s_elements(ips); i++) {
		const char *ip = k8s_json_str(r, json_object_array_get_idx(ips, i), "ip",
					      "status.podIPs.ip");

		if (ip)
			g_ptr_array_add(s->ips, (gpointer)ip);
	}
}

/**
 * k8s_view_from_json:
 * Fill @v from a pod of a JSON PodList (its strings borrowed from @pod).
 * A member of another type than the API's counts as absent.
 * Returns: NULL, or the field whose string is not UTF-8 without NUL.
 */
const char *k8s_view_from_json(struct k8s_view_store *s, json_object *pod, struct k8s_pod_view *v)
{
	struct k8s_json_read r = { NULL };

	k8s_view_begin(s, v, 0);
	k8s_json_meta(&r, s, k8s_member(pod, "metadata"), v);
	k8s_json_spec(&r, k8s_member(pod, "spec"), v);
	k8s_json_status(&r, s, k8s_member(pod, "status"), v);
	k8s_view_end(s, v);
	return r.bad;
}

/* ---- a label selector --------------------------------------------------- */

static const char *k8s_label(const struct k8s_pod_view *v, const char *key, size_t n)
{
	for (guint i = 0; i < v->n_labels; i++)
		if (strlen(v->labels[2 * i]) == n && memcmp(v->labels[2 * i], key, n) == 0)
			return v->labels[2 * i + 1];
	return NULL;
}

static const char *k8s_skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/* Whether @value is one of "(a, b, ...)" at @p..@end; -1: not a set. */
static int k8s_in_set(const char *p, const char *end, const char *value)
{
	p = k8s_skip_blank(p, end);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (p >= end || *p != '(' || end[-1] != ')')
		return -1;
	for (p++, end--; p <= end;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end, *a = k8s_skip_blank(p, stop), *b = stop;

		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (value && strlen(value) == (size_t)(b - a) &&
		    memcmp(value, a, (size_t)(b - a)) == 0)
			return 1;
		p = stop + 1;
	}
	return 0;
}

/* One requirement, @p..@end; -1: not one this reads. */
static int k8s_requirement(const struct k8s_pod_view *v, const char *p, const char *end)
{
	bool not = false;
	const char *key, *val, *got;
	size_t n;
	int in;

	p = k8s_skip_blank(p, end);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (p < end && *p == '!') {
		p = k8s_skip_blank(p + 1, end);
		not = true;
	}
	key = p;
	while (p < end && !strchr(" \t=!(", *p))
		p++;
	n = (size_t)(p - key);
	if (n == 0)
		return -1;
	got = k8s_label(v, key, n);
	p = k8s_skip_blank(p, end);
	if (p == end)
		return not ? got == NULL : got != NULL;
	if (not )
		return -1;
	if (*p == '=' || *p == '!') {
		bool ne = *p == '!';

		if (ne && (p + 1 >= end || p[1] != '='))
			return -1;
		p += ne || (p + 1 < end && p[1] == '=') ? 2 : 1;
		val = k8s_skip_blank(p, end);
		n = (size_t)(end - val);
		bool eq = got && strlen(got) == n && memcmp(got, val, n) == 0;

		return ne ? !eq : eq;
	}
	if ((size_t)(end - p) > 2 && strncmp(p, "in", 2) == 0 && strchr(" \t(", p[2]))
		return k8s_in_set(p + 2, end, got);
	if ((size_t)(end - p) > 5 && strncmp(p, "notin", 5) == 0 && strchr(" \t(", p[5])) {
		in = k8s_in_set(p + 5, end, got);
		return in < 0 ? -1 : !in;
	}
	return -1;
}

bool k8s_view_selected(const struct k8s_pod_view *v, const char *selector)
{
	const char *p = selector, *end;
	int depth = 0;

	if (!selector)
		return true;
	for (const char *q = p;; q++) {
		if (*q == '(')
			depth++;
		else if (*q == ')')
			depth--;
		if (*q != '\0' && (*q != ',' || depth > 0))
			continue;
		end = q;
		if (k8s_skip_blank(p, end) < end && k8s_requirement(v, p, end) == 0)
			return false;
		if (*q == '\0')
			return true;
		p = q + 1;
	}
}
