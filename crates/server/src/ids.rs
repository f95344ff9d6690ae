//! Game ids, seat secrets and invite tokens: random, from the operating system.

const ID_ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
const ID_LEN: usize = 12;

/// Whether `id` could be a game's id (12 characters of the id alphabet).
pub fn valid_id(id: &str) -> bool {
    id.len() == ID_LEN && id.bytes().all(|b| ID_ALPHABET.contains(&b))
}

pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    // The OS random source failing is not something a server can go on without: secrets
    // would be guessable.
    getrandom::fill(&mut b).expect("the operating system's random source failed");
    b
}

/// A new game id: about 60 random bits, without letters people confuse (`l`, `o`, `0`, `1`).
pub fn new_id() -> String {
    random_bytes::<ID_LEN>()
        .iter()
        .map(|b| ID_ALPHABET[(*b as usize) % ID_ALPHABET.len()] as char)
        .collect()
}

/// A seat secret or an invite token: 128 random bits as 32 hex digits.
pub fn new_secret() -> String {
    random_bytes::<16>()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A seed for the engine's randomness that differs from game to game (FNV-1a of the id).
pub fn id_seed(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_are_valid_and_secrets_are_hex() {
        for _ in 0..100 {
            assert!(valid_id(&new_id()));
            let s = new_secret();
            assert_eq!(s.len(), 32);
            assert!(s.bytes().all(|b| b.is_ascii_hexdigit()));
        }
        assert!(!valid_id("abcdefghijkl"), "no l");
        assert!(!valid_id("abc"));
    }
}
