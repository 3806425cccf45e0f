/* SPDX-License-Identifier: MIT */
/*
 * spank_cluster_resolver.c - a Slurm SPANK plugin adding
 * `srun --cluster-resolver[=FORMATS]`: each task of the step starts with the
 * variables of FORMATS (tf_config, torch, torchrun, jax, env; default tf_config)
 * in its environment, as `cluster-resolver exec --format FORMATS` would set
 * them, then the variables the resolvers asked for.
 *
 * A thin client of the application API (cluster-resolver.h), like the CLI.
 * It resolves in slurm_spank_task_init(), in the task's own process after
 * slurmstepd forked it and before it execs the program, with the task's
 * environment (S_JOB_ENV: SLURM_PROCID, SLURM_LOCALID, ...) as the process
 * environment, so the configured resolvers see what the program would.
 *
 * plugstack.conf arguments: `config=FILE` (the config used when the task's
 * environment has no CLUSTER_RESOLVER_CONFIG; default: the library's).
 *
 * Without the option it does nothing at all. Diagnostics go through
 * slurm_error() and friends, never to stdout; a failed resolution fails the
 * task (exit 1), as `cluster-resolver exec` would.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <slurm/spank.h>

#include <cluster-resolver/cluster-resolver.h>

SPANK_PLUGIN(cluster_resolver, 1);

#define CRS_DEFAULT_FORMATS "tf_config"

/* The formats, set by the option callback (in srun and again in
 * slurmstepd); NULL when the option was not given. */
static char **crs_formats;
/* plugstack.conf `config=FILE`. */
static char *crs_config;

/* "torch, tf_config" -> { "torch", "tf_config" }; NULL when a name is empty. */
static char **crs_split(const char *list)
{
	char **names = g_strsplit(list, ",", -1);

	if (names[0] == NULL) {
		g_strfreev(names);
		return NULL;
	}
	for (char **n = names; *n != NULL; n++) {
		if (g_strstrip(*n)[0] == '\0') {
			g_strfreev(names);
			return NULL;
		}
	}
	return names;
}

/*
 * srun hands a bare `--cluster-resolver` to the nodes as an empty string,
 * not as "no value": there (@remote) an empty value is the default. srun
 * itself refuses an explicit `--cluster-resolver=`, so an empty list never
 * reaches the nodes any other way.
 */
static int crs_option(int val, const char *optarg, int remote)
{
	const char *list =
		optarg != NULL && (optarg[0] != '\0' || !remote) ? optarg : CRS_DEFAULT_FORMATS;
	char **names = crs_split(list);

	if (names == NULL) {
		slurm_error("cluster-resolver: empty name in format list '%s'", list);
		return -1;
	}
	g_strfreev(crs_formats);
	crs_formats = names;
	return 0;
}

static struct spank_option crs_spank_option = {
	"cluster-resolver",
	"[FORMATS]",
	"Set the variables of FORMATS (comma-separated: tf_config, torch, torchrun, jax, env; "
	"default tf_config) in each task's environment, as `cluster-resolver exec --format "
	"FORMATS`.",
	2, /* optional argument */
	0,
	crs_option,
};

static void crs_log(cr_log_level level, const char *source, const char *message, void *user_data)
{
	const char *sep = source != NULL ? ": " : "";

	if (source == NULL)
		source = "";
	if (level == CR_LOG_ERROR)
		slurm_error("cluster-resolver: %s%s%s", source, sep, message);
	else if (level == CR_LOG_WARNING)
		slurm_spank_log("cluster-resolver: warning: %s%s%s", source, sep, message);
	else if (level == CR_LOG_INFO)
		slurm_verbose("cluster-resolver: %s%s%s", source, sep, message);
	else
		slurm_debug("cluster-resolver: %s%s%s", source, sep, message);
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	for (int i = 0; i < ac; i++) {
		if (strncmp(av[i], "config=", 7) == 0 && av[i][7] != '\0') {
			free(crs_config);
			crs_config = strdup(av[i] + 7);
		} else {
			slurm_error(
				"cluster-resolver: unknown plugstack.conf argument '%s' (known: "
				"config=FILE)",
				av[i]);
			return -1;
		}
	}
	/* srun and slurmstepd only: sbatch/salloc have no tasks to set up. */
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_REMOTE)
		return 0;
	if (spank_option_register(sp, &crs_spank_option) != ESPANK_SUCCESS) {
		slurm_error("cluster-resolver: cannot register --%s", crs_spank_option.name);
		return -1;
	}
	return 0;
}

/* Make the task's environment the process environment (we are the forked
 * task; slurmstepd execs the program with the job env, not ours). */
static int crs_adopt_task_env(spank_t sp)
{
	char **env = NULL;

	if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS || env == NULL) {
		slurm_error("cluster-resolver: cannot read the task's environment");
		return -1;
	}
	clearenv();
	for (size_t i = 0; env[i] != NULL; i++) {
		const char *eq = strchr(env[i], '=');
		char *name;

		if (eq == NULL || eq == env[i])
			continue;
		name = g_strndup(env[i], (size_t)(eq - env[i]));
		setenv(name, eq + 1, 1);
		g_free(name);
	}
	return 0;
}

static int crs_set(spank_t sp, const char *name, const char *value)
{
	spank_err_t e = spank_setenv(sp, name, value, 1);

	if (e != ESPANK_SUCCESS) {
		slurm_error("cluster-resolver: cannot set %s: %s", name, spank_strerror(e));
		return -1;
	}
	return 0;
}

static int crs_set_format(spank_t sp, const cr_result *res, const char *format)
{
	cr_error err = CR_ERROR_INIT;
	char **pairs = NULL;
	int rc = 0;

	if (cr_result_env_vars(res, format, NULL, &pairs, &err) != CR_OK) {
		slurm_error("cluster-resolver: %s", err.message);
		return -1;
	}
	for (size_t i = 0; rc == 0 && pairs[i] != NULL && pairs[i + 1] != NULL; i += 2)
		rc = crs_set(sp, pairs[i], pairs[i + 1]);
	cr_strv_free(pairs);
	return rc;
}

static int crs_set_all(spank_t sp, const cr_result *res)
{
	int rc = 0;

	for (char **f = crs_formats; rc == 0 && *f != NULL; f++)
		rc = crs_set_format(sp, res, *f);
	for (size_t k = 0; rc == 0 && k < cr_result_num_env(res); k++) {
		const char *name, *value;

		if (cr_result_env(res, k, &name, &value))
			rc = crs_set(sp, name, value);
	}
	return rc;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	cr_error err = CR_ERROR_INIT;
	cr_context *ctx = NULL;
	cr_result *res = NULL;
	const char *config = NULL;
	int rc = -1;

	if (crs_formats == NULL || spank_remote(sp) != 1)
		return 0;
	if (crs_adopt_task_env(sp) != 0)
		return -1;
	if (crs_config != NULL && (getenv("CLUSTER_RESOLVER_CONFIG") == NULL ||
				   getenv("CLUSTER_RESOLVER_CONFIG")[0] == '\0'))
		config = crs_config;

	ctx = cr_context_new(&err);
	if (ctx == NULL)
		goto out;
	cr_context_set_log_handler(ctx, crs_log, NULL);
	if (cr_context_load_config(ctx, config, &err) != CR_OK ||
	    cr_context_resolve(ctx, &res, &err) != CR_OK)
		goto out;
	rc = crs_set_all(sp, res);
out:
	if (rc != 0 && err.code != CR_OK)
		slurm_error("cluster-resolver: %s", err.message);
	cr_result_free(res);
	cr_context_free(ctx);
	return rc;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	g_strfreev(crs_formats);
	crs_formats = NULL;
	free(crs_config);
	crs_config = NULL;
	return 0;
}
