/* SPDX-License-Identifier: MIT */
/*
 * fuzz-format-options.c - libFuzzer target for the format options
 * (core/values/format-options.c): the input's lines are "key=value" options,
 * given to every variable and host-list format of a two-node world, and
 * each also checked as a config `formats` default. Properties: a format
 * fails only with INVALID_ARG (a bad option), NOT_FOUND (not in the world)
 * or BACKEND (no interface), with a message naming the format; a printed
 * rendezvous port is 1..65535; a refused default is CR_ERR_CONFIG naming
 * "fz: formats".
 */
#include <stdlib.h>
#include <string.h>

#include "values/format-options.h"
#include "pipeline/pipeline-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const formats[] = { "torch", "torchrun", "jax", "env", "hostfile", "hosts" };

/* Every rendezvous port line, "export [PET_]MASTER_PORT='N'", has
 * 1 <= N <= 65535. */
static void check_ports(const char *text)
{
	static const char *const keys[] = { "\nexport MASTER_PORT='",
					    "\nexport PET_MASTER_PORT='" };
	char *lines = g_strconcat("\n", text, NULL);

	for (size_t k = 0; k < G_N_ELEMENTS(keys); k++)
		for (const char *p = lines; (p = strstr(p, keys[k])) != NULL;) {
			char *end = NULL;
			long v;

			p += strlen(keys[k]);
			v = strtol(p, &end, 10);
			if (end == p || *end != '\'' || v < 1 || v > 65535)
				abort();
		}
	g_free(lines);
}

static void check_default(const char *opt)
{
	const char *eq = strchr(opt, '=');
	char *key = eq != NULL ? g_strndup(opt, (gsize)(eq - opt)) : g_strdup(opt);
	cr_error err = CR_ERROR_INIT;
	cr_status st = format_default_check("fz: formats", key, eq != NULL ? eq + 1 : "", &err);

	if (st != CR_OK && (st != CR_ERR_CONFIG || strncmp(err.message, "fz: formats: ", 13) != 0))
		abort();
	g_free(key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char world[] = "{\"worker\": [\"127.0.0.1:2222\", \"127.0.0.2:2223\"]}";
	char *text = g_strndup((const char *)data, size);
	char **opts = g_strsplit(text, "\n", 9);
	cr_error err = CR_ERROR_INIT;
	cr_result *r = result_new();

	cr_spec_free(r->spec);
	r->spec = cr_spec_from_json(world, strlen(world), "fz", &err);
	r->task_type = g_strdup("worker");
	r->task_id = 1;
	if (g_strv_length(opts) > 8)
		opts[8][0] = '\0'; /* at most 8 options; the rest is one ignored line */
	for (size_t i = 0; opts[i] != NULL; i++)
		check_default(opts[i]);
	for (size_t f = 0; f < G_N_ELEMENTS(formats); f++) {
		char *out = NULL;
		size_t len = 0;
		cr_error e = CR_ERROR_INIT;
		cr_status st =
			cr_result_format(r, formats[f], (const char *const *)opts, &out, &len, &e);

		if (st == CR_OK) {
			if (strlen(out) != len)
				abort();
			check_ports(out);
		} else if ((st != CR_ERR_INVALID_ARG && st != CR_ERR_NOT_FOUND &&
			    st != CR_ERR_BACKEND) ||
			   strncmp(e.message, "format '", 8) != 0 || out != NULL) {
			abort();
		}
		cr_free(out);
	}
	cr_result_free(r);
	g_strfreev(opts);
	g_free(text);
	return 0;
}
