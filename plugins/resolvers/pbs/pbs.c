/* SPDX-License-Identifier: MIT */
/*
 * pbs.c - pbs.so: a task of a PBS Professional, OpenPBS or Torque job.
 * PBS describes the allocation: PBS_NODEFILE lists one host a line, one
 * line a slot (a vnode entry), in node order; PBS_NODENUM is the index of
 * the node whose MoM started this process (0: the mother superior);
 * Torque's pbsdsh also sets PBS_VNODENUM, the slot (the node file's line)
 * of a task. The cluster: one job (`job`) with, per host in first-appearance
 * order, `tasks_per_host` tasks (1 by default, one a node as TensorFlow's
 * resolvers; `per_slot` for one a line), "host:port_base+i".
 *
 * This process's task: with one task a node, its node (PBS_NODENUM; the job
 * script is on node 0, the only process there); with one a slot, Torque's
 * PBS_VNODENUM. Anything else has no rank from PBS (OpenPBS sets no slot
 * variable): it declines, saying what would place it (mpirun through the
 * mpi resolver, --task-id), never "task 0".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

#include "launchers.h"

#define NODEFILE_MAX (64u << 20)

typedef struct pbs_hosts {
	char **name; /* unique, first-appearance order */
	size_t *slots;
	size_t n, cap, lines;
	size_t *line_host; /* the host of each line */
	size_t line_cap;
} pbs_hosts;

static void pbs_hosts_free(pbs_hosts *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->name[i]);
	free(h->name);
	free(h->slots);
	free(h->line_host);
}

static cr_status pbs_nomem(cr_error *err)
{
	return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
}

static cr_status pbs_add_line(pbs_hosts *h, const char *name, size_t len, cr_error *err)
{
	size_t i = 0;

	while (i < h->n && !(strlen(h->name[i]) == len && memcmp(h->name[i], name, len) == 0))
		i++;
	if (i == h->n) {
		if (h->n == h->cap) {
			size_t cap = h->cap ? h->cap * 2 : 16;
			char **nn = realloc(h->name, cap * sizeof(*nn));
			size_t *ns;

			if (nn == NULL)
				return pbs_nomem(err);
			h->name = nn;
			ns = realloc(h->slots, cap * sizeof(*ns));
			if (ns == NULL)
				return pbs_nomem(err);
			h->slots = ns;
			h->cap = cap;
		}
		if ((h->name[h->n] = strndup(name, len)) == NULL)
			return pbs_nomem(err);
		h->slots[h->n++] = 0;
	}
	h->slots[i]++;
	if (h->lines == h->line_cap) {
		size_t cap = h->line_cap ? h->line_cap * 2 : 64;
		size_t *nl = realloc(h->line_host, cap * sizeof(*nl));

		if (nl == NULL)
			return pbs_nomem(err);
		h->line_host = nl;
		h->line_cap = cap;
	}
	h->line_host[h->lines++] = i;
	return CR_OK;
}

/* PBS_NODEFILE: a host a line; blank lines and `#` comments skipped, blanks
 * trimmed. A line with a blank inside is no host name. */
static cr_status pbs_read_nodefile(cr_plugin_ctx *ctx, pbs_hosts *h, const char **path,
				   cr_error *err)
{
	char *text = NULL;
	size_t len = 0, lineno = 0;
	cr_status st;

	*path = cr_host->getenv(ctx, "PBS_NODEFILE");
	if (*path == NULL || **path == '\0')
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"PBS: PBS_NODEFILE is not set (PBS sets it in every job)");
	st = cr_host->read_file(ctx, *path, NODEFILE_MAX, &text, &len, err);
	if (st != CR_OK)
		return st;
	for (char *p = text, *end; st == CR_OK && p < text + len; p = end + 1) {
		size_t n;

		end = memchr(p, '\n', (size_t)(text + len - p));
		if (end == NULL)
			end = text + len;
		lineno++;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		n = (size_t)(end - p);
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
			n--;
		if (n == 0 || *p == '#')
			continue;
		if (memchr(p, ' ', n) != NULL || memchr(p, '\t', n) != NULL || n > 255)
			st = cr_host->error_set(err, CR_ERR_PARSE,
						"PBS: %s:%zu: not a host name (one host a line)",
						*path, lineno);
		else
			st = pbs_add_line(h, p, n, err);
	}
	cr_host->free(text);
	if (st == CR_OK && h->n == 0)
		st = cr_host->error_set(err, CR_ERR_PARSE, "PBS: %s lists no host", *path);
	return st;
}

/* @var as a decimal below 2^31: 1, 0 when unset, -1 after an error. */
static int pbs_uint(cr_plugin_ctx *ctx, const char *var, int64_t *out, cr_status *st, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, var);
	uint64_t n = 0;

	if (v == NULL)
		return 0;
	if (!launch_decimal(v, INT32_MAX, &n)) {
		*st = cr_host->error_set(err, CR_ERR_BACKEND,
					 "PBS: %s=\"%.64s\" is not a non-negative integer", var, v);
		return -1;
	}
	*out = (int64_t)n;
	return 1;
}

static cr_status pbs_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");

	if (job == NULL || *job == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: job must not be empty",
					  cr_host->cfg_file(config), cr_host->cfg_line(config));
	*state = ctx;
	return CR_OK;
}

static void pbs_destroy(void *state)
{
	(void)state;
}

static cr_status pbs_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	(void)state;
	if (cr_host->getenv(ctx, "PBS_JOBID") != NULL &&
	    cr_host->getenv(ctx, "PBS_ENVIRONMENT") != NULL)
		return CR_OK;
	return cr_host->error_set(err, CR_DECLINED,
				  "not in a PBS job: PBS_JOBID and PBS_ENVIRONMENT are not set");
}

/* This process's task, or -1 with a decline in @err. */
static cr_status pbs_rank(cr_plugin_ctx *ctx, const pbs_hosts *h, bool per_slot, int64_t tph,
			  int64_t *rank, cr_error *err)
{
	int64_t node = 0, vnode = 0;
	cr_status st = CR_OK;
	int has_node = pbs_uint(ctx, "PBS_NODENUM", &node, &st, err);
	int has_vnode = has_node < 0 ? 0 : pbs_uint(ctx, "PBS_VNODENUM", &vnode, &st, err);

	if (has_node < 0 || has_vnode < 0)
		return st;
	if (has_node && (size_t)node >= h->n)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "PBS: PBS_NODENUM=%lld is not below the %zu hosts of "
					  "PBS_NODEFILE",
					  (long long)node, h->n);
	if (has_vnode && (size_t)vnode >= h->lines)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "PBS: PBS_VNODENUM=%lld is not below the %zu lines of "
					  "PBS_NODEFILE",
					  (long long)vnode, h->lines);
	if (per_slot && has_vnode) {
		*rank = vnode;
		return CR_OK;
	}
	if (!per_slot && tph == 1 && has_node) {
		*rank = node;
		return CR_OK;
	}
	return cr_host->error_set(
		err, CR_DECLINED,
		"in PBS job %.64s of %zu hosts, but PBS gives this process no rank among %s "
		"(%s): start the tasks with mpirun (the mpi resolver) or give --task-type "
		"and --task-id",
		cr_host->getenv(ctx, "PBS_JOBID"), h->n,
		per_slot ? "the slots" : "several tasks a host",
		per_slot ? "PBS_VNODENUM is Torque's pbsdsh's only" : "tasks_per_host > 1");
}

static cr_status pbs_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job"), *path = NULL;
	bool per_slot = cr_host->opt_bool(ctx, "per_slot");
	int64_t tph = cr_host->opt_int(ctx, "tasks_per_host");
	int64_t base = cr_host->opt_int(ctx, "port_base"), rank = -1;
	pbs_hosts h = { 0 };
	cr_status st;
	char addr[300];

	(void)state;
	st = pbs_read_nodefile(ctx, &h, &path, err);
	if (st == CR_OK)
		st = pbs_rank(ctx, &h, per_slot, tph, &rank, err);
	if (st == CR_OK) {
		cr_host->result_set_fact_string(b, "launcher", "PBS", NULL);
		cr_host->result_set_fact_string(b, "nodefile", path, NULL);
		st = cr_host->result_add_job(b, job, err);
	}
	for (size_t i = 0; st == CR_OK && i < h.n; i++) {
		int64_t k = per_slot ? (int64_t)h.slots[i] : tph;

		if (base + k - 1 > 65535)
			st = cr_host->error_set(
				err, CR_ERR_CONFIG,
				"PBS: port_base %lld + %lld tasks on %s passes port 65535",
				(long long)base, (long long)k, h.name[i]);
		for (int64_t t = 0; st == CR_OK && t < k; t++) {
			snprintf(addr, sizeof(addr), "%s:%lld", h.name[i], (long long)(base + t));
			st = cr_host->result_append_task(b, job, addr, err);
		}
	}
	if (st == CR_OK && per_slot) {
		/* The slot's task: line order groups no host, tasks do. */
		size_t before = 0, host = h.line_host[rank], nth = 0;

		for (size_t i = 0; i < host; i++)
			before += h.slots[i];
		for (int64_t l = 0; l < rank; l++)
			nth += h.line_host[l] == host;
		rank = (int64_t)(before + nth);
	} else if (st == CR_OK) {
		rank *= tph;
	}
	if (st == CR_OK)
		st = cr_host->result_set_task(b, job, rank, err);
	pbs_hosts_free(&h);
	return st;
}

static const cr_option pbs_options[] = {
	CR_OPTION("job", CR_OPT_STRING, "worker", 0, "the job of the allocation's tasks"),
	CR_OPTION_RANGE("tasks_per_host", CR_OPT_INT, "1", 0,
			"tasks on every host (one a node, as TensorFlow's resolvers)", 1, 65535),
	CR_OPTION("per_slot", CR_OPT_BOOL, "false", 0,
		  "one task a PBS_NODEFILE line (slot) instead of tasks_per_host"),
	CR_OPTION_RANGE("port_base", CR_OPT_INT, "8888", 0,
			"port of the first task on each host; the next tasks count up", 1, 65535),
	CR_OPTIONS_END,
};

static const cr_resolver_ops pbs_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = pbs_create,
	.destroy = pbs_destroy,
	.probe = pbs_probe,
	.resolve = pbs_resolve,
	.master = NULL,
};

static const cr_plugin_desc pbs_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "pbs",
	.version = CR_VERSION_STRING,
	.description = "a task of a PBS Professional, OpenPBS or Torque job: the hosts of "
		       "PBS_NODEFILE, this node's place",
	.options = pbs_options,
	.option_size = sizeof(cr_option),
	.resolver = &pbs_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(pbs_desc)
