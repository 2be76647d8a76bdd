//! Signatures of a certificate's manifest in OpenSSH's SSHSIG format, so that anyone can
//! verify them with a standard tool (`ssh-keygen -Y verify`) as well as with fairaudit.
//!
//! The signature covers `manifest.json`, which pins every other file of the certificate by
//! SHA-256 and records every verdict: a valid signature by a key the reader trusts means
//! the whole folder is as the auditor wrote it. It is stored beside the manifest in
//! [`SIGNATURE_FILE`], armoured, under the namespace [`NAMESPACE`] (a signature made for
//! another purpose, say a git commit, does not verify as a certificate's).
//!
//! Trust comes from an allowed-signers file, OpenSSH's format (`ssh-keygen(1)`, section
//! ALLOWED SIGNERS): one key per line, `PRINCIPALS [OPTIONS] KEYTYPE BASE64 [COMMENT]`.
//! fairaudit reads the principals (comma-separated, `*` and `?` wildcards), the
//! `namespaces="…"` option and the key; a line with two `namespaces=`, `cert-authority`, `valid-after` or
//! `valid-before` is refused rather than half-honoured. The key and signature formats are
//! the `ssh-key` crate's.

use ssh_key::{HashAlg, LineEnding, PrivateKey, PublicKey, SshSig};

/// The SSHSIG namespace of a certificate's signature (`ssh-keygen -Y sign -n`).
pub const NAMESPACE: &str = "fairaudit-certificate";

/// The signature's file name in a certificate folder.
pub const SIGNATURE_FILE: &str = "manifest.json.sig";

/// The SHA-256 fingerprint of a public key as `ssh-keygen -l` prints it (`SHA256:…`).
pub fn fingerprint(key: &PublicKey) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// The armoured SSHSIG signature of `message` by `key`.
pub fn sign(key: &PrivateKey, message: &[u8]) -> Result<String, String> {
    if key.is_encrypted() {
        return Err("the key is protected by a passphrase, which fairaudit does not ask for: sign manifest.json with ssh-keygen -Y sign instead (docs/certify.md)".into());
    }
    let signature = key.sign(NAMESPACE, HashAlg::Sha512, message).map_err(|e| format!("cannot sign: {e}"))?;
    signature.to_pem(LineEnding::LF).map_err(|e| format!("cannot encode the signature: {e}"))
}

/// One line of an allowed-signers file.
#[derive(Debug, Clone)]
pub struct AllowedSigner {
    /// Principal patterns the key may sign as.
    pub principals: Vec<String>,
    /// Namespaces the key may sign in, when the line restricts them.
    pub namespaces: Option<Vec<String>>,
    /// The key.
    pub key: PublicKey,
}

/// Splits a line into fields at unquoted whitespace (quotes kept inside fields).
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    for c in line.chars() {
        if c == '"' {
            quoted = !quoted;
            field.push(c);
        } else if c.is_whitespace() && !quoted {
            if !field.is_empty() {
                out.push(std::mem::take(&mut field));
            }
        } else {
            field.push(c);
        }
    }
    if !field.is_empty() {
        out.push(field);
    }
    out
}

/// Reads an allowed-signers file; an error names the line.
pub fn parse_allowed_signers(text: &str) -> Result<Vec<AllowedSigner>, String> {
    let mut signers = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |what: &str| format!("line {}: {what}", number + 1);
        let fields = fields(line);
        if fields.len() < 3 {
            return Err(at("expected PRINCIPALS [OPTIONS] KEYTYPE KEY"));
        }
        let principals: Vec<String> = fields[0].trim_matches('"').split(',').map(str::to_owned).collect();
        // The options field is there when the second field is not a key type.
        let (options, key_at) = if fields[1].starts_with("ssh-")
            || fields[1].starts_with("ecdsa-")
            || fields[1].starts_with("sk-")
        {
            (None, 1)
        } else {
            (Some(fields[1].as_str()), 2)
        };
        let mut namespaces = None;
        for option in options.map(split_options).unwrap_or_default() {
            let (name, value) = option.split_once('=').unwrap_or((option, ""));
            match name.to_ascii_lowercase().as_str() {
                // ssh-keygen refuses a second `namespaces=` (sshsig.c, "multiple namespaces"):
                // keeping either one would trust the key where its owner may not have meant.
                "namespaces" if namespaces.is_some() => return Err(at("two namespaces= options")),
                "namespaces" => {
                    namespaces = Some(value.trim_matches('"').split(',').map(str::to_owned).collect());
                }
                other => return Err(at(&format!("option '{other}' is not supported by fairaudit"))),
            }
        }
        let key_text = fields.get(key_at..key_at + 2).ok_or_else(|| at("no key"))?.join(" ");
        let key = PublicKey::from_openssh(&key_text).map_err(|e| at(&format!("not a public key ({e})")))?;
        signers.push(AllowedSigner { principals, namespaces, key });
    }
    if signers.is_empty() {
        return Err("names no key".into());
    }
    Ok(signers)
}

/// The options field split at its commas, but not at those inside quotes
/// (`namespaces="git,fairaudit-certificate"` is one option).
fn split_options(options: &str) -> Vec<&str> {
    let (mut parts, mut start, mut quoted) = (Vec::new(), 0, false);
    for (i, c) in options.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => {
                parts.push(&options[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&options[start..]);
    parts
}

/// Whether `name` matches a list of OpenSSH patterns as ssh does (`match_pattern_list`):
/// some pattern matches it and no negated one (`!pattern`) does.
fn matches_list(patterns: &[String], name: &str) -> bool {
    let mut matched = false;
    for pattern in patterns {
        match pattern.strip_prefix('!') {
            Some(negated) if matches(negated, name) => return false,
            Some(_) => {}
            None => matched |= matches(pattern, name),
        }
    }
    matched
}

/// Whether `name` matches an OpenSSH pattern (`*` any run, `?` one character), in time
/// proportional to the pattern's length times the name's: on a mismatch after a `*`, only
/// the last `*` is tried again one character further (an earlier one could only cover
/// less of what the last one may cover), where trying every split at every `*` took time
/// quadratic in the name (a manifest naming a 96,000-character signer took 20 s).
fn matches(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // After the last `*` seen: where the pattern goes on, and where in the name it did.
    let mut last_star: Option<(usize, usize)> = None;
    let (mut i, mut j) = (0, 0);
    while j < n.len() {
        match p.get(i) {
            Some('*') => {
                last_star = Some((i + 1, j));
                i += 1;
            }
            Some(&c) if c == '?' || c == n[j] => (i, j) = (i + 1, j + 1),
            _ => match last_star {
                Some((after, from)) => {
                    last_star = Some((after, from + 1));
                    (i, j) = (after, from + 1);
                }
                None => return false,
            },
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// The longest signer identity a manifest may name, in bytes: an e-mail address is at most
/// 254, and a longer one only makes matching it against patterns slower.
pub const IDENTITY_LIMIT: usize = 256;

/// Why `identity` cannot be a signer's (one line, naming the problem), or `None`: longer
/// than [`IDENTITY_LIMIT`], or [`identity_text_problem`]. `certify` refuses such an
/// identity for a new certificate, and `--check --allowed-signers` one a manifest names
/// before matching it against any pattern.
pub fn identity_problem(identity: &str) -> Option<String> {
    if identity.len() > IDENTITY_LIMIT {
        return Some(format!(
            "the signer's identity is {} bytes long, more than the {IDENTITY_LIMIT} an identity may have",
            identity.len()
        ));
    }
    identity_text_problem(identity)
}

/// Why `identity` cannot be listed in an allowed-signers file, or `None`: empty, or holding
/// whitespace, control characters, commas, quotes or wildcards. Every manifest is held to
/// this when read: `certify` has refused such identities since manifests named a signer
/// (the length limit is newer, so a manifest written before it is still read).
pub fn identity_text_problem(identity: &str) -> Option<String> {
    if identity.is_empty() {
        return Some("the signer's identity is empty".into());
    }
    if identity.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, ',' | '"' | '*' | '?')) {
        return Some(format!(
            "the signer's identity '{}' holds spaces, control characters, commas, quotes or wildcards, which an allowed-signers file cannot list",
            identity.escape_debug()
        ));
    }
    None
}

/// What a verified signature says: who signed, with which key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoodSignature {
    /// The principal the signature was checked for.
    pub principal: String,
    /// The key's SHA-256 fingerprint.
    pub fingerprint: String,
}

/// Verifies the armoured `signature` of `message` as made by `principal` with a key that
/// `signers` allow for [`NAMESPACE`]; the error says why it does not verify.
pub fn verify(
    signature: &[u8],
    message: &[u8],
    signers: &[AllowedSigner],
    principal: &str,
) -> Result<GoodSignature, String> {
    let signature = SshSig::from_pem(signature).map_err(|e| format!("not an SSH signature ({e})"))?;
    if signature.namespace() != NAMESPACE {
        return Err(format!("made for namespace '{}', not '{NAMESPACE}'", signature.namespace()));
    }
    let signer = signers
        .iter()
        .filter(|s| s.key.key_data() == signature.public_key())
        .find(|s| {
            matches_list(&s.principals, principal)
                && s.namespaces.as_ref().is_none_or(|n| matches_list(n, NAMESPACE))
        })
        .ok_or_else(|| {
            format!(
                "made with key {}, which the allowed signers do not list for '{principal}' in namespace {NAMESPACE}",
                PublicKey::from(signature.public_key().clone()).fingerprint(HashAlg::Sha256)
            )
        })?;
    signer.key.verify(NAMESPACE, message, &signature).map_err(|_| {
        "does not verify: manifest.json was changed after it was signed, or the signature was".to_owned()
    })?;
    Ok(GoodSignature { principal: principal.to_owned(), fingerprint: fingerprint(&signer.key) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssh_key::private::{Ed25519Keypair, KeypairData};

    fn key(seed: u8) -> PrivateKey {
        let pair = Ed25519Keypair::from_seed(&[seed; 32]);
        PrivateKey::new(KeypairData::Ed25519(pair), "auditor").unwrap()
    }

    fn allowed(principals: &str, key: &PrivateKey) -> Vec<AllowedSigner> {
        let line = format!("{principals} {}", key.public_key().to_openssh().unwrap());
        parse_allowed_signers(&line).unwrap()
    }

    #[test]
    fn a_signature_verifies_for_its_principal_and_not_after_any_change() {
        let k = key(1);
        let signature = sign(&k, b"manifest").unwrap();
        let good =
            verify(signature.as_bytes(), b"manifest", &allowed("audit@example.org", &k), "audit@example.org");
        assert_eq!(good.unwrap().fingerprint, fingerprint(k.public_key()));
        assert!(verify(
            signature.as_bytes(),
            b"manifesT",
            &allowed("audit@example.org", &k),
            "audit@example.org"
        )
        .unwrap_err()
        .contains("does not verify"));
        // Another principal, another key: refused, named.
        assert!(verify(
            signature.as_bytes(),
            b"manifest",
            &allowed("other@example.org", &k),
            "audit@example.org"
        )
        .is_err());
        assert!(verify(
            signature.as_bytes(),
            b"manifest",
            &allowed("audit@example.org", &key(2)),
            "audit@example.org"
        )
        .unwrap_err()
        .contains("do not list"));
        // Wildcards, as OpenSSH reads them.
        assert!(verify(
            signature.as_bytes(),
            b"manifest",
            &allowed("*@example.org", &k),
            "audit@example.org"
        )
        .is_ok());
    }

    #[test]
    fn a_signature_for_another_namespace_is_refused() {
        let k = key(3);
        let other = k.sign("git", HashAlg::Sha512, b"manifest").unwrap().to_pem(LineEnding::LF).unwrap();
        assert!(verify(other.as_bytes(), b"manifest", &allowed("a", &k), "a")
            .unwrap_err()
            .contains("namespace"));
        let line = format!("a namespaces=\"git\" {}", k.public_key().to_openssh().unwrap());
        let signers = parse_allowed_signers(&line).unwrap();
        let signature = sign(&k, b"m").unwrap();
        assert!(verify(signature.as_bytes(), b"m", &signers, "a").is_err());
    }

    #[test]
    fn quoted_option_lists_and_negated_patterns_are_read_as_openssh_reads_them() {
        let k = key(5);
        let public = k.public_key().to_openssh().unwrap();
        let signature = sign(&k, b"m").unwrap();
        // A namespace list with a comma inside its quotes is one option.
        let line = format!("a namespaces=\"git,fairaudit-certificate\" {public}");
        let signers = parse_allowed_signers(&line).unwrap();
        assert!(verify(signature.as_bytes(), b"m", &signers, "a").is_ok());
        let line = format!("a namespaces=\"git,!fairaudit-*,*\" {public}");
        assert!(verify(signature.as_bytes(), b"m", &parse_allowed_signers(&line).unwrap(), "a").is_err());
        // A negated principal is refused though another pattern matches it.
        let signers = allowed("*@example.org,!x@example.org", &k);
        assert!(verify(signature.as_bytes(), b"m", &signers, "y@example.org").is_ok());
        assert!(verify(signature.as_bytes(), b"m", &signers, "x@example.org").is_err());
        // A list of negations alone allows nobody.
        assert!(verify(signature.as_bytes(), b"m", &allowed("!x@example.org", &k), "y@example.org").is_err());
    }

    #[test]
    fn allowed_signers_lines_are_read_or_refused_by_line() {
        let k = key(4);
        let public = k.public_key().to_openssh().unwrap();
        let text = format!("# comment\n\na,b namespaces=\"fairaudit-certificate\" {public} comment\n");
        let signers = parse_allowed_signers(&text).unwrap();
        assert_eq!(signers[0].principals, ["a", "b"]);
        assert!(parse_allowed_signers(&format!("a cert-authority {public}"))
            .unwrap_err()
            .starts_with("line 1"));
        assert!(parse_allowed_signers("a ssh-ed25519 notbase64").unwrap_err().contains("line 1"));
        assert!(parse_allowed_signers("# nothing\n").is_err());
        assert!(verify(b"garbage", b"m", &signers, "a").unwrap_err().contains("not an SSH signature"));
    }

    /// ssh-keygen refuses a line with two `namespaces=` options; so must we (issue 59).
    #[test]
    fn a_line_with_two_namespaces_options_is_refused() {
        let public = key(5).public_key().to_openssh().unwrap();
        let line = format!("a namespaces=\"git\",namespaces=\"fairaudit-certificate\" {public}");
        assert_eq!(parse_allowed_signers(&line).unwrap_err(), "line 1: two namespaces= options");
    }

    /// The matcher `matches` replaced (every split tried at every `*`): slow, and the
    /// semantics to keep.
    fn matches_by_every_split(pattern: &str, name: &str) -> bool {
        fn go(p: &[char], n: &[char]) -> bool {
            match p.split_first() {
                None => n.is_empty(),
                Some(('*', rest)) => (0..=n.len()).any(|i| go(rest, &n[i..])),
                Some(('?', rest)) => !n.is_empty() && go(rest, &n[1..]),
                Some((c, rest)) => n.first() == Some(c) && go(rest, &n[1..]),
            }
        }
        let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
        go(&p, &n)
    }

    /// Every string of up to `max` characters of `alphabet`.
    fn strings(alphabet: &[char], max: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..max {
            last = last.iter().flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}"))).collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    #[test]
    fn the_pattern_matcher_agrees_with_every_split_on_every_short_pattern_and_name() {
        let names = strings(&['a', 'b'], 6);
        for pattern in strings(&['a', 'b', '*', '?'], 5) {
            for name in &names {
                assert_eq!(
                    matches(&pattern, name),
                    matches_by_every_split(&pattern, name),
                    "{pattern} {name}"
                );
            }
        }
        for (pattern, name, expected) in [
            ("*@*.example.org", "audit@eu.example.org", true),
            ("*@*.example.org", "audit@example.org", false),
            ("audit@example.org", "audit@example.org", true),
            ("audit@example.org", "Audit@example.org", false),
            ("?udit@example.org", "audit@example.org", true),
            ("*", "", true),
            ("?", "", false),
            ("", "", true),
            ("", "a", false),
            ("a**b", "ab", true),
            ("*é*", "café", true),
            ("caf?", "café", true),
        ] {
            assert_eq!(matches(pattern, name), expected, "{pattern} {name}");
        }
    }

    #[test]
    fn a_long_hostile_identity_is_matched_in_linear_time() {
        // "@" repeated 96,000 times against `*@*.example.org` took 20 s when every split
        // of the name was tried at every `*` (quadratic); a 64 MiB manifest, hours.
        let patterns = ["*@*.example.org".to_owned(), "audit@example.org".to_owned()];
        let identity = "@".repeat(1_000_000);
        let started = std::time::Instant::now();
        assert!(!matches_list(&patterns, &identity));
        assert!(!matches_list(&["*a*a*a*a*b".to_owned()], &"a".repeat(100_000)));
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
    }

    #[test]
    fn identities_an_allowed_signers_file_cannot_list_are_named() {
        assert_eq!(identity_problem("audit@example.org"), None);
        assert_eq!(identity_problem(&"a".repeat(IDENTITY_LIMIT)), None);
        let long = identity_problem(&"@".repeat(96_000)).unwrap();
        assert!(long.contains("96000 bytes long, more than the 256"), "{long}");
        // Reading a manifest holds it to the text rules only, which certify always applied.
        assert_eq!(identity_text_problem(&"@".repeat(96_000)), None);
        assert!(identity_problem("").unwrap().contains("empty"));
        for bad in ["a b", "a\tb", "a\u{7}b", "a,b", "a\"b", "*@example.org", "a?"] {
            let problem = identity_problem(bad).unwrap();
            assert!(problem.contains("cannot list") && !problem.contains('\n'), "{problem}");
        }
    }
}
