/* SPDX-License-Identifier: MIT */
/*
 * freescan.c - a library for LD_PRELOAD in tests: free() and realloc() look
 * for a marker in every block they give back, so a test can prove that a
 * secret was wiped before its memory was released. realloc() always moves
 * the block (new block, copy, free of the old one through our free()), so
 * a buffer that grows is scanned at each step as well.
 *
 * The test sets the marker with freescan_set_marker() and reads the count
 * of freed blocks that held it with freescan_hits(), both found with
 * dlsym(RTLD_DEFAULT, ...). Blocks freed before the marker is set are not
 * scanned. With FREESCAN_TRAP set, each hit raises SIGTRAP, so that
 * `gdb -ex run -ex bt` shows who freed the block.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

void freescan_set_marker(const char *marker);
unsigned long freescan_hits(void);

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static char marker[64];
static size_t marker_len;
static unsigned long hits;

/* On first use: other libraries' constructors may free before ours runs. */
static void resolve(void)
{
	static int busy;

	if (real_free != NULL || busy)
		return;
	busy = 1; /* dlsym may free: that block is leaked, not looked up again */
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	busy = 0;
}

void freescan_set_marker(const char *m)
{
	size_t n = strlen(m);

	marker_len = n < sizeof(marker) ? n : 0;
	memcpy(marker, m, marker_len);
	__atomic_store_n(&hits, 0, __ATOMIC_SEQ_CST);
}

unsigned long freescan_hits(void)
{
	return __atomic_load_n(&hits, __ATOMIC_SEQ_CST);
}

void free(void *p)
{
	if (p == NULL)
		return;
	resolve();
	if (marker_len > 0 && memmem(p, malloc_usable_size(p), marker, marker_len) != NULL)
		if (__atomic_add_fetch(&hits, 1, __ATOMIC_SEQ_CST) && getenv("FREESCAN_TRAP"))
			raise(SIGTRAP); /* to see where, under a debugger */
	if (real_free != NULL)
		real_free(p); /* else dlsym itself is freeing: leak it */
}

void *realloc(void *p, size_t n)
{
	void *q;
	size_t old;

	resolve();
	if (real_malloc == NULL)
		return NULL;
	if (p == NULL)
		return real_malloc(n);
	if (n == 0) {
		free(p);
		return NULL;
	}
	q = real_malloc(n);
	if (q == NULL)
		return NULL;
	old = malloc_usable_size(p);
	memcpy(q, p, old < n ? old : n);
	free(p);
	return q;
}
