/* SPDX-License-Identifier: MIT */
/*
 * reservation-server.c - `reservation serve`'s event loop: one thread,
 * poll() over the listening socket, a signalfd and every connection. Each
 * connection gets HELLO with its own nonce, must answer AUTH, and from
 * then on every frame's HMAC tag covers both nonces and its sequence
 * number (rsv-proto.h), so a frame from another connection, replayed or
 * reordered fails. A bad tag, an oversize or malformed frame closes the
 * connection (logged with the peer); a peer silent for 30 s outside WAIT
 * is dropped (only whole frames count: a byte now and then does not).
 * Before AUTH a connection holds little and briefly (issue 27 item 2): it
 * must authenticate within --auth-timeout, its frames are at most
 * RSV_PREAUTH_MAX_FRAME bytes, and at most --max-pending such connections
 * are kept (a new one, or a lack of descriptors, drops the oldest), so
 * anyone who can connect cannot hold the server or its memory. What each request does is reservation-state.c; the frames
 * both send go out through reservation-send.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "reservation-server.h"

static void conn_drop(rsv_server *s, rsv_conn *c, const char *why)
{
	if (c->closing)
		return;
	if (why != NULL)
		rsv_log(s, true, "%s: %s; connection closed", c->peer, why);
	c->closing = true;
	rsv_on_close(s, c);
}

static json_object *parse_json(const guint8 *text, size_t len)
{
	json_tokener *tok = json_tokener_new();
	json_object *v;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	v = json_tokener_parse_ex(tok, (const char *)text, (int)len);
	if (v != NULL &&
	    (json_tokener_get_error(tok) != json_tokener_success || tok->char_offset != (int)len ||
	     !json_object_is_type(v, json_type_object))) {
		json_object_put(v);
		v = NULL;
	}
	json_tokener_free(tok);
	return v;
}

/* The first frame is AUTH {nonce}: its tag already covers both nonces. */
static json_object *check_frame(rsv_server *s, rsv_conn *c, const guint8 *tag, const guint8 *text,
				size_t len)
{
	unsigned char want[RSV_TAG_LEN];
	json_object *msg = parse_json(text, len), *data = NULL, *nonce = NULL;

	if (msg == NULL)
		return conn_drop(s, c, "a frame that is not a JSON object"), NULL;
	if (!c->authed) {
		json_object_object_get_ex(msg, "data", &data);
		json_object_object_get_ex(data, "nonce", &nonce);
		if (!rsv_proto_unhex(json_object_get_string(nonce), c->cnonce, RSV_NONCE_LEN)) {
			json_object_put(msg);
			return conn_drop(s, c, "no AUTH with a nonce"), NULL;
		}
	}
	rsv_proto_tag(s->secret, s->secret_len, c->snonce, c->cnonce, 'C', c->rseq, text, len,
		      want);
	if (!rsv_proto_tag_equal(want, tag)) {
		json_object_put(msg);
		return conn_drop(s, c,
				 c->authed ? "bad tag (a frame altered, replayed or out "
					     "of order)"
					   : "bad tag on AUTH (a different secret?)"),
		       NULL;
	}
	c->rseq++;
	if (!c->authed) {
		c->authed = true;
		json_object_put(msg);
		return NULL;
	}
	return msg;
}

/* Every whole frame in c->in. */
static void conn_frames(rsv_server *s, rsv_conn *c)
{
	while (!c->closing && c->in->len >= 4 && s->phase != RSV_END) {
		const guint8 *p = c->in->data;
		uint32_t n =
			(uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		json_object *msg;

		if (n < RSV_TAG_LEN || n > RSV_MAX_FRAME) {
			conn_drop(s, c, n > RSV_MAX_FRAME ? "frame over 1 MiB" : "frame too short");
			return;
		}
		if (!c->authed && n > RSV_PREAUTH_MAX_FRAME) {
			conn_drop(s, c, "frame over 1 KiB before AUTH");
			return;
		}
		if (c->in->len < 4 + n)
			return;
		c->last_ms = rsv_now_ms();
		msg = check_frame(s, c, p + 4, p + 4 + RSV_TAG_LEN, n - RSV_TAG_LEN);
		if (msg != NULL) {
			rsv_on_message(s, c, msg);
			json_object_put(msg);
		}
		g_byte_array_remove_range(c->in, 0, 4 + n);
	}
}

static void conn_read(rsv_server *s, rsv_conn *c)
{
	guint8 buf[65536];
	ssize_t k = recv(c->fd, buf, sizeof(buf), 0);

	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (k <= 0) {
		conn_drop(s, c, NULL);
		return;
	}
	g_byte_array_append(c->in, buf, (guint)k);
	conn_frames(s, c);
}

static void conn_write(rsv_server *s, rsv_conn *c)
{
	ssize_t k;

	if (c->out->len == 0)
		return;
	k = send(c->fd, c->out->data, c->out->len, MSG_NOSIGNAL);
	if (k > 0)
		g_byte_array_remove_range(c->out, 0, (guint)k);
	else if (k < 0 && errno != EAGAIN && errno != EINTR)
		conn_drop(s, c, g_strerror(errno));
}

static void conn_free(rsv_conn *c)
{
	close(c->fd);
	g_byte_array_unref(c->in);
	g_byte_array_unref(c->out);
	g_free(c);
}

static void sockaddr_text(const struct sockaddr_storage *sa, char *out, size_t n)
{
	char host[INET6_ADDRSTRLEN] = "?";
	int port = 0;

	if (sa->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
	} else if (sa->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
	}
	snprintf(out, n, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

/* Room for every executor's connection: the soft descriptor limit (often
 * 1024) raised to the hard one. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The oldest connection still before AUTH, or NULL; *@pending: how many. */
static rsv_conn *oldest_pending(const rsv_server *s, int64_t *pending)
{
	rsv_conn *oldest = NULL;

	*pending = 0;
	for (guint i = 0; i < s->conns->len; i++) {
		rsv_conn *c = g_ptr_array_index(s->conns, i);

		if (c->authed || c->closing)
			continue;
		++*pending;
		if (oldest == NULL || c->accepted_ms < oldest->accepted_ms)
			oldest = c;
	}
	return oldest;
}

/* Make room for a new connection: past --max-pending (or out of
 * descriptors) the oldest unauthenticated one goes. */
static bool drop_oldest_pending(rsv_server *s, const char *why)
{
	int64_t pending;
	rsv_conn *c = oldest_pending(s, &pending);

	if (c == NULL)
		return false;
	conn_drop(s, c, why);
	return true;
}

static void make_room(rsv_server *s)
{
	int64_t pending;

	oldest_pending(s, &pending);
	if (pending >= s->o->max_pending)
		drop_oldest_pending(s, "--max-pending connections wait for AUTH: the oldest is "
				       "dropped");
}

static void accept_all(rsv_server *s, int lfd)
{
	for (;;) {
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		int fd = accept4(lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		json_object *hello;
		char nonce[2 * RSV_NONCE_LEN + 1];
		rsv_conn *c;

		if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
			/* No more descriptors: the oldest unauthenticated connection
			 * makes room; else stop accepting until one closes. */
			int e = errno;

			if (!s->told_no_fds)
				rsv_log(s, true, "cannot accept more connections: %s",
					g_strerror(e));
			s->told_no_fds = s->accept_paused = true;
			drop_oldest_pending(s, "no descriptor left for a new connection: the "
					       "oldest not yet authenticated is dropped");
		}
		if (fd < 0)
			return;
		/* Answers are small and each waits for the last: no Nagle. */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
		c = g_new0(rsv_conn, 1);
		c->fd = fd;
		c->executor = -1;
		c->in = g_byte_array_new();
		c->out = g_byte_array_new();
		c->last_ms = c->accepted_ms = rsv_now_ms();
		sockaddr_text(&sa, c->peer, sizeof(c->peer));
		if (getrandom(c->snonce, sizeof(c->snonce), 0) != (ssize_t)sizeof(c->snonce)) {
			conn_free(c);
			continue;
		}
		rsv_proto_hex(c->snonce, RSV_NONCE_LEN, nonce);
		hello = json_object_new_object();
		json_object_object_add(hello, "v", json_object_new_int(1));
		json_object_object_add(hello, "nonce", json_object_new_string(nonce));
		json_object_object_add(hello, "cluster_id", json_object_new_string(s->cluster_id));
		rsv_send(s, c, "HELLO", hello);
		make_room(s);
		g_ptr_array_add(s->conns, c);
	}
}

/* Drop connections that closed or stayed silent (outside WAIT, which
 * waits as long as formation may take). */
static void sweep(rsv_server *s, int64_t now)
{
	for (guint i = 0; i < s->conns->len;) {
		rsv_conn *c = g_ptr_array_index(s->conns, i);

		if (!c->closing && !c->authed && now - c->accepted_ms > s->o->auth_timeout_s * 1000)
			conn_drop(s, c, s->auth_late);
		if (!c->closing && !c->waiting && now - c->last_ms > RSV_IDLE_MS)
			conn_drop(s, c, "silent for 30 s");
		if (c->closing && (c->out->len == 0 || c->executor < 0)) {
			conn_free(c);
			g_ptr_array_remove_index_fast(s->conns, i);
			s->accept_paused = false;
		} else {
			i++;
		}
	}
}

static int poll_timeout(const rsv_server *s, int64_t now)
{
	int64_t next = rsv_next_deadline(s), ms = 1000;

	if (next >= 0 && next - now < ms)
		ms = next - now;
	return (int)(ms < 0 ? 0 : ms);
}

static void loop_once(rsv_server *s, int lfd, int sfd)
{
	guint n = s->conns->len;
	struct pollfd *p = g_new(struct pollfd, n + 2);
	struct signalfd_siginfo si;

	p[0] = (struct pollfd){ .fd = lfd, .events = s->accept_paused ? 0 : POLLIN };
	p[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (guint i = 0; i < n; i++) {
		rsv_conn *c = g_ptr_array_index(s->conns, i);

		p[i + 2] = (struct pollfd){ .fd = c->fd,
					    .events = (short)((c->closing ? 0 : POLLIN) |
							      (c->out->len ? POLLOUT : 0)) };
	}
	if (poll(p, n + 2, poll_timeout(s, rsv_now_ms())) > 0) {
		if ((p[1].revents & POLLIN) && read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			rsv_on_signal(s, (int)si.ssi_signo);
		for (guint i = 0; i < n && s->phase != RSV_END; i++) {
			rsv_conn *c = g_ptr_array_index(s->conns, i);

			if (p[i + 2].revents & (POLLIN | POLLHUP | POLLERR))
				conn_read(s, c);
			if (p[i + 2].revents & POLLOUT)
				conn_write(s, c);
		}
		if ((p[0].revents & POLLIN) && s->phase != RSV_END)
			accept_all(s, lfd);
	}
	g_free(p);
	for (guint i = 0; i < s->conns->len; i++)
		conn_write(s, g_ptr_array_index(s->conns, i));
	if (s->phase != RSV_END)
		rsv_on_timers(s, rsv_now_ms());
	sweep(s, rsv_now_ms());
}

/* At the end: what is queued (TIMEOUT, STOP) goes out, for up to 1 s. */
static void flush_all(rsv_server *s)
{
	int64_t until = rsv_now_ms() + 1000;
	bool pending = true;

	while (pending && rsv_now_ms() < until) {
		pending = false;
		for (guint i = 0; i < s->conns->len; i++) {
			rsv_conn *c = g_ptr_array_index(s->conns, i);
			struct pollfd p = { .fd = c->fd, .events = POLLOUT };

			if (c->out->len == 0 || poll(&p, 1, 10) <= 0)
				continue;
			conn_write(s, c);
			pending = pending || c->out->len > 0;
		}
	}
}

/* One line on stdout: where to connect, the cluster id and template. */
static bool announce(const rsv_server *s, const char *host, const struct sockaddr_storage *bound)
{
	int port = ntohs(bound->ss_family == AF_INET6
				 ? ((const struct sockaddr_in6 *)(const void *)bound)->sin6_port
				 : ((const struct sockaddr_in *)(const void *)bound)->sin_port);
	char *tmpl = rsv_plan_template_json(s->plan);
	bool ok;

	ok = printf(strchr(host, ':') ? "{\"address\":\"[%s]:%d\"" : "{\"address\":\"%s:%d\"", host,
		    port) > 0 &&
	     printf(",\"cluster_id\":\"%s\",\"cluster_template\":%s}\n", s->cluster_id, tmpl) > 0 &&
	     fflush(stdout) == 0;
	g_free(tmpl);
	if (!ok)
		cli_error("reservation serve: write error: %s", g_strerror(errno));
	return ok;
}

static int serve_loop(rsv_server *s, int lfd)
{
	sigset_t mask;
	int sfd;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	s->start_ms = rsv_now_ms();
	s->progress_ms = s->start_ms + s->o->progress_s * 1000;
	while (s->phase != RSV_END)
		loop_once(s, lfd, sfd);
	rsv_progress(NULL);
	flush_all(s);
	if (s->o->summary != NULL && !rsv_write_summary(s))
		s->rc = 1;
	close(sfd);
	return s->rc;
}

static void server_free(rsv_server *s)
{
	for (guint i = 0; i < s->conns->len; i++)
		conn_free(g_ptr_array_index(s->conns, i));
	g_ptr_array_free(s->conns, TRUE);
	for (int i = 0; s->regs != NULL && i < s->plan->num_executors; i++) {
		g_free(s->regs[i].host);
		g_free(s->regs[i].hostname);
	}
	g_free(s->regs);
	json_object_put(s->cluster);
	rsv_proto_secret_free(s->secret, s->secret_len);
}

int rsv_serve(const rsv_plan *plan, const rsv_serve_opts *o)
{
	rsv_server s = { .plan = plan, .o = o, .conns = g_ptr_array_new() };
	rsv_listen l = { 0 };
	struct sockaddr_storage bound;
	unsigned char id[8];
	char why[200], *host = NULL;
	int lfd = -1, rc = CLI_USAGE;

	s.secret = rsv_proto_secret_load(o->secret_file, &s.secret_len, why, sizeof(why));
	if (s.secret == NULL) {
		cli_error("reservation serve: secret file '%s': %s", o->secret_file, why);
		goto out;
	}
	if (!rsv_listen_parse(o, &l, why, sizeof(why))) {
		cli_error("reservation serve: %s", why);
		goto out;
	}
	rc = CLI_FAIL;
	if (getrandom(id, sizeof(id), 0) != (ssize_t)sizeof(id))
		goto out;
	rsv_proto_hex(id, sizeof(id), s.cluster_id);
	g_snprintf(s.auth_late, sizeof(s.auth_late), "no AUTH within %lld s (--auth-timeout)",
		   (long long)o->auth_timeout_s);
	s.regs = g_new0(rsv_reg, plan->num_executors);
	raise_fd_limit();
	lfd = rsv_listen_open(&l, &bound);
	host = rsv_advertised(o, &l);
	if (lfd >= 0 && announce(&s, host, &bound))
		rc = serve_loop(&s, lfd);
out:
	if (lfd >= 0)
		close(lfd);
	g_free(host);
	g_free(l.host);
	server_free(&s);
	return rc;
}
