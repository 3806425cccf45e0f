/* SPDX-License-Identifier: MIT */
/*
 * procfs.c - NVIDIA GPUs from the kernel driver's /proc tree, used when NVML
 * is missing or unusable.
 *
 * The driver creates /proc/driver/nvidia/gpus/<PCI address>/information for
 * every GPU it bound, with "Key: value" lines such as
 *   Model:           NVIDIA A100-SXM4-40GB
 *   GPU UUID:        GPU-6a3c2a5e-...
 *   Bus Location:    0000:07:00.0
 *   Device Minor:    0
 *   GPU Excluded:    No
 * The directory names sort in PCI order, which is the order NVML uses.
 * Memory size and MIG instances are not in this file and stay unknown.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvidia.h"

#define PROCFS_GPUS "/proc/driver/nvidia/gpus"

/**
 * nvidia_procfs_probe: whether the driver lists any GPU under @root.
 * Returns: CR_OK, CR_DECLINED (no such directory, or empty), or the
 * host's CR_ERR_IO when the directory cannot be read.
 */
/* List the driver's per-GPU directories (@path: where, for messages).
 * Returns: CR_OK, CR_DECLINED when the tree is absent, or list_dir's error. */
static cr_status procfs_gpu_dirs(cr_plugin_ctx *ctx, const char *root, char path[PATH_MAX],
				 char ***names, cr_error *err)
{
	cr_status st;

	snprintf(path, PATH_MAX, "%s%s", root, PROCFS_GPUS);
	st = cr_host->list_dir(ctx, path, names, err);
	if (st == CR_ERR_NOT_FOUND)
		return cr_host->error_set(err, CR_DECLINED, "no NVIDIA driver: '%s' is absent",
					  path);
	return st;
}

cr_status nvidia_procfs_probe(cr_plugin_ctx *ctx, const char *root, cr_error *err)
{
	char path[PATH_MAX];
	char **names = NULL;
	cr_status st = procfs_gpu_dirs(ctx, root, path, &names, err);

	if (st != CR_OK)
		return st;
	if (names[0] == NULL)
		st = cr_host->error_set(err, CR_DECLINED, "no NVIDIA GPU listed in '%s'", path);
	cr_host->strv_free(names);
	return st;
}

/* Trim blanks on both ends of @s in place; returns the start. */
static char *procfs_trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* Fill @gpu from one "Key: value" line; sets *@excluded on "GPU Excluded: Yes". */
static void procfs_line(char *line, struct nvidia_gpu *gpu, bool *excluded)
{
	char *colon = strchr(line, ':');
	char *key, *value, *end;
	long minor;

	if (colon == NULL)
		return;
	*colon = '\0';
	key = procfs_trim(line);
	value = procfs_trim(colon + 1);
	if (strcmp(key, "Model") == 0) {
		nvidia_copy(gpu->model, sizeof(gpu->model), value);
	} else if (strcmp(key, "GPU UUID") == 0) {
		if (strncmp(value, "GPU-", 4) == 0)
			nvidia_copy(gpu->uuid, sizeof(gpu->uuid), value);
	} else if (strcmp(key, "Bus Location") == 0) {
		nvidia_bus_id_normalise(value, gpu->pci_bus_id, sizeof(gpu->pci_bus_id));
	} else if (strcmp(key, "Device Minor") == 0) {
		minor = strtol(value, &end, 10);
		if (end != value && *end == '\0' && minor >= 0 && minor < INT_MAX)
			gpu->minor = (int)minor;
	} else if (strcmp(key, "GPU Excluded") == 0) {
		*excluded = strcmp(value, "Yes") == 0;
	}
}

/* Parse one information file into @gpu. */
static cr_status procfs_parse(char *text, const char *path, struct nvidia_gpu *gpu, bool *excluded,
			      cr_error *err)
{
	char *line, *save = NULL;

	*excluded = false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		procfs_line(line, gpu, excluded);
	if (gpu->model[0] == '\0')
		return cr_host->error_set(err, CR_ERR_PARSE, "'%s': no 'Model:' line", path);
	return CR_OK;
}

/* Read the information file of the GPU directory @name. */
static cr_status procfs_one(cr_plugin_ctx *ctx, const char *root, const char *name,
			    struct nvidia_gpus *out, cr_error *err)
{
	struct nvidia_gpu *gpu;
	char path[PATH_MAX];
	char *text = NULL;
	bool excluded;
	size_t len;
	cr_status st;

	snprintf(path, sizeof(path), "%s%s/%s/information", root, PROCFS_GPUS, name);
	st = cr_host->read_file(ctx, path, 64 * 1024, &text, &len, err);
	if (st != CR_OK)
		return st;
	gpu = nvidia_gpus_add(out);
	if (gpu == NULL) {
		st = cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = procfs_parse(text, path, gpu, &excluded, err);
	if (st != CR_OK)
		goto out;
	if (gpu->pci_bus_id[0] == '\0')
		nvidia_bus_id_normalise(name, gpu->pci_bus_id, sizeof(gpu->pci_bus_id));
	if (excluded) {
		cr_host->log(ctx, CR_LOG_INFO, "GPU %s is excluded by the driver; skipped", name);
		out->n--;
	} else {
		gpu->physical_index = (int)out->n - 1;
	}
out:
	cr_host->free(text);
	return st;
}

/**
 * nvidia_procfs_list: every GPU the driver bound under @root, in PCI order.
 * Returns: CR_OK, CR_DECLINED when the tree is absent, CR_ERR_IO naming an
 * unreadable file, CR_ERR_PARSE naming a file without a model.
 */
cr_status nvidia_procfs_list(cr_plugin_ctx *ctx, const char *root, struct nvidia_gpus *out,
			     cr_error *err)
{
	char path[PATH_MAX];
	char **names = NULL;
	cr_status st = procfs_gpu_dirs(ctx, root, path, &names, err);
	size_t i;

	if (st != CR_OK)
		return st;
	for (i = 0; names[i] != NULL && st == CR_OK; i++)
		st = procfs_one(ctx, root, names[i], out, err);
	cr_host->strv_free(names);
	return st;
}
