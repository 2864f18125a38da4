use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    pub struct Board {
        pub cells: [u8; 4],
    }

    impl Board {
        fn new() -> Board {
            Board { cells: [0; 4] }
        }

        fn get(&self, i: usize) -> u8 {
            self.cells[i]
        }
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {
        let b = Board::new();
        // No such method; an associated function called as a method; wrong argument count.
        let a = b.put(1);
        let c = b.new();
        let d = b.get(1, 2);
        let e = Board::make();
        let f = t.double();
    }
}

fn main() {}
