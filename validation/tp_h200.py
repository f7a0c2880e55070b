"""Tensor-parallel (TP 2) decode steps and prefills of Llama-3-8B on two
H200s over NVLink, for docs/validation.md ("Tensor-parallel decode and
prefill"); results in h200-tp2.json (measured on H200, 2026-11-30,
PyTorch 2.11.0+cu130, NCCL with NVLink multicast off).

Random bf16 weights of the published shapes, split Megatron-style: each rank
holds heads/T query heads, kv_heads/T KV heads and their cache, ff/T of the
fused gate+up projection, the matching rows of the output and down
projections and vocab/T of the LM head; an NCCL all-reduce follows the
attention output and the MLP down projection (two per layer), and a max
all-reduce closes the LM head. The decode step is serving_h200.py's lean one
(F.rms_norm, one complex multiply for rotary), timed as a replayed CUDA graph
with the all-reduces captured (CUDA events, median of 30). Prefill runs
eagerly (median of 7). `allreduce` times one captured all-reduce of each
decode size (batch x 4096 x 2 B). The script is kept compact: it was sent
to the machine inside one command line.

Usage: NCCL_NVLS_ENABLE=0 torchrun --nproc_per_node=2 validation/tp_h200.py OUT.json
"""
import json,os,sys,torch as t,torch.distributed as d,torch.nn.functional as F
d.init_process_group("nccl");r=d.get_rank();T=d.get_world_size();t.cuda.set_device(r)
L,D,H,K,E,FF,V=32,4096,32,8,128,14336,128256;h,k,f=H//T,K//T,FF//T
b=dict(device="cuda",dtype=t.bfloat16);n=lambda*s:t.randn(*s,**b)*.02
emb=n(V,D);hd=n(V//T,D);one=t.ones(D,**b);fr=t.polar(t.ones(E//2,device="cuda"),t.zeros(E//2,device="cuda"))
Ls=[(n((h+2*k)*E,D),n(D,h*E),n(2*f,D),n(D,f)) for _ in range(L)]
R=lambda x:F.rms_norm(x,(D,),one,1e-5)
def ar(x):d.all_reduce(x);return x
def mlp(x,l):g,u=(R(x)@l[2].t()).chunk(2,-1);return x+ar((F.silu(g)*u)@l[3].t())
def head(x):m=(R(x)@hd.t()).max(-1).values.float();d.all_reduce(m,op=d.ReduceOp.MAX);return m
def dec(tok,kc,vc,p):
 B=tok.shape[0];x=emb[tok]
 for i,l in enumerate(Ls):
  q=R(x)@l[0].t();c=t.view_as_complex(q[:,:(h+k)*E].float().view(B,h+k,E//2,2))
  qq,kk=t.view_as_real(c*fr).flatten(-2).to(t.bfloat16).split([h,k],1)
  kc[i].index_copy_(2,p,kk.view(B,k,1,E));vc[i].index_copy_(2,p,q[:,(h+k)*E:].view(B,k,1,E))
  a=F.scaled_dot_product_attention(qq.view(B,h,1,E),kc[i],vc[i],enable_gqa=True)
  x=mlp(x+ar(a.reshape(B,h*E)@l[1].t()),l)
 return head(x)
def pre(tok):
 B,S=tok.shape;x=emb[tok]
 for l in Ls:
  q,kk,v=(R(x)@l[0].t()).split([h*E,k*E,k*E],-1);z=lambda y,m:y.view(B,S,m,E).transpose(1,2)
  a=F.scaled_dot_product_attention(z(q,h),z(kk,k),z(v,k),is_causal=True,enable_gqa=True)
  x=mlp(x+ar(a.transpose(1,2).reshape(B,S,h*E)@l[1].t()),l)
 return head(x[:,-1])
def tm(fn,n):
 s,e=t.cuda.Event(enable_timing=True),t.cuda.Event(enable_timing=True);o=[]
 for _ in range(n):d.barrier();s.record();fn();e.record();e.synchronize();o.append(s.elapsed_time(e)/1e3)
 return sorted(o)[n//2]
def gr(fn,n=30):
 st=t.cuda.Stream();st.wait_stream(t.cuda.current_stream())
 with t.cuda.stream(st):
  for _ in range(3):fn()
 t.cuda.current_stream().wait_stream(st);t.cuda.synchronize();g=t.cuda.CUDAGraph()
 with t.cuda.graph(g):fn()
 g.replay();t.cuda.synchronize();return tm(g.replay,n)
res=dict(tp=T,model="llama-3-8b",decode=[],prefill=[],allreduce=[])
for B,C in((1,1024),(8,1024),(32,1024),(32,4096),(64,2048),(128,1024)):
 kc=[t.zeros(B,k,C,E,**b) for _ in range(L)];vc=[t.zeros_like(x) for x in kc]
 tok=t.randint(0,V,(B,),device="cuda");p=t.tensor([C-1],device="cuda")
 res["decode"].append(dict(batch=B,context=C,graph_s=gr(lambda:dec(tok,kc,vc,p))))
 bu=t.zeros(B,D,**b);res["allreduce"].append(dict(bytes=B*D*2,graph_s=gr(lambda:d.all_reduce(bu),50)))
 del kc,vc;t.cuda.empty_cache()
for B,S in((1,2048),(4,2048),(1,8192)):
 tok=t.randint(0,V,(B,S),device="cuda");pre(tok);pre(tok);t.cuda.synchronize()
 res["prefill"].append(dict(batch=B,prompt=S,time_s=tm(lambda:pre(tok),7)))
if r==0:json.dump(res,open(sys.argv[1],"w"),indent=1);print(json.dumps(res))
d.destroy_process_group()
