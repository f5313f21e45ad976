//! What the macro knows about host variables' types: from the function signature, `let`
//! annotations, and initializers whose type is plain to see (`Array3::<f64>::zeros`,
//! `1.0f32`, `x as f64`, `u.dim()`). Whatever is not known here is inferred inside the
//! kernel by unification, and every inference is checked by rustc through the generated
//! code (`mint::__rt::scalar::<f64>(c0)` does not compile unless `c0` is an `f64`).

use mint_translator::ir::ScalarTy;
use std::collections::HashMap;
use syn::{Expr, GenericArgument, Pat, PathArguments, Type};

/// The type of a host variable as far as the macro can tell.
#[derive(Clone, Debug, PartialEq)]
pub enum HostTy {
    Array {
        elem: Option<ScalarTy>,
        ndim: Option<u8>,
        /// Bound to a reference (`&`/`&mut`): reborrow with `&mut *x`.
        is_ref: bool,
        /// Writable (owned, `&mut`, or a mutable view).
        writable: bool,
    },
    Scalar(ScalarTy),
    Unknown,
}

/// Scoped map from host variable names to their types.
#[derive(Clone, Debug, Default)]
pub struct Env {
    scopes: Vec<HashMap<String, HostTy>>,
}

impl Env {
    pub fn new() -> Env {
        Env {
            scopes: vec![HashMap::new()],
        }
    }
    pub fn push(&mut self) {
        self.scopes.push(HashMap::new());
    }
    pub fn pop(&mut self) {
        self.scopes.pop();
    }
    pub fn insert(&mut self, name: String, t: HostTy) {
        self.scopes.last_mut().expect("scope").insert(name, t);
    }
    pub fn get(&self, name: &str) -> Option<&HostTy> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// Binds the names of a pattern with the type `ty` (if any) or initializer `init`.
    pub fn bind_pat(&mut self, pat: &Pat, ty: Option<&Type>, init: Option<&Expr>) {
        match pat {
            Pat::Ident(pi) => {
                let t = ty
                    .map(host_ty)
                    .or_else(|| init.map(|e| self.infer(e)))
                    .unwrap_or(HostTy::Unknown);
                let t = match t {
                    HostTy::Array {
                        elem,
                        ndim,
                        is_ref,
                        writable,
                    } => HostTy::Array {
                        elem,
                        ndim,
                        is_ref,
                        writable: writable || (pi.mutability.is_some() && !is_ref),
                    },
                    t => t,
                };
                self.insert(pi.ident.to_string(), t);
            }
            Pat::Type(pt) => self.bind_pat(&pt.pat, Some(&pt.ty), init),
            Pat::Tuple(tp) => {
                // `let (nz, ny, nx) = u.dim();` binds usize scalars.
                let dims = init.is_some_and(|e| is_dim_call(e, self));
                let elems: Vec<Option<&Type>> = match ty {
                    Some(Type::Tuple(tt)) => tt.elems.iter().map(Some).collect(),
                    _ => vec![None; tp.elems.len()],
                };
                for (i, p) in tp.elems.iter().enumerate() {
                    let t = elems.get(i).copied().flatten();
                    if t.is_none() && dims {
                        self.bind_scalar_pat(p, ScalarTy::Usize);
                    } else {
                        self.bind_pat(p, t, None);
                    }
                }
            }
            Pat::Reference(r) => self.bind_pat(&r.pat, None, None),
            _ => {}
        }
    }

    fn bind_scalar_pat(&mut self, pat: &Pat, t: ScalarTy) {
        if let Pat::Ident(pi) = pat {
            self.insert(pi.ident.to_string(), HostTy::Scalar(t));
        }
    }

    /// A type for an initializer expression, where it is plain to see.
    pub fn infer(&self, e: &Expr) -> HostTy {
        match e {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => ScalarTy::from_rust(i.suffix())
                    .map(HostTy::Scalar)
                    .unwrap_or(HostTy::Unknown),
                syn::Lit::Float(f) => ScalarTy::from_rust(f.suffix())
                    .map(HostTy::Scalar)
                    .unwrap_or(HostTy::Unknown),
                syn::Lit::Bool(_) => HostTy::Scalar(ScalarTy::Bool),
                _ => HostTy::Unknown,
            },
            Expr::Cast(c) => match host_ty(&c.ty) {
                t @ HostTy::Scalar(_) => t,
                _ => HostTy::Unknown,
            },
            Expr::Paren(p) => self.infer(&p.expr),
            Expr::Group(g) => self.infer(&g.expr),
            Expr::Reference(r) => match self.infer(&r.expr) {
                HostTy::Array { elem, ndim, .. } => HostTy::Array {
                    elem,
                    ndim,
                    is_ref: true,
                    writable: r.mutability.is_some(),
                },
                _ => HostTy::Unknown,
            },
            Expr::Path(p) if p.path.segments.len() == 1 => self
                .get(&p.path.segments[0].ident.to_string())
                .cloned()
                .unwrap_or(HostTy::Unknown),
            Expr::MethodCall(m) => {
                let recv = self.infer(&m.receiver);
                let name = m.method.to_string();
                match (&recv, name.as_str()) {
                    (HostTy::Array { .. }, "len" | "nrows" | "ncols" | "len_of") => {
                        HostTy::Scalar(ScalarTy::Usize)
                    }
                    (HostTy::Array { elem, ndim, .. }, "clone" | "to_owned" | "into_owned") => {
                        HostTy::Array {
                            elem: *elem,
                            ndim: *ndim,
                            is_ref: false,
                            writable: false,
                        }
                    }
                    (HostTy::Array { elem, ndim, .. }, "view_mut") => HostTy::Array {
                        elem: *elem,
                        ndim: *ndim,
                        is_ref: false,
                        writable: true,
                    },
                    (HostTy::Array { elem, ndim, .. }, "view") => HostTy::Array {
                        elem: *elem,
                        ndim: *ndim,
                        is_ref: false,
                        writable: false,
                    },
                    (HostTy::Scalar(t), _) if is_same_type_method(&name) => HostTy::Scalar(*t),
                    _ => HostTy::Unknown,
                }
            }
            Expr::Binary(b) => match (self.infer(&b.left), self.infer(&b.right)) {
                (HostTy::Scalar(t), _) | (_, HostTy::Scalar(t)) if is_arith(&b.op) => {
                    HostTy::Scalar(t)
                }
                _ => HostTy::Unknown,
            },
            Expr::Call(c) => array_ctor(c),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                // vec![0.0f64; n]
                let toks = m.mac.tokens.to_string();
                let first = toks.split(';').next().unwrap_or("").trim().to_string();
                match syn::parse_str::<Expr>(&first) {
                    Ok(e) => match self.infer(&e) {
                        HostTy::Scalar(t) => HostTy::Array {
                            elem: Some(t),
                            ndim: Some(1),
                            is_ref: false,
                            writable: false,
                        },
                        _ => HostTy::Array {
                            elem: None,
                            ndim: Some(1),
                            is_ref: false,
                            writable: false,
                        },
                    },
                    Err(_) => HostTy::Unknown,
                }
            }
            _ => HostTy::Unknown,
        }
    }
}

fn is_arith(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(op, Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_))
}

fn is_same_type_method(name: &str) -> bool {
    matches!(
        name,
        "sqrt"
            | "abs"
            | "exp"
            | "ln"
            | "sin"
            | "cos"
            | "powi"
            | "powf"
            | "min"
            | "max"
            | "floor"
            | "ceil"
            | "round"
            | "clone"
    )
}

fn is_dim_call(e: &Expr, env: &Env) -> bool {
    match e {
        Expr::MethodCall(m) => {
            m.method == "dim"
                && matches!(
                    env.infer(&m.receiver),
                    HostTy::Array { .. } | HostTy::Unknown
                )
        }
        Expr::Paren(p) => is_dim_call(&p.expr, env),
        _ => false,
    }
}

/// The element type named by a generic argument list (`<f64>`, `<'a, f32>`, `<f64, Ix3>`),
/// with the dimension from `IxN`/`Dim<[usize; N]>` if present.
fn elem_and_dim(args: &PathArguments) -> (Option<ScalarTy>, Option<u8>) {
    let PathArguments::AngleBracketed(a) = args else {
        return (None, None);
    };
    let mut elem = None;
    let mut dim = None;
    for g in &a.args {
        if let GenericArgument::Type(t) = g {
            match host_ty(t) {
                HostTy::Scalar(s) if elem.is_none() => elem = Some(s),
                _ => {
                    if let Some(d) = dim_of(t) {
                        dim = Some(d);
                    }
                }
            }
        }
    }
    (elem, dim)
}

fn dim_of(t: &Type) -> Option<u8> {
    let Type::Path(p) = t else { return None };
    let seg = p.path.segments.last()?;
    match seg.ident.to_string().as_str() {
        "Ix1" => Some(1),
        "Ix2" => Some(2),
        "Ix3" => Some(3),
        "Dim" => {
            let s = quote::quote!(#seg).to_string();
            ["1", "2", "3"]
                .iter()
                .position(|n| s.contains(&format!("; {n}]")))
                .map(|i| i as u8 + 1)
        }
        _ => None,
    }
}

/// `ArrayN`, `ArrayViewN`, `ArrayViewMutN`, `ArcArrayN`, `Array`, `SlabArrayN`, `PinnedArrayN`,
/// `Vec`:
/// (ndim, writable).
fn array_kind(name: &str) -> Option<(Option<u8>, bool)> {
    let digit = name
        .chars()
        .last()
        .and_then(|c| c.to_digit(10))
        .map(|d| d as u8);
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
    match base {
        "Array" | "ArcArray" | "CowArray" => Some((digit, true)),
        "ArrayView" => Some((digit, false)),
        "ArrayViewMut" => Some((digit, true)),
        // mint::SlabArray2/3: a rank's planes of an array split over MPI ranks
        "SlabArray" => Some((digit, true)),
        // mint::PinnedArray1/2/3: an array in page-locked host memory
        "PinnedArray" => Some((digit, true)),
        "Vec" => Some((Some(1), true)),
        _ => None,
    }
}

/// The macro's view of a Rust type.
pub fn host_ty(t: &Type) -> HostTy {
    match t {
        Type::Reference(r) => match host_ty(&r.elem) {
            HostTy::Array {
                elem,
                ndim,
                writable,
                ..
            } => HostTy::Array {
                elem,
                ndim,
                is_ref: true,
                writable: writable && r.mutability.is_some(),
            },
            HostTy::Scalar(s) => HostTy::Scalar(s),
            HostTy::Unknown => HostTy::Unknown,
        },
        Type::Paren(p) => host_ty(&p.elem),
        Type::Group(g) => host_ty(&g.elem),
        Type::Slice(s) => HostTy::Array {
            elem: match host_ty(&s.elem) {
                HostTy::Scalar(t) => Some(t),
                _ => None,
            },
            ndim: Some(1),
            is_ref: false,
            writable: true,
        },
        Type::Path(p) if p.qself.is_none() => {
            let Some(seg) = p.path.segments.last() else {
                return HostTy::Unknown;
            };
            let name = seg.ident.to_string();
            if p.path.segments.len() == 1
                && let Some(s) = ScalarTy::from_rust(&name)
            {
                return HostTy::Scalar(s);
            }
            match array_kind(&name) {
                Some((ndim, writable)) => {
                    let (elem, dim) = elem_and_dim(&seg.arguments);
                    HostTy::Array {
                        elem,
                        ndim: ndim.or(dim),
                        is_ref: false,
                        writable,
                    }
                }
                None => HostTy::Unknown,
            }
        }
        _ => HostTy::Unknown,
    }
}

/// `Array3::<f64>::zeros(..)`, `Array3::from_elem(.., 0.0f32)`, `Array::<f64, Ix3>::..`.
fn array_ctor(c: &syn::ExprCall) -> HostTy {
    let Expr::Path(p) = &*c.func else {
        return HostTy::Unknown;
    };
    let segs: Vec<_> = p.path.segments.iter().collect();
    if segs.len() < 2 {
        return HostTy::Unknown;
    }
    let ty_seg = segs[segs.len() - 2];
    let Some((ndim, _)) = array_kind(&ty_seg.ident.to_string()) else {
        return HostTy::Unknown;
    };
    let (mut elem, dim) = elem_and_dim(&ty_seg.arguments);
    let ctor = segs[segs.len() - 1].ident.to_string();
    if elem.is_none()
        && ctor == "from_elem"
        && let Some(Expr::Lit(l)) = c.args.iter().nth(1)
    {
        elem = match &l.lit {
            syn::Lit::Float(f) => ScalarTy::from_rust(f.suffix()),
            syn::Lit::Int(i) => ScalarTy::from_rust(i.suffix()),
            _ => None,
        };
    }
    HostTy::Array {
        elem,
        ndim: ndim.or(dim),
        is_ref: false,
        writable: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(s: &str) -> HostTy {
        host_ty(&syn::parse_str(s).unwrap())
    }

    #[test]
    fn array_types_from_signatures() {
        assert_eq!(
            ty("&mut Array3<f64>"),
            HostTy::Array {
                elem: Some(ScalarTy::F64),
                ndim: Some(3),
                is_ref: true,
                writable: true
            }
        );
        assert_eq!(
            ty("&ndarray::Array2<f32>"),
            HostTy::Array {
                elem: Some(ScalarTy::F32),
                ndim: Some(2),
                is_ref: true,
                writable: false
            }
        );
        assert_eq!(
            ty("ArrayViewMut3<'_, f32>"),
            HostTy::Array {
                elem: Some(ScalarTy::F32),
                ndim: Some(3),
                is_ref: false,
                writable: true
            }
        );
        assert_eq!(
            ty("Array<f64, Ix2>"),
            HostTy::Array {
                elem: Some(ScalarTy::F64),
                ndim: Some(2),
                is_ref: false,
                writable: true
            }
        );
        assert_eq!(
            ty("&mut [u8]"),
            HostTy::Array {
                elem: Some(ScalarTy::U8),
                ndim: Some(1),
                is_ref: true,
                writable: true
            }
        );
        assert_eq!(
            ty("Vec<T>"),
            HostTy::Array {
                elem: None,
                ndim: Some(1),
                is_ref: false,
                writable: true
            }
        );
        assert_eq!(ty("f32"), HostTy::Scalar(ScalarTy::F32));
        assert_eq!(ty("String"), HostTy::Unknown);
    }

    #[test]
    fn types_from_initializers() {
        let mut env = Env::new();
        env.insert(
            "u".into(),
            HostTy::Array {
                elem: Some(ScalarTy::F64),
                ndim: Some(3),
                is_ref: true,
                writable: true,
            },
        );
        let s: syn::Stmt = syn::parse_str("let (nz, ny, nx) = u.dim();").unwrap();
        if let syn::Stmt::Local(l) = s {
            env.bind_pat(&l.pat, None, l.init.as_ref().map(|i| &*i.expr));
        }
        assert_eq!(env.get("ny"), Some(&HostTy::Scalar(ScalarTy::Usize)));
        for (src, want) in [
            (
                "Array3::<f32>::zeros((2, 2, 2))",
                HostTy::Array {
                    elem: Some(ScalarTy::F32),
                    ndim: Some(3),
                    is_ref: false,
                    writable: false,
                },
            ),
            (
                "Array2::from_elem((2, 2), 1.5f64)",
                HostTy::Array {
                    elem: Some(ScalarTy::F64),
                    ndim: Some(2),
                    is_ref: false,
                    writable: false,
                },
            ),
            (
                "vec![0u32; 10]",
                HostTy::Array {
                    elem: Some(ScalarTy::U32),
                    ndim: Some(1),
                    is_ref: false,
                    writable: false,
                },
            ),
            ("(n as f32) * 0.5", HostTy::Scalar(ScalarTy::F32)),
            ("u.len()", HostTy::Scalar(ScalarTy::Usize)),
            ("0.5", HostTy::Unknown),
        ] {
            assert_eq!(env.infer(&syn::parse_str(src).unwrap()), want, "{src}");
        }
    }
}
