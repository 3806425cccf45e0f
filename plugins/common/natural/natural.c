/* SPDX-License-Identifier: MIT */
/* natural.c - natural_cmp (natural.h). */
#include <ctype.h>
#include <string.h>

#include "natural.h"

/* Compare the digit runs at *@pa and *@pb as numbers (leading zeros
 * dropped, a longer run is larger) and step past them. */
static int digits_cmp(const char **pa, const char **pb)
{
	const char *a = *pa, *b = *pb;
	size_t la = 0, lb = 0;

	while (*a == '0' && isdigit((unsigned char)a[1]))
		a++;
	while (*b == '0' && isdigit((unsigned char)b[1]))
		b++;
	while (isdigit((unsigned char)a[la]))
		la++;
	while (isdigit((unsigned char)b[lb]))
		lb++;
	if (la != lb)
		return la < lb ? -1 : 1;
	*pa = a + la;
	*pb = b + lb;
	return memcmp(a, b, la);
}

int natural_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			int c = digits_cmp(&a, &b);

			if (c != 0)
				return c;
		} else if (*a != *b) {
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		} else {
			a++;
			b++;
		}
	}
	return *a ? 1 : *b ? -1 : 0;
}
