//! WebSockets (issue 36): one loop for every socket ([`socket`]) and what clients may hold of
//! them ([`caps`]). The game's events, the lobby and the analysis board are [`socket::Channel`]s:
//! each says what to push and how to answer a message, and the loop owns everything else
//! (keepalive pings, the idle timeout, message size and rate, slow readers, the close).

pub mod caps;
pub mod refusal;
pub mod socket;

pub use caps::{SocketCaps, SocketLimits, SocketPermit};
pub use refusal::{text, SocketError};
pub use socket::{serve, Bounds, Channel};
