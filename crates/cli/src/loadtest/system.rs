//! What the machine says about the processes under load, from /proc: the servers' memory and
//! CPU time at the start and at the end, this tool's own CPU time, and the load average.

use serde::Serialize;

use crate::error::LoadtestError;

/// A server's memory over the load, in KiB, for the report.
#[derive(Serialize)]
pub(super) struct Memory {
    pub(super) pid: u32,
    pub(super) rss_start_kib: u64,
    pub(super) rss_end_kib: u64,
    pub(super) peak_kib: u64,
    /// CPU time the server used during the load (user and system), in seconds.
    pub(super) cpu_s: Option<f64>,
}

/// The servers' memory and CPU time, and this tool's CPU time, as the load starts.
pub(super) struct Baseline {
    /// Per `--server-pid`: the pid, (VmRSS, VmHWM) in KiB, CPU seconds.
    servers: Vec<(u32, (u64, u64), Option<f64>)>,
    tool_cpu: Option<f64>,
}

impl Baseline {
    /// Reads every server's figures; a pid that cannot be read stops the load test.
    pub(super) fn take(pids: &[u32]) -> Result<Baseline, LoadtestError> {
        let servers = pids
            .iter()
            .map(|&p| Ok((p, memory(p)?, cpu_seconds(&p.to_string()))))
            .collect::<Result<Vec<_>, LoadtestError>>()?;
        Ok(Baseline {
            servers,
            tool_cpu: cpu_seconds("self"),
        })
    }

    /// The servers' memory and CPU time over the load, and this tool's CPU time over it.
    pub(super) fn end(self) -> (Vec<Memory>, Option<f64>) {
        let memory = self
            .servers
            .into_iter()
            .map(|(pid, (rss_start, _), cpu_start)| {
                let (rss_end, peak) = memory(pid).unwrap_or((0, 0));
                Memory {
                    pid,
                    rss_start_kib: rss_start,
                    rss_end_kib: rss_end,
                    peak_kib: peak,
                    cpu_s: cpu_since(&pid.to_string(), cpu_start),
                }
            })
            .collect();
        (memory, cpu_since("self", self.tool_cpu))
    }
}

/// A process's VmRSS now, in KiB (`None` once it is gone).
pub(super) fn rss_kib(pid: u32) -> Option<u64> {
    memory(pid).ok().map(|(rss, _)| rss)
}

/// CPU seconds used since `start`, to the hundredth.
fn cpu_since(pid: &str, start: Option<f64>) -> Option<f64> {
    cpu_seconds(pid)
        .zip(start)
        .map(|(end, start)| ((end - start) * 100.0).round() / 100.0)
}

/// VmRSS and VmHWM of a process, in KiB.
fn memory(pid: u32) -> Result<(u64, u64), LoadtestError> {
    let path = format!("/proc/{pid}/status");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) => return Err(LoadtestError::ServerPidUnreadable { pid, path, error }),
    };
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(rss), Some(hwm)) => Ok((rss, hwm)),
        _ => Err(LoadtestError::ServerPidNoMemory { pid, path }),
    }
}

/// CPU time a process has used, user and system, in seconds (`self` for this one).
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command's ")": state, ppid, ... utime is the 14th field, stime the 15th.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // USER_HZ, 100 on Linux.
    Some(ticks as f64 / 100.0)
}

/// The load average of the last 1, 5 and 15 minutes, as /proc/loadavg writes them.
pub(super) fn load_average() -> Option<String> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}
