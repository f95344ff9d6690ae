//! Password hashes: Argon2id with the `argon2` crate's defaults (19 MiB, 2 passes, 1 lane),
//! OWASP's recommended minimum. Each hash takes tens of milliseconds of one core and 19 MiB,
//! so hashes run on blocking threads, at most [`MAX_AT_ONCE`] together: a flood of logins
//! waits for a permit instead of taking every core and gigabytes of memory.

use std::sync::LazyLock;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use tokio::sync::Semaphore;

use crate::error::ApiError;

/// Hashes computed at once, whatever the number of logins.
pub const MAX_AT_ONCE: usize = 4;

static PERMITS: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(MAX_AT_ONCE));

/// A PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) of `password`.
pub async fn hash(password: String) -> Result<String, ApiError> {
    run(move || hash_now(&password)).await
}

/// [`hash`] on the calling thread, for the command line (`anywoli db reset-password`).
pub fn hash_now(password: &str) -> Result<String, String> {
    let salt =
        SaltString::encode_b64(&crate::ids::random_bytes::<16>()).map_err(|e| e.to_string())?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

/// Whether `password` is the one `stored` was made from.
pub async fn verify(password: String, stored: String) -> Result<bool, ApiError> {
    run(move || {
        let parsed = PasswordHash::new(&stored).map_err(|e| e.to_string())?;
        Ok(Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok())
    })
    .await
}

/// A hash that no password matches, verified when a name is unknown so that an unknown name
/// takes as long to refuse as a wrong password (the time would tell which names exist).
pub const NOBODY: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$W6aO8bVmrEM3F0y5Pn2p2J9+Ow0gXHcKW7iE2hJ8hUo";

async fn run<T: Send + 'static>(
    job: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, ApiError> {
    let _permit = PERMITS
        .acquire()
        .await
        .map_err(|_| ApiError::busy("the server is stopping", 5))?;
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| ApiError::storage(format!("the password task failed: {e}")))?
        // The text names the hash's fault (a damaged stored hash), never the password.
        .map_err(|e| ApiError::storage(format!("password hash: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_differ() {
        let a = hash("correct horse".to_string()).await.unwrap();
        let b = hash("correct horse".to_string()).await.unwrap();
        assert!(a.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{a}");
        assert_ne!(a, b, "each hash has its own salt");
        assert!(!a.contains("correct horse"));
        assert!(verify("correct horse".to_string(), a.clone())
            .await
            .unwrap());
        assert!(!verify("correct horsE".to_string(), a).await.unwrap());
        assert!(!verify("anything".to_string(), NOBODY.to_string())
            .await
            .unwrap());
    }
}
