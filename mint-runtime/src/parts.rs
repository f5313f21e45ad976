//! Each device's storage of one array of a region split over several devices: the host
//! memory of each emulated device (`cpu:N`), or one device array per GPU holding its
//! planes, indexed with global indices.

use crate::array::DeviceArray;
use crate::error::Error;

/// Each device's storage of one array.
pub(crate) enum Parts {
    /// Emulated devices: the planes each holds (or the whole array), in host memory.
    Host(Vec<Vec<u64>>),
    /// GPUs: one device array per GPU, holding its planes.
    Gpu(Vec<DeviceArray>),
}

pub(crate) fn bytes(v: &[u64]) -> &[u8] {
    // SAFETY: u64 storage viewed as bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, v.len() * 8) }
}
pub(crate) fn bytes_mut(v: &mut [u64]) -> &mut [u8] {
    // SAFETY: as above.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut u8, v.len() * 8) }
}

/// `e` with the device named, for a failure on one of several GPUs.
pub(crate) fn on_device(e: Error, d: usize) -> Error {
    match e {
        Error::Driver { call, message } => Error::Driver {
            call,
            message: format!("device {d}: {message}"),
        },
        other => other,
    }
}
