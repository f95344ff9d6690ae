//! What the distributed build asks of its transport: the ranks, an all-to-all exchange, two
//! reductions and a stream of entries to rank 0. MPI provides it on a cluster (the `anywoli`
//! binary's `mpi` feature); [`Local`] provides it to ranks that are threads of one process, so
//! the partitioning and the exchange are tested without MPI.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Barrier, Mutex};

use super::super::error::EndgameError;

/// The collective operations of the build. Every rank calls each collective operation in the
/// same order (what MPI requires); [`Comm::send_entries`] and [`Comm::recv_entries`] pair
/// rank `r` with rank 0.
pub trait Comm {
    /// This rank, from 0.
    fn rank(&self) -> usize;
    /// How many ranks.
    fn ranks(&self) -> usize;
    /// Sends `out[r]` to rank `r` (this rank's own included) and returns what every rank sent
    /// this one, in rank order.
    fn exchange(&self, out: &[Vec<u64>]) -> Vec<u64>;
    /// The largest of every rank's `x`.
    fn max(&self, x: u64) -> u64;
    /// The sum of every rank's `x`.
    fn sum(&self, x: u64) -> u64;
    /// Sends entries to rank 0 (called on the other ranks).
    fn send_entries(&self, data: &[u16]);
    /// Receives the next entries rank `from` sent (called on rank 0).
    fn recv_entries(&self, from: usize) -> Vec<u16>;
}

/// Makes every rank fail when one did: `Ok` only when all are.
pub fn agree<T>(comm: &dyn Comm, r: Result<T, EndgameError>) -> Result<T, EndgameError> {
    let n = comm.ranks() as u64;
    // The lowest rank that failed, as the largest of `ranks - rank`.
    let worst = comm.max(if r.is_err() {
        n - comm.rank() as u64
    } else {
        0
    });
    match r {
        Ok(_) if worst != 0 => Err(EndgameError::RankFailed {
            rank: (n - worst) as usize,
        }),
        r => r,
    }
}

/// What the threads of a [`Local`] group share.
struct Hub {
    ranks: usize,
    barrier: Barrier,
    /// `mail[from][to]`: what `from` sends `to` in the exchange under way.
    mail: Mutex<Vec<Vec<Vec<u64>>>>,
    /// Each rank's operand of the reduction under way.
    operands: Mutex<Vec<u64>>,
    /// Entries streamed to rank 0, a channel per rank (index 0 unused).
    receivers: Vec<Mutex<Receiver<Vec<u16>>>>,
}

/// A rank of a group of ranks that are threads of one process.
pub struct Local {
    rank: usize,
    hub: Arc<Hub>,
    sender: SyncSender<Vec<u16>>,
}

impl Local {
    /// A group of `ranks` ranks, one value to give each thread.
    pub fn group(ranks: usize) -> Vec<Local> {
        let ranks = ranks.max(1);
        // Two parts in flight at most: a sender runs at most that far ahead of rank 0.
        let (senders, receivers): (Vec<_>, Vec<_>) =
            (0..ranks).map(|_| sync_channel::<Vec<u16>>(2)).unzip();
        let hub = Arc::new(Hub {
            ranks,
            barrier: Barrier::new(ranks),
            mail: Mutex::new(vec![vec![Vec::new(); ranks]; ranks]),
            operands: Mutex::new(vec![0; ranks]),
            receivers: receivers.into_iter().map(Mutex::new).collect(),
        });
        senders
            .into_iter()
            .enumerate()
            .map(|(rank, sender)| Local {
                rank,
                hub: hub.clone(),
                sender,
            })
            .collect()
    }

    fn reduce(&self, x: u64, f: impl Fn(&[u64]) -> u64) -> u64 {
        self.hub.operands.lock().expect("a rank panicked")[self.rank] = x;
        self.hub.barrier.wait();
        let r = f(&self.hub.operands.lock().expect("a rank panicked"));
        // Nobody writes the next operands before everyone has read these.
        self.hub.barrier.wait();
        r
    }
}

impl Comm for Local {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.hub.ranks
    }

    fn exchange(&self, out: &[Vec<u64>]) -> Vec<u64> {
        self.hub.mail.lock().expect("a rank panicked")[self.rank].clone_from_slice(out);
        self.hub.barrier.wait();
        let got = {
            let mut mail = self.hub.mail.lock().expect("a rank panicked");
            let mut got = Vec::new();
            for from in mail.iter_mut() {
                got.append(&mut from[self.rank]);
            }
            got
        };
        self.hub.barrier.wait();
        got
    }

    fn max(&self, x: u64) -> u64 {
        self.reduce(x, |v| v.iter().copied().max().unwrap_or(0))
    }

    fn sum(&self, x: u64) -> u64 {
        self.reduce(x, |v| v.iter().sum())
    }

    fn send_entries(&self, data: &[u16]) {
        // Rank 0 hung up only when it failed; the build then fails at rank 0.
        let _ = self.sender.send(data.to_vec());
    }

    fn recv_entries(&self, from: usize) -> Vec<u16> {
        self.hub.receivers[from]
            .lock()
            .expect("a rank panicked")
            .recv()
            .unwrap_or_default()
    }
}
