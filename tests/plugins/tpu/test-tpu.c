/* SPDX-License-Identifier: MIT */
/*
 * test-tpu.c - tpu.so on fake TPU VMs (v3 and v4 with /dev/accel*, v5e with
 * VFIO), counted the way TensorFlow counts TPU devices, under
 * TPU_VISIBLE_CHIPS and TPU_CHIPS_PER_PROCESS_BOUNDS. The plugin alone runs
 * in cr-testhost with the fixture tree as its file root; the cases with
 * both accelerator plugins run `cluster-resolver accelerators`.
 */
#include "accel-cli.h"
#include "thc.h"

#define SIMPLE                                                                                     \
	"resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"localhost:2222\" ]; };"     \
	" task_type = \"worker\"; task_id = 0; } );\n"
#define TPU_GROUP(root) "{ plugin = \"tpu\"; root = \"@FIX@/roots/" root "\"; }"
#define ROOT(r) "@SRC@/tests/fixtures/accel/roots/" r

#define ERR "accelerator 'tpu': "
#define CHIPS(v) "TPU_VISIBLE_CHIPS=" v
#define BOUNDS(v) "TPU_CHIPS_PER_PROCESS_BOUNDS=" v
#define ENUM                                                                                       \
	{                                                                                          \
		"enumerate"                                                                        \
	}

#define DEV(model, i, p, bus)                                                                      \
	"{\"plugin\": \"tpu\", \"kind\": \"TPU\", \"vendor\": \"google\", \"model\": \"" model     \
	"\", \"index\": " i ", \"physical_index\": " p ", \"pci_bus_id\": \"" bus "\""
#define END "}"
#define BY(var) ", \"visible_by\": \"" var "\"}"
#define CHIP(c) ", \"parent_index\": " c "}"
#define CHIP_BY(var, c) ", \"visible_by\": \"" var "\", \"parent_index\": " c "}"
#define JSON(counts, devices) "{\"num_accelerators\": " counts ", \"devices\": [" devices "]}\n"

#define V4(i, p, bus) DEV("v4", i, p, bus)
#define V5E(i, p, bus) DEV("v5e", i, p, bus)
#define V3(i, p, bus) DEV("v3", i, p, bus)
#define V4_ALL                                                                                     \
	V4("0", "0", "0000:00:04.0")                                                               \
	END ", " V4("1", "1", "0000:00:05.0") END ", " V4("2", "2", "0000:00:06.0") END            \
		", " V4("3", "3", "0000:00:07.0") END
#define V5E_ALL                                                                                    \
	V5E("0", "0", "0000:00:04.0")                                                              \
	END ", " V5E("1", "1", "0000:00:05.0") END ", " V5E("2", "2", "0000:00:06.0") END          \
		", " V5E("3", "3", "0000:00:07.0") END ", " V5E("4", "4", "0000:00:08.0") END      \
		", " V5E("5", "5", "0000:00:09.0") END ", " V5E("6", "6", "0000:00:0a.0") END      \
		", " V5E("7", "7", "0000:00:0b.0") END

/* clang-format off */
static const thc_case cases[] = {
	/* v4: four chips on /dev/accel0..3, one megacore device each. The
	 * gVNIC (Google vendor id, device 0x0042) is not a TPU. */
	{ "v4/all", NULL, { NULL }, ROOT("tpu-v4"), ENUM, JSON("{\"TPU\": 4}", V4_ALL), "", CR_OK },
	{ "v4/visible-chips", NULL, { CHIPS("2,0"), BOUNDS("1,2,1") }, ROOT("tpu-v4"), ENUM,
	  JSON("{\"TPU\": 2}", V4("0", "0", "0000:00:04.0") BY("TPU_VISIBLE_CHIPS") ", "
			       V4("1", "2", "0000:00:06.0") BY("TPU_VISIBLE_CHIPS")),
	  "", CR_OK },

	/* v3: two TensorCores per chip, so four chips are eight TPU devices. */
	{ "v3/all", NULL, { NULL }, ROOT("tpu-v3"), ENUM,
	  JSON("{\"TPU\": 8}",
	       V3("0", "0", "0000:00:04.0") CHIP("0") ", " V3("1", "1", "0000:00:04.0") CHIP("0") ", "
	       V3("2", "2", "0000:00:05.0") CHIP("1") ", " V3("3", "3", "0000:00:05.0") CHIP("1") ", "
	       V3("4", "4", "0000:00:06.0") CHIP("2") ", " V3("5", "5", "0000:00:06.0") CHIP("2") ", "
	       V3("6", "6", "0000:00:07.0") CHIP("3") ", " V3("7", "7", "0000:00:07.0") CHIP("3")),
	  "", CR_OK },
	{ "v3/visible-chip", NULL, { CHIPS("3") }, ROOT("tpu-v3"), ENUM,
	  JSON("{\"TPU\": 2}", V3("0", "6", "0000:00:07.0") CHIP_BY("TPU_VISIBLE_CHIPS", "3") ", "
			       V3("1", "7", "0000:00:07.0") CHIP_BY("TPU_VISIBLE_CHIPS", "3")),
	  "", CR_OK },
	{ "v3/first-chip", NULL, { BOUNDS("1,1,1") }, ROOT("tpu-v3"), ENUM,
	  JSON("{\"TPU\": 2}",
	       V3("0", "0", "0000:00:04.0") CHIP_BY("TPU_CHIPS_PER_PROCESS_BOUNDS", "0") ", "
	       V3("1", "1", "0000:00:04.0") CHIP_BY("TPU_CHIPS_PER_PROCESS_BOUNDS", "0")),
	  "", CR_OK },

	/* v5e: eight chips through VFIO (groups 12..19); group 3 is an NVMe disk. */
	{ "v5e/all", NULL, { NULL }, ROOT("tpu-v5e"), ENUM, JSON("{\"TPU\": 8}", V5E_ALL), "", CR_OK },
	{ "v5e/one-chip-per-process", NULL, { CHIPS("5"), BOUNDS("1,1,1") }, ROOT("tpu-v5e"), ENUM,
	  JSON("{\"TPU\": 1}", V5E("0", "5", "0000:00:09.0") BY("TPU_VISIBLE_CHIPS")), "", CR_OK },
	{ "v5e/bounds-only", NULL, { BOUNDS("2,2,1") }, ROOT("tpu-v5e"), ENUM,
	  JSON("{\"TPU\": 4}",
	       V5E("0", "0", "0000:00:04.0") BY("TPU_CHIPS_PER_PROCESS_BOUNDS") ", "
	       V5E("1", "1", "0000:00:05.0") BY("TPU_CHIPS_PER_PROCESS_BOUNDS") ", "
	       V5E("2", "2", "0000:00:06.0") BY("TPU_CHIPS_PER_PROCESS_BOUNDS") ", "
	       V5E("3", "3", "0000:00:07.0") BY("TPU_CHIPS_PER_PROCESS_BOUNDS")),
	  "", CR_OK },
	{ "v5e/no-chip", NULL, { CHIPS("") }, ROOT("tpu-v5e"), ENUM, JSON("{}", ""), "", CR_OK },

	/* Masks that cannot be right. */
	{ "bad/bounds-disagree", NULL, { CHIPS("0,1"), BOUNDS("1,1,1") }, ROOT("tpu-v5e"), ENUM, "",
	  ERR "TPU_VISIBLE_CHIPS='0,1' lists 2 chips but TPU_CHIPS_PER_PROCESS_BOUNDS='1,1,1' asks for 1",
	  CR_ERR_CONFLICT },
	{ "bad/no-such-chip", NULL, { CHIPS("0,9") }, ROOT("tpu-v4"), ENUM, "",
	  ERR "TPU_VISIBLE_CHIPS='0,9': chip 9 does not exist (this host has 4 TPU chips)", CR_ERR_CONFLICT },
	{ "bad/chips-malformed", NULL, { CHIPS("0,a") }, ROOT("tpu-v4"), ENUM, "",
	  ERR "TPU_VISIBLE_CHIPS='0,a': expected chip indices such as '0,1'", CR_ERR_PARSE },
	{ "bad/chips-repeated", NULL, { CHIPS("1,1") }, ROOT("tpu-v4"), ENUM, "",
	  ERR "TPU_VISIBLE_CHIPS='1,1': chip 1 is listed twice", CR_ERR_PARSE },
	{ "bad/bounds-too-big", NULL, { BOUNDS("4,4,1") }, ROOT("tpu-v5e"), ENUM, "",
	  ERR "TPU_CHIPS_PER_PROCESS_BOUNDS='4,4,1' asks for 16 chips, this host has 8", CR_ERR_CONFLICT },
	{ "bad/bounds-malformed", NULL, { BOUNDS("2x2") }, ROOT("tpu-v5e"), ENUM, "",
	  ERR "TPU_CHIPS_PER_PROCESS_BOUNDS='2x2': expected up to three positive integers such as '2,2,1'",
	  CR_ERR_PARSE },
	{ "bad/unreadable-sysfs", NULL, { NULL }, ROOT("tpu-unreadable"), ENUM, "",
	  ERR "cannot read /sys/bus/pci/devices/0000:00:04.0/vendor: Is a directory", CR_ERR_IO },
	{ "bad/root-option", "root = \"relative\";", { NULL }, NULL, ENUM, "",
	  "accelerator 'tpu' (@PLUGIN@): create failed: option 'root' must be an absolute path, got 'relative'",
	  CR_ERR_CONFIG },

	/* No TPU: declined. */
	{ "none/cpu-only", NULL, { NULL }, ROOT("cpu-only"), ENUM, "", "accelerator 'tpu' declined",
	  CR_DECLINED },
	{ "none/gpu-host", NULL, { NULL }, ROOT("gpu-procfs"), ENUM, "", "accelerator 'tpu' declined",
	  CR_DECLINED },
	{ "none/empty-root", NULL, { NULL }, NULL, { "probe" }, "",
	  "no TPU: no /dev/accel* or /dev/vfio/N node", CR_DECLINED },
	{ NULL },
};
/* clang-format on */

/* Both plugins on a CPU-only host, and on a host that has both kinds. */
/* clang-format off */
static const accel_case cli_cases[] = {
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
/* clang-format on */

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("accel/tpu", "accelerators/tpu.so", cases);
	accel_cases_add("tpu", cli_cases, G_N_ELEMENTS(cli_cases));
	return g_test_run();
}
