//! `prefill`: a prompt's FLOPs, bytes and time to first token. Its flags
//! are the declared inputs ([`roofline::query::declared::PREFILL`]).

super::declared::declared_args!(
    /// `prefill` flags.
    PrefillArgs = roofline::query::declared::PREFILL,
    "Examples:
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 8192
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 8192 --chunk 512
  roofline prefill --model llama-3-8b --hw h100-sxm --prompt 8192 --explain   # the fp32 scores against L2
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 2048 --achievable
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 512 --context 4096 --achievable
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 512 --sweep prompt=512..8192
  roofline prefill --model llama-3-8b --hw h200-sxm --prompt 4096 --achievable --price 2.50/h   # J and cost per prompt token"
);
