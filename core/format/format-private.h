/* SPDX-License-Identifier: MIT */
/*
 * format-private.h - the format layer of the core: a result written as what
 * a program reads. format-json.c (TF_CONFIG, the JSON record, ClusterDef,
 * accelerator counts) is its lowest file, format-frameworks.c (the other
 * launchers' variables, and the world they share) builds on it,
 * format-hostfiles.c (host lists) on that, format.c names them all
 * (cr_result_format), and explain.c tells one resolution. Builds on the pipeline layer.
 * Never installed; plugins never include it.
 */
#ifndef CR_FORMAT_PRIVATE_H
#define CR_FORMAT_PRIVATE_H

#include <glib.h>

#include <cluster-resolver/cluster-resolver.h>

#include "pipeline/pipeline-private.h"
#include "values/format-options.h"

/* A format: write @r to @out, with @options ("key=value", NULL-ended;
 * nullable). */
typedef cr_status (*format_fn)(const cr_result *r, const char *const *options, GString *out,
			       cr_error *err);

/* ---- format-json.c ------------------------------------------------------- */
/* CR_OK when @r knows every task's address; else CR_ERR_BACKEND, one line
 * naming @format, the resolver and launcher that declared the job and what
 * it did not give, and the formats that work. */
cr_status format_need_addresses(const cr_result *r, const char *format, cr_error *err);
cr_status fmt_tf_config(const cr_result *r, const char *const *options, GString *out,
			cr_error *err);
cr_status fmt_json(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_clusterdef(const cr_result *r, const char *const *options, GString *out,
			 cr_error *err);
/* @counts (kind -> count; NULL: none) as a JSON object, kinds in order. */
void format_write_counts(GString *out, GHashTable *counts);

/* ---- format-frameworks.c ------------------------------------------------- */
/* The world of the framework formats: the tasks of the `jobs` option in
 * rank order, their hosts (nodes) in order of first appearance. */
typedef struct fw_task {
	const char *job; /* borrowed from the spec */
	int32_t index;
	const char *address; /* borrowed from the spec; NULL: unknown */
	char *host;          /* NULL when the address is unknown */
	const char *port;    /* inside address, NULL when there is none */
	guint node;          /* index into world->hosts */
} fw_task;

typedef struct fw_world {
	const char *format;
	char *jobs_text;  /* "chief, master, worker", for messages */
	GArray *tasks;    /* fw_task, in rank order */
	GPtrArray *hosts; /* const char *, borrowed from tasks, node order */
	GArray *slots;    /* guint per host: world tasks on it */
	gssize self;      /* this process's rank, -1 when not in the world */
	guint unknown;    /* tasks whose address is unknown (no host, no node) */
} fw_world;

/* Build @r's world for @format under options @o; *@out is fw_world_free()'s. */
cr_status fw_world_build(const cr_result *r, const char *format, const fw_opts *o, fw_world **out,
			 cr_error *err);
void fw_world_free(fw_world *w);
/* @host without the brackets of an IPv6 literal ("[::1]" -> "::1"). */
char *fw_bare_host(const char *host);

cr_status fmt_env(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_torch(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_torchrun(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_jax(const cr_result *r, const char *const *options, GString *out, cr_error *err);
/* ---- format-hostfiles.c -------------------------------------------------- */
cr_status fmt_hostfile(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_horovod(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_hosts(const cr_result *r, const char *const *options, GString *out, cr_error *err);

#endif /* CR_FORMAT_PRIVATE_H */
