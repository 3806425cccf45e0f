/* SPDX-License-Identifier: MIT */
/*
 * sagemaker.h - internal interfaces of the sagemaker resolver.
 *
 * source.c reads what SageMaker gives a training container (SM_HOSTS and
 * SM_CURRENT_HOST, else resourceconfig.json) and checks its shape;
 * sagemaker.c turns it into jobs, tasks and this process's identity.
 */
#ifndef CR_PLUGIN_SAGEMAKER_H
#define CR_PLUGIN_SAGEMAKER_H

#include <stdbool.h>

#include <cluster-resolver/plugin.h>

/**
 * sm_source: what one probe or resolve read. Every pointer but @doc and
 * @current_copy is borrowed from them (or is static).
 * @what: "SM_HOSTS" or the file's path, for messages and facts.
 * @from_file: whether the file was read (else the two variables).
 * @hosts: a JSON array of strings, as the source lists them.
 * @current_host: this container's host name.
 * @current_group: (nullable) current_group_name of the file.
 * @groups: (nullable) instance_groups of the file: an array of objects
 *     whose instance_group_name is a string and hosts an array of strings.
 * @netif: (nullable) network_interface_name of the file.
 */
struct sm_source {
	const char *what;
	bool from_file;
	cr_json *doc;
	char *current_copy; /* SM_CURRENT_HOST's value, when read */
	const cr_json *hosts;
	const char *current_host;
	const char *current_group;
	const cr_json *groups;
	const char *netif;
};

/**
 * sm_source_read: read SM_HOSTS + SM_CURRENT_HOST, else @path (read
 * through the host, so a test root applies). With @need_groups the file is
 * read even when both variables are set: only it lists instance groups.
 * Returns: CR_OK; CR_DECLINED when nothing of SageMaker is here or SM_HOSTS
 * is empty; CR_ERR_NOT_FOUND when only one variable is set and there is no
 * file; CR_ERR_PARSE for a malformed variable or file; CR_ERR_IO.
 */
cr_status sm_source_read(cr_plugin_ctx *ctx, const char *path, bool need_groups,
			 struct sm_source *src, cr_error *err);

/** Record what @src says as facts for `explain`: source, hosts,
 *  current_host and, from the file, current_group_name, instance_groups
 *  and network_interface_name. */
void sm_source_facts(cr_result_builder *b, const struct sm_source *src);

/** Free what sm_source_read() kept. */
void sm_source_free(struct sm_source *src);

/** Whether @node is a JSON array of strings. */
bool sm_is_string_list(const cr_json *node);

#endif /* CR_PLUGIN_SAGEMAKER_H */
