/* SPDX-License-Identifier: MIT */
/*
 * fuzz-sagemaker.c - libFuzzer target for the sagemaker resolver's reading
 * of SM_HOSTS and resourceconfig.json and its walk of them, run through
 * cr-testhost on the plugin built with coverage (run-fuzz.sh). The first
 * byte picks where the rest goes: SM_HOSTS (with SM_CURRENT_HOST=algo-2),
 * the file at its default path, or the file with heterogeneous `jobs`.
 * Properties: the answer is a cluster, a decline or a parse / not-found
 * error with a one-line message naming its source; an accepted cluster is
 * JSON starting with its jobs.
 */
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/testhost.h>

#define SM_FILE "/opt/ml/input/config/resourceconfig.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cr_testhost *hosts[2]; /* [0] plain, [1] with jobs */

static cr_testhost *host(int jobs)
{
	static const char *const config[2] = { NULL, "jobs = { ps = \"cpu-group\"; worker = [ "
						     "\"gpu-group\", \"g2\" ]; };" };
	cr_error err = CR_ERROR_INIT;
	const char *plugin = getenv("CR_FUZZ_PLUGIN");

	if (hosts[jobs] != NULL)
		return hosts[jobs];
	hosts[jobs] = cr_testhost_new(&err);
	if (plugin == NULL || hosts[jobs] == NULL ||
	    cr_testhost_load(hosts[jobs], plugin, config[jobs], &err) != CR_OK)
		abort();
	cr_testhost_set_log_level(hosts[jobs], CR_LOG_WARNING);
	return hosts[jobs];
}

static void check(cr_status st, const char *out, const cr_error *err, const char *source)
{
	switch (st) {
	case CR_OK:
		if (out == NULL || strncmp(out, "{\"cluster\": {\"", 14) != 0)
			abort();
		return;
	case CR_DECLINED:
		return;
	case CR_ERR_INVALID_ARG: /* a host name the ClusterSpec refuses */
		if (strstr(err->message, "address \"") == NULL ||
		    strchr(err->message, '\n') != NULL)
			abort();
		return;
	case CR_ERR_PARSE:
	case CR_ERR_NOT_FOUND:
		if (strstr(err->message, source) == NULL || strchr(err->message, '\n') != NULL)
			abort();
		return;
	default:
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_error err = CR_ERROR_INIT;
	int mode = size > 0 ? data[0] % 3 : 0;
	cr_testhost *th = host(mode == 2);
	const char *out = NULL;
	char *text;
	cr_status st;

	if (size == 0 || memchr(data + 1, '\0', size - 1) != NULL)
		return 0;
	text = strndup((const char *)data + 1, size - 1);
	if (text == NULL)
		abort();
	cr_testhost_clear_logs(th);
	if (mode == 0) {
		cr_testhost_setenv(th, "SM_HOSTS", text, &err);
		cr_testhost_setenv(th, "SM_CURRENT_HOST", "algo-2", &err);
	} else {
		cr_testhost_setenv(th, "SM_HOSTS", NULL, &err);
		cr_testhost_setenv(th, "SM_CURRENT_HOST", NULL, &err);
		if (cr_testhost_add_file(th, SM_FILE, text, size - 1, &err) != CR_OK)
			abort();
	}
	st = cr_testhost_resolve(th, "json", &out, &err);
	check(st, out, &err, mode == 0 ? "SM_HOSTS" : SM_FILE);
	free(text);
	return 0;
}
