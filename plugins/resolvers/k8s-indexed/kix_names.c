/* SPDX-License-Identifier: MIT */
/*
 * kix_names.c - the controllers' naming rules, and the cluster built from
 * them. Every pod's DNS name is known before any pod exists:
 *
 *   Indexed Job (kube-controller-manager, pkg/controller/job):
 *     hostname  fmt.Sprintf("%s-%d", job.Name, completionIndex)
 *   JobSet (jobset-controller, pkg/util/placement):
 *     Job       GenJobName: "<jobset>-<replicatedJob>-<jobIndex>"
 *     hostname  GenPodName: "<jobset>-<replicatedJob>-<jobIndex>-<podIndex>"
 *               (the Job controller's rule above, applied to that Job)
 *   and with a headless Service named by the pod's spec.subdomain, each
 *   resolves as <hostname>.<subdomain>.<namespace>.svc.<cluster domain>.
 *
 * A hostname is one DNS label: at most 63 characters; the whole name at
 * most 253. A name past either would never resolve, so it is an error that
 * names where its parts came from.
 */
#include <stdio.h>
#include <string.h>

#include "kix.h"

#define KIX_LABEL_MAX 63
#define KIX_NAME_MAX 253

/* RFC 1123 label (RFC 1035 with @rfc1035: a letter first): lower-case
 * letters, digits and '-', a letter or digit at each end, 1..63 bytes. */
bool kix_label_ok(const char *s, size_t len, bool rfc1035)
{
	if (len == 0 || len > KIX_LABEL_MAX || s[0] == '-' || s[len - 1] == '-')
		return false;
	if (rfc1035 && !(s[0] >= 'a' && s[0] <= 'z'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

int kix_hostname(char *out, size_t cap, const char *name, const struct kix_rjob *rj,
		 int64_t job_index, int64_t pod_index)
{
	if (rj == NULL)
		return snprintf(out, cap, "%s-%lld", name, (long long)pod_index);
	return snprintf(out, cap, "%s-%s-%lld-%lld", name, rj->name, (long long)job_index,
			(long long)pod_index);
}

/* "<hostname>.<subdomain>.<namespace>.svc[.<domain>]:<port>" */
static int kix_address(char *out, size_t cap, const char *host, const struct kix_pod *pod,
		       int64_t port)
{
	return snprintf(out, cap, "%s.%s.%s.svc%s%s:%lld", host, pod->sub.text, pod->ns.text,
			*pod->domain != '\0' ? "." : "", pod->domain, (long long)port);
}

/* The longest hostname of @rj (or of the Indexed Job): its last pod's. */
static cr_status kix_check_longest(const struct kix_pod *pod, const struct kix_rjob *rj,
				   cr_error *err)
{
	char host[512], addr[1024];
	int64_t last_job = rj != NULL ? rj->replicas - 1 : 0;
	int64_t last_pod = rj != NULL ? rj->completions - 1 : pod->completions - 1;
	int n = kix_hostname(host, sizeof(host), pod->job.text, rj, last_job, last_pod);
	int a = kix_address(addr, sizeof(addr), host, pod, 65535) - 6;

	if (n > KIX_LABEL_MAX)
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"hostname \"%s\" (%s \"%s\") is %d characters; a DNS label "
			"holds at most %d, so the controller cannot make it",
			host, pod->job.from, pod->job.text, n, KIX_LABEL_MAX);
	if (a > KIX_NAME_MAX)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "\"%.*s\" is %d characters; a DNS name holds at most %d",
					  a, addr, a, KIX_NAME_MAX);
	return CR_OK;
}

cr_status kix_check_names(const struct kix *st, const struct kix_pod *pod, cr_error *err)
{
	cr_status rc = CR_OK;

	if (st->rjobs == NULL)
		return kix_check_longest(pod, NULL, err);
	for (size_t i = 0; rc == CR_OK && i < st->n_rjobs; i++)
		rc = kix_check_longest(pod, &st->rjobs[i], err);
	return rc;
}

/* All the tasks of one TF job: @rj's Jobs one after the other, each Job's
 * pods by completion index (task index = jobIndex * completions + podIndex). */
static cr_status kix_add_job(cr_result_builder *b, const char *tf_job, const struct kix_pod *pod,
			     const struct kix_rjob *rj, int64_t port, cr_error *err)
{
	int64_t jobs = rj != NULL ? rj->replicas : 1;
	int64_t pods = rj != NULL ? rj->completions : pod->completions;
	char host[128], addr[320];
	cr_status rc = cr_host->result_add_job(b, tf_job, err);

	for (int64_t j = 0; rc == CR_OK && j < jobs; j++) {
		for (int64_t p = 0; rc == CR_OK && p < pods; p++) {
			kix_hostname(host, sizeof(host), pod->job.text, rj, j, p);
			kix_address(addr, sizeof(addr), host, pod, port);
			rc = cr_host->result_append_task(b, tf_job, addr, err);
		}
	}
	return rc;
}

cr_status kix_build(cr_plugin_ctx *ctx, const struct kix *st, const struct kix_pod *pod,
		    cr_result_builder *b, cr_error *err)
{
	int64_t port = cr_host->opt_int(ctx, "port");
	const char *rpc = cr_host->opt_string(ctx, "rpc_layer");
	cr_status rc = CR_OK;

	if (st->rjobs == NULL) {
		const char *type = cr_host->opt_string(ctx, "task_type");

		rc = kix_add_job(b, type, pod, NULL, port, err);
		if (rc == CR_OK)
			rc = cr_host->result_set_task(b, type, pod->pod_index, err);
	} else {
		for (size_t i = 0; rc == CR_OK && i < st->n_rjobs; i++)
			rc = kix_add_job(b, st->rjobs[i].name, pod, &st->rjobs[i], port, err);
		if (rc == CR_OK)
			rc = cr_host->result_set_task(
				b, pod->own->name,
				pod->job_index * pod->own->completions + pod->pod_index, err);
	}
	if (rc == CR_OK && rpc != NULL && *rpc != '\0')
		rc = cr_host->result_set_rpc_layer(b, rpc, err);
	return rc;
}
