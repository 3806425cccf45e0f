/* SPDX-License-Identifier: MIT */
/*
 * fuzz-tfconfig.c - libFuzzer target for the tfconfig resolver's parser of
 * TF_CONFIG (plugins/resolvers/tfconfig), run through cr-testhost on the
 * plugin built with coverage (run-fuzz.sh): the input is the variable.
 * Properties: the answer is a TF_CONFIG, a decline (unset or empty) or an
 * error with a one-line message naming TF_CONFIG; an accepted TF_CONFIG,
 * given back as the variable, is accepted and gives itself again (a fixed
 * point), and `master` answers for it without crashing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/testhost.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cr_testhost *host(void)
{
	static cr_testhost *th;
	cr_error err = CR_ERROR_INIT;
	const char *plugin = getenv("CR_FUZZ_PLUGIN");

	if (th != NULL)
		return th;
	th = cr_testhost_new(&err);
	if (plugin == NULL || th == NULL || cr_testhost_load(th, plugin, NULL, &err) != CR_OK)
		abort();
	cr_testhost_inherit_env(th, false);
	cr_testhost_set_log_level(th, CR_LOG_WARNING);
	return th;
}

static void check_error(cr_status st, const cr_error *err)
{
	if (getenv("FZ_DEBUG") != NULL)
		fprintf(stderr, "status %d: %s\n", st, err->message);
	switch (st) {
	case CR_ERR_PARSE:
	case CR_ERR_INVALID_ARG:
	case CR_ERR_CONFLICT:
	case CR_ERR_NOT_FOUND:
	case CR_ERR_BACKEND:
		if (strstr(err->message, "TF_CONFIG") == NULL &&
		    strstr(err->message, "address \"") == NULL)
			abort();
		if (strchr(err->message, '\n') != NULL)
			abort();
		return;
	default:
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = host();
	const char *out = NULL, *master = NULL;
	char *text, *first;
	cr_status st;

	if (memchr(data, '\0', size) != NULL)
		return 0;
	text = strndup((const char *)data, size);
	if (text == NULL)
		abort();
	cr_testhost_clear_logs(th);
	if (cr_testhost_setenv(th, "TF_CONFIG", text, &err) != CR_OK)
		abort();
	st = cr_testhost_resolve(th, "tf_config", &out, &err);
	if (st == CR_DECLINED) {
		if (size != 0)
			abort();
	} else if (st != CR_OK) {
		check_error(st, &err);
	} else {
		if (out == NULL || strncmp(out, "{\"cluster\": ", 12) != 0)
			abort();
		first = strdup(out);
		first[strlen(first) - 1] = '\0'; /* the newline */
		cr_testhost_setenv(th, "TF_CONFIG", first, &err);
		if (cr_testhost_resolve(th, "tf_config", &out, &err) != CR_OK ||
		    strncmp(out, first, strlen(first)) != 0 ||
		    strcmp(out + strlen(first), "\n") != 0)
			abort();
		/* TensorFlow's own words for a task the cluster lacks */
		st = cr_testhost_master(th, &master, &err);
		if (st != CR_OK && (st != CR_ERR_NOT_FOUND || strchr(err.message, '\n') != NULL))
			abort();
		free(first);
	}
	free(text);
	return 0;
}
