//! The checks a hardware file must pass when it is read: fields present
//! and consistent, power figures, measured figures no higher than the
//! datasheet's, sources that name fields.

use super::{Hardware, PeakScope, Scope};
use crate::error::Result;
use crate::precision;
use crate::spec::{BytesPerSec, Origin, field_error};

/// The first `[sources]` key that names no field of the parsed document.
/// It is found on the document the file is deserialized from, so the text
/// is parsed once (a second parse was half of a query's loading time).
fn first_unknown_source(doc: &toml::de::DeTable<'_>) -> Option<String> {
    let toml::de::DeValue::Table(sources) = doc.get("sources")?.get_ref() else {
        return None;
    };
    sources
        .keys()
        .map(|k| k.get_ref())
        .find(|k| !crate::spec::has_path(doc, k))
        .map(|k| k.to_string())
}

/// The most bytes a memory level may move a cycle per unit of its scope.
const MAX_BYTES_PER_CYCLE: f64 = 1_048_576.0;

impl Hardware {
    /// Parses and validates a hardware file's text.
    pub fn parse(src: &str, origin: &Origin) -> Result<Self> {
        let (mut hw, unknown): (Hardware, _) =
            crate::spec::from_toml_with(src, origin, first_unknown_source)?;
        hw.validate(src, origin, unknown.as_deref())?;
        if hw.sources.is_empty() {
            hw.cites_file = Some(origin.name.clone());
        }
        Ok(hw)
    }

    /// The hardware of an already parsed tree with `--set`s applied
    /// (`origin.overridden`), where it deserializes and validates; `None`
    /// otherwise, and the caller parses the text, whose spans name the
    /// error. On success it equals [`Hardware::parse`] of the text: the
    /// text serves validation only to locate what it rejects.
    pub(crate) fn from_tree(tree: toml::Table, origin: &Origin) -> Option<Self> {
        debug_assert!(origin.overridden);
        let mut hw: Hardware = toml::Value::Table(tree).try_into().ok()?;
        // Sources are not checked against the fields of an overridden file.
        hw.validate("", origin, None).ok()?;
        if hw.sources.is_empty() {
            hw.cites_file = Some(origin.name.clone());
        }
        Some(hw)
    }

    /// A built-in file's hardware from the JSON copy build.rs made of its
    /// text (having checked its `[sources]` keys as [`Hardware::parse`]
    /// does); `None` where it does not deserialize or validate, and the
    /// caller parses the text, which names the error. On success it equals
    /// [`Hardware::parse`] of the text (`catalog::tests`).
    pub(crate) fn from_json(json: &str, origin: &Origin) -> Option<Self> {
        let mut hw: Hardware = serde_json::from_str(json).ok()?;
        hw.validate("", origin, None).ok()?;
        if hw.sources.is_empty() {
            hw.cites_file = Some(origin.name.clone());
        }
        Some(hw)
    }

    /// `unknown_source` is the first `[sources]` key that names no field
    /// of the file.
    fn validate(&self, src: &str, origin: &Origin, unknown_source: Option<&str>) -> Result<()> {
        let err = |field: &str, msg: String| Err(field_error(src, origin, field, msg));
        if self.id == crate::spec::template::PLACEHOLDER_ID {
            return err("id", crate::spec::placeholder_message(&origin.name));
        }
        let dt = precision::lookup(&self.default_dtype).map_err(|_| {
            field_error(
                src,
                origin,
                "default-dtype",
                format!("unknown precision `{}`", self.default_dtype),
            )
        })?;
        if self.compute.dense.get(dt.compute).is_none() {
            return err(
                "default-dtype",
                format!(
                    "`{}` has no peak in compute.dense (it has {})",
                    dt.name,
                    self.compute.dense.keys().join(", ")
                ),
            );
        }
        if self.compute.peak_scope == PeakScope::Core && self.compute.cores.is_none() {
            return err(
                "compute.peak-scope",
                "per-core peaks need compute.cores to derive the device total".into(),
            );
        }
        for (i, link) in self.interconnect.iter().enumerate() {
            if let (Some(one), Some(both)) =
                (link.per_direction_bandwidth, link.bidirectional_bandwidth)
                && one.get() > both.get() * (1.0 + 1e-9)
            {
                return err(
                    &format!("interconnect.{i}.per-direction-bandwidth"),
                    format!(
                        "per-direction bandwidth ({}) exceeds the bidirectional figure ({}); a bidirectional figure adds both directions",
                        crate::units::si(one.get(), "B/s"),
                        crate::units::si(both.get(), "B/s")
                    ),
                );
            }
            if let (Some(d), Some(m)) = (link.domain_size, link.max_domain_size)
                && d > m
            {
                return err(
                    &format!("interconnect.{i}.domain-size"),
                    format!("a domain of {d} is larger than the fabric's maximum of {m}"),
                );
            }
            if let (Some(l), Some(b), Some(n)) = (
                link.link_bandwidth,
                link.bidirectional_bandwidth,
                link.links,
            ) && (l.get() * f64::from(n.get()) - b.get()).abs() > b.get() * 0.005
            {
                return err(
                    &format!("interconnect.{i}.link-bandwidth"),
                    format!(
                        "{n} links of {} make {}, not the device's {}",
                        crate::units::si(l.get(), "B/s"),
                        crate::units::si(l.get() * f64::from(n.get()), "B/s"),
                        crate::units::si(b.get(), "B/s")
                    ),
                );
            }
            if let (Some(n), Some(a)) = (link.links, link.axes)
                && !n.get().is_multiple_of(a.get())
            {
                return err(
                    &format!("interconnect.{i}.links"),
                    format!("{n} links do not divide evenly over {a} torus axes"),
                );
            }
        }
        if let Some(ex) = &self.execution {
            if let Some(t) = ex.max_threads_per_sm
                && t.get() < ex.warp_size.get()
            {
                return err(
                    "execution.max-threads-per-sm",
                    format!(
                        "{} threads is fewer than one warp of {}",
                        crate::units::whole(t.get()),
                        ex.warp_size
                    ),
                );
            }
            if let (Some(w), Some(t)) = (ex.max_warps_per_sm, ex.max_threads_per_sm)
                && u64::from(w.get()).checked_mul(u64::from(ex.warp_size.get()))
                    != Some(u64::from(t.get()))
            {
                return err(
                    "execution.max-threads-per-sm",
                    format!(
                        "{} threads is not max-warps-per-sm ({}) x warp-size ({})",
                        crate::units::whole(t.get()),
                        w,
                        ex.warp_size
                    ),
                );
            }
            if let (Some(b), Some(o)) = (ex.smem_per_block_optin, ex.smem_per_sm)
                && b.get() > o.get()
            {
                return err(
                    "execution.smem-per-block-optin",
                    "exceeds smem-per-sm".into(),
                );
            }
            // A carveout is a split of the SM's shared memory: one larger
            // than the SM's whole shared memory is a typo or a unit slip.
            if let Some(o) = ex.smem_per_sm
                && let Some(c) = ex.smem_carveouts.iter().find(|c| c.0 > o.get())
            {
                return err(
                    "execution.smem-carveouts",
                    format!(
                        "a carveout of {} exceeds smem-per-sm ({}), the SM's whole shared memory",
                        crate::units::iec_bytes(c.0),
                        crate::units::iec_bytes(o.get())
                    ),
                );
            }
            if let (Some(d), Some(o)) = (ex.smem_per_block, ex.smem_per_block_optin)
                && d.get() > o.get()
            {
                return err(
                    "execution.smem-per-block",
                    "the default per-block shared memory exceeds the opt-in maximum".into(),
                );
            }
        }
        // A file's measured rate above its datasheet's is a typo or a unit
        // slip (GB/s for TB/s), not a faster chip. A `--set` what-if may
        // lower the datasheet figure (the book's 1.5 TB/s A100) below a
        // measured one; the catalog checks a measured figure set on the
        // command line itself (`check_measured`).
        if !origin.overridden {
            self.check_measured(src, origin)?;
        }
        self.check_power(src, origin)?;
        for (i, l) in self.memory.levels.iter().enumerate() {
            // A level moves some bytes a cycle: not none, not a negative
            // or NaN figure, not more than a 2^20-byte (1 MiB) line a
            // cycle per unit (an H100's shared memory moves 128).
            if let Some(b) = l.bytes_per_cycle
                && !(b.is_finite() && b > 0.0 && b <= MAX_BYTES_PER_CYCLE)
            {
                return err(
                    &format!("memory.levels.{i}.bytes-per-cycle"),
                    format!(
                        "{b} is not a plausible bytes per cycle: give a finite number above 0 and at most 1,048,576 (a level's bytes per cycle per unit of its scope)"
                    ),
                );
            }
            if l.scope == Scope::Core && l.count.is_none() && self.compute.cores.is_none() {
                return err(
                    &format!("memory.levels.{i}.scope"),
                    "a per-core level needs compute.cores (or count) to give a chip total".into(),
                );
            }
        }
        if !origin.overridden
            && let Some(key) = unknown_source
        {
            return err(
                "sources",
                format!("source given for `{key}`, which is not a field of this file"),
            );
        }
        Ok(())
    }

    /// Rejects board-power figures that contradict each other: a figure
    /// that is not a positive number, idle power at or above the power
    /// under load, any figure above the board limit (formulas.md, "Power
    /// and energy").
    fn check_power(&self, src: &str, origin: &Origin) -> Result<()> {
        let err = |field: &str, msg: String| Err(field_error(src, origin, field, msg));
        let Some(p) = &self.package else {
            return Ok(());
        };
        let figures = [
            ("package.idle-watts", p.idle_watts),
            ("package.compute-watts", p.compute_watts),
            ("package.stream-watts", p.stream_watts),
        ];
        for (field, v) in figures {
            if let Some(w) = v
                && !(w.is_finite() && w > 0.0)
            {
                return err(
                    field,
                    format!("{w} W is not a board power: expected a number of watts above 0"),
                );
            }
        }
        if let Some(limit) = p.tdp_watts.map(|w| f64::from(w.get())) {
            for (field, v) in figures {
                // Readings average 100 ms samples, which sit a little
                // either side of the limit the board enforces over longer
                // windows: 1% above it is noise, more is a contradiction.
                let idle = field == "package.idle-watts";
                if let Some(w) = v
                    && (w > limit * 1.01 || (idle && w >= limit))
                {
                    return err(
                        field,
                        format!(
                            "{w} W is {} the board limit package.tdp-watts ({limit} W); expected {} {limit} W",
                            if idle { "not below" } else { "above" },
                            if idle { "less than" } else { "at most" }
                        ),
                    );
                }
            }
        }
        if let (Some(t), Some(bw)) = (
            p.compute_traffic,
            self.achievable.as_ref().and_then(|a| a.hbm_bandwidth),
        ) && t.get() > bw.get() * (1.0 + 1e-9)
        {
            return err(
                "package.compute-traffic",
                format!(
                    "{} is above achievable.hbm-bandwidth ({}); expected the compute loop's own traffic, at most the bandwidth",
                    crate::units::si(t.get(), "B/s"),
                    crate::units::si(bw.get(), "B/s")
                ),
            );
        }
        if let (Some(idle), Some(c), Some(st), Some(t), Some(bw)) = (
            p.idle_watts,
            p.compute_watts,
            p.stream_watts,
            p.compute_traffic,
            self.achievable.as_ref().and_then(|a| a.hbm_bandwidth),
        ) {
            let memory = (st - idle) * t.get() / bw.get();
            if c - idle - memory <= 0.0 {
                return err(
                    "package.compute-watts",
                    format!(
                        "{c} W leaves nothing for compute once idle ({idle} W) and the loop's memory traffic ({:.1} W at package.compute-traffic) are taken out; expected more than {:.1} W",
                        memory,
                        idle + memory
                    ),
                );
            }
        }
        if let Some(idle) = p.idle_watts {
            for (field, v) in &figures[1..] {
                if let Some(w) = *v
                    && w <= idle
                {
                    return err(
                        field,
                        format!(
                            "{w} W under load is not above the idle power package.idle-watts ({idle} W); expected more than {idle} W"
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// Rejects a measured (`achievable`) figure above the datasheet figure
    /// it measures: the HBM bandwidth, a dense peak, a link's one-way
    /// bandwidth.
    pub(crate) fn check_measured(&self, src: &str, origin: &Origin) -> Result<()> {
        let err = |field: &str, msg: String| Err(field_error(src, origin, field, msg));
        if let Some(a) = &self.achievable {
            if let (Some(m), Some(d)) = (a.hbm_bandwidth, self.memory.hbm_bandwidth)
                && m.get() > d.get() * (1.0 + 1e-9)
            {
                return err(
                    "achievable.hbm-bandwidth",
                    format!(
                        "measured {} exceeds the datasheet's {}",
                        crate::units::si(m.get(), "B/s"),
                        crate::units::si(d.get(), "B/s")
                    ),
                );
            }
            for (name, m) in &a.link_bandwidth {
                let field = format!("achievable.link-bandwidth.{name}");
                let Some(link) = self.interconnect.iter().find(|l| &l.name == name) else {
                    let names: Vec<&str> =
                        self.interconnect.iter().map(|l| l.name.as_str()).collect();
                    return err(
                        &field,
                        format!(
                            "`{name}` names no interconnect of this file (it has {})",
                            names.join(", ")
                        ),
                    );
                };
                // Measured one way, so it can be no more than the link's
                // per-direction figure (half the bidirectional one).
                let one_way = link
                    .per_direction_bandwidth
                    .map(BytesPerSec::get)
                    .or(link.bidirectional_bandwidth.map(|b| b.get() / 2.0));
                if let Some(d) = one_way
                    && m.get() > d * (1.0 + 1e-9)
                {
                    return err(
                        &field,
                        format!(
                            "measured {} exceeds the link's {} each way",
                            crate::units::si(m.get(), "B/s"),
                            crate::units::si(d, "B/s")
                        ),
                    );
                }
            }
            for key in a.sustained.keys() {
                let m = a.sustained.get(key).unwrap_or(0.0);
                let (cap, what) = match a.dense.get(key) {
                    Some(d) => (Some(d), "measured burst rate (achievable.dense)"),
                    None => (
                        self.compute
                            .dense
                            .get(key)
                            .map(|d| d * self.peak_multiplier()),
                        "datasheet's dense peak",
                    ),
                };
                if let Some(d) = cap
                    && m > d * (1.0 + 1e-9)
                {
                    return err(
                        &format!("achievable.sustained.{key}"),
                        format!(
                            "sustained {} exceeds the {what} {}",
                            rate_text(key, m),
                            rate_text(key, d)
                        ),
                    );
                }
            }
            let share = |field: &str, v: Option<f64>| -> Result<()> {
                match v {
                    Some(x) if !(x > 0.0 && x <= 1.0) => err(
                        field,
                        format!("{x} is not a share: expected a number above 0 and at most 1"),
                    ),
                    _ => Ok(()),
                }
            };
            if let Some(x) = a.call.as_ref().and_then(|c| c.interleave)
                && !(x.is_finite() && x > 0.0)
            {
                return err(
                    "achievable.call.interleave",
                    format!("{x} is not a ratio of two times: expected a positive number"),
                );
            }
            if let Some(f) = &a.power_limit {
                for (field, v) in [
                    ("achievable.power-limit.gemm-watts", f.gemm_watts),
                    ("achievable.power-limit.attention-watts", f.attention_watts),
                    ("achievable.power-limit.wait-watts", f.wait_watts),
                ] {
                    if let Some(w) = v
                        && !(w.is_finite() && w > 0.0)
                    {
                        return err(
                            field,
                            format!(
                                "{w} W is not a board power: expected a number of watts above 0"
                            ),
                        );
                    }
                }
                if let (Some(g), Some(c)) = (
                    f.gemm_watts,
                    self.package.as_ref().and_then(|p| p.compute_watts),
                ) && g <= c
                {
                    return err(
                        "achievable.power-limit.gemm-watts",
                        format!(
                            "{g} W is not above package.compute-watts ({c} W): GEMMs at the burst clock draw more than the board holds at its limit; expected more than {c} W"
                        ),
                    );
                }
                for (key, b) in f.gemm_burst_fraction.iter().flat_map(|s| s.entries()) {
                    if !(b > 0.0 && b <= 1.0) {
                        let field = match key {
                            "" => "achievable.power-limit.gemm-burst-fraction".to_string(),
                            k => format!("achievable.power-limit.gemm-burst-fraction.{k}"),
                        };
                        return err(
                            &field,
                            format!(
                                "{b} is not a share of a GEMM's back-to-back time: expected a number above 0 and at most 1"
                            ),
                        );
                    }
                }
                if let Some(b) = f.attention_clock_exponent
                    && !(b > 0.0 && b <= 1.0)
                {
                    return err(
                        "achievable.power-limit.attention-clock-exponent",
                        format!(
                            "{b} is not a clock exponent: expected a number above 0 and at most 1"
                        ),
                    );
                }
            }
            if let Some(b) = &a.bus_efficiency {
                for (name, v) in b.entries() {
                    share(&format!("achievable.bus-efficiency.{name}"), v)?;
                }
            }
            if let Some(c) = &a.collective_protocol {
                share("achievable.collective-protocol.ll128-share", c.ll128_share)?;
                let field = match (c.simple_latency, c.ll128_share) {
                    (Some(_), None) => Some("achievable.collective-protocol.ll128-share"),
                    (None, Some(_)) => Some("achievable.collective-protocol.simple-latency"),
                    _ => None,
                };
                if let Some(f) = field {
                    return err(
                        f,
                        "missing: the protocol model needs both simple-latency (e.g. \"79.8 us\") and ll128-share (e.g. 0.92)".into(),
                    );
                }
            }
            if let Some(g) = &a.grouped_gemm {
                share("achievable.grouped-gemm.stream-fraction", g.stream_fraction)?;
                share(
                    "achievable.grouped-gemm.compute-fraction",
                    g.compute_fraction,
                )?;
            }
            if let Some(at) = &a.attention {
                share("achievable.attention.peak-fraction", at.peak_fraction)?;
                share(
                    "achievable.attention.cached-peak-fraction",
                    at.cached_peak_fraction,
                )?;
            }
            if let Some(g) = &a.gemm
                && let Err(e) = g.parsed()
            {
                return err("achievable.gemm.tiles", e);
            }
            if let Some(g) = &a.gemm
                && let Err(e) = g.full_rate()
            {
                return err("achievable.gemm.full-rate-tile", e);
            }
            if let Some(g) = &a.gemm {
                let mut last = 0;
                for (i, r) in g.stream_split.iter().enumerate() {
                    let field = format!("achievable.gemm.stream-split.{i}");
                    if r.rows <= last {
                        return err(
                            &format!("{field}.rows"),
                            format!(
                                "{}: expected rows in ascending order, each above the one before ({last})",
                                r.rows
                            ),
                        );
                    }
                    if !(r.k_over_n.is_finite() && r.k_over_n >= 0.0) {
                        return err(
                            &format!("{field}.k-over-n"),
                            format!("{}: expected a ratio K / N of 0 or more", r.k_over_n),
                        );
                    }
                    last = r.rows;
                }
            }
            for key in a.dense.keys() {
                if let (Some(m), Some(d)) = (a.dense.get(key), self.compute.dense.get(key))
                    && m > d * self.peak_multiplier() * (1.0 + 1e-9)
                {
                    return err(
                        &format!("achievable.dense.{key}"),
                        format!(
                            "measured {} exceeds the datasheet's dense {}",
                            rate_text(key, m),
                            rate_text(key, d * self.peak_multiplier())
                        ),
                    );
                }
            }
        }
        Ok(())
    }
}

/// A rate of precision `key` for an error message: an int8 peak counts
/// integer operations (OP/s), the others FLOP/s, as a report's
/// `FlopPerSec` unit writes them (the spec floor names no report type).
fn rate_text(key: &str, v: f64) -> String {
    let integer = crate::precision::lookup(key).is_ok_and(|p| p.integer());
    crate::units::si(v, if integer { "OP/s" } else { "FLOP/s" })
}
