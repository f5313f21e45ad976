//! Regions across MPI ranks (issue #13): the ranks of a program started by `mpirun` or
//! `srun`, and the few collective operations a split region needs between them.
//!
//! With the cargo feature `mpi` (rsmpi against the system's MPI library) and a process
//! started by an MPI launcher (`OMPI_COMM_WORLD_SIZE`, `PMI_SIZE` or `PMIX_RANK` in its
//! environment), MPI is initialized when the first region is entered
//! (`MPI_THREAD_SERIALIZED`: every MPI call of Mint goes through one lock) and finalized
//! when the process exits. Every region then runs across all ranks: the slabs of the
//! decomposition (`decomp`) cover every rank's devices in rank order, rank `r`
//! holding devices `r × n .. (r + 1) × n` of `P × n` when each drives `n` (see
//! `split`). Without the feature, or under no launcher, or with one rank,
//! [`size`] is 1 and nothing changes.
//!
//! Every rank runs the program's host code (SPMD). The operations here are collective:
//! every rank calls them in the same order, which holds because every rank runs the
//! same region with the same array shapes and so plans the same exchanges.

use crate::error::{Error, Result};

/// This process's rank, `0 .. size()`: 0 when not started by an MPI launcher or built
/// without the `mpi` feature.
pub fn rank() -> usize {
    world().map_or(0, |w| w.rank)
}

/// The number of ranks a region spans: 1 when not started by an MPI launcher or built
/// without the `mpi` feature.
pub fn size() -> usize {
    world().map_or(1, |w| w.size)
}

/// Whether this process is rank 0, the one that should print and write shared files.
pub fn is_root() -> bool {
    rank() == 0
}

/// This process's rank among the ranks of its host (0 when not under MPI): the GPU a rank
/// drives by default is the one of this ordinal.
pub fn local_rank() -> usize {
    world().map_or(0, |w| w.local_rank)
}

/// Whether this build can run regions across MPI ranks (the cargo feature `mpi`).
pub const ENABLED: bool = cfg!(feature = "mpi");

struct Info {
    rank: usize,
    size: usize,
    local_rank: usize,
}

fn world() -> Option<&'static Info> {
    imp::info()
}

/// Gathers every rank's `bytes`, in rank order. One rank: its own.
///
/// # Errors
/// [`Error::Ranks`] when the lengths cannot be exchanged.
pub(crate) fn all_gather(bytes: &[u8]) -> Result<Vec<Vec<u8>>> {
    if size() == 1 {
        return Ok(vec![bytes.to_vec()]);
    }
    imp::all_gather(bytes)
}

/// The largest of every rank's `x`: a collective, so every rank calls it, in the same
/// order as the other collectives. One rank: `x`. NaN is ignored unless every rank
/// passes NaN. Host code uses it for global quantities of a decomposed problem, such as
/// the largest wave speed of a material model each rank builds only in its own planes.
///
/// # Errors
/// [`Error::Ranks`] when the values cannot be exchanged.
pub fn all_max(x: f64) -> Result<f64> {
    Ok(all_values(x)?.into_iter().fold(f64::NAN, f64::max))
}

/// The smallest of every rank's `x` (see [`all_max`]).
///
/// # Errors
/// [`Error::Ranks`] when the values cannot be exchanged.
pub fn all_min(x: f64) -> Result<f64> {
    Ok(all_values(x)?.into_iter().fold(f64::NAN, f64::min))
}

/// Every rank's `x`, in rank order.
fn all_values(x: f64) -> Result<Vec<f64>> {
    all_gather(&x.to_le_bytes())?
        .into_iter()
        .enumerate()
        .map(|(r, b)| {
            let b: [u8; 8] = b.as_slice().try_into().map_err(|_| Error::Ranks {
                message: format!("rank {r} sent {} bytes for one f64", b.len()),
            })?;
            Ok(f64::from_le_bytes(b))
        })
        .collect()
}

/// One message between ranks: `bytes` to send to `rank`, or `into.len()` bytes to
/// receive from it into `into`. Messages between two ranks are matched in the order both
/// list them.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) enum Message<'a> {
    Send { rank: usize, bytes: &'a [u8] },
    Recv { rank: usize, into: &'a mut [u8] },
}

/// Posts every send and receive of `messages` at once and waits for them all.
pub(crate) fn exchange(messages: &mut [Message<'_>]) -> Result<()> {
    if messages.is_empty() {
        return Ok(());
    }
    imp::exchange(messages)
}

/// Makes a step's outcome the same on every rank: `Ok` only when every rank's `local` is
/// `Ok`. A rank whose own step failed returns its own error; the others return
/// [`Error::Ranks`] naming the ranks that failed. Without it, a rank that failed would
/// leave the others waiting in the next exchange.
/// `what` names the step; it is formatted only when another rank failed.
pub(crate) fn agree<T>(what: impl FnOnce() -> String, local: Result<T>) -> Result<T> {
    if size() == 1 {
        return local;
    }
    let flags = all_gather(&[u8::from(local.is_err())])?;
    let failed: Vec<usize> = flags
        .iter()
        .enumerate()
        .filter(|(_, f)| f.first() == Some(&1))
        .map(|(r, _)| r)
        .collect();
    match local {
        Err(e) => Err(e),
        Ok(_) if !failed.is_empty() => Err(Error::Ranks {
            message: format!(
                "{} failed on rank(s) {failed:?} (their own error is theirs to report); rank {} stops with them",
                what(),
                rank()
            ),
        }),
        ok => ok,
    }
}

#[cfg(not(feature = "mpi"))]
mod imp {
    use super::{Info, Message};
    use crate::error::Result;

    pub(super) fn info() -> Option<&'static Info> {
        None
    }
    pub(super) fn all_gather(_: &[u8]) -> Result<Vec<Vec<u8>>> {
        unreachable!("one rank without the `mpi` feature")
    }
    pub(super) fn exchange(_: &mut [Message<'_>]) -> Result<()> {
        unreachable!("one rank without the `mpi` feature")
    }
}

#[cfg(feature = "mpi")]
mod imp {
    use super::{Info, Message};
    use crate::error::{Error, Result};
    use mpi::topology::{Communicator, SimpleCommunicator};
    use mpi::traits::*;
    use std::sync::{Mutex, MutexGuard, OnceLock};

    /// The world communicator. MPI handles are raw pointers, so rsmpi does not make them
    /// `Send`; MPI was initialized `MPI_THREAD_SERIALIZED` and every use holds `COMM`'s
    /// lock, which is what that level asks for.
    struct Comm(SimpleCommunicator);
    // SAFETY: see above: one thread at a time, under the mutex.
    unsafe impl Send for Comm {}

    static COMM: OnceLock<Option<(Info, Mutex<Comm>)>> = OnceLock::new();

    /// Whether an MPI launcher started this process.
    fn launched() -> bool {
        ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
            .iter()
            .any(|v| std::env::var_os(v).is_some())
    }

    extern "C" fn finalize() {
        let mut done = 0;
        // SAFETY: plain MPI calls at process exit, after every region has ended.
        unsafe {
            mpi::ffi::MPI_Finalized(&mut done);
            if done == 0 {
                mpi::ffi::MPI_Finalize();
            }
        }
    }

    unsafe extern "C" {
        fn atexit(cb: extern "C" fn()) -> std::ffi::c_int;
    }

    pub(super) fn info() -> Option<&'static Info> {
        COMM.get_or_init(|| {
            if !launched() {
                return None;
            }
            let (universe, _level) = mpi::initialize_with_threading(mpi::Threading::Serialized)?;
            // The universe would finalize MPI when dropped; it lives until the process
            // exits, and `finalize` runs then.
            let world = universe.world();
            std::mem::forget(universe);
            // SAFETY: registers a plain `extern "C"` function.
            unsafe { atexit(finalize) };
            let local = world.split_shared(world.rank());
            let info = Info {
                rank: world.rank() as usize,
                size: world.size() as usize,
                local_rank: local.rank() as usize,
            };
            Some((info, Mutex::new(Comm(world))))
        })
        .as_ref()
        .map(|(i, _)| i)
    }

    fn comm() -> MutexGuard<'static, Comm> {
        COMM.get()
            .and_then(|c| c.as_ref())
            .expect("MPI is initialized before any collective")
            .1
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    fn too_big(len: usize) -> Error {
        Error::Ranks {
            message: format!("a message of {len} bytes exceeds MPI's count limit of 2^31 - 1"),
        }
    }

    pub(super) fn all_gather(bytes: &[u8]) -> Result<Vec<Vec<u8>>> {
        let c = comm();
        let n = c.0.size() as usize;
        // MPI counts and displacements are `int`s: gather in rounds of at most
        // (2^31 - 1) / ranks bytes from each rank, until a round brings nothing.
        let chunk = (i32::MAX as usize / n).max(1);
        let mut out = vec![Vec::new(); n];
        let mut at = 0usize;
        loop {
            let piece = &bytes[at.min(bytes.len())..(at + chunk).min(bytes.len())];
            let len = piece.len() as i32;
            let mut lens = vec![0i32; n];
            c.0.all_gather_into(&len, &mut lens[..]);
            let total: usize = lens.iter().map(|&l| l as usize).sum();
            if total == 0 {
                return Ok(out);
            }
            let mut displs = Vec::with_capacity(n);
            let mut d = 0i32;
            for &l in &lens {
                displs.push(d);
                d += l;
            }
            let mut buf = vec![0u8; total];
            {
                let mut part =
                    mpi::datatype::PartitionMut::new(&mut buf[..], &lens[..], &displs[..]);
                c.0.all_gather_varcount_into(piece, &mut part);
            }
            for (r, o) in out.iter_mut().enumerate() {
                let d = displs[r] as usize;
                o.extend_from_slice(&buf[d..d + lens[r] as usize]);
            }
            at += chunk;
        }
    }

    pub(super) fn exchange(messages: &mut [Message<'_>]) -> Result<()> {
        for m in messages.iter() {
            let len = match m {
                Message::Send { bytes, .. } => bytes.len(),
                Message::Recv { into, .. } => into.len(),
            };
            if len > i32::MAX as usize {
                return Err(too_big(len));
            }
        }
        let c = comm();
        let n = messages.len();
        mpi::request::multiple_scope(n, |scope, coll| {
            for m in messages.iter_mut() {
                let req = match m {
                    Message::Send { rank, bytes } => {
                        c.0.process_at_rank(*rank as i32)
                            .immediate_send(scope, &bytes[..])
                    }
                    Message::Recv { rank, into } => {
                        c.0.process_at_rank(*rank as i32)
                            .immediate_receive_into(scope, &mut into[..])
                    }
                };
                coll.add(req);
            }
            let mut done = Vec::new();
            coll.wait_all(&mut done);
        });
        Ok(())
    }
}
