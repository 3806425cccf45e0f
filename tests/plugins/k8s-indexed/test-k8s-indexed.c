/* SPDX-License-Identifier: MIT */
/*
 * test-k8s-indexed.c - the `k8s-indexed` resolver through cr-testhost: the
 * cluster of an Indexed Job or a JobSet from the pod's environment alone.
 * cr-testhost has no HTTP script here, so any request would fail the case:
 * every answer below was made with none.
 *
 * The names are the controllers' (docs/k8s.md, "No request at all"):
 *   Job controller   hostname fmt.Sprintf("%s-%d", job.Name, completionIndex)
 *   JobSet           GenPodName "<jobset>-<replicatedJob>-<jobIndex>-<podIndex>",
 *                    subdomain spec.network.subdomain, by default the JobSet's name
 * and the two examples are the ones the Kubernetes and JobSet documents
 * show: "Job with Pod-to-Pod Communication" (example-job, headless-svc;
 * example-job-0.headless-svc) and JobSet's concepts page (JobSet pytorch,
 * replicated job workers: pytorch-workers-0-0 ... pytorch-workers-0-3,
 * subdomain pytorch).
 */
#include "thc.h"

#define CREATE "resolver 'k8s-indexed' (@PLUGIN@): create failed: "
#define R "resolver 'k8s-indexed': "

/* Kubernetes' example: Job example-job, completions 3, Service headless-svc. */
#define EX(i) "\"example-job-" #i ".headless-svc.default.svc.cluster.local:8470\""
#define EX_JOB "completions = 3; subdomain = \"headless-svc\";"
#define EX_ENV(i) "JOB_COMPLETION_INDEX=" #i, "HOSTNAME=example-job-" #i, "POD_NAMESPACE=default"

/* JobSet's example: pytorch, one replicated job `workers` of 4 pods. */
#define PT(i) "\"pytorch-workers-0-" #i ".pytorch.default.svc.cluster.local:3389\""
#define PT_SET "port = 3389; replicated_jobs = { workers = { replicas = 1; completions = 4; }; };"
#define PT_ENV(i)                                                                                  \
	"JOBSET_NAME=pytorch", "REPLICATED_JOB_NAME=workers", "JOB_INDEX=0",                       \
		"JOB_COMPLETION_INDEX=" #i, "POD_NAMESPACE=default"

/* A JobSet of two TF jobs: ps (1 Job of 2 pods), worker (2 Jobs of 2 pods). */
#define TS "\".tr.train.svc.cluster.local:2222\""
#define TR_SET                                                                                     \
	"port = 2222;\nreplicated_jobs = {\n  ps = { completions = 2; };\n"                        \
	"  worker = { replicas = 2; completions = 2; };\n};"
#define TR_CLUSTER                                                                                 \
	"{\"ps\": [\"tr-ps-0-0.tr.train.svc.cluster.local:2222\", "                                \
	"\"tr-ps-0-1.tr.train.svc.cluster.local:2222\"], "                                         \
	"\"worker\": [\"tr-worker-0-0.tr.train.svc.cluster.local:2222\", "                         \
	"\"tr-worker-0-1.tr.train.svc.cluster.local:2222\", "                                      \
	"\"tr-worker-1-0.tr.train.svc.cluster.local:2222\", "                                      \
	"\"tr-worker-1-1.tr.train.svc.cluster.local:2222\"]}"
#define TR_ENV(rj, j, i)                                                                           \
	"JOBSET_NAME=tr", "REPLICATED_JOB_NAME=" rj, "JOB_INDEX=" #j, "JOB_COMPLETION_INDEX=" #i,  \
		"POD_NAMESPACE=train"

/* 63 characters: the longest DNS label, so <J63>-0 is one too long. */
#define J60 "jjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjj"

/* clang-format off */
static const thc_case cases[] = {
	/* --- Indexed Job ------------------------------------------------- */
	{ "job-kubernetes-example",
	  EX_JOB, { EX_ENV(1) }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [" EX(0) ", " EX(1) ", " EX(2) "]}, \"task\": {\"type\": \"worker\", \"index\": 1}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },
	{ "job-master-is-index-0-of-own-job",
	  EX_JOB, { EX_ENV(2) }, NULL, { "master", "--task-type", "worker", "--task-id", "0" },
	  "grpc://example-job-0.headless-svc.default.svc.cluster.local:8470\n",
	  "", CR_OK },
	{ "job-name-from-JOB_NAME",
	  "completions = 2; subdomain = \"svc\";", { "JOB_COMPLETION_INDEX=0", "JOB_NAME=trainer", "HOSTNAME=trainer-0", "POD_NAMESPACE=ml" }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"trainer-0.svc.ml.svc.cluster.local:8470\", \"trainer-1.svc.ml.svc.cluster.local:8470\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },
	{ "job-name-option-wins",
	  "completions = 1; subdomain = \"svc\"; job_name = \"a\";", { "JOB_COMPLETION_INDEX=0", "JOB_NAME=b", "HOSTNAME=a-0", "POD_NAMESPACE=ml" }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"a-0.svc.ml.svc.cluster.local:8470\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },
	/* A hostNetwork pod has the node's name: the rule still holds for the
	 * others, and the warning says what they will look for. */
	{ "job-hostname-differs-warns",
	  "completions = 2; subdomain = \"svc\";", { "JOB_COMPLETION_INDEX=1", "JOB_NAME=trainer", "HOSTNAME=gpu-node-7", "POD_NAMESPACE=ml" }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"trainer-0.svc.ml.svc.cluster.local:8470\", \"trainer-1.svc.ml.svc.cluster.local:8470\"]}, \"task\": {\"type\": \"worker\", \"index\": 1}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK,
	  "warning: " R "HOSTNAME is \"gpu-node-7\", but the naming rule gives this pod \"trainer-1\" (JOB_NAME \"trainer\"): the other pods will look for \"trainer-1\"\n" },
	{ "job-completions-from-env",
	  "subdomain = \"svc\"; task_type = \"chief\"; port = 1;", { "JOB_COMPLETION_INDEX=0", "JOB_COMPLETIONS=2", "HOSTNAME=t-0", "POD_NAMESPACE=ml" }, NULL, { "resolve" },
	  "{\"cluster\": {\"chief\": [\"t-0.svc.ml.svc.cluster.local:1\", \"t-1.svc.ml.svc.cluster.local:1\"]}, \"task\": {\"type\": \"chief\", \"index\": 0}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },
	{ "job-completions-option-wins",
	  "completions = 1; subdomain = \"svc\";", { "JOB_COMPLETION_INDEX=0", "JOB_COMPLETIONS=5", "HOSTNAME=t-0", "POD_NAMESPACE=ml" }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"t-0.svc.ml.svc.cluster.local:8470\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },
	{ "job-no-cluster-domain-no-rpc-layer",
	  "completions = 1; subdomain = \"svc\"; cluster_domain = \"\"; rpc_layer = \"\";", { "JOB_COMPLETION_INDEX=0", "HOSTNAME=t-0", "POD_NAMESPACE=ml" }, NULL, { "resolve", "--format", "json" },
	  "{\"cluster\": {\"worker\": [\"t-0.svc.ml.svc:8470\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"master\": \"t-0.svc.ml.svc:8470\", \"num_accelerators\": {}}\n",
	  "", CR_OK },
	{ "job-namespace-option-and-domain",
	  "completions = 1; subdomain = \"svc\"; namespace = \"team-a\"; cluster_domain = \"k8s.example.org\";", { "JOB_COMPLETION_INDEX=0", "HOSTNAME=t-0", "POD_NAMESPACE=ml" }, NULL, { "resolve" },
	  "{\"cluster\": {\"worker\": [\"t-0.svc.team-a.svc.k8s.example.org:8470\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },
	/* No POD_NAMESPACE: the service-account file, when the pod mounts it. */
	{ "job-namespace-from-service-account-file",
	  "completions = 1; subdomain = \"svc\";", { "JOB_COMPLETION_INDEX=0", "HOSTNAME=t-0" }, "@SRC@/tests/plugins/k8s-indexed/root", { "resolve" },
	  "{\"cluster\": {\"worker\": [\"t-0.svc.from-file.svc.cluster.local:8470\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },

	/* --- what a pod may lack or get wrong: the message names it -------- */
	{ "job-no-index-declines",
	  EX_JOB, { "HOSTNAME=example-job-0", "POD_NAMESPACE=default" }, NULL, { "probe" },
	  "",
	  "JOB_COMPLETION_INDEX is not set: not a pod of an Indexed Job", CR_DECLINED },
	{ "job-no-index-resolve-declines",
	  EX_JOB, { "JOB_COMPLETION_INDEX=" }, NULL, { "resolve" },
	  "",
	  "no resolver applies here (declined: k8s-indexed)", CR_DECLINED },
	{ "job-index-not-a-number",
	  EX_JOB, { "JOB_COMPLETION_INDEX=one", "HOSTNAME=example-job-0", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "JOB_COMPLETION_INDEX is \"one\", not an index (0, 1, 2, ...)", CR_ERR_BACKEND },
	{ "job-index-leading-zero",
	  EX_JOB, { "JOB_COMPLETION_INDEX=01", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "JOB_COMPLETION_INDEX is \"01\", not an index (0, 1, 2, ...)", CR_ERR_BACKEND },
	{ "job-index-negative",
	  EX_JOB, { "JOB_COMPLETION_INDEX=-1", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "JOB_COMPLETION_INDEX is \"-1\", not an index (0, 1, 2, ...)", CR_ERR_BACKEND },
	{ "job-index-past-completions",
	  EX_JOB, { "JOB_COMPLETION_INDEX=3", "HOSTNAME=example-job-3", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "JOB_COMPLETION_INDEX is 3, out of 0..2 (completions: 3)", CR_ERR_BACKEND },
	{ "job-index-past-JOB_COMPLETIONS",
	  "subdomain = \"s\";", { "JOB_COMPLETION_INDEX=4", "JOB_COMPLETIONS=4", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "JOB_COMPLETION_INDEX is 4, out of 0..3 (JOB_COMPLETIONS: 4)", CR_ERR_BACKEND },
	{ "job-no-completions",
	  "subdomain = \"s\";", { "JOB_COMPLETION_INDEX=0", "HOSTNAME=t-0", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "JOB_COMPLETIONS is not set (the Job's spec.completions; or set the completions option)", CR_ERR_BACKEND },
	{ "job-completions-bad",
	  "subdomain = \"s\";", { "JOB_COMPLETION_INDEX=0", "JOB_COMPLETIONS=100001", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "JOB_COMPLETIONS is \"100001\", not a count in 1..100000", CR_ERR_BACKEND },
	{ "job-completions-zero",
	  "subdomain = \"s\";", { "JOB_COMPLETION_INDEX=0", "JOB_COMPLETIONS=0", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "JOB_COMPLETIONS is \"0\", not a count in 1..100000", CR_ERR_BACKEND },
	{ "job-no-name",
	  EX_JOB, { "JOB_COMPLETION_INDEX=1", "HOSTNAME=trainer-0", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "JOB_NAME is not set, and HOSTNAME (\"trainer-0\") is not <job>-1 (set JOB_NAME from the downward API, fieldPath: metadata.labels['job-name'], which every Kubernetes version sets, or the job_name option)", CR_ERR_BACKEND },
	{ "job-name-not-a-label",
	  EX_JOB, { "JOB_COMPLETION_INDEX=1", "JOB_NAME=Trainer", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "JOB_NAME is \"Trainer\", not a DNS label", CR_ERR_BACKEND },
	{ "job-no-namespace",
	  EX_JOB, { "JOB_COMPLETION_INDEX=1", "HOSTNAME=example-job-1" }, NULL, { "resolve" },
	  "",
	  R "POD_NAMESPACE is not set (give it from the downward API, fieldPath: metadata.namespace, or set the namespace option)", CR_ERR_BACKEND },
	{ "job-namespace-not-a-label",
	  EX_JOB, { "JOB_COMPLETION_INDEX=1", "HOSTNAME=example-job-1", "POD_NAMESPACE=a.b" }, NULL, { "resolve" },
	  "",
	  R "POD_NAMESPACE is \"a.b\", not a DNS label", CR_ERR_BACKEND },
	{ "job-no-subdomain",
	  "completions = 3;", { "JOB_COMPLETION_INDEX=1", "HOSTNAME=example-job-1", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "subdomain is not set: the name of the Job's headless Service (the pod template's spec.subdomain)", CR_ERR_CONFIG },
	/* <60 j>-1000 is 65 characters: no pod could carry that hostname. */
	{ "job-hostname-too-long",
	  "completions = 1001; subdomain = \"s\"; job_name = \"" J60 "\";", { "JOB_COMPLETION_INDEX=0", "POD_NAMESPACE=default" }, NULL, { "resolve" },
	  "",
	  R "hostname \"" J60 "-1000\" (option job_name \"" J60 "\") is 65 characters; a DNS label holds at most 63, so the controller cannot make it", CR_ERR_BACKEND },

	/* --- JobSet ------------------------------------------------------ */
	{ "jobset-docs-example",
	  PT_SET, { PT_ENV(2) }, NULL, { "resolve" },
	  "{\"cluster\": {\"workers\": [" PT(0) ", " PT(1) ", " PT(2) ", " PT(3) "]}, \"task\": {\"type\": \"workers\", \"index\": 2}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },
	{ "jobset-ps-and-workers",
	  TR_SET, { TR_ENV("worker", 1, 1) }, NULL, { "resolve" },
	  "{\"cluster\": " TR_CLUSTER ", \"task\": {\"type\": \"worker\", \"index\": 3}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },
	{ "jobset-ps-own-task",
	  TR_SET, { TR_ENV("ps", 0, 1) }, NULL, { "resolve" },
	  "{\"cluster\": " TR_CLUSTER ", \"task\": {\"type\": \"ps\", \"index\": 1}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },
	{ "jobset-subdomain-option",
	  "subdomain = \"net\"; replicated_jobs = { w = { completions = 1; }; };", { "JOBSET_NAME=js", "REPLICATED_JOB_NAME=w", "JOB_INDEX=0", "JOB_COMPLETION_INDEX=0", "POD_NAMESPACE=ml" }, NULL, { "resolve" },
	  "{\"cluster\": {\"w\": [\"js-w-0-0.net.ml.svc.cluster.local:8470\"]}, \"task\": {\"type\": \"w\", \"index\": 0}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },
	{ "jobset-name-option",
	  "jobset_name = \"js\"; replicated_jobs = { w = { completions = 1; }; };", { "JOBSET_NAME=other", "REPLICATED_JOB_NAME=w", "JOB_INDEX=0", "JOB_COMPLETION_INDEX=0", "POD_NAMESPACE=ml" }, NULL, { "resolve" },
	  "{\"cluster\": {\"w\": [\"js-w-0-0.js.ml.svc.cluster.local:8470\"]}, \"task\": {\"type\": \"w\", \"index\": 0}, \"rpc_layer\": \"grpc\"}\n",
	  "", CR_OK },
	{ "jobset-no-jobset-name",
	  TR_SET, { "REPLICATED_JOB_NAME=ps", "JOB_INDEX=0", "JOB_COMPLETION_INDEX=0", "POD_NAMESPACE=train" }, NULL, { "resolve" },
	  "",
	  R "JOBSET_NAME is not set (from the downward API, fieldPath: metadata.labels['jobset.sigs.k8s.io/jobset-name'], or the jobset_name option)", CR_ERR_BACKEND },
	{ "jobset-no-replicated-job-name",
	  TR_SET, { "JOBSET_NAME=tr", "JOB_INDEX=0", "JOB_COMPLETION_INDEX=0", "POD_NAMESPACE=train" }, NULL, { "resolve" },
	  "",
	  R "REPLICATED_JOB_NAME is not set (from the downward API, fieldPath: metadata.labels['jobset.sigs.k8s.io/replicatedjob-name'])", CR_ERR_BACKEND },
	{ "jobset-unknown-replicated-job",
	  TR_SET, { TR_ENV("chief", 0, 0) }, NULL, { "resolve" },
	  "",
	  R "REPLICATED_JOB_NAME is \"chief\", not one of replicated_jobs ('ps', 'worker', at (string):2)", CR_ERR_BACKEND },
	{ "jobset-no-job-index",
	  TR_SET, { "JOBSET_NAME=tr", "REPLICATED_JOB_NAME=ps", "JOB_COMPLETION_INDEX=0", "POD_NAMESPACE=train" }, NULL, { "resolve" },
	  "",
	  R "JOB_INDEX is not set", CR_ERR_BACKEND },
	{ "jobset-job-index-past-replicas",
	  TR_SET, { TR_ENV("worker", 2, 0) }, NULL, { "resolve" },
	  "",
	  R "JOB_INDEX is 2, out of 0..1 (replicas of 'worker': 2)", CR_ERR_BACKEND },
	{ "jobset-pod-index-past-completions",
	  TR_SET, { TR_ENV("ps", 0, 2) }, NULL, { "resolve" },
	  "",
	  R "JOB_COMPLETION_INDEX is 2, out of 0..1 (completions of 'ps': 2)", CR_ERR_BACKEND },
	{ "jobset-name-not-rfc1035",
	  TR_SET, { "JOBSET_NAME=9tr", "REPLICATED_JOB_NAME=ps", "JOB_INDEX=0", "JOB_COMPLETION_INDEX=0", "POD_NAMESPACE=train" }, NULL, { "resolve" },
	  "",
	  R "JOBSET_NAME is \"9tr\", not a DNS label", CR_ERR_BACKEND },
	{ "jobset-hostname-too-long",
	  "replicated_jobs = { w = { completions = 10; }; };", { "JOBSET_NAME=" J60, "REPLICATED_JOB_NAME=w", "JOB_INDEX=0", "JOB_COMPLETION_INDEX=0", "POD_NAMESPACE=ml" }, NULL, { "resolve" },
	  "",
	  R "hostname \"" J60 "-w-0-9\" (JOBSET_NAME \"" J60 "\") is 66 characters; a DNS label holds at most 63, so the controller cannot make it", CR_ERR_BACKEND },

	/* --- the config, checked at create with FILE:LINE ------------------ */
	{ "config-completions-with-jobset",
	  "completions = 2;\nreplicated_jobs = { w = { completions = 1; }; };", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):1: completions is for an Indexed Job; a JobSet's jobs are replicated_jobs (each TF job is a replicated job)", CR_ERR_CONFIG },
	{ "config-jobset-name-without-shape",
	  "completions = 2;\njobset_name = \"js\";", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):2: jobset_name needs replicated_jobs (the JobSet's shape)", CR_ERR_CONFIG },
	{ "config-empty-shape",
	  "replicated_jobs = { };", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):1: replicated_jobs is empty: name each replicated job of the JobSet", CR_ERR_CONFIG },
	{ "config-replicated-job-not-a-group",
	  "replicated_jobs = {\n  w = 4;\n};", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):2: replicated job 'w' must be a group: { replicas = N; completions = N; }", CR_ERR_CONFIG },
	{ "config-replicated-job-unknown-key",
	  "replicated_jobs = {\n  w = { completions = 1;\n    parallelism = 1; };\n};", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):3: replicated job 'w': unknown key 'parallelism' (replicas, completions)", CR_ERR_CONFIG },
	{ "config-replicated-job-no-completions",
	  "replicated_jobs = {\n  w = { replicas = 2; };\n};", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):2: replicated job 'w' needs completions (its Jobs' spec.completions)", CR_ERR_CONFIG },
	{ "config-replicated-job-zero-replicas",
	  "replicated_jobs = {\n  w = { replicas = 0; completions = 1; };\n};", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):2: replicated job 'w': replicas must be an integer in 1..100000", CR_ERR_CONFIG },
	{ "config-replicated-job-name-upper-case",
	  "replicated_jobs = {\n  Worker = { completions = 1; };\n};", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):2: replicated job 'Worker' is not a DNS label (lower-case letters, digits and '-')", CR_ERR_CONFIG },
	{ "config-too-many-pods",
	  "replicated_jobs = {\n  w = { replicas = 100000; completions = 11; };\n};", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):1: replicated_jobs make 1100000 pods, more than 1000000", CR_ERR_CONFIG },
	{ "config-subdomain-not-a-label",
	  "completions = 1;\nsubdomain = \"Svc\";", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):2: subdomain 'Svc' is not a DNS label (at most 63 lower-case letters, digits and '-', a letter or digit at each end)", CR_ERR_CONFIG },
	{ "config-bad-cluster-domain",
	  "completions = 1;\ncluster_domain = \"cluster..local\";", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):2: cluster_domain 'cluster..local' is not a domain name", CR_ERR_CONFIG },
	{ "config-empty-task-type",
	  "completions = 1;\ntask_type = \"\";", { NULL }, NULL, { "probe" },
	  "",
	  CREATE "(string):2: task_type must not be empty", CR_ERR_CONFIG },

	{ NULL },
};
/* clang-format on */

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("k8s-indexed", "resolvers/k8s-indexed.so", cases);
	return g_test_run();
}
