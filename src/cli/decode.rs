//! `decode`: one decode step of a model on a device. Its flags are the
//! declared inputs ([`roofline::query::declared::DECODE`]).

super::declared::declared_args!(
    /// `decode` flags.
    DecodeArgs = roofline::query::declared::DECODE,
    "Examples:
  roofline decode --model llama-2-7b --hw h100-sxm --batch 1 --context 1024   # about 4 ms at about 1 FLOP/B
  roofline decode --model llama-3-8b --hw h200-sxm --batch 32 --context 4096 --achievable
  roofline decode --model llama-3-8b --hw h200-sxm --batch 1 --context 1024 --launch eager
  roofline decode --model llama-3-8b --hw h200-sxm --batch 1 --context 2048 --sweep batch=1..512 --format csv
  roofline decode --model llama-3-8b --hw h200-sxm --batch 1 --context 2048 --slo-tpot 20ms
  roofline decode --model llama-3-8b --hw h200-sxm --batch 64 --context 2048 --prompt 1024 --output 256 --slo-ttft 200ms
  roofline decode --model deepseek-v3 --hw b200 --batch 1 --context 4096 --dtype fp8 --activations fp8   # exits 1: 671 GB do not fit one B200
  roofline decode --model llama-3-8b --hw h200-sxm --batch 8 --context 2048 --speculative 0.8,4,0.05
  roofline decode --model llama-3-8b --hw h200-sxm --batch 64 --context 2048 --achievable --price 2.50/h --energy-price 0.10/kWh --pue 1.3
  roofline decode --model llama-3-8b --hw h200-sxm --batch 1 --context 1024 --achievable --sweep batch=1..512 --y energy_per_token_j --chart energy.svg
  roofline decode --model llama-3.1-70b --hw h200-sxm --batch 16 --context 4096 --tp 8   # one step of 8 devices: plan --tp 8 --pp 1's decode"
);
