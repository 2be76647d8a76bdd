//! A table of cells and its CSV form (RFC 4180, UTF-8, header row, `.` decimal point, no
//! thousands separators), written to bytes so each table is testable without the disk.

use std::borrow::Cow;

/// One cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// A count.
    Int(u64),
    /// A real number (statistics); written so spreadsheets parse it (`0.0123`, `3.2e-15`).
    Num(f64),
    /// Text fairaudit chose (labels, names).
    Text(String),
    /// Text that came from a user (seeds, file names): neutralised against formula
    /// injection in CSV.
    User(String),
}

impl From<u64> for Cell {
    fn from(value: u64) -> Self {
        Cell::Int(value)
    }
}

impl From<&str> for Cell {
    fn from(value: &str) -> Self {
        Cell::Text(value.to_owned())
    }
}

impl From<String> for Cell {
    fn from(value: String) -> Self {
        Cell::Text(value)
    }
}

/// A named table: one CSV file.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The file name, e.g. `outcome_counts.csv`.
    pub file_name: String,
    /// Column names: snake_case, units in the name where there are units.
    pub header: Vec<&'static str>,
    /// Rows, each as long as the header.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// An empty table.
    pub fn new(file_name: impl Into<String>, header: Vec<&'static str>) -> Self {
        Table { file_name: file_name.into(), header, rows: Vec::new() }
    }

    /// Appends a row.
    pub fn push(&mut self, row: Vec<Cell>) {
        debug_assert_eq!(row.len(), self.header.len(), "{}: row width", self.file_name);
        self.rows.push(row);
    }

    /// The table as CSV bytes. Every field that is not a number is quoted, so a
    /// spreadsheet set to another separator (`;`) cannot split a cell of user text into
    /// cells of its own (OWASP's CSV injection guidance); numbers stay unquoted so they are
    /// read as numbers.
    pub fn to_csv(&self) -> Vec<u8> {
        let mut writer = csv_writer(Vec::new());
        writer.write_record(&self.header).expect("writing to memory");
        for row in &self.rows {
            writer
                .write_record(row.iter().map(|cell| cell_text(cell).into_owned()))
                .expect("writing to memory");
        }
        writer.into_inner().expect("writing to memory")
    }
}

/// A CSV writer with fairaudit's conventions (CRLF line ends, every non-numeric field
/// quoted; see [`Table::to_csv`]), for the files written row by row as they are found.
pub fn csv_writer<W: std::io::Write>(out: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .quote_style(csv::QuoteStyle::NonNumeric)
        .from_writer(out)
}

fn cell_text(cell: &Cell) -> Cow<'_, str> {
    match cell {
        Cell::Int(value) => value.to_string().into(),
        Cell::Num(value) => format_number(*value).into(),
        Cell::Text(text) => text.into(),
        Cell::User(text) => spreadsheet_safe(text),
    }
}

/// A real number as spreadsheets parse it: plain decimals in the ordinary range, `e`
/// notation for very small or large magnitudes, never thousands separators; `NaN` and
/// infinities as empty cells' alternatives `nan`, `inf`, `-inf`.
pub fn format_number(value: f64) -> String {
    if value.is_nan() {
        return "nan".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let magnitude = value.abs();
    if value == 0.0 || (1e-4..1e15).contains(&magnitude) {
        // Shortest representation that reads back to the same f64.
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// Neutralises user text before it goes into a CSV cell, so a spreadsheet does not run it
/// as a formula (the OWASP recommendation): text whose first character a spreadsheet does
/// not ignore (it skips spaces and invisible characters such as a zero-width space or a
/// byte-order mark) is `=`, `+`, `-`, `@`, tab or carriage return gets a `'` in front. The
/// same holds after every `,`, `;`, tab and line break: a spreadsheet set to `;` (or
/// tab) as its separator, or an import set to ignore quotes, does not honour the quotes of
/// a `,`-separated file, splits the text at the separator and starts a new row at the line
/// break, and would run `a,=1+1`'s, `a;=1+1`'s or `a\n=1+1`'s second part. JSON output
/// keeps the exact value.
pub fn spreadsheet_safe(text: &str) -> Cow<'_, str> {
    // Line and page breaks beyond CR and LF too: an importer may start a row at any.
    // And `,`: a reader that splits a line at its commas without honouring the quotes
    // (a naive import, `cut -d,`) sees what follows one as a cell of its own.
    const BREAKS: [char; 10] =
        [',', ';', '\t', '\n', '\r', '\u{0b}', '\u{0c}', '\u{85}', '\u{2028}', '\u{2029}'];
    // Whether a part (the text's start, or what follows a break) runs: what a spreadsheet
    // shows of it starts like a formula, or it shows nothing and a tab or carriage
    // return, itself a formula start, follows.
    let runs = |part: &str, next: Option<char>| {
        // Any Unicode space (U+3000, U+2028 too) and the Mongolian vowel separator, which
        // Unicode no longer counts as a space but renders as nothing, are skipped as well;
        // the fullwidth forms of the formula starts are caught too (an IME keyboard types
        // them, and some spreadsheets read them as the ASCII ones).
        let seen = part.trim_start_matches(|c: char| {
            c.is_whitespace() || c == '\u{a0}' || c == '\u{180e}' || crate::fields::is_invisible(c)
        });
        match seen.chars().next() {
            Some(first) => {
                // Fullwidth and small forms, and the minus sign: a spreadsheet that folds
                // compatibility forms reads them as the ASCII ones.
                matches!(
                    first,
                    '=' | '+'
                        | '-'
                        | '@'
                        | '\u{ff1d}'
                        | '\u{ff0b}'
                        | '\u{ff0d}'
                        | '\u{ff20}'
                        | '\u{fe66}'
                        | '\u{fe62}'
                        | '\u{fe63}'
                        | '\u{fe6b}'
                        | '\u{2212}'
                )
            }
            None => matches!(next, Some('\t' | '\r')),
        }
    };
    let mut safe = String::new();
    let mut rest = text;
    let mut changed = false;
    loop {
        let end = rest.find(BREAKS).unwrap_or(rest.len());
        let (part, next) = (&rest[..end], rest[end..].chars().next());
        if runs(part, next) {
            safe.push('\'');
            changed = true;
        }
        safe.push_str(part);
        let Some(separator) = next else { break };
        safe.push(separator);
        rest = &rest[end + separator.len_utf8()..];
    }
    if changed {
        safe.into()
    } else {
        text.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralised_and_plain_text_is_not() {
        assert_eq!(spreadsheet_safe("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(spreadsheet_safe("-1"), "'-1");
        assert_eq!(spreadsheet_safe("\tx"), "'\tx");
        assert_eq!(spreadsheet_safe("abc"), "abc");
        assert_eq!(spreadsheet_safe(""), "");
        assert_eq!(spreadsheet_safe("a;=1+1;b"), "a;'=1+1;b");
        assert_eq!(spreadsheet_safe("=1;  @x"), "'=1;'  @x");
        assert_eq!(spreadsheet_safe("a;b"), "a;b");
        // Issue 59: a `,` is a break too, for an import that ignores the quotes.
        assert_eq!(spreadsheet_safe("a,=1+1"), "a,'=1+1");
        assert_eq!(spreadsheet_safe("a, -b,c"), "a,' -b,c");
        // A line break starts a new row under a `;` or tab import that ignores quotes.
        assert_eq!(spreadsheet_safe("a\n=1+1"), "a\n'=1+1");
        assert_eq!(spreadsheet_safe("a\r\n=1+1\r-2"), "a\r\n'=1+1\r'-2");
        assert_eq!(spreadsheet_safe("x\t@SUM(A1)"), "x\t'@SUM(A1)");
        assert_eq!(spreadsheet_safe("\rx"), "'\rx");
        // Red team of stop 54: other spaces, the Mongolian vowel separator, fullwidth signs.
        for hostile in
            ["\u{3000}=1+1", "\u{2028}=1+1", "\u{180e}@x", "\u{ff1d}1+1", "\u{ff0b}1", "a;\u{3000}\u{ff20}x"]
        {
            assert_ne!(spreadsheet_safe(hostile), hostile, "{hostile:?}");
        }
        assert_eq!(spreadsheet_safe("\u{3000}text"), "\u{3000}text");
        // Review of stop 54: breaks an importer may start a row at, small forms, the minus sign.
        for hostile in ["a\u{2028}=1+1", "a\u{85}@x", "a\u{0b}+1", "\u{fe66}1+1", "\u{2212}1"] {
            assert_ne!(spreadsheet_safe(hostile), hostile, "{hostile:?}");
        }
        assert_eq!(spreadsheet_safe("line1\r\nline2"), "line1\r\nline2");
        for hidden in [" =1+1", "\u{200b}=1+1", "\u{feff}=1+1", "\u{a0}@SUM(A1)"] {
            assert!(spreadsheet_safe(hidden).starts_with('\''), "{hidden:?}");
        }
    }

    #[test]
    fn numbers_read_back_exactly() {
        for value in [0.0, 1.0, 0.5, 0.0123, 3.2e-15, 1e-300, 123456789.25, 5e-324, 2e20] {
            let text = format_number(value);
            assert!(!text.contains(','), "{text}");
            assert_eq!(text.parse::<f64>().unwrap(), value, "{text}");
        }
        assert_eq!(format_number(3.2e-15), "3.2e-15");
        assert_eq!(format_number(0.0123), "0.0123");
    }

    #[test]
    fn csv_quotes_and_neutralises() {
        let mut table = Table::new("t.csv", vec!["seed", "count"]);
        table.push(vec![Cell::User("=1+1, \"x\"".into()), Cell::Int(3)]);
        table.push(vec![Cell::User("a;=1+1;b".into()), Cell::Num(-0.5)]);
        assert_eq!(
            String::from_utf8(table.to_csv()).unwrap(),
            "\"seed\",\"count\"\r\n\"'=1+1, \"\"x\"\"\",3\r\n\"a;'=1+1;b\",-0.5\r\n"
        );
    }
}
