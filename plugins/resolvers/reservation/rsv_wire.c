/* SPDX-License-Identifier: MIT */
/*
 * rsv_wire.c - frames and tags of the reservation protocol, client side
 * (see rsv_wire.h and docs/reservation.md). Tags, nonces and the secret
 * file's rules are plugins/common/reservation's, shared with the server; a
 * constant-time compare; a frame over 1 MiB, a bad tag or a sequence out of
 * order ends the connection with a message naming the server.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/random.h>

#include <glib.h>

#include "rsv-proto.h"
#include "rsv_wire.h"

#define RSV_TAG RSV_TAG_LEN
#define RSV_NONCE RSV_NONCE_LEN

struct rsv_wire {
	char server[256];
	unsigned char *secret;
	size_t secret_len;
	unsigned char snonce[RSV_NONCE], cnonce[RSV_NONCE];
	uint64_t send_seq, recv_seq;
	bool authed; /* from AUTH on, tags cover nonces and sequence */
	char cluster_id[128];
	unsigned char *buf; /* bytes read, not yet a whole frame */
	size_t have, cap;
};

static void rsv_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* The tag of @json sent in direction @dir ('C' client to server, 'S'
 * back): the HELLO form until AUTH, then over both nonces and @seq. */
static void rsv_tag(const rsv_wire *w, char dir, uint64_t seq, const unsigned char *json,
		    size_t len, unsigned char out[RSV_TAG])
{
	rsv_proto_tag(w->secret, w->secret_len, w->authed ? w->snonce : NULL, w->cnonce, dir, seq,
		      json, len, out);
}

static cr_status rsv_write_all(rsv_wire *w, int fd, const unsigned char *p, size_t n, cr_error *err)
{
	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		struct pollfd pf = { .fd = fd, .events = POLLOUT };

		if (k > 0) {
			p += k;
			n -= (size_t)k;
		} else if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (poll(&pf, 1, 30000) == 0)
				return cr_host->error_set(err, CR_ERR_TIMEOUT,
							  "reservation server %s: send timed out",
							  w->server);
		} else {
			return cr_host->error_set(err, CR_ERR_NETWORK,
						  "reservation server %s: send failed: %s",
						  w->server, strerror(errno));
		}
	}
	return CR_OK;
}

cr_status rsv_wire_send(rsv_wire *w, int fd, const char *type, const char *data_json, cr_error *err)
{
	size_t jl = strlen(type) + strlen(data_json) + 32;
	unsigned char *frame = malloc(4 + RSV_TAG + jl);
	int n;
	cr_status st;

	if (frame == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	n = snprintf((char *)frame + 4 + RSV_TAG, jl, "{\"type\":\"%s\",\"data\":%s}", type,
		     data_json);
	rsv_be32(frame, (uint32_t)(RSV_TAG + (size_t)n));
	rsv_tag(w, 'C', w->send_seq++, frame + 4 + RSV_TAG, (size_t)n, frame + 4);
	st = rsv_write_all(w, fd, frame, 4 + RSV_TAG + (size_t)n, err);
	free(frame);
	return st;
}

/* A whole frame in the buffer: checked, taken out. CR_DECLINED: not yet. */
static cr_status rsv_take(rsv_wire *w, char **json, size_t *len, cr_error *err)
{
	unsigned char tag[RSV_TAG];
	uint32_t n;

	if (w->have < 4)
		return CR_DECLINED;
	n = (uint32_t)w->buf[0] << 24 | (uint32_t)w->buf[1] << 16 | (uint32_t)w->buf[2] << 8 |
	    w->buf[3];
	if (n < RSV_TAG || n > RSV_MAX_FRAME)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "reservation server %s: bad frame length %u", w->server,
					  n);
	if (w->have < 4 + (size_t)n)
		return CR_DECLINED;
	rsv_tag(w, 'S', w->recv_seq, w->buf + 4 + RSV_TAG, n - RSV_TAG, tag);
	if (!rsv_proto_tag_equal(tag, w->buf + 4))
		return cr_host->error_set(err, CR_ERR_AUTH,
					  "reservation server %s: bad message tag (a different "
					  "secret, or a message altered or replayed)",
					  w->server);
	w->recv_seq++;
	*len = n - RSV_TAG;
	*json = malloc(*len + 1);
	if (*json == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	memcpy(*json, w->buf + 4 + RSV_TAG, *len);
	(*json)[*len] = '\0';
	memmove(w->buf, w->buf + 4 + n, w->have - 4 - n);
	w->have -= 4 + (size_t)n;
	return CR_OK;
}

static cr_status rsv_fill(rsv_wire *w, int fd, cr_error *err)
{
	ssize_t k;

	if (w->cap - w->have < 65536) {
		unsigned char *b = realloc(w->buf, w->cap + 65536);

		if (b == NULL)
			return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
		w->buf = b;
		w->cap += 65536;
	}
	k = recv(fd, w->buf + w->have, w->cap - w->have, 0);
	if (k > 0) {
		w->have += (size_t)k;
		return CR_OK;
	}
	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return CR_OK;
	return cr_host->error_set(err, CR_ERR_NETWORK, "reservation server %s: %s", w->server,
				  k == 0 ? "connection closed" : strerror(errno));
}

cr_status rsv_wire_recv(rsv_wire *w, int fd, int64_t timeout_ms, char **json, size_t *len,
			cr_error *err)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	cr_status st;

	for (;;) {
		st = rsv_take(w, json, len, err);
		if (st != CR_DECLINED)
			return st;
		pf.revents = 0;
		if (poll(&pf, 1, (int)(timeout_ms > 2147483647 ? 2147483647 : timeout_ms)) == 0)
			return timeout_ms == 0
				       ? CR_DECLINED
				       : cr_host->error_set(err, CR_ERR_TIMEOUT,
							    "reservation server %s: no answer "
							    "within %.0f s",
							    w->server, (double)timeout_ms / 1000);
		st = rsv_fill(w, fd, err);
		if (st != CR_OK)
			return st;
	}
}

/* HELLO {v, nonce, cluster_id}. */
static cr_status rsv_hello(rsv_wire *w, const char *text, size_t len, cr_error *err)
{
	cr_json *root = NULL;
	const char *nonce, *id;
	cr_status st = cr_host->json_parse(text, len, w->server, &root, err);

	if (st != CR_OK)
		return st;
	nonce = cr_host->json_string(cr_host->json_get(root, "/data/nonce"));
	id = cr_host->json_string(cr_host->json_get(root, "/data/cluster_id"));
	if (!rsv_proto_unhex(nonce, w->snonce, RSV_NONCE))
		st = cr_host->error_set(err, CR_ERR_PARSE,
					"reservation server %s: HELLO without a nonce", w->server);
	else
		snprintf(w->cluster_id, sizeof(w->cluster_id), "%s", id ? id : "");
	cr_host->json_free(root);
	return st;
}

cr_status rsv_wire_client_handshake(int fd, const char *server, const unsigned char *secret,
				    size_t secret_len, int64_t timeout_ms, rsv_wire **out,
				    cr_error *err)
{
	rsv_wire *w = calloc(1, sizeof(*w));
	char data[2 * RSV_NONCE + 16], *text = NULL;
	size_t len = 0;
	cr_status st;

	if (w == NULL || (w->secret = g_try_malloc(secret_len)) == NULL) {
		free(w);
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	}
	snprintf(w->server, sizeof(w->server), "%s", server);
	memcpy(w->secret, secret, secret_len);
	w->secret_len = secret_len;
	st = rsv_wire_recv(w, fd, timeout_ms, &text, &len, err);
	if (st == CR_OK)
		st = rsv_hello(w, text, len, err);
	free(text);
	if (st == CR_OK && getrandom(w->cnonce, RSV_NONCE, 0) != (ssize_t)RSV_NONCE)
		st = cr_host->error_set(err, CR_ERR_INTERNAL, "no random bytes for a nonce");
	if (st == CR_OK) {
		char hex[2 * RSV_NONCE + 1];

		w->authed = true;
		rsv_proto_hex(w->cnonce, RSV_NONCE, hex);
		snprintf(data, sizeof(data), "{\"nonce\":\"%s\"}", hex);
		st = rsv_wire_send(w, fd, "AUTH", data, err);
	}
	if (st != CR_OK) {
		rsv_wire_free(w);
		return st;
	}
	*out = w;
	return CR_OK;
}

const char *rsv_wire_cluster_id(const rsv_wire *w)
{
	return w->cluster_id;
}

void rsv_wire_free(rsv_wire *w)
{
	if (w == NULL)
		return;
	rsv_proto_secret_free(w->secret, w->secret_len);
	free(w->buf);
	free(w);
}

cr_status rsv_secret_load(cr_plugin_ctx *ctx, const char *path, unsigned char **secret, size_t *len,
			  cr_error *err)
{
	char why[160];

	(void)ctx;
	*secret = rsv_proto_secret_load(path, len, why, sizeof(why));
	if (*secret == NULL)
		return cr_host->error_set(err, CR_ERR_CONFIG, "secret file '%s': %s", path, why);
	return CR_OK;
}
