/* SPDX-License-Identifier: MIT */
/*
 * slurm-tpn.c - Slurm's tasks-per-node lists: "N" or "N(xR)" items joined
 * by commas, as in SLURM_STEP_TASKS_PER_NODE="4(x2),1". The core has the
 * same grammar (cr_tasks_per_node_expand); the host table offers no slot for
 * it, so the plugin carries this copy and a fuzz target checks both agree.
 */
#include <stdio.h>
#include <stdlib.h>

#include "slurm.h"

typedef struct tpn_parser {
	const char *s;
	size_t pos;
	size_t *err_pos;
	char *why;
	size_t why_size;
} tpn_parser;

static int tpn_fail(tpn_parser *p, size_t pos, const char *what, char found)
{
	*p->err_pos = pos;
	if (found == '\0' && what != NULL)
		snprintf(p->why, p->why_size, "%s, found end of input", what);
	else if (what != NULL && (unsigned char)found >= 0x20 && (unsigned char)found < 0x7f)
		snprintf(p->why, p->why_size, "%s, found '%c'", what, found);
	else if (what != NULL)
		snprintf(p->why, p->why_size, "%s, found byte 0x%02x", what, (unsigned char)found);
	return -1;
}

static int tpn_number(tpn_parser *p, uint32_t *out)
{
	uint64_t v = 0;
	size_t start = p->pos;

	if (p->s[p->pos] < '0' || p->s[p->pos] > '9')
		return tpn_fail(p, p->pos + 1, "expected a digit", p->s[p->pos]);
	while (p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
		v = v * 10 + (uint64_t)(p->s[p->pos] - '0');
		if (v > UINT32_MAX) {
			*p->err_pos = start + 1;
			snprintf(p->why, p->why_size, "number larger than %u", UINT32_MAX);
			return -1;
		}
		p->pos++;
	}
	*out = (uint32_t)v;
	return 0;
}

static int tpn_item(tpn_parser *p, uint32_t *value, uint32_t *repeat)
{
	if (tpn_number(p, value) != 0)
		return -1;
	*repeat = 1;
	if (p->s[p->pos] != '(')
		return 0;
	p->pos++;
	if (p->s[p->pos] != 'x')
		return tpn_fail(p, p->pos + 1, "expected 'x'", p->s[p->pos]);
	p->pos++;
	if (tpn_number(p, repeat) != 0)
		return -1;
	if (p->s[p->pos] != ')')
		return tpn_fail(p, p->pos + 1, "expected ')'", p->s[p->pos]);
	p->pos++;
	return 0;
}

/* Append @repeat copies of @value to the growing array. */
static int tpn_push(uint32_t **arr, size_t *n, size_t *cap, uint32_t value, uint32_t repeat)
{
	if (*n + repeat > *cap) {
		size_t want = *cap ? *cap : 16;
		uint32_t *bigger;

		while (want < *n + repeat)
			want *= 2;
		bigger = realloc(*arr, want * sizeof(**arr));
		if (bigger == NULL)
			return -1;
		*arr = bigger;
		*cap = want;
	}
	for (uint32_t i = 0; i < repeat; i++)
		(*arr)[(*n)++] = value;
	return 0;
}

int slurm_tpn_parse(const char *list, size_t max, uint32_t **counts, size_t *n, size_t *pos,
		    char *why, size_t why_size)
{
	tpn_parser p = { list, 0, pos, why, why_size };
	uint32_t *arr = NULL;
	size_t len = 0, cap = 0;

	*counts = NULL;
	*n = 0;
	*pos = 0;
	if (list[0] == '\0') {
		snprintf(why, why_size, "empty list");
		return -1;
	}
	for (;;) {
		uint32_t value, repeat;

		if (tpn_item(&p, &value, &repeat) != 0)
			goto fail;
		if (repeat > max - len) {
			*pos = 0;
			snprintf(why, why_size, "more than %zu entries", max);
			goto fail;
		}
		if (tpn_push(&arr, &len, &cap, value, repeat) != 0) {
			snprintf(why, why_size, "out of memory");
			goto fail;
		}
		if (list[p.pos] == '\0')
			break;
		if (list[p.pos] != ',') {
			tpn_fail(&p, p.pos + 1, "expected ','", list[p.pos]);
			goto fail;
		}
		if (list[p.pos + 1] == '\0') {
			*pos = p.pos + 1;
			snprintf(why, why_size, "trailing ','");
			goto fail;
		}
		p.pos++;
	}
	*counts = arr;
	*n = len;
	return 0;
fail:
	free(arr);
	return -1;
}
