//! SVG charts drawn with plotters' SVG backend. Text is SVG text in the generic `sans-serif`
//! family, laid out with plotters' built-in size estimate rather than a font from the machine,
//! so the same record gives the same bytes everywhere.

use plotters::coord::combinators::WithKeyPoints;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordi64;
use plotters::prelude::*;

/// Chart size in SVG pixels.
const SIZE: (u32, u32) = (860, 500);
const FONT: &str = "sans-serif";

/// One line of a line chart: a name for the legend, points (x, y), and how it is drawn.
pub struct Line {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub style: LineStyle,
}

/// Variants get a palette colour; the copy kernel and the peer get their own dashed looks.
#[derive(Clone, Copy)]
pub enum LineStyle {
    Variant(usize),
    Copy,
    Peer,
}

impl LineStyle {
    fn colour(self) -> RGBColor {
        // Colour-blind-safe, ordered for contrast (Okabe-Ito, without black and yellow).
        const PALETTE: [RGBColor; 6] = [
            RGBColor(0, 114, 178),
            RGBColor(213, 94, 0),
            RGBColor(0, 158, 115),
            RGBColor(204, 121, 167),
            RGBColor(86, 180, 233),
            RGBColor(230, 159, 0),
        ];
        match self {
            LineStyle::Variant(i) => PALETTE[i % PALETTE.len()],
            LineStyle::Copy => RGBColor(0, 0, 0),
            LineStyle::Peer => RGBColor(120, 120, 120),
        }
    }
}

/// What a line chart shows: its title, its axes' descriptions, and how x is labelled.
pub struct LineChart<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    /// Where x is labelled, and the label at each such x.
    pub x_ticks: Vec<(f64, String)>,
    pub lines: Vec<Line>,
}

/// Draws `chart` as an SVG document.
pub fn line_chart(chart: &LineChart) -> Result<String, String> {
    let xs = chart.lines.iter().flat_map(|l| l.points.iter().map(|p| p.0));
    let ys = chart.lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
    let (x_lo, x_hi) = bounds(xs.chain(chart.x_ticks.iter().map(|t| t.0)));
    let (_, y_hi) = bounds(ys);
    let x_pad = ((x_hi - x_lo) * 0.04).max(0.5);
    // plotters formats integer axes through the label formatter; x is kept in thousandths.
    let x_range = milli(x_lo - x_pad)..milli(x_hi + x_pad);
    let y_range = 0.0..(y_hi * 1.08).max(1e-9);
    let ticks = chart.x_ticks.clone();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(text)?;
        let key_points: Vec<i64> = ticks.iter().map(|t| milli(t.0)).collect();
        let mut plot = ChartBuilder::on(&root)
            .caption(chart.title, (FONT, 20))
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(x_range.with_key_points(key_points), y_range)
            .map_err(text)?;
        let label_of = |x: &i64| ticks.iter().find(|t| milli(t.0) == *x).map_or_else(String::new, |t| t.1.clone());
        mesh(&mut plot, chart.x_desc, chart.y_desc, &label_of, true)?;
        for line in &chart.lines {
            let colour = line.style.colour();
            let stroke = colour.stroke_width(2);
            let points: Vec<(i64, f64)> = line.points.iter().map(|&(x, y)| (milli(x), y)).collect();
            let series = match line.style {
                LineStyle::Variant(_) => plot.draw_series(LineSeries::new(points, stroke)),
                LineStyle::Copy => plot.draw_series(DashedLineSeries::new(points, 8, 5, stroke)),
                LineStyle::Peer => plot.draw_series(DashedLineSeries::new(points, 3, 4, stroke)),
            }
            .map_err(text)?;
            series.label(line.name.as_str()).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], stroke));
            plot.draw_series(line.points.iter().map(|&(x, y)| Circle::new((milli(x), y), 3, colour.filled())))
                .map_err(text)?;
        }
        legend(&mut plot, SeriesLabelPosition::UpperLeft)?;
        root.present().map_err(text)?;
    }
    Ok(svg)
}

/// A grouped bar chart on a log axis: groups along x, and within each group one bar per name
/// in `bars` (a legend entry each), with an optional note printed above a bar.
pub struct BarChart<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub bars: Vec<String>,
    /// Per group: its label, and per bar its value and the note above it.
    pub groups: Vec<(String, Vec<(f64, String)>)>,
}

/// Draws `chart` as an SVG document.
pub fn bar_chart(chart: &BarChart) -> Result<String, String> {
    let values = chart.groups.iter().flat_map(|g| g.1.iter().map(|b| b.0)).filter(|v| *v > 0.0);
    let (lo, hi) = bounds(values);
    let y_range = (lo / 2.0).max(1e-3)..(hi * 12.0).max(1e-2);
    let floor = y_range.start;
    let groups = chart.groups.len().max(1);
    // Each group is one unit of x; its bars share the middle 80 % of it.
    let width = 0.8 / chart.bars.len().max(1) as f64;
    // x in thousandths of a group (plotters formats integer axes through the label formatter).
    let left = |g: usize, b: usize| milli(g as f64 + 0.1 + b as f64 * width);
    let names: Vec<String> = chart.groups.iter().map(|g| g.0.clone()).collect();
    let key_points: Vec<i64> = (0..groups).map(|g| milli(g as f64 + 0.5)).collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(text)?;
        let mut plot = ChartBuilder::on(&root)
            .caption(chart.title, (FONT, 20))
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d((0..milli(groups as f64)).with_key_points(key_points), y_range.log_scale())
            .map_err(text)?;
        let label_of = |x: &i64| names.get((*x / 1000) as usize).cloned().unwrap_or_default();
        mesh(&mut plot, chart.x_desc, chart.y_desc, &label_of, false)?;
        for (b, name) in chart.bars.iter().enumerate() {
            let colour = LineStyle::Variant(b).colour();
            let rects = chart.groups.iter().enumerate().filter_map(|(g, (_, bars))| {
                let &(value, _) = bars.get(b)?;
                (value > 0.0)
                    .then(|| Rectangle::new([(left(g, b), floor), (left(g, b) + milli(width), value)], colour.filled()))
            });
            plot.draw_series(rects)
                .map_err(text)?
                .label(name.as_str())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], colour.filled()));
            let notes = chart.groups.iter().enumerate().filter_map(|(g, (_, bars))| {
                let (value, note) = bars.get(b)?;
                (*value > 0.0 && !note.is_empty()).then(|| {
                    let style = (FONT, 11).into_font().transform(FontTransform::Rotate270);
                    Text::new(note.clone(), (left(g, b) + milli(width * 0.25), *value * 1.15), style)
                })
            });
            plot.draw_series(notes).map_err(text)?;
        }
        legend(&mut plot, SeriesLabelPosition::UpperRight)?;
        root.present().map_err(text)?;
    }
    Ok(svg)
}

/// The axes: their descriptions, x labelled by `label_of`, y in whole units, and grid lines
/// across x only where `x_grid`.
fn mesh<'a, Y: Ranged<ValueType = f64> + ValueFormatter<f64>>(
    plot: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<WithKeyPoints<RangedCoordi64>, Y>>,
    x_desc: &str,
    y_desc: &str,
    label_of: &dyn Fn(&i64) -> String,
    x_grid: bool,
) -> Result<(), String> {
    let mut style = plot.configure_mesh();
    style
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(label_of)
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 15))
        .light_line_style(WHITE.mix(0.0));
    if !x_grid {
        style.disable_x_mesh();
    }
    style.draw().map_err(text)
}

/// The legend box, in the corner the data leave free.
fn legend<'a, X: Ranged, Y: Ranged>(
    plot: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    position: SeriesLabelPosition,
) -> Result<(), String> {
    plot.configure_series_labels()
        .position(position)
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
        .map_err(text)
}

/// The smallest and largest of `values`, (0, 1) when there are none.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    }
}

fn milli(x: f64) -> i64 {
    (x * 1000.0).round() as i64
}

fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}
