# Generated content DO NOT EDIT: python/tools/stubgen.py writes it from
# the native module's signatures and its Rust /// docstrings.

from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

Quantity = Union[int, float, str]
"""A number in base units (seconds, bytes, FLOP/s) or text with a unit ("4.8 TB/s")."""
Field = Union[Quantity, bool, Sequence[Quantity]]
"""A field's value; a sequence of values is an axis of a sweep."""
HardwareLike = Union[str, "Hardware", Sequence[Union[str, "Hardware"]]]
ModelLike = Union[str, "Model", Sequence[Union[str, "Model"]]]
Edits = Union[Mapping[str, Quantity], Sequence[str]]

__version__: str

class Report:
    """
    A command's answer.

    `.results` and `.inputs` are dicts keyed as the CLI's `--format json`
    is, in base units (seconds, bytes, FLOP/s); `.notes` the verdicts and
    assumptions; `.rows` a sweep's or comparison's points. In Jupyter it
    shows as the table the terminal prints.
    """
    def __getitem__(self, key: str) -> Any:
        """
        Return self[key].
        """
    def __repr__(self) -> str:
        """
        Return repr(self).
        """
    def _repr_html_(self) -> str:
        ...
    @property
    def axes(self) -> List[str]:
        """
        The inputs that vary across `rows`, outermost first.
        """
    def chart(self, y: Optional[Sequence[str]] = None) -> Chart:
        """
        The results of a sweep drawn against its swept input.

        Args:
            y: the result keys to draw (default: the command's headline result).

        Returns:
            Chart: shown as SVG in a notebook; `.save(path)` writes .svg or .png.
        """
    @property
    def command(self) -> str:
        """
        The command that answered (`decode`, `hw show`).
        """
    def explain(self) -> str:
        """
        Each result's derivation with the numbers substituted, as the
        CLI's `--explain` prints it (one per point for a sweep).
        """
    @property
    def hardware(self) -> Optional[str]:
        """
        The hardware id, where one was used.
        """
    @property
    def inputs(self) -> Dict[str, Any]:
        """
        The inputs as resolved, in base units (defaults filled in).
        """
    def markdown(self, all: bool = False) -> str:
        """
        The table as Markdown, for docs and issues.

        Args:
            all: every intermediate result, not only the answer and what decides it.
        """
    @property
    def model(self) -> Optional[str]:
        """
        The model id, where one was used.
        """
    @property
    def notes(self) -> List[str]:
        """
        Verdicts and assumptions, as the table's notes.
        """
    @property
    def quantities(self) -> Dict[str, Dict[str, Any]]:
        """
        What each result means: label, unit and source.
        """
    @property
    def results(self) -> Dict[str, Any]:
        """
        The answers in base units, keyed as the JSON report is.
        """
    @property
    def rows(self) -> List[Dict[str, Dict[str, Any]]]:
        """
        A sweep's points, a comparison's items or a table inside the
        answer: a list of {"inputs": {...}, "results": {...}}.
        """
    def table(self, all: bool = False) -> str:
        """
        The table the terminal prints.

        Args:
            all: every intermediate result, not only the answer and what decides it.
        """
    def to_dict(self) -> Dict[str, Any]:
        """
        The whole report as a dict: `json.loads` of the CLI's `--format json`.
        """
    def to_json(self) -> str:
        """
        The report as the CLI's `--format json` prints it.
        """

class Chart:
    """
    A chart: SVG in a notebook, a file with `.save(path)`.
    """
    def _repr_svg_(self) -> str:
        ...
    def save(self, path: str) -> None:
        """
        Writes the chart to a file ending in .svg or .png.

        Args:
            path: where to write it; the extension picks the format.
        """
    def svg(self) -> str:
        """
        The chart as SVG text.
        """

class Hardware:
    """
    One accelerator: a catalog id or a path to a TOML file, with edits.

    Made by `roofline.hardware(ID_OR_PATH)`; `.set({...})` returns an
    edited copy. Pass it wherever a command takes `hw`.
    """
    def __repr__(self) -> str:
        """
        Return repr(self).
        """
    @property
    def edits(self) -> List[str]:
        """
        The edits, as `path=value` texts (the CLI's `--set`).
        """
    @property
    def id(self) -> str:
        """
        The id or path it was loaded by.
        """
    def set(self, changes: Edits) -> Hardware:
        """
        An edited copy: fields of the hardware file by their kebab-case
        path, values with units.

        Args:
            changes: {"memory.hbm-bandwidth": "5 TB/s"}, or a list of "path=value".

        Returns:
            Hardware: the copy; this one is unchanged.

        Raises:
            DataError: a path the file has no field for, or a value that does not validate.
        """
    def show(self, **kwargs: Any) -> Report:
        """
        Its numbers and derived figures: `hw_show(hw=self, ...)`.
        """

class Model:
    """
    One model: a catalog id, a TOML file or a Hugging Face config.json,
    with edits.

    Made by `roofline.model(ID_OR_PATH)`; `.set({...})` returns an edited
    copy. Pass it wherever a command takes `model`.
    """
    def __repr__(self) -> str:
        """
        Return repr(self).
        """
    @property
    def edits(self) -> List[str]:
        """
        The edits, as `path=value` texts (the CLI's `--set`).
        """
    @property
    def id(self) -> str:
        """
        The id or path it was loaded by.
        """
    def set(self, changes: Edits) -> Model:
        """
        An edited copy: fields of the model file by their kebab-case path.

        Args:
            changes: {"layers": 16}, {"attention.kv-heads": 2}, or a list of "path=value".

        Returns:
            Model: the copy; this one is unchanged.

        Raises:
            DataError: a path the file has no field for, or a value that does not validate.
        """
    def show(self, **kwargs: Any) -> Report:
        """
        Its parameters, weight bytes and KV bytes per token: `model_show(model=self, ...)`.
        """

class RooflineError(ValueError):
    """
    Every error roofline raises: a value that does not validate, a question with no answer, inputs missing or clashing, a file that cannot be read.
    """
    exit_code: int
    field: Optional[str]

class DataError(RooflineError):
    """
    A file or value that does not validate: a wrong unit, a value out of range, an unknown id or field (the CLI's exit code 65).
    """

class NoAnswerError(RooflineError):
    """
    A well-formed question with no answer, such as a model that fits on no layout (the CLI's exit code 1).
    """

class UsageError(RooflineError):
    """
    Inputs missing or given together where the command needs one or the other (the CLI's exit code 2).
    """

class FileError(RooflineError):
    """
    A hardware or model file that cannot be read (the CLI's exit code 74).
    """

def coalesce(*, hw: Optional[HardwareLike] = None, dtype: Optional[Union[str, Sequence[str]]] = None, stride: Optional[Field] = None, offset: Optional[Field] = None, granularity: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    Bytes moved for bytes used by one warp's strided load, at a segment, sector or DRAM-fetch granularity.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
        dtype: Element type (default: the hardware's default-dtype).
        stride: Distance between adjacent lanes' elements, in elements (1 = contiguous; the default).
        offset: Byte offset of lane 0's element from an aligned boundary (default 0).
        granularity: The unit memory moves in: segment (128 B), sector (32 B) or dram (the file's memory.dram-fetch). Default: dram where known, else sector.
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def collective(kind: Optional[Field] = None, *, hw: Optional[HardwareLike] = None, devices: Optional[Field] = None, bytes: Optional[Field] = None, latency: Optional[Field] = None, launch: Optional[Field] = None, engine: Optional[Field] = None, measured: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    One collective over N devices on the fabric tiers: bus bytes, bandwidth and latency terms, time, algorithm.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        kind: all-reduce, all-gather, reduce-scatter, all-to-all or send-recv.
        hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
        devices: Devices taking part.
        bytes: Each rank's input buffer as NCCL counts it (e.g. 1GiB): for all-gather the piece each rank contributes, for reduce-scatter the whole vector.
        latency: A fixed latency per phase (e.g. 20us), replacing the default (the file's hop latency at speed of light; NCCL's measured 18.5 us per call with achievable).
        launch: With achievable: how the collective is called, none, graph (18.5 us per call on the H200 pair) or eager (44 us) [default: eager].
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def decode(*, measured: Optional[Field] = None, model: Optional[ModelLike] = None, hw: Optional[HardwareLike] = None, engine: Optional[Field] = None, batch: Optional[Field] = None, context: Optional[Field] = None, dtype: Optional[Union[str, Sequence[str]]] = None, kv_dtype: Optional[Field] = None, activations: Optional[Field] = None, launch: Optional[Field] = None, kernels: Optional[Field] = None, speculative: Optional[Field] = None, acceptance: Optional[Field] = None, draft_tokens: Optional[Field] = None, draft_cost: Optional[Field] = None, slo_tpot: Optional[Field] = None, slo_ttft: Optional[Field] = None, prompt: Optional[Field] = None, output: Optional[Field] = None, reserve: Optional[Field] = None, force: Optional[Field] = None, tp: Optional[Field] = None, price: Optional[Field] = None, energy_price: Optional[Field] = None, pue: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    One decode step: bytes, FLOPs, bound, step time, tokens per second; MoE, launch overhead, speculative decoding, SLO capacity.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        measured: A measured time (e.g. 1.2ms): the achieved rates and their shares of the roofs (mfu, mbu).
        model: Model id, path or roofline.Model; a list compares.
        hw: Hardware id, path or roofline.Hardware; a list compares.
        engine: Serving engine id or path to a .toml file (default pytorch): which kernels a step runs (`roofline engine list`).
        batch: Sequences decoded together.
        context: Tokens already in each sequence's KV cache.
        dtype: Weight precision (default: the hardware's default-dtype): bf16, fp8, int8, int4, mxfp8, mxfp6, mxfp4, nvfp4, ...
        kv_dtype: KV precision: bf16 (default), fp16, fp8, int8, int4, int2, fp32.
        activations: Activation precision (default: the hardware's default-dtype); the matmuls run at the peak of the wider of weights and activations.
        launch: Launch overhead per kernel: none (default: speed of light), eager or graph (the default with achievable).
        kernels: Kernels per step (default: from the layer structure).
        speculative: Speculative decoding in one field: ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST] (e.g. 0.8,4,0.05), the same as acceptance, draft_tokens and draft_cost.
        acceptance: Speculative decoding: probability a drafted token is accepted.
        draft_tokens: Speculative decoding: tokens drafted per pass (default 4).
        draft_cost: Speculative decoding: a drafted token's cost as a share of a step.
        slo_tpot: Time-per-output-token target: the largest batch meeting it (20ms; p99=20ms is accepted as in simulate: a step has one time).
        slo_ttft: Time-to-first-token target, for goodput (needs prompt, output; a time, or PERCENTILE=TIME as in simulate).
        prompt: Prompt tokens per request, for goodput with prefill in the loop.
        output: Output tokens per request, for goodput.
        reserve: Memory held back for activations and the runtime (default 10%).
        force: Allow a context beyond the model's maximum.
        tp: Tensor-parallel ranks the step runs on: each device holds 1/tp of the sharded weights and ceil(kv heads / tp) of the KV heads, with two all-reduces per layer, priced as plan(tp=N, pp=1) (default 1).
        price: Price of one device for an hour: "2.50/h" (also /min, /s); gives cost per million tokens, in your currency.
        energy_price: Price of energy: "0.10/kWh" (also /MWh, /Wh); adds the energy bill to the cost and reports its share.
        pue: Power usage effectiveness, at least 1 (default 1): scales the energy bill only.
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def fleet(*, model: Optional[ModelLike] = None, hw: Optional[HardwareLike] = None, joint: Optional[Field] = None, rate: Optional[Field] = None, prompt: Optional[Field] = None, output: Optional[Field] = None, prefix_hit: Optional[Field] = None, slo_ttft: Optional[Field] = None, slo_tpot: Optional[Field] = None, seed: Optional[Field] = None, block_size: Optional[Field] = None, redundant_experts: Optional[Field] = None, speculative: Optional[Field] = None, force: Optional[Field] = None, engine: Optional[Field] = None, dtype: Optional[Union[str, Sequence[str]]] = None, kv_dtype: Optional[Field] = None, activations: Optional[Field] = None, launch: Optional[Field] = None, reserve: Optional[Field] = None, requests: Optional[Field] = None, max_devices: Optional[Field] = None, caps: Optional[Field] = None, budgets: Optional[Field] = None, objective: Optional[Field] = None, pareto: Optional[Field] = None, price: Optional[Field] = None, energy_price: Optional[Field] = None, pue: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    The fewest devices that serve a request rate within TTFT and TPOT targets: layouts, batch caps and parts searched by simulation; pareto=True traces tokens/s per device against tokens/s per user.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        model: Model id, path or roofline.Model.
        hw: Hardware ids, paths or roofline.Hardware, as a list or comma-separated: each part's own search, side by side (joint=True searches them together).
        joint: Search the listed parts together: one deployment may mix them (a prefill pool of one part, a decode pool of another).
        rate: Poisson arrivals: requests per second (12/s, 720/min).
        prompt: Prompt tokens: N, lognormal:MEAN,SIGMA or uniform:A..B.
        output: Output tokens: N, lognormal:MEAN,SIGMA or uniform:A..B.
        prefix_hit: Share of each prompt already in the prefix cache (50% or 0.5).
        slo_ttft: Time-to-first-token target: 2s (p99) or p50=500ms.
        slo_tpot: Time-per-output-token target: 50ms (p99) or p90=40ms.
        seed: Seed of the random stream (default 0).
        block_size: Tokens per KV block (default 16, vLLM's block_size).
        redundant_experts: Redundant copies of hot experts over each expert group (default 0), as plan takes them.
        speculative: Speculative decoding (MTP, EAGLE) on every decode step: "ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST]" ("0.8,3,0.05"), as decode's speculative takes it.
        force: Allow requests beyond the model's maximum context.
        engine: Serving engine id or path (default vllm; pytorch for the plain forward): the kernels each step runs and its all-reduce (`roofline engine list`).
        dtype: Weight precision (default: the hardware's default-dtype).
        kv_dtype: KV-cache precision (default bf16).
        activations: Activation precision (default: the hardware's default-dtype); fp8 weights need fp8 activations to run at the fp8 peak.
        launch: Launch overhead per kernel: none (the default: speed of light), eager or graph (the default with achievable).
        reserve: Memory held back for activations and the runtime: a share (default 10%), or step: the runtime's measured footprint and the largest iteration's activations and logits (step:TOKENS,SEQS names it).
        requests: Requests each simulated verdict runs (default 1,000).
        max_devices: The most devices a deployment may take (default 1,024).
        caps: Batch caps searched (default 16,32,64,128,256).
        budgets: Token budgets searched (default 2,048 + the cap).
        objective: What to minimise: devices (the default), energy (per output token) or cost (per million output tokens; needs price and/or energy_price).
        pareto: Print the frontier of tokens/s per device against tokens/s per user (draw it with chart).
        price: Price of one device for an hour: "2.50/h" (also /min, /s); gives cost per million tokens, in your currency.
        energy_price: Price of energy: "0.10/kWh" (also /MWh, /Wh); adds the energy bill to the cost and reports its share.
        pue: Power usage effectiveness, at least 1 (default 1): scales the energy bill only.
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def fusion_chain(*, ops: Optional[Field] = None, elements: Optional[Field] = None, inputs: Optional[Field] = None, flops_per_op: Optional[Field] = None, hw: Optional[HardwareLike] = None, dtype: Optional[Union[str, Sequence[str]]] = None, overhead: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    A chain of elementwise kernels against one fused kernel.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        ops: Elementwise kernels in the chain.
        elements: Elements of each tensor.
        inputs: Tensors each kernel reads, the first being the previous output (default 1).
        flops_per_op: FLOPs per element per kernel (default 1).
        hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several (default: h100-sxm, the lecture's reference part).
        dtype: Precision of the tensors (default: the hardware's).
        overhead: Launch overhead per kernel, added to both sides, e.g. "5 us".
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def fusion_epilogue(*, tokens: Optional[Field] = None, width: Optional[Field] = None, layers: Optional[Field] = None, ops_per_element: Optional[Field] = None, hw: Optional[HardwareLike] = None, dtype: Optional[Union[str, Sequence[str]]] = None, overhead: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    An activation grafted onto a GEMM's epilogue against a separate kernel.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        tokens: Tokens (rows of the GEMM output).
        width: Width of the GEMM output (d_ff for an up-projection).
        layers: Layers, for the total (default 1).
        ops_per_element: Activation operations per element (default 1).
        hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several (default: h100-sxm, the lecture's reference part).
        dtype: Precision of the tensors (default: the hardware's).
        overhead: Launch overhead per kernel, added to both sides, e.g. "5 us".
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def fusion_softmax(*, rows: Optional[Field] = None, cols: Optional[Field] = None, ops_per_element: Optional[Field] = None, hw: Optional[HardwareLike] = None, dtype: Optional[Union[str, Sequence[str]]] = None, overhead: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    Safe softmax: three kernels (5 traversals) against one fused kernel (2).

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        rows: Rows of the matrix (S for an S x S score matrix).
        cols: Columns (the softmax runs along a row).
        ops_per_element: Operations per element (default 5: max, subtract, exp, sum, divide).
        hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several (default: h100-sxm, the lecture's reference part).
        dtype: Precision of the tensors (default: the hardware's).
        overhead: Launch overhead per kernel, added to both sides, e.g. "5 us".
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def hardware(what: str) -> Hardware:
    """
    Loads a hardware file by catalog id (see `hardware_ids()`) or path.

    Args:
        what: A catalog id such as "h200-sxm", or a path to a .toml file.

    Returns:
        Hardware: pass it as `hw=`; `.set({...})` edits a copy.

    Raises:
        DataError: the id is unknown (the message names the nearest) or the file does not validate.
        FileError: the path cannot be read.
    """

def hardware_ids() -> List[str]:
    """
    The ids of the built-in hardware catalog.

    Returns:
        list[str]: ids such as "h100-sxm", each usable as `hw=`.
    """

def hw_list(*, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    The hardware catalog: one row per accelerator with its headline figures.

    Args:
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits applied to every file they validate for (the CLI's --set).

    Returns:
        Report: `.rows` holds one entry per accelerator.
    """

def hw_show(hw: Optional[HardwareLike] = None, *, dtype: Optional[Union[str, Sequence[str]]] = None, clock: Optional[Field] = None, sparse: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    One accelerator's numbers and derived figures: peaks, ridge point, per-SM and per-cycle figures.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
        dtype: Precision for the headline peak and ridge point (default: the file's default-dtype).
        clock: Clock for per-cycle figures (default: the file's boost clock).
        sparse: Use the 2:4 structured-sparsity peak (an error where the file has none at the precision).
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def kv(*, model: Optional[ModelLike] = None, context: Optional[Field] = None, batch: Optional[Field] = None, kv_dtype: Optional[Field] = None, hw: Optional[HardwareLike] = None, dtype: Optional[Union[str, Sequence[str]]] = None, reserve: Optional[Field] = None, page: Optional[Field] = None, reserved: Optional[Field] = None, force: Optional[Field] = None, tp: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    KV-cache bytes per token, layer, sequence and batch; with hw, the batch and context that fit beside the weights.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        model: Model id, path or roofline.Model; a list compares.
        context: Tokens per sequence.
        batch: Sequences (default 1).
        kv_dtype: KV precision: fp32, bf16 (default), fp16, fp8, int8, int4, int2 (integers with KIVI's fp16 scale and zero point per 32 elements).
        hw: Hardware to fit on: max batch and max context beside the weights.
        dtype: Weight precision for the fit (default: the hardware's default-dtype).
        reserve: Memory held back for activations and the runtime (default 10%).
        page: Tokens per KV page: the waste of the last partly filled page.
        reserved: Tokens a contiguous allocator reserves per sequence: its waste.
        force: Allow a context beyond the model's maximum.
        tp: Tensor-parallel ranks to split the model over for the fit: each device holds 1/tp of the sharded weights and ceil(kv heads / tp) of the KV heads (default 1).
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def launch(*, hw: Optional[HardwareLike] = None, kernels: Optional[Field] = None, kernels_per_layer: Optional[Field] = None, layers: Optional[Field] = None, extra_kernels: Optional[Field] = None, overhead: Optional[Field] = None, sync_overhead: Optional[Field] = None, graph_overhead: Optional[Field] = None, kernel_time: Optional[Field] = None, measured: Optional[Field] = None, measured_sync: Optional[Field] = None, measured_graph: Optional[Field] = None, floor: Optional[Field] = None, fused_kernels: Optional[Field] = None, fuse_factor: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    Launch overhead per step, eager against CUDA graphs, and what fusing to fewer kernels saves.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        hw: Hardware whose launch figures to use (id, path, or a list).
        kernels: Kernels launched per step.
        kernels_per_layer: Kernels per layer (with layers) instead of kernels.
        layers: Layers (with kernels_per_layer).
        extra_kernels: Kernels outside the layers: final norm, LM head, sampling (with kernels_per_layer; default 0).
        overhead: Eager overhead per kernel, e.g. "5 us".
        sync_overhead: Overhead per kernel when each launch is synchronised.
        graph_overhead: Overhead per kernel replayed from a CUDA graph.
        kernel_time: The kernel's own execution time, subtracted from measured*.
        measured: Measured time per kernel, eager, execution included.
        measured_sync: Measured time per kernel, synchronised, execution included.
        measured_graph: Measured time per kernel as a CUDA graph, execution included.
        floor: The step's time without launches (e.g. the weight-read floor; default 0).
        fused_kernels: Kernels after fusion.
        fuse_factor: Fusion cuts the kernel count by this factor (rounded).
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def littles_law(*, hw: Optional[HardwareLike] = None, latency: Optional[Field] = None, clock: Optional[Field] = None, transaction: Optional[Field] = None, warps: Optional[Field] = None, pointer: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    Little's law: bytes and loads in flight to saturate memory, per SM against the warp budget; the pointer-chase corollary.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
        latency: Load latency, in cycles ("500 cycles"; a bare number is cycles) or as a time ("350 ns") (default: the file's DRAM latency).
        clock: Clock that converts cycles to time (default: the file's boost clock).
        transaction: Bytes per load (default: the file's segment, 128 B).
        warps: Resident warps per SM sharing the loads (default: the warp budget).
        pointer: Bytes per dependent load in the pointer chase (default 8 B).
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def matmul(*, hw: Optional[HardwareLike] = None, m: Optional[Field] = None, n: Optional[Field] = None, k: Optional[Field] = None, tile: Optional[Field] = None, tile_m: Optional[Field] = None, tile_n: Optional[Field] = None, tile_k: Optional[Field] = None, stages: Optional[Field] = None, dtype: Optional[Union[str, Sequence[str]]] = None, programs_per_sm: Optional[Field] = None, threads: Optional[Field] = None, mma: Optional[Field] = None, tiles: Optional[Field] = None, solve: Optional[Field] = None, launch: Optional[Field] = None, price: Optional[Field] = None, energy_price: Optional[Field] = None, pue: Optional[Field] = None, measured: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    Naive and tiled matmul: traffic, intensity, time, tile feasibility, waves, tensor-core row utilisation.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several (default: h100-sxm, the lecture's reference part).
        m: Rows of A and C (tokens in a linear layer); required unless solve.
        n: Columns of B and C; required unless solve.
        k: The contraction dimension; required unless solve.
        tile: Square tile: sets tile_m and tile_n [default: 128].
        tile_m: Tile rows (BLOCK_M); overrides tile.
        tile_n: Tile columns (BLOCK_N); overrides tile.
        tile_k: K chunk per loop step (BLOCK_K); must divide K [default: 64, halved until it divides K].
        stages: Shared-memory pipeline stages (2 = double buffering) [default: 2].
        dtype: Precision of A and B (default: the hardware's).
        programs_per_sm: Programs resident per SM, for waves [default: 1].
        threads: Threads per program, for the register micro-tile [default: 256].
        mma: Tensor-core instruction shape for row utilisation: m16n8k16, m64nNk16 (wgmma), m64n256k16, ...
        tiles: Square tiles for the table rows, comma-separated, or `none` (then format csv prints the results instead of the table) [default: 32,64,128,256].
        solve: Solve instead of costing a shape: "ridge", the n at which a square n x n x n matmul (minimal traffic) reaches the part's ridge at dtype; takes no shape.
        launch: With achievable: the launch, none, graph or eager [default: eager, one call from Python].
        price: Price of one device for an hour: "2.50/h" (also /min, /s); gives cost per million tokens, in your currency.
        energy_price: Price of energy: "0.10/kWh" (also /MWh, /Wh); adds the energy bill to the cost and reports its share.
        pue: Power usage effectiveness, at least 1 (default 1): scales the energy bill only.
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def model(what: str) -> Model:
    """
    Loads a model by catalog id (see `model_ids()`), a .toml file or a
    Hugging Face config.json.

    Args:
        what: A catalog id such as "llama-3-8b", or a path.

    Returns:
        Model: pass it as `model=`; `.set({...})` edits a copy.

    Raises:
        DataError: the id is unknown or the file does not validate.
        FileError: the path cannot be read.
    """

def model_ids() -> List[str]:
    """
    The ids of the built-in model catalog.

    Returns:
        list[str]: ids such as "llama-3-8b", each usable as `model=`.
    """

def model_list(*, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    The model catalog: one row per model with its parameters and KV size.

    Args:
        achievable: Not used by the model list.
        set: What-if edits applied to every file they validate for (the CLI's --set).

    Returns:
        Report: `.rows` holds one entry per model.
    """

def model_show(model: Optional[ModelLike] = None, *, dtype: Optional[Union[str, Sequence[str]]] = None, kv_dtype: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    A model's parameters, weight bytes and KV bytes per token.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        model: Catalog id, a model .toml, or a Hugging Face config.json; a list compares several.
        dtype: Weight precision (default bf16).
        kv_dtype: KV-cache precision, as for `kv`: fp32, bf16 (default), fp16, fp8, int8, int4, int2.
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def occupancy(*, hw: Optional[HardwareLike] = None, threads: Optional[Field] = None, regs: Optional[Field] = None, sgprs: Optional[Field] = None, smem: Optional[Field] = None, static_smem: Optional[Field] = None, carveout: Optional[Field] = None, textbook: Optional[Field] = None, grid: Optional[Field] = None, solve: Optional[Field] = None, target_occupancy: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    Resident blocks per SM under each limit, the binding one, and occupancy (NVIDIA's occupancy-calculator rules; textbook=True for the lecture's simplified arithmetic).

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
        threads: Threads per block.
        regs: Registers per thread (on AMD parts: VGPRs per lane, arch and AGPRs together).
        sgprs: Scalar registers per wave, as the compiler reports them (AMD parts only; without it SGPRs do not limit).
        smem: Dynamic shared memory per block (e.g. 32KiB; a bare number is bytes; default 0).
        static_smem: Static shared memory per block (default 0).
        carveout: Preferred shared-memory carveout per SM (e.g. 100KiB); rounded up to one the SM supports (default: the largest).
        textbook: The lecture's simplified arithmetic: no allocation granularity, no reserved shared memory.
        grid: Blocks in the grid: how many SMs the launch keeps busy and how full.
        solve: Solve for the most of one resource that still reaches target_occupancy: registers (per thread), threads (per block) or smem (dynamic, per block).
        target_occupancy: The occupancy to reach (40% or 0.4; default 100% with solve); alone, the warps per SM it takes.
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def plan(*, model: Optional[ModelLike] = None, hw: Optional[HardwareLike] = None, devices: Optional[Field] = None, tp: Optional[Field] = None, pp: Optional[Field] = None, dp: Optional[Field] = None, ep: Optional[Field] = None, redundant_experts: Optional[Field] = None, batch: Optional[Field] = None, context: Optional[Field] = None, prompt: Optional[Field] = None, microbatches: Optional[Field] = None, engine: Optional[Field] = None, dtype: Optional[Union[str, Sequence[str]]] = None, kv_dtype: Optional[Field] = None, activations: Optional[Field] = None, launch: Optional[Field] = None, reserve: Optional[Field] = None, allow_cross_node: Optional[Field] = None, search: Optional[Field] = None, objective: Optional[Field] = None, slo_ttft: Optional[Field] = None, slo_tpot: Optional[Field] = None, disaggregate: Optional[Field] = None, prefill_devices: Optional[Field] = None, decode_devices: Optional[Field] = None, price: Optional[Field] = None, energy_price: Optional[Field] = None, pue: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    A parallel layout (TP, PP, DP, EP) of a model: memory per device, communication, prefill and decode times; search=True ranks every valid layout; disaggregate=True sizes prefill and decode pools.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        model: Model id, path or roofline.Model.
        hw: Hardware id, path or roofline.Hardware; a list compares several.
        devices: Devices in all (tp x pp x dp); required with search.
        tp: Tensor-parallel degree (default 1).
        pp: Pipeline stages (default 1).
        dp: Data-parallel replicas (default: devices / (tp x pp)).
        ep: Expert-parallel degree of the MoE layers; divides tp x dp (default 1).
        redundant_experts: Redundant copies of hot experts over the expert group (default 0).
        batch: Sequences in flight per data-parallel replica (default 1).
        context: Context tokens per sequence at the decode step (default 4096).
        prompt: Prompt tokens per sequence for prefill (default 1024).
        microbatches: Pipeline microbatches (default: pp).
        engine: Serving engine id or path (default vllm; pytorch for the plain forward): the kernels each step runs and its all-reduce (`roofline engine list`).
        dtype: Weight precision (default: the hardware's default-dtype).
        kv_dtype: KV-cache precision (default bf16).
        activations: Activation precision (default: the hardware's default-dtype); fp8 weights need fp8 activations to run at the fp8 peak.
        launch: Launch overhead per kernel: none (the default: speed of light), eager or graph (the default with achievable).
        reserve: Memory held back for activations and the runtime: a share (default 10%), or step: the runtime's measured footprint and the largest iteration's activations and logits (step:TOKENS,SEQS names it).
        allow_cross_node: Let tensor parallelism cross the scale-up domain.
        search: Enumerate every valid layout of devices and rank them.
        objective: What search ranks by: latency, throughput or goodput (default throughput).
        slo_ttft: Time-to-first-token target for goodput (e.g. 500ms; p99=500ms is accepted as in simulate: a step has one time).
        slo_tpot: Time-per-output-token target for goodput (e.g. 50ms, or p99=50ms).
        disaggregate: Lay out separate prefill and decode pools.
        prefill_devices: Devices of the prefill pool.
        decode_devices: Devices of the decode pool.
        price: Price of one device for an hour: "2.50/h" (also /min, /s); gives cost per million tokens, in your currency.
        energy_price: Price of energy: "0.10/kWh" (also /MWh, /Wh); adds the energy bill to the cost and reports its share.
        pue: Power usage effectiveness, at least 1 (default 1): scales the energy bill only.
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def point(*, hw: Optional[HardwareLike] = None, intensity: Optional[Field] = None, flops: Optional[Field] = None, bytes: Optional[Field] = None, dtype: Optional[Union[str, Sequence[str]]] = None, sparse: Optional[Field] = None, price: Optional[Field] = None, energy_price: Optional[Field] = None, pue: Optional[Field] = None, measured: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    Where a kernel sits on the roofline: ridge point, attainable throughput, bound and time.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        hw: Catalog id, path to a .toml file, or roofline.Hardware; a list compares several.
        intensity: Arithmetic intensity in FLOP per byte (or give flops and bytes).
        flops: Total FLOPs (e.g. 137.4TFLOP, or a bare count); needs bytes.
        bytes: Bytes moved to and from device memory (e.g. 100MB); needs flops.
        dtype: Precision (default: the hardware's default-dtype).
        sparse: Use the 2:4 structured-sparsity peak (an error where the file has none at the precision).
        price: Price of one device for an hour: "2.50/h" (also /min, /s); gives cost per million tokens, in your currency.
        energy_price: Price of energy: "0.10/kWh" (also /MWh, /Wh); adds the energy bill to the cost and reports its share.
        pue: Power usage effectiveness, at least 1 (default 1): scales the energy bill only.
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def prefill(*, measured: Optional[Field] = None, model: Optional[ModelLike] = None, hw: Optional[HardwareLike] = None, engine: Optional[Field] = None, prompt: Optional[Field] = None, batch: Optional[Field] = None, chunk: Optional[Field] = None, context: Optional[Field] = None, dtype: Optional[Union[str, Sequence[str]]] = None, kv_dtype: Optional[Field] = None, activations: Optional[Field] = None, launch: Optional[Field] = None, kernels: Optional[Field] = None, force: Optional[Field] = None, price: Optional[Field] = None, energy_price: Optional[Field] = None, pue: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    A prompt's prefill: FLOPs, bytes, bound, time to first token; chunked, and against materialised attention scores.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        measured: A measured time (e.g. 1.2ms): the achieved rates and their shares of the roofs (mfu, mbu).
        model: Model id, path or roofline.Model; a list compares.
        hw: Hardware id, path or roofline.Hardware; a list compares.
        engine: Serving engine id or path to a .toml file (default pytorch): which kernels a step runs (`roofline engine list`).
        prompt: Prompt tokens per sequence.
        batch: Sequences (default 1).
        chunk: Tokens per chunk (chunked prefill; default: the whole prompt).
        context: Tokens already cached per sequence before the prompt (a prefix-cache hit, a chunk continuing a long prompt, a speculative verify pass): attention reads them (default 0).
        dtype: Weight precision (default: the hardware's default-dtype).
        kv_dtype: KV precision (default bf16).
        activations: Activation precision (default: the hardware's default-dtype).
        launch: Launch overhead per kernel: none (default: speed of light), eager or graph (the default with achievable).
        kernels: Kernels per forward (default: from the layer structure).
        force: Allow a prompt beyond the model's maximum context.
        price: Price of one device for an hour: "2.50/h" (also /min, /s); gives cost per million tokens, in your currency.
        energy_price: Price of energy: "0.10/kWh" (also /MWh, /Wh); adds the energy bill to the cost and reports its share.
        pue: Power usage effectiveness, at least 1 (default 1): scales the energy bill only.
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def roofline_chart(hw: Optional[HardwareLike], *, dtype: Optional[Union[str, Sequence[str]]] = None, points: Optional[Sequence[Union[str, Report]]] = None, achievable: bool = False) -> Chart:
    """
    The roofline of one or more accelerators, with kernels marked.

    Args:
        hw: a hardware id, path or roofline.Hardware, or a list of them.
        dtype: precisions to draw, e.g. ["bf16", "fp8"] (default: each part's default).
        points: kernels to mark: "LABEL:INTENSITY", "LABEL:FLOPS/BYTES", or a Report (its intensity).
        achievable: draw the measured roofs beside the datasheet ones.

    Returns:
        Chart: shown as SVG in a notebook; `.save(path)` writes .svg or .png.
    """

def simulate(*, model: Optional[ModelLike] = None, hw: Optional[HardwareLike] = None, concurrency: Optional[Field] = None, trace: Optional[Field] = None, rate: Optional[Field] = None, prompt: Optional[Field] = None, output: Optional[Field] = None, prefix_hit: Optional[Field] = None, slo_ttft: Optional[Field] = None, slo_tpot: Optional[Field] = None, seed: Optional[Field] = None, block_size: Optional[Field] = None, redundant_experts: Optional[Field] = None, speculative: Optional[Field] = None, force: Optional[Field] = None, engine: Optional[Field] = None, dtype: Optional[Union[str, Sequence[str]]] = None, kv_dtype: Optional[Field] = None, activations: Optional[Field] = None, launch: Optional[Field] = None, reserve: Optional[Field] = None, requests: Optional[Field] = None, max_batched_tokens: Optional[Field] = None, max_seqs: Optional[Field] = None, tp: Optional[Field] = None, pp: Optional[Field] = None, ep: Optional[Field] = None, dp: Optional[Field] = None, per_request: Optional[Field] = None, prefill_dp: Optional[Field] = None, prefill_tp: Optional[Field] = None, prefill_pp: Optional[Field] = None, prefill_ep: Optional[Field] = None, prefill_hw: Optional[Field] = None, prefill_max_batched_tokens: Optional[Field] = None, price: Optional[Field] = None, energy_price: Optional[Field] = None, pue: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    One serving deployment request by request: continuous batching, chunked prefill, paged KV with preemption; latency percentiles, throughput, goodput under SLOs.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        model: Model id, path or roofline.Model.
        hw: Hardware id, path or roofline.Hardware.
        concurrency: A closed loop: this many users, each sending its next request when the last one finishes.
        trace: A CSV trace: arrival_s, prompt_tokens, output_tokens per row.
        rate: Poisson arrivals: requests per second (12/s, 720/min).
        prompt: Prompt tokens: N, lognormal:MEAN,SIGMA or uniform:A..B.
        output: Output tokens: N, lognormal:MEAN,SIGMA or uniform:A..B.
        prefix_hit: Share of each prompt already in the prefix cache (50% or 0.5).
        slo_ttft: Time-to-first-token target: 2s (p99) or p50=500ms.
        slo_tpot: Time-per-output-token target: 50ms (p99) or p90=40ms.
        seed: Seed of the random stream (default 0).
        block_size: Tokens per KV block (default 16, vLLM's block_size).
        redundant_experts: Redundant copies of hot experts over each expert group (default 0), as plan takes them.
        speculative: Speculative decoding (MTP, EAGLE) on every decode step: "ACCEPTANCE,DRAFT-TOKENS[,DRAFT-COST]" ("0.8,3,0.05"), as decode's speculative takes it.
        force: Allow requests beyond the model's maximum context.
        engine: Serving engine id or path (default vllm; pytorch for the plain forward): the kernels each step runs and its all-reduce (`roofline engine list`).
        dtype: Weight precision (default: the hardware's default-dtype).
        kv_dtype: KV-cache precision (default bf16).
        activations: Activation precision (default: the hardware's default-dtype); fp8 weights need fp8 activations to run at the fp8 peak.
        launch: Launch overhead per kernel: none (the default: speed of light), eager or graph (the default with achievable).
        reserve: Memory held back for activations and the runtime: a share (default 10%), or step: the runtime's measured footprint and the largest iteration's activations and logits (step:TOKENS,SEQS names it).
        requests: Requests to simulate (default 10,000; a trace: its rows).
        max_batched_tokens: Token budget of one iteration (default 2,048 + max-seqs: a 2,048-token prompt whole beside a full batch of decodes).
        max_seqs: Sequences one iteration holds (default 256, vLLM's max_num_seqs).
        tp: Tensor parallelism of a replica (default 1).
        pp: Pipeline stages of a replica (default 1).
        ep: Expert parallelism (default 1).
        dp: Data-parallel replicas, requests routed among them at random (default 1).
        per_request: One row per request (arrival, queue, TTFT, TPOT, E2E).
        prefill_dp: Disaggregated: replicas of a separate prefill pool; tp/pp/ep/dp and hw are then the decode pool's.
        prefill_tp: Tensor parallelism of a prefill replica (default 1).
        prefill_pp: Pipeline stages of a prefill replica (default 1).
        prefill_ep: Expert parallelism of a prefill replica (default 1).
        prefill_hw: The prefill pool's part: id, path or roofline.Hardware (default: hw).
        prefill_max_batched_tokens: Token budget of a prefill iteration (default 2,048).
        price: Price of one device for an hour: "2.50/h" (also /min, /s); gives cost per million tokens, in your currency.
        energy_price: Price of energy: "0.10/kWh" (also /MWh, /Wh); adds the energy bill to the cost and reports its share.
        pue: Power usage effectiveness, at least 1 (default 1): scales the energy bill only.
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def speculative(*, acceptance: Optional[Field] = None, draft_tokens: Optional[Field] = None, draft_cost: Optional[Field] = None, achievable: bool = False, set: Optional[Edits] = None) -> Report:
    """
    Speculative decoding: tokens per target pass and speedup.

    Quantities are numbers in base units or text with a unit ("4.8 TB/s");
    a list of values sweeps that input (one row per value).

    Args:
        acceptance: Probability a drafted token is accepted (0 to 1).
        draft_tokens: Tokens the draft proposes per pass (g).
        draft_cost: Cost of one drafted token as a share of a target pass (c; default 0).
        achievable: Use the hardware's measured figures instead of the datasheet's.
        set: What-if edits of the hardware or model files, {"memory.hbm-bandwidth": "5 TB/s"} (the CLI's --set).

    Returns:
        Report: `.results`, `.inputs`, `.notes`, `.explain()`, `.to_json()`.
    """

def sweep(command: str, *, achievable: bool = False, set: Optional[Edits] = None, **fields: Any) -> Any:
    """
    Evaluates a command at every point of a grid and returns a table with
    one row per point: the axes (the arguments given as lists, and `hw` or
    `model` lists) as columns, then every result.

    Args:
        command: the command, as the CLI spells it ("decode", "hw show") or as its function is named ("hw_show").
        achievable: use the hardware's measured figures.
        set: what-if edits of the hardware or model files.
        **fields: the command's arguments; a list (or range) of values is an axis.

    Returns:
        pandas.DataFrame when pandas is installed, else a list of dicts; values in base units.

    Example:
        roofline.sweep("decode", model="llama-3-8b", hw=["h100-sxm", "h200-sxm"], batch=range(1, 513), context=8192)
    """
