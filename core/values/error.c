/* SPDX-License-Identifier: MIT */
/* error.c - status texts and the error record helpers. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "values/values-private.h"

static const char *const status_text[] = {
	[CR_OK] = "success",
	[CR_DECLINED] = "declined",
	[CR_ERR_INVALID_ARG] = "invalid argument",
	[CR_ERR_CONFIG] = "configuration error",
	[CR_ERR_UNSUPPORTED] = "not supported",
	[CR_ERR_ABI] = "ABI mismatch",
	[CR_ERR_NOT_FOUND] = "not found",
	[CR_ERR_IO] = "I/O error",
	[CR_ERR_NETWORK] = "network error",
	[CR_ERR_TIMEOUT] = "timed out",
	[CR_ERR_AUTH] = "authentication failed",
	[CR_ERR_PARSE] = "parse error",
	[CR_ERR_CONFLICT] = "conflict",
	[CR_ERR_BACKEND] = "backend not ready",
	[CR_ERR_NOMEM] = "out of memory",
	[CR_ERR_INTERNAL] = "internal error",
	[CR_ERR_PLUGIN] = "plugin error",
};

const char *cr_strerror(cr_status code)
{
	if ((unsigned)code < G_N_ELEMENTS(status_text) && status_text[code] != NULL)
		return status_text[code];
	return "unknown status";
}

const char *cr_version(void)
{
	return CR_VERSION_STRING;
}

/* A message cut to the record's @size (a full buffer): end it with "..." at
 * a character boundary, so the cut shows and no UTF-8 sequence is split. */
static void mark_cut(char *msg, size_t size)
{
	size_t end = size - 4; /* room for "...\0" */

	while (end > 0 && ((unsigned char)msg[end] & 0xc0) == 0x80)
		end--; /* msg[end] starts a character (or is ASCII) */
	memcpy(msg + end, "...", 4);
}

cr_status error_setv(cr_error *err, cr_status code, const char *fmt, va_list ap)
{
	if (err == NULL)
		return code;
	err->struct_size = sizeof(*err);
	err->code = code;
	if (vsnprintf(err->message, sizeof(err->message), fmt, ap) >= (int)sizeof(err->message))
		mark_cut(err->message, sizeof(err->message));
	/* Messages are one line: a stray newline would break log parsers. */
	for (char *p = err->message; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return code;
}

cr_status error_set(cr_error *err, cr_status code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(err, code, fmt, ap);
	va_end(ap);
	return code;
}

void error_prefix(cr_error *err, const char *fmt, ...)
{
	char prefix[CR_ERROR_MSG_MAX];
	char old[CR_ERROR_MSG_MAX];
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	/* Truncation keeps the prefix: it names the source. */
	g_strlcpy(old, err->message, sizeof(old));
	g_strlcpy(err->message, prefix, sizeof(err->message));
	if (g_strlcat(err->message, old, sizeof(err->message)) >= sizeof(err->message))
		mark_cut(err->message, sizeof(err->message));
}

char *cr_text_escape(const char *text)
{
	GString *out;
	const char *p = text;

	if (text == NULL)
		return NULL;
	out = g_string_sized_new(strlen(text));
	while (*p != '\0') {
		gunichar c = g_utf8_get_char_validated(p, -1);
		const char *next = c < 0x110000 ? g_utf8_next_char(p) : p + 1;

		if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c >= 0x110000) {
			for (; p < next; p++) /* the bytes of a control, or one stray byte */
				g_string_append_printf(out, "\\x%02x", (unsigned char)*p);
		} else {
			g_string_append_len(out, p, next - p);
			p = next;
		}
	}
	return g_string_free(out, FALSE);
}

void cr_free(void *ptr)
{
	g_free(ptr);
}

void cr_strv_free(char **strv)
{
	g_strfreev(strv);
}

gint str_ptr_cmp(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}
