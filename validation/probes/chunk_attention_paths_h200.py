"""Attention of 2,048 (and 512) new tokens over a 16,384- (and 8,192-)
token cache, Llama-3-8B's heads (32 query, 8 KV, 128 dims), bf16, one layer,
by every path a hand-written chunked prefill might take: PyTorch's SDPA
with the lower-right causal bias, a boolean mask or an additive float
mask, each with GQA (enable_gqa) or the KV heads repeated, and attention
written out (scores materialised, softmax, values). CUDA events, median of
10 after 3 warm-ups; the profiler names each path's kernels. Asks whether
any path explains issue 38's hidden 2k-over-16k chunk, 51% slower than the
model (docs/validation.md, "Small models and single calls").

    python3 validation/probes/chunk_attention_paths_h200.py OUT.json
"""
import json, statistics, sys, torch, torch.nn.functional as F
torch.manual_seed(0)
bf=dict(device="cuda",dtype=torch.bfloat16)
h,kv,dh=32,8,128
res=[]
def ev(fn,reps=10):
    for _ in range(3): fn()
    torch.cuda.synchronize(); out=[]
    for _ in range(reps):
        s,e=torch.cuda.Event(enable_timing=True),torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize(); out.append(s.elapsed_time(e)*1e-3)
    return statistics.median(out)
from torch.nn.attention.bias import causal_lower_right
from torch.profiler import profile, ProfilerActivity
for q_len,T in ((2048,16384),(2048,8192),(512,16384)):
    S=T+q_len
    q=torch.randn(1,h,q_len,dh,**bf); k=torch.randn(1,kv,S,dh,**bf); v=torch.randn(1,kv,S,dh,**bf)
    kr=k.repeat_interleave(h//kv,1); vr=v.repeat_interleave(h//kv,1)
    i=torch.arange(q_len,device="cuda").view(-1,1); j=torch.arange(S,device="cuda").view(1,-1)
    bmask=(j<=i+T)
    fmask=torch.zeros(q_len,S,**bf).masked_fill(~bmask,float("-inf"))
    bias=causal_lower_right(q_len,S)
    variants={
     "bias_gqa": lambda: F.scaled_dot_product_attention(q,k,v,attn_mask=bias,enable_gqa=True),
     "bool_gqa": lambda: F.scaled_dot_product_attention(q,k,v,attn_mask=bmask,enable_gqa=True),
     "float_gqa": lambda: F.scaled_dot_product_attention(q,k,v,attn_mask=fmask,enable_gqa=True),
     "bias_repeat": lambda: F.scaled_dot_product_attention(q,kr,vr,attn_mask=bias),
     "bool_repeat": lambda: F.scaled_dot_product_attention(q,kr,vr,attn_mask=bmask),
     "float_repeat": lambda: F.scaled_dot_product_attention(q,kr,vr,attn_mask=fmask),
     "math_manual": lambda: (torch.softmax((q@kr.transpose(-1,-2))/dh**0.5+fmask,-1)@vr),

    }
    for name,fn in variants.items():
        if fn is None: continue
        try:
            t=ev(fn)
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                fn(); torch.cuda.synchronize()
            ks=sorted({e.name[:70] for e in prof.events() if e.device_type==torch.autograd.DeviceType.CUDA})
            row=dict(q=q_len,cached=T,variant=name,per_layer_s=t,step_32_layers_s=32*t,kernels=ks)
        except Exception as ex:
            row=dict(q=q_len,cached=T,variant=name,error=repr(ex)[:200])
        res.append(row); print(json.dumps(row),flush=True)
json.dump(res,open(sys.argv[1],"w"),indent=1)
