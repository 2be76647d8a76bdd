//! Reading an operator's export as it is: which column holds each field a reader needs, and
//! which delimiter separates them.
//!
//! The readers of bet histories ([`crate::audit`]) and of recorded rounds
//! ([`crate::verify`]) find their fields by header name (`result`, `nonce`, ...). A real
//! export names them its own way (`Outcome`, `Bet nonce`) and may separate them with `;`.
//! A [`CsvLayout`] says so: a [`ColumnMap`] from our field names to the file's headers,
//! and the delimiter.
//!
//! The rules, for every reader:
//!
//! * a field that is not mapped is found under its own name, as without a map;
//! * a mapped field is found only under its header (trimmed, case-sensitive, like our
//!   own names); that header must be in the file;
//! * a field the reader does not know, two fields read from one column, and a mapped
//!   field whose own name is also a column of the file (which of the two did the user
//!   mean?) are errors: a map never resolves an ambiguity silently;
//! * a map is written `FIELD=HEADER`, on the command line or one per line in a mapping
//!   file ([`ColumnMap::parse`]); an entry on the command line replaces the file's entry
//!   for the same field (see [`ColumnMap::overridden_by`]).
//!
//! ```
//! use fairaudit::columns::ColumnMap;
//! let map = ColumnMap::parse("# the casino's export\nresult = Outcome\nnonce = \"Bet nonce\"\n").unwrap();
//! let headers = csv::StringRecord::from(vec!["Bet ID", "Bet nonce", "Outcome"]);
//! let found = map.locate(&headers, &["result", "nonce", "player"]).unwrap();
//! assert_eq!((found.get("result"), found.get("nonce"), found.get("player")), (Some(2), Some(1), None));
//! ```

use crate::fields::Excerpt;
use std::io::{self, BufRead, BufReader, Read};

/// How a CSV file is laid out: its delimiter and the fields it names its own way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvLayout {
    /// The byte between fields (`,` by default).
    pub delimiter: u8,
    /// Our fields under the file's header names.
    pub columns: ColumnMap,
}

impl Default for CsvLayout {
    fn default() -> Self {
        CsvLayout { delimiter: b',', columns: ColumnMap::default() }
    }
}

impl CsvLayout {
    /// A CSV reader of `input` in this layout, with a header row. Lines may end in CRLF
    /// (a Windows export) or LF; positions count lines as an editor shows them.
    pub fn reader<R: Read>(&self, input: R) -> csv::Reader<LfLines<R>> {
        csv::ReaderBuilder::new()
            .has_headers(true)
            .delimiter(self.delimiter)
            .from_reader(LfLines::new(BufReader::new(input), self.delimiter))
    }
}

/// A reader that passes a CRLF line end on as LF, and everything else as it is: a CRLF
/// inside a quoted field is part of the field's text (a seed `line1\r\nline2` is hashed
/// with its CR) and passes unchanged.
///
/// Written by hand because the csv crate numbers the records of a CRLF file one line too
/// low (BurntSushi/rust-csv#395, open): a finding in a Windows export named the line
/// above the row it was about. To tell a line end from a field's text it follows RFC
/// 4180's quoting as the csv crate reads it, byte by byte.
pub struct LfLines<R> {
    inner: BufReader<R>,
    delimiter: u8,
    /// A CR read outside a quoted field but not passed on yet: dropped if LF follows.
    held_cr: bool,
    quoting: Quoting,
}

/// Where the bytes read so far leave the reader, as RFC 4180 quoting goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quoting {
    /// At the start of a field (of the file, after a delimiter or a line end).
    FieldStart,
    /// Inside a field that did not start with a quote: quotes are text.
    Unquoted,
    /// Inside a quoted field: line ends are text.
    Quoted,
    /// A quote inside a quoted field: a second quote is an escaped one, anything else
    /// ends the quoting.
    QuoteInQuoted,
}

impl<R: Read> LfLines<R> {
    fn new(inner: BufReader<R>, delimiter: u8) -> Self {
        Self { inner, delimiter, held_cr: false, quoting: Quoting::FieldStart }
    }
}

impl Quoting {
    /// The quoting after `byte`, in a file separated by `delimiter`.
    fn after(self, byte: u8, delimiter: u8) -> Quoting {
        let ends_field = byte == delimiter || byte == b'\n' || byte == b'\r';
        match self {
            Quoting::Quoted if byte == b'"' => Quoting::QuoteInQuoted,
            Quoting::Quoted => Quoting::Quoted,
            Quoting::FieldStart | Quoting::QuoteInQuoted if byte == b'"' => Quoting::Quoted,
            _ if ends_field => Quoting::FieldStart,
            _ => Quoting::Unquoted,
        }
    }
}

impl<R: Read> Read for LfLines<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut written = 0;
        while written < out.len() {
            let available = self.inner.fill_buf()?;
            let Some(&first) = available.first() else {
                if std::mem::take(&mut self.held_cr) {
                    out[written] = b'\r';
                    written += 1;
                }
                break;
            };
            if self.held_cr {
                self.held_cr = false;
                if first != b'\n' {
                    out[written] = b'\r';
                    written += 1;
                    continue;
                }
            }
            let room = available.len().min(out.len() - written);
            let mut consumed = 0;
            while consumed < room {
                let byte = available[consumed];
                consumed += 1;
                let in_text = self.quoting == Quoting::Quoted;
                self.quoting = self.quoting.after(byte, self.delimiter);
                if byte == b'\r' && !in_text {
                    self.held_cr = true;
                    break;
                }
                out[written] = byte;
                written += 1;
            }
            self.inner.consume(consumed);
            if written > 0 && !self.held_cr {
                // What is here now, without waiting for more (a pipe).
                break;
            }
        }
        Ok(written)
    }
}

/// Our field names mapped to the file's header names, each field once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ColumnMap {
    entries: Vec<(String, String)>,
}

/// A column map that cannot be used, or cannot be applied to a file's header.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ColumnError {
    /// An entry that is not `FIELD=HEADER`.
    #[error("'{}' is not FIELD=HEADER (e.g. result=Outcome)", Excerpt(.0))]
    Syntax(String),
    /// A line of a mapping file that cannot be read.
    #[error("line {line}: {problem}")]
    Line {
        /// 1-based line of the mapping file.
        line: usize,
        /// What is wrong.
        problem: Box<ColumnError>,
    },
    /// The same field mapped twice in one source.
    #[error("field '{}' is mapped twice", Excerpt(.0))]
    Twice(String),
    /// A field this reader does not have.
    #[error("unknown field '{}' in the column map (the fields here: {known})", Excerpt(.field))]
    UnknownField {
        /// The field named.
        field: String,
        /// The reader's fields, comma-separated.
        known: String,
    },
    /// A mapped header absent from the file.
    #[error("no column '{}' in the header (the column map reads {field} from it)", Excerpt(.header))]
    HeaderMissing {
        /// Our field.
        field: String,
        /// The header it is mapped to.
        header: String,
    },
    /// A mapped field whose own name is a column of the file too.
    #[error(
        "the column map reads {field} from '{}', but the file also has a column '{field}': \
         remove the mapping, or rename that column",
        Excerpt(.header)
    )]
    Ambiguous {
        /// Our field.
        field: String,
        /// The header it is mapped to.
        header: String,
    },
    /// Two fields read from one column.
    #[error("column '{}' would be read as both {first} and {second}", Excerpt(.header))]
    SharedHeader {
        /// The column's header.
        header: String,
        /// One field.
        first: String,
        /// The other.
        second: String,
    },
    /// A header that appears twice, for a field the reader reads.
    #[error("the header has two columns '{}' (read as {field})", Excerpt(.header))]
    DuplicateHeader {
        /// The header.
        header: String,
        /// Our field read from it.
        field: String,
    },
}

/// Where each field of a reader is in a file: a column index, or none when the file lacks
/// it (the reader decides whether that is an error).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Located {
    columns: Vec<(&'static str, usize)>,
}

impl Located {
    /// The column of `field`, if the file has it.
    pub fn get(&self, field: &str) -> Option<usize> {
        self.columns.iter().find(|(name, _)| *name == field).map(|&(_, column)| column)
    }
}

impl ColumnMap {
    /// Whether nothing is mapped.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, in the order given: (our field, the file's header).
    pub fn entries(&self) -> &[(String, String)] {
        &self.entries
    }

    /// Maps `field` to `header`.
    ///
    /// # Errors
    /// When `field` is already mapped.
    pub fn insert(&mut self, field: &str, header: &str) -> Result<(), ColumnError> {
        if self.entries.iter().any(|(f, _)| f == field) {
            return Err(ColumnError::Twice(field.to_owned()));
        }
        self.entries.push((field.to_owned(), header.to_owned()));
        Ok(())
    }

    /// One entry, `FIELD=HEADER`: spaces around both are dropped, and the header may be
    /// in double quotes (`nonce = "Bet nonce"`). Everything after the first `=` is the
    /// header, so a header may itself hold `=`.
    ///
    /// # Errors
    /// Without `=`, or with an empty field or header.
    pub fn parse_entry(text: &str) -> Result<(String, String), ColumnError> {
        let syntax = || ColumnError::Syntax(text.to_owned());
        let (field, header) = text.split_once('=').ok_or_else(syntax)?;
        let (field, mut header) = (field.trim(), header.trim());
        if header.len() >= 2 && header.starts_with('"') && header.ends_with('"') {
            header = header[1..header.len() - 1].trim();
        }
        if field.is_empty() || header.is_empty() {
            return Err(syntax());
        }
        Ok((field.to_owned(), header.to_owned()))
    }

    /// A mapping file: one [`ColumnMap::parse_entry`] per line; blank lines and lines
    /// starting with `#` are skipped.
    ///
    /// # Errors
    /// The first bad line, with its number.
    pub fn parse(text: &str) -> Result<ColumnMap, ColumnError> {
        let mut map = ColumnMap::default();
        for (i, line) in text.lines().enumerate() {
            let line_error = |problem| ColumnError::Line { line: i + 1, problem: Box::new(problem) };
            let line = line.trim().trim_start_matches('\u{feff}');
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (field, header) = Self::parse_entry(line).map_err(line_error)?;
            map.insert(&field, &header).map_err(line_error)?;
        }
        Ok(map)
    }

    /// This map with `later`'s entries added, each replacing an entry of the same field
    /// here (the command line's `--column` over a mapping file's line).
    pub fn overridden_by(mut self, later: ColumnMap) -> ColumnMap {
        for (field, header) in later.entries {
            match self.entries.iter_mut().find(|(f, _)| *f == field) {
                Some(entry) => entry.1 = header,
                None => self.entries.push((field, header)),
            }
        }
        self
    }

    /// Checks that every mapped field is one of `known`, the reader's fields.
    ///
    /// # Errors
    /// [`ColumnError::UnknownField`] for the first that is not.
    pub fn check_fields(&self, known: &[&str]) -> Result<(), ColumnError> {
        match self.entries.iter().find(|(field, _)| !known.contains(&field.as_str())) {
            Some((field, _)) => {
                Err(ColumnError::UnknownField { field: field.clone(), known: known.join(", ") })
            }
            None => Ok(()),
        }
    }

    /// Finds the reader's fields `known` in a file's `headers` by the rules of the module
    /// docs.
    ///
    /// # Errors
    /// Any of the [`ColumnError`]s the rules name.
    pub fn locate(
        &self,
        headers: &csv::StringRecord,
        known: &[&'static str],
    ) -> Result<Located, ColumnError> {
        self.check_fields(known)?;
        let named: Vec<&str> = headers.iter().map(str::trim).collect();
        let mut located = Located::default();
        for &field in known {
            let mapped = self.entries.iter().find(|(f, _)| f == field).map(|(_, header)| header.as_str());
            let header = mapped.unwrap_or(field);
            if mapped.is_some_and(|header| header != field) && named.contains(&field) {
                return Err(ColumnError::Ambiguous { field: field.to_owned(), header: header.to_owned() });
            }
            let mut at = named.iter().enumerate().filter(|(_, name)| **name == header).map(|(i, _)| i);
            let Some(column) = at.next() else {
                if mapped.is_some() {
                    return Err(ColumnError::HeaderMissing {
                        field: field.to_owned(),
                        header: header.to_owned(),
                    });
                }
                continue;
            };
            if at.next().is_some() {
                return Err(ColumnError::DuplicateHeader {
                    header: header.to_owned(),
                    field: field.to_owned(),
                });
            }
            if let Some(&(first, _)) = located.columns.iter().find(|(_, c)| *c == column) {
                return Err(ColumnError::SharedHeader {
                    header: header.to_owned(),
                    first: first.to_owned(),
                    second: field.to_owned(),
                });
            }
            located.columns.push((field, column));
        }
        Ok(located)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: [&str; 4] = ["result", "nonce", "player", "stake"];

    fn headers(names: &[&str]) -> csv::StringRecord {
        csv::StringRecord::from(names.to_vec())
    }

    fn map(entries: &[(&str, &str)]) -> ColumnMap {
        let mut map = ColumnMap::default();
        for (field, header) in entries {
            map.insert(field, header).unwrap();
        }
        map
    }

    #[test]
    fn without_a_map_fields_are_found_under_their_own_names() {
        let found = ColumnMap::default().locate(&headers(&["x", " nonce ", "result"]), &FIELDS).unwrap();
        assert_eq!(found.get("result"), Some(2));
        assert_eq!(found.get("nonce"), Some(1), "headers are trimmed");
        assert_eq!(found.get("player"), None);
    }

    #[test]
    fn a_mapped_field_is_read_from_its_header_only() {
        let found = map(&[("result", "Outcome"), ("nonce", "Bet nonce")])
            .locate(&headers(&["Bet ID", "Outcome", "Bet nonce", "stake"]), &FIELDS)
            .unwrap();
        assert_eq!(
            (found.get("result"), found.get("nonce"), found.get("stake")),
            (Some(1), Some(2), Some(3))
        );
        // Mapping a field to its own name changes nothing.
        let same = map(&[("result", "result")]).locate(&headers(&["result"]), &FIELDS).unwrap();
        assert_eq!(same.get("result"), Some(0));
    }

    #[test]
    fn every_ambiguity_is_an_error_that_names_it() {
        /// A map's entries, the file's headers, and what the error must say.
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str], &'a str);
        let cases: [Case; 6] = [
            (&[("outcome", "Outcome")], &["Outcome"], "unknown field 'outcome'"),
            (&[("result", "Outcome")], &["Result"], "no column 'Outcome'"),
            (&[("result", "Outcome")], &["Outcome", "result"], "also has a column 'result'"),
            (&[("result", "X"), ("nonce", "X")], &["X"], "both result and nonce"),
            (&[("nonce", "result")], &["result"], "both result and nonce"),
            (&[("result", "X")], &["X", "X"], "two columns 'X'"),
        ];
        for (entries, names, message) in cases {
            let error = map(entries).locate(&headers(names), &FIELDS).unwrap_err().to_string();
            assert!(error.contains(message), "{entries:?} on {names:?}: {error}");
        }
    }

    #[test]
    fn entries_and_files_parse_with_quotes_comments_and_line_numbers() {
        assert_eq!(ColumnMap::parse_entry("nonce=Bet nonce").unwrap(), ("nonce".into(), "Bet nonce".into()));
        assert_eq!(
            ColumnMap::parse_entry(" nonce = \"Bet nonce\" ").unwrap(),
            ("nonce".into(), "Bet nonce".into())
        );
        assert_eq!(ColumnMap::parse_entry("result=a=b").unwrap().1, "a=b");
        for bad in ["result", "=Outcome", "result=", "result=\"\""] {
            assert!(ColumnMap::parse_entry(bad).is_err(), "{bad:?}");
        }
        let file = ColumnMap::parse("# comment\n\nresult = Outcome\r\nnonce = \"Bet nonce\"\n").unwrap();
        assert_eq!(file, map(&[("result", "Outcome"), ("nonce", "Bet nonce")]));
        let error = ColumnMap::parse("result = A\nnonce\n").unwrap_err().to_string();
        assert!(error.starts_with("line 2: 'nonce' is not FIELD=HEADER"), "{error}");
        let error = ColumnMap::parse("result = A\nresult = B\n").unwrap_err().to_string();
        assert_eq!(error, "line 2: field 'result' is mapped twice");
    }

    /// A CRLF file (a Windows export) once had its findings one line too high: the csv
    /// crate counts its lines that way (BurntSushi/rust-csv#395).
    #[test]
    fn crlf_files_number_their_lines_as_lf_files_do() {
        let lines = |text: &str| -> Vec<(u64, Vec<String>)> {
            CsvLayout::default()
                .reader(text.as_bytes())
                .records()
                .map(|r| {
                    let r = r.unwrap();
                    (r.position().unwrap().line(), r.iter().map(str::to_owned).collect())
                })
                .collect()
        };
        let lf = "a,b\n1,x\n2,\"y\ry\"\n3,z";
        assert_eq!(lines(&lf.replace('\n', "\r\n")), lines(lf));
        assert_eq!(lines(lf)[1], (3, vec!["2".to_owned(), "y\ry".to_owned()]), "a lone CR stays");
        // A CRLF inside a quoted field is the field's text; quotes inside an unquoted
        // field are text and quote nothing; an escaped quote does not end the quoting.
        let quoted = "a,b\r\n1,\"line1\r\nline2\"\r\n2,say \"hi\"\r\n3,\"x\"\"\r\ny\"\r\n";
        let rows = lines(quoted);
        assert_eq!(rows[0].1, vec!["1".to_owned(), "line1\r\nline2".to_owned()]);
        assert_eq!(rows[1].1, vec!["2".to_owned(), "say \"hi\"".to_owned()]);
        assert_eq!(rows[2].1, vec!["3".to_owned(), "x\"\r\ny".to_owned()]);
        // Byte by byte, a CR at the end of one read and its LF at the start of the next.
        let mut one_byte = Vec::new();
        let mut reader = LfLines::new(BufReader::with_capacity(1, "x\r\ny\r\"a\r\nb\"".as_bytes()), b',');
        let mut byte = [0u8; 1];
        while reader.read(&mut byte).unwrap() == 1 {
            one_byte.push(byte[0]);
        }
        assert_eq!(one_byte, b"x\ny\r\"a\r\nb\"");
    }

    #[test]
    fn the_command_line_replaces_the_files_entry_for_a_field() {
        let file = map(&[("result", "Outcome"), ("nonce", "Nonce")]);
        let merged = file.overridden_by(map(&[("result", "Result pocket"), ("player", "User")]));
        assert_eq!(merged, map(&[("result", "Result pocket"), ("nonce", "Nonce"), ("player", "User")]));
    }
}
