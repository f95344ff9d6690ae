//! Password hashes: Argon2id with the `argon2` crate's defaults (19 MiB, 2 passes, 1 lane),
//! OWASP's recommended minimum. Each hash takes tens of milliseconds of one core and 19 MiB.
//!
//! Hashing is **admitted, not queued without end** (issue 36): at most one hash per core runs,
//! at most [`MAX_WAITING_PER_CORE`] per core wait, and past that a login or signup is answered
//! `503 busy` with `Retry-After: 1` at once. Each running hash uses one of a fixed set of
//! 19 MiB buffers, one per core, allocated once and reused: at main 74384e7 every hash
//! allocated its own, and 200 concurrent logins left the server at 3.17 GB of RSS (glibc kept
//! the freed buffers in its per-thread arenas), where it stayed.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::Semaphore;

use crate::error::ApiError;

/// Hashes that may wait for a core, per core. A hash takes about 25 ms of a core (2-core
/// reference machine: 46 hashes/s over both), so a full queue is served within 0.1 s: a
/// newcomer who is let in waits little, and one who is not is told to try again in a second.
pub const MAX_WAITING_PER_CORE: usize = 4;

/// The hashing workers: one permit and one buffer per core.
struct Workers {
    permits: Arc<Semaphore>,
    waiting: AtomicUsize,
    max_waiting: usize,
    buffers: Mutex<Vec<Vec<Block>>>,
}

impl Workers {
    fn new(cores: usize) -> Workers {
        Workers {
            permits: Arc::new(Semaphore::new(cores)),
            waiting: AtomicUsize::new(0),
            max_waiting: MAX_WAITING_PER_CORE * cores,
            buffers: Mutex::new(Vec::new()),
        }
    }
}

static WORKERS: LazyLock<Workers> =
    LazyLock::new(|| Workers::new(std::thread::available_parallelism().map_or(1, |n| n.get())));

/// What is wrong with a hash being made or a stored hash being read (never the password).
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    #[error("{0}")]
    Argon2(argon2::password_hash::Error),
    #[error("not an Argon2id hash")]
    NotArgon2id,
    #[error("no salt or no hash")]
    NoSaltOrHash,
}

// Not `#[from]`: the crate's error is not a std error without its "std" feature.
impl From<argon2::password_hash::Error> for HashError {
    fn from(e: argon2::password_hash::Error) -> HashError {
        HashError::Argon2(e)
    }
}

/// A PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) of `password`.
pub async fn hash(password: String) -> Result<String, ApiError> {
    run(move |memory| {
        let salt =
            SaltString::encode_b64(&crate::ids::random_bytes::<16>()).map_err(HashError::from)?;
        let params = Params::default();
        let out = compute(
            &password,
            &salt,
            &params,
            Params::DEFAULT_OUTPUT_LEN,
            memory,
        )?;
        let phc = PasswordHash {
            algorithm: Algorithm::Argon2id.ident(),
            version: Some(Version::V0x13.into()),
            params: ParamsString::try_from(&params).map_err(HashError::from)?,
            salt: Some(salt.as_salt()),
            hash: Some(out),
        };
        Ok(phc.to_string())
    })
    .await
}

/// [`hash`] on the calling thread, for the command line (`anywoli db reset-password`).
pub fn hash_now(password: &str) -> Result<String, HashError> {
    use argon2::password_hash::PasswordHasher;
    let salt =
        SaltString::encode_b64(&crate::ids::random_bytes::<16>()).map_err(HashError::from)?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(HashError::from)
}

/// Whether `password` is the one `stored` was made from.
pub async fn verify(password: String, stored: String) -> Result<bool, ApiError> {
    run(move |memory| {
        let parsed = PasswordHash::new(&stored).map_err(HashError::from)?;
        if Algorithm::try_from(parsed.algorithm).ok() != Some(Algorithm::Argon2id) {
            return Err(HashError::NotArgon2id);
        }
        let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
            return Err(HashError::NoSaltOrHash);
        };
        let params = Params::try_from(&parsed).map_err(HashError::from)?;
        let salt = SaltString::from_b64(salt.as_str()).map_err(HashError::from)?;
        let out = compute(&password, &salt, &params, expected.len(), memory)?;
        // `Output`'s equality takes the same time wherever the first difference is.
        Ok(out == expected)
    })
    .await
}

/// Argon2id of `password` with `params`, in `memory` (grown if a stored hash asks for more).
fn compute(
    password: &str,
    salt: &SaltString,
    params: &Params,
    len: usize,
    memory: &mut Vec<Block>,
) -> Result<Output, HashError> {
    if memory.len() < params.block_count() {
        memory.resize(params.block_count(), Block::default());
    }
    let mut raw = [0u8; 64];
    let salt = salt.decode_b64(&mut raw).map_err(HashError::from)?;
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    Output::init_with(len, |out| {
        argon
            .hash_password_into_with_memory(password.as_bytes(), salt, out, &mut memory[..])
            .map_err(|_| argon2::password_hash::Error::Crypto)
    })
    .map_err(HashError::from)
}

/// A hash that no password matches, verified when a name is unknown so that an unknown name
/// takes as long to refuse as a wrong password (the time would tell which names exist).
pub const NOBODY: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$W6aO8bVmrEM3F0y5Pn2p2J9+Ow0gXHcKW7iE2hJ8hUo";

/// Gives a waiting place back, however the wait ends (the client may hang up).
struct Waiting(&'static Workers);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::Relaxed);
    }
}

async fn run<T: Send + 'static>(
    job: impl FnOnce(&mut Vec<Block>) -> Result<T, HashError> + Send + 'static,
) -> Result<T, ApiError> {
    run_on(&WORKERS, job).await
}

async fn run_on<T: Send + 'static>(
    w: &'static Workers,
    job: impl FnOnce(&mut Vec<Block>) -> Result<T, HashError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = match w.permits.clone().try_acquire_owned() {
        Ok(p) => p,
        Err(_) => {
            if w.waiting.fetch_add(1, Ordering::Relaxed) >= w.max_waiting {
                w.waiting.fetch_sub(1, Ordering::Relaxed);
                return Err(ApiError::busy(
                    "too many logins at once on this server; try again in a second",
                    1,
                ));
            }
            let _waiting = Waiting(w);
            w.permits
                .clone()
                .acquire_owned()
                .await
                .map_err(|_| ApiError::busy("the server is stopping", 5))?
        }
    };
    // The permit and the buffer go with the job, not with this future: a client that hangs
    // up mid-hash cannot free a core's place while its hash still runs, nor lose a buffer.
    tokio::task::spawn_blocking(move || {
        let mut memory = w
            .buffers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default();
        let r = job(&mut memory);
        w.buffers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(memory);
        drop(permit);
        r
    })
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

    #[tokio::test]
    async fn the_pool_s_hashes_are_the_crate_s() {
        use argon2::password_hash::PasswordVerifier;
        // Ours verified by the crate, and the crate's (the command line's) by ours.
        let ours = hash("tamarind".to_string()).await.unwrap();
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(Argon2::default()
            .verify_password(b"tamarind", &parsed)
            .is_ok());
        assert!(Argon2::default()
            .verify_password(b"tamarinD", &parsed)
            .is_err());
        let theirs = hash_now("okra").unwrap();
        assert!(verify("okra".to_string(), theirs.clone()).await.unwrap());
        assert!(!verify("okrA".to_string(), theirs).await.unwrap());
        // A damaged hash is an error naming the hash, not a refusal or a panic.
        let e = verify(
            "x".to_string(),
            "$argon2id$v=19$m=8,t=1,p=1$bad".to_string(),
        )
        .await
        .unwrap_err();
        assert!(e.message.contains("password hash: "), "{}", e.message);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_flood_is_refused_at_once_past_the_queue_and_memory_stays_bounded() {
        // Workers of its own: the other tests' hashes share the process's.
        let cores = 2;
        let w: &'static Workers = Box::leak(Box::new(Workers::new(cores)));
        let check = |guess: String| {
            run_on(w, move |memory| {
                let parsed = PasswordHash::new(NOBODY).map_err(HashError::from)?;
                let params = Params::try_from(&parsed).map_err(HashError::from)?;
                let salt = SaltString::from_b64(parsed.salt.unwrap().as_str()).unwrap();
                let out = compute(&guess, &salt, &params, 32, memory)?;
                Ok(out == parsed.hash.unwrap())
            })
        };
        let jobs: Vec<_> = (0..200)
            .map(|i| tokio::spawn(check(format!("guess {i}"))))
            .collect();
        let mut refused = 0;
        let mut checked = 0;
        for j in jobs {
            match j.await.unwrap() {
                Ok(right) => {
                    assert!(!right);
                    checked += 1;
                }
                Err(e) => {
                    assert_eq!(
                        (e.status.as_u16(), e.code, e.retry_after),
                        (503, crate::ErrorCode::Busy, Some(1))
                    );
                    refused += 1;
                }
            }
        }
        assert!(
            checked >= cores,
            "the running and waiting ones are checked ({checked})"
        );
        assert!(refused > 0, "200 at once is past the queue");
        let buffers = w.buffers.lock().unwrap().len();
        assert!(buffers <= cores, "one buffer per core at most ({buffers})");
    }
}
