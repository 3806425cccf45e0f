/* SPDX-License-Identifier: MIT */
/*
 * supervise.c - the library side of `exec --supervise`: tell the resolvers
 * that answered a resolution what happened to the program, and collect
 * whether one of them wants it stopped. The caller (the CLI) forks, waits,
 * forwards signals and stops the program: a library installs no signal
 * handler and starts no process here.
 */
#include <glib.h>

#include "pipeline/pipeline-private.h"

typedef cr_status (*supervise_fn)(void *state, cr_plugin_ctx *pctx, const cr_supervise_event *ev,
				  bool *stop, cr_error *err);

/* The op, or NULL: a 1.0 plugin's ops table ends before the slot. */
static supervise_fn supervise_op(const cr_instance *inst)
{
	const cr_resolver_ops *ops = inst->plugin->desc->resolver;

	if (ops->struct_size < offsetof(cr_resolver_ops, supervise) + sizeof(ops->supervise))
		return NULL;
	return ops->supervise;
}

static const char *phase_name(cr_supervise_phase phase)
{
	switch (phase) {
	case CR_SUPERVISE_STARTED:
		return "started";
	case CR_SUPERVISE_RUNNING:
		return "running";
	case CR_SUPERVISE_EXITED:
		return "exited";
	}
	return "?";
}

/* Tell one resolver; its failure is logged, never returned. */
static void supervise_one(cr_context *ctx, cr_instance *inst, const cr_supervise_event *ev,
			  bool *stop)
{
	supervise_fn op = supervise_op(inst);
	cr_error err = CR_ERROR_INIT;
	bool want = false;
	cr_status st;

	if (op == NULL)
		return;
	st = op(inst->state, &inst->pctx, ev, &want, &err);
	if (st != CR_OK) {
		ctx_log(ctx, CR_LOG_WARNING, inst->label, "supervise (%s): %s",
			phase_name(ev->phase),
			err.message[0] != '\0' ? err.message : cr_strerror(st));
		return;
	}
	if (want) {
		ctx_log(ctx, CR_LOG_INFO, inst->label, "asks to stop the program");
		*stop = true;
	}
}

cr_status cr_context_supervise(cr_context *ctx, const cr_result *result,
			       const cr_supervise_event *ev, bool *stop, cr_error *err)
{
	cr_supervise_event copy;

	if (ctx == NULL || result == NULL || ev == NULL || stop == NULL)
		return error_set(err, CR_ERR_INVALID_ARG, "cr_context_supervise: NULL argument");
	if (ev->struct_size < offsetof(cr_supervise_event, elapsed_ms) + sizeof(ev->elapsed_ms))
		return error_set(err, CR_ERR_INVALID_ARG,
				 "cr_context_supervise: event of %zu bytes is too short",
				 ev->struct_size);
	/* The plugins see an event of this library's size, whatever the caller
	 * was built with. */
	copy = *ev;
	copy.struct_size = sizeof(copy);
	/* Only instances still in this context: a result of another context
	 * names none of them. */
	for (guint i = 0; i < result->answered->len; i++) {
		cr_instance *inst = g_ptr_array_index(result->answered, i);

		if (g_ptr_array_find(ctx->resolvers, inst, NULL))
			supervise_one(ctx, inst, &copy, stop);
	}
	return CR_OK;
}
