/* SPDX-License-Identifier: MIT */
/*
 * hostlist.h - Slurm-style host lists ("rack[1-2]-n[01-02],gpu7") and
 * tasks-per-node lists ("3(x2),1"), implemented once in the core. Plugins
 * reach the same code through host->hostlist_expand / hostlist_compress.
 */
#ifndef CLUSTER_RESOLVER_HOSTLIST_H
#define CLUSTER_RESOLVER_HOSTLIST_H

#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/common.h>
#include <cluster-resolver/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cr_hostlist_expand:
 * @expr: a hostlist expression (Slurm grammar, see cluster-resolver(1)).
 * @hosts: (out) (transfer full) NULL-terminated names in order, duplicates
 *         kept; free with cr_strv_free().
 * @count: (out) (nullable) number of names.
 * Returns: CR_OK, CR_ERR_PARSE ('invalid hostlist "EXPR": why at position N').
 * Since: ABI 1.0
 */
CR_API cr_status cr_hostlist_expand(const char *expr, char ***hosts, size_t *count, cr_error *err);

/**
 * cr_hostlist_foreach:
 * @expr: a hostlist expression, as for cr_hostlist_expand().
 * @fn: called once per name, in order.
 * @user_data: (nullable) passed to @fn.
 * Call @fn for each name of @expr, in order, without keeping them: the
 * memory used does not grow with the number of names. The whole expression
 * is checked first, so on an error @fn was never called. The names, their
 * order and the errors are those of cr_hostlist_expand().
 * Returns: CR_OK (also when @fn stopped the walk), CR_ERR_PARSE,
 * CR_ERR_INVALID_ARG (NULL @expr or @fn).
 * Since: ABI 1.0
 */
CR_API cr_status cr_hostlist_foreach(const char *expr, cr_hostlist_fn fn, void *user_data,
				     cr_error *err);

/**
 * cr_hostlist_compress:
 * Compress @count names into one expression, keeping their order (runs of
 * consecutive numbers with the same prefix, suffix and width are merged).
 * @expr: (out) (transfer full) free with cr_free().
 * Returns: CR_OK, CR_ERR_INVALID_ARG. Since: ABI 1.0
 */
CR_API cr_status cr_hostlist_compress(const char *const *hosts, size_t count, char **expr,
				      cr_error *err);

/**
 * cr_tasks_per_node_expand:
 * Expand "3(x2),2,1" into {3, 3, 2, 1}.
 * @counts: (out) (transfer full) free with cr_free().
 * Returns: CR_OK, CR_ERR_PARSE quoting the list and position. Since: ABI 1.0
 */
CR_API cr_status cr_tasks_per_node_expand(const char *list, uint32_t **counts, size_t *n,
					  cr_error *err);

#ifdef __cplusplus
}
#endif

#endif /* CLUSTER_RESOLVER_HOSTLIST_H */
