//! `MINT_DEVICE_MEMORY=BYTES`: a cap on the device memory Mint's arrays may take on each
//! device (issue #16), so that "larger than the device" can be tested on any GPU and on
//! the CPU backend's emulated devices. Streamed regions ([`crate::stream`]) size their
//! slabs to fit it.
//!
//! The cap counts the arrays Mint allocates (`copy!`'s device arrays, slabs, streaming
//! buffers, the autotuner's scratch copies), not the driver's own memory or compiled
//! kernels. `BYTES` is an integer with an optional suffix `K`, `M`, `G` (powers of 1024).

use crate::error::{Error, Result};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

static OVERRIDE: Mutex<Option<Option<usize>>> = Mutex::new(None);

/// Parses `BYTES` (`123`, `64M`, `2G`, `512k`).
///
/// # Errors
/// [`Error::BadMemoryCap`] naming the text.
pub fn parse(text: &str) -> Result<usize> {
    let t = text.trim();
    let (num, mul) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m = match c.to_ascii_uppercase() {
                'K' => 1usize << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                _ => 0,
            };
            (&t[..i], m)
        }
        _ => (t, 1),
    };
    match num.trim().parse::<usize>() {
        Ok(n) if mul > 0 => n.checked_mul(mul).ok_or(()),
        _ => Err(()),
    }
    .map_err(|()| Error::BadMemoryCap { value: text.into() })
}

/// The cap in bytes per device: [`set_cap`]'s, else `MINT_DEVICE_MEMORY`'s, else none.
///
/// # Errors
/// [`Error::BadMemoryCap`] when `MINT_DEVICE_MEMORY` does not parse.
pub fn cap() -> Result<Option<usize>> {
    if let Some(c) = *OVERRIDE.lock().unwrap_or_else(|p| p.into_inner()) {
        return Ok(c);
    }
    match std::env::var("MINT_DEVICE_MEMORY") {
        Ok(v) if !v.trim().is_empty() => parse(&v).map(Some),
        _ => Ok(None),
    }
}

/// Sets the cap for this process (`Some(None)`: no cap), over `MINT_DEVICE_MEMORY`;
/// `None` goes back to the environment. For tests and benchmarks.
pub fn set_cap(cap: Option<Option<usize>>) {
    *OVERRIDE.lock().unwrap_or_else(|p| p.into_inner()) = cap;
}

/// Bytes of arrays allocated on one device, checked against the cap.
#[derive(Debug, Default)]
pub(crate) struct Usage(AtomicUsize);

impl Usage {
    /// Takes `bytes` for `array`.
    ///
    /// # Errors
    /// [`Error::OverMemoryCap`] when the cap would be exceeded (nothing is taken).
    pub fn take(&self, array: impl FnOnce() -> String, bytes: usize) -> Result<()> {
        let cap = cap()?;
        let mut cur = self.0.load(Ordering::Relaxed);
        loop {
            if let Some(c) = cap
                && cur + bytes > c
            {
                return Err(Error::OverMemoryCap {
                    array: array(),
                    requested_bytes: bytes,
                    allocated_bytes: cur,
                    cap_bytes: c,
                });
            }
            match self
                .0
                .compare_exchange(cur, cur + bytes, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Ok(()),
                Err(now) => cur = now,
            }
        }
    }

    /// Gives `bytes` back.
    pub fn give(&self, bytes: usize) {
        self.0.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Bytes taken now.
    pub fn bytes(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_with_suffixes() {
        assert_eq!(parse("123").unwrap(), 123);
        assert_eq!(parse("64M").unwrap(), 64 << 20);
        assert_eq!(parse(" 2g ").unwrap(), 2 << 30);
        assert_eq!(parse("512k").unwrap(), 512 << 10);
        for bad in ["", "M", "1.5G", "12X", "-3"] {
            assert!(
                matches!(parse(bad), Err(Error::BadMemoryCap { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn usage_refuses_past_the_cap_and_takes_nothing() {
        let u = Usage::default();
        set_cap(Some(Some(100)));
        assert!(u.take(|| "a".into(), 60).is_ok());
        let e = u.take(|| "b".into(), 50).unwrap_err();
        assert!(
            e.to_string().contains("`b`") && e.to_string().contains("100"),
            "{e}"
        );
        assert_eq!(u.bytes(), 60);
        u.give(60);
        assert!(u.take(|| "b".into(), 100).is_ok());
        set_cap(None);
    }
}
