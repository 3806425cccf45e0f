/* SPDX-License-Identifier: MIT */
/*
 * mpi-pmi1.c - every rank's host through the PMI-1 wire protocol (MPICH's
 * Hydra, Intel MPI, MVAPICH2, Flux): text lines "cmd=NAME key=value ...",
 * one answer per request, on the socket PMI_FD names or a connection to
 * PMI_PORT (announced with cmd=initack pmiid=PMI_ID).
 *
 *   cmd=init pmi_version=1 pmi_subversion=1   -> cmd=response_to_init ... rc=0
 *   cmd=get_maxes                             -> cmd=maxes kvsname_max= keylen_max= vallen_max=
 *   cmd=get_my_kvsname                        -> cmd=my_kvsname kvsname=K
 *   cmd=put kvsname=K key=crhost<r> value=<local rank>/<host> -> cmd=put_result rc=0
 *   cmd=barrier_in                            -> cmd=barrier_out
 *   cmd=get kvsname=K key=crhost<p>           -> cmd=get_result rc=0 value=...
 *
 *   cmd=finalize                              -> cmd=finalize_ack  (unless @keep_open)
 *
 * Under `exec` (@keep_open) there is no cmd=finalize and PMI_FD is never
 * closed: the program initializes MPI on the same connection, and Hydra
 * closes it on a finalize (MPI_Init then fails: "PMI_Get_appnum returned
 * -1"). Elsewhere the finalize is needed: Hydra kills the whole launch
 * when a process that spoke PMI ends without one ("BAD TERMINATION ...
 * Killed (signal 9)"), even without cmd=init. Both found by experiment
 * with MPICH 4.0.2. Every rank takes part in the one barrier, so the
 * program's own barriers still pair up.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpi.h"

#define PMI1_LINE_MAX 4096

struct pmi1 {
	cr_plugin_ctx *ctx;
	int fd;
	bool own_fd; /* a PMI_PORT connection (closed at the end) */
	char where[96];
	int64_t timeout_ms;
	char line[PMI1_LINE_MAX];
};

static cr_status pmi1_send(struct pmi1 *p, const char *text, cr_error *err)
{
	size_t len = strlen(text), done = 0;

	while (done < len) {
		ssize_t w = send(p->fd, text + done, len - done, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == ENOTSOCK)
			w = write(p->fd, text + done, len - done);
		if (w <= 0)
			return cr_host->error_set(err, CR_ERR_IO, "%s: write failed: %s", p->where,
						  strerror(errno));
		done += (size_t)w;
	}
	return CR_OK;
}

/* Wait until @p's connection is readable or its deadline passes. */
static cr_status pmi1_wait(struct pmi1 *p, int64_t deadline, const char *request, cr_error *err)
{
	for (;;) {
		struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
		int64_t left = deadline - cr_host->monotonic_ms();
		int r = left > 0 ? poll(&pfd, 1, (int)(left > 60000 ? 60000 : left)) : 0;

		if (r > 0)
			return CR_OK;
		if ((r < 0 && errno == EINTR) || (r == 0 && cr_host->monotonic_ms() < deadline))
			continue;
		if (r < 0)
			return cr_host->error_set(err, CR_ERR_IO, "%s: poll failed: %s", p->where,
						  strerror(errno));
		return cr_host->error_set(err, CR_ERR_TIMEOUT,
					  "%s: no answer to cmd=%s within %lld ms", p->where,
					  request, (long long)p->timeout_ms);
	}
}

/* Read one answer line (without its newline) into p->line. Nothing after
 * the line is taken from the connection: what is there is peeked at, and
 * only up to the newline read (byte by byte where PMI_FD is not a
 * socket). */
static cr_status pmi1_read(struct pmi1 *p, const char *request, cr_error *err)
{
	int64_t deadline = cr_host->monotonic_ms() + p->timeout_ms;
	size_t n = 0;

	for (;;) {
		cr_status st = pmi1_wait(p, deadline, request, err);
		size_t room = sizeof(p->line) - 1 - n, take;
		ssize_t got;
		char *nl;

		if (st != CR_OK)
			return st;
		if (room == 0)
			return cr_host->error_set(err, CR_ERR_PARSE,
						  "%s: answer to cmd=%s is longer than %d bytes",
						  p->where, request, PMI1_LINE_MAX - 1);
		got = recv(p->fd, p->line + n, room, MSG_PEEK);
		if (got < 0 && errno == ENOTSOCK)
			got = read(p->fd, p->line + n, 1);
		else if (got > 0) {
			nl = memchr(p->line + n, '\n', (size_t)got);
			take = nl != NULL ? (size_t)(nl - (p->line + n)) + 1 : (size_t)got;
			got = read(p->fd, p->line + n, take);
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return cr_host->error_set(
				err, CR_ERR_IO,
				"%s: connection closed after %zu bytes of the answer "
				"to cmd=%s",
				p->where, n, request);
		n += (size_t)got;
		if (p->line[n - 1] == '\n') {
			p->line[n - 1] = '\0';
			return CR_OK;
		}
	}
}

/* The value of @key in p->line (a pointer into it, up to the next space
 * or its end copied into @out), or false. */
static bool pmi1_field(const struct pmi1 *p, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);

	for (const char *s = p->line; s != NULL && *s != '\0'; s = strchr(s, ' ')) {
		while (*s == ' ')
			s++;
		if (strncmp(s, key, klen) == 0 && s[klen] == '=') {
			const char *v = s + klen + 1;
			size_t vlen = strcspn(v, " ");

			if (vlen >= len)
				return false;
			memcpy(out, v, vlen);
			out[vlen] = '\0';
			return true;
		}
	}
	return false;
}

/* Send @request (its cmd= name is @name), read the answer and check that
 * it is cmd=@answer with no rc other than 0. */
static cr_status pmi1_call(struct pmi1 *p, const char *name, const char *request,
			   const char *answer, cr_error *err)
{
	char got[64], rc[16];
	cr_status st = pmi1_send(p, request, err);

	if (st == CR_OK)
		st = pmi1_read(p, name, err);
	if (st != CR_OK)
		return st;
	if (!pmi1_field(p, "cmd", got, sizeof(got)) || strcmp(got, answer) != 0)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: answered '%.80s' to cmd=%s (expected cmd=%s)",
					  p->where, p->line, name, answer);
	if (pmi1_field(p, "rc", rc, sizeof(rc)) && strcmp(rc, "0") != 0)
		return cr_host->error_set(err, CR_ERR_IO, "%s: cmd=%s failed: '%.200s'", p->where,
					  name, p->line);
	return CR_OK;
}

static cr_status pmi1_int_field(struct pmi1 *p, const char *key, int64_t *out, cr_error *err)
{
	char v[24], *end;

	if (!pmi1_field(p, key, v, sizeof(v)) || (*out = strtoll(v, &end, 10)) < 0 ||
	    *end != '\0' || end == v)
		return cr_host->error_set(err, CR_ERR_PARSE, "%s: no number %s= in '%.80s'",
					  p->where, key, p->line);
	return CR_OK;
}

static cr_status pmi1_connect(struct pmi1 *p, struct mpi_env *env, cr_error *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	const char *colon = strrchr(env->pmi_port, ':');
	char host[256], req[64];
	cr_status st;

	snprintf(p->where, sizeof(p->where), "PMI-1 server at PMI_PORT %.64s", env->pmi_port);
	if (colon == NULL || (size_t)(colon - env->pmi_port) >= sizeof(host))
		return cr_host->error_set(err, CR_ERR_PARSE, "PMI_PORT is '%s', not host:port",
					  env->pmi_port);
	memcpy(host, env->pmi_port, (size_t)(colon - env->pmi_port));
	host[colon - env->pmi_port] = '\0';
	if (getaddrinfo(host, colon + 1, &hints, &res) != 0 || res == NULL)
		return cr_host->error_set(err, CR_ERR_IO, "%s: cannot resolve '%s'", p->where,
					  host);
	p->fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p->fd < 0 || connect(p->fd, res->ai_addr, res->ai_addrlen) != 0) {
		freeaddrinfo(res);
		return cr_host->error_set(err, CR_ERR_IO, "%s: connect failed: %s", p->where,
					  strerror(errno));
	}
	freeaddrinfo(res);
	p->own_fd = true;
	snprintf(req, sizeof(req), "cmd=initack pmiid=%lld\n", (long long)env->pmi_id);
	st = pmi1_call(p, "initack", req, "initack", err);
	for (int i = 0; i < 3 && st == CR_OK; i++) {
		st = pmi1_read(p, "initack", err);
		if (st == CR_OK && strncmp(p->line, "cmd=set size=", 13) == 0)
			st = pmi1_int_field(p, "size", &env->size, err);
		else if (st == CR_OK && strncmp(p->line, "cmd=set rank=", 13) == 0)
			st = pmi1_int_field(p, "rank", &env->rank, err);
	}
	if (st == CR_OK && (env->size < 1 || env->rank >= env->size))
		st = cr_host->error_set(err, CR_ERR_CONFLICT, "%s: rank %lld of size %lld",
					p->where, (long long)env->rank, (long long)env->size);
	return st;
}

/* "L/host" -> peer. */
static cr_status pmi1_peer(struct pmi1 *p, int64_t r, const char *value, struct mpi_peer *peer,
			   cr_error *err)
{
	char *end;
	long long l = strtoll(value, &end, 10);

	if (end == value || *end != '/' || l < 0 || end[1] == '\0')
		return cr_host->error_set(err, CR_ERR_PARSE, "%s: rank %lld's entry is '%.80s'",
					  p->where, (long long)r, value);
	peer->local_rank = l;
	peer->host = strdup(end + 1);
	if (peer->host == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	return CR_OK;
}

static cr_status pmi1_run(struct pmi1 *p, struct mpi_env *env, const char *self, bool keep_open,
			  struct mpi_peer **peers, cr_error *err)
{
	char kvs[260], req[PMI1_LINE_MAX], value[PMI1_LINE_MAX];
	int64_t keymax = 0, valmax = 0;
	cr_status st;

	st = pmi1_call(p, "init", "cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init",
		       err);
	if (st == CR_OK)
		st = pmi1_call(p, "get_maxes", "cmd=get_maxes\n", "maxes", err);
	if (st == CR_OK)
		st = pmi1_int_field(p, "keylen_max", &keymax, err);
	if (st == CR_OK)
		st = pmi1_int_field(p, "vallen_max", &valmax, err);
	if (st == CR_OK)
		st = pmi1_call(p, "get_my_kvsname", "cmd=get_my_kvsname\n", "my_kvsname", err);
	if (st == CR_OK && !pmi1_field(p, "kvsname", kvs, sizeof(kvs)))
		st = cr_host->error_set(err, CR_ERR_PARSE, "%s: no kvsname= in '%.80s'", p->where,
					p->line);
	if (st != CR_OK)
		return st;
	snprintf(value, sizeof(value), "%lld/%s",
		 (long long)(env->local_rank < 0 ? 0 : env->local_rank), self);
	if ((int64_t)strlen(value) >= valmax || keymax < 16)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: host '%s' does not fit its vallen_max %lld",
					  p->where, self, (long long)valmax);
	snprintf(req, sizeof(req), "cmd=put kvsname=%s key=crhost%lld value=%s\n", kvs,
		 (long long)env->rank, value);
	st = pmi1_call(p, "put", req, "put_result", err);
	if (st == CR_OK)
		st = pmi1_call(p, "barrier_in", "cmd=barrier_in\n", "barrier_out", err);
	if (st != CR_OK)
		return st;
	*peers = calloc((size_t)env->size, sizeof(**peers));
	if (*peers == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	for (int64_t r = 0; r < env->size && st == CR_OK; r++) {
		snprintf(req, sizeof(req), "cmd=get kvsname=%s key=crhost%lld\n", kvs,
			 (long long)r);
		st = pmi1_call(p, "get", req, "get_result", err);
		if (st == CR_OK && !pmi1_field(p, "value", value, sizeof(value)))
			st = cr_host->error_set(err, CR_ERR_PARSE, "%s: no value= in '%.80s'",
						p->where, p->line);
		if (st == CR_OK)
			st = pmi1_peer(p, r, value, &(*peers)[r], err);
	}
	if (st == CR_OK && !keep_open)
		st = pmi1_call(p, "finalize", "cmd=finalize\n", "finalize_ack", err);
	if (st != CR_OK) {
		mpi_peers_free(*peers, env->size);
		*peers = NULL;
	}
	return st;
}

cr_status mpi_pmi1_exchange(cr_plugin_ctx *ctx, struct mpi_env *env, const char *self,
			    int64_t timeout_ms, bool keep_open, struct mpi_peer **peers,
			    cr_error *err)
{
	struct pmi1 *p = calloc(1, sizeof(*p));
	cr_status st = CR_OK;

	*peers = NULL;
	if (p == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	p->ctx = ctx;
	p->fd = env->pmi_fd;
	p->timeout_ms = timeout_ms;
	snprintf(p->where, sizeof(p->where), "PMI-1 server on PMI_FD %d", env->pmi_fd);
	if (env->pmi_fd < 0)
		st = pmi1_connect(p, env, err);
	if (st == CR_OK)
		st = pmi1_run(p, env, self, keep_open, peers, err);
	if (p->own_fd && p->fd >= 0)
		close(p->fd);
	free(p);
	return st;
}

void mpi_peers_free(struct mpi_peer *peers, int64_t n)
{
	for (int64_t i = 0; peers != NULL && i < n; i++)
		free(peers[i].host);
	free(peers);
}
