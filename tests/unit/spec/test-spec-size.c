/* SPDX-License-Identifier: MIT */
/*
 * test-spec-size.c - a job's declared size through the public API (ABI
 * 1.3): cr_spec_set_job_size, cr_spec_job_size, cr_spec_task_known,
 * cr_spec_num_unknown, and how a sized job copies, compares and is written
 * as JSON ("N tasks, task 0 at ADDR, the others unknown").
 */
#include <cluster-resolver/cluster-resolver.h>

#include <glib.h>

static cr_spec *torchrun_world(void)
{
	cr_spec *s = cr_spec_new();

	g_assert_cmpint(cr_spec_set_job_size(s, "worker", 4, NULL), ==, CR_OK);
	g_assert_cmpint(cr_spec_add_task(s, "worker", 0, "node-a:29500", NULL), ==, CR_OK);
	return s;
}

static void test_size_and_known(void)
{
	cr_spec *s = torchrun_world();
	cr_error err = CR_ERROR_INIT;
	size_t size = 0, n = 0;
	bool known = false;

	g_assert_cmpint(cr_spec_job_size(s, "worker", &size, NULL), ==, CR_OK);
	g_assert_cmpuint(size, ==, 4);
	g_assert_cmpint(cr_spec_num_tasks(s, "worker", &n, NULL), ==, CR_OK);
	g_assert_cmpuint(n, ==, 1);
	g_assert_cmpuint(cr_spec_num_unknown(s, "worker"), ==, 3);
	g_assert_cmpuint(cr_spec_num_unknown(s, NULL), ==, 3);
	g_assert_cmpint(cr_spec_task_known(s, "worker", 0, &known, NULL), ==, CR_OK);
	g_assert_true(known);
	g_assert_cmpint(cr_spec_task_known(s, "worker", 3, &known, NULL), ==, CR_OK);
	g_assert_false(known);
	g_assert_cmpint(cr_spec_task_known(s, "worker", 4, &known, &err), ==, CR_ERR_NOT_FOUND);
	g_assert_cmpstr(err.message, ==, "No task with index 4 in job 'worker'");
	g_assert_cmpint(cr_spec_job_size(s, "ps", &size, &err), ==, CR_ERR_NOT_FOUND);
	g_assert_cmpstr(err.message, ==, "No such job in cluster: 'ps'");
	g_assert_cmpuint(cr_spec_num_unknown(s, "ps"), ==, 0);
	/* The unknown task has no address: the ABI 1.0 readers say so. */
	g_assert_cmpint(cr_spec_task_address(s, "worker", 3, NULL, NULL), ==, CR_ERR_NOT_FOUND);
	cr_spec_free(s);
}

static void test_json_shows_null(void)
{
	cr_spec *s = torchrun_world();
	char *json = cr_spec_to_json(s);

	g_assert_cmpstr(json, ==, "{\"worker\": [\"node-a:29500\", null, null, null]}");
	cr_free(json);
	cr_spec_free(s);
}

static void test_without_declared_size(void)
{
	cr_spec *s = cr_spec_new();
	size_t size = 0;
	bool known = true;

	g_assert_cmpint(cr_spec_add_task(s, "worker", 0, "a:1", NULL), ==, CR_OK);
	g_assert_cmpint(cr_spec_add_task(s, "worker", 5, "b:1", NULL), ==, CR_OK);
	/* A sparse job's holes are no tasks: its size is its tasks. */
	g_assert_cmpint(cr_spec_job_size(s, "worker", &size, NULL), ==, CR_OK);
	g_assert_cmpuint(size, ==, 2);
	g_assert_cmpuint(cr_spec_num_unknown(s, NULL), ==, 0);
	g_assert_cmpint(cr_spec_task_known(s, "worker", 3, &known, NULL), ==, CR_ERR_NOT_FOUND);
	g_assert_cmpint(cr_spec_task_known(s, "worker", 5, &known, NULL), ==, CR_OK);
	g_assert_true(known);
	cr_spec_free(s);
}

static void test_refusals(void)
{
	cr_spec *s = torchrun_world();
	cr_error err = CR_ERROR_INIT;
	size_t size = 0;

	g_assert_cmpint(cr_spec_set_job_size(s, "worker", 0, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==, "size 0 of job 'worker' is out of range (1..2147483648)");
	g_assert_cmpint(cr_spec_add_task(s, "worker", 6, "late:1", NULL), ==, CR_OK);
	g_assert_cmpint(cr_spec_job_size(s, "worker", &size, NULL), ==, CR_OK);
	g_assert_cmpuint(size, ==, 7); /* a task beyond the size grows it */
	g_assert_cmpint(cr_spec_set_job_size(s, "worker", 5, &err), ==, CR_ERR_CONFLICT);
	g_assert_cmpstr(err.message, ==,
			"job 'worker' cannot have 5 tasks: it has a task at index 6");
	g_assert_cmpint(cr_spec_set_job_size(NULL, "worker", 5, &err), ==, CR_ERR_INVALID_ARG);
	cr_spec_free(s);
}

static void test_copy_and_equal(void)
{
	cr_spec *s = torchrun_world();
	cr_spec *c = cr_spec_copy(s);
	cr_spec *plain = cr_spec_new();

	g_assert_true(cr_spec_equal(s, c));
	g_assert_cmpuint(cr_spec_num_unknown(c, "worker"), ==, 3);
	g_assert_cmpint(cr_spec_add_task(plain, "worker", 0, "node-a:29500", NULL), ==, CR_OK);
	/* The same addresses, but one says there are 3 more tasks. */
	g_assert_false(cr_spec_equal(s, plain));
	cr_spec_free(plain);
	cr_spec_free(c);
	cr_spec_free(s);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	g_test_add_func("/spec-size/size-and-known", test_size_and_known);
	g_test_add_func("/spec-size/json-shows-null", test_json_shows_null);
	g_test_add_func("/spec-size/without-declared-size", test_without_declared_size);
	g_test_add_func("/spec-size/refusals", test_refusals);
	g_test_add_func("/spec-size/copy-and-equal", test_copy_and_equal);
	return g_test_run();
}
