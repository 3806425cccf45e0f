/* SPDX-License-Identifier: MIT */
/*
 * natural.h - the natural order of names, shared by the backends that sort
 * what a server lists (k8s pods, gce members, aws instances by tag): digit
 * runs compare as numbers ("worker-2" < "worker-10", leading zeros
 * ignored), everything else bytewise.
 */
#ifndef CR_COMMON_NATURAL_H
#define CR_COMMON_NATURAL_H

/* <0, 0 or >0 as @a sorts before, with or after @b. */
int natural_cmp(const char *a, const char *b);

#endif
