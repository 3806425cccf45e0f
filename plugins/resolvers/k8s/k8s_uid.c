/* SPDX-License-Identifier: MIT */
/*
 * k8s_uid.c - one task per pod uid (k8s.h). A pod listed twice in one list
 * would be two tasks; the uids of a list are kept compactly while it is
 * read and compared once at the end, instead of keeping each uid's text in
 * a hash set (about 90 bytes a pod).
 */
#include <string.h>

#include "k8s.h"

struct k8s_uid {
	uint32_t id[4];
	uint32_t pod; /* its place in the list */
};

GArray *k8s_uids_new(void)
{
	return g_array_new(FALSE, FALSE, sizeof(struct k8s_uid));
}

/* A hex digit's value, -1 for any other byte (every pod's uid: no call). */
static inline int k8s_hex(guchar c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A uid in its canonical UUID form (8-4-4-4-12 hex digits, what the API
 * server assigns) as its 16 bytes; any other form as the first 16 bytes of
 * its SHA-256, with the top bit of the 7th byte set, which no UUID of
 * version 1-7 has. */
static void k8s_uid_id(const char *uid, uint32_t id[4])
{
	guint8 b[32];
	size_t n = 0, len = strlen(uid);

	for (size_t i = 0; len == 36 && i < len && n < 16; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (uid[i] != '-')
				break;
			continue;
		}
		int hi = k8s_hex((guchar)uid[i]), lo = k8s_hex((guchar)uid[i + 1]);

		if (hi < 0 || lo < 0)
			break;
		b[n++] = (guint8)(hi << 4 | lo);
		i++;
	}
	if (n != 16 || (b[6] & 0x80)) {
		GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
		gsize blen = sizeof(b);

		g_checksum_update(sum, (const guchar *)uid, (gssize)len);
		g_checksum_get_digest(sum, b, &blen);
		g_checksum_free(sum);
		b[6] |= 0x80;
	}
	memcpy(id, b, 16);
}

void k8s_uid_add(GArray *uids, const char *uid, uint32_t pod)
{
	struct k8s_uid u = { .pod = pod };

	k8s_uid_id(uid, u.id);
	g_array_append_val(uids, u);
}

/* Any total order of the ids groups equal ones: word by word, then by place. */
static gint k8s_uid_cmp(gconstpointer pa, gconstpointer pb)
{
	const struct k8s_uid *a = pa, *b = pb;

	for (int i = 0; i < 4; i++)
		if (a->id[i] != b->id[i])
			return a->id[i] < b->id[i] ? -1 : 1;
	return (a->pod > b->pod) - (a->pod < b->pod);
}

void k8s_uid_repeats(GArray *uids, void (*fn)(uint32_t pod, void *ud), void *ud)
{
	g_array_sort(uids, k8s_uid_cmp);
	for (guint i = 1; i < uids->len; i++) {
		const struct k8s_uid *u = &g_array_index(uids, struct k8s_uid, i);

		if (memcmp(u->id, u[-1].id, sizeof(u->id)) == 0)
			fn(u->pod, ud);
	}
}
