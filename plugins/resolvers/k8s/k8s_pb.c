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

static bool pb_varint_long(struct pb *b, uint64_t *v)
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

/* Most keys and lengths of a pod are one or two bytes: read those here,
 * the rest (and every error) in pb_varint_long. */
static inline bool pb_varint(struct pb *b, uint64_t *v)
{
	const uint8_t *p = b->p;

	if (p < b->end && !(p[0] & 0x80)) {
		*v = p[0];
		b->p = p + 1;
		return true;
	}
	if (b->end - p >= 2 && !(p[1] & 0x80)) {
		*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		b->p = p + 2;
		return true;
	}
	return pb_varint_long(b, v);
}

/* The next field of @b: 1, 0 at the end of the message, -1 when the bytes
 * are not a message (the reason in *@why). Its number, wire type and, for a
 * length-delimited field, its bytes go to *@num, *@wire, [*@at, *@to); the
 * caller fills a pb_field only for the fields it wants. */
static inline int pb_next(struct pb *b, uint32_t *num, unsigned *wire, const uint8_t **at,
			  const uint8_t **to, const char **why)
{
	uint64_t key, v;

	if (b->p >= b->end)
		return 0;
	if (!pb_varint(b, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX) {
		*why = "bad field key";
		return -1;
	}
	*num = (uint32_t)(key >> 3);
	*wire = (unsigned)(key & 7);
	*at = *to = b->p; /* where it is, for messages */
	switch (*wire) {
	case WIRE_LEN:
		if (pb_varint(b, &v) && v <= (uint64_t)(b->end - b->p)) {
			*at = b->p;
			*to = b->p + v;
			b->p += v;
			return 1;
		}
		break;
	case WIRE_VARINT:
		if (pb_varint(b, &v))
			return 1;
		break;
	case WIRE_I64:
	case WIRE_I32: {
		size_t n = *wire == WIRE_I64 ? 8 : 4;

		if ((size_t)(b->end - b->p) >= n) {
			b->p += n;
			return 1;
		}
		break;
	}
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

/* Walk the fields of @b, calling @fn(pg, field, user) for each field whose
 * number is in @want (PB_FIELD bits, or PB_ALL); false when the bytes are not a
 * message or @fn says no. Every field's framing is checked, wanted or not:
 * the others are only stepped over, with no call. */
bool pb_walk_some(struct pb_page *pg, struct pb b, uint64_t want, pb_field_fn fn, void *user)
{
	struct pb_field f;
	const uint8_t *at, *to;
	const char *why = NULL;
	uint32_t num;
	unsigned wire;
	int r;

	while ((r = pb_next(&b, &num, &wire, &at, &to, &why)) > 0) {
		if (num < 64 ? !((want >> num) & 1) : want != PB_ALL)
			continue;
		f = (struct pb_field){ num, wire, { at, to, b.base } };
		if (!fn(pg, &f, user))
			return false;
	}
	return r == 0 || pb_fail(pg, &b, why);
}

bool pb_walk(struct pb_page *pg, struct pb b, pb_field_fn fn, void *user)
{
	return pb_walk_some(pg, b, PB_ALL, fn, user);
}

/* Whether @n bytes are ASCII without NUL: what nearly every string a pod
 * keeps is (names, IPs, phases), checked here a word at a time; the others
 * go to k8s_text_ok. */
static bool pb_ascii(const uint8_t *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		if ((w & highs) || ((w - ones) & ~w & highs))
			return false;
	}
	for (; i < n; i++)
		if (s[i] == 0 || s[i] >= 0x80)
			return false;
	return true;
}

/* A string field's bytes, checked: UTF-8 without NUL. */
bool pb_text(struct pb_page *pg, const struct pb_field *f)
{
	size_t n = (size_t)(f->sub.end - f->sub.p);

	if (f->wire != WIRE_LEN)
		return pb_fail(pg, &f->sub, "a string field is not length-delimited");
	if (!pb_ascii(f->sub.p, n) && !k8s_text_ok((const char *)f->sub.p, n))
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

bool pb_unknown_field(struct pb_page *pg, struct pb_field *f, void *user)
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
