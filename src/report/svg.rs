//! Hand-made inline SVG charts for the HTML report.
//!
//! Written by hand rather than with plotters: the report needs three simple chart kinds
//! (bars against an expected band, a diverging heat map, a histogram), must be one
//! self-contained file with no fonts or scripts, and inline SVG in HTML5 needs no
//! namespace declaration, so the output carries no external reference at all.

use std::fmt::Write;

/// Text from a history made visible: control characters and characters that reorder or
/// hide text (bidirectional controls, zero-width marks) shown as `<U+202E>`, then escaped
/// for HTML, so that a player id cannot make a row read otherwise than it is.
pub fn visible(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_control()
            || matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
        {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            out.push(c);
        }
    }
    escape(&out)
}

/// Escapes text for HTML and SVG content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Bars of observed counts against their expectation and a band around it.
pub struct BandChart<'a> {
    /// Chart title (also the SVG's accessible name).
    pub title: &'a str,
    /// One label per bar.
    pub labels: Vec<String>,
    /// Observed counts.
    pub observed: Vec<f64>,
    /// Expected count per bar.
    pub expected: Vec<f64>,
    /// Half-width of the band per bar (e.g. 2.576 standard deviations for 99%).
    pub band: Vec<f64>,
}

impl BandChart<'_> {
    /// The chart as an `<svg>` element. The value axis does not start at zero (deviations
    /// of a fraction of a percent would be invisible); the axis labels say where it is.
    pub fn svg(&self) -> String {
        let (width, height, left, bottom, top) = (900.0, 240.0, 70.0, 30.0, 24.0);
        let n = self.observed.len().max(1) as f64;
        let lows = self.expected.iter().zip(&self.band).map(|(e, b)| e - b);
        let highs = self.expected.iter().zip(&self.band).map(|(e, b)| e + b);
        let min = self.observed.iter().cloned().chain(lows).fold(f64::INFINITY, f64::min);
        let max = self.observed.iter().cloned().chain(highs).fold(f64::NEG_INFINITY, f64::max);
        let pad = ((max - min) * 0.1).max(1.0);
        let (lo, hi) = (min - pad, max + pad);
        let plot_h = height - bottom - top;
        let y = |v: f64| top + plot_h * (1.0 - (v - lo) / (hi - lo));
        let slot = (width - left - 10.0) / n;
        let mut svg = String::new();
        let _ = write!(
            svg,
            r#"<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{title}"><title>{title}</title>"#,
            title = escape(self.title)
        );
        for (i, ((&obs, &exp), &band)) in self.observed.iter().zip(&self.expected).zip(&self.band).enumerate()
        {
            let x = left + slot * i as f64;
            let _ = write!(
                svg,
                r##"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#cfe3f5"/>"##,
                y(exp + band),
                slot,
                (y(exp - band) - y(exp + band)).max(0.5)
            );
            let outside = (obs - exp).abs() > band;
            let colour = if outside { "#c0392b" } else { "#2c6fad" };
            let base = y(lo);
            let _ = write!(
                svg,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"><title>{}: {obs} (expected {exp:.1})</title></rect>"#,
                x + slot * 0.2,
                y(obs),
                slot * 0.6,
                (base - y(obs)).max(0.5),
                escape(&self.labels[i])
            );
            let _ = write!(
                svg,
                r##"<line x1="{x:.1}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#333" stroke-width="1"/>"##,
                x + slot,
                y(exp),
                y(exp)
            );
            if self.labels.len() <= 40 || i % 2 == 0 {
                let _ = write!(
                    svg,
                    r#"<text x="{:.1}" y="{:.1}" font-size="9" text-anchor="middle">{}</text>"#,
                    x + slot / 2.0,
                    height - bottom + 12.0,
                    escape(&self.labels[i])
                );
            }
        }
        for value in [lo + pad, (lo + hi) / 2.0, hi - pad] {
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" font-size="10" text-anchor="end">{value:.0}</text>"#,
                left - 6.0,
                y(value) + 3.0
            );
        }
        let _ = write!(
            svg,
            r#"<text x="{left}" y="14" font-size="11">{} (bars: observed; line: expected; shaded: 99% band; axis does not start at 0)</text></svg>"#,
            escape(self.title)
        );
        svg
    }
}

/// A heat map of standardised residuals (z), blue below expectation, red above, clamped
/// at ±4. `None` cells are left blank.
pub struct HeatMap<'a> {
    /// Chart title.
    pub title: &'a str,
    /// Row labels (top to bottom).
    pub rows: Vec<String>,
    /// Column labels (left to right).
    pub cols: Vec<String>,
    /// `z[row][col]`.
    pub z: Vec<Vec<Option<f64>>>,
}

/// The diverging colour of a z value.
fn diverging(z: f64) -> String {
    let t = (z / 4.0).clamp(-1.0, 1.0);
    let fade = |full: f64| (255.0 - (255.0 - full) * t.abs()).round() as u8;
    let (r, g, b) =
        if t >= 0.0 { (fade(192.0), fade(57.0), fade(43.0)) } else { (fade(44.0), fade(111.0), fade(173.0)) };
    format!("#{r:02x}{g:02x}{b:02x}")
}

impl HeatMap<'_> {
    /// The heat map as an `<svg>` element.
    pub fn svg(&self) -> String {
        let cell = (860.0 / self.cols.len().max(1) as f64).min(22.0);
        let (left, top) = (36.0, 52.0);
        let width = left + cell * self.cols.len() as f64 + 10.0;
        let height = top + cell * self.rows.len() as f64 + 30.0;
        let mut svg = String::new();
        let _ = write!(
            svg,
            r##"<svg class="chart heat" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="{t}"><title>{t}</title><text x="0" y="14" font-size="11">{t}</text><text x="0" y="28" font-size="10" fill="#555">colour: standardised residual z; blue below, red above expectation; clamped at ±4</text>"##,
            t = escape(self.title)
        );
        let font = (cell * 0.6).clamp(5.0, 10.0);
        for (c, label) in self.cols.iter().enumerate() {
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" font-size="{font:.1}" text-anchor="middle">{}</text>"#,
                left + cell * (c as f64 + 0.5),
                top - 4.0,
                escape(label)
            );
        }
        for (r, label) in self.rows.iter().enumerate() {
            let y = top + cell * r as f64;
            let _ = write!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" font-size="{font:.1}" text-anchor="end">{}</text>"#,
                left - 3.0,
                y + cell * 0.7,
                escape(label)
            );
            for (c, z) in self.z[r].iter().enumerate() {
                if let Some(z) = z {
                    let _ = write!(
                        svg,
                        r#"<rect x="{:.1}" y="{y:.1}" width="{cell:.1}" height="{cell:.1}" fill="{}"><title>{} / {}: z = {z:.2}</title></rect>"#,
                        left + cell * c as f64,
                        diverging(*z),
                        escape(label),
                        escape(&self.cols[c])
                    );
                }
            }
        }
        svg.push_str("</svg>");
        svg
    }
}

/// A histogram of values in [0, 1] (p-values) in ten bins, with the uniform expectation.
pub fn p_value_histogram(title: &str, p_values: &[f64]) -> String {
    let mut bins = [0usize; 10];
    for &p in p_values {
        bins[((p * 10.0) as usize).min(9)] += 1;
    }
    let expected = p_values.len() as f64 / 10.0;
    let (width, height, left, bottom, top) = (500.0, 200.0, 40.0, 24.0, 24.0);
    let max = bins.iter().cloned().fold(0, usize::max).max(1) as f64 * 1.15;
    let y = |v: f64| top + (height - bottom - top) * (1.0 - v / max);
    let slot = (width - left - 10.0) / 10.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{t}"><title>{t}</title><text x="0" y="14" font-size="11">{t} ({} p-values; line: uniform expectation)</text>"#,
        p_values.len(),
        t = escape(title)
    );
    for (i, &count) in bins.iter().enumerate() {
        let x = left + slot * i as f64;
        let _ = write!(
            svg,
            r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#2c6fad"/><text x="{:.1}" y="{:.1}" font-size="9" text-anchor="middle">{:.1}</text>"##,
            x + 2.0,
            y(count as f64),
            slot - 4.0,
            y(0.0) - y(count as f64),
            x + slot / 2.0,
            height - 8.0,
            i as f64 / 10.0
        );
    }
    let _ = write!(
        svg,
        r##"<line x1="{left}" x2="{:.1}" y1="{e:.1}" y2="{e:.1}" stroke="#c0392b" stroke-dasharray="4 3"/></svg>"##,
        width - 10.0,
        e = y(expected)
    );
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }

    #[test]
    fn colours_diverge_from_white() {
        assert_eq!(diverging(0.0), "#ffffff");
        assert_eq!(diverging(9.0), "#c0392b");
        assert_eq!(diverging(-4.0), "#2c6fad");
    }

    #[test]
    fn charts_are_bare_svg_elements() {
        let chart = BandChart {
            title: "t",
            labels: vec!["a".into(), "b".into()],
            observed: vec![10.0, 30.0],
            expected: vec![20.0, 20.0],
            band: vec![5.0, 5.0],
        };
        let svg = chart.svg();
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains("#c0392b"), "bars outside the band are highlighted");
        assert!(!svg.contains("http"));
    }
}
