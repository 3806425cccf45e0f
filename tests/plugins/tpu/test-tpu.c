/* SPDX-License-Identifier: MIT */
/*
 * test-tpu.c - tpu.so end to end: `cluster-resolver accelerators` on fake
 * TPU VMs (v3 and v4 with /dev/accel*, v5e with VFIO), counted the way
 * TensorFlow counts TPU devices, under TPU_VISIBLE_CHIPS and
 * TPU_CHIPS_PER_PROCESS_BOUNDS.
 */
#include "accel-cli.h"

#define SIMPLE                                                                    \
	"resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"localhost:2222\" ]; };" \
	" task_type = \"worker\"; task_id = 0; } );\n"
#define TPU_GROUP(root) "{ plugin = \"tpu\"; root = \"@FIX@/roots/" root "\"; }"
#define TPU(root) SIMPLE "accelerators = ( " TPU_GROUP(root) " );\n"

#define ERR "cluster-resolver: accelerator 'tpu': "
#define CHIPS(v) "TPU_VISIBLE_CHIPS=" v
#define BOUNDS(v) "TPU_CHIPS_PER_PROCESS_BOUNDS=" v

#define DEV(model, i, p, bus) \
	"{\"plugin\": \"tpu\", \"kind\": \"TPU\", \"vendor\": \"google\", \"model\": \"" model \
	"\", \"index\": " i ", \"physical_index\": " p ", \"pci_bus_id\": \"" bus "\""
#define END "}"
#define BY(var) ", \"visible_by\": \"" var "\"}"
#define CHIP(c) ", \"parent_index\": " c "}"
#define CHIP_BY(var, c) ", \"visible_by\": \"" var "\", \"parent_index\": " c "}"
#define JSON(counts, devices) "{\"num_accelerators\": " counts ", \"devices\": [" devices "]}\n"

#define V4(i, p, bus) DEV("v4", i, p, bus)
#define V5E(i, p, bus) DEV("v5e", i, p, bus)
#define V3(i, p, bus) DEV("v3", i, p, bus)

static const accel_case cases[] = {
	/* v4: four chips on /dev/accel0..3, one megacore device each. The
	 * gVNIC (Google vendor id, device 0x0042) is not a TPU. */
	{ "v4/count", TPU("tpu-v4"), { NULL }, FALSE, 0, "{\"TPU\": 4}\n", NULL },
	{ "v4/json", TPU("tpu-v4"), { NULL }, TRUE, 0,
	  JSON("{\"TPU\": 4}", V4("0", "0", "0000:00:04.0") END ", " V4("1", "1", "0000:00:05.0") END ", "
			       V4("2", "2", "0000:00:06.0") END ", " V4("3", "3", "0000:00:07.0") END),
	  NULL },
	{ "v4/visible-chips", TPU("tpu-v4"), { CHIPS("2,0"), BOUNDS("1,2,1") }, TRUE, 0,
	  JSON("{\"TPU\": 2}", V4("0", "0", "0000:00:04.0") BY("TPU_VISIBLE_CHIPS") ", "
			       V4("1", "2", "0000:00:06.0") BY("TPU_VISIBLE_CHIPS")),
	  NULL },

	/* v3: two TensorCores per chip, so four chips are eight TPU devices. */
	{ "v3/count", TPU("tpu-v3"), { NULL }, FALSE, 0, "{\"TPU\": 8}\n", NULL },
	{ "v3/visible-chip", TPU("tpu-v3"), { CHIPS("3") }, TRUE, 0,
	  JSON("{\"TPU\": 2}", V3("0", "6", "0000:00:07.0") CHIP_BY("TPU_VISIBLE_CHIPS", "3") ", "
			       V3("1", "7", "0000:00:07.0") CHIP_BY("TPU_VISIBLE_CHIPS", "3")),
	  NULL },
	{ "v3/json-first-chip", TPU("tpu-v3"), { BOUNDS("1,1,1") }, TRUE, 0,
	  JSON("{\"TPU\": 2}",
	       V3("0", "0", "0000:00:04.0") CHIP_BY("TPU_CHIPS_PER_PROCESS_BOUNDS", "0") ", "
	       V3("1", "1", "0000:00:04.0") CHIP_BY("TPU_CHIPS_PER_PROCESS_BOUNDS", "0")),
	  NULL },

	/* v5e: eight chips through VFIO (groups 12..19); group 3 is an NVMe disk. */
	{ "v5e/count", TPU("tpu-v5e"), { NULL }, FALSE, 0, "{\"TPU\": 8}\n", NULL },
	{ "v5e/json", TPU("tpu-v5e"), { NULL }, TRUE, 0,
	  JSON("{\"TPU\": 8}",
	       V5E("0", "0", "0000:00:04.0") END ", " V5E("1", "1", "0000:00:05.0") END ", "
	       V5E("2", "2", "0000:00:06.0") END ", " V5E("3", "3", "0000:00:07.0") END ", "
	       V5E("4", "4", "0000:00:08.0") END ", " V5E("5", "5", "0000:00:09.0") END ", "
	       V5E("6", "6", "0000:00:0a.0") END ", " V5E("7", "7", "0000:00:0b.0") END),
	  NULL },
	{ "v5e/one-chip-per-process", TPU("tpu-v5e"), { CHIPS("5"), BOUNDS("1,1,1") }, TRUE, 0,
	  JSON("{\"TPU\": 1}", V5E("0", "5", "0000:00:09.0") BY("TPU_VISIBLE_CHIPS")), NULL },
	{ "v5e/bounds-only", TPU("tpu-v5e"), { BOUNDS("2,2,1") }, FALSE, 0, "{\"TPU\": 4}\n", NULL },
	{ "v5e/no-chip", TPU("tpu-v5e"), { CHIPS("") }, FALSE, 0, "{}\n", NULL },

	/* Masks that cannot be right. */
	{ "bad/bounds-disagree", TPU("tpu-v5e"), { CHIPS("0,1"), BOUNDS("1,1,1") }, FALSE, 1, "",
	  ERR "TPU_VISIBLE_CHIPS='0,1' lists 2 chips but TPU_CHIPS_PER_PROCESS_BOUNDS='1,1,1' asks for 1\n" },
	{ "bad/no-such-chip", TPU("tpu-v4"), { CHIPS("0,9") }, FALSE, 1, "",
	  ERR "TPU_VISIBLE_CHIPS='0,9': chip 9 does not exist (this host has 4 TPU chips)\n" },
	{ "bad/chips-malformed", TPU("tpu-v4"), { CHIPS("0,a") }, FALSE, 1, "",
	  ERR "TPU_VISIBLE_CHIPS='0,a': expected chip indices such as '0,1'\n" },
	{ "bad/chips-repeated", TPU("tpu-v4"), { CHIPS("1,1") }, FALSE, 1, "",
	  ERR "TPU_VISIBLE_CHIPS='1,1': chip 1 is listed twice\n" },
	{ "bad/bounds-too-big", TPU("tpu-v5e"), { BOUNDS("4,4,1") }, FALSE, 1, "",
	  ERR "TPU_CHIPS_PER_PROCESS_BOUNDS='4,4,1' asks for 16 chips, this host has 8\n" },
	{ "bad/bounds-malformed", TPU("tpu-v5e"), { BOUNDS("2x2") }, FALSE, 1, "",
	  ERR "TPU_CHIPS_PER_PROCESS_BOUNDS='2x2': expected up to three positive integers such as '2,2,1'\n" },
	{ "bad/unreadable-sysfs", TPU("tpu-unreadable"), { NULL }, FALSE, 1, "",
	  ERR "cannot read @FIX@/roots/tpu-unreadable/sys/bus/pci/devices/0000:00:04.0/vendor: "
	      "Is a directory\n" },

	/* No TPU: declined, nothing counted. */
	{ "none/cpu-only", TPU("cpu-only"), { NULL }, FALSE, 0, "{}\n", NULL },
	{ "none/gpu-host", TPU("gpu-procfs"), { NULL }, FALSE, 0, "{}\n", NULL },
	/* Both plugins on a CPU-only host, and on a host that has both kinds. */
	{ "both/cpu-only",
	  SIMPLE "accelerators = ( { plugin = \"nvidia\"; root = \"@FIX@/roots/cpu-only\"; "
	  "library = \"@BUILD@/no-such-dir/libnvidia-ml.so.1\"; }, " TPU_GROUP("cpu-only") " );\n",
	  { NULL }, TRUE, 0, "{\"num_accelerators\": {}, \"devices\": []}\n", NULL },
	{ "both/gpu-and-tpu",
	  SIMPLE "accelerators = ( { plugin = \"nvidia\"; root = \"@FIX@/roots/tpu-v4\"; "
	  "library = \"@NVML@/good/libnvidia-ml.so.1\"; }, " TPU_GROUP("tpu-v4") " );\n",
	  { "FAKE_NVML_CONFIG=@FIX@/nvml/dgx-a100.conf" }, FALSE, 0, "{\"GPU\": 8, \"TPU\": 4}\n",
	  NULL },
};

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	accel_cases_add("tpu", cases, G_N_ELEMENTS(cases));
	return g_test_run();
}
