/* SPDX-License-Identifier: MIT */
/*
 * noaddrconfig.c - LD_PRELOAD shim for Slurm in a loopback-only namespace.
 *
 * glibc's getaddrinfo() with AI_ADDRCONFIG returns nothing for AF_INET when
 * the machine has no non-loopback IPv4 address, and Slurm always passes that
 * flag, so neither slurmctld, slurmd nor srun can resolve 127.0.0.1 inside
 * `unshare -n`. This shim clears the flag and calls the real getaddrinfo.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netdb.h>
#include <stddef.h>

typedef int (*gai_fn)(const char *, const char *, const struct addrinfo *, struct addrinfo **);

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		struct addrinfo **res)
{
	static gai_fn real;
	struct addrinfo copy;

	if (real == NULL)
		real = (gai_fn)dlsym(RTLD_NEXT, "getaddrinfo");
	if (real == NULL)
		return EAI_SYSTEM;
	if (hints != NULL && (hints->ai_flags & AI_ADDRCONFIG)) {
		copy = *hints;
		copy.ai_flags &= ~AI_ADDRCONFIG;
		hints = &copy;
	}
	return real(node, service, hints, res);
}
