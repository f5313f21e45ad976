//! Diagnostics: what the translator reports about a kernel it cannot translate.

use crate::ir::SpanId;
use std::fmt;

/// One error, located at a span of the user's source (through the front end's span
/// table), with a sentence that names the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub span: SpanId,
    pub message: String,
}

impl Diag {
    pub fn new(span: SpanId, message: impl Into<String>) -> Diag {
        Diag {
            span,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diag {}

/// Result of a translator pass.
pub type DiagResult<T> = Result<T, Vec<Diag>>;
