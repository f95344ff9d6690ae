//! `mpirun -np N anywoli tablebase build --seeds 8 --distributed` on Open MPI (the `mpi`
//! feature; CI installs Open MPI and runs these with `--include-ignored`): 2 and 4 ranks write
//! the single-process file byte for byte; a rank killed mid-build is resumed from the
//! checkpoint into the same file; and two ranks in two network namespaces (hosts made inside
//! this machine) build it over TCP.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{scratch, BUILD8};

/// `mpirun -np ranks anywoli tablebase build --seeds 8 --distributed` and `more` flags.
fn mpirun(ranks: usize, dir: &Path, more: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    // CI runs as root, which Open MPI refuses unless told twice.
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["--oversubscribe", "-np", &ranks.to_string()])
        .arg(env!("CARGO_BIN_EXE_anywoli"))
        .args(BUILD8)
        .arg(dir)
        .args(more);
    c
}

fn ok(out: Output) -> String {
    let (so, se) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{so}\n{se}");
    format!("{so}{se}")
}

/// The single-process build's file, made once per test.
fn reference(dir: &Path) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_anywoli"))
        .args(["tablebase", "build", "--seeds", "8", "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    ok(out);
    std::fs::read(dir.join("anywoli-8.awtb")).unwrap()
}

#[test]
#[ignore = "needs Open MPI (mpirun) and the mpi feature: CI runs it"]
fn two_and_four_ranks_write_the_single_process_file() {
    let dir = scratch("mpi-ranks");
    let want = reference(&dir.join("single"));
    for ranks in [2, 4] {
        let to = dir.join(format!("on-{ranks}"));
        let said = ok(mpirun(ranks, &to, &[]).output().unwrap());
        assert!(said.contains(&format!("on {ranks} ranks")), "{said}");
        assert!(said.contains("105 waves"), "{said}");
        let got = std::fs::read(to.join("anywoli-8.awtb")).unwrap();
        assert!(got == want, "{ranks} ranks: the file differs");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The wave the manifest in `ckpt` names, if any yet.
fn manifest_wave(ckpt: &Path, ranks: usize) -> Option<u32> {
    let text = std::fs::read_to_string(ckpt.join(format!("anywoli-8-on-{ranks}.ckpt"))).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("wave ")?.parse().ok())
}

/// The rank processes mpirun started.
fn ranks_of(mpirun: &Child) -> Vec<u32> {
    let out = Command::new("pgrep")
        .args(["-P", &mpirun.id().to_string(), "-f", "tablebase"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

#[test]
#[ignore = "needs Open MPI (mpirun) and the mpi feature: CI runs it"]
fn a_rank_killed_mid_build_is_resumed_into_the_same_file() {
    let dir = scratch("mpi-kill");
    let want = reference(&dir.join("single"));
    let (to, ckpt): (PathBuf, PathBuf) = (dir.join("out"), dir.join("ckpt"));
    let k = ckpt.to_str().unwrap();
    let flags = ["--checkpoint", k, "--checkpoint-every", "0"];
    let mut job = mpirun(2, &to, &flags)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Past the forward pass and a few dozen waves: then one rank dies.
    let t0 = Instant::now();
    while manifest_wave(&ckpt, 2).is_none_or(|w| w < 30) {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no checkpoint of wave 30"
        );
        assert!(
            job.try_wait().unwrap().is_none(),
            "the build ended before the kill"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let ranks = ranks_of(&job);
    assert_eq!(ranks.len(), 2, "{ranks:?}");
    Command::new("kill")
        .args(["-KILL", &ranks[1].to_string()])
        .status()
        .unwrap();
    let status = job.wait().unwrap();
    assert!(!status.success());
    assert!(!to.join("anywoli-8.awtb").exists(), "a file after the kill");
    let killed_at = manifest_wave(&ckpt, 2).unwrap();

    let said = ok(mpirun(2, &to, &flags).output().unwrap());
    assert!(
        said.contains(&format!("resuming from the checkpoint of wave {killed_at}")),
        "{said}"
    );
    assert!(
        !said.contains("moves:"),
        "the forward pass ran again: {said}"
    );
    let got = std::fs::read(to.join("anywoli-8.awtb")).unwrap();
    assert!(got == want, "the resumed file differs");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two network namespaces joined by a veth pair, deleted when dropped: two "hosts" inside
/// this machine.
struct Hosts {
    names: [String; 2],
    addrs: [String; 2],
}

impl Hosts {
    fn new() -> Hosts {
        let id = std::process::id() % 200 + 20;
        let names = [format!("awa{id}"), format!("awb{id}")];
        let addrs = [format!("10.78.{id}.1"), format!("10.78.{id}.2")];
        let hosts = Hosts { names, addrs };
        let (a, b) = (&hosts.names[0], &hosts.names[1]);
        let (va, vb) = (format!("{a}v"), format!("{b}v"));
        for cmd in [
            vec!["netns", "add", a],
            vec!["netns", "add", b],
            vec!["link", "add", &va, "type", "veth", "peer", "name", &vb],
            vec!["link", "set", &va, "netns", a],
            vec!["link", "set", &vb, "netns", b],
        ] {
            ip(&cmd);
        }
        for (ns, (dev, addr)) in hosts
            .names
            .iter()
            .zip([(&va, &hosts.addrs[0]), (&vb, &hosts.addrs[1])])
        {
            ip(&["-n", ns, "addr", "add", &format!("{addr}/24"), "dev", dev]);
            ip(&["-n", ns, "link", "set", dev, "up"]);
            ip(&["-n", ns, "link", "set", "lo", "up"]);
        }
        hosts
    }

    /// Bytes that left the first host's end of the pair.
    fn sent_by_first(&self) -> u64 {
        let dev = format!("{}v", self.names[0]);
        let path = format!("/sys/class/net/{dev}/statistics/tx_bytes");
        let out = Command::new("ip")
            .args(["netns", "exec", &self.names[0], "cat", &path])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        for ns in &self.names {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
    }
}

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "ip {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Rank 0 in one namespace, rank 1 in the other: mpirun (in the first) starts the second
/// host's daemon through a launcher that enters its namespace, as ssh enters another host, and
/// the ranks talk over TCP on the veth pair only (`btl tcp,self`).
#[test]
#[ignore = "needs root, ip netns, Open MPI (mpirun) and the mpi feature: CI runs it"]
fn ranks_in_two_network_namespaces_talk_over_tcp_and_write_the_same_file() {
    let dir = scratch("mpi-netns");
    let want = reference(&dir.join("single"));
    let hosts = Hosts::new();
    let agent = dir.join("enter-host.sh");
    let script = format!(
        "#!/bin/sh\n# mpirun's ssh: runs the command in the namespace of the host it names.\nhost=$1; shift\ncase \"$host\" in\n  {}) ns={} ;;\n  {}) ns={} ;;\n  *) echo \"unknown host $host\" >&2; exit 1 ;;\nesac\nexec ip netns exec \"$ns\" sh -c \"$*\"\n",
        hosts.addrs[0], hosts.names[0], hosts.addrs[1], hosts.names[1]
    );
    std::fs::write(&agent, script).unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&agent)
        .status()
        .unwrap();
    let net = format!("{}/24", hosts.addrs[0]);
    let to = dir.join("out");
    let out = Command::new("ip")
        .args(["netns", "exec", &hosts.names[0], "mpirun"])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args([
            "--host",
            &format!("{}:1,{}:1", hosts.addrs[0], hosts.addrs[1]),
            "-np",
            "2",
        ])
        .args(["--mca", "plm_rsh_agent"])
        .arg(&agent)
        .args(["--mca", "btl", "tcp,self"])
        .args([
            "--mca",
            "btl_tcp_if_include",
            &net,
            "--mca",
            "oob_tcp_if_include",
            &net,
        ])
        .arg(env!("CARGO_BIN_EXE_anywoli"))
        .args(BUILD8)
        .arg(&to)
        .output()
        .unwrap();
    let said = ok(out);
    assert!(said.contains("on 2 ranks"), "{said}");
    let sent: f64 = said
        .split(" MB sent between ranks")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap();
    // Half the predecessors cross the pair one way or the other, and rank 1's half of the
    // file comes to rank 0: the first host's end carried at least a third of what was sent.
    let carried = hosts.sent_by_first();
    assert!(
        carried as f64 > sent * 1e6 / 3.0,
        "{carried} bytes on the wire, {sent} MB sent"
    );
    let got = std::fs::read(to.join("anywoli-8.awtb")).unwrap();
    assert!(got == want, "the file differs");
    let _ = std::fs::remove_dir_all(&dir);
}
