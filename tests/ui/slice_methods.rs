use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    pub struct P {
        pub a: u32,
    }

    fn change(s: &[u32]) {
        // A shared slice's elements are not changed.
        s.sort_unstable();
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {
        // Floats are not `Ord`: the error shows `total_cmp`.
        let mut f = [1.5f64, 0.5];
        f.sort_unstable();
        let i = f.binary_search(&0.5);
        // `contains` compares with `==`.
        let ps = [P { a: 1 }, P { a: 2 }];
        let has = ps.contains(&P { a: 1 });
        // Methods that yield other slices or allocate.
        let a = [3u32, 1, 2];
        let (l, r) = a.split_at(1);
        let v = a.to_vec();
    }
}

fn main() {}
