/* SPDX-License-Identifier: MIT */
/*
 * flux.c - flux.so: a task of a Flux job. The job shell sets, in every
 * task, FLUX_JOB_ID (F58, e.g. "ƒD2e73NP": UTF-8, kept as opaque text),
 * FLUX_TASK_RANK, FLUX_TASK_LOCAL_ID, FLUX_JOB_SIZE (tasks) and
 * FLUX_JOB_NNODES (nodes, one shell each); no variable names the hosts.
 * They come from the job's resource set R: `flux job info $FLUX_JOB_ID R`
 * (the `flux` option names the command, found on the PATH; `timeout`
 * bounds it) or the file `r_file` names (flux_r.c reads it).
 *
 * The cluster: one job (`job`) of FLUX_JOB_SIZE tasks laid out block-wise
 * over R's nodes in rank order, FLUX_JOB_SIZE / FLUX_JOB_NNODES a node and
 * the remainder one each on the first nodes, as the shell's rcalc
 * distributes them when the nodes have equal cores (flux-core
 * src/shell/rcalc.c); task j of a node at host:port_base+j. With nodes of
 * unequal cores and an uneven count the shell's choice depends on the
 * jobspec, which a task cannot see: it declines. This task's place must be
 * where the layout puts it (FLUX_TASK_RANK - FLUX_TASK_LOCAL_ID is its
 * node's first task), else a --taskmap other than block was used: refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "flux.h"
#include "launchers.h"

typedef struct flux_task {
	const char *id;
	int64_t rank, size, nnodes, local;
} flux_task;

/* @var, a decimal below 2^31, into *@out. */
static cr_status flux_uint(cr_plugin_ctx *ctx, const char *var, int64_t *out, cr_error *err)
{
	cr_status st = CR_OK;
	int got = launch_env_uint(ctx, "Flux", var, out, &st, err);

	if (got == 0)
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"Flux: %s is not set (the job shell sets it in every task)", var);
	return st;
}

/* A job id to pass to `flux job info`: printable UTF-8 of at most 64
 * bytes, no blank, no leading '-' (never an option). */
static bool flux_id_ok(const char *id)
{
	size_t len = id != NULL ? strlen(id) : 0;

	if (len == 0 || len > 64 || id[0] == '-' || !g_utf8_validate(id, (gssize)len, NULL))
		return false;
	for (const char *p = id; *p != '\0'; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);

		if (c <= 0x20 || (c >= 0x7f && c <= 0x9f))
			return false;
	}
	return true;
}

static cr_status flux_read_task(cr_plugin_ctx *ctx, flux_task *t, cr_error *err)
{
	cr_status st;

	t->id = cr_host->getenv(ctx, "FLUX_JOB_ID");
	if (!flux_id_ok(t->id))
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "Flux: FLUX_JOB_ID=\"%.64s\" is not a Flux job id",
					  t->id);
	if ((st = flux_uint(ctx, "FLUX_TASK_RANK", &t->rank, err)) != CR_OK ||
	    (st = flux_uint(ctx, "FLUX_JOB_SIZE", &t->size, err)) != CR_OK ||
	    (st = flux_uint(ctx, "FLUX_JOB_NNODES", &t->nnodes, err)) != CR_OK ||
	    (st = flux_uint(ctx, "FLUX_TASK_LOCAL_ID", &t->local, err)) != CR_OK)
		return st;
	if (t->rank >= t->size)
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"Flux: FLUX_TASK_RANK=%lld is not below FLUX_JOB_SIZE=%lld",
			(long long)t->rank, (long long)t->size);
	if (t->local > t->rank)
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"Flux: FLUX_TASK_LOCAL_ID=%lld is above FLUX_TASK_RANK=%lld",
			(long long)t->local, (long long)t->rank);
	if (t->nnodes == 0)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "Flux: FLUX_JOB_NNODES=0: a job has at least one node");
	return CR_OK;
}

/* R from `flux job info ID R`, run with a deadline. (transfer full) *@text. */
static cr_status flux_query(cr_plugin_ctx *ctx, const flux_task *t, char **text, size_t *len,
			    cr_error *err)
{
	const char *cmd = cr_host->opt_string(ctx, "flux");
	const char *argv[] = { cmd, "job", "info", t->id, "R", NULL };
	int64_t secs = cr_host->opt_int(ctx, "timeout");
	cr_spawn_result *res = NULL;
	cr_status st = cr_host->spawn(ctx, argv, NULL, secs * 1000, FLUX_R_BYTES_MAX, &res, err);
	char why[CR_ERROR_MSG_MAX];

	g_strlcpy(why, err != NULL ? err->message : "", sizeof(why));
	if (st == CR_ERR_TIMEOUT)
		st = cr_host->error_set(err, st,
					"Flux: `%s job info %s R`: no answer after %lld s "
					"(timeout): killed",
					cmd, t->id, (long long)secs);
	else if (st != CR_OK && res != NULL)
		st = cr_host->error_set(err, st,
					"Flux: `%s job info %s R`: more than %u bytes "
					"of output: killed",
					cmd, t->id, FLUX_R_BYTES_MAX);
	else if (st != CR_OK)
		st = cr_host->error_set(err, st,
					"Flux: cannot run `%s job info %s R`: %s (set "
					"flux to the command, or r_file to a copy of R)",
					cmd, t->id, why);
	else if (res->exit_status != 0) {
		size_t n = strcspn(res->err, "\n");

		st = cr_host->error_set(err, CR_ERR_BACKEND,
					"Flux: `%s job info %s R` exited with status %d%s%.*s", cmd,
					t->id, res->exit_status, n ? ": " : "",
					(int)(n > 200 ? 200 : n), res->err);
	} else {
		*len = res->out_len;
		*text = g_strndup(res->out, res->out_len);
	}
	cr_host->spawn_result_free(res);
	return st;
}

/* The job's R, from r_file or flux; *@what names where, for messages. */
static cr_status flux_get_r(cr_plugin_ctx *ctx, const flux_task *t, flux_r *r, char *what,
			    size_t what_size, cr_error *err)
{
	const char *path = cr_host->opt_string(ctx, "r_file");
	char *text = NULL;
	size_t len = 0;
	cr_status st;

	if (path != NULL && *path != '\0') {
		char *data = NULL;

		snprintf(what, what_size, "Flux: R of %s", path);
		st = cr_host->read_file(ctx, path, FLUX_R_BYTES_MAX, &data, &len, err);
		if (st == CR_OK) {
			text = g_strndup(data, len);
			cr_host->free(data);
		} else {
			char why[CR_ERROR_MSG_MAX];

			g_strlcpy(why, err->message, sizeof(why));
			return cr_host->error_set(err, st, "Flux: r_file: %s", why);
		}
	} else {
		snprintf(what, what_size, "Flux: R of `%s job info %s R`",
			 cr_host->opt_string(ctx, "flux"), t->id);
		st = flux_query(ctx, t, &text, &len, err);
	}
	if (st == CR_OK)
		st = flux_r_parse(text, len, what, r, err);
	g_free(text);
	return st;
}

/* The tasks of node @i: the block layout's. */
static int64_t flux_count(const flux_task *t, int64_t i)
{
	return t->size / t->nnodes + (i < t->size % t->nnodes);
}

/* This task's node, in *@node. */
static cr_status flux_node(const flux_task *t, const flux_r *r, int64_t *node, cr_error *err)
{
	int64_t first = 0, mine = t->rank - t->local;

	if (t->size % t->nnodes != 0 && r->cores_differ)
		return cr_host->error_set(
			err, CR_DECLINED,
			"in Flux job %s, %lld tasks on %lld nodes of unequal cores: "
			"where the job shell put the extra tasks depends on the "
			"jobspec, which a task does not see; the mpi resolver places "
			"Flux tasks through its PMI (on unless -o pmi=off)",
			t->id, (long long)t->size, (long long)t->nnodes);
	for (int64_t i = 0; i < t->nnodes; i++) {
		int64_t n = flux_count(t, i);

		if (first == mine && t->local < n) {
			*node = i;
			return CR_OK;
		}
		first += n;
	}
	return cr_host->error_set(
		err, CR_ERR_BACKEND,
		"Flux: task %lld is local task %lld (FLUX_TASK_LOCAL_ID), which the "
		"block layout of %lld tasks over %lld nodes does not give it: a "
		"--taskmap other than block? The mpi resolver places such tasks "
		"through Flux's PMI",
		(long long)t->rank, (long long)t->local, (long long)t->size, (long long)t->nnodes);
}

/* The job: node i's tasks at host:port_base+j, counting on past the tasks
 * of an earlier node of the same name (a test instance of several brokers
 * a host). */
static cr_status flux_emit(cr_plugin_ctx *ctx, cr_result_builder *b, const flux_task *t,
			   const flux_r *r, int64_t node, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");
	int64_t base = cr_host->opt_int(ctx, "port_base");
	GHashTable *used = g_hash_table_new(g_str_hash, g_str_equal);
	cr_status st = cr_host->result_add_job(b, job, err);

	for (size_t i = 0; st == CR_OK && i < r->n; i++) {
		int64_t n = flux_count(t, (int64_t)i);
		int64_t from = GPOINTER_TO_SIZE(g_hash_table_lookup(used, r->host[i]));

		if (base + from + n - 1 > 65535) {
			st = cr_host->error_set(
				err, CR_ERR_CONFIG,
				"Flux: port_base %lld + %lld tasks on %.64s passes port 65535",
				(long long)base, (long long)(from + n), r->host[i]);
			break;
		}
		for (int64_t j = 0; st == CR_OK && j < n; j++) {
			char *addr = g_strdup_printf("%s:%lld", r->host[i],
						     (long long)(base + from + j));

			st = cr_host->result_append_task(b, job, addr, err);
			g_free(addr);
		}
		g_hash_table_insert(used, r->host[i], GSIZE_TO_POINTER((gsize)(from + n)));
	}
	g_hash_table_destroy(used);
	if (st == CR_OK)
		st = cr_host->result_set_task(b, job, t->rank, err);
	if (st == CR_OK)
		st = cr_host->result_set_task_place(b, node, t->nnodes, t->local,
						    flux_count(t, node), err);
	return st;
}

static cr_status flux_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");
	const char *cmd = cr_host->opt_string(ctx, "flux");

	if (job == NULL || *job == '\0' || cmd == NULL || *cmd == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: %s must not be empty",
					  cr_host->cfg_file(config), cr_host->cfg_line(config),
					  job == NULL || *job == '\0' ? "job" : "flux");
	*state = ctx;
	return CR_OK;
}

static void flux_destroy(void *state)
{
	(void)state;
}

static cr_status flux_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	(void)state;
	if (cr_host->getenv(ctx, "FLUX_JOB_ID") != NULL &&
	    cr_host->getenv(ctx, "FLUX_TASK_RANK") != NULL)
		return CR_OK;
	return cr_host->error_set(err, CR_DECLINED,
				  "not a task of a Flux job: FLUX_JOB_ID and FLUX_TASK_RANK are "
				  "not set");
}

static cr_status flux_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	char what[512];
	flux_task t;
	flux_r r = { NULL, 0, false };
	int64_t node = -1;
	cr_status st;

	(void)state;
	st = flux_read_task(ctx, &t, err);
	if (st != CR_OK)
		return st;
	cr_host->result_set_fact_string(b, "launcher", "Flux", NULL);
	cr_host->result_set_fact_string(b, "jobid", t.id, NULL);
	st = flux_get_r(ctx, &t, &r, what, sizeof(what), err);
	if (st == CR_OK && r.n != (size_t)t.nnodes)
		st = cr_host->error_set(err, CR_ERR_BACKEND,
					"%s names %zu hosts, but FLUX_JOB_NNODES=%lld", what, r.n,
					(long long)t.nnodes);
	if (st == CR_OK)
		st = flux_node(&t, &r, &node, err);
	if (st == CR_OK)
		st = flux_emit(ctx, b, &t, &r, node, err);
	flux_r_clear(&r);
	return st;
}

static const cr_option flux_options[] = {
	CR_OPTION("job", CR_OPT_STRING, "worker", 0, "the job of the Flux job's tasks"),
	CR_OPTION_RANGE("port_base", CR_OPT_INT, "8888", 0,
			"port of the first task on each node; the next tasks count up", 1, 65535),
	CR_OPTION("flux", CR_OPT_STRING, "flux", 0,
		  "the flux command (a name is looked up on the PATH)"),
	CR_OPTION("r_file", CR_OPT_STRING, NULL, 0,
		  "read the job's R (RFC 20 JSON) from this file instead of running flux"),
	CR_OPTION_RANGE("timeout", CR_OPT_INT, "30", 0,
			"seconds `flux job info` may take before it is killed", 1, 3600),
	CR_OPTIONS_END,
};

static const cr_resolver_ops flux_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = flux_create,
	.destroy = flux_destroy,
	.probe = flux_probe,
	.resolve = flux_resolve,
	.master = NULL,
};

static const cr_plugin_desc flux_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "flux",
	.version = CR_VERSION_STRING,
	.description = "a task of a Flux job: its rank, and the hosts of the job's resource "
		       "set R (flux job info, or a file)",
	.options = flux_options,
	.option_size = sizeof(cr_option),
	.resolver = &flux_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(flux_desc)
