//! The ring of page-locked staging buffers each device keeps for large host↔device copies
//! ([`crate::transfer`] fills and drains it): its shape ([`Ring`], [`set_ring`]) and one
//! device's buffers with their events ([`Staging`], held by the device).

use cudarc::driver::{CudaContext, DriverError, result as drv, sys};
use std::sync::Arc;

/// The shape of the staging ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ring {
    /// Page-locked staging buffers per device (at least 2).
    pub slots: usize,
    /// Bytes of one staging buffer.
    pub slot_bytes: usize,
    /// Bytes one core copies at a time between a staging buffer and the host array.
    pub piece_bytes: usize,
    /// Whether the cores write with non-temporal (streaming) stores, which skip the
    /// read-for-ownership of the destination and keep it out of the caches (x86-64
    /// only; elsewhere ordinary copies).
    pub stream_stores: bool,
}

impl Ring {
    /// What Mint uses unless [`set_ring`] says otherwise.
    ///
    /// Chosen on an H100 host (16 cores) by two runs of `cargo bench
    /// --bench transfer -- --sweep`: streaming stores gave 10–40% over plain copies,
    /// slots of 8 MiB or less lost to the cost of waking the cores per slot, 1 MiB
    /// pieces beat larger ones, and 4 slots of 16 MiB were the steadiest device to host
    /// (47–54 GB/s of 55) with the others within the runs' noise host to device.
    pub const DEFAULT: Ring = Ring {
        slots: 4,
        slot_bytes: 16 << 20,
        piece_bytes: 1 << 20,
        stream_stores: true,
    };
}

static RING: std::sync::Mutex<Ring> = std::sync::Mutex::new(Ring::DEFAULT);

/// The ring the next large copy uses.
pub fn ring() -> Ring {
    *RING.lock().unwrap_or_else(|p| p.into_inner())
}

/// Changes the ring for the copies that follow (each device's buffers are reallocated at
/// its next large copy); `cargo bench --bench transfer -- --sweep` compares shapes.
/// Values are raised to at least 2 slots, 1 MiB slots and 64 KiB pieces.
pub fn set_ring(r: Ring) {
    *RING.lock().unwrap_or_else(|p| p.into_inner()) = Ring {
        slots: r.slots.max(2),
        slot_bytes: r.slot_bytes.max(1 << 20),
        piece_bytes: r.piece_bytes.max(64 << 10),
        stream_stores: r.stream_stores,
    };
}

/// One device's ring of page-locked staging buffers and the events that say when the
/// DMA engine is done with each.
pub(crate) struct Staging {
    pub(crate) ring: Ring,
    ctx: Arc<CudaContext>,
    pub(crate) slots: Vec<(*mut u8, sys::CUevent)>,
}

// SAFETY: the buffers and events belong to the device's context and are only used while
// the device's `Mutex<Option<Staging>>` is held.
unsafe impl Send for Staging {}

impl Staging {
    /// Slot `i % slots`, once its last DMA (queued by any copy, on any stream) has
    /// finished.
    pub(crate) fn free_slot(&self, i: usize) -> Result<(*mut u8, sys::CUevent), DriverError> {
        let (buf, ev) = self.slots[i % self.slots.len()];
        unsafe { drv::event::synchronize(ev) }?;
        Ok((buf, ev))
    }

    pub(crate) fn new(ctx: &Arc<CudaContext>, ring: Ring) -> Result<Staging, DriverError> {
        ctx.bind_to_thread()?;
        let mut s = Staging {
            ring,
            ctx: ctx.clone(),
            slots: Vec::new(),
        };
        for _ in 0..ring.slots {
            let buf = unsafe { drv::malloc_host(ring.slot_bytes, 0) }? as *mut u8;
            let ev = match drv::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING) {
                Ok(e) => e,
                Err(e) => {
                    unsafe { drv::free_host(buf as _) }.ok();
                    return Err(e);
                }
            };
            s.slots.push((buf, ev));
        }
        Ok(s)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        for &(buf, ev) in &self.slots {
            unsafe {
                let _ = drv::event::synchronize(ev);
                let _ = drv::event::destroy(ev);
                let _ = drv::free_host(buf as _);
            }
        }
    }
}
