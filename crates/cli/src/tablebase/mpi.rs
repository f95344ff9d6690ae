//! The distributed build's transport on MPI (the `mpi` feature): Open MPI through the `mpi`
//! crate. The all-to-all exchange sends its counts first, then the messages in one
//! `MPI_Alltoallv`.

use anywoli_engine::endgame::dist::Comm;
use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;

/// The world of an MPI job; MPI is finalised when it is dropped.
pub struct Mpi {
    world: SimpleCommunicator,
    _universe: mpi::environment::Universe,
}

impl Mpi {
    /// Initialises MPI; `None` when it already was.
    pub fn init() -> Option<Mpi> {
        let universe = mpi::initialize()?;
        Some(Mpi {
            world: universe.world(),
            _universe: universe,
        })
    }
}

/// Where each part starts in a buffer of parts of these lengths.
fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect()
}

impl Comm for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn ranks(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&self, out: &[Vec<u64>]) -> Vec<u64> {
        // A round's messages are bounded (a few MB), far under MPI's 2^31 count.
        let send_counts: Vec<Count> = out.iter().map(|o| o.len() as Count).collect();
        let mut recv_counts = vec![0 as Count; out.len()];
        self.world
            .all_to_all_into(&send_counts[..], &mut recv_counts[..]);
        let flat: Vec<u64> = out.concat();
        let total: usize = recv_counts.iter().map(|&c| c as usize).sum();
        let mut got = vec![0u64; total];
        let (sd, rd) = (displacements(&send_counts), displacements(&recv_counts));
        {
            let send = Partition::new(&flat[..], &send_counts[..], &sd[..]);
            let mut recv = PartitionMut::new(&mut got[..], &recv_counts[..], &rd[..]);
            self.world.all_to_all_varcount_into(&send, &mut recv);
        }
        got
    }

    fn max(&self, x: u64) -> u64 {
        let mut r = 0u64;
        self.world
            .all_reduce_into(&x, &mut r, SystemOperation::max());
        r
    }

    fn sum(&self, x: u64) -> u64 {
        let mut r = 0u64;
        self.world
            .all_reduce_into(&x, &mut r, SystemOperation::sum());
        r
    }

    fn send_entries(&self, data: &[u16]) {
        self.world.process_at_rank(0).send(data);
    }

    fn recv_entries(&self, from: usize) -> Vec<u16> {
        self.world
            .process_at_rank(from as i32)
            .receive_vec::<u16>()
            .0
    }
}
