/* SPDX-License-Identifier: MIT */
/*
 * fuzz-aws-ini.c - libFuzzer target for aws.so's reader of ~/.aws/config
 * and ~/.aws/credentials (plugins/resolvers/aws/aws_profile.c,
 * aws_ini_parse). The first byte picks the dialect (config file or
 * credentials file). Properties: a refusal comes with a message naming the
 * file and a line that exists; an accepted file gives profiles whose keys
 * are lower-case and whose values have no leading blanks (a nested
 * section's value starts with its line break) and no trailing ones.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aws_creds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cr_status fz_error_set(cr_error *err, cr_status code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return code;
}

static void fz_check_section(gpointer key, gpointer value, gpointer ud)
{
	GHashTableIter it;
	gpointer k, v;

	(void)key;
	(void)ud;
	g_hash_table_iter_init(&it, value);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const char *s = v;
		char *low = g_ascii_strdown(k, -1);

		if (strcmp(low, k) != 0)
			abort();
		g_free(low);
		if (*s && (s[0] == ' ' || s[0] == '\t' || g_ascii_isspace(s[strlen(s) - 1])))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_host_api host = { 0 };
	cr_error err = CR_ERROR_INIT;
	GHashTable *out = NULL;
	char *text;
	size_t lines = 1;
	int line = 0;
	cr_status rc;

	if (size < 1)
		return 0;
	host.struct_size = sizeof(host);
	host.error_set = fz_error_set;
	text = g_strndup((const char *)data + 1, size - 1);
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	rc = aws_ini_parse(&host, "F", text, data[0] & 1, &out, &err);
	if (rc == CR_OK) {
		if (!out)
			abort();
		g_hash_table_foreach(out, fz_check_section, NULL);
		g_hash_table_unref(out);
	} else if (rc != CR_ERR_CONFIG || out || sscanf(err.message, "F:%d: ", &line) != 1 ||
		   line < 1 || (size_t)line > lines) {
		abort();
	}
	g_free(text);
	return 0;
}
