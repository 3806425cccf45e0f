/* SPDX-License-Identifier: MIT */
/*
 * fuzz-rsv-server.c - libFuzzer target for the reservation server's frame
 * reader and message handlers (cli/reservation/reservation-server.c
 * conn_frames, cli/reservation/reservation-state.c), driven as the event
 * loop drives them: a server for a plan of 4 executors (1 ps, 3 workers)
 * and up to 5 connections, each a socketpair whose far end the harness
 * drains. Each connection has sent
 * AUTH with a fixed nonce (tagged right); then the input is a list of
 * records
 *
 *   conn (1 byte) | flags (1 byte) | length (2 bytes, big-endian) | body
 *
 * Each body is framed as a client would, the tag computed from the spec
 * (HMAC-SHA256 over label, 'C', both nonces, the sequence, the JSON),
 * unless flags bit 0 spoils the tag or bit 1 the length field; bit 2 feeds
 * the frame one byte at a time. Properties: registrations never exceed the
 * plan; a registered executor has a host; a connection the server closed
 * takes no further frame; nothing leaks or crashes.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../../cli/reservation/reservation-server.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* cli/common.c's error line, which the server's start-up would use. */
void cli_error(const char *fmt, ...)
{
	(void)fmt;
}

#define FZ_CONNS 5
static unsigned char fz_secret[] = "fuzz-secret-0123456789abcdef";
static const unsigned char fz_cnonce[RSV_NONCE_LEN] = { 7, 7, 7 };

static void fz_drain(int fd)
{
	char buf[65536];

	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* Frame @json (tagged for @c unless @spoil_tag) into @c->in, whole or byte
 * by byte, and let the server read it. */
static void fz_frame(rsv_server *s, rsv_conn *c, const char *json, size_t len, unsigned flags)
{
	unsigned char tag[RSV_TAG_LEN];
	uint32_t n = (uint32_t)(RSV_TAG_LEN + len);
	guint8 head[4];

	if (flags & 2)
		n ^= 0x00ff0000u;
	head[0] = (guint8)(n >> 24);
	head[1] = (guint8)(n >> 16);
	head[2] = (guint8)(n >> 8);
	head[3] = (guint8)n;
	rsv_proto_tag(s->secret, s->secret_len, c->snonce, c->cnonce, 'C', c->rseq, json, len, tag);
	if (flags & 1)
		tag[0] ^= 1;
	GByteArray *f = g_byte_array_new();

	g_byte_array_append(f, head, 4);
	g_byte_array_append(f, tag, RSV_TAG_LEN);
	g_byte_array_append(f, (const guint8 *)json, (guint)len);
	for (guint at = 0; at < f->len && !c->closing;) {
		guint k = (flags & 4) ? 1 : f->len - at;
		uint64_t before = c->rseq;
		bool was_closing = c->closing;

		g_byte_array_append(c->in, f->data + at, k);
		at += k;
		conn_frames(s, c);
		if (was_closing && c->rseq != before)
			abort();
	}
	g_byte_array_free(f, TRUE);
}

static rsv_conn *fz_conn(rsv_server *s, int peer[FZ_CONNS], int i)
{
	int sv[2];
	char nonce[2 * RSV_NONCE_LEN + 1], *auth;
	rsv_conn *c;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
		abort();
	c = g_new0(rsv_conn, 1);
	c->fd = sv[0];
	peer[i] = sv[1];
	c->executor = -1;
	c->in = g_byte_array_new();
	c->out = g_byte_array_new();
	c->last_ms = rsv_now_ms();
	g_snprintf(c->peer, sizeof(c->peer), "127.0.0.1:%d", 40000 + i);
	memset(c->snonce, i + 1, sizeof(c->snonce));
	g_ptr_array_add(s->conns, c);
	/* AUTH carries the client's nonce; its tag covers both already */
	memcpy(c->cnonce, fz_cnonce, sizeof(c->cnonce));
	rsv_proto_hex(fz_cnonce, RSV_NONCE_LEN, nonce);
	auth = g_strdup_printf("{\"type\": \"AUTH\", \"data\": {\"nonce\": \"%s\"}}", nonce);
	fz_frame(s, c, auth, strlen(auth), 0);
	g_free(auth);
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const rsv_serve_opts o = { .timeout_s = 600,
					  .grace_s = 0,
					  .shutdown_timeout_s = -1,
					  .secret_file = "fuzz",
					  .auth_timeout_s = 5,
					  .max_pending = 64 };
	static const rsv_plan plan = { 4, 2, { { "ps", 0, 1 }, { "worker", 1, 3 } } };
	rsv_server s = { .plan = &plan, .o = &o, .conns = g_ptr_array_new() };
	rsv_conn *conns[FZ_CONNS] = { NULL };
	int peer[FZ_CONNS] = { -1, -1, -1, -1, -1 };

	s.secret = g_memdup2(fz_secret, sizeof(fz_secret) - 1);
	s.secret_len = sizeof(fz_secret) - 1;
	g_strlcpy(s.cluster_id, "c0ffee0123456789", sizeof(s.cluster_id));
	s.regs = g_new0(rsv_reg, plan.num_executors);
	s.start_ms = rsv_now_ms();
	s.deadline_ms = s.start_ms + 600000;
	while (size >= 4 && s.phase != RSV_END) {
		int i = data[0] % FZ_CONNS;
		unsigned flags = data[1];
		size_t len = (size_t)data[2] << 8 | data[3];

		data += 4;
		size -= 4;
		if (len > size)
			len = size;
		if (conns[i] == NULL)
			conns[i] = fz_conn(&s, peer, i);
		fz_frame(&s, conns[i], (const char *)data, len, flags);
		fz_drain(peer[i]);
		data += len;
		size -= len;
		if (s.registered > plan.num_executors)
			abort();
		for (int e = 0; e < plan.num_executors; e++)
			if (s.regs[e].present && s.regs[e].host == NULL)
				abort();
	}
	for (int i = 0; i < FZ_CONNS; i++)
		if (peer[i] >= 0)
			close(peer[i]);
	server_free(&s);
	return 0;
}
