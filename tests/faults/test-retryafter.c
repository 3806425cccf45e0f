/* SPDX-License-Identifier: MIT */
/*
 * test-retryafter.c - plugins/common/httpanswer: Retry-After in both forms
 * (delta-seconds and the three HTTP-date forms of RFC 9110), saturating,
 * and what is not a Retry-After.
 */
#include <stdint.h>

#include <glib.h>

#include "httpanswer.h"

/* 1994-11-06 08:49:37 UTC, RFC 9110's example date. */
#define EXAMPLE_MS INT64_C(784111777000)

typedef struct ra_case {
	const char *value;
	int64_t now_ms;
	bool ok;
	int64_t want_ms;
} ra_case;

/* clang-format off */
static const ra_case cases[] = {
	{ "0", 0, true, 0 },
	{ "120", 0, true, 120000 },
	{ "9223372036854775807", 0, true, INT64_MAX },
	{ "99999999999999999999999", 0, true, INT64_MAX },
	{ "Sun, 06 Nov 1994 08:49:37 GMT", EXAMPLE_MS - 5000, true, 5000 },
	{ "Sunday, 06-Nov-94 08:49:37 GMT", EXAMPLE_MS - 5000, true, 5000 },
	{ "Sun Nov  6 08:49:37 1994", EXAMPLE_MS - 5000, true, 5000 },
	{ "Sun, 06 Nov 1994 08:49:37 GMT", EXAMPLE_MS + 5000, true, 0 },
	{ "Sun, 06 Nov 1994 08:49:37 PST", 0, false, -1 },
	{ "Sun, 06 Foo 1994 08:49:37 GMT", 0, false, -1 },
	{ "Sun, 31 Feb 1994 08:49:37 GMT", 0, false, -1 },
	{ "Sun, 06 Nov 1994 08:49:37 GMT trailing", 0, false, -1 },
	{ "-5", 0, false, -1 },
	{ "1.5", 0, false, -1 },
	{ " 5", 0, false, -1 },
	{ "", 0, false, -1 },
};
/* clang-format on */

static void test_case(gconstpointer data)
{
	const ra_case *c = data;
	int64_t ms = -1;

	g_assert_cmpint(retry_after_ms(c->value, c->now_ms, &ms), ==, c->ok);
	g_assert_cmpint(ms, ==, c->want_ms);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *name = g_strdup_printf("/retryafter/%zu", i);

		g_test_add_data_func(name, &cases[i], test_case);
		g_free(name);
	}
	return g_test_run();
}
