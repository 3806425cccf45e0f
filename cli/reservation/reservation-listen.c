/* SPDX-License-Identifier: MIT */
/*
 * reservation-listen.c - where `reservation serve` listens and what address
 * it advertises: --listen [HOST:]PORT|A-B, else TFOS_SERVER_PORT (TFoS's
 * forms, with its errors for three fields and, fixed, a reversed range),
 * the first port that binds; --advertise, else TFOS_SERVER_HOST, a
 * specific listen host, the default route's interface address, 127.0.0.1.
 * No packet is sent to find any of them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/route.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "reservation-server.h"

/* "N" or "A-B" (inclusive), each 0..65535; false with the reason. */
static bool parse_ports(const char *text, int *lo, int *hi, char *why, size_t n)
{
	char **f = g_strsplit(text, "-", -1);
	guint nf = g_strv_length(f);
	guint64 v[2] = { 0, 0 };
	bool ok = nf >= 1 && nf <= 2;

	for (guint i = 0; ok && i < nf; i++)
		ok = g_ascii_string_to_unsigned(f[i], 10, 0, 65535, &v[i], NULL);
	g_strfreev(f);
	if (!ok) {
		snprintf(why, n, "'%s' is not PORT or FIRST-LAST (0..65535)", text);
		return false;
	}
	*lo = (int)v[0];
	*hi = nf == 2 ? (int)v[1] : (int)v[0];
	if (*lo > *hi) {
		snprintf(why, n, "'%s': the range is reversed", text);
		return false;
	}
	return true;
}

/* --listen [HOST:]PORTS, else $TFOS_SERVER_PORT, else any port. */
bool rsv_listen_parse(const rsv_serve_opts *o, rsv_listen *l, char *why, size_t n)
{
	const char *env = getenv("TFOS_SERVER_PORT"), *ports;
	const char *colon = o->listen ? strrchr(o->listen, ':') : NULL;
	char reason[160];

	*l = (rsv_listen){ 0 };
	if (o->listen == NULL) {
		if (env == NULL)
			return true;
		if (!parse_ports(env, &l->lo, &l->hi, reason, sizeof(reason))) {
			snprintf(why, n, "Invalid TFOS_SERVER_PORT: %s", reason);
			return false;
		}
		return true;
	}
	ports = colon ? colon + 1 : o->listen;
	if (colon != NULL) {
		l->host = g_strndup(o->listen, (gsize)(colon - o->listen));
		if (l->host[0] == '[' && colon > o->listen + 1 && colon[-1] == ']') {
			memmove(l->host, l->host + 1, strlen(l->host));
			l->host[strlen(l->host) - 1] = '\0';
		}
	}
	if (!parse_ports(ports, &l->lo, &l->hi, reason, sizeof(reason))) {
		snprintf(why, n, "--listen %s", reason);
		return false;
	}
	return true;
}

static int bind_one(const char *host, int port, struct sockaddr_storage *bound, char *why, size_t n)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
				  .ai_family = host ? AF_UNSPEC : AF_INET,
				  .ai_socktype = SOCK_STREAM },
			*ai = NULL;
	char service[8];
	int fd = -1, one = 1, rc;
	socklen_t sl = sizeof(*bound);

	snprintf(service, sizeof(service), "%d", port);
	rc = getaddrinfo(host, service, &hints, &ai);
	if (rc != 0) {
		snprintf(why, n, "%s: %s", host, gai_strerror(rc));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 1024) != 0 ||
		    getsockname(fd, (struct sockaddr *)bound, &sl) != 0) {
			snprintf(why, n, "%s", g_strerror(errno));
			close(fd);
			fd = -1;
		}
	} else {
		snprintf(why, n, "%s", g_strerror(errno));
	}
	freeaddrinfo(ai);
	return fd;
}

/* The first port of the list that binds. */
int rsv_listen_open(const rsv_listen *l, struct sockaddr_storage *bound)
{
	char why[160] = "";

	for (int port = l->lo; port <= l->hi; port++) {
		int fd = bind_one(l->host, port, bound, why, sizeof(why));

		if (fd >= 0)
			return fd;
	}
	if (l->lo == l->hi)
		cli_error("reservation serve: cannot listen on %s%sport %d: %s",
			  l->host ? l->host : "", l->host ? " " : "", l->lo, why);
	else
		cli_error("reservation serve: unable to bind to any port of %s%s%d-%d (last: %s)",
			  l->host ? l->host : "", l->host ? " " : "", l->lo, l->hi, why);
	return -1;
}

/* The IPv4 address of the interface the default route leaves by. */
static char *default_route_address(void)
{
	FILE *f = fopen("/proc/net/route", "re");
	char line[256], iface[64] = "", *found = NULL;
	unsigned long dest, flags;
	struct ifaddrs *ifs = NULL;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%63s %lx %*x %lx", iface, &dest, &flags) == 3 && dest == 0 &&
		    (flags & RTF_UP))
			break;
		else
			iface[0] = '\0';
	if (f != NULL)
		fclose(f);
	if (iface[0] == '\0' || getifaddrs(&ifs) != 0)
		return NULL;
	for (struct ifaddrs *i = ifs; i != NULL && found == NULL; i = i->ifa_next) {
		char host[INET_ADDRSTRLEN];

		if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET &&
		    strcmp(i->ifa_name, iface) == 0 &&
		    inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, host,
			      sizeof(host)) != NULL)
			found = g_strdup(host);
	}
	freeifaddrs(ifs);
	return found;
}

/* --advertise, $TFOS_SERVER_HOST, a specific --listen host, the default
 * route's address, 127.0.0.1: the first that is set. */
char *rsv_advertised(const rsv_serve_opts *o, const rsv_listen *l)
{
	const char *env = getenv("TFOS_SERVER_HOST");
	char *route;

	if (o->advertise != NULL)
		return g_strdup(o->advertise);
	if (env != NULL && *env != '\0')
		return g_strdup(env);
	if (l->host != NULL && strcmp(l->host, "0.0.0.0") != 0 && strcmp(l->host, "::") != 0)
		return g_strdup(l->host);
	route = default_route_address();
	return route ? route : g_strdup("127.0.0.1");
}
