//! The Mint directives as the macros recognize them in a region's body (thesis Ch. 3,
//! Table 3.3): which attribute is a directive, which macro call is `copy!` or `barrier!`,
//! a `copy!`'s arguments, and the swap of two arrays. Shared by the region's code
//! generation (`region`) and the checks of a streamed region (`stream`).

use crate::lower::field_path;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Ident};

/// Which Mint directive an attribute is, if any.
#[derive(Debug, PartialEq)]
pub(crate) enum Directive {
    For,
    Single,
    Parallel,
    TimeLoop,
    Unknown(String),
}

pub(crate) fn directive(a: &syn::Attribute) -> Option<Directive> {
    let segs: Vec<String> = a
        .path()
        .segments
        .iter()
        .map(|s| syn::ext::IdentExt::unraw(&s.ident).to_string())
        .collect();
    let name = match segs.as_slice() {
        [m, n] if m == "mint" || *m == crate::facade_name() => n.as_str(),
        [n] if n == "r#for" || n == "for" => "for",
        _ => return None,
    };
    Some(match name {
        "for" => Directive::For,
        "single" => Directive::Single,
        "parallel" => Directive::Parallel,
        "time_loop" => Directive::TimeLoop,
        other => Directive::Unknown(other.to_string()),
    })
}

/// The span of an attribute's name (`parallel_for` in `#[mint::parallel_for]`).
pub(crate) fn attr_name_span(a: &syn::Attribute) -> Span {
    a.path()
        .segments
        .last()
        .map(|s| s.ident.span())
        .unwrap_or_else(|| a.span())
}

/// Removes and returns the Mint directive among `attrs`, if any.
pub(crate) fn take_directive(
    attrs: &mut Vec<syn::Attribute>,
) -> Option<(Directive, syn::Attribute)> {
    let i = attrs.iter().position(|a| directive(a).is_some())?;
    let a = attrs.remove(i);
    Some((directive(&a).unwrap(), a))
}

/// Whether `path` names `std::mem::swap` (`swap`, `mem::swap`, `std::mem::swap`).
pub(crate) fn is_mem_swap(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segs.last().is_some_and(|s| s == "swap") && (segs.len() == 1 || segs[segs.len() - 2] == "mem")
}

pub(crate) fn macro_name(m: &syn::Macro) -> Option<&'static str> {
    let segs: Vec<String> = m
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let facade = |m: &str| m == "mint" || m == crate::facade_name();
    match segs
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["copy"] => Some("copy"),
        [m, "copy"] if facade(m) => Some("copy"),
        ["barrier"] => Some("barrier"),
        [m, "barrier"] if facade(m) => Some("barrier"),
        _ => None,
    }
}

/// `copy!(x, to_device|from_device|alloc [, shape])`; `x` is a variable or a field path.
pub(crate) struct CopyArgs {
    /// The array: a variable or a field path.
    pub(crate) array: Expr,
    /// The dotted name of `array` (`u`, `self.u`, `w.vel.u1`): its slot's key.
    pub(crate) name: String,
    pub(crate) to_device: bool,
    /// `copy!(x, alloc)`: the device array is allocated, its contents undefined until a
    /// kernel writes it (OpenACC's `create`).
    pub(crate) alloc: bool,
    /// The checked shape, slowest dimension first.
    pub(crate) shape: Option<Expr>,
}

impl syn::parse::Parse for CopyArgs {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<CopyArgs> {
        const FORM: &str = "write `copy!(array, to_device)`, `copy!(array, from_device)` or `copy!(array, alloc)`, with an optional shape `[nz, ny, nx]`; the array is a variable or a field path (`u`, `self.u`, `w.vel.u1`)";
        let array: Expr = input
            .call(Expr::parse_without_eager_brace)
            .map_err(|e| syn::Error::new(e.span(), FORM))?;
        let name = match field_path(&array) {
            Some(n) if n != "self" => n,
            _ => return Err(syn::Error::new(array.span(), FORM)),
        };
        input.parse::<syn::Token![,]>()?;
        let dir: Ident = input.parse()?;
        let (to_device, alloc) = match dir.to_string().as_str() {
            "to_device" | "toDevice" => (true, false),
            "from_device" | "fromDevice" => (false, false),
            "alloc" | "create" => (false, true),
            other => {
                return Err(syn::Error::new(
                    dir.span(),
                    format!(
                        "unknown copy direction `{other}`; use `to_device`, `from_device` or `alloc`"
                    ),
                ));
            }
        };
        let mut shape = None;
        if input.parse::<Option<syn::Token![,]>>()?.is_some() && !input.is_empty() {
            shape = Some(input.parse()?);
            let _ = input.parse::<Option<syn::Token![,]>>()?;
        }
        if !input.is_empty() {
            return Err(input.error("`copy!` takes an array, a direction and an optional shape"));
        }
        Ok(CopyArgs {
            array,
            name,
            to_device,
            alloc,
            shape,
        })
    }
}
