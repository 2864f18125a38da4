//! The user's value types as the runtime handles them: the derives it needs, and the device
//! image of each (`DeviceBytes` to write it, `TaskValue` to read a root's value back), field by
//! field at the C offsets the macro computed (`types.rs`, `parse/model/enums.rs`), so that rustc may
//! lay the Rust value out as it likes.

use crate::parse::model::{EnumDef, Module, StructDef, Variant};
use crate::types::{struct_layout, Ty};
use proc_macro2::TokenStream;
use quote::quote;

/// A plain, `#[task]` or `#[params]` struct: the user's item with the derives the runtime
/// needs, and its device image written and read at the C offsets the macro declared the
/// struct with (and CUDA checks with `static_assert`), whatever layout rustc picked.
pub fn value_struct(item: &syn::ItemStruct, s: &StructDef, m: &Module, p: &TokenStream) -> TokenStream {
    let name = &s.name;
    let tys: Vec<&Ty> = s.fields.iter().map(|f| &f.ty).collect();
    let (size, align, offsets) = struct_layout(&tys, &m.layouts);
    let (size, align) = (size as usize, align as usize);
    let writes = s.fields.iter().zip(&offsets).map(|(f, off)| {
        let (fname, off) = (&f.name, *off as usize);
        quote!(#p::DeviceBytes::write_device_bytes(&self.#fname, &mut out[#off..]);)
    });
    let fnames: Vec<&syn::Ident> = s.fields.iter().map(|f| &f.name).collect();
    let offs: Vec<usize> = offsets.iter().map(|o| *o as usize).collect();
    let image = Image {
        size,
        align,
        write: quote!(#(#writes)*),
        read: quote!(#name { #(#fnames: #p::TaskValue::from_device_bytes(&bytes[#offs..]),)* }),
        placeholder: quote!(#name { #(#fnames: #p::TaskValue::placeholder(),)* }),
    };
    let impls = image.impls(name, p);
    quote! {
        #[derive(Clone, Copy, Debug, PartialEq)]
        #item
        #impls
    }
}

/// A field-less enum: `#[repr(u32)]`, its discriminant on the device.
pub fn field_less_enum(e: &EnumDef, p: &TokenStream) -> TokenStream {
    let (item, name) = (&e.item, &e.name);
    let vnames: Vec<&syn::Ident> = e.variants.iter().map(|v| &v.name).collect();
    let discs: Vec<u32> = e.variants.iter().map(|v| v.disc).collect();
    let first = vnames[0];
    let image = Image {
        size: 4,
        align: 4,
        write: quote!(#p::DeviceBytes::write_device_bytes(&(*self as u32), out);),
        read: quote! {
            #[allow(unreachable_patterns)]
            match <u32 as #p::TaskValue>::from_device_bytes(bytes) {
                #(#discs => #name::#vnames,)*
                _ => #name::#first,
            }
        },
        placeholder: quote!(#name::#first),
    };
    let impls = image.impls(name, p);
    quote! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u32)]
        #item
        const _: () = ::core::assert!(::core::mem::size_of::<#name>() == 4, "wsdsl: enums are 32-bit");
        #impls
    }
}

/// An enum with data: the user's item, and its device image (tag, then the variant's fields
/// at the offsets of the C tagged union; `parse/model/enums.rs`).
pub fn tagged_union(e: &EnumDef, m: &Module, p: &TokenStream) -> TokenStream {
    let (item, name) = (&e.item, &e.name);
    let (size, align, _) = e.c_layout(&m.layouts);
    let (size, align) = (size as usize, align as usize);
    let arms = e.variants.iter().map(|v| {
        let tag = v.disc;
        let offsets = e.field_offsets(v, &m.layouts);
        let binds: Vec<proc_macro2::Ident> = (0..v.fields.len()).map(|i| quote::format_ident!("f{i}")).collect();
        let writes = binds.iter().zip(&offsets).map(|(b, off)| {
            let off = *off as usize;
            quote!(#p::DeviceBytes::write_device_bytes(#b, &mut out[#off..]);)
        });
        let pat = variant_expr(name, v, binds.iter().map(|b| quote!(#b)).collect());
        quote!(#pat => {
            #p::DeviceBytes::write_device_bytes(&#tag, out);
            #(#writes)*
        })
    });
    let reads = e.variants.iter().map(|v| {
        let tag = v.disc;
        let offs: Vec<usize> = e.field_offsets(v, &m.layouts).into_iter().map(|o| o as usize).collect();
        let vals = offs.iter().map(|o| quote!(#p::TaskValue::from_device_bytes(&bytes[#o..])));
        let build = variant_expr(name, v, vals.collect());
        quote!(#tag => #build,)
    });
    let first = &e.variants[0];
    let placeholder = variant_expr(name, first, first.fields.iter().map(|_| quote!(#p::TaskValue::placeholder())).collect());
    let image = Image {
        size,
        align,
        write: quote! {
            out[..#size].fill(0);
            match self {
                #(#arms)*
            }
        },
        read: quote! {
            #[allow(unreachable_patterns)]
            match <u32 as #p::TaskValue>::from_device_bytes(bytes) {
                #(#reads)*
                _ => #placeholder,
            }
        },
        placeholder,
    };
    let impls = image.impls(name, p);
    quote! {
        #[derive(Clone, Copy, Debug, PartialEq)]
        #item
        #impls
    }
}

/// A type's device image: its C size and alignment, and the bodies of
/// `DeviceBytes::write_device_bytes` (`self` into `out`), `TaskValue::from_device_bytes`
/// (`bytes` into a value) and `TaskValue::placeholder`.
struct Image {
    size: usize,
    align: usize,
    write: TokenStream,
    read: TokenStream,
    placeholder: TokenStream,
}

impl Image {
    fn impls(&self, name: &syn::Ident, p: &TokenStream) -> TokenStream {
        let Image { size, align, write, read, placeholder } = self;
        quote! {
            impl #p::DeviceBytes for #name {
                const DEVICE_SIZE: usize = #size;
                const DEVICE_ALIGN: usize = #align;
                #[inline]
                fn write_device_bytes(&self, out: &mut [u8]) {
                    #write
                }
            }
            impl #p::TaskValue for #name {
                const DEVICE_BYTES: usize = #size;
                fn from_device_bytes(bytes: &[u8]) -> Self {
                    #read
                }
                fn placeholder() -> Self {
                    #placeholder
                }
            }
        }
    }
}

/// `E::V`, `E::V(a, b)` or `E::V { x: a, y: b }` with these field values in order.
fn variant_expr(name: &syn::Ident, v: &Variant, vals: Vec<TokenStream>) -> TokenStream {
    let vname = &v.name;
    if v.fields.is_empty() {
        quote!(#name::#vname)
    } else if v.named {
        let names = v.fields.iter().map(|f| quote::format_ident!("{}", f.name));
        quote!(#name::#vname { #(#names: #vals),* })
    } else {
        quote!(#name::#vname(#(#vals),*))
    }
}

