//! The pairings' tests, one module per format, in one test binary.

mod arena;
mod robin;
mod sides;
mod standings;
mod swiss;
