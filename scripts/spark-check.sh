#!/bin/sh
# spark-check.sh [BUILD_DIR] - python/cluster_resolver/spark.py on a real
# Spark: local-cluster[2,1,1024] (a master and two executors of one core on
# 127.0.0.1, barrier mode), 1 ps + 1 chief, each task writing the TF_CONFIG
# it got. Needs pyspark (PyPI only: `pip install pyspark`) and Java; exits 77
# when pyspark does not import. Runs in the loopback-only namespace.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
py=${PYTHON:-python3}
if ! "$py" -c 'import pyspark' >/dev/null 2>&1; then
	echo "SKIP: pyspark does not import with $py (pip install pyspark)"
	exit 77
fi
if [ "${CR_HERMETIC:-}" != 1 ]; then
	exec "$src/scripts/hermetic.sh" "$0" "$@"
fi
cli=$build/bin/cluster-resolver
[ -x "$cli" ] || cli=$(find "$build" -name cluster-resolver -type f -perm -u+x | head -n1)
dir=$(mktemp -d /tmp/cr-spark-check.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export CLUSTER_RESOLVER="$cli"
export CLUSTER_RESOLVER_PLUGIN_PATH="$build/lib/cluster-resolver/resolvers"
export CLUSTER_RESOLVER_LIBRARY="$build/lib/libcluster-resolver.so.1"
export SPARK_LOCAL_IP=127.0.0.1 PYTHONPATH="$src/python${PYTHONPATH:+:$PYTHONPATH}"
export PYSPARK_PYTHON="$py" OUT="$dir"
"$py" - <<'PY'
import json, os, sys
from pyspark import SparkConf, SparkContext
import cluster_resolver.spark as crs

out = os.environ['OUT']
conf = SparkConf().setMaster('local-cluster[2,1,1024]').setAppName('cr-spark-check') \
    .set('spark.driver.host', '127.0.0.1')
sc = SparkContext(conf=conf)
prog = ['sh', '-c', 'printf "%s" "$TF_CONFIG" > ' + out + '/task-$CR_EXECUTOR_ID.json']
cluster = crs.run(sc, prog, num_executors=2, num_ps=1, master_node='chief',
                  reservation_timeout=120, num_gpus=0, timeout=300)
summary = cluster.shutdown()
sc.stop()
tfc = [json.load(open(os.path.join(out, 'task-%d.json' % i))) for i in range(2)]
want_roles = [('ps', 0), ('chief', 0)]
ok = True
for i, t in enumerate(tfc):
    role = (t['task']['type'], t['task']['index'])
    if role != want_roles[i] or t['cluster'] != tfc[0]['cluster'] or t['environment'] != 'cloud':
        print('not ok - executor %d: %s' % (i, json.dumps(t)))
        ok = False
if sorted(tfc[0]['cluster']) != ['chief', 'ps']:
    print('not ok - cluster %s' % json.dumps(tfc[0]['cluster']))
    ok = False
print('%s - Spark local-cluster[2,1,1024]: ps and chief formed; summary %s'
      % ('ok' if ok else 'not ok', json.dumps(summary)))
sys.exit(0 if ok else 1)
PY
