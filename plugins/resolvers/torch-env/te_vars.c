/* SPDX-License-Identifier: MIT */
/*
 * te_vars.c - the launchers' variables read and checked: a missing one, a
 * value that is not a number, a rank not below its size are each an error
 * naming the variables, never a guess.
 */
#include <stdlib.h>
#include <string.h>

#include "torch_env.h"

bool te_has(cr_plugin_ctx *ctx, const char *name)
{
	const char *v = cr_host->getenv(ctx, name);

	return v != NULL && *v != '\0';
}

cr_status te_str(cr_plugin_ctx *ctx, const char *src, const char *name, const char **out,
		 cr_error *err)
{
	*out = cr_host->getenv(ctx, name);
	if (*out == NULL || **out == '\0')
		return cr_host->error_set(err, CR_ERR_NOT_FOUND, "%s sets %s, but %s is not set",
					  src, name, name);
	return CR_OK;
}

cr_status te_int(cr_plugin_ctx *ctx, const char *src, const char *name, int64_t min, int64_t *out,
		 cr_error *err)
{
	const char *v = NULL;
	char *end = NULL;
	cr_status st = te_str(ctx, src, name, &v, err);
	long long n;

	if (st != CR_OK)
		return st;
	n = strlen(v) <= 10 && v[0] >= '0' && v[0] <= '9' ? strtoll(v, &end, 10) : -1;
	if (end == NULL || *end != '\0' || n < min || n > 2147483648LL)
		return cr_host->error_set(err, CR_ERR_PARSE, "%s: %s='%.40s' is not %s integer",
					  src, name, v, min > 0 ? "a positive" : "a non-negative");
	*out = n;
	return CR_OK;
}

cr_status te_below(const char *src, const char *rank_name, int64_t r, const char *size_name,
		   int64_t s, cr_error *err)
{
	if (r < s)
		return CR_OK;
	return cr_host->error_set(err, CR_ERR_PARSE, "%s: %s=%lld is not below %s=%lld", src,
				  rank_name, (long long)r, size_name, (long long)s);
}

cr_status te_not_over(const char *src, const char *part_name, int64_t part, const char *whole_name,
		      int64_t whole, cr_error *err)
{
	if (part <= whole)
		return CR_OK;
	return cr_host->error_set(err, CR_ERR_PARSE, "%s: %s=%lld is more than %s=%lld", src,
				  part_name, (long long)part, whole_name, (long long)whole);
}
