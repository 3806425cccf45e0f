/* SPDX-License-Identifier: MIT */
/*
 * aws_profile.c - ~/.aws/config and ~/.aws/credentials (contract stub).
 */
#include "aws_creds.h"

cr_status aws_profile_region(const struct aws_env *env, char **region, cr_error *err)
{
	*region = NULL;
	return env->host->error_set(err, CR_ERR_NOT_FOUND, "no region in the AWS config file");
}
