/* SPDX-License-Identifier: MIT */
/*
 * k8s_watch_many.c - the watch op: one watch stream per list of the last
 * resolve (a job's selector; a chief/worker/ps job has three), each in a
 * thread of its own (k8s_watch_one, k8s_watch.c). The first stream that
 * ends with a change or a failure ends the others through host->watch_stop
 * (ABI 1.3); the op then answers for all of them: changed when any list
 * changed, the first failure when one failed. Each list resumes from its
 * own resourceVersion, and a full list (a watched resolution's) follows
 * its own events, so a resolve after the op answers from the watch's pods
 * with no request.
 *
 * Polled instead (K8S_POLL_MS, the host lists again and compares): a list
 * without a resourceVersion, a selector on a Job label that matched no pod
 * in either form (k8s_legacy.c: the pods to come may carry the prefixed
 * label or only the legacy one, and one stream follows one), and several
 * lists on a host without watch_stop (before ABI 1.3), where one stream
 * could not end the others.
 */
#include "k8s.h"

#define K8S_POLL_MS 30000

/* Several lists that cannot be streamed: the host lists again every
 * K8S_POLL_MS and compares. */
static cr_status k8s_watch_poll(cr_plugin_ctx *ctx, int64_t deadline_ms, bool *changed)
{
	int64_t now = cr_host->now_ms(ctx);
	int64_t until = MIN(deadline_ms, now + K8S_POLL_MS);

	k8s_watch_sleep(ctx, until - now);
	*changed = !cr_host->watch_cancelled(ctx) && until < deadline_ms;
	return CR_OK;
}

/* Why the lists of @w cannot be streamed; NULL: they can. */
static const char *k8s_unwatchable(const struct k8s_watched *w)
{
	if (!w || w->lists->len == 0)
		return "no resourceVersion to watch from";
	if (w->lists->len > 1 && !CR_HOST_HAS(cr_host, watch_stop))
		return "several selectors on a host before ABI 1.3: one watch cannot end the "
		       "others";
	for (guint i = 0; i < w->lists->len; i++) {
		const struct k8s_watch_list *l = g_ptr_array_index(w->lists, i);

		if (l->relist)
			return "no pod has the Job label, prefixed or legacy: one watch cannot "
			       "follow both";
		if (!l->version)
			return "no resourceVersion to watch from";
	}
	return NULL;
}

struct k8s_watch_thread {
	struct k8s_watch_one one;
	GThread *thread;
	gint *stopped_by_us; /* atomic, shared: a list's end stopped the others */
};

static gpointer k8s_watch_thread_run(gpointer data)
{
	struct k8s_watch_thread *t = data;

	k8s_watch_one(&t->one);
	if ((t->one.changed || t->one.rc != CR_OK) && !cr_host->watch_cancelled(t->one.ctx)) {
		g_atomic_int_set(t->stopped_by_us, 1);
		cr_host->watch_stop(t->one.ctx); /* the other lists' streams end */
	}
	return NULL;
}

cr_status k8s_watch(void *state, cr_plugin_ctx *ctx, int64_t deadline_ms, bool *changed,
		    cr_error *err)
{
	struct k8s *st = state;
	struct k8s_conn conn = { 0 };
	struct k8s_watch_thread *t;
	const char *why;
	gint stopped_by_us = 0;
	bool any = false, stale = false;
	cr_status rc;
	guint n;

	*changed = false;
	st->in_watch = cr_host->watched(ctx);
	why = k8s_unwatchable(st->watched);
	if (why) {
		cr_host->log(ctx, CR_LOG_DEBUG, "%s; listing again every %d s", why,
			     K8S_POLL_MS / 1000);
		if (st->watched)
			st->watched->fresh = false; /* the host lists again */
		return k8s_watch_poll(ctx, deadline_ms, changed);
	}
	if (st->watched->unanswered && st->watched->fresh) {
		cr_host->log(ctx, CR_LOG_DEBUG,
			     "a change applied as the last watch was ended: answered now");
		st->watched->unanswered = false;
		*changed = true;
		return CR_OK;
	}
	rc = k8s_conn_load(st, ctx, &conn, err);
	if (rc == CR_OK)
		rc = k8s_auth_prepare(st, ctx, &conn, err);
	if (rc != CR_OK) {
		k8s_conn_clear(&conn);
		return rc;
	}
	n = st->watched->lists->len;
	t = g_new0(struct k8s_watch_thread, n);
	for (guint i = 0; i < n; i++) {
		t[i].one = (struct k8s_watch_one){
			st,          ctx,   &conn,         g_ptr_array_index(st->watched->lists, i),
			deadline_ms, CR_OK, CR_ERROR_INIT, false,
			false,       NULL
		};
		t[i].stopped_by_us = &stopped_by_us;
		/* sorted here, not when listed: a resolve that is never watched
		 * (most are) does not pay for it */
		k8s_watch_list_seal(t[i].one.list);
	}
	if (n == 1) {
		k8s_watch_one(&t[0].one); /* one list: no thread */
	} else {
		for (guint i = 0; i < n; i++)
			t[i].thread = g_thread_new("cr-k8s-watch", k8s_watch_thread_run, &t[i]);
		for (guint i = 0; i < n; i++)
			g_thread_join(t[i].thread);
	}
	for (guint i = 0; i < n; i++) {
		struct k8s_watch_one *o = &t[i].one;

		if (o->rc != CR_OK && rc == CR_OK)
			rc = cr_host->error_set(err, o->rc, "%s", o->err.message);
		any = any || o->changed;
		stale = stale || o->rc != CR_OK || o->expired || (o->changed && !o->list->full);
	}
	for (guint i = 0; i < n && !stale; i++) {
		/* every list's pods still stand, or each full list followed
		 * its events up to here: each resumes from where it got */
		struct k8s_watch_one *o = &t[i].one;

		if (o->version) {
			g_free(o->list->version);
			o->list->version = g_steal_pointer(&o->version);
		}
	}
	if (stale)
		st->watched->fresh = false; /* the host lists again */
	/* A change answers unless the host ended the round (not one of ours). */
	*changed = rc == CR_OK && any &&
		   (g_atomic_int_get(&stopped_by_us) || !cr_host->watch_cancelled(ctx));
	/* ... and is kept for the next op when the lists followed it */
	st->watched->unanswered = rc == CR_OK && any && !*changed && !stale;
	for (guint i = 0; i < n; i++)
		g_free(t[i].one.version);
	g_free(t);
	k8s_conn_clear(&conn);
	return rc;
}
