//! Spawns through helpers: a helper or method that takes the context may spawn, so a body
//! spawns what it spawns itself and what every function it calls spawns (the join checks,
//! `join.rs`, see what a handler's task hands its complete handler).

use crate::ir::FnBody;

/// Adds to each body's `spawns` those of the functions it calls, directly or not (each task
/// type once per body, at the place the callee spawns it).
pub fn through_calls(bodies: &mut [FnBody]) {
    loop {
        let mut grew = false;
        for i in 0..bodies.len() {
            let mut more = Vec::new();
            for (callee, _) in &bodies[i].calls {
                let Some(c) = bodies.iter().find(|b| &b.name == callee) else { continue };
                for s in &c.spawns {
                    if !bodies[i].spawns.iter().chain(&more).any(|(t, _)| *t == s.0) {
                        more.push(s.clone());
                    }
                }
            }
            grew |= !more.is_empty();
            bodies[i].spawns.extend(more);
        }
        if !grew {
            return;
        }
    }
}
