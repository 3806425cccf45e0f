/* SPDX-License-Identifier: MIT */
/*
 * format-private.h - the format layer of the core: a result written as what
 * a program reads. format-json.c (TF_CONFIG, the JSON record, ClusterDef,
 * accelerator counts) is its lowest file, format-frameworks.c (the other
 * launchers) builds on it, format.c names them all (cr_result_format), and
 * explain.c tells one resolution. Builds on the pipeline layer.
 * Never installed; plugins never include it.
 */
#ifndef CR_FORMAT_PRIVATE_H
#define CR_FORMAT_PRIVATE_H

#include <glib.h>

#include <cluster-resolver/cluster-resolver.h>

#include "pipeline/pipeline-private.h"

/* A format: write @r to @out, with @options ("key=value", NULL-ended;
 * nullable). */
typedef cr_status (*format_fn)(const cr_result *r, const char *const *options, GString *out,
			       cr_error *err);

/* ---- format-json.c ------------------------------------------------------- */
cr_status fmt_tf_config(const cr_result *r, const char *const *options, GString *out,
			cr_error *err);
cr_status fmt_json(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_clusterdef(const cr_result *r, const char *const *options, GString *out,
			 cr_error *err);
/* @counts (kind -> count; NULL: none) as a JSON object, kinds in order. */
void format_write_counts(GString *out, GHashTable *counts);

/* ---- format-frameworks.c ------------------------------------------------- */
cr_status fmt_env(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_torch(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_torchrun(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_jax(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_hostfile(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_horovod(const cr_result *r, const char *const *options, GString *out, cr_error *err);
cr_status fmt_hosts(const cr_result *r, const char *const *options, GString *out, cr_error *err);

#endif /* CR_FORMAT_PRIVATE_H */
