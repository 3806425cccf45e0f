/* SPDX-License-Identifier: MIT */
/*
 * flux_r.c - a Flux job's resource set R (RFC 20 version 1):
 *
 *   {"version": 1, "execution": {"R_lite": [{"rank": "19-22",
 *     "children": {"core": "0-47", "gpu": "0-7"}}], "nodelist":
 *     ["node[186-189]"], ...}}
 *
 * R_lite's "rank" and "core" are RFC 22 idsets ("0-3,7", optionally in
 * brackets); "nodelist" is an array of hosts or RFC 29 hostlists whose
 * names, concatenated, are the hosts of the sorted execution targets. An R
 * written before the nodelist key (rfc commit 573042d, 2020) named each
 * R_lite entry's host in its "node" key instead.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "flux.h"

/* One execution target of an old R: its rank and its entry's node name. */
typedef struct flux_rank_host {
	uint64_t rank;
	const char *host;
} flux_rank_host;

typedef void (*flux_id_fn)(uint64_t id, void *user_data);

/* Walk RFC 22 idset @s, calling @fn (nullable) for each id; *@count ids.
 * false when @s is no idset or holds more than FLUX_R_HOSTS_MAX ids (when
 * @fn is given: it then keeps them). */
static bool flux_idset(const char *s, flux_id_fn fn, void *user_data, uint64_t *count)
{
	size_t len = strlen(s);
	const char *p = s, *end = s + len;

	*count = 0;
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
		p++;
		end--;
	}
	while (p < end) {
		uint64_t lo = 0, hi;
		const char *q = p;

		for (; q < end && *q >= '0' && *q <= '9' && lo <= UINT32_MAX; q++)
			lo = lo * 10 + (uint64_t)(*q - '0');
		if (q == p || lo > UINT32_MAX)
			return false;
		hi = lo;
		if (q < end && *q == '-') {
			const char *d = ++q;

			for (hi = 0; q < end && *q >= '0' && *q <= '9' && hi <= UINT32_MAX; q++)
				hi = hi * 10 + (uint64_t)(*q - '0');
			if (q == d || hi > UINT32_MAX || hi < lo)
				return false;
		}
		if (q < end && *q != ',')
			return false;
		*count += hi - lo + 1;
		if (fn != NULL && *count > FLUX_R_HOSTS_MAX)
			return false;
		for (uint64_t id = lo; fn != NULL && id <= hi; id++)
			fn(id, user_data);
		p = q < end ? q + 1 : q;
	}
	return true;
}

static int flux_add_host(const char *name, size_t len, void *user_data)
{
	GPtrArray *hosts = user_data;

	if (hosts->len >= FLUX_R_HOSTS_MAX)
		return 1;
	g_ptr_array_add(hosts, g_strndup(name, len));
	return 0;
}

/* execution.nodelist: each entry a host or an RFC 29 hostlist. */
static cr_status flux_nodelist(const cr_json *list, const char *what, GPtrArray *hosts,
			       cr_error *err)
{
	for (size_t i = 0; i < cr_host->json_length(list); i++) {
		const char *expr = cr_host->json_string(cr_host->json_index(list, i));
		cr_status st;

		if (expr == NULL)
			return cr_host->error_set(err, CR_ERR_PARSE,
						  "%s: execution.nodelist[%zu] is not a string",
						  what, i);
		st = cr_host->hostlist_foreach(expr, flux_add_host, hosts, err);
		if (st != CR_OK) {
			char why[CR_ERROR_MSG_MAX];

			g_strlcpy(why, err->message, sizeof(why));
			return cr_host->error_set(err, st, "%s: execution.nodelist[%zu]: %s", what,
						  i, why);
		}
		if (hosts->len >= FLUX_R_HOSTS_MAX)
			return cr_host->error_set(err, CR_ERR_PARSE,
						  "%s: execution.nodelist names more than %u hosts",
						  what, FLUX_R_HOSTS_MAX);
	}
	return CR_OK;
}

typedef struct flux_old {
	GArray *pairs; /* flux_rank_host */
	const char *host;
} flux_old;

static void flux_old_add(uint64_t id, void *user_data)
{
	flux_old *o = user_data;
	flux_rank_host rh = { id, o->host };

	g_array_append_val(o->pairs, rh);
}

static int flux_cmp_rank(const void *a, const void *b)
{
	const flux_rank_host *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* R_lite: its execution targets and whether their core counts differ;
 * with @old (an R without nodelist) each target's "node" too. */
static cr_status flux_r_lite(const cr_json *lite, const char *what, flux_r *r, flux_old *old,
			     uint64_t *targets, cr_error *err)
{
	uint64_t cores0 = 0;

	*targets = 0;
	for (size_t i = 0; i < cr_host->json_length(lite); i++) {
		const cr_json *e = cr_host->json_index(lite, i);
		const char *rank = cr_host->json_string(cr_host->json_get(e, "/rank"));
		const char *core = cr_host->json_string(cr_host->json_get(e, "/children/core"));
		uint64_t nranks = 0, ncores = 0;

		if (old != NULL) {
			old->host = cr_host->json_string(cr_host->json_get(e, "/node"));
			if (old->host == NULL || *old->host == '\0')
				return cr_host->error_set(
					err, CR_ERR_PARSE,
					"%s: no execution.nodelist, and R_lite[%zu] names no "
					"\"node\": the hosts are unknown",
					what, i);
		}
		if (rank == NULL || !flux_idset(rank, old ? flux_old_add : NULL, old, &nranks))
			return cr_host->error_set(err, CR_ERR_PARSE,
						  "%s: R_lite[%zu].rank is not an RFC 22 idset",
						  what, i);
		if (core == NULL || !flux_idset(core, NULL, NULL, &ncores))
			return cr_host->error_set(
				err, CR_ERR_PARSE,
				"%s: R_lite[%zu].children.core is not an RFC 22 idset", what, i);
		if (i > 0 && ncores != cores0)
			r->cores_differ = true;
		cores0 = ncores;
		*targets += nranks;
	}
	return CR_OK;
}

static cr_status flux_r_exec(const cr_json *exec, const char *what, flux_r *r, GPtrArray *hosts,
			     cr_error *err)
{
	const cr_json *lite = cr_host->json_get(exec, "/R_lite");
	const cr_json *list = cr_host->json_get(exec, "/nodelist");
	flux_old old = { NULL, NULL };
	uint64_t targets = 0;
	cr_status st;

	if (lite == NULL || cr_host->json_type(lite) != CR_JSON_ARRAY)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: execution.R_lite is not an array (RFC 20)", what);
	if (list != NULL && cr_host->json_type(list) != CR_JSON_ARRAY)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: execution.nodelist is not an array (RFC 20)", what);
	if (list == NULL)
		old.pairs = g_array_new(FALSE, FALSE, sizeof(flux_rank_host));
	st = flux_r_lite(lite, what, r, list ? NULL : &old, &targets, err);
	if (st == CR_OK && list != NULL)
		st = flux_nodelist(list, what, hosts, err);
	if (st == CR_OK && list == NULL) {
		g_array_sort(old.pairs, flux_cmp_rank);
		for (guint i = 0; i < old.pairs->len; i++)
			g_ptr_array_add(hosts,
					g_strdup(g_array_index(old.pairs, flux_rank_host, i).host));
	}
	if (old.pairs != NULL)
		g_array_free(old.pairs, TRUE);
	if (st == CR_OK && targets != hosts->len)
		st = cr_host->error_set(err, CR_ERR_PARSE,
					"%s: execution.nodelist names %u hosts, but R_lite has "
					"%llu execution targets",
					what, hosts->len, (unsigned long long)targets);
	return st;
}

cr_status flux_r_parse(const char *text, size_t len, const char *what, flux_r *r, cr_error *err)
{
	GPtrArray *hosts = g_ptr_array_new_with_free_func(g_free);
	const cr_json *exec;
	cr_json *root = NULL;
	int64_t version = 0;
	cr_status st;

	memset(r, 0, sizeof(*r));
	st = cr_host->json_parse(text, len, what, &root, err);
	if (st == CR_OK && !cr_host->json_int(cr_host->json_get(root, "/version"), &version))
		st = cr_host->error_set(err, CR_ERR_PARSE, "%s: no \"version\" (RFC 20's R)", what);
	else if (st == CR_OK && version != 1)
		st = cr_host->error_set(err, CR_ERR_PARSE,
					"%s: R version %lld, not 1 (the version RFC 20 defines)",
					what, (long long)version);
	if (st == CR_OK) {
		exec = cr_host->json_get(root, "/execution");
		st = exec != NULL && cr_host->json_type(exec) == CR_JSON_OBJECT
			     ? flux_r_exec(exec, what, r, hosts, err)
			     : cr_host->error_set(err, CR_ERR_PARSE,
						  "%s: no \"execution\" object (RFC 20)", what);
	}
	if (st == CR_OK && hosts->len == 0)
		st = cr_host->error_set(err, CR_ERR_PARSE, "%s: names no host", what);
	cr_host->json_free(root);
	if (st != CR_OK) {
		g_ptr_array_free(hosts, TRUE);
		return st;
	}
	r->n = hosts->len;
	g_ptr_array_add(hosts, NULL);
	r->host = (char **)g_ptr_array_free(hosts, FALSE);
	return CR_OK;
}

void flux_r_clear(flux_r *r)
{
	g_strfreev(r->host);
	memset(r, 0, sizeof(*r));
}
