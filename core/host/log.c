/* SPDX-License-Identifier: MIT */
/*
 * log.c - a context's log: one line a message, through the handler the
 * application set (stderr by default), at or below its level. The lowest
 * file of the host layer: everything above may log.
 */
#include <glib.h>

#include "host/host-private.h"

void ctx_log(cr_context *ctx, cr_log_level level, const char *source, const char *fmt, ...)
{
	char *msg, *esc;
	va_list ap;

	if (ctx == NULL || level > ctx->log_level)
		return;
	/* No fixed buffer: a long line (a 120 KB device mask) is kept whole. */
	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	/* The one rule of every message (cr_text_escape, as error_set): one
	 * line, control characters and bytes that are not UTF-8 as \xNN. */
	esc = cr_text_escape(msg);
	ctx->log_fn(level, source, esc, ctx->log_data);
	g_free(esc);
	g_free(msg);
}
