use wsdsl::prelude::*;

#[megakernel]
#[allow(non_camel_case_types)]
mod m {
    use wsdsl::prelude::*;

    pub struct u8 {
        pub v: u64,
    }

    pub enum bool {
        No,
        Yes,
    }

    #[task]
    pub struct T {
        pub x: u8,
    }

    #[spawn]
    fn h(t: &T, _ctx: &mut Ctx) {
        let _ = t.x.v;
    }
}

fn main() {}
