//! Reading and forging certificate dossiers, as the tests of `certify --check` do: the
//! manifest read, a verdict looked up, and a file's hash rewritten in the manifest as a
//! forger who rewrites the manifest would.

use std::path::Path;

/// The manifest of the certificate folder `cert`.
pub fn manifest(cert: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(cert.join("manifest.json")).unwrap()).unwrap()
}

/// The verdict the manifest records under `key`.
pub fn verdict(manifest: &serde_json::Value, key: &str) -> String {
    let verdicts = manifest["verdicts"].as_array().unwrap();
    let found = verdicts.iter().find(|v| v["key"] == key).unwrap_or_else(|| panic!("no verdict {key}"));
    found["verdict"].as_str().unwrap().to_owned()
}

/// Rewrites the manifest of `cert` with `edit`.
pub fn edit_manifest(cert: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut value = manifest(cert);
    edit(&mut value);
    std::fs::write(cert.join("manifest.json"), serde_json::to_vec_pretty(&value).unwrap()).unwrap();
}

/// Records the current hash and size of the dossier file `rel` in the manifest.
pub fn rehash(cert: &Path, rel: &str) {
    let bytes = std::fs::read(cert.join(rel)).unwrap();
    let sha = fairaudit::certify::sha256_hex(&bytes);
    edit_manifest(cert, |m| {
        for list in ["inputs", "outputs"] {
            for file in m[list].as_array_mut().unwrap() {
                if file["path"] == rel {
                    file["sha256"] = sha.clone().into();
                    file["bytes"] = bytes.len().into();
                }
            }
        }
    });
}

/// Rewrites the dossier file `rel` of `cert` with `forge` and its hash with it, as a forger
/// who rewrites the manifest would; `certify --check` must then exit 1 naming `rel` with
/// `says`. The file and its hash are put back after.
pub fn assert_forgery_named(cert: &Path, rel: &str, forge: impl Fn(&str) -> String, says: &str) {
    let original = std::fs::read_to_string(cert.join(rel)).unwrap();
    let forged = forge(&original);
    assert_ne!(forged, original, "{rel}: the forgery changes nothing");
    std::fs::write(cert.join(rel), forged).unwrap();
    rehash(cert, rel);
    let checked = assert_cmd::Command::cargo_bin("fairaudit")
        .unwrap()
        .args(["certify", "--check"])
        .arg(cert)
        .assert()
        .code(1);
    let out = String::from_utf8_lossy(&checked.get_output().stdout).into_owned();
    assert!(out.contains(&format!("MISMATCH {rel}: {says}")), "{out}");
    std::fs::write(cert.join(rel), &original).unwrap();
    rehash(cert, rel);
}
