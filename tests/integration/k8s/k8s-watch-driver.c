/* SPDX-License-Identifier: MIT */
/*
 * k8s-watch-driver.c - cr_context_watch() from the public API, for the k8s
 * watch tests and bench/watch.sh (until the CLI's `watch` command):
 *
 *   k8s-watch-driver CONFIG COUNT TIMEOUT_MS [--times FILE] [--cancel-after MS]
 *
 * prints each generation as "generation N: JOB=ADDR,ADDR JOB=..." (one line,
 * flushed) until COUNT of them or a watch with no new generation within
 * TIMEOUT_MS ("no change within TIMEOUT_MS ms"); --times appends
 * "N SECONDS" (wall clock) for each generation as soon as it is returned;
 * --cancel-after calls cr_context_watch_cancel() from another thread MS
 * after the first generation and prints "cancelled within 100 ms" when the
 * watch returned in time (else how long it took); --notice appends the
 * wall-clock time of each "membership changed" the plugin logs (bench:
 * when the watch noticed, before the host lists again). A failure prints
 * its message on stderr and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include <cluster-resolver/cluster-resolver.h>

static int64_t cancel_after_ms = -1;
static FILE *notice;
static gint64 cancelled_at; /* monotonic us */

static gpointer canceller(gpointer data)
{
	g_usleep((gulong)cancel_after_ms * 1000);
	cancelled_at = g_get_monotonic_time();
	cr_context_watch_cancel(data);
	return NULL;
}

/* --notice: the time of each change the plugin noticed; warnings and
 * errors as the default handler writes them. */
static void on_log(cr_log_level level, const char *source, const char *message, void *data)
{
	(void)data;
	if (strstr(message, "membership changed") != NULL) {
		fprintf(notice, "%.6f\n", (double)g_get_real_time() / 1e6);
		fflush(notice);
	}
	if (level <= CR_LOG_WARNING)
		fprintf(stderr, "cluster-resolver: %s: %s%s%s\n",
			level == CR_LOG_ERROR ? "error" : "warning", source ? source : "",
			source ? ": " : "", message);
}

/* The result as the JSON format writes it, after "generation N: ". */
static void print_cluster(const cr_result *res, uint64_t gen)
{
	char *text = NULL;
	size_t len = 0;
	cr_error err = CR_ERROR_INIT;

	if (cr_result_format(res, "json", NULL, &text, &len, &err) != CR_OK) {
		printf("generation %llu: (format failed: %s)\n", (unsigned long long)gen,
		       err.message);
		return;
	}
	printf("generation %llu: %s", (unsigned long long)gen, text);
	if (len == 0 || text[len - 1] != '\n')
		putchar('\n');
	cr_free(text);
}

int main(int argc, char **argv)
{
	cr_error err = CR_ERROR_INIT;
	const char *times = NULL;
	cr_context *ctx;
	GThread *thread = NULL;
	long count;
	int64_t timeout_ms;
	int rc = 0;

	if (argc < 4) {
		fprintf(stderr,
			"usage: %s CONFIG COUNT TIMEOUT_MS [--times FILE] "
			"[--cancel-after MS]\n",
			argv[0]);
		return 2;
	}
	count = strtol(argv[2], NULL, 10);
	timeout_ms = strtoll(argv[3], NULL, 10);
	for (int i = 4; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--times") == 0)
			times = argv[i + 1];
		else if (strcmp(argv[i], "--cancel-after") == 0)
			cancel_after_ms = strtoll(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--notice") == 0)
			notice = fopen(argv[i + 1], "a");
	}
	ctx = cr_context_new(&err);
	if (ctx == NULL || cr_context_load_config(ctx, argv[1], &err) != CR_OK) {
		fprintf(stderr, "%s\n", err.message);
		cr_context_free(ctx);
		return 1;
	}
	if (notice != NULL) {
		cr_context_set_log_handler(ctx, on_log, NULL);
		cr_context_set_log_level(ctx, CR_LOG_DEBUG);
	}
	for (long n = 0; n < count; n++) {
		cr_result *res = NULL;
		uint64_t gen = 0;
		cr_status st = cr_context_watch(ctx, timeout_ms, &res, &gen, &err);

		if (st != CR_OK) {
			fprintf(stderr, "%s\n", err.message);
			rc = 1;
			break;
		}
		if (res == NULL) {
			if (thread != NULL) {
				gint64 took = (g_get_monotonic_time() - cancelled_at) / 1000;

				if (took <= 100)
					printf("cancelled within 100 ms\n");
				else
					printf("cancelled after %lld ms\n", (long long)took);
			} else {
				printf("no change within %lld ms\n", (long long)timeout_ms);
			}
			break;
		}
		if (times != NULL) {
			FILE *f = fopen(times, "a");

			if (f != NULL) {
				fprintf(f, "%llu %.6f\n", (unsigned long long)gen,
					(double)g_get_real_time() / 1e6);
				fclose(f);
			}
		}
		print_cluster(res, gen);
		fflush(stdout);
		cr_result_free(res);
		if (n == 0 && cancel_after_ms >= 0)
			thread = g_thread_new("cancel", canceller, ctx);
	}
	if (thread != NULL)
		g_thread_join(thread);
	cr_context_free(ctx);
	if (notice != NULL)
		fclose(notice);
	return rc;
}
