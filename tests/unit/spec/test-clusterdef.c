/* SPDX-License-Identifier: MIT */
/*
 * test-clusterdef.c - the ClusterDef encoding (§1.1) checked with the real
 * `protoc --decode/--encode` against tests/fixtures/proto/cluster.proto,
 * and the hand-made blob of real-components §5 decoded the same way.
 */
#include <string.h>

#include "pipeline/pipeline-private.h"
#include "crt.h"

typedef struct pb_case {
	const char *name;
	const char *spec;
	const char *text; /* protoc --decode output */
	const char *hex;  /* expected bytes, or NULL */
} pb_case;

/* clang-format off */
static const pb_case pb_cases[] = {
	{ "sorted-jobs", "{\"worker\": [\"a:1\", \"b:2\"], \"ps\": [\"c:3\"]}",
	  "job {\n  name: \"ps\"\n  tasks {\n    key: 0\n    value: \"c:3\"\n  }\n}\n"
	  "job {\n  name: \"worker\"\n  tasks {\n    key: 0\n    value: \"a:1\"\n  }\n"
	  "  tasks {\n    key: 1\n    value: \"b:2\"\n  }\n}\n",
	  /* the hand-made blob of real-components §5, jobs in name order */
	  "0a0d0a027073120708001203633a33"
	  "0a1a0a06776f726b6572120708001203613a31120708011203623a32" },
	{ "sparse-sorted-tasks", "{\"w\": {\"10\": \"x:10\", \"3\": \"x:3\"}}",
	  "job {\n  name: \"w\"\n  tasks {\n    key: 3\n    value: \"x:3\"\n  }\n"
	  "  tasks {\n    key: 10\n    value: \"x:10\"\n  }\n}\n",
	  NULL },
	{ "empty-job", "{\"chief\": [], \"a\": [\"h:1\"]}",
	  "job {\n  name: \"a\"\n  tasks {\n    key: 0\n    value: \"h:1\"\n  }\n}\n"
	  "job {\n  name: \"chief\"\n}\n",
	  "0a0c0a0161120708001203683a31" "0a070a056368696566" },
	{ "empty-cluster", "{}", "", "" },
	{ "empty-job-name", "{\"\": [\"h:1\"]}",
	  /* proto3 omits the default "" name; protoc agrees */
	  "job {\n  tasks {\n    key: 0\n    value: \"h:1\"\n  }\n}\n",
	  "0a09120708001203683a31" },
	{ "bytes-order", "{\"b\": [\"1\"], \"B\": [\"2\"], \"a\": [\"3\"]}",
	  "job {\n  name: \"B\"\n  tasks {\n    key: 0\n    value: \"2\"\n  }\n}\n"
	  "job {\n  name: \"a\"\n  tasks {\n    key: 0\n    value: \"3\"\n  }\n}\n"
	  "job {\n  name: \"b\"\n  tasks {\n    key: 0\n    value: \"1\"\n  }\n}\n",
	  NULL },
	{ "big-index", "{\"w\": {\"300\": \"h\", \"2147483647\": \"m\"}}",
	  "job {\n  name: \"w\"\n  tasks {\n    key: 300\n    value: \"h\"\n  }\n"
	  "  tasks {\n    key: 2147483647\n    value: \"m\"\n  }\n}\n",
	  "0a160a01771206" "08ac02120168" "120908ffffffff071201" "6d" },
	{ NULL },
};
/* clang-format on */

static char *hex_of(const uint8_t *b, size_t n)
{
	GString *s = g_string_new(NULL);

	for (size_t i = 0; i < n; i++)
		g_string_append_printf(s, "%02x", b[i]);
	return g_string_free(s, FALSE);
}

/* Run protoc in @mode with @input on stdin; returns its exact stdout. */
static GBytes *protoc(const char *mode, const void *input, size_t len)
{
	char *dir = g_build_filename(g_getenv("CR_TEST_SOURCE_DIR"), "tests/fixtures/proto", NULL);
	char *in = g_build_filename(crt_tmpdir(), "protoc.in", NULL);
	char *out = g_build_filename(crt_tmpdir(), "protoc.out", NULL);
	char *cmd = g_strdup_printf(
		"protoc %s=tensorflow.ClusterDef -I '%s' cluster.proto < '%s' > '%s'", mode, dir,
		in, out);
	gchar *argv[] = { "/bin/sh", "-c", cmd, NULL };
	gchar *err = NULL, *data = NULL;
	gsize outlen = 0;
	GError *error = NULL;
	gint status;

	g_file_set_contents(in, input, (gssize)len, &error);
	g_assert_no_error(error);
	g_spawn_sync(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err, &status, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(err, ==, "");
	g_assert_true(g_spawn_check_wait_status(status, NULL));
	g_file_get_contents(out, &data, &outlen, &error);
	g_assert_no_error(error);
	g_free(err);
	g_free(cmd);
	g_free(out);
	g_free(in);
	g_free(dir);
	return g_bytes_new_take(data, outlen);
}

static void test_clusterdef(gconstpointer data)
{
	const pb_case *c = data;
	cr_error err = CR_ERROR_INIT;
	cr_spec *s = cr_spec_from_json(c->spec, strlen(c->spec), "test", &err);
	uint8_t *buf = NULL;
	size_t len = 0;
	GBytes *text, *again;
	char *hex;

	g_assert_cmpstr(err.message, ==, "");
	g_assert_cmpint(cr_spec_to_clusterdef(s, &buf, &len, NULL), ==, CR_OK);
	hex = hex_of(buf, len);
	if (c->hex != NULL)
		g_assert_cmpstr(hex, ==, c->hex);
	text = protoc("--decode", buf, len);
	g_assert_cmpstr(g_bytes_get_data(text, NULL), ==, c->text);
	/* --encode of protoc's text gives back exactly our bytes. */
	again = protoc("--encode", g_bytes_get_data(text, NULL), g_bytes_get_size(text));
	{
		char *hex2 = hex_of(g_bytes_get_data(again, NULL), g_bytes_get_size(again));

		g_assert_cmpstr(hex2, ==, hex);
		g_free(hex2);
	}
	g_bytes_unref(again);
	g_bytes_unref(text);
	g_free(hex);
	cr_free(buf);
	cr_spec_free(s);
}

/* The hand-made blob decodes as the reference says (protoc is faithful). */
static void test_hand_blob(void)
{
	static const char hex[] = "0a1a0a06776f726b6572120708001203613a31120708011203623a32"
				  "0a0d0a027073120708001203633a33";
	uint8_t blob[sizeof(hex) / 2];
	GBytes *text;

	for (size_t i = 0; i < sizeof(blob); i++) {
		char pair[3] = { hex[2 * i], hex[2 * i + 1], 0 };

		blob[i] = (uint8_t)g_ascii_strtoull(pair, NULL, 16);
	}
	text = protoc("--decode", blob, sizeof(blob));
	g_assert_cmpstr(
		g_bytes_get_data(text, NULL), ==,
		"job {\n  name: \"worker\"\n  tasks {\n    key: 0\n    value: \"a:1\"\n  }\n"
		"  tasks {\n    key: 1\n    value: \"b:2\"\n  }\n}\n"
		"job {\n  name: \"ps\"\n  tasks {\n    key: 0\n    value: \"c:3\"\n  }\n}\n");
	g_bytes_unref(text);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	for (size_t i = 0; pb_cases[i].name != NULL; i++) {
		char *p = g_strdup_printf("/spec/clusterdef/%s", pb_cases[i].name);

		g_test_add_data_func(p, &pb_cases[i], test_clusterdef);
		g_free(p);
	}
	g_test_add_func("/spec/clusterdef/hand-made-blob", test_hand_blob);
	return g_test_run();
}
