/* SPDX-License-Identifier: MIT */
/*
 * rsv_wire.h - the client's side of the reservation protocol
 * (docs/reservation.md): frames of a big-endian uint32 length, a 32-byte
 * HMAC-SHA256 tag and UTF-8 JSON; the server's HELLO (tag over its JSON),
 * our AUTH, then tags over "cr-reservation/1" || direction ('C' to the
 * server, 'S' from it) || server nonce || client nonce || big-endian uint64
 * sequence || JSON. Nonces are 32 bytes sent as 64 hex digits; each
 * direction numbers its frames from 0 (the server's HELLO is 0, our AUTH
 * is 0).
 */
#ifndef CR_RESERVATION_WIRE_H
#define CR_RESERVATION_WIRE_H

#include "reservation.h"

typedef struct rsv_wire rsv_wire;

/** Read HELLO, check its tag, send AUTH. Errors name @server. */
cr_status rsv_wire_client_handshake(int fd, const char *server, const unsigned char *secret,
				    size_t secret_len, int64_t timeout_ms, rsv_wire **out,
				    cr_error *err);
const char *rsv_wire_cluster_id(const rsv_wire *w);
/** Send {"type": @type, "data": @data_json}. */
cr_status rsv_wire_send(rsv_wire *w, int fd, const char *type, const char *data_json,
			cr_error *err);
/** The next message's JSON (transfer full, free()), within @timeout_ms;
 *  0 = only what has arrived (CR_DECLINED when no whole frame has). */
cr_status rsv_wire_recv(rsv_wire *w, int fd, int64_t timeout_ms, char **json, size_t *len,
			cr_error *err);
void rsv_wire_free(rsv_wire *w);

#endif /* CR_RESERVATION_WIRE_H */
