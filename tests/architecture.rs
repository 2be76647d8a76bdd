//! The module tree is the pipeline, and imports only go down it: a module may use the
//! modules before it in [`LAYERS`], never one after it. This is what keeps the library
//! free of cycles and the report free of computation (issue 19: `stats` and `rtp` once
//! imported the report's table type while the report imported them). The test reads the
//! sources, so it fails on the commit that adds an upward `use`. Within a layer, no two
//! files import each other, directly or round a loop ([`import_circles`]: at b32e2c9 it
//! finds the eight circles issue 60 counted). No function outside tests is over 150
//! lines ([`long_functions`]: at b32e2c9 it finds the seven that were). And the report
//! calls no function of `rtp` or `stats` but their formatting ([`report_computations`]: at
//! 3b51997 it finds the exact RTP, realised returns and crash laws computed in `report/`).

mod common;

use std::collections::BTreeMap;
use std::path::Path;

/// The library's top-level modules, lowest first. `cli` is the binary's and may use all.
const LAYERS: &[&str] = &[
    "simd",
    "fields",
    "columns",
    "chain",
    "sampler",
    "games",
    "scheme",
    "tally",
    "stream",
    "device",
    "sweep",
    "stats",
    "rtp",
    "conformance",
    "verify",
    "audit",
    "results",
    "certify",
    "report",
    "app",
];

/// The top-level module of a source file (`src/tally/keno.rs` is `tally`).
fn module_of(path: &Path, src: &Path) -> Option<String> {
    let relative = path.strip_prefix(src).ok()?;
    let first = relative.components().next()?.as_os_str().to_string_lossy().into_owned();
    Some(first.trim_end_matches(".rs").to_owned())
}

/// The code of a file without its comments (doc links may name any module).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::NAME` the code mentions.
fn crate_references(code: &str) -> Vec<String> {
    code.match_indices("crate::")
        .map(|(at, _)| {
            code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|name| !name.is_empty())
        .collect()
}

use common::rust_files;

/// Upward imports found in `src`: (file, module it names).
fn upward_imports(src: &Path) -> Vec<(String, String)> {
    let rank: BTreeMap<&str, usize> = LAYERS.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut upward = Vec::new();
    for file in files {
        let Some(module) = module_of(&file, src) else { continue };
        let Some(&own) = rank.get(module.as_str()) else { continue };
        let code = code_of(&std::fs::read_to_string(&file).unwrap());
        for name in crate_references(&code) {
            match rank.get(name.as_str()) {
                Some(&other) if other > own => {
                    upward.push((file.display().to_string(), name));
                }
                _ => {}
            }
        }
    }
    upward.sort();
    upward.dedup();
    upward
}

#[test]
fn no_module_imports_one_above_it_in_the_pipeline() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let upward = upward_imports(&src);
    assert!(upward.is_empty(), "upward imports (file, module): {upward:#?}");
}

#[test]
fn every_library_module_has_a_layer() {
    let lib = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    for line in lib.lines() {
        if let Some(name) = line.strip_prefix("pub mod ").and_then(|rest| rest.strip_suffix(';')) {
            assert!(LAYERS.contains(&name), "src/lib.rs declares `{name}`, which LAYERS does not place");
        }
    }
}

/// The check itself can fail: an upward `use` in a copy of a low module is found.
#[test]
fn an_upward_import_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("stats")).unwrap();
    std::fs::write(
        src.join("stats/x.rs"),
        "// crate::report in a comment is fine\nuse crate::games::GameId;\n",
    )
    .unwrap();
    assert!(upward_imports(&src).is_empty());
    std::fs::write(src.join("stats/y.rs"), "use crate::report::Table;\n").unwrap();
    assert_eq!(upward_imports(&src).len(), 1);
}

/// The module a source file is, as path segments (`src/cli/certify/check.rs` is
/// `cli certify check`, `src/cli/certify/mod.rs` is `cli certify`, `src/lib.rs` the root).
fn module_path(file: &Path, src: &Path) -> Vec<String> {
    let mut segments: Vec<String> = file
        .strip_prefix(src)
        .unwrap()
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(segments.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        segments.pop();
    }
    segments
}

/// The paths the code names from `super::`, `crate::` and `fairaudit::`, as module path
/// segments from the crate's root (groups `{a, b::c}` expanded, one level).
fn named_paths(code: &str, own: &[String]) -> Vec<Vec<String>> {
    let ident =
        |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let mut paths = Vec::new();
    for root in ["super::", "crate::", "fairaudit::"] {
        for (at, _) in code.match_indices(root) {
            if root != "super::" && at > 0 && code[..at].ends_with("super::") {
                continue;
            }
            let base: Vec<String> = match root {
                "super::" if at >= 7 && code[..at].ends_with("super::") => continue,
                "super::" => own[..own.len().saturating_sub(1)].to_vec(),
                _ => Vec::new(),
            };
            let mut rest = &code[at + root.len()..];
            let mut prefix = base.clone();
            while rest.starts_with("super::") {
                prefix.pop();
                rest = &rest["super::".len()..];
            }
            let mut segments = prefix.clone();
            loop {
                if let Some(group) = rest.strip_prefix('{') {
                    let inner = &group[..group.find('}').unwrap_or(group.len())];
                    for item in inner.split(',') {
                        let mut path = segments.clone();
                        path.extend(item.trim().split("::").map(ident).filter(|s| !s.is_empty()));
                        paths.push(path);
                    }
                    break;
                }
                let name = ident(rest);
                if name.is_empty() {
                    paths.push(segments);
                    break;
                }
                segments.push(name.clone());
                rest = &rest[name.len()..];
                match rest.strip_prefix("::") {
                    Some(after) => rest = after,
                    None => {
                        paths.push(segments);
                        break;
                    }
                }
            }
        }
    }
    paths
}

/// Imports between source files (file → the file whose module the path's longest known
/// prefix is), leaving out a file's use of its own ancestors (a child naming its parent's
/// items is the module tree, not a loop).
fn file_imports(src: &Path) -> BTreeMap<Vec<String>, std::collections::BTreeSet<Vec<String>>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: std::collections::BTreeSet<Vec<String>> =
        files.iter().map(|f| module_path(f, src)).collect();
    let mut imports = BTreeMap::new();
    for file in &files {
        let own = module_path(file, src);
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let targets: &mut std::collections::BTreeSet<Vec<String>> = imports.entry(own.clone()).or_default();
        for path in named_paths(&code, &own) {
            let Some(target) =
                (1..=path.len()).rev().map(|k| path[..k].to_vec()).find(|m| modules.contains(m))
            else {
                continue;
            };
            if target != own && !own.starts_with(&target) {
                targets.insert(target);
            }
        }
    }
    imports
}

/// The files that import each other in a loop (a strongly connected set of two or more).
fn import_circles(src: &Path) -> Vec<Vec<String>> {
    let imports = file_imports(src);
    let reaches = |from: &Vec<String>| {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(next) = stack.pop() {
            for target in imports.get(&next).into_iter().flatten() {
                if seen.insert(target.clone()) {
                    stack.push(target.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<_, _> = imports.keys().map(|m| (m.clone(), reaches(m))).collect();
    let mut circles: Vec<Vec<String>> = Vec::new();
    for (module, from) in &reached {
        let mut circle: Vec<String> = from
            .iter()
            .filter(|other| *other != module && reached.get(*other).is_some_and(|back| back.contains(module)))
            .map(|m| m.join("::"))
            .collect();
        if !circle.is_empty() {
            circle.push(module.join("::"));
            circle.sort();
            if !circles.contains(&circle) {
                circles.push(circle);
            }
        }
    }
    circles
}

/// No two files import each other, directly or round a loop (issue 60: there were eight
/// such circles, five of them from schemes grown side by side).
#[test]
fn no_files_import_each_other_in_a_loop() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert_eq!(import_circles(&src), Vec::<Vec<String>>::new());
}

#[test]
fn an_import_circle_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("cli")).unwrap();
    std::fs::write(src.join("cli/mod.rs"), "mod a;\nmod b;\nmod c;\npub enum Verdict {}\n").unwrap();
    std::fs::write(src.join("cli/a.rs"), "use super::b::run;\nuse super::Verdict;\n").unwrap();
    std::fs::write(src.join("cli/c.rs"), "use super::Verdict;\n").unwrap();
    std::fs::write(src.join("cli/b.rs"), "// super::a in a comment is fine\nfn f() { crate::cli::c::g() }\n")
        .unwrap();
    assert_eq!(import_circles(src), Vec::<Vec<String>>::new());
    // c now names a (in a group, and in an expression): a -> b -> c -> a.
    std::fs::write(src.join("cli/c.rs"), "use super::{Verdict, a::x};\nfn g() { super::a::h() }\n").unwrap();
    assert_eq!(import_circles(src), vec![vec!["cli::a", "cli::b", "cli::c"]]);
}

/// The longest a function outside tests may be (issue 60: eight were longer).
const LONGEST_FUNCTION: usize = 150;

/// The functions of `text` (outside its `#[cfg(test)]` module) longer than `limit` lines,
/// with their lengths: from the `fn` line to the line where its braces close. Braces in
/// strings count too, which is near enough for a limit with a margin.
fn long_functions(text: &str, limit: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().take_while(|line| !line.starts_with("#[cfg(test)]")).collect();
    let mut long = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let signature = ["pub(crate) fn ", "pub(super) fn ", "pub fn ", "fn ", "const fn ", "pub const fn "]
            .iter()
            .find_map(|prefix| code.strip_prefix(prefix));
        let Some(name) = signature.map(|rest| rest.split(['(', '<']).next().unwrap_or("").to_owned()) else {
            continue;
        };
        let (mut depth, mut opened) = (0i64, false);
        for (offset, line) in lines[start..].iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            depth += code.matches('{').count() as i64 - code.matches('}').count() as i64;
            opened |= code.contains('{');
            if !opened && code.trim_end().ends_with(';') {
                break;
            }
            if opened && depth <= 0 {
                if offset + 1 > limit {
                    long.push((name.clone(), offset + 1));
                }
                break;
            }
        }
    }
    long
}

#[test]
fn no_function_outside_tests_is_over_150_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut long = Vec::new();
    for file in files {
        for (name, lines) in long_functions(&std::fs::read_to_string(&file).unwrap(), LONGEST_FUNCTION) {
            long.push(format!("{}: {name} ({lines} lines)", file.display()));
        }
    }
    assert!(long.is_empty(), "split these: {long:#?}");
}

#[test]
fn a_long_function_is_caught() {
    let body = "    let x = 1;\n".repeat(LONGEST_FUNCTION);
    let text = format!("pub fn short() {{\n}}\n\nfn long(a: u8) {{\n{body}}}\n\n#[cfg(test)]\nmod tests {{\n    fn in_tests() {{\n{body}    }}\n}}\n");
    assert_eq!(long_functions(&text, LONGEST_FUNCTION), [("long".to_owned(), LONGEST_FUNCTION + 2)]);
}

/// How the report may write numbers the layers below computed: `rtp::decimal`'s exact
/// decimals and a p-value as people read it. Formatting, not computation.
const REPORT_FORMATTERS: &[&str] = &["rtp::decimal::", "stats::battery::p_value_text"];

/// The functions (and modules, whose functions a file could then call by a short path)
/// of `rtp` and `stats` that report files outside their tests name: the report renders
/// what those layers computed and takes their types, but calls none of their functions,
/// save the [`REPORT_FORMATTERS`]. What it cannot see: a method called on a value, or a
/// function associated with a type (`CrashLaws::of`); the types' names are the review's.
fn report_computations(src: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&src.join("report"), &mut files);
    let mut calls = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let code = code_of(text.split("#[cfg(test)]").next().unwrap());
        let own = module_path(&file, src);
        for path in named_paths(&code, &own) {
            let named = path.join("::");
            let computing = matches!(path.first().map(String::as_str), Some("rtp" | "stats"))
                && !REPORT_FORMATTERS.iter().any(|allowed| named.starts_with(allowed))
                && path.last().is_some_and(|name| name.starts_with(|c: char| c.is_ascii_lowercase()));
            if computing {
                calls.push((file.display().to_string(), named));
            }
        }
    }
    calls.sort();
    calls.dedup();
    calls
}

#[test]
fn the_report_calls_no_rtp_or_statistics_computation() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let calls = report_computations(&src);
    assert!(calls.is_empty(), "report files calling rtp or stats functions (file, path): {calls:#?}");
}

#[test]
fn a_report_computing_an_rtp_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("report")).unwrap();
    std::fs::write(
        src.join("report/x.rs"),
        "use crate::rtp::stake::StakeBetRtp;\nuse crate::rtp::decimal::{format_fixed, Percent};\nuse crate::stats::battery::{p_value_text, Battery};\n#[cfg(test)]\nmod tests { use crate::stats::crash::battery; }\n",
    )
    .unwrap();
    assert!(report_computations(&src).is_empty(), "{:?}", report_computations(&src));
    std::fs::write(src.join("report/y.rs"), "use crate::rtp::stake::{exact_rtp, StakeBetRtp};\n").unwrap();
    std::fs::write(src.join("report/z.rs"), "fn f() { crate::stats::crash::battery(v, t, 0.01); }\n")
        .unwrap();
    std::fs::write(src.join("report/w.rs"), "use crate::rtp::stake;\nfn f() { stake::exact_rtp(s, g); }\n")
        .unwrap();
    let found: Vec<String> = report_computations(&src).into_iter().map(|(_, path)| path).collect();
    assert_eq!(found, ["rtp::stake", "rtp::stake::exact_rtp", "stats::crash::battery"]);
}
