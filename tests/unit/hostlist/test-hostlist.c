/* SPDX-License-Identifier: MIT */
/*
 * test-hostlist.c - hostlist and tasks-per-node conformance: every case of
 * tf-semantics §8.2/§8.3 with the §14 fixes, the Slurm grammar TF lacks,
 * and the cases where scontrol and nodeset disagree (real-components §1).
 */
#include <string.h>

#include <glib.h>

#include <cluster-resolver/hostlist.h>
#include <cluster-resolver/spec.h>

#include "values/hostlist-private.h"

#define END NULL

typedef struct expand_case {
	const char *expr;
	const char *hosts[16]; /* NULL-terminated expected names */
} expand_case;

/* clang-format off */
static const expand_case expand_cases[] = {
	/* tf-semantics §8.2 */
	{ "", { END } },
	{ "n1", { "n1", END } },
	{ "t02n13,t02n41,t02n43", { "t02n13", "t02n41", "t02n43", END } },
	{ "t02n[13,41,43]", { "t02n13", "t02n41", "t02n43", END } },
	{ "n[1-3]", { "n1", "n2", "n3", END } },
	{ "n[01-03]", { "n01", "n02", "n03", END } },
	{ "n[098-101]", { "n098", "n099", "n100", "n101", END } },
	{ "n[8-11]", { "n8", "n9", "n10", "n11", END } },
	{ "n[1-010]", { "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", END } },
	{ "n[01-3]", { "n01", "n02", "n03", END } },
	{ "n[1-3,2]", { "n1", "n2", "n3", "n2", END } },
	{ "a,", { "a", END } },
	{ "[1-2]", { "1", "2", END } },
	{ "x[0]", { "x0", END } },
	{ "n[0-2]", { "n0", "n1", "n2", END } },
	{ "n[00-02]", { "n00", "n01", "n02", END } },
	{ "n[2,1]", { "n2", "n1", END } },
	/* §14.7: the full Slurm grammar */
	{ "rack[1-2]-n[01-02]", { "rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02", END } },
	{ "n[1-3]-ib", { "n1-ib", "n2-ib", "n3-ib", END } },
	{ "gpu-[1-2]x", { "gpu-1x", "gpu-2x", END } },
	{ "a[1-2]b[3-4]", { "a1b3", "a1b4", "a2b3", "a2b4", END } },
	{ "n[1-2][3-4]", { "n13", "n14", "n23", "n24", END } },
	{ "r[1,3]n[1-2]", { "r1n1", "r1n2", "r3n1", "r3n2", END } },
	{ "n1,n1", { "n1", "n1", END } },
	{ "node[1-2],gpu[01-02]-ib,login", { "node1", "node2", "gpu01-ib", "gpu02-ib", "login", END } },
	/* blanks separate names, as in scontrol */
	{ "a b", { "a", "b", END } },
	{ " a , b\t", { "a", "b", END } },
	{ "n[9-10]", { "n9", "n10", END } },
};
/* clang-format on */

typedef struct error_case {
	const char *expr;
	const char *message;
} error_case;

/* clang-format off */
static const error_case expand_errors[] = {
	{ "n[1-2", "invalid hostlist \"n[1-2\": unterminated '[' at position 2" },
	{ "n[1-2],m[", "invalid hostlist \"n[1-2],m[\": unterminated '[' at position 9" },
	{ "n[1,", "invalid hostlist \"n[1,\": unterminated '[' at position 2" },
	{ "n[3-1]", "invalid hostlist \"n[3-1]\": reversed range 3-1 at position 3" },
	{ "a,,b", "invalid hostlist \"a,,b\": empty host name at position 3" },
	{ ",a", "invalid hostlist \",a\": empty host name at position 1" },
	{ "a,,", "invalid hostlist \"a,,\": empty host name at position 3" },
	{ ",", "invalid hostlist \",\": empty host name at position 1" },
	{ "n]", "invalid hostlist \"n]\": unexpected ']' at position 2" },
	{ "]", "invalid hostlist \"]\": unexpected ']' at position 1" },
	{ "n[]", "invalid hostlist \"n[]\": empty range at position 3" },
	{ "n[1,,2]", "invalid hostlist \"n[1,,2]\": empty range at position 5" },
	{ "n[-1]", "invalid hostlist \"n[-1]\": expected a digit, found '-' at position 3" },
	{ "n[1-2-3]", "invalid hostlist \"n[1-2-3]\": expected ',' or ']', found '-' at position 6" },
	{ "n[a-b]", "invalid hostlist \"n[a-b]\": expected a digit, found 'a' at position 3" },
	{ "n[1-b]", "invalid hostlist \"n[1-b]\": expected a digit, found 'b' at position 5" },
	/* §14.7: no int() leniency */
	{ "n[ 1-2]", "invalid hostlist \"n[ 1-2]\": expected a digit, found ' ' at position 3" },
	{ "n[+1]", "invalid hostlist \"n[+1]\": expected a digit, found '+' at position 3" },
	{ "n[1_0]", "invalid hostlist \"n[1_0]\": expected ',' or ']', found '_' at position 4" },
	{ "n[\xd9\xa1]", "invalid hostlist \"n[??]\": expected a digit, found byte 0xd9 at position 3" },
	{ "n[[1]]", "invalid hostlist \"n[[1]]\": nested '[' at position 3" },
	{ "n[1[2]]", "invalid hostlist \"n[1[2]]\": nested '[' at position 4" },
	{ "n[1-3/2]", "invalid hostlist \"n[1-3/2]\": expected ',' or ']', found '/' at position 6" },
	{ "n[1234567890123456789]",
	  "invalid hostlist \"n[1234567890123456789]\": number longer than 18 digits at position 3" },
	{ "n[1-99999999]",
	  "invalid hostlist \"n[1-99999999]\": expands to more than 16777216 hosts at position 1" },
	{ "a,b[0-4095]c[0-4096]",
	  "invalid hostlist \"a,b[0-4095]c[0-4096]\": expands to more than 16777216 hosts at position 3" },
};
/* clang-format on */

/* cr_hostlist_foreach's sink: keep the names (and check @len). */
static int collect_name(const char *name, size_t len, void *user_data)
{
	g_assert_cmpuint(len, ==, strlen(name));
	g_ptr_array_add(user_data, g_strdup(name));
	return 0;
}

/* The names cr_hostlist_foreach gives, NULL-terminated; NULL on an error. */
static char **foreach_names(const char *expr, size_t max, cr_status *st, cr_error *err)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);

	*st = hostlist_foreach_limit(expr, max, collect_name, names, err);
	if (*st != CR_OK) {
		/* the whole expression is checked before the first name */
		g_assert_cmpuint(names->len, ==, 0);
		g_ptr_array_unref(names);
		return NULL;
	}
	g_ptr_array_add(names, NULL);
	g_ptr_array_set_free_func(names, NULL);
	return (char **)g_ptr_array_free(names, FALSE);
}

static void test_expand(gconstpointer data)
{
	const expand_case *c = data;
	cr_error err = CR_ERROR_INIT;
	char **hosts = NULL;
	size_t count = 99, want = 0;
	cr_status st;

	st = cr_hostlist_expand(c->expr, &hosts, &count, &err);
	g_assert_cmpstr(err.message, ==, "");
	g_assert_cmpint(st, ==, CR_OK);
	while (c->hosts[want] != NULL)
		want++;
	g_assert_cmpuint(count, ==, want);
	g_assert_cmpstrv(hosts, c->hosts);
	cr_strv_free(hosts);
	/* the streaming walk gives the same names */
	hosts = foreach_names(c->expr, CR_HOSTLIST_MAX_HOSTS, &st, &err);
	g_assert_cmpstr(err.message, ==, "");
	g_assert_cmpint(st, ==, CR_OK);
	g_assert_cmpstrv(hosts, c->hosts);
	g_strfreev(hosts);
}

static void test_expand_error(gconstpointer data)
{
	const error_case *c = data;
	cr_error err = CR_ERROR_INIT;
	char **hosts = (char **)&err;
	size_t count = 99;
	cr_status st;

	g_assert_cmpint(cr_hostlist_expand(c->expr, &hosts, &count, &err), ==, CR_ERR_PARSE);
	g_assert_cmpint(err.code, ==, CR_ERR_PARSE);
	g_assert_cmpstr(err.message, ==, c->message);
	g_assert_null(hosts);
	g_assert_cmpuint(count, ==, 0);
	/* a NULL error record is allowed */
	g_assert_cmpint(cr_hostlist_expand(c->expr, &hosts, NULL, NULL), ==, CR_ERR_PARSE);
	/* the streaming walk fails the same way before giving any name */
	err = (cr_error)CR_ERROR_INIT;
	g_assert_null(foreach_names(c->expr, CR_HOSTLIST_MAX_HOSTS, &st, &err));
	g_assert_cmpint(st, ==, CR_ERR_PARSE);
	g_assert_cmpstr(err.message, ==, c->message);
	g_assert_cmpint(cr_hostlist_foreach(c->expr, collect_name, NULL, NULL), ==, CR_ERR_PARSE);
}

/* n[009-1000]: 992 names, padded to 3 digits until they need 4 (scontrol). */
static void test_expand_padding_grows(void)
{
	char **hosts = NULL;
	size_t count = 0;

	g_assert_cmpint(cr_hostlist_expand("n[009-1000]", &hosts, &count, NULL), ==, CR_OK);
	g_assert_cmpuint(count, ==, 992);
	g_assert_cmpstr(hosts[0], ==, "n009");
	g_assert_cmpstr(hosts[90], ==, "n099");
	g_assert_cmpstr(hosts[91], ==, "n100");
	g_assert_cmpstr(hosts[990], ==, "n999");
	g_assert_cmpstr(hosts[991], ==, "n1000");
	g_assert_null(hosts[992]);
	cr_strv_free(hosts);
}

/* A long expression is quoted shortened, the position stays exact. */
static void test_expand_error_long_quote(void)
{
	GString *expr = g_string_new(NULL);
	cr_error err = CR_ERROR_INIT;
	char **hosts = NULL;
	char *want;

	for (int i = 0; i < 100; i++)
		g_string_append_printf(expr, "n%02d,", i);
	g_string_append(expr, "x]");
	g_assert_cmpint(cr_hostlist_expand(expr->str, &hosts, NULL, &err), ==, CR_ERR_PARSE);
	want = g_strdup_printf("invalid hostlist \"%.157s...\": unexpected ']' at position 402",
			       expr->str);
	g_assert_cmpstr(err.message, ==, want);
	g_free(want);
	g_string_free(expr, TRUE);
}

static void test_expand_limit(void)
{
	cr_error err = CR_ERROR_INIT;
	char **hosts = NULL;
	size_t count = 0;

	g_assert_cmpint(hostlist_expand_limit("n[1-4]", 4, &hosts, &count, &err), ==, CR_OK);
	g_assert_cmpuint(count, ==, 4);
	cr_strv_free(hosts);
	g_assert_cmpint(hostlist_expand_limit("n[1-4],m", 4, &hosts, &count, &err), ==,
			CR_ERR_PARSE);
	g_assert_cmpstr(
		err.message, ==,
		"invalid hostlist \"n[1-4],m\": expands to more than 4 hosts at position 8");
}

/* The ceiling counts the whole expression, streamed or not. */
static void test_foreach_limit(void)
{
	cr_error err = CR_ERROR_INIT;
	cr_status st;
	char **hosts;

	hosts = foreach_names("n[1-4]", 4, &st, &err);
	g_assert_cmpint(st, ==, CR_OK);
	g_assert_cmpuint(g_strv_length(hosts), ==, 4);
	g_strfreev(hosts);
	g_assert_null(foreach_names("n[1-4],m", 4, &st, &err));
	g_assert_cmpint(st, ==, CR_ERR_PARSE);
	g_assert_cmpstr(
		err.message, ==,
		"invalid hostlist \"n[1-4],m\": expands to more than 4 hosts at position 8");
}

/* n[009-1000] and a product of groups: the walk and the vector agree. */
static void test_foreach_agrees(void)
{
	static const char *const exprs[] = { "n[009-1000]", "r[1-3,7]-n[08-12,099-101]x[1-2]",
					     "a b,c[1-1000]" };

	for (size_t i = 0; i < G_N_ELEMENTS(exprs); i++) {
		char **want = NULL, **got;
		size_t count = 0;
		cr_status st;

		g_assert_cmpint(cr_hostlist_expand(exprs[i], &want, &count, NULL), ==, CR_OK);
		got = foreach_names(exprs[i], CR_HOSTLIST_MAX_HOSTS, &st, NULL);
		g_assert_cmpint(st, ==, CR_OK);
		g_assert_cmpuint(count, >=, 64);
		g_assert_cmpstrv(got, (const char *const *)want);
		g_strfreev(got);
		cr_strv_free(want);
	}
}

/* A non-zero return stops the walk at once; that is not an error. */
static int stop_after_two(const char *name, size_t len, void *user_data)
{
	GPtrArray *names = user_data;

	g_ptr_array_add(names, g_strndup(name, len));
	return names->len == 2 ? 7 : 0;
}

static void test_foreach_stop(void)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	cr_error err = CR_ERROR_INIT;

	g_assert_cmpint(cr_hostlist_foreach("a[1-3],b[1-3]", stop_after_two, names, &err), ==,
			CR_OK);
	g_assert_cmpuint(names->len, ==, 2);
	g_assert_cmpstr(g_ptr_array_index(names, 1), ==, "a2");
	g_ptr_array_set_size(names, 0);
	g_assert_cmpint(cr_hostlist_foreach("a[1],b[1-3]", stop_after_two, names, &err), ==, CR_OK);
	g_assert_cmpuint(names->len, ==, 2);
	g_assert_cmpstr(g_ptr_array_index(names, 1), ==, "b1");
	g_ptr_array_unref(names);
}

static void test_foreach_bad_args(void)
{
	cr_error err = CR_ERROR_INIT;

	g_assert_cmpint(cr_hostlist_foreach(NULL, collect_name, NULL, &err), ==,
			CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "hostlist: NULL expression");
	g_assert_cmpint(cr_hostlist_foreach("n1", NULL, NULL, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "hostlist: no callback");
}

static void test_expand_bad_args(void)
{
	cr_error err = CR_ERROR_INIT;
	char **hosts = NULL;

	g_assert_cmpint(cr_hostlist_expand(NULL, &hosts, NULL, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "hostlist: NULL expression");
	g_assert_cmpint(cr_hostlist_expand("n1", NULL, NULL, &err), ==, CR_ERR_INVALID_ARG);
}

/* ------------------------------------------------------------------------ */

typedef struct compress_case {
	const char *hosts[16];
	const char *expr;
} compress_case;

/* clang-format off */
static const compress_case compress_cases[] = {
	{ { END }, "" },
	{ { "n1", END }, "n1" },
	{ { "n1", "n2", "n3", END }, "n[1-3]" },
	{ { "n1", "n2", "n3", "n5", END }, "n[1-3,5]" },
	{ { "n3", "n1", "n2", END }, "n[3,1-2]" },
	{ { "n1", "m1", "n2", END }, "n1,m1,n2" },
	{ { "n9", "n10", END }, "n[9-10]" },
	{ { "n09", "n10", END }, "n[09-10]" },
	{ { "n99", "n100", END }, "n[99-100]" },
	{ { "n0", "n1", END }, "n[0-1]" },
	{ { "n1", "n01", END }, "n[1,01]" },
	{ { "n01", "n1", END }, "n[01,1]" },
	{ { "n007", END }, "n007" },
	{ { "n1", "n1", END }, "n[1,1]" },
	{ { "n1-ib", "n2-ib", "n3-ib", END }, "n[1-3]-ib" },
	{ { "rack1-n01", "rack1-n02", "rack2-n01", END }, "rack1-n[01-02],rack2-n01" },
	{ { "login", "n1", "n2", END }, "login,n[1-2]" },
	{ { "t02n13", "t02n41", "t02n43", END }, "t02n[13,41,43]" },
	{ { "node1", "node2", "node1", END }, "node[1-2,1]" },
	{ { "n1234567890123456789", "n1234567890123456790", END },
	  "n1234567890123456789,n1234567890123456790" },
	{ { "a", "b", END }, "a,b" },
	{ { "1", "2", "3", END }, "[1-3]" },
};
/* clang-format on */

static void test_compress(gconstpointer data)
{
	const compress_case *c = data;
	cr_error err = CR_ERROR_INIT;
	size_t n = 0;
	char *expr = NULL;
	char **back = NULL;

	while (c->hosts[n] != NULL)
		n++;
	g_assert_cmpint(cr_hostlist_compress(c->hosts, n, &expr, &err), ==, CR_OK);
	g_assert_cmpstr(expr, ==, c->expr);
	/* and it expands back to the same names, in the same order */
	g_assert_cmpint(cr_hostlist_expand(expr, &back, NULL, &err), ==, CR_OK);
	g_assert_cmpstrv(back, c->hosts);
	cr_strv_free(back);
	cr_free(expr);
}

static void test_compress_padding_grows(void)
{
	char **hosts = NULL;
	char *expr = NULL;
	size_t count = 0;

	g_assert_cmpint(cr_hostlist_expand("n[009-1000]", &hosts, &count, NULL), ==, CR_OK);
	g_assert_cmpint(cr_hostlist_compress((const char *const *)hosts, count, &expr, NULL), ==,
			CR_OK);
	g_assert_cmpstr(expr, ==, "n[009-1000]");
	cr_free(expr);
	cr_strv_free(hosts);
}

/* clang-format off */
static const error_case compress_errors[] = {
	{ "", "cannot compress an empty host name" },
	{ "a[1", "cannot compress host name \"a[1\": it contains '['" },
	{ "a]", "cannot compress host name \"a]\": it contains ']'" },
	{ "a,b", "cannot compress host name \"a,b\": it contains ','" },
	{ "a b", "cannot compress host name \"a b\": it contains ' '" },
};
/* clang-format on */

static void test_compress_error(gconstpointer data)
{
	const error_case *c = data;
	const char *hosts[] = { "n1", c->expr };
	cr_error err = CR_ERROR_INIT;
	char *expr = (char *)&err;

	g_assert_cmpint(cr_hostlist_compress(hosts, 2, &expr, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, c->message);
	g_assert_null(expr);
}

/* Random lists of names round-trip through compress and expand. */
static void test_compress_roundtrip_random(void)
{
	static const char *const stems[] = { "n", "gpu", "rack1-n", "x", "" };
	static const char *const suffixes[] = { "", "-ib", "x" };
	GRand *rng = g_rand_new_with_seed(4);

	for (int round = 0; round < 300; round++) {
		guint n = (guint)g_rand_int_range(rng, 0, 40);
		GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
		char *expr = NULL;
		char **back = NULL;
		size_t count = 0;

		for (guint i = 0; i < n; i++) {
			int stem = g_rand_int_range(rng, 0, G_N_ELEMENTS(stems));
			int suffix = g_rand_int_range(rng, 0, G_N_ELEMENTS(suffixes));
			int width = g_rand_int_range(rng, 1, 4);

			if (stems[stem][0] == '\0' && suffixes[suffix][0] == '\0')
				suffix = 1;
			g_ptr_array_add(names, g_strdup_printf("%s%0*d%s", stems[stem], width,
							       g_rand_int_range(rng, 0, 12),
							       suffixes[suffix]));
		}
		g_assert_cmpint(
			cr_hostlist_compress((const char *const *)names->pdata, n, &expr, NULL), ==,
			CR_OK);
		g_assert_cmpint(cr_hostlist_expand(expr, &back, &count, NULL), ==, CR_OK);
		g_assert_cmpuint(count, ==, n);
		for (guint i = 0; i < n; i++)
			g_assert_cmpstr(back[i], ==, g_ptr_array_index(names, i));
		cr_strv_free(back);
		cr_free(expr);
		g_ptr_array_free(names, TRUE);
	}
	g_rand_free(rng);
}

/* ------------------------------------------------------------------------ */

typedef struct tpn_case {
	const char *list;
	size_t n;
	uint32_t counts[8];
} tpn_case;

/* clang-format off */
static const tpn_case tpn_cases[] = {
	/* tf-semantics §8.3 */
	{ "3(x2),2,1", 4, { 3, 3, 2, 1 } },
	{ "2(x3),1", 4, { 2, 2, 2, 1 } },
	{ "2(x0)", 0, { 0 } },
	{ "02(x02)", 2, { 2, 2 } },
	/* forms a real srun produced (real-components §1) */
	{ "4,1", 2, { 4, 1 } },
	{ "3(x2)", 2, { 3, 3 } },
	{ "3,1(x2)", 3, { 3, 1, 1 } },
	{ "4(x2),1(x2)", 4, { 4, 4, 1, 1 } },
	{ "2(x4)", 4, { 2, 2, 2, 2 } },
	{ "1(x3)", 3, { 1, 1, 1 } },
	{ "4294967295", 1, { 4294967295u } },
};
/* clang-format on */

/* clang-format off */
static const error_case tpn_errors[] = {
	{ "", "invalid tasks-per-node list \"\": empty list" },
	{ "3,", "invalid tasks-per-node list \"3,\": trailing ',' at position 2" },
	{ "3, 1", "invalid tasks-per-node list \"3, 1\": expected a digit, found ' ' at position 3" },
	{ " 3", "invalid tasks-per-node list \" 3\": expected a digit, found ' ' at position 1" },
	{ "3 ", "invalid tasks-per-node list \"3 \": expected ',', found ' ' at position 2" },
	{ "x2", "invalid tasks-per-node list \"x2\": expected a digit, found 'x' at position 1" },
	{ "2(3)", "invalid tasks-per-node list \"2(3)\": expected 'x', found '3' at position 3" },
	{ "2(x)", "invalid tasks-per-node list \"2(x)\": expected a digit, found ')' at position 4" },
	{ "2(x2", "invalid tasks-per-node list \"2(x2\": expected ')', found end of input at position 5" },
	{ "-1", "invalid tasks-per-node list \"-1\": expected a digit, found '-' at position 1" },
	{ ",1", "invalid tasks-per-node list \",1\": expected a digit, found ',' at position 1" },
	{ "1,,2", "invalid tasks-per-node list \"1,,2\": expected a digit, found ',' at position 3" },
	{ "2(x-1)", "invalid tasks-per-node list \"2(x-1)\": expected a digit, found '-' at position 4" },
	{ "4294967296",
	  "invalid tasks-per-node list \"4294967296\": number larger than 4294967295 at position 1" },
	{ "1(x16777216),1",
	  "invalid tasks-per-node list \"1(x16777216),1\": more than 16777216 entries" },
};
/* clang-format on */

static void test_tpn(gconstpointer data)
{
	const tpn_case *c = data;
	cr_error err = CR_ERROR_INIT;
	uint32_t *counts = NULL;
	size_t n = 99;

	g_assert_cmpint(cr_tasks_per_node_expand(c->list, &counts, &n, &err), ==, CR_OK);
	g_assert_cmpuint(n, ==, c->n);
	for (size_t i = 0; i < n; i++)
		g_assert_cmpuint(counts[i], ==, c->counts[i]);
	cr_free(counts);
}

static void test_tpn_error(gconstpointer data)
{
	const error_case *c = data;
	cr_error err = CR_ERROR_INIT;
	uint32_t *counts = (uint32_t *)&err;
	size_t n = 99;

	g_assert_cmpint(cr_tasks_per_node_expand(c->expr, &counts, &n, &err), ==, CR_ERR_PARSE);
	g_assert_cmpstr(err.message, ==, c->message);
	g_assert_null(counts);
	g_assert_cmpuint(n, ==, 0);
}

/* Register one test per table row, named PREFIX/ROW. */
static void add_table(const char *prefix, const void *table, size_t n, size_t size,
		      GTestDataFunc fn)
{
	for (size_t i = 0; i < n; i++) {
		const void *row = (const char *)table + i * size;
		char *name = g_strdup_printf("%s/%zu", prefix, i);

		g_test_add_data_func(name, row, fn);
		g_free(name);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	add_table("/hostlist/expand", expand_cases, G_N_ELEMENTS(expand_cases),
		  sizeof(expand_cases[0]), test_expand);
	add_table("/hostlist/expand-error", expand_errors, G_N_ELEMENTS(expand_errors),
		  sizeof(expand_errors[0]), test_expand_error);
	g_test_add_func("/hostlist/expand-padding-grows", test_expand_padding_grows);
	g_test_add_func("/hostlist/expand-error-long-quote", test_expand_error_long_quote);
	g_test_add_func("/hostlist/expand-limit", test_expand_limit);
	g_test_add_func("/hostlist/expand-bad-args", test_expand_bad_args);
	g_test_add_func("/hostlist/foreach-limit", test_foreach_limit);
	g_test_add_func("/hostlist/foreach-agrees", test_foreach_agrees);
	g_test_add_func("/hostlist/foreach-stop", test_foreach_stop);
	g_test_add_func("/hostlist/foreach-bad-args", test_foreach_bad_args);
	add_table("/hostlist/compress", compress_cases, G_N_ELEMENTS(compress_cases),
		  sizeof(compress_cases[0]), test_compress);
	add_table("/hostlist/compress-error", compress_errors, G_N_ELEMENTS(compress_errors),
		  sizeof(compress_errors[0]), test_compress_error);
	g_test_add_func("/hostlist/compress-padding-grows", test_compress_padding_grows);
	g_test_add_func("/hostlist/compress-roundtrip-random", test_compress_roundtrip_random);
	add_table("/tasks-per-node/expand", tpn_cases, G_N_ELEMENTS(tpn_cases),
		  sizeof(tpn_cases[0]), test_tpn);
	add_table("/tasks-per-node/error", tpn_errors, G_N_ELEMENTS(tpn_errors),
		  sizeof(tpn_errors[0]), test_tpn_error);
	return g_test_run();
}
