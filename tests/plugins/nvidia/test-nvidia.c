/* SPDX-License-Identifier: MIT */
/*
 * test-nvidia.c - nvidia.so on fake hosts, with a fake NVML (FAKE_NVML_CONFIG
 * names its device table; the vendor library reads the test process's own
 * environment) or the driver's /proc tree (the case's file root), under
 * every binding variable it honours. The plugin runs alone in cr-testhost;
 * `accelerators` prints the counts, `accelerators --json` the devices, as
 * the CLI does. Finding NVML by its soname through LD_LIBRARY_PATH needs a
 * fresh process, so that case runs `cluster-resolver accelerators`.
 */
#include "accel-cli.h"
#include "thc.h"

/* A resolver so that `accelerators` has a task to answer for. */
#define SIMPLE                                                                                     \
	"resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"localhost:2222\" ]; };"     \
	" task_type = \"worker\"; task_id = 0; } );\n"
#define LIB(lib) "library = \"" lib "\";"
#define ROOT(r) "@FIX@/roots/" r

#define GOOD "@NVML@/good/libnvidia-ml.so.1"
#define NOSYM "@NVML@/nosym/libnvidia-ml.so.1"
#define ABSENT "@BUILD@/no-such-dir/libnvidia-ml.so.1"
#define NVML(file) "FAKE_NVML_CONFIG=@FIX@/nvml/" file
#define DGX NVML("dgx-a100.conf")

#define ERR "accelerator 'nvidia': "
#define WARN "warning: accelerator 'nvidia': "
/* The eight GPUs of nvml/dgx-a100.conf. */
#define U0 "GPU-0b5e2f1c-7a44-4e0b-93d1-6f2a8c1d4e70"
#define U1 "GPU-1c6f3a2d-8b55-4f1c-a4e2-7a3b9d2e5f81"
#define U2 "GPU-2d7a4b3e-9c66-4a2d-b5f3-8b4cae3f6a92"
#define U3 "GPU-3e8b5c4f-ad77-4b3e-86a4-9c5dbf4a7ba3"
#define U4 "GPU-4f9c6d5a-be88-4c4f-97b5-ad6ec05b8cb4"
#define U5 "GPU-5a0d7e6b-cf99-4d5a-a8c6-be7fd16c9dc5"
#define U6 "GPU-6b1e8f7c-d0aa-4e6b-b9d7-cf80e27daed6"
#define U7 "GPU-6b2f907d-e1bb-4f7c-8ae8-d091f38ebfe7"

#define DEV(model, i, p, uuid, mem)                                                                \
	"{\"plugin\": \"nvidia\", \"kind\": \"GPU\", \"vendor\": \"nvidia\", \"model\": \"" model  \
	"\", \"index\": " i ", \"physical_index\": " p ", \"uuid\": \"" uuid "\"" mem
#define A100(i, p, uuid, bus)                                                                      \
	DEV("NVIDIA A100-SXM4-40GB", i, p, uuid, ", \"memory_bytes\": 42949672960")                \
	", \"pci_bus_id\": \"" bus "\""
#define BY(var) ", \"visible_by\": \"" var "\"}"
#define END "}"
#define JSON(counts, devices) "{\"num_accelerators\": " counts ", \"devices\": [" devices "]}\n"

/* clang-format off */
static const thc_case cases[] = {
	/* An 8-GPU host, nothing masked. */
	{ "dgx/count", LIB(GOOD), { NULL }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 8}\n",
	  "", CR_OK, NULL, { DGX } },
	{ "dgx/json", LIB(GOOD), { NULL }, ROOT("cpu-only"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 8}", A100("0", "0", U0, "0000:07:00.0") END ", " A100("1", "1", U1, "0000:0f:00.0") END ", " A100("2", "2", U2, "0000:47:00.0") END ", " A100("3", "3", U3, "0000:4e:00.0") END ", " A100("4", "4", U4, "0000:87:00.0") END ", " A100("5", "5", U5, "0000:90:00.0") END ", " A100("6", "6", U6, "0000:b7:00.0") END ", " A100("7", "7", U7, "0000:bd:00.0") END),
	  "", CR_OK, NULL, { DGX } },
	/* CUDA_VISIBLE_DEVICES: order, UUIDs, prefixes, and CUDA's stop rule. */
	{ "cuda/index-order", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=3,1" }, ROOT("cpu-only"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 2}", A100("0", "3", U3, "0000:4e:00.0") BY("CUDA_VISIBLE_DEVICES") ", " A100("1", "1", U1, "0000:0f:00.0") BY("CUDA_VISIBLE_DEVICES")),
	  "", CR_OK, NULL, { DGX } },
	{ "cuda/uuid-and-prefix", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=GPU-6b1, " U2 }, ROOT("cpu-only"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 2}", A100("0", "6", U6, "0000:b7:00.0") BY("CUDA_VISIBLE_DEVICES") ", " A100("1", "2", U2, "0000:47:00.0") BY("CUDA_VISIBLE_DEVICES")),
	  "", CR_OK, NULL, { DGX } },
	{ "cuda/ambiguous-prefix", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=0,GPU-6b,1" }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 1}\n",
	  "", CR_OK, WARN "CUDA_VISIBLE_DEVICES='0,GPU-6b,1': 'GPU-6b' names more than one GPU; " "CUDA ignores it and every entry after it\n", { DGX } },
	{ "cuda/empty", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=" }, ROOT("cpu-only"), { "accelerators" },
	  "{}\n",
	  "", CR_OK, NULL, { DGX } },
	{ "cuda/minus-one", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=-1" }, ROOT("cpu-only"), { "accelerators" },
	  "{}\n",
	  "", CR_OK, NULL, { DGX } },
	{ "cuda/minus-one-stops", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=0,2,-1,1" }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 2}\n",
	  "", CR_OK, NULL, { DGX } },
	{ "cuda/slurm-nodevfiles", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=NoDevFiles" }, ROOT("cpu-only"), { "accelerators" },
	  "{}\n",
	  "", CR_OK, NULL, { DGX } },
	{ "cuda/out-of-range", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=3,9,1" }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 1}\n",
	  "", CR_OK, WARN "CUDA_VISIBLE_DEVICES='3,9,1': '9' matches no visible GPU; " "CUDA ignores it and every entry after it\n", { DGX } },
	/* The cases below were checked against the CUDA driver itself
	 * (cuDeviceGetCount, driver 580, scripts/gpu-check.py). An index
	 * given twice makes CUDA refuse the whole list ... */
	{ "cuda/repeated-index", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=1,1" }, ROOT("cpu-only"), { "accelerators" },
	  "{}\n",
	  "", CR_OK, WARN "CUDA_VISIBLE_DEVICES='1,1': '1' repeats an earlier index; "
	  "CUDA refuses the whole list and the process sees no GPU\n", { DGX } },
	/* ... unless an invalid entry ended the list before the repeat ... */
	{ "cuda/repeat-after-stop", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=1,9,1" }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 1}\n",
	  "", CR_OK, WARN "CUDA_VISIBLE_DEVICES='1,9,1': '9' matches no visible GPU; "
	  "CUDA ignores it and every entry after it\n", { DGX } },
	/* ... while a UUID naming a device listed already only ends it. */
	{ "cuda/repeated-by-uuid", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=1," U1 ",2" }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 1}\n",
	  "", CR_OK, WARN "CUDA_VISIBLE_DEVICES='1," U1 ",2': '" U1 "' repeats an earlier entry; "
	  "CUDA ignores it and every entry after it\n", { DGX } },
	/* The driver reads an index as sign + digits and ignores the rest. */
	{ "cuda/index-like-strtol", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=+3,2a,0x0, 07" }, ROOT("cpu-only"),
	  { "accelerators", "--json" },
	  JSON("{\"GPU\": 4}", A100("0", "3", U3, "0000:4e:00.0") BY("CUDA_VISIBLE_DEVICES") ", "
				   A100("1", "2", U2, "0000:47:00.0") BY("CUDA_VISIBLE_DEVICES") ", "
				   A100("2", "0", U0, "0000:07:00.0") BY("CUDA_VISIBLE_DEVICES") ", "
				   A100("3", "7", U7, "0000:bd:00.0") BY("CUDA_VISIBLE_DEVICES")),
	  "", CR_OK, NULL, { DGX } },
	{ "cuda/bare-uuid-prefix", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=GPU-" }, ROOT("cpu-only"), { "accelerators" },
	  "{}\n",
	  "", CR_OK, WARN "CUDA_VISIBLE_DEVICES='GPU-': 'GPU-' is not a GPU index or UUID; "
	  "CUDA ignores it and every entry after it\n", { DGX } },
	{ "cuda/minus-two", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=4,-2,1" }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 1}\n",
	  "", CR_OK, NULL, { DGX } },
	{ "cuda/unknown-uuid", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=GPU-ffff" }, ROOT("cpu-only"), { "accelerators" },
	  "{}\n",
	  "", CR_OK, WARN "CUDA_VISIBLE_DEVICES='GPU-ffff': 'GPU-ffff' matches no visible GPU; " "CUDA ignores it and every entry after it\n", { DGX } },
	/* A device cgroup lets this process open GPUs 2 and 3: CUDA's
	 * indices count only those. */
	{ "cgroup/count", LIB(GOOD), { NULL }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 2}\n",
	  "", CR_OK, NULL, { NVML("cgroup-2-3.conf") } },
	{ "cgroup/cuda", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=1" }, ROOT("cpu-only"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 1}", A100("0", "3", U3, "0000:4e:00.0") BY("CUDA_VISIBLE_DEVICES")),
	  "", CR_OK, NULL, { NVML("cgroup-2-3.conf") } },
	/* NVIDIA_VISIBLE_DEVICES: the container runtime's grant. */
	{ "nvidia-visible/all", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=all" }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 8}\n",
	  "", CR_OK, NULL, { DGX } },
	{ "nvidia-visible/none", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=none" }, ROOT("cpu-only"), { "accelerators" },
	  "{}\n",
	  "", CR_OK, NULL, { DGX } },
	{ "nvidia-visible/void", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=void" }, ROOT("cpu-only"), { "accelerators" },
	  "{}\n",
	  "", CR_OK, NULL, { DGX } },
	{ "nvidia-visible/empty", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=" }, ROOT("cpu-only"), { "accelerators" },
	  "{}\n",
	  "", CR_OK, NULL, { DGX } },
	{ "nvidia-visible/indices", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=5,2" }, ROOT("cpu-only"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 2}", A100("0", "2", U2, "0000:47:00.0") BY("NVIDIA_VISIBLE_DEVICES") ", " A100("1", "5", U5, "0000:90:00.0") BY("NVIDIA_VISIBLE_DEVICES")),
	  "", CR_OK, NULL, { DGX } },
	{ "nvidia-visible/uuid", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=" U4 }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 1}\n",
	  "", CR_OK, NULL, { DGX } },
	{ "nvidia-visible/then-cuda", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=2,5", "CUDA_VISIBLE_DEVICES=1" }, ROOT("cpu-only"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 1}", A100("0", "5", U5, "0000:90:00.0") BY("CUDA_VISIBLE_DEVICES")),
	  "", CR_OK, NULL, { DGX } },
	/* Inside a container given host GPUs 4 and 5: NVML says 0 and 1. */
	{ "nvidia-visible/container", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=4,5" }, ROOT("cpu-only"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 2}", A100("0", "0", U4, "0000:87:00.0") BY("NVIDIA_VISIBLE_DEVICES") ", " A100("1", "1", U5, "0000:90:00.0") BY("NVIDIA_VISIBLE_DEVICES")),
	  "", CR_OK, NULL, { NVML("container-4-5.conf") } },
	{ "nvidia-visible/contradicts-cuda", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=2,5", "CUDA_VISIBLE_DEVICES=GPU-0b5e" }, ROOT("cpu-only"), { "accelerators" },
	  "",
	  ERR "CUDA_VISIBLE_DEVICES='GPU-0b5e' names 'GPU-0b5e', which " "NVIDIA_VISIBLE_DEVICES='2,5' withholds from this process", CR_ERR_CONFLICT, NULL, { DGX } },
	{ "nvidia-visible/unknown", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=0,9" }, ROOT("cpu-only"), { "accelerators" },
	  "",
	  ERR "NVIDIA_VISIBLE_DEVICES='0,9': no GPU matches '9' (8 found)", CR_ERR_CONFLICT, NULL, { DGX } },
	{ "nvidia-visible/malformed", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=0,gpu1" }, ROOT("cpu-only"), { "accelerators" },
	  "",
	  ERR "NVIDIA_VISIBLE_DEVICES='0,gpu1': 'gpu1' is not a GPU index, GPU:MIG pair or UUID", CR_ERR_PARSE, NULL, { DGX } },
	{ NULL },
};
/* clang-format on */

/* nvml/mig.conf: GPU 0 in MIG mode (instances in slots 0, 1, 3), GPU 1 whole. */
#define MIG_GPU0 "GPU-7c3a1b2d-4e5f-4a6b-9c7d-8e9f0a1b2c3d"
#define MIG_GPU1 "GPU-8d4b2c3e-5f6a-4b7c-ad8e-9f0a1b2c3d4e"
#define MIG0 "MIG-0e1f2a3b-4c5d-5e6f-8a7b-9c0d1e2f3a4b"
#define MIG1 "MIG-1f2a3b4c-5d6e-5f7a-9b8c-0d1e2f3a4b5c"
#define MIG3 "MIG-2a3b4c5d-6e7f-5a8b-ac9d-1e2f3a4b5c6d"
#define MIGDEV(i, slot, uuid, profile, mem)                                                        \
	DEV("NVIDIA A100-SXM4-40GB MIG " profile, i, slot, uuid, ", \"memory_bytes\": " mem)       \
	", \"pci_bus_id\": \"0000:07:00.0\""
#define PARENT0 ", \"parent_index\": 0}"
#define PARENT0_BY(var) ", \"visible_by\": \"" var "\", \"parent_index\": 0}"

/* clang-format off */
static const thc_case mig_cases[] = {
	{ "mig/json", LIB(GOOD), { NULL }, ROOT("cpu-only"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 4}", MIGDEV("0", "0", MIG0, "3g.20gb", "20937965568") PARENT0 ", " MIGDEV("1", "1", MIG1, "2g.10gb", "10468982784") PARENT0 ", " MIGDEV("2", "3", MIG3, "1g.5gb", "5234491392") PARENT0 ", " A100("3", "1", MIG_GPU1, "0000:0f:00.0") END),
	  "", CR_OK, NULL, { NVML("mig.conf") } },
	{ "mig/off", LIB(GOOD) " mig = false;", { NULL }, ROOT("cpu-only"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 2}", A100("0", "0", MIG_GPU0, "0000:07:00.0") END ", " A100("1", "1", MIG_GPU1, "0000:0f:00.0") END),
	  "", CR_OK, NULL, { NVML("mig.conf") } },
	{ "mig/cuda-mig-uuid", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=MIG-1f2a" }, ROOT("cpu-only"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 1}", MIGDEV("0", "1", MIG1, "2g.10gb", "10468982784") PARENT0_BY("CUDA_VISIBLE_DEVICES")),
	  "", CR_OK, NULL, { NVML("mig.conf") } },
	{ "mig/cuda-parent-uuid", LIB(GOOD), { "CUDA_VISIBLE_DEVICES=GPU-7c3a" }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 3}\n",
	  "", CR_OK, NULL, { NVML("mig.conf") } },
	{ "mig/nvidia-visible-pair", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=0:3" }, ROOT("cpu-only"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 1}", MIGDEV("0", "3", MIG3, "1g.5gb", "5234491392") PARENT0_BY("NVIDIA_VISIBLE_DEVICES")),
	  "", CR_OK, NULL, { NVML("mig.conf") } },
	{ "mig/nvidia-visible-gpu", LIB(GOOD), { "NVIDIA_VISIBLE_DEVICES=0" }, ROOT("cpu-only"), { "accelerators" },
	  "{\"GPU\": 3}\n",
	  "", CR_OK, NULL, { NVML("mig.conf") } },
	{ NULL },
};
/* clang-format on */

/* roots/gpu-procfs: 5 V100s in /proc/driver/nvidia, one excluded by the driver. */
#define V100(i, uuid, bus)                                                                         \
	DEV("Tesla V100-SXM2-16GB", i, i, uuid, "") ", \"pci_bus_id\": \"" bus "\"}"

/* clang-format off */
static const thc_case fallback_cases[] = {
	{ "procfs/json", LIB(ABSENT), { NULL }, ROOT("gpu-procfs"), { "accelerators", "--json" },
	  JSON("{\"GPU\": 4}", V100("0", "GPU-a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "0000:1a:00.0") ", " V100("1", "GPU-b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e", "0000:1c:00.0") ", " V100("2", "GPU-d4e5f6a7-b8c9-4d0e-9f2a-3b4c5d6e7f80", "0000:8a:00.0") ", " V100("3", "GPU-e5f6a7b8-c9d0-4e1f-8a3b-4c5d6e7f8091", "0000:b2:00.0")),
	  "", CR_OK, NULL, { NULL } },
	{ "procfs/cuda", LIB(ABSENT), { "CUDA_VISIBLE_DEVICES=GPU-e5f6,0" }, ROOT("gpu-procfs"), { "accelerators" },
	  "{\"GPU\": 2}\n",
	  "", CR_OK, NULL, { NULL } },
	/* A broken NVML: the /proc tree still counts, with a warning. */
	{ "broken/nosym-falls-back", LIB(NOSYM), { NULL }, ROOT("gpu-procfs"), { "accelerators" },
	  "{\"GPU\": 4}\n",
	  "", CR_OK, WARN "NVML library '@NVML@/nosym/libnvidia-ml.so.1' lacks symbol 'nvmlDeviceGetUUID'; " "counting GPUs from /proc/driver/nvidia/gpus\n", { NULL } },
	{ "broken/nosym", LIB(NOSYM), { NULL }, ROOT("cpu-only"), { "accelerators" },
	  "",
	  ERR "NVML library '@NVML@/nosym/libnvidia-ml.so.1' lacks symbol 'nvmlDeviceGetUUID'", CR_ERR_BACKEND, NULL, { NULL } },
	{ "broken/init-fails", LIB(GOOD), { NULL }, ROOT("cpu-only"), { "accelerators" },
	  "",
	  ERR "NVML library '@NVML@/good/libnvidia-ml.so.1': nvmlInit_v2 failed: Unknown Error (999)", CR_ERR_BACKEND, NULL, { NVML("init-fails.conf") } },
	{ "broken/gpu-lost", LIB(GOOD), { NULL }, ROOT("cpu-only"), { "accelerators" },
	  "",
	  ERR "NVML library '@NVML@/good/libnvidia-ml.so.1': nvmlDeviceGetCount_v2: GPU is lost (15)", CR_ERR_BACKEND, NULL, { NVML("gpu-lost.conf") } },
	/* issue #11 item 8: no library from the current directory, none from an
	 * unsafe one. */
	{ "library/relative-refused", LIB("./libnvidia-ml.so.1"), { NULL }, ROOT("cpu-only"), { "accelerators" },
	  "",
	  ERR "cannot load ./libnvidia-ml.so.1: a library is a bare soname or an absolute path", CR_ERR_CONFIG, NULL, { NULL } },
	{ "library/unsafe-directory-refused", LIB("/tmp"), { NULL }, ROOT("cpu-only"), { "accelerators" },
	  "",
	  ERR "refusing library /tmp: not a regular file", CR_ERR_PLUGIN, NULL, { NULL } },
	{ "broken/unreadable", LIB(ABSENT), { NULL }, ROOT("gpu-unreadable"), { "accelerators" },
	  "",
	  ERR "cannot read /proc/driver/nvidia/gpus/0000:07:00.0/information: " "Is a directory", CR_ERR_IO, NULL, { NULL } },
	{ "broken/garbled", LIB(ABSENT), { NULL }, ROOT("gpu-garbled"), { "accelerators" },
	  "",
	  ERR "'/proc/driver/nvidia/gpus/0000:07:00.0/information': " "no 'Model:' line", CR_ERR_PARSE, NULL, { NULL } },
	{ "bad-root", "root = \"relative/dir\";", { NULL }, NULL, { "accelerators" },
	  "",
	  "accelerator 'nvidia' (@PLUGIN@): " "create failed: option 'root' must be an absolute path, got 'relative/dir'", CR_ERR_CONFIG, NULL, { NULL } },
	/* No driver: declined; a driver without GPUs: nothing to count. */
	{ "none/no-driver", LIB(ABSENT), { NULL }, ROOT("cpu-only"), { "accelerators" },
	  "",
	  "accelerator 'nvidia' declined", CR_DECLINED, NULL, { NULL } },
	{ "none/driver-not-loaded", LIB(GOOD), { NULL }, ROOT("cpu-only"), { "accelerators" },
	  "",
	  "accelerator 'nvidia' declined", CR_DECLINED, NULL, { NVML("driver-not-loaded.conf") } },
	{ "none/no-gpu", LIB(GOOD), { NULL }, ROOT("cpu-only"), { "accelerators" },
	  "{}\n",
	  "", CR_OK, NULL, { NVML("no-gpu.conf") } },
	{ NULL },
};
/* clang-format on */

/* The default soname, found through the loader's search path. */
static const accel_case cli_cases[] = {
	{ "dgx/soname",
	  SIMPLE "accelerators = ( { plugin = \"nvidia\"; root = \"@FIX@/roots/cpu-only\"; } );\n",
	  { DGX, "LD_LIBRARY_PATH=@NVML@/good" },
	  FALSE,
	  0,
	  "{\"GPU\": 8}\n",
	  NULL },
};

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_set_nonfatal_assertions();
	thc_add_cases("accel/nvidia", "accelerators/nvidia.so", cases);
	thc_add_cases("accel/nvidia", "accelerators/nvidia.so", mig_cases);
	thc_add_cases("accel/nvidia", "accelerators/nvidia.so", fallback_cases);
	accel_cases_add("nvidia", cli_cases, G_N_ELEMENTS(cli_cases));
	return g_test_run();
}
