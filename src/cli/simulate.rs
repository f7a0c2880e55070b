//! `simulate`: one serving deployment, request by request. Its flags are
//! the declared inputs ([`roofline::query::declared::SIMULATE`]).

super::declared::declared_args!(
    /// `simulate` flags.
    SimulateArgs = roofline::query::declared::SIMULATE,
    "Examples:
  roofline simulate --model llama-3-8b --hw h200-sxm --rate 12/s --prompt 2048 --output 256
  roofline simulate --model llama-3-8b --hw h200-sxm --rate 20/s --prompt lognormal:1024,0.4 --output uniform:100..500 --slo-ttft 2s --slo-tpot p50=30ms
  roofline simulate --model llama-3.1-70b --hw h200-sxm --tp 4 --concurrency 64 --prompt 1024 --output 300 --requests 2000
  roofline simulate --model llama-3-8b --hw h200-sxm --trace my-requests.csv --per-request --format csv
  roofline simulate --model llama-3-8b --hw h200-sxm --rate 30/s --prompt 2048 --output 256 --prefix-hit 50% --chart load.svg
  roofline simulate --model llama-3-8b --hw h200-sxm --rate 20/s --prompt 6000 --output 256 --prefill-dp 3 --dp 2 --slo-tpot 20ms

Arrivals: --rate (Poisson), --concurrency (closed loop) or --trace FILE (CSV with a
header naming arrival_s, prompt_tokens, output_tokens). Lengths: N, lognormal:MEAN,SIGMA
or uniform:A..B. SLOs: a bare time is a p99 target (2s); name the percentile as p50=500ms.
Disaggregated (any --prefill-* flag): prompts run on a prefill pool, their KV cache
crosses the scale-out fabric, and a decode pool runs decode-only steps."
);

impl SimulateArgs {
    /// Keeps the state over time, for `--chart` (the library's `timeline`
    /// field, which is no flag: the chart asks for it).
    pub fn keep_timeline(&mut self) {
        self.fields.insert("timeline".into(), true.into());
    }
}
