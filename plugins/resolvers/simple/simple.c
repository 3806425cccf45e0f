/* SPDX-License-Identifier: MIT */
/*
 * simple.c - a cluster written in the config file (TensorFlow's
 * SimpleClusterResolver):
 *
 *   { plugin = "simple";
 *     cluster = { worker = [ "w0:2222", "w1:2222" ];              # dense job
 *                 ps = ( { index = 1; address = "p1:2222"; } ); };  # sparse job
 *     task_type = "worker"; task_id = 0; rpc_layer = "grpc"; }
 *
 * or cluster_json = "<as_dict JSON>" for job names libconfig cannot spell.
 * Everything is checked in create(), so a bad entry is reported with its
 * file and line before anything runs.
 *
 * Or hosts_file = "/etc/cluster/hosts", a file another tool maintains,
 * read on every resolve and watched with inotify (simple-hosts.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

#include "launchers.h"
#include "simple.h"

static cr_status simple_push(simple_state *s, const char *job, int64_t index, const char *address,
			     cr_error *err)
{
	if (s->ntasks == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		simple_task *t = realloc(s->tasks, cap * sizeof(*t));

		if (t == NULL)
			return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
		s->tasks = t;
		s->cap = cap;
	}
	s->tasks[s->ntasks].job = strdup(job);
	s->tasks[s->ntasks].index = index;
	s->tasks[s->ntasks].address = address != NULL ? strdup(address) : NULL;
	s->ntasks++;
	return CR_OK;
}

static void simple_destroy(void *state)
{
	simple_state *s = state;

	if (s == NULL)
		return;
	for (size_t i = 0; i < s->ntasks; i++) {
		free(s->tasks[i].job);
		free(s->tasks[i].address);
	}
	free(s->tasks);
	free(s->hosts_file);
	free(s->hosts_seen);
	cr_host->json_free(s->cluster_json);
	free(s);
}

/* One element of a sparse job: { index = 1; address = "p1:2222"; }. */
static cr_status simple_sparse_task(simple_state *s, const char *job, const cr_cfg *g,
				    cr_error *err)
{
	const cr_cfg *iv = cr_host->cfg_get(g, "index");
	const cr_cfg *av = cr_host->cfg_get(g, "address");
	int64_t index;

	if (cr_host->cfg_length(g) != 2 || iv == NULL || av == NULL ||
	    !cr_host->cfg_int(iv, &index) || cr_host->cfg_string(av) == NULL)
		return cr_host->error_set(
			err, CR_ERR_CONFIG,
			"%s:%d: job '%s': a sparse task is { index = N; address = \"host:port\"; }",
			AT(g), job);
	if (index < 0 || index > 2147483647)
		return cr_host->error_set(
			err, CR_ERR_CONFIG,
			"%s:%d: job '%s': task index %lld is out of range (0..2147483647)", AT(iv),
			job, (long long)index);
	return simple_push(s, job, index, cr_host->cfg_string(av), err);
}

/* A growable text for simple_check_job's JSON. */
typedef struct simple_buf {
	char *p;
	size_t len, cap;
	bool failed;
} simple_buf;

static void simple_put(simple_buf *b, const char *text, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (p == NULL) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, text, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* @text as a JSON string: quotes, backslashes and control bytes escaped. */
static void simple_put_string(simple_buf *b, const char *text)
{
	char esc[8];

	simple_put(b, "\"", 1);
	for (const unsigned char *c = (const unsigned char *)text; *c != '\0'; c++) {
		if (*c == '"' || *c == '\\' || *c < 0x20 || *c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", *c);
			simple_put(b, esc, 6);
		} else {
			simple_put(b, (const char *)c, 1);
		}
	}
	simple_put(b, "\"", 1);
}

typedef struct simple_at {
	int64_t index;
	size_t order;
	const char *address;
} simple_at;

static int simple_cmp_at(const void *a, const void *b)
{
	const simple_at *x = a, *y = b;

	if (x->index != y->index)
		return (x->index > y->index) - (x->index < y->index);
	return (x->order > y->order) - (x->order < y->order);
}

/* The tasks of one job of the `cluster` group (s->tasks[first..]) checked
 * as resolve() will add them, so check-config and create() report what
 * resolve would refuse (a bad address, a duplicate index) with the job's
 * file and line: the indices the dense entries get (one past the largest
 * so far, as result_append_task gives), a duplicate found here, every
 * address through the host's cluster walk (result_add_cluster_json
 * without a builder only checks). */
static cr_status simple_check_job(simple_state *s, size_t first, const cr_cfg *jv, cr_error *err)
{
	const char *job = cr_host->cfg_name(jv);
	size_t n = 0;
	int64_t next = 0;
	simple_at *idx = calloc(s->ntasks - first + 1, sizeof(*idx));
	simple_buf b = { 0 };
	char what[512], num[32];
	cr_json *root = NULL;
	cr_status st = CR_OK;

	if (idx == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	simple_put(&b, "{", 1);
	simple_put_string(&b, job);
	simple_put(&b, ":{", 2);
	for (size_t i = first; i < s->ntasks; i++) {
		const simple_task *t = &s->tasks[i];
		int64_t at = t->index < 0 ? next : t->index;

		if (t->address == NULL)
			continue;
		if (at >= next)
			next = at + 1;
		idx[n] = (simple_at){ at, n, t->address };
		snprintf(num, sizeof(num), "%s\"%lld\":", n > 0 ? "," : "", (long long)at);
		simple_put(&b, num, strlen(num));
		simple_put_string(&b, t->address);
		n++;
	}
	simple_put(&b, "}}", 2);
	qsort(idx, n, sizeof(*idx), simple_cmp_at);
	for (size_t i = 1; i < n && st == CR_OK; i++)
		if (idx[i].index == idx[i - 1].index)
			st = cr_host->error_set(
				err, CR_ERR_CONFIG,
				"%s:%d: job '%s' has two tasks with index %lld ('%s' and '%s')",
				AT(jv), job, (long long)idx[i].index, idx[i - 1].address,
				idx[i].address);
	free(idx);
	if (st == CR_OK && b.failed)
		st = cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	snprintf(what, sizeof(what), "%s:%d: cluster", AT(jv));
	if (st == CR_OK)
		st = cr_host->json_parse(b.p, b.len, what, &root, err);
	if (st == CR_OK)
		st = cr_host->result_add_cluster_json(NULL, root, what, err);
	cr_host->json_free(root);
	free(b.p);
	/* A bad entry of the configuration is a configuration error (exit 2). */
	if (st != CR_OK && st != CR_ERR_NOMEM) {
		if (err != NULL)
			err->code = CR_ERR_CONFIG;
		st = CR_ERR_CONFIG;
	}
	return st;
}

static cr_status simple_job(simple_state *s, const cr_cfg *jv, cr_error *err)
{
	const char *job = cr_host->cfg_name(jv);
	cr_cfg_type t = cr_host->cfg_type(jv);
	size_t n = cr_host->cfg_length(jv);
	size_t first = s->ntasks;
	cr_status st = simple_push(s, job, -1, NULL, err);

	if (t != CR_CFG_ARRAY && t != CR_CFG_LIST)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: job '%s' must be a list of addresses or of { "
					  "index; address; } groups",
					  AT(jv), job);
	for (size_t i = 0; i < n && st == CR_OK; i++) {
		const cr_cfg *e = cr_host->cfg_elem(jv, i);

		if (cr_host->cfg_type(e) == CR_CFG_STRING)
			st = simple_push(s, job, -1, cr_host->cfg_string(e), err);
		else if (cr_host->cfg_type(e) == CR_CFG_GROUP)
			st = simple_sparse_task(s, job, e, err);
		else
			st = cr_host->error_set(err, CR_ERR_CONFIG,
						"%s:%d: job '%s': task %zu must be an address "
						"string or a { index; address; } group",
						AT(e), job, i);
	}
	return st == CR_OK ? simple_check_job(s, first, jv, err) : st;
}

/* cluster_json: parsed and checked by the host's as_dict walk here, so a
 * bad value is a configuration error with its file and line; kept for
 * resolve(), which adds it through the same walk. */
static cr_status simple_cluster_json(simple_state *s, const cr_cfg *v, cr_error *err)
{
	const char *text = cr_host->cfg_string(v);
	cr_status st;

	snprintf(s->json_what, sizeof(s->json_what), "%s:%d: cluster_json", AT(v));
	st = cr_host->json_parse(text, strlen(text), s->json_what, &s->cluster_json, err);
	if (st == CR_OK)
		st = cr_host->result_add_cluster_json(NULL, s->cluster_json, s->json_what, err);
	if (st != CR_OK) {
		/* A bad option is a configuration error (exit 2), not a parse
		 * failure of the environment. */
		if (err != NULL)
			err->code = CR_ERR_CONFIG;
		return CR_ERR_CONFIG;
	}
	return CR_OK;
}

static cr_status simple_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state,
			       cr_error *err)
{
	const cr_cfg *cluster = cr_host->cfg_get(config, "cluster");
	const cr_cfg *cjson = cr_host->cfg_get(config, "cluster_json");
	const cr_cfg *accel = cr_host->cfg_get(config, "num_accelerators");
	simple_state *s = calloc(1, sizeof(*s));
	cr_status st = CR_OK;

	if (s == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	const cr_cfg *hfile = cr_host->cfg_get(config, "hosts_file");

	if ((cluster != NULL) + (cjson != NULL) + (hfile != NULL) > 1)
		st = cr_host->error_set(
			err, CR_ERR_CONFIG,
			"%s:%d: set one of 'cluster', 'cluster_json' and 'hosts_file', not more",
			AT(cjson != NULL && cluster != NULL ? cjson : hfile));
	else if (hfile != NULL)
		st = simple_hosts_path(s, hfile, err);
	else if (cr_host->opt_is_set(ctx, "task_type") != cr_host->opt_is_set(ctx, "task_id"))
		st = cr_host->error_set(err, CR_ERR_CONFIG,
					"%s:%d: 'task_type' and 'task_id' must be set together",
					AT(config));
	for (size_t i = 0; st == CR_OK && cluster != NULL && i < cr_host->cfg_length(cluster); i++)
		st = simple_job(s, cr_host->cfg_elem(cluster, i), err);
	if (st == CR_OK && cjson != NULL)
		st = simple_cluster_json(s, cjson, err);
	for (size_t i = 0; st == CR_OK && accel != NULL && i < cr_host->cfg_length(accel); i++) {
		const cr_cfg *a = cr_host->cfg_elem(accel, i);
		int64_t n;

		if (!cr_host->cfg_int(a, &n) || n < 0)
			st = cr_host->error_set(
				err, CR_ERR_CONFIG,
				"%s:%d: num_accelerators: '%s' must be a non-negative integer",
				AT(a), cr_host->cfg_name(a));
	}
	if (st != CR_OK) {
		simple_destroy(s);
		return st;
	}
	s->accel = accel;
	s->group = config;
	*state = s;
	return CR_OK;
}

/* refuse_if_launched: a launcher or scheduler says this process is one of
 * several, and no resolver before this one placed it. Answering this
 * config's cluster (the local worker) would make every process task 0 of 1. */
static cr_status simple_refuse_launched(cr_plugin_ctx *ctx, cr_error *err)
{
	uint64_t n = 0;
	const launch_size *l = launch_size_find(ctx, &n);

	if (l == NULL)
		return CR_OK;
	if (l->plugin == NULL)
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"%s=%llu: this process is one of %llu %s of %s, and no resolver of this "
			"version reads that: describe the cluster in the config (a simple "
			"resolver's cluster or hosts_file) with --task-type and --task-id; "
			"refusing a world of one",
			l->var, (unsigned long long)n, (unsigned long long)n, l->unit, l->launcher);
	return cr_host->error_set(err, CR_ERR_BACKEND,
				  "%s=%llu: this process is one of %llu %s of %s, and no resolver "
				  "placed it (the %s resolver reads these variables: is it in the "
				  "config and installed? 'cluster-resolver explain' says why each "
				  "resolver passed); refusing a world of one",
				  l->var, (unsigned long long)n, (unsigned long long)n, l->unit,
				  l->launcher, l->plugin);
}

static cr_status simple_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b,
				cr_error *err)
{
	simple_state *s = state;
	const char *rpc = cr_host->opt_string(ctx, "rpc_layer");
	const char *env = cr_host->opt_string(ctx, "environment");
	cr_status st = CR_OK;
	const cr_cfg *src = cr_host->opt_is_set(ctx, "cluster_json")
				    ? cr_host->cfg_get(s->group, "cluster_json")
				    : cr_host->cfg_get(s->group, "cluster");
	char fact[1024];

	if (cr_host->opt_bool(ctx, "refuse_if_launched")) {
		st = simple_refuse_launched(ctx, err);
		if (st != CR_OK)
			return st;
	}
	/* Which key the cluster came from, and where: explain's answer to
	 * "why these addresses?". */
	if (src != NULL) {
		snprintf(fact, sizeof(fact), "%s at %s:%d", cr_host->cfg_name(src),
			 cr_host->cfg_file(src), cr_host->cfg_line(src));
		cr_host->result_set_fact_string(b, "defined_at", fact, NULL);
	}
	if (s->hosts_file != NULL)
		st = simple_hosts_resolve(s, ctx, b, err);
	for (size_t i = 0; i < s->ntasks && st == CR_OK; i++) {
		const simple_task *t = &s->tasks[i];

		if (t->address == NULL)
			st = cr_host->result_add_job(b, t->job, err);
		else if (t->index < 0)
			st = cr_host->result_append_task(b, t->job, t->address, err);
		else
			st = cr_host->result_add_task(b, t->job, t->index, t->address, err);
	}
	if (st == CR_OK && s->cluster_json != NULL)
		st = cr_host->result_add_cluster_json(b, s->cluster_json, s->json_what, err);
	if (st == CR_OK && cr_host->opt_is_set(ctx, "task_type"))
		st = cr_host->result_set_task(b, cr_host->opt_string(ctx, "task_type"),
					      cr_host->opt_int(ctx, "task_id"), err);
	if (st == CR_OK && rpc != NULL)
		st = cr_host->result_set_rpc_layer(b, rpc, err);
	if (st == CR_OK && env != NULL)
		st = cr_host->result_set_environment(b, env, err);
	for (size_t i = 0; st == CR_OK && s->accel != NULL && i < cr_host->cfg_length(s->accel);
	     i++) {
		const cr_cfg *a = cr_host->cfg_elem(s->accel, i);
		int64_t n = 0;

		cr_host->cfg_int(a, &n);
		/* job NULL: this process's own task. */
		st = cr_host->result_set_task_accelerators(b, NULL, -1, cr_host->cfg_name(a), n,
							   err);
	}
	return st;
}

/* TensorFlow's SimpleClusterResolver.master() with no task: the configured
 * master with the rpc layer in front, the effective one the host passes
 * (NULL: this resolver's own); an empty master stays empty. For a task the
 * host looks the address up itself. */
static cr_status simple_master(void *state, cr_plugin_ctx *ctx, const char *task_type,
			       int64_t task_id, const char *rpc_layer, cr_text *out, cr_error *err)
{
	const char *master = cr_host->opt_string(ctx, "master");
	const char *rpc = rpc_layer != NULL ? rpc_layer : cr_host->opt_string(ctx, "rpc_layer");
	size_t n;
	char *url;
	cr_status st;

	(void)state;
	if (task_type != NULL || task_id >= 0)
		return CR_DECLINED;
	if (master == NULL || *master == '\0' || rpc == NULL || *rpc == '\0')
		return cr_host->text_set(out, master != NULL ? master : "", err);
	n = strlen(rpc) + strlen(master) + sizeof("://");
	url = malloc(n);
	if (url == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	snprintf(url, n, "%s://%s", rpc, master);
	st = cr_host->text_set(out, url, err);
	free(url);
	return st;
}

static const cr_option simple_options[] = {
	CR_OPTION("cluster", CR_OPT_GROUP, NULL, 0,
		  "jobs: a list of addresses (dense) or of { index; address; } groups (sparse)"),
	CR_OPTION("cluster_json", CR_OPT_STRING, NULL, 0, "the cluster as TensorFlow as_dict JSON"),
	CR_OPTION("hosts_file", CR_OPT_STRING, NULL, 0,
		  "a file of \"job address\" lines, read on each resolve and watched"),
	CR_OPTION("task_type", CR_OPT_STRING, NULL, 0, "this process's job name"),
	CR_OPTION_RANGE("task_id", CR_OPT_INT, NULL, 0, "this process's index in its job", 0,
			2147483647),
	CR_OPTION("rpc_layer", CR_OPT_STRING, NULL, 0, "rpc layer, e.g. \"grpc\""),
	CR_OPTION("environment", CR_OPT_STRING, NULL, 0, "environment name, e.g. \"cloud\""),
	CR_OPTION("master", CR_OPT_STRING, "", 0, "master address returned when no task is given"),
	CR_OPTION("refuse_if_launched", CR_OPT_BOOL, "false", 0,
		  "refuse (an error) when a launcher's or scheduler's variables say this "
		  "process is one of several (the shipped local fallback: no silent world of one)"),
	CR_OPTION("num_accelerators", CR_OPT_GROUP, NULL, 0,
		  "accelerators of this task, e.g. { GPU = 8; }"),
	CR_OPTIONS_END,
};

static const cr_resolver_ops simple_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = simple_create,
	.destroy = simple_destroy,
	.probe = NULL,
	.resolve = simple_resolve,
	.master = simple_master,
	.watch = simple_watch,
};

static const cr_plugin_desc simple_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "simple",
	.version = CR_VERSION_STRING,
	.description =
		"a cluster written in the configuration (TensorFlow's SimpleClusterResolver)",
	.options = simple_options,
	.option_size = sizeof(cr_option),
	.resolver = &simple_ops,
	.accelerator = NULL,
	.flags = 0,
	/* Not polled: its watch op says when the hosts file changed, and
	 * never for a cluster written in the configuration. */
	.watch_interval_s = 0,
	.watch_interval_min_s = 0,
};

CR_PLUGIN_DEFINE(simple_desc)
