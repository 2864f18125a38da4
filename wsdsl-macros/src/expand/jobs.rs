//! The Rust side of data-parallel jobs (`check/jobs.rs`): the generated `Ctx`'s methods,
//! which check their ranges and record the job (`wsdsl_runtime::parallel`), and what the CPU
//! backend needs of the `#[buffers]` struct to run them.

use crate::parse::model::StructDef;
use proc_macro2::TokenStream;
use quote::quote;

/// `BufferSet::job_buffer` and `job_index` for the `#[buffers]` struct `s`.
pub fn buffer_set(s: &StructDef, p: &TokenStream) -> TokenStream {
    let arms = s.buffers.iter().enumerate().map(|(i, b)| {
        let (i, name) = (i as u32, &b.name);
        let kind = if b.read_only { quote!(ReadOnly) } else { quote!(Buffer) };
        quote!(#i => #p::parallel::AsJobBuffer::job_buffer(#p::parallel::Src::#kind(&self.#name)),)
    });
    let finds = s.buffers.iter().enumerate().map(|(i, b)| {
        let (i, name) = (i as u32, &b.name);
        quote!(if ::core::ptr::eq(address, &self.#name as *const _ as *const ()) { return ::core::option::Option::Some(#i); })
    });
    quote! {
        fn job_buffer(&self, index: u32) -> #p::parallel::JobBuffer<'_> {
            match index {
                #(#arms)*
                _ => #p::parallel::JobBuffer::Other,
            }
        }
        fn job_index(&self, address: *const ()) -> ::core::option::Option<u32> {
            #(#finds)*
            ::core::option::Option::None
        }
    }
}

/// The data-parallel methods of the generated `Ctx`.
pub fn ctx_methods(p: &TokenStream) -> TokenStream {
    let range = quote!(::core::ops::Range<usize>);
    let bounds = quote! {
        where
            S: #p::parallel::Source<Elem = T> + #p::DeviceBuffer,
            T: #p::parallel::JobElem,
    };
    quote! {
        /// Copies `src[range]` to `dst[at..at + range.len()]`: a data-parallel job, which the
        /// task waits for like for a child (its complete handler runs when it is done). The
        /// ranges panic as `&s[lo..hi]` does; the destination must not overlap the source.
        #[track_caller]
        pub fn copy<S, T>(&mut self, src: &S, range: #range, dst: &#p::Buffer<T>, at: usize) #bounds {
            #p::parallel::copy(self.spawned, self.buffers, src, range, dst, at)
        }

        /// Merges the sorted runs `src[left]` and `src[right]` into `dst[at..]`, stably (of
        /// equal keys, the left run's first): a data-parallel job (see [`Ctx::copy`]).
        #[track_caller]
        pub fn merge<S, T>(&mut self, src: &S, left: #range, right: #range, dst: &#p::Buffer<T>, at: usize) #bounds {
            #p::parallel::merge(self.spawned, self.buffers, src, left, right, dst, at)
        }

        /// Writes the keys of `src[range]` to `dst[at..]` in ascending order (at most 256 keys;
        /// `dst` may be the source range itself): a data-parallel job (see [`Ctx::copy`]).
        #[track_caller]
        pub fn sort<S, T>(&mut self, src: &S, range: #range, dst: &#p::Buffer<T>, at: usize) #bounds {
            #p::parallel::sort(self.spawned, self.buffers, src, range, dst, at)
        }

        /// Writes the keys of `src[range]` to `dst[at..]`: those below `pivot`, then those
        /// equal to it, then the rest, each in their order. A data-parallel job (see
        /// [`Ctx::copy`]) giving two result words: the keys below and equal to the pivot.
        #[track_caller]
        pub fn partition<S, T>(&mut self, src: &S, range: #range, pivot: T, dst: &#p::Buffer<T>, at: usize) #bounds {
            #p::parallel::partition(self.spawned, self.buffers, src, range, pivot, dst, at)
        }

        /// `dst[at + k] = init + src[lo] + .. + src[lo + k - 1]` (wrapping in the keys' type)
        /// for each key of `src[lo..hi]` (`dst` may be the source range itself): a
        /// data-parallel job (see [`Ctx::copy`]) giving one result word, the total
        /// `init + src[lo] + .. + src[hi - 1]` as a 64-bit integer (`i32` keys total as
        /// `i64`, `u32` keys as `u64`: read it with `ctx.result(k) as i64` or as it is).
        #[track_caller]
        pub fn exclusive_scan<S, T>(&mut self, src: &S, range: #range, init: T, dst: &#p::Buffer<T>, at: usize) #bounds {
            #p::parallel::exclusive_scan(self.spawned, self.buffers, src, range, init, dst, at)
        }

        /// The sum of `src[range]` as a 64-bit integer, as `Iterator::sum` into the wider type
        /// gives it (`i32` keys sum as `i64`, `u32` keys as `u64`; 64-bit keys wrap): a
        /// data-parallel job giving one result word, read with `ctx.result(k) as i64` for
        /// signed keys.
        #[track_caller]
        pub fn reduce_sum<S, T>(&mut self, src: &S, range: #range) #bounds {
            #p::parallel::reduce(self.spawned, self.buffers, #p::parallel::JobKind::ReduceSum, src, range)
        }

        /// The least key of `src[range]` (the type's largest value for an empty range): a
        /// data-parallel job giving one result word.
        #[track_caller]
        pub fn reduce_min<S, T>(&mut self, src: &S, range: #range) #bounds {
            #p::parallel::reduce(self.spawned, self.buffers, #p::parallel::JobKind::ReduceMin, src, range)
        }

        /// The greatest key of `src[range]` (the type's least value for an empty range): a
        /// data-parallel job giving one result word.
        #[track_caller]
        pub fn reduce_max<S, T>(&mut self, src: &S, range: #range) #bounds {
            #p::parallel::reduce(self.spawned, self.buffers, #p::parallel::JobKind::ReduceMax, src, range)
        }

        /// Result word `k` of the jobs the round before started, in the order it called them
        /// (a partition gives two: the keys below and equal to its pivot; a scan its total; a
        /// least or greatest key as its sign-extended bits, `as i32` etc. gives it back; a
        /// sum or a scan's total as a 64-bit integer, `as i64` for signed keys); 0 where they gave
        /// fewer. `k` is below 8.
        #[inline]
        #[track_caller]
        pub fn result(&self, k: usize) -> u64 {
            self.spawned.result(k)
        }
    }
}
