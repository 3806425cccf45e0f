/* SPDX-License-Identifier: MIT */
/*
 * mpi.h - internal interfaces of the mpi resolver.
 *
 * mpi-env.c reads which MPI launcher started this process and its place
 * (rank, size, local rank) from the variables the launcher sets;
 * mpi-addr.c names this process's host; mpi-pmi1.c and mpi-pmix.c learn
 * every rank's host from the launcher (PMI-1 wire protocol, PMIx); mpi.c
 * turns it into one job of `size` tasks.
 */
#ifndef CR_PLUGIN_MPI_H
#define CR_PLUGIN_MPI_H

#include <stdbool.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

/** How the hosts of the other ranks are learnt. */
enum mpi_query {
	MPI_QUERY_NONE = 0,
	MPI_QUERY_PMIX,
	MPI_QUERY_PMI1,
};

#define MPI_MAX_VARS 12

/**
 * mpi_env: what the launcher's variables say.
 * @launcher: "Open MPI 4 (ORTE)", "Open MPI 5 (PRRTE)", ... (static).
 * @vars: the names of the variables read (static), @nvars of them.
 * @rank, @size: this process's rank and the world size (@size -1: not in
 *     the environment; the query gives it).
 * @local_rank, @local_size: on this node (-1: not given).
 * @query: how the other ranks' hosts are learnt.
 * @pmi_fd: PMI_FD (-1 when PMI_PORT is used).
 * @pmi_port: PMI_PORT's value (borrowed), @pmi_id: PMI_ID.
 */
struct mpi_env {
	const char *launcher;
	const char *vars[MPI_MAX_VARS];
	int nvars;
	int64_t rank, size, local_rank, local_size;
	enum mpi_query query;
	int pmi_fd;
	const char *pmi_port;
	int64_t pmi_id;
};

/** One rank's place as the launcher knows it. @host: malloc'd. */
struct mpi_peer {
	char *host;
	int64_t local_rank;
};

/**
 * mpi_env_read: detect the launcher. Returns: CR_OK; CR_DECLINED (with a
 * reason) when no launcher's variables are here; CR_ERR_PARSE or
 * CR_ERR_CONFLICT naming the variables when they are malformed or disagree.
 */
cr_status mpi_env_read(cr_plugin_ctx *ctx, struct mpi_env *env, cr_error *err);

/** Name of @q: "pmix", "pmi1" or "none". */
const char *mpi_query_name(enum mpi_query q);

/**
 * mpi_addr_self: the address of this process's host as its peers should
 * reach it: the IPv4 address of @interface when it is set, else
 * PMIX_HOSTNAME, MPIR_CVAR_CH3_INTERFACE_HOSTNAME or gethostname().
 * Writes at most @len bytes to @out. Returns: CR_OK, CR_ERR_NOT_FOUND
 * naming the interface, CR_ERR_IO.
 */
cr_status mpi_addr_self(cr_plugin_ctx *ctx, const char *interface, char *out, size_t len,
			cr_error *err);

/**
 * mpi_pmi1_exchange: put this rank's "@local_rank/@self" into the job's
 * key-value space, take part in one barrier and get every rank's, then
 * finalize. With @keep_open (under `exec`) the connection is left
 * initialized and open, never finalized: the program goes on using it (a
 * PMI-1 finalize makes Hydra close it, and the program's MPI_Init then
 * fails). @timeout_ms bounds each answer. (transfer full) *@peers:
 * env->size entries (size is set from the server in PMI_PORT mode); free
 * with mpi_peers_free().
 */
cr_status mpi_pmi1_exchange(cr_plugin_ctx *ctx, struct mpi_env *env, const char *self,
			    int64_t timeout_ms, bool keep_open, struct mpi_peer **peers,
			    cr_error *err);

/**
 * mpi_pmix_query: PMIx_Init, then PMIX_JOB_SIZE and each rank's
 * PMIX_HOSTNAME and PMIX_LOCAL_RANK, then PMIx_Finalize. libpmix is
 * opened at run time. @interface: (nullable) when set, each rank's own
 * address (@self) is exchanged with PMIx_Put/Commit/Fence instead of the
 * hostnames. Returns: CR_OK, CR_DECLINED when libpmix.so.2 is absent, or
 * an error naming the PMIx call.
 */
cr_status mpi_pmix_query(cr_plugin_ctx *ctx, struct mpi_env *env, const char *interface,
			 const char *self, struct mpi_peer **peers, cr_error *err);

/** Free @n peers. NULL is a no-op. */
void mpi_peers_free(struct mpi_peer *peers, int64_t n);

#endif /* CR_PLUGIN_MPI_H */
