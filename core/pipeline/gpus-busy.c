/* SPDX-License-Identifier: MIT */
/*
 * gpus-busy.c - which GPUs have compute processes on them, for
 * `skip_busy_gpus` (gpus.c; TensorFlowOnSpark leaves out the GPUs that
 * `nvidia-smi --query-compute-apps` lists). NVML is loaded at run time with
 * the host's dl_open, as the nvidia plugin loads it: the library its
 * `library` option names when that plugin reported the GPUs, else
 * libnvidia-ml.so.1. Where NVML is absent or fails, no GPU is known busy
 * (said at info level): the choice goes on with every GPU.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"

#define NVML_SUCCESS 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_by_index_fn)(unsigned int, void **);
typedef int (*nvml_by_uuid_fn)(const char *, void **);
typedef int (*nvml_procs_fn)(void *, unsigned int *, void *);

typedef struct busy_nvml {
	void *lib;
	nvml_by_index_fn by_index;
	nvml_by_uuid_fn by_uuid;
	nvml_procs_fn procs;
	nvml_void_fn shutdown;
} busy_nvml;

/* The library @from (the accelerator instance that reported the GPUs)
 * loads, when its plugin has a `library` option; else NVML's soname. */
static const char *busy_library(cr_instance *from)
{
	const cr_option *o = from != NULL ? schema_find(from->plugin->desc, "library") : NULL;
	const char *lib = NULL;

	if (o != NULL && o->type == CR_OPT_STRING)
		lib = host_api()->opt_string(&from->pctx, "library");
	return lib != NULL && *lib != '\0' ? lib : "libnvidia-ml.so.1";
}

static bool busy_open(cr_context *ctx, cr_instance *from, busy_nvml *nv)
{
	static const char *const procs_names[] = { "nvmlDeviceGetComputeRunningProcesses_v3",
						   "nvmlDeviceGetComputeRunningProcesses_v2",
						   "nvmlDeviceGetComputeRunningProcesses" };
	const cr_host_api *h = host_api();
	const char *lib = busy_library(from);
	cr_error e = CR_ERROR_INIT;
	nvml_void_fn init;

	memset(nv, 0, sizeof(*nv));
	if (h->dl_open(from != NULL ? &from->pctx : NULL, lib, &nv->lib, &e) != CR_OK) {
		ctx_log(ctx, CR_LOG_INFO, "gpus", "skip_busy_gpus: %s; no GPU is known busy",
			e.message);
		return false;
	}
	init = (nvml_void_fn)h->dl_sym(nv->lib, "nvmlInit_v2");
	nv->by_index = (nvml_by_index_fn)h->dl_sym(nv->lib, "nvmlDeviceGetHandleByIndex_v2");
	nv->by_uuid = (nvml_by_uuid_fn)h->dl_sym(nv->lib, "nvmlDeviceGetHandleByUUID");
	nv->shutdown = (nvml_void_fn)h->dl_sym(nv->lib, "nvmlShutdown");
	for (size_t i = 0; i < G_N_ELEMENTS(procs_names) && nv->procs == NULL; i++)
		nv->procs = (nvml_procs_fn)h->dl_sym(nv->lib, procs_names[i]);
	if (init == NULL || nv->shutdown == NULL || nv->procs == NULL || init() != NVML_SUCCESS) {
		ctx_log(ctx, CR_LOG_INFO, "gpus",
			"skip_busy_gpus: NVML (%s) did not initialise; no GPU is known busy", lib);
		h->dl_close(nv->lib);
		nv->lib = NULL;
		return false;
	}
	return true;
}

/* Whether NVML sees compute processes on GPU @key (a UUID, or an index in
 * decimal). Asking with room for none answers "insufficient size" when
 * there are some, whatever the layout of the process records. */
static bool busy_one(const busy_nvml *nv, const char *key)
{
	unsigned int count = 0;
	void *dev = NULL;
	char *end = NULL;
	unsigned long idx = strtoul(key, &end, 10);
	int rc;

	if (end != key && *end == '\0' && nv->by_index != NULL)
		rc = nv->by_index((unsigned int)idx, &dev);
	else if (nv->by_uuid != NULL)
		rc = nv->by_uuid(key, &dev);
	else
		return false;
	if (rc != NVML_SUCCESS)
		return false;
	rc = nv->procs(dev, &count, NULL);
	return rc == NVML_ERROR_INSUFFICIENT_SIZE || (rc == NVML_SUCCESS && count > 0);
}

void gpus_busy_mark(cr_context *ctx, cr_instance *from, const char *const *keys, size_t n,
		    bool *busy)
{
	busy_nvml nv;

	memset(busy, 0, n * sizeof(bool));
	if (!busy_open(ctx, from, &nv))
		return;
	for (size_t i = 0; i < n; i++)
		busy[i] = keys[i] != NULL && busy_one(&nv, keys[i]);
	nv.shutdown();
	host_api()->dl_close(nv.lib);
}
