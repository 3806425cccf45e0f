/* SPDX-License-Identifier: MIT */
/*
 * kix_env.c - what one pod knows of itself: its completion index (the Job
 * controller sets JOB_COMPLETION_INDEX in every container of an Indexed
 * Job's pods), the names its manifest passes down (JOBSET_NAME,
 * REPLICATED_JOB_NAME, JOB_INDEX from JobSet's labels through the downward
 * API; POD_NAMESPACE from metadata.namespace), else the options. Each value
 * remembers where it came from, for `explain` and for the messages: a
 * missing or malformed variable is an error that names it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix.h"

/* A canonical decimal in 0..2147483647 ("0", "17"; not "017", "+1"). */
static bool kix_decimal(const char *s, int64_t *out)
{
	int64_t v = 0;
	size_t n = strlen(s);

	if (n == 0 || n > 10 || (n > 1 && s[0] == '0'))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return v <= 2147483647;
}

/* An index variable below @limit (@limit_what names where it is from). */
static cr_status kix_env_index(cr_plugin_ctx *ctx, const char *var, int64_t limit,
			       const char *limit_what, int64_t *out, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, var);

	if (v == NULL || *v == '\0')
		return cr_host->error_set(err, CR_ERR_BACKEND, "%s is not set", var);
	if (!kix_decimal(v, out))
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "%s is \"%s\", not an index (0, 1, 2, ...)", var, v);
	if (limit > 0 && *out >= limit)
		return cr_host->error_set(
			err, CR_ERR_BACKEND, "%s is %lld, out of 0..%lld (%s: %lld)", var,
			(long long)*out, (long long)limit - 1, limit_what, (long long)limit);
	return CR_OK;
}

/* The option @opt when set (then @from is @opt_from), else the variable
 * @var (NULL: none). */
static bool kix_lookup(cr_plugin_ctx *ctx, const char *opt, const char *opt_from, const char *var,
		       struct kix_val *out)
{
	const char *v;

	if (cr_host->opt_is_set(ctx, opt)) {
		out->text = cr_host->opt_string(ctx, opt);
		out->from = opt_from;
		return true;
	}
	v = var != NULL ? cr_host->getenv(ctx, var) : NULL;
	if (v == NULL || *v == '\0')
		return false;
	out->text = v;
	out->from = var;
	return true;
}

/* A name from the environment must be a DNS label as well. */
static cr_status kix_env_label(const struct kix_val *v, bool rfc1035, cr_error *err)
{
	if (kix_label_ok(v->text, strlen(v->text), rfc1035))
		return CR_OK;
	return cr_host->error_set(err, CR_ERR_BACKEND, "%s is \"%s\", not a DNS label", v->from,
				  v->text);
}

/* The namespace option, else POD_NAMESPACE (downward API:
 * metadata.namespace), else the service-account namespace file when the
 * pod mounts one. */
static cr_status kix_namespace(cr_plugin_ctx *ctx, struct kix_pod *pod, cr_error *err)
{
	const char *path = cr_host->opt_string(ctx, "namespace_file");
	char *data = NULL;
	size_t len = 0;

	if (kix_lookup(ctx, "namespace", "option namespace", "POD_NAMESPACE", &pod->ns))
		return kix_env_label(&pod->ns, false, err);
	if (path != NULL && *path != '\0' &&
	    cr_host->read_file(ctx, path, 256, &data, &len, NULL) == CR_OK) {
		while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == ' '))
			data[--len] = '\0';
		snprintf(pod->ns_buf, sizeof(pod->ns_buf), "%s", data);
		cr_host->free(data);
		pod->ns.text = pod->ns_buf;
		pod->ns.from = path;
		if (len > 0)
			return kix_env_label(&pod->ns, false, err);
	}
	return cr_host->error_set(err, CR_ERR_BACKEND,
				  "POD_NAMESPACE is not set (give it from the downward API, "
				  "fieldPath: metadata.namespace, or set the namespace option)");
}

/* completions of an Indexed Job: the option, else JOB_COMPLETIONS. */
static cr_status kix_completions(cr_plugin_ctx *ctx, struct kix_pod *pod, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, "JOB_COMPLETIONS");

	if (cr_host->opt_is_set(ctx, "completions")) {
		pod->completions = cr_host->opt_int(ctx, "completions");
		pod->comp_from = "option completions";
		return CR_OK;
	}
	pod->comp_from = "JOB_COMPLETIONS";
	if (v == NULL || *v == '\0')
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "JOB_COMPLETIONS is not set (the Job's spec.completions; "
					  "or set the completions option)");
	if (!kix_decimal(v, &pod->completions) || pod->completions < 1 ||
	    pod->completions > KIX_MAX_COMPLETIONS)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "JOB_COMPLETIONS is \"%s\", not a count in 1..%d", v,
					  KIX_MAX_COMPLETIONS);
	return CR_OK;
}

/* The Job's name: the option, JOB_NAME, else HOSTNAME, which the Job
 * controller sets to <job>-<index>. The message names the label `job-name`,
 * not `batch.kubernetes.io/job-name`: a cluster before Kubernetes 1.27 sets
 * only the first, later ones both (docs/k8s.md). */
static cr_status kix_job_name(cr_plugin_ctx *ctx, struct kix_pod *pod, cr_error *err)
{
	const char *host = cr_host->getenv(ctx, "HOSTNAME");
	char tail[24];
	size_t hl, tl;

	if (kix_lookup(ctx, "job_name", "option job_name", "JOB_NAME", &pod->job))
		return kix_env_label(&pod->job, false, err);
	snprintf(tail, sizeof(tail), "-%lld", (long long)pod->pod_index);
	hl = host != NULL ? strlen(host) : 0;
	tl = strlen(tail);
	if (hl > tl && hl - tl < sizeof(pod->job_buf) && strcmp(host + hl - tl, tail) == 0) {
		snprintf(pod->job_buf, sizeof(pod->job_buf), "%.*s", (int)(hl - tl), host);
		pod->job.text = pod->job_buf;
		pod->job.from = "HOSTNAME";
		return kix_env_label(&pod->job, false, err);
	}
	return cr_host->error_set(err, CR_ERR_BACKEND,
				  "JOB_NAME is not set, and HOSTNAME (\"%s\") is not <job>-%lld "
				  "(set JOB_NAME from the downward API, fieldPath: "
				  "metadata.labels['job-name'], which every Kubernetes version "
				  "sets, or the job_name option)",
				  host != NULL ? host : "", (long long)pod->pod_index);
}

static cr_status kix_read_job(cr_plugin_ctx *ctx, struct kix_pod *pod, cr_error *err)
{
	cr_status rc = kix_completions(ctx, pod, err);
	char what[64];

	if (rc != CR_OK)
		return rc;
	snprintf(what, sizeof(what), "%s", pod->comp_from);
	if (strcmp(what, "option completions") == 0)
		snprintf(what, sizeof(what), "completions");
	rc = kix_env_index(ctx, "JOB_COMPLETION_INDEX", pod->completions, what, &pod->pod_index,
			   err);
	if (rc == CR_OK)
		rc = kix_job_name(ctx, pod, err);
	if (rc != CR_OK)
		return rc;
	if (!kix_lookup(ctx, "subdomain", "option subdomain", NULL, &pod->sub))
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "subdomain is not set: the name of the Job's headless "
					  "Service (the pod template's spec.subdomain)");
	return CR_OK;
}

/* REPLICATED_JOB_NAME: one of replicated_jobs. */
static cr_status kix_own_rjob(cr_plugin_ctx *ctx, const struct kix *st, struct kix_pod *pod,
			      cr_error *err)
{
	const char *v = cr_host->getenv(ctx, "REPLICATED_JOB_NAME");
	char names[256] = "";

	if (v == NULL || *v == '\0')
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "REPLICATED_JOB_NAME is not set (from the downward API, "
					  "fieldPath: metadata.labels['jobset.sigs.k8s.io/"
					  "replicatedjob-name'])");
	for (size_t i = 0; i < st->n_rjobs; i++) {
		if (strcmp(st->rjobs[i].name, v) == 0) {
			pod->own = &st->rjobs[i];
			return CR_OK;
		}
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s'%s'",
			 i > 0 ? ", " : "", st->rjobs[i].name);
	}
	return cr_host->error_set(err, CR_ERR_BACKEND,
				  "REPLICATED_JOB_NAME is \"%s\", not one of replicated_jobs (%s, "
				  "at %s)",
				  v, names, st->shape_at);
}

static cr_status kix_read_jobset(cr_plugin_ctx *ctx, const struct kix *st, struct kix_pod *pod,
				 cr_error *err)
{
	char what[160];
	cr_status rc;

	if (!kix_lookup(ctx, "jobset_name", "option jobset_name", "JOBSET_NAME", &pod->job))
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"JOBSET_NAME is not set (from the downward API, fieldPath: "
			"metadata.labels['jobset.sigs.k8s.io/jobset-name'], or the "
			"jobset_name option)");
	rc = kix_env_label(&pod->job, true, err);
	if (rc == CR_OK)
		rc = kix_own_rjob(ctx, st, pod, err);
	if (rc != CR_OK)
		return rc;
	snprintf(what, sizeof(what), "replicas of '%s'", pod->own->name);
	rc = kix_env_index(ctx, "JOB_INDEX", pod->own->replicas, what, &pod->job_index, err);
	snprintf(what, sizeof(what), "completions of '%s'", pod->own->name);
	if (rc == CR_OK)
		rc = kix_env_index(ctx, "JOB_COMPLETION_INDEX", pod->own->completions, what,
				   &pod->pod_index, err);
	if (rc != CR_OK)
		return rc;
	/* JobSet's default: spec.network.subdomain is the JobSet's name. */
	if (!kix_lookup(ctx, "subdomain", "option subdomain", NULL, &pod->sub)) {
		pod->sub.text = pod->job.text;
		pod->sub.from = "the JobSet's name";
	}
	return CR_OK;
}

cr_status kix_read_pod(cr_plugin_ctx *ctx, const struct kix *st, struct kix_pod *pod, cr_error *err)
{
	cr_status rc = st->rjobs != NULL ? kix_read_jobset(ctx, st, pod, err)
					 : kix_read_job(ctx, pod, err);

	if (rc == CR_OK)
		rc = kix_namespace(ctx, pod, err);
	pod->domain = cr_host->opt_string(ctx, "cluster_domain");
	if (pod->domain == NULL)
		pod->domain = "";
	return rc;
}
