"""Where a Llama-3-8B prefill's time goes, by kernel class, at the idle
board's clock and at the power limit (docs/validation.md, "The power limit
over a step"); and causal attention of one layer alone in the layouts the
forward and the microbenchmarks use. The forward is
validation/serving_fidelity.py's Model; the sampler is
validation/common.py's.

    python3 validation/prefill_kernels_h200.py OUTDIR     # about 3 minutes

- prefill: for bf16 at S = 2,048, 8,192, 16,384 and fp8 at 2,048, one eager
  prefill under torch.profiler after 3 s of rest ("burst"), then one after
  4 s of back-to-back prefills ("limited"): each kernel's device time summed
  by class (GEMM, attention, other), with the SM clock and power the
  sampler read while it ran;
- attention: F.scaled_dot_product_attention causal over one layer (32
  query heads, 8 KV heads, head dim 128, batch 1) at S = 1k to 16k, with
  q, k, v as the forward makes them (views of [S, heads, 128] transposed)
  and contiguous, on the default backend and on the flash backend: the
  median of 10 calls timed by CUDA events after 2 s of rest, and the
  kernel's name.

Writes OUTDIR/prefill-kernels.json and OUTDIR/prefill-kernels-samples.csv.
"""

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import common as ph  # noqa: E402
import serving_fidelity as sf  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else "prefill-kernels-out"


def klass(name):
    n = name.lower()
    if "sdpa" in n or "flash" in n or "fmha" in n or "attention" in n:
        return "attention"
    if "nvjet" in n or "gemm" in n or "xmma" in n or "cutlass" in n or "splitk" in n:
        return "gemm"
    return "other"


def profiled(fn):
    torch.cuda.synchronize()
    t0 = time.time()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    t1 = time.time()
    by, names = {"gemm": 0.0, "attention": 0.0, "other": 0.0}, {}
    count = {"gemm": 0, "attention": 0, "other": 0}
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        c = klass(e.name)
        d = e.device_time * 1e-6
        by[c] += d
        count[c] += 1
        if c == "attention":
            names[e.name[:110]] = names.get(e.name[:110], 0) + 1
    return dict(t0=t0, t1=t1, seconds=by, kernels=count, attention_kernels=names)


def window(t0, t1):
    w = [x for x in ph.samples if t0 - 0.05 <= x[0] <= t1 + 0.05]
    pw = [float(x[2]) for x in w if x[2].replace(".", "").isdigit()]
    sm = [float(x[3]) for x in w if x[3].replace(".", "").isdigit()]
    return dict(samples=len(w), power_mean_w=statistics.fmean(pw) if pw else None,
                sm_clock_mean_mhz=statistics.fmean(sm) if sm else None)


def ev_median(fn, reps=10):
    out = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        out.append(s.elapsed_time(e) * 1e-3)
    return statistics.median(out)


def main():
    os.makedirs(OUT, exist_ok=True)
    proc = ph.sampler()
    sf.probe_pad()
    torch.manual_seed(0)
    res = dict(device=torch.cuda.get_device_name(), torch=torch.__version__, prefill=[],
               attention=[])
    h, kv, dh = 32, 8, 128
    bf = dict(device="cuda", dtype=torch.bfloat16)
    for S in (1024, 2048, 4096, 8192, 16384):
        for layout in ("forward", "contiguous"):
            if layout == "forward":
                qkv = torch.randn(S, (h + 2 * kv) * dh, **bf)
                q = qkv[:, : h * dh].view(1, S, h, dh).transpose(1, 2)
                k = qkv[:, h * dh:(h + kv) * dh].reshape(1, S, kv, dh).transpose(1, 2)
                v = qkv[:, (h + kv) * dh:].reshape(1, S, kv, dh).transpose(1, 2)
            else:
                q = torch.randn(1, h, S, dh, **bf)
                k = torch.randn(1, kv, S, dh, **bf)
                v = torch.randn(1, kv, S, dh, **bf)
            for backend in ("default", "flash"):
                def call():
                    return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)

                def run():
                    if backend == "flash":
                        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                            return call()
                    return call()

                try:
                    run()
                    torch.cuda.synchronize()
                    time.sleep(2.0)
                    t = ev_median(run)
                    p = profiled(run)
                    name = list(p["attention_kernels"])
                except Exception as e:  # noqa: BLE001
                    t, name = None, [repr(e)[:200]]
                flops = 4.0 * h * dh * S * S / 2
                res["attention"].append(dict(prompt=S, layout=layout, backend=backend, seconds=t,
                                             causal_flops=flops, kernel=name))
                print(f"attention S={S} {layout} {backend}: "
                      f"{t * 1e3 if t else float('nan'):.3f} ms "
                      f"{flops / t / 1e12 if t else float('nan'):.0f} TFLOP/s {name}", flush=True)
            del q, k, v
    torch.cuda.empty_cache()

    for dtype in ("bf16", "fp8"):
        M = sf.Model("llama-3-8b", dtype)
        for S in ((2048, 8192, 16384) if dtype == "bf16" else (2048,)):
            tok = torch.randint(0, M.m["V"], (1, S), device="cuda")
            M.prefill(tok)
            torch.cuda.synchronize()
            time.sleep(3.0)
            burst = profiled(lambda: M.prefill(tok))
            burst.update(window(burst["t0"], burst["t1"]))
            t0 = time.time()
            while time.time() - t0 < 4.0:
                M.prefill(tok)
            lim = profiled(lambda: M.prefill(tok))
            lim.update(window(lim["t0"], lim["t1"]))
            for r in (burst, lim):
                r.pop("t0")
                r.pop("t1")
            res["prefill"].append(dict(model="llama-3-8b", dtype=dtype, batch=1, prompt=S,
                                       burst=burst, limited=lim))
            print(f"prefill {dtype} S={S}: burst {burst['seconds']} at "
                  f"{burst['sm_clock_mean_mhz']} MHz; limited {lim['seconds']} at "
                  f"{lim['sm_clock_mean_mhz']} MHz, {lim['power_mean_w']} W; "
                  f"{list(lim['attention_kernels'])[:2]}", flush=True)
        del M
        torch.cuda.empty_cache()
    proc.terminate()
    with open(os.path.join(OUT, "prefill-kernels-samples.csv"), "w") as f:
        f.write("host_time_s,smi_timestamp,power_w,sm_clock_mhz,mem_clock_mhz,temperature_c,util_pct\n")
        for smp in ph.samples:
            f.write(f"{smp[0]:.3f}," + ",".join(smp[1:]) + "\n")
    with open(os.path.join(OUT, "prefill-kernels.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
