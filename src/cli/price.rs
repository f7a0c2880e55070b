//! The price flags every command with an energy answer takes: `--price`,
//! `--energy-price` and `--pue` (formulas.md, "Cost per token"), as the
//! library declares them ([`roofline::query::declared::PRICES`]).

use roofline::inputs::Fields;
use roofline::query::declared::PRICES;
use serde::Serialize;

/// Price flags (plain numbers: the currency is yours): the fields given,
/// flattened into the command's own.
#[derive(Debug, Clone, Serialize)]
pub struct PriceArgs {
    #[serde(flatten)]
    fields: Fields,
}

impl clap::FromArgMatches for PriceArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(Self {
            fields: super::declared::group_fields(m, PRICES),
        })
    }
    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.fields = super::declared::group_fields(m, PRICES);
        Ok(())
    }
}

impl clap::Args for PriceArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        super::declared::augment_group(cmd, PRICES)
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}
