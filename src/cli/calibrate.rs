//! `calibrate`: argument glue. Reads the base part and the measurement
//! file, runs the fit (`calc::calibrate`), writes the calibrated hardware
//! file where `--out` says, and reports the held-out error.

use clap::Args;
use roofline::calc::calibrate::{self, Inputs};
use roofline::error::{Error, Result};
use roofline::query::Context;
use roofline::report::Report;
use std::path::{Path, PathBuf};

pub const AFTER: &str = "\
Examples:
  python3 validation/calibrate.py --out my-h100.csv      # on the GPU, under 5 minutes
  roofline calibrate --hw h100-sxm my-h100.csv --out my-h100.toml
  roofline decode --model llama-3-8b --hw my-h100.toml --batch 32 --context 8192 --achievable
  roofline calibrate --hw h200-sxm validation/results/2026-12-01-h200/calibrate-h200.csv
  roofline calibrate --hw h200-sxm validation/results/2026-12-01-h200/calibrate-h200.csv --format json

Fits the [achievable] figures (stream bandwidth, GEMM rates, sustained
rates, launch costs, kernel overhead, the eager matmul call, flash
attention's efficiency, and from the power loops the power limit over a
step) on three quarters of the GEMM, attention and decode-step rows,
predicts the rest, and prints the error on them. The
file written is the base part's with those figures, their sources (file,
SHA-256, device, driver, date) and a [calibration] table; --hw accepts it.
A file measured on another device is refused unless --force.";

/// `calibrate` flags.
#[derive(Debug, Args)]
#[command(after_help = AFTER)]
pub struct CalibrateArgs {
    /// The part the measurements were taken on (id or path): its file is
    /// the base the figures go into.
    #[arg(long)]
    pub hw: String,
    /// The measurement file calibrate.py wrote (CSV).
    pub file: PathBuf,
    /// Where to write the calibrated hardware file (TOML); its name is the
    /// new part's id. Without it, only the fit and its error are printed.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Fit a file whose device name does not match the base part.
    #[arg(long)]
    pub force: bool,
}

/// Runs `calibrate`.
pub fn run(a: &CalibrateArgs, ctx: &Context) -> Result<Vec<Report>> {
    if ctx.mode == roofline::spec::hardware::Mode::Achievable {
        return Err(Error::usage(
            "--achievable",
            "calibrate fits the achievable figures and uses none; give --achievable to the commands that read the file it writes",
        ));
    }
    let base = ctx.catalog.hardware(&a.hw, &[])?;
    let (base_text, base_name) = ctx.catalog.hardware_text(&a.hw)?;
    // The base found by id in --hw-dir is a file too: the calibrated
    // file is written beside it, never over it.
    if let Some(out) = &a.out
        && super::output::same_file(Path::new(&base_name), out)
    {
        return Err(Error::input(
            "--out",
            format!(
                "`{}` is the file --hw {} reads; writing it would replace the base part: give another name",
                out.display(),
                a.hw
            ),
        ));
    }
    let file = a.file.display().to_string();
    let csv = std::fs::read_to_string(&a.file).map_err(|e| Error::Io {
        path: file.clone(),
        source: e,
    })?;
    let id = match &a.out {
        Some(p) => super::output::hardware_id(p)?,
        None => format!("{}-calibrated", base.id),
    };
    let model = |id: &str| ctx.catalog.model(id, &[]).map(std::rc::Rc::new);
    let c = calibrate::calibrate(&Inputs {
        base: &base,
        base_text: &base_text,
        csv: &csv,
        file: &file,
        id: &id,
        force: a.force,
        model: &model,
    })?;
    let mut r = c.report();
    if let Some(out) = &a.out {
        super::output::write_atomic(out, c.toml.as_bytes()).map_err(|e| Error::Write {
            path: out.display().to_string(),
            source: e,
        })?;
        r.input("out", out.display().to_string());
        r.note(format!(
            "wrote {}: use it as --hw {} (with --achievable)",
            out.display(),
            out.display()
        ));
    } else {
        r.note("no --out: nothing written");
    }
    Ok(vec![r])
}
