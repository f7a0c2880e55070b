//! The calibrated hardware file: the base file's text with the fitted
//! `[achievable]` figures put in, each with a `[sources]` entry naming the
//! measurement file, its hash, the device, driver and date, and a
//! `[calibration]` table carrying the fit's held-out error. Everything the
//! measurements did not cover keeps the base file's value and source.

use super::fit::Figures;
use super::measurements::Provenance;
use super::power::PowerFit;
use crate::error::{Error, Result};
use toml_edit::{DocumentMut, Item, Table, value};

/// The held-out error written into `[calibration]`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct HeldOut {
    /// Points held out of the fit and predicted.
    pub points: usize,
    /// Median relative error over them.
    pub median_error: f64,
    /// Worst relative error over them.
    pub worst_error: f64,
    /// The base file's median relative error over the same points.
    pub shipped_median_error: f64,
    /// The base file's worst relative error over them.
    pub shipped_worst_error: f64,
}

/// What the file says about where it came from.
pub struct Origin<'a> {
    /// The base part's id.
    pub base: &'a str,
    /// The measurement file as the user named it.
    pub file: &'a str,
    /// Its SHA-256, hex.
    pub sha256: &'a str,
    /// The rows' device, driver, framework and date.
    pub provenance: &'a Provenance,
    /// How the points were split.
    pub held_out_rule: &'a str,
    /// The figures the file measured that were kept at the base's value,
    /// each with why.
    pub kept: &'a [String],
}

fn us(s: f64) -> String {
    format!("{:.2} us", s * 1e6)
}

/// Writes the calibrated file's text.
pub fn text(
    base_text: &str,
    id: &str,
    f: &Figures,
    o: &Origin,
    held: Option<HeldOut>,
) -> Result<String> {
    let mut doc: DocumentMut = base_text.parse().map_err(|e| Error::Data {
        file: o.base.to_string(),
        line: None,
        col: None,
        field: None,
        message: format!("the base file could not be read as TOML: {e}"),
    })?;
    let name = doc
        .get("name")
        .and_then(|n| n.as_str())
        .unwrap_or(o.base)
        .to_string();
    doc["id"] = value(id);
    doc["name"] = value(format!("{name} (calibrated)"));
    doc["summary"] = value(format!(
        "{name}, achievable figures calibrated on {} ({})",
        o.provenance.device,
        o.provenance.date.get(..10).unwrap_or(&o.provenance.date)
    ));
    let p = o.provenance;
    let short = o.sha256.get(..16).unwrap_or(o.sha256);
    let cite = |what: &str| {
        format!(
            "measured: roofline calibrate from {} (sha256 {short}), {}, driver {}, torch {}, {}: {what}",
            o.file, p.device, p.driver, p.torch, p.date
        )
    };
    let mut sources: Vec<(String, String)> = Vec::new();
    let mut put = |doc: &mut DocumentMut, path: &[&str], v: toml_edit::Value, why: String| {
        // `package.` paths go into [package]; the rest into [achievable].
        let (root, path) = match path {
            ["package", rest @ ..] => ("package", rest),
            _ => ("achievable", path),
        };
        set_in(doc, root, path, v);
        sources.push((format!("{root}.{}", path.join(".")), why));
    };
    if let Some(b) = f.hbm_bandwidth {
        let (line, op) = f.stream_row.unwrap_or((0, "stream"));
        put(
            &mut doc,
            &["hbm-bandwidth"],
            format!("{:.1} GB/s", b / 1e9).into(),
            cite(&format!(
                "the stream with the longest steady state ({op}, line {line}), bytes moved over time"
            )),
        );
    }
    for (d, r) in &f.dense {
        let how = match f.gemm_fit {
            Some((e, n)) => format!(
                "the rate of a full wave of unpadded tiles in the per-operation GEMM model, searched for the least median error ({:.1}%) of matmul --achievable --launch graph over the {n} fitting compute-bound gemm rows of 100 GFLOP or more, at most the datasheet peak",
                100.0 * e
            ),
            None => format!("the fastest {d} gemm row replayed from a CUDA graph"),
        };
        put(
            &mut doc,
            &["dense", d],
            format!("{:.1} TFLOP/s", r / 1e12).into(),
            cite(&how),
        );
    }
    for (d, r, clock, power) in &f.sustained {
        let held = match (clock, power) {
            (Some(c), Some(w)) => format!(", at {c:.0} MHz and {w:.0} W"),
            _ => String::new(),
        };
        let how = if f.sustained_capped.contains(d) {
            format!(
                "the base file's sustained {d} rate exceeded the calibrated burst rate (achievable.dense.{d}); capped at it"
            )
        } else {
            format!("the compute_sustained {d} loop{held}")
        };
        put(
            &mut doc,
            &["sustained", d],
            format!("{:.1} TFLOP/s", r / 1e12).into(),
            cite(&how),
        );
    }
    for (mode, v) in [
        ("eager", f.launch_eager),
        ("synchronised", f.launch_synchronised),
        ("graph", f.launch_graph),
    ] {
        if let Some(v) = v {
            put(
                &mut doc,
                &["launch", mode],
                us(v).into(),
                cite(&format!("median launch {mode} row, rounded down")),
            );
        }
    }
    if let Some(v) = f.kernel_overhead {
        put(
            &mut doc,
            &["kernel-overhead"],
            us(v).into(),
            cite(&match f.overhead_sweep {
                Some((slope, n)) => format!(
                    "the kernel_sweep rows ({n} rows, one GEMM's work split into more kernels): the median pairwise slope of time against kernel count, {:.2} us a kernel, less achievable.launch.graph, rounded down",
                    slope * 1e6
                ),
                None => "kernel_sweep rows".to_string(),
            }),
        );
    }
    if let Some(v) = f.matmul_eager {
        put(
            &mut doc,
            &["call", "matmul-eager"],
            us(v).into(),
            cite(if f.matmul_eager_from_host_rows {
                "the median time per call of the host_gemm rows (a GEMM call as the forward makes it, back to back from Python), rounded down"
            } else {
                "the median time per call of the small gemm rows called back to back from Python (host-bound: their graph time is under 0.8 of it), rounded down"
            }),
        );
    }
    for (key, v, what) in [
        (
            "kernel-eager",
            f.kernel_eager,
            "the host_kernel rows' time over their kernels, rounded down",
        ),
        (
            "attention-eager",
            f.attention_eager,
            "the median host_attention row, rounded down",
        ),
        (
            "cached-attention-eager",
            f.cached_attention_eager,
            "the median host_cached_attention row, rounded down",
        ),
    ] {
        if let Some(v) = v {
            put(&mut doc, &["call", key], us(v).into(), cite(what));
        }
    }
    for (class, v, n) in &f.kernel_fixed {
        put(
            &mut doc,
            &["kernel-fixed", class.key()],
            us(*v).into(),
            cite(&format!(
                "the kernel_{} rows: each row's time a kernel less its bytes at achievable.hbm-bandwidth, the median over their {n} kernels, rounded down",
                class.key().replace('-', "_")
            )),
        );
    }
    if let Some(x) = f.interleave {
        put(
            &mut doc,
            &["call", "interleave"],
            x.into(),
            cite("the median host_layer cycle over the sum of the host rows alone, rounded down"),
        );
    }
    if let Some((peak, half)) = f.attention {
        let why = cite(&match f.attention_fit {
            Some((e, n)) => format!(
                "the {n} fitting attention_prefill rows: efficiency = peak x S / (S + half) of the dense rate, searched for the least median error ({:.1}%) with kernel overhead and the eager call",
                100.0 * e
            ),
            None => "attention_prefill rows".to_string(),
        });
        put(
            &mut doc,
            &["attention", "peak-fraction"],
            ((peak * 1e4).round() / 1e4).into(),
            why.clone(),
        );
        put(
            &mut doc,
            &["attention", "half-length"],
            i64::try_from(half).unwrap_or(i64::MAX).into(),
            why,
        );
    }
    if let Some((sf, cf)) = f.grouped {
        let why = cite(&match f.grouped_fit {
            Some((e, n)) => format!(
                "the {n} fitting grouped_gemm rows (torch._grouped_mm): the GEMM model over the groups with its memory terms at stream-fraction x hbm-bandwidth and its compute term at compute-fraction x the dense rate, searched for the least median error ({:.1}%) with kernel overhead and graph launch",
                100.0 * e
            ),
            None => "grouped_gemm rows".to_string(),
        });
        put(
            &mut doc,
            &["grouped-gemm", "stream-fraction"],
            ((sf * 1e3).round() / 1e3).into(),
            why.clone(),
        );
        put(
            &mut doc,
            &["grouped-gemm", "compute-fraction"],
            ((cf * 1e3).round() / 1e3).into(),
            why,
        );
    }
    power(&mut doc, &f.power, &cite, &mut put);
    {
        let root = doc.as_table_mut();
        if !root.contains_key("sources") {
            root.insert("sources", Item::Table(Table::new()));
        }
        let s = root["sources"].as_table_mut().expect("sources is a table");
        for (k, v) in sources {
            s[&k] = value(v);
        }
    }
    let mut c = Table::new();
    c["base"] = value(o.base);
    c["measurements"] = value(o.file);
    c["sha256"] = value(o.sha256);
    c["device"] = value(p.device.as_str());
    c["driver"] = value(p.driver.as_str());
    c["torch"] = value(p.torch.as_str());
    c["date"] = value(p.date.as_str());
    c["held-out"] = value(o.held_out_rule);
    if let Some(h) = held {
        c["points"] = value(i64::try_from(h.points).unwrap_or(i64::MAX));
        c["median-error"] = value((h.median_error * 1e4).round() / 1e4);
        c["worst-error"] = value((h.worst_error * 1e4).round() / 1e4);
        c["shipped-median-error"] = value((h.shipped_median_error * 1e4).round() / 1e4);
        c["shipped-worst-error"] = value((h.shipped_worst_error * 1e4).round() / 1e4);
    }
    if !o.kept.is_empty() {
        let mut a = toml_edit::Array::new();
        for k in o.kept {
            a.push(k.as_str());
        }
        c["kept"] = value(a);
    }
    // The calibration table goes before [sources], which stays last.
    let root = doc.as_table_mut();
    let src = root.remove("sources");
    root.insert("calibration", Item::Table(c));
    if let Some(src) = src {
        root.insert("sources", src);
    }
    Ok(doc.to_string())
}

/// Puts a figure at a path with its source.
type Put<'a> = dyn FnMut(&mut DocumentMut, &[&str], toml_edit::Value, String) + 'a;

/// The power limit's figures (`achievable.power-limit`, and the two
/// `package` powers its solve reads), each with its derivation.
fn power(doc: &mut DocumentMut, p: &PowerFit, cite: &dyn Fn(&str) -> String, put: &mut Put) {
    let w = |x: f64| toml_edit::Value::from((x * 10.0).round() / 10.0);
    let burst = p.burst_mhz.unwrap_or(0.0);
    if let Some((v, n)) = p.wait_w {
        put(
            doc,
            &["power-limit", "wait-watts"],
            w(v),
            cite(&format!(
                "the median of {n} power_wait row(s): spin kernels back to back, at {burst:.0} MHz"
            )),
        );
    }
    if let Some(g) = p.gemm {
        put(
            doc,
            &["power-limit", "gemm-watts"],
            w(g.watts),
            cite(&format!(
                "the power_gemm row of line {} (GEMMs with a spin after each, held at the burst clock {burst:.0} MHz): ({:.1} W x {:.4} ms - {:.1} W x {:.4} ms of spin) / {:.4} ms of GEMMs",
                g.line,
                g.power_w,
                g.call_s * 1e3,
                p.wait_w.map_or(0.0, |x| x.0),
                g.wait_s * 1e3,
                (g.call_s - g.wait_s) * 1e3
            )),
        );
    }
    if let (Some(a), Some(b)) = (p.attention_w, p.attention_exponent) {
        let each: Vec<String> = p
            .loops
            .iter()
            .map(|l| {
                format!(
                    "S = {}: {:.1} W at {:.0} MHz, {:.4} ms settled over {:.4} ms first (line {})",
                    l.seq,
                    l.power_w,
                    l.clock_mhz,
                    l.settled_s * 1e3,
                    l.burst_s * 1e3,
                    l.line
                )
            })
            .collect();
        let loops = each.join("; ");
        put(
            doc,
            &["power-limit", "attention-watts"],
            w(a),
            cite(&format!(
                "the mean over the power_attention loops whose clock fell to {:.0}% of {burst:.0} MHz or below of power x burst clock / clock ({loops})",
                100.0 * super::power::FELL
            )),
        );
        put(
            doc,
            &["power-limit", "attention-clock-exponent"],
            ((b * 1000.0).round() / 1000.0).into(),
            cite(&format!(
                "the mean over the same loops of ln(settled / first call) / ln(burst clock / clock), at most 1 ({loops})"
            )),
        );
    }
    if let Some((v, n)) = p.compute_w {
        put(
            doc,
            &["package", "compute-watts"],
            w(v),
            cite(&format!(
                "the median of {n} power_gemm row(s) of GEMMs back to back, the clock below {burst:.0} MHz: what the board holds at its limit"
            )),
        );
    }
    if let Some((v, n)) = p.stream_w {
        put(
            doc,
            &["package", "stream-watts"],
            w(v),
            cite(&format!(
                "the median of {n} power_stream row(s): device-to-device copies back to back"
            )),
        );
    }
}

/// Sets `<root>.<path>`, making the tables on the way.
fn set_in(doc: &mut DocumentMut, root: &str, path: &[&str], v: toml_edit::Value) {
    let (last, parents) = path.split_last().expect("a non-empty path");
    let mut t: &mut Table = doc.as_table_mut();
    for key in std::iter::once(&root).chain(parents.iter()) {
        let entry = t.entry(key).or_insert_with(|| {
            let mut n = Table::new();
            n.set_implicit(true);
            Item::Table(n)
        });
        if entry.as_table().is_none() {
            // An inline table (`launch = { graph = "1 us" }`) becomes a
            // plain one so a key can be added to it.
            let inline = entry.as_inline_table().cloned().unwrap_or_default();
            *entry = Item::Table(inline.into_table());
        }
        t = entry.as_table_mut().expect("made a table");
    }
    t[*last] = Item::Value(v);
}
