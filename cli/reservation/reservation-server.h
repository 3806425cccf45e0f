/* SPDX-License-Identifier: MIT */
/*
 * reservation-server.h - the reservation server's state, shared by its
 * event loop and framing (reservation-server.c), its protocol handlers:
 * registrations, formation, shutdown (reservation-state.c), and what both
 * send and log with (reservation-send.c).
 */
#ifndef CR_CLI_RESERVATION_SERVER_H
#define CR_CLI_RESERVATION_SERVER_H

#include <sys/socket.h>

#include <json-c/json.h>

#include "reservation.h"
#include "rsv-proto.h"

#define RSV_IDLE_MS 30000      /* a silent peer is dropped */
#define RSV_STOP_WAIT_MS 60000 /* after STOP, how long DONE may take */
/* Before AUTH a frame is small (AUTH is ~170 bytes): larger is hostile. */
#define RSV_PREAUTH_MAX_FRAME 1024

typedef struct rsv_conn {
	int fd;
	char peer[80]; /* "127.0.0.1:40123" */
	GByteArray *in, *out;
	unsigned char snonce[RSV_NONCE_LEN], cnonce[RSV_NONCE_LEN];
	bool authed, closing;
	uint64_t sseq, rseq;
	int64_t last_ms;     /* the last whole frame (or the accept) */
	int64_t accepted_ms; /* AUTH is due auth_timeout after this */
	int executor;        /* registered executor, -1 none */
	bool waiting;        /* sent WAIT, not answered yet */
} rsv_conn;

typedef struct rsv_reg {
	bool present;
	rsv_conn *conn; /* NULL once its connection is gone */
	char *host, *hostname;
	int port;
	int64_t pid;
	bool done, stopped; /* DONE received; STOP sent */
	int exit_status;
} rsv_reg;

typedef enum {
	RSV_FORMING,
	RSV_FORMED,
	RSV_GRACE,
	RSV_STOPPING,
	RSV_END
} rsv_phase;

typedef struct rsv_server {
	const rsv_plan *plan;
	const rsv_serve_opts *o;
	unsigned char *secret;
	size_t secret_len;
	char cluster_id[17];
	GPtrArray *conns;
	rsv_reg *regs;
	int registered;
	rsv_phase phase;
	int rc;
	int64_t start_ms, deadline_ms, shutdown_ms; /* deadline of GRACE / STOPPING */
	int64_t progress_ms;                        /* next progress line while FORMING */
	json_object *cluster;                       /* from formation on */
	bool told_all_gone, told_no_fds, accept_paused;
	char auth_late[64]; /* the message of a connection without AUTH in time */
} rsv_server;

/* reservation-send.c */
int64_t rsv_now_ms(void);
void rsv_log(const rsv_server *s, bool always, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The formation's progress on stderr: a line each time, or on a terminal
 * one line rewritten in place (which the next rsv_log line, or @line
 * NULL, erases). */
void rsv_progress(const char *line);
/* Queue {"type": @type, "data": @data} (data stolen; NULL = {}). */
void rsv_send(rsv_server *s, rsv_conn *c, const char *type, json_object *data);
void rsv_send_err(rsv_server *s, rsv_conn *c, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* reservation-listen.c */
typedef struct rsv_listen {
	char *host; /* NULL: every IPv4 interface */
	int lo, hi; /* ports, inclusive; 0 = any */
} rsv_listen;
/* --listen, else $TFOS_SERVER_PORT, else any port; false with the reason. */
bool rsv_listen_parse(const rsv_serve_opts *o, rsv_listen *l, char *why, size_t n);
/* The first port of @l that binds, listening; -1 after a message naming them. */
int rsv_listen_open(const rsv_listen *l, struct sockaddr_storage *bound);
/* The host to advertise (g_free it). */
char *rsv_advertised(const rsv_serve_opts *o, const rsv_listen *l);

/* reservation-state.c */
void rsv_on_message(rsv_server *s, rsv_conn *c, json_object *msg);
void rsv_on_close(rsv_server *s, rsv_conn *c);
void rsv_on_timers(rsv_server *s, int64_t now);
void rsv_on_signal(rsv_server *s, int sig);
/* The next time rsv_on_timers has something to do (-1: none). */
int64_t rsv_next_deadline(const rsv_server *s);
bool rsv_write_summary(const rsv_server *s);

#endif /* CR_CLI_RESERVATION_SERVER_H */
