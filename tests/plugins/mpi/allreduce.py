"""allreduce.py PREFIX - the mpi4py program test-mpi-real.sh runs under Open
MPI after `cluster-resolver exec`: all-reduces its rank and writes
"rank R of N sum S" and its TF_CONFIG to PREFIX.R."""
import os
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
total = comm.allreduce(comm.Get_rank())
with open("%s.%d" % (sys.argv[1], comm.Get_rank()), "w") as f:
    f.write("rank %d of %d sum %d\n%s\n" % (comm.Get_rank(), comm.Get_size(), total,
                                          os.environ.get("TF_CONFIG", "-")))
