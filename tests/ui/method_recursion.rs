use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[counters]
    pub struct Counters {
        pub total: Sum<u64>,
    }

    #[task]
    pub struct Node {
        pub n: u32,
    }

    pub struct Walker {
        pub depth: u32,
    }

    impl Walker {
        // A method calling itself.
        fn down(&mut self, n: u32) -> u32 {
            if n == 0 { self.depth } else { self.depth += 1; self.down(n - 1) }
        }

        // A method and a helper calling each other.
        fn ping(self, n: u32) -> u32 {
            if n == 0 { 0 } else { pong(self, n - 1) }
        }
    }

    fn pong(w: Walker, n: u32) -> u32 {
        w.ping(n)
    }

    #[spawn]
    fn visit(node: &Node, ctx: &mut Ctx) {
        let mut w = Walker { depth: 0 };
        ctx.counters.total.add((w.down(node.n) + w.ping(node.n)) as u64);
    }
}

fn main() {}
