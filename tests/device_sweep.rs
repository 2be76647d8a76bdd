//! The device sweep's path, end to end, on the CPU ([`KernelOnCpu`]: the device kernel's
//! code run on rayon threads, as device threads run it; [`EmulatedGpu`]: its `__global__`
//! entry points on emulated blocks of threads): each launch's runs of Keno rounds or
//! roulette spins joined into a segment must be the CPU sweep's tally, field for field,
//! whatever the run length, range, seeds or wheel; the sweep's files must be byte-identical with `--device
//! cpu-kernel`, through shards, merges and interruptions; a device that returns counts no
//! sweep gives is refused by name; and `--device gpu` without a usable GPU is exit 2.
//!
//! On a machine with a GPU, `FAIRAUDIT_TEST_GPU=1` adds the GPU to the devices held equal
//! to the CPU sweep (`scripts/device-check.sh run` sets it): the same launches, seeds,
//! rejection rounds, interrupted sweeps and CLI runs, on the device.

use assert_cmd::Command;
use fairaudit::chain::seeds::SeedPair;
use fairaudit::chain::{Kernel, RoundHasher};
use fairaudit::device::choice::Opened;
use fairaudit::device::{
    keno_segment, roulette_segment, Accelerator, DeviceChoice, DeviceError, EmulatedGpu, KenoLaunch,
    KernelOnCpu, LaunchShape, RouletteLaunch,
};
use fairaudit::games::{GameId, Keno, Roulette};
use fairaudit::sweep::{self, tally_rounds, SweepControl, SweepError};
use fairaudit::tally::file::{Plan, SeedSource, TallyFile};
use fairaudit::tally::{anchor, KenoTally, RouletteTally};
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

fn cpu_tally(server: &str, client: &str, nonces: Range<u64>) -> KenoTally {
    tally_rounds::<KenoTally>(Keno, &RoundHasher::new(server, client), Kernel::best(), nonces)
}

fn device_tally(
    device: &dyn Accelerator,
    server: &str,
    client: &str,
    nonces: Range<u64>,
    per_run: u64,
) -> KenoTally {
    let launch = device.keno(server, client, nonces.clone(), per_run).unwrap();
    let segment = keno_segment(launch).unwrap();
    assert_eq!(segment.range(), nonces);
    segment.tally
}

fn cpu_spins(wheel: Roulette, server: &str, client: &str, nonces: Range<u64>) -> RouletteTally {
    tally_rounds::<RouletteTally>(wheel, &RoundHasher::new(server, client), Kernel::best(), nonces)
}

/// A roulette launch on `device` as the sweep takes it: its segments' edge state checked
/// against the seeds, then joined with its counts.
fn device_spins(
    device: &dyn Accelerator,
    wheel: Roulette,
    server: &str,
    client: &str,
    nonces: Range<u64>,
    per_run: u64,
) -> RouletteTally {
    let launch = device.roulette(server, client, nonces.clone(), per_run, wheel).unwrap();
    let hasher = RoundHasher::new(server, client);
    let segment = roulette_segment(launch, wheel, |segment| {
        anchor::check_segment(wheel, &hasher, segment).unwrap();
        Ok(())
    })
    .unwrap();
    assert_eq!(segment.range(), nonces);
    segment.tally
}

const WHEELS: [Roulette; 2] = [Roulette::EUROPEAN, Roulette::AMERICAN];

/// Whether these tests run on the GPU too: set where one is (`scripts/device-check.sh`).
fn gpu_asked_for() -> bool {
    std::env::var_os("FAIRAUDIT_TEST_GPU").is_some()
}

/// The devices held equal to the CPU sweep: the device kernel on the CPU's threads, and
/// the GPU when `FAIRAUDIT_TEST_GPU` is set. A GPU asked for must then open: one that does
/// not fails the test, naming why, rather than leaving it to pass on the CPU alone. The GPU
/// is opened (its kernel compiled) once for all the tests.
fn devices() -> Vec<&'static dyn Accelerator> {
    static CPU: KernelOnCpu = KernelOnCpu { per_run: 4096 };
    static GPU: OnceLock<Box<dyn Accelerator + Send>> = OnceLock::new();
    let mut devices: Vec<&'static dyn Accelerator> = vec![&CPU];
    if gpu_asked_for() {
        let gpu = GPU.get_or_init(|| match DeviceChoice::Gpu.open() {
            Ok(Opened::Device(gpu)) => gpu,
            Ok(Opened::Cpu(_)) => panic!("FAIRAUDIT_TEST_GPU is set, but `--device gpu` opened the CPU"),
            Err(why) => panic!("FAIRAUDIT_TEST_GPU is set, but {why}"),
        });
        devices.push(&**gpu);
    }
    devices
}

/// A device launched in the shape given rather than its own: a GPU's launches are
/// hundreds of millions of nonces, and a test's sweep is thousands, cut into many launches.
struct Shaped<'a> {
    device: &'a dyn Accelerator,
    shape: LaunchShape,
}

impl Accelerator for Shaped<'_> {
    fn name(&self) -> String {
        self.device.name()
    }

    fn shape(&self) -> LaunchShape {
        self.shape
    }

    fn keno(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
    ) -> Result<KenoLaunch, DeviceError> {
        self.device.keno(server, client, nonces, per_run)
    }

    fn roulette(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
        wheel: Roulette,
    ) -> Result<RouletteLaunch, DeviceError> {
        self.device.roulette(server, client, nonces, per_run, wheel)
    }
}

/// The published vectors: `../shared/vectors`, or `$FAIRAUDIT_SHARED/vectors` on a machine
/// the shared folder does not travel to (a GPU machine: `scripts/device-check.sh`).
fn vectors(name: &str) -> std::path::PathBuf {
    let shared = std::env::var_os("FAIRAUDIT_SHARED").map_or_else(
        || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
        std::path::PathBuf::from,
    );
    shared.join("vectors").join(name)
}

#[test]
fn a_launch_joined_from_its_runs_is_the_cpu_tally_whatever_the_run_length() {
    let (server, client) = ("device-server", "device-client");
    let nonces = 1_000..3_517;
    let expected = cpu_tally(server, client, nonces.clone());
    let expected_spins = WHEELS.map(|wheel| cpu_spins(wheel, server, client, nonces.clone()));
    for device in devices() {
        let name = device.name();
        // Runs shorter than the ten-round window, of exactly ten, just over, odd, and one run.
        for per_run in [1, 2, 3, 9, 10, 11, 64, 333, 2_517, 10_000] {
            assert_eq!(
                device_tally(device, server, client, nonces.clone(), per_run),
                expected,
                "{name}: runs of {per_run}"
            );
        }
        // Roulette: also runs shorter than a colour run or a gap between repeats, so that
        // runs and gaps straddle several joins (runs of 1 join every spin).
        for (wheel, expected) in WHEELS.into_iter().zip(&expected_spins) {
            for per_run in [1, 2, 3, 9, 10, 11, 64, 333, 2_517, 10_000] {
                let got = device_spins(device, wheel, server, client, nonces.clone(), per_run);
                assert_eq!(&got, expected, "{name}: {wheel:?}, runs of {per_run}");
            }
        }
    }
}

#[test]
fn seeds_of_every_shape_and_nonces_at_the_top_of_the_range_tally_as_on_the_cpu() {
    let devices = devices();
    let long = "s".repeat(150);
    let hex = "7f0e3c2a9b8d4f6e1a5c3b7d9e2f4a6c8b0d1e3f5a7c9b2d4e6f8a0c1b3d5e7f";
    let (a66, b67) = ("a".repeat(66), "b".repeat(67));
    // Messages whose first 136-byte block the kernel keeps between rounds: 64-character
    // seeds with 6-, 7- and 8-digit nonces (the block holds the nonce's leading digits),
    // and a 135-byte prefix whose block ends after one digit.
    let cases: [(&str, &str, Range<u64>); 8] = [
        (hex, hex, 999_950..1_000_070),
        (hex, hex, 9_999_950..10_000_050),
        (&a66, &b67, 0..120),
        ("", "", 0..700),
        ("a:b", "c:d", 5..900),
        ("sérveur", "клиент🎲", 99_990..100_613),
        (&long, "crosses SHA3's 136-byte block", 0..500),
        ("top", "of the range", u64::MAX - 777..u64::MAX),
    ];
    for (i, (server, client, nonces)) in cases.into_iter().enumerate() {
        let expected = cpu_tally(server, client, nonces.clone());
        let wheel = WHEELS[i % 2];
        let expected_spins = cpu_spins(wheel, server, client, nonces.clone());
        for device in &devices {
            let name = device.name();
            for per_run in [7, 100] {
                let got = device_tally(*device, server, client, nonces.clone(), per_run);
                assert_eq!(got, expected, "{name}: {server:?} {client:?} {nonces:?} runs of {per_run}");
            }
            let got = device_spins(*device, wheel, server, client, nonces.clone(), 7);
            assert_eq!(got, expected_spins, "{name}: {wheel:?} {server:?} {client:?} {nonces:?}");
        }
    }
}

#[test]
fn the_gpu_entry_point_emulated_on_cpu_threads_gives_the_cpu_tally() {
    // Blocks of a few threads, grids with idle threads past the last run, runs shorter
    // and longer than the ten-round window, nonces at the top of the range.
    let cases: [(u32, u32, u64, Range<u64>); 5] = [
        (1, 1, 1_000, 0..1_000),
        (3, 4, 10, 7..119),
        (2, 8, 3, 500..547),
        (4, 5, 64, 0..1_203),
        (2, 3, 9, u64::MAX - 40..u64::MAX),
    ];
    for (blocks, threads, per_run, nonces) in cases {
        let gpu = EmulatedGpu { threads, blocks, per_run };
        let expected = cpu_tally("emulated-server", "emulated-client", nonces.clone());
        let got = device_tally(&gpu, "emulated-server", "emulated-client", nonces.clone(), per_run);
        assert_eq!(got, expected, "{blocks} blocks of {threads}, runs of {per_run}, {nonces:?}");
        for wheel in WHEELS {
            let expected = cpu_spins(wheel, "emulated-server", "emulated-client", nonces.clone());
            let got =
                device_spins(&gpu, wheel, "emulated-server", "emulated-client", nonces.clone(), per_run);
            assert_eq!(
                got, expected,
                "{wheel:?}, {blocks} blocks of {threads}, runs of {per_run}, {nonces:?}"
            );
        }
    }
    // And through the sweep, launch after launch.
    let plan = plan(GameId::ALL.to_vec(), 0..5_000);
    let never = AtomicBool::new(false);
    let gpu = EmulatedGpu { threads: 8, blocks: 3, per_run: 50 };
    let on_gpu = run(&plan, None, Some(&gpu), &never, &|_| {}).unwrap();
    assert_eq!(on_gpu.to_bytes(), run(&plan, None, None, &never, &|_| {}).unwrap().to_bytes());
}

fn plan(games: Vec<GameId>, nonces: Range<u64>) -> Plan {
    Plan {
        games,
        nonces: vec![nonces.into()],
        seed_source: SeedSource::Given,
        seed_pairs: vec![SeedPair::new("device-server", "device-client")],
    }
}

fn run(
    plan: &Plan,
    prior: Option<TallyFile>,
    device: Option<&dyn Accelerator>,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<TallyFile, SweepError> {
    sweep::run(plan, prior, &SweepControl { chunk: 1_000, stop, progress, kernel: Kernel::best(), device })
}

#[test]
fn a_sweep_on_the_device_path_equals_the_cpu_sweep_even_stopped_and_resumed() {
    let plan = plan(GameId::ALL.to_vec(), 0..40_000);
    let never = AtomicBool::new(false);
    let cpu = run(&plan, None, None, &never, &|_| {}).unwrap();
    for device in devices() {
        // Launches of 64 runs of 37 nonces: 17 launches a game.
        let shaped = Shaped { device, shape: LaunchShape { per_run: 37, runs: 64 } };
        stopped_and_resumed(&plan, &shaped, &cpu);
        // And in the device's own shape: one launch a game on a GPU, its runs shortened to fill it.
        let whole = run(&plan, None, Some(device), &never, &|_| {}).unwrap();
        assert_eq!(whole.to_bytes(), cpu.to_bytes(), "{}", device.name());
    }
}

/// `plan` swept on `device` whole, and stopped after its third launch then continued on
/// the CPU and on the device: each the `cpu` sweep's tally, byte for byte.
fn stopped_and_resumed(plan: &Plan, device: &dyn Accelerator, cpu: &TallyFile) {
    let never = AtomicBool::new(false);
    let whole = run(plan, None, Some(device), &never, &|_| {}).unwrap();
    assert_eq!(whole.to_bytes(), cpu.to_bytes(), "{}", device.name());

    // Stopped after the third launch, then continued on the CPU and on the device.
    let stop = AtomicBool::new(false);
    let launches = AtomicU64::new(0);
    let count = |_: u64| {
        if launches.fetch_add(1, Ordering::SeqCst) == 2 {
            stop.store(true, Ordering::SeqCst);
        }
    };
    let partial = run(plan, None, Some(device), &stop, &count).unwrap();
    assert!(!partial.complete);
    let partial = TallyFile::from_bytes(&partial.to_bytes()).unwrap();
    let on_cpu = run(plan, Some(partial.clone()), None, &never, &|_| {}).unwrap();
    let on_device = run(plan, Some(partial), Some(device), &never, &|_| {}).unwrap();
    assert_eq!(on_cpu.to_bytes(), cpu.to_bytes(), "{}", device.name());
    assert_eq!(on_device.to_bytes(), cpu.to_bytes(), "{}", device.name());
}

/// What a faulty device might do to a launch's results.
type Fault = fn(&mut KenoLaunch);
/// What a faulty device might do to a roulette launch's results.
type SpinFault = fn(&mut RouletteLaunch);

/// The device kernel on the CPU, made faulty: tallying the rounds of another client seed
/// (`client_suffix` appended: consistent counts of rounds that are not the seeds', as a
/// miscompiled hash would give), then applying `fault` or `spin_fault` to what it hands
/// back.
struct Faulty {
    client_suffix: &'static str,
    fault: Fault,
    spin_fault: SpinFault,
}

impl Faulty {
    /// The device kernel with `fault`, on the right seeds.
    fn with(fault: Fault) -> Self {
        Faulty { client_suffix: "", fault, spin_fault: |_| {} }
    }

    /// The device kernel with `spin_fault`, on the right seeds.
    fn spinning(spin_fault: SpinFault) -> Self {
        Faulty { client_suffix: "", fault: |_| {}, spin_fault }
    }
}

impl Accelerator for Faulty {
    fn name(&self) -> String {
        "a faulty device".into()
    }
    fn shape(&self) -> LaunchShape {
        LaunchShape { per_run: 50, runs: 10 }
    }
    fn keno(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
    ) -> Result<KenoLaunch, DeviceError> {
        let client = format!("{client}{}", self.client_suffix);
        let mut launch = KernelOnCpu::default().keno(server, &client, nonces, per_run)?;
        (self.fault)(&mut launch);
        Ok(launch)
    }
    fn roulette(
        &self,
        server: &str,
        client: &str,
        nonces: Range<u64>,
        per_run: u64,
        wheel: Roulette,
    ) -> Result<RouletteLaunch, DeviceError> {
        let client = format!("{client}{}", self.client_suffix);
        let mut launch = KernelOnCpu::default().roulette(server, &client, nonces, per_run, wheel)?;
        (self.spin_fault)(&mut launch);
        Ok(launch)
    }
}

#[test]
fn a_device_drawing_rounds_the_seeds_do_not_give_is_refused_by_name() {
    let plan = plan(vec![GameId::Keno], 0..2_000);
    let never = AtomicBool::new(false);
    let other_rounds = Faulty { client_suffix: "!", fault: |_| {}, spin_fault: |_| {} };
    let error = run(&plan, None, Some(&other_rounds), &never, &|_| {}).unwrap_err().to_string();
    assert!(
        error.contains("the device returned a faulty tally: the first or last rounds of its segment of nonces 0..200 are not the rounds the seeds give"),
        "{error}"
    );
    let plan = self::plan(vec![GameId::RouletteAmerican], 0..2_000);
    let error = run(&plan, None, Some(&other_rounds), &never, &|_| {}).unwrap_err().to_string();
    assert!(
        error.contains(
            "the device returned a faulty tally: its segment 0..200: edges are not those the seeds give"
        ),
        "{error}"
    );
}

#[test]
fn rounds_that_reject_words_tally_on_the_device_path_as_on_the_cpu() {
    // The published rejection rounds (each rejects one word at one draw, 11 words in all
    // for Keno, 2 for a spin),
    // inside launches that put them in different runs and blocks: the rejections per draw,
    // the most words in a round (an atomic maximum across blocks on a device) and the
    // words agree with the CPU's.
    let mut reader = csv::Reader::from_path(vectors("rejection-rounds.csv")).unwrap();
    let devices = devices();
    let (mut rounds, mut spins) = (0, 0);
    for row in reader.records() {
        let row = row.unwrap();
        if let Some(wheel) = match &row[0] {
            "roulette-european" => Some(Roulette::EUROPEAN),
            "roulette-american" => Some(Roulette::AMERICAN),
            _ => None,
        } {
            let (server, client, nonce): (&str, &str, u64) = (&row[1], &row[2], row[3].parse().unwrap());
            let nonces = nonce - 23..nonce + 17;
            let expected = cpu_spins(wheel, server, client, nonces.clone());
            assert_eq!(expected.stream.max_words_in_round, 2, "row {nonce} is a rejection spin");
            for per_run in [1, 4, 9, 40] {
                let emulated = EmulatedGpu { threads: 3, blocks: 4, per_run };
                for device in devices.iter().copied().chain([&emulated as &dyn Accelerator]) {
                    let got = device_spins(device, wheel, server, client, nonces.clone(), per_run);
                    assert_eq!(got, expected, "{}: {wheel:?} {nonce}, runs of {per_run}", device.name());
                }
            }
            spins += 1;
            continue;
        }
        let (server, client, nonce): (&str, &str, u64) = (&row[1], &row[2], row[3].parse().unwrap());
        let nonces = nonce - 23..nonce + 17;
        let expected = cpu_tally(server, client, nonces.clone());
        assert_eq!(expected.stream.max_words_in_round, 11, "row {nonce} is a rejection round");
        for per_run in [1, 4, 9, 40] {
            let emulated = EmulatedGpu { threads: 3, blocks: 4, per_run };
            for device in devices.iter().copied().chain([&emulated as &dyn Accelerator]) {
                let got = device_tally(device, server, client, nonces.clone(), per_run);
                assert_eq!(got, expected, "{}: {nonce}, runs of {per_run}", device.name());
            }
        }
        rounds += 1;
    }
    assert!(rounds >= 2, "the vectors hold Keno rejection rounds");
    assert_eq!(spins, 2, "the vectors hold a rejection spin of each wheel");
}

#[test]
fn a_device_returning_counts_no_sweep_gives_is_refused_by_name() {
    let plan = plan(vec![GameId::Keno], 0..2_000);
    let never = AtomicBool::new(false);
    let faults: [(&str, Fault); 5] = [
        ("a pair counted twice", |l| l.counts.pairs[0] += 1),
        ("a round lost", |l| l.counts.rounds -= 1),
        ("a position moved", |l| {
            l.counts.positions[0] -= 1;
            l.counts.positions[1] += 1;
        }),
        ("an edge that is no draw", |l| l.edges[1].tail[9] = 0),
        ("a segment's edges missing", |l| {
            l.edges.pop();
        }),
    ];
    for (what, fault) in faults {
        let error = run(&plan, None, Some(&Faulty::with(fault)), &never, &|_| {}).unwrap_err();
        assert!(matches!(error, SweepError::Device(DeviceError::Faulty(_))), "{what}: {error}");
        assert!(error.to_string().contains("the device returned a faulty tally"), "{what}: {error}");
    }
    // A launch that says it covers other nonces than asked, or is cut in empty segments.
    let shapes: [(&str, Fault, SpinFault); 3] = [
        ("segments of no nonces", |l| l.per_segment = 0, |l| l.per_segment = 0),
        (
            "the nonces one later",
            |l| l.nonces = l.nonces.start + 1..l.nonces.end + 1,
            |l| l.nonces = l.nonces.start + 1..l.nonces.end + 1,
        ),
        (
            "half the nonces",
            |l| l.nonces.end -= (l.nonces.end - l.nonces.start) / 2,
            |l| l.nonces.end -= (l.nonces.end - l.nonces.start) / 2,
        ),
    ];
    for (what, fault, spin_fault) in shapes {
        for (game, device) in
            [(GameId::Keno, Faulty::with(fault)), (GameId::RouletteEuropean, Faulty::spinning(spin_fault))]
        {
            let plan = self::plan(vec![game], 0..2_000);
            let error = run(&plan, None, Some(&device), &never, &|_| {}).unwrap_err().to_string();
            assert!(
                error.contains("the device returned a faulty tally: asked for nonces 0..500"),
                "{what}: {error}"
            );
        }
    }
    let plan = self::plan(vec![GameId::RouletteEuropean], 0..2_000);
    run(&plan, None, Some(&Faulty::spinning(|_| {})), &never, &|_| {}).unwrap();
    let faults: [(&str, SpinFault); 9] = [
        ("a pair 3 apart counted twice", |l| l.pairs[2 * 37 * 37 + 5] += 1),
        ("a spin lost", |l| l.counts.rounds -= 1),
        ("a spin moved to another pocket", |l| {
            l.counts.pockets[0] -= 1;
            l.counts.pockets[1] += 1;
        }),
        ("a colour run a spin longer", |l| {
            let at = l.counts.colour_runs.iter().position(|&c| c > 0).unwrap();
            l.counts.colour_runs[at] -= 1;
            l.counts.colour_runs[at + 1] += 1;
        }),
        ("a gap before pocket 9 one longer", |l| {
            let at = 9 * 129 + l.counts.gaps[9 * 129..].iter().position(|&c| c > 0).unwrap();
            l.counts.gaps[at] -= 1;
            l.counts.gaps[at + 1] += 1;
        }),
        ("a spin of the 38th pocket on a European wheel", |l| l.counts.pockets[37] += 1),
        ("pocket 4 first seen a spin later", |l| l.edges[2].first[4] += 1),
        ("an open run of another colour", |l| l.edges[1].colour[0] = (l.edges[1].colour[0] + 1) % 3),
        ("a segment's edges missing", |l| {
            l.edges.pop();
        }),
    ];
    for (what, fault) in faults {
        let error = run(&plan, None, Some(&Faulty::spinning(fault)), &never, &|_| {}).unwrap_err();
        assert!(matches!(error, SweepError::Device(DeviceError::Faulty(_))), "{what}: {error}");
        assert!(error.to_string().contains("the device returned a faulty tally"), "{what}: {error}");
    }
}

fn fairaudit(dir: &Path) -> Command {
    let mut command = Command::cargo_bin("fairaudit").unwrap();
    command.current_dir(dir);
    command
}

fn same_files(a: &Path, b: &Path) {
    for file in ["tally.json", "tests.csv", "summary.json", "rtp.csv", "outcome_counts.csv"] {
        let (left, right) = (std::fs::read(a.join(file)), std::fs::read(b.join(file)));
        assert!(left.is_ok(), "{} lacks {file}", a.display());
        assert!(
            left.unwrap() == right.unwrap(),
            "{file} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

#[test]
fn the_cli_writes_the_same_files_on_the_device_path_through_shards_and_a_merge() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = ["sweep", "--nonces", "0..300001", "--seed-pairs", "2", "--quiet"];
    fairaudit(dir.path()).args(sweep).args(["--out", "cpu"]).assert().success();
    assert!(!std::fs::read_to_string(dir.path().join("cpu/run.json")).unwrap().contains("\"device\""));
    let mut names = vec![("cpu-kernel", "the device kernel on".to_owned())];
    if gpu_asked_for() {
        // What the GPU calls itself ("NVIDIA H200"), as the sweep names it.
        names.push(("gpu", devices()[1].name()));
    }
    for (device, described) in names {
        let on_device =
            fairaudit(dir.path()).args(sweep).args(["--out", device, "--device", device]).assert().success();
        let said = String::from_utf8_lossy(&on_device.get_output().stderr).into_owned();
        assert!(said.contains(&format!("swept on {described}")), "{said}");
        assert!(!said.contains("on the CPU"), "every game is swept on the device: {said}");
        same_files(&dir.path().join("cpu"), &dir.path().join(device));
        let run_json = std::fs::read_to_string(dir.path().join(device).join("run.json")).unwrap();
        assert!(run_json.contains(&format!("\"device\": \"{described}")), "{run_json}");

        let shards = format!("{device}-shards");
        for index in [2, 0, 1] {
            fairaudit(dir.path())
                .args(sweep)
                .args(["--out", &shards, "--shards", "3", "--device", device, "--shard-index"])
                .arg(index.to_string())
                .assert()
                .success();
        }
        let merged = format!("{device}-merged");
        fairaudit(dir.path()).args(["merge", "--out", &merged, &shards]).assert().success();
        same_files(&dir.path().join("cpu"), &dir.path().join(merged));
    }
}

#[cfg(not(feature = "gpu"))]
#[test]
fn gpu_without_a_usable_gpu_is_exit_2_and_auto_falls_back_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let sweep = ["sweep", "--game", "keno", "--nonces", "0..20000", "--quiet"];
    let refused =
        fairaudit(dir.path()).args(sweep).args(["--out", "gpu", "--device", "gpu"]).assert().code(2);
    let said = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(said.contains("--device gpu: no usable GPU: this build has no GPU support"), "{said}");
    assert_eq!(said.trim().lines().count(), 1, "{said}");
    assert!(!dir.path().join("gpu").exists(), "nothing is claimed before the device is");

    let fell_back =
        fairaudit(dir.path()).args(sweep).args(["--out", "auto", "--device", "auto"]).assert().success();
    let said = String::from_utf8_lossy(&fell_back.get_output().stderr).into_owned();
    assert!(said.contains("note: --device auto: no usable GPU: this build has no GPU support"), "{said}");
    assert!(said.contains("sweeping on the CPU"), "{said}");
    fairaudit(dir.path()).args(sweep).args(["--out", "cpu"]).assert().success();
    same_files(&dir.path().join("cpu"), &dir.path().join("auto"));
}

#[test]
fn other_schemes_refuse_a_device_and_an_unknown_device_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let stake =
        ["sweep", "--scheme", "stake", "--game", "dice", "--nonces", "0..1000", "--quiet", "--out", "s"];
    let refused = fairaudit(dir.path()).args(stake).args(["--device", "cpu-kernel"]).assert().code(2);
    let said = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(said.contains("covers the sha3 scheme's games, not --scheme stake"), "{said}");
    let unknown = fairaudit(dir.path()).args(["sweep", "--device", "tpu"]).assert().code(2);
    let said = String::from_utf8_lossy(&unknown.get_output().stderr).into_owned();
    assert!(said.contains("unknown device \"tpu\""), "{said}");
}
