/* SPDX-License-Identifier: MIT */
/*
 * fuzz-rsv-wire.c - libFuzzer target for reservation.so's frame reader
 * (plugins/resolvers/reservation/rsv_wire.c), as a server would feed it
 * through a socket. The input is a list of records
 *
 *   flags (1 byte) | length (2 bytes, big-endian) | body (length bytes)
 *
 * The first record is the HELLO body; the harness frames it with the tag
 * over its JSON, runs the client's handshake and reads the client's AUTH to
 * learn its nonce. Each later record is framed as the server would, with
 * the tag computed here from the spec (HMAC-SHA256 over "cr-reservation/1"
 * || 'S' || server nonce || client nonce || be64 sequence || JSON, the
 * sequence counting the server's frames from HELLO = 0), unless
 * flags bit 0 spoils the tag or bit 1 the length field. Properties: a frame
 * framed right comes out with exactly its bytes, in order; after the first
 * bad one nothing more is accepted; nothing leaks or crashes.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "rsv_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* -- the few host slots rsv_wire.c calls, over json-c ------------------ */

static cr_status fz_error_set(cr_error *err, cr_status code, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

static cr_status fz_json_parse(const char *text, size_t len, const char *what, cr_json **root,
			       cr_error *err)
{
	struct json_tokener *t = json_tokener_new();
	json_object *o = json_tokener_parse_ex(t, text, (int)len);
	bool ok = o != NULL && json_tokener_get_error(t) == json_tokener_success &&
		  (size_t)json_tokener_get_parse_end(t) == len;

	json_tokener_free(t);
	if (!ok) {
		json_object_put(o);
		return fz_error_set(err, CR_ERR_PARSE, "%s: not JSON", what);
	}
	*root = (cr_json *)o;
	return CR_OK;
}

static const cr_json *fz_json_get(const cr_json *node, const char *pointer)
{
	json_object *res = NULL;

	if (json_pointer_get((json_object *)node, pointer, &res) != 0)
		return NULL;
	return (const cr_json *)res;
}

static const char *fz_json_string(const cr_json *node)
{
	json_object *o = (json_object *)node;

	return o != NULL && json_object_is_type(o, json_type_string) ? json_object_get_string(o)
								     : NULL;
}

static void fz_json_free(cr_json *root)
{
	json_object_put((json_object *)root);
}

static const cr_host_api fz_host = {
	.struct_size = sizeof(cr_host_api),
	.error_set = fz_error_set,
	.json_parse = fz_json_parse,
	.json_get = fz_json_get,
	.json_string = fz_json_string,
	.json_free = fz_json_free,
};
const cr_host_api *cr_host = &fz_host;

/* -- the server's side, written from the spec --------------------------- */

static const unsigned char secret[] = "fuzz-secret-0123456789";

static size_t frame(unsigned char *out, const unsigned char *json, size_t len,
		    const unsigned char *prefix, size_t plen, unsigned flags)
{
	unsigned char *msg = malloc(plen + len + 1);
	unsigned int tl = 32;
	uint32_t n = (uint32_t)(32 + len);

	if (flags & 2)
		n ^= 0x00100001u; /* a wrong length: too long or over 1 MiB */
	out[0] = (unsigned char)(n >> 24);
	out[1] = (unsigned char)(n >> 16);
	out[2] = (unsigned char)(n >> 8);
	out[3] = (unsigned char)n;
	if (plen > 0)
		memcpy(msg, prefix, plen);
	memcpy(msg + plen, json, len);
	HMAC(EVP_sha256(), secret, sizeof(secret) - 1, msg, plen + len, out + 4, &tl);
	free(msg);
	if (flags & 1)
		out[4] ^= 0x80;
	memcpy(out + 36, json, len);
	return 36 + len;
}

/* The client's nonce from its AUTH frame. */
static bool read_auth_nonce(int fd, unsigned char nonce[32])
{
	unsigned char buf[4096];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	json_object *o, *v = NULL;
	const char *hex;
	bool ok = false;

	if (n < 36)
		return false;
	buf[n] = '\0';
	o = json_tokener_parse((char *)buf + 36);
	if (o != NULL && json_pointer_get(o, "/data/nonce", &v) == 0 &&
	    (hex = json_object_get_string(v)) != NULL && strlen(hex) == 64) {
		ok = true;
		for (int i = 0; i < 32 && ok; i++) {
			unsigned int b;

			ok = sscanf(hex + 2 * i, "%2x", &b) == 1;
			nonce[i] = (unsigned char)b;
		}
	}
	json_object_put(o);
	return ok;
}

typedef struct record {
	unsigned flags;
	const uint8_t *body;
	size_t len;
} record;

static bool next_record(const uint8_t **p, size_t *left, record *r)
{
	size_t len;

	if (*left < 3)
		return false;
	len = (size_t)(*p)[1] << 8 | (*p)[2];
	if (len > *left - 3)
		len = *left - 3;
	r->flags = (*p)[0];
	r->body = *p + 3;
	r->len = len;
	*p += 3 + len;
	*left -= 3 + len;
	return true;
}

static void run_frames(rsv_wire *w, int fd, int peer, const unsigned char snonce[32],
		       const unsigned char cnonce[32], const uint8_t *p, size_t left)
{
	unsigned char prefix[16 + 1 + 64 + 8], *out = malloc(36 + 65536);
	uint64_t seq = 1; /* each direction counts its frames: HELLO was 0 */
	record r;
	bool broken = false;

	memcpy(prefix, "cr-reservation/1", 16);
	prefix[16] = 'S';
	memcpy(prefix + 17, snonce, 32);
	memcpy(prefix + 49, cnonce, 32);
	while (!broken && next_record(&p, &left, &r)) {
		char *json = NULL;
		size_t len = 0;
		cr_error err = CR_ERROR_INIT;
		cr_status st;

		for (int i = 0; i < 8; i++)
			prefix[81 + i] = (unsigned char)(seq >> (8 * (7 - i)));
		if (send(peer, out, frame(out, r.body, r.len, prefix, sizeof(prefix), r.flags),
			 MSG_DONTWAIT) < 0)
			break;
		st = rsv_wire_recv(w, fd, 0, &json, &len, &err);
		broken = (r.flags & 3) != 0;
		if (!broken && (st != CR_OK || len != r.len || memcmp(json, r.body, len) != 0))
			abort(); /* a right frame must come out as sent */
		if (broken && st == CR_OK)
			abort(); /* a spoilt tag or length must not pass */
		free(json);
		seq++;
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char hello[36 + 65536], cnonce[32], snonce[32];
	const uint8_t *p = data;
	size_t left = size;
	rsv_wire *w = NULL;
	json_object *o, *v = NULL;
	struct json_tokener *tok;
	cr_error err = CR_ERROR_INIT;
	record r;
	int sv[2];

	if (!next_record(&p, &left, &r) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 0;
	if (send(sv[1], hello, frame(hello, r.body, r.len, NULL, 0, r.flags & 3), 0) < 0 ||
	    rsv_wire_client_handshake(sv[0], "fuzz", secret, sizeof(secret) - 1, 100, &w, &err) !=
		    CR_OK)
		goto out;
	if ((r.flags & 3) != 0)
		abort(); /* a HELLO with a spoilt tag or length must not pass */
	o = json_tokener_parse_ex(tok = json_tokener_new(), (const char *)hello + 36, (int)r.len);
	json_tokener_free(tok);
	/* The client took the HELLO: so do we, and its nonce is 64 hex digits. */
	if (o == NULL || json_pointer_get(o, "/data/nonce", &v) != 0 ||
	    strlen(json_object_get_string(v)) != 64)
		abort();
	for (int i = 0; i < 32; i++) {
		unsigned int b = 0;

		sscanf(json_object_get_string(v) + 2 * i, "%2x", &b);
		snonce[i] = (unsigned char)b;
	}
	json_object_put(o);
	if (read_auth_nonce(sv[1], cnonce))
		run_frames(w, sv[0], sv[1], snonce, cnonce, p, left);
out:
	rsv_wire_free(w);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
