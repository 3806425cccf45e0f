/* SPDX-License-Identifier: MIT */
/*
 * format-options.c - the options of the framework formats: "key=value"
 * strings from the caller (jobs, dialect, master_port, port_range, job_id,
 * rdzv, ifname), the config's `formats` defaults under them, the checks of
 * their values, and the interface lookup behind ifname=auto.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <glib.h>

#include "pipeline/pipeline-private.h"
#include "values/format-options.h"

static const struct {
	const char *name;
	unsigned bit;
} fw_option_names[] = {
	{ "dialect", FW_OPT_DIALECT }, { "jobs", FW_OPT_JOBS },   { "master_port", FW_OPT_PORT },
	{ "port_range", FW_OPT_PORT }, { "job_id", FW_OPT_PORT }, { "ifname", FW_OPT_IFNAME },
	{ "rdzv", FW_OPT_RDZV },
};

/* A port number 1..65535, digits only. */
static bool fw_parse_port(const char *text, guint *out)
{
	guint64 v = 0;

	if (text[0] == '\0' || text[strspn(text, "0123456789")] != '\0' || strlen(text) > 5)
		return false;
	v = g_ascii_strtoull(text, NULL, 10);
	if (v < 1 || v > 65535)
		return false;
	*out = (guint)v;
	return true;
}

/* Check the values of @o (and @range, "LOW-HIGH"); @who starts each
 * message ("format 'torch'", "FILE:LINE: formats"). */
static cr_status fw_check_values(const char *who, fw_opts *o, const char *range, cr_error *err)
{
	guint port = 0;

	if (strcmp(o->dialect, "openmpi") != 0 && strcmp(o->dialect, "mpich") != 0 &&
	    strcmp(o->dialect, "deepspeed") != 0)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "%s: unknown dialect '%s' (known: openmpi, mpich, deepspeed)", who,
				 o->dialect);
	if (o->master_port != NULL && strcmp(o->master_port, "auto") != 0 &&
	    !fw_parse_port(o->master_port, &port))
		return error_set(err, CR_ERR_INVALID_ARG,
				 "%s: master_port '%s' must be a port 1..65535 or \"auto\"", who,
				 o->master_port);
	if (range != NULL) {
		const char *dash = strchr(range, '-');
		char *lo = dash != NULL ? g_strndup(range, (gsize)(dash - range)) : NULL;
		bool ok = lo != NULL && fw_parse_port(lo, &o->port_lo) &&
			  fw_parse_port(dash + 1, &o->port_hi) && o->port_lo >= 1024 &&
			  o->port_lo <= o->port_hi;

		g_free(lo);
		if (!ok)
			return error_set(err, CR_ERR_INVALID_ARG,
					 "%s: port_range '%s' must be LOW-HIGH with "
					 "1024 <= LOW <= HIGH <= 65535",
					 who, range);
	}
	if (o->job_id != NULL && o->job_id[0] == '\0')
		return error_set(err, CR_ERR_INVALID_ARG, "%s: job_id is empty", who);
	/* A Linux interface name: at most 15 bytes; letters, digits, "_.:@-". */
	if (o->ifname != NULL &&
	    (o->ifname[0] == '\0' || strlen(o->ifname) >= 16 ||
	     o->ifname[strspn(o->ifname, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789_.:@-")] != '\0'))
		return error_set(err, CR_ERR_INVALID_ARG,
				 "%s: ifname '%s' is not an interface name (or \"auto\")", who,
				 o->ifname);
	if (strcmp(o->rdzv, "static") != 0 && strcmp(o->rdzv, "c10d") != 0)
		return error_set(err, CR_ERR_INVALID_ARG,
				 "%s: unknown rdzv '%s' (known: static, c10d)", who, o->rdzv);
	return CR_OK;
}

static void fw_defaults(fw_opts *o)
{
	*o = (fw_opts){ .jobs = FW_DEFAULT_JOBS,
			.dialect = "openmpi",
			.port_lo = FW_PORT_RANGE_LO,
			.port_hi = FW_PORT_RANGE_HI,
			.rdzv = "static" };
}

/* The known option @opt ("key=value") of the @allowed ones, or NULL. */
static const char *fw_option_name(const char *opt, unsigned allowed)
{
	const char *eq = strchr(opt, '=');
	size_t klen = eq != NULL ? (size_t)(eq - opt) : strlen(opt);

	for (size_t k = 0; eq != NULL && k < G_N_ELEMENTS(fw_option_names); k++)
		if ((allowed & fw_option_names[k].bit) && strlen(fw_option_names[k].name) == klen &&
		    strncmp(opt, fw_option_names[k].name, klen) == 0)
			return fw_option_names[k].name;
	return NULL;
}

static void fw_take(fw_opts *o, const char *name, const char *value, const char **range)
{
	if (strcmp(name, "jobs") == 0)
		o->jobs = value;
	else if (strcmp(name, "dialect") == 0)
		o->dialect = value;
	else if (strcmp(name, "master_port") == 0)
		o->master_port = value;
	else if (strcmp(name, "port_range") == 0)
		*range = value;
	else if (strcmp(name, "job_id") == 0)
		o->job_id = value;
	else if (strcmp(name, "ifname") == 0)
		o->ifname = value;
	else
		o->rdzv = value;
}

/* The options of the config's `formats` group: all but job_id, which
 * belongs to one job. */
#define FW_CONFIG_OPTIONS (FW_OPT_JOBS | FW_OPT_DIALECT | FW_OPT_PORT | FW_OPT_IFNAME | FW_OPT_RDZV)

bool format_default_known(const char *key)
{
	char *opt = g_strdup_printf("%s=", key);
	bool known = fw_option_name(opt, FW_CONFIG_OPTIONS) != NULL && strcmp(key, "job_id") != 0;

	g_free(opt);
	return known;
}

cr_status format_default_check(const char *who, const char *key, const char *value, cr_error *err)
{
	const char *range = NULL;
	fw_opts o;

	if (!format_default_known(key))
		return error_set(err, CR_ERR_CONFIG,
				 "%s: unknown key '%s' (known: jobs, dialect, master_port, "
				 "port_range, rdzv, ifname)",
				 who, key);
	fw_defaults(&o);
	fw_take(&o, key, value, &range);
	return fw_check_values(who, &o, range, err) == CR_OK ? CR_OK : CR_ERR_CONFIG;
}

/* The options of @format: the config's defaults it takes, then @options
 * (the caller's), which must all be ones it takes. */
cr_status fw_parse_options(const cr_result *r, const char *format, const char *const *options,
			   unsigned allowed, fw_opts *o, cr_error *err)
{
	const char *range = NULL, *name;
	char *who;
	cr_status st;

	fw_defaults(o);
	for (size_t i = 0; r->format_options != NULL && r->format_options[i] != NULL; i++)
		if ((name = fw_option_name(r->format_options[i], allowed)) != NULL)
			fw_take(o, name, strchr(r->format_options[i], '=') + 1, &range);
	for (size_t i = 0; options != NULL && options[i] != NULL; i++) {
		const char *opt = options[i];
		const char *eq = strchr(opt, '=');
		size_t klen = eq != NULL ? (size_t)(eq - opt) : strlen(opt);

		name = fw_option_name(opt, allowed);
		if (name == NULL) {
			GString *known = g_string_new(NULL);

			for (size_t k = 0; k < G_N_ELEMENTS(fw_option_names); k++)
				if (allowed & fw_option_names[k].bit)
					g_string_append_printf(known, "%s%s",
							       known->len ? ", " : "",
							       fw_option_names[k].name);
			st = error_set(err, CR_ERR_INVALID_ARG,
				       "format '%s' has no option '%.*s' (options: %s)", format,
				       (int)klen, opt, known->len ? known->str : "none");
			g_string_free(known, TRUE);
			return st;
		}
		fw_take(o, name, eq + 1, &range);
	}
	who = g_strdup_printf("format '%s'", format);
	st = fw_check_values(who, o, range, err);
	g_free(who);
	return st;
}

/* Whether the address of @a is one of @ifs's; its interface's name. */
static const char *fw_interface_with(const struct ifaddrs *ifs, const struct addrinfo *a)
{
	for (const struct ifaddrs *i = ifs; i != NULL; i = i->ifa_next) {
		const struct sockaddr *sa = i->ifa_addr;

		if (sa == NULL || sa->sa_family != a->ai_family)
			continue;
		if (sa->sa_family == AF_INET &&
		    memcmp(&((const struct sockaddr_in *)sa)->sin_addr,
			   &((const struct sockaddr_in *)a->ai_addr)->sin_addr,
			   sizeof(struct in_addr)) == 0)
			return i->ifa_name;
		if (sa->sa_family == AF_INET6 &&
		    memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr,
			   &((const struct sockaddr_in6 *)a->ai_addr)->sin6_addr,
			   sizeof(struct in6_addr)) == 0)
			return i->ifa_name;
	}
	return NULL;
}

char *fw_interface_of(const char *format, const char *host, cr_error *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai = NULL;
	struct ifaddrs *ifs = NULL;
	const char *name = NULL;
	char *found;
	int rc = getaddrinfo(host, NULL, &hints, &ai);

	if (rc != 0) {
		error_set(err, CR_ERR_BACKEND,
			  "format '%s': ifname=auto: cannot resolve this task's host '%s': %s",
			  format, host, gai_strerror(rc));
		return NULL;
	}
	if (getifaddrs(&ifs) != 0) {
		error_set(err, CR_ERR_BACKEND, "format '%s': ifname=auto: getifaddrs: %s", format,
			  g_strerror(errno));
		freeaddrinfo(ai);
		return NULL;
	}
	for (const struct addrinfo *a = ai; name == NULL && a != NULL; a = a->ai_next)
		name = fw_interface_with(ifs, a);
	found = g_strdup(name);
	if (found == NULL)
		error_set(err, CR_ERR_BACKEND,
			  "format '%s': ifname=auto: no interface of this machine carries '%s' "
			  "(give ifname=NAME)",
			  format, host);
	freeifaddrs(ifs);
	freeaddrinfo(ai);
	return found;
}
