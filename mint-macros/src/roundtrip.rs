//! Generated kernels printed as Rust (`mint_testing::shrink::regression_test`, the form a
//! shrunk fuzz case is written out in) are regions the macro accepts: for 500 generated
//! cases the printed region parses and expands without a compile error, and its serial twin
//! and test parse.

use quote::ToTokens;

#[test]
fn printed_generated_cases_are_regions_the_macro_accepts() {
    for seed in 1..=500u64 {
        let c = mint_testing::generate::case(seed);
        let text = mint_testing::shrink::regression_test(&c, &format!("fuzz_{seed}"));
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(
            file.items.len(),
            3,
            "seed {seed}: region, serial twin, test"
        );
        let syn::Item::Fn(mut f) = file.items[0].clone() else {
            panic!("seed {seed}: the region is a fn")
        };
        let i = f
            .attrs
            .iter()
            .position(|a| {
                a.path()
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "parallel")
            })
            .expect("#[mint::parallel]");
        let attr = match &f.attrs[i].meta {
            syn::Meta::List(l) => l.tokens.clone(),
            _ => proc_macro2::TokenStream::new(),
        };
        f.attrs.remove(i);
        let out = crate::region::expand(attr, f.into_token_stream()).to_string();
        assert!(!out.contains("compile_error"), "seed {seed}: {out}\n{text}");
    }
}
