/* SPDX-License-Identifier: MIT */
/*
 * fuzz-cluster-json.c - libFuzzer target for TensorFlow's as_dict walk
 * (spec_add_json, behind cr_spec_from_json and
 * host->result_add_cluster_json). Properties: an error is CR_ERR_PARSE,
 * CR_ERR_INVALID_ARG or CR_ERR_CONFLICT with a message naming the source;
 * an accepted cluster written back with cr_spec_to_json reads back equal
 * and writes the same text; adding it a second time conflicts exactly when
 * it has a task.
 */
#include <stdlib.h>
#include <string.h>

#include "values/values-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t num_tasks(const cr_spec *spec)
{
	const int32_t *indices;
	const char *const *addrs;
	size_t total = 0;

	for (size_t i = 0; i < cr_spec_num_jobs(spec); i++)
		total += spec_job_arrays(spec, i, &indices, &addrs, NULL);
	return total;
}

static void check_error(cr_status st, const cr_error *err)
{
	if (st != CR_ERR_PARSE && st != CR_ERR_INVALID_ARG && st != CR_ERR_CONFLICT)
		abort();
	if (err->code != st || strncmp(err->message, "fz: ", 4) != 0)
		abort();
}

static void check_round_trip(const cr_spec *spec)
{
	char *text = cr_spec_to_json(spec);
	json_object *again = NULL;
	cr_spec *copy = NULL;
	cr_error err = CR_ERROR_INIT;
	char *text2;

	if (json_parse_text(text, strlen(text), "rt", &again, &err) != CR_OK)
		abort();
	if (spec_from_json_object(again, "rt", &copy, &err) != CR_OK || !cr_spec_equal(spec, copy))
		abort();
	text2 = cr_spec_to_json(copy);
	if (strcmp(text, text2) != 0)
		abort();
	g_free(text2);
	cr_spec_free(copy);
	json_object_put(again);
	g_free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *root = NULL;
	cr_error err = CR_ERROR_INIT;
	cr_spec *spec;
	cr_status st;

	if (json_parse_text((const char *)data, size, "fz", &root, NULL) != CR_OK)
		return 0;
	spec = cr_spec_new();
	st = spec_add_json(spec, root, "fz", &err);
	if (st != CR_OK) {
		check_error(st, &err);
	} else {
		check_round_trip(spec);
		err = (cr_error)CR_ERROR_INIT;
		st = spec_add_json(spec, root, "fz", &err);
		if ((st == CR_ERR_CONFLICT) != (num_tasks(spec) > 0))
			abort();
		if (st != CR_OK)
			check_error(st, &err);
	}
	cr_spec_free(spec);
	json_object_put(root);
	return 0;
}
