/* SPDX-License-Identifier: MIT */
/*
 * alloc.h - a batch scheduler's allocation: the hosts it gave the job, in
 * its order, with the slots on each, read from the shapes schedulers write
 * (a host a line as PBS_NODEFILE, "host slots ..." lines as Grid Engine's
 * PE_HOSTFILE, "host slots host slots" as LSF's LSB_MCPU_HOSTS, a host a
 * word as LSB_HOSTS), and the one way the scheduler resolvers turn it into
 * a job: per host, tasks_per_host tasks or one a slot, "host:port_base+i".
 * Host names are kept as the scheduler writes them (short or FQDN).
 */
#ifndef CR_COMMON_ALLOC_H
#define CR_COMMON_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cluster-resolver/plugin.h>

/* The longest host name a line may hold (RFC 1035's 255). */
#define LAUNCH_HOST_MAX 255u
/* The most a host file may weigh: 2^20 lines of a long FQDN. */
#define LAUNCH_FILE_MAX (64u << 20)

typedef struct launch_alloc {
	char **host;         /* unique names, in first-appearance order */
	uint64_t *slots;     /* the slots of each host */
	size_t n;            /* hosts */
	uint64_t nslots;     /* slots in all */
	uint32_t *line_host; /* the host of each entry read, in order */
	size_t lines;        /* entries read (lines of a file, pairs of a list) */
	size_t cap, line_cap;
	void *index; /* name -> position + 1 */
} launch_alloc;

typedef enum launch_format {
	LAUNCH_HOST_A_LINE, /* "host": one slot a line */
	LAUNCH_HOST_SLOTS,  /* "host slots [more fields]" */
} launch_format;

/* The options every allocation resolver takes (pbs, sge, lsf), the same
 * names, defaults and ranges in each: `job`, `tasks_per_host`, `per_slot`
 * (@per_slot_help says what a slot is there), `port_base`; the three
 * numbers reach launch_alloc_emit(). */
#define LAUNCH_ALLOC_OPTIONS(per_slot_help)                                                        \
	CR_OPTION("job", CR_OPT_STRING, "worker", 0, "the job of the allocation's tasks"),         \
		CR_OPTION_RANGE("tasks_per_host", CR_OPT_INT, "1", 0,                              \
				"tasks on every host (one a node, as TensorFlow's resolvers)", 1,  \
				65535),                                                            \
		CR_OPTION("per_slot", CR_OPT_BOOL, "false", 0, per_slot_help),                     \
		CR_OPTION_RANGE("port_base", CR_OPT_INT, "8888", 0,                                \
				"port of the first task on each host; the next tasks count up", 1, \
				65535)

void launch_alloc_init(launch_alloc *a);
void launch_alloc_clear(launch_alloc *a);

/* One entry: @slots more slots on host @name (@len bytes), a new host if
 * not seen before. */
cr_status launch_alloc_add(launch_alloc *a, const char *name, size_t len, uint64_t slots,
			   cr_error *err);

/* The position of host @name: the same name, else the one host whose name
 * up to its first '.' is @name's up to its first '.' (a short name beside
 * an FQDN); -1 when none or when the short name is not unique. */
long launch_alloc_find(const launch_alloc *a, const char *name);

/* Read @path in @format: blanks trimmed, blank lines and '#' comments
 * skipped, the first @skip entries (Lightning's launch-node line of an LSF
 * rank file) passed over. Messages start "@who: path:line: ...". A file
 * that lists no host is an error. */
cr_status launch_alloc_read_file(cr_plugin_ctx *ctx, const char *who, const char *path,
				 launch_format format, size_t skip, launch_alloc *a, cr_error *err);

/* Read the value of variable @var: "host slots host slots ..." (@pairs) or
 * "host host ..." (one slot a word), blank-separated. */
cr_status launch_alloc_read_words(const char *who, const char *var, const char *text, bool pairs,
				  launch_alloc *a, cr_error *err);

/* The index, in the job launch_alloc_emit() makes, of the first task of
 * host @host. */
int64_t launch_alloc_first_task(const launch_alloc *a, size_t host, int64_t tasks_per_host,
				bool per_slot);

/* The task of entry @line (a slot line of a host file) with one task a
 * slot: lines of one host need not be adjacent, tasks are. */
int64_t launch_alloc_line_task(const launch_alloc *a, size_t line);

/* Add job @job: per host, @tasks_per_host tasks (one a slot with
 * @per_slot), "host:port_base+i"; then, when @task >= 0, make it this
 * process's task. A port past 65535 is a config error naming the host. */
cr_status launch_alloc_emit(cr_result_builder *b, const char *who, const launch_alloc *a,
			    const char *job, int64_t tasks_per_host, bool per_slot,
			    int64_t port_base, int64_t task, cr_error *err);

#endif /* CR_COMMON_ALLOC_H */
