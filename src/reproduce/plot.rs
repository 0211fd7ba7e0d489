//! Figures as SVG (plotters): model curves as lines, simulation points with their
//! confidence intervals as error bars, on the paper's axes.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

/// A figure: axes and series.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// Logarithmic y axis (FP rates).
    pub log_y: bool,
    /// The curves and point sets.
    pub series: Vec<Series>,
}

/// A point `(x, y)` with its confidence interval `(lo, hi)` when measured.
pub type Point = (f64, f64, Option<(f64, f64)>);

/// One curve or point set.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// Line (model) or points with intervals (simulation).
    pub kind: SeriesKind,
    /// `(x, y)` points, with `(lo, hi)` for simulation points.
    pub points: Vec<Point>,
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesKind {
    /// A model curve.
    Line,
    /// Measured points with error bars.
    Points,
}

impl Series {
    /// A model curve.
    pub fn line(name: impl Into<String>, points: impl IntoIterator<Item = (f64, f64)>) -> Self {
        Self {
            name: name.into(),
            kind: SeriesKind::Line,
            points: points.into_iter().map(|(x, y)| (x, y, None)).collect(),
        }
    }

    /// Measured points `(x, y, lo, hi)`.
    pub fn points(
        name: impl Into<String>,
        points: impl IntoIterator<Item = (f64, f64, f64, f64)>,
    ) -> Self {
        Self {
            name: name.into(),
            kind: SeriesKind::Points,
            points: points
                .into_iter()
                .map(|(x, y, lo, hi)| (x, y, Some((lo, hi))))
                .collect(),
        }
    }
}

const WIDTH: u32 = 900;
const HEIGHT: u32 = 560;

impl Plot {
    /// A figure with these axis labels and series; `log_y` for FP rates.
    pub fn new(
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        log_y: bool,
        series: Vec<Series>,
    ) -> Self {
        Self {
            x_label: x_label.into(),
            y_label: y_label.into(),
            log_y,
            series,
        }
    }

    /// Renders the figure as an SVG document.
    ///
    /// # Errors
    /// A drawing error from plotters (as text).
    pub fn to_svg(&self, title: &str) -> Result<String, String> {
        let finite = |v: f64| v.is_finite() && (!self.log_y || v > 0.0);
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let ys = self.series.iter().flat_map(|s| {
            s.points.iter().flat_map(|&(_, y, iv)| {
                let (lo, hi) = iv.unwrap_or((y, y));
                [y, lo, hi]
            })
        });
        let (x0, x1) = bounds(xs.filter(|v| v.is_finite()));
        let (y0, y1) = bounds(ys.filter(|&v| finite(v)));
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            if self.log_y {
                self.draw(&root, title, x0..x1, (y0 / 1.5..y1 * 1.5).log_scale())?;
            } else {
                let pad = 0.05 * (y1 - y0).max(f64::EPSILON);
                self.draw(&root, title, x0..x1, (y0 - pad)..(y1 + pad))?;
            }
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }

    fn draw<Y>(
        &self,
        root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
        title: &str,
        x: std::ops::Range<f64>,
        y: Y,
    ) -> Result<(), String>
    where
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(72)
            .build_cartesian_2d(x, y)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(self.y_label.as_str())
            .draw()
            .map_err(|e| err(&e))?;
        for (i, s) in self.series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let pts = s
                .points
                .iter()
                // A log axis has no place for 0 (a point with no false positive).
                .filter(|p| p.0.is_finite() && p.1.is_finite() && (!self.log_y || p.1 > 0.0));
            match s.kind {
                SeriesKind::Line => chart
                    .draw_series(LineSeries::new(
                        pts.map(|p| (p.0, p.1)),
                        color.stroke_width(2),
                    ))
                    .map_err(|e| err(&e))?,
                SeriesKind::Points => chart
                    .draw_series(pts.map(|&(x, y, iv)| {
                        let (lo, hi) = iv.unwrap_or((y, y));
                        let lo = if self.log_y { lo.max(y * 1e-3) } else { lo };
                        ErrorBar::new_vertical(x, lo, y, hi, color.filled(), 8)
                    }))
                    .map_err(|e| err(&e))?,
            }
            .label(s.name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))
    }
}

/// Smallest and largest value, widened when equal (and a unit range when empty).
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    if !lo.is_finite() {
        (0.0, 1.0)
    } else if lo == hi {
        (lo - 0.5 * lo.abs().max(1.0), hi + 0.5 * hi.abs().max(1.0))
    } else {
        (lo, hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_lines_and_points_on_log_axes() {
        let p = Plot {
            x_label: "k".into(),
            y_label: "fp".into(),
            log_y: true,
            series: vec![
                Series::line("model", (1..10).map(|k| (f64::from(k), 0.5f64.powi(k)))),
                Series::points("sim", [(2.0, 0.26, 0.24, 0.28), (4.0, 0.06, 0.05, 0.07)]),
            ],
        };
        let svg = p.to_svg("test").unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("model") && svg.contains("sim"));
    }

    #[test]
    fn empty_and_degenerate_series_do_not_panic() {
        let p = Plot {
            x_label: "x".into(),
            y_label: "y".into(),
            log_y: false,
            series: vec![Series::line("flat", [(1.0, 2.0)])],
        };
        assert!(p.to_svg("t").is_ok());
    }
}
