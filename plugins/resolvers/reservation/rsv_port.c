/* SPDX-License-Identifier: MIT */
/*
 * rsv_port.c - the task's port, held from before registration until the
 * program starts: a TCP socket bound on every interface with SO_REUSEADDR
 * and never listening (TFoS's temporary socket). Port 0 takes an ephemeral
 * port from the kernel. The socket is close-on-exec; a program that is to
 * keep it gets a copy through host->result_pass_fd.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "reservation.h"

/* IPv6 with v4 mapped, so the reservation covers both families; IPv4 where
 * the kernel has no IPv6. */
static int rsv_port_bind(uint16_t want, int *fd_out)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(want) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(want) };
	int one = 1, zero = 0, fd, rc;

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		rc = bind(fd, (struct sockaddr *)&a6, sizeof(a6));
	} else {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		rc = bind(fd, (struct sockaddr *)&a4, sizeof(a4));
	}
	if (rc != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	*fd_out = fd;
	return 0;
}

cr_status rsv_port_reserve(uint16_t want, rsv_port *p, cr_error *err)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd = -1, rc = rsv_port_bind(want, &fd);

	if (rc != 0)
		return cr_host->error_set(err, CR_ERR_IO, "cannot reserve port %u: %s", want,
					  strerror(-rc));
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		rc = errno;
		close(fd);
		return cr_host->error_set(err, CR_ERR_IO, "cannot reserve port %u: %s", want,
					  strerror(rc));
	}
	p->fd = fd;
	p->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						 : ((struct sockaddr_in *)&ss)->sin_port);
	return CR_OK;
}

void rsv_port_close(rsv_port *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}
