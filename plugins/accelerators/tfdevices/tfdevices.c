/* SPDX-License-Identifier: MIT */
/*
 * tfdevices.c - accelerators from a TensorFlow device list written to a
 * file, the shape tf.config.list_logical_devices() and device_lib give:
 *
 *   [{"name": "/job:worker/replica:0/task:1/device:TPU:0", "device_type": "TPU"},
 *    {"name": "/job:worker/replica:0/task:1/device:CPU:0", "device_type": "CPU"}]
 *
 *   accelerators = ( { plugin = "tfdevices"; file = "/run/tf-devices.json"; } );
 *
 * Every device but CPU and XLA_CPU is reported, its kind the device_type
 * (TensorFlow's num_accelerators, tf-semantics §3). A name with both a
 * /job: and a /task: component gives the device to that task, compared as
 * whole components (§14.11: "worker1" is not "worker10"), so a task's count
 * holds only its own devices; a name without them (and one of the job
 * `local_job`, TensorFlow's "localhost" before it joins a cluster) is this
 * process's. device_lib's memory_limit and physical_device_desc (model,
 * PCI address) fill in the device where present. The file is read on every
 * enumerate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cluster-resolver/plugin.h>

/* What one device name says; pointers into a copy of the name. */
struct tfd_name {
	char *job;      /* NULL when absent */
	int64_t task;   /* -1 when absent */
	char *type;     /* the TYPE of device:TYPE:N, or NULL */
	int64_t number; /* the N of device:TYPE:N, or -1 */
};

static cr_status tfd_create(cr_plugin_ctx *ctx, const cr_cfg *config, void **state, cr_error *err)
{
	const char *file = cr_host->opt_string(ctx, "file");

	if (file == NULL || *file == '\0')
		return cr_host->error_set(err, CR_ERR_CONFIG, "%s:%d: file must be a file name",
					  cr_host->cfg_file(config), cr_host->cfg_line(config));
	*state = ctx; /* nothing to keep but the context */
	return CR_OK;
}

static void tfd_destroy(void *state)
{
	(void)state;
}

/* A canonical decimal in 0..2147483647, else -1. */
static int64_t tfd_number(const char *s)
{
	int64_t v = 0;

	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > 2147483647)
			return -1;
	}
	return v;
}

/* One "key:value" component of a device name. Returns false when a known
 * key has a bad value. */
static bool tfd_component(char *c, struct tfd_name *out)
{
	char *colon;

	if (strncmp(c, "job:", 4) == 0) {
		out->job = c + 4;
		return *out->job != '\0';
	}
	if (strncmp(c, "task:", 5) == 0)
		return (out->task = tfd_number(c + 5)) >= 0;
	if (strncmp(c, "replica:", 8) == 0)
		return tfd_number(c + 8) >= 0;
	if (strncmp(c, "device:", 7) == 0) {
		out->type = c + 7;
		colon = strrchr(out->type, ':');
		if (colon == NULL || colon == out->type)
			return false;
		*colon = '\0';
		return (out->number = tfd_number(colon + 1)) >= 0;
	}
	return true; /* unknown parts are TensorFlow's business */
}

/* Split @name ("/job:J/replica:R/task:T/device:TYPE:N") into @copy. */
static bool tfd_parse_name(char *copy, struct tfd_name *out)
{
	char *save = NULL;

	out->job = NULL;
	out->task = -1;
	out->type = NULL;
	out->number = -1;
	if (copy[0] != '/')
		return false;
	for (char *c = strtok_r(copy, "/", &save); c != NULL; c = strtok_r(NULL, "/", &save))
		if (!tfd_component(c, out))
			return false;
	return true;
}

/* device_lib's physical_device_desc, "device: 0, name: Tesla V100-SXM2-16GB,
 * pci bus id: 0000:00:1e.0, compute capability: 7.0": the model and the PCI
 * address, pointers into @desc (which is cut into parts). */
static void tfd_parse_desc(char *desc, const char **model, const char **pci)
{
	char *part = desc;

	while (part != NULL && *part != '\0') {
		char *next = strstr(part, ", ");

		if (next != NULL) {
			*next = '\0';
			next += 2;
		}
		if (strncmp(part, "name: ", 6) == 0 && part[6] != '\0')
			*model = part + 6;
		else if (strncmp(part, "pci bus id: ", 12) == 0 && part[12] != '\0')
			*pci = part + 12;
		part = next;
	}
}

static cr_status tfd_bad(const char *file, size_t i, const char *why, cr_error *err)
{
	return cr_host->error_set(err, CR_ERR_PARSE, "%s: device %zu: %s", file, i, why);
}

/* Report element @i of the list, unless it is a CPU. */
static cr_status tfd_device(cr_plugin_ctx *ctx, const char *file, size_t i, const cr_json *d,
			    cr_accel_list *list, cr_error *err)
{
	const char *name = cr_host->json_string(cr_host->json_get(d, "/name"));
	const cr_json *tv = cr_host->json_get(d, "/device_type");
	const char *type = cr_host->json_string(tv);
	const char *local = cr_host->opt_string(ctx, "local_job");
	cr_accel_device dev = CR_ACCEL_DEVICE_INIT;
	struct tfd_name parts;
	const char *desc;
	char *copy, *desc_copy = NULL;
	int64_t mem = 0;
	cr_status st;

	if (cr_host->json_type(d) != CR_JSON_OBJECT)
		return tfd_bad(file, i, "must be an object with \"name\" and \"device_type\"", err);
	if (name == NULL)
		return tfd_bad(file, i, "\"name\" must be a string", err);
	if (tv != NULL && (type == NULL || *type == '\0'))
		return tfd_bad(file, i, "\"device_type\" must be a non-empty string", err);
	copy = strdup(name);
	if (copy == NULL)
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	if (!tfd_parse_name(copy, &parts) || (type == NULL && parts.type == NULL)) {
		free(copy);
		return cr_host->error_set(err, CR_ERR_PARSE,
					  "%s: device %zu: '%s' is not a TensorFlow device name "
					  "(/job:J/replica:R/task:T/device:TYPE:N)",
					  file, i, name);
	}
	dev.kind = type != NULL ? type : parts.type;
	if (strcmp(dev.kind, "CPU") == 0 || strcmp(dev.kind, "XLA_CPU") == 0) {
		free(copy);
		return CR_OK;
	}
	dev.index = parts.number >= 0 ? (int32_t)parts.number : -1;
	if (cr_host->json_int(cr_host->json_get(d, "/memory_limit"), &mem) && mem > 0)
		dev.memory_bytes = (uint64_t)mem;
	desc = cr_host->json_string(cr_host->json_get(d, "/physical_device_desc"));
	if (desc != NULL && (desc_copy = strdup(desc)) == NULL) {
		free(copy);
		return cr_host->error_set(err, CR_ERR_NOMEM, "out of memory");
	}
	if (desc_copy != NULL)
		tfd_parse_desc(desc_copy, &dev.model, &dev.pci_bus_id);
	if (parts.job != NULL && parts.task >= 0 && (local == NULL || strcmp(parts.job, local))) {
		dev.task_job = parts.job;
		dev.task_index = parts.task;
	}
	st = cr_host->accel_add(list, &dev, err);
	free(desc_copy);
	free(copy);
	return st;
}

static cr_status tfd_enumerate(void *state, cr_plugin_ctx *ctx, cr_accel_list *list, cr_error *err)
{
	const char *file = cr_host->opt_string(ctx, "file");
	cr_json *root = NULL;
	char *text = NULL;
	size_t len = 0;
	cr_status st;

	(void)state;
	st = cr_host->read_file(ctx, file, 0, &text, &len, err);
	if (st != CR_OK)
		return st;
	st = cr_host->json_parse(text, len, file, &root, err);
	cr_host->free(text);
	if (st == CR_OK && cr_host->json_type(root) != CR_JSON_ARRAY)
		st = cr_host->error_set(err, CR_ERR_PARSE, "%s: must be a JSON list of devices",
					file);
	for (size_t i = 0; st == CR_OK && i < cr_host->json_length(root); i++)
		st = tfd_device(ctx, file, i, cr_host->json_index(root, i), list, err);
	cr_host->json_free(root);
	return st;
}

static const cr_option tfd_options[] = {
	CR_OPTION("file", CR_OPT_STRING, NULL, CR_OPT_REQUIRED,
		  "JSON list of TensorFlow devices ({name, device_type} objects)"),
	CR_OPTION("local_job", CR_OPT_STRING, "localhost", 0,
		  "job name meaning this process (TensorFlow's before it joins a cluster)"),
	CR_OPTIONS_END,
};

static const cr_accel_ops tfd_ops = {
	.struct_size = sizeof(cr_accel_ops),
	.create = tfd_create,
	.destroy = tfd_destroy,
	.probe = NULL,
	.enumerate = tfd_enumerate,
};

static const cr_plugin_desc tfd_desc = {
	.struct_size = sizeof(cr_plugin_desc),
	.abi_major = CR_ABI_MAJOR,
	.abi_minor = CR_ABI_MINOR,
	.kind = CR_PLUGIN_ACCELERATOR,
	.name = "tfdevices",
	.version = CR_VERSION_STRING,
	.description =
		"accelerators from a TensorFlow device list (list_logical_devices) in a file",
	.options = tfd_options,
	.option_size = sizeof(cr_option),
	.resolver = NULL,
	.accelerator = &tfd_ops,
	.flags = 0,
};

CR_PLUGIN_DEFINE(tfd_desc)
