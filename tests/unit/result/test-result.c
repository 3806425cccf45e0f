/* SPDX-License-Identifier: MIT */
/*
 * test-result.c - what the union does with the answers it is handed: one
 * answer becomes the result whole; several are moved task by task (dense
 * jobs follow each other, sparse ones keep their indices, a clash names
 * both resolvers); per-task accelerator counts follow their tasks; tasks
 * with equal counts share one table that is copied before it changes.
 */
#include <string.h>

#include "pipeline/pipeline-private.h"

/* One task: "job:index=address". */
typedef struct task {
	const char *job;
	int index; /* -1 = append */
	const char *address;
	int gpus; /* > 0: per-task GPU count */
} task;

/* An answer of @n tasks, labelled @label (as a loaded instance would be). */
static cr_result_builder *answer(cr_instance *inst, const task *tasks, size_t n)
{
	cr_result_builder *b = builder_new(inst);

	for (size_t i = 0; i < n; i++) {
		const task *t = &tasks[i];
		int64_t index = t->index;

		if (t->address == NULL) {
			g_assert_cmpint(host_result_add_job(b, t->job, NULL), ==, CR_OK);
			continue;
		}
		if (t->index < 0) {
			size_t count = 0;

			g_assert_cmpint(host_result_append_task(b, t->job, t->address, NULL), ==,
					CR_OK);
			g_assert_cmpint(cr_spec_num_tasks(b->spec, t->job, &count, NULL), ==,
					CR_OK);
			index = (int64_t)count - 1;
		} else {
			g_assert_cmpint(host_result_add_task(b, t->job, t->index, t->address, NULL),
					==, CR_OK);
		}
		if (t->gpus > 0)
			g_assert_cmpint(host_result_set_task_accelerators(b, t->job, index, "GPU",
									  t->gpus, NULL),
					==, CR_OK);
	}
	return b;
}

typedef struct fixture {
	union_overrides over; /* none */
	cr_instance inst[2];
	union_state *u;
} fixture;

static void fixture_init(fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->over.task_id = -1;
	f->inst[0].label = (char *)"resolver 'a'";
	f->inst[0].where = (char *)"a.conf:1";
	f->inst[1].label = (char *)"resolver 'b'";
	f->inst[1].where = (char *)"a.conf:2";
	f->u = union_new();
}

static void fixture_clear(fixture *f)
{
	union_free(f->u);
}

static char *cluster_json(const cr_result *res)
{
	return cr_spec_to_json(cr_result_spec(res));
}

/* Accelerator counts the result holds for one task, as JSON. */
static char *task_gpus(const cr_result *res, const char *job, int64_t index)
{
	char *json = NULL;

	g_assert_cmpint(cr_result_accelerators_json(res, job, index, false, &json, NULL), ==,
			CR_OK);
	return json;
}

#define T(job, index, addr, gpus)                                                                  \
	{                                                                                          \
		job, index, addr, gpus                                                             \
	}

static void test_one_answer_whole(void)
{
	static const task a[] = { T("ps", -1, "p0:1", 0), T("worker", -1, "w0:1", 2),
				  T("worker", -1, "w1:1", 2), T("chief", -1, NULL, 0) };
	fixture f;
	cr_result *res = NULL;
	cr_result_builder *b;
	const cr_spec *answered;
	char *s;

	fixture_init(&f);
	b = answer(&f.inst[0], a, G_N_ELEMENTS(a));
	answered = b->spec;
	union_take(f.u, b);
	g_assert_cmpint(union_merge(f.u, &f.over, &res, NULL), ==, CR_OK);
	/* the answer's spec itself, not a copy */
	g_assert_true(cr_result_spec(res) == answered);
	s = cluster_json(res);
	g_assert_cmpstr(s, ==,
			"{\"ps\": [\"p0:1\"], \"worker\": [\"w0:1\", \"w1:1\"], \"chief\": []}");
	g_free(s);
	s = task_gpus(res, "worker", 1);
	g_assert_cmpstr(s, ==, "{\"GPU\": 2}");
	g_free(s);
	s = task_gpus(res, "ps", 0);
	g_assert_cmpstr(s, ==, "{}");
	g_free(s);
	cr_result_free(res);
	fixture_clear(&f);
}

static void test_dense_answers_follow(void)
{
	static const task a[] = { T("ps", -1, "p0:1", 0), T("worker", -1, "a0:1", 1),
				  T("worker", -1, "a1:1", 0) };
	static const task b[] = { T("worker", -1, "b0:1", 3), T("worker", -1, "b1:1", 4),
				  T("chief", -1, "c0:1", 0) };
	fixture f;
	cr_result *res = NULL;
	char *s;

	fixture_init(&f);
	union_take(f.u, answer(&f.inst[0], a, G_N_ELEMENTS(a)));
	union_take(f.u, answer(&f.inst[1], b, G_N_ELEMENTS(b)));
	g_assert_cmpint(union_merge(f.u, &f.over, &res, NULL), ==, CR_OK);
	s = cluster_json(res);
	g_assert_cmpstr(
		s, ==,
		"{\"ps\": [\"p0:1\"], \"worker\": [\"a0:1\", \"a1:1\", \"b0:1\", \"b1:1\"], "
		"\"chief\": [\"c0:1\"]}");
	g_free(s);
	/* b's tasks 0 and 1 are now 2 and 3, with their counts */
	static const char *const want[] = { "{\"GPU\": 1}", "{}", "{\"GPU\": 3}", "{\"GPU\": 4}" };
	for (int64_t i = 0; i < 4; i++) {
		s = task_gpus(res, "worker", i);
		g_assert_cmpstr(s, ==, want[i]);
		g_free(s);
	}
	cr_result_free(res);
	fixture_clear(&f);
}

static void test_sparse_keeps_indices(void)
{
	static const task a[] = { T("worker", -1, "a0:1", 0), T("worker", -1, "a1:1", 0) };
	static const task b[] = { T("worker", 5, "b5:1", 2), T("worker", 3, "b3:1", 0),
				  T("worker", 9, "b9:1", 0) };
	fixture f;
	cr_result *res = NULL;
	char *s;

	fixture_init(&f);
	union_take(f.u, answer(&f.inst[1], b, G_N_ELEMENTS(b)));
	union_take(f.u, answer(&f.inst[0], a, G_N_ELEMENTS(a)));
	g_assert_cmpint(union_merge(f.u, &f.over, &res, NULL), ==, CR_OK);
	s = cluster_json(res);
	g_assert_cmpstr(s, ==,
			"{\"worker\": {\"0\": \"a0:1\", \"1\": \"a1:1\", \"3\": \"b3:1\", "
			"\"5\": \"b5:1\", \"9\": \"b9:1\"}}");
	g_free(s);
	s = task_gpus(res, "worker", 5);
	g_assert_cmpstr(s, ==, "{\"GPU\": 2}");
	g_free(s);
	cr_result_free(res);
	fixture_clear(&f);
}

static void test_sparse_clash_names_both(void)
{
	static const task a[] = { T("worker", 2, "a2:1", 0), T("worker", 7, "a7:1", 0) };
	static const task b[] = { T("worker", -1, "b0:1", 0), T("worker", -1, "b1:1", 0),
				  T("worker", -1, "b2:1", 0) };
	fixture f;
	cr_error err = CR_ERROR_INIT;
	cr_result *res = NULL;

	fixture_init(&f);
	union_take(f.u, answer(&f.inst[0], a, G_N_ELEMENTS(a)));
	union_take(f.u, answer(&f.inst[1], b, G_N_ELEMENTS(b)));
	g_assert_cmpint(union_merge(f.u, &f.over, &res, &err), ==, CR_ERR_CONFLICT);
	g_assert_cmpstr(err.message, ==,
			"job 'worker' task 2 is defined by both resolver 'a' (a.conf:1) and "
			"resolver 'b' (a.conf:2)");
	g_assert_null(res);
	fixture_clear(&f);
}

/* Equal counts share a table; changing one task's counts leaves the rest. */
static void test_shared_counts_copy_on_change(void)
{
	static const task a[] = { T("worker", -1, "w0:1", 1), T("worker", -1, "w1:1", 1),
				  T("worker", -1, "w2:1", 1), T("worker", -1, "w3:1", 2) };
	cr_result_builder *b;
	GHashTable *t0, *t1;
	fixture f;
	cr_result *res = NULL;
	char *s;

	fixture_init(&f);
	b = answer(&f.inst[0], a, G_N_ELEMENTS(a));
	t0 = g_hash_table_lookup(b->task_accel, "worker\n0");
	t1 = g_hash_table_lookup(b->task_accel, "worker\n1");
	g_assert_nonnull(t0);
	g_assert_true(t0 == t1);
	g_assert_cmpint(host_result_set_task_accelerators(b, "worker", 1, "TPU", 4, NULL), ==,
			CR_OK);
	g_assert_cmpint(host_result_set_task_accelerators(b, "worker", 0, "GPU", 8, NULL), ==,
			CR_OK);
	g_assert_cmpint(host_result_set_task_accelerators(b, "worker", 3, "GPU", 5, NULL), ==,
			CR_OK);
	union_take(f.u, b);
	g_assert_cmpint(union_merge(f.u, &f.over, &res, NULL), ==, CR_OK);
	static const char *const want[] = { "{\"GPU\": 8}", "{\"GPU\": 1, \"TPU\": 4}",
					    "{\"GPU\": 1}", "{\"GPU\": 5}" };
	for (int64_t i = 0; i < 4; i++) {
		s = task_gpus(res, "worker", i);
		g_assert_cmpstr(s, ==, want[i]);
		g_free(s);
	}
	cr_result_free(res);
	fixture_clear(&f);
}

static cr_spec *spec_of(const char *json)
{
	cr_spec *spec = cr_spec_from_json(json, strlen(json), "test", NULL);

	g_assert_nonnull(spec);
	return spec;
}

static void assert_spec(const cr_spec *spec, const char *json)
{
	char *s = cr_spec_to_json(spec);

	g_assert_cmpstr(s, ==, json);
	g_free(s);
}

/* spec_take_tasks: the addresses move; the source job is left empty and
 * the source can be freed at once. */
static void test_take_tasks(void)
{
	cr_spec *dst = cr_spec_new();
	cr_spec *src, *other;
	cr_error err = CR_ERROR_INIT;

	src = spec_of("{\"w\": [\"a\", \"b\"]}");
	g_assert_cmpint(spec_take_tasks(dst, src, "w", 0, &err), ==, CR_OK);
	assert_spec(src, "{\"w\": []}");
	cr_spec_free(src);
	src = spec_of("{\"w\": [\"c\"]}");
	g_assert_cmpint(spec_take_tasks(dst, src, "w", 2, &err), ==, CR_OK);
	cr_spec_free(src);
	assert_spec(dst, "{\"w\": [\"a\", \"b\", \"c\"]}");
	/* a clash changes neither side */
	src = spec_of("{\"w\": {\"1\": \"x\", \"7\": \"y\"}}");
	g_assert_cmpint(spec_take_tasks(dst, src, "w", 0, &err), ==, CR_ERR_CONFLICT);
	g_assert_cmpstr(err.message, ==, "job 'w' has two tasks with index 1 ('b' and 'x')");
	assert_spec(dst, "{\"w\": [\"a\", \"b\", \"c\"]}");
	assert_spec(src, "{\"w\": {\"1\": \"x\", \"7\": \"y\"}}");
	cr_spec_free(src);
	/* another job moves on its own */
	src = spec_of("{\"w\": {\"3\": \"d\", \"5\": \"f\"}, \"v\": [\"v0\"]}");
	g_assert_cmpint(spec_take_tasks(dst, src, "v", 0, &err), ==, CR_OK);
	cr_spec_free(src);
	assert_spec(dst, "{\"w\": [\"a\", \"b\", \"c\"], \"v\": [\"v0\"]}");
	/* interleaved indices merge in order */
	other = spec_of("{\"w\": {\"0\": \"a\", \"2\": \"c\", \"8\": \"i\"}}");
	src = spec_of("{\"w\": {\"2\": \"b\", \"4\": \"d\"}}");
	g_assert_cmpint(spec_take_tasks(other, src, "w", -1, &err), ==, CR_OK);
	cr_spec_free(src);
	assert_spec(other, "{\"w\": {\"0\": \"a\", \"1\": \"b\", \"2\": \"c\", \"3\": \"d\", "
			   "\"8\": \"i\"}}");
	cr_spec_free(other);
	/* past int32 */
	src = spec_of("{\"w\": [\"a\", \"b\"]}");
	g_assert_cmpint(spec_take_tasks(dst, src, "w", G_MAXINT32, &err), ==, CR_ERR_INVALID_ARG);
	g_assert_cmpstr(err.message, ==,
			"task index 2147483648 of job 'w' is out of range (0..2147483647)");
	cr_spec_free(src);
	cr_spec_free(dst);
}

/* ---- host->result_add_cluster_json ---------------------------------------- */

/* Builder content first (as_dict JSON added through the walk), then the
 * cluster added on top: the status, the message and the builder after it
 * (unchanged on an error). */
typedef struct cluster_case {
	const char *name;
	const char *before; /* NULL: an empty builder */
	const char *cluster;
	int status;
	const char *message; /* "" when OK */
	const char *after;
} cluster_case;

/* clang-format off */
static const cluster_case cluster_cases[] = {
	{ "dense-sparse-empty", NULL,
	  "{\"w\": [\"a\", \"b\"], \"ps\": {\"3\": \"p3\", \"1\": \"p1\"}, \"e\": [], \"f\": {}}",
	  CR_OK, "", "{\"w\": [\"a\", \"b\"], \"ps\": {\"1\": \"p1\", \"3\": \"p3\"}, \"e\": [], \"f\": []}" },
	{ "other-jobs-kept", "{\"x\": [\"x0\"]}", "{\"w\": {\"0\": \"a\"}}", CR_OK, "",
	  "{\"x\": [\"x0\"], \"w\": [\"a\"]}" },
	{ "fills-a-hole", "{\"w\": {\"1\": \"b\"}}", "{\"w\": {\"0\": \"a\"}}", CR_OK, "",
	  "{\"w\": [\"a\", \"b\"]}" },
	{ "dense-is-0-to-n", "{\"w\": {\"1\": \"b\"}}", "{\"w\": [\"x\", \"y\"]}", CR_ERR_CONFLICT,
	  "t: job 'w' has two tasks with index 1 ('b' and 'y')", "{\"w\": {\"1\": \"b\"}}" },
	{ "conflict-adds-nothing", "{\"w\": [\"a\"]}", "{\"new\": [\"n\"], \"w\": {\"5\": \"f\", \"0\": \"z\"}}",
	  CR_ERR_CONFLICT, "t: job 'w' has two tasks with index 0 ('a' and 'z')", "{\"w\": [\"a\"]}" },
	{ "bad-index-adds-nothing", NULL, "{\"a\": [\"a0\"], \"w\": {\"1\": \"b\", \"+2\": \"c\"}}",
	  CR_ERR_INVALID_ARG, "t: job 'w': task index \"+2\" is not a canonical decimal in 0..2147483647", "{}" },
	{ "leading-zero", NULL, "{\"w\": {\"007\": \"b\"}}", CR_ERR_INVALID_ARG,
	  "t: job 'w': task index \"007\" is not a canonical decimal in 0..2147483647", "{}" },
	{ "past-int32", NULL, "{\"w\": {\"2147483648\": \"b\"}}", CR_ERR_INVALID_ARG,
	  "t: job 'w': task index \"2147483648\" is not a canonical decimal in 0..2147483647", "{}" },
	{ "not-an-object", NULL, "[\"a\"]", CR_ERR_PARSE,
	  "t: the cluster must be an object mapping job names to tasks, not a list", "{}" },
	{ "tasks-a-number", "{\"x\": []}", "{\"w\": 3}", CR_ERR_PARSE,
	  "t: the tasks for job 'w' must be a list or an object from indices to addresses, not a number",
	  "{\"x\": []}" },
	{ "address-a-boolean", NULL, "{\"w\": [\"a\", true]}", CR_ERR_PARSE,
	  "t: job 'w' task 1: address must be a string, not a boolean", "{}" },
	{ "sparse-address-an-object", NULL, "{\"w\": {\"4\": {}}}", CR_ERR_PARSE,
	  "t: job 'w' task 4: address must be a string, not an object", "{}" },
	{ NULL },
};
/* clang-format on */

static void test_add_cluster_json(gconstpointer data)
{
	const cluster_case *c = data;
	cr_result_builder *b = builder_new(NULL);
	cr_error err = CR_ERROR_INIT;
	cr_json *before = NULL, *cluster = NULL;

	if (c->before != NULL) {
		g_assert_cmpint(host_json_parse(c->before, strlen(c->before), "b", &before, NULL),
				==, CR_OK);
		g_assert_cmpint(host_result_add_cluster_json(b, before, "b", NULL), ==, CR_OK);
	}
	g_assert_cmpint(host_json_parse(c->cluster, strlen(c->cluster), "t", &cluster, NULL), ==,
			CR_OK);
	/* no builder: the same checks, nothing kept (a create() checking) */
	g_assert_cmpint(host_result_add_cluster_json(NULL, cluster, "t", &err), ==,
			c->status == CR_ERR_CONFLICT ? CR_OK : c->status);
	err = (cr_error)CR_ERROR_INIT;
	g_assert_cmpint(host_result_add_cluster_json(b, cluster, "t", &err), ==, c->status);
	g_assert_cmpstr(err.message, ==, c->message);
	assert_spec(b->spec, c->after);
	host_json_free(before);
	host_json_free(cluster);
	builder_free(b);
}

/* ---- devices of a task (cr_accel_device.task_job / task_index) ----------- */

/* One local device: "KIND" (unassigned), "KIND@JOB:INDEX", or "KIND/1.0" (a
 * 1.0 plugin's shorter struct, past which the host must not read). */
typedef struct devices_case {
	const char *name;
	const char *devices[6]; /* see add_device() */
	const char *own_job;    /* this process's task, or NULL (unknown) */
	int own_index;
	const char *ask_job; /* the task asked about; NULL = this process's */
	int ask_index;
	const char *json;   /* cr_result_accelerators_json(.., devices = false) */
	const char *listed; /* the "devices" array (.., devices = true) */
} devices_case;

/* clang-format off */
static const devices_case devices_cases[] = {
	{ "unassigned-count-for-me", { "GPU", "GPU", "TPU" }, "worker", 0, NULL, -1,
	  "{\"GPU\": 2, \"TPU\": 1}",
	  "[{\"plugin\": \"\", \"kind\": \"GPU\"}, {\"plugin\": \"\", \"kind\": \"GPU\"}, {\"plugin\": \"\", \"kind\": \"TPU\"}]" },
	{ "other-tasks-left-out", { "GPU@worker:1", "GPU@worker:0", "GPU" }, "worker", 0, NULL, -1,
	  "{\"GPU\": 2}",
	  "[{\"plugin\": \"\", \"kind\": \"GPU\", \"task_job\": \"worker\", \"task_index\": 0}, {\"plugin\": \"\", \"kind\": \"GPU\"}]" },
	{ "index-1-is-not-10", { "TPU@worker:10", "TPU@worker:1" }, "worker", 1, NULL, -1,
	  "{\"TPU\": 1}",
	  "[{\"plugin\": \"\", \"kind\": \"TPU\", \"task_job\": \"worker\", \"task_index\": 1}]" },
	{ "worker1-is-not-worker10", { "TPU@worker10:0", "TPU@worker1:0" }, "worker1", 0, NULL, -1,
	  "{\"TPU\": 1}",
	  "[{\"plugin\": \"\", \"kind\": \"TPU\", \"task_job\": \"worker1\", \"task_index\": 0}]" },
	{ "work-is-not-worker", { "TPU@worker:0", "TPU@work:0", "TPU@work:0" }, "work", 0, NULL, -1,
	  "{\"TPU\": 2}",
	  "[{\"plugin\": \"\", \"kind\": \"TPU\", \"task_job\": \"work\", \"task_index\": 0}, {\"plugin\": \"\", \"kind\": \"TPU\", \"task_job\": \"work\", \"task_index\": 0}]" },
	/* no task: every device (TensorFlow filters only with type and id) */
	{ "own-task-unknown-counts-all", { "GPU@worker:0", "GPU" }, NULL, -1, NULL, -1,
	  "{\"GPU\": 2}",
	  "[{\"plugin\": \"\", \"kind\": \"GPU\", \"task_job\": \"worker\", \"task_index\": 0}, {\"plugin\": \"\", \"kind\": \"GPU\"}]" },
	{ "another-task", { "TPU@worker:1", "TPU@worker:1", "TPU@worker:0", "TPU" }, "worker", 0,
	  "worker", 1, "{\"TPU\": 2}",
	  "[{\"plugin\": \"\", \"kind\": \"TPU\", \"task_job\": \"worker\", \"task_index\": 1}, {\"plugin\": \"\", \"kind\": \"TPU\", \"task_job\": \"worker\", \"task_index\": 1}]" },
	{ "another-task-none", { "TPU@worker:0", "TPU" }, "worker", 0, "worker", 1, "{}",
	  "[]" },
	{ "abi-1.0-device", { "GPU/1.0", "GPU@worker:5" }, "worker", 0, NULL, -1, "{\"GPU\": 1}",
	  "[{\"plugin\": \"\", \"kind\": \"GPU\"}]" },
	{ NULL },
};
/* clang-format on */

static void add_device(cr_accel_list *list, const char *spec)
{
	cr_accel_device dev = CR_ACCEL_DEVICE_INIT;
	char **parts = g_strsplit_set(spec, "@:", 3);
	char *slash = strchr(parts[0], '/');

	dev.kind = parts[0];
	if (slash != NULL) {
		/* 1.0: a struct that ends before the task fields, alone on the
		 * heap, so a read past it is an ASan error */
		size_t size = offsetof(cr_accel_device, task_job);
		cr_accel_device *old = g_malloc(size);

		*slash = '\0';
		dev.struct_size = size;
		memcpy(old, &dev, size);
		g_assert_cmpint(host_accel_add(list, old, NULL), ==, CR_OK);
		g_free(old);
		g_strfreev(parts);
		return;
	}
	if (parts[1] != NULL) {
		dev.task_job = parts[1];
		dev.task_index = g_ascii_strtoll(parts[2], NULL, 10);
	}
	g_assert_cmpint(host_accel_add(list, &dev, NULL), ==, CR_OK);
	g_strfreev(parts);
}

static void test_devices_of_task(gconstpointer data)
{
	const devices_case *c = data;
	cr_result *res = result_new();
	cr_accel_list list = { .inst = NULL, .devices = res->devices };
	char *json = NULL, *devices;

	res->task_type = g_strdup(c->own_job);
	res->task_id = c->own_index;
	cr_spec_free(res->spec);
	res->spec = spec_of("{\"worker\": [\"a\", \"b\"]}");
	for (size_t i = 0; c->devices[i] != NULL; i++)
		add_device(&list, c->devices[i]);
	if (c->ask_job == NULL) {
		if (accel_count_devices(res, res->task_type, res->task_id, res->accel) > 0)
			res->accel_source = g_strdup("local devices");
	}
	g_assert_cmpint(
		cr_result_accelerators_json(res, c->ask_job, c->ask_index, false, &json, NULL), ==,
		CR_OK);
	g_assert_cmpstr(json, ==, c->json);
	g_free(json);
	g_assert_cmpint(
		cr_result_accelerators_json(res, c->ask_job, c->ask_index, true, &json, NULL), ==,
		CR_OK);
	devices =
		g_strdup_printf("{\"num_accelerators\": %s, \"devices\": %s}", c->json, c->listed);
	g_assert_cmpstr(json, ==, devices);
	g_free(devices);
	g_free(json);
	cr_result_free(res);
}

/* host->json_parse on whole documents, a bare number at the very end too. */
typedef struct parse_case {
	const char *name;
	const char *text;
	const char *out; /* json-c's plain form, or the exact error */
} parse_case;

/* clang-format off */
static const parse_case parse_cases[] = {
	{ "number-at-end", "1", "1" },
	{ "negative-float-at-end", "-2.5", "-2.5" },
	{ "number-then-space", "7 ", "7" },
	{ "true", "true", "true" },
	{ "string", "\"x\"", "\"x\"" },
	{ "object", "{\"a\":1}", "{\"a\":1}" },
	{ "unfinished-array", "[1,", "v: invalid JSON at line 1, column 4 (offset 3): unexpected end of data" },
	{ "number-then-junk", "1x", "v: invalid JSON at line 1, column 2 (offset 1): unexpected character" },
	{ "empty", "", "v: invalid JSON at line 1, column 1 (offset 0): unexpected end of data" },
	{ NULL, NULL, NULL },
};
/* clang-format on */

static void test_json_parse(gconstpointer data)
{
	const parse_case *c = data;
	cr_error err = CR_ERROR_INIT;
	cr_json *root = NULL;
	cr_status st = host_json_parse(c->text, strlen(c->text), "v", &root, &err);

	if (st == CR_OK)
		g_assert_cmpstr(json_object_to_json_string_ext((json_object *)(void *)root,
							       JSON_C_TO_STRING_PLAIN),
				==, c->out);
	else
		g_assert_cmpstr(err.message, ==, c->out);
	host_json_free(root);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (const devices_case *c = devices_cases; c->name != NULL; c++) {
		char *path = g_strconcat("/result/devices-of-task/", c->name, NULL);

		g_test_add_data_func(path, c, test_devices_of_task);
		g_free(path);
	}
	for (const cluster_case *c = cluster_cases; c->name != NULL; c++) {
		char *path = g_strconcat("/result/add-cluster-json/", c->name, NULL);

		g_test_add_data_func(path, c, test_add_cluster_json);
		g_free(path);
	}
	for (const parse_case *c = parse_cases; c->name != NULL; c++) {
		char *path = g_strconcat("/result/json-parse/", c->name, NULL);

		g_test_add_data_func(path, c, test_json_parse);
		g_free(path);
	}
	g_test_add_func("/result/one-answer-whole", test_one_answer_whole);
	g_test_add_func("/result/dense-answers-follow", test_dense_answers_follow);
	g_test_add_func("/result/sparse-keeps-indices", test_sparse_keeps_indices);
	g_test_add_func("/result/sparse-clash-names-both", test_sparse_clash_names_both);
	g_test_add_func("/result/shared-counts-copy-on-change", test_shared_counts_copy_on_change);
	g_test_add_func("/result/take-tasks", test_take_tasks);
	return g_test_run();
}
