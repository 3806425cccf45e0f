/* SPDX-License-Identifier: MIT */
/*
 * simple-hosts.c - simple.so's hosts_file = "/etc/cluster/hosts": a file
 * another tool maintains, one "job address" a line ("#" comments, blank
 * lines), read on every resolve. The watch op (ABI 1.2) waits with inotify
 * on the file's directory, so an atomic replace by rename is seen as well
 * as a write in place; a change is reported once the file's bytes differ
 * from what the last resolve read. Without hosts_file the cluster never
 * changes: watch waits for its deadline (or the host's cancel).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cluster-resolver/plugin.h>

#include "simple.h"

/* hosts_file: a relative path is taken from the configuration file's
 * directory, so a config and its hosts file can travel together. */
cr_status simple_hosts_path(simple_state *s, const cr_cfg *v, cr_error *err)
{
	const char *path = cr_host->cfg_string(v);
	const char *file = cr_host->cfg_file(v);
	const char *slash = file != NULL ? strrchr(file, '/') : NULL;
	size_t n;

	if (path == NULL || path[0] == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: hosts_file is empty", AT(v));
	if (path[0] == '/' || slash == NULL) {
		s->hosts_file = strdup(path);
	} else {
		n = (size_t)(slash - file) + 1 + strlen(path) + 1;
		s->hosts_file = malloc(n);
		if (s->hosts_file != NULL)
			snprintf(s->hosts_file, n, "%.*s/%s", (int)(slash - file), file, path);
	}
	if (s->hosts_file == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	return CR_OK;
}

/* One line of a hosts file: "job address", blanks around and between;
 * "#" starts a comment. *@job and *@addr point into @line (cut with NULs);
 * both NULL for a line with nothing on it. false: not two words. */
static bool simple_hosts_line(char *line, char **job, char **addr)
{
	char *hash = strchr(line, '#'), *p = line, *extra;

	*job = *addr = NULL;
	if (hash != NULL)
		*hash = '\0';
	p += strspn(p, " \t\r");
	if (*p == '\0')
		return true;
	*job = p;
	p += strcspn(p, " \t\r");
	if (*p == '\0')
		return false;
	*p++ = '\0';
	p += strspn(p, " \t\r");
	if (*p == '\0')
		return false;
	*addr = p;
	p += strcspn(p, " \t\r");
	extra = p + strspn(p, " \t\r");
	*p = '\0';
	return *extra == '\0';
}

/* Read the hosts file and add its tasks, each job dense in line order.
 * The bytes read are kept for watch, which compares against them. */
cr_status simple_hosts_resolve(simple_state *s, cr_plugin_ctx *ctx, cr_result_builder *b,
			       cr_error *err)
{
	char *data = NULL, *line, *next;
	size_t len = 0;
	int lineno = 0;
	cr_error sub = CR_ERROR_INIT;
	cr_status st = cr_host->read_file(ctx, s->hosts_file, 0, &data, &len, &sub);

	if (st != CR_OK)
		cr_host->error_set(err, st, "hosts_file: %s", sub.message);
	free(s->hosts_seen);
	s->hosts_seen = NULL;
	s->hosts_seen_len = 0;
	s->hosts_missing = st == CR_ERR_NOT_FOUND;
	if (st != CR_OK)
		return st;
	s->hosts_seen = malloc(len + 1);
	if (s->hosts_seen == NULL) {
		cr_host->free(data);
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	}
	memcpy(s->hosts_seen, data, len + 1);
	s->hosts_seen_len = len;
	if (memchr(data, '\0', len) != NULL)
		st = cr_host->error_set(err, CR_ERR_PARSE, "hosts_file %s: has a NUL byte",
					s->hosts_file);
	for (line = data; st == CR_OK && line != NULL && *line != '\0'; line = next) {
		char *job, *addr;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		lineno++;
		if (!simple_hosts_line(line, &job, &addr))
			st = cr_host->error_set(err, CR_ERR_PARSE,
						"%s:%d: expected \"JOB ADDRESS\" (one task a line)",
						s->hosts_file, lineno);
		else if (job != NULL && cr_host->result_append_task(b, job, addr, &sub) != CR_OK)
			st = cr_host->error_set(err, sub.code, "%s:%d: %s", s->hosts_file, lineno,
						sub.message);
	}
	cr_host->free(data);
	return st;
}

/* Wait on @fd (or only the cancel descriptor when @fd < 0) until it is
 * readable, the watch is cancelled or @deadline_ms passes (or @quiet_ms
 * from now, when >= 0). 1: @fd readable; 0: time; -1: cancelled. */
static int simple_wait(cr_plugin_ctx *ctx, int fd, int64_t deadline_ms, int64_t quiet_ms)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = cr_host->watch_cancel_fd(ctx), .events = POLLIN },
				       { .fd = fd, .events = POLLIN } };
		int64_t now = cr_host->now_ms(ctx);
		int64_t until = deadline_ms;
		int n;

		if (cr_host->watch_cancelled(ctx))
			return -1;
		if (quiet_ms >= 0 && now + quiet_ms < until)
			until = now + quiet_ms;
		if (now >= until)
			return 0;
		/* Wake at least every 100 ms, so a host that can only flag a
		 * cancel (no descriptor) is still heard promptly. */
		n = poll(p, 2, (int)(until - now > 100 ? 100 : until - now));
		if (n < 0 && errno != EINTR)
			return 0;
		if (n > 0 && (p[0].revents & POLLIN))
			return -1;
		if (n > 0 && (p[1].revents & (POLLIN | POLLERR | POLLHUP)))
			return 1;
		if (quiet_ms >= 0 && cr_host->now_ms(ctx) >= until)
			return 0;
	}
}

/* Whether the hosts file now differs from what the last resolve read. */
static bool simple_hosts_changed(simple_state *s, cr_plugin_ctx *ctx)
{
	char *data = NULL;
	size_t len = 0;
	cr_status st = cr_host->read_file(ctx, s->hosts_file, 0, &data, &len, NULL);
	bool changed;

	if (st == CR_ERR_NOT_FOUND)
		changed = !s->hosts_missing;
	else if (st != CR_OK || s->hosts_seen == NULL)
		changed = true; /* let resolve say what is wrong */
	else
		changed = len != s->hosts_seen_len || memcmp(data, s->hosts_seen, len) != 0;
	cr_host->free(data);
	return changed;
}

/* Drain the inotify queue (its events only wake us: the bytes decide).
 * *@writing: whether the file itself is being written in place now (its
 * last event a write, not yet closed), so that reading it should wait. */
static void simple_drain(int fd, const char *base, bool *writing)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->len > 0 && strcmp(ev->name, base) == 0)
				*writing = (ev->mask & IN_MODIFY) != 0;
			p += sizeof(*ev) + ev->len;
		}
}

/* The time a writer in place gets to finish before the file is read: its
 * writes come as several events; a rename comes whole and is read at once. */
#define SIMPLE_QUIET_MS 20

cr_status simple_watch(void *state, cr_plugin_ctx *ctx, int64_t deadline_ms, bool *changed,
		       cr_error *err)
{
	simple_state *s = state;
	char *dir;
	const char *slash, *base;
	int fd, wd, r;

	*changed = false;
	if (s->hosts_file == NULL) {
		/* A cluster written in the configuration never changes. */
		simple_wait(ctx, -1, deadline_ms, -1);
		return CR_OK;
	}
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0)
		return cr_host->error_set(err, CR_ERR_IO, "hosts_file %s: inotify: %s",
					  s->hosts_file, strerror(errno));
	/* The directory, not the file: a replace by rename gives the name a
	 * new inode, which a watch on the old one would never see. */
	slash = strrchr(s->hosts_file, '/');
	dir = slash == NULL            ? strdup(".")
	      : slash == s->hosts_file ? strdup("/")
				       : strndup(s->hosts_file, (size_t)(slash - s->hosts_file));
	wd = dir != NULL ? inotify_add_watch(fd, dir,
					     IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO |
						     IN_MOVED_FROM | IN_CREATE | IN_DELETE |
						     IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
			 : -1;
	if (wd < 0) {
		cr_status st =
			cr_host->error_set(err, CR_ERR_IO, "hosts_file %s: cannot watch %s: %s",
					   s->hosts_file, dir != NULL ? dir : "its directory",
					   dir != NULL ? strerror(errno) : "out of memory");

		free(dir);
		close(fd);
		return st;
	}
	free(dir);
	base = slash != NULL ? slash + 1 : s->hosts_file;
	/* What changed between the last resolve and the watch set up now. */
	if (simple_hosts_changed(s, ctx)) {
		*changed = true;
		close(fd);
		return CR_OK;
	}
	while ((r = simple_wait(ctx, fd, deadline_ms, -1)) == 1) {
		bool writing = false;

		/* A writer in place: read once it closed the file or its
		 * events stopped for SIMPLE_QUIET_MS (or at the deadline). */
		simple_drain(fd, base, &writing);
		while (writing && simple_wait(ctx, fd, deadline_ms, SIMPLE_QUIET_MS) == 1)
			simple_drain(fd, base, &writing);
		if (cr_host->watch_cancelled(ctx))
			break;
		if (simple_hosts_changed(s, ctx)) {
			*changed = true;
			break;
		}
	}
	close(fd);
	return CR_OK;
}
