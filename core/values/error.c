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

/* @text into the record's message buffer (@size bytes), by the one rule
 * for every message (cr_text_escape): one line, each control character
 * (newline included) and each byte that is not UTF-8 written as \xNN, so
 * a server's or a user's text can neither break a log line nor hide in it;
 * cut with "..." when it does not fit. */
static void message_put(char *msg, size_t size, const char *text)
{
	char *esc = cr_text_escape(text);

	if (g_strlcpy(msg, esc, size) >= size)
		mark_cut(msg, size);
	g_free(esc);
}

cr_status error_setv(cr_error *err, cr_status code, const char *fmt, va_list ap)
{
	char *text;

	if (err == NULL)
		return code;
	/* formatted first: an argument may be err->message itself */
	text = g_strdup_vprintf(fmt, ap);
	err->struct_size = sizeof(*err);
	err->code = code;
	message_put(err->message, sizeof(err->message), text);
	g_free(text);
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
	char *prefix, *text;
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	prefix = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	/* Truncation keeps the prefix: it names the source. The message is
	 * already escaped; the prefix is escaped on its own. */
	text = cr_text_escape(prefix);
	g_free(prefix);
	prefix = g_strconcat(text, err->message, NULL);
	if (g_strlcpy(err->message, prefix, sizeof(err->message)) >= sizeof(err->message))
		mark_cut(err->message, sizeof(err->message));
	g_free(text);
	g_free(prefix);
}

char *cr_text_escape(const char *text)
{
	GString *out;
	const char *p = text;

	if (text == NULL)
		return NULL;
	out = g_string_sized_new(strlen(text));
	while (*p != '\0') {
		gunichar c;
		const char *next;
		size_t run = 0;

		/* printable ASCII, the common case, a run at a time */
		while ((unsigned char)p[run] >= 0x20 && (unsigned char)p[run] < 0x7f)
			run++;
		if (run > 0) {
			g_string_append_len(out, p, (gssize)run);
			p += run;
			continue;
		}
		c = g_utf8_get_char_validated(p, -1);
		next = c < 0x110000 ? g_utf8_next_char(p) : p + 1;

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
