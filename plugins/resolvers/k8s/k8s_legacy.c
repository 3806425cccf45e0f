/* SPDX-License-Identifier: MIT */
/*
 * k8s_legacy.c - the Job labels of clusters before Kubernetes 1.27.
 *
 * The Job controller labels its pods batch.kubernetes.io/job-name and
 * batch.kubernetes.io/controller-uid only since 1.27; before, they carry
 * only job-name and controller-uid (from 1.27 on, both: the API server's
 * job strategy sets the legacy and the prefixed key of each). A selector
 * written as the documentation says, `batch.kubernetes.io/job-name=trainer`,
 * matches nothing on an older cluster. So when a selector holds an equality
 * requirement (`=` or `==`) on one of the two prefixed keys and its list
 * finds no pod, it is listed once more with those requirements under the
 * legacy keys (`job-name=trainer`). When that finds pods, the legacy form
 * is what this instance sends from then on (resolves, waits, the watch):
 * one extra request once, and none on a cluster that has the prefixed
 * labels. When neither form matches, the answer is what it was (no pod),
 * after one extra request per resolve. See docs/k8s.md, "Older clusters".
 */
#include <string.h>

#include "k8s.h"

#define K8S_BATCH_PREFIX "batch.kubernetes.io/"

static const char *const k8s_job_keys[] = { K8S_BATCH_PREFIX "job-name",
					    K8S_BATCH_PREFIX "controller-uid", NULL };

/* Whether the requirement at @req (@n bytes, no outer spaces) is an
 * equality on a prefixed Job key: `KEY = v`, `KEY == v`, not `KEY != v`,
 * `KEY in (...)` nor a longer key. */
static bool k8s_job_equality(const char *req, size_t n)
{
	for (size_t k = 0; k8s_job_keys[k] != NULL; k++) {
		size_t kl = strlen(k8s_job_keys[k]), i = kl;

		if (n <= kl || memcmp(req, k8s_job_keys[k], kl) != 0)
			continue;
		while (i < n && g_ascii_isspace(req[i]))
			i++;
		if (i < n && req[i] == '=')
			return true;
	}
	return false;
}

/**
 * k8s_legacy_selector:
 * @selector: a label selector as written.
 * Returns: (transfer full) (nullable) @selector with every equality
 * requirement on batch.kubernetes.io/job-name or .../controller-uid under
 * its legacy key, the rest kept byte for byte; NULL when it holds none.
 * Requirements are split at the commas outside parentheses (a set of
 * `in (a, b)` has its own).
 */
char *k8s_legacy_selector(const char *selector)
{
	GString *out = g_string_new(NULL);
	const char *p = selector != NULL ? selector : "";
	bool any = false;

	while (*p) {
		const char *end = p;
		int depth = 0;

		for (; *end && (depth > 0 || *end != ','); end++)
			depth += *end == '(' ? 1 : *end == ')' && depth > 0 ? -1 : 0;
		const char *req = p;

		while (req < end && g_ascii_isspace(*req))
			g_string_append_c(out, *req++);
		size_t n = (size_t)(end - req);

		while (n > 0 && g_ascii_isspace(req[n - 1]))
			n--;
		if (k8s_job_equality(req, n)) {
			req += strlen(K8S_BATCH_PREFIX);
			any = true;
		}
		g_string_append_len(out, req, end - req);
		if (*end == ',')
			g_string_append_c(out, *end++);
		p = end;
	}
	if (!any) {
		g_string_free(out, TRUE);
		return NULL;
	}
	return g_string_free(out, FALSE);
}

const char *k8s_selector_sent(const struct k8s_selector *sel)
{
	return sel->use_legacy ? sel->legacy : sel->text;
}

void k8s_legacy_begin(const struct k8s *st)
{
	for (guint j = 0; j < st->jobs->len; j++) {
		const struct k8s_job *job = &g_array_index(st->jobs, struct k8s_job, j);

		for (guint s = 0; s < job->selectors->len; s++)
			((struct k8s_selector *)g_ptr_array_index(job->selectors, s))->none = false;
	}
}

/* Counts what a list passes on, for its caller. */
struct k8s_counted {
	k8s_pod_fn fn;
	k8s_restart_fn restart;
	void *ud;
	int64_t pods;
};

static cr_status k8s_counted_pod(const struct k8s_pod_view *pod, void *ud, cr_error *err)
{
	struct k8s_counted *c = ud;

	c->pods++;
	return c->fn(pod, c->ud, err);
}

static void k8s_counted_restart(void *ud)
{
	struct k8s_counted *c = ud;

	c->pods = 0;
	c->restart(c->ud);
}

/**
 * k8s_list_selector:
 * k8s_list_pods() with @sel as this instance sends it; when that lists no
 * pod and @sel has a legacy form not tried yet in this resolve, @restart
 * is called and the legacy form listed. When it finds pods it is kept for
 * the instance's life (logged at info); when it finds none either, @sel
 * is not listed twice again in this resolve (logged at debug).
 * Returns: what the last list returned.
 */
cr_status k8s_list_selector(const struct k8s *st, cr_plugin_ctx *ctx, const struct k8s_conn *conn,
			    const char *namespace, struct k8s_selector *sel, bool table,
			    k8s_pod_fn fn, k8s_restart_fn restart, void *user_data, char **version,
			    cr_error *err)
{
	struct k8s_counted c = { fn, restart, user_data, 0 };
	cr_status rc;

	rc = k8s_list_pods(st, ctx, conn, namespace, k8s_selector_sent(sel), table, k8s_counted_pod,
			   k8s_counted_restart, &c, version, err);
	if (rc != CR_OK || c.pods > 0 || sel->legacy == NULL || sel->use_legacy || sel->none)
		return rc;
	k8s_counted_restart(&c);
	if (version != NULL)
		g_clear_pointer(version, g_free);
	rc = k8s_list_pods(st, ctx, conn, namespace, sel->legacy, table, k8s_counted_pod,
			   k8s_counted_restart, &c, version, err);
	if (rc != CR_OK)
		return rc;
	if (c.pods == 0) {
		sel->none = true;
		cr_host->log(ctx, CR_LOG_DEBUG,
			     "no pod matches \"%s\" nor, as before Kubernetes 1.27, \"%s\"",
			     sel->text, sel->legacy);
		return CR_OK;
	}
	sel->use_legacy = true;
	cr_host->log(ctx, CR_LOG_INFO,
		     "no pod matches \"%s\"; \"%s\" matches %lld: a cluster before Kubernetes "
		     "1.27 (Job labels without batch.kubernetes.io/); listing \"%s\" from now on",
		     sel->text, sel->legacy, (long long)c.pods, sel->legacy);
	return CR_OK;
}

/**
 * k8s_legacy_fact:
 * For explain: "legacy_selectors", each selector listed in its legacy form,
 * as written -> as sent. Nothing when there is none.
 */
void k8s_legacy_fact(const struct k8s *st, cr_result_builder *b)
{
	json_object *map = json_object_new_object();
	cr_json *fact = NULL;
	const char *text;

	for (guint j = 0; j < st->jobs->len; j++) {
		const struct k8s_job *job = &g_array_index(st->jobs, struct k8s_job, j);

		for (guint s = 0; s < job->selectors->len; s++) {
			const struct k8s_selector *sel = g_ptr_array_index(job->selectors, s);

			if (sel->use_legacy)
				json_object_object_add(map, sel->text,
						       json_object_new_string(sel->legacy));
		}
	}
	if (json_object_object_length(map) > 0) {
		text = json_object_to_json_string_ext(map, JSON_C_TO_STRING_PLAIN |
								   JSON_C_TO_STRING_NOSLASHESCAPE);
		if (cr_host->json_parse(text, strlen(text), "legacy_selectors", &fact, NULL) ==
		    CR_OK)
			cr_host->result_set_fact(b, "legacy_selectors", fact, NULL);
		cr_host->json_free(fact);
	}
	json_object_put(map);
}
