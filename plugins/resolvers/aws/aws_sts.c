/* SPDX-License-Identifier: MIT */
/*
 * aws_sts.c - STS AssumeRole / AssumeRoleWithWebIdentity (contract stub).
 */
#include "aws_creds.h"

cr_status aws_sts_stub(void);
cr_status aws_sts_stub(void)
{
	return CR_DECLINED;
}
