/* SPDX-License-Identifier: MIT */
/*
 * exec-generation.c - what the program of one generation gets under
 * `exec --elastic` (exec-elastic.c runs it): the variables of the
 * --format list for that cluster, torchrun's elastic ones, and ours:
 *  - CR_GENERATION_ID: the world's id, the same in every member of one
 *    world (cr_result_generation_id(): the first 16 hex digits of the
 *    SHA-256 of the cluster), so equal ids mean the same membership,
 *    whichever agent computed it and whenever it joined;
 *  - CR_GENERATION: this agent's own count (1, 2, ...; a newcomer starts
 *    at 1), CR_RESTART_COUNT, and CR_JOIN_TIMEOUT (seconds, the bound a
 *    generation's program has to form its world).
 * The rendezvous port of the formats that take one (torch, torchrun, jax,
 * env) is, unless --master-port was given, derived from the same digest
 * within --port-range (default 20000-29999): every membership gets a
 * coordinator port of its own, so a member that starts early never
 * reaches the store of the world before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

size_t cli_result_tasks(const cr_result *res)
{
	const cr_spec *spec = cr_result_spec(res);
	size_t total = 0, n;

	for (size_t j = 0; j < cr_spec_num_jobs(spec); j++)
		if (cr_spec_num_tasks(spec, cr_spec_job_name(spec, j), &n, NULL) == CR_OK)
			total += n;
	return total;
}

/* The port of this membership within --port-range (20000-29999 when not
 * given, or not of the form LOW-HIGH: the library then says so). */
static unsigned gen_port(const cr_result *res)
{
	unsigned lo = 20000, hi = 29999, a, b;
	/* The id's 16 hex digits are the digest's first 8 bytes, big-endian. */
	uint64_t h = g_ascii_strtoull(cr_result_generation_id(res), NULL, 16);
	char end;

	if (cli_fmt.port_range != NULL &&
	    sscanf(cli_fmt.port_range, "%u-%u%c", &a, &b, &end) == 2 && a >= 1 && a <= b &&
	    b <= 65535) {
		lo = a;
		hi = b;
	}
	return lo + (unsigned)(h % ((uint64_t)hi - lo + 1));
}

bool cli_pairs_equal(const GPtrArray *a, const GPtrArray *b)
{
	if (a == NULL || b == NULL || a->len != b->len)
		return false;
	for (guint i = 0; i < a->len; i++)
		if (strcmp(g_ptr_array_index(a, i), g_ptr_array_index(b, i)) != 0)
			return false;
	return true;
}

const char *cli_pairs_get(const GPtrArray *pairs, const char *name)
{
	for (guint i = 0; pairs != NULL && i + 1 < pairs->len; i += 2)
		if (strcmp(g_ptr_array_index(pairs, i), name) == 0)
			return g_ptr_array_index(pairs, i + 1);
	return NULL;
}

char **cli_generation_envp(char **base, const GPtrArray *pairs, uint64_t gen, int64_t restarts)
{
	GPtrArray *env = g_ptr_array_new();
	GHashTable *set = g_hash_table_new(g_str_hash, g_str_equal);
	char gen_text[32], restarts_text[32];
	GPtrArray *add = g_ptr_array_new();

	snprintf(gen_text, sizeof(gen_text), "%llu", (unsigned long long)gen);
	snprintf(restarts_text, sizeof(restarts_text), "%lld", (long long)restarts);
	for (guint i = 0; i + 1 < pairs->len; i += 2) {
		g_ptr_array_add(add, g_ptr_array_index(pairs, i));
		g_ptr_array_add(add, g_ptr_array_index(pairs, i + 1));
	}
	g_ptr_array_add(add, (char *)"CR_GENERATION");
	g_ptr_array_add(add, gen_text);
	g_ptr_array_add(add, (char *)"CR_RESTART_COUNT");
	g_ptr_array_add(add, restarts_text);
	for (guint i = 0; i + 1 < add->len; i += 2)
		g_hash_table_add(set, g_ptr_array_index(add, i));
	for (char **p = base; p != NULL && *p != NULL; p++) {
		const char *eq = strchr(*p, '=');
		char *name = eq != NULL ? g_strndup(*p, (gsize)(eq - *p)) : NULL;

		if (name == NULL || !g_hash_table_contains(set, name))
			g_ptr_array_add(env, g_strdup(*p));
		g_free(name);
	}
	for (guint i = 0; i + 1 < add->len; i += 2)
		g_ptr_array_add(env, g_strdup_printf("%s=%s", (char *)g_ptr_array_index(add, i),
						     (char *)g_ptr_array_index(add, i + 1)));
	g_ptr_array_add(env, NULL);
	g_ptr_array_unref(add);
	g_hash_table_unref(set);
	return (char **)g_ptr_array_free(env, FALSE);
}

GPtrArray *cli_generation_vars(const cr_result *res, const char *const *formats,
			       const cli_elastic_opts *o, int *rc)
{
	GPtrArray *pairs = g_ptr_array_new_with_free_func(g_free);
	bool torchrun = false;
	char port[16];

	/* An explicit --master-port wins; else this membership's port. */
	snprintf(port, sizeof(port), "%u", gen_port(res));
	*rc = cli_exec_env(res, formats, cli_fmt.master_port == NULL ? port : NULL, pairs);
	if (*rc != CLI_OK) {
		g_ptr_array_unref(pairs);
		return NULL;
	}
	for (size_t f = 0; formats[f] != NULL; f++)
		torchrun = torchrun || strcmp(formats[f], "torchrun") == 0;
	for (guint i = 0; torchrun && i + 1 < pairs->len; i += 2) {
		char **value = (char **)&pairs->pdata[i + 1];
		long long nodes = strtoll(*value, NULL, 10);
		long long max = o->max_tasks > 0 ? o->max_tasks : nodes;

		if (strcmp(g_ptr_array_index(pairs, i), "PET_NNODES") != 0)
			continue;
		/* torchrun's own agent and ours agree on the range. */
		if (max < o->min_tasks)
			max = o->min_tasks;
		g_free(*value);
		*value = g_strdup_printf("%lld:%lld", (long long)o->min_tasks, max);
	}
	if (torchrun) {
		g_ptr_array_add(pairs, g_strdup("PET_MAX_RESTARTS"));
		g_ptr_array_add(pairs, g_strdup_printf("%lld", (long long)o->max_restarts));
	}
	g_ptr_array_add(pairs, g_strdup("CR_GENERATION_ID"));
	g_ptr_array_add(pairs, g_strdup(cr_result_generation_id(res)));
	g_ptr_array_add(pairs, g_strdup("CR_JOIN_TIMEOUT"));
	g_ptr_array_add(pairs, g_strdup_printf("%g", o->join_timeout));
	return pairs;
}

bool cli_generation_writable(const cr_result *res, const char *const *formats,
			     const cli_elastic_opts *o, int *rc)
{
	size_t n = cli_result_tasks(res);
	GPtrArray *pairs;

	if (n < (size_t)o->min_tasks || (o->max_tasks > 0 && n > (size_t)o->max_tasks))
		return true;
	pairs = cli_generation_vars(res, formats, o, rc);
	if (pairs != NULL)
		g_ptr_array_unref(pairs);
	return pairs != NULL;
}
