/* SPDX-License-Identifier: MIT */
/*
 * source.c - what SageMaker tells a training container about its cluster.
 *
 * TensorFlow's SageMakerClusterResolver reads two variables the training
 * toolkit exports: SM_HOSTS, a JSON list of host names, and SM_CURRENT_HOST.
 * Where they are missing (a container started without the toolkit) the same
 * facts are in /opt/ml/input/config/resourceconfig.json, which SageMaker
 * writes into every training container:
 *
 *   {"current_host": "algo-1", "current_instance_type": "ml.p4d.24xlarge",
 *    "current_group_name": "homogeneousCluster", "hosts": ["algo-1", "algo-2"],
 *    "instance_groups": [{"instance_group_name": "homogeneousCluster",
 *                         "instance_type": "ml.p4d.24xlarge",
 *                         "hosts": ["algo-2", "algo-1"]}],
 *    "network_interface_name": "eth0"}
 *
 * Only the file lists instance groups (heterogeneous clusters). Everything is
 * checked here, so the resolver walks a document of known shape.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sagemaker.h"

#define SM_HOSTS "SM_HOSTS"
#define SM_CURRENT_HOST "SM_CURRENT_HOST"
#define SM_QUOTE_MAX 200 /* bytes of a bad SM_HOSTS quoted in a message */

bool sm_is_string_list(const cr_json *node)
{
	if (cr_host->json_type(node) != CR_JSON_ARRAY)
		return false;
	for (size_t i = 0; i < cr_host->json_length(node); i++)
		if (cr_host->json_string(cr_host->json_index(node, i)) == NULL)
			return false;
	return true;
}

void sm_source_free(struct sm_source *src)
{
	cr_host->json_free(src->doc);
	free(src->current_copy);
	src->doc = NULL;
	src->current_copy = NULL;
}

void sm_source_facts(cr_result_builder *b, const struct sm_source *src)
{
	cr_host->result_set_fact_string(
		b, "source", src->from_file ? src->what : "SM_HOSTS and SM_CURRENT_HOST", NULL);
	cr_host->result_set_fact(b, "hosts", src->hosts, NULL);
	cr_host->result_set_fact_string(b, "current_host", src->current_host, NULL);
	if (src->current_group != NULL)
		cr_host->result_set_fact_string(b, "current_group_name", src->current_group, NULL);
	if (src->groups != NULL)
		cr_host->result_set_fact(b, "instance_groups", src->groups, NULL);
	if (src->netif != NULL)
		cr_host->result_set_fact_string(b, "network_interface_name", src->netif, NULL);
}

/* SM_HOSTS + SM_CURRENT_HOST, both set. */
static cr_status sm_from_env(const char *hosts, const char *current, struct sm_source *src,
			     cr_error *err)
{
	cr_status st;

	src->what = SM_HOSTS;
	if (*hosts == '\0')
		return cr_host->error_set(err, CR_DECLINED, "SM_HOSTS is empty");
	st = cr_host->json_parse(hosts, strlen(hosts), SM_HOSTS, &src->doc, NULL);
	if (st != CR_OK || !sm_is_string_list(src->doc))
		return cr_host->error_set(
			err, CR_ERR_PARSE, "SM_HOSTS is not a JSON list of strings: '%.*s%s'",
			SM_QUOTE_MAX, hosts, strlen(hosts) > SM_QUOTE_MAX ? "..." : "");
	src->hosts = src->doc;
	/* Kept past this op (probe hands it to resolve): a copy. */
	src->current_copy = strdup(current);
	if (src->current_copy == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	src->current_host = src->current_copy;
	return CR_OK;
}

/* An optional string member; false when present and not a string. */
static bool sm_opt_string(const cr_json *obj, const char *pointer, const char **out)
{
	const cr_json *v = cr_host->json_get(obj, pointer);

	*out = v != NULL ? cr_host->json_string(v) : NULL;
	return v == NULL || *out != NULL;
}

static cr_status sm_check_groups(const char *path, const cr_json *groups, cr_error *err)
{
	if (cr_host->json_type(groups) != CR_JSON_ARRAY)
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: \"instance_groups\" must be a list", path);
	for (size_t i = 0; i < cr_host->json_length(groups); i++) {
		const cr_json *g = cr_host->json_index(groups, i);
		const char *s;

		if (cr_host->json_type(g) != CR_JSON_OBJECT)
			return cr_host->error_set(err, CR_ERR_PARSE,
						  "%s: instance_groups[%zu] must be an object",
						  path, i);
		if (cr_host->json_string(cr_host->json_get(g, "/instance_group_name")) == NULL)
			return cr_host->error_set(
				err, CR_ERR_PARSE,
				"%s: instance_groups[%zu].instance_group_name must be a string",
				path, i);
		if (!sm_is_string_list(cr_host->json_get(g, "/hosts")))
			return cr_host->error_set(
				err, CR_ERR_PARSE,
				"%s: instance_groups[%zu].hosts must be a list of strings", path,
				i);
		if (!sm_opt_string(g, "/instance_type", &s))
			return cr_host->error_set(
				err, CR_ERR_PARSE,
				"%s: instance_groups[%zu].instance_type must be a string", path, i);
	}
	return CR_OK;
}

/* The shape of resourceconfig.json, parsed into src->doc. */
static cr_status sm_check_file(const char *path, struct sm_source *src, cr_error *err)
{
	const cr_json *root = src->doc;
	const char *bad = NULL;

	if (cr_host->json_type(root) != CR_JSON_OBJECT)
		return cr_host->error_set(err, CR_ERR_PARSE, "%s: must be a JSON object", path);
	src->current_host = cr_host->json_string(cr_host->json_get(root, "/current_host"));
	src->hosts = cr_host->json_get(root, "/hosts");
	if (src->current_host == NULL)
		bad = "\"current_host\" must be a string";
	else if (src->hosts == NULL || !sm_is_string_list(src->hosts))
		bad = "\"hosts\" must be a list of strings";
	else if (!sm_opt_string(root, "/current_group_name", &src->current_group))
		bad = "\"current_group_name\" must be a string";
	else if (!sm_opt_string(root, "/network_interface_name", &src->netif))
		bad = "\"network_interface_name\" must be a string";
	if (bad != NULL)
		return cr_host->error_set(err, CR_ERR_PARSE, "%s: %s", path, bad);
	src->groups = cr_host->json_get(root, "/instance_groups");
	if (src->groups != NULL)
		return sm_check_groups(path, src->groups, err);
	return CR_OK;
}

static cr_status sm_from_file(cr_plugin_ctx *ctx, const char *path, struct sm_source *src,
			      cr_error *err)
{
	char *text = NULL;
	size_t len = 0;
	cr_status st;

	st = cr_host->read_file(ctx, path, 0, &text, &len, err);
	if (st != CR_OK)
		return st;
	src->what = path;
	src->from_file = true;
	st = cr_host->json_parse(text, len, path, &src->doc, err);
	cr_host->free(text);
	if (st == CR_OK)
		st = sm_check_file(path, src, err);
	return st;
}

cr_status sm_source_read(cr_plugin_ctx *ctx, const char *path, bool need_groups,
			 struct sm_source *src, cr_error *err)
{
	const char *hosts = cr_host->getenv(ctx, SM_HOSTS);
	const char *current = cr_host->getenv(ctx, SM_CURRENT_HOST);
	cr_error ferr = CR_ERROR_INIT;
	cr_status st;

	memset(src, 0, sizeof(*src));
	if (hosts != NULL && current != NULL && !need_groups)
		return sm_from_env(hosts, current, src, err);
	st = sm_from_file(ctx, path, src, &ferr);
	if (st == CR_OK)
		return CR_OK;
	if (st != CR_ERR_NOT_FOUND) {
		if (err != NULL)
			*err = ferr;
		return st;
	}
	if (hosts != NULL && current != NULL)
		return cr_host->error_set(err, CR_ERR_NOT_FOUND,
					  "'jobs' maps instance groups, which only %s lists: "
					  "no such file",
					  path);
	if (hosts != NULL || current != NULL)
		return cr_host->error_set(err, CR_ERR_NOT_FOUND,
					  "not a SageMaker environment: %s is unset",
					  hosts == NULL ? SM_HOSTS : SM_CURRENT_HOST);
	return cr_host->error_set(err, CR_DECLINED, "no SM_HOSTS, SM_CURRENT_HOST or %s", path);
}
