//! The integration tests as one binary of modules: each file beside this
//! one is a topic, and `catalog/` a folder of them. One binary links the
//! crate once, where one binary per file linked it forty-one times (the
//! cold build and test times are in README.md). `common` holds the
//! helpers every topic shares.

mod common;

#[path = "catalog/main.rs"]
mod catalog;

#[path = "achievable_errors.rs"]
mod achievable_errors;

#[path = "achievable_validation.rs"]
mod achievable_validation;

#[path = "broken_pipe.rs"]
mod broken_pipe;

#[path = "calc.rs"]
mod calc;
#[path = "calibrate.rs"]
mod calibrate;

#[path = "catalog_data.rs"]
mod catalog_data;

#[path = "catalog_snapshots.rs"]
mod catalog_snapshots;

#[path = "catalog_user_files.rs"]
mod catalog_user_files;

#[path = "chart.rs"]
mod chart;

#[path = "chart_gallery.rs"]
mod chart_gallery;

#[path = "cli.rs"]
mod cli;

#[path = "coalesce.rs"]
mod coalesce;

#[path = "collective.rs"]
mod collective;

#[path = "declared.rs"]
mod declared;

#[path = "deepgemm_h800.rs"]
mod deepgemm_h800;

#[path = "decode.rs"]
mod decode;

#[path = "decode_tp.rs"]
mod decode_tp;

#[path = "doc_examples.rs"]
mod doc_examples;

#[path = "fleet_check.rs"]
mod fleet_check;

#[path = "floors.rs"]
mod floors;

#[path = "fusion.rs"]
mod fusion;

#[path = "power_consistency.rs"]
mod power_consistency;

#[path = "fuzz.rs"]
mod fuzz;

#[path = "golden.rs"]
mod golden;

#[path = "kv.rs"]
mod kv;

#[path = "models_2026.rs"]
mod models_2026;

#[path = "launch.rs"]
mod launch;

#[path = "launch_floor.rs"]
mod launch_floor;

#[path = "speed_of_light_h100.rs"]
mod speed_of_light_h100;

#[path = "small_models.rs"]
mod small_models;

#[path = "littles_law.rs"]
mod littles_law;

#[path = "matmul.rs"]
mod matmul;

#[path = "matmul_properties.rs"]
mod matmul_properties;

#[path = "matmul_snapshots.rs"]
mod matmul_snapshots;

#[path = "matmul_validation.rs"]
mod matmul_validation;

#[path = "model.rs"]
mod model;

#[path = "number_format.rs"]
mod number_format;

#[path = "occupancy.rs"]
mod occupancy;

#[path = "packaging.rs"]
mod packaging;

#[path = "plan.rs"]
mod plan;

#[path = "power_validation.rs"]
mod power_validation;

#[path = "precision_golden.rs"]
mod precision_golden;

#[path = "prefill.rs"]
mod prefill;

#[path = "robustness.rs"]
mod robustness;

#[path = "robustness_iv.rs"]
mod robustness_iv;

#[path = "plausible_ranges.rs"]
mod plausible_ranges;

#[path = "roofline.rs"]
mod roofline;

#[path = "scenarios.rs"]
mod scenarios;

#[path = "serving_golden.rs"]
mod serving_golden;

#[path = "serving_snapshots.rs"]
mod serving_snapshots;

#[path = "serving_speculative.rs"]
mod serving_speculative;

#[path = "sweep_properties.rs"]
mod sweep_properties;

#[path = "terminal_width.rs"]
mod terminal_width;

#[path = "engines.rs"]
mod engines;

#[path = "every_part.rs"]
mod every_part;

#[path = "weights.rs"]
mod weights;

#[path = "writes.rs"]
mod writes;
