/* SPDX-License-Identifier: MIT */
/*
 * test-mpi.c - the mpi resolver through cr-testhost: the environments
 * that launchers set (recorded in shared/reference/launchers.md §2: Open
 * MPI 4.1 and MPICH 4.0.2 observed, Open MPI 5/PRRTE, MVAPICH2 and Intel
 * MPI from the peers that read them), every rank on one node (so no
 * query), and each malformed or inconsistent set of variables, with exact
 * output, message and status.
 */
#include "thc.h"

#define R "resolver 'mpi': "
#define CREATE "resolver 'mpi' (@PLUGIN@): create failed: "
#define DECLINED "no resolver applies here (declined: mpi)"
#define OMPI4(rank, size, lrank, lsize)                                                            \
	"OMPI_COMM_WORLD_RANK=" rank, "OMPI_COMM_WORLD_SIZE=" size,                                \
		"OMPI_COMM_WORLD_LOCAL_RANK=" lrank, "OMPI_COMM_WORLD_LOCAL_SIZE=" lsize,          \
		"OMPI_MCA_orte_hnp_uri=899940352.0;tcp://10.0.0.1:40123;tcp6://[fe80::1]:55763"
#define HYDRA(rank, size, lrank, lsize)                                                            \
	"PMI_RANK=" rank, "PMI_SIZE=" size, "PMI_FD=8", "MPI_LOCALRANKID=" lrank,                  \
		"MPI_LOCALNRANKS=" lsize

/* clang-format off */
static const thc_case cases[] = {
	/* Open MPI 4.1.4, mpirun -np 2, one node (§2a, observed) */
	{ "openmpi4-one-node",
	  NULL, { OMPI4("1", "2", "1", "2"), "PMIX_RANK=1", "PMIX_NAMESPACE=899940353", "PMIX_HOSTNAME=node0" }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"node0:8888\", \"node0:8889\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}\n",
	  "", CR_OK },
	{ "openmpi4-json",
	  NULL, { OMPI4("0", "2", "0", "2"), "PMIX_RANK=0", "PMIX_NAMESPACE=899940353", "PMIX_HOSTNAME=node0" }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"node0:8888\", \"node0:8889\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"master\": \"node0:8888\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "openmpi4-job-port-base",
	  "job = \"trainer\";\nport_base = 2222;", { OMPI4("2", "3", "2", "3"), "PMIX_HOSTNAME=node0" }, NULL, { "resolve" },
	  "{\"cluster\": {\"trainer\": [\"node0:2222\", \"node0:2223\", \"node0:2224\"]}, \"task\": {\"type\": \"trainer\", \"index\": 2}}\n",
	  "", CR_OK },
	{ "openmpi4-rpc-layer",
	  "rpc_layer = \"grpc\";", { OMPI4("0", "1", "0", "1"), "PMIX_HOSTNAME=node0" }, NULL, { "master" },
	  "grpc://node0:8888\n",
	  "", CR_OK },
	/* Open MPI 5 / PRRTE (§2b: PRTE_LAUNCHED, PMIX_NAMESPACE, OMPI_COMM_WORLD_*) */
	{ "openmpi5-prrte-one-node",
	  NULL, { "PRTE_LAUNCHED=1", "PMIX_NAMESPACE=prterun-login2-2232463@1", "PMIX_RANK=1", "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2", "PMIX_HOSTNAME=login2" }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"login2:8888\", \"login2:8889\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}\n",
	  "", CR_OK },
	/* MPICH 4.0.2 Hydra, mpiexec -n 2 (§2c, observed): no query on one node */
	{ "mpich-one-node",
	  NULL, { HYDRA("1", "2", "1", "2"), "MPIR_CVAR_CH3_INTERFACE_HOSTNAME=node0" }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"node0:8888\", \"node0:8889\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}}\n",
	  "", CR_OK },
	/* Intel MPI (§2d: PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS; the
	 * MPI Operator's I_MPI_HYDRA_HOST_FILE, I_MPI_PERHOST), an interface's address */
	{ "intel-mpi-interface",
	  "interface = \"lo\";", { HYDRA("0", "2", "0", "2"), "I_MPI_HYDRA_HOST_FILE=/etc/mpi/hostfile", "I_MPI_PERHOST=2" }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"127.0.0.1:8888\", \"127.0.0.1:8889\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}\n",
	  "", CR_OK },
	/* MVAPICH2 (§2d: MV2_COMM_WORLD_*) */
	{ "mvapich2-one-node",
	  "interface = \"lo\";", { "MV2_COMM_WORLD_RANK=3", "MV2_COMM_WORLD_SIZE=4", "MV2_COMM_WORLD_LOCAL_RANK=3", "MV2_COMM_WORLD_LOCAL_SIZE=4" }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"127.0.0.1:8888\", \"127.0.0.1:8889\", \"127.0.0.1:8890\", \"127.0.0.1:8891\"]}, \"task\": {\"type\": \"worker\", \"index\": 3}}\n",
	  "", CR_OK },
	{ "mvapich2-no-query-path",
	  NULL, { "MV2_COMM_WORLD_RANK=3", "MV2_COMM_WORLD_SIZE=4", "MV2_COMM_WORLD_LOCAL_RANK=1", "MV2_COMM_WORLD_LOCAL_SIZE=2", "MPIR_CVAR_CH3_INTERFACE_HOSTNAME=n1" }, NULL, { "resolve" },
	  "",
	  R "MVAPICH2 gives rank and size but no way to ask for the other ranks' hosts (none of PMI_FD, PMI_PORT, PMIX_NAMESPACE is set)", CR_ERR_NOT_FOUND },
	/* presence: two variables of one launcher */
	{ "nothing-declines",
	  NULL, { NULL }, NULL, { "resolve" },
	  "", DECLINED, CR_DECLINED },
	{ "one-variable-declines",
	  NULL, { "PMI_RANK=0" }, NULL, { "probe" },
	  "", "not launched by an MPI launcher: none of OMPI_COMM_WORLD_RANK with OMPI_MCA_orte_hnp_uri, PRTE_LAUNCHED, MV2_COMM_WORLD_RANK, PMI_RANK with PMI_FD, PMI_ID with PMI_PORT, PMIX_RANK with PMIX_NAMESPACE is set", CR_DECLINED },
	{ "ompi-rank-without-hnp-declines",
	  NULL, { "OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_SIZE=2" }, NULL, { "resolve" },
	  "", DECLINED, CR_DECLINED },
	/* consistency */
	{ "rank-not-below-size",
	  NULL, { OMPI4("4", "4", "0", "4") }, NULL, { "resolve" },
	  "", R "OMPI_COMM_WORLD_RANK (4) is not below OMPI_COMM_WORLD_SIZE (4)", CR_ERR_CONFLICT },
	{ "size-zero",
	  NULL, { HYDRA("0", "0", "0", "1") }, NULL, { "resolve" },
	  "", R "PMI_RANK (0) is not below PMI_SIZE (0)", CR_ERR_CONFLICT },
	{ "local-rank-not-below-local-size",
	  NULL, { HYDRA("1", "4", "2", "2") }, NULL, { "resolve" },
	  "", R "MPI_LOCALRANKID (2) is not below MPI_LOCALNRANKS (2)", CR_ERR_CONFLICT },
	{ "local-size-above-size",
	  NULL, { HYDRA("1", "2", "1", "3") }, NULL, { "resolve" },
	  "", R "MPI_LOCALNRANKS (3) is above PMI_SIZE (2)", CR_ERR_CONFLICT },
	{ "local-rank-without-local-size",
	  NULL, { "PMI_RANK=1", "PMI_SIZE=2", "PMI_FD=8", "MPI_LOCALRANKID=1" }, NULL, { "resolve" },
	  "", R "MPI_LOCALRANKID is set but MPI_LOCALNRANKS is not", CR_ERR_NOT_FOUND },
	{ "rank-not-a-number",
	  NULL, { HYDRA("one", "2", "1", "2") }, NULL, { "resolve" },
	  "", R "PMI_RANK is 'one', not a number in 0..2147483647", CR_ERR_PARSE },
	{ "size-missing",
	  NULL, { "MV2_COMM_WORLD_RANK=0", "MV2_COMM_WORLD_SIZE=" }, NULL, { "resolve" },
	  "", DECLINED, CR_DECLINED },
	{ "pmix-rank-disagrees",
	  NULL, { OMPI4("1", "2", "1", "2"), "PMIX_RANK=0", "PMIX_NAMESPACE=899940353" }, NULL, { "resolve" },
	  "", R "OMPI_COMM_WORLD_RANK (1) and PMIX_RANK (0) disagree", CR_ERR_CONFLICT },
	{ "port-above-65535",
	  "port_base = 65535;", { OMPI4("0", "2", "0", "2"), "PMIX_HOSTNAME=node0" }, NULL, { "resolve" },
	  "", R "rank 1: port_base 65535 + local rank 1 is above 65535", CR_ERR_CONFIG },
	/* config */
	{ "config-query",
	  "query = \"never\";", { NULL }, NULL, { "resolve" },
	  "", CREATE "(string):1: query must be \"auto\" or \"always\", not \"never\"", CR_ERR_CONFIG },
	{ "config-job-empty",
	  "job = \"\";", { NULL }, NULL, { "resolve" },
	  "", CREATE "(string):1: job must be a job name", CR_ERR_CONFIG },
	{ NULL },
};
/* clang-format on */

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("mpi", "resolvers/mpi.so", cases);
	return g_test_run();
}
