"""Board power of serving steps the power model was not fitted on
(docs/validation.md, "The power model against the readings", third run):
fp8 forwards, a 70B model, an MHA model, prefill in fp8, each repeated back
to back from a CUDA graph long enough that the board settles. The forward
is validation/serving_fidelity.py's Model (random weights; fp8 weights with
a cast of the activations before each GEMM, bf16 norms, attention, KV cache
and LM head); the sampler and the timed loop are validation/common.py's.

    python3 validation/power_steps_h200.py OUTDIR     # about 5 minutes

Phases, each after 3 s of rest, a 6 s loop (power over it after 2 s of
settling):

- idle: 5 s;
- decode_<model>_<dtype>_b<B>: decode steps at context 1,024;
- prefill_<model>_<dtype>_s<S>: prefills of S tokens, batch 1.

Writes OUTDIR/power-steps.json: per phase the settled time per step, the
first calls one by one, mean power, SM clock and temperature, and every
nvidia-smi sample. Clocks and power limits are left as found.
"""

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import serving_fidelity as sf  # noqa: E402
from common import SETTLE, Sampler, graph_of, timed_loop  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "power-steps-out"
SECONDS = 6.0
T = 1024
PLAN = [
    ("llama-3-8b", "fp8", [1, 32, 128, 256], [2048]),
    ("llama-2-7b", "bf16", [1, 64], []),
    ("llama-3.1-70b", "fp8", [1, 32, 128], [2048]),
]


def log(msg):
    print(msg, flush=True)


def run(sampler, phases, name, body, **extra):
    time.sleep(3.0)
    g = graph_of(body)
    torch.cuda.synchronize()
    t0, t1, durs, settled = timed_loop(SECONDS, g.replay)
    w = sampler.window(t0 + SETTLE, t1)
    row = dict(phase=name, step_s=statistics.median(settled or durs),
               step_mean_s=statistics.fmean(settled or durs), calls=len(durs),
               first_calls_s=durs[:6], power_mean_w=w[0] if w else None,
               sm_clock_mean_mhz=w[1] if w else None, temperature_c=w[3] if w else None,
               window=[t0 + SETTLE, t1], **extra)
    phases.append(row)
    log(json.dumps({k: v for k, v in row.items() if k not in ("window", "first_calls_s")}))
    del g
    torch.cuda.empty_cache()


def main():
    os.makedirs(OUT, exist_ok=True)
    sampler = Sampler()
    torch.manual_seed(0)
    sf.probe_pad()
    phases = []
    time.sleep(1.0)
    t0 = time.time()
    time.sleep(5.0)
    w = sampler.window(t0 + 1.0, time.time())
    phases.append(dict(phase="idle", power_mean_w=w[0] if w else None))
    log(json.dumps(phases[-1]))
    for name, dtype, batches, prompts in PLAN:
        M = sf.Model(name, dtype)
        m = M.m
        for B in batches:
            kc, vc = sf.caches(M, B, T)
            tok = torch.randint(0, m["V"], (B,), device="cuda")
            pos = torch.tensor([T - 1], device="cuda")
            nxt = torch.empty(B, dtype=torch.long, device="cuda")

            def step(tok=tok, kc=kc, vc=vc, pos=pos, nxt=nxt):
                nxt.copy_(M.decode_step(tok, kc, vc, pos).argmax(-1))

            run(sampler, phases, f"decode_{name}_{dtype}_b{B}", step, model=name, dtype=dtype,
                batch=B, context=T)
            del kc, vc
            torch.cuda.empty_cache()
        for S in prompts:
            tok = torch.randint(0, m["V"], (1, S), device="cuda")
            run(sampler, phases, f"prefill_{name}_{dtype}_s{S}", lambda tok=tok: M.prefill(tok),
                model=name, dtype=dtype, batch=1, prompt=S)
        del M
        torch.cuda.empty_cache()
    sampler.stop()
    out = dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
               date_utc=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               settle_s=SETTLE, seconds_per_phase=SECONDS, phases=phases,
               samples=sampler.samples)
    with open(os.path.join(OUT, "power-steps.json"), "w") as f:
        json.dump(out, f, indent=1)
    log(f"wrote {OUT}/power-steps.json")


if __name__ == "__main__":
    main()
