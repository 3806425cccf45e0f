/* SPDX-License-Identifier: MIT */
/*
 * chips.c - the TPU chips of this host.
 *
 * Two layouts exist. Up to v4, the TPU driver creates /dev/accel0..N, one
 * node per chip. From v5e on, chips are driven from user space through
 * VFIO: /dev/vfio/<group> per chip, the group's PCI functions listed in
 * /sys/kernel/iommu_groups/<group>/devices. In both, the generation comes
 * from the PCI ids in /sys/bus/pci/devices/<addr>/{vendor,device,
 * subsystem_device} (Google's vendor id is 0x1ae0; the table below).
 * A chip without a device node is not usable by this process and is not
 * counted.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpu.h"

/* PCI ids of TPU chips; sources in docs/accelerators.md. */
static const struct tpu_generation tpu_table[] = {
	{ 0x0027, 0x004e, "v2", 2 }, { 0x0027, 0x004f, "v3", 2 },
	{ 0x0027, 0, NULL, 2 }, /* v2 or v3, subsystem id unknown */
	{ 0x005e, 0, "v4", 1 },      { 0x0063, 0, "v5e", 1 },
	{ 0x0062, 0, "v5p", 1 },     { 0x006f, 0, "v6e", 1 },
	{ 0x0076, 0, "7x", 2 },
};

/* A Google TPU function found on the PCI bus. */
struct tpu_pci {
	char addr[TPU_ADDR_MAX];
	const struct tpu_generation *gen;
	bool bound;
};

/** tpu_generation_lookup: the table row for these ids, or NULL. */
const struct tpu_generation *tpu_generation_lookup(unsigned int device, unsigned int subsystem)
{
	size_t i;

	for (i = 0; i < sizeof(tpu_table) / sizeof(tpu_table[0]); i++) {
		const struct tpu_generation *g = &tpu_table[i];

		if (g->device == device && (g->subsystem == 0 || g->subsystem == subsystem))
			return g;
	}
	return NULL;
}

/* Read a sysfs id file ("0x1ae0\n"). CR_ERR_NOT_FOUND passes through. */
static cr_status tpu_read_hex(cr_plugin_ctx *ctx, const char *path, unsigned int *out,
			      cr_error *err)
{
	char *text = NULL, *end;
	unsigned long v;
	cr_status st;
	size_t len;

	st = cr_host->read_file(ctx, path, 64, &text, &len, err);
	if (st != CR_OK)
		return st;
	v = strtoul(text, &end, 16);
	while (*end == '\n' || *end == ' ')
		end++;
	if (end == text || *end != '\0' || strncmp(text, "0x", 2) != 0 || v > 0xffff)
		st = cr_host->error_set(err, CR_ERR_PARSE, "'%s': '%.16s' is not a PCI id", path,
					text);
	else
		*out = (unsigned int)v;
	cr_host->free(text);
	return st;
}

/* Classify the PCI function @name; sets *@gen to NULL when not a TPU. */
static cr_status tpu_pci_one(cr_plugin_ctx *ctx, const char *dir, const char *name,
			     const struct tpu_generation **gen, cr_error *err)
{
	unsigned int vendor = 0, device = 0, subsystem = 0;
	char path[PATH_MAX];
	cr_status st;

	*gen = NULL;
	snprintf(path, sizeof(path), "%s/%s/vendor", dir, name);
	st = tpu_read_hex(ctx, path, &vendor, err);
	if (st == CR_ERR_NOT_FOUND)
		return CR_OK;
	if (st != CR_OK || vendor != TPU_GOOGLE_VENDOR)
		return st;
	snprintf(path, sizeof(path), "%s/%s/device", dir, name);
	st = tpu_read_hex(ctx, path, &device, err);
	if (st != CR_OK)
		return st;
	snprintf(path, sizeof(path), "%s/%s/subsystem_device", dir, name);
	st = tpu_read_hex(ctx, path, &subsystem, err);
	if (st != CR_OK && st != CR_ERR_NOT_FOUND)
		return st;
	*gen = tpu_generation_lookup(device, subsystem);
	return CR_OK;
}

/* Every TPU function under @root/sys/bus/pci/devices, in address order. */
static cr_status tpu_pci_scan(cr_plugin_ctx *ctx, const char *root, struct tpu_pci **out, size_t *n,
			      cr_error *err)
{
	const struct tpu_generation *gen;
	char dir[PATH_MAX];
	char **names = NULL;
	cr_status st;
	size_t i, count;

	*out = NULL;
	*n = 0;
	snprintf(dir, sizeof(dir), "%s/sys/bus/pci/devices", root);
	st = cr_host->list_dir(ctx, dir, &names, err);
	if (st == CR_ERR_NOT_FOUND)
		return CR_OK;
	if (st != CR_OK)
		return st;
	for (count = 0; names[count] != NULL; count++)
		;
	*out = calloc(count + 1, sizeof(**out));
	if (*out == NULL) {
		st = cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < count; i++) {
		st = tpu_pci_one(ctx, dir, names[i], &gen, err);
		if (st != CR_OK)
			goto out;
		if (gen == NULL)
			continue;
		snprintf((*out)[*n].addr, sizeof((*out)[*n].addr), "%s", names[i]);
		(*out)[(*n)++].gen = gen;
	}
out:
	cr_host->strv_free(names);
	return st;
}

/* Numbers N of the entries "<prefix>N" of @dir, ascending. */
static cr_status tpu_nodes(cr_plugin_ctx *ctx, const char *dir, const char *prefix, long **out,
			   size_t *n, cr_error *err)
{
	size_t plen = strlen(prefix), i, count;
	char **names = NULL;
	cr_status st;

	*out = NULL;
	*n = 0;
	st = cr_host->list_dir(ctx, dir, &names, err);
	if (st == CR_ERR_NOT_FOUND)
		return CR_OK;
	if (st != CR_OK)
		return st;
	for (count = 0; names[count] != NULL; count++)
		;
	*out = calloc(count + 1, sizeof(**out));
	if (*out == NULL) {
		cr_host->strv_free(names);
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < count; i++) {
		const char *num = names[i] + plen;
		char *end;
		long v;

		if (strncmp(names[i], prefix, plen) != 0 || *num < '0' || *num > '9')
			continue;
		v = strtol(num, &end, 10);
		if (*end != '\0')
			continue;
		for (size_t j = (*n)++;; j--) { /* insertion sort: few entries */
			if (j == 0 || (*out)[j - 1] <= v) {
				(*out)[j] = v;
				break;
			}
			(*out)[j] = (*out)[j - 1];
		}
	}
	cr_host->strv_free(names);
	return CR_OK;
}

/* The one generation all @pci functions share (NULL when none). */
static cr_status tpu_common_gen(const struct tpu_pci *pci, size_t n,
				const struct tpu_generation **gen, cr_error *err)
{
	size_t i;

	*gen = n ? pci[0].gen : NULL;
	for (i = 1; i < n; i++)
		if (pci[i].gen != *gen)
			return cr_host->error_set(
				err, CR_ERR_CONFLICT,
				"TPU chips of two generations on one host: %s at %s, %s at %s",
				(*gen)->model ? (*gen)->model : "v2/v3", pci[0].addr,
				pci[i].gen->model ? pci[i].gen->model : "v2/v3", pci[i].addr);
	return CR_OK;
}

/* accel layout: one chip per /dev/accelN, paired with PCI by order. */
static cr_status tpu_chips_accel(cr_plugin_ctx *ctx, const struct tpu_pci *pci, size_t npci,
				 size_t nodes, struct tpu_chips *out, cr_error *err)
{
	const struct tpu_generation *gen;
	cr_status st;
	size_t i;

	st = tpu_common_gen(pci, npci, &gen, err);
	if (st != CR_OK)
		return st;
	if (gen == NULL)
		cr_host->log(ctx, CR_LOG_WARNING,
			     "%zu /dev/accel nodes but no TPU on the PCI bus: generation unknown, "
			     "counting chips",
			     nodes);
	out->v = calloc(nodes, sizeof(*out->v));
	if (out->v == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	for (i = 0; i < nodes; i++) {
		out->v[i].gen = gen;
		if (npci == nodes)
			snprintf(out->v[i].pci_bus_id, sizeof(out->v[i].pci_bus_id), "%s",
				 pci[i].addr);
	}
	out->n = nodes;
	out->style = "accel";
	return CR_OK;
}

/* Mark the PCI functions whose IOMMU group has a /dev/vfio node. */
static cr_status tpu_vfio_bind(cr_plugin_ctx *ctx, const char *root, const long *groups,
			       size_t ngroups, struct tpu_pci *pci, size_t npci, cr_error *err)
{
	char path[PATH_MAX];
	char **names = NULL;
	cr_status st;
	size_t g, i, k;

	snprintf(path, sizeof(path), "%s/sys/kernel/iommu_groups", root);
	st = cr_host->list_dir(ctx, path, &names, err);
	cr_host->strv_free(names);
	if (st == CR_ERR_NOT_FOUND) { /* no IOMMU view: trust the PCI bus */
		for (i = 0; i < npci; i++)
			pci[i].bound = true;
		return CR_OK;
	}
	if (st != CR_OK)
		return st;
	for (g = 0; g < ngroups; g++) {
		snprintf(path, sizeof(path), "%s/sys/kernel/iommu_groups/%ld/devices", root,
			 groups[g]);
		names = NULL;
		st = cr_host->list_dir(ctx, path, &names, err);
		if (st == CR_ERR_NOT_FOUND)
			continue;
		if (st != CR_OK)
			return st;
		for (k = 0; names[k] != NULL; k++)
			for (i = 0; i < npci; i++)
				if (strcmp(names[k], pci[i].addr) == 0)
					pci[i].bound = true;
		cr_host->strv_free(names);
	}
	return CR_OK;
}

/* vfio layout: the PCI TPU functions that have a /dev/vfio group node. */
static cr_status tpu_chips_vfio(cr_plugin_ctx *ctx, const char *root, const long *groups,
				size_t ngroups, struct tpu_pci *pci, size_t npci,
				struct tpu_chips *out, cr_error *err)
{
	const struct tpu_generation *gen;
	cr_status st;
	size_t i;

	st = tpu_common_gen(pci, npci, &gen, err);
	if (st == CR_OK)
		st = tpu_vfio_bind(ctx, root, groups, ngroups, pci, npci, err);
	if (st != CR_OK)
		return st;
	out->v = calloc(npci + 1, sizeof(*out->v));
	if (out->v == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	for (i = 0; i < npci; i++) {
		if (!pci[i].bound)
			continue;
		out->v[out->n].gen = pci[i].gen;
		snprintf(out->v[out->n].pci_bus_id, sizeof(out->v[out->n].pci_bus_id), "%s",
			 pci[i].addr);
		out->n++;
	}
	out->style = "vfio";
	return CR_OK;
}

/**
 * tpu_chips_find: the TPU chips under @root this process can open.
 * Returns: CR_OK with at least one chip; CR_DECLINED when there is none;
 * CR_ERR_IO / CR_ERR_PARSE naming an unreadable or malformed sysfs file;
 * CR_ERR_CONFLICT for chips of two generations.
 */
cr_status tpu_chips_find(cr_plugin_ctx *ctx, const char *root, struct tpu_chips *out, cr_error *err)
{
	struct tpu_pci *pci = NULL;
	long *accel = NULL, *vfio = NULL;
	size_t npci = 0, naccel = 0, nvfio = 0;
	char dir[PATH_MAX];
	cr_status st;

	memset(out, 0, sizeof(*out));
	st = tpu_pci_scan(ctx, root, &pci, &npci, err);
	if (st != CR_OK)
		goto out;
	snprintf(dir, sizeof(dir), "%s/dev", root);
	st = tpu_nodes(ctx, dir, "accel", &accel, &naccel, err);
	if (st != CR_OK)
		goto out;
	snprintf(dir, sizeof(dir), "%s/dev/vfio", root);
	st = tpu_nodes(ctx, dir, "", &vfio, &nvfio, err);
	if (st != CR_OK)
		goto out;
	if (naccel > 0)
		st = tpu_chips_accel(ctx, pci, npci, naccel, out, err);
	else if (nvfio > 0 && npci > 0)
		st = tpu_chips_vfio(ctx, root, vfio, nvfio, pci, npci, out, err);
	if (st == CR_OK && naccel == 0 && nvfio == 0)
		/* The words of accelerators/tpu.applies (test manifest-reasons). */
		st = cr_host->error_set(err, CR_DECLINED,
					"no TPU: no %s/dev/accel* or %s/dev/vfio/N node", root,
					root);
	else if (st == CR_OK && out->n == 0)
		st = cr_host->error_set(err, CR_DECLINED,
					"no TPU: %zu TPU PCI functions, no usable %s/dev/accel* "
					"or %s/dev/vfio/N node",
					npci, root, root);
out:
	free(pci);
	free(accel);
	free(vfio);
	if (st != CR_OK)
		tpu_chips_free(out);
	return st;
}

/** tpu_chips_free: release the chip array. */
void tpu_chips_free(struct tpu_chips *chips)
{
	free(chips->v);
	chips->v = NULL;
	chips->n = 0;
}
