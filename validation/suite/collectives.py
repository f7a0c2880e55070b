"""Several GPUs of one node: TP 2 Llama-3-8B steps and captured all-reduces
(validation/tp_h200.py), and links, collectives, tensor-parallel and
pipeline steps and an expert-parallel layer at any world size
(validation/multi_gpu.py). Both run under torchrun with NVLink multicast
off (NCCL_NVLS_ENABLE=0)."""

from validation.suite import Script

SECTIONS = [
    Script("collectives.tp2", "tp_h200.py", "TP 2 Llama-3-8B decode steps, prefills and "
           "captured all-reduces", argv=["torchrun", "--nproc_per_node=2", "{script}",
                                         "{dir}/tp2.json"],
           env={"NCCL_NVLS_ENABLE": "0"}, needs="2 GPUs (torchrun)"),
    Script("collectives.multi-gpu", "multi_gpu.py", "links, collectives, TP, a 2-stage "
           "pipeline and an EP layer within a time budget",
           argv=["torchrun", "--nproc_per_node=gpu", "{script}", "{dir}", "--budget", "480"],
           env={"NCCL_NVLS_ENABLE": "0"}, needs="1 or more GPUs (torchrun)"),
]
