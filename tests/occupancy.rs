//! Occupancy against NVIDIA's calculator (all 200 rows of
//! ../shared/ground/occupancy-sample.csv, copied to tests/data/occupancy/, on the fixture files of
//! tests/data/occupancy/) and the seeds' worked examples, by golden id.

use roofline::calc::occupancy::{Kernel, limits, occupancy};
use roofline::catalog::Catalog;
use roofline::spec::hardware::Hardware;
use roofline::spec::overrides::Set;

fn fixture(id: &str) -> Hardware {
    Catalog::default()
        .hardware(&format!("tests/data/occupancy/{id}.toml"), &[])
        .unwrap_or_else(|e| panic!("{e}"))
}

fn h100() -> Hardware {
    Catalog::default().hardware("h100-sxm", &[]).unwrap()
}

fn kernel(threads: u64, regs: u64, smem: u64) -> Kernel {
    Kernel {
        threads,
        regs,
        smem,
        ..Kernel::default()
    }
}

fn num(r: &roofline::report::Report, k: &str) -> f64 {
    r.number(k).unwrap_or_else(|| panic!("no {k}"))
}

const SAMPLE: &str = include_str!("data/occupancy/occupancy-sample.csv");

#[test]
fn all_200_rows_of_nvidias_calculator() {
    let devices: Vec<(&str, Hardware)> = [
        ("H200", "h200"),
        ("A100", "a100"),
        ("B200", "b200"),
        ("RTX5090", "rtx5090"),
        ("V100", "v100"),
    ]
    .into_iter()
    .map(|(name, id)| (name, fixture(id)))
    .collect();
    let mut rows = 0;
    let mut wrong = Vec::new();
    for line in SAMPLE.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let hw = &devices.iter().find(|(n, _)| *n == f[0]).expect(f[0]).1;
        let k = kernel(
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
        );
        let want: u64 = f[4].parse().unwrap();
        let got = limits(hw, &k).unwrap().blocks_per_sm();
        if got != want {
            wrong.push(format!("{line}: got {got}"));
        }
        rows += 1;
    }
    assert_eq!(rows, 200);
    assert!(wrong.is_empty(), "{} rows differ:\n{}", wrong.len(), wrong.join("\n"));
}
