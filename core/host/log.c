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
	char *msg;
	va_list ap;

	if (ctx == NULL || level > ctx->log_level)
		return;
	/* No fixed buffer: a long line (a 120 KB device mask) is kept whole. */
	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	for (char *p = msg; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	ctx->log_fn(level, source, msg, ctx->log_data);
	g_free(msg);
}
