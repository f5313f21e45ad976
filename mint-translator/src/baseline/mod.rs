//! The baseline translator (thesis Sec. 4.2): the argument handler of the outliner, the
//! kernel configuration, and (in [`crate::emit::cuda`]) the work partitioner and array
//! flattening. The memory manager's host-to-device table lives in the runtime's region,
//! filled by the `copy!`s the front end finds.

pub mod config;
pub mod outline;
