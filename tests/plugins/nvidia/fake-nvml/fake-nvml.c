/* SPDX-License-Identifier: MIT */
/*
 * fake-nvml.c - a test stand-in for NVIDIA's libnvidia-ml.so.1.
 *
 * It exports the NVML entry points the nvidia plugin calls, with the
 * signatures and return codes of the public NVML API reference, and serves
 * devices described in the text file named by $FAKE_NVML_CONFIG:
 *
 *   # comment
 *   init RC            nvmlInit_v2 returns RC (e.g. 9 = Driver Not Loaded)
 *   count RC           nvmlDeviceGetCount_v2 returns RC
 *   deny INDEX         nvmlDeviceGetHandleByIndex_v2(INDEX) answers No
 *                      Permission, as for a GPU outside the device cgroup
 *   busy INDEX         GPU INDEX runs a compute process (one, pid 4242)
 *   gpu UUID MEMORY PCI MINOR MIG NAME...
 *                      a GPU: memory in bytes, NVML bus id, /dev/nvidiaMINOR,
 *                      MIG mode 0|1, and the product name (rest of the line)
 *   mig UUID MEMORY SLOT NAME...
 *                      a MIG instance of the GPU above, at MIG index SLOT
 *
 * No file (or FAKE_NVML_CONFIG unset) means a driver with no GPU; an
 * unreadable or malformed file makes nvmlInit_v2 fail with Unknown Error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_UNKNOWN 999

#define FAKE_MAX_GPUS 16
#define FAKE_MAX_MIG 7

typedef int nvmlReturn_t;
typedef struct fake_device *nvmlDevice_t;

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;

/* nvmlProcessInfo_t of NVML 12 (the _v3 call). */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

struct fake_device {
	char uuid[96];
	char name[96];
	char pci[32];
	unsigned long long memory;
	unsigned int minor;
	unsigned int mig_mode;
	int denied;
	int busy;
	struct fake_device *mig[FAKE_MAX_MIG]; /* by slot; NULL = empty slot */
	struct fake_device *parent;
};

/* The exported entry points (prototypes keep -Wmissing-prototypes quiet). */
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minor);
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current,
				  unsigned int *pending);
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count);
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
						 nvmlDevice_t *mig);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count,
						     nvmlProcessInfo_t *infos);

static struct fake_device fake_gpus[FAKE_MAX_GPUS];
static struct fake_device fake_migs[FAKE_MAX_GPUS * FAKE_MAX_MIG];
static unsigned int fake_ngpus, fake_nmigs;
static int fake_refs;
static nvmlReturn_t fake_count_rc;

static void fake_rest(char *dst, size_t size, const char *src)
{
	while (*src == ' ' || *src == '\t')
		src++;
	snprintf(dst, size, "%s", src);
	dst[strcspn(dst, "\r\n")] = '\0';
}

/* One line of the config; returns 0, or -1 when malformed. */
static int fake_line(const char *line, nvmlReturn_t *init_rc)
{
	struct fake_device *d;
	unsigned int slot;
	int used = 0;

	if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
		return 0;
	if (sscanf(line, "init %d", init_rc) == 1)
		return 0;
	if (sscanf(line, "count %d", &fake_count_rc) == 1)
		return 0;
	if (sscanf(line, "deny %u", &slot) == 1 && slot < FAKE_MAX_GPUS) {
		fake_gpus[slot].denied = 1;
		return 0;
	}
	if (sscanf(line, "busy %u", &slot) == 1 && slot < FAKE_MAX_GPUS) {
		fake_gpus[slot].busy = 1;
		return 0;
	}
	if (strncmp(line, "gpu ", 4) == 0 && fake_ngpus < FAKE_MAX_GPUS) {
		d = &fake_gpus[fake_ngpus];
		if (sscanf(line, "gpu %95s %llu %31s %u %u %n", d->uuid, &d->memory, d->pci,
			   &d->minor, &d->mig_mode, &used) < 5 ||
		    used == 0)
			return -1;
		fake_rest(d->name, sizeof(d->name), line + used);
		fake_ngpus++;
		return 0;
	}
	if (strncmp(line, "mig ", 4) == 0 && fake_ngpus > 0 &&
	    fake_nmigs < FAKE_MAX_GPUS * FAKE_MAX_MIG) {
		d = &fake_migs[fake_nmigs];
		if (sscanf(line, "mig %95s %llu %u %n", d->uuid, &d->memory, &slot, &used) < 3 ||
		    used == 0 || slot >= FAKE_MAX_MIG)
			return -1;
		fake_rest(d->name, sizeof(d->name), line + used);
		d->parent = &fake_gpus[fake_ngpus - 1];
		snprintf(d->pci, sizeof(d->pci), "%s", d->parent->pci);
		d->parent->mig[slot] = d;
		fake_nmigs++;
		return 0;
	}
	return -1;
}

static nvmlReturn_t fake_load(void)
{
	const char *path = getenv("FAKE_NVML_CONFIG");
	nvmlReturn_t init_rc = NVML_SUCCESS;
	char line[512];
	FILE *f;

	memset(fake_gpus, 0, sizeof(fake_gpus));
	memset(fake_migs, 0, sizeof(fake_migs));
	fake_ngpus = fake_nmigs = 0;
	fake_count_rc = NVML_SUCCESS;
	if (path == NULL || path[0] == '\0')
		return NVML_SUCCESS;
	f = fopen(path, "r");
	if (f == NULL)
		return NVML_ERROR_UNKNOWN;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (fake_line(line, &init_rc) != 0) {
			init_rc = NVML_ERROR_UNKNOWN;
			break;
		}
	}
	fclose(f);
	return init_rc;
}

nvmlReturn_t nvmlInit_v2(void)
{
	nvmlReturn_t rc;

	if (fake_refs > 0) {
		fake_refs++;
		return NVML_SUCCESS;
	}
	rc = fake_load();
	if (rc == NVML_SUCCESS)
		fake_refs = 1;
	return rc;
}

nvmlReturn_t nvmlShutdown(void)
{
	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	fake_refs--;
	return NVML_SUCCESS;
}

const char *nvmlErrorString(nvmlReturn_t result)
{
	switch (result) {
	case 0:
		return "Success";
	case 1:
		return "Uninitialized";
	case 2:
		return "Invalid Argument";
	case 3:
		return "Not Supported";
	case 4:
		return "Insufficient Permissions";
	case 6:
		return "Not Found";
	case 7:
		return "Insufficient Size";
	case 9:
		return "Driver Not Loaded";
	case 12:
		return "NVML Shared Library Not Found";
	case 15:
		return "GPU is lost";
	default:
		return "Unknown Error";
	}
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (count == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (fake_count_rc != NVML_SUCCESS)
		return fake_count_rc;
	*count = fake_ngpus;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (device == NULL || index >= fake_ngpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (fake_gpus[index].denied)
		return NVML_ERROR_NO_PERMISSION;
	*device = &fake_gpus[index];
	return NVML_SUCCESS;
}

static nvmlReturn_t fake_text(nvmlDevice_t device, char *out, unsigned int length, const char *text)
{
	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (device == NULL || out == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(text) >= length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(out, text, strlen(text) + 1);
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	return fake_text(device, name, length, device ? device->name : "");
}

#ifndef FAKE_NVML_WITHOUT_UUID
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	return fake_text(device, uuid, length, device ? device->uuid : "");
}
#endif

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (device == NULL || memory == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	memory->total = device->memory;
	memory->used = device->memory / 100;
	memory->free = memory->total - memory->used;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (device == NULL || pci == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(pci, 0, sizeof(*pci));
	snprintf(pci->busId, sizeof(pci->busId), "%s", device->pci);
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%s", device->pci + 4);
	if (sscanf(device->pci, "%x:%x:%x", &pci->domain, &pci->bus, &pci->device) != 3)
		return NVML_ERROR_UNKNOWN;
	pci->pciDeviceId = 0x20b010de; /* device id << 16 | NVIDIA's vendor id */
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minor)
{
	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (device == NULL || minor == NULL || device->parent != NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	*minor = device->minor;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current, unsigned int *pending)
{
	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (device == NULL || current == NULL || pending == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (device->parent != NULL)
		return NVML_ERROR_NOT_SUPPORTED;
	*current = *pending = device->mig_mode;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (device == NULL || count == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!device->mig_mode)
		return NVML_ERROR_NOT_SUPPORTED;
	*count = FAKE_MAX_MIG;
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
						 nvmlDevice_t *mig)
{
	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (device == NULL || mig == NULL || index >= FAKE_MAX_MIG)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!device->mig_mode)
		return NVML_ERROR_NOT_SUPPORTED;
	if (device->mig[index] == NULL)
		return NVML_ERROR_NOT_FOUND;
	*mig = device->mig[index];
	return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (uuid == NULL || device == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (unsigned int i = 0; i < fake_ngpus; i++)
		if (strcmp(fake_gpus[i].uuid, uuid) == 0) {
			*device = &fake_gpus[i];
			return NVML_SUCCESS;
		}
	for (unsigned int i = 0; i < fake_nmigs; i++)
		if (strcmp(fake_migs[i].uuid, uuid) == 0) {
			*device = &fake_migs[i];
			return NVML_SUCCESS;
		}
	return NVML_ERROR_NOT_FOUND;
}

/* A busy GPU (or a MIG instance of one) runs one process. As NVML: with
 * room for fewer records than there are, *count is set and the answer is
 * Insufficient Size. */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count,
						     nvmlProcessInfo_t *infos)
{
	unsigned int n;

	if (fake_refs == 0)
		return NVML_ERROR_UNINITIALIZED;
	if (device == NULL || count == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	n = (device->parent != NULL ? device->parent->busy : device->busy) ? 1 : 0;
	if (*count < n) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = n;
	if (n > 0 && infos != NULL) {
		memset(infos, 0, sizeof(*infos));
		infos->pid = 4242;
	}
	return NVML_SUCCESS;
}
