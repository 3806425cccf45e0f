/* SPDX-License-Identifier: MIT */
/*
 * k8s_pb.c - the protobuf wire format (https://protobuf.dev/programming-guides/encoding/)
 * as k8s.so reads it: varints, field keys and the four wire types
 * Kubernetes' messages use, a message walked field by field, and the
 * envelope kube-apiserver puts around every object it sends for
 * `Accept: application/vnd.kubernetes.protobuf`: the four bytes "k8s\0",
 * then a runtime.Unknown
 *
 *     Unknown   { typeMeta 1: TypeMeta { apiVersion 1, kind 2 }, raw 2,
 *                 contentEncoding 3, contentType 4 }
 *
 * whose raw bytes are the object itself: a PodList (k8s_proto.c) or, with
 * an error status, a Status { message 3, reason 4, code 6 } (below).
 */
#include <string.h>

#include "k8s_pb.h"

/* Field numbers, from k8s.io/apimachinery's generated.proto. */
enum {
	UNKNOWN_TYPEMETA = 1,
	UNKNOWN_RAW = 2,
	UNKNOWN_ENCODING = 3,
	TYPEMETA_KIND = 2,
	ERR_MESSAGE = 3,
	ERR_REASON = 4,
};

static bool pb_varint(struct pb *b, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (b->p >= b->end)
			return false;
		uint8_t c = *b->p++;

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return shift < 63 || c <= 1;
	}
	return false;
}

/* The next field of @b: 1, 0 at the end of the message, -1 when the bytes
 * are not a message (the reason in *@why). */
static int pb_next(struct pb *b, struct pb_field *f, const char **why)
{
	uint64_t key, v;

	if (b->p >= b->end)
		return 0;
	if (!pb_varint(b, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX) {
		*why = "bad field key";
		return -1;
	}
	f->num = (uint32_t)(key >> 3);
	f->wire = (unsigned)(key & 7);
	f->sub = (struct pb){ b->p, b->p, b->base }; /* where it is, for messages */
	switch (f->wire) {
	case WIRE_VARINT:
		if (pb_varint(b, &v))
			return 1;
		break;
	case WIRE_I64:
	case WIRE_I32: {
		size_t n = f->wire == WIRE_I64 ? 8 : 4;

		if ((size_t)(b->end - b->p) >= n) {
			b->p += n;
			return 1;
		}
		break;
	}
	case WIRE_LEN:
		if (pb_varint(b, &v) && v <= (uint64_t)(b->end - b->p)) {
			f->sub = (struct pb){ b->p, b->p + v, b->base };
			b->p += v;
			return 1;
		}
		break;
	default: /* groups (3, 4) are not used by Kubernetes; 6, 7 do not exist */
		*why = "unsupported wire type";
		return -1;
	}
	*why = "truncated field";
	return -1;
}

bool pb_fail(struct pb_page *pg, const struct pb *at, const char *why)
{
	if (!pg->bad) {
		pg->bad = why;
		pg->bad_offset = (size_t)(at->p - pg->base);
	}
	return false;
}

/* Walk the fields of @b, calling @fn(pg, field, user) for each; false when
 * the bytes are not a message or @fn says no. */
bool pb_walk(struct pb_page *pg, struct pb b, pb_field_fn fn, void *user)
{
	struct pb_field f;
	const char *why = NULL;
	int r;

	while ((r = pb_next(&b, &f, &why)) > 0)
		if (!fn(pg, &f, user))
			return false;
	return r == 0 || pb_fail(pg, &b, why);
}

/* A string field's bytes, checked: UTF-8 without NUL. */
bool pb_text(struct pb_page *pg, const struct pb_field *f)
{
	size_t n = (size_t)(f->sub.end - f->sub.p);

	if (f->wire != WIRE_LEN)
		return pb_fail(pg, &f->sub, "a string field is not length-delimited");
	if (!k8s_text_ok((const char *)f->sub.p, n))
		return pb_fail(pg, &f->sub, "a string is not UTF-8 without NUL");
	return true;
}

bool pb_is_msg(struct pb_page *pg, const struct pb_field *f)
{
	return f->wire == WIRE_LEN ||
	       pb_fail(pg, &f->sub, "a message field is not length-delimited");
}

bool pb_bytes_are(const struct pb_field *f, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(f->sub.end - f->sub.p) == n && memcmp(f->sub.p, s, n) == 0;
}

static bool pb_typemeta_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	struct pb_unknown *u = user;

	(void)pg;
	if (f->num == TYPEMETA_KIND && f->wire == WIRE_LEN) {
		u->kind = *f;
		u->has_kind = true;
	}
	return true;
}

static bool pb_unknown_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	struct pb_unknown *u = user;

	if (f->num == UNKNOWN_TYPEMETA)
		return pb_is_msg(pg, f) && pb_walk(pg, f->sub, pb_typemeta_field, u);
	if (f->num == UNKNOWN_RAW && f->wire == WIRE_LEN) {
		u->raw = *f;
		u->has_raw = true;
	} else if (f->num == UNKNOWN_ENCODING && f->wire == WIRE_LEN && f->sub.p < f->sub.end) {
		u->encoded = true; /* contentEncoding: none is defined */
	}
	return true;
}

bool pb_envelope(struct pb_page *pg, const uint8_t *buf, size_t len, struct pb_unknown *u)
{
	struct pb all = { buf, buf + len, buf };

	if (len < 4 || memcmp(buf, "k8s\0", 4) != 0)
		return pb_fail(pg, &all, "no \"k8s\\0\" envelope");
	all.p += 4;
	return pb_walk(pg, all, pb_unknown_field, u);
}

bool pb_kind_is(const struct pb_unknown *u, const char *kind)
{
	size_t n = strlen(kind);

	return u->has_kind && (size_t)(u->kind.sub.end - u->kind.sub.p) == n &&
	       memcmp(u->kind.sub.p, kind, n) == 0;
}

static bool pb_error_field(struct pb_page *pg, struct pb_field *f, void *user)
{
	const char *key = f->num == ERR_MESSAGE  ? "message"
			  : f->num == ERR_REASON ? "reason"
						 : NULL;

	if (!key)
		return true;
	if (!pb_text(pg, f))
		return false;
	json_object_object_add(
		user, key,
		json_object_new_string_len((const char *)f->sub.p, (int)(f->sub.end - f->sub.p)));
	return true;
}

/**
 * k8s_pb_status:
 * A protobuf-encoded Status (what the API server sends with an error
 * status to a client that accepts protobuf).
 * Returns: (transfer full) {reason, message} as json-c, or NULL when @buf
 * is not one.
 */
json_object *k8s_pb_status(const char *buf, size_t len)
{
	struct pb_page pg = { .base = (const uint8_t *)buf };
	struct pb_unknown u = { 0 };
	json_object *st;

	if (!pb_envelope(&pg, (const uint8_t *)buf, len, &u) || !pb_kind_is(&u, "Status") ||
	    !u.has_raw || u.encoded)
		return NULL;
	st = json_object_new_object();
	if (!pb_walk(&pg, u.raw.sub, pb_error_field, st)) {
		json_object_put(st);
		return NULL;
	}
	return st;
}
