//! `fleet`: the fewest devices that meet the SLOs, and the frontier. Its
//! flags are the declared inputs ([`roofline::query::declared::FLEET`]);
//! the parts are compared (one search each) unless `joint` is set, which
//! the query reads (the same rule for Python and scenarios).

super::declared::declared_args!(
    /// `fleet` flags.
    FleetArgs = roofline::query::declared::FLEET,
    "Examples:
  roofline fleet --model llama-3.1-70b --hw h200-sxm,b200 --rate 40/s --prompt 2048 --output 300 --slo-ttft 2s --slo-tpot 50ms
  roofline fleet --model llama-3.1-70b --hw h200-sxm,b200 --joint --rate 40/s --prompt 2048 --output 300 --slo-ttft 2s --slo-tpot 50ms
  roofline fleet --model llama-3-8b --hw h200-sxm --rate 100/s --prompt lognormal:1024,0.5 --output 200 --slo-ttft p50=300ms --slo-tpot 30ms
  roofline fleet --model llama-3-8b --hw h200-sxm --rate 20/s --prompt 1024 --output 200 --slo-ttft 2s --slo-tpot 30ms --objective cost --price 3.50/h --energy-price 0.12/kWh
  roofline fleet --model llama-3.1-70b --hw h200-sxm --rate 10/s --prompt 2048 --output 300 --slo-tpot 50ms --pareto --chart frontier.svg
  roofline fleet --model llama-3-8b --hw h200-sxm,a100-sxm-80gb --joint --rate 8/s --prompt 8000 --output 192 --slo-ttft 2s --slo-tpot 4ms --max-devices 16 --requests 300

Every verdict is simulated (simulate's engine, one replica at the rate / replicas).
Beside aggregated replicas it searches disaggregated prefill and decode pools (each
its own part, layout and replicas; the KV cache moved over the scale-out NICs).
Several parts (--hw a,b) are searched one by one and answered side by side;
--joint searches them together, so one deployment may mix them.
SLOs: a bare time is a p99 target; name the percentile as p50=500ms."
);
