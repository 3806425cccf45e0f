/* SPDX-License-Identifier: MIT */
/*
 * kix.c - k8s-indexed.so: the cluster of an Indexed Job or a JobSet with no
 * request to the API server, so no RBAC, no token and no HTTP.
 *
 * An Indexed Job whose pod template names a headless Service as its
 * subdomain (a JobSet makes exactly that) gives every pod a DNS name that
 * is known before the pod exists: <job>-<index>.<subdomain>.<namespace>.svc.
 * A pod knows its own index (JOB_COMPLETION_INDEX); the config knows the
 * shape (completions, or a JobSet's replicated jobs). Together they are the
 * whole cluster: a 10,000-pod job costs the API server 0 requests, where
 * k8s.so lists 10,000 pods in each of 10,000 pods.
 *
 * It is a plugin of its own, not a mode of k8s.so: it needs none of k8s.so's
 * libraries (libcurl, libyaml, json-c), credentials or options, and an
 * admin can install it, or allow it, without the one that talks to the
 * API server.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kix.h"

static const cr_option kix_options[] = {
	CR_OPTION("replicated_jobs", CR_OPT_GROUP, NULL, 0,
		  "a JobSet: { NAME = { replicas = N; completions = N; }; ... }, in the "
		  "JobSet's order; each replicated job is a TF job"),
	CR_OPTION_RANGE("completions", CR_OPT_INT, NULL, 0,
			"an Indexed Job's spec.completions (default: $JOB_COMPLETIONS)", 1,
			KIX_MAX_COMPLETIONS),
	CR_OPTION("job_name", CR_OPT_STRING, NULL, 0,
		  "the Indexed Job's name (default: $JOB_NAME, else $HOSTNAME less -<index>)"),
	CR_OPTION("task_type", CR_OPT_STRING, "worker", 0, "TF job of an Indexed Job's pods"),
	CR_OPTION("jobset_name", CR_OPT_STRING, NULL, 0,
		  "the JobSet's name (default: $JOBSET_NAME)"),
	CR_OPTION("subdomain", CR_OPT_STRING, NULL, 0,
		  "the headless Service (pod spec.subdomain); a JobSet's default: its name"),
	CR_OPTION("namespace", CR_OPT_STRING, NULL, 0,
		  "namespace (default: $POD_NAMESPACE, else namespace_file)"),
	CR_OPTION("namespace_file", CR_OPT_STRING,
		  "/var/run/secrets/kubernetes.io/serviceaccount/namespace", 0,
		  "read for the namespace when neither the option nor $POD_NAMESPACE is set"),
	CR_OPTION("cluster_domain", CR_OPT_STRING, "cluster.local", 0,
		  "cluster DNS domain; \"\" stops the names at .svc"),
	CR_OPTION_RANGE("port", CR_OPT_INT, "8470", 0, "port of every task", 1, 65535),
	CR_OPTION("rpc_layer", CR_OPT_STRING, "grpc", 0, "rpc layer reported with the cluster"),
	CR_OPTIONS_END,
};

static void kix_destroy(void *state)
{
	struct kix *st = state;

	if (st == NULL)
		return;
	free(st->rjobs);
	free(st);
}

static cr_status kix_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	struct kix *st = calloc(1, sizeof(*st));
	cr_status rc;

	if (st == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	rc = kix_check_options(ctx, config, err);
	if (rc == CR_OK)
		rc = kix_parse_shape(config, st, err);
	if (rc != CR_OK) {
		kix_destroy(st);
		return rc;
	}
	*state = st;
	return CR_OK;
}

/* Not a pod of an Indexed Job (nor of a JobSet, whose Jobs are Indexed):
 * this resolver does not apply. */
static cr_status kix_probe(void *state, cr_plugin_ctx *ctx, cr_error *err)
{
	const char *v = cr_host->getenv(ctx, "JOB_COMPLETION_INDEX");

	(void)state;
	if (v == NULL || *v == '\0')
		return cr_host->error_set(
			err, CR_DECLINED,
			"JOB_COMPLETION_INDEX is not set: not a pod of an Indexed "
			"Job");
	return CR_OK;
}

static void kix_fact_int(cr_result_builder *b, const char *key, long long v)
{
	char n[32];
	cr_json *j = NULL;

	snprintf(n, sizeof(n), "%lld", v);
	if (cr_host->json_parse(n, strlen(n), key, &j, NULL) == CR_OK)
		cr_host->result_set_fact(b, key, j, NULL);
	cr_host->json_free(j);
}

static void kix_fact_val(cr_result_builder *b, const char *key, const struct kix_val *v)
{
	char text[512];

	snprintf(text, sizeof(text), "%s (%s)", v->text, v->from);
	cr_host->result_set_fact_string(b, key, text, NULL);
}

/* Which workload this is, and why: said before anything can fail. */
static void kix_facts_mode(cr_result_builder *b, const struct kix *st)
{
	char why[320];

	if (st->rjobs != NULL)
		snprintf(why, sizeof(why), "replicated_jobs is set (%s)", st->shape_at);
	else
		snprintf(why, sizeof(why), "no replicated_jobs in the config: one Indexed Job");
	cr_host->result_set_fact_string(b, "mode", st->rjobs != NULL ? "jobset" : "indexed_job",
					NULL);
	cr_host->result_set_fact_string(b, "why", why, NULL);
	kix_fact_int(b, "requests", 0);
}

static void kix_facts_pod(cr_result_builder *b, const struct kix *st, const struct kix_pod *pod)
{
	char n[64];

	kix_fact_val(b, st->rjobs != NULL ? "jobset" : "job", &pod->job);
	if (st->rjobs == NULL) {
		snprintf(n, sizeof(n), "%lld (%s)", (long long)pod->completions, pod->comp_from);
		cr_host->result_set_fact_string(b, "completions", n, NULL);
	}
	kix_fact_val(b, "subdomain", &pod->sub);
	kix_fact_val(b, "namespace", &pod->ns);
	cr_host->result_set_fact_string(b, "hostname", pod->own_host, NULL);
}

/* The naming rule gives this pod a hostname; the kubelet gave it one too.
 * They differ when the config names another Job, or in a hostNetwork pod
 * (the node's name): say so, since the other pods will use the rule's. */
static void kix_check_hostname(cr_plugin_ctx *ctx, const struct kix_pod *pod)
{
	const char *host = cr_host->getenv(ctx, "HOSTNAME");

	if (host != NULL && *host != '\0' && strcmp(host, pod->own_host) != 0)
		cr_host->log(ctx, CR_LOG_WARNING,
			     "HOSTNAME is \"%s\", but the naming rule gives this pod \"%s\" "
			     "(%s \"%s\"): the other pods will look for \"%s\"",
			     host, pod->own_host, pod->job.from, pod->job.text, pod->own_host);
}

static cr_status kix_resolve(void *state, cr_plugin_ctx *ctx, cr_result_builder *b, cr_error *err)
{
	struct kix *st = state;
	struct kix_pod pod;
	cr_status rc;

	memset(&pod, 0, sizeof(pod));
	kix_facts_mode(b, st);
	rc = kix_read_pod(ctx, st, &pod, err);
	if (rc == CR_OK)
		rc = kix_check_names(st, &pod, err);
	if (rc != CR_OK)
		return rc;
	kix_hostname(pod.own_host, sizeof(pod.own_host), pod.job.text, pod.own, pod.job_index,
		     pod.pod_index);
	kix_facts_pod(b, st, &pod);
	kix_check_hostname(ctx, &pod);
	return kix_build(ctx, st, &pod, b, err);
}

static const cr_resolver_ops kix_ops = {
	.struct_size = sizeof(cr_resolver_ops),
	.create = kix_create,
	.destroy = kix_destroy,
	.probe = kix_probe,
	.resolve = kix_resolve,
	.master = NULL,
};

static const cr_plugin_desc kix_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_RESOLVER,
	.name = "k8s-indexed",
	.version = CR_VERSION_STRING,
	.description =
		"an Indexed Job's or a JobSet's pods by their DNS names, with no API request",
	.options = kix_options,
	.option_size = sizeof(cr_option),
	.resolver = &kix_ops,
	.accelerator = NULL,
	.flags = 0,
};

CR_PLUGIN_DEFINE(kix_desc)
