/* SPDX-License-Identifier: MIT */
/*
 * allreduce.c - the MPI program test-mpi-real.sh runs under MPICH after
 * `cluster-resolver exec`: all-reduces its rank and writes
 * "rank R of N sum S" and its TF_CONFIG to PREFIX.R (each rank its own
 * file: a launcher's forwarded stdout interleaves).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, sum = 0;
	const char *tf = getenv("TF_CONFIG");
	char path[4096];
	FILE *f;

	if (argc < 2)
		return 2;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	snprintf(path, sizeof(path), "%s.%d", argv[1], rank);
	f = fopen(path, "w");
	if (f != NULL) {
		fprintf(f, "rank %d of %d sum %d\n%s\n", rank, size, sum, tf != NULL ? tf : "-");
		fclose(f);
	}
	MPI_Finalize();
	return f != NULL ? 0 : 1;
}
