//! # mint-macros
//!
//! The front end of Mint for Rust: the `#[mint::parallel]`, `#[mint::r#for]` and
//! `#[mint::single]` directives (thesis Ch. 3). Use them through the `mint` crate.
//!
//! `#[mint::parallel]` does all the work: it walks the function's body, lowers each
//! annotated loop nest to the translator's IR, type-checks and translates it (so what
//! cannot run on a GPU is a compile error with a span), and generates the host code: the
//! region's device-array table, transfers, launches, swaps of device arrays, and the CPU
//! version of every kernel.

mod clauses;
mod device;
mod directives;
mod faces;
mod hostty;
mod lower;
#[cfg(test)]
mod mutate;
mod region;
#[cfg(test)]
mod roundtrip;
mod rowbase;
mod stream;
mod timeloop;

use proc_macro::TokenStream;

/// Marks a function as a Mint parallel region. Its body is the accelerated region:
/// device arrays live from their first `copy!(x, to_device)` to the end of the function.
///
/// Options (defaults for every kernel of the region; each `#[mint::r#for]` may override
/// them): `register`, `shared` / `shared = N` (1..=8 planes, 0 = off), `prefer_l1`,
/// `unroll`, `same_index`, `vectorize` (16-byte loads along x; README, Optimizer options),
/// `pipeline` (shared-memory planes copied asynchronously, planes ahead of use; README,
/// Optimizer options), `swizzle` (a 3-D kernel's blocks run in bands of y tiles swept
/// along z; README, Optimizer options), `tune` (autotune options, `tile` and `chunksize` at the first launch on a GPU;
/// README, Autotuning).
#[proc_macro_attribute]
pub fn parallel(attr: TokenStream, item: TokenStream) -> TokenStream {
    region::expand(attr.into(), item.into()).into()
}

/// Marks a free function as a device function: kernels may call it, and host code and
/// the CPU backend call it as written.
///
/// ```ignore
/// #[mint::device]
/// fn dx4(a: &Array3<f32>, z: usize, y: usize, x: usize) -> f32 {
///     1.125 * (a[[z, y, x + 1]] - a[[z, y, x]]) - (a[[z, y, x + 2]] - a[[z, y, x - 1]]) / 24.0
/// }
/// ```
///
/// Parameters are numbers by value and arrays by reference (`&Array3<f32>`,
/// `&mut Array2<f64>`, `&[f32]`); the body is the kernel language and ends with the value
/// it returns. A kernel calls it with arrays as `&u` or `&self.u`. The runtime inlines the
/// call into the kernel before the stencil analyzer runs, so `shared`, `register` and
/// `vectorize` see the references it makes. It cannot recurse.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    device::expand(attr.into(), item.into()).into()
}

/// Marks a loop nest inside a `#[mint::parallel]` function as a kernel:
/// `#[mint::r#for(nest(n|all), tile(tx, ty, tz), chunksize(cx, cy, cz), reduction(op: var), nowait, options)]`.
/// `#[mint::parallel]` consumes it; used anywhere else it is an error.
#[proc_macro_attribute]
pub fn r#for(_attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut out: proc_macro2::TokenStream = syn::Error::new(
        proc_macro2::Span::call_site(),
        "`#[mint::r#for]` only works on a loop inside a `#[mint::parallel]` function",
    )
    .to_compile_error();
    out.extend(proc_macro2::TokenStream::from(item));
    out.into()
}

/// Marks a region's time loop for temporal blocking (issue #45):
/// `#[mint::time_loop(block = k)]` on `for _ in a..b { #[mint::r#for(..)] ..; std::mem::swap(u, unew); }`
/// runs `k` steps (odd) per launch on a GPU where the kernel allows it, and step by step
/// elsewhere (the CPU, several devices; `MINT_REPORT=1` says why). `block = auto` times
/// depths 1, 3 and 5 on the loop's first steps and keeps the fastest; `#[mint::time_loop]`
/// alone is `block = auto` for a tuned kernel (`tune`) and one step per launch otherwise.
/// The results are the step-by-step loop's, bit for bit. `#[mint::parallel]` consumes
/// it; used anywhere else it is an error.
#[proc_macro_attribute]
pub fn time_loop(_attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut out: proc_macro2::TokenStream = syn::Error::new(
        proc_macro2::Span::call_site(),
        "`#[mint::time_loop]` only works on a loop inside a `#[mint::parallel]` function",
    )
    .to_compile_error();
    out.extend(proc_macro2::TokenStream::from(item));
    out.into()
}

/// Marks a block inside a `#[mint::parallel]` function to run on the device by one
/// thread. `#[mint::parallel]` consumes it; used anywhere else it is an error.
#[proc_macro_attribute]
pub fn single(_attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut out: proc_macro2::TokenStream = syn::Error::new(
        proc_macro2::Span::call_site(),
        "`#[mint::single]` only works on a block inside a `#[mint::parallel]` function",
    )
    .to_compile_error();
    out.extend(proc_macro2::TokenStream::from(item));
    out.into()
}

/// The path of the facade crate in the crate being compiled: `::mint` (the library name
/// of the `mint-stencil` package), or the name the user gave it when renaming the
/// dependency in Cargo.toml (`m = { package = "mint-stencil", .. }` gives `::m`); the
/// facade's own library does not expand its macros (its doctests are crates of their own
/// named `mint` too). Generated code refers to it as `__mint_crate`.
fn krate() -> proc_macro2::TokenStream {
    let id = proc_macro2::Ident::new(&facade_name(), proc_macro2::Span::call_site());
    quote::quote!(::#id)
}

/// The name the crate being compiled knows the facade by: `mint`, or the name of a
/// renamed dependency. The directives are recognized under both (`#[mint::r#for]`,
/// `#[m::r#for]`).
fn facade_name() -> String {
    use proc_macro_crate::{FoundCrate, crate_name};
    match crate_name("mint-stencil") {
        Ok(FoundCrate::Name(n)) if n != "mint_stencil" => n,
        _ => "mint".into(),
    }
}
