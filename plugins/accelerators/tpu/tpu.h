/* SPDX-License-Identifier: MIT */
/*
 * tpu.h - internal interfaces of the tpu accelerator plugin.
 *
 * chips.c finds the host's TPU chips (device nodes + PCI ids), visible.c
 * applies TPU_VISIBLE_CHIPS / TPU_CHIPS_PER_PROCESS_BOUNDS, tpu.c reports
 * them the way TensorFlow counts TPU devices.
 */
#ifndef CR_PLUGIN_TPU_H
#define CR_PLUGIN_TPU_H

#include <cluster-resolver/plugin.h>

#define TPU_GOOGLE_VENDOR 0x1ae0u
#define TPU_ADDR_MAX 32

/**
 * tpu_generation: one row of the PCI id table (docs/accelerators.md).
 * @device: PCI device id; @subsystem: PCI subsystem device id, 0 = any.
 * @model: "v4", ...; NULL when the row only says "a TPU".
 * @devices_per_chip: TPU devices TensorFlow lists per chip (TensorCores,
 *     or 1 where a megacore chip is one device).
 */
struct tpu_generation {
	unsigned int device;
	unsigned int subsystem;
	const char *model;
	int devices_per_chip;
};

/** tpu_chip: one chip this host has, in chip-index order. */
struct tpu_chip {
	char pci_bus_id[TPU_ADDR_MAX];    /* "" when unknown */
	const struct tpu_generation *gen; /* NULL when unknown */
};

/** tpu_chips: the host's chips; index i is chip i (TPU_VISIBLE_CHIPS). */
struct tpu_chips {
	struct tpu_chip *v;
	size_t n;
	const char *style; /* "accel" or "vfio" */
};

/** tpu_pick: a chip the process may use. */
struct tpu_pick {
	size_t chip;
	const char *visible_by; /* static, or NULL */
};

/* chips.c */
const struct tpu_generation *tpu_generation_lookup(unsigned int device, unsigned int subsystem);
cr_status tpu_chips_find(cr_plugin_ctx *ctx, const char *root, struct tpu_chips *out,
			 cr_error *err);
void tpu_chips_free(struct tpu_chips *chips);

/* visible.c */
cr_status tpu_visible_apply(cr_plugin_ctx *ctx, const struct tpu_chips *chips,
			    struct tpu_pick **picks, size_t *count, cr_error *err);

#endif /* CR_PLUGIN_TPU_H */
