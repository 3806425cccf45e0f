/* SPDX-License-Identifier: MIT */
/*
 * aws_imds.c - the instance metadata service, IMDSv2 (contract stub).
 */
#include <glib.h>

#include "aws_creds.h"

struct aws_imds {
	const struct aws_env *env;
};

struct aws_imds *aws_imds_new(const struct aws_env *env)
{
	struct aws_imds *imds = g_new0(struct aws_imds, 1);

	imds->env = env;
	return imds;
}

void aws_imds_free(struct aws_imds *imds)
{
	g_free(imds);
}

cr_status aws_imds_get(struct aws_imds *imds, const char *path, char **value, cr_error *err)
{
	const char *off = imds->env->host->getenv(imds->env->ctx, "AWS_EC2_METADATA_DISABLED");

	*value = NULL;
	if (off && g_ascii_strcasecmp(off, "true") == 0)
		return CR_DECLINED;
	return imds->env->host->error_set(err, CR_ERR_NOT_FOUND, "IMDS %s: not implemented yet",
					  path);
}
