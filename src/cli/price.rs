//! The price flags every command with an energy answer takes: `--price`,
//! `--energy-price` and `--pue` (formulas.md, "Cost per token").

use clap::Args;
use serde::Serialize;

/// Price flags (plain numbers: the currency is yours).
#[derive(Debug, Clone, Args, Serialize)]
#[serde(rename_all = "kebab-case")]
#[command(next_help_heading = "Cost")]
pub struct PriceArgs {
    /// Price of one device for an hour, as AMOUNT/h (2.50/h; also /min,
    /// /s): gives cost per million tokens. A plain number in your
    /// currency.
    #[arg(long, value_name = "AMOUNT/h")]
    pub price: Option<String>,
    /// Price of energy, as AMOUNT/kWh (0.10/kWh; also /MWh, /Wh): adds
    /// the energy bill to the cost and reports its share.
    #[arg(long, value_name = "AMOUNT/kWh")]
    pub energy_price: Option<String>,
    /// Power usage effectiveness, at least 1 (default 1): scales the
    /// energy bill only (facility energy over device energy).
    #[arg(long, requires = "energy_price")]
    pub pue: Option<String>,
}
