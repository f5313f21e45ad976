//! On/off settings read from an environment variable once, which code can override.

use std::sync::atomic::{AtomicU8, Ordering};

/// A setting read from `var` at first use: unset or empty gives `default`, `1` on, `0`
/// off, anything else `default` with a warning. [`EnvFlag::set`] overrides it.
pub(crate) struct EnvFlag {
    var: &'static str,
    default: bool,
    /// 0: not read yet; 1: off; 2: on.
    state: AtomicU8,
}

impl EnvFlag {
    pub(crate) const fn new(var: &'static str, default: bool) -> EnvFlag {
        EnvFlag {
            var,
            default,
            state: AtomicU8::new(0),
        }
    }

    pub(crate) fn get(&self) -> bool {
        match self.state.load(Ordering::Relaxed) {
            0 => {
                let on = match std::env::var(self.var).as_deref() {
                    Err(_) | Ok("") => self.default,
                    Ok("1") => true,
                    Ok("0") => false,
                    Ok(v) => {
                        eprintln!(
                            "mint: {}={v} is not 0 or 1; using {}",
                            self.var, self.default as u8
                        );
                        self.default
                    }
                };
                self.set(on);
                on
            }
            v => v == 2,
        }
    }

    pub(crate) fn set(&self, on: bool) {
        self.state.store(if on { 2 } else { 1 }, Ordering::Relaxed);
    }

    /// [`EnvFlag::set`] for `Some`; `None` drops the override and reads `var` again.
    pub(crate) fn set_or_reset(&self, on: Option<bool>) {
        match on {
            Some(on) => self.set(on),
            None => self.state.store(0, Ordering::Relaxed),
        }
    }
}
