use wsdsl::prelude::*;

#[megakernel]
mod m {
    use wsdsl::prelude::*;

    #[task]
    pub struct T {
        pub x: u32,
    }

    pub enum Shape {
        Circle(u32),
        Rect { w: u32, h: u32 },
        Dot,
    }

    pub enum Tagged {
        A(u32) = 3,
        B,
    }

    fn same(a: Shape, b: Shape) -> bool {
        a == b
    }

    fn build(x: u32) -> Shape {
        let _ = Shape::Circle(x, x);
        let _ = Shape::Rect { w: x };
        let f = Shape::Circle;
        match Shape::Dot {
            Shape::Rect(w, h) => Shape::Circle(w + h),
            _ => Shape::Dot,
        }
    }

    #[spawn]
    fn h(t: &T, ctx: &mut Ctx) {}
}

fn main() {}
