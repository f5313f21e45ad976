//! `#[mint::device]`: a function that kernels call (Numba's device functions, OpenACC's
//! `routine seq`, CubeCL's `#[cube]` functions).
//!
//! The function stays an ordinary Rust function, so host code and the CPU backend call it
//! as written; its array parameters accept anything indexed like the array (`ndarray`
//! arrays, and the views the CPU backend runs kernels with). Next to it the macro puts a
//! module of the same name holding the function's IR (`__MINT_DEVICE_FN`), which a kernel
//! that calls it names through the same path it calls it by; the runtime inlines the IR
//! into the kernel before the stencil analyzer runs (`mint_translator::inline`).

use crate::hostty::{HostTy, host_ty};
use crate::lower::{Lowerer, scalar_type};
use mint_translator::baseline::outline;
use mint_translator::ir::{self as ir, DeviceParam, DeviceParamKind, Kernel, ScalarTy};
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, Type};

/// Expands `#[mint::device]` on `item`.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut f: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let mut out = syn::Error::new(
                Span::call_site(),
                "`#[mint::device]` goes on a free function: `#[mint::device] fn dx4(a: &Array3<f32>, z: usize, y: usize, x: usize) -> f32 { .. }`",
            )
            .to_compile_error();
            out.extend(item);
            return out;
        }
    };
    let mut errs: Vec<syn::Error> = Vec::new();
    if !attr.is_empty() {
        errs.push(syn::Error::new(
            attr.span(),
            "`#[mint::device]` takes no arguments",
        ));
    }
    let sig = &f.sig;
    if let Some(a) = &sig.asyncness {
        errs.push(syn::Error::new(
            a.span(),
            "a device function cannot be `async`",
        ));
    }
    let (generics, other) = crate::region::real_generics(&sig.generics);
    for (g, sp) in &other {
        errs.push(syn::Error::new(
            *sp,
            format!("a device function is generic over its precision only: bound `{g}` by `mint::Real` (f32 or f64)"),
        ));
    }
    let is_generic = |t: &Type| matches!(t, Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(|i| generics.iter().any(|g| i == g)));
    let ret = match &sig.output {
        syn::ReturnType::Type(_, t) if is_generic(t) => None,
        syn::ReturnType::Type(_, t) => match scalar_type(t) {
            Some(t) => Some(t),
            None => {
                errs.push(syn::Error::new(
                    t.span(),
                    "a device function returns one number (`-> f32`, `-> f64`, `-> i32`, ..)",
                ));
                None
            }
        },
        syn::ReturnType::Default => {
            errs.push(syn::Error::new(
                sig.ident.span(),
                "a device function returns a number: add `-> f32` (or the type it computes)",
            ));
            None
        }
    };
    // Parameters, and the host function's signature: arrays become `impl Index`, so the
    // CPU backend's views are accepted where the user wrote `&Array3<f32>`.
    let mut params = Vec::new();
    let mut host_inputs = Vec::new();
    for arg in &sig.inputs {
        let pt = match arg {
            FnArg::Receiver(r) => {
                errs.push(syn::Error::new(
                    r.span(),
                    "a device function is a free function, not a method: take the arrays it reads as parameters (`a: &Array3<f32>`)",
                ));
                continue;
            }
            FnArg::Typed(pt) => pt,
        };
        let (name, mutable) = match &*pt.pat {
            Pat::Ident(pi) if pi.subpat.is_none() && pi.by_ref.is_none() => {
                (pi.ident.to_string(), pi.mutability.is_some())
            }
            p => {
                errs.push(syn::Error::new(
                    p.span(),
                    "device function parameters are plain names (`z: usize`, `a: &Array3<f32>`)",
                ));
                continue;
            }
        };
        match (&*pt.ty, host_ty(&pt.ty)) {
            (
                Type::Reference(r),
                HostTy::Array {
                    elem,
                    ndim: Some(ndim),
                    ..
                },
            ) if elem.is_some() || !generics.is_empty() => {
                let mutable = r.mutability.is_some();
                params.push(DeviceParam {
                    name,
                    kind: DeviceParamKind::Array {
                        elem,
                        ndim,
                        mutable,
                    },
                });
                let Some(t) = elem.map(format_ty).or_else(|| elem_tokens(&r.elem)) else {
                    errs.push(syn::Error::new(pt.ty.span(), "cannot tell this array's element type"));
                    continue;
                };
                let index = if ndim == 1 {
                    quote!(usize)
                } else {
                    let n = ndim as usize;
                    quote!([usize; #n])
                };
                let pat = &pt.pat;
                host_inputs.push(if mutable {
                    quote_spanned!(pt.ty.span()=> #pat: &mut (impl ::core::ops::IndexMut<#index, Output = #t> + ?::core::marker::Sized))
                } else {
                    quote_spanned!(pt.ty.span()=> #pat: &(impl ::core::ops::Index<#index, Output = #t> + ?::core::marker::Sized))
                });
            }
            (Type::Reference(r), HostTy::Scalar(_)) => {
                let fix = if r.mutability.is_some() {
                    "a device function takes numbers by value and returns its result: take `x: f32` and return the new value instead of taking `&mut f32`"
                } else {
                    "a device function takes numbers by value: write `x: f32`, not `x: &f32`"
                };
                errs.push(syn::Error::new(pt.ty.span(), fix));
            }
            (t, _) if is_generic(t) => {
                params.push(DeviceParam {
                    name,
                    kind: DeviceParamKind::Scalar { ty: None, mutable },
                });
                host_inputs.push(pt.to_token_stream());
            }
            (t, HostTy::Scalar(ty)) if !matches!(t, Type::Reference(_)) => {
                params.push(DeviceParam {
                    name,
                    kind: DeviceParamKind::Scalar {
                        ty: Some(ty),
                        mutable,
                    },
                });
                host_inputs.push(pt.to_token_stream());
            }
            _ => errs.push(syn::Error::new(
                pt.ty.span(),
                "a device function takes numbers by value (`z: usize`, `c: f32`) and arrays by reference with a concrete element type (`a: &Array3<f32>`, `a: &mut Array2<f64>`, `a: &[f32]`)",
            )),
        }
    }
    // The body, in the kernel language.
    let mut spans: Vec<Span> = vec![sig.ident.span()];
    let scalar_names: Vec<String> = params
        .iter()
        .filter(|p| matches!(p.kind, DeviceParamKind::Scalar { .. }))
        .map(|p| p.name.clone())
        .collect();
    let mut lw = Lowerer::new(&mut spans, &scalar_names);
    lw.generics = generics.clone();
    lw.array_params = params
        .iter()
        .filter_map(|p| match p.kind {
            DeviceParamKind::Array { mutable, .. } => Some((p.name.clone(), mutable)),
            _ => None,
        })
        .collect();
    let lowered = lw.body_and_result(&f.block);
    errs.append(&mut lw.errors);
    let calls = std::mem::take(&mut lw.calls);
    let captures = std::mem::take(&mut lw.captures);
    for c in &captures {
        errs.push(syn::Error::new(
            c.span,
            format!(
                "a device function sees only its parameters and locals; pass `{}` as a parameter",
                c.expr
            ),
        ));
    }
    let fname = sig.ident.to_string();
    for (n, p) in &calls {
        if *n == fname {
            errs.push(syn::Error::new(
                p.span(),
                format!("`{fname}` calls itself; device functions are inlined into kernels, so they cannot recurse: write the recursion as a loop"),
            ));
        }
    }
    let mut json = String::new();
    if let Some((body, result)) = lowered
        && errs.is_empty()
    {
        // Free names must be parameters.
        let (arrays, scalars) = outline::arguments(
            &ir::Block {
                stmts: body
                    .stmts
                    .iter()
                    .cloned()
                    .chain(std::iter::once(ir::Stmt {
                        kind: ir::StmtKind::Let {
                            name: "__mint_result".into(),
                            mutable: false,
                            ty: ret,
                            init: Some(result.clone()),
                        },
                        span: 0,
                    }))
                    .collect(),
            },
            &scalar_names.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        for a in &arrays {
            let is_param = params
                .iter()
                .any(|p| p.name == a.name && matches!(p.kind, DeviceParamKind::Array { .. }));
            if !is_param {
                errs.push(syn::Error::new(
                    spans[a.span as usize],
                    format!("`{}` is not an array parameter of this device function; pass it as `{}: &Array3<f32>` (or the array's type)", a.name, a.name),
                ));
            }
        }
        for s in &scalars {
            errs.push(syn::Error::new(
                spans[s.span as usize],
                format!("`{}` is not a parameter or local of this device function; pass it as a parameter", s.name),
            ));
        }
        // Type-check the body as a one-thread kernel over the parameters.
        if errs.is_empty()
            && let Some(e) = check_types(&fname, &params, ret, &body, &result, &spans)
        {
            errs.push(e);
        }
        let dev = ir::DeviceFn {
            name: fname.clone(),
            params: params.clone(),
            ret,
            body,
            result,
            origin: ir::Origin::default(),
        };
        json = serde_json::to_string(&dev).expect("IR serializes");
    }
    let errors: Vec<TokenStream> = errs.iter().map(syn::Error::to_compile_error).collect();
    // The host function, with array parameters generalized.
    let attrs = &f.attrs;
    let vis = &f.vis;
    let ident = &f.sig.ident;
    let output = &f.sig.output;
    let constness = &f.sig.constness;
    let unsafety = &f.sig.unsafety;
    let gparams = &f.sig.generics.params;
    let gwhere = &f.sig.generics.where_clause;
    let block = &mut f.block;
    // Inlined into each kernel on the CPU as on the GPU (where the translator inlines the
    // IR), so that the caller's row vectorizes; a function that says otherwise keeps it.
    let inline =
        (!attrs.iter().any(|a| a.path().is_ident("inline"))).then(|| quote!(#[inline(always)]));
    let host = quote! {
        #(#attrs)*
        #inline
        #vis #constness #unsafety fn #ident<#gparams>(#(#host_inputs),*) #output #gwhere #block
    };
    // The signature as written, so the imports of its types stay used.
    let sig_alias = quote::format_ident!("__mint_signature_{}", ident);
    let sig_tys: Vec<&Type> = sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            FnArg::Typed(pt) => Some(&*pt.ty),
            FnArg::Receiver(_) => None,
        })
        .collect();
    let tparams: Vec<&syn::Ident> = sig.generics.type_params().map(|p| &p.ident).collect();
    let sig_alias_item = quote! {
        #[doc(hidden)]
        #[allow(dead_code, non_camel_case_types)]
        type #sig_alias<#(#tparams),*> = fn(#(#sig_tys),*) #output;
    };
    // After an error the function's IR is not needed; naming its callees would only add
    // rustc's errors to ours (a cycle for a recursive function).
    let calls = if errs.is_empty() { calls } else { Vec::new() };
    let krate = crate::krate();
    let callees = calls.iter().map(|(n, p)| {
        let dev = quote_spanned!(p.span()=> #p::__MINT_DEVICE_FN);
        quote!((#n, &#dev))
    });
    quote! {
        #(#errors)*
        #host
        #sig_alias_item
        #[doc(hidden)]
        #[allow(non_snake_case, unused_imports)]
        #vis mod #ident {
            use super::*;
            use #krate as __mint_crate;
            /// The device function's IR, which kernels calling it inline.
            pub const __MINT_DEVICE_FN: __mint_crate::__rt::DeviceFnSite =
                __mint_crate::__rt::DeviceFnSite::new(#json, &[#(#callees),*]);
        }
    }
}

/// The element type of an array type as written: `T` in `Array3<T>`, `[T]`, `Vec<T>`.
fn elem_tokens(t: &Type) -> Option<TokenStream> {
    match t {
        Type::Slice(s) => Some(s.elem.to_token_stream()),
        Type::Paren(p) => elem_tokens(&p.elem),
        Type::Path(p) => match &p.path.segments.last()?.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t.to_token_stream()),
                _ => None,
            }),
            _ => None,
        },
        _ => None,
    }
}

fn format_ty(t: ScalarTy) -> TokenStream {
    let i = quote::format_ident!("{}", t.rust_name());
    quote!(#i)
}

/// Type-checks a device function's body as a `single` kernel whose arrays and scalars are
/// its parameters; `None` when it checks (or calls other device functions, whose types
/// only inlining reveals).
fn check_types(
    name: &str,
    params: &[DeviceParam],
    ret: Option<ScalarTy>,
    body: &ir::Block,
    result: &ir::Expr,
    spans: &[Span],
) -> Option<syn::Error> {
    let mut stmts = body.stmts.clone();
    stmts.push(ir::Stmt {
        kind: ir::StmtKind::Let {
            name: "__mint_result".into(),
            mutable: false,
            ty: ret,
            init: Some(result.clone()),
        },
        span: result.span,
    });
    let mut k = Kernel {
        name: name.into(),
        region: name.into(),
        origin: ir::Origin::default(),
        nest: Vec::new(),
        body: ir::Block { stmts },
        arrays: Vec::new(),
        scalars: Vec::new(),
        reduction: None,
        clauses: ir::Clauses::default(),
        options: ir::OptOptions::default(),
    };
    for p in params {
        match &p.kind {
            DeviceParamKind::Array { elem, ndim, .. } => k.arrays.push(ir::ArrayParam {
                name: p.name.clone(),
                elem: elem.unwrap_or(ScalarTy::F64),
                elem_at_launch: elem.is_none(),
                ndim: *ndim,
                read: true,
                written: false,
                span: 0,
            }),
            DeviceParamKind::Scalar { ty, .. } => k.scalars.push(ir::ScalarParam {
                name: p.name.clone(),
                ty: *ty,
                span: 0,
            }),
        }
    }
    let r = if k.types_at_launch() {
        mint_translator::typeck::check_open(&k)
    } else {
        mint_translator::typeck::check(&mut k)
    };
    r.err().and_then(|ds| {
        ds.into_iter().next().map(|d| {
            syn::Error::new(
                spans
                    .get(d.span as usize)
                    .copied()
                    .unwrap_or_else(Span::call_site),
                d.message,
            )
        })
    })
}
