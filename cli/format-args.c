/* SPDX-License-Identifier: MIT */
/*
 * format-args.c - the format options `resolve` and `exec` share: --format
 * (a list, given once), --dialect, --jobs, --master-port, --port-range,
 * --job-id, --rdzv, --ifname, and which format takes which of them.
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"

cli_format_args cli_fmt;

const GOptionEntry cli_format_entries[] = {
	{ "format", 'f', 0, G_OPTION_ARG_STRING_ARRAY, &cli_fmt.format,
	  "output format(s), a comma-separated list given once: tf_config, json, clusterdef, "
	  "env, torch, torchrun, jax, hostfile, horovod, hosts",
	  "F[,F...]" },
	{ "dialect", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.dialect,
	  "hostfile dialect: openmpi, mpich, deepspeed", "D" },
	{ "jobs", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.jobs,
	  "the jobs whose tasks make the world, in rank order (default: chief,master,worker)",
	  "J[,J...]" },
	{ "master-port", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.master_port,
	  "torch, torchrun, jax, env: the rendezvous port: a number, or \"auto\" (derived from the "
	  "job id within --port-range) (default: rank 0's task port)",
	  "PORT|auto" },
	{ "port-range", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.port_range,
	  "the ports --master-port=auto chooses from (default: 20000-29999)", "LOW-HIGH" },
	{ "job-id", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.job_id,
	  "the job's identity for --master-port=auto and torchrun's c10d rendezvous id "
	  "(default: $SLURM_JOB_ID, else a hash of the cluster's addresses)",
	  "ID" },
	{ "rdzv", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.rdzv,
	  "torchrun: rendezvous: static (PET_NODE_RANK, PET_MASTER_*) or c10d (PET_RDZV_*)",
	  "static|c10d" },
	{ "ifname", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.ifname,
	  "torch, torchrun, env: set NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME to NAME, or with "
	  "\"auto\" to the interface carrying this task's address",
	  "NAME|auto" },
	G_OPTION_ENTRY_NULL
};

/* exec's: the formats that set variables, and no --dialect (a hostfile
 * sets none). The same storage as resolve's. */
const GOptionEntry cli_exec_format_entries[] = {
	{ "format", 'f', 0, G_OPTION_ARG_STRING_ARRAY, &cli_fmt.format,
	  "the variables to set, a comma-separated list of formats given once: tf_config, "
	  "torch, torchrun, jax, env",
	  "F[,F...]" },
	{ "jobs", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.jobs,
	  "the jobs whose tasks make the world, in rank order (default: chief,master,worker)",
	  "J[,J...]" },
	{ "master-port", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.master_port,
	  "torch, torchrun, jax, env: the rendezvous port: a number, or \"auto\" (derived from the "
	  "job id within --port-range) (default: rank 0's task port; with --elastic, one per "
	  "membership, from CR_GENERATION_ID within --port-range)",
	  "PORT|auto" },
	{ "port-range", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.port_range,
	  "the ports --master-port=auto and --elastic choose from (default: 20000-29999)",
	  "LOW-HIGH" },
	{ "job-id", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.job_id,
	  "the job's identity for --master-port=auto and torchrun's c10d rendezvous id "
	  "(default: $SLURM_JOB_ID, else a hash of the cluster's addresses)",
	  "ID" },
	{ "rdzv", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.rdzv,
	  "torchrun: rendezvous: static (PET_NODE_RANK, PET_MASTER_*) or c10d (PET_RDZV_*)",
	  "static|c10d" },
	{ "ifname", 0, 0, G_OPTION_ARG_STRING, &cli_fmt.ifname,
	  "torch, torchrun, env: set NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME to NAME, or with "
	  "\"auto\" to the interface carrying this task's address",
	  "NAME|auto" },
	G_OPTION_ENTRY_NULL
};

const struct cli_value_words cli_exec_format_value_words[] = {
	{ "format", cli_var_format_names },
	{ "rdzv", cli_rdzv_names },
	{ NULL, NULL },
};

const struct cli_value_words cli_format_value_words[] = {
	{ "format", cli_format_names },
	{ "dialect", cli_dialect_names },
	{ "rdzv", cli_rdzv_names },
	{ NULL, NULL },
};

/* Which formats take which option (the library checks it again). */
static const struct {
	const char *key;
	size_t field;
	const char *formats; /* ",a,b," */
} format_keys[] = {
	{ "dialect", offsetof(cli_format_args, dialect), ",hostfile," },
	{ "jobs", offsetof(cli_format_args, jobs),
	  ",env,torch,torchrun,jax,hostfile,horovod,hosts," },
	{ "master_port", offsetof(cli_format_args, master_port), ",env,torch,torchrun,jax," },
	{ "port_range", offsetof(cli_format_args, port_range), ",env,torch,torchrun,jax," },
	{ "job_id", offsetof(cli_format_args, job_id), ",env,torch,torchrun,jax," },
	{ "rdzv", offsetof(cli_format_args, rdzv), ",torchrun," },
	{ "ifname", offsetof(cli_format_args, ifname), ",env,torch,torchrun," },
};

static bool takes(size_t k, const char *format)
{
	char *needle = g_strdup_printf(",%s,", format);
	bool yes = strstr(format_keys[k].formats, needle) != NULL;

	g_free(needle);
	return yes;
}

bool cli_format_takes(const char *key, const char *format)
{
	for (size_t k = 0; k < G_N_ELEMENTS(format_keys); k++)
		if (strcmp(format_keys[k].key, key) == 0)
			return takes(k, format);
	return false;
}

/* "--master-port needs --format env, torch, torchrun or jax": an option
 * none of @formats takes is a mistake (it would be ignored), named with
 * the formats of @accepted that take it. */
static bool check_options_apply(const char *command, char **formats, const char *const *accepted)
{
	for (size_t k = 0; k < G_N_ELEMENTS(format_keys); k++) {
		const char *value =
			*(const char *const *)((const char *)&cli_fmt + format_keys[k].field);
		bool any = false;
		GString *takers;
		char *option;
		guint n = 0;

		for (size_t f = 0; value != NULL && formats[f] != NULL; f++)
			any = any || takes(k, formats[f]);
		if (value == NULL || any)
			continue;
		takers = g_string_new(NULL);
		for (size_t f = 0; accepted[f] != NULL; f++)
			n += takes(k, accepted[f]);
		for (size_t f = 0, seen = 0; accepted[f] != NULL; f++) {
			if (!takes(k, accepted[f]))
				continue;
			if (seen > 0)
				g_string_append(takers, seen + 1 == n ? " or " : ", ");
			g_string_append(takers, accepted[f]);
			seen++;
		}
		option = g_strdelimit(g_strdup(format_keys[k].key), "_", '-');
		cli_error("%s: --%s needs --format %s", command, option, takers->str);
		g_free(option);
		g_string_free(takers, TRUE);
		return false;
	}
	return true;
}

bool cli_format_list(const char *command, const char *const *accepted, char ***formats)
{
	const char *text = "tf_config";

	if (!cli_single_value(command, "--format", cli_fmt.format, &text))
		return false;
	*formats = cli_split_list(command, "--format", text);
	if (*formats != NULL && !check_options_apply(command, *formats, accepted)) {
		g_strfreev(*formats);
		*formats = NULL;
	}
	return *formats != NULL;
}

char **cli_format_options(const char *const *formats, const char *format)
{
	GPtrArray *opts = g_ptr_array_new();
	const char *slurm_job = g_getenv("SLURM_JOB_ID");

	for (size_t k = 0; k < G_N_ELEMENTS(format_keys); k++) {
		const char *value =
			*(const char *const *)((const char *)&cli_fmt + format_keys[k].field);
		bool any = false;

		if (value == NULL && strcmp(format_keys[k].key, "job_id") == 0 &&
		    slurm_job != NULL && slurm_job[0] != '\0' && takes(k, format)) {
			g_ptr_array_add(opts, g_strdup_printf("job_id=%s", slurm_job));
			continue;
		}
		if (value == NULL)
			continue;
		/* An option none of the listed formats takes goes to each, so
		 * that the library says which options they do take. */
		for (size_t f = 0; formats[f] != NULL; f++)
			any = any || takes(k, formats[f]);
		if (!any || takes(k, format))
			g_ptr_array_add(opts, g_strdup_printf("%s=%s", format_keys[k].key, value));
	}
	g_ptr_array_add(opts, NULL);
	return (char **)g_ptr_array_free(opts, FALSE);
}

bool cli_format_lists_hosts(const char *format)
{
	return strcmp(format, "hosts") == 0 || strcmp(format, "hostfile") == 0 ||
	       strcmp(format, "horovod") == 0;
}
