/* SPDX-License-Identifier: MIT */
/*
 * test-nvidia.c - nvidia.so end to end: `cluster-resolver accelerators` on
 * fake hosts, with a fake NVML (FAKE_NVML_CONFIG names its device table)
 * or the driver's /proc tree, under every binding variable it honours.
 */
#include "accel-cli.h"

/* A resolver so that `accelerators` has a task to answer for. */
#define SIMPLE                                                                    \
	"resolvers = ( { plugin = \"simple\"; cluster = { worker = [ \"localhost:2222\" ]; };" \
	" task_type = \"worker\"; task_id = 0; } );\n"
#define NV(root, lib, extra)                                                      \
	SIMPLE "accelerators = ( { plugin = \"nvidia\"; root = \"@FIX@/roots/" root  \
	"\"; library = \"" lib "\";" extra " } );\n"

#define GOOD "@NVML@/good/libnvidia-ml.so.1"
#define NOSYM "@NVML@/nosym/libnvidia-ml.so.1"
#define ABSENT "@BUILD@/no-such-dir/libnvidia-ml.so.1"
#define NVML(file) "FAKE_NVML_CONFIG=@FIX@/nvml/" file
#define DGX NVML("dgx-a100.conf")

#define ERR "cluster-resolver: accelerator 'nvidia': "
#define WARN "cluster-resolver: warning: accelerator 'nvidia': "

/* The eight GPUs of nvml/dgx-a100.conf. */
#define U0 "GPU-0b5e2f1c-7a44-4e0b-93d1-6f2a8c1d4e70"
#define U1 "GPU-1c6f3a2d-8b55-4f1c-a4e2-7a3b9d2e5f81"
#define U2 "GPU-2d7a4b3e-9c66-4a2d-b5f3-8b4cae3f6a92"
#define U3 "GPU-3e8b5c4f-ad77-4b3e-86a4-9c5dbf4a7ba3"
#define U4 "GPU-4f9c6d5a-be88-4c4f-97b5-ad6ec05b8cb4"
#define U5 "GPU-5a0d7e6b-cf99-4d5a-a8c6-be7fd16c9dc5"
#define U6 "GPU-6b1e8f7c-d0aa-4e6b-b9d7-cf80e27daed6"
#define U7 "GPU-6b2f907d-e1bb-4f7c-8ae8-d091f38ebfe7"

#define DEV(model, i, p, uuid, mem) \
	"{\"plugin\": \"nvidia\", \"kind\": \"GPU\", \"vendor\": \"nvidia\", \"model\": \"" model \
	"\", \"index\": " i ", \"physical_index\": " p ", \"uuid\": \"" uuid "\"" mem
#define A100(i, p, uuid, bus) \
	DEV("NVIDIA A100-SXM4-40GB", i, p, uuid, ", \"memory_bytes\": 42949672960") \
	", \"pci_bus_id\": \"" bus "\""
#define BY(var) ", \"visible_by\": \"" var "\"}"
#define END "}"
#define JSON(counts, devices) "{\"num_accelerators\": " counts ", \"devices\": [" devices "]}\n"

static const accel_case cases[] = {
	/* An 8-GPU host, nothing masked. */
	{ "dgx/count", NV("cpu-only", GOOD, ""), { DGX }, FALSE, 0, "{\"GPU\": 8}\n", NULL },
	{ "dgx/json", NV("cpu-only", GOOD, ""), { DGX }, TRUE, 0,
	  JSON("{\"GPU\": 8}",
	       A100("0", "0", U0, "0000:07:00.0") END ", " A100("1", "1", U1, "0000:0f:00.0") END ", "
	       A100("2", "2", U2, "0000:47:00.0") END ", " A100("3", "3", U3, "0000:4e:00.0") END ", "
	       A100("4", "4", U4, "0000:87:00.0") END ", " A100("5", "5", U5, "0000:90:00.0") END ", "
	       A100("6", "6", U6, "0000:b7:00.0") END ", " A100("7", "7", U7, "0000:bd:00.0") END),
	  NULL },
	/* The default soname, found through the loader's search path. */
	{ "dgx/soname", SIMPLE "accelerators = ( { plugin = \"nvidia\"; root = \"@FIX@/roots/cpu-only\"; } );\n",
	  { DGX, "LD_LIBRARY_PATH=@NVML@/good" }, FALSE, 0, "{\"GPU\": 8}\n", NULL },

	/* CUDA_VISIBLE_DEVICES: order, UUIDs, prefixes, and CUDA's stop rule. */
	{ "cuda/index-order", NV("cpu-only", GOOD, ""), { DGX, "CUDA_VISIBLE_DEVICES=3,1" }, TRUE, 0,
	  JSON("{\"GPU\": 2}", A100("0", "3", U3, "0000:4e:00.0") BY("CUDA_VISIBLE_DEVICES") ", "
			       A100("1", "1", U1, "0000:0f:00.0") BY("CUDA_VISIBLE_DEVICES")),
	  NULL },
	{ "cuda/uuid-and-prefix", NV("cpu-only", GOOD, ""),
	  { DGX, "CUDA_VISIBLE_DEVICES=GPU-6b1, " U2 }, TRUE, 0,
	  JSON("{\"GPU\": 2}", A100("0", "6", U6, "0000:b7:00.0") BY("CUDA_VISIBLE_DEVICES") ", "
			       A100("1", "2", U2, "0000:47:00.0") BY("CUDA_VISIBLE_DEVICES")),
	  NULL },
	{ "cuda/ambiguous-prefix", NV("cpu-only", GOOD, ""),
	  { DGX, "CUDA_VISIBLE_DEVICES=0,GPU-6b,1" }, FALSE, 0, "{\"GPU\": 1}\n",
	  WARN "CUDA_VISIBLE_DEVICES='0,GPU-6b,1': 'GPU-6b' names more than one GPU; "
	       "CUDA ignores it and every entry after it\n" },
	{ "cuda/empty", NV("cpu-only", GOOD, ""), { DGX, "CUDA_VISIBLE_DEVICES=" }, FALSE, 0,
	  "{}\n", NULL },
	{ "cuda/minus-one", NV("cpu-only", GOOD, ""), { DGX, "CUDA_VISIBLE_DEVICES=-1" }, FALSE, 0,
	  "{}\n", NULL },
	{ "cuda/minus-one-stops", NV("cpu-only", GOOD, ""), { DGX, "CUDA_VISIBLE_DEVICES=0,2,-1,1" },
	  FALSE, 0, "{\"GPU\": 2}\n", NULL },
	{ "cuda/slurm-nodevfiles", NV("cpu-only", GOOD, ""), { DGX, "CUDA_VISIBLE_DEVICES=NoDevFiles" },
	  FALSE, 0, "{}\n", NULL },
	{ "cuda/out-of-range", NV("cpu-only", GOOD, ""), { DGX, "CUDA_VISIBLE_DEVICES=3,9,1" }, FALSE, 0,
	  "{\"GPU\": 1}\n",
	  WARN "CUDA_VISIBLE_DEVICES='3,9,1': '9' matches no visible GPU; "
	       "CUDA ignores it and every entry after it\n" },
	/* The cases below were checked against the CUDA driver itself
	 * (cuDeviceGetCount, driver 580, scripts/gpu-check.py). An index
	 * given twice makes CUDA refuse the whole list ... */
	{ "cuda/repeated-index", NV("cpu-only", GOOD, ""), { DGX, "CUDA_VISIBLE_DEVICES=1,1" }, FALSE, 0,
	  "{}\n",
	  WARN "CUDA_VISIBLE_DEVICES='1,1': '1' repeats an earlier index; "
	       "CUDA refuses the whole list and the process sees no GPU\n" },
	/* ... unless an invalid entry ended the list before the repeat ... */
	{ "cuda/repeat-after-stop", NV("cpu-only", GOOD, ""), { DGX, "CUDA_VISIBLE_DEVICES=1,9,1" },
	  FALSE, 0, "{\"GPU\": 1}\n",
	  WARN "CUDA_VISIBLE_DEVICES='1,9,1': '9' matches no visible GPU; "
	       "CUDA ignores it and every entry after it\n" },
	/* ... while a UUID naming a device listed already only ends it. */
	{ "cuda/repeated-by-uuid", NV("cpu-only", GOOD, ""),
	  { DGX, "CUDA_VISIBLE_DEVICES=1," U1 ",2" }, FALSE, 0, "{\"GPU\": 1}\n",
	  WARN "CUDA_VISIBLE_DEVICES='1," U1 ",2': '" U1 "' repeats an earlier entry; "
	       "CUDA ignores it and every entry after it\n" },
	/* The driver reads an index as sign + digits and ignores the rest. */
	{ "cuda/index-like-strtol", NV("cpu-only", GOOD, ""),
	  { DGX, "CUDA_VISIBLE_DEVICES=+3,2a,0x0, 07" }, TRUE, 0,
	  JSON("{\"GPU\": 4}", A100("0", "3", U3, "0000:4e:00.0") BY("CUDA_VISIBLE_DEVICES") ", "
				   A100("1", "2", U2, "0000:47:00.0") BY("CUDA_VISIBLE_DEVICES") ", "
				   A100("2", "0", U0, "0000:07:00.0") BY("CUDA_VISIBLE_DEVICES") ", "
				   A100("3", "7", U7, "0000:bd:00.0") BY("CUDA_VISIBLE_DEVICES")),
	  NULL },
	{ "cuda/bare-uuid-prefix", NV("cpu-only", GOOD, ""), { DGX, "CUDA_VISIBLE_DEVICES=GPU-" },
	  FALSE, 0, "{}\n",
	  WARN "CUDA_VISIBLE_DEVICES='GPU-': 'GPU-' is not a GPU index or UUID; "
	       "CUDA ignores it and every entry after it\n" },
	{ "cuda/minus-two", NV("cpu-only", GOOD, ""), { DGX, "CUDA_VISIBLE_DEVICES=4,-2,1" }, FALSE, 0,
	  "{\"GPU\": 1}\n", NULL },
	{ "cuda/unknown-uuid", NV("cpu-only", GOOD, ""), { DGX, "CUDA_VISIBLE_DEVICES=GPU-ffff" }, FALSE, 0,
	  "{}\n",
	  WARN "CUDA_VISIBLE_DEVICES='GPU-ffff': 'GPU-ffff' matches no visible GPU; "
	       "CUDA ignores it and every entry after it\n" },

	/* A device cgroup lets this process open GPUs 2 and 3: CUDA's
	 * indices count only those. */
	{ "cgroup/count", NV("cpu-only", GOOD, ""), { NVML("cgroup-2-3.conf") }, FALSE, 0,
	  "{\"GPU\": 2}\n", NULL },
	{ "cgroup/cuda", NV("cpu-only", GOOD, ""), { NVML("cgroup-2-3.conf"), "CUDA_VISIBLE_DEVICES=1" },
	  TRUE, 0, JSON("{\"GPU\": 1}", A100("0", "3", U3, "0000:4e:00.0") BY("CUDA_VISIBLE_DEVICES")),
	  NULL },

	/* NVIDIA_VISIBLE_DEVICES: the container runtime's grant. */
	{ "nvidia-visible/all", NV("cpu-only", GOOD, ""), { DGX, "NVIDIA_VISIBLE_DEVICES=all" },
	  FALSE, 0, "{\"GPU\": 8}\n", NULL },
	{ "nvidia-visible/none", NV("cpu-only", GOOD, ""), { DGX, "NVIDIA_VISIBLE_DEVICES=none" },
	  FALSE, 0, "{}\n", NULL },
	{ "nvidia-visible/void", NV("cpu-only", GOOD, ""), { DGX, "NVIDIA_VISIBLE_DEVICES=void" },
	  FALSE, 0, "{}\n", NULL },
	{ "nvidia-visible/empty", NV("cpu-only", GOOD, ""), { DGX, "NVIDIA_VISIBLE_DEVICES=" },
	  FALSE, 0, "{}\n", NULL },
	{ "nvidia-visible/indices", NV("cpu-only", GOOD, ""), { DGX, "NVIDIA_VISIBLE_DEVICES=5,2" },
	  TRUE, 0,
	  JSON("{\"GPU\": 2}", A100("0", "2", U2, "0000:47:00.0") BY("NVIDIA_VISIBLE_DEVICES") ", "
			       A100("1", "5", U5, "0000:90:00.0") BY("NVIDIA_VISIBLE_DEVICES")),
	  NULL },
	{ "nvidia-visible/uuid", NV("cpu-only", GOOD, ""), { DGX, "NVIDIA_VISIBLE_DEVICES=" U4 },
	  FALSE, 0, "{\"GPU\": 1}\n", NULL },
	{ "nvidia-visible/then-cuda", NV("cpu-only", GOOD, ""),
	  { DGX, "NVIDIA_VISIBLE_DEVICES=2,5", "CUDA_VISIBLE_DEVICES=1" }, TRUE, 0,
	  JSON("{\"GPU\": 1}", A100("0", "5", U5, "0000:90:00.0") BY("CUDA_VISIBLE_DEVICES")), NULL },
	/* Inside a container given host GPUs 4 and 5: NVML says 0 and 1. */
	{ "nvidia-visible/container", NV("cpu-only", GOOD, ""),
	  { NVML("container-4-5.conf"), "NVIDIA_VISIBLE_DEVICES=4,5" }, TRUE, 0,
	  JSON("{\"GPU\": 2}", A100("0", "0", U4, "0000:87:00.0") BY("NVIDIA_VISIBLE_DEVICES") ", "
			       A100("1", "1", U5, "0000:90:00.0") BY("NVIDIA_VISIBLE_DEVICES")),
	  NULL },
	{ "nvidia-visible/contradicts-cuda", NV("cpu-only", GOOD, ""),
	  { DGX, "NVIDIA_VISIBLE_DEVICES=2,5", "CUDA_VISIBLE_DEVICES=GPU-0b5e" }, FALSE, 1, "",
	  ERR "CUDA_VISIBLE_DEVICES='GPU-0b5e' names 'GPU-0b5e', which "
	      "NVIDIA_VISIBLE_DEVICES='2,5' withholds from this process\n" },
	{ "nvidia-visible/unknown", NV("cpu-only", GOOD, ""), { DGX, "NVIDIA_VISIBLE_DEVICES=0,9" },
	  FALSE, 1, "", ERR "NVIDIA_VISIBLE_DEVICES='0,9': no GPU matches '9' (8 found)\n" },
	{ "nvidia-visible/malformed", NV("cpu-only", GOOD, ""), { DGX, "NVIDIA_VISIBLE_DEVICES=0,gpu1" },
	  FALSE, 1, "",
	  ERR "NVIDIA_VISIBLE_DEVICES='0,gpu1': 'gpu1' is not a GPU index, GPU:MIG pair or UUID\n" },
};

/* nvml/mig.conf: GPU 0 in MIG mode (instances in slots 0, 1, 3), GPU 1 whole. */
#define MIG_GPU0 "GPU-7c3a1b2d-4e5f-4a6b-9c7d-8e9f0a1b2c3d"
#define MIG_GPU1 "GPU-8d4b2c3e-5f6a-4b7c-ad8e-9f0a1b2c3d4e"
#define MIG0 "MIG-0e1f2a3b-4c5d-5e6f-8a7b-9c0d1e2f3a4b"
#define MIG1 "MIG-1f2a3b4c-5d6e-5f7a-9b8c-0d1e2f3a4b5c"
#define MIG3 "MIG-2a3b4c5d-6e7f-5a8b-ac9d-1e2f3a4b5c6d"
#define MIGDEV(i, slot, uuid, profile, mem) \
	DEV("NVIDIA A100-SXM4-40GB MIG " profile, i, slot, uuid, ", \"memory_bytes\": " mem) \
	", \"pci_bus_id\": \"0000:07:00.0\""
#define PARENT0 ", \"parent_index\": 0}"
#define PARENT0_BY(var) ", \"visible_by\": \"" var "\", \"parent_index\": 0}"

static const accel_case mig_cases[] = {
	{ "mig/json", NV("cpu-only", GOOD, ""), { NVML("mig.conf") }, TRUE, 0,
	  JSON("{\"GPU\": 4}",
	       MIGDEV("0", "0", MIG0, "3g.20gb", "20937965568") PARENT0 ", "
	       MIGDEV("1", "1", MIG1, "2g.10gb", "10468982784") PARENT0 ", "
	       MIGDEV("2", "3", MIG3, "1g.5gb", "5234491392") PARENT0 ", "
	       A100("3", "1", MIG_GPU1, "0000:0f:00.0") END),
	  NULL },
	{ "mig/off", NV("cpu-only", GOOD, " mig = false;"), { NVML("mig.conf") }, TRUE, 0,
	  JSON("{\"GPU\": 2}", A100("0", "0", MIG_GPU0, "0000:07:00.0") END ", "
			       A100("1", "1", MIG_GPU1, "0000:0f:00.0") END),
	  NULL },
	{ "mig/cuda-mig-uuid", NV("cpu-only", GOOD, ""),
	  { NVML("mig.conf"), "CUDA_VISIBLE_DEVICES=MIG-1f2a" }, TRUE, 0,
	  JSON("{\"GPU\": 1}",
	       MIGDEV("0", "1", MIG1, "2g.10gb", "10468982784") PARENT0_BY("CUDA_VISIBLE_DEVICES")),
	  NULL },
	{ "mig/cuda-parent-uuid", NV("cpu-only", GOOD, ""),
	  { NVML("mig.conf"), "CUDA_VISIBLE_DEVICES=GPU-7c3a" }, FALSE, 0, "{\"GPU\": 3}\n", NULL },
	{ "mig/nvidia-visible-pair", NV("cpu-only", GOOD, ""),
	  { NVML("mig.conf"), "NVIDIA_VISIBLE_DEVICES=0:3" }, TRUE, 0,
	  JSON("{\"GPU\": 1}",
	       MIGDEV("0", "3", MIG3, "1g.5gb", "5234491392") PARENT0_BY("NVIDIA_VISIBLE_DEVICES")),
	  NULL },
	{ "mig/nvidia-visible-gpu", NV("cpu-only", GOOD, ""),
	  { NVML("mig.conf"), "NVIDIA_VISIBLE_DEVICES=0" }, FALSE, 0, "{\"GPU\": 3}\n", NULL },
};

/* roots/gpu-procfs: 5 V100s in /proc/driver/nvidia, one excluded by the driver. */
#define V100(i, uuid, bus) \
	DEV("Tesla V100-SXM2-16GB", i, i, uuid, "") ", \"pci_bus_id\": \"" bus "\"}"

static const accel_case fallback_cases[] = {
	{ "procfs/json", NV("gpu-procfs", ABSENT, ""), { NULL }, TRUE, 0,
	  JSON("{\"GPU\": 4}",
	       V100("0", "GPU-a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "0000:1a:00.0") ", "
	       V100("1", "GPU-b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e", "0000:1c:00.0") ", "
	       V100("2", "GPU-d4e5f6a7-b8c9-4d0e-9f2a-3b4c5d6e7f80", "0000:8a:00.0") ", "
	       V100("3", "GPU-e5f6a7b8-c9d0-4e1f-8a3b-4c5d6e7f8091", "0000:b2:00.0")),
	  NULL },
	{ "procfs/cuda", NV("gpu-procfs", ABSENT, ""), { "CUDA_VISIBLE_DEVICES=GPU-e5f6,0" }, FALSE, 0,
	  "{\"GPU\": 2}\n", NULL },
	/* A broken NVML: the /proc tree still counts, with a warning. */
	{ "broken/nosym-falls-back", NV("gpu-procfs", NOSYM, ""), { NULL }, FALSE, 0,
	  "{\"GPU\": 4}\n",
	  WARN "NVML library '@NVML@/nosym/libnvidia-ml.so.1' lacks symbol 'nvmlDeviceGetUUID'; "
	       "counting GPUs from @FIX@/roots/gpu-procfs/proc/driver/nvidia/gpus\n" },
	{ "broken/nosym", NV("cpu-only", NOSYM, ""), { NULL }, FALSE, 1, "",
	  ERR "NVML library '@NVML@/nosym/libnvidia-ml.so.1' lacks symbol 'nvmlDeviceGetUUID'\n" },
	{ "broken/init-fails", NV("cpu-only", GOOD, ""), { NVML("init-fails.conf") }, FALSE, 1, "",
	  ERR "NVML library '@NVML@/good/libnvidia-ml.so.1': nvmlInit_v2 failed: Unknown Error (999)\n" },
	{ "broken/gpu-lost", NV("cpu-only", GOOD, ""), { NVML("gpu-lost.conf") }, FALSE, 1, "",
	  ERR "NVML library '@NVML@/good/libnvidia-ml.so.1': nvmlDeviceGetCount_v2: GPU is lost (15)\n" },
	{ "broken/unreadable", NV("gpu-unreadable", ABSENT, ""), { NULL }, FALSE, 1, "",
	  ERR "cannot read @FIX@/roots/gpu-unreadable/proc/driver/nvidia/gpus/0000:07:00.0/information: "
	      "Is a directory\n" },
	{ "broken/garbled", NV("gpu-garbled", ABSENT, ""), { NULL }, FALSE, 1, "",
	  ERR "'@FIX@/roots/gpu-garbled/proc/driver/nvidia/gpus/0000:07:00.0/information': "
	      "no 'Model:' line\n" },
	{ "bad-root", SIMPLE "accelerators = ( { plugin = \"nvidia\"; root = \"relative/dir\"; } );\n",
	  { NULL }, FALSE, 2, "",
	  "cluster-resolver: accelerator 'nvidia' (@BUILD@/lib/cluster-resolver/accelerators/nvidia.so): "
	  "create failed: option 'root' must be an absolute path, got 'relative/dir'\n" },

	/* No driver, or a driver without GPUs: nothing to count, no error. */
	{ "none/no-driver", NV("cpu-only", ABSENT, ""), { NULL }, FALSE, 0, "{}\n", NULL },
	{ "none/driver-not-loaded", NV("cpu-only", GOOD, ""), { NVML("driver-not-loaded.conf") },
	  FALSE, 0, "{}\n", NULL },
	{ "none/no-gpu", NV("cpu-only", GOOD, ""), { NVML("no-gpu.conf") }, FALSE, 0, "{}\n", NULL },
};

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	accel_cases_add("nvidia", cases, G_N_ELEMENTS(cases));
	accel_cases_add("nvidia", mig_cases, G_N_ELEMENTS(mig_cases));
	accel_cases_add("nvidia", fallback_cases, G_N_ELEMENTS(fallback_cases));
	return g_test_run();
}
