/* SPDX-License-Identifier: MIT */
/*
 * format.c - cr_result_format: a format's name to the function that writes
 * it (format-json.c: TensorFlow's and ours; format-frameworks.c: the other
 * launchers'), one table, the top of the format layer.
 */
#include <string.h>

#include <glib.h>

#include "format/format-private.h"

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
