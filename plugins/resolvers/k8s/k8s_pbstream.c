/* SPDX-License-Identifier: MIT */
/*
 * k8s_pbstream.c - a protobuf PodList page read as its bytes arrive.
 *
 * host->http_stream hands the body over in pieces (TLS records of up to
 * 16 KiB); k8s_pb_page (k8s_proto.c) reads a whole page. This reads the
 * same bytes piece by piece, so a page is never held whole: each pod is
 * read in place where a piece holds all of it, and only a pod (or a field
 * header) that straddles two pieces is copied, into a small buffer that
 * is reused. The page's outer layers are followed, not buffered:
 *
 *     "k8s\0" Unknown { typeMeta 1, raw 2: PodList { metadata 1, items 2... },
 *                       contentEncoding 3, contentType 4 }
 *
 * kube-apiserver writes the fields in number order, so the kind (in
 * typeMeta) is known before raw begins, and the continue token (in
 * metadata) before the first pod. Anything else before raw begins (a body
 * that is not protobuf, raw before the kind, a kind that is not PodList,
 * bytes that are not a message) makes the body be kept whole and read at
 * the end by the page reader (k8s_page_read), which says what is wrong.
 * Once pods have been read, bytes that are not a PodList fail the page
 * here. The same bytes give the same pods whichever reader reads them,
 * and a page one refuses the other refuses too (fuzz-k8s-pages checks
 * both, with the bytes cut at random places).
 */
#include <string.h>

#include "k8s_pb.h"

/* The most a page may hold in one unit (a pod, its ListMeta) or, read whole,
 * in all (the host stops the answer there first: k8s_fetch.c asks it to). */
#define PBS_MAX K8S_PAGE_MAX

enum pbs_state {
	PBS_MAGIC,  /* the four bytes "k8s\0" */
	PBS_ENV,    /* a field of the Unknown */
	PBS_LIST,   /* a field of the PodList (raw) */
	PBS_SKIP,   /* the rest of a PodList field not read */
	PBS_WHOLE,  /* not streamable: the body is kept and read at the end */
	PBS_FAILED, /* a pod or its ListMeta failed: the rest is dropped */
};

struct k8s_pbs {
	const char *endpoint;
	struct pb_page pg;
	struct k8s_view_store store;
	cr_error err;
	enum pbs_state state;
	cr_status rc;
	GByteArray *carry;  /* a unit's first bytes, the rest to come */
	GByteArray *whole;  /* PBS_WHOLE: the body so far */
	GByteArray *head;   /* the bytes before raw's, while it has not begun */
	size_t need;        /* bytes of the unit carry holds the start of */
	uint64_t list_left; /* PodList bytes not yet read (PBS_LIST, PBS_SKIP) */
	uint64_t skip_left; /* PBS_SKIP: bytes of the field still to go */
	size_t offset;      /* of the next byte, in the body */
	bool kind_ok;       /* typeMeta said PodList */
	bool list_begun;    /* raw has begun: pods may have gone to fn */
	bool list_done;     /* raw was read to its end */
	bool encoded;       /* a contentEncoding */
	bool meta_read;     /* a ListMeta was read: the first stands */
	char *next, *version;
};

/* A varint at @p (@n bytes there): 1 and its value and size, 0 when the
 * bytes end before it does, -1 when it is not one. */
static int pbs_varint(const uint8_t *p, size_t n, uint64_t *v, size_t *len)
{
	*v = 0;
	for (size_t i = 0; i < 10; i++) {
		if (i >= n)
			return 0;
		*v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*len = i + 1;
			return i < 9 || p[i] <= 1 ? 1 : -1;
		}
	}
	return -1;
}

/* A field's key and, for a length-delimited one, its length, at @p: the
 * header's size (0: not all there yet; -1: not a field). */
static long pbs_header(const uint8_t *p, size_t n, uint32_t *num, unsigned *wire, uint64_t *len,
		       size_t *keylen)
{
	uint64_t key;
	size_t a, b = 0;
	int r = pbs_varint(p, n, &key, &a);

	if (r <= 0)
		return r;
	*keylen = a;
	if ((key >> 3) == 0 || (key >> 3) > UINT32_MAX)
		return -1;
	*num = (uint32_t)(key >> 3);
	*wire = (unsigned)(key & 7);
	*len = 0;
	switch (*wire) {
	case WIRE_LEN:
	case WIRE_VARINT:
		r = pbs_varint(p + a, n - a, len, &b);
		if (r <= 0)
			return r;
		if (*wire == WIRE_VARINT)
			*len = 0; /* the value was the header's end */
		return (long)(a + b);
	case WIRE_I64:
		*len = 8;
		return (long)a;
	case WIRE_I32:
		*len = 4;
		return (long)a;
	default:
		return -1;
	}
}

/* Bytes that cannot be read as they come, at body offset @offset: before
 * raw begins the body is kept whole from here on and read at the end
 * (head holds what came before); after, the page fails. */
static void pbs_refuse(struct k8s_pbs *s, size_t offset, const char *why)
{
	if (!s->list_begun) {
		s->state = PBS_WHOLE;
		s->whole = g_steal_pointer(&s->head);
		return;
	}
	s->rc = cr_host->error_set(&s->err, CR_ERR_PARSE, "%s: invalid protobuf at offset %zu: %s",
				   s->endpoint, offset, why);
	s->state = PBS_FAILED;
}

/* @n bytes at @p were taken before raw began. */
static void pbs_took(struct k8s_pbs *s, const uint8_t *p, size_t n)
{
	if (!s->list_begun)
		g_byte_array_append(s->head, p, (guint)n);
	s->offset += n;
}

/* A pod or the ListMeta failed: its error stands, nothing more is read. */
static void pbs_fail(struct k8s_pbs *s, size_t unit_offset)
{
	if (s->pg.bad && !*s->pg.bad) { /* the callback's own error */
		s->rc = s->err.code;
	} else {
		s->rc = cr_host->error_set(&s->err, CR_ERR_PARSE,
					   "%s: invalid protobuf at offset %zu: %s", s->endpoint,
					   unit_offset + s->pg.bad_offset,
					   s->pg.bad ? s->pg.bad : "not a message");
	}
	s->state = PBS_FAILED;
}

/* The page reader keeps a page's first ListMeta (it may have asked for
 * the next page already): so does this one. */
static void pbs_on_next(void *pager, const char *next, const char *version)
{
	struct k8s_pbs *s = pager;

	if (s->meta_read)
		return;
	s->meta_read = true;
	s->next = next && *next ? g_strdup(next) : NULL;
	s->version = version && *version ? g_strdup(version) : NULL;
}

/* The field (@num, @wire) whose value, @len bytes, is at @p (body offset
 * @offset), read whole. */
static void pbs_unit(struct k8s_pbs *s, uint32_t num, unsigned wire, const uint8_t *p, size_t len,
		     size_t offset)
{
	struct pb_field f = { num, wire, { p, p + len, p } };
	struct pb_unknown u = { 0 };

	s->pg.base = p;
	s->pg.bad = NULL;
	if (s->state == PBS_LIST) {
		if (!pb_list_field(&s->pg, &f, NULL))
			pbs_fail(s, offset);
		return;
	}
	if (!pb_unknown_field(&s->pg, &f, &u)) {
		if (s->list_begun)
			pbs_fail(s, offset);
		else
			pbs_refuse(s, offset, "");
		return;
	}
	if (u.has_kind)
		s->kind_ok = pb_kind_is(&u, "PodList");
	if (u.encoded)
		s->encoded = true;
}

/*
 * Read what of @p (@n bytes, at body offset s->offset) makes whole units
 * and return how many bytes were taken. What is left is the start of a
 * unit: s->need says how many bytes it has in all (at least one more than
 * are left).
 */
static size_t pbs_take(struct k8s_pbs *s, const uint8_t *p, size_t n)
{
	size_t at = 0;

	while (at < n) {
		const uint8_t *q = p + at;
		size_t left = n - at, room, h, keylen = 0, want;
		uint32_t num = 0;
		unsigned wire = 0;
		uint64_t len;
		long hr;

		switch (s->state) {
		case PBS_MAGIC:
			if (left < 4) {
				s->need = 4;
				return at;
			}
			if (memcmp(q, "k8s\0", 4) != 0) {
				pbs_refuse(s, s->offset, "");
				return at;
			}
			pbs_took(s, q, 4);
			at += 4;
			s->state = PBS_ENV;
			continue;
		case PBS_SKIP: {
			size_t step = left < s->skip_left ? left : (size_t)s->skip_left;

			at += step;
			s->offset += step;
			s->skip_left -= step;
			s->list_left -= step;
			if (s->skip_left == 0)
				s->state = PBS_LIST;
			continue;
		}
		case PBS_WHOLE:
		case PBS_FAILED:
			return at;
		case PBS_ENV:
		case PBS_LIST:
			break;
		}
		if (s->state == PBS_LIST && s->list_left == 0) {
			s->state = PBS_ENV;
			s->list_done = true;
			continue;
		}
		/* a PodList field's header ends within the PodList */
		room = s->state == PBS_LIST && s->list_left < left ? (size_t)s->list_left : left;
		hr = pbs_header(q, room, &num, &wire, &len, &keylen);
		if (hr == 0 && room < left)
			hr = -1;
		if (hr < 0) {
			pbs_refuse(s, s->offset, "truncated field");
			return at;
		}
		if (hr == 0) {
			s->need = left + 1;
			return at;
		}
		h = (size_t)hr;
		want = h + (wire == WIRE_VARINT ? 0 : (size_t)len);
		if (len > PBS_MAX || (s->state == PBS_LIST && len > s->list_left - h)) {
			pbs_refuse(s, s->offset + keylen, "truncated field");
			return at;
		}
		if (s->state == PBS_ENV && s->list_begun && (num == 1 || num == 2)) {
			/* the page reader would take the last: what was read is not */
			pbs_refuse(s, s->offset,
				   "the envelope's type or object again, after the object");
			return at;
		}
		if (s->state == PBS_ENV && num == 2 && wire == WIRE_LEN) { /* raw */
			if (!s->kind_ok) { /* not a PodList: the page reader says so */
				pbs_refuse(s, s->offset, "");
				return at;
			}
			pbs_took(s, q, h);
			at += h;
			s->list_begun = true;
			g_clear_pointer(&s->head, g_byte_array_unref);
			s->list_left = len;
			s->state = PBS_LIST;
			continue;
		}
		if (s->state == PBS_LIST && num != 1 && num != 2 && wire == WIRE_LEN) {
			at += h; /* stepped over as it comes */
			s->offset += h;
			s->list_left -= h;
			s->skip_left = len;
			s->state = len ? PBS_SKIP : PBS_LIST;
			continue;
		}
		if (left < want) {
			s->need = want;
			return at;
		}
		/* what the page reader calls its functions for: ListMeta and the
		 * pods; typeMeta and contentEncoding */
		if (s->state == PBS_LIST || num == 1 || (wire == WIRE_LEN && num == 3))
			pbs_unit(s, num, wire, q + (wire == WIRE_LEN ? h : keylen),
				 wire == WIRE_LEN ? (size_t)len : want - keylen,
				 s->offset + (wire == WIRE_LEN ? h : keylen));
		if (s->state == PBS_LIST)
			s->list_left -= want;
		if (s->state == PBS_WHOLE)
			return at;
		pbs_took(s, q, want);
		at += want;
	}
	return at;
}

/**
 * k8s_pbs_new:
 * A streamed page: pods go to @fn(pod, @ud) as they are read.
 * Returns: (transfer full) free with k8s_pbs_free().
 */
struct k8s_pbs *k8s_pbs_new(const char *endpoint, k8s_pod_fn fn, void *ud)
{
	struct k8s_pbs *s = g_new0(struct k8s_pbs, 1);
	cr_error init = CR_ERROR_INIT;

	s->endpoint = endpoint;
	s->err = init;
	k8s_view_store_init(&s->store);
	s->pg = (struct pb_page){ .endpoint = endpoint,
				  .fn = fn,
				  .on_next = pbs_on_next,
				  .ud = ud,
				  .pager = s,
				  .err = &s->err,
				  .store = &s->store };
	s->carry = g_byte_array_new();
	s->head = g_byte_array_new();
	return s;
}

/**
 * k8s_pbs_feed:
 * The next @n bytes of the body (a cr_http_data_fn: @user is the page).
 * Returns: false when the page cannot be read (the request may stop).
 */
bool k8s_pbs_feed(const char *data, size_t n, void *user)
{
	struct k8s_pbs *s = user;
	const uint8_t *p = (const uint8_t *)data;
	size_t took;

	if (s->state == PBS_WHOLE) {
		if (s->whole->len + n > PBS_MAX) {
			s->rc = cr_host->error_set(&s->err, CR_ERR_IO,
						   "%s: response larger than %zu bytes",
						   s->endpoint, PBS_MAX);
			s->state = PBS_FAILED;
			return false;
		}
		g_byte_array_append(s->whole, p, (guint)n);
		return true;
	}
	/* First complete the unit the carry holds the start of. */
	while (s->carry->len > 0 && n > 0 && s->state != PBS_FAILED) {
		size_t add = s->need - s->carry->len;

		if (add > n)
			add = n;
		g_byte_array_append(s->carry, p, (guint)add);
		p += add;
		n -= add;
		took = pbs_take(s, s->carry->data, s->carry->len);
		if (s->state == PBS_WHOLE) {
			g_byte_array_append(s->whole, s->carry->data + took,
					    s->carry->len - (guint)took);
			g_byte_array_set_size(s->carry, 0);
			return k8s_pbs_feed((const char *)p, n, s);
		}
		g_byte_array_remove_range(s->carry, 0, (guint)took);
	}
	if (s->state == PBS_FAILED)
		return false;
	took = s->carry->len == 0 ? pbs_take(s, p, n) : 0;
	if (s->state == PBS_WHOLE)
		return k8s_pbs_feed((const char *)p + took, n - took, s);
	if (s->state == PBS_FAILED)
		return false;
	g_byte_array_append(s->carry, p + took, (guint)(n - took));
	return true;
}

/**
 * k8s_pbs_finish:
 * The body has ended. A page that was kept whole, or that ended before
 * raw began, is read now by the page reader (@proto: its Content-Type
 * said protobuf; @namespace, as k8s_page_read). *@next: the continue token
 * (NULL on the last page), *@version: the list's resourceVersion (transfer
 * full, NULL when none), *@need_full as k8s_page_read.
 * Returns: CR_OK, or the page's failure, also in @err.
 */
cr_status k8s_pbs_finish(struct k8s_pbs *s, bool proto, const char *namespace, bool *need_full,
			 char **next, char **version, cr_error *err)
{
	*need_full = false;
	*next = NULL;
	*version = NULL;
	if (s->state == PBS_FAILED)
		return cr_host->error_set(err, s->rc, "%s", s->err.message);
	if (!s->list_begun && s->state != PBS_WHOLE) { /* all of it is in head and carry */
		s->state = PBS_WHOLE;
		s->whole = g_steal_pointer(&s->head);
		g_byte_array_append(s->whole, s->carry->data, s->carry->len);
	}
	if (s->state == PBS_WHOLE) /* an empty array's data is NULL: not a text */
		return k8s_page_read(
			s->endpoint, namespace, s->whole->len ? (const char *)s->whole->data : "",
			s->whole->len, proto, s->pg.fn, s->pg.ud, need_full, next, version, err);
	if (s->state == PBS_LIST && s->list_left == 0 && s->carry->len == 0)
		s->list_done = true;
	if (s->carry->len > 0 || !s->list_done)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: invalid protobuf at offset %zu: truncated field",
					  s->endpoint, s->offset);
	if (s->encoded)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: protobuf answer has a contentEncoding", s->endpoint);
	*next = g_steal_pointer(&s->next);
	*version = g_steal_pointer(&s->version);
	return CR_OK;
}

void k8s_pbs_free(struct k8s_pbs *s)
{
	if (!s)
		return;
	k8s_view_store_clear(&s->store);
	g_byte_array_unref(s->carry);
	if (s->whole)
		g_byte_array_unref(s->whole);
	if (s->head)
		g_byte_array_unref(s->head);
	g_free(s->next);
	g_free(s->version);
	g_free(s);
}
