/* SPDX-License-Identifier: MIT */
/*
 * fuzz-tfdevices.c - libFuzzer target for the tfdevices accelerator
 * plugin's reading of a TensorFlow device list and its parse of device
 * names, through cr-testhost on the plugin built with coverage
 * (run-fuzz.sh). Properties: the answer is a device list or a parse error
 * naming the file, on one line.
 */
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/testhost.h>

#define TFD_FILE "/devices.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cr_testhost *host(void)
{
	static cr_testhost *th;
	cr_error err = CR_ERROR_INIT;
	const char *plugin = getenv("CR_FUZZ_PLUGIN");

	if (th != NULL)
		return th;
	th = cr_testhost_new(&err);
	if (plugin == NULL || th == NULL ||
	    cr_testhost_load(th, plugin, "file = \"" TFD_FILE "\"; local_job = \"w\";", &err) !=
		    CR_OK)
		abort();
	cr_testhost_set_log_level(th, CR_LOG_WARNING);
	return th;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cr_error err = CR_ERROR_INIT;
	cr_testhost *th = host();
	const char *out = NULL;
	cr_status st;

	cr_testhost_clear_logs(th);
	if (cr_testhost_add_file(th, TFD_FILE, (const char *)data, size, &err) != CR_OK)
		abort();
	st = cr_testhost_enumerate(th, &out, &err);
	if (st == CR_OK) {
		if (out == NULL || strncmp(out, "{\"num_accelerators\": {", 22) != 0)
			abort();
	} else if (st != CR_ERR_PARSE || strstr(err.message, TFD_FILE) == NULL ||
		   strchr(err.message, '\n') != NULL) {
		abort();
	}
	return 0;
}
