//! What the servers of this test binary log, at every level, in one place: a process has one
//! global `tracing` subscriber, so the modules that look at logs (`accounts` and its
//! PostgreSQL run) share it.

use std::sync::Mutex;

static LOG: Mutex<Vec<u8>> = Mutex::new(Vec::new());

struct LogWriter;

impl std::io::Write for LogWriter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        LOG.lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Everything logged at any level goes to `LOG`.
pub fn capture_logs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(|| LogWriter)
            .finish();
        let _ = tracing::subscriber::set_global_default(subscriber);
    });
}

pub fn logged() -> String {
    String::from_utf8_lossy(&LOG.lock().unwrap_or_else(|e| e.into_inner())).to_string()
}
