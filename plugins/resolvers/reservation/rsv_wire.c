/* SPDX-License-Identifier: MIT */
/*
 * rsv_wire.c - frames and tags of the reservation protocol, client side
 * (see rsv_wire.h and docs/reservation.md). libcrypto's HMAC-SHA256 and a
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

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "rsv_wire.h"

#define RSV_TAG 32
#define RSV_NONCE 32
#define RSV_MAX_FRAME (1u << 20)
#define RSV_LABEL "cr-reservation/1"

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

/* The tag of @json sent in direction @dir ('C' client→server, 'S' back):
 * before AUTH over the JSON alone (HELLO), then over
 * label || dir || server nonce || client nonce || be64 seq || JSON. */
static void rsv_tag(const rsv_wire *w, char dir, uint64_t seq, const unsigned char *json,
		    size_t len, unsigned char out[RSV_TAG])
{
	size_t hl = sizeof(RSV_LABEL) - 1 + 1 + 2 * RSV_NONCE + 8;
	unsigned char *msg = malloc(hl + len), *p = msg;
	unsigned int olen = RSV_TAG;

	if (msg == NULL || !w->authed) {
		HMAC(EVP_sha256(), w->secret, (int)w->secret_len, json, len, out, &olen);
		free(msg);
		return;
	}
	memcpy(p, RSV_LABEL, sizeof(RSV_LABEL) - 1);
	p += sizeof(RSV_LABEL) - 1;
	*p++ = (unsigned char)dir;
	memcpy(p, w->snonce, RSV_NONCE);
	memcpy(p + RSV_NONCE, w->cnonce, RSV_NONCE);
	p += 2 * RSV_NONCE;
	for (int i = 7; i >= 0; i--)
		*p++ = (unsigned char)(seq >> (8 * i));
	memcpy(p, json, len);
	HMAC(EVP_sha256(), w->secret, (int)w->secret_len, msg, hl + len, out, &olen);
	free(msg);
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
	if (CRYPTO_memcmp(tag, w->buf + 4, RSV_TAG) != 0)
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

static void rsv_hex(const unsigned char *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static bool rsv_unhex(const char *s, unsigned char *out, size_t n)
{
	if (s == NULL || strlen(s) != 2 * n)
		return false;
	for (size_t i = 0; i < 2 * n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	for (size_t i = 0; i < n; i++) {
		unsigned int v = 0;

		sscanf(s + 2 * i, "%2x", &v);
		out[i] = (unsigned char)v;
	}
	return true;
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
	if (!rsv_unhex(nonce, w->snonce, RSV_NONCE))
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

	if (w == NULL || (w->secret = malloc(secret_len)) == NULL) {
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
	if (st == CR_OK && RAND_bytes(w->cnonce, RSV_NONCE) != 1)
		st = cr_host->error_set(err, CR_ERR_INTERNAL, "no random bytes for a nonce");
	if (st == CR_OK) {
		w->authed = true;
		snprintf(data, sizeof(data), "{\"nonce\":\"");
		rsv_hex(w->cnonce, RSV_NONCE, data + strlen(data));
		strcat(data, "\"}");
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
	OPENSSL_cleanse(w->secret, w->secret_len);
	free(w->secret);
	free(w->buf);
	free(w);
}

cr_status rsv_secret_load(cr_plugin_ctx *ctx, const char *path, unsigned char **secret, size_t *len,
			  cr_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat sb;
	ssize_t n;

	(void)ctx;
	if (fd < 0)
		return cr_host->error_set(err, CR_ERR_CONFIG, "secret file '%s': %s", path,
					  strerror(errno));
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (sb.st_mode & 077) != 0 ||
	    sb.st_size < 16 || sb.st_size > 65536) {
		close(fd);
		return cr_host->error_set(err, CR_ERR_CONFIG, "secret file '%s': %s", path,
					  !S_ISREG(sb.st_mode) ? "not a regular file"
					  : (sb.st_mode & 077) != 0
						  ? "readable by group or others (chmod 600)"
					  : sb.st_size < 16 ? "shorter than 16 bytes"
							    : "longer than 64 KiB");
	}
	*secret = malloc((size_t)sb.st_size);
	n = *secret ? read(fd, *secret, (size_t)sb.st_size) : -1;
	close(fd);
	if (n != sb.st_size) {
		free(*secret);
		*secret = NULL;
		return cr_host->error_set(err, CR_ERR_CONFIG, "secret file '%s': short read", path);
	}
	*len = (size_t)n;
	return CR_OK;
}
