/* SPDX-License-Identifier: MIT */
/*
 * status.c - an HTTP error status as a cr_status; see httpanswer.h.
 */
#include "httpanswer.h"

cr_status http_status_code(long http)
{
	switch (http) {
	case 400:
		return CR_ERR_INVALID_ARG;
	case 401:
	case 403:
		return CR_ERR_AUTH;
	case 404:
		return CR_ERR_NOT_FOUND;
	case 408:
	case 504:
		return CR_ERR_TIMEOUT;
	default:
		return CR_ERR_BACKEND;
	}
}
