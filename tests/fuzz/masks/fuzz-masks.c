/* SPDX-License-Identifier: MIT */
/*
 * fuzz-masks.c - libFuzzer target for the visible-devices masks: the nvidia
 * plugin's NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES (mask.c) and the
 * tpu accelerator's TPU_VISIBLE_CHIPS / TPU_CHIPS_PER_PROCESS_BOUNDS
 * (visible.c), on a small host table made here (the core's error_setv).
 * Input: byte 0 picks the plugin (even: nvidia, odd: tpu) and, in its
 * bits above, the host's device count (0..15: GPUs "GPU-0000000N-…" with
 * minor N, the last two of them MIG instances of GPU 0 when bit 7 is
 * set; or TPU chips); the rest is two lines, the first variable and the
 * second ("-" leaves one unset, a missing line too).
 * Properties: an error is CR_ERR_PARSE or CR_ERR_CONFLICT with a one-line
 * message naming one of the variables, and no picks; an answer picks
 * distinct existing devices, tagged with a variable only when one is set
 * (every device when none is); TPU picks keep host order and are tagged
 * exactly when a variable chose them. The picks written back as a list of
 * indices (CUDA_VISIBLE_DEVICES alone, without MIG; TPU_VISIBLE_CHIPS
 * alone) pick the same devices in the same order.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "nvidia.h"
#include "tpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* core/values/error.c: the host's own message rules (one line) */
cr_status error_setv(cr_error *err, cr_status code, const char *fmt, va_list ap);

static const char *env_names[2];
static char *env_values[2];

static cr_status fz_error_set(cr_error *err, cr_status code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(err, code, fmt, ap);
	va_end(ap);
	return code;
}

static void fz_log(cr_plugin_ctx *ctx, cr_log_level level, const char *fmt, ...)
{
	(void)ctx;
	(void)level;
	(void)fmt;
}

static const char *fz_getenv(cr_plugin_ctx *ctx, const char *name)
{
	(void)ctx;
	for (int i = 0; i < 2; i++)
		if (env_names[i] != NULL && strcmp(name, env_names[i]) == 0)
			return env_values[i];
	return NULL;
}

static const cr_host_api fz_host = {
	.struct_size = sizeof(cr_host_api),
	.error_set = fz_error_set,
	.log = fz_log,
	.getenv = fz_getenv,
};

const cr_host_api *cr_host = &fz_host;

static void check_error(cr_status st, const cr_error *err, size_t count, const void *picks)
{
	if (st != CR_ERR_PARSE && st != CR_ERR_CONFLICT)
		abort();
	if (count != 0 || picks != NULL || strchr(err->message, '\n') != NULL)
		abort();
	if (strstr(err->message, env_names[0]) == NULL &&
	    strstr(err->message, env_names[1]) == NULL)
		abort();
}

static bool any_set(void)
{
	return env_values[0] != NULL || env_values[1] != NULL;
}

/* The picks as a list of indices, which set alone must pick them again. */
static char *join_indices(const size_t *v, size_t count, size_t stride)
{
	GString *list = g_string_new(NULL);

	for (size_t i = 0; i < count; i++)
		g_string_append_printf(list, "%s%zu", i ? "," : "",
				       *(const size_t *)((const char *)v + i * stride));
	return g_string_free(list, FALSE);
}

static void reapply_nvidia(const struct nvidia_gpus *gpus, const struct nvidia_pick *want,
			   size_t want_n)
{
	char *saved[2] = { env_values[0], env_values[1] };
	char *list = join_indices(&want[0].gpu, want_n, sizeof(*want));
	struct nvidia_pick *picks = NULL;
	size_t count = 0;

	env_values[0] = NULL;
	env_values[1] = list;
	if (nvidia_mask_apply(NULL, gpus, &picks, &count, NULL) != CR_OK || count != want_n)
		abort();
	for (size_t i = 0; i < count; i++)
		if (picks[i].gpu != want[i].gpu)
			abort();
	free(picks);
	g_free(list);
	env_values[0] = saved[0];
	env_values[1] = saved[1];
}

static void fuzz_nvidia(unsigned n, bool mig)
{
	struct nvidia_gpus gpus = { 0 };
	struct nvidia_pick *picks = NULL;
	size_t count = 0;
	cr_error err = CR_ERROR_INIT;
	cr_status st;
	bool *seen;

	env_names[0] = "NVIDIA_VISIBLE_DEVICES";
	env_names[1] = "CUDA_VISIBLE_DEVICES";
	for (unsigned i = 0; i < n; i++) {
		struct nvidia_gpu *g = nvidia_gpus_add(&gpus);

		if (g == NULL)
			abort();
		snprintf(g->model, sizeof(g->model), "NVIDIA H100");
		if (mig && n >= 3 && i >= n - 2) { /* MIG instances of GPU 0 */
			snprintf(g->uuid, sizeof(g->uuid), "MIG-%08x-1111-2222-3333-444455556666",
				 i);
			snprintf(g->parent_uuid, sizeof(g->parent_uuid), "%s", gpus.v[0].uuid);
			g->physical_index = (int)(i - (n - 2));
			g->parent_index = 0;
			g->minor = gpus.v[0].minor;
		} else {
			snprintf(g->uuid, sizeof(g->uuid), "GPU-%08x-aaaa-bbbb-cccc-ddddeeeeffff",
				 i);
			g->physical_index = (int)i;
			g->minor = (int)i;
		}
	}
	st = nvidia_mask_apply(NULL, &gpus, &picks, &count, &err);
	if (st != CR_OK) {
		check_error(st, &err, count, picks);
	} else {
		seen = g_new0(bool, n + 1);
		if (count > n)
			abort();
		for (size_t i = 0; i < count; i++) {
			if (picks[i].gpu >= n || seen[picks[i].gpu])
				abort();
			seen[picks[i].gpu] = true;
			/* NVIDIA_VISIBLE_DEVICES=all chooses nothing */
			if (picks[i].visible_by != NULL &&
			    (!any_set() || (strcmp(picks[i].visible_by, env_names[0]) != 0 &&
					    strcmp(picks[i].visible_by, env_names[1]) != 0)))
				abort();
		}
		if (!any_set() && count != n)
			abort();
		g_free(seen);
		if (!mig && env_values[0] == NULL)
			reapply_nvidia(&gpus, picks, count);
	}
	free(picks);
	nvidia_gpus_free(&gpus);
}

static void reapply_tpu(const struct tpu_chips *chips, const struct tpu_pick *want, size_t want_n)
{
	char *saved[2] = { env_values[0], env_values[1] };
	char *list = join_indices(&want[0].chip, want_n, sizeof(*want));
	struct tpu_pick *picks = NULL;
	size_t count = 0;

	env_values[0] = list;
	env_values[1] = NULL;
	if (tpu_visible_apply(NULL, chips, &picks, &count, NULL) != CR_OK || count != want_n)
		abort();
	for (size_t i = 0; i < count; i++)
		if (picks[i].chip != want[i].chip)
			abort();
	free(picks);
	g_free(list);
	env_values[0] = saved[0];
	env_values[1] = saved[1];
}

static void fuzz_tpu(unsigned n)
{
	struct tpu_chip chip[16] = { 0 };
	struct tpu_chips chips = { chip, n, "accel" };
	struct tpu_pick *picks = NULL;
	size_t count = 0;
	cr_error err = CR_ERROR_INIT;
	cr_status st;

	env_names[0] = "TPU_VISIBLE_CHIPS";
	env_names[1] = "TPU_CHIPS_PER_PROCESS_BOUNDS";
	st = tpu_visible_apply(NULL, &chips, &picks, &count, &err);
	if (st != CR_OK) {
		check_error(st, &err, count, picks);
	} else {
		if (count > n || (!any_set() && count != n))
			abort();
		for (size_t i = 0; i < count; i++) {
			if (picks[i].chip >= n || (i > 0 && picks[i].chip <= picks[i - 1].chip))
				abort();
			if ((picks[i].visible_by != NULL) !=
			    (env_values[0] != NULL ||
			     (env_values[1] != NULL && *env_values[1] != '\0')))
				abort();
		}
		reapply_tpu(&chips, picks, count);
	}
	free(picks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, **lines;

	if (size == 0 || memchr(data, '\0', size) != NULL)
		return 0;
	text = g_strndup((const char *)data + 1, size - 1);
	lines = g_strsplit(text, "\n", 2);
	for (int i = 0; i < 2; i++)
		env_values[i] = i < (int)g_strv_length(lines) && strcmp(lines[i], "-") != 0
					? lines[i]
					: NULL;
	if (data[0] % 2 == 0)
		fuzz_nvidia((data[0] >> 1) % 16, (data[0] & 0x80) != 0);
	else
		fuzz_tpu((data[0] >> 1) % 16);
	g_strfreev(lines);
	g_free(text);
	return 0;
}
