//! Reading the user's tokens: the attribute's arguments (`schedule.rs`), the markers and
//! derives on items (`attr.rs`), and the module as the macro understands it (`model.rs`:
//! classified items with parsed types and C layouts). Bodies stay `syn` here; `check` types
//! them.

pub mod attr;
pub mod model;
pub mod schedule;
