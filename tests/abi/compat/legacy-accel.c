/* SPDX-License-Identifier: MIT */
/*
 * legacy-accel.c - an accelerator plugin written for ABI 1.0 and compiled
 * against the frozen 1.0 headers. Its cr_accel_device is the 1.0 size, on
 * the heap with nothing after it, so a host reading the fields that 1.1
 * appended would read past it (ASan reports that).
 */
#include <stdlib.h>

#include <cluster-resolver/plugin.h>

static cr_status lacc_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	*state = NULL;
	return CR_OK;
}

static void lacc_destroy(void *state)
{
}

static cr_status lacc_enumerate(void *state, cr_plugin_ctx *ctx, cr_accel_list *list, cr_error *err)
{
	static const char *const uuids[] = { "GPU-1e9ac7-0", "GPU-1e9ac7-1" };
	cr_status st = CR_OK;

	for (int i = 0; st == CR_OK && i < 2; i++) {
		cr_accel_device *d = malloc(sizeof(*d));

		if (d == NULL)
			return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
		*d = (cr_accel_device)CR_ACCEL_DEVICE_INIT;
		d->kind = "GPU";
		d->vendor = "legacy";
		d->model = "Legacy GPU";
		d->index = i;
		d->physical_index = i;
		d->uuid = uuids[i];
		d->memory_bytes = 1u << 30;
		st = cr_host->accel_add(list, d, err);
		free(d);
	}
	return st;
}

static const cr_accel_ops lacc_ops = {
	.struct_size = sizeof(cr_accel_ops),
	.create = lacc_create,
	.destroy = lacc_destroy,
	.enumerate = lacc_enumerate,
};

static const cr_plugin_desc lacc_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_ACCELERATOR,
	.name = "legacyaccel",
	.version = "1.0.0",
	.description = "an accelerator plugin built against the ABI 1.0 headers",
	.options = NULL,
	.option_size = sizeof(cr_option),
	.accelerator = &lacc_ops,
};

CR_PLUGIN_DEFINE(lacc_desc)
