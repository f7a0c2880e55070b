"""Mixture of experts: grouped and looped experts' decode and prefill steps
(validation/engine_moe_h200.py) and a Mixtral-8x7B prefill's kernels one by
one (validation/moe_prefill_ops_h200.py)."""

from validation.suite import Script

SECTIONS = [
    Script("moe.engine", "engine_moe_h200.py", "Qwen3-30B-A3B, Mixtral-8x7B and DeepSeek-V3 "
           "shaped MoE steps, grouped and loop experts, each model in its own process",
           argv=["{py}", "{script}", "all", "{dir}"]),
    Script("moe.prefill-ops", "moe_prefill_ops_h200.py", "a Mixtral-8x7B prefill's kernels; "
           "decode steps under the profiler"),
]
