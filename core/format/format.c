/* SPDX-License-Identifier: MIT */
/*
 * format.c - turning a result into what a framework reads: TF_CONFIG JSON,
 * the full JSON record, a binary ClusterDef. Each format is one function in
 * the table at the end.
 */
#include <string.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"
#include "format/format-private.h"

typedef cr_status (*format_fn)(const cr_result *r, const char *const *options, GString *out,
			       cr_error *err);

static bool has_identity(const cr_result *r)
{
	return r->task_type != NULL && r->task_id >= 0;
}

/* {"cluster": ..., "task": ..., "rpc_layer": ..., "environment": ...} without
 * the closing brace, so `json` can extend it. */
static void write_tf_config_body(const cr_result *r, GString *out)
{
	g_string_append(out, "{\"cluster\": ");
	spec_write_json(out, r->spec);
	if (has_identity(r)) {
		g_string_append(out, ", \"task\": {\"type\": ");
		jw_string(out, r->task_type);
		g_string_append_printf(out, ", \"index\": %" G_GINT64_FORMAT "}", r->task_id);
	}
	if (r->rpc_layer != NULL && *r->rpc_layer != '\0') {
		g_string_append(out, ", \"rpc_layer\": ");
		jw_string(out, r->rpc_layer);
	}
	if (r->environment != NULL && *r->environment != '\0') {
		g_string_append(out, ", \"environment\": ");
		jw_string(out, r->environment);
	}
}

static cr_status fmt_tf_config(const cr_result *r, const char *const *options, GString *out,
			       cr_error *err)
{
	write_tf_config_body(r, out);
	g_string_append(out, "}\n");
	return CR_OK;
}

static cr_status fmt_json(const cr_result *r, const char *const *options, GString *out,
			  cr_error *err)
{
	char *master = NULL;

	write_tf_config_body(r, out);
	/* The `master` command's answer, for the same (effective) rpc layer;
	 * an unknown task gives "" here too. */
	if (cr_result_master(r, NULL, -1, NULL, &master, NULL) != CR_OK && master == NULL)
		master = g_strdup("");
	g_string_append(out, ", \"master\": ");
	jw_string(out, master);
	g_free(master);
	g_string_append(out, ", \"num_accelerators\": ");
	write_counts(out, r->accel);
	g_string_append(out, "}\n");
	return CR_OK;
}

static cr_status fmt_clusterdef(const cr_result *r, const char *const *options, GString *out,
				cr_error *err)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	cr_status st = cr_spec_to_clusterdef(r->spec, &buf, &len, err);

	if (st == CR_OK)
		g_string_append_len(out, (const char *)buf, (gssize)len);
	g_free(buf);
	return st;
}

static const struct {
	const char *name;
	format_fn fn;
} formats[] = {
	{ "tf_config", fmt_tf_config },
	{ "json", fmt_json },
	{ "clusterdef", fmt_clusterdef },
	{ "env", fmt_env },
	{ "torch", fmt_torch },
	{ "torchrun", fmt_torchrun },
	{ "jax", fmt_jax },
	{ "hostfile", fmt_hostfile },
	{ "horovod", fmt_horovod },
	{ "hosts", fmt_hosts },
};

cr_status cr_result_format(const cr_result *r, const char *format, const char *const *options,
			   char **out, size_t *len, cr_error *err)
{
	GString *text;
	cr_status st;

	if (r == NULL || format == NULL || out == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_result_format: NULL argument");
	*out = NULL;
	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
		if (strcmp(formats[i].name, format) != 0)
			continue;
		text = g_string_new(NULL);
		st = formats[i].fn(r, options, text, err);
		if (st != CR_OK) {
			g_string_free(text, TRUE);
			return st;
		}
		if (len != NULL)
			*len = text->len;
		*out = g_string_free(text, FALSE);
		return CR_OK;
	}
	GString *names = g_string_new(NULL);

	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++)
		g_string_append_printf(names, "%s%s", i ? ", " : "", formats[i].name);
	st = error_set(err, CR_ERR_INVALID_ARG, "unknown format '%s' (known: %s)", format,
		       names->str);
	g_string_free(names, TRUE);
	return st;
}
