/* SPDX-License-Identifier: MIT */
/*
 * reservation-state.c - what the reservation server does with each
 * request (docs/reservation.md): registrations until every executor is
 * there, the cluster to every waiter, then TFoS's shutdown: once every task
 * but ps and evaluator sent DONE, --grace-secs, STOP to ps and evaluator.
 * A failure (timeout, ABORT, a non-zero DONE, --shutdown-timeout, a
 * signal) stops everyone and makes the exit status 1.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "reservation-server.h"

static const char *job_of(const rsv_server *s, int id, int *index)
{
	const char *job;

	rsv_plan_role(s->plan, id, &job, index);
	return job;
}

/* ps and evaluator wait for STOP; every other task ends by itself. */
static bool is_service(const rsv_server *s, int id)
{
	int index;
	const char *job = job_of(s, id, &index);

	return strcmp(job, "ps") == 0 || strcmp(job, "evaluator") == 0;
}

/* Hosts are names or addresses: nothing that could break a line format. */
static bool host_ok(const char *h)
{
	size_t n = h ? strlen(h) : 0;

	if (n == 0 || n > 253)
		return false;
	for (const char *p = h; *p; p++)
		if (!g_ascii_isalnum(*p) && !strchr(".-_:", *p))
			return false;
	return true;
}

static char *address_of(const rsv_reg *r)
{
	return strchr(r->host, ':') ? g_strdup_printf("[%s]:%d", r->host, r->port)
				    : g_strdup_printf("%s:%d", r->host, r->port);
}

/* "3 of 5 registered; missing executors 2, 4 (registered: h1 0, h1 1)" */
static char *formation_state(const rsv_server *s)
{
	GString *missing = g_string_new(NULL), *present = g_string_new(NULL);
	char *text;

	for (int i = 0; i < s->plan->num_executors; i++) {
		GString *to = s->regs[i].present ? present : missing;

		if (to->len > 0)
			g_string_append(to, ", ");
		if (s->regs[i].present)
			g_string_append_printf(to, "%s %d", s->regs[i].host, i);
		else
			g_string_append_printf(to, "%d", i);
	}
	text = g_strdup_printf("%d of %d registered; missing executors %s (registered: %s)",
			       s->registered, s->plan->num_executors, missing->str,
			       present->len ? present->str : "none");
	g_string_free(missing, TRUE);
	g_string_free(present, TRUE);
	return text;
}

/* "registered 61 of 64; missing executors 7, 12, 40": at most 20 of them
 * named, then how many more. */
static char *progress_text(const rsv_server *s)
{
	GString *t = g_string_new(NULL);
	int named = 0, missing = s->plan->num_executors - s->registered;

	g_string_printf(t, "registered %d of %d; missing executors", s->registered,
			s->plan->num_executors);
	for (int i = 0; i < s->plan->num_executors && named < 20; i++)
		if (!s->regs[i].present)
			g_string_append_printf(t, "%s %d", named++ ? "," : "", i);
	if (missing > named)
		g_string_append_printf(t, ", ... (%d more)", missing - named);
	return g_string_free(t, FALSE);
}

static json_object *timeout_data(const rsv_server *s, const char *message)
{
	json_object *d = json_object_new_object(), *missing = json_object_new_array(),
		    *reg = json_object_new_array();

	for (int i = 0; i < s->plan->num_executors; i++) {
		json_object *r;

		if (!s->regs[i].present) {
			json_object_array_add(missing, json_object_new_int(i));
			continue;
		}
		r = json_object_new_object();
		json_object_object_add(r, "executor_id", json_object_new_int(i));
		json_object_object_add(r, "host", json_object_new_string(s->regs[i].host));
		json_object_array_add(reg, r);
	}
	json_object_object_add(d, "missing", missing);
	json_object_object_add(d, "registered", reg);
	json_object_object_add(d, "required", json_object_new_int(s->plan->num_executors));
	json_object_object_add(d, "message", json_object_new_string(message));
	return d;
}

/* Formation failed (timeout, ABORT, signal): every registered client is
 * told why, and the server ends with 1. */
static void fail_formation(rsv_server *s, const char *why)
{
	char *state = formation_state(s), *message = g_strdup_printf("%s: %s", why, state);

	rsv_log(s, true, "%s", message);
	for (guint i = 0; i < s->conns->len; i++) {
		rsv_conn *c = g_ptr_array_index(s->conns, i);

		if (c->authed && !c->closing)
			rsv_send(s, c, "TIMEOUT", timeout_data(s, message));
	}
	g_free(state);
	g_free(message);
	s->rc = 1;
	s->phase = RSV_END;
}

static void stop_task(rsv_server *s, int id)
{
	rsv_reg *r = &s->regs[id];

	if (r->conn == NULL || r->done || r->stopped)
		return;
	rsv_send(s, r->conn, "STOP", NULL);
	r->stopped = true;
	rsv_log(s, false, "STOP sent to executor %d", id);
}

static bool all_stopped_done(const rsv_server *s)
{
	for (int i = 0; i < s->plan->num_executors; i++)
		if (s->regs[i].stopped && !s->regs[i].done && s->regs[i].conn != NULL)
			return false;
	return true;
}

/* STOP to @services only, or to everyone still running. */
static void start_stopping(rsv_server *s, bool services)
{
	for (int i = 0; i < s->plan->num_executors; i++)
		if (!services || is_service(s, i))
			stop_task(s, i);
	s->phase = RSV_STOPPING;
	s->deadline_ms = rsv_now_ms() + RSV_STOP_WAIT_MS;
	if (all_stopped_done(s))
		s->phase = RSV_END;
}

static void fail_all(rsv_server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_all(rsv_server *s, const char *fmt, ...)
{
	va_list ap;
	char *why;

	va_start(ap, fmt);
	why = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	s->rc = 1;
	if (s->phase == RSV_FORMING) {
		fail_formation(s, why);
	} else {
		rsv_log(s, true, "%s: stopping every task", why);
		start_stopping(s, false);
	}
	g_free(why);
}

/* Every task but ps and evaluator done: grace, then STOP to those. */
static void check_progress(rsv_server *s)
{
	if (s->phase == RSV_STOPPING && all_stopped_done(s))
		s->phase = RSV_END;
	if (s->phase != RSV_FORMED)
		return;
	for (int i = 0; i < s->plan->num_executors; i++)
		if (!is_service(s, i) && !s->regs[i].done)
			return;
	rsv_log(s, false, "every worker is done; ps and evaluator stop in %lld s",
		(long long)s->o->grace_s);
	s->phase = RSV_GRACE;
	s->deadline_ms = rsv_now_ms() + s->o->grace_s * 1000;
}

static json_object *cluster_for(rsv_server *s, int id)
{
	json_object *d = json_object_new_object(), *task = json_object_new_object();
	int index;
	const char *job = job_of(s, id, &index);

	json_object_object_add(d, "cluster", json_object_get(s->cluster));
	json_object_object_add(task, "type", json_object_new_string(job));
	json_object_object_add(task, "index", json_object_new_int(index));
	json_object_object_add(d, "task", task);
	return d;
}

/* Everyone is here: the cluster, jobs in template order (ps, chief or
 * master, evaluator, worker), tasks in executor order. */
static void form(rsv_server *s)
{
	s->cluster = json_object_new_object();
	for (size_t j = 0; j < s->plan->njobs; j++) {
		const struct rsv_job *job = &s->plan->jobs[j];
		json_object *tasks = json_object_new_array();

		for (int i = job->first; i < job->first + job->count; i++) {
			char *address = address_of(&s->regs[i]);

			json_object_array_add(tasks, json_object_new_string(address));
			g_free(address);
		}
		json_object_object_add(s->cluster, job->name, tasks);
	}
	s->phase = RSV_FORMED;
	rsv_progress(NULL);
	if (s->o->shutdown_timeout_s > 0)
		s->shutdown_ms = rsv_now_ms() + s->o->shutdown_timeout_s * 1000;
	rsv_log(s, false, "cluster formed: %s",
		json_object_to_json_string_ext(s->cluster, JSON_C_TO_STRING_PLAIN));
	for (guint i = 0; i < s->conns->len; i++) {
		rsv_conn *c = g_ptr_array_index(s->conns, i);

		if (c->waiting) {
			c->waiting = false;
			rsv_send(s, c, "CLUSTER", cluster_for(s, c->executor));
		}
	}
}

static const char *get_string(json_object *data, const char *key)
{
	json_object *v = NULL;

	json_object_object_get_ex(data, key, &v);
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static bool get_int(json_object *data, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(data, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_int64(v);
	return *out >= lo && *out <= hi;
}

/* REG {executor_id, host, port, hostname, pid} -> OK | ERR. */
static void on_reg(rsv_server *s, rsv_conn *c, json_object *data)
{
	int64_t id, port, pid = 0;
	const char *host = get_string(data, "host"), *hostname = get_string(data, "hostname");
	rsv_reg *r;

	if (s->phase != RSV_FORMING)
		return rsv_send_err(s, c, "formed", "cluster formed; a lost task cannot rejoin");
	if (c->executor >= 0)
		return rsv_send_err(s, c, "registered",
				    "this connection already registered executor %d", c->executor);
	if (!get_int(data, "executor_id", 0, s->plan->num_executors - 1, &id))
		return rsv_send_err(s, c, "executor_id", "executor_id must be a number in 0..%d",
				    s->plan->num_executors - 1);
	if (!host_ok(host) || !get_int(data, "port", 1, 65535, &port))
		return rsv_send_err(s, c, "address",
				    "REG needs a host name or address and a "
				    "port 1..65535");
	get_int(data, "pid", 0, INT64_MAX, &pid);
	r = &s->regs[id];
	if (r->present && r->conn != NULL)
		return rsv_send_err(s, c, "duplicate",
				    "executor %lld is already registered by %s (pid %lld); "
				    "refused from %s (pid %lld)",
				    (long long)id, r->host, (long long)r->pid, host,
				    (long long)pid);
	if (r->present)
		rsv_log(s, true,
			"executor %lld registers again from %s (its first connection, "
			"from %s, was lost: a retried task)",
			(long long)id, host, r->host);
	else
		s->registered++;
	g_free(r->host);
	g_free(r->hostname);
	*r = (rsv_reg){ .present = true,
			.conn = c,
			.host = g_strdup(host),
			.hostname = g_strdup(hostname && host_ok(hostname) ? hostname : ""),
			.port = (int)port,
			.pid = pid,
			.exit_status = -1 };
	c->executor = (int)id;
	rsv_send(s, c, "OK", NULL);
	rsv_log(s, false, "executor %lld registered from %s:%lld (%d of %d)", (long long)id, host,
		(long long)port, s->registered, s->plan->num_executors);
	if (s->registered == s->plan->num_executors)
		form(s);
}

static void on_wait(rsv_server *s, rsv_conn *c)
{
	if (c->executor < 0)
		return rsv_send_err(s, c, "order", "WAIT before REG");
	if (s->phase == RSV_FORMING)
		c->waiting = true;
	else
		rsv_send(s, c, "CLUSTER", cluster_for(s, c->executor));
}

static void on_qinfo(rsv_server *s, rsv_conn *c)
{
	json_object *d = json_object_new_object(), *list = json_object_new_array();

	for (int i = 0; i < s->plan->num_executors; i++) {
		json_object *r;

		if (!s->regs[i].present)
			continue;
		r = json_object_new_object();
		json_object_object_add(r, "executor_id", json_object_new_int(i));
		json_object_object_add(r, "host", json_object_new_string(s->regs[i].host));
		json_object_object_add(r, "port", json_object_new_int(s->regs[i].port));
		json_object_object_add(r, "hostname", json_object_new_string(s->regs[i].hostname));
		json_object_array_add(list, r);
	}
	json_object_object_add(d, "registrations", list);
	rsv_send(s, c, "OK", d);
}

/* DONE {exit_status}: a task's program ended. */
static void on_done(rsv_server *s, rsv_conn *c, json_object *data)
{
	int64_t status;
	rsv_reg *r;

	if (c->executor < 0 || s->phase == RSV_FORMING)
		return rsv_send_err(s, c, "order", "DONE before the cluster formed");
	if (!get_int(data, "exit_status", 0, 255, &status))
		return rsv_send_err(s, c, "exit_status", "exit_status must be 0..255");
	r = &s->regs[c->executor];
	r->done = true;
	r->exit_status = (int)status;
	rsv_send(s, c, "OK", NULL);
	rsv_log(s, false, "executor %d exited with status %d", c->executor, r->exit_status);
	if (status != 0 && !r->stopped)
		fail_all(s, "executor %d exited with status %d", c->executor, r->exit_status);
	check_progress(s);
}

/* Printable ASCII only, at most 200 bytes: a reason goes into our log. */
static char *clean_text(const char *text)
{
	char *t = g_strndup(text ? text : "", 200);

	for (char *p = t; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	return t;
}

static void on_abort(rsv_server *s, rsv_conn *c, json_object *data)
{
	char *reason = clean_text(get_string(data, "reason"));

	rsv_send(s, c, "OK", NULL);
	if (c->executor >= 0)
		fail_all(s, "ABORT from executor %d (%s): %s", c->executor,
			 s->regs[c->executor].host, reason);
	else
		fail_all(s, "ABORT from %s: %s", c->peer, reason);
	g_free(reason);
}

void rsv_on_message(rsv_server *s, rsv_conn *c, json_object *msg)
{
	const char *type = get_string(msg, "type");
	json_object *data = NULL;

	json_object_object_get_ex(msg, "data", &data);
	if (type == NULL)
		type = "";
	if (strcmp(type, "REG") == 0) {
		on_reg(s, c, data);
	} else if (strcmp(type, "WAIT") == 0) {
		on_wait(s, c);
	} else if (strcmp(type, "QUERY") == 0) {
		json_object *d = json_object_new_object();

		json_object_object_add(d, "done", json_object_new_boolean(s->phase != RSV_FORMING));
		rsv_send(s, c, "OK", d);
	} else if (strcmp(type, "QINFO") == 0) {
		on_qinfo(s, c);
	} else if (strcmp(type, "DONE") == 0) {
		on_done(s, c, data);
	} else if (strcmp(type, "ABORT") == 0) {
		on_abort(s, c, data);
	} else if (strcmp(type, "STOP") == 0) {
		rsv_send(s, c, "OK", NULL);
		if (s->phase == RSV_FORMING)
			fail_all(s, "STOP from %s before the cluster formed", c->peer);
		else if (s->phase != RSV_STOPPING)
			start_stopping(s, false);
	} else {
		char *t = clean_text(type);

		rsv_send_err(s, c, "unknown", "unknown request '%s'", t);
		g_free(t);
	}
}

void rsv_on_close(rsv_server *s, rsv_conn *c)
{
	rsv_reg *r = c->executor >= 0 ? &s->regs[c->executor] : NULL;
	bool any = false;

	if (r == NULL || r->conn != c)
		return;
	r->conn = NULL;
	if (s->phase == RSV_FORMING)
		rsv_log(s, true,
			"executor %d's connection from %s closed before the cluster "
			"formed; a retried task may take its place",
			c->executor, r->host);
	else if (!r->done)
		rsv_log(s, false, "executor %d disconnected without DONE", c->executor);
	check_progress(s);
	for (int i = 0; i < s->plan->num_executors; i++)
		any = any || s->regs[i].conn != NULL;
	if (!any && s->phase == RSV_FORMED && !s->told_all_gone) {
		s->told_all_gone = true;
		rsv_log(s, true,
			"every task has disconnected without telling its exit status "
			"(not run under `exec --supervise`?); serving until "
			"--shutdown-timeout or a signal");
	}
}

void rsv_on_timers(rsv_server *s, int64_t now)
{
	if (s->phase == RSV_FORMING && s->o->progress_s > 0 && now >= s->progress_ms &&
	    now < s->start_ms + s->o->timeout_s * 1000) {
		char *line = progress_text(s);

		rsv_progress(line);
		g_free(line);
		s->progress_ms += s->o->progress_s * 1000;
	}
	if (s->phase == RSV_FORMING && now >= s->start_ms + s->o->timeout_s * 1000) {
		char why[64];

		snprintf(why, sizeof(why), "timed out after %lld s", (long long)s->o->timeout_s);
		fail_formation(s, why);
	} else if (s->phase == RSV_GRACE && now >= s->deadline_ms) {
		start_stopping(s, true);
	} else if (s->phase == RSV_STOPPING && now >= s->deadline_ms) {
		rsv_log(s, true, "a stopped task did not report its end within %d s",
			RSV_STOP_WAIT_MS / 1000);
		s->rc = 1;
		s->phase = RSV_END;
	} else if ((s->phase == RSV_FORMED || s->phase == RSV_GRACE) && s->shutdown_ms > 0 &&
		   now >= s->shutdown_ms) {
		fail_all(s, "--shutdown-timeout of %lld s reached",
			 (long long)s->o->shutdown_timeout_s);
	}
}

int64_t rsv_next_deadline(const rsv_server *s)
{
	switch (s->phase) {
	case RSV_FORMING:
		return s->o->progress_s > 0 && s->progress_ms < s->start_ms + s->o->timeout_s * 1000
			       ? s->progress_ms
			       : s->start_ms + s->o->timeout_s * 1000;
	case RSV_GRACE:
	case RSV_STOPPING:
		return s->deadline_ms;
	case RSV_FORMED:
		return s->shutdown_ms > 0 ? s->shutdown_ms : -1;
	default:
		return -1;
	}
}

void rsv_on_signal(rsv_server *s, int sig)
{
	if (s->phase == RSV_STOPPING) {
		rsv_log(s, true, "%s again: not waiting for the stopped tasks", strsignal(sig));
		s->rc = 1;
		s->phase = RSV_END;
		return;
	}
	fail_all(s, "%s", strsignal(sig));
}

static json_object *summary_entry(const rsv_server *s, int id)
{
	const rsv_reg *r = &s->regs[id];
	json_object *e = json_object_new_object();
	int index;
	const char *job = job_of(s, id, &index);

	json_object_object_add(e, "executor_id", json_object_new_int(id));
	json_object_object_add(e, "host", json_object_new_string(r->host));
	json_object_object_add(e, "port", json_object_new_int(r->port));
	json_object_object_add(e, "type", json_object_new_string(job));
	json_object_object_add(e, "index", json_object_new_int(index));
	json_object_object_add(e, "exit_status",
			       r->done ? json_object_new_int(r->exit_status) : NULL);
	json_object_object_add(e, "stopped_by_server", json_object_new_boolean(r->stopped));
	return e;
}

/* --summary FILE: each registered executor, written whole (rename). */
bool rsv_write_summary(const rsv_server *s)
{
	json_object *list = json_object_new_array();
	char *tmp = g_strdup_printf("%s.tmp", s->o->summary);
	GError *error = NULL;
	bool ok;

	for (int i = 0; i < s->plan->num_executors; i++)
		if (s->regs[i].present)
			json_object_array_add(list, summary_entry(s, i));
	ok = g_file_set_contents(tmp,
				 json_object_to_json_string_ext(
					 list, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED),
				 -1, &error) &&
	     rename(tmp, s->o->summary) == 0;
	if (!ok)
		rsv_log(s, true, "--summary %s: %s", s->o->summary,
			error ? error->message : g_strerror(errno));
	g_clear_error(&error);
	g_free(tmp);
	json_object_put(list);
	return ok;
}
