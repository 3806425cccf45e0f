/* SPDX-License-Identifier: MIT */
/*
 * nvml.c - NVIDIA devices through NVML, loaded at run time.
 *
 * NVML is never linked: host->dl_open() loads it, so nvidia.so loads (and
 * declines) on machines without a driver, as Slurm's gpu/nvml plugin does.
 * The few NVML types used here are declared from the public NVML API
 * reference (docs.nvidia.com/deploy/nvml-api): return codes are an int enum,
 * device handles are opaque pointers.
 */
#include <stdio.h>
#include <string.h>

#include "nvidia.h"

/* nvmlReturn_t values we act on. */
#define NVML_SUCCESS 0
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_DRIVER_NOT_LOADED 9
#define NVML_ERROR_LIBRARY_NOT_FOUND 12

/* nvmlDeviceGetMigMode(): NVML_DEVICE_MIG_ENABLE. */
#define NVML_DEVICE_MIG_ENABLE 1
/* More MIG slots than any GPU has (A100/H100: 7); bounds a broken library. */
#define NVIDIA_MIG_SLOTS_MAX 64

/* nvmlMemory_t */
struct nvidia_nvml_memory {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
};

/* nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3 */
struct nvidia_nvml_pci {
	char bus_id_legacy[16];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pci_device_id;
	unsigned int pci_subsystem_id;
	char bus_id[32];
};

static const char *nvml_strerror(const struct nvidia_nvml *nvml, int rc)
{
	const char *s = nvml->error_string ? nvml->error_string(rc) : NULL;

	return s ? s : "unknown NVML error";
}

/* Look up @name; a missing required symbol is remembered in *@missing. */
static void *nvml_sym(struct nvidia_nvml *nvml, const char *name, bool required,
		      const char **missing)
{
	void *sym = cr_host->dl_sym(nvml->handle, name);

	if (sym == NULL && required && *missing == NULL)
		*missing = name;
	return sym;
}

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_uint_fn)(unsigned int *);
typedef int (*nvml_handle_fn)(unsigned int, void **);
typedef int (*nvml_text_fn)(void *, char *, unsigned int);
typedef int (*nvml_ptr_fn)(void *, void *);
typedef int (*nvml_dev_uint_fn)(void *, unsigned int *);
typedef int (*nvml_mode_fn)(void *, unsigned int *, unsigned int *);
typedef int (*nvml_mig_fn)(void *, unsigned int, void **);
typedef const char *(*nvml_errstr_fn)(int);

/* Resolve every entry point. Returns the first missing required name. */
static const char *nvml_bind(struct nvidia_nvml *nvml)
{
	const char *missing = NULL;

	nvml->error_string = (nvml_errstr_fn)nvml_sym(nvml, "nvmlErrorString", true, &missing);
	nvml->init = (nvml_void_fn)nvml_sym(nvml, "nvmlInit_v2", true, &missing);
	nvml->shutdown = (nvml_void_fn)nvml_sym(nvml, "nvmlShutdown", true, &missing);
	nvml->count = (nvml_uint_fn)nvml_sym(nvml, "nvmlDeviceGetCount_v2", true, &missing);
	nvml->handle_by_index =
		(nvml_handle_fn)nvml_sym(nvml, "nvmlDeviceGetHandleByIndex_v2", true, &missing);
	nvml->name = (nvml_text_fn)nvml_sym(nvml, "nvmlDeviceGetName", true, &missing);
	nvml->uuid = (nvml_text_fn)nvml_sym(nvml, "nvmlDeviceGetUUID", true, &missing);
	nvml->memory = (nvml_ptr_fn)nvml_sym(nvml, "nvmlDeviceGetMemoryInfo", true, &missing);
	nvml->pci = (nvml_ptr_fn)nvml_sym(nvml, "nvmlDeviceGetPciInfo_v3", true, &missing);
	/* Optional: MIG arrived with R450, minor numbers only matter for
	 * NVIDIA_VISIBLE_DEVICES; without them we fall back gracefully. */
	nvml->minor = (nvml_dev_uint_fn)nvml_sym(nvml, "nvmlDeviceGetMinorNumber", false, &missing);
	nvml->mig_mode = (nvml_mode_fn)nvml_sym(nvml, "nvmlDeviceGetMigMode", false, &missing);
	nvml->mig_max =
		(nvml_dev_uint_fn)nvml_sym(nvml, "nvmlDeviceGetMaxMigDeviceCount", false, &missing);
	nvml->mig_by_index =
		(nvml_mig_fn)nvml_sym(nvml, "nvmlDeviceGetMigDeviceHandleByIndex", false, &missing);
	return missing;
}

/**
 * nvidia_nvml_open: load @library and initialise NVML.
 *
 * Returns: CR_OK; CR_DECLINED when the library is absent or reports that no
 * driver is loaded; CR_ERR_BACKEND when it lacks an entry point or
 * nvmlInit_v2 fails for another reason. The message names the library.
 */
cr_status nvidia_nvml_open(struct nvidia_nvml *nvml, cr_plugin_ctx *ctx, const char *library,
			   cr_error *err)
{
	const char *missing;
	cr_status st;
	int rc;

	memset(nvml, 0, sizeof(*nvml));
	nvml->library = library;
	st = cr_host->dl_open(ctx, library, &nvml->handle, err);
	if (st != CR_OK)
		return st;
	missing = nvml_bind(nvml);
	if (missing != NULL) {
		st = cr_host->error_set(err, CR_ERR_BACKEND, "NVML library '%s' lacks symbol '%s'",
					library, missing);
		goto fail;
	}
	rc = nvml->init();
	if (rc != NVML_SUCCESS) {
		bool absent =
			rc == NVML_ERROR_DRIVER_NOT_LOADED || rc == NVML_ERROR_LIBRARY_NOT_FOUND;

		st = cr_host->error_set(err, absent ? CR_DECLINED : CR_ERR_BACKEND,
					"NVML library '%s': nvmlInit_v2 failed: %s (%d)", library,
					nvml_strerror(nvml, rc), rc);
		goto fail;
	}
	nvml->initialised = true;
	return CR_OK;
fail:
	nvidia_nvml_close(nvml);
	return st;
}

/** nvidia_nvml_close: shut NVML down and unload it. Safe to call twice. */
void nvidia_nvml_close(struct nvidia_nvml *nvml)
{
	if (nvml->initialised)
		nvml->shutdown();
	nvml->initialised = false;
	if (nvml->handle != NULL)
		cr_host->dl_close(nvml->handle);
	nvml->handle = NULL;
}

/* Name, UUID, memory and PCI address of @dev into @gpu. Name and UUID are
 * required; memory and PCI are left unknown when NVML does not say. */
static cr_status nvml_describe(struct nvidia_nvml *nvml, void *dev, struct nvidia_gpu *gpu,
			       const char *what, cr_error *err)
{
	struct nvidia_nvml_memory mem = { 0, 0, 0 };
	struct nvidia_nvml_pci pci;
	int rc;

	rc = nvml->name(dev, gpu->model, sizeof(gpu->model));
	if (rc == NVML_SUCCESS)
		rc = nvml->uuid(dev, gpu->uuid, sizeof(gpu->uuid));
	if (rc != NVML_SUCCESS)
		return cr_host->error_set(err, CR_ERR_BACKEND, "NVML library '%s': %s: %s (%d)",
					  nvml->library, what, nvml_strerror(nvml, rc), rc);
	gpu->model[sizeof(gpu->model) - 1] = '\0';
	gpu->uuid[sizeof(gpu->uuid) - 1] = '\0';
	if (nvml->memory(dev, &mem) == NVML_SUCCESS)
		gpu->memory_bytes = mem.total;
	memset(&pci, 0, sizeof(pci));
	if (nvml->pci(dev, &pci) == NVML_SUCCESS) {
		pci.bus_id[sizeof(pci.bus_id) - 1] = '\0';
		nvidia_bus_id_normalise(pci.bus_id, gpu->pci_bus_id, sizeof(gpu->pci_bus_id));
	}
	return CR_OK;
}

/* Whether MIG mode is currently enabled on @dev (false when unsupported). */
static bool nvml_mig_enabled(struct nvidia_nvml *nvml, void *dev)
{
	unsigned int current = 0, pending = 0;

	if (nvml->mig_mode == NULL || nvml->mig_max == NULL || nvml->mig_by_index == NULL)
		return false;
	if (nvml->mig_mode(dev, &current, &pending) != NVML_SUCCESS)
		return false;
	return current == NVML_DEVICE_MIG_ENABLE;
}

/* Append the MIG instances of GPU @parent (already in @out at @pidx). */
static cr_status nvml_list_mig(struct nvidia_nvml *nvml, cr_plugin_ctx *ctx, void *dev,
			       struct nvidia_gpus *out, size_t pidx, cr_error *err)
{
	struct nvidia_gpu parent = out->v[pidx];
	unsigned int max = 0, j;
	char what[64];
	cr_status st;
	int rc;

	rc = nvml->mig_max(dev, &max);
	if (rc != NVML_SUCCESS)
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"NVML library '%s': GPU %d: nvmlDeviceGetMaxMigDeviceCount: %s (%d)",
			nvml->library, parent.physical_index, nvml_strerror(nvml, rc), rc);
	if (max > NVIDIA_MIG_SLOTS_MAX)
		max = NVIDIA_MIG_SLOTS_MAX;
	for (j = 0; j < max; j++) {
		struct nvidia_gpu *gpu;
		void *mig = NULL;

		rc = nvml->mig_by_index(dev, j, &mig);
		if (rc == NVML_ERROR_NOT_FOUND)
			continue; /* no instance in this slot */
		if (rc != NVML_SUCCESS)
			return cr_host->error_set(
				err, CR_ERR_BACKEND,
				"NVML library '%s': GPU %d: "
				"nvmlDeviceGetMigDeviceHandleByIndex(%u): %s (%d)",
				nvml->library, parent.physical_index, j, nvml_strerror(nvml, rc),
				rc);
		gpu = nvidia_gpus_add(out);
		if (gpu == NULL)
			return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
		snprintf(what, sizeof(what), "GPU %d MIG device %u", parent.physical_index, j);
		st = nvml_describe(nvml, mig, gpu, what, err);
		if (st != CR_OK)
			return st;
		gpu->physical_index = (int)j;
		gpu->parent_index = parent.physical_index;
		gpu->minor = parent.minor;
		nvidia_copy(gpu->parent_uuid, sizeof(gpu->parent_uuid), parent.uuid);
		if (gpu->pci_bus_id[0] == '\0')
			nvidia_copy(gpu->pci_bus_id, sizeof(gpu->pci_bus_id), parent.pci_bus_id);
	}
	cr_host->log(ctx, CR_LOG_DEBUG, "GPU %d (%s) is in MIG mode", parent.physical_index,
		     parent.uuid);
	return CR_OK;
}

/* Append GPU @i, or its MIG instances in its place when @mig applies. */
static cr_status nvml_list_one(struct nvidia_nvml *nvml, cr_plugin_ctx *ctx, unsigned int i,
			       bool mig, struct nvidia_gpus *out, cr_error *err)
{
	struct nvidia_gpu *gpu;
	unsigned int minor = 0;
	void *dev = NULL;
	char what[32];
	cr_status st;
	size_t at;
	int rc;

	rc = nvml->handle_by_index(i, &dev);
	if (rc == NVML_ERROR_NO_PERMISSION) {
		/* Counted by nvmlDeviceGetCount_v2 but closed to this process
		 * (a device cgroup: container, Slurm ConstrainDevices). */
		cr_host->log(ctx, CR_LOG_DEBUG, "GPU %u: no permission; not usable here", i);
		return CR_OK;
	}
	if (rc != NVML_SUCCESS)
		return cr_host->error_set(
			err, CR_ERR_BACKEND,
			"NVML library '%s': nvmlDeviceGetHandleByIndex_v2(%u): %s (%d)",
			nvml->library, i, nvml_strerror(nvml, rc), rc);
	gpu = nvidia_gpus_add(out);
	if (gpu == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	at = out->n - 1;
	snprintf(what, sizeof(what), "GPU %u", i);
	st = nvml_describe(nvml, dev, gpu, what, err);
	if (st != CR_OK)
		return st;
	gpu->physical_index = (int)i;
	if (nvml->minor != NULL && nvml->minor(dev, &minor) == NVML_SUCCESS)
		gpu->minor = (int)minor;
	if (!mig || !nvml_mig_enabled(nvml, dev))
		return CR_OK;
	st = nvml_list_mig(nvml, ctx, dev, out, at, err);
	if (st != CR_OK)
		return st;
	/* The instances replace their parent: drop it, shift them down. */
	memmove(&out->v[at], &out->v[at + 1], (out->n - at - 1) * sizeof(out->v[0]));
	out->n--;
	return CR_OK;
}

/**
 * nvidia_nvml_list: every GPU in NVML order; with @mig, a GPU in MIG mode is
 * replaced by its MIG instances.
 *
 * Returns: CR_OK, or CR_ERR_BACKEND naming the NVML call that failed.
 */
cr_status nvidia_nvml_list(struct nvidia_nvml *nvml, cr_plugin_ctx *ctx, bool mig,
			   struct nvidia_gpus *out, cr_error *err)
{
	unsigned int count = 0, i;
	cr_status st;
	int rc;

	rc = nvml->count(&count);
	if (rc != NVML_SUCCESS)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "NVML library '%s': nvmlDeviceGetCount_v2: %s (%d)",
					  nvml->library, nvml_strerror(nvml, rc), rc);
	for (i = 0; i < count; i++) {
		st = nvml_list_one(nvml, ctx, i, mig, out, err);
		if (st != CR_OK)
			return st;
	}
	return CR_OK;
}
