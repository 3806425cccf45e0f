/* SPDX-License-Identifier: MIT */
/*
 * test-cli.c - CLI golden tests: configuration errors name FILE:LINE,
 * conf.d drop-ins load in sorted order, config selection (--config,
 * CLUSTER_RESOLVER_CONFIG, the built-in auto default), check-config hides
 * secrets, `plugins [--json]` with option ranges, range errors, `explain`
 * (every verdict, --json, exit status), usage errors exit 2, the exit-code
 * table (0 ok, 1 resolution failed, 2 usage or configuration) shared by
 * every command, and TensorFlow's `master` rules (effective rpc layer, a
 * lone --task-id/--task-type, "" with a warning for an unknown task). The
 * table of command lines and their exact answers is cli-cases.c.
 */
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "crt.h"

/* cli-cases.c */
extern const crt_cli_case cli_cases[];

#define PFX "cluster-resolver: "

static char *path_in_tmp(const char *name)
{
	return g_build_filename(crt_tmpdir(), name, NULL);
}

static void run_expect(const char *const *argv, const char *const *env, const char *out,
		       const char *err, int rc)
{
	char *got_out = NULL, *got_err = NULL;
	char *want_out = crt_subst(out, NULL), *want_err = crt_subst(err, NULL);
	int got = crt_run(argv, env, &got_out, &got_err);

	g_assert_cmpstr(got_out, ==, want_out);
	g_assert_cmpstr(got_err, ==, want_err);
	g_assert_cmpint(got, ==, rc);
	g_free(got_out);
	g_free(got_err);
	g_free(want_out);
	g_free(want_err);
}

/* conf.d/NAME.conf beside the main file, in sorted (byte) order; others ignored. */
static void test_dropins(void)
{
	char *dir = path_in_tmp("dropins");
	char *confd = g_build_filename(dir, "conf.d", NULL);
	char *main_conf = g_build_filename(dir, "main.conf", NULL);
	char *f;
	const char *argv[] = { "$CR_CLI", "--config", main_conf, "resolve", NULL };
	const char *argv_check[] = { "$CR_CLI", "check-config", main_conf, NULL };

	g_assert_cmpint(g_mkdir_with_parents(confd, 0755), ==, 0);
	crt_write_file(main_conf, "accelerators = ( );\nresolvers = ( { plugin = \"simple\"; name "
				  "= \"main\";\n"
				  "  cluster = { worker = [ \"main:1\" ]; }; } );\n");
#define DROP(name, text)                                                                           \
	f = g_build_filename(confd, name, NULL);                                                   \
	crt_write_file(f, text);                                                                   \
	g_free(f)
	DROP("20-b.conf", "resolvers = ( { plugin = \"simple\"; name = \"b\"; cluster = { worker = "
			  "[ \"b:1\" ]; }; } );\n");
	DROP("10-a.conf", "resolvers = ( { plugin = \"simple\"; name = \"a\"; cluster = { worker = "
			  "[ \"a:1\" ]; }; } );\n"
			  "rpc_layer = \"grpc\";\n");
	DROP("9-z.conf", "resolvers = ( { plugin = \"simple\"; name = \"z\"; cluster = { worker = "
			 "[ \"z:1\" ]; }; } );\n");
	DROP("30-c.conf.disabled", "this is not libconfig");
	DROP(".40-hidden.conf", "this is not libconfig");
	DROP("README", "this is not libconfig");
#undef DROP
	run_expect(argv, NULL,
		   "{\"cluster\": {\"worker\": [\"main:1\", \"a:1\", \"b:1\", \"z:1\"]}, "
		   "\"rpc_layer\": \"grpc\"}\n",
		   "", 0);
	run_expect(argv_check, NULL,
		   "@DIR@/dropins/main.conf: ok\n"
		   "read @DIR@/dropins/main.conf\n"
		   "read @DIR@/dropins/conf.d/10-a.conf\n"
		   "read @DIR@/dropins/conf.d/20-b.conf\n"
		   "read @DIR@/dropins/conf.d/9-z.conf\n"
		   "resolver 'main': plugin simple 1.3.0 (@PLUGINS@/resolvers/simple.so), policy "
		   "required, at @DIR@/dropins/main.conf:2\n"
		   "    cluster = { 1 keys }\n"
		   "resolver 'a': plugin simple 1.3.0 (@PLUGINS@/resolvers/simple.so), policy "
		   "required, at @DIR@/dropins/conf.d/10-a.conf:1\n"
		   "    cluster = { 1 keys }\n"
		   "resolver 'b': plugin simple 1.3.0 (@PLUGINS@/resolvers/simple.so), policy "
		   "required, at @DIR@/dropins/conf.d/20-b.conf:1\n"
		   "    cluster = { 1 keys }\n"
		   "resolver 'z': plugin simple 1.3.0 (@PLUGINS@/resolvers/simple.so), policy "
		   "required, at @DIR@/dropins/conf.d/9-z.conf:1\n"
		   "    cluster = { 1 keys }\n",
		   "", 0);
	/* An error in a drop-in names the drop-in. */
	f = g_build_filename(confd, "50-bad.conf", NULL);
	crt_write_file(f, "resolvers = (\n { plugin = \"simple\"; colour = 1; } );\n");
	run_expect(argv, NULL, "",
		   PFX
		   "@DIR@/dropins/conf.d/50-bad.conf:2: resolver 'simple': unknown key 'colour'\n",
		   2);
	g_assert_cmpint(g_unlink(f), ==, 0);
	g_free(f);
	g_free(main_conf);
	g_free(confd);
	g_free(dir);
}

/* --config beats CLUSTER_RESOLVER_CONFIG, which beats the default file. */
static void test_config_selection(void)
{
	char *a = path_in_tmp("select-a.conf"), *b = path_in_tmp("select-b.conf");
	char *env_a = g_strdup_printf("CLUSTER_RESOLVER_CONFIG=%s", a);
	const char *env[] = { env_a, NULL };
	const char *argv_env[] = { "$CR_CLI", "resolve", NULL };
	const char *argv_cfg[] = { "$CR_CLI", "--config", b, "resolve", NULL };
	const char *argv_short[] = { "$CR_CLI", "resolve", "-c", b, NULL };

	crt_write_file(a, "accelerators = ( );\nresolvers = ( { plugin = \"simple\"; cluster = { "
			  "from_env = [ \"a:1\" ]; }; } );\n");
	crt_write_file(b, "accelerators = ( );\nresolvers = ( { plugin = \"simple\"; cluster = { "
			  "from_option = [ \"b:1\" ]; }; } );\n");
	run_expect(argv_env, env, "{\"cluster\": {\"from_env\": [\"a:1\"]}}\n", "", 0);
	run_expect(argv_cfg, env, "{\"cluster\": {\"from_option\": [\"b:1\"]}}\n", "", 0);
	run_expect(argv_short, env, "{\"cluster\": {\"from_option\": [\"b:1\"]}}\n", "", 0);
	g_free(env_a);
	g_free(a);
	g_free(b);
}

/* No config anywhere: the built-in `auto` configuration. */
static void test_auto_default(void)
{
	const char *argv[] = { "$CR_CLI", "resolve", NULL };
	const char *argv_check[] = { "$CR_CLI", "check-config", NULL };
	const char *unset[] = { "CLUSTER_RESOLVER_CONFIG", "TF_CONFIG", NULL };
	const char *tf[] = { "CLUSTER_RESOLVER_CONFIG",
			     "TF_CONFIG={\"cluster\": {\"chief\": [\"c:1\"]}, \"task\": {\"type\": "
			     "\"chief\", \"index\": 0}}",
			     NULL };
	char *out = NULL, *err = NULL;

	if (g_file_test(CR_DEFAULT_CONFIG, G_FILE_TEST_EXISTS)) {
		g_test_skip(CR_DEFAULT_CONFIG " exists, so no built-in default");
		return;
	}
	run_expect(argv, unset,
		   "{\"cluster\": {\"worker\": [\"localhost:2222\"]}, \"task\": {\"type\": "
		   "\"worker\", \"index\": 0}}\n",
		   "", 0);
	run_expect(argv, tf,
		   "{\"cluster\": {\"chief\": [\"c:1\"]}, \"task\": {\"type\": \"chief\", "
		   "\"index\": 0}}\n",
		   "", 0);
	/* check-config names the built-in configuration: tfconfig first, then
	 * whatever other environment resolvers are built, each on its own line
	 * of the built-in text, then the `local` fallback. */
	g_assert_cmpint(crt_run(argv_check, unset, &out, &err), ==, 0);
	g_assert_cmpstr(err, ==, "");
	{
		char *tfc =
			crt_subst("(built-in auto): ok\nresolver 'tfconfig': plugin tfconfig 1.3.0 "
				  "(@PLUGINS@/resolvers/tfconfig.so), policy sufficient, at "
				  "(built-in auto):2\n",
				  NULL);
		const char *local = strstr(out, "resolver 'local': ");
		guint before = 0;
		char *tail, *want;

		g_assert_true(g_str_has_prefix(out, tfc));
		g_assert_nonnull(local);
		for (const char *p = out;
		     local != NULL && (p = strstr(p, "\nresolver '")) != NULL && p < local; p++)
			before++;
		tail = g_strdup_printf(
			"resolver 'local': plugin simple 1.3.0 (@PLUGINS@/resolvers/simple.so), "
			"policy sufficient, at (built-in auto):%u\n"
			"    cluster = { 1 keys }\n    task_type = \"worker\"\n    task_id = 0\n"
			"    refuse_if_launched = true\n",
			before + 1);
		want = crt_subst(tail, NULL);
		g_assert_cmpstr(local, ==, want);
		g_free(want);
		g_free(tail);
		g_free(tfc);
	}
	g_free(out);
	g_free(err);
}

/* No command: the usage text on stderr, exit 2; --help: on stdout, exit 0. */
static void test_usage(void)
{
	const char *none[] = { "$CR_CLI", NULL };
	const char *help[] = { "$CR_CLI", "--help", NULL };
	char *out = NULL, *err = NULL, *hout = NULL, *herr = NULL;

	g_assert_cmpint(crt_run(none, NULL, &out, &err), ==, 2);
	g_assert_cmpstr(out, ==, "");
	g_assert_true(g_str_has_prefix(err, "usage: cluster-resolver [OPTIONS] COMMAND [ARGS]\n"));
	g_assert_cmpint(crt_run(help, NULL, &hout, &herr), ==, 0);
	g_assert_cmpstr(herr, ==, "");
	g_assert_cmpstr(hout, ==, err);
	g_assert_true(g_str_has_suffix(err, "Exit status: 0 success, 1 resolution failed, 2 usage "
					    "or configuration error.\n"));
	g_assert_nonnull(strstr(hout,
				"\n  completion bash|zsh           print the shell completion "
				"script\n"));
	g_free(out);
	g_free(err);
	g_free(hout);
	g_free(herr);
}

/* `COMMAND --help`: the command's usage line, options and examples on
 * stdout, exit 0 (before: an error, or a file or host named --help). */
static void test_command_help(void)
{
	static const struct {
		const char *args[4];
		const char *usage;
		const char *contains;
	} help_cases[] = {
		{ { "resolve", "--help" }, "resolve", "  --master-port=PORT|auto" },
		{ { "check-config", "--help" },
		  "check-config [FILE]",
		  "\nApplication Options:\n  -h, --help" },
		{ { "hostlist", "expand", "--help" }, "hostlist expand EXPR", "Examples:\n" },
		{ { "exec", "-h" },
		  "exec [--supervise|--elastic] -- PROGRAM [ARGS...]",
		  " --format torchrun --master-port auto" },
		/* exec offers only the formats that set variables. */
		{ { "exec", "--help" },
		  "exec [--supervise|--elastic] -- PROGRAM [ARGS...]",
		  "\n  -f, --format=F[,F...]       the variables to set, a comma-separated list of "
		  "formats given once: tf_config, torch, torchrun, jax, env\n  --jobs" },
		{ { "-v", "explain", "--help" }, "explain", "  --json" },
		{ { "help", "master" }, "master", "  --task-type=T" },
		{ { "hostlist", "-h" },
		  "hostlist expand EXPR | compress [NAME...]",
		  "hostlist compress" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(help_cases); i++) {
		const char *argv[6] = { "$CR_CLI" };
		char *out = NULL, *err = NULL;
		char *head = g_strdup_printf("Usage:\n  cluster-resolver [OPTION\u2026] %s\n\n",
					     help_cases[i].usage);

		memcpy(&argv[1], help_cases[i].args, sizeof(help_cases[i].args));
		g_assert_cmpint(crt_run(argv, NULL, &out, &err), ==, 0);
		g_assert_cmpstr(err, ==, "");
		g_assert_true(g_str_has_prefix(out, head));
		g_assert_nonnull(strstr(out, help_cases[i].contains));
		g_assert_nonnull(strstr(out, "\nExamples:\n  cluster-resolver "));
		g_free(head);
		g_free(out);
		g_free(err);
	}
}

/* `-c FILE plugins` searches the config's plugin_path; without it the
 * same environment finds nothing. */
static void test_plugins_config_path(void)
{
	char *conf = path_in_tmp("plugin-path.conf");
	char *text = crt_subst("plugin_path = \"@TESTPLUG@\";\naccelerators = ( );\n"
			       "resolvers = ( { plugin = \"ranged\"; } );\n",
			       NULL);
	char *empty = crt_subst("CLUSTER_RESOLVER_PLUGIN_PATH=@DIR@/empty-nothing-here", NULL);
	const char *env[] = { empty, NULL };
	const char *with[] = { "$CR_CLI", "-c", conf, "plugins", "--json", NULL };
	const char *without[] = { "$CR_CLI", "plugins", "--json", NULL };
	char *out = NULL, *err = NULL;

	crt_write_file(conf, text);
	run_expect(without, env, "[]\n", "", 0);
	g_assert_cmpint(crt_run(with, env, &out, &err), ==, 0);
	g_assert_cmpstr(err, ==, "");
	g_assert_true(g_str_has_prefix(out, "[{\"name\": \"ranged\", \"kind\": \"resolver\""));
	g_assert_nonnull(strstr(out, "{\"name\": \"secretive\", \"kind\": \"resolver\""));
	g_free(out);
	g_free(err);
	g_free(empty);
	g_free(text);
	g_free(conf);
}

/* `-v check-config`: the merged top-level values (a drop-in's rpc_layer
 * overrides the main file's). */
static void test_check_config_verbose(void)
{
	char *dir = path_in_tmp("verbose-check");
	char *confd = g_build_filename(dir, "conf.d", NULL);
	char *main_conf = g_build_filename(dir, "main.conf", NULL);
	char *drop = g_build_filename(confd, "10-rpc.conf", NULL);
	const char *argv[] = { "$CR_CLI", "-v", "check-config", main_conf, NULL };
	const char *quiet[] = { "$CR_CLI", "check-config", main_conf, NULL };
	char *out = NULL, *err = NULL;

	g_assert_cmpint(g_mkdir_with_parents(confd, 0755), ==, 0);
	crt_write_file(main_conf,
		       "accelerators = ( );\nrpc_layer = \"grpc\";\n"
		       "task = { type = \"worker\"; id = 3; };\n"
		       "num_accelerators = { TPU = 4; GPU = 8; };\n"
		       "resolvers = ( { plugin = \"simple\"; cluster = { w = [ \"a:1\" ]; "
		       "}; } );\n");
	crt_write_file(drop, "rpc_layer = \"grpc+verbs\";\ngpus_per_task = 2;\n");
	g_assert_cmpint(crt_run(argv, NULL, &out, &err), ==, 0);
	g_assert_nonnull(strstr(out, "/verbose-check/conf.d/10-rpc.conf\n"));
	g_assert_nonnull(strstr(out, "top level:\n"
				     "    plugin_path = (none)\n"
				     "    rpc_layer = \"grpc+verbs\"\n"
				     "    task = worker:3\n"
				     "    num_accelerators = GPU=8, TPU=4\n"
				     "    gpus_per_task = 2 (at "));
	g_assert_nonnull(strstr(out, "/verbose-check/conf.d/10-rpc.conf:2)\n"
				     "    skip_busy_gpus = (unset)\n"
				     "    formats = (none)\n"
				     "resolver 'simple': "));
	g_free(out);
	g_free(err);
	g_assert_cmpint(crt_run(quiet, NULL, &out, &err), ==, 0);
	g_assert_null(strstr(out, "top level:"));
	g_free(out);
	g_free(err);
	g_free(drop);
	g_free(main_conf);
	g_free(confd);
	g_free(dir);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	crt_add_cli_cases("cli", cli_cases);
	g_test_add_func("/cli/dropins", test_dropins);
	g_test_add_func("/cli/config-selection", test_config_selection);
	g_test_add_func("/cli/auto-default", test_auto_default);
	g_test_add_func("/cli/usage", test_usage);
	g_test_add_func("/cli/command-help", test_command_help);
	g_test_add_func("/cli/plugins-config-path", test_plugins_config_path);
	g_test_add_func("/cli/check-config-verbose", test_check_config_verbose);
	return g_test_run();
}
