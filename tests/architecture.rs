//! The module tree is the pipeline, and imports only go down it: a module may use the
//! modules before it in [`LAYERS`], never one after it. This is what keeps the library
//! free of cycles and the report free of computation (issue 19: `stats` and `rtp` once
//! imported the report's table type while the report imported them). The test reads the
//! sources, so it fails on the commit that adds an upward `use`.

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
