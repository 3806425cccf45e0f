"""cluster_resolver_spark - the old name of cluster_resolver.spark, kept for
one release: import cluster_resolver.spark instead."""
import sys

from cluster_resolver import spark as _spark

sys.modules[__name__] = _spark
