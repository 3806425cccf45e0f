/* SPDX-License-Identifier: MIT */
/*
 * tasks-per-node.c - Slurm's tasks-per-node lists: "3(x2),2,1" -> 3 3 2 1
 * (SLURM_TASKS_PER_NODE, SLURM_STEP_TASKS_PER_NODE), with the hostlist
 * parser's positioned errors.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "values/values-private.h"
#include "values/hostlist-private.h"

/* Read an unsigned 32-bit decimal number at p->pos. */
static cr_status tpn_number(hl_parser *p, uint32_t *out)
{
	const char *s = p->expr + p->pos;
	char buf[16];
	uint64_t v = 0;
	size_t n = 0;

	if (!hl_is_digit(s[0]))
		return hl_fail(p, p->pos + 1, "expected a digit, found %s",
			       hl_describe(s[0], buf, sizeof(buf)));
	while (hl_is_digit(s[n])) {
		v = v * 10 + (uint64_t)(s[n] - '0');
		if (v > UINT32_MAX)
			return hl_fail(p, p->pos + 1, "number larger than %" PRIu32, UINT32_MAX);
		n++;
	}
	p->pos += n;
	*out = (uint32_t)v;
	return CR_OK;
}

/* Parse one "N" or "N(xR)" item. */
static cr_status tpn_item(hl_parser *p, uint32_t *value, uint32_t *repeat)
{
	char buf[16];
	cr_status st;

	st = tpn_number(p, value);
	if (st != CR_OK)
		return st;
	*repeat = 1;
	if (p->expr[p->pos] != '(')
		return CR_OK;
	p->pos++;
	if (p->expr[p->pos] != 'x')
		return hl_fail(p, p->pos + 1, "expected 'x', found %s",
			       hl_describe(p->expr[p->pos], buf, sizeof(buf)));
	p->pos++;
	st = tpn_number(p, repeat);
	if (st != CR_OK)
		return st;
	if (p->expr[p->pos] != ')')
		return hl_fail(p, p->pos + 1, "expected ')', found %s",
			       hl_describe(p->expr[p->pos], buf, sizeof(buf)));
	p->pos++;
	return CR_OK;
}

static cr_status tpn_parse(hl_parser *p, size_t max, GArray *out)
{
	char buf[16];

	if (p->expr[0] == '\0')
		return hl_fail(p, 0, "empty list");
	for (;;) {
		uint32_t value, repeat;
		cr_status st;

		st = tpn_item(p, &value, &repeat);
		if (st != CR_OK)
			return st;
		if (repeat > max - out->len)
			return hl_fail(p, 0, "more than %zu entries", max);
		for (uint32_t i = 0; i < repeat; i++)
			g_array_append_val(out, value);
		if (p->expr[p->pos] == '\0')
			return CR_OK;
		if (p->expr[p->pos] != ',')
			return hl_fail(p, p->pos + 1, "expected ',', found %s",
				       hl_describe(p->expr[p->pos], buf, sizeof(buf)));
		if (p->expr[p->pos + 1] == '\0')
			return hl_fail(p, p->pos + 1, "trailing ','");
		p->pos++;
	}
}

cr_status tasks_per_node_expand_limit(const char *list, size_t max_entries, uint32_t **counts,
				      size_t *n, cr_error *err)
{
	hl_parser p = { "tasks-per-node list", list, 0, err };
	GArray *out;
	cr_status st;

	if (counts == NULL || n == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "tasks-per-node: NULL output");
	*counts = NULL;
	*n = 0;
	if (list == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "tasks-per-node: NULL list");
	out = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	st = tpn_parse(&p, max_entries, out);
	if (st != CR_OK) {
		g_array_free(out, TRUE);
		return st;
	}
	*n = out->len;
	*counts = (uint32_t *)(void *)g_array_free(out, FALSE);
	return CR_OK;
}

cr_status cr_tasks_per_node_expand(const char *list, uint32_t **counts, size_t *n, cr_error *err)
{
	return tasks_per_node_expand_limit(list, CR_HOSTLIST_MAX_HOSTS, counts, n, err);
}
