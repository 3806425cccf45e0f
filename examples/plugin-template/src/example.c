/* SPDX-License-Identifier: MIT */
/*
 * example.c - a complete out-of-tree cluster-resolver resolver, to copy.
 *
 * It reads the cluster from a plain file, one address per line
 * ("host:port"; blank lines and '#' comments skipped), as the tasks of one
 * job, and takes this process's index from an environment variable:
 *
 *   resolvers = ( { plugin = "example"; file = "/etc/my-cluster/hosts";
 *                   job = "worker"; index_variable = "MY_INDEX"; } );
 *
 * It declines (is skipped) when the index variable is not set, so it can
 * sit in a `sufficient` chain. See cluster-resolver-plugin(7).
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

/* Everything create() read; strings are the host's, valid until destroy(). */
typedef struct example_state {
	const char *file;
	const char *job;
	const char *index_variable;
} example_state;

static cr_status example_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state,
				cr_error *err)
{
	example_state *s = calloc(1, sizeof(*s));

	(void)config; /* plain options only: the opt_* getters are enough */
	if (s == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	/* The host checked types and the required `file` against the schema. */
	s->file = cr_host->opt_string(ctx, "file");
	s->job = cr_host->opt_string(ctx, "job");
	s->index_variable = cr_host->opt_string(ctx, "index_variable");
	if (*s->job == '\0') {
		free(s);
		return cr_host->error_set(err, CR_ERR_CONFIG, "option job must not be empty");
	}
	*state = s;
	return CR_OK;
}

static void example_destroy(void *state)
{
	free(state);
}

/* Not our environment unless the index variable is set. */
static cr_status example_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	example_state *s = state;

	/* Say why in one line: `cluster-resolver explain` and `cr-testhost
	 * probe` show it. */
	if (cr_host->getenv(ctx, s->index_variable) == NULL)
		return cr_host->error_set(err, CR_DECLINED, "%s is not set", s->index_variable);
	return CR_OK;
}

/* Parse the index variable: a decimal 0..2147483647. */
static cr_status example_index(example_state *s, cr_plugin_ctx *ctx, int64_t *out, cr_error *err)
{
	const char *text = cr_host->getenv(ctx, s->index_variable);
	char *end = NULL;
	long long v;

	errno = 0;
	v = text != NULL ? strtoll(text, &end, 10) : -1;
	if (text == NULL || errno != 0 || end == text || *end != '\0' || v < 0 || v > 2147483647)
		return cr_host->error_set(err, CR_ERR_INVALID_ARG,
					  "%s=\"%s\" is not a task index (0..2147483647)",
					  s->index_variable, text != NULL ? text : "");
	*out = v;
	return CR_OK;
}

/* Append each address line of @text to the job. */
static cr_status example_add_lines(example_state *s, cr_result_builder *b, char *text,
				   cr_error *err)
{
	cr_status st = CR_OK;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); st == CR_OK && line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "#\r")] = '\0';
		line += strspn(line, " \t");
		line[strcspn(line, " \t")] = '\0';
		if (*line != '\0')
			st = cr_host->result_append_task(b, s->job, line, err);
	}
	return st;
}

static cr_status example_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b,
				 cr_error *err)
{
	example_state *s = state;
	char *text = NULL;
	size_t len = 0;
	int64_t index = -1;
	cr_status st = example_index(s, ctx, &index, err);

	if (st == CR_OK)
		st = cr_host->read_file(ctx, s->file, 1 << 20, &text, &len, err);
	if (st == CR_OK)
		st = cr_host->result_add_job(b, s->job, err);
	if (st == CR_OK)
		st = example_add_lines(s, b, text, err);
	if (st == CR_OK)
		st = cr_host->result_set_task(b, s->job, index, err);
	cr_host->free(text);
	return st;
}

static const cr_option example_options[] = {
	CR_OPTION("file", CR_OPT_STRING, NULL, CR_OPT_REQUIRED,
		  "file with one task address per line"),
	CR_OPTION("job", CR_OPT_STRING, "worker", 0, "job the addresses belong to"),
	CR_OPTION("index_variable", CR_OPT_STRING, "EXAMPLE_TASK_INDEX", 0,
		  "environment variable holding this process's index"),
	CR_OPTIONS_END,
};

static const cr_resolver_ops example_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = example_create,
	.destroy = example_destroy,
	.probe = example_probe,
	.resolve = example_resolve,
	.master = NULL,
};

static const cr_plugin_desc example_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "example",
	.version = "0.1.0",
	.description = "tasks from a file of addresses, index from a variable (template)",
	.options = example_options,
	.option_size = sizeof(cr_option),
	.resolver = &example_ops,
	.accelerator = NULL,
	.flags = 0,
};

CR_PLUGIN_DEFINE(example_desc)
