/* SPDX-License-Identifier: MIT */
/*
 * test-spec-address.c - what a task's address may not be (spec-address.c):
 * each refused by both ways into a ClusterSpec, with one message naming
 * the job and the escaped address, and nothing added.
 */
#include <glib.h>

#include "pipeline/pipeline-private.h"

typedef struct address_case {
	const char *address;
	const char *message; /* after "job 'w': " */
} address_case;

/* clang-format off */
static const address_case address_refused[] = {
	{ "evil\nother slots=999:1", "address \"evil\\nother slots=999:1\" has a character that is not in a host name" },
	{ "a b:1", "address \"a b:1\" has a character that is not in a host name" },
	{ "h\t:1", "address \"h\\t:1\" has a character that is not in a host name" },
	{ "h$(id):1", "address \"h$(id):1\" has a character that is not in a host name" },
	{ "h\xc3\xa9:1", "address \"h\\303\\251:1\" has a character that is not in a host name" },
	{ "", "address \"\" has no host" },
	{ ":2", "address \":2\" has no host" },
	{ "[]:1", "address \"[]:1\" has an empty or unclosed [IPv6] host" },
	{ "[::1", "address \"[::1\" has an empty or unclosed [IPv6] host" },
	{ "[::1]x", "address \"[::1]x\" has text after its [IPv6] host" },
	{ "[::g]:1", "address \"[::g]:1\" has a character that is not in an IPv6 address" },
	{ "::1:2222", "address \"::1:2222\" has no host" },
	{ "fe80::1:2222", "address \"fe80::1:2222\" has a port outside 1..65535" },
	{ "node1:99999", "address \"node1:99999\" has a port outside 1..65535" },
	{ "node1:0", "address \"node1:0\" has a port outside 1..65535" },
	{ "node1:", "address \"node1:\" has a port outside 1..65535" },
	{ "node1:-5", "address \"node1:-5\" has a port outside 1..65535" },
	{ "node1:12a", "address \"node1:12a\" has a port outside 1..65535" },
	{ "node1:99999999999999999999", "address \"node1:99999999999999999999\" has a port outside 1..65535" },
	{ NULL, NULL },
};
/* clang-format on */

/* Refused by both ways in, nothing added. */
static void test_address_refused(const void *data)
{
	const address_case *c = data;
	cr_error err = CR_ERROR_INIT;
	cr_spec *s = cr_spec_new();
	char *want = g_strdup_printf("job 'w': %s", c->message);

	g_assert_cmpint(cr_spec_append_task(s, "w", c->address, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, want);
	g_assert_cmpint(cr_spec_add_task(s, "w", 3, c->address, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, want);
	g_assert_cmpint(cr_spec_num_jobs(s), ==, 0);
	g_free(want);
	cr_spec_free(s);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (size_t i = 0; address_refused[i].address != NULL; i++) {
		char *p = g_strdup_printf("/spec/address-refused/%zu", i);

		g_test_add_data_func(p, &address_refused[i], test_address_refused);
		g_free(p);
	}
	return g_test_run();
}
