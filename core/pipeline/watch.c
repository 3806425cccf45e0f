/* SPDX-License-Identifier: MIT */
/*
 * watch.c - cr_context_watch: the membership as a stream of generations.
 * The first call resolves. Each later one waits for a reason to resolve
 * again: a resolver's watch op said its membership may have changed (each
 * watched resolver in a thread of its own for one round), a polled
 * resolver is due (its watch_interval, with a 10% jitter), the caller's
 * deadline passed or the watch was cancelled; then it resolves the whole
 * context and returns the result only when its canonical text (member.c) differs
 * from the last one returned. A round ends by cancelling every watch op
 * still running (the context's round descriptor, which the host table's
 * watch slots hand out) and joining its thread. One call of a watch op
 * lasts a time drawn anew each call in [0.9, 1.0) x its watch_interval
 * (watch_call_ms), so the processes of a job that started together do not
 * end and renew their watch requests at one instant.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"

#define BACKOFF_FIRST_MS 1000
#define BACKOFF_MAX_MS 30000
/* A watch op that said "changed" when the resolution it asked for brought
 * no new generation (a 410 Gone, a server that sends events for pods
 * outside the selector, a proxy that replays): its next watch waits, as
 * client-go's reflector waits before it lists again after a watch error:
 * 0.8 s doubling to 30 s (jittered +-10%), back to none after a new
 * generation or a watch op that ended unchanged (a healthy stream). */
#define RELIST_FIRST_MS 800
#define RELIST_MAX_MS 30000

static int64_t now_ms(cr_context *ctx)
{
	void *data;
	const io_ops *io = ctx_io(ctx, &data);

	return io->now_ms(data);
}

static int64_t jittered(int64_t interval_ms)
{
	return (int64_t)((double)interval_ms * g_random_double_range(0.9, 1.1));
}

/* How long one call of a watch op may last: uniformly in [0.9, 1.0) x
 * @interval_ms, drawn for each call. The interval stays the longest a call
 * lasts (a resync, and the bound on noticing a connection that died without
 * a word); the spread keeps 1,000 processes started at once from renewing
 * their watches at one instant, and each call's draw moves them further
 * apart. */
static int64_t watch_call_ms(int64_t interval_ms)
{
	return (int64_t)((double)interval_ms * g_random_double_range(0.9, 1.0));
}

static void drain(int fd)
{
	uint64_t v;

	while (read(fd, &v, sizeof(v)) > 0)
		;
}

static void signal_fd(int fd)
{
	uint64_t one = 1;
	ssize_t n;

	do
		n = write(fd, &one, sizeof(one));
	while (n < 0 && errno == EINTR);
}

/* The watch op of @inst, when it has one (an older ops table has none). */
static cr_status (*watch_op(const cr_instance *inst))(void *, cr_plugin_ctx *, int64_t, bool *,
						      cr_error *)
{
	const cr_resolver_ops *o = inst->plugin->desc->resolver;

	if (inst->kind != CR_PLUGIN_RESOLVER ||
	    o->struct_size < offsetof(cr_resolver_ops, watch) + sizeof(o->watch))
		return NULL;
	return o->watch;
}

/* ---- one round of watch ops ---------------------------------------------- */

typedef struct watcher {
	cr_instance *inst;
	int64_t deadline_ms;
	GThread *thread;
	int report_fd; /* the round's: written when this watcher is done */
	/* Its answer, read after the thread is joined. */
	cr_status st;
	bool changed;
	cr_error err;
	gint done; /* atomic */
} watcher;

static gpointer watcher_run(gpointer data)
{
	watcher *w = data;
	cr_instance *inst = w->inst;

	w->err = (cr_error)CR_ERROR_INIT;
	w->changed = false;
	w->st = watch_op(inst)(inst->state, &inst->pctx, w->deadline_ms, &w->changed, &w->err);
	g_atomic_int_set(&w->done, 1);
	signal_fd(w->report_fd);
	return NULL;
}

typedef enum trigger {
	TRIGGER_RESOLVE, /* something may have changed: resolve again */
	TRIGGER_TIMEOUT, /* the caller's deadline passed */
	TRIGGER_CANCEL,  /* cr_context_watch_cancel */
} trigger;

/* Whether the caller asked to stop; the request is used up. */
static bool take_cancel(cr_context *ctx)
{
	if (ctx_interrupted(ctx))
		return true; /* for good: cr_context_interrupt */
	if (!g_atomic_int_compare_and_exchange(&ctx->cancel_pending, 1, 0))
		return false;
	drain(ctx->cancel_fd);
	return true;
}

/* A resolver that resolved and has a watch op, and is not backing off. */
static bool watchable(const cr_instance *inst, int64_t now)
{
	return inst->verdict == VERDICT_OK && watch_op(inst) != NULL && now >= inst->watch_after_ms;
}

/* A resolver resolved again on a clock: no watch op (or one backing off),
 * and not a static source. */
static bool polled(const cr_instance *inst, int64_t now)
{
	return inst->watch_interval_ms > 0 && !watchable(inst, now);
}

/* End the round's watch ops. One that answered "changed" as it was
 * stopped is kept for the next round (@resolving: a resolution follows
 * now and sees it anyway): a plugin that follows a stream has moved past
 * that event and would not report it again. */
static void stop_round(GPtrArray *watchers, bool resolving)
{
	for (guint i = 0; i < watchers->len; i++)
		instance_watch_stop(((watcher *)g_ptr_array_index(watchers, i))->inst);
	for (guint i = 0; i < watchers->len; i++) {
		watcher *w = g_ptr_array_index(watchers, i);

		g_thread_join(w->thread);
		w->inst->watching = false;
		if (!resolving && w->st == CR_OK && w->changed)
			w->inst->change_kept = true;
	}
}

/* A change kept from the last round's end: resolve at once. */
static bool take_kept_change(cr_context *ctx)
{
	bool kept = false;

	for (guint i = 0; i < ctx->resolvers->len; i++) {
		cr_instance *inst = g_ptr_array_index(ctx->resolvers, i);

		if (!inst->change_kept)
			continue;
		inst->change_kept = false;
		inst->relist_asked = true;
		kept = true;
		ctx_log(ctx, CR_LOG_DEBUG, inst->label,
			"watch: a change answered as the last watch ended; resolving again");
	}
	return kept;
}

/* A watcher's answer: resolve again (changed, or failed: then it backs
 * off and is polled meanwhile), or nothing to do. */
static bool answered(cr_context *ctx, watcher *w, int64_t now)
{
	cr_instance *inst = w->inst;

	if (w->st != CR_OK) {
		inst->backoff_ms = inst->backoff_ms == 0
					   ? BACKOFF_FIRST_MS
					   : MIN(inst->backoff_ms * 2, BACKOFF_MAX_MS);
		inst->watch_after_ms = now + jittered(inst->backoff_ms);
		ctx_log(ctx, CR_LOG_WARNING, inst->label,
			"watch failed: %s; resolving again, next watch in %" G_GINT64_FORMAT " ms",
			w->err.message[0] ? w->err.message : cr_strerror(w->st),
			inst->watch_after_ms - now);
		return true;
	}
	inst->backoff_ms = 0;
	if (w->changed)
		ctx_log(ctx, CR_LOG_DEBUG, inst->label, "watch: membership may have changed");
	else
		inst->relist_backoff_ms = 0;
	inst->relist_asked = w->changed;
	return w->changed;
}

/* Start @inst's watch op on a thread of its own, into @watchers; when no
 * descriptor can be made for it, it is polled after a backoff instead. */
static void watcher_start(GPtrArray *watchers, cr_context *ctx, cr_instance *inst, int64_t deadline,
			  int report_fd)
{
	watcher *w;
	int64_t now = now_ms(ctx);
	/* One call lasts 90 to 100% of the instance's interval (a resync,
	 * jittered), and never past the caller's deadline. */
	int64_t call = inst->watch_interval_ms > 0 ? watch_call_ms(inst->watch_interval_ms) : 0;

	if (!instance_watch_begin(inst, true)) {
		inst->watching = false;
		inst->watch_after_ms = now + jittered(BACKOFF_FIRST_MS);
		ctx_log(ctx, CR_LOG_WARNING, inst->label, "watch: cannot make a descriptor (%s)",
			g_strerror(errno));
		return;
	}
	w = g_new0(watcher, 1);
	w->inst = inst;
	w->report_fd = report_fd;
	w->deadline_ms = call > 0 && now + call < deadline ? now + call : deadline;
	w->thread = g_thread_new("cr-watch", watcher_run, w);
	g_ptr_array_add(watchers, w);
}

/* Wait for a reason to resolve again, until @deadline (now_ms's clock;
 * INT64_MAX: none). */
static trigger wait_round(cr_context *ctx, int64_t deadline)
{
	GPtrArray *watchers = g_ptr_array_new_with_free_func(g_free);
	int report_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	trigger t = TRIGGER_TIMEOUT;
	int64_t now = now_ms(ctx);

	if (report_fd < 0) {
		/* No descriptor to wait on: fall back to polling everything. */
		ctx_log(ctx, CR_LOG_WARNING, NULL, "watch: cannot make a descriptor (%s); polling",
			g_strerror(errno));
		g_ptr_array_unref(watchers);
		return TRIGGER_RESOLVE;
	}
	if (take_kept_change(ctx)) {
		close(report_fd);
		g_ptr_array_unref(watchers);
		return TRIGGER_RESOLVE;
	}
	for (guint i = 0; i < ctx->resolvers->len; i++) {
		cr_instance *inst = g_ptr_array_index(ctx->resolvers, i);

		if (watchable(inst, now))
			watcher_start(watchers, ctx, inst, deadline, report_fd);
	}
	for (;;) {
		int64_t wake = deadline;
		struct pollfd fds[2] = { { .fd = ctx->cancel_fd, .events = POLLIN },
					 { .fd = report_fd, .events = POLLIN } };
		int timeout;

		if (take_cancel(ctx)) {
			t = TRIGGER_CANCEL;
			goto out;
		}
		now = now_ms(ctx);
		for (guint i = 0; i < ctx->resolvers->len; i++) {
			cr_instance *inst = g_ptr_array_index(ctx->resolvers, i);

			if (!polled(inst, now))
				continue;
			if (inst->next_poll_ms == 0)
				inst->next_poll_ms = now + jittered(inst->watch_interval_ms);
			if (inst->next_poll_ms <= now) {
				ctx_log(ctx, CR_LOG_DEBUG, inst->label,
					"watch: due, resolving again");
				t = TRIGGER_RESOLVE;
				goto out;
			}
			wake = MIN(wake, inst->next_poll_ms);
			if (watch_op(inst) != NULL && inst->verdict == VERDICT_OK)
				wake = MIN(wake, inst->watch_after_ms); /* its backoff ends */
		}
		if (now >= deadline) {
			t = TRIGGER_TIMEOUT;
			goto out;
		}
		timeout = wake == INT64_MAX ? -1 : (int)MIN(wake - now, (int64_t)INT32_MAX);
		if (poll(fds, 2, timeout) < 0 && errno != EINTR) {
			t = TRIGGER_RESOLVE;
			goto out;
		}
		now = now_ms(ctx); /* the backoff ends below are judged after the wait */
		if (fds[1].revents & POLLIN) {
			drain(report_fd);
			now = now_ms(ctx);
			for (guint i = 0; i < watchers->len; i++) {
				watcher *w = g_ptr_array_index(watchers, i);

				if (!g_atomic_int_get(&w->done))
					continue;
				g_thread_join(w->thread);
				w->inst->watching = false;
				g_ptr_array_steal_index_fast(watchers, i--);
				if (answered(ctx, w, now)) {
					g_free(w);
					t = TRIGGER_RESOLVE;
					goto out;
				}
				/* Unchanged at its deadline: watch again (a resync). */
				if (now < deadline)
					watcher_start(watchers, ctx, w->inst, deadline, report_fd);
				g_free(w);
			}
		}
		/* A watcher's backoff ended: start a round afresh with it. */
		for (guint i = 0; i < ctx->resolvers->len; i++) {
			cr_instance *inst = g_ptr_array_index(ctx->resolvers, i);
			bool running = false;

			if (!watchable(inst, now) || inst->watch_after_ms == 0)
				continue;
			for (guint k = 0; k < watchers->len && !running; k++)
				running = ((watcher *)g_ptr_array_index(watchers, k))->inst == inst;
			if (!running) {
				inst->watch_after_ms = 0;
				watcher_start(watchers, ctx, inst, deadline, report_fd);
			}
		}
	}
out:
	stop_round(watchers, t == TRIGGER_RESOLVE);
	close(report_fd);
	g_ptr_array_unref(watchers);
	return t;
}

/* After a resolution that a watch op asked for: one that brought no new
 * generation (@changed false) makes that op's next watch wait, so a server
 * that answers every watch with 410 or a stray event is listed a handful
 * of times a minute, not as fast as it answers. */
static void relist_done(cr_context *ctx, bool changed)
{
	int64_t now = now_ms(ctx);

	for (guint i = 0; i < ctx->resolvers->len; i++) {
		cr_instance *inst = g_ptr_array_index(ctx->resolvers, i);

		if (!inst->relist_asked)
			continue;
		inst->relist_asked = false;
		if (changed) {
			inst->relist_backoff_ms = 0;
			continue;
		}
		inst->relist_backoff_ms = inst->relist_backoff_ms == 0
						  ? RELIST_FIRST_MS
						  : MIN(inst->relist_backoff_ms * 2, RELIST_MAX_MS);
		inst->watch_after_ms =
			MAX(inst->watch_after_ms, now + jittered(inst->relist_backoff_ms));
		ctx_log(ctx, CR_LOG_INFO, inst->label,
			"watch: resolved again, no change; next watch in %" G_GINT64_FORMAT " ms",
			inst->watch_after_ms - now);
	}
}

/* Polled resolvers are due one interval after the resolution just made. */
static void schedule_polls(cr_context *ctx)
{
	int64_t now = now_ms(ctx);

	for (guint i = 0; i < ctx->resolvers->len; i++) {
		cr_instance *inst = g_ptr_array_index(ctx->resolvers, i);

		inst->next_poll_ms =
			inst->watch_interval_ms > 0 ? now + jittered(inst->watch_interval_ms) : 0;
	}
}

/* After a failed resolution: every resolver that may change is tried again
 * after a backoff (1 s doubling to 30 s, within its interval), not a whole
 * interval later, so a source that comes back is seen soon. */
static void retry_after_failure(cr_context *ctx)
{
	watch_state *ws = ctx->watch;
	int64_t now = now_ms(ctx);

	ws->retry_ms = ws->retry_ms == 0 ? BACKOFF_FIRST_MS : MIN(ws->retry_ms * 2, BACKOFF_MAX_MS);
	for (guint i = 0; i < ctx->resolvers->len; i++) {
		cr_instance *inst = g_ptr_array_index(ctx->resolvers, i);

		if (inst->watch_interval_ms > 0)
			inst->next_poll_ms =
				now + MIN(jittered(ws->retry_ms), inst->watch_interval_ms);
	}
}

cr_status cr_context_watch(cr_context *ctx, int64_t timeout_ms, cr_result **result,
			   uint64_t *generation, cr_error *err)
{
	int64_t deadline, now;
	cr_result *res = NULL;
	GBytes *canon = NULL;
	bool changed;
	cr_status st = CR_OK;

	if (ctx == NULL || result == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_context_watch: NULL argument");
	*result = NULL;
	if (generation != NULL)
		*generation = 0;
	if (ctx->watch_running)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr_context_watch: this context is already being watched");
	ctx->watch_running = true;
	ctx->watched = true; /* host->watched: every resolution below is a watch's */
	if (ctx->watch == NULL) {
		st = cr_context_resolve(ctx, &res, err);
		if (st == CR_OK) {
			ctx->watch = watch_state_new();
			ctx->watch->canon = result_canon(res);
			member_remember(ctx->watch, res);
			ctx->watch->generation = 1;
			schedule_polls(ctx);
		}
		goto out;
	}
	now = now_ms(ctx);
	/* Saturated: a timeout past the end of the clock waits as "< 0" does. */
	deadline = timeout_ms < 0 || timeout_ms > INT64_MAX - now ? INT64_MAX : now + timeout_ms;
	for (;;) {
		trigger t = wait_round(ctx, deadline);

		if (t != TRIGGER_RESOLVE)
			goto out;
		st = cr_context_resolve(ctx, &res, err);
		schedule_polls(ctx);
		if (st != CR_OK) {
			relist_done(ctx, true); /* a failure backs off on its own */
			retry_after_failure(ctx);
			goto out;
		}
		ctx->watch->retry_ms = 0;
		canon = result_canon(res);
		changed = !g_bytes_equal(canon, ctx->watch->canon);
		relist_done(ctx, changed);
		if (changed)
			break;
		g_bytes_unref(canon);
		cr_result_free(res);
		res = NULL;
	}
	g_bytes_unref(ctx->watch->canon);
	ctx->watch->canon = canon;
	member_remember(ctx->watch, res);
	ctx->watch->generation++;
out:
	ctx->watch_running = false;
	ctx->watched = false;
	if (res != NULL) {
		*result = res;
		if (generation != NULL)
			*generation = ctx->watch->generation;
	}
	return st;
}

void cr_context_watch_cancel(cr_context *ctx)
{
	if (ctx == NULL)
		return;
	g_atomic_int_set(&ctx->cancel_pending, 1);
	signal_fd(ctx->cancel_fd);
}

/* Here, beside the cancel it also makes: an interrupt ends the watch too. */
void cr_context_interrupt(cr_context *ctx)
{
	uint64_t one = 1;
	ssize_t n;

	if (ctx == NULL)
		return;
	/* Only what a signal handler may do: an atomic store and write(2). */
	g_atomic_int_set(&ctx->interrupted, 1);
	do
		n = write(ctx->interrupt_fd, &one, sizeof(one));
	while (n < 0 && errno == EINTR);
	cr_context_watch_cancel(ctx);
}
