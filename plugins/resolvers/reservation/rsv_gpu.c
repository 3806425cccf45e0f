/* SPDX-License-Identifier: MIT */
/*
 * rsv_gpu.c - which GPUs a task gets with gpus_per_task = n (TFoS's
 * _get_gpus / get_gpus, with the fixes of tf-semantics §14.18).
 *
 * The GPUs this process may use are CUDA_VISIBLE_DEVICES when it is set
 * (a scheduler's binding, or Spark's resources()["gpu"] put there by the
 * Spark helper), else every GPU NVML lists, by index. With skip_busy_gpus
 * a GPU on which NVML sees compute processes is left out, as TFoS leaves
 * out the GPUs in `nvidia-smi --query-compute-apps`. NVML is loaded at run
 * time (host->dl_open), so the plugin runs where there is none: then only
 * CUDA_VISIBLE_DEVICES gives GPUs, and none are known busy.
 *
 * Tasks of one host share the list in slots of n: slot = local index mod
 * (available div n), so a slot is always whole (TFoS wraps on idx*n and can
 * return an empty or short slice).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reservation.h"

#define NVML_SUCCESS 0
#define NVML_ERROR_INSUFFICIENT_SIZE 7

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_count_fn)(unsigned int *);
typedef int (*nvml_by_index_fn)(unsigned int, void **);
typedef int (*nvml_by_uuid_fn)(const char *, void **);
typedef int (*nvml_procs_fn)(void *, unsigned int *, void *);

typedef struct rsv_nvml {
	void *lib;
	nvml_count_fn count;
	nvml_by_index_fn by_index;
	nvml_by_uuid_fn by_uuid;
	nvml_procs_fn procs;
	nvml_void_fn shutdown;
} rsv_nvml;

void rsv_strv_free(char **v)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

bool rsv_gpu_slot(size_t navailable, int64_t n, int64_t local_index, size_t *first)
{
	int64_t slots;

	if (n <= 0 || (int64_t)navailable < n)
		return false;
	slots = (int64_t)navailable / n;
	*first = (size_t)(((local_index < 0 ? 0 : local_index) % slots) * n);
	return true;
}

/* NVML, when the driver is there and initialises; false otherwise. */
static bool rsv_nvml_open(cr_plugin_ctx *ctx, rsv_nvml *nv)
{
	nvml_void_fn init;
	static const char *const procs_names[] = { "nvmlDeviceGetComputeRunningProcesses_v3",
						   "nvmlDeviceGetComputeRunningProcesses_v2",
						   "nvmlDeviceGetComputeRunningProcesses" };

	memset(nv, 0, sizeof(*nv));
	if (cr_host->dl_open(ctx, "libnvidia-ml.so.1", &nv->lib, NULL) != CR_OK)
		return false;
	init = (nvml_void_fn)cr_host->dl_sym(nv->lib, "nvmlInit_v2");
	nv->count = (nvml_count_fn)cr_host->dl_sym(nv->lib, "nvmlDeviceGetCount_v2");
	nv->by_index = (nvml_by_index_fn)cr_host->dl_sym(nv->lib, "nvmlDeviceGetHandleByIndex_v2");
	nv->by_uuid = (nvml_by_uuid_fn)cr_host->dl_sym(nv->lib, "nvmlDeviceGetHandleByUUID");
	nv->shutdown = (nvml_void_fn)cr_host->dl_sym(nv->lib, "nvmlShutdown");
	for (size_t i = 0; i < 3 && nv->procs == NULL; i++)
		nv->procs = (nvml_procs_fn)cr_host->dl_sym(nv->lib, procs_names[i]);
	if (init == NULL || nv->count == NULL || nv->by_index == NULL || nv->shutdown == NULL ||
	    init() != NVML_SUCCESS) {
		cr_host->log(ctx, CR_LOG_INFO, "NVML did not initialise: no GPU list from it");
		cr_host->dl_close(nv->lib);
		nv->lib = NULL;
		return false;
	}
	return true;
}

static void rsv_nvml_close(rsv_nvml *nv)
{
	if (nv->lib == NULL)
		return;
	nv->shutdown();
	cr_host->dl_close(nv->lib);
}

/* Whether NVML sees compute processes on GPU @id (an index or a UUID).
 * Asking with room for none answers "insufficient size" when there are
 * some, whatever the layout of the process records. */
static bool rsv_nvml_busy(const rsv_nvml *nv, const char *id)
{
	unsigned int count = 0;
	void *dev = NULL;
	char *end = NULL;
	unsigned long idx = strtoul(id, &end, 10);
	int rc;

	if (nv->lib == NULL || nv->procs == NULL)
		return false;
	if (end != id && *end == '\0')
		rc = nv->by_index((unsigned int)idx, &dev);
	else if (nv->by_uuid != NULL)
		rc = nv->by_uuid(id, &dev);
	else
		return false;
	if (rc != NVML_SUCCESS)
		return false;
	rc = nv->procs(dev, &count, NULL);
	return rc == NVML_ERROR_INSUFFICIENT_SIZE || (rc == NVML_SUCCESS && count > 0);
}

static cr_status rsv_push(char ***list, size_t *n, const char *s, size_t len, cr_error *err)
{
	char **bigger = realloc(*list, (*n + 2) * sizeof(char *));

	if (bigger == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	*list = bigger;
	bigger[*n] = strndup(s, len);
	if (bigger[*n] == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	bigger[++*n] = NULL;
	return CR_OK;
}

/* The candidates: CUDA_VISIBLE_DEVICES's entries up to the first "-1" or
 * empty one (where CUDA stops), else NVML's indices. */
static cr_status rsv_gpu_candidates(cr_plugin_ctx *ctx, const rsv_nvml *nv, char ***list, size_t *n,
				    cr_error *err)
{
	const char *cvd = cr_host->getenv(ctx, "CUDA_VISIBLE_DEVICES");
	unsigned int count = 0;
	char num[16];
	cr_status st = CR_OK;

	if (cvd != NULL) {
		while (st == CR_OK && *cvd != '\0') {
			size_t len = strcspn(cvd, ",");

			if (len == 0 || strncmp(cvd, "-1", len) == 0)
				break;
			st = rsv_push(list, n, cvd, len, err);
			cvd += len + (cvd[len] == ',');
		}
		return st;
	}
	if (nv->lib == NULL || nv->count(&count) != NVML_SUCCESS)
		return CR_OK;
	for (unsigned int i = 0; i < count && st == CR_OK; i++) {
		int len = snprintf(num, sizeof(num), "%u", i);

		st = rsv_push(list, n, num, (size_t)len, err);
	}
	return st;
}

cr_status rsv_gpu_available(cr_plugin_ctx *ctx, bool skip_busy, char ***list, size_t *n,
			    cr_error *err)
{
	rsv_nvml nv;
	bool have_nvml = rsv_nvml_open(ctx, &nv);
	size_t kept = 0;
	cr_status st;

	*list = calloc(1, sizeof(char *));
	*n = 0;
	if (*list == NULL) {
		rsv_nvml_close(&nv);
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	}
	st = rsv_gpu_candidates(ctx, &nv, list, n, err);
	for (size_t i = 0; st == CR_OK && i < *n; i++) {
		if (have_nvml && skip_busy && rsv_nvml_busy(&nv, (*list)[i])) {
			cr_host->log(ctx, CR_LOG_INFO,
				     "GPU %s is busy (compute processes): skipped", (*list)[i]);
			free((*list)[i]);
			continue;
		}
		(*list)[kept++] = (*list)[i];
	}
	if (st == CR_OK) {
		(*list)[kept] = NULL;
		*n = kept;
	}
	if (have_nvml)
		rsv_nvml_close(&nv);
	return st;
}

char *rsv_strv_join(char *const *v, size_t from, size_t n, const char *sep)
{
	size_t len = 1, used = 0;
	char *out;

	for (size_t i = from; i < from + n; i++)
		len += strlen(v[i]) + strlen(sep);
	out = malloc(len);
	if (out == NULL)
		return NULL;
	out[0] = '\0';
	for (size_t i = from; i < from + n; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i > from ? sep : "", v[i]);
	return out;
}
