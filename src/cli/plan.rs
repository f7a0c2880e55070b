//! `plan`: a parallel layout's memory, communication and times; a search
//! over every valid layout; separate prefill and decode pools. Its flags
//! are the declared inputs ([`roofline::query::declared::PLAN`]).

super::declared::declared_args!(
    /// `plan` flags.
    PlanArgs = roofline::query::declared::PLAN,
    "Examples:
  roofline plan --model llama-3.1-70b --hw h200-sxm --devices 8 --tp 8 --batch 32
  roofline plan --model llama-3.1-70b --hw gb200 --devices 72 --tp 8 --dp 9 --batch 32
  roofline plan --model deepseek-v3 --hw h200-sxm --devices 32 --tp 4 --dp 8 --ep 32 --batch 16 --prompt 4096
  roofline plan --model deepseek-v3 --hw h200-sxm --devices 320 --tp 4 --dp 80 --ep 320 --redundant-experts 64 --batch 64
  roofline plan --model deepseek-v3 --hw h200-sxm --search --devices 1024 --objective throughput --batch 64
  roofline plan --model llama-3.1-70b --hw h200-sxm --search --devices 16 --objective goodput --slo-ttft 500ms --slo-tpot 50ms --batch 32
  roofline plan --model llama-3.1-70b --hw h200-sxm --disaggregate --prefill-devices 8 --decode-devices 16 --batch 32"
);
