/* SPDX-License-Identifier: MIT */
/*
 * sagemaker.c - the cluster of an Amazon SageMaker training job
 * (TensorFlow's SageMakerClusterResolver), read on every resolve:
 *
 *   { plugin = "sagemaker"; }                        # job worker, port 2223
 *   { plugin = "sagemaker"; port = 2222; rpc_layer = "grpc"; }
 *   { plugin = "sagemaker"; jobs = { ps = "cpu-group"; worker = "gpu-group"; }; }
 *
 * The hosts are sorted as strings (algo-10 before algo-2, as TensorFlow and
 * the training toolkit do) and become job `worker` of "host:port"; this
 * process is the current host's position. With `jobs`, each job is the
 * sorted hosts of its instance groups (resourceconfig.json). A cluster of
 * one task has the master "", as TensorFlow's TFConfig rule gives; else
 * the host formats the identity's address with the rpc layer, which is
 * unset unless configured (no "grpc://" prefix, as TensorFlow).
 *
 * DECLINED when nothing of SageMaker is here, when SM_HOSTS is empty, and
 * (warned) when the current host is not one of the tasks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sagemaker.h"

#define AT(v) cr_host->cfg_file(v), cr_host->cfg_line(v)

/* One member of `jobs`: a job and the instance groups it is made of. */
struct sm_job {
	const char *name;
	const cr_cfg *value; /* for messages */
	const char **groups; /* borrowed config strings */
	size_t ngroups;
};

struct sm_state {
	struct sm_job *jobs;
	size_t njobs;
	/* What probe read, for the resolve that follows it (which takes it:
	 * a resolve without a probe before it reads again). */
	struct sm_source probed;
	bool have_probed;
};

static void sm_destroy(void *state)
{
	struct sm_state *s = state;

	if (s == NULL)
		return;
	sm_source_free(&s->probed);
	for (size_t i = 0; i < s->njobs; i++)
		free(s->jobs[i].groups);
	free(s->jobs);
	free(s);
}

/* The job that already maps @group, or NULL. */
static const struct sm_job *sm_group_owner(const struct sm_state *s, const char *group)
{
	for (size_t i = 0; i < s->njobs; i++)
		for (size_t k = 0; k < s->jobs[i].ngroups; k++)
			if (strcmp(s->jobs[i].groups[k], group) == 0)
				return &s->jobs[i];
	return NULL;
}

static cr_status sm_add_group(struct sm_state *s, struct sm_job *job, const cr_cfg *v,
			      cr_error *err)
{
	const char *g = cr_host->cfg_string(v);
	const struct sm_job *owner;

	if (g == NULL || *g == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: jobs.%s must be an instance group name or a "
					  "list of them",
					  AT(v), job->name);
	owner = sm_group_owner(s, g);
	if (owner != NULL)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: instance group '%s' is mapped to both job '%s' "
					  "and job '%s'",
					  AT(v), g, owner->name, job->name);
	job->groups[job->ngroups++] = g;
	return CR_OK;
}

/* jobs.NAME = "group" | [ "group", ... ] */
static cr_status sm_parse_job(struct sm_state *s, const cr_cfg *v, cr_error *err)
{
	struct sm_job *job = &s->jobs[s->njobs];
	cr_cfg_type t = cr_host->cfg_type(v);
	size_t n = t == CR_CFG_STRING ? 1 : cr_host->cfg_length(v);
	cr_status st = CR_OK;

	job->name = cr_host->cfg_name(v);
	job->value = v;
	if ((t != CR_CFG_STRING && t != CR_CFG_ARRAY && t != CR_CFG_LIST) || n == 0)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: jobs.%s must be an instance group name or a "
					  "list of them",
					  AT(v), job->name);
	job->groups = calloc(n, sizeof(*job->groups));
	if (job->groups == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	s->njobs++;
	for (size_t i = 0; i < n && st == CR_OK; i++)
		st = sm_add_group(s, job, t == CR_CFG_STRING ? v : cr_host->cfg_elem(v, i), err);
	return st;
}

static cr_status sm_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const cr_cfg *jobs = cr_host->cfg_get(config, "jobs");
	const char *path = cr_host->opt_string(ctx, "resource_config");
	size_t n = cr_host->cfg_length(jobs);
	struct sm_state *s;
	cr_status st = CR_OK;

	if (path == NULL || *path == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: resource_config must be a file name",
					  AT(cr_host->cfg_get(config, "resource_config")));
	if (jobs != NULL && n == 0)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: jobs must map at least one job to an instance "
					  "group",
					  AT(jobs));
	s = calloc(1, sizeof(*s));
	if (s == NULL || (n > 0 && (s->jobs = calloc(n, sizeof(*s->jobs))) == NULL)) {
		free(s);
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && st == CR_OK; i++)
		st = sm_parse_job(s, cr_host->cfg_elem(jobs, i), err);
	if (st != CR_OK) {
		sm_destroy(s);
		return st;
	}
	*state = s;
	return CR_OK;
}

static cr_status sm_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	struct sm_state *s = state;
	cr_status st;

	sm_source_free(&s->probed);
	s->have_probed = false;
	st = sm_source_read(ctx, cr_host->opt_string(ctx, "resource_config"), s->njobs > 0,
			    &s->probed, err);
	if (st == CR_OK)
		s->have_probed = true;
	else
		sm_source_free(&s->probed);
	return st;
}

static int sm_strcmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The instance group named @name in src->groups, or NULL. */
static const cr_json *sm_find_group(const struct sm_source *src, const char *name)
{
	for (size_t i = 0; src->groups != NULL && i < cr_host->json_length(src->groups); i++) {
		const cr_json *g = cr_host->json_index(src->groups, i);

		if (strcmp(cr_host->json_string(cr_host->json_get(g, "/instance_group_name")),
			   name) == 0)
			return g;
	}
	return NULL;
}

static cr_status sm_no_group(const struct sm_source *src, const struct sm_job *job,
			     const char *group, cr_error *err)
{
	char names[256] = "";
	size_t used = 0;

	for (size_t i = 0; src->groups != NULL && i < cr_host->json_length(src->groups); i++) {
		const cr_json *g = cr_host->json_index(src->groups, i);
		int w = snprintf(
			names + used, sizeof(names) - used, "%s'%s'", i ? ", " : "",
			cr_host->json_string(cr_host->json_get(g, "/instance_group_name")));

		if (w < 0 || (size_t)w >= sizeof(names) - used)
			break;
		used += (size_t)w;
	}
	return cr_host->error_set(err, CR_ERR_NOT_FOUND,
				  "%s lists no instance group '%s' (jobs.%s at %s:%d); its groups: "
				  "%s",
				  src->what, group, job->name, AT(job->value),
				  used > 0 ? names : "none");
}

/* Append the strings of array @list to @v (room for them is there). */
static void sm_push_all(const cr_json *list, const char **v, size_t *n)
{
	for (size_t i = 0; i < cr_host->json_length(list); i++)
		v[(*n)++] = cr_host->json_string(cr_host->json_index(list, i));
}

/* The hosts of @job (NULL: every host), sorted as strings; borrowed from
 * src->doc. (transfer full) *@out: free(). */
static cr_status sm_job_hosts(const struct sm_source *src, const struct sm_job *job,
			      const char ***out, size_t *n, cr_error *err)
{
	size_t cap = job == NULL ? cr_host->json_length(src->hosts) : 0;
	const cr_json **lists = NULL;
	cr_status st = CR_OK;

	*out = NULL;
	*n = 0;
	if (job != NULL && (lists = calloc(job->ngroups, sizeof(*lists))) == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	for (size_t k = 0; job != NULL && k < job->ngroups; k++) {
		const cr_json *g = sm_find_group(src, job->groups[k]);

		if (g == NULL) {
			st = sm_no_group(src, job, job->groups[k], err);
			goto out;
		}
		lists[k] = cr_host->json_get(g, "/hosts");
		cap += cr_host->json_length(lists[k]);
	}
	*out = calloc(cap + 1, sizeof(**out));
	if (*out == NULL) {
		st = cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (job == NULL)
		sm_push_all(src->hosts, *out, n);
	for (size_t k = 0; job != NULL && k < job->ngroups; k++)
		sm_push_all(lists[k], *out, n);
	qsort(*out, *n, sizeof(**out), sm_strcmp);
out:
	free(lists);
	return st;
}

/* Add job @name of @hosts at @port; note where the current host is. */
static cr_status sm_add_job(cr_result_builder *b, const char *name, const char **hosts, size_t n,
			    int64_t port, const char *current, int64_t *self, cr_error *err)
{
	cr_status st = cr_host->result_add_job(b, name, err);

	for (size_t i = 0; i < n && st == CR_OK; i++) {
		size_t len = strlen(hosts[i]) + 24;
		char *addr = malloc(len);

		if (addr == NULL)
			return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
		snprintf(addr, len, "%s:%lld", hosts[i], (long long)port);
		st = cr_host->result_append_task(b, name, addr, err);
		free(addr);
		if (*self < 0 && strcmp(hosts[i], current) == 0)
			*self = (int64_t)i;
	}
	return st;
}

/* Every job: `worker` of all hosts, or the configured jobs. Sets the
 * identity when the current host is a task. */
static cr_status sm_add_jobs(const struct sm_state *s, cr_plugin_ctx *ctx,
			     const struct sm_source *src, cr_result_builder *b, size_t *ntasks,
			     bool *found, cr_error *err)
{
	int64_t port = cr_host->opt_int(ctx, "port");
	size_t njobs = s->njobs > 0 ? s->njobs : 1;
	cr_status st = CR_OK;

	*ntasks = 0;
	*found = false;
	for (size_t j = 0; j < njobs && st == CR_OK; j++) {
		const struct sm_job *job = s->njobs > 0 ? &s->jobs[j] : NULL;
		const char *name = job != NULL ? job->name : "worker";
		const char **hosts = NULL;
		int64_t self = -1;
		size_t n = 0;

		st = sm_job_hosts(src, job, &hosts, &n, err);
		if (st == CR_OK)
			st = sm_add_job(b, name, hosts, n, port, src->current_host, &self, err);
		if (st == CR_OK && self >= 0 && !*found) {
			st = cr_host->result_set_task(b, name, self, err);
			*found = true;
		}
		*ntasks += n;
		free(hosts);
	}
	return st;
}

static cr_status sm_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	struct sm_state *s = state;
	struct sm_source src;
	size_t ntasks = 0;
	bool found = false;
	cr_status st;

	if (s->have_probed) {
		src = s->probed; /* taken: freed below */
		memset(&s->probed, 0, sizeof(s->probed));
		s->have_probed = false;
		st = CR_OK;
	} else {
		st = sm_source_read(ctx, cr_host->opt_string(ctx, "resource_config"), s->njobs > 0,
				    &src, err);
	}
	if (st == CR_OK) {
		sm_source_facts(b, &src);
		st = sm_add_jobs(s, ctx, &src, b, &ntasks, &found, err);
	}
	if (st == CR_OK && !found) {
		cr_host->log(ctx, CR_LOG_WARNING,
			     "current host '%s' is not one of the tasks of %s; declining",
			     src.current_host, src.what);
		st = cr_host->error_set(err, CR_DECLINED,
					"current host '%s' is not one of the tasks of %s",
					src.current_host, src.what);
	}
	if (st == CR_OK && cr_host->opt_is_set(ctx, "rpc_layer"))
		st = cr_host->result_set_rpc_layer(b, cr_host->opt_string(ctx, "rpc_layer"), err);
	/* TensorFlow's TFConfig rule: one job of one task has nothing to
	 * connect to. */
	if (st == CR_OK && ntasks == 1 && s->njobs <= 1)
		st = cr_host->result_set_master(b, "", err);
	sm_source_free(&src);
	return st;
}

static const cr_option sm_options[] = {
	CR_OPTION_RANGE("port", CR_OPT_INT, "2223", 0, "port of every task (TensorFlow's 2223)", 1,
			65535),
	CR_OPTION("resource_config", CR_OPT_STRING, "/opt/ml/input/config/resourceconfig.json", 0,
		  "file read when SM_HOSTS / SM_CURRENT_HOST are not both set"),
	CR_OPTION("rpc_layer", CR_OPT_STRING, NULL, 0,
		  "rpc layer of the master URL, e.g. \"grpc\" (unset: none, as TensorFlow)"),
	CR_OPTION("jobs", CR_OPT_GROUP, NULL, 0,
		  "heterogeneous clusters: job -> instance group(s), e.g. { worker = \"gpu\"; }"),
	CR_OPTIONS_END,
};

static const cr_resolver_ops sm_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = sm_create,
	.destroy = sm_destroy,
	.probe = sm_probe,
	.resolve = sm_resolve,
	.master = NULL,
};

static const cr_plugin_desc sm_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "sagemaker",
	.version = CR_VERSION_STRING,
	.description = "the hosts of an Amazon SageMaker training job (SM_HOSTS or "
		       "resourceconfig.json)",
	.options = sm_options,
	.option_size = sizeof(cr_option),
	.resolver = &sm_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(sm_desc)
