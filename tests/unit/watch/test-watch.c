/* SPDX-License-Identifier: MIT */
/*
 * test-watch.c - cr_context_watch through the public API: generation 1 at
 * once; no new generation for a rewrite of the same cluster, a new one for
 * a changed cluster; identity that follows the member and is dropped when
 * it leaves; timeout and cancel (from another thread, and before the call)
 * with no result; a polled resolver resolved again at its interval; each
 * call of a watch op given 90 to 100% of its interval, drawn anew each
 * call; static sources and the `watch_interval` key's refusals; a change
 * that a watch op answers just as its round ends (a timeout) is resolved at
 * the next call, though the op has already taken it as seen.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include <cluster-resolver/cluster-resolver.h>

static char *dir;

static char *hosts_path(const char *name)
{
	return g_build_filename(dir, name, NULL);
}

/* Write @text to @path through a rename, as a tool replacing a file does,
 * then make sure its time differs from the last write's. */
static void write_hosts(const char *path, const char *text)
{
	char *tmp = g_strconcat(path, ".new", NULL);

	g_usleep(20 * 1000);
	g_assert_true(g_file_set_contents(tmp, text, -1, NULL));
	g_assert_cmpint(rename(tmp, path), ==, 0);
	g_free(tmp);
}

static cr_context *context_for(const char *config)
{
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = cr_context_new(&err);

	g_assert_nonnull(ctx);
	g_assert_cmpint(cr_context_add_plugin_dir(ctx, g_getenv("CR_TEST_PLUGIN_DIR"), &err), ==,
			CR_OK);
	if (cr_context_load_config_string(ctx, config, "test.conf", &err) != CR_OK)
		g_error("config: %s", err.message);
	return ctx;
}

static char *watchy_config(const char *plugin, const char *path)
{
	return g_strdup_printf("resolvers = ( { plugin = \"%s\"; file = \"%s\"; } );\n"
			       "accelerators = ();\n",
			       plugin, path);
}

static char *cluster_of(const cr_result *res)
{
	char *text = NULL;
	cr_error err = CR_ERROR_INIT;

	g_assert_cmpint(cr_result_format(res, "tf_config", NULL, &text, NULL, &err), ==, CR_OK);
	g_strchomp(text);
	return text;
}

static void expect(cr_context *ctx, int64_t timeout_ms, uint64_t want_gen, const char *want)
{
	cr_result *res = NULL;
	uint64_t gen = 99;
	cr_error err = CR_ERROR_INIT;
	cr_status st = cr_context_watch(ctx, timeout_ms, &res, &gen, &err);

	g_assert_cmpstr(err.message, ==, "");
	g_assert_cmpint(st, ==, CR_OK);
	if (want == NULL) {
		g_assert_null(res);
		g_assert_cmpuint(gen, ==, 0);
		return;
	}
	g_assert_nonnull(res);
	g_assert_cmpuint(gen, ==, want_gen);
	char *got = cluster_of(res);

	g_assert_cmpstr(got, ==, want);
	g_free(got);
	cr_result_free(res);
}

static void test_generations(void)
{
	char *path = hosts_path("gen.hosts");
	char *conf = watchy_config("watchy", path);
	cr_context *ctx;

	write_hosts(path, "worker a:1\nworker b:1\n");
	ctx = context_for(conf);
	expect(ctx, -1, 1, "{\"cluster\": {\"worker\": [\"a:1\", \"b:1\"]}}");
	/* Nothing happens: the deadline passes with no result. */
	expect(ctx, 150, 0, NULL);
	/* The same cluster written again: the resolver wakes, no generation. */
	write_hosts(path, "worker a:1\nworker b:1\n");
	expect(ctx, 300, 0, NULL);
	/* A change is generation 2, and the next one 3. */
	write_hosts(path, "worker a:1\nworker b:1\nworker c:1\n");
	expect(ctx, -1, 2, "{\"cluster\": {\"worker\": [\"a:1\", \"b:1\", \"c:1\"]}}");
	write_hosts(path, "chief c:1\nworker a:1\n");
	expect(ctx, -1, 3, "{\"cluster\": {\"chief\": [\"c:1\"], \"worker\": [\"a:1\"]}}");
	cr_context_free(ctx);
	g_free(conf);
	g_free(path);
}

static void test_member(void)
{
	char *path = hosts_path("member.hosts");
	char *conf = watchy_config("watchy", path);
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx;

	write_hosts(path, "worker a:1\nworker b:1\nworker c:1\n");
	ctx = context_for(conf);
	g_assert_cmpint(cr_context_set_task(ctx, "worker", 1, &err), ==, CR_OK);
	expect(ctx, -1, 1,
	       "{\"cluster\": {\"worker\": [\"a:1\", \"b:1\", \"c:1\"]}, \"task\": {\"type\": "
	       "\"worker\", \"index\": 1}}");
	/* a:1 leaves: this process (b:1) is worker 0 now. */
	write_hosts(path, "worker b:1\nworker c:1\n");
	expect(ctx, -1, 2,
	       "{\"cluster\": {\"worker\": [\"b:1\", \"c:1\"]}, \"task\": {\"type\": \"worker\", "
	       "\"index\": 0}}");
	/* Two join before it: worker 2. */
	write_hosts(path, "worker d:1\nworker e:1\nworker b:1\nworker c:1\n");
	expect(ctx, -1, 3,
	       "{\"cluster\": {\"worker\": [\"d:1\", \"e:1\", \"b:1\", \"c:1\"]}, \"task\": "
	       "{\"type\": \"worker\", \"index\": 2}}");
	/* It leaves: no task. */
	write_hosts(path, "worker d:1\nworker c:1\n");
	expect(ctx, -1, 4, "{\"cluster\": {\"worker\": [\"d:1\", \"c:1\"]}}");
	cr_context_free(ctx);
	g_free(conf);
	g_free(path);
}

static gpointer cancel_later(gpointer ctx)
{
	g_usleep(100 * 1000);
	cr_context_watch_cancel(ctx);
	return NULL;
}

static void test_cancel(void)
{
	char *path = hosts_path("cancel.hosts");
	char *conf = watchy_config("watchy", path);
	cr_context *ctx;
	GThread *t;

	write_hosts(path, "worker a:1\n");
	ctx = context_for(conf);
	expect(ctx, -1, 1, "{\"cluster\": {\"worker\": [\"a:1\"]}}");
	/* From another thread, while the watch op runs: no result. */
	t = g_thread_new("cancel", cancel_later, ctx);
	expect(ctx, -1, 0, NULL);
	g_thread_join(t);
	/* Before the call: the next watch returns at once, and only that one. */
	cr_context_watch_cancel(ctx);
	expect(ctx, -1, 0, NULL);
	expect(ctx, 50, 0, NULL);
	cr_context_free(ctx);
	g_free(conf);
	g_free(path);
}

static void test_kept_change(void)
{
	char *path = hosts_path("late.hosts");
	char *conf = g_strdup_printf("resolvers = ( { plugin = \"watchy\"; file = \"%s\"; "
				     "late = true; } );\naccelerators = ();\n",
				     path);
	cr_context *ctx;

	write_hosts(path, "worker a:1\n");
	ctx = context_for(conf);
	expect(ctx, -1, 1, "{\"cluster\": {\"worker\": [\"a:1\"]}}");
	write_hosts(path, "worker a:1\nworker b:1\n");
	/* The round ends (1 ms) while the op waits on its first 10 ms poll:
	 * stopped, it sees the change, answers it and takes it as seen. */
	expect(ctx, 1, 0, NULL);
	/* Kept: the next call resolves at once; asking the op again would
	 * wait the whole 20 s for a change it no longer reports. */
	expect(ctx, 20000, 2, "{\"cluster\": {\"worker\": [\"a:1\", \"b:1\"]}}");
	cr_context_free(ctx);
	g_free(conf);
	g_free(path);
}

static void test_polled(void)
{
	char *path = hosts_path("polled.hosts");
	char *conf = watchy_config("polly", path);
	cr_context *ctx;

	write_hosts(path, "worker a:1\n");
	ctx = context_for(conf);
	expect(ctx, -1, 1, "{\"cluster\": {\"worker\": [\"a:1\"]}}");
	write_hosts(path, "worker a:1\nworker b:1\n");
	/* No watch op: seen at its next poll (5 s, +-10%). */
	expect(ctx, 30000, 2, "{\"cluster\": {\"worker\": [\"a:1\", \"b:1\"]}}");
	cr_context_free(ctx);
	g_free(conf);
	g_free(path);
}

/* A resolution that fails is the caller's error; the resolver is tried
 * again after a backoff of about a second, not its 5 s interval. */
static void test_failure(void)
{
	char *path = hosts_path("failure.hosts");
	char *conf = watchy_config("watchy", path);
	cr_error err = CR_ERROR_INIT;
	cr_result *res = NULL;
	uint64_t gen = 0;
	cr_context *ctx;

	write_hosts(path, "worker a:1\n");
	ctx = context_for(conf);
	expect(ctx, -1, 1, "{\"cluster\": {\"worker\": [\"a:1\"]}}");
	g_assert_cmpint(unlink(path), ==, 0);
	g_assert_cmpint(cr_context_watch(ctx, -1, &res, &gen, &err), ==, CR_ERR_NOT_FOUND);
	g_assert_null(res);
	write_hosts(path, "worker a:1\nworker b:1\n");
	expect(ctx, 3500, 2, "{\"cluster\": {\"worker\": [\"a:1\", \"b:1\"]}}");
	cr_context_free(ctx);
	g_free(conf);
	g_free(path);
}

/* The lines of @path so far (0 when it is not there yet). */
static guint count_lines(const char *path)
{
	char *text = NULL;
	guint n = 0;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		return 0;
	for (const char *p = text; *p != '\0'; p++)
		n += *p == '\n';
	g_free(text);
	return n;
}

#define JITTER_CALLS 200

static gpointer cancel_when_recorded(gpointer data)
{
	void **args = data;

	for (int i = 0; i < 3000 && count_lines(args[1]) < JITTER_CALLS + 1; i++)
		g_usleep(10 * 1000);
	cr_context_watch_cancel(args[0]);
	return NULL;
}

/* watchy's interval is 5 s: each call of its watch op must be given a
 * deadline 4.5 to 5 s ahead (less the moment its thread took to start),
 * a value drawn anew each call, so that processes started together do not
 * renew their watches together. The first JITTER_CALLS calls answer at once
 * (the host calls again), the next waits for the cancel. */
static void test_call_jitter(void)
{
	char *path = hosts_path("jitter.hosts");
	char *record = hosts_path("jitter.calls");
	char *conf = g_strdup_printf("resolvers = ( { plugin = \"watchy\"; file = \"%s\"; "
				     "record = \"%s\"; quick = %d; } );\naccelerators = ();\n",
				     path, record, JITTER_CALLS);
	char *text = NULL;
	char **lines;
	gint64 lo = G_MAXINT64, hi = G_MININT64;
	guint n = 0, low_half = 0;
	void *args[2];
	cr_context *ctx;
	GThread *t;

	write_hosts(path, "worker a:1\n");
	ctx = context_for(conf);
	expect(ctx, -1, 1, "{\"cluster\": {\"worker\": [\"a:1\"]}}");
	args[0] = ctx;
	args[1] = record;
	t = g_thread_new("cancel", cancel_when_recorded, args);
	expect(ctx, -1, 0, NULL);
	g_thread_join(t);
	g_assert_true(g_file_get_contents(record, &text, NULL, NULL));
	lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++, n++) {
		gint64 ms = g_ascii_strtoll(lines[i], NULL, 10);

		if (ms < 4300 || ms > 5000)
			g_error("call %u: given %" G_GINT64_FORMAT
				" ms; want 4500..5000 (less a thread's start)",
				i + 1, ms);
		lo = MIN(lo, ms);
		hi = MAX(hi, ms);
		low_half += ms < 4750;
	}
	g_assert_cmpuint(n, >=, JITTER_CALLS + 1);
	/* Not one value for all: spread over the range (each half of it hit;
	 * a chance of 2^-200 each to miss with a uniform draw). */
	g_assert_cmpint(lo, <, hi);
	g_assert_cmpuint(low_half, >, 0);
	g_assert_cmpuint(low_half, <, n);
	g_strfreev(lines);
	g_free(text);
	cr_context_free(ctx);
	g_free(conf);
	g_free(record);
	g_free(path);
}

static void test_static(void)
{
	cr_context *ctx;

	ctx = context_for("resolvers = ( { plugin = \"tfconfig\"; } ); accelerators = ();\n");
	expect(ctx, -1, 1, "{\"cluster\": {\"worker\": [\"w0:2222\"]}}");
	/* Nothing is watched or polled: only the deadline ends the wait. */
	expect(ctx, 200, 0, NULL);
	cr_context_free(ctx);
}

static void check_refused(const char *config, const char *want)
{
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = cr_context_new(&err);
	cr_result *res = NULL;

	g_assert_cmpint(cr_context_add_plugin_dir(ctx, g_getenv("CR_TEST_PLUGIN_DIR"), &err), ==,
			CR_OK);
	g_assert_cmpint(cr_context_load_config_string(ctx, config, "test.conf", &err), ==,
			CR_ERR_CONFIG);
	g_assert_cmpstr(err.message, ==, want);
	g_assert_null(res);
	cr_context_free(ctx);
}

static void test_interval_key(void)
{
	check_refused("resolvers = ( { plugin = \"tfconfig\";\n  watch_interval = 10; } );\n",
		      "test.conf:2: resolver 'tfconfig': watch_interval: its membership cannot "
		      "change during a run, so it is never polled");
	check_refused("resolvers = ( { plugin = \"gce\"; watch_interval = 5; } );\n",
		      "test.conf:1: resolver 'gce': watch_interval must be between 10 and 86400 "
		      "seconds, not 5");
	check_refused("resolvers = ( { plugin = \"polly\"; file = \"x\"; watch_interval = 86401; "
		      "} );\n",
		      "test.conf:1: resolver 'polly': watch_interval must be between 5 and 86400 "
		      "seconds, not 86401");
	check_refused("resolvers = ( { plugin = \"polly\"; file = \"x\"; watch_interval = \"1m\"; "
		      "} );\n",
		      "test.conf:1: resolver 'polly': watch_interval must be an integer (seconds)");
	check_refused(
		"resolvers = ();\naccelerators = ( { plugin = \"tfdevices\"; "
		"file = \"x\"; watch_interval = 30; } );\n",
		"test.conf:2: accelerator 'tfdevices': watch_interval is a resolver's key (an "
		"accelerator is not watched)");
}

int main(int argc, char **argv)
{
	int rc;

	/* Before any thread: the static case's source. */
	g_setenv("TF_CONFIG", "{\"cluster\": {\"worker\": [\"w0:2222\"]}}", TRUE);
	g_test_init(&argc, &argv, NULL);
	dir = g_dir_make_tmp("cr-watch-XXXXXX", NULL);
	g_test_add_func("/watch/generations", test_generations);
	g_test_add_func("/watch/member", test_member);
	g_test_add_func("/watch/cancel", test_cancel);
	g_test_add_func("/watch/kept-change", test_kept_change);
	g_test_add_func("/watch/polled", test_polled);
	g_test_add_func("/watch/failure", test_failure);
	g_test_add_func("/watch/call-jitter", test_call_jitter);
	g_test_add_func("/watch/static", test_static);
	g_test_add_func("/watch/interval-key", test_interval_key);
	rc = g_test_run();
	g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);

	if (system(cmd) != 0)
		rc = 1;
	g_free(dir);
	return rc;
}
