/* SPDX-License-Identifier: MIT */
/*
 * kix.h - k8s-indexed.so: the cluster of an Indexed Job or a JobSet from the
 * pod's own environment and the controllers' naming rule, with no request
 * to the API server (docs/k8s.md, "No request at all").
 */
#ifndef KIX_H
#define KIX_H

#include <stdbool.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

/* The most pods one Indexed Job runs at once (kube-apiserver refuses a
 * larger parallelism for Indexed Jobs), and the most tasks one resolve
 * builds. */
#define KIX_MAX_COMPLETIONS 100000
#define KIX_MAX_TASKS 1000000

/* One replicated Job of a JobSet: `replicas` Indexed Jobs of `completions`
 * pods. Strings are borrowed from the config until destroy. */
struct kix_rjob {
	const char *name;
	int64_t replicas;
	int64_t completions;
};

struct kix {
	struct kix_rjob *rjobs; /* NULL: one Indexed Job */
	size_t n_rjobs;
	char shape_at[256]; /* "FILE:LINE" of replicated_jobs */
};

/* A value and where it came from ("option job_name", "JOB_NAME"). */
struct kix_val {
	const char *text;
	const char *from;
};

/* The facts of one pod, read in resolve. */
struct kix_pod {
	int64_t pod_index;          /* JOB_COMPLETION_INDEX */
	struct kix_val ns;          /* namespace */
	struct kix_val sub;         /* subdomain: the headless Service */
	const char *domain;         /* cluster_domain, "" = stop at .svc */
	struct kix_val job;         /* Indexed Job: the Job's name; JobSet: the JobSet's */
	int64_t completions;        /* Indexed Job only */
	const char *comp_from;      /* where completions came from */
	const struct kix_rjob *own; /* JobSet: this pod's replicated Job */
	int64_t job_index;          /* JobSet: JOB_INDEX */
	char own_host[128];         /* the hostname the naming rule gives this pod */
	char job_buf[128];          /* the Job's name, when cut from HOSTNAME */
	char ns_buf[256];           /* the namespace, when read from a file */
};

/* kix_config.c */
cr_status kix_parse_shape(const cr_cfg *config, struct kix *st, cr_error *err);
cr_status kix_check_options(cr_plugin_ctx *ctx, const cr_cfg *config, cr_error *err);

/* kix_env.c */
cr_status kix_read_pod(cr_plugin_ctx *ctx, const struct kix *st, struct kix_pod *pod,
		       cr_error *err);

/* kix_names.c */
bool kix_label_ok(const char *s, size_t len, bool rfc1035);
/* The hostname of pod @pod_index of Job @job_index of @rj (NULL: the
 * Indexed Job @name itself). Returns: its length (it may not fit @cap). */
int kix_hostname(char *out, size_t cap, const char *name, const struct kix_rjob *rj,
		 int64_t job_index, int64_t pod_index);
cr_status kix_check_names(const struct kix *st, const struct kix_pod *pod, cr_error *err);
cr_status kix_build(cr_plugin_ctx *ctx, const struct kix *st, const struct kix_pod *pod,
		    cr_result_builder *b, cr_error *err);

#endif /* KIX_H */
