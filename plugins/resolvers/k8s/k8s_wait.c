/* SPDX-License-Identifier: MIT */
/*
 * k8s_wait.c - not_running = "wait": every selector listed again, round
 * after round, until none of its pods is outside Running, or wait_timeout
 * passes. Only the phase of a pod is read (a Table row is enough where
 * the resolve would take one, k8s_table_enough).
 */
#include <string.h>

#include "k8s.h"
#include "httpanswer.h"

struct k8s_pending {
	int64_t count;
	char *name; /* the server's text, the token cut out (a message quotes it) */
	char *phase;
	const char *token; /* the Bearer token sent (nullable) */
};

static cr_status k8s_count_pending(const struct k8s_pod_view *pod, void *ud, cr_error *err)
{
	struct k8s_pending *w = ud;

	(void)err;
	if (pod->phase && strcmp(pod->phase, "Running") == 0)
		return CR_OK;
	if (w->count++ == 0) {
		const char *const secrets[] = { w->token, NULL };

		w->name = redact_secrets(pod->name ? pod->name : "", secrets);
		w->phase = redact_secrets(pod->phase ? pod->phase : "", secrets);
	}
	return CR_OK;
}

static void k8s_pending_reset(void *ud)
{
	struct k8s_pending *w = ud;

	w->count = 0;
	g_clear_pointer(&w->name, g_free);
	g_clear_pointer(&w->phase, g_free);
}

static cr_status k8s_pending_pass(const struct k8s *st, cr_plugin_ctx *ctx,
				  const struct k8s_conn *conn, const char *ns,
				  struct k8s_pending *w, cr_error *err)
{
	cr_status rc = CR_OK;

	k8s_pending_reset(w);
	w->token = conn->token;
	for (guint j = 0; rc == CR_OK && j < st->jobs->len; j++) {
		const struct k8s_job *job = &g_array_index(st->jobs, struct k8s_job, j);

		for (guint s = 0; rc == CR_OK && s < job->selectors->len && w->count == 0; s++)
			rc = k8s_list_selector(st, ctx, conn, ns,
					       g_ptr_array_index(job->selectors, s),
					       k8s_table_enough(st, ns, NULL), k8s_count_pending,
					       k8s_pending_reset, w, NULL, err);
	}
	return rc;
}

/* How often a wait for pods to run says what it waits for. */
#define K8S_WAIT_NOTE_MS 10000

/**
 * k8s_wait_running:
 * List every selector until no selected pod is outside Running, sleeping
 * wait_interval between rounds, for at most wait_timeout of the context's
 * clock (now_ms, which a test host advances when the plugin sleeps); a
 * warning every 10 s of it names the pods still not running.
 * Returns: CR_OK, CR_ERR_TIMEOUT naming a pod still not running, or a
 * listing failure.
 */
cr_status k8s_wait_running(const struct k8s *st, cr_plugin_ctx *ctx, const struct k8s_conn *conn,
			   const char *namespace, cr_error *err)
{
	int64_t start = cr_host->now_ms(ctx), deadline = start + st->wait_timeout_ms;
	int64_t note = start + K8S_WAIT_NOTE_MS;
	struct k8s_pending w = { 0 };
	cr_status rc;

	for (;;) {
		rc = k8s_pending_pass(st, ctx, conn, namespace, &w, err);
		if (rc != CR_OK || w.count == 0)
			break;
		int64_t left = deadline - cr_host->now_ms(ctx);

		if (left <= 0) {
			rc = cr_host->error_set(err, CR_ERR_TIMEOUT,
						"Pod \"%s\" is not running; phase: \"%s\" (%lld "
						"pods not running after waiting %.1f s)",
						w.name, w.phase, (long long)w.count,
						(double)st->wait_timeout_ms / 1000.0);
			break;
		}
		/* A round a line with -v; every 10 s of waiting, a warning. */
		if (cr_host->now_ms(ctx) >= note) {
			cr_host->log(ctx, CR_LOG_WARNING,
				     "waiting %.0f s for %lld pods to run (pod \"%s\" is %s; "
				     "wait_timeout %.0f s)",
				     (double)(cr_host->now_ms(ctx) - start) / 1000.0,
				     (long long)w.count, w.name, w.phase,
				     (double)st->wait_timeout_ms / 1000.0);
			note += K8S_WAIT_NOTE_MS;
		} else {
			cr_host->log(ctx, CR_LOG_INFO,
				     "waiting for %lld pods to run (pod \"%s\" is %s)",
				     (long long)w.count, w.name, w.phase);
		}
		cr_host->sleep_ms(ctx, left < st->wait_interval_ms ? left : st->wait_interval_ms);
	}
	k8s_pending_reset(&w);
	return rc;
}
