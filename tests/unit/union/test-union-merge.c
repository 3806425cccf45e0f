/* SPDX-License-Identifier: MIT */
/*
 * test-union-merge.c - union_merge alone, with no plugin and no context:
 * answers are builders filled through the host's result functions, the
 * identity overrides a const struct. Each case gives the answers and the
 * overrides beside the exact `json` output or error.
 */
#include <string.h>

#include "pipeline/pipeline-private.h"

typedef struct answer {
	const char *tasks;     /* "job=addr,job=addr" dense; "job#3=addr" sparse;
				* "job*4": the job has 4 tasks (launcher "torchrun") */
	const char *task_type; /* result_set_task when non-NULL */
	long long task_id;
	const char *rpc_layer; /* result_set_rpc_layer when non-NULL */
} answer;

typedef struct merge_case {
	const char *name;
	answer answers[3]; /* ends at tasks == NULL */
	union_overrides over;
	int status;
	const char *expect; /* `json` format, or the error message */
} merge_case;

#define NONE                                                                                       \
	{                                                                                          \
		NULL, -1, NULL, false                                                              \
	}

/* clang-format off */
static const merge_case cases[] = {
	{ "one-answer-whole",
	  { { "worker=w0:1,worker=w1:1", "worker", 1, "grpc" } }, NONE, 0,
	  "{\"cluster\": {\"worker\": [\"w0:1\", \"w1:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}, "
	  "\"rpc_layer\": \"grpc\", \"master\": \"grpc://w1:1\", \"num_accelerators\": {}}\n" },
	{ "dense-answers-concatenate",
	  { { "worker=a0,ps=p0", NULL, -1, NULL }, { "worker=b0,worker=b1", "worker", 2, "grpc" } },
	  NONE, 0,
	  "{\"cluster\": {\"worker\": [\"a0\", \"b0\", \"b1\"], \"ps\": [\"p0\"]}, "
	  "\"task\": {\"type\": \"worker\", \"index\": 2}, \"rpc_layer\": \"grpc\", \"master\": \"grpc://b1\", "
	  "\"num_accelerators\": {}}\n" },
	{ "overrides-beat-answers",
	  { { "worker=a0,worker=a1", "worker", 0, "grpc" } }, { "worker", 1, "grpc+verbs", true }, 0,
	  "{\"cluster\": {\"worker\": [\"a0\", \"a1\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}, "
	  "\"rpc_layer\": \"grpc+verbs\", \"master\": \"grpc+verbs://a1\", \"num_accelerators\": {}}\n" },
	{ "override-no-rpc-layer",
	  { { "worker=a0", "worker", 0, "grpc" } }, { NULL, -1, NULL, true }, 0,
	  "{\"cluster\": {\"worker\": [\"a0\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, "
	  "\"master\": \"a0\", \"num_accelerators\": {}}\n" },
	{ "override-task-id-zero-counts",
	  { { "worker=a0,worker=a1", "worker", 1, NULL } }, { NULL, 0, NULL, false }, 0,
	  "{\"cluster\": {\"worker\": [\"a0\", \"a1\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, "
	  "\"master\": \"a0\", \"num_accelerators\": {}}\n" },
	{ "dense-then-sparse-merge",
	  { { "worker=a0,worker=a1", NULL, -1, NULL }, { "worker#5=b5", NULL, -1, NULL } }, NONE, 0,
	  "{\"cluster\": {\"worker\": {\"0\": \"a0\", \"1\": \"a1\", \"5\": \"b5\"}}, \"master\": \"\", "
	  "\"num_accelerators\": {}}\n" },
	{ "sparse-conflict-names-both",
	  { { "worker=a0,worker=a1", NULL, -1, NULL }, { "worker#1=b1", NULL, -1, NULL } }, NONE,
	  CR_ERR_CONFLICT,
	  "job 'worker' task 1 is defined by both resolver 'a' (a.conf:1) and resolver 'b' (a.conf:2)" },
	/* A job of a declared size (torchrun's WORLD_SIZE, task 0 its
	 * MASTER_ADDR) and the rules of docs/semantics.md. */
	{ "partial-alone-keeps-unknowns",
	  { { "worker*4,worker#0=m:29500", "worker", 3, NULL } }, NONE, 0,
	  "{\"cluster\": {\"worker\": [\"m:29500\", null, null, null]}, \"task\": {\"type\": \"worker\", \"index\": 3}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n" },
	{ "same-size-answer-fills-unknowns",
	  { { "worker*4,worker#0=m:29500", "worker", 3, NULL }, { "worker=h0:1,worker=h1:1,worker=h2:1,worker=h3:1", "worker", 0, NULL } }, NONE, 0,
	  "{\"cluster\": {\"worker\": [\"m:29500\", \"h1:1\", \"h2:1\", \"h3:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 3}, "
	  "\"master\": \"h3:1\", \"num_accelerators\": {}}\n" },
	{ "first-in-config-order-wins-a-task",
	  { { "worker=h0:1,worker=h1:1", NULL, -1, NULL }, { "worker*2,worker#0=m:29500", "worker", 1, NULL } }, NONE, 0,
	  "{\"cluster\": {\"worker\": [\"h0:1\", \"h1:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}, "
	  "\"master\": \"h1:1\", \"num_accelerators\": {}}\n" },
	{ "other-size-answer-adds-nothing",
	  { { "worker*4,worker#0=m:29500", "worker", 1, NULL }, { "worker=n0:1,worker=n1:1,ps=p0:1", NULL, -1, NULL } }, NONE, 0,
	  "{\"cluster\": {\"worker\": [\"m:29500\", null, null, null], \"ps\": [\"p0:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n" },
	{ "two-declared-sizes-conflict",
	  { { "worker*4,worker#0=m:29500", NULL, -1, NULL }, { "worker*2", NULL, -1, NULL } }, NONE,
	  CR_ERR_CONFLICT,
	  "job 'worker' has 4 tasks by resolver 'a' (torchrun) and 2 by resolver 'b' (torchrun)" },
	{ "same-declared-sizes-share-addresses",
	  { { "worker*3,worker#0=m:29500", NULL, -1, NULL }, { "worker*3,worker#2=c:1", "worker", 1, NULL } }, NONE, 0,
	  "{\"cluster\": {\"worker\": [\"m:29500\", null, \"c:1\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}, "
	  "\"master\": \"\", \"num_accelerators\": {}}\n" },
};
/* clang-format on */

static cr_result_builder *build(cr_instance *inst, const answer *a)
{
	cr_result_builder *b = builder_new(inst);
	char **tasks = g_strsplit(a->tasks, ",", -1);

	for (char **t = tasks; *t != NULL && **t != '\0'; t++) {
		char *eq = strchr(*t, '='), *hash = strchr(*t, '#'), *star = strchr(*t, '*');

		if (star != NULL) {
			*star = '\0';
			g_assert_cmpint(
				host_result_set_job_size(b, *t, g_ascii_strtoll(star + 1, NULL, 10),
							 "torchrun", NULL),
				==, CR_OK);
			continue;
		}
		*eq = '\0';
		if (hash != NULL) {
			*hash = '\0';
			g_assert_cmpint(host_result_add_task(b, *t,
							     g_ascii_strtoll(hash + 1, NULL, 10),
							     eq + 1, NULL),
					==, CR_OK);
		} else {
			g_assert_cmpint(host_result_append_task(b, *t, eq + 1, NULL), ==, CR_OK);
		}
	}
	g_strfreev(tasks);
	if (a->task_type != NULL)
		g_assert_cmpint(host_result_set_task(b, a->task_type, a->task_id, NULL), ==, CR_OK);
	if (a->rpc_layer != NULL)
		g_assert_cmpint(host_result_set_rpc_layer(b, a->rpc_layer, NULL), ==, CR_OK);
	return b;
}

static void run_case(gconstpointer data)
{
	const merge_case *c = data;
	cr_instance inst[3];
	static const char *const labels[] = { "resolver 'a'", "resolver 'b'", "resolver 'c'" };
	static const char *const wheres[] = { "a.conf:1", "a.conf:2", "a.conf:3" };
	cr_error err = CR_ERROR_INIT;
	union_state *u = union_new();
	cr_result *res = NULL;
	char *text = NULL;
	cr_status st;

	memset(inst, 0, sizeof(inst));
	for (int i = 0; i < 3 && c->answers[i].tasks != NULL; i++) {
		inst[i].label = (char *)labels[i];
		inst[i].where = (char *)wheres[i];
		union_take(u, build(&inst[i], &c->answers[i]));
	}
	st = union_merge(u, &c->over, &res, &err);
	union_free(u);
	g_assert_cmpint(st, ==, c->status);
	if (st != CR_OK) {
		g_assert_null(res);
		g_assert_cmpstr(err.message, ==, c->expect);
		return;
	}
	g_assert_cmpint(cr_result_format(res, "json", NULL, &text, NULL, &err), ==, CR_OK);
	g_assert_cmpstr(text, ==, c->expect);
	cr_free(text);
	cr_result_free(res);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *path = g_strdup_printf("/union-merge/%s", cases[i].name);

		g_test_add_data_func(path, &cases[i], run_case);
		g_free(path);
	}
	return g_test_run();
}
