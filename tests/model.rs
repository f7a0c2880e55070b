//! `model show`'s typed cost: counts that would overflow 64 bits are errors
//! naming the field, the model loader names the field of an integer TOML
//! cannot hold, and properties of the cost over generated architectures.
//! (The `model-spec` golden cases are in tests/catalog/models.rs, beside the
//! catalog they check.)

use proptest::prelude::*;
use roofline::calc::model::{self, ModelInputs};
use roofline::catalog::Catalog;
use roofline::error::Error;
use roofline::spec::Origin;
use roofline::spec::model::Model;
use roofline::spec::overrides::Set;

const LLAMA: &str = include_str!("../models/llama-3-8b.toml");

fn origin() -> Origin {
    Origin {
        name: "test.toml".into(),
        overridden: false,
    }
}

fn with_sets(id: &str, sets: &[&str]) -> Model {
    let sets: Vec<Set> = sets.iter().map(|s| s.parse().unwrap()).collect();
    Catalog::default().model(id, &sets).expect("model loads")
}

/// The field a data error names.
fn field(e: &Error) -> Option<&str> {
    match e {
        Error::Data { field, .. } => field.as_deref(),
        _ => None,
    }
}

/// 2^53, the largest count a file may give (`roofline::inputs::MAX_COUNT`).
const BOUND: &str = "9007199254740992";

#[test]
fn a_count_above_the_bound_is_refused_where_it_enters() {
    for (set, want) in [
        ("layers=9223372036854775807", "layers"),
        ("attention.head-dim=9007199254740993", "attention.head-dim"),
        ("hidden-size=9007199254740993", "hidden-size"),
    ] {
        let sets: Vec<Set> = vec![set.parse().unwrap()];
        let e = Catalog::default().model("llama-3-8b", &sets).unwrap_err();
        assert_eq!(e.exit_code(), 65);
        assert_eq!(field(&e), Some(want), "{e}");
        assert!(e.to_string().contains("2^53"), "{e}");
    }
}

#[test]
fn huge_layers_is_an_error_naming_layers() {
    let m = with_sets("llama-3-8b", &[&format!("layers={BOUND}")]);
    let e = model::params(&m).unwrap_err();
    assert_eq!(e.exit_code(), 65);
    assert_eq!(field(&e), Some("layers"), "{e}");
    let e = model::cost(&m, &ModelInputs::default()).unwrap_err();
    assert_eq!(field(&e), Some("layers"), "{e}");
}

#[test]
fn huge_head_dim_is_an_error_naming_head_dim() {
    let m = with_sets("llama-3-8b", &[&format!("attention.head-dim={BOUND}")]);
    let e = model::params(&m).unwrap_err();
    assert_eq!(e.exit_code(), 65);
    assert_eq!(field(&e), Some("attention.head-dim"), "{e}");
    // The KV count alone (2 x 8 KV heads x 2^53) fits in 64 bits: exact.
    assert_eq!(
        model::kv_elements_per_token_per_layer(&m).unwrap(),
        2 * 8 * (1u64 << 53)
    );
}

#[test]
fn huge_hidden_size_is_an_error_naming_hidden_size() {
    let m = with_sets(
        "llama-3-8b",
        &[&format!("hidden-size={BOUND}"), "attention.head-dim=1"],
    );
    let e = model::params(&m).unwrap_err();
    assert_eq!(field(&e), Some("hidden-size"), "{e}");
}

#[test]
fn an_integer_beyond_i64_is_named_by_its_own_field() {
    // `toml` reads 2^63 (a u64); `toml_edit` and TOML itself do not. The
    // loader used to report the `[sources]` table, which it could no longer
    // locate, instead of the number.
    for (from, to, want) in [
        ("layers = 32", "layers = 9223372036854775808", "layers"),
        (
            "head-dim = 128",
            "head-dim = 18446744073709551615",
            "attention.head-dim",
        ),
        ("layers = 32", "layers = 18446744073709551616", "layers"),
    ] {
        let text = LLAMA.replacen(from, to, 1);
        let e = Model::parse(&text, &origin()).unwrap_err();
        assert_eq!(e.exit_code(), 65);
        assert_eq!(field(&e), Some(want), "{to}: {e}");
        let Error::Data { line, .. } = &e else {
            unreachable!()
        };
        let expected = text.lines().position(|l| l.contains(to)).unwrap() + 1;
        assert_eq!(*line, Some(expected), "{e}");
    }
    // At i64::MAX the file is valid TOML, and the count is above 2^53: it
    // is refused by the bound, still named by its field and line.
    let text = LLAMA.replacen("layers = 32", "layers = 9223372036854775807", 1);
    let e = Model::parse(&text, &origin()).unwrap_err();
    assert_eq!(field(&e), Some("layers"), "{e}");
    assert!(e.to_string().contains("2^53"), "{e}");
}

#[test]
fn precisions_are_fields() {
    let m = with_sets("llama-3-8b", &[]);
    let e = model::cost(
        &m,
        &ModelInputs {
            kv_dtype: Some("fp7".into()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::Field { field, .. } if field == "kv-dtype"),
        "{e}"
    );
}

#[test]
fn a_lean_report_has_the_same_values() {
    let c = model::cost(&with_sets("deepseek-v3", &[]), &ModelInputs::default()).unwrap();
    let (full, lean) = (c.report(false), c.report(true));
    assert_eq!(full.results, lean.results);
    assert!(lean.quantities.is_empty() && lean.notes.is_empty());
}

fn size() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => 1u64..100_000,
        1 => 1u64..=roofline::inputs::MAX_COUNT,
    ]
}

prop_compose! {
    /// A dense or MoE model file that parses: sizes anywhere from 1 to
    /// 2^53 (the bound a file's counts pass), KV heads dividing the query
    /// heads.
    fn model_text()(
        layers in size(), hidden in size(), vocab in size(), kv in 1u64..64, group in 1u64..16,
        head_dim in size(), ff in size(), tied in any::<bool>(), layernorm in any::<bool>(),
        moe in prop::option::of((1u64..300, 0u64..3, size())),
    ) -> String {
        let heads = kv * group;
        let mut t = format!(
            "id = \"gen\"\nname = \"generated\"\nlayers = {layers}\nhidden-size = {hidden}\n\
             vocab-size = {vocab}\ntied-embeddings = {tied}\nnorm = \"{}\"\n\n\
             [attention]\nkind = \"gqa\"\nheads = {heads}\nkv-heads = {kv}\nhead-dim = {head_dim}\n\n\
             [ffn]\nintermediate-size = {ff}\nactivation = \"swiglu\"\n",
            if layernorm { "layernorm" } else { "rmsnorm" }
        );
        if let Some((experts, shared, eff)) = moe {
            t.push_str(&format!(
                "\n[moe]\nrouted-experts = {experts}\nshared-experts = {shared}\n\
                 experts-per-token = {}\nexpert-intermediate-size = {eff}\n",
                experts.min(8)
            ));
        }
        t
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn model_cost_never_panics(text in model_text(), dtype in prop_oneof![Just("bf16"), Just("fp4"), Just("int4")]) {
        let m = Model::parse(&text, &origin());
        prop_assert!(m.is_ok(), "{text}\n{:?}", m.err());
        let m = m.unwrap();
        let i = ModelInputs { dtype: Some(dtype.into()), kv_dtype: Some("fp8".into()) };
        match model::cost(&m, &i) {
            Ok(c) => {
                prop_assert!(c.params.total > 0 && c.params.active <= c.params.total);
                for v in [c.weight_bytes, c.active_weight_bytes, c.kv_bytes_per_token, c.kv_bytes_per_token_per_layer] {
                    prop_assert!(v.is_finite() && v > 0.0, "{v}");
                }
                let r = c.report(true);
                for (k, v) in &r.results {
                    if let Some(x) = v.as_f64() {
                        prop_assert!(x.is_finite(), "{k} = {x}");
                    }
                }
            }
            Err(e) => {
                prop_assert_eq!(e.exit_code(), 65);
                prop_assert!(field(&e).is_some(), "{e}");
            }
        }
    }
}
