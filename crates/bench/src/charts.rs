//! PNG charts (plotters, bitmap backend): horizontal bars of Basalt/MariaDB ratios
//! on a log axis, drawn from the parity line at 1.0. Text needs a TrueType font,
//! which plotters' `ab_glyph` backend takes as bytes: the harness loads one from
//! `--font` or a usual system location; without one the charts are drawn without
//! labels and the report's tables carry the numbers.

use crate::results::{Results, Workload};
use crate::servers::Kind;
use crate::stats::Better;
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::path::{Path, PathBuf};

/// A grouped ratio chart: one row per category, one bar per series.
#[derive(Clone, Debug, PartialEq)]
pub struct RatioChart {
    pub title: String,
    pub axis: String,
    pub better: Better,
    pub categories: Vec<String>,
    /// (legend, one ratio per category; `None` = no result).
    pub series: Vec<(String, Vec<Option<f64>>)>,
}

const FONT_CANDIDATES: [&str; 7] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
];

/// Registers a font as "sans-serif"; returns the path used, or `None` when no
/// usable font was found (charts then have no text).
pub fn load_font(explicit: Option<&Path>) -> Option<PathBuf> {
    let candidates: Vec<PathBuf> = match explicit {
        Some(p) => vec![p.to_path_buf()],
        None => FONT_CANDIDATES.iter().map(PathBuf::from).collect(),
    };
    for p in candidates {
        let Ok(bytes) = std::fs::read(&p) else {
            continue;
        };
        // plotters keeps a 'static reference; one font per run.
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
            return Some(p);
        }
    }
    None
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(214, 39, 40),
    RGBColor(140, 86, 75),
];

/// The x range (log axis) covering every ratio and 1.0, with margin.
pub fn x_range(chart: &RatioChart) -> (f64, f64) {
    let vals = chart
        .series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten().copied())
        .filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = vals.fold((1.0f64, 1.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    // Room on the right for the legend.
    ((lo / 1.5).min(0.5), (hi * 4.0).max(4.0))
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Draws `chart` into `path` (PNG). `text` = false draws no text at all.
pub fn draw(chart: &RatioChart, path: &Path, text: bool) -> DrawResult {
    let rows = chart.categories.len().max(1);
    let groups = chart.series.len().max(1);
    let row_px = (groups * 12 + 8) as u32;
    let height = 140 + row_px * rows as u32;
    let root = BitMapBackend::new(path, (1000, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (lo, hi) = x_range(chart);
    let mut builder = ChartBuilder::on(&root);
    builder
        .margin(12)
        .x_label_area_size(if text { 40 } else { 0 })
        .y_label_area_size(if text { 230 } else { 0 });
    if text {
        builder.caption(&chart.title, ("sans-serif", 20));
    }
    let mut ctx = builder.build_cartesian_2d((lo..hi).log_scale(), 0f64..rows as f64)?;
    let mut mesh = ctx.configure_mesh();
    mesh.disable_y_mesh().y_labels(0);
    if text {
        mesh.x_desc(chart.axis.as_str())
            .x_label_formatter(&|v| format!("{v:.2}"));
    } else {
        mesh.x_labels(0);
    }
    mesh.draw()?;
    draw_bars(&mut ctx, chart, text)?;
    // The parity line.
    ctx.draw_series(LineSeries::new(
        [(1.0, 0.0), (1.0, rows as f64)],
        BLACK.stroke_width(2),
    ))?;
    if text {
        draw_row_labels(&root, &ctx, chart)?;
        ctx.configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

type Ctx<'a, 'b> = ChartContext<
    'a,
    BitMapBackend<'b>,
    Cartesian2d<
        plotters::coord::combinators::LogCoord<f64>,
        plotters::coord::types::RangedCoordf64,
    >,
>;

fn draw_bars(ctx: &mut Ctx<'_, '_>, chart: &RatioChart, text: bool) -> DrawResult {
    let rows = chart.categories.len();
    let groups = chart.series.len().max(1);
    let band = 0.8 / groups as f64;
    for (j, (legend, values)) in chart.series.iter().enumerate() {
        let color = COLORS[j % COLORS.len()];
        let bars = values.iter().enumerate().filter_map(|(i, v)| {
            let v = (*v)?;
            // Row 0 at the top.
            let top = (rows - i) as f64 - 0.1 - band * j as f64;
            Some(Rectangle::new(
                [(1.0, top - band), (v, top)],
                color.filled(),
            ))
        });
        let series = ctx.draw_series(bars)?;
        if text {
            series.label(legend.as_str()).legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
            });
        }
    }
    Ok(())
}

fn draw_row_labels(
    root: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    ctx: &Ctx<'_, '_>,
    chart: &RatioChart,
) -> DrawResult {
    let rows = chart.categories.len();
    let (lo, _) = x_range(chart);
    let style = TextStyle::from(("sans-serif", 14).into_font()).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Right,
            plotters::style::text_anchor::VPos::Center,
        ),
    );
    for (i, name) in chart.categories.iter().enumerate() {
        let (x, y) = ctx.backend_coord(&(lo, (rows - i) as f64 - 0.5));
        root.draw(&Text::new(name.clone(), (x - 8, y), style.clone()))?;
    }
    Ok(())
}

/// Chart of the seed set: normalised response time per query, one bar per client
/// count.
pub fn seed_chart(r: &Results) -> Option<RatioChart> {
    grouped(
        r,
        Workload::Seed,
        crate::slap::SECONDS.key,
        |c| crate::slap::label(&c.name, &c.variant),
        |c| format!("{} client(s)", c.clients),
        "Seed set: normalised response time, Basalt / MariaDB (lower is better)",
        "Basalt time / MariaDB time (log scale; < 1 = Basalt faster)",
        Better::Lower,
    )
}

/// Chart of sysbench QPS ratios, one bar per thread count.
pub fn sysbench_chart(r: &Results) -> Option<RatioChart> {
    grouped(
        r,
        Workload::Sysbench,
        crate::sysbench::QPS.key,
        |c| format!("{} {}", c.name.trim_start_matches("oltp_"), c.variant),
        |c| format!("{} threads", c.clients),
        "sysbench: QPS, Basalt / MariaDB (higher is better)",
        "Basalt QPS / MariaDB QPS (log scale; > 1 = Basalt faster)",
        Better::Higher,
    )
}

/// Chart of durable commits and connection storm throughput ratios.
pub fn load_chart(r: &Results) -> Option<RatioChart> {
    let mut chart = RatioChart {
        title: "Durable commits/s and connections/s, Basalt / MariaDB (higher is better)".into(),
        axis: "Basalt / MariaDB throughput (log scale; > 1 = Basalt faster)".into(),
        better: Better::Higher,
        categories: Vec::new(),
        series: vec![("throughput ratio".into(), Vec::new())],
    };
    for (w, key, label) in [
        (Workload::Commit, crate::load::COMMITS.key, "commits"),
        (Workload::Storm, crate::load::CONNS.key, "connect storm"),
    ] {
        for c in r.of(w) {
            chart
                .categories
                .push(format!("{label}, {} clients", c.clients));
            chart.series[0].1.push(c.ratio(key));
        }
    }
    (!chart.categories.is_empty()).then_some(chart)
}

#[allow(clippy::too_many_arguments)]
fn grouped(
    r: &Results,
    w: Workload,
    key: &str,
    category: impl Fn(&crate::results::Case) -> String,
    group: impl Fn(&crate::results::Case) -> String,
    title: &str,
    axis: &str,
    better: Better,
) -> Option<RatioChart> {
    let mut chart = RatioChart {
        title: title.into(),
        axis: axis.into(),
        better,
        categories: Vec::new(),
        series: Vec::new(),
    };
    let cases: Vec<_> = r.of(w).collect();
    for c in &cases {
        let cat = category(c);
        if !chart.categories.contains(&cat) {
            chart.categories.push(cat);
        }
        let g = group(c);
        if !chart.series.iter().any(|(name, _)| *name == g) {
            chart.series.push((g, Vec::new()));
        }
    }
    // Legends like "4 threads" in numeric order.
    chart.series.sort_by_key(|(g, _)| leading_number(g));
    for (g, values) in &mut chart.series {
        for cat in &chart.categories {
            let v = cases
                .iter()
                .find(|c| &category(c) == cat && &group(c) == g)
                .and_then(|c| {
                    if c.failed(Kind::Basalt) {
                        None
                    } else {
                        c.ratio(key)
                    }
                });
            values.push(v);
        }
    }
    (!chart.categories.is_empty()).then_some(chart)
}

/// The number a label starts with (`"16 threads"` → 16); 0 when none.
fn leading_number(s: &str) -> u64 {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Case;
    use crate::slap::SECONDS;

    fn results() -> Results {
        let mut r = Results::default();
        for (name, c, b, m) in [
            ("PK", 1, 1.0, 2.0),
            ("PK", 4, 3.0, 1.0),
            ("PK-force", 1, 1.0, 1.0),
        ] {
            let mut case = Case::new(Workload::Seed, name, "point", c);
            case.record(Kind::Basalt, &[(SECONDS, b)]);
            case.record(Kind::MariaDb, &[(SECONDS, m)]);
            r.cases.push(case);
        }
        r
    }

    #[test]
    fn seed_chart_groups_by_clients() {
        let c = seed_chart(&results()).expect("chart");
        assert_eq!(c.categories, ["point PK", "point PK-force"]);
        assert_eq!(c.series.len(), 2);
        assert_eq!(c.series[0].1, [Some(0.5), Some(1.0)]);
        assert_eq!(c.series[1].1, [Some(3.0), None]);
        let (lo, hi) = x_range(&c);
        assert!(lo <= 0.5 / 1.5 && hi >= 3.0 * 1.5);
    }

    #[test]
    fn legends_sort_numerically() {
        let mut r = results();
        let mut c = Case::new(Workload::Seed, "PK", "point", 32);
        c.record(Kind::Basalt, &[(SECONDS, 1.0)]);
        c.record(Kind::MariaDb, &[(SECONDS, 1.0)]);
        r.cases.insert(0, c);
        let chart = seed_chart(&r).expect("chart");
        let names: Vec<&str> = chart.series.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["1 client(s)", "4 client(s)", "32 client(s)"]);
        assert_eq!(leading_number("16 threads"), 16);
        assert_eq!(leading_number("x"), 0);
    }

    #[test]
    fn draws_png_with_and_without_text() {
        let c = seed_chart(&results()).expect("chart");
        let dir = tempfile::tempdir().expect("tempdir");
        let plain = dir.path().join("plain.png");
        draw(&c, &plain, false).expect("draw without text");
        assert!(std::fs::metadata(&plain).expect("png").len() > 100);
        if load_font(None).is_some() {
            let labelled = dir.path().join("labelled.png");
            draw(&c, &labelled, true).expect("draw with text");
            assert!(std::fs::metadata(&labelled).expect("png").len() > 100);
        }
    }
}
