//! C names for Rust identifiers.
//!
//! User names are kept as written so the generated CUDA reads like the Rust it came from.
//! A name that is a C/C++/CUDA keyword or builtin gets a trailing `_`; names beginning
//! with `mint_` (the translator's own) get a `u_` prefix. Rust allows a `let` to shadow a
//! visible name, C does not in the same scope, so a shadowing binding gets a numbered
//! suffix (`x_1`).

use std::collections::{HashMap, HashSet};

const RESERVED: &[&str] = &[
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "class",
    "new",
    "delete",
    "template",
    "this",
    "throw",
    "try",
    "catch",
    "namespace",
    "using",
    "virtual",
    "private",
    "public",
    "protected",
    "friend",
    "operator",
    "typename",
    "explicit",
    "mutable",
    "export",
    "asm",
    "true",
    "false",
    "nullptr",
    "constexpr",
    "decltype",
    "noexcept",
    "static_assert",
    "thread_local",
    "alignas",
    "alignof",
    "char16_t",
    "char32_t",
    "wchar_t",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "idx_t",
    "min",
    "max",
    "abs",
    "fabs",
    "sqrt",
    "exp",
    "log",
    "pow",
    "sin",
    "cos",
    "tan",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fmin",
    "fmax",
    "fma",
    "isnan",
    "isinf",
    "isfinite",
    "printf",
    "malloc",
    "free",
    "assert",
    "NULL",
    "and",
    "or",
    "not",
    "xor",
    "bitand",
    "bitor",
    "compl",
    "and_eq",
    "or_eq",
    "xor_eq",
    "not_eq",
];

/// The C spelling of a user identifier (no scoping). A field path (`self.u`, `w.vel.u1`)
/// joins its parts with `_` (`self_u`, `w_vel_u1`).
pub fn c_ident(rust: &str) -> String {
    if rust.contains('.') {
        let joined: Vec<&str> = rust
            .split('.')
            .map(|p| p.strip_prefix("r#").unwrap_or(p))
            .collect();
        return c_ident(&joined.join("_"));
    }
    let base = rust.strip_prefix("r#").unwrap_or(rust);
    if base.starts_with("mint_") {
        format!("u_{base}")
    } else if RESERVED.contains(&base) || base.starts_with("__") {
        format!("{base}_")
    } else {
        base.to_string()
    }
}

/// Scoped mapping from Rust names to C names.
#[derive(Debug, Default, Clone)]
pub struct Names {
    scopes: Vec<HashMap<String, String>>,
    /// Every C name handed out, to keep shadowing bindings distinct.
    used: HashSet<String>,
}

impl Names {
    pub fn new() -> Names {
        Names {
            scopes: vec![HashMap::new()],
            used: HashSet::new(),
        }
    }

    /// Binds a name that is not renamed (parameters, parallel loop indices).
    pub fn fixed(&mut self, rust: &str) -> String {
        let c = c_ident(rust);
        self.used.insert(c.clone());
        self.scopes[0].insert(rust.to_string(), c.clone());
        c
    }

    /// Reserves a translator-internal C name so no user binding takes it.
    pub fn reserve(&mut self, c: &str) {
        self.used.insert(c.to_string());
    }

    pub fn push(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub fn pop(&mut self) {
        self.scopes.pop();
    }

    /// Binds a new local in the innermost scope, renaming it if its C name is taken.
    pub fn bind(&mut self, rust: &str) -> String {
        let base = c_ident(rust);
        let mut c = base.clone();
        let mut k = 1;
        while self.used.contains(&c) {
            c = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(c.clone());
        self.scopes
            .last_mut()
            .expect("scope")
            .insert(rust.to_string(), c.clone());
        c
    }

    /// The C name a Rust name currently refers to.
    pub fn get(&self, rust: &str) -> String {
        for s in self.scopes.iter().rev() {
            if let Some(c) = s.get(rust) {
                return c.clone();
            }
        }
        c_ident(rust)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_and_internal_prefix_are_renamed() {
        assert_eq!(c_ident("u"), "u");
        assert_eq!(c_ident("int"), "int_");
        assert_eq!(c_ident("threadIdx"), "threadIdx_");
        assert_eq!(c_ident("mint_x"), "u_mint_x");
        assert_eq!(c_ident("r#type"), "type");
        assert_eq!(c_ident("self.u"), "self_u");
        assert_eq!(c_ident("w.vel.r#type"), "w_vel_type");
    }

    #[test]
    fn shadowing_gets_distinct_names() {
        let mut n = Names::new();
        let a = n.bind("x");
        n.push();
        let b = n.bind("x");
        assert_ne!(a, b);
        assert_eq!(n.get("x"), b);
        n.pop();
        assert_eq!(n.get("x"), a);
        let c = n.bind("x");
        assert_ne!(c, a);
        assert_eq!(n.get("x"), c);
    }
}
