/* SPDX-License-Identifier: MIT */
/*
 * rsv_conn.c - one connection to the reservation server: connect within a
 * deadline, the handshake, and messages in and out, all through the
 * protocol library (plugins/common/reservation) for frames and tags.
 * Every error names the server; the secret is never in a message.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include "reservation.h"
#include "rsv_wire.h"

struct rsv_conn {
	cr_plugin_ctx *ctx;
	int fd;
	char server[256];
	char local_host[INET6_ADDRSTRLEN];
	rsv_wire *wire;
};

static int64_t rsv_left(cr_plugin_ctx *ctx, int64_t deadline)
{
	int64_t now = cr_host->now_ms(ctx);

	return deadline > now ? deadline - now : 0;
}

/* "host:port" or "[v6]:port" into its parts. */
static bool rsv_split(const char *server, char *host, size_t hsize, char *port, size_t psize)
{
	const char *colon = strrchr(server, ':');
	size_t hl;

	if (colon == NULL || colon == server || colon[1] == '\0' || strlen(colon + 1) >= psize)
		return false;
	hl = (size_t)(colon - server);
	if (server[0] == '[' && hl >= 2 && server[hl - 1] == ']') {
		server++;
		hl -= 2;
	}
	if (hl == 0 || hl >= hsize)
		return false;
	memcpy(host, server, hl);
	host[hl] = '\0';
	snprintf(port, psize, "%s", colon + 1);
	return true;
}

/* Non-blocking connect to one address, waiting at most @ms. */
static int rsv_connect_one(const struct addrinfo *ai, int64_t ms)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			ai->ai_protocol);
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	if (fd < 0)
		return -errno;
	/* Small requests, each waiting for its answer: no Nagle. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS) {
		soerr = errno;
		close(fd);
		return -soerr;
	}
	if (poll(&p, 1, (int)(ms > 2147483647 ? 2147483647 : ms)) != 1) {
		close(fd);
		return -ETIMEDOUT;
	}
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
	if (soerr != 0) {
		close(fd);
		return -soerr;
	}
	return fd;
}

static cr_status rsv_connect(rsv_conn *c, int64_t deadline, cr_error *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	char host[256], port[16];
	int rc, fd = -ENOENT;

	if (!rsv_split(c->server, host, sizeof(host), port, sizeof(port)))
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "reservation server \"%s\" is not HOST:PORT", c->server);
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0)
		return cr_host->error_set(err, CR_ERR_NETWORK,
					  "reservation server %s: cannot resolve '%s': %s",
					  c->server, host, gai_strerror(rc));
	for (struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next)
		fd = rsv_connect_one(ai, rsv_left(c->ctx, deadline));
	freeaddrinfo(res);
	if (fd < 0)
		return cr_host->error_set(err, fd == -ETIMEDOUT ? CR_ERR_TIMEOUT : CR_ERR_NETWORK,
					  "reservation server %s: cannot connect: %s", c->server,
					  strerror(-fd));
	c->fd = fd;
	return CR_OK;
}

/* The local address of the connection, as the server sees this task. */
static void rsv_local_address(rsv_conn *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(c->fd, (struct sockaddr *)&ss, &len) != 0)
		return;
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, c->local_host,
			  sizeof(c->local_host));
	else if (ss.ss_family == AF_INET6 &&
		 IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&ss)->sin6_addr))
		inet_ntop(AF_INET, &((struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr[12],
			  c->local_host, sizeof(c->local_host));
	else if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, c->local_host,
			  sizeof(c->local_host));
}

cr_status rsv_conn_open(cr_plugin_ctx *ctx, const char *server, const unsigned char *secret,
			size_t secret_len, int64_t timeout_ms, rsv_conn **out, cr_error *err)
{
	rsv_conn *c = calloc(1, sizeof(*c));
	int64_t deadline = cr_host->now_ms(ctx) + (timeout_ms < 30000 ? timeout_ms : 30000);
	cr_status st;

	if (c == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	c->ctx = ctx;
	c->fd = -1;
	snprintf(c->server, sizeof(c->server), "%s", server);
	snprintf(c->local_host, sizeof(c->local_host), "127.0.0.1");
	st = rsv_connect(c, deadline, err);
	if (st == CR_OK) {
		rsv_local_address(c);
		st = rsv_wire_client_handshake(c->fd, c->server, secret, secret_len,
					       rsv_left(ctx, deadline), &c->wire, err);
	}
	if (st != CR_OK) {
		rsv_conn_close(c);
		return st;
	}
	*out = c;
	return CR_OK;
}

const char *rsv_conn_local_host(const rsv_conn *c)
{
	return c->local_host;
}

const char *rsv_conn_cluster_id(const rsv_conn *c)
{
	return rsv_wire_cluster_id(c->wire);
}

cr_status rsv_conn_send(rsv_conn *c, const char *type, const char *data_json, cr_error *err)
{
	return rsv_wire_send(c->wire, c->fd, type, data_json ? data_json : "{}", err);
}

cr_status rsv_conn_recv(rsv_conn *c, int64_t timeout_ms, cr_json **msg, cr_error *err)
{
	char *text = NULL;
	size_t len = 0;
	cr_status st = rsv_wire_recv(c->wire, c->fd, timeout_ms, &text, &len, err);

	if (st != CR_OK)
		return st;
	st = cr_host->json_parse(text, len, c->server, msg, err);
	free(text);
	return st;
}

void rsv_conn_close(rsv_conn *c)
{
	if (c == NULL)
		return;
	rsv_wire_free(c->wire);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}
