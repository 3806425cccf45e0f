/* SPDX-License-Identifier: MIT */
/*
 * reservation.h - reservation.so's private declarations: the state, the
 * reserved port (rsv_port.c) and the GPU slot (rsv_gpu.c).
 */
#ifndef CR_RESERVATION_PLUGIN_H
#define CR_RESERVATION_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

#define RSV_ENV_SERVER "CR_RESERVATION_SERVER"
#define RSV_ENV_EXECUTOR "CR_EXECUTOR_ID"
#define RSV_ENV_PORT "TENSORFLOW_PORT"
#define RSV_ENV_PORT_FD "CR_RESERVED_PORT_FD"

/* The port this task will serve on, held by a bound socket from before it
 * registers until the program starts (or hands it over). */
typedef struct rsv_port {
	int fd;        /* the bound socket, or -1 */
	uint16_t port; /* its number */
} rsv_port;

/**
 * rsv_port_reserve: bind a TCP socket on every interface to @want (0 = an
 * ephemeral port) with SO_REUSEADDR, as TFoS's temporary socket.
 * Returns: CR_OK, CR_ERR_IO naming the port and the reason.
 */
cr_status rsv_port_reserve(uint16_t want, rsv_port *p, cr_error *err);
/** rsv_port_close: close the socket (idempotent). */
void rsv_port_close(rsv_port *p);

/* One authenticated connection to the reservation server (rsv_conn.c, on
 * the protocol library plugins/common/reservation). Messages are JSON
 * texts {"type": ..., "data": ...}. */
typedef struct rsv_conn rsv_conn;

/**
 * rsv_conn_open: connect to @server ("HOST:PORT") within @timeout_ms and
 * run the handshake with @secret. Messages name @server, never the secret.
 * Returns: CR_OK, CR_ERR_NETWORK, CR_ERR_TIMEOUT, CR_ERR_AUTH.
 */
cr_status rsv_conn_open(cr_plugin_ctx *ctx, const char *server, const unsigned char *secret,
			size_t secret_len, int64_t timeout_ms, rsv_conn **out, cr_error *err);
/** rsv_conn_local_host: the local address of the connection ("10.0.0.5"). */
const char *rsv_conn_local_host(const rsv_conn *c);
/** rsv_conn_cluster_id: the cluster id the server's HELLO named. */
const char *rsv_conn_cluster_id(const rsv_conn *c);
/**
 * rsv_conn_send: send {"type": @type, "data": @data_json} (@data_json a
 * JSON text; NULL sends {}).
 * Returns: CR_OK, CR_ERR_NETWORK naming the server.
 */
cr_status rsv_conn_send(rsv_conn *c, const char *type, const char *data_json, cr_error *err);
/**
 * rsv_conn_recv: the next message within @timeout_ms (0 = only what has
 * arrived: CR_DECLINED when nothing has). (transfer full) *@msg: free
 * with cr_host->json_free.
 * Returns: CR_OK, CR_DECLINED, CR_ERR_TIMEOUT, CR_ERR_NETWORK (closed,
 * bad frame, bad tag), all naming the server.
 */
cr_status rsv_conn_recv(rsv_conn *c, int64_t timeout_ms, cr_json **msg, cr_error *err);
void rsv_conn_close(rsv_conn *c);

/**
 * rsv_secret_load: the shared secret: the file's bytes (at least 16), from
 * a file that is not group/world-readable. (transfer full) *@secret.
 * Returns: CR_OK, CR_ERR_CONFIG naming the file and what is wrong.
 */
cr_status rsv_secret_load(cr_plugin_ctx *ctx, const char *path, unsigned char **secret, size_t *len,
			  cr_error *err);

#endif /* CR_RESERVATION_PLUGIN_H */
