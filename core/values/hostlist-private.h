/* SPDX-License-Identifier: MIT */
/*
 * hostlist-private.h - limits of the hostlist parsers, shared by the core,
 * its tests and the fuzz targets. Not installed.
 */
#ifndef CR_HOSTLIST_PRIVATE_H
#define CR_HOSTLIST_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/hostlist.h>

/* The most names one expression may expand to (and the most entries of a
 * tasks-per-node list). Far above any real cluster, low enough that a typo
 * such as n[1-9999999999] fails at once instead of exhausting memory. */
#define CR_HOSTLIST_MAX_HOSTS ((size_t)1 << 24)

/* The most digits of one number in a bracket (values stay below 10^18). */
#define CR_HOSTLIST_MAX_DIGITS 18

/**
 * hostlist_expand_limit: (private: not exported, no cr_ prefix)
 * cr_hostlist_expand() with a caller-chosen ceiling on the number of names
 * (the fuzz targets use a small one). Same ownership and statuses.
 */
cr_status hostlist_expand_limit(const char *expr, size_t max_hosts, char ***hosts, size_t *count,
				cr_error *err);

/**
 * hostlist_foreach_limit:
 * cr_hostlist_foreach() with a caller-chosen ceiling on the number of names.
 */
cr_status hostlist_foreach_limit(const char *expr, size_t max_hosts, cr_hostlist_fn fn,
				 void *user_data, cr_error *err);

/**
 * tasks_per_node_expand_limit:
 * cr_tasks_per_node_expand() with a caller-chosen ceiling on the entries.
 */
cr_status tasks_per_node_expand_limit(const char *list, size_t max_entries, uint32_t **counts,
				      size_t *n, cr_error *err);

/* A range of a bracket group, values zero-padded to @width. */
typedef struct hl_range {
	uint64_t lo;
	uint64_t hi;
	int width;
} hl_range;

/* A parse in progress, for messages that quote the input and a position. */
typedef struct hl_parser {
	const char *what; /* "hostlist", "tasks-per-node list" */
	const char *expr;
	size_t pos;
	cr_error *err;
} hl_parser;

/* Record 'invalid WHAT "EXPR": WHY at position POS' (1-based; 0: none)
 * in p->err. Returns CR_ERR_PARSE. */
cr_status hl_fail(hl_parser *p, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "'x'", "byte 0xNN" or "end of input" for @c, in @buf when formatted. */
const char *hl_describe(char c, char *buf, size_t bufsz);

/* Shared by the parsers and the compressor (hostlist*.c, tasks-per-node.c). */
struct _GString;
bool hl_is_blank(char c);
bool hl_is_digit(char c);
void hl_append_number(struct _GString *s, uint64_t v, int width);

#endif /* CR_HOSTLIST_PRIVATE_H */
