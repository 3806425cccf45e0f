/* SPDX-License-Identifier: MIT */
/*
 * cmd-hostlist.c - `cluster-resolver hostlist expand EXPR` and
 * `cluster-resolver hostlist compress [NAME...]`, the admin's view of the
 * library's Slurm hostlist code. Uses only the public API.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/hostlist.h>
#include <cluster-resolver/spec.h>

#include "commands.h"

static const char hostlist_usage[] =
	"usage: cluster-resolver hostlist expand EXPR\n"
	"       cluster-resolver hostlist compress [NAME...]\n"
	"\n"
	"expand    print the names of a Slurm hostlist, one a line, in order\n"
	"compress  read names (arguments, else stdin; blank or comma separated)\n"
	"          and print one hostlist expression; order is kept\n";

static int hostlist_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "cluster-resolver: WHY" and the usage on stderr; exit status 2. */
static int hostlist_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("cluster-resolver: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(hostlist_usage, stderr);
	return 2;
}

/* Names gathered into 64 KiB writes: a million of them are 8 MB. */
typedef struct hostlist_out {
	char buf[1 << 16];
	size_t used;
	bool failed;
} hostlist_out;

static bool hostlist_out_flush(hostlist_out *o)
{
	if (o->used > 0 && fwrite(o->buf, 1, o->used, stdout) != o->used)
		o->failed = true;
	o->used = 0;
	return !o->failed;
}

static int hostlist_print_name(const char *name, size_t len, void *user_data)
{
	hostlist_out *o = user_data;

	if (o->used + len + 1 > sizeof(o->buf) && !hostlist_out_flush(o))
		return 1; /* stop: stdout is broken */
	if (len + 1 > sizeof(o->buf)) {
		if (fwrite(name, 1, len, stdout) != len || putchar('\n') == EOF)
			o->failed = true;
		return o->failed;
	}
	memcpy(o->buf + o->used, name, len);
	o->buf[o->used + len] = '\n';
	o->used += len + 1;
	return 0;
}

static int hostlist_expand_cmd(const char *expr)
{
	static hostlist_out out;
	cr_error err = CR_ERROR_INIT;

	/* The names stream out as they are made; none is kept. */
	cr_status st = cr_hostlist_foreach(expr, hostlist_print_name, &out, &err);

	/* A malformed EXPR is a bad argument (2), as a usage error is. */
	if (st != CR_OK) {
		fprintf(stderr, "cluster-resolver: %s\n", err.message);
		return st == CR_ERR_PARSE || st == CR_ERR_INVALID_ARG ? 2 : 1;
	}
	hostlist_out_flush(&out);
	return 0; /* a failed write is main's to report */
}

/* Read all of @f into a NUL-terminated buffer. */
static char *hostlist_slurp(FILE *f)
{
	size_t cap = 1 << 16, len = 0, n;
	char *buf = malloc(cap);

	while (buf != NULL && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			char *bigger = realloc(buf, cap * 2);

			if (bigger == NULL) {
				free(buf);
				return NULL;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	if (buf == NULL || ferror(f)) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/* Split @text in place on blanks and commas into @names (grown as needed). */
static size_t hostlist_split(char *text, char ***names, size_t *cap)
{
	static const char seps[] = " \t\r\n\v\f,";
	size_t n = 0;
	char *save = NULL;

	for (char *tok = strtok_r(text, seps, &save); tok != NULL;
	     tok = strtok_r(NULL, seps, &save)) {
		if (n == *cap) {
			size_t grown = *cap ? *cap * 2 : 1024;
			char **bigger = realloc(*names, grown * sizeof(char *));

			if (bigger == NULL)
				return (size_t)-1;
			*names = bigger;
			*cap = grown;
		}
		(*names)[n++] = tok;
	}
	return n;
}

static int hostlist_compress_cmd(int argc, char **argv)
{
	cr_error err = CR_ERROR_INIT;
	char **names = NULL;
	char *text = NULL, *expr = NULL;
	size_t n = 0, cap = 0;
	int rc = 1;

	if (argc > 0) {
		names = argv;
		n = (size_t)argc;
	} else {
		text = hostlist_slurp(stdin);
		if (text == NULL) {
			fprintf(stderr, "cluster-resolver: reading stdin: %s\n", strerror(errno));
			goto out;
		}
		n = hostlist_split(text, &names, &cap);
		if (n == (size_t)-1) {
			fputs("cluster-resolver: out of memory\n", stderr);
			goto out;
		}
	}
	if (cr_hostlist_compress((const char *const *)names, n, &expr, &err) != CR_OK) {
		fprintf(stderr, "cluster-resolver: %s\n", err.message);
		goto out;
	}
	puts(expr);
	rc = 0;
out:
	cr_free(expr);
	if (names != argv)
		free(names);
	free(text);
	return rc;
}

static const char *const hostlist_words[] = { "expand", "compress", NULL };
static const cli_command hostlist_cmd = {
	.name = "hostlist",
	.params = "expand EXPR | compress [NAME...]",
	.summary = "Slurm hostlist tools (no configuration is read).",
	.examples = "Examples:\n"
		    "  cluster-resolver hostlist expand 'node[01-03],gpu7'\n"
		    "  cluster-resolver hostlist compress node01 node02 node03\n"
		    "  scontrol show hostnames | cluster-resolver hostlist compress\n",
	.max_args = -1,
	.words = hostlist_words,
};
static const cli_command expand_cmd = {
	.name = "hostlist expand",
	.params = "EXPR",
	.summary = "Print the names of a Slurm hostlist expression, one a line, in order.",
	.examples = "Examples:\n"
		    "  cluster-resolver hostlist expand 'node[01-03,07],gpu[1-2]-ib'\n"
		    "  cluster-resolver hostlist expand \"$SLURM_JOB_NODELIST\"\n",
	.max_args = 1,
};
static const cli_command compress_cmd = {
	.name = "hostlist compress",
	.params = "[NAME...]",
	.summary = "Read names (the arguments, else stdin; blank or comma separated) and print "
		   "one hostlist expression; order is kept.",
	.examples = "Examples:\n"
		    "  cluster-resolver hostlist compress node01 node02 node03\n"
		    "  printf 'a1\\na2\\n' | cluster-resolver hostlist compress\n",
	.max_args = -1,
};

int cli_cmd_hostlist(const cli_opts *in, int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	cli_opts o;
	int rc;

	if (cli_describe_mode)
		return cli_parse(&hostlist_cmd, in, &o, &argc, &argv, &rc) ? CLI_OK : rc;
	if (sub == NULL)
		return hostlist_usage_error("hostlist: missing subcommand");
	if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
		cli_parse(&hostlist_cmd, in, &o, &argc, &argv, &rc);
		return rc;
	}
	if (strcmp(sub, "expand") == 0) {
		argc--;
		argv++;
		if (!cli_parse(&expand_cmd, in, &o, &argc, &argv, &rc))
			return rc;
		if (argc != 2)
			return hostlist_usage_error("hostlist expand: expected one EXPR");
		return hostlist_expand_cmd(argv[1]);
	}
	if (strcmp(sub, "compress") == 0) {
		argc--;
		argv++;
		if (!cli_parse(&compress_cmd, in, &o, &argc, &argv, &rc))
			return rc;
		return hostlist_compress_cmd(argc - 1, argv + 1);
	}
	return hostlist_usage_error("hostlist: unknown subcommand '%s'", sub);
}
