/* SPDX-License-Identifier: MIT */
/*
 * reservation.c - the client of `cluster-resolver reservation serve`
 * (TensorFlowOnSpark's reservation, authenticated; docs/reservation.md).
 *
 * resolve() reserves this task's port, registers
 * {executor_id, host, port, hostname, pid} with the server, waits for the
 * cluster and reports it with this task's identity and environment
 * "cloud", as TFoS's TF_CONFIG. Its group's gpus_per_task is the core's
 * (pipeline/gpus.c picks the task's GPUs from the accelerator layer). The
 * port is released before the program starts, or handed to it
 * (release_port = false, CR_RESERVED_PORT_FD).
 *
 * The connection stays open for `exec --supervise`: supervise() sends the
 * program's exit status as DONE, and stops the program when the server
 * sends STOP (the ps and evaluator tasks once the workers are done).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "reservation.h"
#include "rsv-proto.h"

#define RSV_PING_MS 10000

typedef struct rsv {
	const char *server; /* the option, or server_env */
	char *server_env;   /* a copy of CR_RESERVATION_SERVER (getenv's is borrowed) */
	const char *secret_file;
	int64_t executor_id;
	const char *host;
	uint16_t port;
	int64_t env_port; /* TENSORFLOW_PORT, or 0 */
	bool release_port;
	int64_t timeout_ms;
	int64_t progress_ms; /* in WAIT, say once after this what it waits for; 0: never */
	const char *rpc_layer;
	rsv_conn *conn;
	rsv_port reserved;
	bool done_sent;
	int pending;        /* keepalive QUERYs not answered yet */
	int64_t ping_at_ms; /* program time of the next QUERY (keepalive) */
	char address[300];  /* this task's "host:port" */
} rsv;

static const cr_option rsv_options[] = {
	CR_OPTION("server", CR_OPT_STRING, NULL, 0,
		  "reservation server HOST:PORT (default: $CR_RESERVATION_SERVER)"),
	CR_OPTION("secret_file", CR_OPT_STRING, NULL, CR_OPT_REQUIRED | CR_OPT_SECRET,
		  "file holding the shared secret (>= 16 bytes, mode 0600)"),
	CR_OPTION_RANGE("executor_id", CR_OPT_INT, NULL, 0,
			"this task's executor id (default: $CR_EXECUTOR_ID)", 0, 2147483647),
	CR_OPTION("host", CR_OPT_STRING, NULL, 0,
		  "address registered for this task (default: the local address of the "
		  "connection to the server)"),
	CR_OPTION_RANGE("port", CR_OPT_INT, "0", 0,
			"port of this task; 0 = $TENSORFLOW_PORT, else an ephemeral port", 0,
			65535),
	CR_OPTION("release_port", CR_OPT_BOOL, "true", 0,
		  "close the reserved port before the program starts; false = pass it in "
		  "CR_RESERVED_PORT_FD"),
	CR_OPTION_RANGE("timeout", CR_OPT_FLOAT, "600", 0,
			"seconds to wait for the cluster to form", 0.1, 2592000),
	CR_OPTION_RANGE("progress", CR_OPT_FLOAT, "10", 0,
			"seconds into the wait for the cluster after which a warning says what "
			"it waits for (0: never)",
			0, 2592000),
	CR_OPTION("rpc_layer", CR_OPT_STRING, "grpc", 0, "rpc layer reported with the cluster"),
	CR_OPTIONS_END
};

static void rsv_destroy(void *state)
{
	rsv *s = state;

	if (s == NULL)
		return;
	rsv_conn_close(s->conn);
	rsv_port_close(&s->reserved);
	free(s->server_env);
	free(s);
}

static cr_status rsv_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	rsv *s = calloc(1, sizeof(*s));

	(void)config;
	if (s == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	s->reserved.fd = -1;
	s->server = cr_host->opt_string(ctx, "server");
	s->secret_file = cr_host->opt_string(ctx, "secret_file");
	s->executor_id =
		cr_host->opt_is_set(ctx, "executor_id") ? cr_host->opt_int(ctx, "executor_id") : -1;
	s->host = cr_host->opt_string(ctx, "host");
	s->port = (uint16_t)cr_host->opt_int(ctx, "port");
	s->release_port = cr_host->opt_bool(ctx, "release_port");
	s->timeout_ms = (int64_t)(cr_host->opt_float(ctx, "timeout") * 1000);
	s->progress_ms = (int64_t)(cr_host->opt_float(ctx, "progress") * 1000);
	s->rpc_layer = cr_host->opt_string(ctx, "rpc_layer");
	*state = s;
	return CR_OK;
}

/* A decimal in [lo, hi]; false when malformed. */
static bool rsv_env_int(const char *text, int64_t lo, int64_t hi, int64_t *out)
{
	char *end = NULL;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* Server, executor id and TENSORFLOW_PORT from the options, else the
 * environment. No server: DECLINED (this backend needs one; it is never
 * in `auto`). */
static cr_status rsv_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	rsv *s = state;
	const char *v;

	if ((s->server == NULL || *s->server == '\0') &&
	    (v = cr_host->getenv(ctx, RSV_ENV_SERVER)) != NULL && *v != '\0') {
		free(s->server_env);
		s->server = s->server_env = strdup(v);
	}
	if (s->server == NULL || *s->server == '\0')
		return cr_host->error_set(err, CR_DECLINED,
					  "no reservation server: neither the server option nor "
					  "%s is set",
					  RSV_ENV_SERVER);
	v = cr_host->getenv(ctx, RSV_ENV_PORT);
	if (s->port == 0 && v != NULL && *v != '\0' && !rsv_env_int(v, 1, 65535, &s->env_port))
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s=\"%s\" is not a port (1..65535)",
					  RSV_ENV_PORT, v);
	if (s->executor_id >= 0)
		return CR_OK;
	v = cr_host->getenv(ctx, RSV_ENV_EXECUTOR);
	if (v == NULL)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "no executor id: neither the executor_id option nor %s "
					  "is set",
					  RSV_ENV_EXECUTOR);
	if (!rsv_env_int(v, 0, 2147483647, &s->executor_id))
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s=\"%s\" is not an executor id (0..2147483647)",
					  RSV_ENV_EXECUTOR, v);
	return CR_OK;
}

/* The port to hold: the option, else TENSORFLOW_PORT (read by probe),
 * else ephemeral. */
static cr_status rsv_reserve(rsv *s, cr_error *err)
{
	return rsv_port_reserve((uint16_t)(s->port ? s->port : s->env_port), &s->reserved, err);
}

/* ERR {code, message} from the server, as an error naming it. */
static cr_status rsv_server_error(rsv *s, const cr_json *msg, const char *what, cr_error *err)
{
	const char *text = cr_host->json_string(cr_host->json_get(msg, "/data/message"));
	const char *type = cr_host->json_string(cr_host->json_get(msg, "/type"));

	if (type != NULL && strcmp(type, "ERR") == 0)
		return cr_host->error_set(err, CR_ERR_BACKEND,
					  "reservation server %s refused %s: %s", s->server, what,
					  text ? text : "(no message)");
	return cr_host->error_set(err, CR_ERR_PARSE,
				  "reservation server %s: unexpected answer '%s' to %s", s->server,
				  type ? type : "(none)", what);
}

static bool rsv_is(const cr_json *msg, const char *type)
{
	const char *t = cr_host->json_string(cr_host->json_get(msg, "/type"));

	return t != NULL && strcmp(t, type) == 0;
}

/* REG {executor_id, host, port, hostname, pid} → OK. */
static cr_status rsv_register(rsv *s, cr_plugin_ctx *ctx, cr_error *err)
{
	const char *host = s->host ? s->host : rsv_conn_local_host(s->conn);
	json_object *data = json_object_new_object();
	char hostname[256] = "";
	cr_json *reply = NULL;
	cr_status st;

	gethostname(hostname, sizeof(hostname) - 1);
	if (strchr(host, ':') != NULL)
		snprintf(s->address, sizeof(s->address), "[%s]:%u", host, s->reserved.port);
	else
		snprintf(s->address, sizeof(s->address), "%s:%u", host, s->reserved.port);
	json_object_object_add(data, "executor_id", json_object_new_int64(s->executor_id));
	json_object_object_add(data, "host", json_object_new_string(host));
	json_object_object_add(data, "port", json_object_new_int(s->reserved.port));
	json_object_object_add(data, "hostname", json_object_new_string(hostname));
	json_object_object_add(data, "pid", json_object_new_int64((int64_t)getpid()));
	cr_host->log(ctx, CR_LOG_INFO, "registering executor %lld as %s with %s",
		     (long long)s->executor_id, s->address, s->server);
	st = rsv_conn_send(s->conn, "REG",
			   json_object_to_json_string_ext(data, JSON_C_TO_STRING_PLAIN), err);
	json_object_put(data);
	if (st == CR_OK)
		st = rsv_conn_recv(s->conn, s->timeout_ms, &reply, err);
	if (st == CR_OK && !rsv_is(reply, "OK"))
		st = rsv_server_error(s, reply, "the registration", err);
	cr_host->json_free(reply);
	return st;
}

/* "3 of 5 registered; missing executors 2, 4" from TIMEOUT's data. */
static cr_status rsv_timeout_error(rsv *s, const cr_json *msg, cr_error *err)
{
	const cr_json *missing = cr_host->json_get(msg, "/data/missing");
	const cr_json *reg = cr_host->json_get(msg, "/data/registered");
	int64_t required = 0, id;
	char list[512] = "";
	size_t used = 0, n = cr_host->json_length(missing);

	const char *text = cr_host->json_string(cr_host->json_get(msg, "/data/message"));

	/* The server's own sentence when it sends one ("timed out after 600 s:
	 * 3 of 5 registered; missing executors 2, 4 (registered: ...)"). */
	if (text != NULL)
		return cr_host->error_set(err, CR_ERR_TIMEOUT, "reservation server %s: %s",
					  s->server, text);
	cr_host->json_int(cr_host->json_get(msg, "/data/required"), &required);
	for (size_t i = 0; i < n && used + 24 < sizeof(list); i++)
		if (cr_host->json_int(cr_host->json_index(missing, i), &id))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%lld",
						 i ? ", " : "", (long long)id);
	return cr_host->error_set(
		err, CR_ERR_TIMEOUT,
		"reservation server %s: the cluster did not form: %zu of %lld registered; "
		"missing executors %s",
		s->server, cr_host->json_length(reg), (long long)required, list);
}

/* The answer to WAIT within timeout; after @s->progress_ms without one, a
 * warning says once what this task waits for (the server's own progress
 * lines name the executors still missing). */
static cr_status rsv_wait_answer(rsv *s, cr_plugin_ctx *ctx, cr_json **reply, cr_error *err)
{
	cr_error first = CR_ERROR_INIT;
	cr_status st;

	if (s->progress_ms <= 0 || s->progress_ms >= s->timeout_ms)
		return rsv_conn_recv(s->conn, s->timeout_ms, reply, err);
	st = rsv_conn_recv(s->conn, s->progress_ms, reply, &first);
	if (st != CR_ERR_TIMEOUT) {
		if (st != CR_OK)
			cr_host->error_set(err, st, "%s", first.message);
		return st;
	}
	cr_host->log(ctx, CR_LOG_WARNING,
		     "executor %lld is registered with reservation server %s as %s; waiting "
		     "%.0f s so far for the other executors to register (timeout %.0f s)",
		     (long long)s->executor_id, s->server, s->address,
		     (double)s->progress_ms / 1000, (double)s->timeout_ms / 1000);
	return rsv_conn_recv(s->conn, s->timeout_ms - s->progress_ms, reply, err);
}

/* WAIT → CLUSTER {cluster, task}. */
static cr_status rsv_wait(rsv *s, cr_plugin_ctx *ctx, cr_json **cluster_msg, cr_error *err)
{
	cr_json *reply = NULL;
	cr_status st = rsv_conn_send(s->conn, "WAIT", NULL, err);

	if (st == CR_OK)
		st = rsv_wait_answer(s, ctx, &reply, err);
	if (st == CR_ERR_TIMEOUT)
		return cr_host->error_set(err, CR_ERR_TIMEOUT,
					  "reservation server %s: no cluster after %.0f s",
					  s->server, (double)s->timeout_ms / 1000);
	if (st == CR_OK && rsv_is(reply, "TIMEOUT"))
		st = rsv_timeout_error(s, reply, err);
	else if (st == CR_OK && !rsv_is(reply, "CLUSTER"))
		st = rsv_server_error(s, reply, "the wait", err);
	if (st != CR_OK) {
		cr_host->json_free(reply);
		return st;
	}
	*cluster_msg = reply;
	return CR_OK;
}

/* The cluster, identity and environment of CLUSTER {cluster, task}. */
static cr_status rsv_report(rsv *s, cr_plugin_ctx *ctx, const cr_json *msg, cr_result_builder *b,
			    cr_error *err)
{
	const cr_json *cluster = cr_host->json_get(msg, "/data/cluster");
	const char *type = cr_host->json_string(cr_host->json_get(msg, "/data/task/type"));
	int64_t index = -1;
	char what[320];
	cr_status st;

	snprintf(what, sizeof(what), "reservation server %s: cluster", s->server);
	if (cluster == NULL || type == NULL ||
	    !cr_host->json_int(cr_host->json_get(msg, "/data/task/index"), &index))
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "reservation server %s: CLUSTER without cluster and task",
					  s->server);
	st = cr_host->result_add_cluster_json(b, cluster, what, err);
	if (st == CR_OK)
		st = cr_host->result_set_task(b, type, index, err);
	if (st == CR_OK && s->rpc_layer != NULL && *s->rpc_layer != '\0')
		st = cr_host->result_set_rpc_layer(b, s->rpc_layer, err);
	if (st == CR_OK)
		st = cr_host->result_set_environment(b, "cloud", err);
	return st;
}

/* The reserved port: released now (the program starts next), or passed
 * to the program, which closes it before it binds. */
static cr_status rsv_hand_port(rsv *s, cr_result_builder *b, cr_error *err)
{
	cr_status st = CR_OK;

	if (!s->release_port)
		st = cr_host->result_pass_fd(b, s->reserved.fd, RSV_ENV_PORT_FD, err);
	rsv_port_close(&s->reserved);
	return st;
}

static void rsv_facts(rsv *s, cr_result_builder *b)
{
	char num[32];
	cr_json *id = NULL;

	cr_host->result_set_fact_string(b, "server", s->server, NULL);
	snprintf(num, sizeof(num), "%lld", (long long)s->executor_id);
	if (cr_host->json_parse(num, strlen(num), "executor_id", &id, NULL) == CR_OK)
		cr_host->result_set_fact(b, "executor_id", id, NULL);
	cr_host->json_free(id);
	if (s->conn != NULL)
		cr_host->result_set_fact_string(b, "cluster_id", rsv_conn_cluster_id(s->conn),
						NULL);
	if (s->address[0] != '\0')
		cr_host->result_set_fact_string(b, "address", s->address, NULL);
}

static cr_status rsv_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	rsv *s = state;
	unsigned char *secret = NULL;
	size_t secret_len = 0;
	cr_json *msg = NULL;
	cr_status st;

	st = rsv_secret_load(ctx, s->secret_file, &secret, &secret_len, err);
	if (st == CR_OK)
		st = rsv_reserve(s, err);
	if (st == CR_OK)
		st = rsv_conn_open(ctx, s->server, secret, secret_len, s->timeout_ms, &s->conn,
				   err);
	rsv_proto_secret_free(secret, secret_len);
	if (st == CR_OK)
		st = rsv_register(s, ctx, err);
	rsv_facts(s, b);
	if (st == CR_OK)
		st = rsv_wait(s, ctx, &msg, err);
	if (st == CR_OK)
		st = rsv_report(s, ctx, msg, b, err);
	if (st == CR_OK)
		st = rsv_hand_port(s, b, err);
	cr_host->json_free(msg);
	return st;
}

/* STOP from the server → stop the program; a lost connection is logged
 * once (the program goes on: the server decides when it is over). Every
 * RSV_PING_MS a QUERY shows the server that this task is alive (it drops
 * silent peers); its answer, like anything but STOP, is skipped. */
static cr_status rsv_poll_stop(rsv *s, cr_plugin_ctx *ctx, int64_t elapsed_ms, bool *stop,
			       cr_error *err)
{
	cr_json *msg = NULL;
	cr_status st = CR_DECLINED;

	if (elapsed_ms >= s->ping_at_ms) {
		s->ping_at_ms = elapsed_ms + RSV_PING_MS;
		st = rsv_conn_send(s->conn, "QUERY", NULL, err);
		s->pending += st == CR_OK;
	}
	if (st == CR_DECLINED || st == CR_OK)
		st = rsv_conn_recv(s->conn, 0, &msg, err);

	if (st == CR_DECLINED)
		return CR_OK;
	if (st != CR_OK) {
		rsv_conn_close(s->conn);
		s->conn = NULL;
		return st;
	}
	if (rsv_is(msg, "STOP")) {
		cr_host->log(ctx, CR_LOG_INFO, "reservation server %s: STOP: stopping the program",
			     s->server);
		*stop = true;
	} else if (s->pending > 0) {
		s->pending--;
	}
	cr_host->json_free(msg);
	return st;
}

/* The exit status as DONE {exit_status}, answered OK (or ERR). */
static cr_status rsv_done(rsv *s, int exit_status, cr_error *err)
{
	char data[64];
	cr_json *reply = NULL;
	cr_status st;

	snprintf(data, sizeof(data), "{\"exit_status\":%d}", exit_status);
	s->done_sent = true;
	st = rsv_conn_send(s->conn, "DONE", data, err);
	/* Answers to keepalive QUERYs and a STOP crossing our DONE come
	 * first: skipped. */
	while (st == CR_OK && (reply == NULL || s->pending > 0 || rsv_is(reply, "STOP"))) {
		if (reply != NULL && !rsv_is(reply, "STOP"))
			s->pending--;
		cr_host->json_free(reply);
		reply = NULL;
		st = rsv_conn_recv(s->conn, 30000, &reply, err);
	}
	if (st == CR_OK && !rsv_is(reply, "OK"))
		st = rsv_server_error(s, reply, "DONE", err);
	cr_host->json_free(reply);
	return st;
}

static cr_status rsv_supervise(void *state, cr_plugin_ctx *ctx, const cr_supervise_event *ev,
			       bool *stop, cr_error *err)
{
	rsv *s = state;

	if (s->conn == NULL)
		return CR_OK;
	if (ev->phase == CR_SUPERVISE_EXITED && !s->done_sent)
		return rsv_done(s, ev->exit_status, err);
	if (ev->phase == CR_SUPERVISE_RUNNING)
		return rsv_poll_stop(s, ctx, ev->elapsed_ms, stop, err);
	return CR_OK;
}

static const cr_resolver_ops rsv_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = rsv_create,
	.destroy = rsv_destroy,
	.probe = rsv_probe,
	.resolve = rsv_resolve,
	.master = NULL,
	.supervise = rsv_supervise,
};

static const cr_plugin_desc rsv_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "reservation",
	.version = "1.0.0",
	.description = "registers with `cluster-resolver reservation serve` and waits for the "
		       "cluster (TensorFlowOnSpark's reservation, authenticated)",
	.options = rsv_options,
	.option_size = sizeof(cr_option),
	.resolver = &rsv_ops,
	.accelerator = NULL,
	.flags = 0,
};

CR_PLUGIN_DEFINE(rsv_desc)
