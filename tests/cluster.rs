//! fairaudit as the worker of a scheduler (docs/cluster.md). The local array runs through
//! the same entry point Slurm runs, `deploy/slurm/shard.sbatch`, with the index variable
//! set per task: shards in a shuffled order, one killed with SIGKILL mid-run and started
//! again, one run twice; the merge names what is missing or interrupted, merges a partial
//! result only when told (PARTIAL then shows in every file and on stdout), and the full
//! merge is byte for byte one sweep of the whole range. The Kubernetes manifests are
//! rendered, parsed and their command lines run through the CLI. `deploy/slurm/ci-cluster.sh`
//! (in `.ci/run`) does the same on a real single-node Slurm.

mod common;

use assert_cmd::Command;
use fairaudit::tally::file::TallyFile;
use predicates::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use yaml_rust2::{Yaml, YamlLoader};

/// The variables a scheduler sets to a task's index.
const INDEX_VARIABLES: [&str; 2] = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("fairaudit")
}

/// `fairaudit` with neither index variable inherited from whoever runs the tests.
fn fairaudit() -> Command {
    let mut command = Command::cargo_bin("fairaudit").unwrap();
    for name in INDEX_VARIABLES {
        command.env_remove(name);
    }
    command
}

/// The sweep the local array cuts: one game, so that a shard lasts long enough to be killed
/// after its first checkpoint and before its end.
const NONCES: &str = "0..8000000";
const SHARDS: u32 = 4;
const SWEEP_ARGS: &str = "--game roulette-american --chunk-size 16384";

/// One array task as Slurm starts it: `shard.sbatch` with the knobs of `submit.sh` in the
/// environment and the task's index in `SLURM_ARRAY_TASK_ID`.
fn slurm_task(out: &Path, index: u32) -> std::process::Command {
    let mut command = std::process::Command::new("bash");
    command
        .arg(root().join("deploy/slurm/shard.sbatch"))
        .env("FAIRAUDIT", bin())
        .env("NONCES", NONCES)
        .env("SHARDS", SHARDS.to_string())
        .env("OUT", out)
        .env("SWEEP_ARGS", SWEEP_ARGS)
        .env("CHECKPOINT_EVERY", "50ms")
        .env("SLURM_CPUS_PER_TASK", "1")
        .env_remove("JOB_COMPLETION_INDEX")
        .env("SLURM_ARRAY_TASK_ID", index.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    command
}

/// Runs a task to its end; returns its stderr.
fn run_task(out: &Path, index: u32) -> String {
    let output = slurm_task(out, index).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "shard {index}: {stderr}");
    stderr
}

fn shard_dir(out: &Path, index: u32) -> PathBuf {
    out.join("shards").join(format!("shard-{index:04}-of-{SHARDS:04}"))
}

fn read_tally(dir: &Path) -> Option<TallyFile> {
    let bytes = std::fs::read(dir.join("tally.json")).ok()?;
    Some(TallyFile::from_bytes(&bytes).expect("a published tally file is always whole and valid"))
}

/// Starts a task and kills it with SIGKILL as soon as its first checkpoint is published:
/// mid-run, since a checkpoint is an incomplete tally file.
fn kill_task_after_a_checkpoint(out: &Path, index: u32) -> TallyFile {
    let mut child = slurm_task(out, index).stderr(std::process::Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let saved = loop {
        if let Some(tally) = read_tally(&shard_dir(out, index)) {
            break tally;
        }
        assert!(child.try_wait().unwrap().is_none(), "shard {index} ended before its first checkpoint");
        assert!(Instant::now() < deadline, "no checkpoint within two minutes");
        std::thread::sleep(Duration::from_millis(2));
    };
    // SAFETY: kill(2) on our own child's pid, which has not been reaped yet.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) }, 0);
    let status = child.wait().unwrap();
    assert!(status.code().is_none(), "killed by a signal, not exited: {status}");
    assert!(!saved.complete, "the first checkpoint is mid-run");
    let left = read_tally(&shard_dir(out, index)).expect("the killed task's last checkpoint remains");
    assert!(!left.complete, "the task was killed before its end");
    assert!(left.rounds() > 0);
    left
}

/// Every output file except run.json and report.html (they record how the run was made).
fn outputs(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "run.json" && e.file_name() != "report.html")
        .map(|e| (e.file_name().into_string().unwrap(), std::fs::read(e.path()).unwrap()))
        .collect()
}

fn assert_same_outputs(a: &Path, b: &Path) {
    let (a, b) = (outputs(a), outputs(b));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{name} differs");
    }
}

fn range_of(index: u32) -> String {
    let size = 8_000_000 / u64::from(SHARDS);
    format!("nonces {}..{}", u64::from(index) * size, u64::from(index + 1) * size)
}

#[test]
fn a_local_array_in_any_order_with_a_kill_and_a_rerun_merges_to_exactly_one_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let mut order: Vec<u32> = (0..SHARDS).collect();
    let mut words = common::ChaChaWords::seeded(14);
    for i in (1..order.len()).rev() {
        order.swap(i, words.below(i as u32 + 1) as usize);
    }
    let (first, killed, third, last) = (order[0], order[1], order[2], order[3]);

    let stderr = run_task(&out, first);
    assert!(
        stderr.contains(&format!("shard {first} of {SHARDS} (index from SLURM_ARRAY_TASK_ID)")),
        "{stderr}"
    );
    let left = kill_task_after_a_checkpoint(&out, killed);
    run_task(&out, third);

    // One shard interrupted, one never started: the merge names both and refuses.
    let merged = dir.path().join("merged");
    fairaudit()
        .args(["merge"])
        .arg(out.join("shards"))
        .arg("--out")
        .arg(&merged)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("shard {killed} ({}) interrupted", range_of(killed))))
        .stderr(predicate::str::contains(format!("shard {last} ({}) missing", range_of(last))))
        .stderr(predicate::str::contains("--allow-partial"));
    assert!(!merged.exists(), "a refused merge writes nothing");

    // Told to, it merges the two complete shards and says PARTIAL everywhere.
    let partial = dir.path().join("partial");
    fairaudit()
        .args(["merge", "--allow-partial", "--out"])
        .arg(&partial)
        .arg(out.join("shards"))
        .assert()
        .stdout(predicate::str::contains("PARTIAL: merged 2 of 4 shards"))
        .stdout(predicate::str::contains("verdict: PARTIAL"));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(partial.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["verdict"], "PARTIAL");
    let mut missing = vec![killed, last];
    missing.sort();
    assert_eq!(summary["partial"]["missing"], serde_json::json!(missing));
    let html = std::fs::read_to_string(partial.join("report.html")).unwrap();
    assert!(html.contains("class=\"verdict PARTIAL\">PARTIAL<"), "the badge");
    assert!(
        html.contains(&format!("{killed} ({})", range_of(killed))),
        "the banner names the missing shards"
    );
    let tests = std::fs::read_to_string(partial.join("tests.csv")).unwrap();
    assert!(tests.lines().skip(1).all(|row| row.contains("(PARTIAL)")), "every verdict in tests.csv");
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(partial.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["complete"], false);
    assert_eq!(run["partial"]["missing"], serde_json::json!(missing));

    // The killed task, started again with the same command, continues from its checkpoint.
    let stderr = run_task(&out, killed);
    assert!(
        stderr.contains(&format!(
            "continuing the sweep saved in {}: {} rounds",
            shard_dir(&out, killed).display(),
            left.rounds()
        )),
        "{stderr}"
    );
    run_task(&out, last);
    // A shard run twice (a resubmitted array) yields one result; here through the index
    // variable of a Kubernetes Indexed Job.
    let before = outputs(&shard_dir(&out, first));
    fairaudit()
        .args(["sweep", "--nonces", NONCES, "--shards", &SHARDS.to_string(), "--quiet", "--out"])
        .arg(out.join("shards"))
        .args(SWEEP_ARGS.split(' '))
        .env("JOB_COMPLETION_INDEX", first.to_string())
        .assert()
        .code(0)
        .stderr(predicate::str::contains("index from JOB_COMPLETION_INDEX"))
        .stderr(predicate::str::contains("already holds this sweep complete"));
    assert_eq!(outputs(&shard_dir(&out, first)), before);

    fairaudit()
        .args(["merge"])
        .arg(out.join("shards"))
        .arg("--out")
        .arg(&merged)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("merged all 4 shards of nonces 0..8000000"))
        .stdout(predicate::str::contains("PARTIAL").not());
    // The merge job run again once the missing shards are in replaces its partial output.
    fairaudit().args(["merge"]).arg(out.join("shards")).arg("--out").arg(&partial).assert().code(0);

    let single = dir.path().join("single");
    fairaudit()
        .args(["sweep", "--nonces", NONCES, "--quiet", "--out"])
        .arg(&single)
        .args(SWEEP_ARGS.split(' '))
        .assert()
        .code(0);
    assert_same_outputs(&single, &merged);
    assert_same_outputs(&single, &partial);
}

#[test]
fn the_shard_table_and_the_index_sources() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let dry_run = |env: &[(&str, &str)]| {
        let mut command = fairaudit();
        command.args(["sweep", "--nonces", "10..20", "--shards", "3", "--dry-run", "--out"]).arg(&out);
        for (name, value) in env {
            command.env(name, value);
        }
        command.assert()
    };
    let table = dry_run(&[]).code(0).get_output().stdout.clone();
    let table = String::from_utf8(table).unwrap();
    for (index, range) in [(0, "10..14"), (1, "14..17"), (2, "17..20")] {
        let row = table
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("{index} ")))
            .unwrap_or_else(|| panic!("no row for shard {index}:\n{table}"));
        assert!(row.contains(range) && row.contains(&format!("shard-000{index}-of-0003")), "{row}");
    }
    assert!(!out.exists(), "a dry run writes nothing");
    // Slurm's variable is read first; --shard-index wins over both.
    dry_run(&[("JOB_COMPLETION_INDEX", "2"), ("SLURM_ARRAY_TASK_ID", "1")]).stdout(predicate::str::contains(
        "this task: shard 1 (index from SLURM_ARRAY_TASK_ID), nonces 14..17",
    ));
    dry_run(&[("JOB_COMPLETION_INDEX", "2")])
        .stdout(predicate::str::contains("index from JOB_COMPLETION_INDEX"));

    // A sweep with --shards and no index, or an index outside the array, is refused before
    // any work, saying how to submit the array.
    fairaudit()
        .args(["sweep", "--nonces", "10..20", "--shards", "3", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--shard-index I, or SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX"));
    fairaudit()
        .args(["sweep", "--nonces", "10..20", "--shards", "3", "--out"])
        .arg(&out)
        .env("SLURM_ARRAY_TASK_ID", "3")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--array=0-2"));
    fairaudit()
        .args(["sweep", "--nonces", "10..20", "--shards", "11", "--shard-index", "0", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("11 shards of 10 nonces"));
    assert!(!out.exists());
}

/// The args of the first container of a Job manifest.
fn container_args(job: &Yaml) -> Vec<String> {
    job["spec"]["template"]["spec"]["containers"][0]["args"]
        .as_vec()
        .expect("the container's args")
        .iter()
        .map(|arg| arg.as_str().expect("every arg is a string").to_owned())
        .collect()
}

/// `deploy/k8s/render.sh PART` with these knobs (and none inherited): its exit code,
/// stdout and stderr.
fn render(part: &str, knobs: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut command = std::process::Command::new("bash");
    command.arg(root().join("deploy/k8s/render.sh")).arg(part);
    let knobs_read = "IMAGE STORAGE_CLASS NAME NONCES SHARDS PARALLELISM THREADS MEMORY CHECKPOINT_EVERY \
                      SWEEP_ARGS MERGE_ARGS MERGE_MEMORY STORAGE_SIZE RUN_AS_USER PREPARE";
    for knob in knobs_read.split_whitespace() {
        command.env_remove(knob);
    }
    command.envs(knobs.iter().copied());
    let output = command.output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (output.status.code(), text(output.stdout), text(output.stderr))
}

/// The documents `render.sh PART` prints with these knobs.
fn manifests(part: &str, knobs: &[(&str, &str)]) -> Vec<Yaml> {
    let (code, stdout, stderr) = render(part, knobs);
    assert_eq!(code, Some(0), "render.sh {part}: {stderr}");
    YamlLoader::load_from_str(&stdout).unwrap_or_else(|e| panic!("render.sh {part}: {e}\n{stdout}"))
}

/// The knobs a user sets (two are required), with values unlike the defaults so that a
/// knob that does not reach its field shows.
const KNOBS: [(&str, &str); 8] = [
    ("IMAGE", "registry.example.com/fairaudit:0.1.0"),
    ("STORAGE_CLASS", "nfs-client"),
    ("NAME", "audit-7"),
    ("NONCES", "0..7000"),
    ("SHARDS", "7"),
    ("THREADS", "3"),
    ("SWEEP_ARGS", "--seed-pairs 2 --game keno"),
    ("RUN_AS_USER", "4242"),
];

/// Issue 32: the manifests named no storage class, could not write to an NFS volume
/// (fsGroup is ignored there), kept the shard count and the threads in two places each,
/// and the merge Job could not be run again. `render.sh` prints them from one set of
/// knobs: they parse, the Indexed Job's completions are its --shards and its CPU request
/// its --threads, the claim names the class, an init container gives /data to the pods'
/// user, the merge Job's name is generated (so `kubectl create` runs it again) and reads
/// the folder the shards write, a results pod mounts the claim; both containers' command
/// lines are accepted by the CLI (the image's entrypoint is the binary): the sweep's as a
/// dry run of its last shard, the merge's up to where it finds no shards in an empty folder.
#[test]
fn the_kubernetes_manifests_parse_and_their_command_lines_are_accepted() {
    let sweep_part = manifests("sweep", &KNOBS);
    assert_eq!(sweep_part.len(), 2, "the claim and the Job");
    let (volume, sweep) = (&sweep_part[0], &sweep_part[1]);
    assert_eq!(volume["kind"].as_str(), Some("PersistentVolumeClaim"));
    assert_eq!(volume["spec"]["storageClassName"].as_str(), Some("nfs-client"));
    assert_eq!(volume["spec"]["accessModes"][0].as_str(), Some("ReadWriteMany"));
    let claim = volume["metadata"]["name"].as_str().unwrap();
    assert_eq!(claim, "audit-7-data");

    assert_eq!(sweep["kind"].as_str(), Some("Job"));
    assert_eq!(sweep["spec"]["completionMode"].as_str(), Some("Indexed"));
    let completions = sweep["spec"]["completions"].as_i64().unwrap();
    assert_eq!(completions, 7);
    let args = container_args(sweep);
    let value_of = |flag: &str| args.iter().position(|a| a == flag).map(|i| args[i + 1].clone()).unwrap();
    assert_eq!(value_of("--shards"), completions.to_string(), "one completion per shard");
    let pod = &sweep["spec"]["template"]["spec"];
    assert_eq!(pod["containers"][0]["resources"]["requests"]["cpu"].as_str(), Some("3"));
    assert_eq!(value_of("--threads"), "3", "--threads is the CPU request");
    assert!(!args.iter().any(|a| a == "--shard-index"), "the index comes from JOB_COMPLETION_INDEX");
    assert_eq!(pod["securityContext"]["runAsUser"].as_i64(), Some(4242));
    // The restricted Pod Security level's fields on the shard container, and no rule that
    // fails the Job on exit 2 (a lost node's lock also exits 2, and a retry gets past it).
    let shard_security = &pod["containers"][0]["securityContext"];
    assert_eq!(shard_security["runAsNonRoot"].as_bool(), Some(true));
    assert_eq!(shard_security["allowPrivilegeEscalation"].as_bool(), Some(false));
    assert_eq!(shard_security["capabilities"]["drop"][0].as_str(), Some("ALL"));
    assert_eq!(pod["securityContext"]["seccompProfile"]["type"].as_str(), Some("RuntimeDefault"));
    let rules = sweep["spec"]["podFailurePolicy"]["rules"].as_vec().unwrap();
    assert!(rules.iter().all(|rule| rule["action"].as_str() == Some("Ignore")), "{rules:?}");
    let prepare = &pod["initContainers"][0];
    assert_eq!(prepare["securityContext"]["runAsUser"].as_i64(), Some(0));
    let script = prepare["args"][0].as_str().unwrap();
    assert!(script.contains("chown 4242:4242 /data /data/shards"), "{script}");
    // The init container's script, run here on a folder in place of the volume.
    let volume_dir = tempfile::tempdir().unwrap();
    let here = script.replace("/data", &volume_dir.path().display().to_string());
    let status = std::process::Command::new("sh").arg("-c").arg(&here).status().unwrap();
    assert!(status.success() || !nix_is_root(), "{here}");
    assert!(volume_dir.path().join("shards").is_dir());
    // Without it (PREPARE=no, a storage class that honours fsGroup), none.
    let bare = manifests("sweep", &[KNOBS[0], KNOBS[1], ("PREPARE", "no")]);
    assert!(bare[1]["spec"]["template"]["spec"]["initContainers"].is_badvalue());

    let merge = &manifests("merge", &KNOBS)[0];
    assert_eq!(merge["metadata"]["generateName"].as_str(), Some("audit-7-merge-"));
    assert!(merge["metadata"]["name"].is_badvalue(), "a generated name: kubectl create runs it again");
    let merge_args = container_args(merge);
    assert_eq!(merge_args[1], value_of("--out"), "the merge reads the folder the shards write");
    let results = &manifests("results", &KNOBS)[0];
    assert_eq!(results["kind"].as_str(), Some("Pod"));
    for spec in [&sweep["spec"]["template"]["spec"], &merge["spec"]["template"]["spec"], &results["spec"]] {
        assert_eq!(spec["volumes"][0]["persistentVolumeClaim"]["claimName"].as_str(), Some(claim));
    }

    // The volume's folders, here.
    let dir = tempfile::tempdir().unwrap();
    let local = |args: &[String]| -> Vec<String> {
        args.iter().map(|a| a.replace("/data", &dir.path().display().to_string())).collect()
    };
    let last = (completions - 1).to_string();
    fairaudit()
        .args(local(&args))
        .arg("--dry-run")
        .env("JOB_COMPLETION_INDEX", &last)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("seed pairs: 2"))
        .stdout(predicate::str::contains(format!(
            "this task: shard {last} (index from JOB_COMPLETION_INDEX)"
        )));
    std::fs::create_dir(dir.path().join("shards")).unwrap();
    fairaudit().args(local(&merge_args)).assert().code(2).stderr(predicate::str::contains("holds neither"));
}

/// Whether the tests run as root (the init container's chown needs it).
fn nix_is_root() -> bool {
    std::process::Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// A knob that is missing or malformed is refused (exit 2, naming it) before any manifest
/// is printed: an image or storage class left out, a shard count that is not a number or
/// more than an Indexed Job holds, a quantity Kubernetes would reject.
#[test]
fn render_refuses_knobs_kubernetes_or_fairaudit_would_reject() {
    for (knobs, says) in [
        (vec![KNOBS[1]], "set IMAGE"),
        (vec![KNOBS[0]], "set STORAGE_CLASS"),
        (vec![KNOBS[0], KNOBS[1], ("SHARDS", "0")], "SHARDS='0' is not a whole number"),
        (vec![KNOBS[0], KNOBS[1], ("SHARDS", "200000")], "at most 100000 completions"),
        (vec![KNOBS[0], KNOBS[1], ("THREADS", "2.5")], "THREADS='2.5'"),
        (vec![KNOBS[0], KNOBS[1], ("MEMORY", "1GB")], "MEMORY='1GB' is not a quantity"),
        (vec![KNOBS[0], KNOBS[1], ("NONCES", "0..1e9")], "NONCES='0..1e9'"),
        (vec![KNOBS[0], KNOBS[1], ("NAME", "Audit")], "NAME='Audit'"),
        (vec![KNOBS[0], ("STORAGE_CLASS", "nfs\"x")], "STORAGE_CLASS="),
    ] {
        let (code, stdout, stderr) = render("sweep", &knobs);
        assert_eq!(code, Some(2), "{knobs:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(says) && stderr.lines().count() == 1,
            "{stderr}"
        );
        assert!(stdout.is_empty(), "{knobs:?}: nothing printed: {stdout}");
    }
    let (code, _, stderr) = render("everything", &KNOBS);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("unknown part 'everything'"), "{stderr}");
}

/// Issue 32: `kubectl wait --for=condition=complete` never returns when the Job fails.
/// `wait.sh` (run with a `kubectl` stub that reports the conditions given) ends on either:
/// 0 on Complete, 1 on Failed with the reason and how to read the logs, 2 when the Job
/// cannot be read.
#[test]
fn wait_ends_when_the_job_completes_or_fails() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let kubectl = dir.path().join("kubectl");
    // Reports "nothing yet" on the first look, then the conditions in $CONDITIONS.
    std::fs::write(
        &kubectl,
        format!(
            "#!/bin/sh\n[ \"$1 $2\" = \"get job/fairaudit-sweep\" ] || {{ echo 'Error from server (NotFound)' >&2; exit 1; }}\n\
             if [ -e '{seen}' ]; then printf \"$CONDITIONS\"; else touch '{seen}'; fi\n",
            seen = dir.path().join("seen").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&kubectl, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", dir.path().display(), std::env::var("PATH").unwrap());
    let wait = |job: &str, conditions: &str| {
        let _ = std::fs::remove_file(dir.path().join("seen"));
        let output = std::process::Command::new("bash")
            .arg(root().join("deploy/k8s/wait.sh"))
            .arg(job)
            .env("PATH", &path)
            .env("WAIT_INTERVAL", "0.05")
            .env("CONDITIONS", conditions)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (code, stdout, _) = wait("fairaudit-sweep", "Complete\\t\\t\\n");
    assert_eq!(code, Some(0));
    assert!(stdout.contains("job/fairaudit-sweep: complete"), "{stdout}");
    let (code, _, stderr) = wait(
        "job/fairaudit-sweep",
        "FailureTarget\\tBackoffLimitExceeded\\tx\\nFailed\\tBackoffLimitExceeded\\tJob has reached the specified backoff limit\\n",
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("failed (BackoffLimitExceeded: Job has reached the specified backoff limit)"),
        "{stderr}"
    );
    assert!(stderr.contains("kubectl logs -l job-name=fairaudit-sweep"), "{stderr}");
    let (code, _, stderr) = wait("job/no-such-job", "");
    assert_eq!(code, Some(2));
    assert!(stderr.contains("cannot read job/no-such-job"), "{stderr}");
}

/// Issue 32: the Dockerfile copied neither `build.rs` (so `env!("FAIRAUDIT_REVISION")`
/// failed to compile) nor a revision (every image said "rev unknown"). Its build stage
/// must copy everything the binary's build reads: the manifest and lock file, the build
/// script, the sources, every file the sources embed (`include_str!`, `include_bytes!`)
/// and every target the manifest declares; and take the revision as a build argument.
/// (Static: no registry is reachable here to pull the base image.)
#[test]
fn the_dockerfile_copies_everything_the_build_reads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dockerfile = std::fs::read_to_string(root.join("deploy/k8s/Dockerfile")).unwrap();
    let build_stage = dockerfile.split("\nFROM ").nth(1).expect("a build stage after the first FROM");
    let copied: Vec<String> = build_stage
        .lines()
        .filter_map(|line| line.strip_prefix("COPY "))
        .filter(|args| !args.starts_with("--from"))
        .flat_map(|args| {
            let words: Vec<&str> = args.split_whitespace().collect();
            words[..words.len() - 1].iter().map(|w| w.trim_end_matches('/').to_owned()).collect::<Vec<_>>()
        })
        .collect();
    let covered = |path: &str| copied.iter().any(|c| path == c || path.starts_with(&format!("{c}/")));
    let mut needed: Vec<String> =
        ["Cargo.toml", "Cargo.lock", "build.rs", "src/main.rs", "src/lib.rs"].map(String::from).to_vec();
    // Files the sources embed, resolved from the file that names them.
    let mut files = Vec::new();
    common::rust_files(&root.join("src"), &mut files);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for macro_name in ["include_str!(\"", "include_bytes!(\""] {
            for (at, _) in text.match_indices(macro_name) {
                let rest = &text[at + macro_name.len()..];
                let named = &rest[..rest.find('"').unwrap()];
                let resolved = file.parent().unwrap().join(named).canonicalize().unwrap();
                needed.push(
                    resolved
                        .strip_prefix(root.canonicalize().unwrap())
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    // Targets the manifest declares by path.
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    for line in manifest.lines() {
        if let Some(path) = line.trim().strip_prefix("path = \"") {
            needed.push(path.trim_end_matches('"').to_owned());
        }
    }
    let missing: Vec<&String> = needed.iter().filter(|path| !covered(path)).collect();
    assert!(missing.is_empty(), "the Dockerfile's build stage does not copy {missing:?} (copies {copied:?})");
    assert!(build_stage.contains("ARG FAIRAUDIT_REVISION"), "the revision is a build argument");
}

/// Issue 32: `sbatch deploy/slurm/shard.sbatch` as the docs write it stopped on
/// `FAIRAUDIT: unbound variable`, and `merge.sbatch` on `MERGE_ARGS` (the scripts run with
/// `set -u`). Every knob with a default now has it in the script too, and one without
/// (NONCES, SHARDS, OUT) is named with what to set.
#[test]
fn the_slurm_scripts_run_with_only_the_knobs_that_have_no_default() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = Path::new(env!("CARGO_BIN_EXE_fairaudit"));
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let dir = tempfile::tempdir().unwrap();
    let script = |name: &str, env: &[(&str, &str)]| {
        let mut command = std::process::Command::new("bash");
        command
            .arg(root.join("deploy/slurm").join(name))
            .env_clear()
            .env("PATH", &path)
            .env("HOME", dir.path());
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().unwrap()
    };
    let out = dir.path().join("run");
    let out = out.to_str().unwrap();
    // Shard 1 of 2, every other knob defaulted: a real (small) sweep.
    let shard = script(
        "shard.sbatch",
        &[("NONCES", "0..2000"), ("SHARDS", "2"), ("OUT", out), ("SLURM_ARRAY_TASK_ID", "1")],
    );
    assert_eq!(shard.status.code(), Some(0), "{}", String::from_utf8_lossy(&shard.stderr));
    assert!(Path::new(out).join("shards/shard-0001-of-0002/tally.json").exists());
    // The merge with MERGE_ARGS unset: it runs, and names the missing shard 0.
    let merge = script("merge.sbatch", &[("OUT", out)]);
    let stderr = String::from_utf8_lossy(&merge.stderr);
    assert_eq!(merge.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("shard 0 (nonces 0..1000) missing"), "{stderr}");
    // A knob without a default: named, with what to set.
    let bare = script("shard.sbatch", &[("SLURM_ARRAY_TASK_ID", "0")]);
    let stderr = String::from_utf8_lossy(&bare.stderr);
    assert_ne!(bare.status.code(), Some(0));
    assert!(stderr.contains("set NONCES"), "{stderr}");
}

/// Issue 32: `submit.sh` defaulted to 16 CPUs per task, and on smaller nodes the array was
/// accepted and pended forever; the merge's memory was fixed at 2G with no time limit, and
/// after a failed task nothing submitted the merge. Run with `sinfo` and `sbatch` stubs
/// (what they are asked is recorded): a request no node holds is refused with what fits,
/// the merge's memory and time are knobs, `--merge-only` submits the merge alone and
/// `--only LIST` the tasks named, then the merge.
#[test]
fn submit_refuses_what_no_node_holds_and_merges_on_request() {
    use std::os::unix::fs::PermissionsExt;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = Path::new(env!("CARGO_BIN_EXE_fairaudit"));
    let dir = tempfile::tempdir().unwrap();
    let stubs = dir.path().join("stubs");
    std::fs::create_dir(&stubs).unwrap();
    let asked = dir.path().join("sbatch.log");
    for (name, body) in [
        ("sinfo", "echo 2\n".to_owned()),
        ("sbatch", format!("echo \"$*\" >> '{}'\necho 4242\n", asked.display())),
    ] {
        let path = stubs.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path =
        format!("{}:{}:{}", stubs.display(), bin.parent().unwrap().display(), std::env::var("PATH").unwrap());
    let submit = |env: &[(&str, &str)], args: &[&str]| {
        let mut command = std::process::Command::new("bash");
        command.arg(root.join("deploy/slurm/submit.sh")).args(args).env("PATH", &path);
        command.env("OUT", dir.path().join("run")).env("NONCES", "0..4000").env("SHARDS", "4");
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.output().unwrap();
        let asked = std::fs::read_to_string(&asked).unwrap_or_default();
        (output, asked)
    };

    let (output, asked_for) = submit(&[("CPUS", "16")], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("CPUS=16") && stderr.contains("has 2 CPUs"), "{stderr}");
    assert!(asked_for.is_empty(), "nothing queued: {asked_for}");

    let (output, asked_for) = submit(&[("CPUS", "2"), ("MERGE_TIME", "00:30:00")], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let calls: Vec<&str> = asked_for.lines().collect();
    assert_eq!(calls.len(), 2, "{asked_for}");
    assert!(calls[0].contains("--array 0-3") && calls[0].contains("shard.sbatch"), "{}", calls[0]);
    assert!(
        calls[1].contains("afterok:4242")
            && calls[1].contains("--mem 2G --time 00:30:00")
            && calls[1].contains("merge.sbatch"),
        "{}",
        calls[1]
    );

    std::fs::remove_file(&asked).unwrap();
    let (output, asked_for) = submit(&[("MERGE_MEMORY", "8G")], &["--merge-only"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(asked_for.lines().count(), 1, "{asked_for}");
    assert!(
        asked_for.contains("--mem 8G")
            && asked_for.contains("merge.sbatch")
            && !asked_for.contains("afterok"),
        "{asked_for}"
    );

    // --only: the tasks named (a Slurm array list), then the merge after them; a list that
    // is not one, or names a shard the cut has not, is refused before anything is queued.
    std::fs::remove_file(&asked).unwrap();
    let (output, asked_for) = submit(&[("CPUS", "2")], &["--only", "1,3"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let calls: Vec<&str> = asked_for.lines().collect();
    assert_eq!(calls.len(), 2, "{asked_for}");
    assert!(calls[0].contains("--array 1,3") && calls[0].contains("shard.sbatch"), "{}", calls[0]);
    assert!(calls[1].contains("afterok:4242") && calls[1].contains("merge.sbatch"), "{}", calls[1]);
    assert!(String::from_utf8_lossy(&output.stdout).contains("tasks 1,3 of 4"));
    std::fs::remove_file(&asked).unwrap();
    for (list, says) in [("2-4", "names shard 4, but SHARDS=4"), ("1;3", "not a list of shard indices")] {
        let (output, asked_for) = submit(&[("CPUS", "2")], &["--only", list]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{list}: {stderr}");
        assert!(stderr.contains(says), "{list}: {stderr}");
        assert!(asked_for.is_empty(), "{list}: nothing queued: {asked_for}");
    }
}

/// Issue 32: `sweep --shards N` without an index said where to give one but not how to
/// submit the array, which only the out-of-range error said.
#[test]
fn a_sharded_sweep_without_an_index_says_how_to_submit_the_array() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_fairaudit"))
        .args(["sweep", "--shards", "4", "--nonces", "0..100", "--quiet", "--out", "unused"])
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("JOB_COMPLETION_INDEX")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("Slurm --array=0-3") && stderr.contains("Indexed Job of 4 completions"),
        "{stderr}"
    );
}
