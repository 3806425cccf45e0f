/* SPDX-License-Identifier: MIT */
/*
 * reservation-send.c - what the event loop (reservation-server.c) and the
 * handlers (reservation-state.c) both use, below both: the clock they time
 * with, the log line on stderr, and a frame to a peer, tagged
 * (rsv-proto.h) and written at once or queued in the connection's buffer.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "reservation-server.h"

int64_t rsv_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether a progress line stands on the terminal, unfinished. */
static bool progress_shown;

void rsv_progress(const char *line)
{
	bool tty = isatty(STDERR_FILENO);

	if (progress_shown)
		fputs("\r\033[K", stderr);
	progress_shown = false;
	if (line == NULL)
		return;
	fprintf(stderr, "cluster-resolver: reservation: %s%s", line, tty ? "" : "\n");
	progress_shown = tty;
	fflush(stderr);
}

void rsv_log(const rsv_server *s, bool always, const char *fmt, ...)
{
	va_list ap;

	if (!always && s->o->verbose < 1)
		return;
	if (progress_shown)
		rsv_progress(NULL);
	fputs("cluster-resolver: reservation: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Straight to the socket when nothing is queued before it: at formation
 * N clients each get the whole cluster, and the kernel's buffers, not
 * ours, should hold those N copies. What does not fit waits in c->out. */
static void send_or_queue(rsv_conn *c, const guint8 *head, size_t hlen, const guint8 *body,
			  size_t blen)
{
	struct iovec iov[2] = { { (void *)head, hlen }, { (void *)body, blen } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t k = 0;

	if (c->out->len == 0 && !c->closing)
		k = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (k < 0)
		k = 0; /* an error shows at the next write or read */
	if ((size_t)k < hlen)
		g_byte_array_append(c->out, head + k, (guint)(hlen - (size_t)k));
	k = (size_t)k > hlen ? k - (ssize_t)hlen : 0;
	g_byte_array_append(c->out, body + k, (guint)(blen - (size_t)k));
}

/* Before AUTH (the HELLO) the tag covers the JSON alone. */
void rsv_send(rsv_server *s, rsv_conn *c, const char *type, json_object *data)
{
	json_object *msg = json_object_new_object();
	const char *text;
	unsigned char head[4 + RSV_TAG_LEN];
	size_t len;

	json_object_object_add(msg, "type", json_object_new_string(type));
	json_object_object_add(msg, "data", data ? data : json_object_new_object());
	text = json_object_to_json_string_ext(msg, JSON_C_TO_STRING_PLAIN);
	len = strlen(text);
	for (int i = 0; i < 4; i++)
		head[i] = (unsigned char)((RSV_TAG_LEN + len) >> (8 * (3 - i)));
	rsv_proto_tag(s->secret, s->secret_len, c->authed ? c->snonce : NULL, c->cnonce, 'S',
		      c->sseq++, text, len, head + 4);
	send_or_queue(c, head, sizeof(head), (const guint8 *)text, len);
	json_object_put(msg);
}

void rsv_send_err(rsv_server *s, rsv_conn *c, const char *code, const char *fmt, ...)
{
	json_object *d = json_object_new_object();
	va_list ap;
	char *message;

	va_start(ap, fmt);
	message = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	json_object_object_add(d, "code", json_object_new_string(code));
	json_object_object_add(d, "message", json_object_new_string(message));
	rsv_log(s, false, "%s: ERR %s", c->peer, message);
	g_free(message);
	rsv_send(s, c, "ERR", d);
}
