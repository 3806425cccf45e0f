/* SPDX-License-Identifier: MIT */
/*
 * k8s_watched.c - what the last resolve listed, where its watch starts
 * (k8s.h: struct k8s_watched): per list its selector, its resourceVersion
 * and, per pod that counts, a 16-byte entry (a hash of namespace/name, the
 * digest of what the resolution reads of it) and, for a watched resolution,
 * its record (k8s_pod_record), sorted once a watch starts.
 */
#include "k8s.h"

struct k8s_watched *k8s_watched_new(const char *namespace)
{
	struct k8s_watched *w = g_new0(struct k8s_watched, 1);

	w->namespace = g_strdup(namespace);
	w->lists = g_ptr_array_new();
	return w;
}

struct k8s_watch_list *k8s_watched_add(struct k8s_watched *w)
{
	struct k8s_watch_list *l = g_new0(struct k8s_watch_list, 1);

	l->pods = g_array_new(FALSE, FALSE, sizeof(struct k8s_pod_seen));
	l->full = w->full;
	g_ptr_array_add(w->lists, l);
	return l;
}

void k8s_watch_list_put(struct k8s_watch_list *l, guint64 key, guint64 digest, char *rec)
{
	struct k8s_pod_seen p = { key, digest, rec };

	g_array_append_val(l->pods, p);
	l->sorted = false;
}

static void k8s_seen_free(struct k8s_watch_list *l)
{
	for (guint i = 0; i < l->pods->len; i++)
		g_free(g_array_index(l->pods, struct k8s_pod_seen, i).rec);
}

void k8s_watch_list_clear(struct k8s_watch_list *l)
{
	k8s_seen_free(l);
	g_array_set_size(l->pods, 0);
	l->sorted = false;
}

static gint k8s_seen_cmp(gconstpointer a, gconstpointer b)
{
	guint64 x = ((const struct k8s_pod_seen *)a)->key,
		y = ((const struct k8s_pod_seen *)b)->key;

	return x < y ? -1 : x > y;
}

/* Sorted by key (a stable sort), each key's last entry kept. */
void k8s_watch_list_seal(struct k8s_watch_list *l)
{
	if (l->sorted)
		return;
	struct k8s_pod_seen *p = (struct k8s_pod_seen *)(void *)l->pods->data;
	guint n = 0;

	g_array_sort(l->pods, k8s_seen_cmp);
	for (guint i = 0; i < l->pods->len; i++) {
		if (n > 0 && p[n - 1].key == p[i].key)
			g_free(p[--n].rec); /* put again: the later one stands */
		p[n++] = p[i];
	}
	g_array_set_size(l->pods, n);
	l->sorted = true;
}

/* Where @key is or would go in a sealed list. */
static guint k8s_seen_find(const struct k8s_watch_list *l, guint64 key)
{
	const struct k8s_pod_seen *p = (const struct k8s_pod_seen *)(const void *)l->pods->data;
	guint lo = 0, hi = l->pods->len;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (p[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void k8s_watch_list_update(struct k8s_watch_list *l, guint64 key, guint64 digest, char *rec,
			   bool gone)
{
	guint at = k8s_seen_find(l, key);
	struct k8s_pod_seen *p = (struct k8s_pod_seen *)(void *)l->pods->data;
	bool here = at < l->pods->len && p[at].key == key;
	struct k8s_pod_seen n = { key, digest, rec };

	if (here)
		g_free(p[at].rec);
	if (gone && here)
		g_array_remove_index(l->pods, at);
	else if (here)
		p[at] = n;
	else if (!gone)
		g_array_insert_val(l->pods, at, n);
	if (gone)
		g_free(rec);
}

bool k8s_watch_list_get(const struct k8s_watch_list *l, guint64 key, guint64 *digest)
{
	const struct k8s_pod_seen *p;
	guint lo = 0, hi;

	p = (const struct k8s_pod_seen *)(const void *)l->pods->data;
	hi = l->pods->len;
	if (!l->sorted) { /* not sealed (a list that failed): the last put */
		for (guint i = hi; i-- > 0;)
			if (p[i].key == key) {
				*digest = p[i].digest;
				return true;
			}
		return false;
	}
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (p[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= l->pods->len || p[lo].key != key)
		return false;
	*digest = p[lo].digest;
	return true;
}

void k8s_self_keep(struct k8s_watched *w, const struct k8s_self *self)
{
	w->self_ns = g_strdup(self->namespace);
	w->self_pod_name = g_strdup(self->pod_name);
	w->self_hostname = g_strdup(self->hostname);
	w->self_pod_ip = g_strdup(self->pod_ip);
}

void k8s_self_kept(const struct k8s_watched *w, struct k8s_self *self)
{
	memset(self, 0, sizeof(*self));
	self->pod_name = w->self_pod_name;
	self->hostname = w->self_hostname;
	self->pod_ip = w->self_pod_ip;
	self->namespace = w->self_ns;
}

void k8s_watched_free(struct k8s_watched *w)
{
	if (!w)
		return;
	for (guint i = 0; i < w->lists->len; i++) {
		struct k8s_watch_list *l = g_ptr_array_index(w->lists, i);

		g_free(l->selector);
		g_free(l->version);
		k8s_seen_free(l);
		g_array_unref(l->pods);
		g_free(l);
	}
	g_ptr_array_unref(w->lists);
	g_free(w->namespace);
	g_free(w->self_ns);
	g_free(w->self_pod_name);
	g_free(w->self_hostname);
	g_free(w->self_pod_ip);
	g_free(w);
}
