/* SPDX-License-Identifier: MIT */
/*
 * tpu_build.c - from the workers a source found to the builder:
 *
 *   multislice  MEGASCALE_NUM_SLICES / _SLICE_ID (environment, else the
 *               TPU VM's tpu-env): every slice from `queued_resource`,
 *               global index = slice x workers per slice + worker (JAX)
 *   workers     job `job_name`, "ip:port" in API / list order (no sort)
 *   identity    the worker the source named, else this VM's address among
 *               them, else (job_name, 0) as TensorFlow
 *   coordinator job `coordinator_name` after the workers: its address, or
 *               this VM's (127.0.0.1 for local) and `coordinator_port`,
 *               0 reserving a free port (CR_COORDINATOR_PORT); an address
 *               without a name is ignored with a warning (§14.14)
 *   TPUs        per worker, tpu_count.c
 */
#include <errno.h>
#include <ifaddrs.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <json-c/json.h>

#include "tpu.h"

static void tpu_fact_json(struct tpu_run *r, const char *key, json_object *o)
{
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	cr_json *doc = NULL;

	if (cr_host->json_parse(text, strlen(text), key, &doc, NULL) == CR_OK)
		cr_host->result_set_fact(r->b, key, doc, NULL);
	cr_host->json_free(doc);
	json_object_put(o);
}

/* endpoints: [{"ipAddress": …, "port": "8470"}], as the TPU client
 * returns them (ports as strings). */
void tpu_fact_endpoints(struct tpu_run *r)
{
	json_object *a = json_object_new_array();

	for (guint i = 0; i < r->eps->len; i++) {
		const struct tpu_ep *ep = g_ptr_array_index(r->eps, i);
		json_object *o = json_object_new_object();

		json_object_object_add(o, "ipAddress", json_object_new_string(ep->ip));
		json_object_object_add(o, "port", json_object_new_string(ep->port));
		json_object_array_add(a, o);
	}
	tpu_fact_json(r, "endpoints", a);
}

static const char *tpu_mega(struct tpu_run *r, const char *name)
{
	const char *v = cr_host->getenv(r->ctx, name);

	if ((v == NULL || *v == '\0') && r->tpu_env != NULL)
		v = g_hash_table_lookup(r->tpu_env, name);
	return v != NULL && *v != '\0' ? v : NULL;
}

static cr_status tpu_mega_int(struct tpu_run *r, const char *name, int64_t lo, int64_t *out,
			      cr_error *err)
{
	const char *v = tpu_mega(r, name);
	char *end = NULL;

	if (v == NULL)
		return CR_OK;
	*out = (int64_t)g_ascii_strtoll(v, &end, 10);
	if (*end != '\0' || end == v || *out < lo || *out > 65535)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s '%s' is not a number in %" G_GINT64_FORMAT "..65535",
					  name, v, lo);
	return CR_OK;
}

/* Every slice's workers, and our global index among them. */
static cr_status tpu_multislice(struct tpu_run *r, cr_error *err)
{
	size_t local = r->eps->len;
	cr_status st = tpu_mega_int(r, "MEGASCALE_NUM_SLICES", 1, &r->num_slices, err);

	if (st == CR_OK)
		st = tpu_mega_int(r, "MEGASCALE_SLICE_ID", 0, &r->slice_id, err);
	if (st != CR_OK)
		return st;
	if (tpu_mega(r, "MEGASCALE_COORDINATOR_ADDRESS") != NULL)
		cr_host->result_set_fact_string(r->b, "megascale_coordinator",
						tpu_mega(r, "MEGASCALE_COORDINATOR_ADDRESS"), NULL);
	if (r->slice_id >= r->num_slices && r->num_slices > 0)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "MEGASCALE_SLICE_ID %" G_GINT64_FORMAT
					  " is not below MEGASCALE_NUM_SLICES %" G_GINT64_FORMAT,
					  r->slice_id, r->num_slices);
	if (r->t->queued_resource == NULL) {
		if (r->num_slices <= 1)
			return CR_OK;
		return cr_host->error_set(
			err, CR_ERR_NOT_FOUND,
			"multislice job of %" G_GINT64_FORMAT
			" slices (MEGASCALE_NUM_SLICES): only "
			"slice %" G_GINT64_FORMAT " (%s%s%s, %zu workers) is known; set "
			"'queued_resource' to list every slice",
			r->num_slices, r->slice_id, r->name != NULL ? "TPU \"" : "",
			r->name != NULL ? r->name : tpu_source_name(r->source),
			r->name != NULL ? "\"" : "", local);
	}
	st = tpu_api_slices(r, err);
	if (st == CR_OK && local > 0 && r->source != TPU_SRC_API && local != r->per_slice)
		st = cr_host->error_set(err, CR_ERR_BACKEND,
					"multislice: this slice has %zu workers, the queued "
					"resource's slices %zu",
					local, r->per_slice);
	if (st == CR_OK && r->self >= 0)
		r->self += r->slice_id * (int64_t)r->per_slice;
	return st;
}

/* "ip:port", an IPv6 address in brackets. */
char *tpu_address(const char *ip, const char *port)
{
	if (strchr(ip, ':') != NULL && ip[0] != '[')
		return g_strdup_printf("[%s]:%s", ip, port);
	return g_strdup_printf("%s:%s", ip, port);
}

/* This VM's address (metadata), for the identity and the coordinator. */
static cr_status tpu_self_ip(struct tpu_run *r, bool need, cr_error *err)
{
	cr_error e = CR_ERROR_INIT;
	const char *why;

	if (r->self_ip != NULL)
		return CR_OK;
	if (r->source == TPU_SRC_LOCAL) {
		r->self_ip = g_strdup("127.0.0.1");
		return CR_OK;
	}
	why = tpu_no_metadata(r);
	if (why != NULL) {
		if (!need)
			return CR_OK;
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "coordinator '%s': set 'coordinator_address' (%s: no "
					  "metadata server to ask for this VM's address)",
					  r->t->coordinator_name, why);
	}
	if (gcp_metadata_get(r->g, "instance/network-interfaces/0/ip", &r->self_ip,
			     need ? err : &e) != CR_OK)
		return need ? err->code : CR_OK;
	return CR_OK;
}

static cr_status tpu_reserve_port(struct tpu_run *r, int64_t *port, cr_error *err)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
	socklen_t len = sizeof(a);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char text[16];
	cr_status st;

	a.sin_addr.s_addr = htonl(INADDR_ANY);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		st = cr_host->error_set(err, CR_ERR_IO,
					"coordinator_port = 0: cannot reserve a port: %s",
					g_strerror(errno));
		if (fd >= 0)
			close(fd);
		return st;
	}
	*port = ntohs(a.sin_port);
	g_snprintf(text, sizeof(text), "%" G_GINT64_FORMAT, *port);
	/* The bound socket keeps the port ours until the program runs; it
	 * gets the socket (CR_COORDINATOR_FD) and the number. */
	st = cr_host->result_pass_fd(r->b, fd, "CR_COORDINATOR_FD", err);
	close(fd);
	if (st == CR_OK)
		st = cr_host->result_set_env(r->b, "CR_COORDINATOR_PORT", text, err);
	return st;
}

static cr_status tpu_coordinator(struct tpu_run *r, cr_error *err)
{
	const struct tpu *t = r->t;
	int64_t port = t->coordinator_port;
	cr_status st;

	if (t->coordinator_name == NULL) {
		if (t->coordinator_address != NULL)
			cr_host->log(r->ctx, CR_LOG_WARNING,
				     "coordinator_address '%s' is ignored without "
				     "coordinator_name",
				     t->coordinator_address);
		return CR_OK;
	}
	if (t->coordinator_address != NULL) {
		r->coordinator = g_strdup(t->coordinator_address);
	} else {
		st = tpu_self_ip(r, true, err);
		if (st == CR_OK && port == 0)
			st = tpu_reserve_port(r, &port, err);
		if (st != CR_OK)
			return st;
		char text[16];

		g_snprintf(text, sizeof(text), "%" G_GINT64_FORMAT, port);
		r->coordinator = tpu_address(r->self_ip, text);
	}
	return cr_host->result_append_task(r->b, t->coordinator_name, r->coordinator, err);
}

/* Whether @ip (an endpoint's, IPv6 possibly in brackets) is @text. */
static bool tpu_same_ip(const char *ip, const char *text)
{
	size_t n = strlen(ip);

	if (n >= 2 && ip[0] == '[' && ip[n - 1] == ']')
		return strlen(text) == n - 2 && strncmp(ip + 1, text, n - 2) == 0;
	return strcmp(ip, text) == 0;
}

/* An endpoint list: this host is the endpoint holding one of its own
 * interface addresses (getifaddrs). No request at all, on GCP or off it
 * (issue 27 section 2); TensorFlow asked the metadata server. */
static void tpu_identity_local(struct tpu_run *r)
{
	struct ifaddrs *ifa = NULL;
	char buf[INET6_ADDRSTRLEN];

	if (getifaddrs(&ifa) != 0)
		return;
	for (guint i = 0; i < r->eps->len && r->self < 0; i++) {
		const struct tpu_ep *ep = g_ptr_array_index(r->eps, i);

		for (struct ifaddrs *a = ifa; a != NULL && r->self < 0; a = a->ifa_next) {
			const void *addr;

			if (a->ifa_addr == NULL)
				continue;
			if (a->ifa_addr->sa_family == AF_INET)
				addr = &((const struct sockaddr_in *)(const void *)a->ifa_addr)
						->sin_addr;
			else if (a->ifa_addr->sa_family == AF_INET6)
				addr = &((const struct sockaddr_in6 *)(const void *)a->ifa_addr)
						->sin6_addr;
			else
				continue;
			if (inet_ntop(a->ifa_addr->sa_family, addr, buf, sizeof(buf)) != NULL &&
			    tpu_same_ip(ep->ip, buf)) {
				r->self = i;
				g_free(r->self_ip);
				r->self_ip = g_strdup(buf);
			}
		}
	}
	freeifaddrs(ifa);
}

/* Which worker this process is: the source's, else this host's address
 * (its interfaces for an endpoint list, else the metadata server's). */
static void tpu_identity(struct tpu_run *r)
{
	if (r->self < 0 && r->source == TPU_SRC_ENDPOINTS) {
		tpu_identity_local(r);
		return;
	}
	if (r->self >= 0 || tpu_self_ip(r, false, NULL) != CR_OK || r->self_ip == NULL)
		return;
	for (guint i = 0; i < r->eps->len; i++) {
		const struct tpu_ep *ep = g_ptr_array_index(r->eps, i);

		if (strcmp(ep->ip, r->self_ip) == 0) {
			r->self = i;
			return;
		}
	}
}

/* TPUs of each worker: devices_file, else the slice's type. */
static cr_status tpu_accelerators(struct tpu_run *r, cr_error *err)
{
	size_t hosts = r->per_slice > 0 ? r->per_slice : r->eps->len;
	int64_t total = -1, per_host = -1;
	cr_status st = CR_OK;

	if (r->t->devices_file != NULL) {
		st = tpu_devices_file(r, &per_host, err);
	} else {
		if (r->accel_config != NULL) {
			char **f = g_strsplit(r->accel_config, " ", 2);

			total = tpu_devices_of_config(f[0], f[1]);
			g_strfreev(f);
		}
		if (total < 0)
			total = tpu_devices_of_type(r->accel_type);
		if (total > 0 && hosts > 0 && total % (int64_t)hosts == 0)
			per_host = total / (int64_t)hosts;
	}
	if (st != CR_OK || per_host < 0)
		return st;
	if (r->source == TPU_SRC_LOCAL)
		return cr_host->result_set_task_accelerators(r->b, NULL, -1, "TPU", per_host, err);
	for (guint i = 0; i < r->eps->len && st == CR_OK; i++)
		st = cr_host->result_set_task_accelerators(r->b, r->t->job_name, i, "TPU", per_host,
							   err);
	return st;
}

static cr_status tpu_workers(struct tpu_run *r, cr_error *err)
{
	cr_status st = cr_host->result_add_job(r->b, r->t->job_name, err);

	for (guint i = 0; i < r->eps->len && st == CR_OK; i++) {
		const struct tpu_ep *ep = g_ptr_array_index(r->eps, i);
		char *addr = tpu_address(ep->ip, ep->port);

		st = cr_host->result_append_task(r->b, r->t->job_name, addr, err);
		g_free(addr);
	}
	return st;
}

cr_status tpu_build(struct tpu_run *r, cr_error *err)
{
	const char *job = r->t->job_name;
	char *leader = g_strdup_printf("/job:%s/task:0", job);
	cr_status st = CR_OK;

	cr_host->result_set_fact_string(r->b, "job_name", job, NULL);
	cr_host->result_set_fact_string(r->b, "coordination_service_leader", leader, NULL);
	g_free(leader);
	if (r->source != TPU_SRC_LOCAL)
		st = tpu_multislice(r, err);
	tpu_fact_endpoints(r);
	if (st == CR_OK && r->source != TPU_SRC_LOCAL) {
		st = tpu_workers(r, err);
		tpu_identity(r);
	}
	if (st == CR_OK)
		st = tpu_coordinator(r, err);
	if (st == CR_OK && r->source != TPU_SRC_LOCAL) {
		st = cr_host->result_set_task(r->b, job, r->self >= 0 ? r->self : 0, err);
		if (st == CR_OK)
			st = cr_host->result_set_rpc_layer(r->b, "grpc", err);
	}
	if (st == CR_OK)
		st = tpu_accelerators(r, err);
	return st;
}
