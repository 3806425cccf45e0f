/* SPDX-License-Identifier: MIT */
/*
 * nvidia.c - the nvidia accelerator plugin: descriptor, options and ops.
 *
 * probe:     load NVML (option `library`) and initialise it; when that is
 *            impossible, fall back to /proc/driver/nvidia/gpus under `root`.
 *            DECLINED when neither shows a driver.
 * enumerate: list the host's GPUs (MIG instances in place of a GPU in MIG
 *            mode when `mig` is true), narrow them with
 *            NVIDIA_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES, and report
 *            each one with host->accel_add.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvidia.h"

enum nvidia_source {
	NVIDIA_NONE = 0,
	NVIDIA_NVML,
	NVIDIA_PROCFS,
};

struct nvidia_state {
	char root[PATH_MAX]; /* "" for the real root, else without trailing '/' */
	const char *library; /* host-owned until destroy */
	bool mig;
	bool probed;
	cr_status probe_status;
	cr_error probe_error;
	enum nvidia_source source;
	struct nvidia_nvml nvml;
};

static const cr_option nvidia_options[] = {
	CR_OPTION("root", CR_OPT_STRING, "/", 0,
		  "directory used in place of / for /proc and /dev (tests, chroots)"),
	CR_OPTION("library", CR_OPT_STRING, "libnvidia-ml.so.1", 0,
		  "NVML library to dlopen: a soname or an absolute path"),
	CR_OPTION("mig", CR_OPT_BOOL, "true", 0,
		  "report the MIG instances of a GPU in MIG mode instead of the GPU"),
	CR_OPTIONS_END,
};

static cr_status nvidia_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state,
			       cr_error *err)
{
	const char *root = cr_host->opt_string(ctx, "root");
	struct nvidia_state *s;
	size_t len;

	if (root == NULL || root[0] != '/')
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "option 'root' must be an absolute path, got '%s'",
					  root ? root : "");
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	len = strlen(root);
	while (len > 0 && root[len - 1] == '/')
		len--;
	if (len >= sizeof(s->root)) {
		free(s);
		return cr_host->error_set(err, CR_ERR_CONFIG, "option 'root' is too long");
	}
	memcpy(s->root, root, len);
	s->library = cr_host->opt_string(ctx, "library");
	if (s->library == NULL || s->library[0] == '\0')
		s->library = "libnvidia-ml.so.1";
	s->mig = cr_host->opt_bool(ctx, "mig");
	*state = s;
	return CR_OK;
}

static void nvidia_destroy(void *state)
{
	struct nvidia_state *s = state;

	if (s == NULL)
		return;
	nvidia_nvml_close(&s->nvml);
	free(s);
}

/* Whether the driver shows itself under `root`: its control node or its
 * /proc tree (what nvidia.applies names). */
static bool nvidia_driver_seen(const struct nvidia_state *s, cr_plugin_ctx *ctx)
{
	static const char *const marks[] = { "/dev/nvidiactl", "/proc/driver/nvidia" };
	char path[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		cr_error e = CR_ERROR_INIT;
		char *data = NULL;
		size_t len = 0;
		cr_status st;

		snprintf(path, sizeof(path), "%s%s", s->root, marks[i]);
		/* a device or a directory is refused at once, not read: only
		 * "not found" means it is not there */
		st = cr_host->read_file(ctx, path, 1, &data, &len, &e);
		cr_host->free(data);
		if (st != CR_ERR_NOT_FOUND)
			return true;
	}
	return false;
}

/* NVML is unusable (@nvml_st, @nvml_err): try the driver's /proc tree. */
static cr_status nvidia_fallback(struct nvidia_state *s, cr_plugin_ctx *ctx, cr_status nvml_st,
				 const cr_error *nvml_err, cr_error *err)
{
	cr_error proc_err = CR_ERROR_INIT;
	cr_status st;

	st = nvidia_procfs_probe(ctx, s->root, &proc_err);
	if (st == CR_OK) {
		cr_host->log(ctx, nvml_st == CR_DECLINED ? CR_LOG_INFO : CR_LOG_WARNING,
			     "%s; counting GPUs from %s/proc/driver/nvidia/gpus", nvml_err->message,
			     s->root);
		s->source = NVIDIA_PROCFS;
		return CR_OK;
	}
	if (st == CR_DECLINED && nvml_st != CR_DECLINED)
		return cr_host->error_set(err, nvml_st, "%s", nvml_err->message);
	if (st == CR_DECLINED && !nvidia_driver_seen(s, ctx))
		/* The words of nvidia.applies (test manifest-reasons). */
		return cr_host->error_set(err, CR_DECLINED,
					  "no NVIDIA driver: neither %s/dev/nvidiactl nor "
					  "%s/proc/driver/nvidia exists",
					  s->root, s->root);
	if (st == CR_DECLINED)
		return cr_host->error_set(err, CR_DECLINED, "%s; %s", nvml_err->message,
					  proc_err.message);
	return cr_host->error_set(err, st, "%s", proc_err.message);
}

/* Decide where devices come from; the answer is kept for enumerate. */
static cr_status nvidia_setup(struct nvidia_state *s, cr_plugin_ctx *ctx, cr_error *err)
{
	cr_error nvml_err = CR_ERROR_INIT;
	cr_status st;

	if (s->probed)
		goto out;
	s->probed = true;
	st = nvidia_nvml_open(&s->nvml, ctx, s->library, &nvml_err);
	if (st == CR_OK) {
		s->source = NVIDIA_NVML;
		s->probe_status = CR_OK;
		goto out;
	}
	if (st == CR_DECLINED && nvml_err.message[0] == '\0')
		cr_host->error_set(&nvml_err, st, "NVML library '%s' not found", s->library);
	s->probe_status = nvidia_fallback(s, ctx, st, &nvml_err, &s->probe_error);
out:
	if (s->probe_status != CR_OK)
		return cr_host->error_set(err, s->probe_status, "%s", s->probe_error.message);
	return CR_OK;
}

static cr_status nvidia_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	return nvidia_setup(state, ctx, err);
}

/* Hand the picked devices to the host. */
static cr_status nvidia_report(const struct nvidia_gpus *gpus, const struct nvidia_pick *picks,
			       size_t count, cr_accel_list *list, cr_error *err)
{
	cr_status st = CR_OK;
	size_t i;

	for (i = 0; i < count && st == CR_OK; i++) {
		const struct nvidia_gpu *g = &gpus->v[picks[i].gpu];
		cr_accel_device dev = CR_ACCEL_DEVICE_INIT;

		dev.kind = "GPU";
		dev.vendor = "nvidia";
		dev.model = g->model[0] ? g->model : NULL;
		dev.index = (int32_t)i;
		dev.physical_index = g->physical_index;
		dev.uuid = g->uuid[0] ? g->uuid : NULL;
		dev.memory_bytes = g->memory_bytes;
		dev.pci_bus_id = g->pci_bus_id[0] ? g->pci_bus_id : NULL;
		dev.visible_by = picks[i].visible_by;
		dev.parent_index = g->parent_index;
		st = cr_host->accel_add(list, &dev, err);
	}
	return st;
}

static cr_status nvidia_enumerate(void *state, cr_plugin_ctx *ctx, cr_accel_list *list,
				  cr_error *err)
{
	struct nvidia_state *s = state;
	struct nvidia_gpus gpus = { NULL, 0, 0 };
	struct nvidia_pick *picks = NULL;
	size_t count = 0;
	cr_status st;

	st = nvidia_setup(s, ctx, err);
	if (st != CR_OK)
		return st;
	if (s->source == NVIDIA_NVML)
		st = nvidia_nvml_list(&s->nvml, ctx, s->mig, &gpus, err);
	else
		st = nvidia_procfs_list(ctx, s->root, &gpus, err);
	if (st != CR_OK)
		goto out;
	st = nvidia_mask_apply(ctx, &gpus, &picks, &count, err);
	if (st != CR_OK)
		goto out;
	st = nvidia_report(&gpus, picks, count, list, err);
out:
	free(picks);
	nvidia_gpus_free(&gpus);
	return st;
}

static const cr_accel_ops nvidia_ops = {
	.struct_size = sizeof(cr_accel_ops),
	.create = nvidia_create,
	.destroy = nvidia_destroy,
	.probe = nvidia_probe,
	.enumerate = nvidia_enumerate,
};

static const cr_plugin_desc nvidia_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_ACCELERATOR,
	.name = "nvidia",
	.version = CR_VERSION_STRING,
	.description = "NVIDIA GPUs through NVML (dlopen), else /proc/driver/nvidia",
	.options = nvidia_options,
	.option_size = sizeof(cr_option),
	.resolver = NULL,
	.accelerator = &nvidia_ops,
	.flags = 0,
};

CR_PLUGIN_DEFINE(nvidia_desc)
