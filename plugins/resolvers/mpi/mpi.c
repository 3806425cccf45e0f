/* SPDX-License-Identifier: MIT */
/*
 * mpi.c - the cluster of an MPI launch, without linking MPI:
 *
 *   { plugin = "mpi"; }                          # job worker, port 8888 + local rank
 *   { plugin = "mpi"; job = "trainer"; port_base = 2222; interface = "eth0"; }
 *
 * The launcher (mpi-env.c) gives this process's rank and the world size;
 * no MPI launcher puts the other ranks' hosts in the environment, so they
 * are asked of it: PMIx (Open MPI, PRRTE, Slurm --mpi=pmix) or the PMI-1
 * key-value exchange (MPICH's Hydra, Intel MPI, MVAPICH2). The cluster is
 * one job of `size` tasks in rank order, each "host:port_base + local
 * rank", and this process is task `rank`. The query runs once per
 * process: every rank of the launch must resolve (as `mpirun
 * cluster-resolver exec -- prog` does), since PMI-1 takes a barrier.
 *
 * DECLINED when no launcher's variables are here, and under PMIx where
 * libpmix.so.2 is absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

struct mpi_state {
	struct mpi_env env;
	struct mpi_peer *peers; /* after the first resolve */
	int64_t npeers;
	int64_t query_ms;
	bool local_only;  /* one node: nothing asked */
	cr_status failed; /* a query that failed is not asked again */
	char failure[256];
};

static cr_status mpi_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *job = cr_host->opt_string(ctx, "job");

	const char *q = cr_host->opt_string(ctx, "query");

	if (strcmp(q, "auto") != 0 && strcmp(q, "always") != 0)
		return cr_host->error_set(err, CR_ERR_CONFIG,
					  "%s:%d: query must be \"auto\" or \"always\", not \"%s\"",
					  cr_host->cfg_file(cr_host->cfg_get(config, "query")),
					  cr_host->cfg_line(cr_host->cfg_get(config, "query")), q);
	if (job == NULL || *job == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: job must be a job name",
					  cr_host->cfg_file(config), cr_host->cfg_line(config));
	*state = calloc(1, sizeof(struct mpi_state));
	if (*state == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	return CR_OK;
}

static void mpi_destroy(void *state)
{
	struct mpi_state *s = state;

	if (s != NULL)
		mpi_peers_free(s->peers, s->npeers);
	free(s);
}

static cr_status mpi_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	struct mpi_state *s = state;

	if (s->peers != NULL)
		return CR_OK;
	return mpi_env_read(ctx, &s->env, err);
}

static void mpi_facts(struct mpi_state *s, cr_result_builder *b)
{
	char text[512];
	size_t used = 0;
	cr_json *j = NULL;

	cr_host->result_set_fact_string(b, "launcher", s->env.launcher, NULL);
	for (int i = 0; i < s->env.nvars && used < sizeof(text); i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s", i ? ", " : "",
					 s->env.vars[i]);
	cr_host->result_set_fact_string(b, "variables", text, NULL);
	cr_host->result_set_fact_string(b, "query",
					s->local_only ? "none (one node: local size = size)"
						      : mpi_query_name(s->env.query),
					NULL);
	if (s->env.query != MPI_QUERY_NONE && !s->local_only) {
		snprintf(text, sizeof(text), "%lld", (long long)s->query_ms);
		if (cr_host->json_parse(text, strlen(text), "query_ms", &j, NULL) == CR_OK)
			cr_host->result_set_fact(b, "query_ms", j, NULL);
		cr_host->json_free(j);
	}
}

/* Whether every rank runs on this node (local size = size), so that no
 * query is needed: `query = "auto"` then asks nothing of the launcher. */
static bool mpi_one_node(const struct mpi_state *s, cr_plugin_ctx *ctx)
{
	const char *q = cr_host->opt_string(ctx, "query");

	return strcmp(q, "auto") == 0 && s->env.size > 0 && s->env.local_size == s->env.size;
}

/* Every rank on this host: rank r is local rank r. */
static cr_status mpi_local_peers(struct mpi_state *s, const char *self, cr_error *err)
{
	s->peers = calloc((size_t)s->env.size, sizeof(*s->peers));
	if (s->peers == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	s->npeers = s->env.size;
	s->local_only = true;
	for (int64_t r = 0; r < s->env.size; r++) {
		s->peers[r].local_rank = r;
		s->peers[r].host = strdup(self);
		if (s->peers[r].host == NULL)
			return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	}
	return CR_OK;
}

static cr_status mpi_query(struct mpi_state *s, cr_plugin_ctx *ctx, cr_error *err)
{
	const char *interface = cr_host->opt_string(ctx, "interface");
	int64_t start = cr_host->monotonic_ms();
	char self[256];
	cr_status st;

	st = mpi_addr_self(ctx, interface, self, sizeof(self), err);
	if (st == CR_OK && mpi_one_node(s, ctx))
		return mpi_local_peers(s, self, err);
	if (st == CR_OK && s->env.query == MPI_QUERY_NONE)
		return cr_host->error_set(
			err, CR_ERR_NOT_FOUND,
			"%s gives rank and size but no way to ask for the other "
			"ranks' hosts (none of PMI_FD, PMI_PORT, PMIX_NAMESPACE is "
			"set)",
			s->env.launcher);
	if (st == CR_OK && s->env.query == MPI_QUERY_PMI1)
		st = mpi_pmi1_exchange(ctx, &s->env, self, cr_host->opt_int(ctx, "timeout") * 1000,
				       cr_host->getenv(ctx, "CLUSTER_RESOLVER_EXEC") != NULL,
				       &s->peers, err);
	else if (st == CR_OK) {
		if (cr_host->getenv(ctx, "CLUSTER_RESOLVER_EXEC") != NULL)
			cr_host->log(ctx, CR_LOG_WARNING,
				     "asking PMIx for the ranks' hosts under exec: the program "
				     "cannot initialize MPI after that (Open MPI 4.1 refuses a "
				     "second PMIx_Init of the same rank)");
		st = mpi_pmix_query(ctx, &s->env, interface, self, &s->peers, err);
	}
	s->query_ms = cr_host->monotonic_ms() - start;
	if (st == CR_OK)
		s->npeers = s->env.size;
	return st;
}

static cr_status mpi_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	struct mpi_state *s = state;
	const char *job = cr_host->opt_string(ctx, "job");
	int64_t port_base = cr_host->opt_int(ctx, "port_base");
	cr_status st = CR_OK;

	if (s->failed != CR_OK)
		return cr_host->error_set(err, s->failed, "%s", s->failure);
	if (s->peers == NULL) {
		st = mpi_env_read(ctx, &s->env, err);
		if (st == CR_OK)
			st = mpi_query(s, ctx, err);
		if (st != CR_OK && st != CR_DECLINED) {
			s->failed = st;
			snprintf(s->failure, sizeof(s->failure), "%s", err->message);
		}
	}
	if (s->env.launcher != NULL)
		mpi_facts(s, b);
	if (st == CR_OK)
		st = cr_host->result_add_job(b, job, err);
	for (int64_t r = 0; st == CR_OK && r < s->npeers; r++) {
		char addr[300];
		int64_t port = port_base + s->peers[r].local_rank;

		if (port > 65535)
			return cr_host->error_set(err, CR_ERR_CONFIG,
						  "rank %lld: port_base %lld + local rank %lld is "
						  "above 65535",
						  (long long)r, (long long)port_base,
						  (long long)s->peers[r].local_rank);
		snprintf(addr, sizeof(addr), "%s:%lld", s->peers[r].host, (long long)port);
		st = cr_host->result_append_task(b, job, addr, err);
	}
	if (st == CR_OK)
		st = cr_host->result_set_task(b, job, s->env.rank, err);
	if (st == CR_OK && cr_host->opt_is_set(ctx, "rpc_layer"))
		st = cr_host->result_set_rpc_layer(b, cr_host->opt_string(ctx, "rpc_layer"), err);
	return st;
}

static const cr_option mpi_options[] = {
	CR_OPTION("job", CR_OPT_STRING, "worker", 0, "the job every rank is a task of"),
	CR_OPTION_RANGE("port_base", CR_OPT_INT, "8888", 0,
			"port of local rank 0 on each host; local rank i gets port_base + i "
			"(8888: the slurm resolver's, so a job moved between srun and mpirun "
			"keeps its ports)",
			1, 65535),
	CR_OPTION("interface", CR_OPT_STRING, NULL, 0,
		  "give each host as this interface's IPv4 address, e.g. \"eth0\""),
	CR_OPTION_RANGE("timeout", CR_OPT_INT, "120", 0,
			"seconds to wait for each PMI-1 answer (the barrier waits for every rank)",
			1, 86400),
	CR_OPTION("query", CR_OPT_STRING, "auto", 0,
		  "\"auto\": ask the launcher (PMIx or PMI-1) only when the ranks span more than "
		  "this node; \"always\": ask it even then"),
	CR_OPTION("rpc_layer", CR_OPT_STRING, NULL, 0, "rpc layer of the cluster (unset: none)"),
	CR_OPTIONS_END,
};

static const cr_resolver_ops mpi_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = mpi_create,
	.destroy = mpi_destroy,
	.probe = mpi_probe,
	.resolve = mpi_resolve,
	.master = NULL,
};

static const cr_plugin_desc mpi_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "mpi",
	.version = CR_VERSION_STRING,
	.description = "the ranks of an MPI launch (Open MPI, MPICH, Intel MPI, MVAPICH2, PMIx) "
		       "and their hosts, asked of the launcher over PMIx or PMI-1",
	.options = mpi_options,
	.option_size = sizeof(cr_option),
	.resolver = &mpi_ops,
	.accelerator = NULL,
	.flags = 0,
	.watch_interval_s = CR_WATCH_STATIC, /* fixed for the run: not polled */
};

CR_PLUGIN_DEFINE(mpi_desc)
