/* SPDX-License-Identifier: MIT */
/*
 * rsv-proto.h - what both ends of the reservation protocol share
 * (docs/reservation.md, "The protocol"): frame limits, the HMAC-SHA256 tag
 * of a frame, nonces as hex, and the secret file's rules. The client is
 * plugins/resolvers/reservation/, the server `cluster-resolver reservation
 * serve` (cli/reservation-server.c).
 */
#ifndef CR_RSV_PROTO_H
#define CR_RSV_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RSV_TAG_LEN 32
#define RSV_NONCE_LEN 32
#define RSV_MAX_FRAME (1u << 20) /* the length field's largest value */
#define RSV_LABEL "cr-reservation/1"
#define RSV_SECRET_MIN 16
#define RSV_SECRET_MAX 65536

/*
 * The tag of @json sent in direction @dir ('C' client to server, 'S'
 * back). With @snonce NULL the HELLO form, HMAC(secret, JSON); else
 * HMAC(secret, label || dir || server nonce || client nonce || big-endian
 * uint64 @seq || JSON).
 */
void rsv_proto_tag(const unsigned char *secret, size_t secret_len, const unsigned char *snonce,
		   const unsigned char *cnonce, char dir, uint64_t seq, const void *json,
		   size_t len, unsigned char out[RSV_TAG_LEN]);

/* Compare two tags in constant time. */
bool rsv_proto_tag_equal(const unsigned char *a, const unsigned char *b);

/* @n bytes as 2n lower-case hex digits and a NUL (@out holds 2n + 1). */
void rsv_proto_hex(const unsigned char *p, size_t n, char *out);

/* Exactly 2n hex digits into @n bytes; false otherwise. */
bool rsv_proto_unhex(const char *s, unsigned char *out, size_t n);

/*
 * The secret: the bytes of @path, a regular file of RSV_SECRET_MIN to
 * RSV_SECRET_MAX bytes that neither group nor others may read. NULL with
 * the reason in @why ("readable by group or others (chmod 600)", ...);
 * free with rsv_proto_secret_free().
 */
unsigned char *rsv_proto_secret_load(const char *path, size_t *len, char *why, size_t why_size);

/* Overwrite and free a secret. NULL is a no-op. */
void rsv_proto_secret_free(unsigned char *secret, size_t len);

#endif /* CR_RSV_PROTO_H */
