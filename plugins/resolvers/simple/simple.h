/* SPDX-License-Identifier: MIT */
/*
 * simple.h - what simple.c (the cluster written in the config) and
 * simple-hosts.c (hosts_file and the watch op) share. Private to the plugin.
 */
#ifndef CR_SIMPLE_H
#define CR_SIMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

/* "%s:%d" arguments naming where config value @v was written. */
#define AT(v) cr_host->cfg_file(v), cr_host->cfg_line(v)

typedef struct simple_task {
	char *job;
	int64_t index; /* -1: append (dense) */
	char *address; /* NULL: only declares the job */
} simple_task;

typedef struct simple_state {
	simple_task *tasks;
	size_t ntasks, cap;
	const cr_cfg *accel;   /* num_accelerators group, borrowed until destroy */
	cr_json *cluster_json; /* the parsed cluster_json option, or NULL */
	char json_what[512];   /* "FILE:LINE: cluster_json", for messages */
	const cr_cfg *group;   /* the config group, borrowed until destroy */
	char *hosts_file;      /* the hosts_file option made absolute, or NULL */
	char *hosts_seen;      /* the bytes the last resolve read from it, or NULL */
	size_t hosts_seen_len;
	bool hosts_missing; /* the last resolve found no file */
} simple_state;

/* The hosts_file option @v made absolute (a relative path is taken from the
 * config file's directory) into s->hosts_file; errors name FILE:LINE. */
cr_status simple_hosts_path(simple_state *s, const cr_cfg *v, cr_error *err);
/* Read s->hosts_file into @b ("job address" a line). */
cr_status simple_hosts_resolve(simple_state *s, cr_plugin_ctx *ctx, cr_result_builder *b,
			       cr_error *err);
/* The ABI 1.2 watch op. */
cr_status simple_watch(void *state, cr_plugin_ctx *ctx, int64_t deadline_ms, bool *changed,
		       cr_error *err);

#endif /* CR_SIMPLE_H */
