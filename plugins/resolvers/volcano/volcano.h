/* SPDX-License-Identifier: MIT */
/*
 * volcano.h - what a pod of a Volcano Job knows of the job's tasks
 * (volcano-hosts.c), for volcano.c. Volcano's svc job plugin
 * (volcano-sh/volcano pkg/controllers/job/plugins/svc/svc.go) writes a
 * ConfigMap `<job>-svc` that every pod mounts at /etc/volcano: per task a
 * file `<task>.host` (the pods' host names, one a line) and the keys
 * VC_<TASK>_HOSTS (the same names, comma-separated) and VC_<TASK>_NUM,
 * which it also injects as variables unless `--inject-hosts-env=false`.
 * In the file name `-` becomes `_`; in the variables the name is also
 * upper-cased.
 */
#ifndef CR_VOLCANO_H
#define CR_VOLCANO_H

#include <stddef.h>

#include <cluster-resolver/plugin.h>

/* The most hosts one task may list: above the 150,000 pods of Kubernetes'
 * largest supported cluster. */
#define VC_HOSTS_MAX (1u << 18)

typedef struct vc_task {
	char *name;  /* the Volcano task ("worker"): the job's name */
	char **host; /* its pods' host names ("myjob-worker-0.myjob"), by index */
	size_t n;
	char from[320]; /* where the names came from: a variable or a file */
} vc_task;

/* The task names: the `<task>.host` files of @dir, sorted, `_` read as
 * `-` (a Kubernetes name has no `_`). (transfer full) *@names: free with
 * g_strfreev. Returns: CR_OK, CR_DECLINED (no such directory, no host
 * file in it: the message says which), CR_ERR_IO. */
cr_status vc_task_names(cr_plugin_ctx *ctx, const char *dir, char ***names, cr_error *err);

/* The hosts of task @t->name: VC_<TASK>_HOSTS (checked against
 * VC_<TASK>_NUM when set), else the file @dir/<task>.host. */
cr_status vc_task_hosts(cr_plugin_ctx *ctx, const char *dir, vc_task *t, cr_error *err);

void vc_task_clear(vc_task *t);

/* @name is a Volcano task name (letters, digits, `-`, `_`; 1 to 63). */
bool vc_task_name_ok(const char *name);

#endif /* CR_VOLCANO_H */
