/* SPDX-License-Identifier: MIT */
/*
 * test-loader.c - the loader refuses every deliberately broken plugin with
 * one exact line, through the CLI (so a crash would show as a signal exit
 * status), and `plugins --json` lists broken files with their error.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "crt.h"

#define PFX "cluster-resolver: @CONF@:1: "
#define R(path) "resolvers = ( { plugin = \"" path "\"; } );\naccelerators = ( );\n"
#define RL(name) "plugin_path = \"@TESTPLUG@\"; resolvers = ( { plugin = \"" name "\"; } );\n"

/* clang-format off */
static const crt_cli_case cases[] = {
	{ "missing-file", R("@DIR@/nope.so"), { NULL }, { "resolve" }, "",
	  PFX "plugin @DIR@/nope.so: No such file or directory\n", 2 },
	{ "no-entry-symbol", R("@TESTPLUG@/noentry.so"), { NULL }, { "resolve" }, "",
	  PFX "plugin @TESTPLUG@/noentry.so has no 'cr_plugin_entry' symbol (not a cluster-resolver plugin)\n", 2 },
	{ "other-abi-major", R("@TESTPLUG@/major.so"), { NULL }, { "resolve" }, "",
	  PFX "plugin 'major' (@TESTPLUG@/major.so) was built for ABI 2.3; this host has ABI 1.3 (major differs)\n", 2 },
	{ "newer-abi-minor", R("@TESTPLUG@/minor.so"), { NULL }, { "resolve" }, "",
	  PFX "plugin 'minor' (@TESTPLUG@/minor.so) needs ABI 1.4; this host has only ABI 1.3\n", 2 },
	{ "short-descriptor", R("@TESTPLUG@/shortdesc.so"), { NULL }, { "resolve" }, "",
	  PFX "plugin @TESTPLUG@/shortdesc.so: descriptor struct_size 80 is smaller than ABI 1.0's 88\n", 2 },
	{ "short-ops", R("@TESTPLUG@/shortops.so"), { NULL }, { "resolve" }, "",
	  PFX "plugin 'shortops' (@TESTPLUG@/shortops.so): resolver ops struct_size 40 is smaller than ABI 1.0's 48\n", 2 },
	{ "null-required-op", R("@TESTPLUG@/nullop.so"), { NULL }, { "resolve" }, "",
	  PFX "plugin 'nullop' (@TESTPLUG@/nullop.so): required op 'resolve' is NULL\n", 2 },
	/* A corrupt option table is refused before a byte past its bounds is read. */
	{ "huge-option-size", R("@TESTPLUG@/hugeoption.so"), { NULL }, { "resolve" }, "",
	  PFX "plugin 'hugeoption' (@TESTPLUG@/hugeoption.so): option_size 1073741824 is larger than 4096 bytes\n", 2 },
	{ "unterminated-options", R("@TESTPLUG@/unterminated.so"), { NULL }, { "resolve" }, "",
	  PFX "plugin 'unterminated' (@TESTPLUG@/unterminated.so): no end to its option table within 256 entries\n", 2 },
	{ "entry-returns-error", R("@TESTPLUG@/entryerror.so"), { NULL }, { "resolve" }, "",
	  PFX "plugin @TESTPLUG@/entryerror.so refused to load: needs a host built with FROBNICATE=1\n", 2 },
	{ "create-fails", R("@TESTPLUG@/createfail.so"), { NULL }, { "resolve" }, "",
	  "cluster-resolver: resolver 'createfail' (@TESTPLUG@/createfail.so): create failed: cannot reach the moon\n", 1 },
	{ "create-fails-check-config", R("@TESTPLUG@/createfail.so"), { NULL }, { "check-config" }, "",
	  "cluster-resolver: resolver 'createfail' (@TESTPLUG@/createfail.so): create failed: cannot reach the moon\n", 2 },
	{ "kind-mismatch", R("@TESTPLUG@/kind.so"), { NULL }, { "resolve" }, "",
	  PFX "plugin 'kind' (@TESTPLUG@/kind.so) is an accelerator plugin, not a resolver plugin\n", 2 },
	{ "kind-mismatch-short-name", RL("kind"), { NULL }, { "resolve" }, "",
	  PFX "plugin 'kind' (@TESTPLUG@/kind.so) is an accelerator plugin, not a resolver plugin\n", 2 },
	{ "name-mismatch", RL("misnamed"), { NULL }, { "resolve" }, "",
	  PFX "plugin @TESTPLUG@/misnamed.so calls itself 'other', not 'misnamed'\n", 2 },
	{ "group-writable-file", R("@DIR@/gw/simple.so"), { NULL }, { "resolve" }, "",
	  PFX "refusing plugin @DIR@/gw/simple.so: it is group- or world-writable (mode 0664)\n", 2 },
	{ "world-writable-file", R("@DIR@/gw/other.so"), { NULL }, { "resolve" }, "",
	  PFX "refusing plugin @DIR@/gw/other.so: it is group- or world-writable (mode 0646)\n", 2 },
	{ "world-writable-directory", R("@DIR@/ww/simple.so"), { NULL }, { "resolve" }, "",
	  PFX "refusing plugin @DIR@/ww/simple.so: its directory @DIR@/ww is group- or world-writable (mode 0777)\n", 2 },
	/* Every directory above: writable by others only with the sticky bit. */
	{ "world-writable-ancestor", R("@DIR@/open/inner/simple.so"), { NULL }, { "resolve" }, "",
	  PFX "refusing plugin @DIR@/open/inner/simple.so: directory @DIR@/open above it is group- or world-writable without the sticky bit (mode 0777)\n", 2 },
	{ "sticky-ancestor-loads", R("@DIR@/sticky/inner/simple.so"), { NULL }, { "check-config" },
	  "@CONF@: ok\nread @CONF@\nresolver 'simple': plugin simple 1.3.0 (@DIR@/sticky/inner/simple.so), policy required, at @CONF@:1\n",
	  "", 0 },
	{ "symlink", R("@DIR@/link/simple.so"), { NULL }, { "resolve" }, "",
	  PFX "refusing plugin @DIR@/link/simple.so: it is a symbolic link\n", 2 },
	{ "directory", R("@DIR@/link"), { NULL }, { "resolve" }, "",
	  PFX "refusing plugin @DIR@/link: not a regular file\n", 2 },
	{ "short-name-symlink", "plugin_path = \"@DIR@/link\"; resolvers = ( { plugin = \"simple\"; } );\n",
	  { "CLUSTER_RESOLVER_PLUGIN_PATH=" }, { "resolve" }, "",
	  PFX "refusing plugin @DIR@/link/simple.so: it is a symbolic link\n", 2 },
	{ "good-copy-loads", R("@DIR@/ok/simple.so") "", { NULL }, { "check-config" },
	  "@CONF@: ok\nread @CONF@\nresolver 'simple': plugin simple 1.3.0 (@DIR@/ok/simple.so), policy required, at @CONF@:1\n",
	  "", 0 },
	{ "plugins-lists-broken", NULL, { "CLUSTER_RESOLVER_PLUGIN_PATH=@DIR@/gw:@DIR@/link" },
	  { "plugins", "--json" },
	  "[{\"file\": \"@DIR@/gw/other.so\", \"error\": \"refusing plugin @DIR@/gw/other.so: it is group- or world-writable (mode 0646)\"}, "
	  "{\"file\": \"@DIR@/gw/simple.so\", \"error\": \"refusing plugin @DIR@/gw/simple.so: it is group- or world-writable (mode 0664)\"}, "
	  "{\"file\": \"@DIR@/link/simple.so\", \"error\": \"refusing plugin @DIR@/link/simple.so: it is a symbolic link\"}]\n",
	  "", 0 },
	{ NULL },
};

/* As root only: files and directories of another user (nobody, 65534). */
static const crt_cli_case root_cases[] = {
	{ "foreign-owned-file", R("@DIR@/nobody-file/simple.so"), { NULL }, { "resolve" }, "",
	  PFX "refusing plugin @DIR@/nobody-file/simple.so: the file is owned by uid 65534, neither root nor this user\n", 2 },
	{ "foreign-owned-directory", R("@DIR@/nobody-dir/simple.so"), { NULL }, { "resolve" }, "",
	  PFX "refusing plugin @DIR@/nobody-dir/simple.so: @DIR@/nobody-dir is owned by uid 65534, neither root nor this user\n", 2 },
	{ NULL },
};
/* clang-format on */

static void copy_plugin(const char *dir, const char *name, mode_t file_mode, mode_t dir_mode)
{
	char *src =
		g_build_filename(g_getenv("CR_PLUGIN_BUILD_DIR"), "resolvers", "simple.so", NULL);
	char *dst = g_build_filename(dir, name, NULL);
	gchar *data = NULL;
	gsize len = 0;
	GError *error = NULL;

	g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
	g_file_get_contents(src, &data, &len, &error);
	g_assert_no_error(error);
	g_file_set_contents(dst, data, (gssize)len, &error);
	g_assert_no_error(error);
	g_assert_cmpint(chmod(dst, file_mode), ==, 0);
	g_assert_cmpint(chmod(dir, dir_mode), ==, 0);
	g_free(data);
	g_free(dst);
	g_free(src);
}

/* Plugin files with unsafe modes, a symlink, and a safe copy. */
static void setup_files(void)
{
	char *gw = g_build_filename(crt_tmpdir(), "gw", NULL);
	char *ww = g_build_filename(crt_tmpdir(), "ww", NULL);
	char *ok = g_build_filename(crt_tmpdir(), "ok", NULL);
	char *link = g_build_filename(crt_tmpdir(), "link", NULL);
	char *target = g_build_filename(ok, "simple.so", NULL);
	char *lpath = g_build_filename(link, "simple.so", NULL);

	copy_plugin(gw, "simple.so", 0664, 0755);
	copy_plugin(gw, "other.so", 0646, 0755);
	copy_plugin(ww, "simple.so", 0644, 0777);
	copy_plugin(ok, "simple.so", 0644, 0755);
	for (int sticky = 0; sticky < 2; sticky++) {
		char *top = g_build_filename(crt_tmpdir(), sticky ? "sticky" : "open", NULL);
		char *inner = g_build_filename(top, "inner", NULL);

		copy_plugin(inner, "simple.so", 0644, 0755);
		g_assert_cmpint(chmod(top, sticky ? 01777 : 0777), ==, 0);
		g_free(inner);
		g_free(top);
	}
	if (geteuid() == 0) {
		char *nf = g_build_filename(crt_tmpdir(), "nobody-file", NULL);
		char *nd = g_build_filename(crt_tmpdir(), "nobody-dir", NULL);
		char *f = g_build_filename(nf, "simple.so", NULL);

		copy_plugin(nf, "simple.so", 0644, 0755);
		copy_plugin(nd, "simple.so", 0644, 0755);
		g_assert_cmpint(chown(f, 65534, 65534), ==, 0);
		g_assert_cmpint(chown(nd, 65534, 65534), ==, 0);
		g_free(f);
		g_free(nd);
		g_free(nf);
	}
	g_assert_cmpint(g_mkdir_with_parents(link, 0755), ==, 0);
	g_assert_cmpint(symlink(target, lpath), ==, 0);
	g_free(lpath);
	g_free(target);
	g_free(link);
	g_free(ok);
	g_free(ww);
	g_free(gw);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	umask(022);
	setup_files();
	crt_add_cli_cases("loader", cases);
	if (geteuid() == 0)
		crt_add_cli_cases("loader-root", root_cases);
	return g_test_run();
}
