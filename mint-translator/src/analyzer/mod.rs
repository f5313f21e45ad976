//! The stencil analyzer (thesis Sec. 5.3).
