/* SPDX-License-Identifier: MIT */
/*
 * kix_config.c - the options k8s-indexed checks itself, at create: the
 * shape of a JobSet (`replicated_jobs`), and the names an option gives,
 * which must be the DNS labels the controllers would accept, so that a
 * wrong config fails on the first pod with FILE:LINE, not with a cluster
 * of names nobody answers to.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix.h"

static cr_status kix_cfg_error(const cr_cfg *v, cr_error *err, const char *fmt, ...)
	CR_PRINTF(3, 4);

static cr_status kix_cfg_error(const cr_cfg *v, cr_error *err, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: %s", cr_host->cfg_file(v),
				  cr_host->cfg_line(v), what);
}

/* replicas or completions of one replicated Job: an integer in 1..@max. */
static cr_status kix_count(const cr_cfg *group, const char *key, int64_t dflt, int64_t *out,
			   cr_error *err)
{
	const cr_cfg *v = cr_host->cfg_get(group, key);
	char what[96];

	*out = dflt;
	if (v == NULL && dflt > 0)
		return CR_OK;
	if (v == NULL)
		return kix_cfg_error(group, err,
				     "replicated job '%s' needs %s (its Jobs' spec.completions)",
				     cr_host->cfg_name(group), key);
	if (!cr_host->cfg_int(v, out) || *out < 1 || *out > KIX_MAX_COMPLETIONS) {
		snprintf(what, sizeof(what), "%s must be an integer in 1..%d", key,
			 KIX_MAX_COMPLETIONS);
		return kix_cfg_error(v, err, "replicated job '%s': %s", cr_host->cfg_name(group),
				     what);
	}
	return CR_OK;
}

static cr_status kix_parse_rjob(const cr_cfg *g, struct kix_rjob *rj, cr_error *err)
{
	const char *name = cr_host->cfg_name(g);
	cr_status rc;

	rj->name = name;
	if (cr_host->cfg_type(g) != CR_CFG_GROUP)
		return kix_cfg_error(g, err,
				     "replicated job '%s' must be a group: { replicas = N; "
				     "completions = N; }",
				     name);
	/* JobSet checks the Job names it makes, <jobset>-<name>-<n>, as DNS
	 * labels: the name is lower-case letters, digits and '-'. */
	if (!kix_label_ok(name, strlen(name), false))
		return kix_cfg_error(g, err,
				     "replicated job '%s' is not a DNS label (lower-case letters, "
				     "digits and '-')",
				     name);
	for (size_t i = 0; i < cr_host->cfg_length(g); i++) {
		const cr_cfg *m = cr_host->cfg_elem(g, i);
		const char *key = cr_host->cfg_name(m);

		if (strcmp(key, "replicas") != 0 && strcmp(key, "completions") != 0)
			return kix_cfg_error(m, err,
					     "replicated job '%s': unknown key '%s' (replicas, "
					     "completions)",
					     name, key);
	}
	rc = kix_count(g, "replicas", 1, &rj->replicas, err);
	if (rc == CR_OK)
		rc = kix_count(g, "completions", 0, &rj->completions, err);
	return rc;
}

cr_status kix_parse_shape(const cr_cfg *config, struct kix *st, cr_error *err)
{
	const cr_cfg *rjs = cr_host->cfg_get(config, "replicated_jobs");
	int64_t total = 0;
	cr_status rc;

	if (rjs == NULL)
		return CR_OK;
	snprintf(st->shape_at, sizeof(st->shape_at), "%s:%d", cr_host->cfg_file(rjs),
		 cr_host->cfg_line(rjs));
	st->n_rjobs = cr_host->cfg_length(rjs);
	if (st->n_rjobs == 0)
		return kix_cfg_error(rjs, err,
				     "replicated_jobs is empty: name each replicated job of "
				     "the JobSet");
	st->rjobs = calloc(st->n_rjobs, sizeof(*st->rjobs));
	if (st->rjobs == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < st->n_rjobs; i++) {
		rc = kix_parse_rjob(cr_host->cfg_elem(rjs, i), &st->rjobs[i], err);
		if (rc != CR_OK)
			return rc;
		total += st->rjobs[i].replicas * st->rjobs[i].completions;
	}
	if (total > KIX_MAX_TASKS)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s: replicated_jobs make %lld pods, more than %d",
					  st->shape_at, (long long)total, KIX_MAX_TASKS);
	return CR_OK;
}

/* A name option that is set must be a DNS label. */
static cr_status kix_check_label(const cr_cfg *config, const char *key, bool rfc1035, cr_error *err)
{
	const cr_cfg *v = cr_host->cfg_get(config, key);
	const char *s = cr_host->cfg_string(v);

	if (s == NULL || kix_label_ok(s, strlen(s), rfc1035))
		return CR_OK;
	return kix_cfg_error(v, err,
			     "%s '%s' is not a DNS label (at most 63 lower-case letters, "
			     "digits and '-', a letter or digit at each end)",
			     key, s);
}

/* cluster_domain: "" or labels separated by dots. */
static cr_status kix_check_domain(const cr_cfg *config, cr_error *err)
{
	const cr_cfg *v = cr_host->cfg_get(config, "cluster_domain");
	const char *s = cr_host->cfg_string(v);

	if (s == NULL || *s == '\0')
		return CR_OK;
	for (const char *p = s;;) {
		size_t n = strcspn(p, ".");

		if (!kix_label_ok(p, n, false))
			return kix_cfg_error(v, err, "cluster_domain '%s' is not a domain name", s);
		if (p[n] == '\0')
			return CR_OK;
		p += n + 1;
	}
}

/* Options of one workload only: a JobSet's shape is replicated_jobs. */
static cr_status kix_check_workload(const cr_cfg *config, cr_error *err)
{
	static const char *const job_only[] = { "completions", "job_name", "task_type", NULL };
	bool jobset = cr_host->cfg_get(config, "replicated_jobs") != NULL;
	const cr_cfg *v;

	for (const char *const *k = job_only; jobset && *k != NULL; k++)
		if ((v = cr_host->cfg_get(config, *k)) != NULL)
			return kix_cfg_error(v, err,
					     "%s is for an Indexed Job; a JobSet's jobs are "
					     "replicated_jobs (each TF job is a replicated job)",
					     *k);
	v = cr_host->cfg_get(config, "jobset_name");
	if (!jobset && v != NULL)
		return kix_cfg_error(v, err,
				     "jobset_name needs replicated_jobs (the JobSet's shape)");
	return CR_OK;
}

cr_status kix_check_options(cr_plugin_ctx *ctx, const cr_cfg *config, cr_error *err)
{
	static const struct {
		const char *key;
		bool rfc1035;
	} labels[] = { { "job_name", false },
		       { "jobset_name", true },
		       { "subdomain", true },
		       { "namespace", false } };
	const char *task_type = cr_host->opt_string(ctx, "task_type");
	cr_status rc = kix_check_workload(config, err);

	for (size_t i = 0; rc == CR_OK && i < sizeof(labels) / sizeof(labels[0]); i++)
		rc = kix_check_label(config, labels[i].key, labels[i].rfc1035, err);
	if (rc == CR_OK)
		rc = kix_check_domain(config, err);
	if (rc == CR_OK && (task_type == NULL || *task_type == '\0'))
		rc = kix_cfg_error(cr_host->cfg_get(config, "task_type"), err,
				   "task_type must not be empty");
	return rc;
}
