/* SPDX-License-Identifier: MIT */
/*
 * tpu.c - the tpu accelerator plugin: descriptor, options and ops.
 *
 * probe finds the host's chips (chips.c) and declines where there are none.
 * enumerate narrows them with TPU_VISIBLE_CHIPS / TPU_CHIPS_PER_PROCESS_BOUNDS
 * (visible.c) and reports one "TPU" device per device TensorFlow would list:
 * two TensorCores per chip for v2 and v3, one device per chip from v4 on
 * (megacore). See docs/accelerators.md.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpu.h"

struct tpu_state {
	char root[PATH_MAX]; /* "" for the real root, else without trailing '/' */
};

static const cr_option tpu_options[] = {
	CR_OPTION("root", CR_OPT_STRING, "/", 0,
		  "directory used in place of / for /dev and /sys (tests, chroots)"),
	CR_OPTIONS_END,
};

static cr_status tpu_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *root = cr_host->opt_string(ctx, "root");
	struct tpu_state *s;
	size_t len;

	if (root == NULL || root[0] != '/')
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "option 'root' must be an absolute path, got '%s'",
					  root ? root : "");
	len = strlen(root);
	while (len > 0 && root[len - 1] == '/')
		len--;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	if (len >= sizeof(s->root)) {
		free(s);
		return cr_host->error_set(err, CR_ERR_CONFIG, "option 'root' is too long");
	}
	memcpy(s->root, root, len);
	*state = s;
	return CR_OK;
}

static void tpu_destroy(void *state)
{
	free(state);
}

static cr_status tpu_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	struct tpu_state *s = state;
	struct tpu_chips chips;
	cr_status st;

	st = tpu_chips_find(ctx, s->root, &chips, err);
	tpu_chips_free(&chips);
	return st;
}

/* Report chip @c, visible as the @k-th chip, as TensorFlow's devices. */
static cr_status tpu_report_chip(const struct tpu_chips *chips, const struct tpu_pick *pick,
				 size_t k, cr_accel_list *list, cr_error *err)
{
	const struct tpu_chip *chip = &chips->v[pick->chip];
	int per = chip->gen ? chip->gen->devices_per_chip : 1;
	cr_status st = CR_OK;
	int j;

	for (j = 0; j < per && st == CR_OK; j++) {
		cr_accel_device dev = CR_ACCEL_DEVICE_INIT;

		dev.kind = "TPU";
		dev.vendor = "google";
		dev.model = chip->gen ? chip->gen->model : NULL;
		dev.index = (int32_t)k * per + j;
		dev.physical_index = (int32_t)pick->chip * per + j;
		dev.pci_bus_id = chip->pci_bus_id[0] ? chip->pci_bus_id : NULL;
		dev.visible_by = pick->visible_by;
		dev.parent_index = per > 1 ? (int32_t)pick->chip : -1;
		st = cr_host->accel_add(list, &dev, err);
	}
	return st;
}

static cr_status tpu_enumerate(void *state, cr_plugin_ctx *ctx, cr_accel_list *list, cr_error *err)
{
	struct tpu_state *s = state;
	struct tpu_pick *picks = NULL;
	struct tpu_chips chips;
	size_t count = 0, k;
	cr_status st;

	st = tpu_chips_find(ctx, s->root, &chips, err);
	if (st != CR_OK)
		return st;
	cr_host->log(ctx, CR_LOG_DEBUG, "%zu TPU chips (%s layout)", chips.n, chips.style);
	st = tpu_visible_apply(ctx, &chips, &picks, &count, err);
	for (k = 0; k < count && st == CR_OK; k++)
		st = tpu_report_chip(&chips, &picks[k], k, list, err);
	free(picks);
	tpu_chips_free(&chips);
	return st;
}

static const cr_accel_ops tpu_ops = {
	.struct_size = sizeof(cr_accel_ops),
	.create = tpu_create,
	.destroy = tpu_destroy,
	.probe = tpu_probe,
	.enumerate = tpu_enumerate,
};

static const cr_plugin_desc tpu_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_ACCELERATOR,
	.name = "tpu",
	.version = CR_VERSION_STRING,
	.description = "Google TPU chips from /dev/accel*, /dev/vfio and PCI ids",
	.options = tpu_options,
	.option_size = sizeof(cr_option),
	.resolver = NULL,
	.accelerator = &tpu_ops,
	.flags = 0,
};

CR_PLUGIN_DEFINE(tpu_desc)
