/* SPDX-License-Identifier: MIT */
/*
 * reservation.h - `cluster-resolver reservation serve|plan`: the sizing
 * and template of TensorFlowOnSpark's TFCluster.run() (reservation-plan.c)
 * and the authenticated reservation server (reservation-server.c).
 */
#ifndef CR_CLI_RESERVATION_H
#define CR_CLI_RESERVATION_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

/* The sizing flags, as given. */
typedef struct rsv_sizing {
	int num_executors, num_ps;
	char *master_node; /* NULL, "chief" or "master" */
	gboolean eval_node, driver_ps_nodes;
	char *input_mode; /* NULL (tensorflow), "tensorflow" or "spark" */
} rsv_sizing;

/* The template: jobs in order, each a block of consecutive executor ids. */
typedef struct rsv_plan {
	int num_executors;
	size_t njobs;
	struct rsv_job {
		const char *name;
		int first, count;
	} jobs[4];
} rsv_plan;

/* TFCluster.run()'s checks and template; false with TFoS's reason in
 * @why (a usage error). */
bool rsv_plan_make(const rsv_sizing *s, rsv_plan *plan, char *why, size_t why_size);

/* Executor @id's job and index ("default", -1 outside the template). */
void rsv_plan_role(const rsv_plan *plan, int id, const char **job, int *index);

/* {"ps":[0],"chief":[1],...} (g_free it). */
char *rsv_plan_template_json(const rsv_plan *plan);

/* The options of `reservation serve` beyond the sizing. */
typedef struct rsv_serve_opts {
	int64_t timeout_s, grace_s, shutdown_timeout_s; /* shutdown: -1 = none */
	int64_t progress_s; /* while forming, "registered N of M" every so often; 0: never */
	int64_t auth_timeout_s, max_pending; /* before AUTH (issue 27 item 2) */
	const char *listen, *advertise, *secret_file, *summary;
	int verbose;
} rsv_serve_opts;

/* Run the server; the exit status (0, 1, or 2 for a usage error). */
int rsv_serve(const rsv_plan *plan, const rsv_serve_opts *o);

#endif /* CR_CLI_RESERVATION_H */
