/* SPDX-License-Identifier: MIT */
/*
 * nvidia.h - internal interfaces of the nvidia accelerator plugin.
 *
 * The plugin has three sources of truth, tried in order: NVML loaded with
 * host->dl_open (nvml.c), the driver's /proc/driver/nvidia/gpus tree
 * (procfs.c), and the binding variables CUDA_VISIBLE_DEVICES and
 * NVIDIA_VISIBLE_DEVICES that narrow what a process may use (mask.c).
 * Nothing here is exported from nvidia.so.
 */
#ifndef CR_PLUGIN_NVIDIA_H
#define CR_PLUGIN_NVIDIA_H

#include <cluster-resolver/plugin.h>

#define NVIDIA_MODEL_MAX 96 /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define NVIDIA_UUID_MAX 96  /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */
#define NVIDIA_BUS_MAX 32   /* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */

/**
 * nvidia_gpu: one device as the host sees it, before any masking.
 * @physical_index: NVML index of a GPU; for a MIG instance, its index
 *     inside the parent GPU (nvidia-smi's "MIG ... Device N").
 * @parent_index: physical index of the parent GPU of a MIG instance, or -1.
 * @minor: N of /dev/nvidiaN (of the parent for MIG), or -1 when unknown.
 * @parent_uuid: UUID of the parent GPU of a MIG instance, else "".
 */
struct nvidia_gpu {
	char model[NVIDIA_MODEL_MAX];
	char uuid[NVIDIA_UUID_MAX];
	char parent_uuid[NVIDIA_UUID_MAX];
	char pci_bus_id[NVIDIA_BUS_MAX];
	uint64_t memory_bytes;
	int physical_index;
	int parent_index;
	int minor;
};

/** nvidia_gpus: a growable array of devices in host order. */
struct nvidia_gpus {
	struct nvidia_gpu *v;
	size_t n;
	size_t cap;
};

/** nvidia_pick: one device the process may use, in the order it sees them. */
struct nvidia_pick {
	size_t gpu;             /* index into nvidia_gpus.v */
	const char *visible_by; /* static: the variable that selected it, or NULL */
};

/** nvidia_nvml: the loaded NVML library and the entry points we call. */
struct nvidia_nvml {
	void *handle;
	bool initialised;
	const char *library;
	int (*init)(void);
	int (*shutdown)(void);
	int (*count)(unsigned int *count);
	int (*handle_by_index)(unsigned int index, void **device);
	int (*name)(void *device, char *name, unsigned int length);
	int (*uuid)(void *device, char *uuid, unsigned int length);
	int (*memory)(void *device, void *memory);
	int (*pci)(void *device, void *pci);
	int (*minor)(void *device, unsigned int *minor);
	int (*mig_mode)(void *device, unsigned int *current, unsigned int *pending);
	int (*mig_max)(void *device, unsigned int *count);
	int (*mig_by_index)(void *device, unsigned int index, void **mig);
	const char *(*error_string)(int result);
};

/* gpus.c-like helpers (mask.c) */
struct nvidia_gpu *nvidia_gpus_add(struct nvidia_gpus *list);
void nvidia_gpus_free(struct nvidia_gpus *list);
void nvidia_copy(char *dst, size_t size, const char *src);
bool nvidia_bus_id_normalise(const char *in, char *out, size_t size);

/* nvml.c */
cr_status nvidia_nvml_open(struct nvidia_nvml *nvml, cr_plugin_ctx *ctx, const char *library,
			   cr_error *err);
cr_status nvidia_nvml_list(struct nvidia_nvml *nvml, cr_plugin_ctx *ctx, bool mig,
			   struct nvidia_gpus *out, cr_error *err);
void nvidia_nvml_close(struct nvidia_nvml *nvml);

/* procfs.c */
cr_status nvidia_procfs_probe(cr_plugin_ctx *ctx, const char *root, cr_error *err);
cr_status nvidia_procfs_list(cr_plugin_ctx *ctx, const char *root, struct nvidia_gpus *out,
			     cr_error *err);

/* mask.c */
cr_status nvidia_mask_apply(cr_plugin_ctx *ctx, const struct nvidia_gpus *gpus,
			    struct nvidia_pick **picks, size_t *count, cr_error *err);

#endif /* CR_PLUGIN_NVIDIA_H */
