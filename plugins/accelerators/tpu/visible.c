/* SPDX-License-Identifier: MIT */
/*
 * visible.c - the TPU chips one process may use.
 *
 * libtpu reads two variables when several processes share a host:
 *   TPU_VISIBLE_CHIPS="0,1"               the chip indices of this process
 *   TPU_CHIPS_PER_PROCESS_BOUNDS="1,2,1"  the shape of its chip block
 * (with TPU_PROCESS_BOUNDS describing the process grid, not used here).
 * When both are set they must agree: as many visible chips as the product
 * of the bounds. Bounds alone take the first chips of the host. An index
 * outside the host, a repeated index or a malformed value is an error; ""
 * means no chip. Chips keep host order.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpu.h"

#define VIS_CHIPS "TPU_VISIBLE_CHIPS"
#define VIS_BOUNDS "TPU_CHIPS_PER_PROCESS_BOUNDS"

/* Parse one decimal number at *@p (after blanks); advances *@p. */
static bool vis_number(const char **p, long *out)
{
	char *end;

	while (**p == ' ')
		(*p)++;
	if (!isdigit((unsigned char)**p))
		return false;
	*out = strtol(*p, &end, 10);
	*p = end;
	while (**p == ' ')
		(*p)++;
	return *out <= 100000;
}

/* The product of the bounds "x,y,z" (1 to 3 positive factors). */
static cr_status vis_bounds(const char *value, long *product, cr_error *err)
{
	const char *p = value;
	long v;
	int factors = 0;

	*product = 1;
	for (;;) {
		if (!vis_number(&p, &v) || v == 0 || ++factors > 3)
			goto bad;
		*product *= v;
		if (*p == '\0')
			return CR_OK;
		if (*p++ != ',')
			goto bad;
	}
bad:
	return cr_host->error_set(err, CR_ERR_PARSE,
				  VIS_BOUNDS "='%s': expected up to three positive integers "
					     "such as '2,2,1'",
				  value);
}

/* Mark the chips TPU_VISIBLE_CHIPS lists in @on; counts them in *@n. */
static cr_status vis_chips(const char *value, size_t nchips, bool *on, size_t *n, cr_error *err)
{
	const char *p = value;
	long v;

	*n = 0;
	while (*p == ' ')
		p++;
	if (*p == '\0')
		return CR_OK;
	for (;;) {
		if (!vis_number(&p, &v) || (*p != ',' && *p != '\0'))
			return cr_host->error_set(
				err, CR_ERR_PARSE,
				VIS_CHIPS "='%s': expected chip indices such as '0,1'", value);
		if ((size_t)v >= nchips)
			return cr_host->error_set(err, CR_ERR_CONFLICT,
						  VIS_CHIPS
						  "='%s': chip %ld does not exist (this host "
						  "has %zu TPU chips)",
						  value, v, nchips);
		if (on[v])
			return cr_host->error_set(err, CR_ERR_PARSE,
						  VIS_CHIPS "='%s': chip %ld is listed twice",
						  value, v);
		on[v] = true;
		(*n)++;
		if (*p++ == '\0')
			return CR_OK;
	}
}

/* Which chips are on, and which variable decided it. */
static cr_status vis_select(cr_plugin_ctx *ctx, size_t nchips, bool *on, const char **by,
			    cr_error *err)
{
	const char *chips = cr_host->getenv(ctx, VIS_CHIPS);
	const char *bounds = cr_host->getenv(ctx, VIS_BOUNDS);
	long product = 0;
	size_t n = 0, i;
	cr_status st;

	*by = NULL;
	if (bounds != NULL && bounds[0] != '\0') {
		st = vis_bounds(bounds, &product, err);
		if (st != CR_OK)
			return st;
	} else {
		bounds = NULL;
	}
	if (chips != NULL) {
		*by = VIS_CHIPS;
		st = vis_chips(chips, nchips, on, &n, err);
		if (st != CR_OK)
			return st;
		if (bounds != NULL && (size_t)product != n)
			return cr_host->error_set(err, CR_ERR_CONFLICT,
						  VIS_CHIPS "='%s' lists %zu chips but " VIS_BOUNDS
							    "='%s' asks for %ld",
						  chips, n, bounds, product);
		return CR_OK;
	}
	if (bounds == NULL) {
		for (i = 0; i < nchips; i++)
			on[i] = true;
		return CR_OK;
	}
	if ((size_t)product > nchips)
		return cr_host->error_set(err, CR_ERR_CONFLICT,
					  VIS_BOUNDS "='%s' asks for %ld chips, this host has %zu",
					  bounds, product, nchips);
	*by = VIS_BOUNDS;
	for (i = 0; i < (size_t)product; i++)
		on[i] = true;
	return CR_OK;
}

/**
 * tpu_visible_apply: the chips this process may use, in host order.
 * @picks: (out) (transfer full) free() it; @count: its length.
 * Returns: CR_OK, CR_ERR_PARSE for a malformed variable, CR_ERR_CONFLICT
 * when a variable names chips the host lacks or the two disagree.
 */
cr_status tpu_visible_apply(cr_plugin_ctx *ctx, const struct tpu_chips *chips,
			    struct tpu_pick **picks, size_t *count, cr_error *err)
{
	bool *on = calloc(chips->n + 1, sizeof(bool));
	const char *by = NULL;
	cr_status st;
	size_t i;

	*count = 0;
	*picks = calloc(chips->n + 1, sizeof(**picks));
	if (on == NULL || *picks == NULL) {
		st = cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = vis_select(ctx, chips->n, on, &by, err);
	if (st != CR_OK)
		goto out;
	for (i = 0; i < chips->n; i++) {
		if (!on[i])
			continue;
		(*picks)[*count].chip = i;
		(*picks)[(*count)++].visible_by = by;
	}
out:
	free(on);
	if (st != CR_OK) {
		free(*picks);
		*picks = NULL;
		*count = 0;
	}
	return st;
}
