//! NCCL as the halo transport between GPUs (issues #12 and #13), through `cudarc`'s
//! bindings, loaded at run time (`libnccl.so.2`).
//!
//! With `MINT_NCCL=1` (or [`set_nccl`]`(Some(true))`), the halos of a region split over
//! GPUs move by NCCL point-to-point operations (`ncclSend`/`ncclRecv` in one group per
//! exchange, on each GPU's halo stream, stream-ordered, no host wait): between GPUs of one
//! process, between slabs of one GPU (NCCL's send to self), and between MPI ranks' GPUs,
//! where they replace the staging through host memory. The communicator spans the
//! distinct GPUs of every rank, numbered in rank order, then by each rank's first device
//! on the GPU; on one process it comes from `ncclCommInitAll`, across ranks from
//! `ncclCommInitRank` with the unique id rank 0 makes, sent to the others over MPI. It is
//! made at the first exchange of a device layout and kept for the process.
//!
//! Without the library, or when the communicator cannot be made (NCCL refuses two ranks
//! on one GPU), the exchanges fall back to peer copies within a process and page-locked
//! staging with MPI between ranks; `MINT_REPORT=1` says why. It is not the default yet:
//! across ranks it has not run on two GPUs.

use crate::device::Gpu;
use crate::error::{Error, Result};
use cudarc::nccl::{result as nc, sys as ns};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

static NCCL: crate::flag::EnvFlag = crate::flag::EnvFlag::new("MINT_NCCL", false);
static EXCHANGES: AtomicUsize = AtomicUsize::new(0);

/// Asks for NCCL as the halo transport of regions entered later (`None`: `MINT_NCCL`,
/// off unless `1`).
pub fn set_nccl(on: Option<bool>) {
    NCCL.set_or_reset(on);
}

/// Whether NCCL is asked for now.
pub fn requested() -> bool {
    NCCL.get()
}

/// Whether `libnccl` can be loaded.
pub fn available() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| unsafe { ns::is_culib_present() })
}

/// How many halo exchanges of an array went through NCCL since the program started.
pub fn nccl_exchanges() -> usize {
    EXCHANGES.load(Ordering::Relaxed)
}

/// The latest failure to make a communicator, for whichever device layout it was (the
/// GPUs' ordinals and the text `MINT_REPORT=1` prints), or `None` when none has failed in
/// this process; a later layout that succeeds does not clear it. For a program or test
/// that finds fewer exchanges through NCCL ([`nccl_exchanges`]) than it asked for.
pub fn not_used_because() -> Option<String> {
    LAST_FAILURE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
}

static LAST_FAILURE: Mutex<Option<String>> = Mutex::new(None);

pub(crate) fn count_exchange() {
    EXCHANGES.fetch_add(1, Ordering::Relaxed);
}

fn nccl_error(call: &str, e: nc::NcclError) -> Error {
    // SAFETY: NCCL returns a static string for every result code.
    let what = unsafe { std::ffi::CStr::from_ptr(ns::ncclGetErrorString(e.0)) };
    Error::Driver {
        call: call.into(),
        message: format!(
            "NCCL: {} ({:?}; NCCL_DEBUG=WARN says more)",
            what.to_string_lossy(),
            e.0
        ),
    }
}

/// One communicator per distinct GPU of this process, spanning every rank's, with the
/// one stream its operations run on. Regions of several threads share it: each exchange
/// enqueues its group under [`Comms::lock`], on these streams, so that the
/// communicator's operations are issued and run in one order.
pub(crate) struct Comms {
    /// This process's distinct GPU ordinals, their communicators and streams.
    local: Vec<(usize, ns::ncclComm_t, cudarc::driver::sys::CUstream)>,
    /// The NCCL rank of every device of the split (all ranks' devices, in order).
    pub device_rank: Vec<i32>,
    lock: Mutex<()>,
}

// SAFETY: the communicators and streams are used only under `lock`.
unsafe impl Send for Comms {}
unsafe impl Sync for Comms {}

impl Comms {
    /// The communicator and stream of the GPU with this ordinal.
    pub(crate) fn of(&self, ordinal: usize) -> (ns::ncclComm_t, cudarc::driver::sys::CUstream) {
        self.local
            .iter()
            .find(|(o, ..)| *o == ordinal)
            .map(|&(_, c, s)| (c, s))
            .expect("a GPU of this process")
    }

    /// Held while an exchange enqueues its group.
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.lock.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The communicator for a split whose local devices sit on `gpus` (in device order, a GPU
/// repeated for several slabs), over every MPI rank: made at the first call for this
/// layout (collectively: every rank calls it at the same exchange), then kept. `Err`
/// names why NCCL cannot be used; the caller falls back, and every later call returns the
/// same answer.
pub(crate) fn comms(gpus: &[Arc<Gpu>]) -> std::result::Result<Arc<Comms>, String> {
    type Cache = Mutex<HashMap<Vec<usize>, std::result::Result<Arc<Comms>, String>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key: Vec<usize> = gpus.iter().map(|g| g.ordinal).collect();
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(c) = cache.get(&key) {
        return c.clone();
    }
    let made = make(gpus).map(Arc::new);
    if let Err(why) = &made {
        *LAST_FAILURE.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(format!("devices on GPUs {key:?}: {why}"));
        if crate::stats::report_enabled() {
            eprintln!(
                "mint report: NCCL not used for halos: {why}; peer copies and staging instead"
            );
        }
    }
    cache.insert(key, made.clone());
    made
}

fn make(gpus: &[Arc<Gpu>]) -> std::result::Result<Comms, String> {
    // each local device's index among this process's distinct GPUs
    let mut ordinals: Vec<usize> = Vec::new();
    let local_index: Vec<i32> = gpus
        .iter()
        .map(|g| match ordinals.iter().position(|&o| o == g.ordinal) {
            Some(p) => p as i32,
            None => {
                ordinals.push(g.ordinal);
                (ordinals.len() - 1) as i32
            }
        })
        .collect();
    // every rank must be able to take part before any enters the collective init
    let ready = if available() {
        Ok(())
    } else {
        Err(Error::Driver {
            call: "dlopen".into(),
            message: "libnccl.so.2 was not found".into(),
        })
    };
    crate::ranks::agree(|| "loading NCCL".into(), ready).map_err(|e| e.to_string())?;
    // all ranks' layouts: [distinct GPUs, then each device's index among them]
    let mut mine: Vec<u8> = (ordinals.len() as i32).to_le_bytes().to_vec();
    for i in &local_index {
        mine.extend(i.to_le_bytes());
    }
    one_rank_per_gpu(gpus, &ordinals)?;
    let (device_rank, total, my_first) = device_ranks(&mine)?;
    let comms = init(gpus, &ordinals, total, my_first)?;
    let local = comm_streams(gpus, &ordinals, comms)?;
    Ok(Comms {
        local,
        device_rank,
        lock: Mutex::new(()),
    })
}

/// `Err` when a GPU of `ordinals` (this process's distinct GPUs) is one another rank
/// drives too: NCCL refuses two ranks on one GPU, after an initialization of about half a
/// second, so look first, by the GPUs' UUIDs, which are unique across hosts.
fn one_rank_per_gpu(gpus: &[Arc<Gpu>], ordinals: &[usize]) -> std::result::Result<(), String> {
    let uuids: Result<Vec<u8>> = ordinals
        .iter()
        .map(|&o| {
            let g = gpus.iter().find(|g| g.ordinal == o).expect("listed");
            g.ctx
                .uuid()
                .map(|u| u.bytes.map(|b| b as u8))
                .map_err(|e| Error::driver("cuDeviceGetUuid", e))
        })
        .collect::<Result<Vec<[u8; 16]>>>()
        .map(|v| v.concat());
    let uuids = crate::ranks::agree(|| "reading the GPUs' UUIDs".into(), uuids)
        .map_err(|e| e.to_string())?;
    let every = crate::ranks::all_gather(&uuids).map_err(|e| e.to_string())?;
    let mut seen: Vec<&[u8]> = Vec::new();
    for (r, b) in every.iter().enumerate() {
        for u in b.chunks_exact(16) {
            if seen.contains(&u) {
                return Err(format!(
                    "rank {r} drives a GPU another rank drives too (NCCL needs one rank per GPU)"
                ));
            }
            seen.push(u);
        }
    }
    Ok(())
}

/// From every rank's layout (`mine`: its distinct GPUs, then each device's index among
/// them): the NCCL rank of every device of the split, the communicator's size, and this
/// rank's first NCCL rank.
fn device_ranks(mine: &[u8]) -> std::result::Result<(Vec<i32>, i32, i32), String> {
    let all = crate::ranks::all_gather(mine).map_err(|e| e.to_string())?;
    let word = |b: &[u8], k: usize| i32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
    let mut device_rank = Vec::new();
    let mut first = 0i32;
    let mut my_first = 0i32;
    for (r, b) in all.iter().enumerate() {
        if r == crate::ranks::rank() {
            my_first = first;
        }
        let n = word(b, 0);
        for k in 1..b.len() / 4 {
            device_rank.push(first + word(b, k));
        }
        first += n;
    }
    let total = first;
    Ok((device_rank, total, my_first))
}

/// One communicator per GPU of `ordinals`, of `total` ranks, this process's from
/// `my_first` on: `ncclCommInitAll` on one process, else `ncclCommInitRank` with the
/// unique id rank 0 makes; every rank agrees, and a failure destroys what was made.
fn init(
    gpus: &[Arc<Gpu>],
    ordinals: &[usize],
    total: i32,
    my_first: i32,
) -> std::result::Result<Vec<ns::ncclComm_t>, String> {
    let mut comms: Vec<ns::ncclComm_t> = vec![std::ptr::null_mut(); ordinals.len()];
    let init = if crate::ranks::size() == 1 {
        let devlist: Vec<i32> = ordinals.iter().map(|&o| o as i32).collect();
        unsafe { nc::comm_init_all(comms.as_mut_ptr(), devlist.len() as i32, devlist.as_ptr()) }
            .map(|_| ())
            .map_err(|e| nccl_error("ncclCommInitAll", e))
    } else {
        let id = if crate::ranks::rank() == 0 {
            nc::get_uniqueid().map_err(|e| nccl_error("ncclGetUniqueId", e))
        } else {
            Ok(ns::ncclUniqueId { internal: [0; 128] })
        };
        let id = crate::ranks::agree(|| "ncclGetUniqueId".into(), id).map_err(|e| e.to_string())?;
        let bytes: Vec<u8> = id.internal.iter().map(|&c| c as u8).collect();
        let ids = crate::ranks::all_gather(&bytes).map_err(|e| e.to_string())?;
        let mut id = ns::ncclUniqueId { internal: [0; 128] };
        for (d, s) in id.internal.iter_mut().zip(&ids[0]) {
            *d = *s as _;
        }
        let mut run = || -> Result<()> {
            nc::group_start().map_err(|e| nccl_error("ncclGroupStart", e))?;
            for (k, &o) in ordinals.iter().enumerate() {
                let g = gpus.iter().find(|g| g.ordinal == o).expect("listed");
                g.bind()?;
                unsafe { nc::comm_init_rank(&mut comms[k], total, id, my_first + k as i32) }
                    .map_err(|e| nccl_error("ncclCommInitRank", e))?;
            }
            nc::group_end().map_err(|e| nccl_error("ncclGroupEnd (init)", e))?;
            Ok(())
        };
        run()
    };
    let init = crate::ranks::agree(|| "NCCL's communicator".into(), init);
    if let Err(e) = init {
        for c in comms.into_iter().filter(|c| !c.is_null()) {
            unsafe { nc::comm_destroy(c) }.ok();
        }
        return Err(e.to_string());
    }
    Ok(comms)
}

/// Each communicator with the stream its operations run on.
fn comm_streams(
    gpus: &[Arc<Gpu>],
    ordinals: &[usize],
    comms: Vec<ns::ncclComm_t>,
) -> std::result::Result<Vec<(usize, ns::ncclComm_t, cudarc::driver::sys::CUstream)>, String> {
    let mut local = Vec::with_capacity(ordinals.len());
    for (&o, c) in ordinals.iter().zip(comms) {
        let g = gpus.iter().find(|g| g.ordinal == o).expect("listed");
        g.bind().map_err(|e| e.to_string())?;
        let s = cudarc::driver::result::stream::create(
            cudarc::driver::result::stream::StreamKind::NonBlocking,
        )
        .map_err(|e| format!("cuStreamCreate: {}", crate::error::describe(e)))?;
        local.push((o, c, s));
    }
    Ok(local)
}

/// Enqueues the group of one exchange: `sends` (pointer, bytes, peer's NCCL rank,
/// communicator, stream) and `recvs` alike, in the order every rank lists them.
pub(crate) type Op = (
    u64,
    usize,
    i32,
    ns::ncclComm_t,
    cudarc::driver::sys::CUstream,
);

pub(crate) fn group(ops: &[(bool, Op)]) -> Result<()> {
    nc::group_start().map_err(|e| nccl_error("ncclGroupStart", e))?;
    let mut first = Ok(());
    for &(send, (ptr, bytes, peer, comm, stream)) in ops {
        let r = unsafe {
            if send {
                nc::send(
                    ptr as *const _,
                    bytes,
                    ns::ncclDataType_t::ncclUint8,
                    peer,
                    comm,
                    stream as _,
                )
            } else {
                nc::recv(
                    ptr as *mut _,
                    bytes,
                    ns::ncclDataType_t::ncclUint8,
                    peer,
                    comm,
                    stream as _,
                )
            }
        };
        if let (Err(e), Ok(())) = (r, &first) {
            first = Err(nccl_error(if send { "ncclSend" } else { "ncclRecv" }, e));
        }
    }
    let end = nc::group_end().map_err(|e| nccl_error("ncclGroupEnd", e));
    first.and(end.map(|_| ()))
}
