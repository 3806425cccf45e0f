/* SPDX-License-Identifier: MIT */
/*
 * test-spec.c - every ClusterSpec case of tf-semantics §1 and the master URL
 * formatting of §2 with the §14.16 fix. The ClusterDef encoding is
 * test-clusterdef.c's, the refused addresses test-spec-address.c's.
 */
#include <string.h>

#include "pipeline/pipeline-private.h"
#include "crt.h"

static cr_spec *from_json(const char *json)
{
	cr_error err = CR_ERROR_INIT;
	cr_spec *s = cr_spec_from_json(json, strlen(json), "test", &err);

	if (s == NULL)
		g_error("spec %s: %s", json, err.message);
	return s;
}

/* ---- construction and as_dict ------------------------------------------ */

typedef struct json_case {
	const char *name;
	const char *in;   /* as_dict JSON given to cr_spec_from_json */
	const char *out;  /* cr_spec_to_json */
	const char *jobs; /* job names in order, joined by ',' */
} json_case;

/* clang-format off */
static const json_case json_cases[] = {
	{ "dense", "{\"ps\": [\"ps0:1111\"], \"worker\": [\"worker0:3333\", \"worker1:4444\"]}",
	  "{\"ps\": [\"ps0:1111\"], \"worker\": [\"worker0:3333\", \"worker1:4444\"]}", "ps,worker" },
	{ "insertion-order", "{\"worker\": [\"w0:1\"], \"ps\": [\"p0:1\"], \"chief\": [\"c:1\"]}",
	  "{\"worker\": [\"w0:1\"], \"ps\": [\"p0:1\"], \"chief\": [\"c:1\"]}", "worker,ps,chief" },
	{ "sparse", "{\"worker\": {\"1\": \"w1:2222\", \"3\": \"w3:2222\"}}",
	  "{\"worker\": {\"1\": \"w1:2222\", \"3\": \"w3:2222\"}}", "worker" },
	{ "sparse-sorted", "{\"w\": {\"10\": \"a\", \"2\": \"b\", \"7\": \"c\"}}",
	  "{\"w\": {\"2\": \"b\", \"7\": \"c\", \"10\": \"a\"}}", "w" },
	{ "dict-dense-becomes-list", "{\"worker\": {\"0\": \"a\", \"1\": \"b\"}}",
	  "{\"worker\": [\"a\", \"b\"]}", "worker" },
	{ "dict-dense-unordered", "{\"worker\": {\"1\": \"b\", \"0\": \"a\"}}",
	  "{\"worker\": [\"a\", \"b\"]}", "worker" },
	{ "sparse-from-1", "{\"w\": {\"1\": \"a\", \"2\": \"b\"}}", "{\"w\": {\"1\": \"a\", \"2\": \"b\"}}",
	  "w" },
	{ "empty-list-job", "{\"worker\": []}", "{\"worker\": []}", "worker" },
	{ "empty-dict-job", "{\"worker\": {}}", "{\"worker\": []}", "worker" },
	{ "empty-cluster", "{}", "{}", "" },
	{ "empty-job-name", "{\"\": [\"a:1\"]}", "{\"\": [\"a:1\"]}", "" },
	{ "duplicate-addresses", "{\"a\": [\"h:1\", \"h:1\"], \"b\": [\"h:1\"]}",
	  "{\"a\": [\"h:1\", \"h:1\"], \"b\": [\"h:1\"]}", "a,b" },
	{ "no-port", "{\"local\": [\"localhost\"]}", "{\"local\": [\"localhost\"]}", "local" },
	/* Addresses are host[:port] (test-spec-address.c), so escaping is
	 * proven on job names, which may hold anything. */
	{ "escaping", "{\"j\\\"ob\\\\b\\n\\u0001\": [\"a:1\"]}", "{\"j\\\"ob\\\\b\\n\\u0001\": [\"a:1\"]}",
	  "j\"ob\\b\n\x01" },
	{ "utf8", "{\"w\\u00e9\": [\"h:1\"]}", "{\"w\xc3\xa9\": [\"h:1\"]}", "w\xc3\xa9" },
	{ "max-index", "{\"w\": {\"2147483647\": \"a\"}}", "{\"w\": {\"2147483647\": \"a\"}}", "w" },
	/* Escaping is decided eight bytes at a time: a special byte first or
	 * last in a word, only in the overlapping last word, past 16 bytes. */
	{ "escape-word-edges",
	  "{\"abcdefg\\\"\": [], \"\\\"bcdefgh\": [], \"abcdefgh\\\\\": [], \"abcdefghijklmno\\u001f\": [], "
	  "\"abcdefghijklmnop\\u007f\": [], \"\\tbcdefghijklmnop\": [], \"abcdefghijklmnopq\\r\\b\\f\": []}",
	  "{\"abcdefg\\\"\": [], \"\\\"bcdefgh\": [], \"abcdefgh\\\\\": [], \"abcdefghijklmno\\u001f\": [], "
	  "\"abcdefghijklmnop\\u007f\": [], \"\\tbcdefghijklmnop\": [], \"abcdefghijklmnopq\\r\\b\\f\": []}",
	  "abcdefg\",\"bcdefgh,abcdefgh\\,abcdefghijklmno\x1f,abcdefghijklmnop\x7f,\tbcdefghijklmnop,"
	  "abcdefghijklmnopq\r\b\f" },
	{ "plain-word-edges",
	  "{\"w\": [\"a\", \"abcdefg\", \"abcdefgh\", \"abcdefghi\", \"abcdefghijklmnop\", "
	  "\"AZaz09-._:1\", \"[::1]:2\", \"[fe80::1%eth0]:3\"], "
	  "\" ~!#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}\": [], \"h\\u00e9\\u00e9\\u00e9\\u00e9:1\\u00ff\": []}",
	  "{\"w\": [\"a\", \"abcdefg\", \"abcdefgh\", \"abcdefghi\", \"abcdefghijklmnop\", "
	  "\"AZaz09-._:1\", \"[::1]:2\", \"[fe80::1%eth0]:3\"], "
	  "\" ~!#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}\": [], \"h\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9:1\xc3\xbf\": []}",
	  "w, ~!#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|},h\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9:1\xc3\xbf" },
	{ "sparse-word-edges",
	  "{\"w\": {\"1\": \"abcdefgh:1\", \"3\": \"abcdefghij\"}}",
	  "{\"w\": {\"1\": \"abcdefgh:1\", \"3\": \"abcdefghij\"}}", "w" },
	{ NULL, NULL, NULL, NULL },
};
/* clang-format on */

static void test_json(gconstpointer data)
{
	const json_case *c = data;
	cr_spec *s = from_json(c->in);
	char *out = cr_spec_to_json(s);
	GString *jobs = g_string_new(NULL);

	g_assert_cmpstr(out, ==, c->out);
	for (size_t i = 0; i < cr_spec_num_jobs(s); i++)
		g_string_append_printf(jobs, "%s%s", i ? "," : "", cr_spec_job_name(s, i));
	g_assert_cmpstr(jobs->str, ==, c->jobs);
	g_assert_null(cr_spec_job_name(s, cr_spec_num_jobs(s)));
	/* Output re-parses to an equal spec. */
	{
		cr_spec *again = from_json(out);

		g_assert_true(cr_spec_equal(s, again));
		cr_spec_free(again);
	}
	g_string_free(jobs, TRUE);
	cr_free(out);
	cr_spec_free(s);
}

/* ---- accessors ----------------------------------------------------------- */

typedef struct access_case {
	const char *name;
	const char *spec;
	const char *job;
	long long index;     /* for task_address */
	int status;          /* of every accessor on @job (task_address separately) */
	const char *message; /* expected message when status != 0 */
	long long num_tasks;
	const char *indices; /* "1,3" */
	const char *slots;   /* job_tasks: "-,a,-,b" ('-' = hole) */
	bool dense;
	int addr_status;
	const char *addr; /* address, or the error message */
} access_case;

/* clang-format off */
static const access_case access_cases[] = {
	{ "dense", "{\"worker\": [\"w0:2222\", \"w1:2222\", \"w2:2222\"]}", "worker", 2, 0, NULL, 3,
	  "0,1,2", "w0:2222,w1:2222,w2:2222", true, 0, "w2:2222" },
	{ "sparse-holes", "{\"worker\": {\"1\": \"w1:2222\", \"3\": \"w3:2222\"}}", "worker", 3, 0,
	  NULL, 2, "1,3", "-,w1:2222,-,w3:2222", false, 0, "w3:2222" },
	{ "hole-lookup", "{\"worker\": {\"1\": \"w1:2222\", \"3\": \"w3:2222\"}}", "worker", 2, 0,
	  NULL, 2, "1,3", "-,w1:2222,-,w3:2222", false, CR_ERR_NOT_FOUND,
	  "No task with index 2 in job 'worker'" },
	{ "missing-index", "{\"worker\": [\"a\", \"b\"]}", "worker", 5, 0, NULL, 2, "0,1", "a,b",
	  true, CR_ERR_NOT_FOUND, "No task with index 5 in job 'worker'" },
	{ "negative-lookup", "{\"worker\": [\"a\"]}", "worker", -1, 0, NULL, 1, "0", "a", true,
	  CR_ERR_NOT_FOUND, "No task with index -1 in job 'worker'" },
	{ "huge-lookup", "{\"worker\": [\"a\"]}", "worker", 4294967296LL, 0, NULL, 1, "0", "a", true,
	  CR_ERR_NOT_FOUND, "No task with index 4294967296 in job 'worker'" },
	{ "empty-job", "{\"worker\": []}", "worker", 0, 0, NULL, 0, "", "", true, CR_ERR_NOT_FOUND,
	  "No task with index 0 in job 'worker'" },
	{ "unknown-job", "{\"worker\": [\"a\"]}", "x", 0, CR_ERR_NOT_FOUND,
	  "No such job in cluster: 'x'", 0, NULL, NULL, false, CR_ERR_NOT_FOUND,
	  "No such job in cluster: 'x'" },
	{ "unknown-job-empty-spec", "{}", "ps", 0, CR_ERR_NOT_FOUND, "No such job in cluster: 'ps'", 0,
	  NULL, NULL, false, CR_ERR_NOT_FOUND, "No such job in cluster: 'ps'" },
	{ "empty-name", "{\"\": [\"a:1\"]}", "", 0, 0, NULL, 1, "0", "a:1", true, 0, "a:1" },
	{ NULL },
};
/* clang-format on */

static char *join_indices(const int32_t *idx, size_t n)
{
	GString *s = g_string_new(NULL);

	for (size_t i = 0; i < n; i++)
		g_string_append_printf(s, "%s%d", i ? "," : "", idx[i]);
	return g_string_free(s, FALSE);
}

static char *join_slots(const char *const *slots, size_t n)
{
	GString *s = g_string_new(NULL);

	for (size_t i = 0; i < n; i++)
		g_string_append_printf(s, "%s%s", i ? "," : "", slots[i] ? slots[i] : "-");
	return g_string_free(s, FALSE);
}

static void test_access(gconstpointer data)
{
	const access_case *c = data;
	cr_spec *s = from_json(c->spec);
	cr_error err = CR_ERROR_INIT;
	const int32_t *idx = NULL;
	const char *const *slots = NULL;
	const char *addr = NULL;
	size_t n = 99;
	char *text;

	g_assert_cmpint(cr_spec_num_tasks(s, c->job, &n, &err), ==, c->status);
	if (c->status != 0) {
		g_assert_cmpstr(err.message, ==, c->message);
		g_assert_cmpint(err.code, ==, c->status);
	} else {
		g_assert_cmpint(n, ==, c->num_tasks);
	}
	memset(&err, 0, sizeof(err));
	g_assert_cmpint(cr_spec_task_indices(s, c->job, &idx, &n, &err), ==, c->status);
	if (c->status == 0) {
		text = join_indices(idx, n);
		g_assert_cmpstr(text, ==, c->indices);
		g_free(text);
	} else {
		g_assert_cmpstr(err.message, ==, c->message);
	}
	memset(&err, 0, sizeof(err));
	g_assert_cmpint(cr_spec_job_tasks(s, c->job, &slots, &n, &err), ==, c->status);
	if (c->status == 0) {
		text = join_slots(slots, n);
		g_assert_cmpstr(text, ==, c->slots);
		g_free(text);
	} else {
		g_assert_cmpstr(err.message, ==, c->message);
	}
	g_assert_cmpint(cr_spec_job_is_dense(s, c->job), ==, c->dense);
	g_assert_cmpint(cr_spec_has_job(s, c->job), ==, c->status == 0);
	memset(&err, 0, sizeof(err));
	g_assert_cmpint(cr_spec_task_address(s, c->job, c->index, &addr, &err), ==, c->addr_status);
	g_assert_cmpstr(c->addr_status == 0 ? addr : err.message, ==, c->addr);
	/* A NULL error record is allowed everywhere. */
	g_assert_cmpint(cr_spec_task_address(s, c->job, c->index, NULL, NULL), ==, c->addr_status);
	cr_spec_free(s);
}

/* ---- building through the C API ---------------------------------------- */

typedef struct build_op {
	char op; /* 'j' add_job, 't' add_task, 'a' append_task */
	const char *job;
	long long index;
	const char *address;
	int status;
	const char *message;
} build_op;

typedef struct build_case {
	const char *name;
	build_op ops[8];
	const char *json; /* the spec afterwards */
} build_case;

/* clang-format off */
static const build_case build_cases[] = {
	{ "append-dense",
	  { { 'a', "worker", 0, "w0", 0, NULL }, { 'a', "worker", 0, "w1", 0, NULL },
	    { 'a', "ps", 0, "p0", 0, NULL } },
	  "{\"worker\": [\"w0\", \"w1\"], \"ps\": [\"p0\"]}" },
	{ "append-after-sparse",
	  { { 't', "w", 3, "a", 0, NULL }, { 'a', "w", 0, "b", 0, NULL } },
	  "{\"w\": {\"3\": \"a\", \"4\": \"b\"}}" },
	{ "declare-empty-then-fill",
	  { { 'j', "chief", 0, NULL, 0, NULL }, { 'j', "worker", 0, NULL, 0, NULL },
	    { 'j', "chief", 0, NULL, 0, NULL }, { 't', "worker", 0, "w0", 0, NULL } },
	  "{\"chief\": [], \"worker\": [\"w0\"]}" },
	{ "negative-index-refused",
	  { { 't', "worker", -1, "a", CR_ERR_INVALID_ARG,
	      "task index -1 of job 'worker' is out of range (0..2147483647)" } },
	  "{}" },
	{ "over-int32-refused",
	  { { 't', "worker", 2147483648LL, "a", CR_ERR_INVALID_ARG,
	      "task index 2147483648 of job 'worker' is out of range (0..2147483647)" } },
	  "{}" },
	{ "duplicate-index",
	  { { 't', "worker", 1, "a:1", 0, NULL },
	    { 't', "worker", 1, "b:1", CR_ERR_CONFLICT,
	      "job 'worker' has two tasks with index 1 ('a:1' and 'b:1')" } },
	  "{\"worker\": {\"1\": \"a:1\"}}" },
	{ "null-job",
	  { { 't', NULL, 0, "a", CR_ERR_INVALID_ARG, "cr_spec_add_task: NULL argument" },
	    { 'j', NULL, 0, NULL, CR_ERR_INVALID_ARG, "cr_spec_add_job: NULL argument" },
	    { 'a', "w", 0, NULL, CR_ERR_INVALID_ARG, "cr_spec_append_task: NULL argument" } },
	  "{}" },
	/* found by tests/fuzz/core fuzz-format: TF_CONFIG no JSON reader takes */
	{ "job-name-not-utf8",
	  { { 't', "wor\x8fker", 0, "a:1", CR_ERR_INVALID_ARG,
	      "job name \"wor\\x8fker\" is not valid UTF-8" },
	    { 'j', "\xff", 0, NULL, CR_ERR_INVALID_ARG, "job name \"\\xff\" is not valid UTF-8" },
	    { 'a', "w\xc3", 0, "a:1", CR_ERR_INVALID_ARG,
	      "job name \"w\\xc3\" is not valid UTF-8" },
	    { 't', "w\xc3\xa9", 0, "a:1", 0, NULL } },
	  "{\"w\xc3\xa9\": [\"a:1\"]}" },
	{ NULL },
};
/* clang-format on */

static void test_build(gconstpointer data)
{
	const build_case *c = data;
	cr_spec *s = cr_spec_new();
	char *json;

	for (size_t i = 0; i < G_N_ELEMENTS(c->ops) && c->ops[i].op != 0; i++) {
		const build_op *o = &c->ops[i];
		cr_error err = CR_ERROR_INIT;
		cr_status st;

		if (o->op == 'j')
			st = cr_spec_add_job(s, o->job, &err);
		else if (o->op == 't')
			st = cr_spec_add_task(s, o->job, o->index, o->address, &err);
		else
			st = cr_spec_append_task(s, o->job, o->address, &err);
		g_assert_cmpint(st, ==, o->status);
		if (o->status != 0)
			g_assert_cmpstr(err.message, ==, o->message);
	}
	json = cr_spec_to_json(s);
	g_assert_cmpstr(json, ==, c->json);
	cr_free(json);
	/* A copy is equal and independent. */
	{
		cr_spec *copy = cr_spec_copy(s);

		g_assert_true(cr_spec_equal(s, copy));
		cr_spec_add_task(copy, "extra", 0, "x", NULL);
		g_assert_false(cr_spec_equal(s, copy));
		cr_spec_free(copy);
	}
	cr_spec_free(s);
}

/* Past the first blocks of address text and the first array sizes: 70,000
 * appends in two interleaved jobs, addresses longer than a text block,
 * then insertions in front of them and a copy. */
/* ---- readers in several threads (spec.h) ------------------------------- */

enum {
	RACE_THREADS = 4,
	RACE_TASKS = 200000,
	RACE_ROUNDS = 8
};

typedef struct race {
	const cr_spec *spec;
	gint waiting; /* threads not yet at the start line */
	const char *const *slots[RACE_THREADS];
	size_t count[RACE_THREADS];
	guint holes[RACE_THREADS]; /* slots of task indices that read NULL */
} race;

static gpointer race_reader(gpointer data)
{
	race *r = data;
	/* Each thread takes a number, then all spin until the last arrives, so
	 * that their first job_tasks() calls overlap. */
	guint me = (guint)(RACE_THREADS - g_atomic_int_add(&r->waiting, -1));

	while (g_atomic_int_get(&r->waiting) > 0)
		;
	g_assert_cmpint(cr_spec_job_tasks(r->spec, "worker", &r->slots[me], &r->count[me], NULL),
			==, CR_OK);
	/* From the end: an array still being filled (from the start) shows. */
	for (size_t i = r->count[me] + 1; i >= 2; i -= 2)
		r->holes[me] += r->slots[me][i - 2] == NULL;
	return NULL;
}

/* job_tasks() fills a cache inside a reader: threads that ask at once all
 * get the whole, same array (before, one could read another's array while it
 * was being filled, and the loser's array leaked). */
static void test_readers_in_threads(void)
{
	for (int round = 0; round < RACE_ROUNDS; round++) {
		cr_spec *s = cr_spec_new();
		race r = { .spec = s, .waiting = RACE_THREADS };
		GThread *threads[RACE_THREADS];

		for (int i = 0; i < RACE_TASKS; i += 2)
			g_assert_cmpint(cr_spec_add_task(s, "worker", i, "h:1", NULL), ==, CR_OK);
		for (int t = 0; t < RACE_THREADS; t++)
			threads[t] = g_thread_new("reader", race_reader, &r);
		for (int t = 0; t < RACE_THREADS; t++)
			g_thread_join(threads[t]);
		for (int t = 0; t < RACE_THREADS; t++) {
			g_assert_cmpuint(r.count[t], ==, RACE_TASKS - 1);
			g_assert_cmpuint(r.holes[t], ==, 0);
			g_assert_true(r.slots[t] == r.slots[0]);
		}
		cr_spec_free(s);
	}
}

static void test_build_many(void)
{
	cr_spec *s = cr_spec_new();
	GString *want_w = g_string_new("\"worker\": [");
	char *big = g_strnfill(3 * 1024 * 1024, 'x');
	char *json, *want;
	const char *addr = NULL;
	cr_spec *copy;

	for (int i = 0; i < 70000; i++) {
		char a[32];

		g_snprintf(a, sizeof(a), "node%05d:%d", i, 8888 + i % 4);
		g_assert_cmpint(cr_spec_append_task(s, "worker", a, NULL), ==, CR_OK);
		g_string_append_printf(want_w, "%s\"%s\"", i ? ", " : "", a);
		if (i % 10000 == 0)
			g_assert_cmpint(
				cr_spec_append_task(s, "ps", i == 20000 ? big : "p:1", NULL), ==,
				CR_OK);
	}
	g_string_append_c(want_w, ']');
	g_assert_cmpint(cr_spec_add_task(s, "sparse", 7, big + 3 * 1024 * 1024 - 5000, NULL), ==,
			CR_OK);
	g_assert_cmpint(cr_spec_add_task(s, "sparse", 3, "c:3", NULL), ==, CR_OK);
	g_assert_cmpint(cr_spec_add_task(s, "sparse", 5, "c:5", NULL), ==, CR_OK);
	want = g_strdup_printf("{%s, \"ps\": [\"p:1\", \"p:1\", \"%s\", \"p:1\", \"p:1\", "
			       "\"p:1\", \"p:1\"], \"sparse\": {\"3\": \"c:3\", \"5\": \"c:5\", "
			       "\"7\": \"%s\"}}",
			       want_w->str, big, big + 3 * 1024 * 1024 - 5000);
	json = cr_spec_to_json(s);
	g_assert_cmpstr(json, ==, want);
	g_assert_cmpint(cr_spec_task_address(s, "worker", 69999, &addr, NULL), ==, CR_OK);
	g_assert_cmpstr(addr, ==, "node69999:8891");
	copy = cr_spec_copy(s);
	g_assert_true(cr_spec_equal(s, copy));
	cr_spec_free(s);
	cr_free(json);
	json = cr_spec_to_json(copy);
	g_assert_cmpstr(json, ==, want);
	cr_free(json);
	cr_spec_free(copy);
	g_free(want);
	g_free(big);
	g_string_free(want_w, TRUE);
}

/* ---- equality ------------------------------------------------------------- */

typedef struct eq_case {
	const char *name;
	const char *a, *b;
	bool equal;
} eq_case;

/* clang-format off */
static const eq_case eq_cases[] = {
	{ "dense-vs-sparse", "{\"job\": {\"0\": \"host:2222\"}}", "{\"job\": [\"host:2222\"]}", true },
	{ "job-order-ignored", "{\"a\": [\"x\"], \"b\": [\"y\"]}", "{\"b\": [\"y\"], \"a\": [\"x\"]}",
	  true },
	{ "empty-vs-empty", "{}", "{}", true },
	{ "empty-job-list-vs-dict", "{\"w\": []}", "{\"w\": {}}", true },
	{ "empty-job-vs-no-job", "{\"w\": []}", "{}", false },
	{ "other-address", "{\"w\": [\"a\", \"b\"]}", "{\"w\": [\"a\", \"c\"]}", false },
	{ "other-index", "{\"w\": {\"1\": \"a\"}}", "{\"w\": {\"2\": \"a\"}}", false },
	{ "extra-task", "{\"w\": [\"a\"]}", "{\"w\": [\"a\", \"b\"]}", false },
	{ "other-job-name", "{\"w\": [\"a\"]}", "{\"v\": [\"a\"]}", false },
	{ "extra-job", "{\"w\": [\"a\"]}", "{\"w\": [\"a\"], \"ps\": []}", false },
	{ NULL },
};
/* clang-format on */

static void test_equal(gconstpointer data)
{
	const eq_case *c = data;
	cr_spec *a = from_json(c->a), *b = from_json(c->b);

	g_assert_cmpint(cr_spec_equal(a, b), ==, c->equal);
	g_assert_cmpint(cr_spec_equal(b, a), ==, c->equal);
	g_assert_true(cr_spec_equal(a, a));
	g_assert_false(cr_spec_equal(a, NULL));
	g_assert_true(cr_spec_equal(NULL, NULL));
	cr_spec_free(a);
	cr_spec_free(b);
}

/* ---- from_json errors ------------------------------------------------------ */

typedef struct err_case {
	const char *name;
	const char *json;
	const char *what;
	int status;
	const char *message;
} err_case;

/* clang-format off */
static const err_case err_cases[] = {
	{ "truncated", "{\"worker\": [\"a\"", "TF_CONFIG", CR_ERR_PARSE,
	  "TF_CONFIG: invalid JSON at line 1, column 16 (offset 15): unexpected end of data" },
	{ "trailing-comma", "{\"worker\": [\"a\",]}", "TF_CONFIG", CR_ERR_PARSE,
	  "TF_CONFIG: invalid JSON at line 1, column 17 (offset 16): unexpected character" },
	{ "second-line", "{\"worker\":\n  [\"a\" \"b\"]}", "cluster.json", CR_ERR_PARSE,
	  "cluster.json: invalid JSON at line 2, column 8 (offset 18): array value separator ',' expected" },
	{ "trailing-garbage", "{} x", NULL, CR_ERR_PARSE,
	  "cluster JSON: invalid JSON at line 1, column 4 (offset 3): unexpected character" },
	{ "empty-text", "", "x", CR_ERR_PARSE,
	  "x: invalid JSON at line 1, column 1 (offset 0): unexpected end of data" },
	{ "not-object", "[\"a\"]", "x", CR_ERR_INVALID_ARG,
	  "x: the cluster must be an object mapping job names to tasks, not a list" },
	{ "tasks-string", "{\"worker\": \"a:1\"}", "x", CR_ERR_INVALID_ARG,
	  "x: the tasks for job 'worker' must be a list or an object from indices to addresses, not a string" },
	{ "tasks-null", "{\"worker\": null}", "x", CR_ERR_INVALID_ARG,
	  "x: the tasks for job 'worker' must be a list or an object from indices to addresses, not null" },
	{ "address-int", "{\"worker\": [\"a\", 7]}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker' task 1: address must be a string, not a number" },
	{ "address-null", "{\"worker\": {\"3\": null}}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker' task 3: address must be a string, not null" },
	{ "index-word", "{\"worker\": {\"one\": \"a\"}}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker': task index \"one\" is not a canonical decimal in 0..2147483647" },
	{ "index-negative", "{\"worker\": {\"-1\": \"a\"}}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker': task index \"-1\" is not a canonical decimal in 0..2147483647" },
	{ "index-space", "{\"worker\": {\" 1\": \"a\"}}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker': task index \" 1\" is not a canonical decimal in 0..2147483647" },
	{ "index-plus", "{\"worker\": {\"+1\": \"a\"}}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker': task index \"+1\" is not a canonical decimal in 0..2147483647" },
	{ "index-underscore", "{\"worker\": {\"1_0\": \"a\"}}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker': task index \"1_0\" is not a canonical decimal in 0..2147483647" },
	{ "index-over-int32", "{\"worker\": {\"2147483648\": \"a\"}}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker': task index \"2147483648\" is not a canonical decimal in 0..2147483647" },
	{ "index-empty", "{\"worker\": {\"\": \"a\"}}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker': task index \"\" is not a canonical decimal in 0..2147483647" },
	{ "index-leading-zero", "{\"worker\": {\"1\": \"a\", \"01\": \"b\"}}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker': task index \"01\" is not a canonical decimal in 0..2147483647" },
	{ "index-zero-zero", "{\"worker\": {\"00\": \"a\"}}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker': task index \"00\" is not a canonical decimal in 0..2147483647" },
	{ "index-huge", "{\"worker\": {\"99999999999999999999999\": \"a\"}}", "x", CR_ERR_INVALID_ARG,
	  "x: job 'worker': task index \"99999999999999999999999\" is not a canonical decimal in 0..2147483647" },
	/* an overlong UTF-8 form json-c lets through (found by fuzz-cluster-json) */
	{ "job-overlong-utf8", "{\"w\xc0\xa7\": []}", "x", CR_ERR_INVALID_ARG,
	  "x: job name \"w\\xc0\\xa7\" is not valid UTF-8" },
	{ NULL },
};
/* clang-format on */

static void test_json_error(gconstpointer data)
{
	const err_case *c = data;
	cr_error err = CR_ERROR_INIT;
	cr_spec *s = cr_spec_from_json(c->json, strlen(c->json), c->what, &err);

	g_assert_null(s);
	g_assert_cmpint(err.code, ==, c->status);
	g_assert_cmpstr(err.message, ==, c->message);
}

/* ---- master URL (§2, §14.16) ------------------------------------------------ */

typedef struct url_case {
	const char *name;
	const char *address, *rpc_layer, *url;
} url_case;

/* clang-format off */
static const url_case url_cases[] = {
	{ "grpc", "worker0:2222", "grpc", "grpc://worker0:2222" },
	{ "no-layer", "worker2:2222", NULL, "worker2:2222" },
	{ "empty-layer", "worker2:2222", "", "worker2:2222" },
	{ "no-dedup", "grpc://x", "grpc", "grpc://grpc://x" },
	{ "empty-address-fixed", "", "grpc", "" },
	{ "empty-address-no-layer", "", NULL, "" },
	{ "null-address", NULL, "grpc", "" },
	{ "ipv6", "[::1]:2222", "grpc", "grpc://[::1]:2222" },
	{ "other-layer", "worker1:2222", "test", "test://worker1:2222" },
	{ NULL },
};
/* clang-format on */

static void test_url(gconstpointer data)
{
	const url_case *c = data;
	char *url = format_master_url(c->address, c->rpc_layer);

	g_assert_cmpstr(url, ==, c->url);
	g_free(url);
}

static void test_null_args(void)
{
	cr_error err = CR_ERROR_INIT;
	uint8_t *buf;
	size_t len;
	char *json = cr_spec_to_json(NULL);

	g_assert_cmpstr(json, ==, "{}");
	cr_free(json);
	g_assert_cmpint(cr_spec_num_jobs(NULL), ==, 0);
	g_assert_null(cr_spec_copy(NULL));
	g_assert_cmpint(cr_spec_to_clusterdef(NULL, &buf, &len, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "cr_spec_to_clusterdef: NULL argument");
	g_assert_cmpint(cr_spec_task_address(NULL, NULL, 0, NULL, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "No such job in cluster: None");
	cr_spec_free(NULL);
}

#define ADD_CASES(prefix, table, fn)                                                               \
	for (size_t i = 0; table[i].name != NULL; i++) {                                           \
		char *p = g_strdup_printf("/spec/%s/%s", prefix, table[i].name);                   \
		g_test_add_data_func(p, &table[i], fn);                                            \
		g_free(p);                                                                         \
	}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	ADD_CASES("json", json_cases, test_json);
	ADD_CASES("access", access_cases, test_access);
	ADD_CASES("build", build_cases, test_build);
	ADD_CASES("equal", eq_cases, test_equal);
	ADD_CASES("json-error", err_cases, test_json_error);
	ADD_CASES("master-url", url_cases, test_url);
	g_test_add_func("/spec/build/many", test_build_many);
	g_test_add_func("/spec/null-args", test_null_args);
	g_test_add_func("/spec/readers-in-threads", test_readers_in_threads);
	return g_test_run();
}
