/* SPDX-License-Identifier: MIT */
/*
 * format-options.h - the options of the framework formats (format-options.c)
 * for format-frameworks.c, and the config's `formats` defaults for
 * config.c. Private to the library.
 */
#ifndef CR_FORMAT_OPTIONS_H
#define CR_FORMAT_OPTIONS_H

#include <stdbool.h>

#include <glib.h>

#include <cluster-resolver/cluster-resolver.h>

#define FW_DEFAULT_JOBS "chief,master,worker"

enum {
	FW_OPT_JOBS = 1u << 0,
	FW_OPT_DIALECT = 1u << 1,
	FW_OPT_PORT = 1u << 2,   /* master_port, port_range, job_id */
	FW_OPT_IFNAME = 1u << 3, /* ifname */
	FW_OPT_RDZV = 1u << 4    /* rdzv */
};

/* The default range of master_port=auto: below Linux's ephemeral ports
 * (32768..60999), above the well-known and most registered services. */
#define FW_PORT_RANGE_LO 20000
#define FW_PORT_RANGE_HI 29999

typedef struct fw_opts {
	const char *jobs;
	const char *dialect;
	const char *master_port; /* NULL: rank 0's port; "auto"; or a number */
	guint port_lo, port_hi;
	const char *job_id; /* NULL: none given */
	const char *ifname; /* NULL: none; "auto": the one carrying our address */
	const char *rdzv;   /* "static" or "c10d" */
} fw_opts;

/*
 * The options of @format: the config's `formats` defaults (r->format_options)
 * among the @allowed ones, then @options ("key=value", the caller's), each
 * of which must be @allowed. Values are checked; CR_ERR_INVALID_ARG with a
 * message naming the format when one is bad. The strings of *@o are
 * borrowed from @r and @options.
 */
cr_status fw_parse_options(const cr_result *r, const char *format, const char *const *options,
			   unsigned allowed, fw_opts *o, cr_error *err);

/* The name of the interface of this machine that carries @host (an
 * address, or a name the system resolves); NULL with CR_ERR_BACKEND naming
 * @format when none does. g_free() it. */
char *fw_interface_of(const char *format, const char *host, cr_error *err);

/* The config's `formats` group (config.c): whether @key is one of its
 * options, and whether @value is good for it (CR_ERR_CONFIG with a
 * message starting with @who, "FILE:LINE: formats", when not). */
bool format_default_known(const char *key);
cr_status format_default_check(const char *who, const char *key, const char *value, cr_error *err);

#endif /* CR_FORMAT_OPTIONS_H */
