/* SPDX-License-Identifier: MIT */
/*
 * reservation-plan.c - TensorFlowOnSpark's TFCluster.run() sizing and
 * cluster template (tf-semantics §12.1): input-mode checks, then
 * ps -> the master node (chief or master) -> evaluator -> worker, each a
 * block of consecutive executor ids, a job present only when it has one.
 */
#include <stdio.h>
#include <string.h>

#include "reservation.h"

static bool plan_modes(const rsv_sizing *s, char *why, size_t n)
{
	bool spark = s->input_mode != NULL && strcmp(s->input_mode, "spark") == 0;

	if (s->input_mode != NULL && !spark && strcmp(s->input_mode, "tensorflow") != 0) {
		snprintf(why, n, "--input-mode '%s': expected tensorflow or spark", s->input_mode);
		return false;
	}
	if (s->master_node != NULL && strcmp(s->master_node, "chief") != 0 &&
	    strcmp(s->master_node, "master") != 0) {
		snprintf(why, n, "--master-node '%s': expected chief or master", s->master_node);
		return false;
	}
	if (spark && s->driver_ps_nodes) {
		snprintf(why, n,
			 "running PS nodes on driver locally is only supported in "
			 "InputMode.TENSORFLOW");
		return false;
	}
	if (spark && s->eval_node) {
		snprintf(why, n,
			 "running evaluator nodes is only supported in "
			 "InputMode.TENSORFLOW");
		return false;
	}
	return true;
}

static void plan_add(rsv_plan *p, const char *name, int *next, int count)
{
	if (count <= 0)
		return;
	p->jobs[p->njobs++] = (struct rsv_job){ .name = name, .first = *next, .count = count };
	*next += count;
}

bool rsv_plan_make(const rsv_sizing *s, rsv_plan *plan, char *why, size_t n)
{
	int masters = s->master_node != NULL, evals = s->eval_node ? 1 : 0, workers, total;
	int next = 0;

	if (!plan_modes(s, why, n))
		return false;
	if (s->num_executors <= 0 || s->num_ps < 0) {
		snprintf(why, n, "--num-executors must be above 0 and --num-ps at least 0");
		return false;
	}
	workers = s->num_executors - s->num_ps - evals - masters;
	workers = workers > 0 ? workers : 0;
	total = s->num_ps + masters + evals + workers;
	if (total != s->num_executors) {
		snprintf(why, n,
			 "TensorFlow cluster requires %d nodes, but only %d executors available",
			 total, s->num_executors);
		return false;
	}
	if (masters + workers <= 0) {
		snprintf(why, n,
			 "TensorFlow cluster requires at least one worker or master/chief "
			 "node");
		return false;
	}
	*plan = (rsv_plan){ .num_executors = s->num_executors };
	plan_add(plan, "ps", &next, s->num_ps);
	plan_add(plan, s->master_node, &next, masters);
	plan_add(plan, "evaluator", &next, evals);
	plan_add(plan, "worker", &next, workers);
	return true;
}

void rsv_plan_role(const rsv_plan *plan, int id, const char **job, int *index)
{
	for (size_t i = 0; i < plan->njobs; i++)
		if (id >= plan->jobs[i].first && id < plan->jobs[i].first + plan->jobs[i].count) {
			*job = plan->jobs[i].name;
			*index = id - plan->jobs[i].first;
			return;
		}
	*job = "default";
	*index = -1;
}

char *rsv_plan_template_json(const rsv_plan *plan)
{
	GString *s = g_string_new("{");

	for (size_t i = 0; i < plan->njobs; i++) {
		g_string_append_printf(s, "%s\"%s\":[", i ? "," : "", plan->jobs[i].name);
		for (int k = 0; k < plan->jobs[i].count; k++)
			g_string_append_printf(s, "%s%d", k ? "," : "", plan->jobs[i].first + k);
		g_string_append_c(s, ']');
	}
	g_string_append_c(s, '}');
	return g_string_free(s, FALSE);
}
