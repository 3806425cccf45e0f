/* SPDX-License-Identifier: MIT */
/*
 * mpi-addr.c - this process's host as its peers should reach it: the
 * name the launcher knows (PMIX_HOSTNAME, MPIR_CVAR_CH3_INTERFACE_HOSTNAME,
 * else gethostname()), or with `interface` that interface's IPv4 address
 * (getifaddrs, NCCL_SOCKET_IFNAME-style, for sites where the host name
 * resolves to the wrong network). Never shells out.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mpi.h"

static cr_status addr_interface(const char *interface, char *out, size_t len, cr_error *err)
{
	struct ifaddrs *list = NULL;
	char names[256] = "";
	size_t used = 0;
	bool found = false;

	if (getifaddrs(&list) != 0)
		return cr_host->error_set(err, CR_ERR_IO, "getifaddrs failed");
	for (struct ifaddrs *i = list; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET)
			continue;
		if (!found && strcmp(i->ifa_name, interface) == 0) {
			const struct sockaddr_in *sin = (const void *)i->ifa_addr;

			found = inet_ntop(AF_INET, &sin->sin_addr, out, (socklen_t)len) != NULL;
		}
		int w = snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "",
				 i->ifa_name);
		if (w > 0 && (size_t)w < sizeof(names) - used)
			used += (size_t)w;
	}
	freeifaddrs(list);
	if (!found)
		return cr_host->error_set(
			err, CR_ERR_NOT_FOUND,
			"interface '%s' has no IPv4 address (interfaces with one: "
			"%s)",
			interface, used ? names : "none");
	return CR_OK;
}

cr_status mpi_addr_self(cr_plugin_ctx *ctx, const char *interface, char *out, size_t len,
			cr_error *err)
{
	static const char *const vars[] = { "PMIX_HOSTNAME", "MPIR_CVAR_CH3_INTERFACE_HOSTNAME" };

	if (interface != NULL && *interface != '\0')
		return addr_interface(interface, out, len, err);
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = cr_host->getenv(ctx, vars[i]);

		if (v != NULL && *v != '\0') {
			if (strlen(v) >= len)
				return cr_host->error_set(err, CR_ERR_PARSE,
							  "%s is longer than %zu bytes", vars[i],
							  len - 1);
			memcpy(out, v, strlen(v) + 1);
			return CR_OK;
		}
	}
	if (gethostname(out, len) != 0)
		return cr_host->error_set(err, CR_ERR_IO, "gethostname failed");
	out[len - 1] = '\0';
	return CR_OK;
}
