//! Charts through the library: the data each chart is built from, the SVG
//! text a person reads (snapshots), PNG size, and the errors for nothing to
//! draw.

use roofline::calc::decode::DecodeInputs;
use roofline::calc::matmul::MatmulInputs;
use roofline::calc::occupancy::OccupancyInputs;
use roofline::calc::point::{self, PointInputs};
use roofline::catalog::Catalog;
use roofline::chart::roofline::KernelMark;
use roofline::chart::{
    self, Chart, ChartFormat, DecodeData, OccupancyData, RooflineData, SweepData, TilesData,
};
use roofline::inputs::Count;
use roofline::report::Report;
use roofline::spec::hardware::{Hardware, Mode};
use roofline::sweep::{self, Axis};

fn hw(id: &str) -> Hardware {
    Catalog::default().hardware(id, &[]).unwrap()
}

fn svg(c: &Chart) -> String {
    String::from_utf8(chart::render(c, ChartFormat::Svg).unwrap()).unwrap()
}

/// Every text element of an SVG as `x,y anchor: text`, in drawing order:
/// what a person reads and where it sits.
fn texts(svg: &str) -> String {
    let mut out = String::new();
    let mut rest = svg;
    while let Some(i) = rest.find("<text ") {
        rest = &rest[i..];
        let end = rest.find("</text>").unwrap();
        let el = &rest[..end];
        let attr = |name: &str| {
            let key = format!(" {name}=\"");
            el.find(&key).map_or("", |j| {
                let v = &el[j + key.len()..];
                &v[..v.find('"').unwrap()]
            })
        };
        let body = el[el.find('>').unwrap() + 1..].trim();
        out.push_str(&format!(
            "{},{} {}: {}\n",
            attr("x"),
            attr("y"),
            attr("text-anchor"),
            body
        ));
        rest = &rest[end..];
    }
    out
}

fn roofline_data() -> RooflineData {
    RooflineData::build(
        &[hw("h100-sxm"), hw("b200"), hw("mi355x")],
        &["bf16".into(), "fp8".into()],
        vec![
            KernelMark::parse("decode:1").unwrap(),
            KernelMark::parse("prefill 4K:4100").unwrap(),
        ],
        false,
    )
    .unwrap()
}

#[test]
fn roofline_roofs_are_the_library_roofs() {
    let d = roofline_data();
    assert_eq!(d.roofs.len(), 6);
    let h100 = &d.roofs[0];
    assert_eq!(
        (h100.hardware.as_str(), h100.dtype.as_str()),
        ("h100-sxm", "bf16")
    );
    // 989 TFLOP/s over 3.35 TB/s (002 §7.4).
    assert!((h100.roof.ridge() - 295.22).abs() < 0.01);
    // One colour per accelerator, whatever the precision.
    assert_eq!(d.roofs[0].color, d.roofs[1].color);
    assert_ne!(d.roofs[1].color, d.roofs[2].color);
    assert!(d.notes.is_empty());
    let ((x0, x1), (y0, y1)) = d.ranges();
    assert!(x0 <= 0.25 && x1 >= 4100.0 * 2.0);
    assert!(y0 < 3.35e12 * x0 && y1 > 2.5e15 * 2.0);
}

#[test]
fn roofline_svg_text() {
    let s = svg(&Chart::Roofline(roofline_data()));
    assert!(s.starts_with("<svg width=\"1200\" height=\"800\""));
    insta::assert_snapshot!("roofline-text", texts(&s));
}

#[test]
fn roofline_svg_whole() {
    let d = RooflineData::build(&[hw("h200-sxm")], &[], vec![], true).unwrap();
    assert_eq!(d.roofs.len(), 2);
    assert!(d.roofs[1].measured);
    insta::assert_snapshot!("roofline-h200-achievable", svg(&Chart::Roofline(d)));
}

#[test]
fn integer_roofs_are_drawn_in_operations() {
    // TPU v1 computes in int8: 92 TOPS (its datasheet's unit), not FLOP/s.
    let only_int = RooflineData::build(
        &[hw("tpu-v1")],
        &[],
        vec![KernelMark::parse("gemm:300").unwrap()],
        false,
    )
    .unwrap();
    assert_eq!(only_int.op_units(), ("TOP/s", "OP/B"));
    let t = texts(&svg(&Chart::Roofline(only_int)));
    assert!(t.contains("attainable throughput (TOP/s)"), "{t}");
    assert!(t.contains("arithmetic intensity (OP/byte)"), "{t}");
    assert!(t.contains("gemm (300 OP/B)"), "{t}");
    assert!(!t.contains("FLOP"), "{t}");
    // int8 beside bf16 on one chart: the axes name both.
    let mixed = RooflineData::build(&[hw("tpu-v1"), hw("h100-sxm")], &[], vec![], false).unwrap();
    assert_eq!(mixed.op_units(), ("TFLOP/s or TOP/s", "FLOP/B or OP/B"));
    assert_eq!(roofline_data().op_units(), ("TFLOP/s", "FLOP/B"));
}

#[test]
fn roofline_leaves_out_what_a_part_lacks() {
    let d = RooflineData::build(
        &[hw("h100-sxm"), hw("b200")],
        &["fp4".into()],
        vec![],
        false,
    )
    .unwrap();
    assert_eq!(d.roofs.len(), 1);
    assert_eq!(d.roofs[0].hardware, "b200");
    assert!(d.notes[0].contains("h100-sxm has no fp4"), "{:?}", d.notes);
}

#[test]
fn roofline_with_nothing_to_draw_is_an_error() {
    let e = RooflineData::build(&[], &[], vec![], false).unwrap_err();
    assert_eq!(e.exit_code(), 65);
    let e = RooflineData::build(&[hw("h100-sxm")], &["fp4".into()], vec![], false).unwrap_err();
    assert_eq!(e.exit_code(), 65);
    assert!(e.to_string().contains("nothing to draw"), "{e}");
    // Measured roofs asked for where none are recorded.
    let e = RooflineData::build(&[hw("h800")], &[], vec![], true).unwrap_err();
    assert_eq!(e.exit_code(), 65);
}

#[test]
fn png_is_wide_enough() {
    let png = chart::render(&Chart::Roofline(roofline_data()), ChartFormat::Png).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert!(width >= 1000, "{width}");
    assert_eq!((width, height), (1200, 800));
}

fn occupancy_data() -> OccupancyData {
    OccupancyData::build(&hw("h100-sxm"), &OccupancyInputs::new(256, 64, 32768)).unwrap()
}

#[test]
fn occupancy_curves_pass_through_the_kernel() {
    let d = occupancy_data();
    // 64 registers x 256 threads: 4 blocks of 8 warps = 32 of 64 warps.
    assert_eq!(d.occupancy, 0.5);
    assert_eq!(d.panels.len(), 3);
    for p in &d.panels {
        let at = p.points.iter().find(|(x, _)| *x == p.current).unwrap();
        assert_eq!(at.1, d.occupancy, "{}", p.varies);
    }
    // Fewer registers never lower occupancy.
    let regs = &d.panels[0].points;
    assert!(regs.windows(2).all(|w| w[0].1 >= w[1].1));
    assert_eq!(regs.len(), 255);
    insta::assert_snapshot!("occupancy-text", texts(&svg(&Chart::Occupancy(d))));
}

#[test]
fn occupancy_refuses_what_cannot_launch() {
    let e = OccupancyData::build(
        &hw("h100-sxm"),
        &OccupancyInputs {
            threads: Some(Count(2048)),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 65);
    assert!(e.to_string().contains("field `threads`"), "{e}");
    assert!(OccupancyData::build(&hw("tpu7x"), &Default::default()).is_err());
}

#[test]
fn tiles_follow_the_lecture_table() {
    let d = TilesData::build(
        &hw("h100-sxm"),
        &MatmulInputs::new(4096, 4096, 4096),
        Mode::SpeedOfLight,
    )
    .unwrap();
    let at = |t: u64| d.points.iter().find(|p| p.tile == t).unwrap();
    // 002 §7.8: b*M*N*K*(2/BLOCK) = 2*4096^3*2/128 = 2.15 GB at 128.
    assert!((at(128).bytes - 2.147e9).abs() < 1e6);
    assert!((at(32).bytes / at(64).bytes - 2.0).abs() < 1e-9);
    // The 256x256 fp32 accumulator is the whole 256 KiB register file.
    assert_eq!(d.register_limit.unwrap().0, 256.0);
    // (2*T*64)*2 B*2 stages <= 227 KiB: T <= 454.
    assert_eq!(d.smem_limit.unwrap().0.floor(), 454.0);
    assert!((d.compute_s - 137.4e9 / 989e12).abs() < 1e-7);
    insta::assert_snapshot!("tiles-text", texts(&svg(&Chart::Tiles(d))));
}

/// `point --hw h100-sxm,b200 --sweep intensity=1..256` through the
/// library's sweep engine.
fn point_sweep() -> Report {
    let cat = Catalog::default();
    let axes = [
        Axis {
            name: "hw".into(),
            values: vec!["h100-sxm".into(), "b200".into()].into(),
        },
        sweep::parse("intensity=1..256").unwrap().into(),
    ];
    sweep::evaluate(&axes, |p, lean| {
        let hw = cat.hardware(p[0].1.as_str().unwrap(), &[])?;
        let i: f64 = p[1].1.as_str().unwrap().parse().unwrap();
        Ok(point::cost(
            &hw,
            &PointInputs::at_intensity(i, "bf16"),
            Mode::SpeedOfLight,
        )?
        .report(lean))
    })
    .unwrap()
}

#[test]
fn a_sweep_draws_one_series_per_accelerator() {
    let r = point_sweep();
    let d = SweepData::from_report(&r, &[]).unwrap();
    assert_eq!(d.x_key, "intensity");
    assert!(d.x_log, "a powers-of-two sweep gets a log axis");
    assert_eq!(d.panels.len(), 1);
    assert_eq!(d.panels[0].key, "attainable_flops_per_s");
    let labels: Vec<&str> = d.panels[0]
        .series
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(labels, ["h100-sxm", "b200"]);
    assert_eq!(d.panels[0].series[0].points.len(), 9);
    assert_eq!(d.panels[0].series[0].points[0], (1.0, 3.35e12));
    insta::assert_snapshot!("sweep-point-text", texts(&svg(&Chart::Sweep(d))));

    let two = SweepData::from_report(
        &r,
        &["attainable_flops_per_s".into(), "fraction_of_peak".into()],
    )
    .unwrap();
    assert_eq!(two.panels.len(), 2);
    assert_eq!(two.panels[1].scale.unit, "%");
}

#[test]
fn a_sweep_across_precisions_names_both_units() {
    // bf16 and int8 at intensity 10 on an H100: 33.5 TFLOP/s and 33.5 TOP/s
    // (10 x 3.35 TB/s), each point built in full as the CLI does.
    let h = hw("h100-sxm");
    let axes = [
        sweep::parse("dtype=bf16,int8").unwrap().into(),
        sweep::parse("intensity=1..16").unwrap().into(),
    ];
    let r = sweep::evaluate(&axes, |p, _| {
        let i: f64 = p[1].1.as_str().unwrap().parse().unwrap();
        let d = p[0].1.as_str().unwrap();
        Ok(point::cost(&h, &PointInputs::at_intensity(i, d), Mode::SpeedOfLight)?.report(false))
    })
    .unwrap();
    let d = SweepData::from_report(&r, &[]).unwrap();
    assert_eq!(d.panels[0].scale.unit, "TFLOP/s or TOP/s");
    // int8 alone: integer operations only.
    let int8 = point_sweep_at("int8");
    let d = SweepData::from_report(&int8, &[]).unwrap();
    assert_eq!(d.panels[0].scale.unit, "TOP/s");
    assert_eq!(d.x_scale.unit, "OP/B");
}

fn point_sweep_at(dtype: &str) -> Report {
    let h = hw("h100-sxm");
    sweep::evaluate(
        &[sweep::parse("intensity=1..256").unwrap().into()],
        |p, lean| {
            let i: f64 = p[0].1.as_str().unwrap().parse().unwrap();
            Ok(
                point::cost(&h, &PointInputs::at_intensity(i, dtype), Mode::SpeedOfLight)?
                    .report(lean),
            )
        },
    )
    .unwrap()
}

#[test]
fn a_sweep_chart_names_what_it_cannot_draw() {
    let r = point_sweep();
    let e = SweepData::from_report(&r, &["bound".into()]).unwrap_err();
    assert!(e.to_string().contains("not a number"), "{e}");
    let e = SweepData::from_report(&r, &["nope".into()]).unwrap_err();
    assert!(e.to_string().contains("attainable_flops_per_s"), "{e}");
    assert_eq!(e.exit_code(), 65);
    // One point: nothing to draw.
    let one = point::cost(
        &hw("h100-sxm"),
        &PointInputs::at_intensity(1.0, "bf16"),
        Mode::SpeedOfLight,
    )
    .unwrap()
    .report(false);
    let e = SweepData::from_report(&one, &[]).unwrap_err();
    assert!(e.to_string().contains("nothing to draw"), "{e}");
    assert_eq!(e.exit_code(), 65);
    // A comparison without a sweep: nothing along x.
    let mut cmp = r.clone();
    cmp.axes = vec!["hardware".into()];
    for row in &mut cmp.rows {
        row.inputs.shift_remove("intensity");
    }
    let e = SweepData::from_report(&cmp, &[]).unwrap_err();
    assert!(e.to_string().contains("no swept input"), "{e}");
}

fn decode_inputs() -> DecodeInputs {
    roofline::inputs::from_fields(
        serde_json::json!({"batch": 1, "context": 2048})
            .as_object()
            .unwrap(),
    )
    .unwrap()
}

#[test]
fn decode_curves_trade_user_speed_for_device_throughput() {
    let model = Catalog::default().model("llama-3-8b", &[]).unwrap();
    let d = DecodeData::build(
        &model,
        &[hw("h100-sxm"), hw("h200-sxm")],
        &decode_inputs(),
        1024,
        Mode::SpeedOfLight,
    )
    .unwrap();
    assert_eq!(d.series.len(), 2);
    for s in &d.series {
        // Throughput per device grows with the batch, speed per user falls.
        assert!(
            s.points
                .windows(2)
                .all(|w| w[1].per_device > w[0].per_device)
        );
        assert!(s.points.windows(2).all(|w| w[1].per_user < w[0].per_user));
        // The curve ends at the largest batch whose KV fits.
        let limit = s
            .kv_limit
            .expect("an 8B model at 2K context fills 80 GB before batch 1024");
        assert_eq!(s.points.last().unwrap().batch, limit);
        assert_eq!(s.points[0].batch, 1);
    }
    // More memory holds more sequences.
    assert!(d.series[1].kv_limit > d.series[0].kv_limit);
    insta::assert_snapshot!("decode-text", texts(&svg(&Chart::Decode(d))));
}

#[test]
fn decode_with_nothing_that_holds_the_model_is_an_error() {
    let model = Catalog::default().model("deepseek-v3", &[]).unwrap();
    let e = DecodeData::build(
        &model,
        &[hw("h100-sxm")],
        &decode_inputs(),
        64,
        Mode::SpeedOfLight,
    )
    .unwrap_err();
    assert_eq!(e.exit_code(), 65);
    assert!(e.to_string().contains("nothing to draw"), "{e}");
}

#[test]
fn the_default_result_changes_along_the_sweep() {
    use roofline::report::{Row, RowsKind};
    let mut r = Report::new("custom");
    r.axes = vec!["hardware".into(), "x".into()];
    r.rows_kind = Some(RowsKind::Sweep);
    for (hw, per_hw) in [("a", 1.0), ("b", 2.0)] {
        for x in [1.0, 2.0, 4.0] {
            let mut row = Row::default();
            row.inputs.insert("hardware".into(), hw.into());
            row.inputs.insert("x".into(), x.into());
            // `fixed` differs only between accelerators; `along` with x.
            row.results.insert("fixed".into(), per_hw.into());
            row.results.insert("along".into(), (x * per_hw).into());
            r.rows.push(row);
        }
    }
    let d = SweepData::from_report(&r, &[]).unwrap();
    assert_eq!(d.panels[0].key, "along");
    assert_eq!(d.panels[0].series.len(), 2);
    assert!(d.x_log, "1, 2, 4 is a powers-of-two sweep");
}

/// A streamed sweep (CSV or JSON) keeps only numbers for its chart; the
/// chart it draws is the one a collected sweep (a table) draws from whole
/// rows, byte for byte, when every point is kept.
#[test]
fn a_streamed_sweep_draws_the_chart_a_collected_one_does() {
    let dir = std::env::temp_dir().join(format!("roofline-chart-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for args in [
        "decode --model llama-3-8b --hw h100-sxm,h200-sxm --context 8192 --sweep batch=1..64:1",
        "point --hw h100-sxm --sweep dtype=bf16,int8 --sweep intensity=1..1024",
    ] {
        let svg = |format: &str, name: &str| {
            let path = dir.join(name);
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_roofline"))
                .args(args.split(' '))
                .args(["--format", format, "--chart"])
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{args}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::fs::read(&path).unwrap()
        };
        let streamed = svg("csv", "streamed.svg");
        assert!(streamed.starts_with(b"<svg"), "{args}");
        assert!(streamed == svg("table", "collected.svg"), "{args}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A dense, noisy series (a simulated run's latest TTFT) drawn as PNG stays
/// inside its panel. plotters' bitmap stroke once joined wide segments
/// with unlimited miters, so a sharp turn drew a spike up through the
/// panel above; SVG viewers limit miters and were clean. The check: the
/// strip between one panel's axis label and the next panel's plot (the
/// margin at the top of each panel, all background) holds no pixel of a
/// series colour.
#[test]
fn a_dense_series_stays_in_its_panel_as_png() {
    use roofline::chart::style;
    let dir = std::env::temp_dir().join(format!("roofline-chart-clip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("load.png");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_roofline"))
        .args(
            "simulate --model llama-3-8b --hw h200-sxm --rate 30/s --prompt 2048 --output 256 --prefix-hit 50% --requests 2000 --chart"
                .split(' '),
        )
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&path).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; dec.output_buffer_size().unwrap()];
    let info = dec.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let (w, h) = (info.width as usize, info.height as usize);
    // Three panels (running, KV held, latest TTFT) below the title band.
    let panel = (h - style::TITLE_BAND as usize) / 3;
    assert_eq!(panel, style::PANEL_HEIGHT as usize);
    let line = style::color(0);
    let mut strays = 0;
    for k in 1..3 {
        let top = style::TITLE_BAND as usize + k * panel;
        for y in top..top + style::MARGIN as usize {
            for x in 0..w {
                let p = &buf[(y * w + x) * 3..][..3];
                let (r, g, b) = (i32::from(p[0]), i32::from(p[1]), i32::from(p[2]));
                // The line's colour, or its anti-aliased edge (bluer than grey).
                if p == [line.0, line.1, line.2] || (b > r + 40 && b > g + 20) {
                    strays += 1;
                }
            }
        }
    }
    assert_eq!(strays, 0, "series pixels in the margins between panels");
}
