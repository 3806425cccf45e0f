/* SPDX-License-Identifier: MIT */
/*
 * seam.c - which I/O table (io.h) a context reaches the world through:
 * the real one (io-real.c) unless a test host installed its own
 * (ctx_set_io); and the environment read through it.
 */
#include <glib.h>

#include "host/host-private.h"

void ctx_set_io(cr_context *ctx, const io_ops *io, void *data)
{
	ctx->io = io != NULL ? io : io_real();
	ctx->io_data = io != NULL ? data : NULL;
}

const io_ops *ctx_io(cr_context *ctx, void **data)
{
	if (ctx == NULL) {
		*data = NULL;
		return io_real();
	}
	*data = ctx->io_data;
	return ctx->io;
}

const char *ctx_getenv(cr_context *ctx, const char *name)
{
	void *data;
	const io_ops *io = ctx_io(ctx, &data);

	return io->getenv(data, name);
}
