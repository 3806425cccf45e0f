/* SPDX-License-Identifier: MIT */
/*
 * aws-ini-dump.c - print what aws.so's reader of ~/.aws/config and
 * ~/.aws/credentials (plugins/resolvers/aws/aws_profile.c) makes of a file,
 * for test_creds_ini.py to compare with botocore's configloader:
 *
 *   aws-ini-dump config|credentials FILE
 *
 * prints {"PROFILE": {"key": "value", ...}, ...} as JSON (exit 0), or the
 * error message (exit 2).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "aws_creds.h"

static cr_status dump_error_set(cr_error *err, cr_status code, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return code;
}

static void dump_string(GString *out, const char *s)
{
	g_string_append_c(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			g_string_append_printf(out, "\\%c", *p);
		else if (*p < 0x20)
			g_string_append_printf(out, "\\u%04x", *p);
		else
			g_string_append_c(out, (char)*p);
	}
	g_string_append_c(out, '"');
}

static void dump_table(GString *out, GHashTable *t, bool nested)
{
	GList *keys = g_list_sort(g_hash_table_get_keys(t), (GCompareFunc)strcmp);

	g_string_append_c(out, '{');
	for (GList *k = keys; k; k = k->next) {
		dump_string(out, k->data);
		g_string_append(out, ": ");
		if (nested)
			dump_table(out, g_hash_table_lookup(t, k->data), false);
		else
			dump_string(out, g_hash_table_lookup(t, k->data));
		if (k->next)
			g_string_append(out, ", ");
	}
	g_string_append_c(out, '}');
	g_list_free(keys);
}

int main(int argc, char **argv)
{
	cr_host_api host = { 0 };
	cr_error err = CR_ERROR_INIT;
	GHashTable *profiles = NULL;
	GError *gerr = NULL;
	GString *out;
	char *text = NULL;

	if (argc != 3 || (strcmp(argv[1], "config") != 0 && strcmp(argv[1], "credentials") != 0)) {
		fprintf(stderr, "usage: aws-ini-dump config|credentials FILE\n");
		return 1;
	}
	if (!g_file_get_contents(argv[2], &text, NULL, &gerr)) {
		fprintf(stderr, "%s\n", gerr->message);
		g_error_free(gerr);
		return 1;
	}
	host.struct_size = sizeof(host);
	host.error_set = dump_error_set;
	if (aws_ini_parse(&host, argv[2], text, strcmp(argv[1], "config") == 0, &profiles, &err) !=
	    CR_OK) {
		printf("%s\n", err.message);
		g_free(text);
		return 2;
	}
	out = g_string_new(NULL);
	dump_table(out, profiles, true);
	printf("%s\n", out->str);
	g_string_free(out, TRUE);
	g_hash_table_unref(profiles);
	g_free(text);
	return 0;
}
