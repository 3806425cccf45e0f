/* SPDX-License-Identifier: MIT */
/*
 * test-entry.c - the entry point that CR_PLUGIN_DEFINE generates, called
 * directly on a built plugin (simple.so) with hosts of other versions:
 *  - another major: CR_ERR_ABI with both versions in the caller's error,
 *    and not one call through the host table, whose layout is unknown then
 *    (every slot of the table given here is NULL, so a call would crash);
 *  - an older minor of the same major: CR_ERR_ABI, one line naming both
 *    versions, written through the host's error_set.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include <cluster-resolver/plugin.h>

static cr_plugin_entry_fn entry;

static void load_entry(void)
{
	char *path =
		g_build_filename(g_getenv("CR_PLUGIN_BUILD_DIR"), "resolvers", "simple.so", NULL);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL)
		g_error("cannot load %s: %s", path, dlerror());
	*(void **)&entry = dlsym(h, CR_PLUGIN_ENTRY_SYMBOL);
	g_assert_nonnull(entry);
	g_free(path);
}

static char *want(unsigned host_major, unsigned host_minor)
{
	return g_strdup_printf("plugin 'simple' needs ABI %d.%d, host has %u.%u", CR_ABI_MAJOR,
			       CR_ABI_MINOR, host_major, host_minor);
}

/* Another major: the table given is all NULL and its struct_size is 0. */
static void test_other_major(void)
{
	static const unsigned majors[] = { 0, CR_ABI_MAJOR + 1, 99 };

	for (size_t i = 0; i < G_N_ELEMENTS(majors); i++) {
		cr_host_api empty;
		cr_error err = CR_ERROR_INIT;
		const cr_plugin_desc *desc = NULL;
		char *w = want(majors[i], 7);

		memset(&empty, 0, sizeof(empty));
		g_assert_cmpint(entry(&empty, majors[i], 7, &desc, &err), ==, CR_ERR_ABI);
		g_assert_cmpint(err.code, ==, CR_ERR_ABI);
		g_assert_cmpstr(err.message, ==, w);
		g_assert_null(desc);
		/* No error record, or one from a caller that knows fewer fields. */
		g_assert_cmpint(entry(&empty, majors[i], 7, &desc, NULL), ==, CR_ERR_ABI);
		err = (cr_error)CR_ERROR_INIT;
		err.struct_size = sizeof(err) - 1;
		g_assert_cmpint(entry(&empty, majors[i], 7, &desc, &err), ==, CR_ERR_ABI);
		g_assert_cmpstr(err.message, ==, "");
		g_assert_null(desc);
		g_free(w);
	}
}

static cr_status fake_error_set(cr_error *err, cr_status code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (err != NULL) {
		err->code = code;
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
	}
	va_end(ap);
	return code;
}

/* The same major, an older minor: refused through the host's error_set. */
static void test_older_minor(void)
{
	cr_host_api old;
	cr_error err = CR_ERROR_INIT;
	const cr_plugin_desc *desc = NULL;
	char *w;

	if (CR_ABI_MINOR == 0) {
		g_test_skip("ABI minor 0 has no older minor");
		return;
	}
	w = want(CR_ABI_MAJOR, CR_ABI_MINOR - 1);
	memset(&old, 0, sizeof(old));
	old.struct_size = offsetof(cr_host_api, result_add_cluster_json);
	old.abi_major = CR_ABI_MAJOR;
	old.abi_minor = CR_ABI_MINOR - 1;
	old.error_set = fake_error_set;
	g_assert_cmpint(entry(&old, CR_ABI_MAJOR, CR_ABI_MINOR - 1, &desc, &err), ==, CR_ERR_ABI);
	g_assert_cmpstr(err.message, ==, w);
	g_assert_null(desc);
	g_free(w);
}

/* The host's own version: accepted, the descriptor handed over. */
static void test_same_version(void)
{
	cr_host_api host;
	cr_error err = CR_ERROR_INIT;
	const cr_plugin_desc *desc = NULL;

	memset(&host, 0, sizeof(host));
	host.struct_size = sizeof(host);
	host.abi_major = CR_ABI_MAJOR;
	host.abi_minor = CR_ABI_MINOR;
	host.error_set = fake_error_set;
	g_assert_cmpint(entry(&host, CR_ABI_MAJOR, CR_ABI_MINOR, &desc, &err), ==, CR_OK);
	g_assert_nonnull(desc);
	g_assert_cmpstr(desc->name, ==, "simple");
	g_assert_cmpuint(desc->abi_minor, ==, CR_ABI_MINOR);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	load_entry();
	g_test_add_func("/abi/entry/other-major", test_other_major);
	g_test_add_func("/abi/entry/older-minor", test_older_minor);
	g_test_add_func("/abi/entry/same-version", test_same_version);
	return g_test_run();
}
