//! Checks of the GPU scripts' own logic (`gpu/scaling.sh`, `gpu/exactness.sh`,
//! `gpu/mpirun.sh`), without a GPU: stub examples that print a phases line and a verdict stand
//! in for the real ones (and a stub `mpirun` for Open MPI's), and the tables must hold the
//! medians, the ratios against one GPU, the host groups' columns and every failure.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A stub example: prints a run time that depends on the GPU count (and the host groups, and
/// whether the multi-GPU kernel runs on one GPU), and PASS, except where `fail_on` names the
/// GPU count (then FAIL).
fn stub(dir: &Path, name: &str, fail_on: Option<u32>) {
    let fail = fail_on.map_or(String::new(), |g| format!("[ \"$WSDSL_GPUS\" = {g} ] && {{ echo 'FAIL: wrong'; exit 1; }}\n"));
    let body = format!(
        "#!/bin/bash\n{fail}ms=$(( 100 / WSDSL_GPUS + ${{WSDSL_HOST_GROUPS:-0}} + 4 * ${{WSDSL_MULTI_ON_ONE:-0}} ))\necho \"phases      compile 1.0 ms, launch 1.0 ms, run $ms.000 ms, copy-back 1.0 ms\"\necho 'PASS: stub'\n"
    );
    let path = dir.join(name);
    std::fs::write(&path, body).expect("writing a stub");
    Command::new("chmod").arg("+x").arg(&path).status().expect("chmod");
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("gpu/scaling.sh")
}

#[test]
fn scaling_script_tables_medians_ratios_hosts_and_failures() {
    let dir = std::env::temp_dir().join(format!("wsdsl-scaling-{}", std::process::id()));
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("a temporary directory");
    for name in ["nqueens", "uts", "fib"] {
        stub(&bin, name, None);
    }
    stub(&bin, "dlb_bench", Some(2));
    let out = dir.join("out");
    let ran = Command::new("bash")
        .arg(script())
        .env("BIN", &bin)
        .env("OUT", &out)
        .env("GPUS", "1 1m 2 4")
        .env("HOSTS", "2x1")
        .env("REPEAT", "3")
        .env("WORKLOADS", "nq18 dlb")
        .output()
        .expect("bash runs the script");
    let table = std::fs::read_to_string(out.join("scaling.md")).expect("the table");
    let runs = std::fs::read_to_string(out.join("runs.tsv")).expect("the runs as they ended");
    let _ = std::fs::remove_dir_all(&dir);
    // One line per run (2 workloads x 3 repeats x 5 configurations) after the header.
    assert_eq!(runs.lines().count(), 1 + 2 * 3 * 5, "{runs}");
    assert!(runs.contains("nq18\trandom\tdefault\t1m\t0\t104.000\n"), "{runs}");
    assert!(runs.contains("nq18\trandom\tdefault\t2\t2\t52.000\n"), "{runs}");
    assert!(runs.contains("dlb\trandom\tdefault\t2\t0\tFAIL\n"), "{runs}");
    // 100/g ms on g GPUs; the multi-GPU kernel on one GPU: 100 + 4 ms; 2 host groups of 1
    // GPU: 50 + 2 ms.
    assert!(
        table.contains("| nq18 | random | default | 100.000 ms | 104.000 ms (0.96x) | 50.000 ms (2.00x) | 25.000 ms (4.00x) | 52.000 ms (1.92x) |"),
        "{table}"
    );
    assert!(table.contains("2 hosts x 1") && table.contains("1 GPU, multi-GPU kernel"), "{table}");
    // A failing run marks its cell and the script's exit status.
    assert!(table.contains("| dlb | random | default | 100.000 ms | 104.000 ms (0.96x) | FAIL,FAIL,FAIL, |"), "{table}");
    // And says why, once per failed cell (2 GPUs, and 2 host groups of 1), from the runs' own
    // output, each reason once.
    assert!(table.contains("Failed cells"), "{table}");
    assert!(table.contains("- dlb, random, default, 2 GPUs, 0 host groups: FAIL: wrong ("), "{table}");
    assert!(table.contains("- dlb, random, default, 2 GPUs, 2 host groups: FAIL: wrong ("), "{table}");
    assert_eq!(table.matches("FAIL: wrong").count(), 2, "one line per failed cell: {table}");
    assert!(!ran.status.success(), "a failed run must fail the script");
}

/// `gpu/exactness.sh`: one line per policy, configuration and program, a count of PASS, and
/// an exit status that fails when any run did not pass.
#[test]
fn exactness_script_counts_every_run_and_fails_on_one_wrong_answer() {
    let dir = std::env::temp_dir().join(format!("wsdsl-exactness-{}", std::process::id()));
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("a temporary directory");
    // Every stub passes, except fib under HWS on 2 host groups.
    for name in ["nqueens", "uts", "fib", "dlb_bench"] {
        let fail = if name == "fib" { "[ \"$WSDSL_VICTIM\" = hws ] && [ \"$WSDSL_HOST_GROUPS\" = 2 ] && { echo 'FAIL: wrong'; exit 1; }\n" } else { "" };
        let path = bin.join(name);
        std::fs::write(&path, format!("#!/bin/bash\n{fail}echo \"PASS: $WSDSL_GPUS GPUs\"\n")).expect("writing a stub");
        Command::new("chmod").arg("+x").arg(&path).status().expect("chmod");
    }
    let run = |policies: &str| {
        let out = dir.join(format!("out-{}", policies.replace(' ', "-")));
        let ran = Command::new("bash")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("gpu/exactness.sh"))
            .args(["2:1", "2:2"])
            .env("BIN", &bin)
            .env("OUT", &out)
            .env("POLICIES", policies)
            .output()
            .expect("bash runs the script");
        let log = std::fs::read_to_string(out.join("exact.log")).expect("the log");
        (ran.status.success(), String::from_utf8_lossy(&ran.stdout).into_owned(), log)
    };
    let (ok, stdout, log) = run("random pws");
    assert!(ok && stdout.contains("exact: 16 PASS of 16"), "{stdout}");
    assert!(log.contains("pws gpus=2 hosts=2 fib 30: PASS: 2 GPUs"), "{log}");
    let (ok, stdout, log) = run("hws");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!ok && stdout.contains("exact: 7 PASS of 8"), "one wrong answer fails the script: {stdout}");
    assert!(log.contains("hws gpus=2 hosts=2 fib 30: FAIL: wrong"), "{log}");
}

/// `gpu/mpirun.sh`: the runtime's own processes, `mpirun -np N` and `mpirun` with two "hosts",
/// a median per cell; a rank without PASS fails its cell and the script; no mpirun is a clear
/// refusal.
#[test]
fn mpirun_script_tables_each_way_and_fails_when_a_rank_does() {
    let dir = std::env::temp_dir().join(format!("wsdsl-mpirun-{}", std::process::id()));
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("a temporary directory");
    let write = |name: &str, body: &str| {
        let path = bin.join(name);
        std::fs::write(&path, body).expect("writing a stub");
        Command::new("chmod").arg("+x").arg(&path).status().expect("chmod");
        path
    };
    // Open MPI's mpirun, reduced to what the script uses: its options, then the command once
    // per rank with the rank's variables.
    let mpirun = write(
        "mpirun",
        "#!/bin/bash\nnp=1\nwhile [ $# -gt 0 ]; do case $1 in --allow-run-as-root) shift ;; --bind-to|-x) shift 2 ;; -np) np=$2; shift 2 ;; *) break ;; esac; done\n\
         for ((r = 0; r < np; r++)); do OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$np \"$@\"; done\n",
    );
    // 100 ms started by the runtime; launched, 100 + 10 per host group. UTS's rank 1 answers
    // wrong between two "hosts".
    let example = |fail: &str| {
        format!(
            "#!/bin/bash\n{fail}if [ -n \"$OMPI_COMM_WORLD_SIZE\" ]; then ms=$(( 100 + 10 * WSDSL_HOST_GROUPS )); else ms=$(( 200 / WSDSL_GPUS )); fi\n\
             echo \"phases      context 1.0 ms, run $ms.000 ms, copy-back 1.0 ms\"\necho 'PASS: stub'\n"
        )
    };
    write("nqueens", &example(""));
    write("uts", &example("[ \"$OMPI_COMM_WORLD_RANK\" = 1 ] && [ \"$WSDSL_HOST_GROUPS\" = 2 ] && { echo 'FAIL: wrong'; exit 1; }\n"));
    let run = |mpirun: &Path| {
        let out = dir.join("out");
        let ran = Command::new("bash")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("gpu/mpirun.sh"))
            .env("BIN", &bin)
            .env("OUT", &out)
            .env("MPIRUN", mpirun)
            .env("NP", "2")
            .env("REPEAT", "3")
            .output()
            .expect("bash runs the script");
        let table = std::fs::read_to_string(out.join("mpirun.md")).unwrap_or_default();
        (ran.status.code(), table, String::from_utf8_lossy(&ran.stderr).into_owned())
    };
    let (code, table, _) = run(&mpirun);
    let (missing, _, why) = run(&dir.join("no-such-mpirun"));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(table.contains("| nq18 | 100.000 ms | 110.000 ms | 120.000 ms |"), "{table}");
    assert!(table.contains("| t1xl | 100.000 ms | 110.000 ms | FAIL,FAIL,FAIL, (see "), "{table}");
    assert_eq!(code, Some(1), "a rank that did not pass fails the script: {table}");
    assert_eq!(missing, Some(2), "{why}");
    assert!(why.contains("no-such-mpirun") && why.contains("MPIRUN"), "{why}");
}
