/* SPDX-License-Identifier: MIT */
/*
 * k8s_pb.h - the protobuf wire format as k8s.so reads it (k8s_pb.c): one
 * message's fields, walked in order; the "k8s\0" envelope and runtime.Unknown
 * around every object the API server sends; and the reading state of one
 * page (k8s_proto.c reads a PodList with it).
 */
#ifndef K8S_PB_H
#define K8S_PB_H

#include "k8s.h"

enum {
	WIRE_VARINT = 0,
	WIRE_I64 = 1,
	WIRE_LEN = 2,
	WIRE_I32 = 5
};

/* A message being read: [p, end) within the page starting at base. */
struct pb {
	const uint8_t *p, *end, *base;
};

/* One field: its number and, for length-delimited ones, its bytes. */
struct pb_field {
	uint32_t num;
	unsigned wire;
	struct pb sub; /* WIRE_LEN only */
};

/* One page being read: where it starts, what to call, what went wrong
 * first, and the pod being read (k8s_proto.c). */
struct pb_page {
	const char *endpoint;
	const uint8_t *base;
	k8s_pod_fn fn;
	k8s_next_fn on_next;
	void *ud, *pager;
	cr_error *err;
	const char *bad;   /* what is wrong, for the message */
	size_t bad_offset; /* where */
	struct k8s_view_store *store;
	struct k8s_pod_view pod;      /* the pod being read */
	int64_t limits[K8S_ACC_KEYS]; /* of the container being read */
};

/* Called for each field of a message; false stops the walk. */
typedef bool (*pb_field_fn)(struct pb_page *pg, struct pb_field *f, void *user);

/* The envelope: "k8s\0" and a runtime.Unknown; its kind and raw bytes. */
struct pb_unknown {
	struct pb_field kind, raw;
	bool has_kind, has_raw, encoded;
};

/* Field numbers a walk calls its function for: PB_FIELD(1) | PB_FIELD(3)
 * for fields 1 and 3 (numbers below 64); PB_ALL for every field. */
#define PB_FIELD(n) (1ull << (n))
#define PB_ALL (~0ull)

bool pb_fail(struct pb_page *pg, const struct pb *at, const char *why);
bool pb_walk(struct pb_page *pg, struct pb b, pb_field_fn fn, void *user);
bool pb_walk_some(struct pb_page *pg, struct pb b, uint64_t want, pb_field_fn fn, void *user);
bool pb_text(struct pb_page *pg, const struct pb_field *f);
bool pb_is_msg(struct pb_page *pg, const struct pb_field *f);
bool pb_bytes_are(const struct pb_field *f, const char *s);
bool pb_envelope(struct pb_page *pg, const uint8_t *buf, size_t len, struct pb_unknown *u);
/* One field of the Unknown (@user: its pb_unknown), as pb_envelope reads it. */
bool pb_unknown_field(struct pb_page *pg, struct pb_field *f, void *user);
/* One field of a PodList, as k8s_pb_page reads it (k8s_proto.c): its
 * ListMeta to pg->on_next, a pod to pg->fn. */
bool pb_list_field(struct pb_page *pg, struct pb_field *f, void *user);
bool pb_kind_is(const struct pb_unknown *u, const char *kind);

#endif /* K8S_PB_H */
