/* SPDX-License-Identifier: MIT */
/*
 * slurm-layout.c - where each rank of a Slurm step runs.
 *
 * Slurm numbers ranks by its task distribution, not by node: with
 * `srun -N3 -n5 -m cyclic` ranks 0, 3 and 4 share node1. We rebuild Slurm's
 * layout from the nodelist (kept in its order), the tasks-per-node list and
 * SLURM_DISTRIBUTION (block, cyclic, plane=N; arbitrary from
 * SLURM_HOSTFILE), then check it against SLURM_GTIDS, the ranks Slurm
 * actually put on this node. Without SLURM_DISTRIBUTION, the layout is the
 * one of block or cyclic that matches SLURM_GTIDS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm.h"

/* -- the distributions --------------------------------------------------- */

static void slurm_place(slurm_layout *lay, uint32_t *filled, size_t rank, uint32_t node)
{
	lay->node_of[rank] = node;
	lay->local_of[rank] = filled[node]++;
}

/* block: node 0 takes its tasks first, then node 1, ... */
static void slurm_layout_block(slurm_layout *lay, uint32_t *filled)
{
	size_t rank = 0;

	for (uint32_t i = 0; i < lay->n_nodes; i++)
		for (uint32_t k = 0; k < lay->tpn[i]; k++)
			slurm_place(lay, filled, rank++, i);
}

/* plane=P: each round gives every node up to P consecutive ranks;
 * cyclic is plane=1. */
static void slurm_layout_plane(slurm_layout *lay, uint32_t *filled, uint32_t plane)
{
	size_t rank = 0;

	while (rank < lay->n_tasks)
		for (uint32_t i = 0; i < lay->n_nodes; i++)
			for (uint32_t k = 0; k < plane && filled[i] < lay->tpn[i]; k++)
				slurm_place(lay, filled, rank++, i);
}

/* Index of @name in the nodelist through @sorted (indices in name order),
 * or -1. Duplicate names in a config group resolve to one of them. */
static long slurm_find_node(const slurm_layout *lay, const uint32_t *sorted, const char *name)
{
	size_t lo = 0, hi = lay->n_nodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, slurm_host(lay, sorted[mid]));

		if (c == 0)
			return sorted[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* Append the names of one hostfile line (a hostlist; '#' starts a comment). */
static cr_status slurm_hostfile_line(char *line, char ***names, size_t *n, size_t *cap,
				     const char *path, cr_error *err)
{
	cr_error inner = CR_ERROR_INIT;
	char **hosts = NULL;
	size_t count = 0;
	char *hash = strchr(line, '#');

	if (hash != NULL)
		*hash = '\0';
	if (cr_host->hostlist_expand(line, &hosts, &count, &inner) != CR_OK)
		return cr_host->error_set(err, CR_ERR_BACKEND, "SLURM_HOSTFILE \"%s\": %s", path,
					  inner.message);
	for (size_t i = 0; i < count; i++) {
		if (*n == *cap) {
			size_t grown = *cap ? *cap * 2 : 64;
			char **bigger = realloc(*names, grown * sizeof(char *));

			if (bigger == NULL) {
				cr_host->strv_free(hosts);
				return slurm_nomem(err);
			}
			*names = bigger;
			*cap = grown;
		}
		(*names)[(*n)++] = strdup(hosts[i]);
	}
	cr_host->strv_free(hosts);
	return CR_OK;
}

/* arbitrary: rank r runs on line r of SLURM_HOSTFILE. */
static cr_status slurm_layout_arbitrary(cr_plugin_ctx *ctx, slurm_layout *lay, uint32_t *filled,
					const uint32_t *sorted, cr_error *err)
{
	const char *path = cr_host->getenv(ctx, "SLURM_HOSTFILE");
	char *data = NULL, *save = NULL;
	char **names = NULL;
	size_t n = 0, cap = 0;
	cr_status st;

	if (path == NULL)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "SLURM_DISTRIBUTION \"arbitrary\" needs SLURM_HOSTFILE, "
					  "which is not set");
	st = cr_host->read_file(ctx, path, 0, &data, NULL, err);
	if (st != CR_OK)
		return st;
	for (char *line = strtok_r(data, "\n", &save); line != NULL && st == CR_OK;
	     line = strtok_r(NULL, "\n", &save))
		st = slurm_hostfile_line(line, &names, &n, &cap, path, err);
	if (st == CR_OK && n < lay->n_tasks)
		st = cr_host->error_set(err, CR_ERR_BACKEND,
					"SLURM_HOSTFILE \"%s\" places %zu tasks, the step has %zu",
					path, n, lay->n_tasks);
	for (size_t r = 0; st == CR_OK && r < lay->n_tasks; r++) {
		long node = names[r] == NULL ? -1 : slurm_find_node(lay, sorted, names[r]);

		if (node < 0)
			st = cr_host->error_set(err, CR_ERR_BACKEND,
						"SLURM_HOSTFILE \"%s\": line for rank %zu names "
						"\"%s\", which is not in the nodelist",
						path, r, names[r] != NULL ? names[r] : "");
		else if (filled[node] == lay->tpn[node])
			st = cr_host->error_set(err, CR_ERR_BACKEND,
						"SLURM_HOSTFILE \"%s\" places more than %u tasks "
						"on \"%s\"",
						path, lay->tpn[node], names[r]);
		else
			slurm_place(lay, filled, r, (uint32_t)node);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	cr_host->free(data);
	return st;
}

/* -- choosing and checking the distribution ------------------------------- */

typedef enum slurm_dist_kind {
	SLURM_DIST_BLOCK,
	SLURM_DIST_CYCLIC,
	SLURM_DIST_PLANE,
	SLURM_DIST_ARBITRARY,
} slurm_dist_kind;

typedef struct slurm_dist {
	bool given;
	slurm_dist_kind kind;
	uint32_t plane;
} slurm_dist;

/* SLURM_DISTRIBUTION: "block", "cyclic:block", "plane" (+ SLURM_DIST_PLANESIZE),
 * "plane=3", "arbitrary", "block,Pack"; unset or "*..." = Slurm's default. */
static cr_status slurm_dist_read(cr_plugin_ctx *ctx, slurm_dist *d, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, "SLURM_DISTRIBUTION");
	const char *size = cr_host->getenv(ctx, "SLURM_DIST_PLANESIZE");
	size_t len;

	memset(d, 0, sizeof(*d));
	if (v == NULL || v[0] == '\0' || v[0] == '*')
		return CR_OK;
	len = strcspn(v, ":,");
	d->given = true;
	if (len == 5 && strncmp(v, "block", 5) == 0) {
		d->kind = SLURM_DIST_BLOCK;
	} else if (len == 6 && strncmp(v, "cyclic", 6) == 0) {
		d->kind = SLURM_DIST_CYCLIC;
	} else if (len == 9 && strncmp(v, "arbitrary", 9) == 0) {
		d->kind = SLURM_DIST_ARBITRARY;
	} else if (strncmp(v, "plane", 5) == 0 && (len == 5 || v[5] == '=')) {
		char num[16];
		cr_status st;

		d->kind = SLURM_DIST_PLANE;
		if (len > 6 && len - 6 < sizeof(num)) {
			memcpy(num, v + 6, len - 6);
			num[len - 6] = '\0';
			st = slurm_parse_uint("SLURM_DISTRIBUTION plane size", num, &d->plane, err);
		} else if (size != NULL) {
			st = slurm_parse_uint("SLURM_DIST_PLANESIZE", size, &d->plane, err);
		} else {
			return cr_host->error_set(err, CR_ERR_BACKEND,
						  "SLURM_DISTRIBUTION \"%s\" without a plane size "
						  "(SLURM_DIST_PLANESIZE is not set)",
						  v);
		}
		if (st != CR_OK)
			return st;
		if (d->plane == 0)
			return cr_host->error_set(err, CR_ERR_BACKEND,
						  "SLURM_DISTRIBUTION \"%s\": plane size 0", v);
	} else {
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "SLURM_DISTRIBUTION \"%s\" is not block, cyclic, plane "
					  "or arbitrary",
					  v);
	}
	return CR_OK;
}

/* SLURM_GTIDS: the ranks on this node, "0,4,6,7". NULL when unset. */
static cr_status slurm_gtids_read(cr_plugin_ctx *ctx, uint32_t **ids, size_t *n, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, "SLURM_GTIDS");
	uint32_t *parsed = NULL;

	*ids = NULL;
	*n = 0;
	if (v == NULL)
		return CR_OK;
	/* A GTIDS list is a tasks-per-node list without repeats. */
	if (strchr(v, '(') != NULL ||
	    cr_host->tasks_per_node_expand(v, &parsed, n, NULL) != CR_OK ||
	    (*n > 0 && (*ids = malloc(*n * sizeof(**ids))) == NULL)) {
		cr_host->free(parsed);
		*n = 0;
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "SLURM_GTIDS \"%s\" is not a list of task numbers", v);
	}
	memcpy(*ids, parsed, *n * sizeof(**ids));
	cr_host->free(parsed);
	return CR_OK;
}

/* This process's node (*@node, -1 when neither says): SLURMD_NODENAME in
 * the list, else SLURM_NODEID, which must then be a node of the list. */
static cr_status slurm_local_node(cr_plugin_ctx *ctx, const slurm_layout *lay, long *node,
				  cr_error *err)
{
	const char *name = cr_host->getenv(ctx, "SLURMD_NODENAME");
	const char *id = cr_host->getenv(ctx, "SLURM_NODEID");
	uint32_t v = 0;
	cr_status st;

	*node = -1;
	for (size_t i = 0; name != NULL && i < lay->n_nodes && *node < 0; i++)
		if (strcmp(slurm_host(lay, i), name) == 0)
			*node = (long)i;
	if (*node >= 0 || id == NULL)
		return CR_OK;
	st = slurm_parse_uint("SLURM_NODEID", id, &v, err);
	if (st == CR_OK && v >= lay->n_nodes)
		st = cr_host->error_set(err, CR_ERR_BACKEND,
					"SLURM_NODEID \"%s\" is not a node of the step (0..%zu)",
					id, lay->n_nodes - 1);
	if (st == CR_OK)
		*node = (long)v;
	return st;
}

static int slurm_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The rank of the @local-th task of @node in a computed layout. */
static size_t slurm_rank_of(const slurm_layout *lay, uint32_t node, uint32_t local)
{
	uint32_t p = lay->plane, full = lay->max_tpn / p, round = local / p;
	size_t span = lay->n_nodes * p;

	if (round < full)
		return round * span + (size_t)node * p + local % p;
	return full * span + (size_t)node * (lay->max_tpn - full * p) + (local - full * p);
}

/* Whether the layout puts exactly @gtids (sorted) on node @local. */
static bool slurm_gtids_match(const slurm_layout *lay, long local, const uint32_t *gtids, size_t n)
{
	size_t k = 0;

	if (lay->node_of == NULL) {
		if (n != lay->max_tpn)
			return false;
		for (; k < n; k++)
			if (gtids[k] != slurm_rank_of(lay, (uint32_t)local, (uint32_t)k))
				return false;
		return true;
	}
	for (size_t r = 0; r < lay->n_tasks; r++) {
		if (lay->node_of[r] != (uint32_t)local)
			continue;
		if (k == n || gtids[k] != r)
			return false;
		k++;
	}
	return k == n;
}

/* Block, cyclic and plane over a uniform list are computed per rank; the
 * others (and any distribution over an uneven list) are stored. */
static cr_status slurm_apply(cr_plugin_ctx *ctx, slurm_layout *lay, const slurm_dist *d,
			     const uint32_t *sorted, cr_error *err)
{
	static const char *const names[] = { "block", "cyclic", "plane", "arbitrary" };
	uint32_t plane = d->kind == SLURM_DIST_BLOCK   ? lay->max_tpn
			 : d->kind == SLURM_DIST_PLANE ? d->plane
						       : 1;
	uint32_t *filled;
	cr_status st = CR_OK;

	lay->dist = names[d->kind];
	if (lay->uniform && d->kind != SLURM_DIST_ARBITRARY) {
		lay->plane = plane < lay->max_tpn ? plane : lay->max_tpn;
		return CR_OK;
	}
	if (lay->node_of == NULL) {
		lay->node_of = malloc(lay->n_tasks * sizeof(*lay->node_of));
		lay->local_of = malloc(lay->n_tasks * sizeof(*lay->local_of));
	}
	filled = calloc(lay->n_nodes, sizeof(*filled));
	if (lay->node_of == NULL || lay->local_of == NULL || filled == NULL) {
		free(filled);
		return slurm_nomem(err);
	}
	if (d->kind == SLURM_DIST_BLOCK)
		slurm_layout_block(lay, filled);
	else if (d->kind == SLURM_DIST_ARBITRARY)
		st = slurm_layout_arbitrary(ctx, lay, filled, sorted, err);
	else
		slurm_layout_plane(lay, filled, plane);
	free(filled);
	return st;
}

/* Lay the ranks out by @d, or (not given) by block, else cyclic, whichever
 * matches SLURM_GTIDS; an error when none does. */
static cr_status slurm_distribute(cr_plugin_ctx *ctx, const slurm_env *env, slurm_layout *lay,
				  const slurm_dist *given, const uint32_t *gtids, size_t n_gtids,
				  const uint32_t *sorted, cr_error *err)
{
	slurm_dist d = *given;
	bool check = gtids != NULL && lay->local_node >= 0;
	cr_status st;

	if (!d.given)
		d.kind = SLURM_DIST_BLOCK;
	st = slurm_apply(ctx, lay, &d, sorted, err);
	if (st != CR_OK || !check || slurm_gtids_match(lay, lay->local_node, gtids, n_gtids))
		return st;
	if (!d.given) {
		d.kind = SLURM_DIST_CYCLIC;
		st = slurm_apply(ctx, lay, &d, sorted, err);
		if (st != CR_OK || slurm_gtids_match(lay, lay->local_node, gtids, n_gtids))
			return st;
	}
	return cr_host->error_set(
		err, CR_ERR_BACKEND,
		"SLURM_GTIDS \"%s\" (the ranks on %s) do not fit %s%s%s over "
		"%s \"%s\" and %s \"%s\"",
		cr_host->getenv(ctx, "SLURM_GTIDS"), slurm_host(lay, (size_t)lay->local_node),
		given->given ? "SLURM_DISTRIBUTION \"" : "a block or cyclic layout",
		given->given ? cr_host->getenv(ctx, "SLURM_DISTRIBUTION") : "",
		given->given ? "\"" : "", env->nodelist_var, env->nodelist, env->tpn_var, env->tpn);
}

static int slurm_cmp_names(const void *a, const void *b, void *layout)
{
	const slurm_layout *lay = layout;

	return strcmp(slurm_host(lay, *(const uint32_t *)a), slurm_host(lay, *(const uint32_t *)b));
}

cr_status slurm_layout_build(cr_plugin_ctx *ctx, const slurm_config *cfg, const slurm_env *env,
			     slurm_layout *lay, cr_error *err)
{
	uint32_t *sorted = NULL, *gtids = NULL;
	size_t n_gtids = 0;
	slurm_dist dist;
	cr_status st;

	memset(lay, 0, sizeof(*lay));
	lay->local_node = -1;
	st = slurm_nodes(ctx, cfg, env, lay, err);
	if (st != CR_OK)
		goto out;
	st = slurm_local_node(ctx, lay, &lay->local_node, err);
	if (st == CR_OK)
		st = slurm_dist_read(ctx, &dist, err);
	if (st == CR_OK && dist.given && dist.kind == SLURM_DIST_ARBITRARY) {
		/* a hostfile names a node per rank: look names up by bisection */
		sorted = malloc(lay->n_nodes * sizeof(*sorted));
		if (sorted == NULL) {
			st = slurm_nomem(err);
			goto out;
		}
		for (uint32_t i = 0; i < lay->n_nodes; i++)
			sorted[i] = i;
		qsort_r(sorted, lay->n_nodes, sizeof(*sorted), slurm_cmp_names, lay);
	}
	/* SLURM_GTIDS describes the step's own layout: only a step's task list
	 * taken from the environment can be checked against it. */
	if (st == CR_OK && env->in_step && cfg->tpn_source == SLURM_TPN_ENV)
		st = slurm_gtids_read(ctx, &gtids, &n_gtids, err);
	if (st != CR_OK)
		goto out;
	if (gtids != NULL)
		qsort(gtids, n_gtids, sizeof(*gtids), slurm_cmp_u32);
	st = slurm_distribute(ctx, env, lay, &dist, gtids, n_gtids, sorted, err);
out:
	free(sorted);
	free(gtids);
	return st;
}

void slurm_layout_clear(slurm_layout *lay)
{
	free((void *)lay->hosts);
	free(lay->host_names);
	if (lay->tpn != lay->host_tpn)
		free(lay->tpn);
	cr_host->free(lay->host_tpn);
	free(lay->node_of);
	free(lay->local_of);
	memset(lay, 0, sizeof(*lay));
	lay->local_node = -1;
}

void slurm_cursor_init(const slurm_layout *lay, slurm_cursor *c, size_t rank)
{
	size_t span, off;

	memset(c, 0, sizeof(*c));
	c->rank = rank;
	if (rank >= lay->n_tasks)
		return;
	if (lay->node_of != NULL) {
		c->node = lay->node_of[rank];
		c->local = lay->local_of[rank];
		return;
	}
	/* full rounds of n_nodes * plane ranks, then one of n_nodes * rem */
	span = lay->n_nodes * lay->plane;
	c->full = lay->max_tpn / lay->plane;
	c->rem = lay->max_tpn - c->full * lay->plane;
	if (rank < c->full * span) {
		c->round = (uint32_t)(rank / span);
		off = rank % span;
		c->width = lay->plane;
	} else {
		c->round = c->full;
		off = rank - c->full * span;
		c->width = c->rem;
	}
	c->node = (uint32_t)(off / c->width);
	c->j = (uint32_t)(off % c->width);
	c->local = c->round * lay->plane + c->j;
}

void slurm_locate(const slurm_layout *lay, size_t rank, uint32_t *node, uint32_t *local)
{
	slurm_cursor c;

	slurm_cursor_init(lay, &c, rank);
	*node = c.node;
	*local = c.local;
}
