/* SPDX-License-Identifier: MIT */
/*
 * test-example-unit.c - unit tests of example.so in cr-testhost, the fake
 * host installed with the SDK: each case gives the plugin's config group,
 * the files and the variable it may see, and the exact answer. Nothing of
 * the machine running the test leaks in: the environment and the file
 * system the plugin sees are empty but for what a case puts there.
 *
 *   test-example-unit PATH/example.so
 */
#include <stdio.h>
#include <string.h>

#include <cluster-resolver/testhost.h>

#define HOSTS "# the example cluster\nnode0:2222\nnode1:2222   # a comment\n\nnode2:2223\n"

struct example_case {
	const char *name;
	const char *config; /* the plugin's group */
	const char *hosts;  /* contents of /etc/cluster/hosts, NULL: no file */
	const char *env;    /* "NAME=value" the plugin may see, NULL: none */
	cr_status status;   /* of cr_testhost_load(), else of cr_testhost_resolve() */
	const char *out;    /* what `cluster-resolver resolve --format json` prints */
	const char *err;    /* the message; @PLUGIN@ stands for the plugin's path */
};

#define FILE_OPT "file = \"/etc/cluster/hosts\";"

static const struct example_case cases[] = {
	{ "resolves", FILE_OPT, HOSTS, "EXAMPLE_TASK_INDEX=2", CR_OK,
	  "{\"cluster\": {\"worker\": [\"node0:2222\", \"node1:2222\", \"node2:2223\"]}, "
	  "\"task\": {\"type\": \"worker\", \"index\": 2}, \"master\": \"node2:2223\", "
	  "\"num_accelerators\": {}}\n",
	  "" },
	{ "own-job-and-variable", FILE_OPT "\njob = \"trainer\"; index_variable = \"RANK\";",
	  "a:1\n", "RANK=0", CR_OK,
	  "{\"cluster\": {\"trainer\": [\"a:1\"]}, \"task\": {\"type\": \"trainer\", \"index\": "
	  "0}, "
	  "\"master\": \"a:1\", \"num_accelerators\": {}}\n",
	  "" },
	{ "declines-without-index", FILE_OPT, HOSTS, NULL, CR_DECLINED, NULL,
	  "no resolver applies here (declined: example)" },
	{ "bad-index", FILE_OPT, HOSTS, "EXAMPLE_TASK_INDEX=two", CR_ERR_INVALID_ARG, NULL,
	  "resolver 'example': EXAMPLE_TASK_INDEX=\"two\" is not a task index (0..2147483647)" },
	{ "no-file", FILE_OPT, NULL, "EXAMPLE_TASK_INDEX=0", CR_ERR_NOT_FOUND, NULL,
	  "resolver 'example': cannot read /etc/cluster/hosts: No such file or directory" },
	{ "file-required", "job = \"w\";", NULL, NULL, CR_ERR_CONFIG, NULL,
	  "(string):1: resolver 'example': missing required key 'file'" },
	{ "unknown-key", FILE_OPT "\nindex_varaible = \"X\";", NULL, NULL, CR_ERR_CONFIG, NULL,
	  "(string):2: resolver 'example': unknown key 'index_varaible' (did you mean "
	  "'index_variable'?)" },
	{ "empty-job", FILE_OPT " job = \"\";", HOSTS, "EXAMPLE_TASK_INDEX=0", CR_ERR_CONFIG, NULL,
	  "resolver 'example' (@PLUGIN@): create failed: option job must not be empty" },
};

/* @text with "@PLUGIN@" replaced by @plugin, into @buf. */
static const char *expand(const char *text, const char *plugin, char *buf, size_t size)
{
	const char *at = strstr(text, "@PLUGIN@");

	if (at == NULL)
		return text;
	snprintf(buf, size, "%.*s%s%s", (int)(at - text), text, plugin, at + strlen("@PLUGIN@"));
	return buf;
}

static int check(const char *what, const char *name, const char *want, const char *got)
{
	if (strcmp(want, got != NULL ? got : "") == 0)
		return 0;
	printf("FAIL %s: %s\n  expected [%s]\n  got      [%s]\n", name, what, want,
	       got != NULL ? got : "(null)");
	return 1;
}

static int run_case(const char *plugin, const struct example_case *c)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = cr_testhost_new(&err);
	const char *out = NULL;
	char want_err[1024];
	cr_status st;
	int fail = 0;

	if (th == NULL) {
		printf("FAIL %s: %s\n", c->name, err.message);
		return 1;
	}
	st = cr_testhost_load(th, plugin, c->config, &err);
	if (st == CR_OK && c->hosts != NULL)
		st = cr_testhost_add_file(th, "/etc/cluster/hosts", c->hosts, (size_t)-1, &err);
	if (st == CR_OK && c->env != NULL) {
		char name[64];
		size_t n = strcspn(c->env, "=");

		snprintf(name, sizeof(name), "%.*s", (int)n, c->env);
		st = cr_testhost_setenv(th, name, c->env + n + 1, &err);
	}
	if (st == CR_OK)
		st = cr_testhost_resolve(th, "json", &out, &err);
	if (st != c->status) {
		printf("FAIL %s: status %d (%s), expected %d\n", c->name, st, err.message,
		       c->status);
		fail = 1;
	}
	fail |= check("output", c->name, c->out != NULL ? c->out : "", out);
	fail |= check("message", c->name, expand(c->err, plugin, want_err, sizeof(want_err)),
		      err.message);
	/* The plugin never makes an HTTP request: the empty script is kept. */
	if (cr_testhost_verify(th, &err) != CR_OK)
		fail |= check("HTTP script", c->name, "", err.message);
	cr_testhost_free(th);
	return fail;
}

int main(int argc, char **argv)
{
	int failed = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/example.so\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fail = run_case(argv[1], &cases[i]);

		printf("%s %s\n", fail ? "not ok" : "ok", cases[i].name);
		failed += fail;
	}
	printf("%d of %zu cases failed\n", failed, sizeof(cases) / sizeof(cases[0]));
	return failed != 0;
}
