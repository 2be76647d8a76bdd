//! Operators' exports read as they are (`--column`, `--columns`, `--delimiter`), through
//! the binary: the documented export (`tests/data/operator-export.*`, docs/audit.md) gives
//! exactly the audit of the history it holds, a rounds file with its own names and `;`
//! verifies like the vectors it was made from, and every ambiguity is an input error.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

fn fairaudit() -> Command {
    let mut command = Command::cargo_bin("fairaudit").unwrap();
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

fn output_of(args: &[&str]) -> (i32, String, String) {
    let output = fairaudit().args(args).output().unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code().unwrap(), text(&output.stdout), text(&output.stderr))
}

const EXPORT: [&str; 8] = [
    "audit",
    "--game",
    "roulette-european",
    "--outcomes",
    "tests/data/operator-export.csv",
    "--delimiter",
    ";",
    "--columns",
];

#[test]
fn the_operator_export_audits_as_the_history_it_holds() {
    // The same rounds, in fairaudit's own names, comma-separated, LF line ends.
    let plain =
        output_of(&["audit", "--game", "roulette-european", "--outcomes", "tests/data/roulette-history.csv"]);
    assert_eq!(plain.0, 1, "the history has two doctored rows: {plain:?}");
    let mapped: Vec<&str> = EXPORT.iter().copied().chain(["tests/data/operator-export.columns"]).collect();
    assert_eq!(output_of(&mapped), plain);

    // Without the map its headers are not ours; without the delimiter it is one column.
    let (status, _, stderr) = output_of(&EXPORT[..7]);
    assert_eq!(status, 2, "{stderr}");
    let (status, _, stderr) =
        output_of(&[&EXPORT[..5], &["--columns", "tests/data/operator-export.columns"]].concat());
    assert_eq!(status, 2, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn a_column_on_the_command_line_replaces_the_files_line() {
    let dir = TempDir::new().unwrap();
    let map = std::fs::read_to_string("tests/data/operator-export.columns").unwrap();
    assert!(map.contains("result = Outcome\n"));
    let wrong = dir.path().join("wrong.columns");
    std::fs::write(&wrong, map.replace("result = Outcome", "result = Result")).unwrap();
    let wrong = wrong.to_str().unwrap();

    let with_wrong: Vec<&str> = EXPORT.iter().copied().chain([wrong]).collect();
    fairaudit().args(&with_wrong).assert().code(2).stderr(predicate::str::contains(
        "no column 'Result' in the header (the column map reads result from it)",
    ));
    let fixed: Vec<&str> = with_wrong.iter().copied().chain(["--column", "result=Outcome"]).collect();
    let plain =
        output_of(&["audit", "--game", "roulette-european", "--outcomes", "tests/data/roulette-history.csv"]);
    assert_eq!(output_of(&fixed), plain);
}

#[test]
fn ambiguous_maps_are_refused_with_one_line() {
    let base: Vec<&str> = EXPORT.iter().copied().chain(["tests/data/operator-export.columns"]).collect();
    let cases: [(&[&str], &str); 3] = [
        (&["--column", "player=Outcome"], "column 'Outcome' would be read as both"),
        (&["--column", "colour=Outcome"], "unknown field 'colour'"),
        (&["--column", "result"], "is not FIELD=HEADER"),
    ];
    let bad_delimiter: Vec<&str> = EXPORT[..5].iter().copied().chain(["--delimiter", "\""]).collect();
    let cases = cases
        .into_iter()
        .map(|(extra, message)| (base.iter().chain(extra).copied().collect::<Vec<&str>>(), message))
        .chain([(bad_delimiter, "a delimiter is one ASCII character")]);
    for (args, message) in cases {
        let (status, stdout, stderr) = output_of(&args);
        assert_eq!((status, stdout.as_str()), (2, ""), "{args:?}: {stderr}");
        assert!(stderr.contains(message) && stderr.lines().count() == 1, "{args:?}: {stderr}");
    }
    // A map describes a rounds file; `verify` of one round has none.
    fairaudit()
        .args(["verify", "--game", "keno", "--server-seed", "s", "--client-seed", "c", "--nonce", "1"])
        .args(["--column", "result=Outcome"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--rounds"));
}

/// The reference vectors with their columns renamed, an extra column first, `;` between
/// fields, and the result of row `doctor_row` changed when given.
fn renamed_vectors(dir: &Path, doctor_row: Option<usize>) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors/rejection-rounds.csv");
    let mut reader = csv::Reader::from_path(source).unwrap();
    let headers = reader.headers().unwrap().clone();
    let result = headers.iter().position(|h| h == "result").unwrap();
    let draw_order = headers.iter().position(|h| h == "draw_order").unwrap();
    let path = dir.join("rounds export.csv");
    let mut writer = csv::WriterBuilder::new().delimiter(b';').from_path(&path).unwrap();
    let renamed: Vec<String> = headers.iter().map(|h| format!("Round {}", h.replace('_', " "))).collect();
    writer.write_record(std::iter::once("Ticket").chain(renamed.iter().map(String::as_str))).unwrap();
    for (i, record) in reader.records().enumerate() {
        let mut fields: Vec<String> = record.unwrap().iter().map(str::to_owned).collect();
        if doctor_row == Some(i) {
            // A roulette round: another pocket; a Keno round: the draw order reversed and
            // another number in the result (still ten, ascending: a wrong round, not a
            // malformed one).
            fields[draw_order] = fields[draw_order].split(' ').rev().collect::<Vec<_>>().join(" ");
            let numbers: Vec<u8> = fields[result].split(' ').map(|n| n.parse().unwrap()).collect();
            fields[result] = if numbers.len() == 1 {
                if numbers[0] == 0 {
                    "1".into()
                } else {
                    "0".into()
                }
            } else {
                let outside = (1..=40).find(|n| !numbers.contains(n)).unwrap();
                let mut changed: Vec<u8> = numbers[1..].iter().copied().chain([outside]).collect();
                changed.sort_unstable();
                changed.iter().map(u8::to_string).collect::<Vec<_>>().join(" ")
            };
        }
        writer.write_record(std::iter::once(format!("T{i}")).chain(fields)).unwrap();
    }
    writer.flush().unwrap();
    path
}

fn verify_mapped(file: &Path) -> Command {
    let mut command = fairaudit();
    command.args(["verify", "--rounds"]).arg(file).args(["--delimiter", ";"]);
    let fields = ["game", "server_seed", "client_seed", "nonce", "commitment", "round_signature"];
    for field in fields.into_iter().chain(["draw_order", "result", "u32_used"]) {
        command.args(["--column", &format!("{field}=Round {}", field.replace('_', " "))]);
    }
    command
}

#[test]
fn verify_reads_a_rounds_file_in_its_own_names() {
    let dir = TempDir::new().unwrap();
    let file = renamed_vectors(dir.path(), None);
    verify_mapped(&file).assert().success().stdout("6 rounds checked, 0 mismatches\n");
    let doctored = renamed_vectors(dir.path(), Some(2));
    verify_mapped(&doctored).assert().code(1).stdout(
        predicate::str::contains("line 4: result: file has")
            .and(predicate::str::contains("6 rounds checked")),
    );
}
