/* SPDX-License-Identifier: MIT */
/*
 * mask.c - which GPUs this process may use, and in which order.
 *
 * Two variables narrow the host's devices, applied in this order:
 *
 * NVIDIA_VISIBLE_DEVICES is the container runtime's: the set of GPUs given
 * to a container. "all" keeps every GPU; "none", "void" and "" keep none;
 * otherwise a list of GPU indices, "GPU:MIG" index pairs and UUIDs. Indices
 * are matched against the device minor number (N of /dev/nvidiaN), which
 * keeps its value inside a container where NVML renumbers from 0. The host
 * order is kept.
 *
 * CUDA_VISIBLE_DEVICES is CUDA's, and indexes into what is left. Entries are
 * indices or UUIDs ("GPU-…", "MIG-…", a unique prefix is enough), and the
 * process sees them in the listed order. Like CUDA, the list ends at the
 * first invalid entry (out of range, unknown, ambiguous, repeated, "-1",
 * Slurm's "NoDevFiles"): "" and "-1" mean no GPU, "0,2,-1,1" means 0 and 2.
 * An index is read as the driver reads it: a sign, digits, and anything
 * after the digits ignored ("0a" is 0). One index listed twice ("0,0")
 * makes CUDA refuse the whole list: no GPU. These rules were checked
 * against the CUDA driver (scripts/gpu-check.py).
 * A UUID that exists on the host but was withheld by NVIDIA_VISIBLE_DEVICES
 * is a contradiction and an error rather than a silent cut.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvidia.h"

#define MASK_NVIDIA "NVIDIA_VISIBLE_DEVICES"
#define MASK_CUDA "CUDA_VISIBLE_DEVICES"

/** nvidia_copy: bounded string copy that always terminates. */
void nvidia_copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

/**
 * nvidia_bus_id_normalise: "00000000:3B:00.0" (NVML) or "0000:3b:00.0"
 * (sysfs) to the sysfs form "0000:3b:00.0".
 * Returns: false (and a verbatim copy) when @in is not a PCI address.
 */
bool nvidia_bus_id_normalise(const char *in, char *out, size_t size)
{
	unsigned int domain, bus, dev, fn;
	int used = 0;

	if (sscanf(in, "%x:%x:%x.%x%n", &domain, &bus, &dev, &fn, &used) == 4 && in[used] == '\0' &&
	    domain <= 0xffff && bus <= 0xff && dev <= 0x1f && fn <= 7) {
		snprintf(out, size, "%04x:%02x:%02x.%x", domain, bus, dev, fn);
		return true;
	}
	nvidia_copy(out, size, in);
	return false;
}

/** nvidia_gpus_add: append a zeroed device with unknown indices. */
struct nvidia_gpu *nvidia_gpus_add(struct nvidia_gpus *list)
{
	struct nvidia_gpu *gpu;

	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 8;
		struct nvidia_gpu *v = realloc(list->v, cap * sizeof(*v));

		if (v == NULL)
			return NULL;
		list->v = v;
		list->cap = cap;
	}
	gpu = &list->v[list->n++];
	memset(gpu, 0, sizeof(*gpu));
	gpu->physical_index = -1;
	gpu->parent_index = -1;
	gpu->minor = -1;
	return gpu;
}

/** nvidia_gpus_free: release the array (the struct itself is the caller's). */
void nvidia_gpus_free(struct nvidia_gpus *list)
{
	free(list->v);
	list->v = NULL;
	list->n = list->cap = 0;
}

/* The /dev/nvidiaN number a device belongs to (its parent's for MIG). */
static int mask_minor(const struct nvidia_gpu *gpu)
{
	if (gpu->minor >= 0)
		return gpu->minor;
	return gpu->parent_index >= 0 ? gpu->parent_index : gpu->physical_index;
}

/* Decimal digits only, no sign: a device index. */
static bool mask_is_index(const char *s, long *out)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	*out = strtol(s, &end, 10);
	return *end == '\0' && *out < 1000000;
}

/*
 * A CUDA_VISIBLE_DEVICES index as the CUDA driver reads it (checked against
 * driver 580 on an H100): an optional sign, then digits; whatever follows
 * the digits is ignored ("+0", "0x0" and "0a" all mean GPU 0). False when
 * there are no digits.
 */
static bool mask_cuda_index(const char *s, long *out)
{
	const char *digits = s + (s[0] == '+' || s[0] == '-');
	char *end;

	if (!isdigit((unsigned char)digits[0]))
		return false;
	errno = 0;
	*out = strtol(s, &end, 10);
	if (errno == ERANGE)
		*out = *out < 0 ? -1 : LONG_MAX;
	return true;
}

/* "GPU-…" or "MIG-…" with at least one character of the UUID after it. */
static bool mask_is_uuid(const char *s)
{
	return (strncmp(s, "GPU-", 4) == 0 || strncmp(s, "MIG-", 4) == 0) && s[4] != '\0';
}

/* The UUID @token selects in @gpu: the device's own, or for a MIG
 * instance its parent's ("GPU-…" of a MIG-mode GPU means all its
 * instances). NULL when it does not match. */
static const char *mask_uuid_key(const struct nvidia_gpu *gpu, const char *token)
{
	size_t len = strlen(token);

	if (gpu->uuid[0] != '\0' && strncmp(gpu->uuid, token, len) == 0)
		return gpu->uuid;
	if (gpu->parent_uuid[0] != '\0' && strncmp(gpu->parent_uuid, token, len) == 0)
		return gpu->parent_uuid;
	return NULL;
}

/*
 * Mark in @hit (n = @gpus->n) the devices among @cand (NULL = all) that
 * @token names by UUID prefix. Returns the number marked, or -1 when the
 * prefix names two different devices.
 */
static int mask_match_uuid(const struct nvidia_gpus *gpus, const bool *cand, const char *token,
			   bool *hit)
{
	const char *first = NULL;
	int count = 0;
	size_t i;

	for (i = 0; i < gpus->n; i++) {
		const char *key;

		if (cand != NULL && !cand[i])
			continue;
		key = mask_uuid_key(&gpus->v[i], token);
		if (key == NULL)
			continue;
		if (first != NULL && strcmp(first, key) != 0)
			return -1;
		first = key;
		hit[i] = true;
		count++;
	}
	return count;
}

/* Mark the devices one NVIDIA_VISIBLE_DEVICES entry names. */
static cr_status mask_nvidia_entry(const struct nvidia_gpus *gpus, const char *value,
				   const char *tok, bool *keep, cr_error *err)
{
	long gpu_no, mig_no = -1;
	char *colon = strchr(tok, ':');
	int found = 0;
	size_t i;

	if (mask_is_uuid(tok)) {
		found = mask_match_uuid(gpus, NULL, tok, keep);
		if (found < 0)
			return cr_host->error_set(err, CR_ERR_CONFLICT,
						  MASK_NVIDIA "='%s': '%s' names more than one GPU",
						  value, tok);
	} else {
		char head[32];

		nvidia_copy(head, sizeof(head), tok);
		if (colon != NULL && (size_t)(colon - tok) < sizeof(head))
			head[colon - tok] = '\0';
		if (!mask_is_index(head, &gpu_no) ||
		    (colon != NULL && !mask_is_index(colon + 1, &mig_no)))
			return cr_host->error_set(err, CR_ERR_PARSE,
						  MASK_NVIDIA "='%s': '%s' is not a GPU index, "
							      "GPU:MIG pair or UUID",
						  value, tok);
		for (i = 0; i < gpus->n; i++) {
			const struct nvidia_gpu *g = &gpus->v[i];

			if (mask_minor(g) != gpu_no)
				continue;
			if (mig_no >= 0 && (g->parent_index < 0 || g->physical_index != mig_no))
				continue;
			keep[i] = true;
			found++;
		}
	}
	if (found == 0)
		return cr_host->error_set(err, CR_ERR_CONFLICT,
					  MASK_NVIDIA "='%s': no GPU matches '%s' (%zu found)",
					  value, tok, gpus->n);
	return CR_OK;
}

/* Split @value on commas into a writable copy; entries are trimmed. */
static char *mask_next(char **cursor)
{
	char *tok = *cursor, *comma, *end;

	if (tok == NULL)
		return NULL;
	comma = strchr(tok, ',');
	*cursor = comma ? comma + 1 : NULL;
	if (comma)
		*comma = '\0';
	while (isspace((unsigned char)*tok))
		tok++;
	end = tok + strlen(tok);
	while (end > tok && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return tok;
}

/* Stage 1: which devices the container runtime granted (@keep, n entries). */
static cr_status mask_nvidia(cr_plugin_ctx *ctx, const struct nvidia_gpus *gpus, bool *keep,
			     bool *masked, cr_error *err)
{
	const char *value = cr_host->getenv(ctx, MASK_NVIDIA);
	char *copy, *cursor, *tok;
	cr_status st = CR_OK;
	size_t i;

	*masked = false;
	for (i = 0; i < gpus->n; i++)
		keep[i] = true;
	if (value == NULL || strcmp(value, "all") == 0)
		return CR_OK;
	*masked = true;
	for (i = 0; i < gpus->n; i++)
		keep[i] = false;
	if (value[0] == '\0' || strcmp(value, "none") == 0 || strcmp(value, "void") == 0)
		return CR_OK;
	copy = strdup(value);
	if (copy == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	cursor = copy;
	while (st == CR_OK && (tok = mask_next(&cursor)) != NULL) {
		if (tok[0] == '\0')
			continue;
		st = mask_nvidia_entry(gpus, value, tok, keep, err);
	}
	free(copy);
	return st;
}

/* Find what one CUDA_VISIBLE_DEVICES entry selects among @keep. Sets
 * @hit; returns the number selected, or 0 with *@why saying why the entry
 * is invalid (CUDA stops there; NULL: a negative index, which ends the
 * list on purpose). *@withheld: a UUID NVIDIA_VISIBLE_DEVICES hid. */
static int mask_cuda_entry(const struct nvidia_gpus *gpus, const bool *keep, const char *tok,
			   bool *hit, bool *withheld, const char **why)
{
	long want, seen = 0;
	size_t i;
	int n;

	memset(hit, 0, gpus->n * sizeof(*hit));
	*withheld = false;
	*why = "matches no visible GPU";
	if (mask_is_uuid(tok)) {
		n = mask_match_uuid(gpus, keep, tok, hit);
		if (n < 0)
			*why = "names more than one GPU";
		if (n == 0) {
			*withheld = mask_match_uuid(gpus, NULL, tok, hit) != 0;
			memset(hit, 0, gpus->n * sizeof(*hit));
		}
		return n < 0 ? 0 : n;
	}
	if (!mask_cuda_index(tok, &want)) {
		*why = "is not a GPU index or UUID";
		return 0;
	}
	if (want < 0) {
		*why = NULL; /* "-1": the usual way to say "no GPU", not a mistake */
		return 0;
	}
	for (i = 0; i < gpus->n; i++) {
		if (!keep[i])
			continue;
		if (seen++ == want) {
			hit[i] = true;
			return 1;
		}
	}
	return 0;
}

/* How a device was first listed: CUDA refuses an index given twice, but
 * takes an index and a UUID of the same device (driver 580, H100). */
enum mask_taken {
	TAKEN_NO,
	TAKEN_BY_INDEX,
	TAKEN_BY_UUID
};

/* Append the devices marked in @hit to @picks unless one is there already;
 * then returns the way it was listed before. */
static enum mask_taken mask_take(const struct nvidia_gpus *gpus, const bool *hit,
				 enum mask_taken how, enum mask_taken *taken,
				 struct nvidia_pick *picks, size_t *count)
{
	size_t i;

	for (i = 0; i < gpus->n; i++)
		if (hit[i] && taken[i] != TAKEN_NO)
			return taken[i];
	for (i = 0; i < gpus->n; i++) {
		if (!hit[i])
			continue;
		taken[i] = how;
		picks[*count].gpu = i;
		picks[(*count)++].visible_by = MASK_CUDA;
	}
	return TAKEN_NO;
}

/* Stage 2: CUDA's list over the devices @keep allows. */
static cr_status mask_cuda(cr_plugin_ctx *ctx, const struct nvidia_gpus *gpus, const bool *keep,
			   const char *value, struct nvidia_pick *picks, size_t *count,
			   cr_error *err)
{
	bool *hit = calloc(gpus->n + 1, sizeof(bool));
	enum mask_taken *taken = calloc(gpus->n + 1, sizeof(*taken));
	char *copy = strdup(value), *cursor = copy, *tok;
	cr_status st = CR_OK;
	bool withheld;

	if (hit == NULL || taken == NULL || copy == NULL) {
		st = cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
		goto out;
	}
	while ((tok = mask_next(&cursor)) != NULL) {
		enum mask_taken how = mask_is_uuid(tok) ? TAKEN_BY_UUID : TAKEN_BY_INDEX;
		const char *why;

		if (mask_cuda_entry(gpus, keep, tok, hit, &withheld, &why) > 0) {
			enum mask_taken before = mask_take(gpus, hit, how, taken, picks, count);

			if (before == TAKEN_NO)
				continue;
			if (before == TAKEN_BY_INDEX && how == TAKEN_BY_INDEX) {
				cr_host->log(ctx, CR_LOG_WARNING,
					     MASK_CUDA
					     "='%s': '%s' repeats an earlier index; "
					     "CUDA refuses the whole list and the process sees "
					     "no GPU",
					     value, tok);
				*count = 0;
				break;
			}
			why = "repeats an earlier entry";
		}
		if (withheld) {
			st = cr_host->error_set(err, CR_ERR_CONFLICT,
						MASK_CUDA "='%s' names '%s', which " MASK_NVIDIA
							  "='%s' withholds from this "
							  "process",
						value, tok, cr_host->getenv(ctx, MASK_NVIDIA));
		} else if (why != NULL && strcmp(tok, "NoDevFiles") != 0 &&
			   !(tok[0] == '\0' && cursor == NULL && *count == 0)) {
			cr_host->log(ctx, CR_LOG_WARNING,
				     MASK_CUDA "='%s': '%s' %s; CUDA ignores it and every "
					       "entry after it",
				     value, tok, why);
		}
		break;
	}
out:
	free(copy);
	free(taken);
	free(hit);
	return st;
}

/**
 * nvidia_mask_apply: the devices this process may use, in CUDA order.
 * @picks: (out) (transfer full) free() it; @count: its length.
 * Returns: CR_OK; CR_ERR_PARSE for a malformed NVIDIA_VISIBLE_DEVICES;
 * CR_ERR_CONFLICT when the variables contradict the host or each other.
 */
cr_status nvidia_mask_apply(cr_plugin_ctx *ctx, const struct nvidia_gpus *gpus,
			    struct nvidia_pick **picks, size_t *count, cr_error *err)
{
	bool *keep = calloc(gpus->n + 1, sizeof(bool));
	const char *cuda = cr_host->getenv(ctx, MASK_CUDA);
	bool masked = false;
	cr_status st;
	size_t i;

	*count = 0;
	*picks = calloc(gpus->n + 1, sizeof(**picks));
	if (keep == NULL || *picks == NULL) {
		st = cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = mask_nvidia(ctx, gpus, keep, &masked, err);
	if (st != CR_OK)
		goto out;
	if (cuda != NULL) {
		st = mask_cuda(ctx, gpus, keep, cuda, *picks, count, err);
		goto out;
	}
	for (i = 0; i < gpus->n; i++) {
		if (!keep[i])
			continue;
		(*picks)[*count].gpu = i;
		(*picks)[(*count)++].visible_by = masked ? MASK_NVIDIA : NULL;
	}
out:
	free(keep);
	if (st != CR_OK) {
		free(*picks);
		*picks = NULL;
		*count = 0;
	}
	return st;
}
